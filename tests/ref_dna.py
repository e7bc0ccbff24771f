#!/usr/bin/env python3
"""Reference for `clmatch --dna` (tests/cli_dna.sh): reads FASTA and locates IUPAC patterns on
both strands with plain loops and dynamic programming (tests/ref_fuzzy.py), independently of
the library and of the CLI's streaming, and prints what the CLI should print.

    ref_dna.py [--fasta] [-i] [--degenerate] [--degenerate-text] [-k K] [--mismatches-only]
               [--strand both|+|-] [--bed | -c] [--pam PAM | --pam5 PAM]
               (-e PATTERN | -f FILE)... FILE...

Semantics (README.md "DNA mode"; include/clmatch.h at CLM_DNA and clm_match):
  - Input: empty lines before the first line are skipped; '>' first: FASTA (header lines
    start with '>', every other line is sequence without its CR bytes); '@' first: FASTQ
    (records of four lines: @header, sequence, +, qualities; blank lines between records
    skipped; the qualities are not checked here; --fasta: error); anything else: one raw
    sequence named after the file (--fasta: error). seqID: the header up to the first space
    or tab. gzip input (magic bytes 1f 8b) is decompressed first.
  - A pattern code is its set of bases in its own case (N = ACGT, r = ag, U = T); -i: both
    cases. A text byte matches when it is in the set; --degenerate-text: also a text IUPAC
    code whose bases (in its case) meet the set.
  - Each record is searched on its own (nothing crosses records). The - strand is the reverse
    complement of the pattern searched on the text; its matched column is the reverse
    complement of the text.
  - k = 0: every start; --mismatches-only: every start with at most k substitutions; else
    for each end position the best alignment (fewest edits, then length closest to the
    pattern's, then the earlier start), as ref_fuzzy.sellers.
  - --pam / --pam5: every pattern becomes guide+PAM / PAM+guide (-k K still has to be smaller
    than the guide); a match is kept only when every PAM byte is in its code's set, so with
    -m K the edits are the guide's mismatches. With -k K (edits) it is an error.
  - Rows per record in file order, per pattern in the order given (duplicates of the same
    name and pattern dropped), + rows by (start, end), then - rows by (end, start) descending.
Exit status 0 when something matched, 1 when nothing did, 2 on bad input.
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ref_fuzzy import exact, hamming, sellers  # noqa: E402

IUPAC = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'U': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG',
         'W': 'AT', 'K': 'GT', 'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG',
         'N': 'ACGT'}
COMP = dict(zip('ACGTURYSWKMBDHVN', 'TGCAAYRSWMKVHDBN'))
TEXT_CODES = 'ACGTRYSWKMBDHVN'  # IUPAC codes as text bytes (--degenerate-text)


class BadInput(Exception):
    pass


def bases(code):
    """Set of byte values of the bases a code stands for, in its own case."""
    up = code.upper()
    s = IUPAC[up]
    return frozenset(ord(b if code == up else b.lower()) for b in s)


def complement(c):
    up = chr(c).upper()
    if up in COMP:
        r = COMP[up]
        return ord(r if chr(c) == up else r.lower())
    return c


def revcomp(b):
    return bytes(complement(c) for c in reversed(b))


def symbols(pat, caseless, degenerate_text):
    syms = []
    for ch in pat.decode('latin-1'):
        s = set(bases(ch))
        if caseless:
            s |= set(ord(chr(b).lower()) for b in s) | set(ord(chr(b).upper()) for b in s)
        if degenerate_text:
            for t in TEXT_CODES + TEXT_CODES.lower():
                if bases(t) & s:
                    s.add(ord(t))
        syms.append(frozenset(s))
    return syms


def seq_id(h):
    cut = len(h)
    for sep in (b' ', b'\t'):
        j = h.find(sep)
        if 0 <= j < cut:
            cut = j
    return h[:cut]


def read_fastq(lines):
    recs = []
    i = 0
    while i < len(lines):
        if lines[i].replace(b'\r', b'') == b'':
            i += 1
            continue
        recs.append((seq_id(lines[i][1:].rstrip(b'\r')), lines[i + 1].replace(b'\r', b'')))
        i += 4
    return recs


def read_fasta(path, force):
    data = sys.stdin.buffer.read() if path == '-' else open(path, 'rb').read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    name = 'stdin' if path == '-' else path
    lines = data.split(b'\n')
    i = 0
    while i < len(lines) and lines[i].replace(b'\r', b'') == b'':
        i += 1
    if i == len(lines):
        return []
    first = lines[i].lstrip(b'\r')
    if first[:1] == b'@':
        if force:
            raise BadInput('%s: line %d: looks like FASTQ' % (path, i + 1))
        return read_fastq(lines[i:])
    if first[:1] != b'>':
        if force:
            raise BadInput('%s: line %d: not FASTA' % (path, i + 1))
        return [(name.encode(), data.replace(b'\r', b'').replace(b'\n', b''))]
    recs = []
    for line in lines[i:]:
        if line[:1] == b'>':
            recs.append([seq_id(line[1:].rstrip(b'\r')), []])
        else:
            recs[-1][1].append(line.replace(b'\r', b''))
    return [(rid, b''.join(parts)) for rid, parts in recs]


def load_patterns(opts):
    pats = []
    for kind, v in opts['pats']:
        if kind == 'e':
            pats.append((v.encode(), v.encode()))
            continue
        data = open(v, 'rb').read()
        if data.lstrip(b'\r\n')[:1] == b'>':
            for rid, seq in read_fasta(v, True):
                pats.append((rid, seq))
        else:
            for line in data.split(b'\n'):
                line = line.rstrip(b'\r')
                if not line:
                    continue
                if b'\t' in line:
                    n, p = line.split(b'\t', 1)
                    pats.append((n, p))
                else:
                    pats.append((line, line))
    out = []
    for p in pats:
        if p not in out:
            out.append(p)
    for _, p in out:
        if not p or any(chr(c).upper() not in IUPAC for c in p):
            raise BadInput('bad pattern %r' % p)
        if opts['k'] >= len(p):
            raise BadInput('-k too large for %r' % p)
    return out


def search(seq, syms, k, mism):
    if k == 0:
        return exact(seq, syms)
    if mism:
        return hamming(seq, syms, k)
    return sellers(seq, syms, k)


def main(argv):
    opts = {'fasta': False, 'i': False, 'degenerate': False, 'dtext': False, 'k': 0,
            'mism': False, 'strand': 'both', 'bed': False, 'count': False, 'pats': [],
            'pam': None, 'pam5': False}
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--fasta':
            opts['fasta'] = True
        elif a == '-i':
            opts['i'] = True
        elif a == '--degenerate':
            opts['degenerate'] = True
        elif a == '--degenerate-text':
            opts['dtext'] = True
        elif a == '-k':
            i += 1
            opts['k'] = int(argv[i])
        elif a == '-m':
            i += 1
            opts['k'] = int(argv[i])
            opts['mism'] = True
        elif a == '--mismatches-only':
            opts['mism'] = True
        elif a == '--strand':
            i += 1
            opts['strand'] = argv[i]
        elif a == '--bed':
            opts['bed'] = True
        elif a == '-c':
            opts['count'] = True
        elif a in ('--pam', '--pam5'):
            i += 1
            opts['pam'], opts['pam5'] = argv[i].encode(), a == '--pam5'
        elif a in ('-e', '-f'):
            i += 1
            opts['pats'].append((a[1], argv[i]))
        else:
            files.append(a)
        i += 1
    try:
        pats = load_patterns(opts)
        k, lc = opts['k'], opts['i'] and not opts['degenerate']
        pam = opts['pam']
        if pam is not None:
            if not pam or any(chr(c).upper() not in IUPAC for c in pam):
                raise BadInput('bad PAM %r' % pam)
            if k > 0 and not opts['mism']:
                raise BadInput('--pam needs -m')
            pats = [(n, pam + p if opts['pam5'] else p + pam) for n, p in pats]
        engines = []  # (pattern index, strand, symbols, PAM range in the symbols)
        for pi, (_, p) in enumerate(pats):
            n = len(p)
            pr = (0, 0)
            if pam is not None:
                pr = (0, len(pam)) if opts['pam5'] else (n - len(pam), n)
            if opts['strand'] in ('both', '+'):
                engines.append((pi, 1, symbols(p, opts['i'], opts['dtext']), pr))
            if opts['strand'] in ('both', '-'):
                engines.append((pi, -1, symbols(revcomp(p), opts['i'], opts['dtext']),
                                (n - pr[1], n - pr[0])))
        w = sys.stdout.buffer
        if not opts['bed'] and not opts['count']:
            w.write(b'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched' +
                    (b'\tedits\n' if k > 0 else b'\n'))
        total = 0
        for path in files or ['-']:
            for rid, seq in read_fasta(path, opts['fasta']):
                rows = []
                for pi, strand, syms, pr in engines:
                    for s, e, d in search(seq, syms, k, opts['mism']):
                        if any(seq[s + j] not in syms[j] for j in range(*pr)):
                            continue
                        key = (s, e) if strand > 0 else (-e, -s)
                        rows.append((pi, -strand, key, s, e, d, strand))
                rows.sort()
                total += len(rows)
                if opts['count']:
                    w.write(rid + b'\t%d\n' % len(rows))
                    continue
                for pi, _, _, s, e, d, strand in rows:
                    name, p = pats[pi]
                    sc = b'+' if strand > 0 else b'-'
                    if opts['bed']:
                        w.write(b'%s\t%d\t%d\t%s\t0\t%s\n' % (rid, s, e, name, sc))
                        continue
                    t = seq[s:e] if strand > 0 else revcomp(seq[s:e])
                    shown = p.lower() if lc else p
                    if lc:
                        t = t.lower()
                    w.write(b'\t'.join([rid, name, shown, sc, b'%d' % (s + 1), b'%d' % e, t]))
                    w.write(b'\t%d\n' % d if k > 0 else b'\n')
        if opts['count']:
            w.write(b'# total\t%d\n' % total)
        return 0 if total > 0 else 1
    except BadInput as ex:
        sys.stderr.write('ref_dna.py: %s\n' % ex)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
