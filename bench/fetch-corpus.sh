#!/bin/sh
# Fetch the English text corpus of clmatch-bench's `multi` suite into data/gcide.txt: GCIDE,
# the GNU Collaborative International Dictionary of English (GPL-3, real English prose:
# Webster's 1913 definitions and quotations), from Debian's dict-gcide package; its
# gcide.dict.dz is dictzip, which gzip reads. 38 MiB, ASCII but for a few bytes. Prints the
# path on success. Needs apt's package lists (no root). The GPU host has no network: carry
# data/gcide.txt over with the checkout (bench/README.md).
# Usage: sh bench/fetch-corpus.sh [DATA_DIR]
set -eu
dir=${1:-data}
out="$dir/gcide.txt"
if [ -s "$out" ]; then echo "$out"; exit 0; fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
member=./usr/share/dictd/gcide.dict.dz
if ! (cd "$tmp" && apt-get download dict-gcide >/dev/null 2>&1); then
    if [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 \
        && (cd "$tmp" && apt-get download dict-gcide >/dev/null 2>&1); then :
    else
        echo "fetch-corpus: could not download Debian's dict-gcide package" >&2
        echo "  (try: apt-get update && apt-get download dict-gcide)" >&2
        exit 1
    fi
fi
dpkg-deb --fsys-tarfile "$tmp"/dict-gcide_*.deb | tar -x -C "$tmp" "$member"
gzip -dc "$tmp/$member" > "$out.part"
mv "$out.part" "$out"
echo "$out"
