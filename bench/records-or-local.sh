#!/bin/sh
# A quick local look at issue 19's OR of ten contains without TPC-H's generator: ROWS rows
# of comments made of words of TPC-H's comment grammar (19 to 78 bytes, as o_comment's),
# the OR of the ten words bench/records.py's or10 uses, timed by records_bench on one
# device with auto and the item, filter and automaton kernels forced, the column resident
# (a work-group per row is for long rows: minutes here). Indicative only: the
# real measurement is bench/records.sh on TPC-H's o_comment.
#
# Usage: sh bench/records-or-local.sh [--build DIR] [--rows N] [--device P:D] [--reps N]
set -eu
cd "$(dirname "$0")/.."
build=build rows=2000000 device=0:0 reps=3
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2 ;;
    --rows) rows=$2 ;;
    --device) device=$2 ;;
    --reps) reps=$2 ;;
    *) echo "usage: sh bench/records-or-local.sh [--build DIR] [--rows N] [--device P:D]" \
            "[--reps N]" >&2; exit 2 ;;
    esac
    shift 2
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-or.XXXXXX")
trap 'rm -rf "$dir"' EXIT
rb=$dir/records_bench
${CC:-cc} -Iinclude -std=c11 -Wall -Wextra -pedantic -O2 -o "$rb" \
    bench/records/records_bench.c "$build/libclmatch.a" -lOpenCL -lpthread -lm
python3 - "$rows" "$dir" <<'PY'
import random, sys
rows, out = int(sys.argv[1]), sys.argv[2]
# TPC-H's comment grammar's parts of speech, drawn with weights near its sentences'
adverbs = ("sometimes always never furiously slyly carefully blithely quickly fluffily "
           "slowly quietly ruthlessly thinly closely doggedly daringly bravely stealthily "
           "permanently enticingly idly busily regularly finally ironically evenly boldly "
           "silently").split()
verbs = ("sleep wake are cajole haggle nag use boost affix detect integrate maintain nod "
         "was lose sublate solve thrash promise engage hinder print x-ray breach eat grow "
         "impress mold poach serve run dazzle snooze doze unwind kindle play hang believe "
         "doubt").split()
nouns = ("foxes ideas theodolites pinto beans instructions dependencies excuses platelets "
         "asymptotes courts dolphins multipliers sauternes warthogs frets dinos attainments "
         "somas Tiresias' patterns forges braids hockey players frays warhorses dugouts "
         "notornis epitaphs pearls tithes waters orbits gifts sheaves depths sentiments "
         "decoys realms pains grouches escapades packages requests accounts deposits").split()
adjectives = ("furious sly careful blithe quick fluffy slow quiet ruthless thin close "
              "dogged daring brave stealthy permanent enticing idle busy regular final "
              "ironic even bold silent special pending unusual express").split()
others = ("about above according to across after against along alongside of among around "
          "at atop before behind beneath beside besides between beyond by despite during "
          "except for from in place of inside instead of into near of on outside over past "
          "since through throughout to toward under until up upon without with within the "
          "a").split()
parts = [(adjectives, 30), (adverbs, 25), (nouns, 25), (verbs, 15), (others, 5)]
words = [w for ws, weight in parts for w in ws for _ in range(weight * 1000 // len(ws))]
rnd = random.Random(19)
with open(out + "/column.txt", "w") as f:
    for _ in range(rows):
        n = rnd.randint(19, 78)
        s = ""
        while len(s) < n:
            s += rnd.choice(words) + " "
        f.write(s[:n].rstrip() + "\n")
or10 = ["special", "pending", "unusual", "express", "furious", "sly", "careful", "blithe",
        "quick", "fluffy"]
with open(out + "/queries.tsv", "w") as f:
    f.write("or10\t-\t" + "\t".join("%" + w + "%" for w in or10) + "\n")
PY
"$rb" -d "$device" --mode resident --kernels=item,filter,automaton --reps "$reps" --max-time 60 \
    "$dir/column.txt" "$dir/queries.tsv" |
    awk -F'\t' '$1 == "column" { bytes = $3; print }
                $1 == "query" { printf "%-20s %-10s count %s best %.3f s %.2f GB/s\n", $3, $8,
                                $4, $5, bytes / $5 / 1e9 }
                $1 != "column" && $1 != "query" { print }'
