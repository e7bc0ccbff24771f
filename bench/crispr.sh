#!/bin/sh
# CRISPR off-target search: clmatch-cas-offinder beside Cas-OFFinder 2.4.1 built from source.
#
#   sh bench/crispr.sh CASOFF_SRC [GENOME.fa] [GUIDES] [LIMIT] [DEVTYPE]
#
# CASOFF_SRC: a checkout of snugel/cas-offinder at tag 2.4.1 (BSD; built here, never copied
# into clmatch). GENOME: a FASTA file (default: a random 2 MB genome). GUIDES: how many 20 nt
# guides + NGG, drawn from the genome (default 100); LIMIT: mismatches (default 4); DEVTYPE:
# C, G or A (default G when a GPU is listed, else C). Builds Cas-OFFinder into
# $BENCH_TMP/cas-offinder (oclkernels.h from cas-offinder.cl, config.h from config.h.in,
# g++ -O2 -fopenmp *.cpp -lOpenCL), runs both on the same input, and prints their times and
# whether their rows are the same set (sorted; row order differs by design: docs/dna.md).
# Exit status 0 when the sets are equal.
set -u
SRC=${1:?usage: sh bench/crispr.sh CASOFF_SRC [GENOME.fa] [GUIDES] [LIMIT] [DEVTYPE]}
GENOME=${2:-}
NG=${3:-100}
LIMIT=${4:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
B=${B:-$ROOT/build}
W=${BENCH_TMP:-/tmp/clmatch-crispr-bench}
mkdir -p "$W/cas-offinder" || exit 2
LC_ALL=C
export LC_ALL

# ---- build Cas-OFFinder 2.4.1 -----------------------------------------------------------
CO=$W/cas-offinder/cas-offinder
if [ ! -x "$CO" ]; then
    cp "$SRC"/*.cpp "$SRC"/*.h "$SRC/cas-offinder.cl" "$SRC/config.h.in" "$W/cas-offinder/" ||
        exit 2
    # What its CMake does: the kernel source as a C string, and config.h with dirent.h.
    python3 - "$W/cas-offinder" <<'PYEOF' || exit 2
import sys
d = sys.argv[1]
src = open(d + '/cas-offinder.cl').read().replace('\r', '')
body = src.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n"\n"')
open(d + '/oclkernels.h', 'w').write('static const char* program_src =\n"' + body + '";\n')
cfg = open(d + '/config.h.in').read()
cfg = cfg.replace('#cmakedefine HAVE_DIRENT_H', '#define HAVE_DIRENT_H')
cfg = cfg.replace('#cmakedefine BUILD_FOR_SNUCL', '/* #undef BUILD_FOR_SNUCL */')
open(d + '/config.h', 'w').write(cfg)
PYEOF
    (cd "$W/cas-offinder" && g++ -O2 -fopenmp -w -o cas-offinder ./*.cpp -lOpenCL) || exit 2
fi

# ---- input ------------------------------------------------------------------------------
if [ -z "$GENOME" ]; then
    GENOME=$W/random.fa
    python3 -c "
import random
r = random.Random(7)
with open('$GENOME', 'w') as f:
    for c in range(4):
        s = ''.join(r.choice('ACGT') for _ in range(500000))
        f.write('>chr%d test\n' % c + ''.join(s[i:i + 60] + '\n' for i in range(0, len(s), 60)))
" || exit 2
fi
python3 - "$GENOME" "$NG" "$LIMIT" "$W/input.txt" <<'PYEOF' || exit 2
import random, sys
genome, n, limit, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
seq = ''.join(l.strip().upper() for l in open(genome) if not l.startswith('>'))
r = random.Random(11)
guides = []
while len(guides) < n:
    i = r.randrange(0, len(seq) - 20)
    g = seq[i:i + 20]
    if set(g) <= set('ACGT'):
        guides.append(g)
with open(out, 'w') as f:
    f.write(genome + '\nNNNNNNNNNNNNNNNNNNNNNGG\n')
    f.write(''.join('%sNNN %s\n' % (g, limit) for g in guides))
PYEOF

DEV=${5:-}
if [ -z "$DEV" ]; then
    if "$B/clmatch-devices" 2>/dev/null | grep -qi gpu; then DEV=G; else DEV=C; fi
fi
t0=$(date +%s.%N)
"$CO" "$W/input.txt" "$DEV" "$W/co.txt" 2>"$W/co.err" || { cat "$W/co.err"; exit 2; }
t1=$(date +%s.%N)
"$B/clmatch-cas-offinder" "$W/input.txt" "$DEV" "$W/clm.txt" 2>"$W/clm.err" ||
    { cat "$W/clm.err"; exit 2; }
t2=$(date +%s.%N)
sort "$W/co.txt" >"$W/co.sorted"
sort "$W/clm.txt" >"$W/clm.sorted"
echo "guides $NG, limit $LIMIT, device $DEV, genome $GENOME"
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; } # no bc on some hosts
echo "Cas-OFFinder 2.4.1:   $(secs "$t0" "$t1") s, $(wc -l <"$W/co.txt") rows"
echo "clmatch-cas-offinder: $(secs "$t1" "$t2") s, $(wc -l <"$W/clm.txt") rows"
if cmp -s "$W/co.sorted" "$W/clm.sorted"; then
    echo "same rows"
else
    echo "rows differ: $(comm -23 "$W/co.sorted" "$W/clm.sorted" | wc -l) only in Cas-OFFinder," \
        "$(comm -13 "$W/co.sorted" "$W/clm.sorted" | wc -l) only in clmatch ($W)"
    exit 1
fi
