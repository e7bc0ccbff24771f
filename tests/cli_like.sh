#!/bin/sh
# Tests of clmatch --like / --ilike (tools/like.c): records selected by SQL LIKE patterns,
# byte for byte against grep -x -E (LC_ALL=C) with the pattern translated ('%' -> '.*',
# '_' -> '.', every other byte literal), for lines and NUL-terminated records, -v, -n, -c,
# --row-ids, several files and standard input; escapes and errors checked by hand.
# --contains -k (approximate contains) against a python reference (Sellers' DP, Hamming).
#
# Usage: sh tests/cli_like.sh [BUILD_DIR]   (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" cli_like

# like_re PATTERN: the extended regex of a LIKE pattern without escapes.
like_re() {
    printf '%s' "$1" | sed -e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/%/.*/g' -e 's/_/./g'
}

# vs_grep NAME INPUT "CLMATCH OPTIONS" "GREP OPTIONS" PATTERN: --like PATTERN against
# grep -x -E on the translated pattern (stdout and exit status).
vs_grep() {
    name=$1 in=$2 copts=$3 gopts=$4 pat=$5
    # shellcheck disable=SC2086
    grep -x -E $gopts -e "$(like_re "$pat")" "$in" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    # shellcheck disable=SC2086
    "$CLM" $copts --like "$pat" "$in" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name" "$T/exp" "$T/act" "$T/err"
}

# ---- inputs ------------------------------------------------------------------------------
cat "$ROOT/README.md" "$ROOT"/docs/*.md >"$T/doc"
printf 'special requests\n\nfoo\nSpecial Requests here\nrequests special\n50%% off\na_b\naxb' \
    >"$T/t"

for pat in '%' '' '_' '%the%' 'The%' '%.' '%a%b%c%' '%l_b_a_y%' '#%' '%`%`%' '___' \
    '%special%requests%' 'special requests' '%e%e%e%e%e%e%e%e%'; do
    vs_grep "lines: '$pat'" "$T/doc" "" "" "$pat"
done
vs_grep "crafted: '%special%'" "$T/t" "" "" '%special%'
vs_grep "crafted, no final newline: 'a_b'" "$T/t" "" "" 'a_b'
vs_grep "-v: '%the%'" "$T/doc" "-v" "-v" '%the%'
vs_grep "-n: '%library%'" "$T/doc" "-n" "-n" '%library%'
vs_grep "-c: '%a%'" "$T/doc" "-c" "-c" '%a%'
vs_grep "-c -v: '%a%'" "$T/doc" "-c -v" "-c -v" '%a%'

# --ilike: grep -i
grep -x -i -E -e "$(like_re '%special%requests%')" "$T/t" >"$T/exp"
"$CLM" --ilike '%special%requests%' "$T/t" >"$T/act" 2>"$T/err"
same "--ilike" "$T/exp" "$T/act" "$T/err"

# -i: every pattern an ILIKE
grep -x -i -E -e "$(like_re '%SPECIAL%')" -e "$(like_re 'foo')" "$T/t" >"$T/exp"
"$CLM" -i --like '%SPECIAL%' --like 'foo' "$T/t" >"$T/act" 2>"$T/err"
same "-i" "$T/exp" "$T/act" "$T/err"

# -q: nothing printed, the status says
"$CLM" -q --like '%special%' "$T/t" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
"$CLM" -q --like 'zzz' "$T/t" >>"$T/act" 2>>"$T/err"
echo "exit $?" >>"$T/act"
printf 'exit 0\nexit 1\n' >"$T/exp"
same "-q" "$T/exp" "$T/act" "$T/err"

# --resident: the same records from a column uploaded first; --stats says what ran
"$CLM" --like '%the%' -n "$T/doc" >"$T/exp" 2>&1
"$CLM" --like '%the%' -n --resident "$T/doc" >"$T/act" 2>"$T/err"
same "--resident" "$T/exp" "$T/act" "$T/err"
"$CLM" --like '%the%' -c --resident --stats "$T/doc" >"$T/act" 2>"$T/err"
if grep -q '^clmatch: stats: .*records.*upload .*select .*resident column' "$T/err"; then
    pass "--stats --resident"
else
    fail "--stats --resident" "$(head -n 3 "$T/err")"
fi
# --pivot W: the same records from a pivoted column
for w in 4 16; do
    "$CLM" --like '%the%' -n --pivot "$w" "$T/doc" >"$T/act" 2>"$T/err"
    same "--pivot $w" "$T/exp" "$T/act" "$T/err"
done
"$CLM" --like '%the%' -c --pivot 8 --stats "$T/doc" >"$T/act" 2>"$T/err"
if grep -q '^clmatch: stats: .*resident column, pivoted' "$T/err"; then
    pass "--stats --pivot"
else
    fail "--stats --pivot" "$(head -n 3 "$T/err")"
fi

# several --like: an OR, each record once, in order
grep -x -E -e "$(like_re '%the%')" -e "$(like_re '#%')" "$T/doc" >"$T/exp"
"$CLM" --like '%the%' --like '#%' "$T/doc" >"$T/act" 2>"$T/err"
same "two --like: an OR" "$T/exp" "$T/act" "$T/err"

# an OR of contains (overlapping words): one automaton walk per record, --stats says so
words="the an and code e.g co"
set -- ; gargs=""
for w in $words; do set -- "$@" --like "%$w%"; gargs="$gargs -e $w"; done
# shellcheck disable=SC2086
grep -F $gargs "$T/doc" >"$T/exp"
"$CLM" "$@" --stats "$T/doc" >"$T/act" 2>"$T/err"
same "an OR of contains" "$T/exp" "$T/act" "$T/err"
if grep -q '^clmatch: stats: .*an automaton walk per record' "$T/err"; then
    pass "--stats: an OR of contains walks an automaton"
else
    fail "--stats: an OR of contains walks an automaton" "$(head -n 3 "$T/err")"
fi
# shellcheck disable=SC2086
grep -v -c -i -F $gargs "$T/doc" >"$T/exp"
"$CLM" -v -c -i "$@" "$T/doc" >"$T/act" 2>"$T/err"
same "-v -c -i, an OR of contains" "$T/exp" "$T/act" "$T/err"
set --

# --row-ids: 0-based record numbers, ascending
grep -n -x -E -e "$(like_re '%the%')" "$T/doc" | awk -F: '{ print $1 - 1 }' >"$T/exp"
"$CLM" --like '%the%' --row-ids "$T/doc" >"$T/act" 2>"$T/err"
same "--row-ids" "$T/exp" "$T/act" "$T/err"

# standard input, and several files (names as grep prints them)
grep -x -E -e "$(like_re '%the%')" <"$T/doc" >"$T/exp"
"$CLM" --like '%the%' <"$T/doc" >"$T/act" 2>"$T/err"
same "standard input" "$T/exp" "$T/act" "$T/err"
(cd "$T" && grep -c -x -E -e "$(like_re '%e%')" doc t) >"$T/exp"
(cd "$T" && "$CLM" -c --like '%e%' doc t) >"$T/act" 2>"$T/err"
same "-c, two files" "$T/exp" "$T/act" "$T/err"

# -z: NUL-terminated records
tr '\n' '\0' <"$T/doc" >"$T/docz"
grep -z -x -E -e "$(like_re '%the%')" "$T/docz" >"$T/exp"
"$CLM" -z --like '%the%' "$T/docz" >"$T/act" 2>"$T/err"
same "-z" "$T/exp" "$T/act" "$T/err"

# a file of several MB: read and split into records by several threads (line_records.c),
# records straddling the parts' edges, empty ones, runs of them, with and without a final
# terminator, lines and NUL-terminated
awk 'BEGIN { srand(7); for (i = 0; i < 700000; i++) { n = int(rand() * rand() * 60);
    s = ""; for (j = 0; j < n; j++) s = s substr("abcde ", int(rand() * 6) + 1, 1);
    print s } }' >"$T/big"
for pat in '%ab%' '%a%b%c%' '' '%' 'a%'; do
    vs_grep "several MB: '$pat' -n" "$T/big" "-n" "-n" "$pat"
done
head -c -1 "$T/big" >"$T/big1" # the last record unterminated
vs_grep "several MB, no final newline: -c" "$T/big1" "-c" "-c" '%e'
vs_grep "several MB, no final newline: -v -n" "$T/big1" "-v -n" "-v -n" '%a%'
tr '\n' '\0' <"$T/big" >"$T/bigz"
grep -z -c -x -E -e "$(like_re '%dd%')" "$T/bigz" >"$T/exp"
"$CLM" -z -c --like '%dd%' "$T/bigz" >"$T/act" 2>"$T/err"
same "several MB, -z -c" "$T/exp" "$T/act" "$T/err"
"$CLM" --like '%ab%' -n <"$T/big" >"$T/act" 2>"$T/err"
"$CLM" --like '%ab%' -n "$T/big" >"$T/exp" 2>&1
same "several MB, standard input" "$T/exp" "$T/act" "$T/err"

# escapes: \% \_ \\ are the bytes themselves
printf '50%% off\n50 off\na_b\naxb\na\\b\n' >"$T/e"
printf '50%% off\n' >"$T/exp"
"$CLM" --like '%\%%' "$T/e" >"$T/act" 2>"$T/err"
same "escape: \\%" "$T/exp" "$T/act" "$T/err"
printf 'a_b\n' >"$T/exp"
"$CLM" --like 'a\_b' "$T/e" >"$T/act" 2>"$T/err"
same "escape: \\_" "$T/exp" "$T/act" "$T/err"
printf 'a\\b\n' >"$T/exp"
"$CLM" --like 'a\\b' "$T/e" >"$T/act" 2>"$T/err"
same "escape: \\\\" "$T/exp" "$T/act" "$T/err"

# an empty input has no record; no match is exit 1
: >"$T/empty"
"$CLM" -c --like '%' "$T/empty" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
printf '0\nexit 1\n' >"$T/exp"
same "an empty file: no record" "$T/exp" "$T/act" "$T/err"

# ---- --contains -k: approximate contains against a python reference ----------------------
# ref_contains [-k K] [--hamming] [-i] [-v] [-z] [--like P]... OUT FILE PATTERN...: the records
# within K errors of a PATTERN (Sellers' DP; Hamming: every alignment) or matching a LIKE
# (no escapes), OUT "lines", "n", "c" or "ids" as clmatch prints them.
cat >"$T/ref_contains.py" <<'PY'
import re, sys
a = sys.argv[1:]
k, ham, ci, inv, sep, likes = 0, False, False, False, b"\n", []
while a[0].startswith("-"):
    o = a.pop(0)
    if o == "-k": k = int(a.pop(0))
    elif o == "--hamming": ham = True
    elif o == "-i": ci = True
    elif o == "-v": inv = True
    elif o == "-z": sep = b"\0"
    elif o == "--like": likes.append(a.pop(0).encode())
out, path, pats = a[0], a[1], [p.encode() for p in a[2:]]
def fold(b): return b.lower() if ci else b
def within(t, p):
    t, p, m = fold(t), fold(p), len(p)
    if ham:
        return any(sum(x != y for x, y in zip(t[e - m:e], p)) <= k for e in range(m, len(t) + 1))
    d = list(range(m + 1))
    for c in t:
        prev, d[0] = d[0], 0
        for i in range(1, m + 1):
            prev, d[i] = d[i], min(prev + (p[i - 1] != c), d[i] + 1, d[i - 1] + 1)
        if d[m] <= k: return True
    return False
def like_re(p):
    return re.compile(b"".join(b".*" if c == b"%" else b"." if c == b"_" else re.escape(c)
                               for c in (p[i:i + 1] for i in range(len(p)))) + b"\\Z",
                      re.S | (re.I if ci else 0))
rx = [like_re(p) for p in likes]
data = open(path, "rb").read()
recs = data.split(sep)
if recs and recs[-1] == b"": recs.pop()
sel = [i for i, r in enumerate(recs)
       if (any(within(r, p) for p in pats) or any(x.match(r) for x in rx)) != inv]
w = sys.stdout.buffer
if out == "c": w.write(b"%d\n" % len(sel))
for i in sel if out != "c" else []:
    if out == "ids": w.write(b"%d\n" % i)
    elif out == "n": w.write(b"%d:%s%s" % (i + 1, recs[i], sep))
    else: w.write(recs[i] + sep)
sys.exit(0 if sel else 1)
PY

# vs_contains NAME OUT "CLMATCH OPTIONS" "REF OPTIONS" FILE PATTERN...: stdout and status
vs_contains() {
    name=$1 out=$2 copts=$3 ropts=$4 in=$5
    shift 5
    # shellcheck disable=SC2086
    python3 "$T/ref_contains.py" $ropts "$out" "$in" "$@" >"$T/exp" 2>&1
    echo "exit $?" >>"$T/exp"
    cargs=
    for p in "$@"; do cargs="$cargs --contains=$p"; done
    oflag=
    case $out in n) oflag=-n ;; c) oflag=-c ;; ids) oflag=--row-ids ;; esac
    # shellcheck disable=SC2086
    "$CLM" $copts $oflag $cargs "$in" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name" "$T/exp" "$T/act" "$T/err"
}

if command -v python3 >/dev/null 2>&1; then
    # records over a small alphabet: occurrences within k errors are frequent
    awk 'BEGIN { srand(19); for (i = 0; i < 600; i++) { n = int(rand() * 30); s = "";
         for (j = 0; j < n; j++) s = s substr("abcA", int(rand() * 4) + 1, 1); print s } }' \
        >"$T/abc"
    vs_contains "--contains abcab (exact)" lines "" "" "$T/abc" abcab
    for k in 1 2 3; do
        vs_contains "--contains abcab -k $k" lines "-k $k" "-k $k" "$T/abc" abcab
        vs_contains "--contains abcab -k $k --mismatches-only -n" n \
            "-k $k --mismatches-only" "-k $k --hamming" "$T/abc" abcab
    done
    vs_contains "--contains -k 2 -i -c" c "-k 2 -i" "-k 2 -i" "$T/abc" aaaa
    vs_contains "--contains -k 1 -v --row-ids" ids "-k 1 -v" "-k 1 -v" "$T/abc" abca
    vs_contains "two --contains -k 1: an OR" lines "-k 1" "-k 1" "$T/abc" cccc bbbbb
    vs_contains "--contains on prose, -k 2" n "-k 2" "-k 2" "$T/doc" 'approximate' 'Levenstein'
    vs_contains "--contains -k 1 --like: an OR" lines "-k 1 --like=A%" "-k 1 --like A%" \
        "$T/abc" cbcb
    vs_contains "--contains -k 1 -i -v -c with two --like: one predicate" c \
        "-k 1 -i -v --like=%ab% --like=c%" "-k 1 -i -v --like %ab% --like c%" "$T/abc" cbcb aaa
    tr '\n' '\0' <"$T/abc" >"$T/abcz"
    vs_contains "--contains -z -k 1" lines "-z -k 1" "-z -k 1" "$T/abcz" baca
else
    echo "# python3 unavailable: --contains checks against the python reference skipped"
fi
expect_error "-k without --contains" 2 "applies to --contains" "$CLM" --like '%' -k 1 "$T/t"
expect_error "--mismatches-only without -k" 2 "needs -k" "$CLM" --contains ab \
    --mismatches-only "$T/t"
expect_error "-k not below the pattern length" 2 "below its length" "$CLM" --contains ab \
    -k 2 "$T/t"
expect_error "-k above the most" 2 "CLM_APPROX_MAX_ERRORS" "$CLM" --contains abcdefghijkl \
    -k 9 "$T/t"
expect_error "a --contains pattern too long" 2 "CLM_APPROX_MAX_PATTERN" "$CLM" --contains \
    "$(printf '%065d' 0)" "$T/t"
expect_error "an empty --contains pattern" 2 "empty" "$CLM" --contains '' "$T/t"
expect_error "-k not a number" 2 "invalid number of errors" "$CLM" --contains ab -k x "$T/t"

# ---- documentation: --help and docs/cli.md's section name every option of the mode --------
"$CLM" --like --help >"$T/help" 2>&1
sed -n '/^## Records and SQL LIKE/,/^## Is my GPU/p' "$ROOT/docs/cli.md" >"$T/section"
missing=""
for o in $(sed -n '/long_options\[\] = {/,/CLI_DEVICE_LONG_OPTIONS/p' "$ROOT/tools/like.c" |
    sed -n 's/.*{"\([a-z-]*\)".*/\1/p'); do
    grep -q -e "--$o\b" "$T/help" || missing="$missing --help:--$o"
    grep -q -e "--$o\b" "$T/section" || missing="$missing cli.md:--$o"
done
if [ -n "$(sed -n '/long_options\[\] = {/,/CLI_DEVICE/p' "$ROOT/tools/like.c")" ] &&
    [ -z "$missing" ]; then
    pass "--like --help and docs/cli.md name every option of the mode"
else
    fail "--like --help and docs/cli.md name every option of the mode" "missing:$missing"
fi

# ---- --devices: the records split across two PoCL devices, as one device prints ----------
# POCL_DEVICES="pthread pthread" gives a platform two CPU devices ("P:0,P:1"); without one
# the split cases are skipped (the refusals still run).
pair=$(POCL_DEVICES="pthread pthread" "$CLM" --list-devices | awk '
    { k = $1 ~ /^[0-9]+:[0-9]+$/ ? 1 : 0 } !k && $2 ~ /^[0-9]+:[0-9]+$/ { k = 2 }
    k && $(k + 1) == "CPU" { split($k, a, ":")
    if (a[2] < 2 && ++n[a[1]] == 2) { print a[1] ":0," a[1] ":1"; exit } }')
for i in 1 2 3 4 5 6 7 8; do cat "$T/doc"; done >"$T/doc8"
for args in "--like %the%" "--ilike %THE%CODE% -n" "-v --like %a% -c" \
    "--like %_e% --contains devise -k 1 --row-ids" "--contains mismatch -k 2 --mismatches-only -n"; do
    if [ -z "$pair" ]; then
        pass "--devices $args (skipped: no platform with two CPU devices)"
        continue
    fi
    # shellcheck disable=SC2086 # args holds several options
    POCL_DEVICES="pthread pthread" "$CLM" -p "${pair%%:*}" -d 0 $args "$T/doc8" >"$T/exp" 2>&1
    # shellcheck disable=SC2086
    POCL_DEVICES="pthread pthread" "$CLM" --devices "$pair" $args "$T/doc8" >"$T/act" 2>"$T/err"
    same "--devices $pair $args: as one device" "$T/exp" "$T/act" "$T/err"
done
expect_error "--devices auto" 2 "takes P:D" "$CLM" --like '%' --devices auto "$T/t"
expect_error "--devices with --resident" 2 "exclude each other" "$CLM" --like '%' \
    --devices all --resident "$T/t"
expect_error "--pivot 3" 2 "4, 8 or 16" "$CLM" --like '%' --pivot 3 "$T/t"
expect_error "--pivot x" 2 "invalid --pivot" "$CLM" --like '%' --pivot x "$T/t"
expect_error "--devices with -p" 2 "exclude each other" "$CLM" --like '%' --devices all -p 0 "$T/t"
expect_error "--devices with an unknown device" 2 "" "$CLM" --like '%' --devices 0:99 "$T/t"

expect_error "a trailing escape" 2 "escape byte .* ends the pattern" "$CLM" --like 'ab\' "$T/t"
expect_error "a missing file" 2 "no such file" "$CLM" --like '%' "$T/nonexistent"
expect_error "an unknown option" 2 "" "$CLM" --like '%' --frobnicate "$T/t"

cli_summary
