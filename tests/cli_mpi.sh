#!/bin/sh
# Tests of clmatch-mpi: 1 to 4 ranks on this machine print byte for byte what one clmatch
# prints (lines, -n, -b, -H, -c, -o, --positions, --count-matches, -i, -k, -e, -f) on random
# text, text that matches everywhere, matches and lines across the parts' edges and files
# smaller than the number of ranks; bad input (a missing file, a refused option) gives one
# message and status 2. Skipped, with a "skip" line, when mpirun or clmatch-mpi is absent.
#
# Usage: sh tests/cli_mpi.sh [BUILD_DIR]
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" cli_mpi
MPI=$B/clmatch-mpi
case $MPI in /*) ;; *) MPI=$(pwd)/$MPI ;; esac
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$MPI" ]; then
    echo "skip - cli_mpi.sh: no mpirun or no $MPI (Debian: apt-get install libopenmpi-dev" \
        "openmpi-bin, then make)"
    cli_summary
    exit
fi

# Open MPI in a container: this host alone (no ssh), shared memory between the ranks, more
# ranks than cores, root allowed.
OMPI_MCA_plm_rsh_agent=false
OMPI_MCA_btl=self,vader
OMPI_MCA_btl_vader_single_copy_mechanism=none
OMPI_MCA_rmaps_base_oversubscribe=1
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm_rsh_agent OMPI_MCA_btl OMPI_MCA_btl_vader_single_copy_mechanism \
    OMPI_MCA_rmaps_base_oversubscribe OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# A hang (ranks that disagree on a collective step) fails the check instead of the suite.
MPIRUN=mpirun
command -v timeout >/dev/null 2>&1 && MPIRUN="timeout 60 mpirun"

# vs K FILE NAME ARGS...: clmatch-mpi on K ranks against clmatch, stdout and exit status.
# clmatch runs under mpirun too: a host's MPI may give its ranks another environment (on
# one GPU machine OCL_ICD_FILENAMES named PoCL alone), and both must see the same devices.
vs() {
    k=$1 file=$2 name=$3
    shift 3
    $MPIRUN -n 1 "$CLM" "$@" "$file" >"$T/exp" 2>"$T/err"
    echo "exit $?" >>"$T/exp"
    $MPIRUN -n "$k" "$MPI" "$@" "$file" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name, $k ranks" "$T/exp" "$T/act" "$T/err"
}

# Random text: short words of few letters (many matches, some lines without), lines of 0 to
# 80 bytes, a last line without newline.
awk 'BEGIN { srand(11); for (l = 0; l < 3000; l++) { s = ""; n = int(rand() * 12)
             for (w = 0; w < n; w++) { m = 1 + int(rand() * 5); x = ""
                 for (j = 0; j < m; j++) x = x substr("abcdeAB\\", 1 + int(rand() * 8), 1)
                 s = s x " " }
             print s }
             printf "abc abc" }' >"$T/rand"
printf 'cab\nabd\n' >"$T/pats"

for k in 2 3 4; do
    vs $k "$T/rand" "-n -b" -n -b abc
    vs $k "$T/rand" "-o -n -b, several patterns" -o -n -b -e ab -e bca -e 'a b'
    vs $k "$T/rand" "-k 1 --positions" -k 1 --positions abcd
done
vs 3 "$T/rand" "lines" abc
vs 3 "$T/rand" "-c -i" -c -i abc
vs 3 "$T/rand" "--positions, -f" --positions -f "$T/pats" -e dd
vs 3 "$T/rand" "-k 1 -o -n" -k 1 -o -n 'b\\a'
vs 3 "$T/rand" "--count-matches" --count-matches a
vs 3 "$T/rand" "-H -n" -H -n -F 'e\'
vs 3 "$T/rand" "classes" -n '[AB]b.'
vs 3 "$T/rand" "no match" -n zzzz
vs 1 "$T/rand" "-n -o" -n -o -i ab

# Every byte matches: parts cut inside matches and lines.
awk 'BEGIN { for (l = 0; l < 500; l++) { s = ""; for (j = 0; j < l % 37; j++) s = s "a"
             print s } }' >"$T/all"
for k in 2 4; do
    vs $k "$T/all" "all match, --positions" --positions aaa
done
vs 3 "$T/all" "all match, -n" -n a
vs 3 "$T/all" "all match, -o -b -k 2" -o -b -k 2 aaaaa

# One line, no newline: line output goes to the rank whose part holds the line start.
awk 'BEGIN { for (i = 0; i < 4001; i++) printf "needle" }' >"$T/line"
vs 3 "$T/line" "one long line, --positions" --positions needle
vs 2 "$T/line" "one long line, -c" -c eedle
vs 4 "$T/line" "one long line, -o -b" -o -b dlen

# Files smaller than the number of ranks: empty parts.
printf 'a' >"$T/one"
: >"$T/empty"
printf 'ab\nb\n' >"$T/tiny"
vs 4 "$T/one" "1 byte, -n" -n a
vs 4 "$T/empty" "empty file, -c" -c a
vs 4 "$T/tiny" "5 bytes, -n" -n b

# mpi_error NAME REGEX ARGS...: status 2 and exactly one "clmatch: " message matching REGEX.
mpi_error() {
    name=$1 re=$2
    shift 2
    $MPIRUN -n 3 "$MPI" "$@" >"$T/act" 2>"$T/err"
    rc=$?
    n=$(grep -c '^clmatch: ' "$T/err")
    if [ $rc -ne 2 ]; then
        fail "$name" "exit $rc, want 2; stderr: $(head -n 3 "$T/err")"
    elif [ "$n" -ne 1 ] || ! grep -qiE -- "$re" "$T/err"; then
        fail "$name" "want one message like /$re/, got $n: $(grep '^clmatch: ' "$T/err")"
    else
        pass "$name"
    fi
}
mpi_error "a missing file" "no-such-file: No such file" -n a "$T/no-such-file"
mpi_error "-w is refused" "does not take -w" -w a "$T/rand"
mpi_error "two files are refused" "one FILE" a "$T/rand" "$T/tiny"
mpi_error "a missing -f file" "no-such-patterns" -f "$T/no-such-patterns" "$T/rand"
# mpirun gives standard input to rank 0 alone: the other ranks would search no pattern
mpi_error "-f - is refused" "-f -" -f - "$T/rand" <"$T/pats"

# One rank alone fails (its device does not exist): that rank says so, rank 0 prints
# nothing, and every rank exits with 2 (no rank waits for it).
$MPIRUN -n 1 "$MPI" -n a "$T/rand" : -n 1 env CLMATCH_DEVICE=99 "$MPI" -n a "$T/rand" \
    >"$T/act" 2>"$T/err"
rc=$?
n=$(grep -c '^clmatch: .*device' "$T/err")
if [ $rc -eq 2 ] && [ "$n" -ge 1 ] && grep -q '^clmatch: rank 1 of 2 ' "$T/err" &&
    [ ! -s "$T/act" ]; then
    pass "one rank's device fails: its message, status 2"
else
    fail "one rank's device fails: its message, status 2" \
        "exit $rc, $(wc -c <"$T/act") bytes out; $(grep '^clmatch: ' "$T/err" | head -n 3)"
fi

# Ranks that see different files (no shared file system): one message, status 2, no output.
mkdir "$T/a" "$T/b" && printf 'abc\n' >"$T/a/f" && printf 'abcabc\nabc\n' >"$T/b/f"
(cd "$T/a" && $MPIRUN -n 1 "$MPI" -n abc f : -n 1 sh -c "cd '$T/b' && exec '$MPI' -n abc f") \
    >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q '^clmatch: the ranks see different FILEs' "$T/err" &&
    [ ! -s "$T/act" ]; then
    pass "ranks that see different files"
else
    fail "ranks that see different files" \
        "exit $rc, $(head -c 200 "$T/act"); $(grep '^clmatch: ' "$T/err" | head -n 3)"
fi

cli_summary
