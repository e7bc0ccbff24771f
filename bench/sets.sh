#!/bin/sh
# One scan over several devices beside each device alone (issue 21; bench/README.md, "Device
# sets"): builds bench/sets/set_bench against the build's libclmatch.a when it is missing or
# older than its source or the library, then runs it with these arguments.
#
#   sh bench/sets.sh [--build DIR] SET_BENCH_ARGUMENTS...
#   e.g. sh bench/sets.sh --size 4G -e ACGTTGCAACGTA data/umaydis.fa 1:0 1:1 1:0,1:1
#        sh bench/sets.sh --lines orders.o_comment.txt --like '%special%requests%' 1:0 1:0,1:1
# Exit status: set_bench's (0, 1 when a set's matches differ from the first set's, 2 errors).
set -eu
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = --build ]; then
    [ $# -ge 2 ] || { echo "sets.sh: --build needs a value" >&2; exit 2; }
    build=$2
    shift 2
fi
[ -f "$build/libclmatch.a" ] || { echo "sets.sh: no $build/libclmatch.a: run make first" >&2; exit 2; }
bin=$build/set_bench
if [ ! -x "$bin" ] || [ -n "$(find bench/sets/set_bench.c "$build/libclmatch.a" -newer "$bin" 2>/dev/null)" ]; then
    ${CC:-cc} -std=c11 -O2 -Wall -Wextra -pedantic -Iinclude -o "$bin" bench/sets/set_bench.c \
        "$build/libclmatch.a" -lOpenCL -lpthread -lm
fi
exec "$bin" "$@"
