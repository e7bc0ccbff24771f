#!/bin/sh
# DNA search beside seqkit locate, whole process, warm page cache (bench/README.md, "seqkit").
#
#   sh bench/seqkit.sh [OPTIONS]
#     --genome FILE    FASTA the inputs are built from (default data/umaydis.fa from
#                      tools/fetch-genome.sh, else a random 8 MB genome)
#     --size LIST      FASTA sizes, comma-separated (K/M/G binary suffixes; default 100M,1G)
#     --reads SIZE     also FASTQ reads of 150 bases drawn from the genome, SIZE in all
#                      (default 1G; 0: none)
#     --device P:D     a clmatch row on that device (repeatable; default clmatch's default)
#     --devices SPEC   a clmatch row with --devices SPEC (repeatable)
#     --threads N      seqkit's -j (default the machine's cores)
#     --reps N         timed runs after one untimed warm-up (default 3)
#     --build DIR      where clmatch is (default build); SEQKIT=path for seqkit
#     --scratch DIR    where the inputs go (default ${TMPDIR:-/tmp}/clmatch-seqkit)
#     --out DIR        results directory (default bench/results); --label NAME its prefix
# Rows: a 13-mer exact and a 20-mer with -m 2 on each FASTA size, and an adapter with -m 2 on
# the reads; each clmatch row's output compared with seqkit's (the same rows, sorted, the
# edits column that clmatch adds with -m left out). Writes <out>/<label>-<date>-seqkit.md.
# Exit status: 0, 1 when rows differ or a run fails, 2 bad arguments.
set -u
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
die() { echo "bench/seqkit.sh: $*" >&2; exit 2; }

genome='' sizes=100M,1G reads=1G devs='' sets='' threads=$(nproc 2>/dev/null || echo 1) reps=3
build=$root/build scratch=${TMPDIR:-/tmp}/clmatch-seqkit out=$root/bench/results
label=$(hostname 2>/dev/null || echo host)
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || die "$1 needs a value"
    case $1 in
        --genome) genome=$2 ;;
        --size) sizes=$2 ;;
        --reads) reads=$2 ;;
        --device) devs="$devs $2" ;;
        --devices) sets="$sets $2" ;;
        --threads) threads=$2 ;;
        --reps) reps=$2 ;;
        --build) build=$2 ;;
        --scratch) scratch=$2 ;;
        --out) out=$2 ;;
        --label) label=$2 ;;
        *) die "unknown option $1" ;;
    esac
    shift 2
done
CLM=$build/clmatch
SEQKIT=${SEQKIT:-seqkit}
[ -x "$CLM" ] || die "$CLM is missing: make"
command -v "$SEQKIT" >/dev/null 2>&1 || die "seqkit is missing (apt-get install seqkit; or SEQKIT=path)"
mkdir -p "$scratch" "$out" || die "cannot create $scratch or $out"

bytes() {  # 100M -> 104857600
    awk -v s="$1" 'BEGIN { n = s + 0; u = toupper(substr(s, length(s)));
        if (u == "K") n *= 1024; if (u == "M") n *= 1048576; if (u == "G") n *= 1073741824;
        printf "%.0f\n", n }'
}

# ---- inputs -------------------------------------------------------------------------------
[ -n "$genome" ] || { [ -s "$root/data/umaydis.fa" ] && genome=$root/data/umaydis.fa; }
if [ -z "$genome" ]; then
    genome=$scratch/random.fa
    [ -s "$genome" ] || python3 -c "
import random
r = random.Random(11)
with open('$genome', 'w') as f:
    for c in range(8):
        s = ''.join(r.choice('ACGT') for _ in range(1 << 20))
        f.write('>chr%d random\n' % c + ''.join(s[i:i + 60] + '\n' for i in range(0, len(s), 60)))
" || die "cannot write $genome"
fi
# FASTA of SIZE bytes: whole copies of the genome, records renamed per copy, then a cut one.
fasta_of() {
    f=$scratch/genome-$1.fa
    [ -s "$f" ] && { echo "$f"; return; }
    want=$(bytes "$1")
    awk -v want="$want" 'BEGIN { copy = 0 } { lines[NR] = $0 }
        END { while (n < want) { copy++
                  for (i = 1; i <= NR && n < want; i++) {
                      l = lines[i]; if (l ~ /^>/) { split(substr(l, 2), w, " "); l = ">" w[1] "_" copy }
                      print l; n += length(l) + 1 } } }' "$genome" >"$f" || die "cannot write $f"
    echo "$f"
}
# 13 and 20 bases of the genome's sequence past its first megabyte (they occur), and an
# adapter (Illumina's) planted in a fifth of the reads with up to two changes.
p13=$(awk 'NR > 2 && !/^>/ && length($0) >= 20 { if (++k == 20000) { print substr($0, 1, 13); exit } }' "$genome")
p20=$(awk 'NR > 2 && !/^>/ && length($0) >= 20 { if (++k == 30000) { print substr($0, 1, 20); exit } }' "$genome")
adapter=AGATCGGAAGAGCACACGTCT
[ ${#p13} -eq 13 ] && [ ${#p20} -eq 20 ] || die "no 20-base line in $genome"
reads_of() {
    f=$scratch/reads-$1.fq
    [ -s "$f" ] && { echo "$f"; return; }
    python3 - "$genome" "$(bytes "$1")" "$adapter" "$f" <<'EOF' || die "cannot write reads"
import random, sys
genome, want, adapter, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
seq = ''.join(l.strip() for l in open(genome) if not l.startswith('>')).upper()
r, n, i = random.Random(5), 0, 0
with open(out, 'w') as f:
    while n < want:
        s = r.randrange(len(seq) - 150)
        read = list(seq[s:s + 150])
        if r.random() < 0.2:
            at = r.randrange(150 - len(adapter))
            a = list(adapter)
            for _ in range(r.randrange(3)):
                a[r.randrange(len(a))] = r.choice('ACGT')
            read[at:at + len(a)] = a
        rec = '@r%d\n%s\n+\n%s\n' % (i, ''.join(read), 'I' * 150)
        f.write(rec)
        n += len(rec)
        i += 1
EOF
    echo "$f"
}

# ---- runs ---------------------------------------------------------------------------------
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0
date_=$(date +%Y-%m-%d)
md=$out/$label-$date_-seqkit.md
{
    echo "# clmatch --dna beside seqkit locate ($date_, $(hostname 2>/dev/null))"
    echo
    echo "seqkit: $("$SEQKIT" version 2>/dev/null | head -n 1), -j $threads; clmatch: $("$CLM" --version | head -n 1); best of $reps after a warm-up, whole process."
    echo
    echo "| input | bytes | search | tool | where | best s | GB/s | × seqkit | rows | same rows |"
    echo "|---|---:|---|---|---|---:|---:|---:|---:|---|"
} >"$md"

best_of() {  # CMD...: best wall time of $reps runs (after one), output of the last in $tmp/o
    "$@" >"$tmp/o" 2>"$tmp/e" || return 1
    best=''
    i=0
    while [ $i -lt "$reps" ]; do
        t0=$(date +%s%N)
        "$@" >"$tmp/o" 2>"$tmp/e" || return 1
        t=$(( $(date +%s%N) - t0 ))
        [ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
        i=$((i + 1))
    done
    echo "$best"
}

row() {  # INPUT WHAT SEQKIT_OPTS CLMATCH_OPTS
    in=$1 what=$2 sopts=$3 copts=$4
    sz=$(wc -c <"$in" | tr -d ' ')
    # shellcheck disable=SC2086 # option lists
    sk=$(best_of "$SEQKIT" locate -j "$threads" $sopts "$in") || { status=1; echo "seqkit failed: $(head -n 2 "$tmp/e")" >&2; return; }
    sort "$tmp/o" >"$tmp/want"
    n=$(($(wc -l <"$tmp/want") - 1))
    printf '| %s | %s | %s | seqkit locate | -j %s | %.3f | %.2f | 1.00 | %s | |\n' "$(basename "$in")" "$sz" \
        "$what" "$threads" "$(echo "$sk" | awk '{ print $1 / 1e9 }')" \
        "$(echo "$sz $sk" | awk '{ print $1 / $2 }')" "$n" >>"$md"
    for where in ${devs:-default} $(for s in $sets; do echo "set:$s"; done); do
        case $where in
            default) dopt='' ;;
            set:*) dopt="--devices ${where#set:}" ;;
            *) dopt="-p ${where%%:*} -d ${where#*:}" ;;
        esac
        # shellcheck disable=SC2086
        t=$(best_of "$CLM" --dna $dopt $copts "$in") || { status=1; echo "clmatch $where failed: $(head -n 2 "$tmp/e")" >&2; continue; }
        cut -f 1-7 "$tmp/o" | sort >"$tmp/got"
        same=yes
        cmp -s "$tmp/got" "$tmp/want" || { same=NO; status=1; }
        printf '| %s | %s | %s | clmatch --dna | %s | %.3f | %.2f | %.2f | %s | %s |\n' \
            "$(basename "$in")" "$sz" "$what" "$where" "$(echo "$t" | awk '{ print $1 / 1e9 }')" \
            "$(echo "$sz $t" | awk '{ print $1 / $2 }')" "$(echo "$sk $t" | awk '{ print $1 / $2 }')" \
            "$(($(wc -l <"$tmp/got") - 1))" "$same" >>"$md"
    done
}

for s in $(echo "$sizes" | tr ',' ' '); do
    f=$(fasta_of "$s")
    row "$f" "13-mer $p13" "-p $p13" "-e $p13"
    row "$f" "20-mer -m 2" "-m 2 -p $p20" "-m 2 -e $p20"
done
if [ "$reads" != 0 ]; then
    f=$(reads_of "$reads")
    row "$f" "adapter -m 2" "-m 2 -p $adapter" "-m 2 -e $adapter"
fi
cat "$md"
exit $status
