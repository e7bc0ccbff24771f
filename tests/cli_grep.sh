#!/bin/sh
# Tests of clmatch as a daily grep (issue 22): -v, -l, -L, -m, -s, -A/-B/-C, -H/-h, -Z,
# --label, -z, --color with GREP_COLORS, --text, -I, --binary-files, -r/-R with --include,
# --exclude, --exclude-dir, and exit statuses, byte for byte against grep -F (LC_ALL=C):
# standard output, exit status and standard error (grep's "grep:" read as "clmatch:"). Inputs:
# this repository's documentation, and crafted files (CRLF, no final newline, NUL bytes,
# NUL-terminated records, symbolic links and their loops, an unreadable directory, many small
# files searched in one batch).
#
# Usage: sh tests/cli_grep.sh [BUILD_DIR]   (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
# Few kernel shapes: almost every check searches the one pattern file $P.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" cli_grep
unset GREP_COLORS GREP_COLOR

# vs_grep NAME ARGS...: clmatch -F $X ARGS against grep -F ARGS, run in $W (relative names),
# standard input from $IN (default /dev/null). X: clmatch's own options (--non-overlapping:
# its -o shows overlapping occurrences too by default).
X=""
vs_grep() {
    name=$1
    shift
    (cd "$W" && grep -F "$@" <"${IN:-/dev/null}" >"$T/exp" 2>"$T/exp_err"; echo "exit $?" >>"$T/exp")
    # shellcheck disable=SC2086 # $X: none or one option
    (cd "$W" && "$CLM" -F $X "$@" <"${IN:-/dev/null}" >"$T/act" 2>"$T/err"
     echo "exit $?" >>"$T/act")
    sed 's/^grep: /clmatch: /' "$T/exp_err" >"$T/exp_err2"
    if ! cmp -s "$T/exp" "$T/act"; then
        same "$name" "$T/exp" "$T/act" "$T/err"
    else
        same "$name" "$T/exp_err2" "$T/err"
    fi
}

# ---- inputs ------------------------------------------------------------------------------
W=$T/w
mkdir -p "$W" || exit 2
P=$T/pats # the pattern set: words of every length, prefixes of each other
printf 'the\nGPU\nan\nkernel\nkernels\nfile\n' >"$P"
cat "$ROOT/README.md" "$ROOT"/docs/*.md >"$W/doc"
# CRLF lines, no final newline
printf 'the first\r\nno match\r\nan end\r\n\r\nkernel' >"$W/crlf"
# a NUL byte after a first matching line: grep's binary file
printf 'the text\nmore\0bytes\nkernel\n' >"$W/bin"
# NUL bytes end lines in a binary file, for -c, -x, -w and -v too
printf 'the\0the\nan\0x\0an_\nkernel\0kernels\n' >"$W/bin2"
# NUL-terminated records holding newlines
printf 'the one\nline\0two\0an\nthree\0kernels' >"$W/zdata"
# a tree: files, a link to a file, a link to a directory above (a loop), a dangling link
mkdir -p "$W/tree/sub/deep" "$W/tree/skip" "$W/tree/.hidden"
printf 'the tree\n' >"$W/tree/a.txt"
printf 'an apple\nnothing\n' >"$W/tree/sub/b.c"
printf 'kernel' >"$W/tree/sub/deep/c.h"
printf 'the skip\n' >"$W/tree/skip/d.txt"
printf 'file in hidden\n' >"$W/tree/.hidden/e"
printf 'the binary\0\n' >"$W/tree/sub/bin.o"
ln -s a.txt "$W/tree/link.txt"
ln -s .. "$W/tree/sub/up"
ln -s nowhere "$W/tree/dangling"
ln -s tree "$W/treelink"
# many small files: one batch
mkdir -p "$W/many"
i=0
while [ $i -lt 300 ]; do
    sed -n "$((i % 50 + 1)),$((i % 50 + 4))p" "$W/doc" >"$W/many/f$i"
    i=$((i + 1))
done

# ---- selection and output ----------------------------------------------------------------
vs_grep "-v" -v -f "$P" doc
vs_grep "-v -n -c" -v -n -c -f "$P" doc
vs_grep "-v on CRLF, no final newline" -v -n -f "$P" crlf
vs_grep "-l over several files" -l -f "$P" doc crlf tree/sub/b.c
vs_grep "-L over several files" -L -e kernel doc crlf tree/sub/b.c
vs_grep "-L, none listed: exit as grep" -L -f "$P" doc
vs_grep "-l -v" -l -v -e the doc crlf
vs_grep "-c -l: -l wins" -c -l -f "$P" doc crlf
vs_grep "-m 3" -m 3 -n -f "$P" doc
vs_grep "-m 3 -c -v" -m 3 -c -v -f "$P" doc
vs_grep "-m 2 -A 3: trailing context" -m 2 -A 3 -f "$P" doc
vs_grep "-m -1: no limit" -m -1 -c -f "$P" doc
vs_grep "-m 0" -m 0 -f "$P" doc
vs_grep "-A 2" -A 2 -n -f "$P" doc
vs_grep "-B 3 -b" -B 3 -b -e GPU doc
vs_grep "-C 1 -n -H" -C 1 -n -H -e kernel doc
vs_grep "-A 0: -- between groups and files" -A 0 -e kernel doc crlf
vs_grep "-NUM" -n -2 -e kernel doc
vs_grep "-NUM: digits of one argument, the last argument wins" -n -1 -12 -3 -e GPU doc
vs_grep "-A wins over -C, whatever their order" -n -A 1 -C 3 -B 0 -e GPU doc
vs_grep "--group-separator" --group-separator='==' -A 0 -e kernel doc crlf
vs_grep "--no-group-separator" --no-group-separator -C 1 -e kernel doc
vs_grep "--group-separator colored" --color=always --group-separator=XY -B 1 -e GPU doc
vs_grep "-C 2 -v" -C 2 -v -f "$P" doc
vs_grep "-o -C 1" -o -C 1 -n -e GPU doc
vs_grep "-o -v -C 1" -o -v -C 1 -e the crlf
vs_grep "-o -b -w" -o -b -w -f "$P" doc
vs_grep "-H -h: the last wins" -H -h -e the doc crlf
vs_grep "-Z -l" -Z -l -f "$P" doc crlf tree/a.txt
vs_grep "-Z -n -H" -Z -n -H -e an crlf
vs_grep "-Z -c" -Z -c -e an crlf doc
IN=$W/crlf
vs_grep "--label -H" --label=input -H -n -e the -
vs_grep "--label -c with a file" --label=input -c -e the - doc
vs_grep "-L on standard input" -L -e zzz -
IN=/dev/null

# ---- -z ----------------------------------------------------------------------------------
vs_grep "-z" -z -f "$P" zdata
vs_grep "-z -v -n -b" -z -v -n -b -e the zdata
vs_grep "-z -c -x" -z -c -x -e two zdata
X=--non-overlapping
vs_grep "-z -o" -z -o -f "$P" zdata
X=""

# ---- colors ------------------------------------------------------------------------------
vs_grep "--color=always" --color=always -f "$P" doc
vs_grep "--color=always -n -b -H -C 1" --color=always -n -b -H -C 1 -e kernel doc crlf
X=--non-overlapping
vs_grep "--color=always -o" --color=always -o -n -f "$P" doc
X=""
vs_grep "--color=always -v -C 1" --color=always -v -C 1 -e the crlf
vs_grep "--color=always -l -c" --color=always -c -H -e the crlf
vs_grep "--color=always -w" --color=always -w -f "$P" doc
vs_grep "--color=always on CRLF lines" --color=always -e the -e kernel crlf
vs_grep "--color=auto in a pipe: none" --color=auto -e the crlf
vs_grep "--color (auto) in a pipe: none" --color -e the crlf
# (set and unset around each: an assignment before a function call may outlive it)
export GREP_COLORS='sl=1:cx=2:ms=4:mc=5:fn=36:se=33'
vs_grep "GREP_COLORS sl cx ms mc fn se" --color=always -C 1 -H -f "$P" crlf
GREP_COLORS='sl=1:cx=2:mc=5'
vs_grep "GREP_COLORS with -v" --color=always -v -C 1 -e the crlf
GREP_COLORS='mt=7:ne:ln=35'
vs_grep "GREP_COLORS mt ne ln" --color=always -n -e the crlf
unset GREP_COLORS

# ---- binary files ------------------------------------------------------------------------
vs_grep "binary file: the message on stderr" -f "$P" bin
vs_grep "binary file with -o" -o -f "$P" bin
vs_grep "binary file with -c" -c -f "$P" bin
vs_grep "binary file with -l, -q" -l -f "$P" bin crlf
vs_grep "binary file, no match" -e zzz bin
vs_grep "--text" --text -n -f "$P" bin
vs_grep "-a (grep's --text)" -a -n -f "$P" bin
vs_grep "--binary-files=text" --binary-files=text -f "$P" bin
vs_grep "-I" -I -c -f "$P" bin crlf
vs_grep "--binary-files=without-match -v" --binary-files=without-match -v -e zzz bin
vs_grep "-s keeps the binary message" -s -e the bin
IN=$W/bin
vs_grep "binary standard input" -n -f "$P"
vs_grep "binary standard input, -o --label" -o --label=in -H -f "$P" -
IN=/dev/null
# the same through a pipe (the stream path)
for opts in "-n" "-o -H --label=in"; do
    # shellcheck disable=SC2086 # $opts: options
    cat "$W/bin" | grep -F $opts -f "$P" >"$T/exp" 2>"$T/exp_err"
    echo "exit $?" >>"$T/exp"
    sed 's/^grep: /clmatch: /' "$T/exp_err" >>"$T/exp"
    # shellcheck disable=SC2086
    cat "$W/bin" | "$CLM" -F $opts -f "$P" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    cat "$T/err" >>"$T/act"
    same "binary standard input through a pipe ($opts)" "$T/exp" "$T/act"
done
cat "$W/doc" | grep -F -n -f "$P" >"$T/exp"
cat "$W/doc" | "$CLM" -F -n -f "$P" >"$T/act" 2>"$T/err"
same "text standard input through a pipe" "$T/exp" "$T/act" "$T/err"
vs_grep "binary file: a NUL ends a line (-c)" -c -f "$P" bin2
vs_grep "binary file: a NUL ends a line (-x -c)" -x -c -f "$P" bin2 bin
vs_grep "binary file: a NUL ends a line (-w -c)" -w -c -f "$P" bin2
vs_grep "binary file: a NUL ends a line (-v -c)" -v -c -e the bin2
# a binary file too big for a batch (16 MiB) is searched as -q would
{ printf 'the start\0\n'; head -c 17000000 /dev/zero | tr '\0' a; printf '\nkernel end\n'; } \
    >"$W/bigbin"
vs_grep "a binary file over 16 MiB" -n -f "$P" bigbin
vs_grep "a binary file over 16 MiB, -c" -c -f "$P" bigbin
vs_grep "a binary file over 16 MiB, no match" -e zzz bigbin
rm -f "$W/bigbin"
printf 'e\0k\nan\0x\n' >"$T/p_nul"
vs_grep "binary file: a pattern's NUL matches none" -c -f "$T/p_nul" bin2
vs_grep "--text: a pattern's NUL matches" --text -c -f "$T/p_nul" bin2
vs_grep "-a: a pattern's NUL matches" -a -c -f "$T/p_nul" bin2

# ---- exit status and messages ------------------------------------------------------------
vs_grep "a missing file" -e the nosuch crlf
vs_grep "-s: no message, still status 2" -s -e the nosuch crlf
vs_grep "-s with no match" -s -e zzz nosuch crlf
vs_grep "-q with an error, then a match: 0" -q -e the nosuch crlf
vs_grep "-q -s, no match: 2" -q -s -e zzz nosuch crlf
vs_grep "a directory without -r" -e the tree crlf
vs_grep "messages in the order of the files (binary, missing)" -e the bin nosuch crlf
vs_grep "-q: a match before a missing file, no message" -q -e the crlf nosuch doc
: >"$T/empty"
vs_grep "-v with an empty -f FILE selects every line" -v -c -f "$T/empty" doc crlf
vs_grep "-L with an empty -f FILE lists every file" -L -f "$T/empty" doc crlf
vs_grep "-v with only empty patterns: exit 1 unread" -v -e '' nosuch crlf
vs_grep "-v -x with only empty patterns reads" -v -x -n -e '' nosuch crlf
vs_grep "-s: a directory without -r" -s -e the tree crlf

# the output file among the inputs: skipped with grep's message (out exists before both runs)
mkdir -p "$W/od" && printf 'the a\n' >"$W/od/a" && printf 'the b\n' >"$W/od/b" && : >"$W/od/out"
(cd "$W" && grep -r -F -e the od >od/out 2>"$T/exp_err"; echo "exit $?" >>"$T/exp_err")
sed 's/^grep: /clmatch: /' "$W/od/out" "$T/exp_err" >"$T/exp"
(cd "$W" && "$CLM" -r -F -e the od >od/out 2>"$T/err"; echo "exit $?" >>"$T/err")
cat "$W/od/out" "$T/err" >"$T/act"
same "an input file that is also the output" "$T/exp" "$T/act"
rm -rf "$W/od"

# ---- recursion ---------------------------------------------------------------------------
vs_grep "-r" -r -n -f "$P" tree
vs_grep "-R: links followed, the loop a warning" -R -f "$P" tree
vs_grep "-R -s: no warning" -R -s -f "$P" tree
vs_grep "-r: a link on the command line is followed" -r -f "$P" treelink
vs_grep "-r dir/" -r -c -f "$P" tree/
vs_grep "-r on a file: no name" -r -f "$P" tree/a.txt
vs_grep "-r --include" -r --include='*.c' --include='*.h' -f "$P" tree
vs_grep "-r --exclude" -r --exclude='*.txt' -f "$P" tree
vs_grep "-r --exclude-dir" -r --exclude-dir=sub --exclude-dir=skip -f "$P" tree
vs_grep "-r -l -Z" -r -l -Z -f "$P" tree
vs_grep "-r -L" -r -L -e the tree
vs_grep "-r -h -c" -r -h -c -f "$P" tree
vs_grep "-r -o -b" -r -o -b -f "$P" tree
vs_grep "-r -v -m 1 -A 1" -r -v -m 1 -A 1 -f "$P" tree
vs_grep "--exclude on a command-line file" --exclude='*.txt' -H -f "$P" tree/a.txt crlf
vs_grep "--include: a missing FILE is reported, a directory read" --include='*.c' -e the \
    nosuch tree crlf
vs_grep "--exclude then --include: the last match decides, else in" -r --exclude='*.txt' \
    --include='*.c' --include='a*' -f "$P" tree
vs_grep "--include then --exclude: else out" -r --include='*.c' --exclude='a*' -f "$P" tree
vs_grep "-c and -L on a directory without -r, as an empty file" -c -H -e the tree crlf
vs_grep "-L on a directory without -r" -L -e zzz tree crlf
vs_grep "-R -r: still -R" -R -r -l -f "$P" tree
# no operand: the working directory, names without "./"
(cd "$W/tree" && grep -r -F -f "$P" >"$T/exp" 2>"$T/exp_err"; echo "exit $?" >>"$T/exp")
(cd "$W/tree" && "$CLM" -r -F -f "$P" >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act")
same "-r without FILE: the working directory" "$T/exp" "$T/act" "$T/err"
# an unreadable directory is reported and the walk goes on (root reads every directory)
if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$W/locked/in" && printf 'the locked\n' >"$W/locked/in/f" &&
        printf 'the open\n' >"$W/locked/g" && chmod 000 "$W/locked/in"
    vs_grep "-r: an unreadable directory" -r -e the locked
    vs_grep "-r -s: an unreadable directory" -r -s -e the locked
    chmod 755 "$W/locked/in"
else
    pass "-r: an unreadable directory (skipped: root reads every directory)"
fi

# ---- many files, one batch ---------------------------------------------------------------
vs_grep "300 small files -r -n" -r -n -f "$P" many
vs_grep "300 small files -c -w" -r -c -w -f "$P" many
vs_grep "300 small files -x" -r -x -e '' -e 'clmatch' many
# a batch prints what one search per file prints (the threaded file path), classes and the
# empty pattern included
batch_vs_single() {
    name=$1
    shift
    (cd "$W" && "$CLM" -H "$@" doc crlf tree/a.txt >"$T/act" 2>"$T/err")
    (cd "$W" && for f in doc crlf tree/a.txt; do "$CLM" -H "$@" "$f"; done >"$T/exp" 2>&1)
    same "$name" "$T/exp" "$T/act" "$T/err"
}
batch_vs_single "batch = one by one: -o -w --non-overlapping" -o -w --non-overlapping -f "$P"
batch_vs_single "batch = one by one: -n -b, overlapping -o" -n -b -o -f "$P"
batch_vs_single "batch = one by one: classes, empty pattern, -x -c" -c -x -e '' -e 'an.end'
batch_vs_single "batch = one by one: a class over line ends" -n -o 'e.\s'
# a class pattern that would straddle two files of a batch does not match
printf 'xo' >"$W/many/zz1"
printf 'ox\n' >"$W/many/zz2"
"$CLM" -c 'o.o' "$W/many/zz1" "$W/many/zz2" >"$T/act" 2>"$T/err"
printf '%s\n' "$W/many/zz1:0" "$W/many/zz2:0" >"$T/exp"
same "no occurrence across two files of a batch" "$T/exp" "$T/act" "$T/err"
rm -f "$W/many/zz1" "$W/many/zz2"

# ---- usage errors ------------------------------------------------------------------------
expect_error "-m with a bad number" 2 "invalid max count" "$CLM" -m x the "$W/doc"
expect_error "-A with a bad number" 2 "invalid context length" "$CLM" -A -1 the "$W/doc"
expect_error "--color with a bad WHEN" 2 "--color" "$CLM" --color=often the "$W/doc"
expect_error "--binary-files with a bad TYPE" 2 "binary-files" "$CLM" --binary-files=x the "$W/doc"
expect_error "-v with -k" 2 "approximate" "$CLM" -v -k 1 the "$W/doc"

# ---- the progress line ---------------------------------------------------------------------
# CLMATCH_PROGRESS_AFTER=0: the line from the start (else after a second); script(1) gives
# the run a terminal.
CLMATCH_PROGRESS_AFTER=0 "$CLM" -c -F -e the "$W/doc" >"$T/act" 2>"$T/err"
if [ -s "$T/err" ]; then fail "no progress line when stderr is no terminal" "$(head -c 200 "$T/err")"
else pass "no progress line when stderr is no terminal"; fi
if command -v script >/dev/null 2>&1; then
    n=$(grep -c -F -e the "$W/doc")
    CLMATCH_PROGRESS_AFTER=0 script -qec "'$CLM' -c -F -e the '$W/doc'" /dev/null >"$T/tty" 2>&1
    # the line, then cleared ("\r ESC[K") before the count is printed
    if grep -q 'clmatch: [0-9.]* of [0-9.]* GB, [0-9.]* GB/s' "$T/tty" &&
        grep -q "$(printf '\r\033')\\[K$n" "$T/tty"; then
        pass "a progress line on a terminal, cleared before the output"
    else
        fail "a progress line on a terminal, cleared before the output" "$(od -c "$T/tty" | head -n 6)"
    fi
    CLMATCH_PROGRESS_AFTER=0 script -qec "'$CLM' -q -F -e the '$W/doc'" /dev/null >"$T/tty" 2>&1
    if grep -q 'GB/s' "$T/tty"; then fail "no progress line with -q" "$(od -c "$T/tty" | head -n 4)"
    else pass "no progress line with -q"; fi
else
    pass "a progress line on a terminal (skipped: no script(1))"
fi

# Line numbers across more than 16 MiB without a match: the file's newlines are counted ahead
# by blocks on several threads (tools/line_index.c), on the default path and on the device's.
awk 'BEGIN { for (i = 0; i < 450000; i++) printf "line %d of filler text, no hit here\n", i }' \
    >"$W/filler"
{ printf 'the first\n'; cat "$W/filler"; printf 'a kernel mid\r\n'; cat "$W/filler" "$W/filler"
  printf 'the end, no final newline'; } >"$W/big"
vs_grep "-n over 16 MiB gaps" -n -f "$P" big
vs_grep "-n -b over 16 MiB gaps" -n -b -e kernel -e end big
CLMATCH_HOST_THREADS=3 vs_grep "-n over 16 MiB gaps, 3 threads" -n -e the big
CLMATCH_HOST_MAX=0 vs_grep "-n over 16 MiB gaps, the device" -n -f "$P" big
rm -f "$W/filler" "$W/big"

# ---- documentation -----------------------------------------------------------------------
"$CLM" --help >"$T/help" 2>&1
missing=""
for o in invert-match files-with-matches files-without-match max-count after-context \
    before-context context null label null-data color no-messages recursive \
    dereference-recursive include exclude exclude-dir binary-files text group-separator \
    no-group-separator; do
    grep -q -e "--$o\b" "$T/help" || missing="$missing --help:--$o"
    grep -q -e "--$o\b" "$ROOT/docs/cli.md" || missing="$missing cli.md:--$o"
done
if [ -z "$missing" ]; then pass "--help and docs/cli.md name every grep option"; else
    fail "--help and docs/cli.md name every grep option" "missing:$missing"; fi

cli_summary
