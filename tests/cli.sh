#!/bin/sh
# Tests of the clmatch command-line tool: output and exit status against grep -F (LC_ALL=C),
# occurrence offsets against an independent awk reference, class patterns against grep -E,
# approximate matches (-k) against tests/ref_fuzzy.py (Sellers' DP, Hamming; python3), and
# every bad-input case.
#
# Usage: sh tests/cli.sh [BUILD_DIR]      (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME" (with a short diff); the last line is
# "N passed, M failed" and the exit status is non-zero when M > 0.
#
# Environment: CLI_ALGOS (default "naive kmp dfa") restricts the algorithms looped over by the
# grep -F comparisons (bitap, bmh and witness have a shorter loop of their own; add them here
# for the full set).
# shellcheck disable=SC2002  # cat | clmatch is deliberate: a pipe takes the stream path
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" cli
# The device path throughout (its stats, kernel builds, tuning, data paths): with no device
# chosen a plain pattern in a file would go to the host search. tests/cli_devices.sh checks
# that default; cli_grep.sh and cli_multi.sh run with it.
CLMATCH_HOST_MAX=0
export CLMATCH_HOST_MAX

# vs_grep NAME ALGO EXTRA ARGS...: clmatch -a ALGO EXTRA ARGS against grep -F ARGS (stdout and
# exit status). EXTRA: clmatch-only options, split at spaces ("" for none).
vs_grep() {
    name=$1 algo=$2 extra=$3
    shift 3
    # shellcheck disable=SC2086
    "$CLM" --algorithm "$algo" $extra "$@" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    grep -F "$@" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    same "$name [$algo]" "$T/exp" "$T/act" "$T/err"
}

# vs_grep_pipe NAME ALGO EXTRA FILE ARGS...: the same with FILE piped into standard input.
vs_grep_pipe() {
    name=$1 algo=$2 extra=$3 in=$4
    shift 4
    # shellcheck disable=SC2086
    cat "$in" | "$CLM" --algorithm "$algo" $extra "$@" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    grep -F "$@" <"$in" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    same "$name [$algo]" "$T/exp" "$T/act" "$T/err"
}

# vs_file NAME EXPECTED_FILE ARGS...: clmatch ARGS against a reference output.
vs_file() {
    name=$1 exp=$2
    shift 2
    "$CLM" "$@" >"$T/act" 2>"$T/err"
    rc=$?
    if [ $rc -gt 1 ]; then
        fail "$name" "exit $rc: $(head -n 3 "$T/err")"
    else
        same "$name" "$exp" "$T/act" "$T/err"
    fi
}

# ref_positions FILE CASELESS PATTERN...: start offset of every occurrence, overlapping ones
# included, found line by line with awk's index() (patterns hold no newline).
ref_positions() {
    f=$1 ci=$2
    shift 2
    for p in "$@"; do
        CLI_P=$p CLI_CI=$ci awk '
            BEGIN { p = ENVIRON["CLI_P"]; ci = ENVIRON["CLI_CI"] + 0; if (ci) p = tolower(p) }
            {
                line = ci ? tolower($0) : $0; s = 1
                while ((i = index(substr(line, s), p)) > 0) { print off + s + i - 2; s += i }
                off += length($0) + 1
            }' "$f"
    done | sort -n
}

# ---- test inputs ------------------------------------------------------------------------
G=$ROOT/data/umaydis.fa
if [ ! -s "$G" ]; then
    (cd "$ROOT" && sh tools/fetch-genome.sh >/dev/null 2>&1) || true
fi
if [ ! -s "$G" ]; then
    echo "# data/umaydis.fa unavailable (tools/fetch-genome.sh failed): genome checks skipped"
    G=
fi

# Text with words, empty lines, CRLF lines, long lines (longer than the small read blocks
# used below, with and without matches) and no newline at the end.
X=$T/text.txt
awk 'BEGIN {
    nw = split("needle haystack NEEDLE NeedleS pin thread abcab aaaa the a of x yy", w, " ")
    seed = 12345
    for (i = 0; i < 4000; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        n = seed % 11; line = ""
        for (j = 0; j < n; j++) {
            seed = (seed * 1103515245 + 12345) % 2147483648
            line = line (j ? " " : "") w[1 + int(seed / 65536) % nw]
        }
        if (i % 53 == 0) line = ""
        if (i % 29 == 0) line = line "\r"
        if (i % 701 == 0) { for (k = 0; k < 3000; k++) line = line "hay-stack "; line = line "needle" }
        if (i % 907 == 0) for (k = 0; k < 2500; k++) line = line "straw "
        print line
    }
    printf "the last line has a needle and no newline"
}' >"$X"
# A small text for tiny read blocks (every block boundary falls inside a pattern or line).
S=$T/small.txt
printf 'needle at start\nno match here\r\n\nhay needleneedle hay needle\nNEEDLE upper\nend needle' >"$S"
# Second file for prefixes; an empty file.
Y=$T/other.txt
printf 'another needle\nnothing\npin and needle\n' >"$Y"
E=$T/empty.txt
: >"$E"

ALGOS=${CLI_ALGOS:-naive kmp dfa}

# References computed once, independently of clmatch.
if [ -n "$G" ]; then
    ref_positions "$G" 0 CTAG >"$T/ref_ctag"
    sed 's/$/:CTAG/' "$T/ref_ctag" >"$T/ref_ctag_ob"
    ref_positions "$G" 0 AA | wc -l | tr -d ' ' >"$T/ref_aa_count"
    # several patterns: START<TAB>N, N the pattern's number, by start then N
    for n in 1 2 3; do
        ref_positions "$G" 0 "$(echo GATTACA TGTAATC CTAG | cut -d ' ' -f $n)" |
            awk -v n=$n '{ print $0 "\t" n }'
    done | sort -k1,1n -k2,2n >"$T/ref_multi"
    grep -obF -e AA -e AAC -e CA "$G" |
        awk -F : '{ print $1 "\t" ($2 == "AA" ? 1 : $2 == "AAC" ? 2 : 3) }' >"$T/ref_nonov_pos"
fi
ref_positions "$X" 1 needle >"$T/ref_x_needle_i"
wc -l <"$T/ref_x_needle_i" | tr -d ' ' >"$T/ref_x_needle_i_count"
{ ref_positions "$S" 0 needle | sed 's/^/S:/'; ref_positions "$Y" 0 needle | sed 's/^/Y:/'; } \
    >"$T/ref_sy_pos"
{ ref_positions "$S" 0 needle | wc -l | tr -d ' ' | sed 's/^/S:/'
  ref_positions "$Y" 0 needle | wc -l | tr -d ' ' | sed 's/^/Y:/'; } >"$T/ref_sy_count"
# An overlapping-only text: "aaaaa" holds "aa" at 0..3.
printf 'aaaaa\nxaax\n' >"$T/aa.txt"
printf '0\n1\n2\n3\n7\n' >"$T/ref_aa_pos"
printf '0:aa\n1:aa\n2:aa\n3:aa\n7:aa\n' >"$T/ref_aa_ob"

# ---- grep-compatible modes, per algorithm ------------------------------------------------
for a in $ALGOS; do
    if [ -n "$G" ]; then
        vs_grep "genome: lines" "$a" "" GATTACA "$G"
        vs_grep "genome: -n" "$a" "" -n GATTACA "$G"
        vs_grep "genome: -b -n" "$a" "" -b -n TATATA "$G"
        vs_grep "genome: -c, many matches per line" "$a" "" -c AA "$G"
        vs_grep "genome: -i" "$a" "" -i gattaca "$G"
        vs_grep "genome: -e several patterns" "$a" "" -n -e GATTACA -e TGTAATC -e CTAGCTAG "$G"
        vs_grep "genome: newline-separated patterns" "$a" "" -c "$(printf 'GATTACA\nTGTAATC')" "$G"
        vs_grep "genome: no match" "$a" "" -n ACGTACGTACGTACGTACGT "$G"
        vs_grep_pipe "genome stdin: -n" "$a" "" "$G" -n GATTACA
        vs_grep_pipe "genome stdin, 64K blocks: -b" "$a" --block-size=64K "$G" -b CTAG
        vs_grep_pipe "genome stdin, 4K blocks: -n -o, non-overlapping" "$a" \
            "--block-size=4K --non-overlapping" "$G" -n -o CTAG
        vs_grep "genome: --non-overlapping -o" "$a" --non-overlapping -o AA "$G"
        vs_grep "genome: --non-overlapping -o -b, several patterns" "$a" \
            --non-overlapping -o -b -e AA -e AAC -e CA "$G"
        vs_file "genome: --positions [$a]" "$T/ref_ctag" --algorithm "$a" --positions CTAG "$G"
        vs_file "genome: -o -b (overlapping) [$a]" "$T/ref_ctag_ob" --algorithm "$a" -o -b CTAG "$G"
        vs_file "genome: --count-matches, overlapping [$a]" "$T/ref_aa_count" \
            --algorithm "$a" --count-matches AA "$G"
        vs_file "genome: --positions, several patterns [$a]" "$T/ref_multi" \
            --algorithm "$a" --positions -e GATTACA -e TGTAATC -e CTAG "$G"
        vs_file "genome: --non-overlapping --positions [$a]" "$T/ref_nonov_pos" \
            --algorithm "$a" --non-overlapping --positions -e AA -e AAC -e CA "$G"
        # stdin through the count-only stream, blocks far smaller than the input
        cat "$G" | "$CLM" --algorithm "$a" --block-size=1M --count-matches AA >"$T/act" 2>"$T/err"
        same "genome stdin: --count-matches [$a]" "$T/ref_aa_count" "$T/act" "$T/err"
        # the library's own slab splitting under a mapped file
        CLMATCH_SLAB_BYTES=65536 "$CLM" --algorithm "$a" -n CTAG "$G" >"$T/act" 2>"$T/err"
        grep -nF CTAG "$G" >"$T/exp"
        same "genome: -n with 64 KiB slabs [$a]" "$T/exp" "$T/act" "$T/err"
    fi
    # generated text: CRLF, empty lines, long lines, no final newline
    vs_grep "text: -n -b" "$a" "" -n -b needle "$X"
    vs_grep "text: -c -i" "$a" "" -c -i NEEDLE "$X"
    vs_grep "text: CR in the pattern" "$a" "" -n "$(printf 'a\r')" "$X"
    vs_grep "text: several files" "$a" "" -n needle "$X" "$Y" "$E" "$S"
    vs_grep "text: several files -h" "$a" "" -h needle "$X" "$Y"
    vs_grep "text: one file -H -c" "$a" "" -H -c needle "$Y"
    vs_grep "text: empty file" "$a" "" -c needle "$E"
    vs_grep_pipe "text stdin: default" "$a" "" "$X" needle
    vs_grep_pipe "text stdin, 4K blocks (lines span blocks): -n -b" "$a" \
        --block-size=4K "$X" -n -b needle
    vs_grep_pipe "text stdin, 4K blocks: -c" "$a" --block-size=4K "$X" -c straw
    vs_grep_pipe "small stdin, 3-byte blocks: -n" "$a" --block-size=3 "$S" -n needle
    vs_grep_pipe "small stdin, 1-byte blocks: -b -i" "$a" --block-size=1 "$S" -b -i needle
    vs_grep_pipe "small stdin, 5-byte blocks: -o -n -b, non-overlapping" "$a" \
        "--block-size=5 --non-overlapping" "$S" -o -n -b needle
    vs_file "text: --positions -i [$a]" "$T/ref_x_needle_i" --algorithm "$a" -i --positions needle "$X"
    vs_file "text: --count-matches -i [$a]" "$T/ref_x_needle_i_count" \
        --algorithm "$a" -i --count-matches needle "$X"
    cat "$X" | "$CLM" --algorithm "$a" --block-size=4K -i --positions needle >"$T/act" 2>"$T/err"
    same "text stdin, 4K blocks: --positions -i [$a]" "$T/ref_x_needle_i" "$T/act" "$T/err"
    vs_grep_pipe "stdin: -H names it as grep does" "$a" "" "$Y" -H -n needle
    "$CLM" --algorithm "$a" -c needle "$Y" - "$S" <"$X" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    grep -F -c needle "$Y" - "$S" <"$X" >"$T/exp"
    echo "exit $?" >>"$T/exp"
    same "stdin as - among files [$a]" "$T/exp" "$T/act" "$T/err"
    "$CLM" --algorithm "$a" -n -b needle <"$X" >"$T/act" 2>"$T/err"
    grep -F -n -b needle <"$X" >"$T/exp"
    same "stdin redirected from a regular file [$a]" "$T/exp" "$T/act" "$T/err"
    cat "$T/aa.txt" | "$CLM" --algorithm "$a" --block-size=1 -o -b aa >"$T/act" 2>"$T/err"
    same "overlapping, 1-byte stdin blocks: -o -b [$a]" "$T/ref_aa_ob" "$T/act" "$T/err"
    vs_file "overlapping: --positions [$a]" "$T/ref_aa_pos" --algorithm "$a" --positions aa "$T/aa.txt"
    vs_file "overlapping: -o -b [$a]" "$T/ref_aa_ob" --algorithm "$a" -o -b aa "$T/aa.txt"
    (cd "$T" && "$CLM" --algorithm "$a" --positions needle small.txt other.txt) >"$T/act" 2>"$T/err"
    sed 's/^S:/small.txt:/; s/^Y:/other.txt:/' "$T/ref_sy_pos" >"$T/exp"
    same "several files: --positions [$a]" "$T/exp" "$T/act" "$T/err"
    (cd "$T" && "$CLM" --algorithm "$a" --count-matches needle small.txt other.txt) >"$T/act" 2>"$T/err"
    sed 's/^S:/small.txt:/; s/^Y:/other.txt:/' "$T/ref_sy_count" >"$T/exp"
    same "several files: --count-matches [$a]" "$T/exp" "$T/act" "$T/err"
done

# ---- standard input: a regular file is read from its offset, as grep reads it -------------------
# After `read -r line` the offset is past the first line (which holds a needle); grep searches
# the rest, counts offsets from there and leaves the offset at the end, so that a second "-"
# finds nothing more.
tail -n +2 "$X" >"$T/x_rest"
ref_positions "$T/x_rest" 0 needle >"$T/x_rest_pos"
for opts in "" -n -c -b -o "-o -b -n"; do
    # shellcheck disable=SC2086
    { read -r line; "$CLM" $opts needle; } <"$X" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    # shellcheck disable=SC2086
    { read -r line; grep -F $opts needle; } <"$X" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    same "stdin read from its offset: '$opts'" "$T/exp" "$T/act" "$T/err"
    # shellcheck disable=SC2086
    "$CLM" $opts needle - - <"$X" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    # shellcheck disable=SC2086
    grep -F $opts needle - - <"$X" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    same "stdin given twice (- -): '$opts'" "$T/exp" "$T/act" "$T/err"
done
{ read -r line; "$CLM" --positions needle; } <"$X" >"$T/act" 2>"$T/err"
same "stdin read from its offset: --positions" "$T/x_rest_pos" "$T/act" "$T/err"
wc -l <"$T/x_rest_pos" | tr -d ' ' >"$T/exp"
{ read -r line; "$CLM" --count-matches needle; } <"$X" >"$T/act" 2>"$T/err"
same "stdin read from its offset: --count-matches" "$T/exp" "$T/act" "$T/err"
{ ref_positions "$X" 0 needle | wc -l | tr -d ' ' | sed 's/^/(standard input):/'
  echo '(standard input):0'; } >"$T/exp"
"$CLM" --count-matches needle - - <"$X" >"$T/act" 2>"$T/err"
same "stdin given twice (- -): --count-matches" "$T/exp" "$T/act" "$T/err"

# ---- a file that shrinks while it is searched ---------------------------------------------------
# The modes that print text read it with pread, not through a mapping (which died of SIGBUS,
# status 135, silently): a file that shrinks gives "FILE: file changed size while being read"
# and status 2, never a signal, and what was printed before is grep's output so far.
# CLMATCH_TEST_SHRINK=BYTES, a hook of the CLI, truncates the file to BYTES at its first
# match, before its text is read: lines are then read past the new end (the library has read
# the file: two slabs), or the library's next read comes up short (1 MiB slabs). Last, a
# truncation that races the run may strike anywhere.
awk 'BEGIN {
    for (i = 0; i < 40000; i++) printf "line %d of a big file%s\n", i, i % 9 == 4 ? ", hello" : ""
}' >"$T/chunk"
for i in 1 2 3 4 5 6 7 8; do cat "$T/chunk" "$T/chunk" "$T/chunk" "$T/chunk" "$T/chunk"; done \
    >"$T/big.txt" # 40 MB
# shrink_check NAME WANT OPTS [ENV...]: clmatch OPTS hello on a copy of big.txt shrunk to
# 2 MiB by the hook, with ENV (WANT 2: it must notice; "race": truncated by another process).
shrink_check() {
    name=$1 want=$2 opts=$3
    shift 3
    cp "$T/big.txt" "$T/shrink.txt"
    if [ "$want" = race ]; then
        # shellcheck disable=SC2086
        { "$CLM" $opts hello "$T/shrink.txt" >"$T/act" 2>"$T/err"; echo $? >"$T/rc"; } &
        sleep 0.1 2>/dev/null || sleep 1
        : >"$T/shrink.txt"
        wait
        rc=$(cat "$T/rc")
    else
        # shellcheck disable=SC2086
        env CLMATCH_TEST_SHRINK=2097152 "$@" "$CLM" $opts hello "$T/shrink.txt" >"$T/act" \
            2>"$T/err"
        rc=$?
    fi
    # shellcheck disable=SC2086
    grep -F $opts hello "$T/big.txt" | head -c "$(wc -c <"$T/act")" >"$T/exp"
    if [ "$rc" -ge 128 ]; then
        fail "$name" "killed by a signal: exit $rc"
    elif [ "$rc" -eq 2 ] &&
        ! grep -qxF "clmatch: $T/shrink.txt: file changed size while being read" "$T/err"; then
        fail "$name" "exit 2 without the message: $(head -n 3 "$T/err")"
    elif [ "$want" != race ] && [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, want $want: $(head -n 3 "$T/err")"
    elif [ "$want" != race ] && ! cmp -s "$T/exp" "$T/act"; then
        fail "$name" "the output is not a prefix of grep's: $(cmp "$T/exp" "$T/act")"
    else
        pass "$name"
    fi
}
for opts in "" -n -c -o; do
    shrink_check "a file shrinks at its first match: '$opts'" 2 "$opts"
    shrink_check "a file shrinks at its first match, 1 MiB slabs: '$opts'" 2 "$opts" \
        CLMATCH_SLAB_BYTES=1048576
    shrink_check "a file shrinks during the run: '$opts'" race "$opts"
done

# ---- character classes (exact search) -------------------------------------------------------
# Without -F, a pattern holding '.', '[' or '\' uses the library's class syntax. grep -E is the
# reference where no match can hold a newline (grep is line-based, while clmatch's '.', [^...]
# and \D \W \S match a newline too); the python reference (tests/ref_fuzzy.py) covers the rest.

# vs_ere NAME CLM_PATTERN ERE OPTS FILE...: clmatch OPTS -e CLM_PATTERN against grep -E OPTS
# -e ERE (stdout and exit status). OPTS: options of both, split at spaces.
vs_ere() {
    name=$1 cpat=$2 ere=$3 opts=$4
    shift 4
    # shellcheck disable=SC2086
    "$CLM" $opts -e "$cpat" "$@" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    # shellcheck disable=SC2086
    grep -E $opts -e "$ere" "$@" >"$T/exp" 2>/dev/null
    echo "exit $?" >>"$T/exp"
    same "$name" "$T/exp" "$T/act" "$T/err"
}
HAVE_PY=
if command -v python3 >/dev/null 2>&1; then HAVE_PY=1; else
    echo "# python3 unavailable: checks against tests/ref_fuzzy.py skipped"
fi
ref() { python3 "$ROOT/tests/ref_fuzzy.py" "$@"; }

# Digits, dots, brackets, backslashes, tabs.
D=$T/digits.txt
awk 'BEGIN {
    seed = 777
    for (i = 0; i < 600; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        r = seed % 7
        if (r == 0) print "version " i % 13 "." i % 7 " of a.b and axb"
        else if (r == 1) print "x" i " [x] a\\d tab\there"
        else if (r == 2) print ""
        else if (r == 3) print "Needle needle NEEDLE n-dle a.b.c"
        else if (r == 4) print "12.5% off, 3 items, id_42"
        else print "no digits here, only words and a dot."
    }
    printf "tail 99"
}' >"$D"

if [ -n "$G" ]; then
    vs_ere "classes: genome -n GA[AT]TC" 'GA[AT]TC' 'GA[AT]TC' -n "$G"
    vs_ere "classes: genome -i -b ga[a-t]tc" 'ga[a-t]tc' 'ga[a-t]tc' "-i -b" "$G"
fi
vs_ere "classes: n..dle -n" 'n..dle' 'n..dle' -n "$X"
vs_ere "classes: [^n]eedle -b" '[^n]eedle' '[^n]eedle' -b "$X"
vs_ere "classes: -i n[aeiou]edle -c" 'n[aeiou]edle' 'n[aeiou]edle' "-i -c" "$X"
vs_ere "classes: \\d\\d -n" '\d\d' '[0-9][0-9]' -n "$D"
vs_ere "classes: \\w\\d\\.\\d -o -b" '\w\d\.\d' '[A-Za-z0-9_][0-9]\.[0-9]' "-o -b" "$D"
vs_ere "classes: escaped dot a\\.b -o -b" 'a\.b' 'a\.b' "-o -b" "$D"
vs_ere "classes: \\[x\\] and \\\\d escapes" '\[x\] a\\d' '\[x\] a\\d' -n "$D"
vs_ere "classes: \\t and \\s" '\sta\w\th' '[[:space:]]ta[A-Za-z0-9_]	h' -c "$D"
vs_ere "classes: -i with a range and \\s" 'N[d-f]EDLE\sn' 'N[d-f]EDLE[[:space:]]n' "-i -n" "$D"
vs_ere "classes: several patterns, classes and literal" 'id_\d\d' 'id_[0-9][0-9]' -c -e 'a.b.c' -e 'axb' "$D"
vs_grep "-F: metacharacters are literal, a.b" dfa -F -n 'a.b' "$D"
vs_grep "-F: metacharacters are literal, [x] a\\d" dfa -F -o -b '[x] a\d' "$D"
vs_grep "-F -i: literal backslash" auto -F -c -i 'A\D' "$D"
cat "$D" | "$CLM" --block-size=7 -n '\d\.\d' >"$T/act" 2>"$T/err"
grep -n '[0-9]\.[0-9]' "$D" >"$T/exp"
same "classes: stdin, 7-byte blocks, -n" "$T/exp" "$T/act" "$T/err"
# -i folds the letters of a class, but an escape keeps its case: \d and \D are not the same
# pattern (one of each per byte).
wc -c <"$D" | tr -d ' ' >"$T/exp"
vs_file "classes: -i keeps \\d and \\D apart" "$T/exp" -i --count-matches -e '\d' -e '\D' "$D"
if [ -n "$HAVE_PY" ] && [ -n "$G" ]; then
    head -c 200000 "$G" >"$T/g200k"
    ref --classes "$T/g200k" 'A.G' >"$T/exp"
    vs_file "classes: A.G --positions (matches across newlines) vs reference" "$T/exp" \
        --positions 'A.G' "$T/g200k"
    ref --classes --mode count "$T/g200k" '[^A]CC' >"$T/exp"
    vs_file "classes: [^A]CC --count-matches vs reference" "$T/exp" \
        --count-matches '[^A]CC' "$T/g200k"
    ref --classes -i --mode nlines "$T/g200k" 'c\SGg' >"$T/exp"
    vs_file "classes: -i -n c\\SGg vs reference" "$T/exp" -i -n 'c\SGg' "$T/g200k"
fi

# ---- approximate search (-k) against Sellers' DP / Hamming (tests/ref_fuzzy.py) ------------
# DNA-like lines holding variants of GATTACA: 0, 1 and 2 edits, case changes, one across a
# newline, one around a backslash, at the very start and end of the file.
FZ=$T/fuzzy.txt
awk 'BEGIN {
    nv = split("GATTACA GATACA GATTTACA GCTTACA GTTACAA gattaca GAATACA GATTAC CATTAGA", v, " ")
    seed = 4242; printf "ATTACAGG"
    for (i = 0; i < 90; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        n = seed % 70; line = ""
        for (j = 0; j < n; j++) {
            seed = (seed * 1103515245 + 12345) % 2147483648
            line = line substr("ACGT", 1 + int(seed / 65536) % 4, 1)
            if (seed % 23 == 0) line = line v[1 + int(seed / 1024) % nv]
        }
        if (i == 40) line = line "GATT\\ACA"
        if (i == 50) line = line "CCGATT"
        if (i == 51) line = "ACAGG" line
        print line
    }
    printf "TTGATTAC"
}' >"$FZ"
(cd "$T" && cp "$FZ" fz1.txt && head -c 1500 "$FZ" >fz2.txt)
if [ -n "$HAVE_PY" ]; then
    ref -k 1 "$FZ" GATTACA >"$T/exp"
    vs_file "-k 1 --positions vs Sellers" "$T/exp" -k 1 --positions GATTACA "$FZ"
    cat "$FZ" | "$CLM" --block-size=64 -k 1 --positions GATTACA >"$T/act" 2>"$T/err"
    same "-k 1 --positions, stdin 64-byte blocks" "$T/exp" "$T/act" "$T/err"
    ref -k 1 --mode only "$FZ" GATTACA >"$T/exp"
    vs_file "-k 1 -o (START END EDITS TEXT, \\n and \\\\ escaped)" "$T/exp" \
        -k 1 -o GATTACA "$FZ"
    cat "$FZ" | "$CLM" --block-size=100 -k 1 -o GATTACA >"$T/act" 2>"$T/err"
    same "-k 1 -o, stdin 100-byte blocks" "$T/exp" "$T/act" "$T/err"
    ref -k 1 --mode nlines "$FZ" GATTACA >"$T/exp"
    vs_file "-k 1 -n: lines where a match starts" "$T/exp" -k 1 -n GATTACA "$FZ"
    ref -k 2 --mode lines "$FZ" GATTACA | wc -l | tr -d ' ' >"$T/exp"
    vs_file "-k 2 -c" "$T/exp" -k 2 -c GATTACA "$FZ"
    ref -k 2 --mode count "$FZ" GATTACA >"$T/exp"
    vs_file "-k 2 --count-matches" "$T/exp" -k 2 --count-matches GATTACA "$FZ"
    cat "$FZ" | "$CLM" --block-size=50 -k 2 --count-matches GATTACA >"$T/act" 2>"$T/err"
    same "-k 2 --count-matches, stdin 50-byte blocks" "$T/exp" "$T/act" "$T/err"
    ref -k 2 --mode nonov "$FZ" GATTACA >"$T/exp"
    vs_file "-k 2 --non-overlapping --positions" "$T/exp" \
        -k 2 --non-overlapping --positions GATTACA "$FZ"
    ref -k 2 --mode lines "$FZ" GATTACA >"$T/exp"
    cat "$FZ" | "$CLM" --block-size=30 -k 2 GATTACA >"$T/act" 2>"$T/err"
    same "-k 2 lines, stdin 30-byte blocks" "$T/exp" "$T/act" "$T/err"
    ref -k 1 -i "$FZ" gaTTaca >"$T/exp"
    vs_file "-k 1 -i --positions" "$T/exp" -k 1 -i --positions gaTTaca "$FZ"
    ref -k 2 --hamming "$FZ" GATTACA >"$T/exp"
    vs_file "--mismatches-only -k 2 --positions vs Hamming" "$T/exp" \
        --mismatches-only -k 2 --positions GATTACA "$FZ"
    ref -k 1 --hamming -i --mode nlines "$FZ" GATTACA >"$T/exp"
    vs_file "--mismatches-only -k 1 -i -n" "$T/exp" --mismatches-only -k 1 -i -n GATTACA "$FZ"
    ref -k 1 --classes "$FZ" 'GA[AT]TA\wA' >"$T/exp"
    vs_file "-k 1 with classes --positions" "$T/exp" -k 1 --positions 'GA[AT]TA\wA' "$FZ"
    { ref -k 1 "$FZ" GATTACA | awk '{ print $0 "\t1" }'
      ref -k 1 "$FZ" CCGGTTA | awk '{ print $0 "\t2" }'; } | sort >"$T/exp"
    "$CLM" -k 1 --positions -e GATTACA -e CCGGTTA "$FZ" 2>"$T/err" | sort >"$T/act"
    same "-k 1 --positions, two patterns" "$T/exp" "$T/act" "$T/err"
    { ref -k 1 --label fz1.txt "$T/fz1.txt" GATTACA; ref -k 1 --label fz2.txt "$T/fz2.txt" GATTACA; } >"$T/exp"
    (cd "$T" && "$CLM" -k 1 --positions GATTACA fz1.txt fz2.txt) >"$T/act" 2>"$T/err"
    same "-k 1 --positions, two files: FILE: prefix" "$T/exp" "$T/act" "$T/err"
    "$CLM" -k 0 -o -b GATTACA "$FZ" >"$T/act" 2>"$T/err"
    grep -obF GATTACA "$FZ" >"$T/exp"
    same "-k 0 is exact search, grep -F output" "$T/exp" "$T/act" "$T/err"
    if [ -n "$G" ]; then
        ref -k 2 "$T/g200k" GATTACA >"$T/exp"
        vs_file "genome 200 KB: -k 2 --positions vs Sellers" "$T/exp" \
            -k 2 --positions GATTACA "$T/g200k"
        ref -k 2 --mode nlines "$T/g200k" GATTACA >"$T/exp"
        cat "$T/g200k" | "$CLM" --block-size=4K -k 2 -n GATTACA >"$T/act" 2>"$T/err"
        same "genome 200 KB stdin, 4K blocks: -k 2 -n" "$T/exp" "$T/act" "$T/err"
        ref -k 2 --hamming --mode count "$T/g200k" GATTACA >"$T/exp"
        vs_file "genome 200 KB: --mismatches-only -k 2 --count-matches" "$T/exp" \
            --mismatches-only -k 2 --count-matches GATTACA "$T/g200k"
    fi
fi

# ---- bitap, bmh, witness and the bitap variants on exact patterns ---------------------------
# Their output must equal grep -F's (and so --algorithm dfa's) and the references above.
for a in bitap bmh witness; do
    if [ -n "$G" ]; then
        vs_grep "genome: -n" "$a" "" -n GATTACA "$G"
        vs_grep "genome: -c -i" "$a" "" -c -i gattaca "$G"
        vs_file "genome: --positions [$a]" "$T/ref_ctag" --algorithm "$a" --positions CTAG "$G"
    fi
    vs_grep "text: -n -b" "$a" "" -n -b needle "$X"
    vs_grep_pipe "text stdin, 4K blocks: -c -i" "$a" --block-size=4K "$X" -c -i NEEDLE
    vs_file "overlapping: -o -b [$a]" "$T/ref_aa_ob" --algorithm "$a" -o -b aa "$T/aa.txt"
done
for v in item reduce; do
    if [ -n "$G" ]; then
        vs_grep "genome: -n, --variant=$v" bitap "--variant=$v" -n GATTACA "$G"
        vs_grep_pipe "genome stdin, 64K blocks: -b, --variant=$v" bitap \
            "--block-size=64K --variant=$v" "$G" -b CTAG
    fi
    vs_file "text: --positions -i, --variant=$v [bitap]" "$T/ref_x_needle_i" \
        --algorithm bitap --variant=$v -i --positions needle "$X"
    vs_file "overlapping: -o -b, --variant=$v [bitap]" "$T/ref_aa_ob" \
        --algorithm bitap --variant=$v -o -b aa "$T/aa.txt"
done

# ---- exit status and bad input --------------------------------------------------------
"$CLM" -q needle "$X" >"$T/act" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/act" ]; then pass "-q: match, exit 0, silent"; else fail "-q: match, exit 0, silent" "exit $rc; $(head -n 3 "$T/act")"; fi
"$CLM" -q zzzzzz "$X" >"$T/act" 2>&1
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$T/act" ]; then pass "-q: no match, exit 1"; else fail "-q: no match, exit 1" "exit $rc"; fi
printf 'abc' >"$T/short.txt"
"$CLM" abcdefgh "$T/short.txt" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$T/act" ] && [ ! -s "$T/err" ]; then pass "pattern longer than the text: exit 1, no error"; else fail "pattern longer than the text: exit 1, no error" "exit $rc; $(head -n 3 "$T/err")"; fi
"$CLM" --count-matches abcdefgh "$T/short.txt" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$T/act")" = 0 ]; then pass "pattern longer than the text: --count-matches 0"; else fail "pattern longer than the text: --count-matches 0" "exit $rc; $(cat "$T/act") $(head -n 3 "$T/err")"; fi

expect_error "pattern longer than the library's limit" 2 'too long' \
    "$CLM" "$(awk 'BEGIN { while (n++ < 70000) printf "a" }')" "$X"
if [ -w /dev/full ]; then
    # shellcheck disable=SC2016  # expanded by the inner sh
    expect_error "write error" 2 'write error' sh -c 'exec "$0" needle "$1" >/dev/full' "$CLM" "$X"
fi
# An empty pattern matches every line, as in grep (tests/cli_multi.sh has the rest).
vs_grep "empty pattern: every line" naive "" -n '' "$X"
vs_grep "empty pattern with -e" naive "" -c -e needle -e '' "$X"
vs_grep "empty pattern inside a newline-separated list" naive "" -c "$(printf 'needle\n\nhay')" \
    "$X"
expect_error "missing file" 2 "=clmatch: $T/nope: No such file or directory" \
    "$CLM" needle "$T/nope"
# The other files are still searched: stdout as grep's.
"$CLM" needle "$Y" "$T/nope" "$S" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
grep -F needle "$Y" "$T/nope" "$S" >"$T/exp" 2>/dev/null
echo "exit $?" >>"$T/exp"
same "missing file among others: the rest searched, exit 2" "$T/exp" "$T/act"
expect_error "directory" 2 'Is a directory' "$CLM" needle "$T"
if [ "$(id -u)" != 0 ]; then
    printf 'needle\n' >"$T/unreadable.txt"
    chmod 000 "$T/unreadable.txt"
    expect_error "unreadable file" 2 'Permission denied' "$CLM" needle "$T/unreadable.txt"
fi
expect_error "unknown long option" 2 'unrecognized option.*--frobnicate' \
    "$CLM" --frobnicate needle "$X"
expect_error "unknown short option" 2 "invalid option.*'j'" "$CLM" -j needle "$X"
expect_error "bad algorithm name" 2 "unknown algorithm 'bogus'" "$CLM" --algorithm bogus needle "$X"
expect_error "bad algorithm name lists the new ones" 2 "hamming, simd or kmer" \
    "$CLM" --algorithm bogus needle "$X"
expect_error "bad variant name" 2 "unknown variant 'bogus'" "$CLM" --variant=bogus needle "$X"
expect_error "-k not a number" 2 "invalid number of errors 'x'" "$CLM" -k x needle "$X"
expect_error "-k negative" 2 "invalid number of errors '-1'" "$CLM" -k -1 needle "$X"
expect_error "--mismatches-only without -k" 2 "mismatches-only needs -k" \
    "$CLM" --mismatches-only needle "$X"
expect_error "malformed class: [AC" 2 'syntax|malformed' "$CLM" 'G[AC' "$X"
if grep -qF 'G[AC' "$T/err" && grep -qi 'offset 1' "$T/err"; then
    pass "malformed class: the detail names the pattern and the offset"
else
    fail "malformed class: the detail names the pattern and the offset" "$(head -n 3 "$T/err")"
fi
expect_error "-k as large as the pattern" 2 'invalid' "$CLM" -k 6 needle "$X"
if grep -q 'max_errors\|errors\|edits' "$T/err" && grep -q '6' "$T/err"; then
    pass "-k as large as the pattern: the detail says why"
else
    fail "-k as large as the pattern: the detail says why" "$(head -n 3 "$T/err")"
fi
expect_error "-k above CLM_MAX_ERRORS" 2 '16' "$CLM" -k 17 GATTACAGATTACAGATTACA "$X"
expect_error "pattern too long for bitap" 2 'too long' \
    "$CLM" --algorithm bitap "$(awk 'BEGIN { while (n++ < 300) printf "a" }')" "$X"
if grep -q '256' "$T/err"; then pass "pattern too long for bitap: the detail names the limit"; else fail "pattern too long for bitap: the detail names the limit" "$(head -n 3 "$T/err")"; fi
expect_error "class pattern too long (only bitap does classes)" 2 'too long' \
    "$CLM" "$(awk 'BEGIN { while (n++ < 300) printf "a" }').x" "$X"
expect_error "classes with --algorithm dfa: unsupported, names bitap" 2 'supported' \
    "$CLM" --algorithm dfa 'n..dle' "$X"
if grep -q 'bitap' "$T/err"; then pass "classes with --algorithm dfa: the detail names bitap"; else fail "classes with --algorithm dfa: the detail names bitap" "$(head -n 3 "$T/err")"; fi
expect_error "-k with --algorithm kmp: unsupported, names bitap" 2 'bitap' "$CLM" --algorithm kmp -k 1 needle "$X"
expect_error "-k with --algorithm bmh: unsupported, names bitap" 2 'bitap' "$CLM" --algorithm bmh -k 1 needle "$X"
expect_error "bad table memory name" 2 "unknown table memory 'bogus'" \
    "$CLM" --table-memory bogus needle "$X"
expect_error "bad platform index syntax" 2 "invalid platform index" "$CLM" -p x needle "$X"
expect_error "missing option argument" 2 "requires an argument" "$CLM" needle "$X" -m
expect_error "no pattern" 2 "no PATTERN" "$CLM"

# Index errors list what exists: the names --list-devices --json reports.
"$CLM" --list-devices --json >"$T/devs.json" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '"platform_index": 0' "$T/devs.json"; then
    pass "--list-devices --json"
else
    fail "--list-devices --json" "exit $rc; $(head -n 3 "$T/err")"
fi
if command -v python3 >/dev/null 2>&1; then
    if python3 -m json.tool "$T/devs.json" >/dev/null 2>"$T/err"; then pass "--list-devices --json is valid JSON"; else fail "--list-devices --json is valid JSON" "$(head -n 3 "$T/err")"; fi
fi
plat=$(sed -n 's/.*"platform_name": "\([^"]*\)".*/\1/p' "$T/devs.json" | head -n 1)
dev=$(sed -n 's/.*"name": "\([^"]*\)".*/\1/p' "$T/devs.json" | head -n 1)
"$CLM" --list-devices >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '0:0' "$T/act" && grep -qF -- "$dev" "$T/act"; then
    pass "--list-devices"
else
    fail "--list-devices" "exit $rc; $(head -n 3 "$T/act") $(head -n 3 "$T/err")"
fi
expect_error "platform index out of range lists the platforms" 2 "=$plat" \
    "$CLM" -p 99 needle "$X"
expect_error "device index out of range lists the devices" 2 "=$dev" \
    "$CLM" -p 0 -d 99 needle "$X"
# An empty vendor directory and no extra ICD files: the loader finds no platform (a
# nonexistent directory is not enough for every ocl-icd version).
mkdir "$T/novendors"
expect_error "no OpenCL platform: says how to install one" 2 'install' \
    env -u OCL_ICD_FILENAMES OCL_ICD_VENDORS="$T/novendors" "$CLM" needle "$X"
expect_error "no OpenCL platform: --list-devices" 2 'platform' \
    env -u OCL_ICD_FILENAMES OCL_ICD_VENDORS="$T/novendors" "$CLM" --list-devices

# A kernel that does not compile: CLM_E_BUILD with the build log (the header the kernels
# share with the host is copied as it is).
mkdir "$T/badcl"
cp "$ROOT"/cl/*.h "$T/badcl/"
for f in "$ROOT"/cl/*.cl; do
    { cat "$f"; echo; echo 'this is not OpenCL C;'; } >"$T/badcl/$(basename "$f")"
done
expect_error "kernel build failure is reported" 2 'build' \
    env CLMATCH_KERNEL_DIR="$T/badcl" CLMATCH_CACHE=off "$CLM" needle "$X"
if grep -q 'error' "$T/err" && grep -qF 'this' "$T/err"; then
    pass "kernel build failure prints the build log"
else
    fail "kernel build failure prints the build log" "$(head -n 5 "$T/err")"
fi

# ---- misc options ------------------------------------------------------------------------
"$CLM" --help >"$T/act" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'Usage: clmatch' "$T/act"; then pass "--help"; else fail "--help" "exit $rc"; fi
"$CLM" --version >"$T/act" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^clmatch [0-9]' "$T/act"; then pass "--version"; else fail "--version" "exit $rc; $(cat "$T/act")"; fi
"$CLM" --stats --algorithm kmp -c needle "$X" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'algorithm kmp' "$T/err" && grep -q 'GB/s' "$T/err" \
    && grep -q 'scanned [1-9]' "$T/err"; then
    pass "--stats"
else
    fail "--stats" "exit $rc; $(head -n 5 "$T/err")"
fi
for m in global local constant; do
    "$CLM" --algorithm dfa --table-memory $m -c -i needle "$X" >"$T/act" 2>"$T/err"
    rc=$?
    grep -ciF needle "$X" >"$T/exp"
    if [ $rc -eq 2 ] && grep -qi 'unsupported' "$T/err"; then
        pass "--table-memory $m (unsupported here, reported)"
    else
        same "--table-memory $m" "$T/exp" "$T/act" "$T/err"
    fi
done
vs_grep "--algorithm auto" auto "" -n needle "$X"
"$CLM" --stats -k 2 -c GATTACA "$FZ" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'algorithm bitap (' "$T/err" && grep -q 'k=2' "$T/err" \
    && grep -q 'k=2.* — ..' "$T/err"; then
    pass "--stats -k: algorithm, variant, k and the reason for the choice"
else
    fail "--stats -k: algorithm, variant, k and the reason for the choice" "exit $rc; $(head -n 3 "$T/err")"
fi
"$CLM" --help >"$T/act" 2>&1
if grep -q -- '--errors=K' "$T/act" && grep -q -- '--mismatches-only' "$T/act" \
    && grep -q -- '--variant' "$T/act" && grep -q 'STARTS' "$T/act" \
    && grep -q 'fixed-strings.*literal' "$T/act"; then
    pass "--help documents -k, --mismatches-only, --variant, classes and -F"
else
    fail "--help documents -k, --mismatches-only, --variant, classes and -F"
fi

# ---- tuning: clmatch-tune writes a profile, clmatch uses it ----------------------------------
TUNE=$(dirname "$CLM")/clmatch-tune
PD=$T/profiles
mkdir -p "$PD"
if [ ! -x "$TUNE" ]; then
    fail "clmatch-tune built" "$TUNE not found"
else
    CLMATCH_PROFILE_DIR=$PD "$TUNE" --quick --dry-run >"$T/act" 2>"$T/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^clmatch-profile 1 device="' "$T/act" \
        && grep -q '^wg = [0-9]' "$T/act" && grep -q '^chunk = [0-9]' "$T/act" \
        && grep -q '^# dfa ' "$T/act" && [ -z "$(ls "$PD")" ]; then
        pass "clmatch-tune --quick --dry-run prints a profile and a table, writes nothing"
    else
        fail "clmatch-tune --quick --dry-run prints a profile and a table, writes nothing" \
            "exit $rc; $(head -n 3 "$T/err")"
    fi
    # the load width measured for kmp, dfa and bitap, staging for dfa and bitap: a vec line
    # and stage lines, each noted; staged, the groups per compute unit and prefetch (noted;
    # written only where the tuned kernel stages, which a CPU's does not). A kernel stages
    # where its region at the tuned size, wg + 1 chunks of chunk + 16 bytes, and its tables
    # (under 4 KiB) fit in the device's local memory (not llvmpipe's 32 KiB at a CPU's
    # 4096-byte chunk): "cannot stage here" only where they do not.
    gp='staged, 4 / 8 / 16 groups per compute unit: [0-9.]+ / [0-9.]+ / [0-9.]+ GB/s; prefetch (on|off): [0-9.]+ GB/s$'
    local_mem=$(sed -n 's/.*"default": true.*"local_mem_bytes": \([0-9]*\).*/\1/p' "$T/devs.json")
    unstaged_keys=
    stage_wrong=
    staged_any=
    for a in dfa bitap; do
        if grep -Eq "^$a\.(groups|prefetch) = " "$T/act" && ! grep -Eq "^($a\.)?stage = on" "$T/act"; then
            unstaged_keys="$unstaged_keys $a"
        fi
        # the algorithm's own wg and chunk (dfa.wg = ...), else the profile's
        twg=$(sed -n "s/^$a\.wg = //p" "$T/act")
        [ -n "$twg" ] || twg=$(sed -n 's/^wg = //p' "$T/act")
        tch=$(sed -n "s/^$a\.chunk = //p" "$T/act")
        [ -n "$tch" ] || tch=$(sed -n 's/^chunk = //p' "$T/act")
        region=$(( (${twg:-0} + 1) * (${tch:-0} / 16 + 1) * 16 ))
        if grep -q "^# $a cannot stage here" "$T/act"; then
            [ $((region + 4096)) -gt "${local_mem:-0}" ] ||
                stage_wrong="$stage_wrong $a cannot stage: $region bytes, local ${local_mem:-?};"
        elif grep -q "^# $a staged [0-9.]* GB/s, unstaged [0-9.]* GB/s" "$T/act" \
            && grep -Eq "^# $a $gp" "$T/act"; then
            staged_any=yes
        else
            stage_wrong="$stage_wrong $a: no staging notes;"
        fi
    done
    if [ -n "$staged_any" ] && ! grep -Eq '^(dfa\.|bitap\.)?stage = (on|off)$' "$T/act"; then
        stage_wrong="$stage_wrong no stage line;"
    fi
    if grep -Eq '^vec = (4|8|16)$' "$T/act" \
        && grep -q '^# dfa loads of 4 / 8 / 16 bytes unstaged: ' "$T/act" \
        && [ -z "$stage_wrong" ] && [ -z "$unstaged_keys" ]; then
        pass "clmatch-tune measures vec, stage, groups and prefetch and writes them into the profile"
    else
        fail "clmatch-tune measures vec, stage, groups and prefetch and writes them into the profile" \
            "$stage_wrong $(grep -E '^(vec|stage|[a-z]+\.(vec|stage|groups|prefetch)) = |loads of|stage' "$T/act")"
    fi
    CLMATCH_PROFILE_DIR=$PD "$TUNE" --quick --out "$PD/" >"$T/act" 2>"$T/err"
    rc=$?
    prof=$(ls "$PD"/*.profile 2>/dev/null | head -n 1)
    if [ $rc -eq 0 ] && [ -n "$prof" ] && grep -qF "wrote $prof" "$T/act"; then
        pass "clmatch-tune --quick --out DIR/ writes the device's profile there"
    else
        fail "clmatch-tune --quick --out DIR/ writes the device's profile there" \
            "exit $rc; $(head -n 3 "$T/err")"
    fi
    grep -ciF needle "$X" >"$T/exp"
    CLMATCH_PROFILE_DIR=$PD "$CLM" --stats -ci needle "$X" >"$T/act" 2>"$T/err"
    if [ -n "$prof" ] && grep -qF "profile $prof" "$T/err" && ! grep -q 'warning' "$T/err"; then
        same "clmatch uses the profile (--stats names it) and counts right" "$T/exp" "$T/act"
    else
        fail "clmatch uses the profile (--stats names it) and counts right" \
            "$(grep tuning "$T/err")"
    fi
    if [ -n "$prof" ]; then
        # a profile the library cannot use: a warning naming file and line, built-in values
        sed 's/^wg = .*/wg = 3/' "$prof" >"$T/bad" && cp "$T/bad" "$prof"
        CLMATCH_PROFILE_DIR=$PD "$CLM" --stats -ci needle "$X" >"$T/act" 2>"$T/err"
        if grep -q "^clmatch: warning: tuning profile ignored: $prof: line [0-9]*: work-group size 3" \
            "$T/err" && grep -q 'tuning .* from built-in' "$T/err"; then
            same "a bad profile: warning on stderr, built-in values, same count" "$T/exp" "$T/act"
        else
            fail "a bad profile: warning on stderr, built-in values, same count" \
                "$(head -n 3 "$T/err")"
        fi
    fi
    "$(dirname "$CLM")/clmatch-devices" --json >"$T/act" 2>"$T/err"
    if grep -q '"tuning": {"values": {"wg": [0-9]' "$T/act" && grep -q '"profile_path": ' "$T/act"; then
        pass "clmatch-devices --json shows the tuning"
    else
        fail "clmatch-devices --json shows the tuning" "$(head -n 3 "$T/err")"
    fi
fi
expect_error "CLMATCH_TUNE with a bad item" 2 "CLMATCH_TUNE=wg=3: item 'wg=3'" \
    env CLMATCH_TUNE=wg=3 "$CLM" -c needle "$X"
# ---- staging and load width: knobs of the tuning -------------------------------------------
grep -ciF needle "$X" >"$T/exp"
# 128 bytes per item: the region fits in any device's local memory (not one of 4096 in
# llvmpipe's 32 KiB)
CLMATCH_TUNE=stage=on,vec=8,chunk=128 "$CLM" --stats --algorithm dfa -ci needle "$X" >"$T/act" 2>"$T/err"
if grep -q '^clmatch: tuning .*,stage=on,vec=8.* from .*CLMATCH_TUNE' "$T/err" \
    && grep -q 'text staged in local memory (8 groups per compute unit), 8-byte loads' "$T/err"; then
    same "CLMATCH_TUNE=stage=on,vec=8: --stats shows a staged dfa with 8-byte loads" \
        "$T/exp" "$T/act"
else
    fail "CLMATCH_TUNE=stage=on,vec=8: --stats shows a staged dfa with 8-byte loads" \
        "$(grep -E 'tuning|bytes/item' "$T/err")"
fi
CLMATCH_TUNE=stage=off,dfa.vec=4 "$CLM" --stats --algorithm dfa -ci needle "$X" >"$T/act" 2>"$T/err"
if grep -q '^clmatch: tuning .*,stage=off,.*dfa.vec=4' "$T/err" \
    && grep -q 'bytes/item, 4-byte loads' "$T/err" && ! grep -q 'staged' "$T/err"; then
    same "CLMATCH_TUNE=stage=off,dfa.vec=4: an unstaged dfa with 4-byte loads" "$T/exp" "$T/act"
else
    fail "CLMATCH_TUNE=stage=off,dfa.vec=4: an unstaged dfa with 4-byte loads" \
        "$(grep -E 'tuning|bytes/item' "$T/err")"
fi
CLMATCH_TUNE=stage=on,groups=2,bitap.prefetch=on,chunk=128 "$CLM" --stats --algorithm bitap -ci needle "$X" \
    >"$T/act" 2>"$T/err"
if grep -q '^clmatch: tuning .*,groups=2,.*bitap.prefetch=on' "$T/err" \
    && grep -q '(2 groups per compute unit, next region prefetched)' "$T/err"; then
    same "CLMATCH_TUNE=groups=2,bitap.prefetch=on: a staged bitap that prefetches" "$T/exp" \
        "$T/act"
else
    fail "CLMATCH_TUNE=groups=2,bitap.prefetch=on: a staged bitap that prefetches" \
        "$(grep -E 'tuning|bytes/item' "$T/err")"
fi
expect_error "CLMATCH_TUNE with groups=0" 2 "CLMATCH_TUNE=groups=0: item 'groups=0'" \
    env CLMATCH_TUNE=groups=0 "$CLM" -c needle "$X"
CLMATCH_STAGING=on CLMATCH_TUNE=chunk=128 "$CLM" --stats --algorithm bitap -ci needle "$X" >"$T/act" \
    2>"$T/err"
if grep -q '^clmatch: tuning .*,stage=on,.* from .*CLMATCH_STAGING' "$T/err" \
    && grep -q 'text staged in local memory' "$T/err"; then
    same "CLMATCH_STAGING=on (the old switch) still stages, named as the source" "$T/exp" "$T/act"
else
    fail "CLMATCH_STAGING=on (the old switch) still stages, named as the source" \
        "$(grep -E 'tuning|bytes/item' "$T/err")"
fi
CLMATCH_TUNE=bitap.stage=on,vec=16 "$(dirname "$CLM")/clmatch-devices" --json >"$T/act" 2>"$T/err"
if grep -q '"tuning": {"values": {"wg": [0-9]*, "chunk": [0-9]*, "slab": [0-9]*, "stage": "o[nf]f*", "vec": 16, "groups": [0-9]*, "prefetch": "o[nf]f*", [^}]*"bitap.stage": "on"' "$T/act"; then
    pass "clmatch-devices --json: stage as \"on\"/\"off\", vec as a number"
else
    fail "clmatch-devices --json: stage as \"on\"/\"off\", vec as a number" \
        "$(grep -o '"tuning": {"values": {[^}]*}' "$T/act")"
fi
expect_error "CLMATCH_TUNE=vec=12 names the item and the widths" 2 \
    "CLMATCH_TUNE=vec=12: item 'vec=12': bytes per load 12 is not 4, 8 or 16" \
    env CLMATCH_TUNE=vec=12 "$CLM" -c needle "$X"
expect_error "CLMATCH_TUNE=stage=maybe names the item" 2 \
    "item 'stage=maybe': 'maybe' is not on, off, 1 or 0 for stage" \
    env CLMATCH_TUNE=stage=maybe "$CLM" -c needle "$X"
expect_error "CLMATCH_STAGING=sometimes is refused" 2 "CLMATCH_STAGING='sometimes': expected on or off" \
    env CLMATCH_STAGING=sometimes "$CLM" -c needle "$X"
# ---- data paths and the memory budget ----------------------------------------------------
# Every data path reads the file through the library's fd path (-n also maps it to print);
# the output must be the default's. A 6M budget shrinks the slab to 1.3M (pinned, copy) or
# 2.6M (zero-copy): the genome then crosses many slab boundaries, on files (clm_scan_fd) and
# on stdin (streams).
P=${G:-$X}
PP=GATTACA
[ -n "$G" ] || PP=needle
"$CLM" -n "$PP" "$P" >"$T/dp_lines" 2>"$T/err"
"$CLM" --count-matches -k 1 "$PP" "$P" >"$T/dp_fuzzy" 2>>"$T/err"
for p in auto copy pinned zero-copy svm; do
    "$CLM" --data-path=$p -n "$PP" "$P" >"$T/act" 2>"$T/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -qi 'not supported' "$T/err" && grep -q 'pinned' "$T/err"; then
        pass "--data-path $p (not supported on this device, reported with what works)"
        continue
    fi
    same "--data-path $p: -n" "$T/dp_lines" "$T/act" "$T/err"
    "$CLM" --data-path $p --count-matches -k 1 "$PP" "$P" >"$T/act" 2>"$T/err"
    same "--data-path $p: --count-matches -k 1" "$T/dp_fuzzy" "$T/act" "$T/err"
done
"$CLM" --max-memory 6M -n "$PP" "$P" >"$T/act" 2>"$T/err"
same "--max-memory 6M: -n" "$T/dp_lines" "$T/act" "$T/err"
"$CLM" --max-memory 6M --count-matches -k 1 "$PP" "$P" >"$T/act" 2>"$T/err"
same "--max-memory 6M: --count-matches -k 1" "$T/dp_fuzzy" "$T/act" "$T/err"
cat "$P" | "$CLM" --max-memory 6M -n "$PP" >"$T/act" 2>"$T/err"
same "--max-memory 6M: -n on stdin" "$T/dp_lines" "$T/act" "$T/err"
"$CLM" --stats --max-memory 6M -c "$PP" "$P" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'data path [a-z]' "$T/err" && grep -q 'slab [1-9][0-9]* bytes' "$T/err" \
    && grep -q 'memory [1-9][0-9]* bytes.*6291456-byte budget' "$T/err"; then
    pass "--stats: data path, slab and memory"
else
    fail "--stats: data path, slab and memory" "exit $rc; $(grep -i 'data path\|slab' "$T/err")"
fi
expect_error "--data-path bogus" 2 "unknown data path 'bogus'" "$CLM" --data-path bogus x "$S"
expect_error "--max-memory without a size" 2 "invalid memory budget" "$CLM" --max-memory 3X x "$S"
expect_error "--max-memory too small gives the minimum" 2 "too small.*at least [0-9]+ bytes" \
    "$CLM" --max-memory 1K x "$S"
# The minimum named for a 1-byte budget is the true one: passed back it gives the unbounded
# output (a file, standard input, approximate search), one byte less fails naming it again.
# mm_run HOW [OPTION...]: clmatch OPTIONs searching $S for needle as HOW says.
mm_run() {
    how=$1
    shift
    case $how in
    stdin) "$CLM" "$@" needle <"$S" ;;
    k1) "$CLM" "$@" -k 1 needle "$S" ;;
    *) "$CLM" "$@" needle "$S" ;;
    esac
}
for how in file stdin k1; do
    mm_run $how >"$T/mm_exp" 2>"$T/err"
    mm_run $how --max-memory 1 >/dev/null 2>"$T/err"
    min=$(sed -n 's/.*needs at least \([0-9][0-9]*\) bytes.*/\1/p' "$T/err" | head -n 1)
    if [ -z "$min" ]; then
        fail "--max-memory 1 ($how) names the minimum" "$(head -n 3 "$T/err")"
        continue
    fi
    mm_run $how --max-memory "$min" >"$T/act" 2>"$T/err"
    same "--max-memory $min, the minimum named ($how), works" "$T/mm_exp" "$T/act" "$T/err"
    expect_error "--max-memory one byte below the minimum ($how) names it again" 2 \
        "at least $min bytes" mm_run $how --max-memory $((min - 1))
done
expect_error "CLMATCH_DATA_PATH=bogus" 2 "CLMATCH_DATA_PATH=bogus" \
    env CLMATCH_DATA_PATH=bogus "$CLM" x "$S"

# ---- reader threads (CLMATCH_IO_THREADS), small files, the --stats breakdown -----------------
# 3 MB slabs over the genome: its file slabs are read by several threads (each takes a
# contiguous part of at least 1 MiB) and matches straddle the slab ends; every count must give
# the default's output.
for n in 1 2 5 64 auto; do
    CLMATCH_IO_THREADS=$n CLMATCH_SLAB_BYTES=3000000 "$CLM" -n "$PP" "$P" >"$T/act" 2>"$T/err"
    same "CLMATCH_IO_THREADS=$n, 3 MB slabs: -n" "$T/dp_lines" "$T/act" "$T/err"
    CLMATCH_IO_THREADS=$n CLMATCH_SLAB_BYTES=3000000 "$CLM" --count-matches -k 1 "$PP" "$P" \
        >"$T/act" 2>"$T/err"
    same "CLMATCH_IO_THREADS=$n, 3 MB slabs: --count-matches -k 1" "$T/dp_fuzzy" "$T/act" "$T/err"
done
for v in 0 65 x 4x -1; do
    expect_error "CLMATCH_IO_THREADS=$v is refused" 2 "=CLMATCH_IO_THREADS='$v' is not a thread count" \
        env CLMATCH_IO_THREADS="$v" "$CLM" x "$S"
done
# A file far smaller than the slab gets staging of its size, one slot: less allocated than a
# slab, and the same output.
head -c 5000 "$P" >"$T/head5k"
grep -F -c "$PP" "$T/head5k" >"$T/exp"
CLMATCH_IO_THREADS=3 CLMATCH_SLAB_BYTES=33554432 "$CLM" --stats -c "$PP" "$T/head5k" >"$T/act" \
    2>"$T/err"
same "a 5000-byte file with a 32 MiB slab" "$T/exp" "$T/act" "$T/err"
alloc=$(sed -n 's/^clmatch: slab .*, \([0-9][0-9]*\) allocated$/\1/p' "$T/err")
if [ -n "$alloc" ] && [ "$alloc" -lt 33554432 ]; then
    pass "--stats: a 5000-byte file allocates less than one 32 MiB slab ($alloc bytes)"
else
    fail "--stats: a 5000-byte file allocates less than one 32 MiB slab" "$(grep slab "$T/err")"
fi
if grep -q '3 I/O threads (CLMATCH_IO_THREADS=3)' "$T/err" \
    && grep -q '^clmatch: start-up [0-9.]* s: platforms [0-9.]* s, devices [0-9.]* s, context [0-9.]* s' "$T/err" \
    && grep -q 'compile [0-9.]* s (\(from cache\|built\)), scratch [0-9.]* s' "$T/err" \
    && grep -q '^clmatch: search [0-9.]* s: read [0-9.]* s.*, buffers [0-9.]* s, launches [0-9.]* s, device waits [0-9.]* s' "$T/err" \
    && grep -q '^clmatch: teardown [0-9.]* s: scratch [0-9.]* s, database [0-9.]* s, device [0-9.]* s; process [0-9.]* s' "$T/err"; then
    pass "--stats: I/O threads and where start-up, search and teardown time went"
else
    fail "--stats: I/O threads and where start-up, search and teardown time went" \
        "$(grep 'I/O\|start-up\|search\|teardown' "$T/err")"
fi


# ---- documentation ------------------------------------------------------------------------
# doc_checks: every relative link [text](target) outside code blocks in README.md and
# docs/*.md names a file that exists (its #anchor is not checked, nor http(s), mailto and
# in-page links), and README.md stays a front page of at most 12 288 bytes: the reference
# belongs in docs/.
# ---- exit: the device's teardown handed to a child (CLMATCH_EXIT, docs/cli.md) -----------
# The same output, status and (empty) standard error with the hand-off and without; a reader
# of the output through a pipe gets its end (the child closes its copy of the pipe).
printf 'abc\nxabcx\nno\n' >"$T/exit.txt"
for pat in abc zzz; do
    CLMATCH_EXIT=wait "$CLM" -n "$pat" "$T/exit.txt" >"$T/exp" 2>&1
    echo "exit $?" >>"$T/exp"
    "$CLM" -n "$pat" "$T/exit.txt" >"$T/act" 2>&1
    echo "exit $?" >>"$T/act"
    same "exit: hand-off, -n $pat: output, status and stderr as CLMATCH_EXIT=wait" \
        "$T/exp" "$T/act" /dev/null
    { "$CLM" -c "$pat" "$T/exit.txt"; echo "exit $?"; } | { cat; echo eof; } >"$T/act"
    { grep -c "$pat" "$T/exit.txt"; echo "exit $?"; echo eof; } >"$T/exp"
    same "exit: hand-off, -c $pat through a pipe" "$T/exp" "$T/act" /dev/null
done

doc_checks() {
    for md in "$ROOT/README.md" "$ROOT"/docs/*.md; do
        [ -f "$md" ] || continue
        awk -v md="$md" '/^ *```/ { code = !code; next }
            !code { while (match($0, /\]\([^) ]+\)/)) {
                        print md " " substr($0, RSTART + 2, RLENGTH - 3)
                        $0 = substr($0, RSTART + RLENGTH) } }' "$md"
    done | while read -r md target; do
        case $target in http://* | https://* | mailto:* | '#'*) continue ;; esac
        [ -e "$(dirname "$md")/${target%%#*}" ] || echo "${md#"$ROOT"/}: $target"
    done >"$T/doc_links"
    if [ -s "$T/doc_links" ]; then
        fail "docs: relative links name existing files" "$(cat "$T/doc_links")"
    else
        pass "docs: relative links name existing files"
    fi
    if ! sh "$ROOT/tools/gen-docs.sh" "$(dirname "$CLM")" --check >"$T/doc_gen" 2>&1; then
        fail "docs: generated tables of docs/ are current" "$(head -n 20 "$T/doc_gen")"
    else
        pass "docs: generated tables of docs/ are current"
    fi
    size=$(wc -c <"$ROOT/README.md")
    if [ "$size" -le 12288 ]; then
        pass "docs: README.md is at most 12288 bytes ($size)"
    else
        fail "docs: README.md is at most 12288 bytes" "$size bytes: move the detail to docs/"
    fi
}
doc_checks

cli_summary
