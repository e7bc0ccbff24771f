#!/bin/sh
# Tests of the main mode's pattern options: -f FILE (with -e, -f -, empty files, empty lines,
# duplicates, prefixes and suffixes, CRLF, NUL bytes, no final newline), -w and -x, byte for
# byte against grep -F (LC_ALL=C), and the pattern column of --positions against an awk
# reference that finds every occurrence of every pattern.
#
# Usage: sh tests/cli_multi.sh [BUILD_DIR]   (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
# shellcheck disable=SC2002  # cat | clmatch is deliberate: a pipe takes the stream path
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" cli_multi

# vs_grep NAME INPUT EXTRA ARGS...: clmatch -F EXTRA ARGS INPUT against grep -F ARGS INPUT
# (stdout and exit status), then the same with INPUT piped in 3-byte blocks (the stream path,
# where a match and the bytes around it arrive in different blocks; BLOCK bytes when set).
# EXTRA: clmatch-only
# options, split at spaces ("" for none).
vs_grep() {
    name=$1 in=$2 extra=$3
    shift 3
    grep -F "$@" "$in" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    # shellcheck disable=SC2086
    "$CLM" -F $extra "$@" "$in" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name" "$T/exp" "$T/act" "$T/err"
    grep -F "$@" <"$in" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    # shellcheck disable=SC2086
    cat "$in" | "$CLM" -F --block-size="${BLOCK:-3}" $extra "$@" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name, stdin in ${BLOCK:-3}-byte blocks" "$T/exp" "$T/act" "$T/err"
}

# ref_numbered FILE PATTERN_FILE: "START<TAB>N" for every occurrence (overlapping ones
# included) of the N-th line of PATTERN_FILE (no empty line) in FILE, by start then N.
ref_numbered() {
    awk 'NR == FNR { pat[++np] = $0; next }
         {
             for (i = 1; i <= np; i++) {
                 s = 1
                 while ((j = index(substr($0, s), pat[i])) > 0) {
                     print off + s + j - 2 "\t" i
                     s += j
                 }
             }
             off += length($0) + 1
         }' "$2" "$1" | sort -k1,1n -k2,2n
}

# ---- inputs ------------------------------------------------------------------------------
# Crafted: words touching word and non-word bytes, prefixes and suffixes of each other, an
# empty line, lines of non-word bytes, CRLF lines; no final newline.
printf 'foo bar\nbaz\n\nfoobar qux\nfoo_x bar-y\n  \na  b\n!x\nfoo\r\nbar\r\nab\nabc\nb\n' >"$T/t"
printf 'xab abc.bc\nbcd abcd' >>"$T/t"
# Real text: this repository's documentation, and words drawn from it.
cat "$ROOT/README.md" "$ROOT"/docs/*.md >"$T/doc"
awk '{ for (i = 1; i <= NF; i += 7) print $i }' "$ROOT/README.md" | head -n 150 >"$T/words"

printf 'foo\nbar\n' >"$T/p_two"
printf 'foo\n\nbar\n' >"$T/p_emptyline"
printf '\n' >"$T/p_onlyempty"
: >"$T/p_empty"
printf 'foo\r\nbar\r\n' >"$T/p_crlf"
printf 'ab\na\nabc\nb\nbc\nc' >"$T/p_prefix" # no final newline
printf 'foo\nfoo\nbar\nfoo\n' >"$T/p_dup"

# ---- -f, with every output option, against grep ------------------------------------------
for p in two emptyline onlyempty crlf prefix dup; do
    for opts in "" -n -b -c -q -w -x "-w -n" "-w -c" "-x -c" "-x -n" "-w -q" "-x -q" "-i -w" \
        "-w -b"; do
        # shellcheck disable=SC2086
        vs_grep "-f $p ${opts:-(lines)}" "$T/t" "" $opts -f "$T/p_$p"
    done
    # -o: grep's non-overlapping occurrences (clmatch -o alone gives every occurrence)
    for opts in -o "-o -w" "-o -x" "-o -b -w" "-o -n -x"; do
        # shellcheck disable=SC2086
        vs_grep "-f $p --non-overlapping $opts" "$T/t" --non-overlapping $opts -f "$T/p_$p"
    done
done
BLOCK=4K # a block per device round trip: 3-byte blocks of 70 KB would take minutes
for opts in "" -c -o -w "-w -o" -x "-i -w -n"; do
    no=""
    case $opts in *-o*) no=--non-overlapping ;; esac
    # shellcheck disable=SC2086
    vs_grep "real text: -f words $opts" "$T/doc" "$no" $opts -f "$T/words"
done
unset BLOCK
# grep -o -w searches on from the end of the occurrence it printed as from a line start: '}'
# right after the word 'A' is printed, '}' alone after 'A' is not
printf 'INPUT {C|G|A}[IDS] OUT\nx A}[ y\nB}\n' >"$T/quirk"
vs_grep "-o -w: an occurrence right after the one printed" "$T/quirk" --non-overlapping -o -w \
    -e A -e '}'
vs_grep "-o -w: no occurrence printed before it" "$T/quirk" --non-overlapping -o -w -e '}'
vs_grep "several -f and -e, in order" "$T/t" "" -n -f "$T/p_two" -e qux -f "$T/p_prefix"
vs_grep "-e '' selects every line" "$T/t" "" -n -e '' -e foo
vs_grep "-f with the same file twice" "$T/t" "" -c -f "$T/p_two" -f "$T/p_two"

# -f - reads the patterns from standard input.
"$CLM" -n -f - "$T/t" <"$T/p_prefix" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
grep -F -n -f - "$T/t" <"$T/p_prefix" >"$T/exp"
echo "exit $?" >>"$T/exp"
same "-f - reads standard input" "$T/exp" "$T/act" "$T/err"

# An empty file: no pattern, nothing selected, exit 1 without reading the files (as grep).
for opts in "" -c -n -o; do
    # shellcheck disable=SC2086
    vs_grep "-f empty file ${opts:-(lines)}" "$T/t" "" $opts -f "$T/p_empty"
done
vs_grep "-f empty file with -e" "$T/t" "" -f "$T/p_empty" -e bar

# Patterns ending the text with no final newline, and a text that ends inside a word.
vs_grep "no final newline: -w" "$T/t" "" -w -e abcd -e bcd
vs_grep "no final newline: -x" "$T/t" "" -x -e 'bcd abcd'

# NUL bytes in a pattern line are part of the pattern (grep -a, clmatch --text: the text is
# "binary").
printf 'ax\000yb\nxy\nx\000y\n' >"$T/nul.txt"
printf 'x\000y\n' >"$T/p_nul"
"$CLM" --text -c -f "$T/p_nul" "$T/nul.txt" >"$T/act" 2>"$T/err"
grep -a -F -c -f "$T/p_nul" "$T/nul.txt" >"$T/exp"
same "NUL byte in a -f pattern" "$T/exp" "$T/act" "$T/err"
"$CLM" --text -c -x -f "$T/p_nul" "$T/nul.txt" >"$T/act" 2>"$T/err"
grep -a -F -c -x -f "$T/p_nul" "$T/nul.txt" >"$T/exp"
same "NUL byte in a -f pattern: -x" "$T/exp" "$T/act" "$T/err"

# A file of 10^6 lines (many duplicates: the library searches the distinct ones).
awk 'BEGIN { for (i = 0; i < 1000000; i++) print (i % 1000 == 7 ? "qux" : "foo") }' >"$T/p_big"
vs_grep "-f of 10^6 lines" "$T/t" "" -n -f "$T/p_big"

# ---- --positions: the pattern's number ----------------------------------------------------
printf 'ab\nb\nab\nabc\nbc\nc\n' >"$T/p_pos" # a duplicate: each number is reported
ref_numbered "$T/t" "$T/p_pos" >"$T/exp"
"$CLM" --positions -f "$T/p_pos" "$T/t" >"$T/act" 2>"$T/err"
same "--positions: START<TAB>N, every pattern and duplicate" "$T/exp" "$T/act" "$T/err"
cat "$T/t" | "$CLM" --block-size=4 --positions -f "$T/p_pos" >"$T/act" 2>"$T/err"
same "--positions: START<TAB>N, stdin in 4-byte blocks" "$T/exp" "$T/act" "$T/err"
# Numbers count over -e, -f and newline-separated patterns in the order given; an empty
# pattern has a number but no occurrence.
{ printf 'zz\nab\n@@@\n' && cat "$T/p_pos"; } >"$T/p_ref" # @@@: the empty one, never found
ref_numbered "$T/t" "$T/p_ref" >"$T/exp"
"$CLM" --positions -e zz -e "ab
" -f "$T/p_pos" "$T/t" >"$T/act" 2>"$T/err"
same "--positions: numbers over -e, newlines and -f, empty ones counted" "$T/exp" "$T/act" \
    "$T/err"
ref_numbered "$T/doc" "$T/words" >"$T/exp"
"$CLM" -F --positions -f "$T/words" "$T/doc" >"$T/act" 2>"$T/err"
same "--positions: real text, 150 words" "$T/exp" "$T/act" "$T/err"
# One pattern: the output stays START alone.
ref_numbered "$T/t" "$T/p_two" | awk -F '\t' '$2 == 1 { print $1 }' >"$T/exp"
"$CLM" --positions -e foo "$T/t" >"$T/act" 2>"$T/err"
same "--positions: one pattern, no number column" "$T/exp" "$T/act" "$T/err"
# -w filters the rows: only the occurrences of words.
grep -F -o -b -w -e foo -e bar "$T/t" | awk -F : '{ print $1 "\t" ($2 == "foo" ? 1 : 2) }' \
    | sort -k1,1n -k2,2n >"$T/exp"
"$CLM" --positions -w -e foo -e bar "$T/t" >"$T/act" 2>"$T/err"
same "--positions -w: the word occurrences, numbered" "$T/exp" "$T/act" "$T/err"
# Approximate: START<TAB>END<TAB>EDITS<TAB>N; each pattern's rows are those of its own run.
n=0
for p in patter clmatch patter; do
    n=$((n + 1))
    "$CLM" -k 1 --positions -e "$p" "$T/doc" | awk -v n="$n" '{ print $0 "\t" n }'
done | sort -k1,1n -k4,4n -k2,2n >"$T/exp"
"$CLM" -k 1 --positions -e patter -e clmatch -e patter "$T/doc" >"$T/act" 2>"$T/err"
same "--positions -k 1: START END EDITS N" "$T/exp" "$T/act" "$T/err"

# ---- exit status and messages ------------------------------------------------------------
"$CLM" --count-matches -e '' "$T/t" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$T/act")" = 0 ]; then
    pass "--count-matches, empty pattern: 0 occurrences, exit 0 (every line matched)"
else
    fail "--count-matches, empty pattern: 0 occurrences, exit 0" "exit $rc: $(cat "$T/act")"
fi
expect_error "-f missing file" 2 "=clmatch: $T/nope: No such file or directory" \
    "$CLM" -f "$T/nope" "$T/t"
expect_error "-f directory" 2 "=clmatch: $T: Is a directory" "$CLM" -f "$T" "$T/t"
expect_error "-f without an argument" 2 "requires an argument" "$CLM" -f
expect_error "-w with -k" 2 "-w does not apply to approximate search" "$CLM" -w -k 1 foo "$T/t"
expect_error "-x with -k" 2 "-x does not apply to approximate search" "$CLM" -x -k 1 foo "$T/t"

cli_summary
