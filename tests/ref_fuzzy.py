#!/usr/bin/env python3
"""Reference matcher for the clmatch CLI tests: exact, class and approximate matches, computed
independently of the library (plain dynamic programming, no bit-parallelism).

    ref_fuzzy.py [-i] [--classes] [-k K] [--hamming] [--mode MODE] [--label L] FILE PATTERN...

Semantics (include/clmatch.h, clm_match):
  - k = 0: every start where the pattern occurs (overlapping ones included).
  - k > 0, Levenshtein (Sellers' DP): for each end e where some text ending at e is within k
    edits of the pattern, one match with the smallest edit count d; its start is, among the
    starts s with distance(pattern, text[s, e)) = d, the one whose length e - s is closest to
    the pattern length, the earlier start on a tie.
  - k > 0 with --hamming: every start where at most k symbols differ; length m.
  - --classes: the pattern uses the CLM_CLASSES syntax (., [..], [^..], ranges, \\d \\w \\s
    \\D \\W \\S, \\n \\t \\r, \\X); -i closes every symbol's byte set under ASCII case.
Matches are ordered by (start, pattern index, end).

MODE: positions   START (k = 0) or START<TAB>END<TAB>EDITS (k > 0), one per match
      count       the number of matches
      nonov       as positions, keeping only the leftmost non-overlapping matches
                  (greedy over the ordered matches by [start, end))
      only        START<TAB>END<TAB>EDITS<TAB>TEXT (newline as \\n, backslash as \\\\)
      lines       the lines in which some match starts (grep-style, final newline added)
      nlines      the same with a 1-based LINE: prefix
--label L prefixes every positions/nonov/only line with "L:".
"""
import sys

ALL = frozenset(range(256))
DIGIT = frozenset(range(ord('0'), ord('9') + 1))
WORD = frozenset(b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_')
SPACE = frozenset(b' \t\n\v\f\r')
SHORTHAND = {'d': DIGIT, 'w': WORD, 's': SPACE,
             'D': ALL - DIGIT, 'W': ALL - WORD, 'S': ALL - SPACE}
ESCAPED = {'n': 10, 't': 9, 'r': 13}


class SyntaxErr(Exception):
    pass


def parse_classes(p):
    """Pattern bytes -> list of frozensets of byte values."""
    syms, i, n = [], 0, len(p)
    while i < n:
        c = chr(p[i])
        if c == '.':
            syms.append(ALL)
            i += 1
        elif c == '\\':
            if i + 1 >= n:
                raise SyntaxErr('trailing backslash at %d' % i)
            e = chr(p[i + 1])
            if e in SHORTHAND:
                syms.append(SHORTHAND[e])
            elif e in ESCAPED:
                syms.append(frozenset([ESCAPED[e]]))
            else:
                syms.append(frozenset([p[i + 1]]))
            i += 2
        elif c == '[':
            j = i + 1
            neg = j < n and p[j] == ord('^')
            if neg:
                j += 1
            s = set()
            closed = False
            while j < n:
                if p[j] == ord(']'):
                    closed = True
                    j += 1
                    break
                if p[j] == ord('\\'):
                    if j + 1 >= n:
                        break
                    e = chr(p[j + 1])
                    if e in 'dws':
                        s |= SHORTHAND[e]
                        j += 2
                        continue
                    lo = p[j + 1]
                    j += 2
                else:
                    lo = p[j]
                    j += 1
                if j + 1 < n and p[j] == ord('-') and p[j + 1] != ord(']'):
                    hi = p[j + 1]
                    j += 2
                    if hi == ord('\\') and j < n:
                        hi = p[j]
                        j += 1
                    s |= set(range(lo, hi + 1))
                else:
                    s.add(lo)
            if not closed:
                raise SyntaxErr('unterminated [ at %d' % i)
            syms.append(frozenset(ALL - s if neg else s))
            i = j
        else:
            syms.append(frozenset([p[i]]))
            i += 1
    return syms


def fold_set(s):
    out = set(s)
    for b in s:
        if 65 <= b <= 90:
            out.add(b + 32)
        elif 97 <= b <= 122:
            out.add(b - 32)
    return frozenset(out)


def cost_table(syms):
    """cost[c][i] = 0 when byte c matches symbol i, else 1."""
    return [[0 if c in s else 1 for s in syms] for c in range(256)]


def exact(text, syms):
    m, n = len(syms), len(text)
    out = []
    for s in range(n - m + 1):
        if all(text[s + i] in syms[i] for i in range(m)):
            out.append((s, s + m, 0))
    return out


def hamming(text, syms, k):
    m, n = len(syms), len(text)
    cost = cost_table(syms)
    out = []
    for s in range(n - m + 1):
        d = 0
        for i in range(m):
            d += cost[text[s + i]][i]
            if d > k:
                break
        if d <= k:
            out.append((s, s + m, d))
    return out


def distances_ending_at(text, e, syms, cost, maxlen):
    """dist[L] = Levenshtein(pattern, text[e - L, e)) for L = 0..maxlen (backward DP)."""
    m = len(syms)
    # row over pattern suffixes: R[i] = distance(pattern[m-i:], text[e-L:e]) for current L
    prev = list(range(m + 1))  # L = 0: i deletions
    dist = [prev[m]]
    for L in range(1, maxlen + 1):
        c = text[e - L]
        cur = [L] + [0] * m
        for i in range(1, m + 1):
            sub = prev[i - 1] + cost[c][m - i]
            ins = prev[i] + 1       # text byte not in the pattern
            dele = cur[i - 1] + 1   # pattern symbol not in the text
            cur[i] = min(sub, ins, dele)
        dist.append(cur[m])
        prev = cur
    return dist


def sellers(text, syms, k):
    m, n = len(syms), len(text)
    cost = cost_table(syms)
    col = list(range(m + 1))
    out = []
    for j in range(n):
        c = cost[text[j]]
        diag = col[0]  # old col[i-1]
        # col[0] stays 0: a match may start anywhere
        for i in range(1, m + 1):
            old = col[i]
            v = diag + c[i - 1]
            if old + 1 < v:
                v = old + 1
            if col[i - 1] + 1 < v:
                v = col[i - 1] + 1
            col[i] = v
            diag = old
        d = col[m]
        if d <= k:
            e = j + 1
            dist = distances_ending_at(text, e, syms, cost, min(e, m + k))
            best = None
            for L in range(len(dist)):
                if dist[L] == d:
                    key = (abs(L - m), -L)
                    if best is None or key < best[0]:
                        best = (key, L)
            assert best is not None, 'no start reaches the column minimum'
            out.append((e - best[1], e, d))
    return out


def main(argv):
    ci, classes, k, ham, mode, label = False, False, 0, False, 'positions', None
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '-i':
            ci = True
        elif a == '--classes':
            classes = True
        elif a == '-k':
            i += 1
            k = int(argv[i])
        elif a == '--hamming':
            ham = True
        elif a == '--mode':
            i += 1
            mode = argv[i]
        elif a == '--label':
            i += 1
            label = argv[i]
        else:
            args.append(a)
        i += 1
    path, pats = args[0], args[1:]
    with open(path, 'rb') as f:
        text = f.read()
    matches = []
    for pid, p in enumerate(pats):
        pb = p.encode('latin-1')
        syms = parse_classes(pb) if classes else [frozenset([b]) for b in pb]
        if ci:
            syms = [fold_set(s) for s in syms]
        if k == 0:
            found = exact(text, syms)
        elif ham:
            found = hamming(text, syms, k)
        else:
            found = sellers(text, syms, k)
        matches += [(s, pid, e, d) for (s, e, d) in found]
    matches.sort()
    if mode == 'nonov':
        taken, end = [], 0
        for mt in matches:
            if mt[0] >= end:
                taken.append(mt)
                end = mt[2]
        matches = taken
    w = sys.stdout.buffer
    pre = (label + ':').encode() if label is not None else b''
    if mode == 'count':
        w.write(b'%d\n' % len(matches))
    elif mode in ('positions', 'nonov'):
        for s, _, e, d in matches:
            w.write(pre + (b'%d\n' % s if k == 0 else b'%d\t%d\t%d\n' % (s, e, d)))
    elif mode == 'only':
        for s, _, e, d in matches:
            t = text[s:e].replace(b'\\', b'\\\\').replace(b'\n', b'\\n')
            w.write(pre + b'%d\t%d\t%d\t' % (s, e, d) + t + b'\n')
    elif mode in ('lines', 'nlines'):
        starts = sorted(set(mt[0] for mt in matches))
        last_ls, nl_pos, nl_count = -1, 0, 0
        for s in starts:
            ls = text.rfind(b'\n', 0, s) + 1
            if ls == last_ls:
                continue
            last_ls = ls
            le = text.find(b'\n', s)
            line = text[ls:] if le < 0 else text[ls:le]
            if mode == 'nlines':
                nl_count += text.count(b'\n', nl_pos, ls)
                nl_pos = ls
                w.write(b'%d:' % (nl_count + 1))
            w.write(line + b'\n')
    else:
        sys.exit('ref_fuzzy.py: unknown mode ' + mode)


if __name__ == '__main__':
    main(sys.argv[1:])
