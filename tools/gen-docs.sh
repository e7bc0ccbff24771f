#!/bin/sh
# make docs: the tables of the docs that the code generates, written between their markers:
# the algorithms (host/algo.c's descriptors) and the kernels' build options (host/program.c's
# table) in docs/design.md, the environment variables (host/env.c's table) in
# docs/library.md, all printed by clmatch-kernels.
#
#   sh tools/gen-docs.sh BUILD_DIR           rewrite the generated blocks
#   sh tools/gen-docs.sh BUILD_DIR --check   status 1 (and the difference) if one is stale
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 check=${2:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for table in algorithms options environment; do
    "$build/clmatch-kernels" --$table >"$tmp/$table"
done
stale=0
for doc in design.md library.md; do
    # each block: the line <!-- generated: NAME ... -->, the table, the line <!-- end: NAME -->
    awk -v dir="$tmp" '
        /^<!-- generated: [a-z]+ / { print; name = $3; while ((getline l < (dir "/" name)) > 0) print l
                                     skip = 1; next }
        /^<!-- end: [a-z]+ -->/ { skip = 0 }
        !skip { print }' "$root/docs/$doc" >"$tmp/$doc"
    if [ "$check" = --check ]; then
        if ! diff -u "$root/docs/$doc" "$tmp/$doc"; then
            echo "docs/$doc: generated tables are stale: run make docs" >&2
            stale=1
        fi
    else
        cp "$tmp/$doc" "$root/docs/$doc"
    fi
done
exit $stale
