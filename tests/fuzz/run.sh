#!/bin/sh
# make fuzz: run every libFuzzer target built into BUILD_DIR (tests/fuzz/fuzz_NAME.c ->
# BUILD_DIR/fuzz_NAME), one after the other, each for FUZZ_SECONDS seconds (default 60) or,
# when FUZZ_RUNS is set, that many executions (FUZZ_SEED fixes libFuzzer's seed). New inputs
# go to a scratch directory that is removed afterwards; tests/fuzz/corpus/NAME/ is only read,
# so the committed corpus never grows. Prints per target the executions done; a crash, leak, sanitizer report or timeout
# fails the run, with the report and the input saved under BUILD_DIR/artifacts/NAME/.
# Usage: sh tests/fuzz/run.sh [BUILD_DIR]   (from the repository root)
set -u

b=${1:-build-fuzz}
secs=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
if [ -n "$runs" ]; then limit="-runs=$runs"; else limit="-max_total_time=$secs"; fi
# FUZZ_SEED: the same mutations on every run (CI), else libFuzzer picks a seed
seed=${FUZZ_SEED:+-seed=$FUZZ_SEED}

failed=""
count=0
start=$(date +%s)
for src in tests/fuzz/fuzz_*.c; do
    [ -e "$src" ] || continue
    name=${src#tests/fuzz/fuzz_}
    name=${name%.c}
    bin=$b/fuzz_$name
    if [ ! -x "$bin" ]; then
        echo "fuzz $name: $bin is missing (make fuzz-build)" >&2
        failed="$failed $name"
        continue
    fi
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-fuzz-$name.XXXXXX") || exit 2
    seeds=tests/fuzz/corpus/$name
    [ -d "$seeds" ] || seeds=""
    art=$b/artifacts/$name
    mkdir -p "$art"
    log=$art/log
    t0=$(date +%s)
    # -close_fd_mask=3: the code under test may print (the CLI's messages); libFuzzer and the
    # sanitizers report on a copy of stderr, which the log keeps.
    "$bin" "$limit" $seed -timeout=10 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$art/" "$scratch" $seeds >"$log" 2>&1
    rc=$?
    t1=$(date +%s)
    rm -rf "$scratch"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
    count=$((count + 1))
    if [ "$rc" -eq 0 ]; then
        printf 'fuzz %-16s ok: %s executions in %s s (%s/s), peak RSS %s MB\n' "$name" \
            "${execs:-?}" "$((t1 - t0))" "${rate:-?}" "${rss:-?}"
    else
        printf 'fuzz %-16s FAILED (exit %s) after %s executions; report and input in %s/\n' \
            "$name" "$rc" "${execs:-?}" "$art" >&2
        grep -E '^(==[0-9]+==|SUMMARY|.*runtime error|ERROR: libFuzzer|artifact_prefix|Test unit)' \
            "$log" | head -n 20 >&2
        failed="$failed $name"
    fi
done
end=$(date +%s)
if [ "$count" -eq 0 ] && [ -z "$failed" ]; then
    echo "fuzz: no target in tests/fuzz/" >&2
    exit 2
fi
if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed ($((end - start)) s)" >&2
    exit 1
fi
echo "fuzz: $count targets, no finding ($((end - start)) s)"
