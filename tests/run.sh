#!/bin/sh
# Run the clmatch test suite: the shared library's exports (tests/lib.sh), the library tests
# (clmatch-tests) and the CLI tests (tests/cli.sh, tests/cli_dna.sh, tests/cli_fastq.sh,
# tests/cli_crispr.sh, tests/cli_multi.sh, tests/cli_devices.sh, tests/cli_grep.sh,
# tests/cli_like.sh and tests/cli_mpi.sh, when present), then print ONE summary line
# "N passed, M failed".
#
#   sh tests/run.sh              the standard run, binaries from build/    (make test)
#   sh tests/run.sh --full       every differential case (GPU machines)    (make test-full)
#   sh tests/run.sh --quick      the quick subset, build/                  (make test-quick)
#   sh tests/run.sh --asan       the quick subset, build-asan/ (ASan+UBSan) (make test-asan)
#   sh tests/run.sh --oclgrind   the quick kernel tests under oclgrind      (make test-oclgrind)
#   sh tests/run.sh --rusticl [--quick|--full]   a set on Mesa's rusticl (llvmpipe) alone
#                                                                          (make test-rusticl)
#
# Arguments after the mode go to clmatch-tests (--filter SUBSTR, --seed N, --times, ...).
# Environment: CLMATCH_PLATFORM / CLMATCH_DEVICE pick the device; CLMATCH_CACHE_DIR, when
# set, is used as is (otherwise a fresh directory, so every run starts cold like CI);
# CLMATCH_TEST_TIMEOUT bounds the clmatch-tests run (seconds, default 1200; 3600 with --oclgrind);
# CLMATCH_TEST_BUILD replaces the build directory (build/, or build-asan/ for --asan).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

# --rusticl picks the platform, then a mode picks the set
rusticl=""
[ "${1:-}" = --rusticl ] && rusticl=yes && shift
mode=default
case "${1:-}" in
--quick | --asan | --oclgrind | --full) mode=${1#--}; shift ;;
esac

# CLMATCH_TEST_BUILD overrides the build directory (e.g. a private one).
B=build
[ "$mode" = asan ] && B=build-asan
B=${CLMATCH_TEST_BUILD:-$B}
# The standard run is sized for CI (2 cores, kernels compiled cold: PoCL spends ~1 s per
# kernel build); --full builds ~3x more kernels.
quick=""
case "$mode" in
full) quick=--full ;;
default) ;;
*) quick=--quick ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

if [ -z "${CLMATCH_CACHE_DIR:-}" ]; then
    CLMATCH_CACHE_DIR=$tmp/cache
    export CLMATCH_CACHE_DIR
fi
# A user's tuning must not change what the tests see: an empty profile directory, no
# CLMATCH_TUNE (the tuning tests set their own).
mkdir -p "$tmp/profiles"
CLMATCH_PROFILE_DIR=$tmp/profiles
export CLMATCH_PROFILE_DIR
unset CLMATCH_TUNE CLMATCH_PROFILE
# The kernel-directory test copies the sources from here.
CLMATCH_TEST_CL_DIR=$root/cl
export CLMATCH_TEST_CL_DIR

if [ -n "$rusticl" ]; then
    # The ICD loader sees rusticl alone (whatever /etc/OpenCL/vendors holds: PoCL, Clover),
    # with its llvmpipe device enabled; its only device is the default.
    mkdir "$tmp/icd" && echo libRusticlOpenCL.so.1 >"$tmp/icd/rusticl.icd" || exit 1
    OCL_ICD_VENDORS=$tmp/icd
    RUSTICL_ENABLE=llvmpipe
    export OCL_ICD_VENDORS RUSTICL_ENABLE
    unset OCL_ICD_FILENAMES CLMATCH_PLATFORM CLMATCH_DEVICE
    if [ -x "$B/clmatch-devices" ] && ! "$B/clmatch-devices" 2>/dev/null | grep -q llvmpipe; then
        echo "not ok - rusticl: no llvmpipe device through libRusticlOpenCL.so.1 (Debian:" \
            "apt-get install mesa-opencl-icd, or sh tools/setup.sh rusticl)"
        echo "0 passed, 1 failed"
        exit 1
    fi
fi

user_args=$#
set -- $quick "$@"
wrap=""
case "$mode" in
asan)
    # Leaks are reported for clmatch-tests (they caught a real one in the host code); the
    # suppressions only cover allocations made inside the OpenCL stack (ICD loader, PoCL and
    # its LLVM, which leak when PoCL compiles a kernel), which clmatch cannot free.
    # For the CLI run leak checking is off: LeakSanitizer's own tracer crashes ("Tracer
    # caught signal 11") at exit of some CLI runs that built several kernels under PoCL.
    # halt_on_error: the first report fails the run.
    printf '%s\n' 'leak:libOpenCL.so' 'leak:libpocl.so' 'leak:libLLVM' 'leak:libclang' \
        >"$tmp/lsan.supp"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1}
    cli_asan_options=$(printf '%s' "$ASAN_OPTIONS" | sed 's/detect_leaks=1/detect_leaks=0/')
    LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$tmp/lsan.supp:print_suppressions=0}
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
    export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
    # Mesa's OpenCL (Clover, rusticl; mesa-opencl-icd, which make test-rusticl installs) leaks
    # when the loader initialises it, in frames LeakSanitizer cannot name: the loader is shown
    # the other installed drivers (the device under test among them) without Mesa's.
    if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -d /etc/OpenCL/vendors ]; then
        mkdir "$tmp/icd-asan" || exit 1
        for f in /etc/OpenCL/vendors/*.icd; do
            case $(cat "$f") in *Rusticl* | *MesaOpenCL*) ;; *) cp "$f" "$tmp/icd-asan/" ;; esac
        done
        OCL_ICD_VENDORS=$tmp/icd-asan
        export OCL_ICD_VENDORS
    fi
    ;;
oclgrind)
    if ! command -v oclgrind >/dev/null 2>&1; then
        echo "not ok - oclgrind: not installed (Debian: apt-get install oclgrind)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    # Kernel memory errors, reads of uninitialised memory, data races and API misuse
    # (CLMATCH_OCLGRIND_FLAGS overrides the checks).
    wrap="oclgrind ${CLMATCH_OCLGRIND_FLAGS:---data-races --uninitialized --check-api} --log $tmp/oclgrind.log"
    # Host-only tests need no simulator; oclgrind runs one kernel at a time (it aborts on
    # kernels launched from two threads); small slabs keep every buffer small.
    # multi.split (8 000 patterns over 512 KiB, twice) would take hours interpreted.
    set -- "$@" --skip api. --skip cache. --skip device. --skip scan.threads --skip multi.split
    CLMATCH_SLAB_BYTES=${CLMATCH_SLAB_BYTES:-65536}
    # Text reaches the device by a plain copy: oclgrind's device counts as a GPU, whose pinned
    # path keeps a mapped staging buffer per slot, and merely allocating that buffer (never
    # read by a kernel) moves oclgrind 21.10 to report uninitialised reads in a later
    # scratch's packed DFA (dna.packed.dfa-upper), with every count right and no access out of
    # bounds: an artefact of its buffer bookkeeping. The kernels are the same on every path.
    CLMATCH_DATA_PATH=${CLMATCH_DATA_PATH:-copy}
    export CLMATCH_SLAB_BYTES CLMATCH_DATA_PATH
    ;;
esac

passed=0
failed=0

# Add the "N passed, M failed" line of log $1 to the totals; a run that ended with status
# $2 != 0 without reporting a failure (crash, sanitizer report) counts as one failure.
tally() {
    line=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$1" | tail -n 1)
    if [ -z "$line" ]; then
        echo "not ok - $3: exited with status $2 without a summary line"
        failed=$((failed + 1))
        return
    fi
    # shellcheck disable=SC2086 # split "N M" into two arguments
    set -- "$@" $line
    passed=$((passed + $4))
    failed=$((failed + $5))
    if [ "$2" -ne 0 ] && [ "$5" -eq 0 ]; then
        echo "not ok - $3: exited with status $2 although every test passed (sanitizer report or crash at exit? see above)"
        failed=$((failed + 1))
    fi
}

# A suite run in the background gets a kernel cache of its own ($tmp/cache-$1) unless the
# caller set one.
own_cache() {
    if [ "$CLMATCH_CACHE_DIR" = "$tmp/cache" ]; then echo "$tmp/cache-$1"; else echo "$CLMATCH_CACHE_DIR"; fi
}

# Wait for the background suite $1 (pid), show its log $2 and count it, its status in file
# $3, as $4.
collect() {
    wait "$1"
    cat "$2"
    bg_rc=$(cat "$3")
    [ "$bg_rc" -eq 124 ] && echo "not ok - $4: killed after ${limit:-?} s"
    tally "$2" "$bg_rc" "$4"
}

# The CLI suites (tests/cli.sh, and the DNA mode's tests/cli_dna.sh: FASTA, IUPAC, strands;
# tests/cli_fastq.sh: FASTQ, gzip; seqkit locate when installed) run beside the library suite, their output shown after it:
# the library suite builds its kernels one after the other and keeps one of CI's two cores
# busy (one after the other the suites took 17.5-22 min cold on 2 cores, close to CI's 20).
# cli.sh gets a kernel cache of its own (own_cache). Under the sanitizer with
# the CLI's options (below); under oclgrind only the library's kernels are checked.
cli_env=""
[ "$mode" = asan ] && cli_env="ASAN_OPTIONS=$cli_asan_options"
# start_suite NAME [own]: tests/NAME.sh in the background, its log and status in $tmp; "own":
# with a kernel cache of its own.
bg_suites=""
start_suite() {
    [ -f "tests/$1.sh" ] && [ "$mode" != oclgrind ] || return 0
    suite_cache=$CLMATCH_CACHE_DIR
    [ "${2:-}" = own ] && suite_cache=$(own_cache "$1")
    # shellcheck disable=SC2086 # $cli_env is empty or one assignment for env
    { env $cli_env CLMATCH_CACHE_DIR="$suite_cache" sh "tests/$1.sh" "$B" >"$tmp/$1.log" 2>&1
      echo $? >"$tmp/rc_$1"; } &
    bg_suites="$bg_suites $1:$!"
}
start_suite cli_dna
start_suite cli_fastq
start_suite cli_crispr
start_suite cli_multi own
start_suite cli_devices own
start_suite cli_grep own
start_suite cli_like
start_suite python
start_suite cli own
# clmatch-mpi: not under the sanitizers (Open MPI's own allocations would be reported as leaks)
[ "$mode" != asan ] && start_suite cli_mpi own

# What an embedding program sees of libclmatch.so (a second; not the kernels: not oclgrind's).
if [ -f tests/lib.sh ] && [ "$mode" != oclgrind ]; then
    sh tests/lib.sh "$B" >"$tmp/lib.log" 2>&1
    lib_rc=$?
    cat "$tmp/lib.log"
    tally "$tmp/lib.log" "$lib_rc" lib.sh
fi

tests_bin=$B/clmatch-tests
if [ ! -x "$tests_bin" ]; then
    echo "not ok - clmatch-tests: $tests_bin not built (run make first)"
    failed=$((failed + 1))
else
    # oclgrind interprets every work-item: its subset takes ~30 min on 2 cores
    # a guard against hangs, not a budget: cold on a busy 2-core VM the standard set took
    # 900-950 s (one test group's time varied 185-239 s from run to run)
    limit=1200
    [ "$mode" = oclgrind ] && limit=3600
    # rusticl's llvmpipe: the standard set took 8.5 min cold on the 2-core VM lightly loaded,
    # 21.5 min under a load of ~5
    [ -n "$rusticl" ] && limit=3600
    limit=${CLMATCH_TEST_TIMEOUT:-$limit}
    tmo=""
    command -v timeout >/dev/null 2>&1 && tmo="timeout $limit"
    # The standard and full sets run as two processes, the differential cases (diff.*) beside
    # the rest, each with a kernel cache of its own (own_cache): PoCL builds
    # a kernel on one thread, so one process left a core of CI's two idle once the CLI suites
    # were done. A run narrowed by arguments (--filter, --skip, ...) stays one process. Under
    # the sanitizers too, the differential cases without the leak check: in make test-asan
    # LeakSanitizer's tracer crashed ("Tracer caught signal 11", no leak reported) at the end
    # of the process that ran them, 8 runs of 8, and never when they ran alone; the other
    # process checks for leaks in the same host code.
    diff_bg=""
    diff_env=""
    [ "$mode" = asan ] && diff_env="ASAN_OPTIONS=$cli_asan_options"
    if [ "$user_args" -eq 0 ] && { [ "$mode" = default ] || [ "$mode" = full ] || [ "$mode" = asan ]; }; then
        # shellcheck disable=SC2086 # $tmo and $wrap are command prefixes, split on purpose
        { env $diff_env CLMATCH_CACHE_DIR="$(own_cache diff)" $tmo $wrap "$tests_bin" "$@" \
              --filter diff. >"$tmp/tests-diff.log" 2>&1; echo $? >"$tmp/rc_diff"; } &
        diff_bg=$!
        set -- "$@" --skip diff.
    fi
    # stdout+stderr to the terminal and to a log; the status through a file (POSIX sh has
    # no pipefail).
    # shellcheck disable=SC2086 # $tmo and $wrap are command prefixes, split on purpose
    { $tmo $wrap "$tests_bin" "$@" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/tests.log"
    rc=$(cat "$tmp/rc")
    [ "$rc" -eq 124 ] && echo "not ok - clmatch-tests: killed after $limit s"
    tally "$tmp/tests.log" "$rc" clmatch-tests
    [ -n "$diff_bg" ] &&
        collect "$diff_bg" "$tmp/tests-diff.log" "$tmp/rc_diff" "clmatch-tests --filter diff."
    if [ "$mode" = oclgrind ] && [ -s "$tmp/oclgrind.log" ]; then
        echo "not ok - oclgrind: kernel errors reported (first lines below)"
        sed -n '1,60p' "$tmp/oclgrind.log" | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
fi

for suite in $bg_suites; do
    name=${suite%%:*}
    collect "${suite#*:}" "$tmp/$name.log" "$tmp/rc_$name" "$name.sh"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
