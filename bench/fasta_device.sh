#!/bin/sh
# --dna on FASTA: the host path (fasta.c joins the lines) against the device path (the raw
# bytes uploaded, line breaks dropped by cl/compact.cl), end to end, with identical rows
# (issue 20, deliverable 4).
#
# Usage: sh bench/fasta_device.sh [--reps N] CLMATCH FASTA [clmatch --dna options...]
#        sh bench/fasta_device.sh --make-fasta BYTES OUT   (random bases in 60-column lines,
#                                                           records of about 4 MB)
# Each path runs once untimed (page cache, kernel cache), then N times (default 3); prints
# the best and median wall seconds, MB/s of input, the rows' checksum (both paths must agree:
# else exit 1) and, from the last run's --stats, the library's kernel time.
# Options default to -e GATTACAGATTACA (--pam etc. can be given instead).
set -u
LC_ALL=C
export LC_ALL

if [ "${1:-}" = --make-fasta ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --make-fasta BYTES OUT" >&2; exit 2; }
    acgt=$(printf 'ACGT%.0s' $(seq 64))
    head -c "$2" /dev/urandom | tr '\000-\377' "$acgt" |
        fold -w 60 | awk 'NR % 66000 == 1 { printf ">chr%d assembled random sequence\n", ++n } 1' >"$3"
    exit $?
fi
reps=3
if [ "${1:-}" = --reps ]; then reps=$2; shift 2; fi
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
clm=$1 fa=$2
shift 2
[ $# -gt 0 ] || set -- -e GATTACAGATTACA
bytes=$(wc -c <"$fa")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fasta-device.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0
printf '| path | input MB | best s | median s | MB/s (best) | rows | checksum |\n|---|---|---|---|---|---|---|\n'
for path in host device; do
    "$clm" --dna --line-breaks=$path "$@" "$fa" >/dev/null 2>&1
    : >"$tmp/times"
    i=0
    while [ $i -lt "$reps" ]; do
        t0=$(date +%s.%N)
        "$clm" --dna --line-breaks=$path --stats "$@" "$fa" >"$tmp/out.$path" 2>"$tmp/err.$path"
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc >>"$tmp/times"
        i=$((i + 1))
    done
    sort -n "$tmp/times" >"$tmp/sorted"
    best=$(head -n 1 "$tmp/sorted")
    median=$(sed -n "$(((reps + 1) / 2))p" "$tmp/sorted")
    sum=$(cksum <"$tmp/out.$path" | cut -d ' ' -f 1)
    printf '| %s | %.0f | %.3f | %.3f | %.0f | %d | %s |\n' "$path" "$(echo "$bytes / 1000000" | bc -l)" \
        "$best" "$median" "$(echo "$bytes / 1000000 / $best" | bc -l)" \
        "$(($(wc -l <"$tmp/out.$path") - 1))" "$sum"
done
for path in host device; do
    printf '%s: %s\n' "$path" "$(grep -E 'line breaks|kernel [0-9]' "$tmp/err.$path" | tr '\n' ' ')"
done
if ! cmp -s "$tmp/out.host" "$tmp/out.device"; then
    echo "the two paths' rows differ" >&2
    status=1
fi
exit $status
