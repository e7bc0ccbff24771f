/*
 * The many-patterns-with-mismatches engine (hamming: every DNA pattern of a database with up
 * to k mismatches in one pass) against a brute-force Hamming reference written here from the
 * header's text: sets of 1 to 2 000 patterns of mixed lengths, k = 0..8, IUPAC codes in the
 * patterns, both strands, duplicates (each id reported); matches across work-item,
 * work-group, slab and stream boundaries; all-match text whose match buffer must grow; the
 * automatic choice and the refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_cl.h" /* the device's loop budget */

/* ---- the reference ----------------------------------------------------------------------- */

/* The bases (A 1, C 2, G 4, T 8) an IUPAC code stands for, upper case; U is T. */
static unsigned iupac(unsigned char c)
{
    static const char *const codes[] = {"A", "C", "AC", "G", "AG", "CG", "ACG", "T", "AT", "CT",
                                        "ACT", "GT", "AGT", "CGT", "ACGT"};
    static const char letters[] = "ACMGRSVTWYHKDBN";
    if (c == 'U') return 8;
    for (unsigned i = 0; i < 15; i++)
        if (letters[i] == c) {
            unsigned set = 0;
            for (const char *b = codes[i]; *b; b++)
                set |= *b == 'A' ? 1u : *b == 'C' ? 2u : *b == 'G' ? 4u : 8u;
            return set;
        }
    return 0;
}

/* The base a text byte is, as a bit (0: none): upper case only unless caseless. */
static unsigned text_base(unsigned char c, int caseless)
{
    if (caseless && c >= 'a' && c <= 'z') c ^= 0x20;
    return c == 'A' ? 1u : c == 'C' ? 2u : c == 'G' ? 4u : c == 'T' ? 8u : 0u;
}

static unsigned char complement(unsigned char c)
{
    static const char from[] = "ACGTUMRWSYKVHDBN", to[] = "TGCAAKYWSRMBDHVN";
    const char *p = strchr(from, c);
    return p && c ? (unsigned char)to[p - from] : c;
}

typedef struct {
    unsigned char **p;
    size_t *lens;
    unsigned *ids;
    unsigned count;
    t_patset ps;
} hset;

/* A match of the reference or the library, its strand kept. */
typedef struct {
    uint64_t start, end;
    unsigned id, edits;
    int strand;
} hmatch;

typedef struct {
    hmatch *v;
    size_t n, cap;
} hlist;

static void hlist_push(hlist *l, uint64_t start, uint64_t end, unsigned id, unsigned edits,
                       int strand)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) abort();
    }
    l->v[l->n++] = (hmatch){start, end, id, edits, strand};
}

static int hcollect(const clm_match *m, void *ctx)
{
    hlist_push(ctx, m->start, m->end, m->id, m->edits, m->strand);
    return 0;
}

static int hcmp(const void *a, const void *b)
{
    const hmatch *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->strand != y->strand) return x->strand > y->strand ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->edits < y->edits ? -1 : x->edits > y->edits;
}

/* Exact ends: the first `head` and last `tail` bases of a pattern must match (of its
 * reverse complement: the last `head` and first `tail`). */
typedef struct {
    unsigned head, tail;
} ends;

/* Pattern p (or its reverse complement) at every start with at most k mismatching bases and
 * none in its exact ends e. */
static void ref_one(const unsigned char *text, size_t n, const unsigned char *p, size_t m,
                    unsigned id, int strand, unsigned k, int caseless, ends e, hlist *out)
{
    size_t head = strand > 0 ? e.head : e.tail, tail = strand > 0 ? e.tail : e.head;
    unsigned *set = malloc(m * sizeof *set);
    if (!set) abort();
    for (size_t i = 0; i < m; i++)
        set[i] = iupac(strand > 0 ? p[i] : complement(p[m - 1 - i]));
    for (size_t s = 0; s + m <= n; s++) {
        unsigned bad = 0, exact_bad = 0;
        for (size_t i = 0; i < m && bad <= k; i++) {
            unsigned miss = !(set[i] & text_base(text[s + i], caseless));
            bad += miss;
            exact_bad += miss && (i < head || i >= m - tail);
        }
        if (bad <= k && !exact_bad) hlist_push(out, s, s + m, id, bad, strand);
    }
    free(set);
}

static void ref_hamming(const unsigned char *text, size_t n, const hset *h, unsigned k,
                        unsigned flags, ends e, hlist *out)
{
    int caseless = (flags & CLM_CASELESS) != 0;
    out->n = 0;
    for (unsigned j = 0; j < h->count; j++) {
        ref_one(text, n, h->p[j], h->lens[j], h->ids[j], 1, k, caseless, e, out);
        if (flags & CLM_BOTH_STRANDS)
            ref_one(text, n, h->p[j], h->lens[j], h->ids[j], -1, k, caseless, e, out);
    }
    if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, hcmp);
}

/* ---- sets and texts ---------------------------------------------------------------------- */

static void hset_free(hset *h)
{
    for (unsigned i = 0; i < h->count; i++) free(h->p[i]);
    free(h->p);
    free(h->lens);
    free(h->ids);
    memset(h, 0, sizeof *h);
}

static void hset_alloc(hset *h, unsigned count)
{
    memset(h, 0, sizeof *h);
    h->count = count;
    h->p = calloc(count, sizeof *h->p);
    h->lens = calloc(count, sizeof *h->lens);
    h->ids = calloc(count, sizeof *h->ids);
    if (!h->p || !h->lens || !h->ids) abort();
    h->ps.pats = (const unsigned char *const *)h->p;
    h->ps.lens = h->lens;
    h->ps.ids = h->ids;
    h->ps.count = count;
}

/* `count` patterns of minl..maxl bases: most of them windows of the text with a few bases
 * changed (they match with mismatches), some random, some IUPAC codes in places, and copies
 * of earlier ones under other ids. Ids are distinct and out of order. */
static void make_set(hset *h, t_rng *r, const unsigned char *text, size_t n, unsigned count,
                     size_t minl, size_t maxl)
{
    static const char codes[] = "RYSWKMBDHVN";
    hset_alloc(h, count);
    for (unsigned i = 0; i < count; i++) {
        size_t L = minl + t_below(r, maxl - minl + 1);
        unsigned kind = (unsigned)t_below(r, 10);
        unsigned char *p = malloc(L);
        if (!p) abort();
        if (i > 0 && kind == 9) { /* a duplicate */
            unsigned j = (unsigned)t_below(r, i);
            free(p);
            L = h->lens[j];
            p = malloc(L);
            if (!p) abort();
            memcpy(p, h->p[j], L);
        } else {
            if (kind < 6) memcpy(p, text + t_below(r, n - L + 1), L);
            else t_fill(r, p, L, 4);
            for (size_t c = 0; c < L; c++) { /* plain upper-case bases or codes */
                if (!iupac(p[c]) || p[c] == 'N') p[c] = "ACGT"[t_below(r, 4)];
                if (t_below(r, 6) == 0) p[c] = "ACGT"[t_below(r, 4)];
                if (kind % 3 == 0 && t_below(r, 10) == 0) p[c] = (unsigned char)codes[t_below(r, 11)];
            }
        }
        h->p[i] = p;
        h->lens[i] = L;
        h->ids[i] = 5 + 2 * (count - 1 - i);
    }
}

/* Random bases, some N and some lower case (which only CLM_CASELESS matches). */
static unsigned char *dna_text(t_rng *r, size_t n)
{
    unsigned char *t = malloc(n);
    if (!t) abort();
    t_fill(r, t, n, 4);
    for (size_t i = 0; i < n; i += 1 + t_below(r, 400)) t[i] = 'N';
    for (size_t i = 0; i < n; i += 1 + t_below(r, 600)) t[i] = "acgt"[t_below(r, 4)];
    return t;
}

/* ---- checks ------------------------------------------------------------------------------ */

static int same(const hlist *got, const hlist *want, const char *desc, const char *how)
{
    if (got->n > 1) qsort(got->v, got->n, sizeof *got->v, hcmp);
    for (size_t i = 0; i < got->n && i < want->n; i++) {
        const hmatch *a = &got->v[i], *b = &want->v[i];
        if (hcmp(a, b) != 0)
            return T_FAIL("%s: %s: match %zu: got [%llu,%llu) id %u strand %d edits %u, "
                          "expected [%llu,%llu) id %u strand %d edits %u", desc, how, i,
                          (unsigned long long)a->start, (unsigned long long)a->end, a->id,
                          a->strand, a->edits, (unsigned long long)b->start,
                          (unsigned long long)b->end, b->id, b->strand, b->edits);
    }
    if (got->n != want->n)
        return T_FAIL("%s: %s: %zu matches, expected %zu", desc, how, got->n, want->n);
    return 1;
}

/* Scan, count and (r given) stream in random pieces, against the reference. */
static void check_text(const clm_database *db, clm_scratch *s, const unsigned char *text,
                       size_t n, const hlist *want, t_rng *r, const char *desc)
{
    hlist got = {0};
    uint64_t count = 0;
    int rc = clm_scan(db, s, text, n, hcollect, &got);
    if (rc != CLM_OK)
        T_FAIL("%s: clm_scan: %s: %s", desc, clm_strerror(rc), clm_last_error());
    else
        same(&got, want, desc, "scan");
    rc = clm_count(db, s, text, n, &count);
    if (rc != CLM_OK)
        T_FAIL("%s: clm_count: %s: %s", desc, clm_strerror(rc), clm_last_error());
    else if (count != want->n)
        T_FAIL("%s: clm_count %llu, expected %zu", desc, (unsigned long long)count, want->n);
    if (r) {
        clm_stream *st = NULL;
        uint64_t total = 0;
        got.n = 0;
        rc = clm_stream_open(db, s, 0, &st);
        for (size_t at = 0; rc == CLM_OK && at < n;) {
            size_t piece = 1 + t_below(r, 3000);
            if (piece > n - at) piece = n - at;
            rc = clm_stream_write(st, text + at, piece, hcollect, &got);
            at += piece;
        }
        if (st) {
            int crc = clm_stream_close(st, hcollect, &got, &total);
            if (rc == CLM_OK) rc = crc;
        }
        if (rc != CLM_OK)
            T_FAIL("%s: stream: %s: %s", desc, clm_strerror(rc), clm_last_error());
        else if (same(&got, want, desc, "stream") && total != want->n)
            T_FAIL("%s: stream total %llu, expected %zu", desc, (unsigned long long)total,
                   want->n);
    }
    free(got.v);
}

/* Compile the set with hamming (k mismatches, flags beside CLM_DNA | CLM_MISMATCHES_ONLY,
 * table memory mem, geometry wgs/bpi: 0 the defaults) and check it on slabs of `slab` bytes
 * with a match buffer of `capacity` (0: defaults). Returns the matches expected. */
static size_t check_set_ends(const hset *h, const unsigned char *text, size_t n, unsigned k,
                              ends e, unsigned flags, clm_table_memory mem, unsigned wgs,
                              unsigned bpi, size_t slab, size_t capacity, t_rng *r,
                              const char *what)
{
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    char desc[256];
    flags |= CLM_DNA | CLM_MISMATCHES_ONLY;
    snprintf(desc, sizeof desc, "hamming %s: %u patterns, k=%u ends %u,%u flags=0x%x mem=%s wgs=%u "
             "bpi=%u slab=%zu cap=%zu", what, h->count, k, e.head, e.tail, flags,
             clm_table_memory_name(mem), wgs, bpi, slab, capacity);
    clm_compile_options o;
    t_compile_options(&o, &h->ps, CLM_ALGO_HAMMING, mem, flags, wgs, bpi, CLM_VARIANT_AUTO, k);
    o.exact_head = e.head;
    o.exact_tail = e.tail;
    int rc = t_compile_with(&h->ps, &o, &db);
    if (rc == CLM_E_UNSUPPORTED && (mem == CLM_TABLE_LOCAL || mem == CLM_TABLE_CONSTANT)) {
        /* a table larger than that memory: refused, naming what works */
        EXPECT(strstr(clm_last_error(), "global") != NULL);
        return 0;
    }
    if (rc == CLM_E_PATTERN_TOO_LONG && t_dev->loop_budget) {
        /* Mesa's llvmpipe: a work-item past its loop budget would drop matches, so long
         * patterns are refused there, naming the limit and what can (test_diff.c too) */
        EXPECT(strstr(clm_last_error(), "loop passes") && strstr(clm_last_error(), "dfa"));
        return 0;
    }
    if (!EXPECT_RC(rc, CLM_OK)) {
        t_note("%s: %s", desc, clm_last_error());
        return 0;
    }
    clm_database_info info;
    if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)) {
        EXPECT(info.algorithm == CLM_ALGO_HAMMING);
        EXPECT(info.engines == 1); /* one launch for every pattern and strand */
        EXPECT(info.pattern_count == h->count);
    }
    hlist want = {0};
    ref_hamming(text, n, h, k, flags, e, &want);
    if (t_scratch_alloc(db, &s, slab, capacity, desc)) check_text(db, s, text, n, &want, r, desc);
    clm_scratch_free(s);
    clm_database_free(db);
    free(want.v);
    return want.n;
}

static size_t check_set(const hset *h, const unsigned char *text, size_t n, unsigned k,
                        unsigned flags, clm_table_memory mem, unsigned wgs, unsigned bpi,
                        size_t slab, size_t capacity, t_rng *r, const char *what)
{
    return check_set_ends(h, text, n, k, (ends){0, 0}, flags, mem, wgs, bpi, slab, capacity, r,
                          what);
}

/* ---- tests ------------------------------------------------------------------------------- */

/* The reference against hand-checked cases. */
static void test_reference(const void *arg)
{
    (void)arg;
    const unsigned char *text = (const unsigned char *)"ACGTACGTNNacgtGGG";
    hset h;
    hset_alloc(&h, 2);
    h.p[0] = (unsigned char *)strdup("ACGA");  /* ACGT at 0 and 4: 1 mismatch each */
    h.p[1] = (unsigned char *)strdup("NGG");   /* N is any base, not the text's N */
    if (!h.p[0] || !h.p[1]) abort();
    h.lens[0] = 4;
    h.lens[1] = 3;
    h.ids[0] = 0;
    h.ids[1] = 1;
    hlist l = {0};
    ref_hamming(text, 17, &h, 1, 0, (ends){0, 0}, &l);
    /* k = 1: ACGA at 0 and 4 (ACGT); NGG (N any base, but no text byte that is no base:
     * N, lower case) at 0 (ACG), 1 (CGT), 4, 5, 13 (tGG) with one mismatch, 14 (GGG) */
    hmatch want[] = {{0, 4, 0, 1, 1},  {0, 3, 1, 1, 1},   {1, 4, 1, 1, 1},  {4, 8, 0, 1, 1},
                     {4, 7, 1, 1, 1},  {5, 8, 1, 1, 1},   {13, 16, 1, 1, 1}, {14, 17, 1, 0, 1}};
    hlist w = {want, sizeof want / sizeof want[0], 0};
    same(&l, &w, "reference", "hand-checked");
    /* k = 0, caseless, both strands: NGG at 13 (tGG) and 14; its reverse complement CCN, ACGA
     * and TCGT nowhere */
    ref_hamming(text, 17, &h, 0, CLM_CASELESS | CLM_BOTH_STRANDS, (ends){0, 0}, &l);
    hmatch want2[] = {{13, 16, 1, 0, 1}, {14, 17, 1, 0, 1}};
    hlist w2 = {want2, 2, 0};
    same(&l, &w2, "reference", "caseless, both strands");
    free(l.v);
    hset_free(&h);
}

typedef struct {
    clm_table_memory mem;
} mem_arg;

/* 1 to 2 000 patterns of 12..32 bases (two of 3..16), k = 0..8, with and without both
 * strands and case folding. */
static void test_sets(const void *arg)
{
    const mem_arg *a = arg;
    static const unsigned counts[] = {1, 2, 17, 150, 2000};
    t_rng r;
    t_rng_init(&r, "hamming.sets", a->mem);
    size_t n = t_quick ? 20000 : 60000;
    unsigned char *text = dna_text(&r, n);
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        unsigned count = counts[ci];
        size_t expected = 0;
        if (count == 2000 && (t_smoke || a->mem != CLM_TABLE_GLOBAL)) continue;
        for (unsigned k = 0; k <= CLM_HAMMING_MAX_ERRORS; k += count >= 150 ? 4 : 1) {
            unsigned flags = k % 2 ? CLM_BOTH_STRANDS : 0;
            if (k % 3 == 2) flags |= CLM_CASELESS;
            hset h;
            if (count == 2) /* short patterns: one uint of nibbles, k close to the length */
                make_set(&h, &r, text, n, count, k + 2 > 3 ? k + 2 : 3, 16);
            else
                make_set(&h, &r, text, n, count, k + 9 > 12 ? k + 9 : 12, 32);
            expected += check_set(&h, text, count == 2000 ? n / 4 : n, k, flags, a->mem, 0, 0,
                                  0, 0, NULL, "random");
            hset_free(&h);
        }
        if (!EXPECT(expected > 0)) t_note("%u patterns: no match at any k", count);
    }
    free(text);
}

/* Matches across every boundary: 8 work-items of 16 bytes per group, slabs of 4099 and 100
 * bytes, a stream in random pieces, a match buffer that must grow from 16; patterns up to
 * the longest, 64 bases. */
static void test_boundaries(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "hamming.boundaries", 0);
    size_t n = 30000;
    unsigned char *text = dna_text(&r, n);
    hset h;
    make_set(&h, &r, text, n, 40, 9, CLM_HAMMING_MAX_LENGTH);
    check_set(&h, text, n, 3, CLM_BOTH_STRANDS, CLM_TABLE_GLOBAL, 8, 16, 4099, 16, &r,
              "tiny geometry");
    check_set(&h, text, n, 8, 0, CLM_TABLE_AUTO, 0, 0, 4099, 0, &r, "small slabs");
    check_set(&h, text, n, 2, CLM_BOTH_STRANDS, CLM_TABLE_GLOBAL, 8, 16, 100, 0, NULL,
              "100-byte slabs");
    hset_free(&h);
    free(text);
}

/* All-match text: poly-A patterns of 9..40 bases on poly-A text match at every start (many
 * per byte); with k, so do the patterns with up to k other bases. The match buffer starts at
 * 16 and must grow, never truncate. */
static void test_allmatch(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "hamming.allmatch", 0);
    size_t n = 20000;
    unsigned char *text = malloc(n);
    if (!text) abort();
    memset(text, 'A', n);
    hset h;
    hset_alloc(&h, 40);
    for (unsigned i = 0; i < h.count; i++) {
        h.lens[i] = 9 + i % 32;
        h.p[i] = malloc(h.lens[i]);
        if (!h.p[i]) abort();
        memset(h.p[i], 'A', h.lens[i]);
        for (unsigned c = 0; c < i % 5; c++) h.p[i][t_below(&r, h.lens[i])] = 'C';
        h.ids[i] = i;
    }
    check_set(&h, text, n, 4, CLM_BOTH_STRANDS, CLM_TABLE_AUTO, 0, 0, 0, 16, NULL, "all-match");
    check_set(&h, text, n, 0, 0, CLM_TABLE_GLOBAL, 8, 16, 4099, 16, &r, "all-match tiny");
    hset_free(&h);
    free(text);
}

/* Exact ends, as a CRISPR PAM: guides (some with codes) + NGG with the PAM exact
 * (exact_tail 3) and TTTV + guides (exact_head 4), both strands, k 0..8; sites planted with
 * mismatches in the guide and in the PAM. One pattern too (auto takes hamming for it). */
static void test_exact(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "hamming.exact", 0);
    size_t n = t_quick ? 20000 : 50000;
    unsigned char *text = dna_text(&r, n);
    static const struct {
        const char *pam;
        int five;
        unsigned count;
    } cases[] = {{"NGG", 0, 60}, {"TTTV", 1, 60}, {"NRG", 0, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t P = strlen(cases[c].pam);
        for (unsigned k = 0; k <= CLM_HAMMING_MAX_ERRORS; k += 2) {
            hset h;
            make_set(&h, &r, text, n, cases[c].count, 18, 22);
            for (unsigned i = 0; i < h.count; i++) { /* the PAM joined to the guide */
                unsigned char *p = malloc(h.lens[i] + P);
                if (!p) abort();
                memcpy(p + (cases[c].five ? P : 0), h.p[i], h.lens[i]);
                memcpy(p + (cases[c].five ? 0 : h.lens[i]), cases[c].pam, P);
                free(h.p[i]);
                h.p[i] = p;
                h.lens[i] += P;
            }
            for (unsigned s = 0; s < 200; s++) { /* sites: the pattern, a few bases changed */
                unsigned i = (unsigned)t_below(&r, h.count);
                size_t at = t_below(&r, n - h.lens[i]);
                for (size_t j = 0; j < h.lens[i]; j++) {
                    unsigned char b = h.p[i][j];
                    text[at + j] = b == 'A' || b == 'C' || b == 'G' || b == 'T' ? b : 'A';
                    if (b == 'N' || b == 'R' || b == 'V') /* a base the code stands for */
                        text[at + j] = b == 'N' ? "ACGT"[t_below(&r, 4)] : 'G';
                }
                for (unsigned d = (unsigned)t_below(&r, k + 2); d; d--)
                    text[at + t_below(&r, h.lens[i])] = "ACGT"[t_below(&r, 4)];
            }
            ends e = cases[c].five ? (ends){(unsigned)P, 0} : (ends){0, (unsigned)P};
            char what[64];
            snprintf(what, sizeof what, "PAM %s%s", cases[c].pam, cases[c].five ? " (5')" : "");
            size_t got = check_set_ends(&h, text, n, k, e, k % 4 ? CLM_BOTH_STRANDS : 0,
                                        k == 4 ? CLM_TABLE_GLOBAL : CLM_TABLE_AUTO,
                                        k == 2 ? 8 : 0, k == 2 ? 16 : 0, k == 6 ? 4099 : 0, 0,
                                        k == 6 ? &r : NULL, what);
            if (!EXPECT(got > 0)) t_note("%s k=%u: no site", what, k);
            if (cases[c].count == 1 && k > 0) { /* auto: hamming for one pattern with ends */
                clm_compile_options o;
                clm_database *db = NULL;
                clm_database_info info;
                t_compile_options(&o, &h.ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO,
                                  CLM_DNA | CLM_MISMATCHES_ONLY, 0, 0, CLM_VARIANT_AUTO, k);
                o.exact_tail = (unsigned)P;
                if (EXPECT_RC(t_compile_with(&h.ps, &o, &db), CLM_OK) &&
                    EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK))
                    EXPECT(info.algorithm == CLM_ALGO_HAMMING);
                clm_database_free(db);
                db = NULL;
                o.algorithm = CLM_ALGO_BITAP; /* the others cannot */
                if (EXPECT_RC(t_compile_with(&h.ps, &o, &db), CLM_E_UNSUPPORTED))
                    EXPECT(strstr(clm_last_error(), "hamming") != NULL);
                clm_database_free(db);
                db = NULL;
                o.algorithm = CLM_ALGO_HAMMING;
                o.flags = CLM_DNA; /* with insertions and deletions: no */
                EXPECT_RC(t_compile_with(&h.ps, &o, &db), CLM_E_INVALID);
                clm_database_free(db);
                db = NULL;
                o.flags = CLM_DNA | CLM_MISMATCHES_ONLY;
                o.exact_head = (unsigned)(h.lens[0] - P); /* the whole pattern: no */
                EXPECT_RC(t_compile_with(&h.ps, &o, &db), CLM_E_INVALID);
                clm_database_free(db);
            }
            hset_free(&h);
        }
    }
    free(text);
}

/* Random guides of A and T with `pam` joined on the 3' side (exact_tail strlen(pam)). */
static void pam_set(hset *h, t_rng *r, unsigned count, size_t guide, const char *pam)
{
    size_t P = strlen(pam);
    hset_alloc(h, count);
    for (unsigned i = 0; i < count; i++) {
        h->lens[i] = guide + P;
        h->p[i] = malloc(h->lens[i]);
        if (!h->p[i]) abort();
        for (size_t j = 0; j < guide; j++) h->p[i][j] = "AT"[t_below(r, 2)];
        memcpy(h->p[i] + guide, pam, P);
        h->ids[i] = 3 * i + 1;
    }
}

/* The work-group's queue of candidate starts (cl/hamming.cl): poly-A text where the exact
 * end NAA passes at every start, so each group's candidates fill the queue again and again
 * (rounds), the reverse strand's TTN nowhere; then A/T text where a PAM site is planted in
 * one work-item's range of a group only (NGG forward, CCN reverse, no other G or C), the
 * group's other lanes idle. Tiny and default geometry. */
static void test_queue(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "hamming.queue", 0);
    size_t n = 6000;
    unsigned char *text = malloc(n);
    if (!text) abort();
    hset h;
    memset(text, 'A', n);
    pam_set(&h, &r, 30, 20, "NAA");
    for (unsigned i = 0; i < h.count; i++) { /* guides of A with i % 5 C: some match */
        memset(h.p[i], 'A', 20);
        for (unsigned c = 0; c < i % 5; c++) h.p[i][4 * c + 1] = 'C';
    }
    EXPECT(check_set_ends(&h, text, n, 3, (ends){0, 3}, CLM_BOTH_STRANDS, CLM_TABLE_GLOBAL, 8,
                          16, 0, 16, NULL, "queue overflow, tiny") > 0);
    EXPECT(check_set_ends(&h, text, n, 2, (ends){0, 3}, 0, CLM_TABLE_AUTO, 0, 0, 4099, 0, &r,
                          "queue overflow") > 0);
    hset_free(&h);
    /* one site in lane 5 of group 2 (8 lanes of 16 starts), one at the last start of the
     * last lane of group 7, as its reverse complement */
    pam_set(&h, &r, 20, 20, "NGG");
    for (size_t i = 0; i < n; i++) text[i] = "AT"[t_below(&r, 2)];
    const size_t fwd = 2 * 128 + 5 * 16 + 7, rev = 7 * 128 + 7 * 16 + 15;
    memcpy(text + fwd, h.p[3], 20);
    memcpy(text + fwd + 20, "TGG", 3);
    text[fwd + 4] = text[fwd + 4] == 'A' ? 'T' : 'A'; /* a mismatch */
    memcpy(text + rev, "CCA", 3);
    for (size_t j = 0; j < 20; j++) text[rev + 3 + j] = h.p[7][19 - j] == 'A' ? 'T' : 'A';
    EXPECT(check_set_ends(&h, text, n, 2, (ends){0, 3}, CLM_BOTH_STRANDS, CLM_TABLE_GLOBAL, 8,
                          16, 0, 0, NULL, "one lane, tiny") >= 2);
    EXPECT(check_set_ends(&h, text, n, 1, (ends){0, 3}, CLM_BOTH_STRANDS, CLM_TABLE_AUTO, 0, 0,
                          0, 0, NULL, "one lane") >= 2);
    hset_free(&h);
    free(text);
}

/* auto takes hamming for two or more DNA patterns with mismatches, not for one, with
 * insertions and deletions, past 8 mismatches or with degenerate text; hamming refuses what
 * it cannot search, naming bitap. */
static void test_choice(const void *arg)
{
    (void)arg;
    const unsigned char *pats[3] = {(const unsigned char *)"ACGTACGTAC",
                                    (const unsigned char *)"GGTTRYACNN",
                                    (const unsigned char *)"acgtACGTAC"};
    const size_t lens[3] = {10, 10, 10};
    t_patset two = {pats, lens, NULL, 2, 0}, one = {pats, lens, NULL, 1, 0};
    t_patset mixed = {pats + 1, lens, NULL, 2, 0}; /* upper and lower case: 8 classes */
    const unsigned dna = CLM_DNA | CLM_MISMATCHES_ONLY;
    struct {
        const t_patset *ps;
        unsigned flags, k;
        int hamming;
    } cases[] = {{&two, dna, 2, 1},
                 {&two, dna | CLM_BOTH_STRANDS | CLM_CASELESS, 8, 1},
                 {&one, dna, 2, 0},
                 {&two, CLM_DNA, 2, 0},
                 {&two, dna, 9, 0},
                 {&two, dna | CLM_DEGENERATE_TEXT, 2, 0},
                 {&mixed, dna, 2, 0},
                 {&two, CLM_DNA, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clm_database *db = NULL;
        clm_database_info info;
        if (!EXPECT_RC(t_compile_ex(cases[i].ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, cases[i].flags,
                                    0, 0, CLM_VARIANT_AUTO, cases[i].k, &db),
                       CLM_OK)) {
            t_note("case %zu: %s", i, clm_last_error());
            continue;
        }
        if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK) &&
            !EXPECT((info.algorithm == CLM_ALGO_HAMMING) == cases[i].hamming))
            t_note("case %zu: %s (%s)", i, clm_algorithm_name(info.algorithm), info.choice);
        clm_database_free(db);
        db = NULL;
        if (cases[i].hamming || cases[i].ps == &one || cases[i].k == 0) continue;
        int rc = t_compile_ex(cases[i].ps, CLM_ALGO_HAMMING, CLM_TABLE_AUTO, cases[i].flags, 0,
                              0, CLM_VARIANT_AUTO, cases[i].k, &db);
        if (EXPECT_RC(rc, CLM_E_UNSUPPORTED) && !EXPECT(strstr(clm_last_error(), "bitap")))
            t_note("case %zu: %s", i, clm_last_error());
        clm_database_free(db);
    }
    /* longer than 64 bases */
    unsigned char *p65 = t_pattern(4, CLM_HAMMING_MAX_LENGTH + 1);
    const unsigned char *longp[2] = {p65, p65};
    size_t llen[2] = {CLM_HAMMING_MAX_LENGTH + 1, CLM_HAMMING_MAX_LENGTH + 1};
    t_patset lng = {longp, llen, NULL, 2, 0};
    clm_database *db = NULL;
    EXPECT_RC(t_compile_ex(&lng, CLM_ALGO_HAMMING, CLM_TABLE_AUTO, dna, 0, 0, CLM_VARIANT_AUTO,
                           2, &db),
              CLM_E_PATTERN_TOO_LONG);
    clm_database_free(db);
    free(p65);
}

void register_hamming_tests(void)
{
    static const mem_arg mems[] = {{CLM_TABLE_GLOBAL}, {CLM_TABLE_LOCAL}, {CLM_TABLE_CONSTANT},
                                   {CLM_TABLE_AUTO}};
    t_register("hamming.reference", test_reference, NULL, 1);
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "hamming.sets.%s", clm_table_memory_name(mems[i].mem));
        t_register(name, test_sets, &mems[i], mems[i].mem == CLM_TABLE_GLOBAL);
    }
    t_register("hamming.boundaries", test_boundaries, NULL, 1);
    t_register("hamming.allmatch", test_allmatch, NULL, 1);
    t_register("hamming.exact", test_exact, NULL, 1);
    t_register("hamming.queue", test_queue, NULL, 1);
    t_register("hamming.choice", test_choice, NULL, 1);
}
