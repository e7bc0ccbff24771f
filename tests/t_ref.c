/* CPU references for classes, approximate and Hamming matching (see t_ref.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ref.h"

/* ---- byte sets ------------------------------------------------------------------------------ */

static void cs_add(t_cset *s, unsigned c) { s->b[c >> 3] |= (uint8_t)(1u << (c & 7)); }

static void cs_range(t_cset *s, unsigned lo, unsigned hi)
{
    unsigned c;
    for (c = lo; c <= hi; c++) cs_add(s, c);
}

static void cs_union(t_cset *s, const t_cset *o)
{
    int i;
    for (i = 0; i < 32; i++) s->b[i] |= o->b[i];
}

static void cs_not(t_cset *s)
{
    int i;
    for (i = 0; i < 32; i++) s->b[i] = (uint8_t)~s->b[i];
}

static void cs_fold(t_cset *s)
{
    unsigned c;
    for (c = 'a'; c <= 'z'; c++) {
        if (t_cset_has(s, (unsigned char)c) || t_cset_has(s, (unsigned char)(c - 32))) {
            cs_add(s, c);
            cs_add(s, c - 32);
        }
    }
}

/* \d \w \s \D \W \S; returns 0 when e is none of them. */
static int cs_escape_class(t_cset *s, unsigned char e)
{
    t_cset x;
    memset(&x, 0, sizeof x);
    switch (e | 0x20) {
    case 'd': cs_range(&x, '0', '9'); break;
    case 'w':
        cs_range(&x, 'a', 'z');
        cs_range(&x, 'A', 'Z');
        cs_range(&x, '0', '9');
        cs_add(&x, '_');
        break;
    case 's':
        cs_add(&x, ' ');
        cs_add(&x, '\t');
        cs_add(&x, '\n');
        cs_add(&x, '\v');
        cs_add(&x, '\f');
        cs_add(&x, '\r');
        break;
    default: return 0;
    }
    if (e >= 'A' && e <= 'Z') cs_not(&x);
    cs_union(s, &x);
    return 1;
}

/* The byte an escape \e stands for outside a class: \n \t \r, else e itself. */
static unsigned char escaped_byte(unsigned char e)
{
    switch (e) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    default: return e;
    }
}

long t_parse_pattern(const unsigned char *p, size_t len, int classes, int caseless, t_cset **out,
                     size_t *err_at, const char **why)
{
    t_cset *v = calloc(len ? len : 1, sizeof *v);
    size_t i = 0, m = 0;
    const char *dummy;
    size_t dummy_at;

    if (!v) abort();
    if (!why) why = &dummy;
    if (!err_at) err_at = &dummy_at;
    *out = NULL;
    while (i < len) {
        t_cset *s = &v[m];
        unsigned char c = p[i];
        if (!classes) {
            cs_add(s, c);
            i++;
        } else if (c == '.') {
            memset(s->b, 0xff, sizeof s->b);
            i++;
        } else if (c == '\\') {
            if (i + 1 >= len) {
                *err_at = i;
                *why = "trailing backslash";
                goto fail;
            }
            if (!cs_escape_class(s, p[i + 1])) cs_add(s, escaped_byte(p[i + 1]));
            i += 2;
        } else if (c == '[') {
            size_t j = i + 1, items = 0;
            int neg = 0;
            if (j < len && p[j] == '^') {
                neg = 1;
                j++;
            }
            for (;;) {
                unsigned lo, hi;
                if (j >= len) {
                    *err_at = i;
                    *why = "unterminated class";
                    goto fail;
                }
                if (p[j] == ']') {
                    if (items == 0) {
                        *err_at = j;
                        *why = "empty class";
                        goto fail;
                    }
                    j++;
                    break;
                }
                if (p[j] == '\\') {
                    if (j + 1 >= len) {
                        *err_at = j;
                        *why = "backslash at the end inside a class";
                        goto fail;
                    }
                    if (cs_escape_class(s, p[j + 1])) {
                        if (j + 3 < len && p[j + 2] == '-' && p[j + 3] != ']') {
                            *err_at = j;
                            *why = "class as the start of a range";
                            goto fail;
                        }
                        j += 2;
                        items++;
                        continue;
                    }
                    lo = escaped_byte(p[j + 1]);
                    j += 2;
                } else {
                    lo = p[j++];
                }
                hi = lo;
                if (j + 1 < len && p[j] == '-' && p[j + 1] != ']') {
                    size_t at = j;
                    t_cset unused = {{0}};
                    if (p[j + 1] == '\\') {
                        if (j + 2 >= len) {
                            *err_at = j + 1;
                            *why = "backslash at the end inside a class";
                            goto fail;
                        }
                        if (cs_escape_class(&unused, p[j + 2])) {
                            *err_at = j + 1;
                            *why = "class as the end of a range";
                            goto fail;
                        }
                        hi = escaped_byte(p[j + 2]);
                        j += 3;
                    } else {
                        hi = p[j + 1];
                        j += 2;
                    }
                    if (hi < lo) {
                        *err_at = at;
                        *why = "reversed range";
                        goto fail;
                    }
                }
                cs_range(s, lo, hi);
                items++;
            }
            if (caseless) cs_fold(s);
            if (neg) cs_not(s);
            i = j;
            m++;
            continue;
        } else {
            cs_add(s, c);
            i++;
        }
        if (caseless) cs_fold(s);
        m++;
    }
    *out = v;
    return (long)m;
fail:
    free(v);
    return -1;
}

/* ---- distances -------------------------------------------------------------------------------- */

unsigned t_edit_distance(const t_cset *P, size_t m, const unsigned char *t, size_t L, unsigned k)
{
    static unsigned *buf;
    static size_t cap;
    unsigned *prev, *cur, inf = k + 1;
    size_t i, j;

    if (L > m + k || m > L + k) return inf;
    if (2 * (L + 2) > cap) {
        cap = 2 * (L + 2);
        free(buf);
        buf = malloc(cap * sizeof *buf);
        if (!buf) abort();
    }
    prev = buf;
    cur = buf + L + 2;
    for (j = 0; j <= L; j++) prev[j] = j <= k ? (unsigned)j : inf;
    for (i = 1; i <= m; i++) {
        size_t lo = i > k ? i - k : 0, hi = i + k < L ? i + k : L;
        unsigned *tmp;
        if (lo > 0) cur[lo - 1] = inf;
        for (j = lo; j <= hi; j++) {
            unsigned v;
            if (j == 0) {
                v = (unsigned)i;
            } else {
                v = prev[j - 1] + !t_cset_has(&P[i - 1], t[j - 1]); /* match / substitution */
                if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;         /* text byte inserted */
                if (prev[j] + 1 < v) v = prev[j] + 1;               /* pattern symbol deleted */
            }
            cur[j] = v < inf ? v : inf;
        }
        if (hi + 1 <= L) cur[hi + 1] = inf;
        tmp = prev;
        prev = cur;
        cur = tmp;
    }
    return prev[L] < inf ? prev[L] : inf;
}

/* ---- matching ---------------------------------------------------------------------------------- */

static void ref_hamming(const unsigned char *text, size_t n, const t_cset *S, size_t m, unsigned k,
                        unsigned id, t_matches *out)
{
    size_t s, i;
    if (m > n) return;
    for (s = 0; s + m <= n; s++) {
        unsigned cnt = 0;
        for (i = 0; i < m; i++)
            if (!t_cset_has(&S[i], text[s + i]) && ++cnt > k) break;
        if (cnt <= k) t_matches_push_e(out, s, s + m, id, cnt);
    }
}

static void ref_levenshtein(const unsigned char *text, size_t n, const t_cset *S, size_t m,
                            unsigned k, unsigned id, t_matches *out)
{
    unsigned *D = malloc((m + 1) * sizeof *D);
    size_t e, i;
    if (!D) abort();
    for (i = 0; i <= m; i++) D[i] = (unsigned)i;
    for (e = 1; e <= n; e++) {
        unsigned char c = text[e - 1];
        unsigned diag = D[0], d;
        D[0] = 0; /* the match may start anywhere */
        for (i = 1; i <= m; i++) {
            unsigned old = D[i], v = diag + !t_cset_has(&S[i - 1], c);
            if (old + 1 < v) v = old + 1;
            if (D[i - 1] + 1 < v) v = D[i - 1] + 1;
            diag = old;
            D[i] = v;
        }
        d = D[m];
        if (d <= k) {
            /* The start: length closest to m, the longer (earlier start) first on a tie. */
            size_t delta, found = (size_t)-1;
            for (delta = 0; delta <= d && found == (size_t)-1; delta++) {
                size_t cand[2], nc = 0, c2;
                cand[nc++] = m + delta;
                if (delta > 0 && delta <= m) cand[nc++] = m - delta;
                for (c2 = 0; c2 < nc; c2++) {
                    size_t L = cand[c2];
                    if (L > e) continue;
                    if (t_edit_distance(S, m, text + e - L, L, d) == d) {
                        found = e - L;
                        break;
                    }
                }
            }
            if (found == (size_t)-1) {
                fprintf(stderr, "t_ref: no start of distance %u for end %zu (reference bug)\n", d,
                        e);
                abort();
            }
            t_matches_push_e(out, found, e, id, d);
        }
    }
    free(D);
}

static int cmp_match(const void *a, const void *b)
{
    const clm_match *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

void t_matches_sort(t_matches *m)
{
    if (m->n > 1) qsort(m->v, m->n, sizeof *m->v, cmp_match);
}

int t_reference_ex(const unsigned char *text, size_t n, const t_fset *fs, t_matches *out)
{
    unsigned pi;
    t_matches_clear(out);
    for (pi = 0; pi < fs->count; pi++) {
        t_cset *S = NULL;
        long m = t_parse_pattern(fs->pats[pi], fs->lens[pi], (fs->flags & CLM_CLASSES) != 0,
                                 (fs->flags & CLM_CASELESS) != 0, &S, NULL, NULL);
        unsigned id = fs->ids ? fs->ids[pi] : pi;
        if (m < 0) {
            t_matches_clear(out);
            return -1;
        }
        if (m > 0) {
            if (fs->k == 0 || (fs->flags & CLM_MISMATCHES_ONLY))
                ref_hamming(text, n, S, (size_t)m, fs->k, id, out);
            else
                ref_levenshtein(text, n, S, (size_t)m, fs->k, id, out);
        }
        free(S);
    }
    t_matches_sort(out);
    return 0;
}
