#!/bin/sh
# The records suite: clmatch's SQL LIKE on TPC-H string columns beside DuckDB
# (issue 19, bench item; bench/README.md, "Records").
#
# Usage: sh bench/records.sh [--build DIR] [--sf SF] [--device P:D]... [--out DIR] [OPTIONS]
#        sh bench/records.sh --self-test
# It generates TPC-H tables with tpchgen-cli (PyPI), extracts orders.o_comment,
# lineitem.l_comment, part.p_name and part.p_type one value a line, builds
# bench/records/records_bench against DIR/libclmatch.a, then bench/records.py times the
# queries with DuckDB (PyPI) and clmatch, checks that they select the same rows, and writes
# OUT/<label>-<date>-records-sf<SF>[-partial].md and .csv. This script builds nothing else:
# run `make` first.
# Exit status: 0, 1 when the engines disagree or a run failed, 2 bad arguments or input.
set -eu
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: sh bench/records.sh [OPTIONS]
  --build DIR        the clmatch build (libclmatch.a); default build
  --sf SF            TPC-H scale factor; default 1
  --device P:D       a device (repeatable; records_bench --list); default every device
  --out DIR          where the report goes; default bench/results
  --label NAME       the report's label; default the host name
  --data DIR         generated tables and columns, kept for the next run of the same SF;
                     default ${TMPDIR:-/tmp}/clmatch-records
  --tpchgen PATH     tpchgen-cli; default: PATH, else PYTHONPATH entries' bin/, /tmp/site/bin
  --python-path DIR  prepended to PYTHONPATH (where duckdb is: pip install --target DIR)
  --python PATH      the Python 3; default python3
  --threads N        DuckDB's threads; default every CPU
  --reps N           clmatch's timed calls a query (best of); default 10
  --max-time S       stop a query's clmatch calls after S seconds; default 10
  --duckdb-reps N    DuckDB's timed runs a query (best of); default 4
  --mode M           clmatch's column: resident, host or both (default)
  --kernels K        also force each kernel (item, group, filter, automaton, segment): on
                     none, long (the synthesized columns, default) or all columns
  --methods LIST     with --kernels: the methods forced, records_bench --kernels=LIST
                     (e.g. item,item/kmp_hybrid,segment:8:64,segment:4:128/kmp_step)
  --pivot W          also a resident column pivoted in pieces of W bytes (4, 8, 16;
                     repeatable): mode pivotW
  --self-pivot W:S:L also a resident column self-pivoted: S segments of L bytes a chunk,
                     pieces of W bytes (repeatable): mode selfpivotW:S:L
  --column NAME      only columns whose name starts with NAME (repeatable; e.g. orders)
  --query ID         only query ID (repeatable; q13 special not-q13 or10 ...)
  --self-test        SF 0.01 on the first device, report under a temporary directory
Relative paths are from the checkout's root (the script runs there).
EOF
}

build=build sf=1 devices='' out=bench/results label='' data='' tpchgen='' python=python3
self_test=0 partial='' only=''
set_extra() { extra="${extra:+$extra
}$1
$2"; }
extra=''
need() { [ $# -ge 2 ] || { echo "records.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case $1 in
        --build) need "$@"; build=$2; shift ;;
        --sf) need "$@"; sf=$2; shift ;;
        --device) need "$@"; devices="$devices $2"; shift ;;
        --out) need "$@"; out=$2; shift ;;
        --label) need "$@"; label=$2; shift ;;
        --data) need "$@"; data=$2; shift ;;
        --tpchgen) need "$@"; tpchgen=$2; shift ;;
        --python-path) need "$@"; PYTHONPATH="$2${PYTHONPATH:+:$PYTHONPATH}"; shift ;;
        --python) need "$@"; python=$2; shift ;;
        --threads|--reps|--max-time|--duckdb-reps|--mode|--kernels|--methods|--pivot|--self-pivot) need "$@"; set_extra "$1" "$2"; shift ;;
        --column) need "$@"; set_extra "$1" "$2"; partial=-partial; only="$only $2"; shift ;;
        --query) need "$@"; set_extra "$1" "$2"; partial=-partial; shift ;;
        --self-test) self_test=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "records.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
export PYTHONPATH

case $sf in
    ''|*[!0-9.]*|*.*.*|.) echo "records.sh: --sf wants a number, not '$sf'" >&2; exit 2 ;;
esac
data=${data:-${TMPDIR:-/tmp}/clmatch-records}/sf$sf
if [ "$self_test" = 1 ]; then
    sf=0.01
    data=${TMPDIR:-/tmp}/clmatch-records-self-test
    out=$(mktemp -d "${TMPDIR:-/tmp}/records-self-test.XXXXXX")
    set_extra --reps 2
    set_extra --duckdb-reps 1
fi

if [ ! -f "$build/libclmatch.a" ]; then
    echo "records.sh: $build/libclmatch.a is missing; build it with: make" >&2
    exit 2
fi
command -v "$python" >/dev/null 2>&1 || { echo "records.sh: no $python" >&2; exit 2; }
"$python" -c 'import duckdb' 2>/dev/null || {
    echo "records.sh: $python cannot import duckdb (pip install duckdb; or --python-path DIR)" >&2
    exit 2
}

# tpchgen-cli: given, on PATH, or where `pip install --target` put its binary.
if [ -z "$tpchgen" ]; then
    tpchgen=$(command -v tpchgen-cli 2>/dev/null) || tpchgen=
    if [ -z "$tpchgen" ]; then
        dirs=$(printf '%s' "${PYTHONPATH:-}" | tr ':' ' ')
        for d in $dirs /tmp/site; do
            if [ -x "$d/bin/tpchgen-cli" ]; then tpchgen=$d/bin/tpchgen-cli; break; fi
        done
    fi
fi
if [ -z "$tpchgen" ] || [ ! -x "$tpchgen" ]; then
    echo "records.sh: no tpchgen-cli (pip install tpchgen-cli; or --tpchgen PATH)" >&2
    exit 2
fi

# Whether file $1 is newer than file $2 (test's -nt is not POSIX).
newer() { [ -n "$(find "$1" -prune -newer "$2" 2>/dev/null)" ]; }

# records_bench, rebuilt when its source or the library is newer.
rb=$build/records_bench
if [ ! -x "$rb" ] || newer bench/records/records_bench.c "$rb" ||
   newer "$build/libclmatch.a" "$rb"; then
    ${CC:-cc} -Iinclude -std=c11 -Wall -Wextra -pedantic -O2 -o "$rb" \
        bench/records/records_bench.c "$build/libclmatch.a" -lOpenCL -lpthread -lm
fi
known=$("$rb" --list | cut -f1) || exit 2
if [ -z "$devices" ]; then
    devices=$known
    if [ "$self_test" = 1 ]; then devices=$(printf '%s\n' "$known" | head -n 1); fi
else
    partial=-partial
    for d in $devices; do
        printf '%s\n' "$known" | grep -qx "$d" || {
            echo "records.sh: no device $d; there are: $(printf "%s" "$known" | tr "\n" " ")" >&2
            exit 2
        }
    done
fi
[ -n "$devices" ] || { echo "records.sh: no OpenCL device" >&2; exit 2; }

# The columns, one value a line, kept for the next run of the same SF. tpchgen-cli writes
# each table to a pipe (no .tbl on disk: lineitem is 0.75 GB per SF); TBL rows are
# '|'-separated with a trailing '|': o_comment is orders' 9th field of 9, l_comment
# lineitem's 16th of 16, p_name and p_type part's 2nd and 5th of 9. awk checks the field
# count, so a value holding a '|' cannot shift a column silently, and the generator's exit
# status is checked through a file (POSIX sh has no pipefail).
mkdir -p "$data"
extract() { # table fields-per-row field column [field column]
    t=$1 n=$2
    shift 2
    if [ -n "$only" ]; then # --column: only the tables of the columns asked for
        wanted=0
        for c in $only; do
            case $2 in "$c"*) wanted=1 ;; esac
            case ${4:-} in "$c"*) [ -n "${4:-}" ] && wanted=1 ;; esac
        done
        [ "$wanted" = 1 ] || return 0
    fi
    if [ -s "$data/$2.txt" ] && { [ $# -lt 4 ] || [ -s "$data/$4.txt" ]; }; then
        return 0
    fi
    echo "records: tpchgen-cli -s $sf -T $t" >&2
    { "$tpchgen" -s "$sf" -T "$t" --stdout; echo $? > "$data/gen.status"; } |
        LC_ALL=C awk -F'|' -v n="$n" -v t="$t" -v f1="$1" -v o1="$data/$2.tmp" \
                -v f2="${3:-0}" -v o2="$data/${4:-none}.tmp" '
            NF != n + 1 { printf "records.sh: %s line %d has %d fields, not %d\n",
                          t, NR, NF - 1, n > "/dev/stderr"; exit 2 }
            { print $f1 > o1; if (f2) print $f2 > o2 }' || exit 2
    [ "$(cat "$data/gen.status")" = 0 ] || {
        echo "records.sh: tpchgen-cli -s $sf -T $t failed" >&2
        exit 2
    }
    mv "$data/$2.tmp" "$data/$2.txt"
    if [ $# -ge 4 ]; then mv "$data/$4.tmp" "$data/$4.txt"; fi
}
extract orders 9 9 orders.o_comment
extract lineitem 16 16 lineitem.l_comment
extract part 9 2 part.p_name 5 part.p_type

host=$(hostname 2>/dev/null || uname -n)
label=${label:-${host%%.*}}
name=$label-$(date -u +%Y-%m-%d)-records-sf$sf$partial
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
version=$("$tpchgen" --version 2>/dev/null || echo tpchgen-cli)

set --
for d in $devices; do set -- "$@" --device "$d"; done
if [ -n "$extra" ]; then
    # One option or value a line: values may hold spaces, never newlines.
    old_ifs=$IFS
    IFS='
'
    # shellcheck disable=SC2086
    set -- "$@" $extra
    IFS=$old_ifs
fi
status=0
"$python" bench/records.py --data "$data" --records-bench "$rb" --sf "$sf" --out "$out" \
    --name "$name" --label "$label" --commit "$commit" --tpchgen-version "$version" "$@" ||
    status=$?
if [ "$self_test" = 1 ]; then
    if [ "$status" != 0 ] || [ ! -s "$out/$name.csv" ] || [ ! -s "$out/$name.md" ]; then
        echo "records.sh: self-test FAILED (status $status; report in $out)" >&2
        exit $((status ? status : 1))
    fi
    echo "records.sh: self-test passed (report in $out)" >&2
fi
exit "$status"
