#!/bin/sh
# clmatch against the CPU tools, whole process, warm page cache (bench/README.md, "compare").
#
# Usage: sh bench/compare.sh [OPTIONS]
#   --size LIST      text sizes, comma-separated or repeated (K/M/G/T binary suffixes; "file":
#                    the file as it is); several give a time-vs-size series.  Default 1G
#   --file PATH      the text, replicated (last copy cut) to each size.  Default the genome
#                    (tools/fetch-genome.sh -> data/umaydis.fa)
#   --patterns LIST  comma-separated: file:M (M bytes from the file's first line of at least M
#                    bytes at or after offset 1,000,000, as clmatch-bench picks them), none (a
#                    32-mer of bases that never matches), set:ID (the patterns of
#                    clmatch-bench's multi scenario ID, e.g. set:multi-dna20-1000, drawn
#                    from --file: one search for all of them), list:PATH (every line of
#                    PATH a pattern), or a literal.  Default file:13,file:32,none
#   --multi          the pattern sets of 10, 100, 1000 and 10000 DNA 20-mers
#                    (set:multi-dna20-N; with --file data/gcide.txt use set:multi-words-N)
#   --pattern STR    one more literal (repeatable; may hold commas)
#   --reps N         timed runs per row after one untimed warm-up run.  Default 5
#   --tools LIST     clmatch,grep,rg,ugrep,hs,memmem (default: all; a missing one is skipped
#                    with a note)
#   --device P:D     clmatch device (repeatable).  Default every device of clmatch --list-devices
#   --devices SPEC   also a clmatch row searching with `--devices SPEC` (repeatable): a device
#                    set such as 0:0,1:0, gpus or all, or auto (the host search for files it
#                    takes, no OpenCL start-up); these rows come on top of the --device ones
#   --threads LIST   threads of hs and memmem.  Default 1,$(nproc)
#   --build DIR      where clmatch, hs_count, memmem_count are (default build)
#   --scratch DIR    where the replicated texts go (default ${TMPDIR:-/tmp}/clmatch-compare);
#                    kept for the next run unless --clean
#   --clean          remove the replicated texts at the end
#   --out DIR        results directory (default bench/results)
#   --label NAME     results file prefix (default the host name)
#   --no-files       print the markdown report only
# Environment: CLMATCH, HS_COUNT, MEMMEM_COUNT, GREP, RG, UGREP, BENCH (clmatch-bench, for
# set:ID): the programs (e.g. RG=/opt/rg/usr/bin/rg, binaries extracted from .deb files);
# every tool runs under LC_ALL=C.
# Writes <out>/<label>-<YYYY-MM-DD>-compare.md, .csv, .json and prints the markdown.
# INT/TERM during the runs: the running command finishes, then the rows measured so far are
# written as <label>-<date>-compare-partial.* (e.g. under `timeout 590 sh bench/compare.sh`).
# Exit status: 0 success, 1 a tool failed, the counts disagree or the run was stopped, 2 bad
# arguments or input.
set -u
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/.." && pwd)
me=bench/compare.sh

die() { echo "$me: $*" >&2; exit 2; }
say() { echo "$me: $*" >&2; }

sizes=''; file=''; patterns=''; extra_patterns=''; reps=5; tools=''; devices=''; sets=''; threads=''
build=''; scratch=''; clean=0; out="$root/bench/results"; label=''; nofiles=0
nl='
'
while [ $# -gt 0 ]; do
    case $1 in
        --size) [ $# -ge 2 ] || die "--size needs a value"; sizes="$sizes,$2"; shift ;;
        --size=*) sizes="$sizes,${1#*=}" ;;
        --file) [ $# -ge 2 ] || die "--file needs a value"; file=$2; shift ;;
        --file=*) file=${1#*=} ;;
        --patterns) [ $# -ge 2 ] || die "--patterns needs a value"; patterns="$patterns,$2"; shift ;;
        --patterns=*) patterns="$patterns,${1#*=}" ;;
        --multi) patterns="$patterns,set:multi-dna20-10,set:multi-dna20-100,set:multi-dna20-1000,set:multi-dna20-10000" ;;
        --pattern) [ $# -ge 2 ] || die "--pattern needs a value"
                   extra_patterns="$extra_patterns$2$nl"; shift ;;
        --reps) [ $# -ge 2 ] || die "--reps needs a value"; reps=$2; shift ;;
        --reps=*) reps=${1#*=} ;;
        --tools) [ $# -ge 2 ] || die "--tools needs a value"; tools="$tools,$2"; shift ;;
        --tools=*) tools="$tools,${1#*=}" ;;
        --device) [ $# -ge 2 ] || die "--device needs a value"; devices="$devices $2"; shift ;;
        --device=*) devices="$devices ${1#*=}" ;;
        --devices) [ $# -ge 2 ] || die "--devices needs a value"; sets="$sets $2"; shift ;;
        --devices=*) sets="$sets ${1#*=}" ;;
        --threads) [ $# -ge 2 ] || die "--threads needs a value"; threads="$threads,$2"; shift ;;
        --threads=*) threads="$threads,${1#*=}" ;;
        --build) [ $# -ge 2 ] || die "--build needs a value"; build=$2; shift ;;
        --build=*) build=${1#*=} ;;
        --scratch) [ $# -ge 2 ] || die "--scratch needs a value"; scratch=$2; shift ;;
        --scratch=*) scratch=${1#*=} ;;
        --clean) clean=1 ;;
        --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift ;;
        --out=*) out=${1#*=} ;;
        --label) [ $# -ge 2 ] || die "--label needs a value"; label=$2; shift ;;
        --label=*) label=${1#*=} ;;
        --no-files) nofiles=1 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (--help)" ;;
    esac
    shift
done

# ---- arguments --------------------------------------------------------------------------
case $reps in ''|*[!0-9]*|0) die "--reps wants a positive integer, not '$reps'" ;; esac
[ -n "$sizes" ] || sizes=,1G
[ -n "$patterns$extra_patterns" ] || patterns=,file:13,file:32,none
[ -n "$tools" ] || tools=,clmatch,grep,rg,ugrep,hs,memmem
for t in $(echo "$tools" | tr ',' ' '); do
    case $t in clmatch|grep|rg|ugrep|hs|memmem) ;; *) die "unknown tool '$t'" ;; esac
done
has_tool() { case ",$tools," in *",$1,"*) return 0 ;; esac; return 1; }
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
if [ -z "$threads" ]; then
    threads=1; [ "$ncpu" -gt 1 ] && threads="1 $ncpu"
else
    threads=$(echo "$threads" | tr ',' ' ')
    for t in $threads; do
        case $t in ''|*[!0-9]*|0) die "--threads wants positive integers, not '$t'" ;; esac
    done
fi
[ -n "$label" ] || label=$(hostname 2>/dev/null || uname -n)
case $label in */*|'') die "bad --label '$label'" ;; esac
[ -n "$build" ] || build="$root/build"
[ -n "$scratch" ] || scratch="${TMPDIR:-/tmp}/clmatch-compare"

# Bytes from 256M, 1G, 1000, file.
to_bytes() {
    echo "$1" | awk '
        /^file$/ { print "file"; exit }
        /^[0-9]+([.][0-9]+)?[KkMmGgTt]?$/ {
            v = $0; u = substr(v, length(v)); f = 1
            if (u ~ /[Kk]/) f = 1024; else if (u ~ /[Mm]/) f = 1048576
            else if (u ~ /[Gg]/) f = 1073741824; else if (u ~ /[Tt]/) f = 1099511627776
            if (f > 1) v = substr(v, 1, length(v) - 1)
            printf "%.0f\n", v * f; exit }
        { exit 1 }'
}
size_list=''
for s in $(echo "$sizes" | tr ',' ' '); do
    b=$(to_bytes "$s") || die "bad --size '$s'"
    [ "$b" = 0 ] && die "bad --size '$s'"
    size_list="$size_list $b"
done

# Wall-clock nanoseconds: GNU date (coreutils, busybox with FEATURE_DATE_NANO).
case $(date +%s%N 2>/dev/null) in
    *[!0-9]*|'') die "date +%s%N does not give nanoseconds here (GNU coreutils needed)" ;;
esac

if [ -z "$file" ]; then
    file=$(cd "$root" && sh tools/fetch-genome.sh) || die "could not fetch the genome (tools/fetch-genome.sh)"
    file="$root/$file"
fi
[ -f "$file" ] && [ -r "$file" ] || die "cannot read --file '$file'"
file_bytes=$(wc -c < "$file" | tr -d ' ')
[ "$file_bytes" -gt 0 ] || die "--file '$file' is empty"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-compare.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

notes="$tmp/notes"; : > "$notes"
note() { echo "$*" >> "$notes"; say "$*"; }

# ---- tools ------------------------------------------------------------------------------
CLMATCH=${CLMATCH:-$build/clmatch}
HS_COUNT=${HS_COUNT:-$build/hs_count}
BENCH=${BENCH:-$build/clmatch-bench}
MEMMEM_COUNT=${MEMMEM_COUNT:-$build/memmem_count}
GREP=${GREP:-$(command -v grep || echo grep)}
RG=${RG:-$(command -v rg || echo rg)}
UGREP=${UGREP:-$(command -v ugrep || echo ugrep)}

# "tool|path|version" lines of the tools that will run.
toolinfo="$tmp/tools"; : > "$toolinfo"
usable() {  # name path version-command...
    n=$1; p=$2; shift 2
    if ! has_tool "$n"; then return 1; fi
    if [ ! -x "$p" ] && ! command -v "$p" >/dev/null 2>&1; then
        case $n in
            clmatch) note "clmatch skipped: $p is missing (make, or CLMATCH=...)" ;;
            hs) note "hs skipped: $p is missing (make bench-tools needs libhyperscan-dev; or HS_COUNT=...)" ;;
            memmem) note "memmem skipped: $p is missing (make bench-tools; or MEMMEM_COUNT=...)" ;;
            *) note "$n skipped: '$p' not found (install it, or $(echo "$n" | tr a-z A-Z)=/path/to/$n)" ;;
        esac
        return 1
    fi
    v=$("$@" 2>&1 | head -n 1 | tr -d '\r' | tr '|\t' '  ')
    echo "$n|$p|$v" >> "$toolinfo"
    return 0
}
usable clmatch "$CLMATCH" "$CLMATCH" --version
usable grep "$GREP" "$GREP" --version
usable rg "$RG" "$RG" --version
usable ugrep "$UGREP" "$UGREP" --version
# hs_count and memmem_count have no --version: their stderr line says what they are.
usable hs "$HS_COUNT" sh -c 'printf x > "$1/x" && "$2" x "$1/x" 2>&1 >/dev/null | sed "s/.*hyperscan=/Hyperscan /"' sh "$tmp" "$HS_COUNT"
usable memmem "$MEMMEM_COUNT" sh -c 'echo "glibc memmem ($(getconf GNU_LIBC_VERSION 2>/dev/null))"'
tool_ok() { grep -q "^$1|" "$toolinfo"; }
drop_tool() { grep -v "^$1|" "$toolinfo" > "$toolinfo.2"; mv "$toolinfo.2" "$toolinfo"; }
tool_version() { grep "^$1|" "$toolinfo" | head -n 1 | cut -d'|' -f3; }

# clmatch devices: P:D (indices as clmatch --list-devices prints them).
devlist="$tmp/devices"; : > "$devlist"
if tool_ok clmatch; then
    if ! "$CLMATCH" --list-devices > "$tmp/list" 2>&1; then
        note "clmatch skipped: clmatch --list-devices failed: $(head -n 1 "$tmp/list")"
        drop_tool clmatch
    elif [ -n "${devices# }" ]; then
        for d in $devices; do
            awk -v d="$d" '{ for (i = 1; i <= 2; i++) if ($i == d) f = 1 } END { exit !f }' "$tmp/list" \
                || die "--device $d: clmatch --list-devices does not show it"
            echo "$d" >> "$devlist"
        done
    else
        awk '{ for (i = 1; i <= 2; i++) if ($i ~ /^[0-9]+:[0-9]+$/) { print $i; next } }' \
            "$tmp/list" > "$devlist"
        [ -s "$devlist" ] || { note "clmatch skipped: no OpenCL device"; drop_tool clmatch; }
    fi
    for d in $sets; do   # device sets: set:SPEC, checked by clmatch itself on the first run
        case $d in *[!0-9a-z:,]*) die "--devices $d: expected P:D,P:D..., gpus, all or auto" ;; esac
        echo "set:$d" >> "$devlist"
    done
fi
[ -s "$toolinfo" ] || die "no tool to run"

# ---- patterns ---------------------------------------------------------------------------
nonmatch=TGCATCGGATACCGTTAGCAATCGGCTAGTCA   # 32 bases; checked below
from=0; [ "$file_bytes" -gt 2000000 ] && from=1000000
pick() {  # M: M bytes from the first line (not a FASTA header) of >= M bytes at or after $from
    awk -v m="$1" -v from="$from" '
        { sub(/\r$/, "") }
        off >= from && $0 !~ /^[>;]/ && length($0) >= m { print substr($0, 1, m); found = 1; exit }
        { off += length($0) + 1 }
        END { exit !found }' "$file"
}
plist="$tmp/patterns"; : > "$plist"   # id<TAB>pattern<TAB>what[<TAB>pattern file of a set]
n_user=0
sets="$tmp/sets"
# A set: its lines (one pattern each) searched at once; the pattern column says what it is.
add_set() {  # id path what
    [ -s "$2" ] || die "pattern set $1: '$2' is missing or empty"
    if grep -q '^$' "$2"; then die "pattern set $1: '$2' has an empty line (an empty pattern)"; fi
    if grep -q '	' "$2"; then die "pattern set $1: '$2' has a tab (not supported)"; fi
    n=$(wc -l < "$2" | tr -d ' ')
    longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$2")
    printf '%s\t%s\t%s\t%s\n' "$1" "$n patterns ($(head -n 1 "$2") ...)" "$3, longest $longest" "$2" >> "$plist"
}
add_pattern() {  # token
    case $1 in
        '') return ;;
        set:*)
            id=${1#set:}
            if [ ! -d "$sets" ]; then  # every multi scenario's set, drawn from --file
                [ -x "$BENCH" ] || die "set:$id needs $BENCH (make, or BENCH=...)"
                "$BENCH" --genome "$file" --corpus "$file" --write-patterns "$sets" >&2 \
                    || die "$BENCH --write-patterns failed"
            fi
            [ -f "$sets/$id.txt" ] || die "no pattern set '$id' from $file (clmatch-bench --suite multi --list-scenarios; DNA sets need the genome, word sets the corpus)"
            add_set "$id" "$sets/$id.txt" "clmatch-bench's $id, drawn from the file" ;;
        list:*)
            n_user=$((n_user + 1))
            add_set "list$n_user" "${1#list:}" "lines of ${1#list:}" ;;
        file:*)
            m=${1#file:}
            case $m in ''|*[!0-9]*|0) die "bad pattern token '$1' (file:M)" ;; esac
            p=$(pick "$m") || die "no line of $m bytes in $file to take a file:$m pattern from"
            printf 'p%s\t%s\t%s\n' "$m" "$p" "$m bytes of the file (from offset $from on)" >> "$plist" ;;
        none)
            printf 'none\t%s\t%s\n' "$nonmatch" "32 bases, absent from the genome" >> "$plist" ;;
        *)
            case $1 in *'	'*) die "a pattern with a tab is not supported" ;; esac
            n_user=$((n_user + 1))
            printf 'user%s\t%s\t%s\n' "$n_user" "$1" "given" >> "$plist" ;;
    esac
}
old_ifs=$IFS; IFS=,
for tok in $patterns; do IFS=$old_ifs; add_pattern "$tok"; IFS=,; done
# clmatch takes a set with -f where it has it, else as one -e per line (shell-quoted here,
# once per set, for the eval in cmd_of).
clmatch_f=''
if "$CLMATCH" --help 2>/dev/null | grep -Eq '^[[:space:]]*-f[ ,]'; then clmatch_f=1; fi
while IFS='	' read -r pid _p _w setf; do
    [ -n "$setf" ] || continue
    if [ -n "$clmatch_f" ]; then
        printf -- "-f '%s'" "$(printf '%s' "$setf" | sed "s/'/'\\\\''/g")" > "$tmp/args-$pid"
    else
        sed -e "s/'/'\\\\''/g" -e "s/^/-e '/" -e "s/\$/'/" "$setf" | tr '\n' ' ' > "$tmp/args-$pid"
    fi
done < "$plist"
if grep -q '	.*	.*	' "$plist"; then
    has_tool memmem && note "memmem: one pattern a run; not run on pattern sets"
    if [ -n "$clmatch_f" ]; then note "clmatch takes a pattern set with -f FILE"
    else note "clmatch takes a pattern set as one -e per line (its --help lists no -f)"; fi
fi
IFS=$nl
for tok in $extra_patterns; do IFS=$old_ifs; add_pattern "$tok"; IFS=$nl; done
IFS=$old_ifs
[ -s "$plist" ] || die "no pattern"
if grep -q "^none	" "$plist" && "$GREP" -q -F -e "$nonmatch" "$file" 2>/dev/null; then
    note "the 'none' pattern $nonmatch occurs in $file: its counts are not zero"
fi

# ---- timing -----------------------------------------------------------------------------
# run OUT ERR CMD...: sets $ns (wall nanoseconds, whole process) and $rc.
run() {
    o=$1; e=$2; shift 2
    t0=$(date +%s%N)
    "$@" > "$o" 2> "$e"
    rc=$?
    t1=$(date +%s%N)
    ns=$((t1 - t0))
}
# The timer's own cost: a no-op process measured the same way.
timer_ns=''
for i in 1 2 3 4 5; do
    run /dev/null /dev/null env true
    [ -z "$timer_ns" ] || [ "$ns" -lt "$timer_ns" ] && timer_ns=$ns
done

# clmatch's device options for a row's config: P:D, or set:SPEC for --devices SPEC.
dev_opts() {
    case $1 in
        set:*) echo "--devices ${1#set:}" ;;
        *) echo "-p ${1%%:*} -d ${1#*:}" ;;
    esac
}

# The command of a row: tool, device or thread count, pattern, file, and a set's pattern
# file and id (pat is then its description).
cmd_of() {
    tool=$1; cfg=$2; pat=$3; f=$4; setf=${5:-}; spid=${6:-}
    if [ -n "$setf" ]; then
        case $tool in
            clmatch-matches|clmatch-lines)
                sem_opt=--count-matches; [ "$tool" = clmatch-lines ] && sem_opt=-c
                eval "set -- \"\$CLMATCH\" $(dev_opts "$cfg") --stats $sem_opt -F $(cat "$tmp/args-$spid") \"\$f\"" ;;
            grep) set -- "$GREP" -F -c -f "$setf" "$f" ;;
            rg) set -- "$RG" --no-config -F -c -f "$setf" "$f" ;;
            rg-matches) set -- "$RG" --no-config -F --count-matches -f "$setf" "$f" ;;
            ugrep) set -- "$UGREP" -F -c -f "$setf" "$f" ;;
            hs) set -- "$HS_COUNT" -t "$cfg" -f "$setf" "$f" ;;
        esac
        "$@"
        return
    fi
    case $tool in
        # shellcheck disable=SC2046 # dev_opts gives separate words, none with spaces
        clmatch-matches) set -- "$CLMATCH" $(dev_opts "$cfg") --stats --count-matches -F -e "$pat" "$f" ;;
        clmatch-lines) set -- "$CLMATCH" $(dev_opts "$cfg") --stats -c -F -e "$pat" "$f" ;;
        grep) set -- "$GREP" -F -c -e "$pat" "$f" ;;
        rg) set -- "$RG" --no-config -F -c -e "$pat" "$f" ;;
        ugrep) set -- "$UGREP" -F -c -e "$pat" "$f" ;;
        hs) set -- "$HS_COUNT" -t "$cfg" -e "$pat" "$f" ;;
        memmem) set -- "$MEMMEM_COUNT" -t "$cfg" -e "$pat" "$f" ;;
    esac
    "$@"
}

# The rows to run: tool<TAB>config (device P:D, or threads).
rowlist="$tmp/rows"; : > "$rowlist"
if tool_ok clmatch; then
    while read -r d; do printf 'clmatch-matches\t%s\n' "$d" >> "$rowlist"; done < "$devlist"
fi
tool_ok hs && for t in $threads; do printf 'hs\t%s\n' "$t" >> "$rowlist"; done
tool_ok memmem && for t in $threads; do printf 'memmem\t%s\n' "$t" >> "$rowlist"; done
if tool_ok clmatch; then
    while read -r d; do printf 'clmatch-lines\t%s\n' "$d" >> "$rowlist"; done < "$devlist"
fi
for t in grep rg ugrep; do tool_ok $t && printf '%s\t1\n' $t >> "$rowlist"; done
# ripgrep's --count-matches: its non-overlapping matches (leftmost-first), on sets only
tool_ok rg && printf 'rg-matches\t1\n' >> "$rowlist"

date_=$(date +%Y-%m-%d)
host=$(hostname 2>/dev/null || uname -n)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null) \
    && { git -C "$root" diff --quiet HEAD -- 2>/dev/null || commit="$commit+changes"; }
[ -n "$commit" ] || commit=unknown
results="$tmp/results.tsv"; : > "$results"
status=0

# One row: warm-up run, then $reps timed runs; appends a line to $results.
measure() {  # size_bytes text_path pattern_id pattern tool config [set_file]
    sz=$1; text=$2; pid=$3; pat=$4; tool=$5; cfg=$6; set_file=${7:-}
    # memmem searches one pattern; rg's non-overlapping count is a row of the sets only
    [ -n "$set_file" ] && [ "$tool" = memmem ] && return
    [ -z "$set_file" ] && [ "$tool" = rg-matches ] && return
    if [ -n "$set_file" ]; then
        m=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$set_file")
    else
        m=$(printf '%s' "$pat" | wc -c | tr -d ' ')
    fi
    case $tool in
        clmatch-*) base=clmatch; sem=${tool#clmatch-}; dev=$cfg; thr='' ;;
        hs|memmem) base=$tool; sem=matches; dev=''; thr=$cfg ;;
        rg-matches) base=rg; sem=non-overlapping; dev=''; thr=1 ;;
        *) base=$tool; sem=lines; dev=''; thr=1 ;;
    esac
    ver=$(tool_version "$base")
    reps_f="$tmp/reps"; : > "$reps_f"
    err=''; dname=''; algo=''
    i=0
    while [ $i -le "$reps" ]; do
        run "$tmp/out" "$tmp/err" cmd_of "$tool" "$cfg" "$pat" "$text" "$set_file" "$pid"
        [ "$stopped" = 1 ] && break
        if [ "$rc" -ge 2 ]; then
            err="exit $rc: $(grep -v '^clmatch: \(device\|tuning\|algorithm\|[0-9]* pattern\|scanned\|kernel\|data path\|slab\|setup\|start-up\|search\|teardown\)' "$tmp/err" | head -n 1 | tr '\t' ' ')"
            break
        fi
        c=$(head -n 1 "$tmp/out" | tr -d ' \r'); [ -n "$c" ] || c=0
        case $c in *[!0-9]*) err="unexpected output '$c'"; break ;; esac
        # ns count kernel transfer setup e2e scan load
        stats=$(awk '
            /^clmatch: kernel / { for (i = 1; i < NF; i++) { if ($i == "kernel") k = $(i + 1); if ($i == "transfers") tr = $(i + 1) } }
            /^clmatch: setup / { for (i = 1; i < NF; i++) { if ($i == "setup") su = $(i + 1); if ($i == "end-to-end") e2e = $(i + 1) } }
            /^(hs|memmem)_count: / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "scan_s") sc = kv[2]; if (kv[1] == "load_s") ld = kv[2] } }
            function v(x) { return x == "" ? "-" : x }
            END { print v(k), v(tr), v(su), v(e2e), v(sc), v(ld) }' "$tmp/err")
        if [ $i -eq 0 ]; then   # the warm-up run: its device and algorithm, not its time
            dname=$(sed -n 's/^clmatch: device [0-9]*:[0-9]*: \(.*\)$/\1/p' "$tmp/err" | head -n 1)
            case $cfg in   # a set: its devices and the bytes each searched, or the host search
                set:*) dname=$(sed -n 's/^clmatch: device \([0-9]*:[0-9]*\) [^:]*: [^,]*, \([0-9]*\) bytes.*/\1 \2 B/p; s/^clmatch: .*: \(host search\) .*/\1/p' "$tmp/err" | paste -sd' ' -) ;;
            esac
            algo=$(sed -n 's/^clmatch: algorithm \([^,]*\),.*/\1/p' "$tmp/err" | head -n 1)
        else
            echo "$ns $c $stats" >> "$reps_f"
        fi
        i=$((i + 1))
    done
    [ "$base" = clmatch ] || { dname=''; algo=''; }
    [ -z "$err" ] && [ ! -s "$reps_f" ] && err="stopped before a timed run"
    if [ -n "$err" ]; then
        status=1
        say "FAILED $tool $cfg $pid: $err"
        printf '%s\n' "$label	$date_	$host	$sz	$file	$pid	$m	$pat	$base	$sem	$dev	$thr	$dname	$algo	$ver	0	-	-	-	-	-	-	-	-	-	-	-	-	-	-	error	$err" >> "$results"
        return
    fi
    awk -v pre="$label	$date_	$host	$sz	$file	$pid	$m	$pat	$base	$sem	$dev	$thr	$dname	$algo	$ver" \
        -v sz="$sz" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        function medcol(c,   i, n, a) { n = 0; for (i = 1; i <= NR; i++) if (col[i, c] != "-") a[++n] = col[i, c]; return n ? sprintf("%.6f", med(a, n)) : "-" }
        function mincol(c,   i, x) { x = "-"; for (i = 1; i <= NR; i++) if (col[i, c] != "-" && (x == "-" || col[i, c] + 0 < x + 0)) x = col[i, c]; return x }
        { for (c = 1; c <= NF; c++) col[NR, c] = $c; t[NR] = $1 / 1e9; if (NR == 1) cnt = $2; else if ($2 != cnt) bad = 1 }
        END {
            tmin = t[1]; for (i = 2; i <= NR; i++) if (t[i] < tmin) tmin = t[i]
            tmed = med(t, NR)
            sc = mincol(7)
            note = bad ? "count changed between runs" : ""
            printf "%s\t%d\t%.6f\t%.6f\t%.3f\t%.3f\t%s\t-\t-\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pre, NR, tmin, tmed,
                sz / tmin / 1e9, sz / tmed / 1e9, cnt, medcol(3), medcol(4), medcol(5), medcol(6), sc,
                sc == "-" || sc + 0 == 0 ? "-" : sprintf("%.3f", sz / sc / 1e9), medcol(8), bad ? "error" : "ok", note
        }' "$reps_f" >> "$results"
}

# ---- the runs ---------------------------------------------------------------------------
# INT/TERM from here on: finish the command that runs, then report what was measured, as
# <label>-<date>-compare-partial.* (exit status 1).
stopped=0
trap 'stopped=1' INT TERM
mkdir -p "$scratch" || die "cannot create --scratch $scratch"
made=''
nrows=$(wc -l < "$rowlist"); npat=$(wc -l < "$plist")
memtotal=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo 2>/dev/null)
for sz in $size_list; do
    if [ "$sz" = file ]; then
        text=$file; sz=$file_bytes
    else
        text="$scratch/$(basename "$file")-$sz"
        if [ -f "$text" ] && [ "$(wc -c < "$text" | tr -d ' ')" = "$sz" ] \
            && [ -z "$(find "$file" -newer "$text" 2>/dev/null)" ]; then
            say "reusing $text"
        else
            say "writing $text ($sz bytes: $file repeated)"
            (while :; do cat "$file" || exit 1; done) | head -c "$sz" > "$text.part" \
                && [ "$(wc -c < "$text.part" | tr -d ' ')" = "$sz" ] && mv "$text.part" "$text" \
                || { rm -f "$text.part"; die "could not write $text (disk space?)"; }
        fi
        made="$made $text"
    fi
    if [ -n "$memtotal" ] && [ "$sz" -gt $((memtotal / 10 * 8)) ]; then
        note "$sz bytes is more than 80% of this machine's memory: the page cache cannot hold the text, the times include disk reads"
    fi
    cat "$text" > /dev/null   # the untimed warm-up read
    k=0
    while IFS='	' read -r pid pat _what setf; do
        while IFS='	' read -r tool cfg; do
            k=$((k + 1))
            say "size $sz, pattern $pid, $tool $cfg ($k of $((nrows * npat)))"
            measure "$sz" "$text" "$pid" "$pat" "$tool" "$cfg" "$setf" < /dev/null
            [ "$stopped" = 1 ] && break
        done < "$rowlist"
        [ "$stopped" = 1 ] && break
    done < "$plist"
    [ "$stopped" = 1 ] && break
done
trap 'exit 130' INT TERM
partial=''
if [ "$stopped" = 1 ]; then
    partial=-partial
    status=1
    note "stopped by a signal: the report holds the $(wc -l < "$results" | tr -d ' ') rows measured until then"
fi
[ "$clean" = 1 ] && [ -n "$made" ] && rm -f $made

# ---- agreement: overlapping counts (clmatch --count-matches, hs, memmem) and line counts ----
# (clmatch -c, grep, rg, ugrep) per size and pattern; the reference is memmem's (else hs's,
# else clmatch's) and grep's (else rg's, ugrep's, clmatch's).
awk -F'\t' -v OFS='\t' '
    function pref(tool, sem) {
        if (sem == "matches") return tool == "memmem" ? 1 : tool == "hs" ? 2 : 3
        return tool == "grep" ? 1 : tool == "rg" ? 2 : tool == "ugrep" ? 3 : 4
    }
    { row[NR] = $0; key = $4 SUBSEP $6 SUBSEP $10
      if ($31 == "ok" && (!(key in best) || pref($9, $10) < best[key])) { best[key] = pref($9, $10); ref[key] = $21 } }
    END {
        bad = 0
        for (i = 1; i <= NR; i++) {
            n = split(row[i], f, "\t"); key = f[4] SUBSEP f[6] SUBSEP f[10]
            if (f[31] == "ok" && (key in ref)) {
                f[22] = ref[key]; f[23] = (f[21] == ref[key]) ? "yes" : "DISAGREE"
                if (f[21] != ref[key]) bad = 1
            }
            line = f[1]; for (j = 2; j <= n; j++) line = line OFS f[j]; print line
        }
        exit bad
    }' "$results" > "$results.2"
agree_rc=$?
mv "$results.2" "$results"
if [ $agree_rc -ne 0 ]; then
    status=1
    say "counts DISAGREE (see the agree column)"
fi

# ---- reports ----------------------------------------------------------------------------
cols='label,date,host,size_bytes,file,pattern_id,m,pattern,tool,counts,device,threads,device_name,algorithm,tool_version,reps,time_min_s,time_median_s,gbs_best,gbs_median,count,reference,agree,kernel_s,transfer_s,setup_s,e2e_s,scan_s,scan_gbs,load_s,status,note'

write_csv() {
    echo "$cols"
    awk -F'\t' '
        function q(s) { if (s ~ /[",\n]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" } return s }
        { line = ""; for (i = 1; i <= NF; i++) line = line (i > 1 ? "," : "") q($i == "-" ? "" : $i); print line }' "$results"
}

write_json() {
    awk -F'\t' -v cols="$cols" -v toolinfo="$toolinfo" -v notes="$notes" -v plist="$plist" \
        -v timer="$timer_ns" -v ncpu="$ncpu" -v label="$label" -v date_="$date_" -v host="$host" \
        -v file="$file" -v reps="$reps" -v commit="$commit" '
        function j(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, "\\t", s); return "\"" s "\"" }
        function num(s) { return s ~ /^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$/ }
        BEGIN {
            nc = split(cols, cn, ",")
            printf "{\n  \"label\": %s, \"date\": %s, \"host\": %s, \"cpus\": %d, \"file\": %s, \"reps\": %d, \"commit\": %s,\n", j(label), j(date_), j(host), ncpu, j(file), reps, j(commit)
            printf "  \"timer_overhead_s\": %.6f,\n  \"tools\": [", timer / 1e9
            n = 0; while ((getline l < toolinfo) > 0) { split(l, a, "|"); printf "%s\n    {\"tool\": %s, \"path\": %s, \"version\": %s}", n++ ? "," : "", j(a[1]), j(a[2]), j(a[3]) }
            printf "\n  ],\n  \"patterns\": ["
            n = 0; while ((getline l < plist) > 0) { split(l, a, "\t"); printf "%s\n    {\"id\": %s, \"pattern\": %s, \"m\": %d, \"what\": %s}", n++ ? "," : "", j(a[1]), j(a[2]), length(a[2]), j(a[3]) }
            printf "\n  ],\n  \"notes\": ["
            n = 0; while ((getline l < notes) > 0) printf "%s\n    %s", n++ ? "," : "", j(l)
            printf "\n  ],\n  \"rows\": ["
        }
        {
            printf "%s\n    {", (NR > 1 ? "," : "")
            for (i = 1; i <= nc; i++) {
                v = $i
                if (v == "-" || v == "") out = "null"
                else if (num(v) && cn[i] !~ /^(pattern|label|host|file|device|device_name|tool_version|date|note)$/) out = v
                else out = j(v)
                printf "%s%s: %s", (i > 1 ? ", " : ""), j(cn[i]), out
            }
            printf "}"
        }
        END { printf "\n  ]\n}\n" }' "$results"
}

write_md() {
    echo "# clmatch vs CPU tools: $label, $date_"
    echo
    cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
    mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
    echo "Host \`$host\`: ${cpu:-unknown CPU}, $ncpu CPUs, ${mem:-? GiB} memory, $(uname -sr)."
    echo "Text: \`$file\` ($file_bytes bytes) repeated to each size (the last copy cut)."
    echo "Checkout: $commit (git; +changes: uncommitted changes in the tree)."
    echo
    echo "Whole-process wall time of each command with a warm page cache (one untimed read of"
    echo "the text, one untimed run of the command, then $reps timed runs: min and median)."
    echo "GB/s = text bytes / wall time (10^9 B/s). The timer (\`date +%s%N\` around the command)"
    echo "measures a no-op process as $(awk -v n="$timer_ns" 'BEGIN { printf "%.1f", n / 1e6 }') ms. Every tool runs under LC_ALL=C."
    echo "\`counts\`: *matches* = every occurrence, overlapping ones included (clmatch"
    echo "--count-matches, hs_count, memmem_count); *lines* = matching lines (clmatch -c, grep -c,"
    echo "rg -c, ugrep -c); *non-overlapping* = ripgrep's --count-matches on a pattern set"
    echo "(leftmost-first, no overlaps: a count of its own, checked against nothing)."
    echo "*agree*: equal to the reference of its kind (memmem / grep first)."
    echo "*in-process*: clmatch's --stats (setup = OpenCL start-up and kernel build or cache load;"
    echo "search = end-to-end search; kernel = device time of the search kernels, median), or"
    echo "hs_count/memmem_count's load (mmap of the file, MAP_POPULATE) and best in-memory scan."
    echo
    echo "| tool | path | version |"
    echo "|---|---|---|"
    awk -F'|' '{ printf "| %s | `%s` | %s |\n", $1, $2, $3 }' "$toolinfo"
    echo
    if tool_ok clmatch; then
        echo "OpenCL devices (\`clmatch --list-devices\`):"
        echo
        echo '```'
        cat "$tmp/list"
        echo '```'
        echo
    fi
    echo "| pattern | m | bytes | what |"
    echo "|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | `%s` | %s |\n", $1, $4 != "" ? "set" : length($2), $2, $3 }' "$plist"
    echo
    if [ -s "$notes" ]; then
        echo "Notes:"
        echo
        sed 's/^/- /' "$notes"
        echo
    fi
    awk -F'\t' '
        function human(b) { return b >= 1073741824 && b % 1073741824 == 0 ? b / 1073741824 " GiB" : b >= 1048576 && b % 1048576 == 0 ? b / 1048576 " MiB" : b " bytes" }
        function where(i,   d) {
            if (T[i] == "clmatch") { d = DN[i]; sub(/, [^,()]*\)$/, ")", d); return DEV[i] " " d }
            return T[i] ~ /^(hs|memmem)$/ ? TH[i] " thread" (TH[i] > 1 ? "s" : "") : "1 thread"
        }
        function inproc(i) {
            if (T[i] == "clmatch")
                return (SU[i] != "-" ? sprintf("setup %.3f s, search %.3f s (kernel %.3f s)", SU[i], E2E[i], K[i]) : "") (ALG[i] != "" ? "; " ALG[i] : "")
            if (SC[i] != "-") return sprintf("load %.3f s, scan %.3f s = %s GB/s", LD[i], SC[i], SG[i])
            return ""
        }
        {
            n++; SZ[n] = $4; P[n] = $6; M[n] = $7; PAT[n] = $8; T[n] = $9; SEM[n] = $10; DEV[n] = $11; TH[n] = $12
            DN[n] = $13; ALG[n] = $14; TMIN[n] = $17; TMED[n] = $18; GB[n] = $19; CNT[n] = $21; AG[n] = $23
            K[n] = $24; SU[n] = $26; E2E[n] = $27; SC[n] = $28; SG[n] = $29; LD[n] = $30; ST[n] = $31; NOTE[n] = $32
            if (!(($4) in seen_sz)) { seen_sz[$4] = 1; sizes[++ns] = $4 }
            if (!(($6) in seen_p)) { seen_p[$6] = 1; pats[++np] = $6 }
            rk = T[n] " " SEM[n] " " DEV[n] " " TH[n]
            if (!(rk in seen_r)) { seen_r[rk] = 1; rkeys[++nr] = rk; rname[rk] = T[n] (T[n] == "clmatch" ? " " DEV[n] : T[n] ~ /^(hs|memmem)$/ ? " -t " TH[n] : "") " (" SEM[n] ")" }
            rowkey[n] = rk
        }
        END {
            for (s = 1; s <= ns; s++) {
                printf "## %s (%.0f bytes)\n\n", human(sizes[s]), sizes[s]
                for (p = 1; p <= np; p++) {
                    fast = 0
                    for (i = 1; i <= n; i++) if (SZ[i] == sizes[s] && P[i] == pats[p] && ST[i] == "ok" && (fast == 0 || TMIN[i] + 0 < fast)) fast = TMIN[i] + 0
                    hdr = 0
                    for (i = 1; i <= n; i++) {
                        if (SZ[i] != sizes[s] || P[i] != pats[p]) continue
                        if (!hdr) {
                            printf "### %s (m = %d): `%s`\n\n", P[i], M[i], PAT[i]
                            print "| tool | counts | where | min s | median s | GB/s (min) | × fastest | count | agree | in-process |"
                            print "|---|---|---|---:|---:|---:|---:|---:|---|---|"
                            hdr = 1
                        }
                        if (ST[i] != "ok") { printf "| %s | %s | %s | | | | | | | **%s**: %s |\n", T[i], SEM[i], where(i), toupper(ST[i]), NOTE[i]; continue }
                        ag = AG[i] == "DISAGREE" ? "**DISAGREE**" : AG[i]
                        printf "| %s | %s | %s | %.3f | %.3f | %.2f | %.2f | %s | %s | %s |\n", T[i], SEM[i], where(i), TMIN[i], TMED[i], GB[i],
                            (fast > 0 ? TMIN[i] / fast : 0), CNT[i], ag, inproc(i)
                    }
                    if (hdr) print ""
                }
            }
            if (ns > 1) {
                print "## Time vs size (min wall seconds)\n"
                for (p = 1; p <= np; p++) {
                    printf "### %s\n\n| tool |", pats[p]
                    for (s = 1; s <= ns; s++) printf " %s |", human(sizes[s])
                    printf "\n|---|"; for (s = 1; s <= ns; s++) printf "---:|"; print ""
                    for (r = 1; r <= nr; r++) {
                        printf "| %s |", rname[rkeys[r]]
                        for (s = 1; s <= ns; s++) {
                            v = ""
                            for (i = 1; i <= n; i++) if (rowkey[i] == rkeys[r] && SZ[i] == sizes[s] && P[i] == pats[p] && ST[i] == "ok") v = sprintf("%.3f", TMIN[i])
                            printf " %s |", v
                        }
                        print ""
                    }
                    print ""
                }
            }
        }' "$results"
}

if [ "$nofiles" = 0 ]; then
    mkdir -p "$out" || die "cannot create --out $out"
    stem="$out/$label-$date_-compare$partial"
    write_csv > "$stem.csv"
    write_json > "$stem.json"
    write_md > "$stem.md"
    cat "$stem.md"
    say "wrote $stem.md, .csv, .json"
else
    write_md
fi
exit $status
