#!/bin/sh
# Fetch the real Ustilago maydis genome (19.7 Mbp) from Debian's maffilter-examples package
# into data/umaydis.fa. Prints the path on success. Needs apt's package lists (no root).
# Usage: tools/fetch-genome.sh [DATA_DIR]
set -eu
dir=${1:-data}
out="$dir/umaydis.fa"
if [ -s "$out" ]; then echo "$out"; exit 0; fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
member=./usr/share/doc/maffilter/examples/Umaydis/Umaydis.fasta.gz
if ! (cd "$tmp" && apt-get download maffilter-examples >/dev/null 2>&1); then
    if [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 \
        && (cd "$tmp" && apt-get download maffilter-examples >/dev/null 2>&1); then :
    else
        echo "fetch-genome: could not download Debian's maffilter-examples package" >&2
        echo "  (try: apt-get update && apt-get download maffilter-examples)" >&2
        exit 1
    fi
fi
dpkg-deb --fsys-tarfile "$tmp"/maffilter-examples_*.deb | tar -x -C "$tmp" "$member"
gzip -dc "$tmp/$member" > "$out.part"
mv "$out.part" "$out"
echo "$out"
