#!/usr/bin/env python3
"""Reference for clmatch-cas-offinder (tests/cli_crispr.sh): Cas-OFFinder 2.4.1's rows by brute
force, independently of the library.

    ref_casoff.py INPUT

Semantics (what 2.4.1's source does; docs/dna.md):
  - INPUT: line 1 the genome (a FASTA file or a directory: its files in name order, those not
    starting with '>' skipped), line 2 the template, then 'QUERY LIMIT [ID]' lines.
  - FASTA: a line starting with '>' names a record after the whole line (without '>' and a
    final CR); other non-empty lines are its sequence, upper-cased.
  - At each start of each record where L bases fit, on each strand (the - strand: reverse
    complements of template and query against the text): no template mismatch, and at most
    LIMIT query mismatches. A code A/C/G/T mismatches any other byte; another code the bases
    A/C/G/T outside its set; N nothing.
  - Row: query, record name, 0-based start, the site (reverse-complemented on -) with the
    query's mismatched bases in lower case, strand, count[, id]. Per file, per query in input
    order, by start, + first.
"""
import os
import sys

SETS = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG', 'W': 'AT',
        'K': 'GT', 'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG', 'N': 'ACGT'}
COMP = dict(zip('ACGTRYSWKMBDHVN', 'TGCAYRSWMKVHDBN'))


def mismatch(code, b):
    if code in 'ACGT':
        return b != code
    if code == 'N':
        return False
    return b in 'ACGT' and b not in SETS[code]


def revcomp(s):
    return ''.join(COMP.get(c, c) for c in reversed(s))


def read_fasta(path):
    recs = []
    for line in open(path, 'rb').read().decode('latin-1').split('\n'):
        if line.endswith('\r'):
            line = line[:-1]
        if not line:
            continue
        if line[0] == '>':
            recs.append([line[1:], []])
        else:
            recs[-1][1].append(line.upper())
    return [(n, ''.join(p)) for n, p in recs]


def main(path):
    lines = open(path).read().split('\n')
    genome, tmpl = lines[0].rstrip('\r'), lines[1].rstrip('\r').upper()
    queries = []
    for ln in lines[2:]:
        f = ln.split()
        if not f:
            break
        queries.append((f[0].upper(), int(f[1]), f[2] if len(f) > 2 else None))
    L = len(tmpl)
    if os.path.isdir(genome):
        files = sorted(os.path.join(genome, f) for f in os.listdir(genome))
        files = [f for f in files if os.path.isfile(f)]
    else:
        files = [genome]
    out = sys.stdout
    for fpath in files:
        if open(fpath, 'rb').read(1) != b'>':
            continue
        recs = read_fasta(fpath)
        for q, limit, qid in queries:
            rows = []
            for name, seq in recs:
                for s in range(len(seq) - L + 1):
                    g = seq[s:s + L]
                    for strand, t, qq in (('+', tmpl, q), ('-', revcomp(tmpl), revcomp(q))):
                        if any(mismatch(t[j], g[j]) for j in range(L)):
                            continue
                        mm = sum(mismatch(qq[j], g[j]) for j in range(L))
                        if mm > limit:
                            continue
                        site = g if strand == '+' else revcomp(g)
                        site = ''.join(c.lower() if mismatch(q[j], c) else c
                                       for j, c in enumerate(site))
                        rows.append((strand != '+', s, name, site, strand, mm))
            # by start within the file's concatenated text: records in order, then start
            order = {name: i for i, (name, _) in enumerate(recs)}
            rows.sort(key=lambda r: (order[r[2]], r[1], r[0]))
            for _, s, name, site, strand, mm in rows:
                cols = [q, name, str(s), site, strand, str(mm)] + ([qid] if qid else [])
                out.write('\t'.join(cols) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
