#!/bin/sh
# Tests of clmatch --like / --ilike (tools/like.c): records selected by SQL LIKE patterns,
# byte for byte against grep -x -E (LC_ALL=C) with the pattern translated ('%' -> '.*',
# '_' -> '.', every other byte literal), for lines and NUL-terminated records, -v, -n, -c,
# --row-ids, several files and standard input; escapes and errors checked by hand.
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

# several --like: an OR, each record once, in order
grep -x -E -e "$(like_re '%the%')" -e "$(like_re '#%')" "$T/doc" >"$T/exp"
"$CLM" --like '%the%' --like '#%' "$T/doc" >"$T/act" 2>"$T/err"
same "two --like: an OR" "$T/exp" "$T/act" "$T/err"

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

expect_error "a trailing escape" 2 "escape byte .* ends the pattern" "$CLM" --like 'ab\' "$T/t"
expect_error "a missing file" 2 "no such file" "$CLM" --like '%' "$T/nonexistent"
expect_error "an unknown option" 2 "" "$CLM" --like '%' --frobnicate "$T/t"

cli_summary
