#!/bin/sh
# Tests of the DNA mode of the CLI (clmatch --dna): generated FASTA (line widths 1, 60, 80 and
# ragged, CRLF, empty records, headers without sequence, N runs, IUPAC codes and lower case in
# the text, no final newline) against tests/ref_dna.py (python3); the real U. maydis genome
# against `seqkit locate` when seqkit is installed (same rows, same order); every bad input.
#
# Usage: sh tests/cli_dna.sh [BUILD_DIR]   (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME" (with a short diff); the last line is
# "N passed, M failed" and the exit status is non-zero when M > 0.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" dna
dna_ref_init

# ---- generated FASTA ------------------------------------------------------------------------
# The same records written five ways: line width 1, 60 (LF), 80 (CRLF), ragged widths with
# blank lines and no final newline, and all on one line. Records: random sequence with planted
# occurrences across line breaks and at record edges, soft-masked (lower-case) runs, N runs and
# IUPAC codes in the text, an empty record, headers without sequence (one at the very end), a
# header with a tab, records shorter than the patterns, and many tiny records.
if [ -n "$HAVE_PY" ]; then
    python3 - "$T" <<'EOF'
import random, sys
T = sys.argv[1]
rnd = random.Random(20261121)
def rseq(n):
    return ''.join(rnd.choice('ACGT') for _ in range(n))
plant = ['GAATTC', 'GATTACA', 'TGTAATC', 'GACTC', 'AGATCT', 'CCAGG', 'GATTACAGAT',
         'GATTCCA', 'GTTACA', 'ATCTGTAATC']
def planted(n):
    s = list(rseq(n))
    for _ in range(n // 40):
        p = rnd.choice(plant)
        i = rnd.randrange(0, n - len(p))
        s[i:i + len(p)] = p
    return ''.join(s)
recs = []
recs.append(('r1 random with planted sites', planted(3000)))
s = list(planted(2500))
for _ in range(25):                      # soft-masked runs
    i = rnd.randrange(0, 2400); L = rnd.randrange(5, 80)
    s[i:i + L] = [c.lower() for c in s[i:i + L]]
recs.append(('r2_softmasked', ''.join(s)))
recs.append(('empty1', ''))
s = list(planted(2000))
for _ in range(15):                      # N runs
    i = rnd.randrange(0, 1950); L = rnd.randrange(1, 40)
    s[i:i + L] = 'N' * L
for _ in range(40):                      # IUPAC codes and lower-case n in the text
    s[rnd.randrange(0, 2000)] = rnd.choice('RYSWKMBDHVNn')
recs.append(('r3_nruns\tdescription after a tab', ''.join(s)))
recs.append(('short', 'GAT'))
recs.append(('edge1', 'ATTACA' + planted(200) + 'GATTAC'))     # near-misses at both edges
recs.append(('edge2', 'AATTCAG' + planted(150) + 'CTGAATT'))
recs.append(('hdr_only_mid', ''))
recs.append(('edge3', 'TTACAGAT' + rseq(100) + 'GATTACAGA'))
for j in range(20):
    recs.append(('tiny%d' % j, rnd.choice(['GAATTC', 'GATTACA', 'ACGT', 'G', 'AATT', 'CAGATT'])[:1 + j % 7]))
recs.append(('last_header_only', ''))

def write(path, width, eol='\n', ragged=False, final_nl=True):
    out = []
    for h, seq in recs:
        out.append('>' + h + eol)
        i = 0
        while i < len(seq):
            w = rnd.randrange(1, 100) if ragged else width
            out.append(seq[i:i + w] + eol)
            if ragged and rnd.random() < 0.05:
                out.append(eol)          # blank line inside a record
            i += w
    text = ''.join(out)
    if not final_nl:
        text = text.rstrip('\n')
    open(path, 'w', newline='').write(text)
write(T + '/w60.fa', 60)
write(T + '/w1.fa', 1)
write(T + '/w80crlf.fa', 80, eol='\r\n')
write(T + '/ragged.fa', 0, ragged=True, final_nl=False)
write(T + '/oneline.fa', 10 ** 9)
# A pattern file in each format.
open(T + '/pats.fa', 'w').write('>site1 EcoRI\nGAAT\nTC\n>gatt\nGATTACA\n>degen\nRGATCY\n')
open(T + '/pats.tsv', 'w').write('hinf\tGANTC\r\n\nbstyi\tRGATCY\nGATTACA\n')
open(T + '/pats.txt', 'w').write('GAATTC\n\nCCWGG\nGAATTC\n')
# Raw sequence (no header).
open(T + '/raw.txt', 'w').write('\n'.join(planted(600)[i:i + 70] for i in range(0, 600, 70)))
EOF
fi
F=$T/w60.fa
VARIANTS="$T/w60.fa $T/w1.fa $T/w80crlf.fa $T/ragged.fa $T/oneline.fa"
# Every comparison with the reference on both of FASTA's paths (--line-breaks) and with no
# option (the host search where it serves, tools/dna_host.c).
VS_REF_PATHS="host device default"

if [ -n "$HAVE_PY" ]; then
    vs_ref "exact, both strands, palindrome and not" "$VARIANTS" -e GAATTC -e GATTACA
    vs_ref "exact, several patterns in the order given" "$VARIANTS" -e GATTACA -e GAATTC -e G
    vs_ref "exact -i (lower-case text, columns lower-cased)" "$VARIANTS" -i -e GATTACA -e gaattc
    vs_ref "IUPAC patterns" "$VARIANTS" -e GANTC -e RGATCY -e CCWGG -e NNGATTACANN
    vs_ref "IUPAC lower-case codes (match lower-case text only)" "$F" -e ganTC -e rgatcy
    vs_ref "IUPAC -i --degenerate (columns keep their case)" "$F" --degenerate -i -e GAnTC
    vs_ref "--degenerate-text: N and codes in the text match" "$F" --degenerate-text \
        -e GATTACA -e GANTC
    vs_ref "-k 1 --degenerate-text (edits with codes in the text)" "$F" -k 1 --degenerate-text \
        -e GATTACA -e RGATCY
    vs_ref "U in a pattern stands for T" "$F" -e GAAUUC -e gauuaca
    vs_ref "--strand +" "$F" --strand + -e GATTACA -e GAATTC
    vs_ref "--strand -" "$VARIANTS" --strand - -e GATTACA -e RGATCY
    vs_ref "-k 1 (edit distance; records' edges)" "$VARIANTS" -k 1 -e GATTACA -e GAATTC
    vs_ref "-k 2 (edit distance), IUPAC" "$F" -k 2 -e GATTACAGAT -e RGATCYNN
    vs_ref "-k 2 -i --strand -" "$F" -k 2 -i --strand - -e GATTACAGAT
    vs_ref "-m 1 (mismatches only)" "$VARIANTS" -m 1 -e GATTACA -e GAATTC
    vs_ref "--mismatches-only -k 2, IUPAC" "$F" --mismatches-only -k 2 -e GATTACAGAT -e GANTCA
    vs_ref "-m 1 --degenerate-text" "$F" -m 1 --degenerate-text -e GATTACA
    vs_ref "--bed" "$VARIANTS" --bed -e GAATTC -e GATTACA
    vs_ref "--bed -k 1" "$F" --bed -k 1 -e GATTACA
    vs_ref "-c (every record, empty ones too, and a total)" "$VARIANTS" -c -e GAATTC -e GATTACA
    vs_ref "-c -m 2" "$F" -c -m 2 -e GATTACAGAT
    vs_ref "-f FASTA pattern file (names = ids, wrapped sequence)" "$F" -f "$T/pats.fa"
    vs_ref "-f NAME<TAB>PATTERN file (CRLF, blank lines, bare patterns)" "$F" -f "$T/pats.tsv"
    vs_ref "-f one pattern per line (duplicates searched once)" "$F" -f "$T/pats.txt"
    vs_ref "-f and -e together" "$F" -e GATTACA -f "$T/pats.tsv" -k 1
    vs_ref "raw sequence file (no header): one record named after it" "$T/raw.txt" -e GATTACA -k 1
    vs_ref "no match: header only, exit 1" "$F" -e GGGGGGGGGGGGGGGGGGGG

    # Several files, standard input, tiny reads and slabs: the same rows.
    python3 "$REF" -k 1 -e GATTACA "$F" "$T/ragged.fa" >"$T/exp"
    "$CLM" --dna -k 1 -e GATTACA "$F" "$T/ragged.fa" >"$T/act" 2>"$T/err"
    same "several files: records in file order" "$T/exp" "$T/act" "$T/err"
    python3 "$REF" -e GAATTC -e GATTACA "$F" >"$T/exp"
    "$CLM" --dna -e GAATTC -e GATTACA <"$F" >"$T/act" 2>"$T/err"
    same "standard input" "$T/exp" "$T/act" "$T/err"
    cat "$F" | "$CLM" --dna --block-size=61 -e GAATTC -e GATTACA - >"$T/act" 2>"$T/err"
    same "pipe, 61-byte reads" "$T/exp" "$T/act" "$T/err"
    python3 "$REF" -k 2 -e GATTACAGAT "$T/ragged.fa" >"$T/exp"
    "$CLM" --dna --block-size=7 -k 2 -e GATTACAGAT "$T/ragged.fa" >"$T/act" 2>"$T/err"
    same "7-byte reads, -k 2, ragged lines" "$T/exp" "$T/act" "$T/err"
    CLMATCH_SLAB_BYTES=4096 "$CLM" --dna -k 2 -e GATTACAGAT "$T/ragged.fa" >"$T/act" 2>"$T/err"
    same "4 KiB library slabs, -k 2" "$T/exp" "$T/act" "$T/err"
    head -c 700 "$T/w1.fa" >"$T/tiny.fa"
    python3 "$REF" -m 1 -e GATTACA -e AC "$T/tiny.fa" >"$T/exp"
    cat "$T/tiny.fa" | "$CLM" --dna --block-size=1 -m 1 -e GATTACA -e AC >"$T/act" 2>"$T/err"
    same "1-byte reads (width-1 lines, cut mid-line)" "$T/exp" "$T/act" "$T/err"
fi

# ---- the device path (--line-breaks=device) against the host path --------------------------
# The file's bytes go to the device as they are and the host finds only the headers: every
# case must print byte for byte what the host path (fasta.c) prints, with the same status,
# wherever the read blocks end (inside a header, inside a CRLF pair, right after a '>'), for
# records shorter and longer than the 4 KiB from which their bytes are written in place.
# vs_host_path LABEL OPTIONS ARGS...: clmatch --dna OPTIONS ARGS (OPTIONS split into words)
# prints, with the same status, what the host path (--line-breaks=host) prints for ARGS.
vs_host_path() {
    label=$1 opts=$2
    shift 2
    "$CLM" --dna --line-breaks=host "$@" >"$T/exp" 2>"$T/experr"
    echo "exit $?" >>"$T/exp"
    # shellcheck disable=SC2086 # $opts: options, split
    "$CLM" --dna $opts "$@" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$label" "$T/exp" "$T/act" "$T/err"
}
# both_paths NAME FILE ARGS...
both_paths() {
    name=$1 f=$2
    shift 2
    vs_host_path "device path = host path: $name" --line-breaks=device "$@" "$f"
}
if [ -n "$HAVE_PY" ]; then
    python3 - "$T" <<'EOF'
import random, sys
T = sys.argv[1]
rnd = random.Random(20261128)
def rseq(n, alpha='ACGT'):
    return ''.join(rnd.choice(alpha) for _ in range(n))
def planted(n):
    s = list(rseq(n))
    for _ in range(n // 30):
        p = rnd.choice(['GATTACA', 'GAATTC', 'TGTAATC', 'GATTACAGG', 'CCTGTAATC', 'AGG'])
        i = rnd.randrange(0, max(1, n - len(p)))
        s[i:i + len(p)] = p
    return ''.join(s)
eols = ['\n', '\r\n', '\r\r\n', '\n\n', '\r\n\r\n']
def lines(out, seq, eol):
    i = 0
    while i < len(seq):
        w = rnd.randrange(1, 90)
        out.append(seq[i:i + w] + (eol if eol else rnd.choice(eols)))
        i += w
# path: records of the given sizes, each kind of oddity in turn
def fasta(path, records, sizes):
    out = ['\n\r\n']                          # line breaks before the first header
    for j in range(records):
        eol = rnd.choice(eols + [None])
        hdr = rnd.choice(['r%d' % j, 'r%d with spaces  and\ttab' % j, 'r%d>gt' % j, 'r%d\r' % j])
        out.append('>' + hdr + (eol or '\n'))
        k = j % 6
        if k == 0:
            continue                           # an empty record
        seq = planted(rnd.choice(sizes))
        if k == 1:
            seq = seq[:len(seq) // 2] + seq[len(seq) // 2:].lower()
        if k == 2 and len(seq) > 10:           # '>' and CR inside a sequence line: sequence
            seq = seq[:5] + '>' + seq[5:8] + '\r' + seq[8:]
        lines(out, seq, eol)
        if k == 3:
            out.append('\r>not a header: CR first\n' + planted(50) + '\n')
        if k == 4:                             # '>' inside a line: sequence too
            out.append('GATTA>GATTACA>\r\nGATTACA\n')
    out.append('>last no final newline\nGATTACAGGATTACA\r\nGAATT')
    open(path, 'w', newline='').write(''.join(out))
fasta(T + '/edge.fa', 40, [3, 7, 40, 300, 2500, 9000, 20000])
fasta(T + '/edge-small.fa', 14, [3, 7, 40, 300])    # for reads of a few bytes
EOF
    E=$T/edge.fa
    gzip -c "$E" >"$T/edge.fa.gz"
    "$CLM" --dna --line-breaks=device --stats -e GATTACA "$E" >/dev/null 2>"$T/err"
    if grep -q 'line breaks dropped on the device' "$T/err"; then
        pass "--line-breaks=device: --stats says the device drops them"
    else
        fail "--line-breaks=device: --stats says the device drops them" \
            "$(grep -i 'line br' "$T/err")"
    fi
    both_paths "exact, both strands" "$E" -e GATTACA -e GAATTC -e AGG
    both_paths "exact -i (lower case)" "$E" -i -e GATTACA -e gaattc
    both_paths "-k 1 (edits at record and line edges)" "$E" -k 1 -e GATTACA -e TGTAATC
    both_paths "-k 2 --strand -" "$E" -k 2 --strand - -e GATTACAGG
    both_paths "-m 2" "$E" -m 2 -e GATTACAGG -e CCTGTAATC
    both_paths "--pam NGG -m 1" "$E" --pam NGG -m 1 -e GATTACA
    both_paths "--pam5 TTTV" "$E" --pam5 TTTV -e GATTACA
    both_paths "-c" "$E" -c -e GATTACA -e AGG
    both_paths "--bed -k 1" "$E" --bed -k 1 -e GATTACA
    both_paths "gzip input" "$T/edge.fa.gz" -k 1 -e GATTACA
    both_paths "--devices 0:0 (a set stream: the host path)" "$E" --devices 0:0 -k 1 -e GATTACA
    for bs in 1 2 3 7; do
        both_paths "--block-size=$bs, -k 1" "$T/edge-small.fa" --block-size=$bs -k 1 \
            -e GATTACA -e GAATTC
    done
    gzip -c "$T/edge-small.fa" >"$T/edge-small.fa.gz"
    both_paths "--block-size=5, -c -m 1, gzip" "$T/edge-small.fa.gz" --block-size=5 -c -m 1 \
        -e GATTACA
    # Pieces of more than 4 KiB go to the stream in place, shorter ones are batched
    # (tools/fasta_device.c): block sizes around that mix both within a record.
    for bs in 61 4096 4097 6000 9001; do
        both_paths "--block-size=$bs, -k 1" "$E" --block-size=$bs -k 1 -e GATTACA -e GAATTC
    done
    CLMATCH_SLAB_BYTES=4096 both_paths "4 KiB library slabs, -k 2" "$E" -k 2 -e GATTACAGG
    # A regular file is read by several threads, a piece each, which index its headers and
    # line breaks; the block goes to the stream in one write (tools/fasta_blocks.c). Pieces,
    # blocks and 16 KiB checkpoints end anywhere: inside headers, CRLF pairs and records.
    for th in 1 3 7; do
        for bs in 61 4097 9001 65536; do
            CLMATCH_HOST_THREADS=$th both_paths "$th reading threads, --block-size=$bs, -i -k 1" \
                "$E" --block-size=$bs -i -k 1 -e GATTACA -e GAATTC
        done
    done
    # The file is read straight into the stream's staging, also on the copy and pinned paths
    # (a GPU's), whose staging the device does not read in place. Small slabs put blocks and
    # slabs anywhere.
    for path in copy pinned; do
        for bs in 61 4097 65536; do
            CLMATCH_DATA_PATH=$path CLMATCH_SLAB_BYTES=4096 CLMATCH_HOST_THREADS=3 both_paths \
                "$path path, 4 KiB slabs, --block-size=$bs, -k 1" "$E" --block-size=$bs -k 1 \
                -e GATTACA -e GAATTC
        done
        CLMATCH_DATA_PATH=$path CLMATCH_SLAB_BYTES=4096 CLMATCH_HOST_THREADS=3 both_paths \
            "$path path, 4 KiB slabs, -m 2 -c" "$E" -m 2 -c -e GATTACAGG
    done
    # Header lines shorter than the k + 1 separator bytes (">", ">a"): the rest of the
    # separator is written on its own.
    printf '>\nGATTACA\n>a\r\nATTACAG\n>\n>\r\nGATTACAGATTACA\n>bb\nAC\n>' >"$T/short.fa"
    for bs in 1 3 8 64; do
        CLMATCH_HOST_THREADS=2 both_paths "short headers, -k 3, --block-size=$bs" \
            "$T/short.fa" --block-size=$bs -k 3 -e GATTACA
    done
    # Line breaks before the first header, the last a CR: the '>' still starts a line.
    printf '\r\n\r>r1\nGATTACA\n>r2\nTTGATTACA\n' >"$T/cr-first.fa"
    for bs in 1 2 3 64; do
        both_paths "a CR before the first header, --block-size=$bs" "$T/cr-first.fa" \
            --block-size=$bs -e GATTACA
    done
    # Other inputs keep the host path, one file after another.
    printf '@q1\nGATTACA\n+\nIIIIIII\n' >"$T/q.fq"
    "$CLM" --dna --line-breaks=host -e GATTACA "$E" "$T/q.fq" "$T/raw.txt" "$E" >"$T/exp" 2>&1
    "$CLM" --dna --line-breaks=device -e GATTACA "$E" "$T/q.fq" "$T/raw.txt" "$E" >"$T/act" 2>&1
    same "device path = host path: FASTA, FASTQ, raw and FASTA again" "$T/exp" "$T/act"
    cat "$E" | "$CLM" --dna --line-breaks=host --block-size=13 -k 1 -e GATTACA >"$T/exp" 2>&1
    cat "$E" | "$CLM" --dna --line-breaks=device --block-size=13 -k 1 -e GATTACA >"$T/act" 2>&1
    same "device path = host path: a pipe, 13-byte reads" "$T/exp" "$T/act"
    # A truncated gzip stream: the records before the damage are printed on both paths.
    head -c 3000 "$T/edge.fa.gz" >"$T/cut.fa.gz"
    both_paths "truncated gzip: the complete records, exit 2" "$T/cut.fa.gz" -e GATTACA
fi
# ---- --devices auto: the host search (tools/dna_host.c) against the host path -------------
# Exact patterns of plain bases in FASTA files go to the CPU's threads with no OpenCL at all.
# CLMATCH_HOST_THREADS cuts even a small file into that many byte ranges, so that ranges begin
# inside headers (long ones too), CRLF pairs, blank lines and sequence lines, and --block-size
# makes each thread read a few bytes at a time. Each run must print byte for byte what the
# host path prints, and --stats must say that no device was opened.
# host_search NAME THREADS BLOCK FILES ARGS...
host_search() {
    name=$1 th=$2 bs=$3 files=$4
    shift 4
    # shellcheck disable=SC2086 # $files is a list
    "$CLM" --dna --line-breaks=host "$@" $files >"$T/exp" 2>"$T/experr"
    echo "exit $?" >>"$T/exp"
    # shellcheck disable=SC2086
    CLMATCH_HOST_THREADS=$th "$CLM" --dna --devices auto --block-size="$bs" --stats "$@" \
        $files >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    if ! grep -q 'no OpenCL device opened' "$T/err"; then
        fail "host search: $name ($th threads, block $bs): a device was opened" \
            "$(grep -v '^clmatch: setup' "$T/err" | head -n 4)"
    else
        same "host search = host path: $name ($th threads, block $bs)" "$T/exp" "$T/act" \
            "$T/err"
    fi
}
# auto_same NAME ARGS...: --devices auto (host search or devices) prints what the host path
# prints.
auto_same() {
    name=$1
    shift
    CLMATCH_HOST_THREADS=5 vs_host_path "--devices auto = host path: $name" "--devices auto" \
        "$@"
}
# searched_by NAME host|device ARGS...: clmatch --dna --stats ARGS says that no device was
# opened (host) or that one was (device).
searched_by() {
    name=$1 want=$2
    shift 2
    "$CLM" --dna --stats "$@" >/dev/null 2>"$T/err"
    if grep -q 'no OpenCL device opened' "$T/err"; then got=host; else got=device; fi
    if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "$(head -n 3 "$T/err")"; fi
}
if [ -n "$HAVE_PY" ]; then
    python3 - "$T" <<'EOF'
import random, sys
T = sys.argv[1]
rnd = random.Random(20261129)
def seq(n):
    s = list(''.join(rnd.choice('ACGT') for _ in range(n)))
    for _ in range(n // 25):
        p = rnd.choice(['GATTACA', 'TGTAATC', 'GAATTC', 'AGG'])
        i = rnd.randrange(0, max(1, n - len(p)))
        s[i:i + len(p)] = p
    return ''.join(s)
out = []
for j in range(12):                # headers of 3-9 KB: ranges begin and end inside them
    hdr = 'long%d ' % j + ''.join(rnd.choice('ab \t') for _ in range(rnd.randrange(3000, 9000)))
    out.append('>' + hdr + ('\r\n' if j % 3 == 0 else '\n'))
    s = seq(rnd.choice([0, 5, 60, 700, 4000]))
    i = 0
    while i < len(s):
        w = rnd.randrange(1, 120)
        out.append(s[i:i + w] + rnd.choice(['\n', '\r\n', '\n\n']))
        i += w
out.append('>' + 'x' * ((1 << 20) + 50) + ' truncated past 1 MiB\nGATTACAGATTACA\n')
out.append('>end\nGATTACA')
open(T + '/longhdr.fa', 'w', newline='').write(''.join(out))
EOF
    E=$T/edge.fa
    for th in 1 2 3 16 64; do
        host_search "exact, both strands" $th 4096 "$E" -e GATTACA -e GAATTC -e AGG
    done
    host_search "exact, both strands" 7 61 "$E" -e GATTACA -e GAATTC -e AGG
    for bs in 1 2 7; do
        host_search "tiny reads" 64 $bs "$T/edge-small.fa" -e GATTACA -e GAATTC
    done
    host_search "-i (lower case)" 9 100 "$E" -i -e GATTACA -e gaattc
    host_search "lower-case pattern" 9 100 "$E" -e gattaca
    host_search "--strand -" 11 333 "$E" --strand - -e GATTACA -e TGTAATC
    host_search "--strand +" 11 333 "$E" --strand + -e GATTACA -e AGG
    host_search "U for T" 6 50 "$E" -e GAUUACA -e gauuaca
    host_search "one base (no overlap to read)" 13 17 "$E" -e G -e a
    host_search "-c" 10 64 "$E" -c -e GATTACA -e AGG
    host_search "--bed" 10 64 "$E" --bed -e GATTACA -e GAATTC
    printf 'GAATTC\n\nAGGT\nplain\tGATTACA\n' >"$T/plain.txt"
    host_search "-f a pattern file" 4 4096 "$E" -f "$T/plain.txt" -e TGTAATC
    host_search "headers of 3-9 KB and one past 1 MiB" 40 1000 "$T/longhdr.fa" -e GATTACA -e AGG
    host_search "headers of 3-9 KB, -c" 64 4096 "$T/longhdr.fa" -c -e GATTACA
    host_search "five files, one line each, CRLF, ragged" 8 256 "$VARIANTS" -e GATTACA -e G
    host_search "no match (exit 1)" 5 4096 "$E" -e GGGGGGGGGGGGGGGGGGGGGG
    : >"$T/empty.fa"
    printf '\n\r\n\n' >"$T/blank.fa"
    host_search "an empty file and one of line breaks only" 3 4096 "$T/empty.fa $T/blank.fa" \
        -c -e GATTACA
    # What it declines goes to the devices, with the same rows.
    auto_same "gzip input" -e GATTACA "$T/edge.fa.gz"
    auto_same "raw sequence (no header)" -e GATTACA "$T/raw.txt"
    auto_same "FASTQ" -e GATTACA "$T/q.fq"
    auto_same "an IUPAC code" -e GANTC "$E"
    auto_same "-m 1" -m 1 -e GATTACA "$E"
    "$CLM" --dna --line-breaks=host -e GATTACA "$E" >"$T/exp" 2>&1
    "$CLM" --dna --devices auto -e GATTACA - <"$E" >"$T/act" 2>&1
    same "--devices auto = host path: standard input" "$T/exp" "$T/act"
    auto_same "FASTA, gzip, FASTA (host, devices, host)" -c -e GATTACA "$E" "$T/edge.fa.gz" "$E"
    CLMATCH_TEST_HOST_MATCHES=10 auto_same "more matches than it holds" -e AGG -e GATTACA "$E"
    CLMATCH_TEST_HOST_MATCHES=10 searched_by \
        "more matches than the host search holds: the devices take the file" device \
        --devices auto -e AGG "$E"
    CLMATCH_TEST_HOST_MATCHES=12 searched_by \
        "more records than the host search holds: the devices take the file" device \
        --devices auto -c -e GGGGGGGGGGGGGGGGGGGGGG "$E"
    CLMATCH_TEST_HOST_MATCHES=12 auto_same "more records than it holds" -c \
        -e GGGGGGGGGGGGGGGGGGGGGG "$E"
    # With no device chosen the host search takes what it can too; -p/-d choose a device.
    searched_by "no device chosen: the host search takes the file" host -e AGG "$E"
    for opt in "-p 0" "-d 0"; do
        # shellcheck disable=SC2086 # $opt is two words
        searched_by "$opt: a device searches the file" device $opt -e AGG "$E"
    done
    CLMATCH_HOST_MAX=100 searched_by \
        "CLMATCH_HOST_MAX below the file's size: the devices take it" device \
        --devices auto -e AGG "$E"
    # A file of CLMATCH_DEVICE_FROM bytes goes to a GPU where the machine has one, else the
    # host search keeps it; the rows are the same.
    if "$CLM" --list-devices 2>/dev/null | grep -Eq '^[* ] [0-9]+:[0-9]+ +(GPU|ACCEL)'; then
        big=device
    else
        big=host
    fi
    CLMATCH_DEVICE_FROM=1K searched_by "CLMATCH_DEVICE_FROM below the file's size: $big" \
        "$big" -e AGG "$E"
    CLMATCH_DEVICE_FROM=1G searched_by "CLMATCH_DEVICE_FROM above the file's size: host" \
        host -e AGG "$E"
    CLMATCH_DEVICE_FROM=1K CLMATCH_HOST_MAX=1G searched_by \
        "CLMATCH_HOST_MAX set: CLMATCH_DEVICE_FROM has no say" host -e AGG "$E"
    CLMATCH_DEVICE_FROM=0 vs_host_path "CLMATCH_DEVICE_FROM=0: the rows of the host path" "" \
        -e AGG -e GATTACA "$E"
fi

printf '>s\nACGT\n' >"$T/lb.fa"
expect_error "bad --line-breaks" 2 "invalid --line-breaks 'gpu'" \
    "$CLM" --dna --line-breaks=gpu ACGT "$T/lb.fa"
expect_error "bad CLMATCH_LINE_BREAKS" 2 "invalid CLMATCH_LINE_BREAKS 'x'" \
    env CLMATCH_LINE_BREAKS=x "$CLM" --dna ACGT "$T/lb.fa"
expect_error "bad CLMATCH_DEVICE_FROM" 2 "CLMATCH_DEVICE_FROM='4X': expected bytes" \
    env CLMATCH_DEVICE_FROM=4X "$CLM" --dna ACGT "$T/lb.fa"

# ---- record boundaries, written out --------------------------------------------------------
printf '>a\nGAAT\n>b\nTCxx\n>c\nGATTAC\n>d\nAGATTACA\n' >"$T/cross.fa"
printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\nd\tGATTACA\tGATTACA\t+\t2\t8\tGATTACA\n' \
    >"$T/exp"
"$CLM" --dna --strand + -e GAATTC -e GATTACA "$T/cross.fa" >"$T/act" 2>"$T/err"
same "no match crosses a record boundary" "$T/exp" "$T/act" "$T/err"
# Records b and c start with a near match of GATTACA: the library's best alignment of those
# ends reaches back into the separator (its bytes count as substitutions); the CLI clamps it to
# the record start, which is the best alignment inside the record (same edits).
printf '>a\nGAAT\n>b\nATTACAxx\n>c\nTTACAGG\n' >"$T/cross2.fa"
printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\tedits\n' >"$T/exp"
printf 'b\tGATTACA\tGATTACA\t+\t1\t%b\n' '5\tATTAC\t2' '6\tATTACA\t1' '7\tATTACAx\t2' >>"$T/exp"
printf 'c\tGATTACA\tGATTACA\t+\t1\t5\tTTACA\t2\n' >>"$T/exp"
"$CLM" --dna --stats --strand + -k 2 -e GATTACA "$T/cross2.fa" >"$T/act" 2>"$T/err"
same "-k 2: alignments start at the record start, no separator byte counted" \
    "$T/exp" "$T/act" "$T/err"
if grep -Eq ' [1-9][0-9]* clamped to the record start' "$T/err"; then
    pass "-k 2: --stats counts the alignments clamped to a record start"
else
    fail "-k 2: --stats counts the alignments clamped to a record start" "$(grep record "$T/err")"
fi
printf '>p\nGAATTC\n' >"$T/pal.fa"
printf 'p\tGAATTC\tGAATTC\t+\t1\t6\tGAATTC\np\tGAATTC\tGAATTC\t-\t1\t6\tGAATTC\n' >"$T/exp"
"$CLM" --dna -e GAATTC "$T/pal.fa" 2>"$T/err" | tail -n +2 >"$T/act"
same "palindrome: a + row and a - row (as seqkit)" "$T/exp" "$T/act" "$T/err"
printf '>s\nacgTTCc\n' >"$T/rc.fa"
printf 's\tGAACG\tGAACG\t-\t2\t6\tGAAcg\n' >"$T/exp"
"$CLM" --dna -i --degenerate -e GAACG "$T/rc.fa" 2>"$T/err" | tail -n +2 >"$T/act"
same "- strand matched: reverse complement of the text, case kept (--degenerate -i)" \
    "$T/exp" "$T/act" "$T/err"

python3 "$REF" --strand + -e GATTACA "$F" >"$T/exp" 2>/dev/null
"$CLM" --dna -P -e GATTACA "$F" >"$T/act" 2>"$T/err"
[ -n "$HAVE_PY" ] && same "-P (seqkit's --only-positive-strand) = --strand +" "$T/exp" "$T/act" "$T/err"

# ---- inputs that are not errors ---------------------------------------------------------------
: >"$T/empty.fa"
"$CLM" --dna -e ACGT "$T/empty.fa" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\nexit 1\n' >"$T/exp"
same "empty file: no record, header only, exit 1" "$T/exp" "$T/act" "$T/err"
printf '>h1\n>h2 desc\r\n\n>h3' >"$T/hdrs.fa"
"$CLM" --dna -c --fasta -e ACGT "$T/hdrs.fa" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
printf 'h1\t0\nh2\t0\nh3\t0\n# total\t0\nexit 1\n' >"$T/exp"
same "headers without sequence (last without newline): empty records, -c counts 0" \
    "$T/exp" "$T/act" "$T/err"
printf '\n\r\n>x\nAC\nGT' >"$T/lead.fa"
"$CLM" --dna --fasta --bed -e ACGT "$T/lead.fa" >"$T/act" 2>"$T/err"
printf 'x\t0\t4\tACGT\t0\t+\nx\t0\t4\tACGT\t0\t-\n' >"$T/exp"
same "blank lines before the first header; file ends mid-line" "$T/exp" "$T/act" "$T/err"

# ---- bad input ----------------------------------------------------------------------------------
printf '\n\nACGTACGT\n>x\nACGT\n' >"$T/notfasta.txt"
expect_error "--fasta on a file that is not FASTA names the line" 2 \
    "notfasta.txt: line 3: not FASTA.*'ACGTACGT'" "$CLM" --dna --fasta ACGT "$T/notfasta.txt"
printf '@r1\nACGT\n+\nIIII\n' >"$T/reads.fq"
expect_error "--fasta on FASTQ input (FASTQ: tests/cli_fastq.sh)" 2 "line 1: looks like FASTQ" \
    "$CLM" --dna --fasta ACGT "$T/reads.fq"
expect_error "pattern with a non-IUPAC letter" 2 \
    "'ACXT': 'X' at position 3 is not an IUPAC nucleotide code" "$CLM" --dna ACXT "$T/pal.fa"
expect_error "pattern with a class (no class syntax in DNA mode)" 2 \
    "'\\[' at position 1 is not an IUPAC" "$CLM" --dna -e '[AC]GT' "$T/pal.fa"
expect_error "empty pattern" 2 "empty pattern" "$CLM" --dna -e '' "$T/pal.fa"
expect_error "-k as large as the pattern" 2 "needs patterns longer than 3 bases" \
    "$CLM" --dna -k 3 ACG "$T/pal.fa"
expect_error "--mismatches-only without -k" 2 "mismatches-only needs -k" \
    "$CLM" --dna --mismatches-only ACGT "$T/pal.fa"
expect_error "bad --strand" 2 "invalid strand 'x'" "$CLM" --dna --strand x ACGT "$T/pal.fa"
expect_error "--bed with -c" 2 "exclude each other" "$CLM" --dna --bed -c ACGT "$T/pal.fa"
expect_error "-d is the device index (seqkit's -d is --degenerate)" 2 "degenerate" \
    "$CLM" --dna -d GANTC "$T/pal.fa"
expect_error "unknown option in DNA mode" 2 "unrecognized option '--frobnicate'" \
    "$CLM" --dna --frobnicate ACGT "$T/pal.fa"
expect_error "no pattern" 2 "no PATTERN" "$CLM" --dna
expect_error "missing file" 2 "nope.fa: No such file" "$CLM" --dna ACGT "$T/nope.fa"
expect_error "directory" 2 "Is a directory" "$CLM" --dna ACGT "$T"
printf '>ok\nACGT\n>empty\n>ok2\nGG\n' >"$T/badpats.fa"
expect_error "-f FASTA with an empty pattern record" 2 "badpats.fa line 3: pattern record 'empty' has no sequence" \
    "$CLM" --dna -f "$T/badpats.fa" "$T/pal.fa"
printf 'a\tACGT\nb\t\n' >"$T/badpats.tsv"
expect_error "-f TSV with an empty pattern" 2 "badpats.tsv line 2: empty pattern" \
    "$CLM" --dna -f "$T/badpats.tsv" "$T/pal.fa"
printf '\n\r\n\n' >"$T/nopats.txt"
printf 'ACGT\n' >"$T/onepat.txt"
# A file without patterns is an error wherever it comes: alone, after -e, after another -f.
expect_error "-f a file of blank lines" 2 "nopats.txt: no pattern in the file" \
    "$CLM" --dna -f "$T/nopats.txt" "$T/pal.fa"
expect_error "-f a file of blank lines after -e" 2 "nopats.txt: no pattern in the file" \
    "$CLM" --dna -e ACGT -f "$T/nopats.txt" "$T/pal.fa"
expect_error "-f a file of blank lines after another -f" 2 "nopats.txt: no pattern in the file" \
    "$CLM" --dna -f "$T/onepat.txt" -f "$T/nopats.txt" "$T/pal.fa"
printf 'a\tACGZ\n' >"$T/badpats2.tsv"
expect_error "-f pattern with a non-IUPAC letter names file and line" 2 \
    "badpats2.tsv line 1 'ACGZ': 'Z' at position 4" "$CLM" --dna -f "$T/badpats2.tsv" "$T/pal.fa"
# A pattern or record name is quoted whole, a NUL byte included (it used to end the quote):
# non-printable bytes as \xHH, a backslash as \\; a long pattern is not cut either.
printf 'a\tAC\000G\\T\033\n' >"$T/badpats3.tsv"
expect_error "-f pattern with a NUL byte: quoted whole, escaped" 2 \
    "=badpats3.tsv line 1 'AC\\x00G\\\\T\\x1b': 0x00 at position 3 is not an IUPAC" \
    "$CLM" --dna -f "$T/badpats3.tsv" "$T/pal.fa"
long=$(awk 'BEGIN { while (n++ < 100) printf "A" }')
printf 'a\t%s\000C\n' "$long" >"$T/badpats4.tsv"
expect_error "-f pattern of 102 bytes with a NUL byte: quoted whole" 2 \
    "=badpats4.tsv line 1 '$long\\x00C': 0x00 at position 101" \
    "$CLM" --dna -f "$T/badpats4.tsv" "$T/pal.fa"
printf '>a\000b c\n>ok\nACGT\n' >"$T/badpats5.fa"
expect_error "-f FASTA record name with a NUL byte and no sequence: quoted whole" 2 \
    "=badpats5.fa line 1: pattern record 'a\\x00b' has no sequence" \
    "$CLM" --dna -f "$T/badpats5.fa" "$T/pal.fa"
"$CLM" --dna -e ACGT "$T/nope.fa" "$T/lead.fa" >"$T/act" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q '^x	ACGT' "$T/act"; then
    pass "a missing file among others: the others are searched, exit 2"
else
    fail "a missing file among others: the others are searched, exit 2" "exit $rc"
fi
if [ -w /dev/full ]; then
    expect_error "write error" 2 'write error' sh -c 'exec "$0" --dna ACGT "$1" >/dev/full' \
        "$CLM" "$T/lead.fa"
fi

# ---- help, stats ----------------------------------------------------------------------------------
"$CLM" --help >"$T/act" 2>&1
if grep -q -- '--dna' "$T/act"; then pass "clmatch --help mentions --dna"; else
    fail "clmatch --help mentions --dna"; fi
"$CLM" --dna --help >"$T/act" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q -- '--degenerate-text' "$T/act" && grep -q -- '--strand' "$T/act" \
    && grep -q -- '--bed' "$T/act" && grep -q 'seqID' "$T/act"; then
    pass "clmatch --dna --help documents the DNA options and output"
else
    fail "clmatch --dna --help documents the DNA options and output" "exit $rc"
fi
"$CLM" --dna --line-breaks=host --stats -e GAATTC "$T/pal.fa" >/dev/null 2>"$T/err"
if grep -q 'algorithm ' "$T/err" && grep -Eq 'text (packed|unpacked)' "$T/err" \
    && grep -q '1 record(s)' "$T/err"; then
    pass "--stats: algorithm, packing, records"
else
    fail "--stats: algorithm, packing, records" "$(head -n 5 "$T/err")"
fi

# ---- the real genome against seqkit locate ---------------------------------------------------
G=$ROOT/data/umaydis.fa
if [ ! -s "$G" ]; then
    (cd "$ROOT" && sh tools/fetch-genome.sh >/dev/null 2>&1) || true
fi
# Bounded memory: the genome streamed twice (40 MB) and ten times (200 MB, 360 records)
# through a pipe peaks at about the same resident size (16 MiB read blocks: the buffers reach
# their size within the first 40 MB).
# Not under AddressSanitizer (tests/run.sh --asan sets ASAN_OPTIONS): its quarantine holds
# freed memory, so the peak grows with the input there.
if [ -s "$G" ] && [ -z "${ASAN_OPTIONS:-}" ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    peak() {
        i=0
        while [ $i -lt "$1" ]; do cat "$G"; i=$((i + 1)); done | \
            /usr/bin/time -f '%M' -o "$T/rss" "$CLM" --dna --block-size=16M -c GAATTC \
                >"$T/act" 2>"$T/err"
        tail -n 1 "$T/rss"
    }
    one=$(peak 2)
    ten=$(peak 10)
    if [ "$(tail -n 1 "$T/act")" = "# total	96040" ] && [ "$ten" -lt $((one * 9 / 8 + 8192)) ]; then
        pass "bounded memory: 40 MB and 200 MB of FASTA peak at ${one} and ${ten} KiB"
    else
        fail "bounded memory: 40 MB and 200 MB of FASTA peak at ${one} and ${ten} KiB" \
            "$(tail -n 1 "$T/act"); $(head -n 3 "$T/err")"
    fi
fi
if ! command -v seqkit >/dev/null 2>&1; then
    echo "# seqkit not installed: comparisons with seqkit locate skipped"
elif [ ! -s "$G" ]; then
    echo "# data/umaydis.fa unavailable (tools/fetch-genome.sh failed): seqkit checks skipped"
else
    # A 2.8 MB subset: the first 2000 lines (120 kbp) of each of the 36 records, N runs
    # included.
    S=$T/umaydis-sub.fa
    awk '/^>/ { n = 0; print; next } n++ < 2000' "$G" >"$S"
    # seqkit prints several patterns in a random order (a Go map): it is run once per
    # pattern and its rows regrouped by record (file order), then pattern (order given).
    grep '^>' "$S" | cut -c 2- | awk '{ print $1 }' >"$T/ids"
    # vs_seqkit NAME SEQKIT_OPTS CLMATCH_OPTS COLUMNS PATTERN... (options split at spaces)
    vs_seqkit() {
        name=$1 skopts=$2 clopts=$3 cols=$4
        shift 4
        j=0
        skip=1d # the TSV header (BED has none)
        [ "$cols" = 1-7 ] || skip=
        : >"$T/sk"
        for p in "$@"; do
            j=$((j + 1))
            # shellcheck disable=SC2086
            seqkit locate $skopts -p "$p" "$S" 2>/dev/null | sed "$skip" | \
                awk -v j=$j -F '\t' 'NR == FNR { rank[$1] = FNR; next } { print rank[$1] "\t" j "\t" $0 }' \
                    "$T/ids" - >>"$T/sk"
        done
        { [ "$cols" = 1-7 ] && printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n'
          sort -s -t '	' -k1,1n -k2,2n "$T/sk" | cut -f 3-; } >"$T/exp"
        pargs=""
        for p in "$@"; do pargs="$pargs -e $p"; done
        # shellcheck disable=SC2086
        "$CLM" --dna $clopts $pargs "$S" 2>"$T/err" | cut -f "$cols" >"$T/act"
        rows=$(($(wc -l <"$T/exp") - 1))
        same "seqkit locate $skopts: $name ($rows rows)" "$T/exp" "$T/act" "$T/err"
    }
    vs_seqkit "exact, palindrome (GAATTC) and not" "" "" 1-7 GAATTC GATTACA
    vs_seqkit "exact -i, both strands" "-i" "-i" 1-7 GGATCC gattaca CAGCTG
    vs_seqkit "degenerate -d" "-d" "" 1-7 GANTC RGATCY CCWGG
    vs_seqkit "degenerate -d -i" "-d -i" "--degenerate -i" 1-7 GANTC ccwgg
    vs_seqkit "degenerate -d, N runs in the pattern" "-d" "" 1-7 ACGNNNNNNCGT
    vs_seqkit "-m 1 vs --mismatches-only -k 1" "-m 1" "--mismatches-only -k 1" 1-7 GATTACA GAATTC
    vs_seqkit "-m 2 vs --mismatches-only -k 2" "-m 2" "--mismatches-only -k 2" 1-7 GATTACAGA
    vs_seqkit "-m 1 -i vs -m 1 -i" "-m 1 -i" "-m 1 -i" 1-7 gattacag
    vs_seqkit "--bed" "--bed" "--bed" 1-6 GAATTC GATTACA
    # The whole genome once (20 MB, 23 records).
    seqkit locate -i -p GGATCC "$G" >"$T/exp" 2>/dev/null
    "$CLM" --dna -i -e GGATCC "$G" >"$T/act" 2>"$T/err"
    same "seqkit locate -i: the whole genome ($(($(wc -l <"$T/exp") - 1)) rows)" \
        "$T/exp" "$T/act" "$T/err"
fi

cli_summary
