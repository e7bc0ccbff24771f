#!/bin/sh
# The clmatch benchmark (what `make bench` runs after building everything).
#
# Usage: sh bench/run.sh [ARGS...]        e.g. sh bench/run.sh --quick
#                                              sh bench/run.sh --suite basic --device 1:0
#                                              sh bench/run.sh --suite approx --size 1G
# ARGS go to build/clmatch-bench (see `build/clmatch-bench --help` and bench/README.md).
# Environment:
#   BENCH_ARGS   extra arguments, placed before ARGS (so `BENCH_ARGS=--quick make bench` works)
#   BENCH_BIN    the bench program (default build/clmatch-bench; e.g. build-bench/clmatch-bench)
#   CLMATCH_*    read by the library as usual (CLMATCH_CACHE=off, CLMATCH_KERNEL_DIR, ...)
# Writes bench/results/<host>-<date>[-<suites>][-partial][-quick].md and .csv and prints the
# markdown report (bench/README.md: suites, scenarios, how to read the auto summary).
# This script builds nothing: run `make` (or `make bench`) first.
set -eu
cd "$(dirname "$0")/.."

bin=${BENCH_BIN:-build/clmatch-bench}
if [ ! -x "$bin" ]; then
    echo "bench/run.sh: $bin is missing; build it with: make" >&2
    exit 2
fi

# The real genome: the bench replicates it to the target size.
genome=$(sh tools/fetch-genome.sh) || {
    echo "bench/run.sh: could not fetch the genome (tools/fetch-genome.sh)" >&2
    exit 2
}

# The multi suite's English corpus (bench/fetch-corpus.sh), fetched only when a run may
# want it: an offline host must not wait on apt for the other suites.
case " ${BENCH_ARGS:-} $* " in
    *multi*)
        corpus=$(sh bench/fetch-corpus.sh) || {
            echo "bench/run.sh: could not fetch the corpus (bench/fetch-corpus.sh)" >&2
            exit 2
        }
        set -- --corpus "$corpus" "$@" ;;
esac

# BENCH_ARGS is split on spaces on purpose: it is a list of options.
# shellcheck disable=SC2086
exec "$bin" --genome "$genome" ${BENCH_ARGS:-} "$@"
