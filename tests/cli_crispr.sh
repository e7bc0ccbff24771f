#!/bin/sh
# Tests of CRISPR search in the CLI: clmatch --dna --pam / --pam5 (hand-checked cases, and
# random genomes against tests/ref_dna.py) and the Cas-OFFinder 2.4.1 front end
# (hand-checked cases, and random genomes against tests/ref_casoff.py); every bad input.
#
# Usage: sh tests/cli_crispr.sh [BUILD_DIR]   (default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" crispr

HAVE_PY=
if command -v python3 >/dev/null 2>&1; then HAVE_PY=1; else
    echo "# python3 unavailable: checks against the python references skipped"
fi

# ---- --pam / --pam5: hand-checked --------------------------------------------------------
# chrA, by 1-based position: 1-13 the guide + AGG (+, at the record start), 16-28 guide + TGC
# (1 mismatch, in the PAM: never reported), 31-43 a mismatch at the guide's 5' end, 46-58 at
# its 3' end, 61-73 the reverse complement of guide + AGG (-), 76-88 an N in the guide (a
# mismatch), 89-101 the reverse complement of guide + TGG at the record end. chrB + chrC
# would hold guide + AGG if a match could cross records.
printf '>chrA desc\nACGTACGTACAGGTTACGTACGTACTGCTTGCGTACGTACCGGTTACGTACGTAGTGGTT\nCCTGTACGTACGTTTACGTNCGTACGGGCCAGTACGTACGT\n>chrB\nACGTACG\n>chrC\nTACAGG\n' >"$T/h.fa"
hdr='seqID	patternName	pattern	strand	start	end	matched	edits'
row() { printf 'chrA\tACGTACGTAC\tACGTACGTACNGG\t%s\t%s\t%s\t%s\t%s\n' "$@"; }
{ echo "$hdr"; row + 1 13 ACGTACGTACAGG 0; row + 31 43 GCGTACGTACCGG 1
  row + 46 58 ACGTACGTAGTGG 1; row + 76 88 ACGTNCGTACGGG 1
  row - 89 101 ACGTACGTACTGG 0; row - 61 73 ACGTACGTACAGG 0; echo "exit 0"; } >"$T/exp"
"$CLM" --dna --pam NGG -m 1 ACGTACGTAC "$T/h.fa" >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
same "--pam NGG -m 1: both strands, guide ends, N, no PAM mismatch, records' edges" \
    "$T/exp" "$T/act" "$T/err"
{ echo "${hdr%	edits}"; row + 1 13 ACGTACGTACAGG; row - 89 101 ACGTACGTACTGG
  row - 61 73 ACGTACGTACAGG; echo "exit 0"; } | sed 's/	$//' >"$T/exp0"
"$CLM" --dna --pam NGG ACGTACGTAC "$T/h.fa" >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
same "--pam NGG exact" "$T/exp0" "$T/act" "$T/err"
# Without --pam the mismatch in the PAM of 16-28 counts: the row that --pam must drop.
"$CLM" --dna -m 1 ACGTACGTACNGG "$T/h.fa" >"$T/act" 2>&1
if grep -q '	16	28	ACGTACGTACTGC	1$' "$T/act"; then pass "-m 1 without --pam counts the PAM"
else fail "-m 1 without --pam counts the PAM" "$(cat "$T/act")"; fi

# chrP: 1-11 TTTA + guide (+), 14-24 TTTT + guide (V excludes T), 27-37 the reverse
# complement of TTTC + guide with a mismatch (-), 40-50 a soft-masked PAM (-i only).
printf '>chrP\nTTTAGATTACACCTTTTGATTACACCTGCAATCGAAACCtttaGATTACA\n' >"$T/p5.fa"
{ printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\tedits\n'
  printf 'chrP\tGATTACA\tTTTVGATTACA\t+\t1\t11\tTTTAGATTACA\t0\n'
  printf 'chrP\tGATTACA\tTTTVGATTACA\t-\t27\t37\tTTTCGATTGCA\t1\n'; echo "exit 0"; } >"$T/exp"
"$CLM" --dna --pam5 TTTV -m 1 GATTACA "$T/p5.fa" >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
same "--pam5 TTTV -m 1 (Cas12a): IUPAC PAM, both strands" "$T/exp" "$T/act" "$T/err"
{ printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\tedits\n'
  printf 'chrP\tGATTACA\ttttvgattaca\t+\t1\t11\ttttagattaca\t0\n'
  printf 'chrP\tGATTACA\ttttvgattaca\t+\t40\t50\ttttagattaca\t0\n'
  printf 'chrP\tGATTACA\ttttvgattaca\t-\t27\t37\ttttcgattgca\t1\n'; echo "exit 0"; } >"$T/exp"
"$CLM" --dna -i --pam5 TTTV -m 1 GATTACA "$T/p5.fa" >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
same "--pam5 -i: a soft-masked PAM matches" "$T/exp" "$T/act" "$T/err"
{ printf 'chrP\t1\n# total\t1\n'; echo "exit 0"; } >"$T/exp"
"$CLM" --dna -c --strand + --pam5 TTTV -m 1 GATTACA "$T/p5.fa" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
same "--pam5 -c --strand +" "$T/exp" "$T/act" "$T/err"

# ---- --pam / --pam5: random genomes against tests/ref_dna.py -----------------------------
if [ -n "$HAVE_PY" ]; then
    python3 - "$T" <<'PYEOF'
import random, sys
T = sys.argv[1]
rnd = random.Random(181)
def rseq(n):
    return ''.join(rnd.choice('ACGT') for _ in range(n))
guides = [rseq(12) for _ in range(4)]
comp = dict(zip('ACGTN', 'TGCAN'))
def rc(s):
    return ''.join(comp[c] for c in reversed(s))
def site():
    g = list(rnd.choice(guides))
    for _ in range(rnd.randrange(0, 4)):              # up to 3 mismatches
        g[rnd.randrange(len(g))] = rnd.choice('ACGTN')
    pam = rnd.choice(['AGG', 'CGG', 'TAG', 'GGG', 'ATG', 'NGG'])
    s = ''.join(g) + pam if rnd.random() < 0.5 else rnd.choice(['TTTA', 'TTTC', 'TTTT']) + ''.join(g)
    return s if rnd.random() < 0.5 else rc(s)
recs = []
for r in range(6):
    s = list(rseq(rnd.randrange(300, 1500)))
    for _ in range(len(s) // 30):
        x = site(); i = rnd.randrange(0, len(s) - len(x) + 1)
        s[i:i + len(x)] = x
    for _ in range(5):                                 # soft-masked runs and IUPAC codes
        i = rnd.randrange(len(s)); s[i:i + 20] = [c.lower() for c in s[i:i + 20]]
        s[rnd.randrange(len(s))] = rnd.choice('RYSWKMN')
    if r == 2:                                          # sites at both edges
        s = list(site()) + s + list(site())
    recs.append(('rec%d' % r, ''.join(s)))
recs.append(('empty', ''))
with open(T + '/g.fa', 'w') as f:
    for h, s in recs:
        f.write('>' + h + '\n' + ''.join(s[i:i + 61] + '\n' for i in range(0, len(s), 61)))
with open(T + '/guides.txt', 'w') as f:
    f.write(''.join('g%d\t%s\n' % (i, g) for i, g in enumerate(guides)))
PYEOF
    pam_ref() {
        name=$1
        shift
        python3 "$ROOT/tests/ref_dna.py" "$@" -f "$T/guides.txt" "$T/g.fa" >"$T/exp" 2>"$T/referr"
        echo "exit $?" >>"$T/exp"
        "$CLM" --dna "$@" -f "$T/guides.txt" "$T/g.fa" >"$T/act" 2>"$T/err"
        echo "exit $?" >>"$T/act"
        same "$name" "$T/exp" "$T/act" "$T/err"
    }
    pam_ref "random: --pam NGG -m 3" --pam NGG -m 3
    pam_ref "random: --pam NRG -m 2 -i" --pam NRG -m 2 -i
    pam_ref "random: --pam NGG -m 2 --degenerate-text" --pam NGG -m 2 --degenerate-text
    pam_ref "random: --pam NGG -m 2 --strand -" --pam NGG -m 2 --strand -
    pam_ref "random: --pam NGG exact -c" --pam NGG -c
    pam_ref "random: --pam5 TTTV -m 3" --pam5 TTTV -m 3
    pam_ref "random: --pam5 tttv -m 2 (lower-case PAM)" --pam5 tttv -m 2
    # hamming's limit (k 8) and past it (bitap, the PAM checked on the host alone), and
    # bitap asked for
    pam_ref "random: --pam NGG -m 8" --pam NGG -m 8
    pam_ref "random: --pam NGG -m 9" --pam NGG -m 9
    # every guide and both strands in one pass, the PAM the patterns' exact end; the same
    # rows as bitap's engines, one per guide and strand, with the PAM checked on the host
    "$CLM" --dna --pam NGG -m 3 --stats -f "$T/guides.txt" "$T/g.fa" >"$T/act" 2>"$T/err"
    if grep -q 'algorithm hamming.*one pass' "$T/err" &&
        grep -q ' 1 launch(es) per slab' "$T/err"; then
        pass "--pam with several guides: one hamming launch"
    else fail "--pam with several guides: one hamming launch" "$(cat "$T/err")"; fi
    "$CLM" --dna --pam NGG -m 3 -a bitap -f "$T/guides.txt" "$T/g.fa" >"$T/exp" 2>"$T/err"
    same "random: --pam NGG -m 3: hamming's rows are bitap's" "$T/exp" "$T/act" "$T/err"
fi

# ---- --pam / --pam5: bad input -----------------------------------------------------------
expect_error "--pam not IUPAC" 2 "--pam 'NXG'.*not an IUPAC" "$CLM" --dna --pam NXG ACGT "$T/h.fa"
expect_error "--pam5 empty" 2 "--pam5: empty PAM" "$CLM" --dna --pam5 '' ACGT "$T/h.fa"
expect_error "--pam with -k (edits)" 2 "mismatches only" "$CLM" --dna --pam NGG -k 1 ACGT "$T/h.fa"
expect_error "--pam and --pam5" 2 "exclude each other" "$CLM" --dna --pam NGG --pam5 TTTV \
    ACGT "$T/h.fa"
expect_error "--pam: -m K needs a longer guide" 2 "longer than 4" "$CLM" --dna --pam NGG -m 4 \
    ACGT "$T/h.fa"
# ---- the Cas-OFFinder 2.4.1 front end: hand-checked --------------------------------------
CO=$B/clmatch-cas-offinder
case $CO in /*) ;; *) CO=$(pwd)/$CO ;; esac
# h.fa as above: 0-based starts; the whole header names the record; n: a mismatched N.
printf '%s\nNNNNNNNNNNNRG\nACGTACGTACNNN 1\n' "$T/h.fa" >"$T/in1"
{ q='ACGTACGTACNNN	chrA desc'
  printf '%s\t0\tACGTACGTACAGG\t+\t0\n' "$q"; printf '%s\t30\tgCGTACGTACCGG\t+\t1\n' "$q"
  printf '%s\t45\tACGTACGTAgTGG\t+\t1\n' "$q"; printf '%s\t60\tACGTACGTACAGG\t-\t0\n' "$q"
  printf '%s\t75\tACGTnCGTACGGG\t+\t1\n' "$q"; printf '%s\t88\tACGTACGTACTGG\t-\t0\n' "$q"
  echo "exit 0"; } >"$T/exp"
"$CO" "$T/in1" C - >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
same "cas-offinder: both strands, guide ends, N, PAM, records' edges" "$T/exp" "$T/act" "$T/err"
# the same through the main program's subcommand, OUTPUT a file
"$CLM" cas-offinder "$T/in1" C "$T/act2" 2>"$T/err"; echo "exit $?" >>"$T/act2"
same "clmatch cas-offinder: the front end's rows, into OUTPUT" "$T/exp" "$T/act2" "$T/err"
# A text N under the template's N next to LIMIT guide mismatches: no mismatch for 2.4.1, so
# the site is a row (the library counts that N; the front end's search allows for it).
printf '>chrT\nTTTTACGTACGTACGTACGTACGANGGTTTT\n' >"$T/nt.fa"
printf '%s\nNNNNNNNNNNNNNNNNNNNNNGG\nACGTACGTACGTACGTACGTNNN 1\n' "$T/nt.fa" >"$T/nt.in"
printf 'ACGTACGTACGTACGTACGTNNN\tchrT\t4\tACGTACGTACGTACGTACGaNGG\t+\t1\nexit 0\n' >"$T/exp"
"$CO" "$T/nt.in" C - >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
same "cas-offinder: a text N under the template's N beside LIMIT mismatches" "$T/exp" "$T/act" \
    "$T/err"
# A directory (files in name order, a non-FASTA file skipped), lower case upper-cased, a
# text N where the template has R (2.4.1: no mismatch), a query with bases in the PAM
# (counted), ids.
mkdir "$T/gdir"
printf '>b1\nttgatTACAGATTGGcc\n' >"$T/gdir/b.fa"
printf '>a1 x\nCCGATTACAGATCNGAA\n' >"$T/gdir/a.fa"
printf 'not FASTA\n' >"$T/gdir/notes.txt"
printf '%s/gdir\r\nNNNNNNNNNNNRG\r\nGATTACAGATNNN 1 q1\r\nGATTACAGATTGG 1 q2\r\n\r\n' "$T" >"$T/in2"
# In a1, q2 has 2 mismatches (C for T, and N for G: a base code mismatches a text N).
{ printf 'GATTACAGATNNN\ta1 x\t2\tGATTACAGATCNG\t+\t0\tq1\n'
  printf 'GATTACAGATNNN\tb1\t2\tGATTACAGATTGG\t+\t0\tq1\n'
  printf 'GATTACAGATTGG\tb1\t2\tGATTACAGATTGG\t+\t0\tq2\n'; echo "exit 0"; } >"$T/exp"
"$CO" "$T/in2" C0 "$T/out2" >"$T/act" 2>"$T/err"; echo "exit $?" >>"$T/act"
cat "$T/out2" "$T/act" >"$T/act2"
same "cas-offinder: directory, case, text N under R, PAM in the query, ids, CRLF" \
    "$T/exp" "$T/act2" "$T/err"

# ---- the front end: random genomes against tests/ref_casoff.py -------------------------
if [ -n "$HAVE_PY" ]; then
    python3 - "$T" <<'PYEOF'
import random, sys
T = sys.argv[1]
rnd = random.Random(2411)
comp = dict(zip('ACGTN', 'TGCAN'))
def rseq(n):
    return ''.join(rnd.choice('ACGT') for _ in range(n))
def rc(s):
    return ''.join(comp.get(c, c) for c in reversed(s))
guides = [rseq(14) for _ in range(5)]
def genome(path, nrec):
    with open(path, 'w') as f:
        for r in range(nrec):
            s = list(rseq(rnd.randrange(200, 1200)))
            for _ in range(len(s) // 25):
                g = list(rnd.choice(guides))
                for _ in range(rnd.randrange(0, 4)):
                    g[rnd.randrange(len(g))] = rnd.choice('ACGTN')
                x = rnd.choice([''.join(g) + rnd.choice(['AGG', 'TGG', 'AAG', 'GGT', 'NGG']),
                                rnd.choice(['TTTA', 'TTTT', 'TTCG']) + ''.join(g) + 'CCC'])
                x = x if rnd.random() < 0.5 else rc(x)
                i = rnd.randrange(0, len(s) - len(x) + 1)
                s[i:i + len(x)] = x
            for _ in range(6):
                i = rnd.randrange(len(s)); s[i:i + 15] = [c.lower() for c in s[i:i + 15]]
                s[rnd.randrange(len(s))] = rnd.choice('RYSWKMBDHVN')
            s = ''.join(s)
            f.write('>rec%d some description\n' % r + ''.join(s[i:i + 70] + '\n' for i in range(0, len(s), 70)))
genome(T + '/r1.fa', 5)
import os
os.mkdir(T + '/rdir')
genome(T + '/rdir/x.fa', 2)
genome(T + '/rdir/y.fa', 3)
def inp(path, gpath, tmpl, qs):
    with open(path, 'w') as f:
        f.write(gpath + '\n' + tmpl + '\n' + ''.join(qs))
inp(T + '/rin1', T + '/r1.fa', 'N' * 14 + 'NRG',
    ['%sNNN %d\n' % (g, i % 4) for i, g in enumerate(guides)])
inp(T + '/rin2', T + '/rdir', 'TTTV' + 'N' * 16,
    ['NNNN%sNN %d id%d\n' % (g, 3, i) for i, g in enumerate(guides)])
inp(T + '/rin3', T + '/r1.fa', 'N' * 14 + 'NGG',
    ['%sNGG %d\n' % (g.lower(), 2) for g in guides] + ['%sNNN 0\n' % guides[0]])
# Every site of a query whose limit is its length: about 90 000 rows, formatted by threads
# (tools/casoff_rows.c shares out 16 384 rows or more a thread).
with open(T + '/r4.fa', 'w') as f:
    for r in range(3):
        s = list(rseq(15000))
        for _ in range(20):
            s[rnd.randrange(len(s))] = rnd.choice('NRY')
        s = ''.join(s)
        f.write('>many%d\n' % r + ''.join(s[i:i + 60] + '\n' for i in range(0, len(s), 60)))
inp(T + '/rin4', T + '/r4.fa', 'N' * 10, ['ACGTACGTAC 10 all\n', 'TTGACCANNN 2 few\n'])
PYEOF
    for i in 1 2 3 4; do
        python3 "$ROOT/tests/ref_casoff.py" "$T/rin$i" >"$T/exp" 2>"$T/referr"
        "$CO" "$T/rin$i" C - >"$T/act" 2>"$T/err"
        if [ -s "$T/exp" ]; then same "cas-offinder: random input $i against ref_casoff.py" \
            "$T/exp" "$T/act" "$T/err"
        else fail "cas-offinder: random input $i: the reference found no row"; fi
    done
    # The same genome with CRLF line ends and a header before a blank line: the same rows
    # (CRs dropped from sequence lines, a header's trailing CR from its name).
    { sed 's/$/\r/' "$T/r1.fa"; printf '>empty\r\n\r\n'; } >"$T/r1crlf.fa"
    sed "1s|.*|$T/r1crlf.fa|" "$T/rin1" >"$T/rin1crlf"
    python3 "$ROOT/tests/ref_casoff.py" "$T/rin1" >"$T/exp"
    "$CO" "$T/rin1crlf" C - >"$T/act" 2>"$T/err"
    same "cas-offinder: CRLF genome" "$T/exp" "$T/act" "$T/err"
fi

# ---- the front end: bad input ------------------------------------------------------------
printf '%s/none.fa\nNNNRG\nACGNN 1\n' "$T" >"$T/bad1"
expect_error "cas-offinder: missing genome" 2 "bad1 line 1: genome .*No such file" "$CO" "$T/bad1" C -
printf '\nNNNRG\nACGNN 1\n' >"$T/bad2"
expect_error "cas-offinder: empty genome line" 2 "bad2 line 1: no genome path" "$CO" "$T/bad2" C -
printf '%s\nNNNRG\nACGNN 1\nACGTNN 1\n' "$T/h.fa" >"$T/bad3"
expect_error "cas-offinder: query length" 2 "bad3 line 4: the query has 6 bases" "$CO" "$T/bad3" C -
printf '%s\nNNNRG\nACGNN x\n' "$T/h.fa" >"$T/bad4"
expect_error "cas-offinder: bad limit" 2 "bad4 line 3: invalid mismatch limit 'x'" "$CO" "$T/bad4" C -
printf '%s\nNNNRG\nACGNN 1\nACGNN 1 id\n' "$T/h.fa" >"$T/bad5"
expect_error "cas-offinder: inconsistent fields" 2 "bad5 line 4: 3 fields" "$CO" "$T/bad5" C -
printf '%s\nNNNRG\nACGNN\n' "$T/h.fa" >"$T/bad6"
expect_error "cas-offinder: one field" 2 "bad6 line 3: expected 'QUERY LIMIT'" "$CO" "$T/bad6" C -
printf '%s\nNNNRG\nACXNN 1\n' "$T/h.fa" >"$T/bad7"
expect_error "cas-offinder: not IUPAC" 2 "bad7 line 3: query: 'X' at position 3" "$CO" "$T/bad7" C -
printf '%s\nNNNRG\nACGNN 1\n\nACGNN 2\n' "$T/h.fa" >"$T/bad8"
expect_error "cas-offinder: empty line before queries" 2 "bad8 line 4: empty line" "$CO" "$T/bad8" C -
printf '%s\nNNNRG\n' "$T/h.fa" >"$T/bad9"
expect_error "cas-offinder: no query" 2 "no query line" "$CO" "$T/bad9" C -
expect_error "cas-offinder: unknown device type" 2 "unknown device type 'X'" "$CO" "$T/in1" X -
expect_error "cas-offinder: bad device ids" 2 "invalid device ids" "$CO" "$T/in1" C0:x -
expect_error "cas-offinder: no such input" 2 "nofile: No such file" "$CO" "$T/nofile" C -
expect_error "cas-offinder: wrong arguments" 2 "expected 3 arguments" "$CO" "$T/in1" C
printf '%s/notes.txt\nNNNRG\nACGNN 1\n' "$T/gdir" >"$T/bad10"
expect_error "cas-offinder: genome not FASTA" 2 "not a FASTA file" "$CO" "$T/bad10" C -

cli_summary
