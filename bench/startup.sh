#!/bin/sh
# Whole-process time of clmatch's device modes beside ripgrep, small and large files: what the
# early start (--devices auto: the CPU searches while the GPU comes up) saves of the fixed
# start-up and teardown cost (issue 20, item 2).
#
# Usage: sh bench/startup.sh [--reps N] [--rg PATH] CLMATCH PATTERN FILE...
#        sh bench/startup.sh --make-dna BYTES OUT   (one line of random bases, BYTES long)
#   CLMATCH  the clmatch binary (e.g. build/clmatch)
#   PATTERN  a literal (e.g. ACGTTGCAAGGCT, or a word of the corpus)
#   FILE     each file is searched by every mode (e.g. 20 MB and 1 GB one-line DNA made with
#            --make-dna, and a text corpus: bench/fetch-corpus.sh)
#   --reps N timed runs of each command after one untimed warm-up (page cache, kernel cache);
#            the table gives the best and the median. Default 5
#   --rg     the ripgrep binary (default rg on PATH; missing: its rows are skipped)
# Modes: gpu (clmatch's default device: the first GPU), cpu (the first CPU device, -p P -d D),
# auto (--devices auto), and rg -F -c. Every command is `-c -F PATTERN FILE`; the counts must
# agree (else the row says so and the exit status is 1).
# Prints a markdown table: file, bytes, mode, best s, median s, count.
set -u
LC_ALL=C
export LC_ALL

if [ "${1:-}" = --make-dna ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --make-dna BYTES OUT" >&2; exit 2; }
    # each random byte becomes one of ACGT (256 = 4 * 64: uniform); no newline
    acgt=$(printf 'ACGT%.0s' $(seq 64))
    head -c "$2" /dev/urandom | tr '\000-\377' "$acgt" >"$3"
    exit $?
fi

reps=5
rg=$(command -v rg || true)
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --rg) rg=$2; shift 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 3 ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
clm=$1
pat=$2
shift 2
case $reps in '' | *[!0-9]* | 0) echo "--reps: a number above 0" >&2; exit 2 ;; esac

# The first CPU device as "-p P -d D" (clmatch --list-devices: "[*] P:D TYPE ...").
cpu=$("$clm" --list-devices | awk '{ pd = $1 == "*" ? $2 : $1; t = $1 == "*" ? $3 : $2 }
                                  pd ~ /^[0-9]+:[0-9]+$/ && t == "CPU" {
                                      split(pd, a, ":"); print "-p " a[1] " -d " a[2]; exit }')

now() { date +%s.%N; }

# run MODE FILE CMD...: one warm-up, then reps timed runs; prints the table row.
status=0
run() {
    mode=$1
    file=$2
    shift 2
    "$@" >"$tmp/count" 2>"$tmp/err" || [ $? -eq 1 ] || {
        printf '| %s | %s | %s | failed: %s | | |\n' "$file" "$bytes" "$mode" \
            "$(head -n 1 "$tmp/err")"
        status=1
        return
    }
    : >"$tmp/times"
    i=0
    while [ $i -lt "$reps" ]; do
        t0=$(now)
        "$@" >"$tmp/count" 2>/dev/null
        t1=$(now)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$tmp/times"
        i=$((i + 1))
    done
    count=$(cat "$tmp/count")
    count=${count:-0} # rg -c prints nothing when nothing matches
    [ -z "$want" ] && want=$count
    note=
    if [ "$count" != "$want" ]; then
        note=" (differs from $want)"
        status=1
    fi
    sort -n "$tmp/times" | awk -v f="$file" -v b="$bytes" -v m="$mode" -v c="$count$note" '
        { t[NR] = $1 } END { printf "| %s | %s | %s | %.3f | %.3f | %s |\n", f, b, m, t[1],
                             t[int((NR + 1) / 2)], c }'
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
echo "| file | bytes | mode | best s | median s | count |"
echo "|---|---:|---|---:|---:|---:|"
for f in "$@"; do
    [ -r "$f" ] || { echo "$f: not readable" >&2; status=2; continue; }
    bytes=$(wc -c <"$f")
    want=
    run gpu "$f" "$clm" -c -F "$pat" "$f"
    if [ -n "$cpu" ]; then
        # shellcheck disable=SC2086 # $cpu: -p P -d D
        run cpu "$f" "$clm" $cpu -c -F "$pat" "$f"
    fi
    run auto "$f" "$clm" --devices auto -c -F "$pat" "$f"
    [ -n "$rg" ] && run "rg -F -c" "$f" "$rg" -F -c "$pat" "$f"
done
exit $status
