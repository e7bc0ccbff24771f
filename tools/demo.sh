#!/bin/sh
# make demo: a real search on the default OpenCL device (a GPU when there is one, else PoCL
# on the CPU): every EcoRI site (GAATTC) in the real Ustilago maydis genome from Debian's
# maffilter-examples package.
set -eu
B=${B:-build}
# The default device itself: with no device chosen, a plain pattern in a file would go to
# the host search (docs/cli.md, --devices)
CLMATCH_HOST_MAX=0
export CLMATCH_HOST_MAX
genome=$(sh tools/fetch-genome.sh data) || {
    echo "demo: could not fetch the genome (no network to Debian's archive?)." >&2
    exit 1
}
echo "== OpenCL devices"
"$B/clmatch" --list-devices
echo
echo "== EcoRI sites (GAATTC) in $genome ($(wc -c < "$genome") bytes, 36 chromosomes)"
count=$("$B/clmatch" --count-matches --stats GAATTC "$genome" 2> data/demo-stats.txt)
echo "occurrences: $count"
echo "first positions (0-based byte offsets in the file):"
"$B/clmatch" --positions GAATTC "$genome" | head -n 5 | sed 's/^/  /'
echo "first matching lines (line number: line):"
"$B/clmatch" -n GAATTC "$genome" | head -n 3 | sed 's/^/  /'
echo "lines with a site: $("$B/clmatch" -c GAATTC "$genome")"
echo
echo "== run statistics"
cat data/demo-stats.txt
