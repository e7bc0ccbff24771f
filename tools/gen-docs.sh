#!/bin/sh
# make docs: the tables of docs/design.md that the code generates, written between their
# markers: the algorithms (host/algo.c's descriptors) and the kernels' build options
# (host/program.c's table), both printed by clmatch-kernels.
#
#   sh tools/gen-docs.sh BUILD_DIR           rewrite docs/design.md's generated blocks
#   sh tools/gen-docs.sh BUILD_DIR --check   status 1 (and the difference) if they are stale
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 check=${2:-}
doc=$root/docs/design.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/clmatch-kernels" --algorithms >"$tmp/algorithms"
"$build/clmatch-kernels" --options >"$tmp/options"
# each block: the line <!-- generated: NAME ... -->, the table, the line <!-- end: NAME -->
awk -v dir="$tmp" '
    /^<!-- generated: [a-z]+ / { print; name = $3; while ((getline l < (dir "/" name)) > 0) print l
                                 skip = 1; next }
    /^<!-- end: [a-z]+ -->/ { skip = 0 }
    !skip { print }' "$doc" >"$tmp/design.md"
if [ "$check" = --check ]; then
    diff -u "$doc" "$tmp/design.md" && exit 0
    echo "docs/design.md: generated tables are stale: run make docs" >&2
    exit 1
fi
cp "$tmp/design.md" "$doc"
