#!/bin/sh
# Tests of FASTQ and gzip input in the DNA mode of the CLI (clmatch --dna): generated reads
# (thousands of short reads, empty reads, CRLF, quality lines starting with '@' or '+', IUPAC
# codes and lower case in the text) against tests/ref_dna.py (python3) and against the same
# records written as FASTA; reads straddling read blocks and library slabs; gzip (one member,
# several, standard input) equal to the plain file; `seqkit locate` when installed; every bad
# input (malformed records, corrupt and truncated gzip) an error naming the file and the line
# or offset, status 2.
#
# Usage: sh tests/cli_fastq.sh [BUILD_DIR]   (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed" and
# the exit status is non-zero when M > 0.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" fastq
dna_ref_init

# ---- small cases written out (no python needed) ---------------------------------------------
printf '@r1 first read\nACGTGAATTCAA\n+\nIIIIIIIIIIII\n@r2\n\n+\n\n@r3\tx\ngattacaGAATTC\n+r3\n@@@@@@@@@@@@@\n' \
    >"$T/small.fq"
{
    printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n'
    printf 'r1\tGAATTC\tGAATTC\t+\t5\t10\tGAATTC\nr1\tGAATTC\tGAATTC\t-\t5\t10\tGAATTC\n'
    printf 'r3\tGAATTC\tGAATTC\t+\t8\t13\tGAATTC\nr3\tGAATTC\tGAATTC\t-\t8\t13\tGAATTC\n'
} >"$T/exp"
"$CLM" --dna -e GAATTC -e GATTACA "$T/small.fq" >"$T/act" 2>"$T/err"
same "FASTQ: reads are records, id = first word, qualities starting with '@'" \
    "$T/exp" "$T/act" "$T/err"
printf 'r1\t2\nr2\t0\nr3\t2\n# total\t4\n' >"$T/exp"
"$CLM" --dna -c -e GAATTC "$T/small.fq" >"$T/act" 2>"$T/err"
same "FASTQ -c: every read, the empty one too" "$T/exp" "$T/act" "$T/err"
printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n' >"$T/exp"
printf 'r3\tGATTACA\tgattaca\t+\t1\t7\tgattaca\n' >>"$T/exp"
"$CLM" --dna -i -e GATTACA "$T/small.fq" >"$T/act" 2>"$T/err"
same "FASTQ -i: lower-case bases" "$T/exp" "$T/act" "$T/err"
# '+' and '@' as the first quality values, CRLF, blank lines between records, no final newline.
printf '\n@a x\r\nGAATTCC\r\n+a x\r\n+@IIIII\r\n\r\n\n@b\nTTGAATTC\n+\n@IIIIIII' >"$T/crlf.fq"
printf 'a\t0\t6\tGAATTC\t0\t+\na\t0\t6\tGAATTC\t0\t-\nb\t2\t8\tGAATTC\t0\t+\nb\t2\t8\tGAATTC\t0\t-\n' \
    >"$T/exp"
"$CLM" --dna --bed -e GAATTC "$T/crlf.fq" >"$T/act" 2>"$T/err"
same "FASTQ: CRLF, blank lines, qualities starting with '+' or '@', no final newline" \
    "$T/exp" "$T/act" "$T/err"
"$CLM" --dna --fastq --bed -e GAATTC "$T/crlf.fq" >"$T/act" 2>"$T/err"
same "--fastq on FASTQ" "$T/exp" "$T/act" "$T/err"

# ---- generated reads against the reference ----------------------------------------------------
if [ -n "$HAVE_PY" ]; then
    python3 - "$T" <<'EOF'
import random, sys
T = sys.argv[1]
rnd = random.Random(20261124)
adapters = ['AGATCGGAAGAGC', 'GATTACA', 'CTGTCTCTTATA', 'GAATTC']
def read(n):
    s = [rnd.choice('ACGT') for _ in range(n)]
    for _ in range(rnd.randrange(0, 3)):
        a = rnd.choice(adapters)
        if n >= len(a):
            i = rnd.randrange(0, n - len(a) + 1)
            s[i:i + len(a)] = a
            if rnd.random() < 0.3 and n:          # a mismatch in the planted copy
                j = i + rnd.randrange(0, len(a))
                if j < n:
                    s[j] = rnd.choice('ACGT')
    if n and rnd.random() < 0.1:
        s[rnd.randrange(0, n)] = rnd.choice('NRYKMn')
    if n > 20 and rnd.random() < 0.1:             # a lower-case run
        i = rnd.randrange(0, n - 10)
        s[i:i + 10] = [c.lower() for c in s[i:i + 10]]
    return ''.join(s)
recs = []
for j in range(3000):
    n = rnd.choice([0, 1, 5, 13, 36, 50, 75, 100, 150, 151, 250])
    recs.append(('read%d/%d desc %d' % (j, 1 + j % 2, j), read(n)))
def qual(n):
    return ''.join(rnd.choice('@+!#5?IJF') for _ in range(n))
def fastq(path, eol='\n', plus_id=False):
    with open(path, 'w', newline='') as f:
        for h, s in recs:
            f.write('@%s%s%s%s+%s%s%s%s' % (h, eol, s, eol, h if plus_id else '', eol, qual(len(s)), eol))
fastq(T + '/reads.fq')
fastq(T + '/reads_crlf.fq', eol='\r\n', plus_id=True)
with open(T + '/reads.fa', 'w') as f:
    for h, s in recs:
        f.write('>%s\n%s\n' % (h, '\n'.join(s[i:i + 60] for i in range(0, len(s), 60))))
EOF
    F=$T/reads.fq
    VARIANTS="$T/reads.fq $T/reads_crlf.fq"
    vs_ref "FASTQ exact, both strands" "$VARIANTS" -e AGATCGGAAGAGC -e GAATTC -e GATTACA
    vs_ref "FASTQ IUPAC patterns" "$VARIANTS" -e GANTC -e RGATCY -e AGATCGGAAGNNC
    vs_ref "FASTQ -i" "$F" -i -e gattaca -e CTGTCTCTTATA
    vs_ref "FASTQ -m 1" "$VARIANTS" -m 1 -e GATTACA -e AGATCGGAAGAGC
    vs_ref "FASTQ -m 2" "$F" -m 2 -e AGATCGGAAGAGC
    vs_ref "FASTQ -k 1 (edits; reads' edges)" "$F" -k 1 -e GATTACA -e CTGTCTCTTATA
    vs_ref "FASTQ --strand -" "$F" --strand - -e GATTACA -e RGATCY
    vs_ref "FASTQ --strand +" "$F" --strand + -e GATTACA
    vs_ref "FASTQ --bed" "$F" --bed -e GAATTC -m 1
    vs_ref "FASTQ -c (every read, empty ones too)" "$F" -c -e GATTACA -e GAATTC
    vs_ref "FASTQ --degenerate-text" "$F" --degenerate-text -e GATTACA

    # The same records as FASTA give the same rows.
    "$CLM" --dna -m 2 -e AGATCGGAAGAGC -e GATTACA "$T/reads.fa" >"$T/exp" 2>"$T/err"
    "$CLM" --dna -m 2 -e AGATCGGAAGAGC -e GATTACA "$F" >"$T/act" 2>>"$T/err"
    same "FASTQ = the same reads as FASTA (-m 2)" "$T/exp" "$T/act" "$T/err"

    # Reads straddling the read blocks and the library's slabs: the same rows.
    python3 "$REF" -m 1 -e GATTACA -e AGATCGGAAGAGC "$F" >"$T/exp"
    for bs in 1 7 61 4099; do
        "$CLM" --dna --block-size=$bs -m 1 -e GATTACA -e AGATCGGAAGAGC "$F" >"$T/act" 2>"$T/err"
        same "FASTQ in $bs-byte read blocks" "$T/exp" "$T/act" "$T/err"
    done
    CLMATCH_SLAB_BYTES=4096 "$CLM" --dna -m 1 -e GATTACA -e AGATCGGAAGAGC "$F" >"$T/act" 2>"$T/err"
    same "FASTQ in 4 KiB library slabs" "$T/exp" "$T/act" "$T/err"
    cat "$F" | "$CLM" --dna --block-size=61 -m 1 -e GATTACA -e AGATCGGAAGAGC >"$T/act" 2>"$T/err"
    same "FASTQ from a pipe" "$T/exp" "$T/act" "$T/err"
    # One compiled database and one stream for all the reads: slabs, not a launch per read.
    "$CLM" --dna --stats -e GATTACA "$F" >/dev/null 2>"$T/err"
    slabs=$(sed -n 's/.*bytes in \([0-9]*\) slab(s).*/\1/p' "$T/err")
    if grep -q '3000 record(s)' "$T/err" && [ -n "$slabs" ] && [ "$slabs" -lt 30 ]; then
        pass "3000 reads searched in $slabs slab(s)"
    else
        fail "3000 reads searched in a few slabs" "$(grep -E 'record|slab' "$T/err")"
    fi

    # ---- gzip -----------------------------------------------------------------------------------
    for f in "$T/reads.fq" "$T/reads.fa"; do
        gzip -c "$f" >"$f.gz"
        cp "$f.gz" "$T/noext"
        # The plain file's rows, and its exit status 0 (rows found, no error).
        "$CLM" --dna -m 1 -e GATTACA -e GANTC "$f" >"$T/exp" 2>"$T/err"
        echo "exit $?" >>"$T/exp"
        if ! grep -q '^exit 0$' "$T/exp"; then
            fail "gzip $(basename "$f"): the plain file's search" "$(tail -n 1 "$T/exp"); $(head -n 3 "$T/err")"
        fi
        "$CLM" --dna -m 1 -e GATTACA -e GANTC "$f.gz" >"$T/act" 2>"$T/err"
        echo "exit $?" >>"$T/act"
        same "gzip $(basename "$f") = the plain file" "$T/exp" "$T/act" "$T/err"
        "$CLM" --dna -m 1 -e GATTACA -e GANTC "$T/noext" >"$T/act" 2>"$T/err"
        echo "exit $?" >>"$T/act"
        same "gzip $(basename "$f") without .gz in its name" "$T/exp" "$T/act" "$T/err"
        "$CLM" --dna --block-size=5 -m 1 -e GATTACA -e GANTC <"$f.gz" >"$T/act" 2>"$T/err"
        echo "exit $?" >>"$T/act"
        same "gzip $(basename "$f") on standard input, 5-byte blocks" "$T/exp" "$T/act" "$T/err"
    done
    # Several members (as bgzip writes, or cat a.gz b.gz), cut mid-record.
    head -c 100000 "$F" >"$T/part1"
    tail -c +100001 "$F" >"$T/part2"
    { gzip -c "$T/part1"; gzip -c "$T/part2"; gzip -c </dev/null; } >"$T/multi.fq.gz"
    python3 "$REF" -c -e GATTACA -e GAATTC "$F" >"$T/exp"
    "$CLM" --dna -c -e GATTACA -e GAATTC "$T/multi.fq.gz" >"$T/act" 2>"$T/err"
    same "gzip of three members (one empty), cut mid-record" "$T/exp" "$T/act" "$T/err"
    if command -v bgzip >/dev/null 2>&1; then
        bgzip -c "$F" >"$T/reads.bgz"
        "$CLM" --dna -c -e GATTACA -e GAATTC "$T/reads.bgz" >"$T/act" 2>"$T/err"
        same "bgzip output = the plain file" "$T/exp" "$T/act" "$T/err"
    fi
    vs_ref "ref_dna.py on gzip (FASTQ)" "$T/reads.fq.gz" -e GATTACA

    # ---- seqkit locate ------------------------------------------------------------------------
    if ! command -v seqkit >/dev/null 2>&1; then
        echo "# seqkit not installed: comparisons with seqkit locate skipped"
    else
        # One pattern a run: seqkit prints several in a random order (a Go map).
        for args in "-p GATTACA" "-p AGATCGGAAGAGC -m 2" "-i -p gaattc" "-d -p GANTC" \
            "-p CTGTCTCTTATA -m 1 -P"; do
            # shellcheck disable=SC2086
            seqkit locate $args "$T/reads.fq.gz" >"$T/exp" 2>/dev/null
            # shellcheck disable=SC2086
            set -- $args
            cargs=
            while [ $# -gt 0 ]; do
                case $1 in
                -p) cargs="$cargs -e $2"; shift ;;
                -m) cargs="$cargs -m $2"; shift ;;
                -d) ;;
                *) cargs="$cargs $1" ;;
                esac
                shift
            done
            # shellcheck disable=SC2086
            "$CLM" --dna $cargs "$T/reads.fq.gz" 2>"$T/err" | cut -f 1-7 >"$T/act"
            same "seqkit locate $args on gzip FASTQ ($(($(wc -l <"$T/exp") - 1)) rows)" \
                "$T/exp" "$T/act" "$T/err"
        done
    fi
fi

# ---- bad input ----------------------------------------------------------------------------------
printf '@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n' >"$T/badqual.fq"
expect_error "quality length != sequence length: file, line, read" 2 \
    "badqual.fq: line 8: read 'r2' \\(line 5\\) has 3 quality values for 4 bases" \
    "$CLM" --dna ACGT "$T/badqual.fq"
# Bad input loses nothing before it: the reads before the malformed one are searched and
# printed, whatever the read blocks (the rows used to depend on where a block ended).
printf '@r1\nGAATTC\n+\nIIIIII\n@r2\nAGAATTCA\n+\nIIIIIIII\n@r3\nGAATTCAGAATTC\n+\nII\n' \
    >"$T/bad3.fq"
{
    printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n'
    printf 'r1\tGAATTC\tGAATTC\t%s\t1\t6\tGAATTC\n' + -
    printf 'r2\tGAATTC\tGAATTC\t%s\t2\t7\tGAATTC\n' + -
    echo "exit 2"
} >"$T/exp"
for bs in 1 13 16M; do
    "$CLM" --dna --block-size=$bs -e GAATTC "$T/bad3.fq" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "malformed read 3: reads 1 and 2 printed, exit 2 ($bs-byte blocks)" "$T/exp" "$T/act" \
        "$T/err"
done
# Two reads in a whole member, then a member cut 5 bytes into its deflate data.
head -n 8 "$T/bad3.fq" | gzip -c >"$T/cut3.fq.gz"
printf '@r3\nGAATTCAGAATTC\n+\nIIIIIIIIIIIII\n' | gzip -c | head -c 15 >>"$T/cut3.fq.gz"
"$CLM" --dna -c -e GAATTC "$T/cut3.fq.gz" "$T/small.fq" >"$T/act" 2>"$T/err"
echo "exit $?" >>"$T/act"
printf 'r1\t2\nr2\t2\nr1\t2\nr2\t0\nr3\t2\n# total\t8\nexit 2\n' >"$T/exp"
same "truncated gzip: its complete reads counted, the next file searched, exit 2" \
    "$T/exp" "$T/act" "$T/err"
printf '@r1\nACGT\nIIII\n@r2\n' >"$T/noplus.fq"
expect_error "missing '+' line" 2 "noplus.fq: line 3: read 'r1' \\(line 1\\): expected its '\\+' line, got 'IIII'" \
    "$CLM" --dna ACGT "$T/noplus.fq"
# The line quoted whole, wherever the read blocks end (it used to be what the block held).
for bs in 1 3; do
    expect_error "missing '+' line, $bs-byte blocks: the whole line quoted" 2 \
        "=noplus.fq: line 3: read 'r1' (line 1): expected its '+' line, got 'IIII'" \
        "$CLM" --dna --block-size=$bs ACGT "$T/noplus.fq"
done
printf '@r1\nACGT\n+\nIIII\n%050d\n' 0 >"$T/longbad.fq"
expect_error "a long line quoted: its first 40 bytes, 7-byte blocks" 2 \
    "=longbad.fq: line 5: not FASTQ: expected a read header starting with '@', got '$(printf '%040d' 0)...'" \
    "$CLM" --dna --block-size=7 ACGT "$T/longbad.fq"
printf '@r1\nACGT\n+\nIIII\n@r2 x\nACGT\n+\n' >"$T/trunc.fq"
expect_error "truncated file: no quality line" 2 \
    "trunc.fq: line 8: truncated record: read 'r2' \\(line 5\\) has no quality line" \
    "$CLM" --dna ACGT "$T/trunc.fq"
printf '@r1\nACGT\n+\nIIII\n@r2\nAC' >"$T/trunc2.fq"
expect_error "truncated file: cut in the sequence line" 2 \
    "trunc2.fq: line 6: truncated record: read 'r2' \\(line 5\\) has no '\\+' line" \
    "$CLM" --dna ACGT "$T/trunc2.fq"
printf '@r1\nACGT\n+\nIIII\n@r2\n' >"$T/trunc3.fq"
expect_error "truncated file: header only" 2 "trunc3.fq: line 6: truncated record: read 'r2'.* no sequence line" \
    "$CLM" --dna ACGT "$T/trunc3.fq"
printf '@r1\nACGT\n+\nIIII\nACGT\n' >"$T/nohdr.fq"
expect_error "a record not starting with '@'" 2 "nohdr.fq: line 5: not FASTQ: expected a read header" \
    "$CLM" --dna ACGT "$T/nohdr.fq"
printf '>r1\nACGT\n' >"$T/x.fa"
expect_error "--fastq on FASTA names the line" 2 "x.fa: line 1: not FASTQ.*'>r1'" \
    "$CLM" --dna --fastq ACGT "$T/x.fa"
expect_error "--fasta on FASTQ names the line" 2 "small.fq: line 1: looks like FASTQ \\('@r1 first read'\\), not FASTA" \
    "$CLM" --dna --fasta ACGT "$T/small.fq"
printf '@r1\nACGT\n+\nIII\n' | gzip -c >"$T/badqual.fq.gz"
expect_error "malformed FASTQ inside gzip: the line" 2 "badqual.fq.gz: line 4: read 'r1'" \
    "$CLM" --dna ACGT "$T/badqual.fq.gz"
# Truncated and corrupt gzip: an error naming the compressed offset.
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "@r%d\nGATTACAGATTACA\n+\nIIIIIIIIIIIIII\n", i }' \
    | gzip -c >"$T/big.fq.gz"
size=$(wc -c <"$T/big.fq.gz")
head -c $((size - 10)) "$T/big.fq.gz" >"$T/cut.fq.gz"
expect_error "truncated gzip" 2 "cut.fq.gz: truncated gzip data.*after $((size - 10)) compressed bytes" \
    "$CLM" --dna -c GATTACA "$T/cut.fq.gz"
head -c 2 "$T/big.fq.gz" >"$T/magic.gz"
expect_error "gzip magic only" 2 "magic.gz: truncated gzip data" "$CLM" --dna GATTACA "$T/magic.gz"
# Flip the bytes of the deflate data (after the 10-byte header).
{ head -c 200 "$T/big.fq.gz"; head -c 64 /dev/zero | tr '\000' '\377'; tail -c +265 "$T/big.fq.gz"; } \
    >"$T/corrupt.fq.gz"
expect_error "corrupt gzip data: the offset" 2 "corrupt.fq.gz: corrupt gzip data in the member at compressed byte 0 \\(near byte [0-9]+\\)" \
    "$CLM" --dna -c GATTACA "$T/corrupt.fq.gz"
{ cat "$T/big.fq.gz"; printf 'trailing garbage'; } >"$T/trail.fq.gz"
expect_error "data after the last gzip member" 2 "trail.fq.gz: corrupt gzip data in the member at compressed byte $size " \
    "$CLM" --dna -c GATTACA "$T/trail.fq.gz"
{ head -c 3 "$T/big.fq.gz"; head -c 40 /dev/zero; } | cat >"$T/badhdr.gz"
expect_error "corrupt gzip header, on standard input" 2 "standard input.*corrupt gzip data" \
    sh -c 'exec "$0" --dna GATTACA <"$1"' "$CLM" "$T/badhdr.gz"

cli_summary
