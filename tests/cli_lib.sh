# Helpers shared by the CLI test scripts (tests/cli.sh, tests/cli_dna.sh), which source this
# file (POSIX sh) after setting ROOT to the repository root:
#
#   cli_init BUILD_DIR TAG   B, CLM (absolute path of BUILD_DIR/clmatch; exit 2 when it is not
#                            built), LC_ALL=C, T (a temporary directory clmatch-TAG.XXXXXX,
#                            removed at exit), CLMATCH_CACHE_DIR (default $T/cache: kernels
#                            built once per run), the pass/fail counters
#   pass NAME / fail NAME [DETAIL] / same NAME EXPECTED ACTUAL [STDERR]
#   expect_error NAME WANT_STATUS REGEX CMD...
#   cli_summary              the last line, "N passed, M failed"; status non-zero when M > 0
#   dna_ref_init             REF (tests/ref_dna.py) and HAVE_PY (1 when python3 runs, else
#                            empty after a note), for the DNA mode's scripts
#   vs_ref NAME FILES ARGS...  clmatch --dna against REF (cli_dna.sh, cli_fastq.sh)

# cli_init BUILD_DIR TAG
cli_init() {
    B=${1:-build}
    CLM=$B/clmatch
    LC_ALL=C
    export LC_ALL
    if [ ! -x "$CLM" ]; then
        echo "$(basename "$0"): $CLM not found (build it: make B=$B $CLM)" >&2
        exit 2
    fi
    case $CLM in /*) ;; *) CLM=$(pwd)/$CLM ;; esac

    T=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-$2.XXXXXX") || exit 2
    trap 'rm -rf "$T"' EXIT
    trap 'exit 130' INT TERM
    # A private program cache: built kernels are reused across this run only.
    : "${CLMATCH_CACHE_DIR:=$T/cache}"
    export CLMATCH_CACHE_DIR

    passed=0
    failed=0
}

pass() {
    passed=$((passed + 1))
    printf 'ok - %s\n' "$1"
}
# fail NAME [DETAIL]
fail() {
    failed=$((failed + 1))
    printf 'not ok - %s\n' "$1"
    if [ $# -gt 1 ] && [ -n "$2" ]; then printf '%s\n' "$2" | head -n 12 | sed 's/^/#   /'; fi
}
# same NAME EXPECTED_FILE ACTUAL_FILE [STDERR_FILE]
same() {
    if cmp -s "$2" "$3"; then
        pass "$1"
    else
        detail=$(diff "$2" "$3" | head -n 8 | cut -c 1-160)
        if [ $# -gt 3 ] && [ -s "$4" ]; then detail="$detail
stderr: $(head -n 3 "$4")"; fi
        fail "$1" "$detail"
    fi
}

# expect_error NAME WANT_STATUS REGEX CMD...: exit status and a stderr message (grep -iE;
# REGEX "=TEXT": the fixed string TEXT, grep -iF). With WANT_STATUS 2 the message must carry
# the "clmatch: " prefix.
expect_error() {
    name=$1 want=$2 re=$3
    shift 3
    case $re in =*) gopt=-qiF re=${re#=} ;; *) gopt=-qiE ;; esac
    "$@" >"$T/act" 2>"$T/err"
    rc=$?
    if [ $rc -ne "$want" ]; then
        fail "$name" "exit $rc, want $want; stderr: $(head -n 3 "$T/err")"
    elif ! grep $gopt -- "$re" "$T/err"; then
        fail "$name" "stderr does not match /$re/: $(head -n 3 "$T/err")"
    elif [ "$want" -eq 2 ] && ! grep -q '^clmatch: ' "$T/err"; then
        fail "$name" "stderr lacks the 'clmatch: ' prefix: $(head -n 3 "$T/err")"
    else
        pass "$name"
    fi
}

cli_summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

dna_ref_init() {
    REF="$ROOT/tests/ref_dna.py"
    HAVE_PY=
    if command -v python3 >/dev/null 2>&1; then HAVE_PY=1; else
        echo "# python3 unavailable: checks against tests/ref_dna.py skipped"
    fi
}

# vs_ref NAME FILES ARGS...: clmatch --dna ARGS on each of FILES against ref_dna.py ARGS on the
# first (FILES hold the same records written differently: the reference is computed once).
# Compares stdout and the exit status. VS_REF_PATHS (e.g. "host device"): each file once per
# --line-breaks value (FASTA's host and device paths); empty: the default path alone.
vs_ref() {
    name=$1 files=$2
    shift 2
    python3 "$REF" "$@" "${files%% *}" >"$T/exp" 2>"$T/referr"
    echo "exit $?" >>"$T/exp"
    for f in $files; do
        for p in ${VS_REF_PATHS:-default}; do
            lb="--line-breaks=$p" tag=", $p path"
            [ "$p" = default ] && lb="" tag=""
            # shellcheck disable=SC2086 # $lb is empty or one option
            "$CLM" --dna $lb "$@" "$f" >"$T/act" 2>"$T/err"
            echo "exit $?" >>"$T/act"
            same "$name [$(basename "$f")$tag]" "$T/exp" "$T/act" "$T/err"
        done
    done
}
