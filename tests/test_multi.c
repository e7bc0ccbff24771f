/*
 * The multi-pattern engines (aho and kmer: every pattern of a database in one pass) against a CPU
 * reference built for many patterns: sets of 2 to 20 000 patterns of mixed lengths, drawn
 * from the text and at random, prefixes, suffixes and duplicates of each other (each id
 * reported), every byte value, case folding, DNA on both strands; texts random, periodic
 * and all-match; every work-item, work-group, slab and stream boundary crossed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_ref.h"

/* ---- a reference for many patterns ---------------------------------------------------- */

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c | 0x20 : c; }

static unsigned char *folded(const unsigned char *s, size_t n, int caseless)
{
    unsigned char *f = malloc(n ? n : 1);
    if (!f) abort();
    for (size_t i = 0; i < n; i++) f[i] = caseless ? fold(s[i]) : s[i];
    return f;
}

#define RK_BASE 0x100000001b3ull

static uint64_t rk_hash(const unsigned char *s, size_t L)
{
    uint64_t h = 0;
    for (size_t i = 0; i < L; i++) h = h * RK_BASE + s[i];
    return h;
}

/* Every occurrence of every pattern in delivery order: per distinct length, a hash table of
 * that length's patterns and a rolling hash over the text's windows (t_reference compares
 * every pattern at every start: too slow for thousands of patterns). */
static void ref_many(const unsigned char *text, size_t n, const t_patset *ps, t_matches *out)
{
    unsigned char *t = folded(text, n, ps->caseless);
    unsigned char **p = malloc(ps->count * sizeof *p);
    unsigned *next = malloc(ps->count * sizeof *next);
    if (!p || !next) abort();
    for (unsigned i = 0; i < ps->count; i++) p[i] = folded(ps->pats[i], ps->lens[i], ps->caseless);
    t_matches_clear(out);
    unsigned char *done = calloc(ps->count, 1);
    if (!done) abort();
    for (unsigned first = 0; first < ps->count; first++) {
        if (done[first]) continue;
        size_t L = ps->lens[first];
        size_t buckets = 16, k = 0;
        for (unsigned i = 0; i < ps->count; i++) k += ps->lens[i] == L;
        while (buckets < 2 * k) buckets *= 2;
        unsigned *head = malloc(buckets * sizeof *head);
        if (!head) abort();
        memset(head, 0xff, buckets * sizeof *head);
        for (unsigned i = 0; i < ps->count; i++) {
            if (ps->lens[i] != L) continue;
            done[i] = 1;
            size_t b = rk_hash(p[i], L) & (buckets - 1);
            next[i] = head[b];
            head[b] = i;
        }
        if (L <= n) {
            uint64_t top = 1, h = rk_hash(t, L);
            for (size_t i = 1; i < L; i++) top *= RK_BASE; /* weight of a window's first byte */
            for (size_t s = 0; s + L <= n; s++) {
                if (s) h = (h - t[s - 1] * top) * RK_BASE + t[s + L - 1];
                for (unsigned i = head[h & (buckets - 1)]; i != 0xffffffffu; i = next[i])
                    if (memcmp(p[i], t + s, L) == 0)
                        t_matches_push(out, s, s + L, ps->ids ? ps->ids[i] : i);
            }
        }
        free(head);
    }
    t_matches_sort(out);
    for (unsigned i = 0; i < ps->count; i++) free(p[i]);
    free(done);
    free(next);
    free(p);
    free(t);
}

/* ---- pattern sets ----------------------------------------------------------------------- */

typedef struct {
    unsigned char **p;
    size_t *lens;
    unsigned *ids;
    unsigned count;
    t_patset ps;
} pset;

static void pset_free(pset *s)
{
    for (unsigned i = 0; i < s->count; i++) free(s->p[i]);
    free(s->p);
    free(s->lens);
    free(s->ids);
    memset(s, 0, sizeof *s);
}

static unsigned char *xdup(const unsigned char *s, size_t n)
{
    unsigned char *d = malloc(n ? n : 1);
    if (!d) abort();
    memcpy(d, s, n);
    return d;
}

/* `count` patterns of minl..maxl symbols: half of them windows of the text (they occur), the
 * rest random symbols, prefixes or suffixes of an earlier pattern (of minl symbols or more),
 * or copies of one (a duplicate under another id). Ids are distinct and out of order. */
static void make_set(pset *s, t_rng *r, const unsigned char *text, size_t n, unsigned alpha,
                     unsigned count, size_t minl, size_t maxl, int caseless)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    s->p = calloc(count, sizeof *s->p);
    s->lens = calloc(count, sizeof *s->lens);
    s->ids = calloc(count, sizeof *s->ids);
    if (!s->p || !s->lens || !s->ids) abort();
    for (unsigned i = 0; i < count; i++) {
        size_t L = minl + t_below(r, maxl - minl + 1);
        unsigned kind = (unsigned)t_below(r, 8);
        if (i == 0 || kind < 4) {
            if (L > n) L = n;
            s->p[i] = xdup(text + t_below(r, n - L + 1), L);
        } else if (kind < 6) {
            s->p[i] = malloc(L);
            if (!s->p[i]) abort();
            t_fill(r, s->p[i], L, alpha);
        } else {
            unsigned j = (unsigned)t_below(r, i);
            size_t lj = s->lens[j], cut = lj > minl ? minl + t_below(r, lj - minl) : lj;
            if (kind == 6) { L = lj; s->p[i] = xdup(s->p[j], lj); }           /* duplicate */
            else if (t_below(r, 2)) { L = cut; s->p[i] = xdup(s->p[j], cut); }  /* prefix */
            else { L = cut; s->p[i] = xdup(s->p[j] + lj - cut, cut); }          /* suffix */
        }
        s->lens[i] = L;
        s->ids[i] = 7 + 3 * (count - 1 - i); /* reversed, with gaps */
    }
    if (caseless) /* the patterns in random case: the text's case differs */
        for (unsigned i = 0; i < count; i++)
            for (size_t k = 0; k < s->lens[i]; k++)
                if (t_below(r, 2) && s->p[i][k] >= 'a' && s->p[i][k] <= 'z') s->p[i][k] ^= 0x20;
    s->ps.pats = (const unsigned char *const *)s->p;
    s->ps.lens = s->lens;
    s->ps.ids = s->ids;
    s->ps.count = count;
    s->ps.caseless = caseless;
}

static unsigned char *random_text(t_rng *r, size_t n, unsigned alpha)
{
    unsigned char *t = malloc(n);
    if (!t) abort();
    t_fill(r, t, n, alpha);
    return t;
}

/* ---- checks ------------------------------------------------------------------------------ */

/* A stream fed in pieces of random length must deliver what one scan does. */
static int check_stream(const clm_database *db, clm_scratch *s, const unsigned char *text,
                        size_t n, const t_matches *want, t_rng *r, const char *desc)
{
    t_matches got;
    clm_stream *st = NULL;
    uint64_t total = 0;
    char diff[512];
    int ok = 1;
    t_matches_init(&got);
    int rc = clm_stream_open(db, s, 0, &st);
    for (size_t at = 0; rc == CLM_OK && at < n;) {
        size_t piece = 1 + t_below(r, 3000);
        if (piece > n - at) piece = n - at;
        rc = clm_stream_write(st, text + at, piece, t_collect, &got);
        at += piece;
    }
    if (st) {
        int crc = clm_stream_close(st, t_collect, &got, &total);
        if (rc == CLM_OK) rc = crc;
    }
    if (rc != CLM_OK)
        ok = T_FAIL("%s: stream: %s: %s", desc, clm_strerror(rc), clm_last_error());
    else if (t_matches_diff(&got, want, diff, sizeof diff))
        ok = T_FAIL("%s: stream: %s", desc, diff);
    else if (total != want->n)
        ok = T_FAIL("%s: stream total %llu, expected %zu", desc, (unsigned long long)total,
                    want->n);
    t_matches_free(&got);
    return ok;
}

/* Compile the set with algo (aho, kmer) in table memory mem (and geometry wgs, bpi: 0 the
 * defaults) and check scan and count on slabs of `slab` bytes (0: default), and a stream when
 * r is given. A table too large for local or constant memory may be refused, naming what
 * works. */
static void check_set_with(clm_algorithm algo, const pset *set, const unsigned char *text,
                           size_t n, unsigned flags, clm_table_memory mem, unsigned wgs,
                           unsigned bpi, size_t slab, size_t capacity, t_rng *r,
                           const char *what)
{
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches want, got;
    char desc[256];
    snprintf(desc, sizeof desc, "%s %s: %u patterns, mem=%s wgs=%u bpi=%u slab=%zu cap=%zu",
             clm_algorithm_name(algo), what, set->count, clm_table_memory_name(mem), wgs, bpi,
             slab, capacity);
    int rc = t_compile(&set->ps, algo, mem, flags, wgs, bpi, &db);
    if (rc == CLM_E_UNSUPPORTED && mem != CLM_TABLE_GLOBAL && mem != CLM_TABLE_AUTO) {
        uint64_t need = t_table_bytes(&set->ps, algo), limit = t_table_limit(mem);
        if (need <= limit)
            T_FAIL("%s: refused although the table (<= %llu bytes) fits in %llu: %s", desc,
                   (unsigned long long)need, (unsigned long long)limit, clm_last_error());
        else
            EXPECT(strstr(clm_last_error(), "global") != NULL);
        return;
    }
    if (rc == CLM_E_UNSUPPORTED && algo == CLM_ALGO_KMER &&
        strstr(clm_last_error(), "loop passes")) { /* llvmpipe: a bucket too long to verify */
        EXPECT(strstr(clm_last_error(), "aho") != NULL);
        t_note("%s: refused: %s", desc, clm_last_error());
        return;
    }
    if (!EXPECT_RC(rc, CLM_OK)) {
        t_note("%s: %s", desc, clm_last_error());
        return;
    }
    clm_database_info info;
    if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)) {
        EXPECT(info.algorithm == algo);
        EXPECT(info.pattern_count == set->count);
        uint64_t bound = t_table_bytes(&set->ps, algo);
        EXPECT(info.engines == 1);
        EXPECT(info.table_bytes > 0 && info.table_bytes <= bound);
        EXPECT(info.compile_seconds > 0);
        if (mem == CLM_TABLE_AUTO) {
            EXPECT(info.table_memory != CLM_TABLE_CONSTANT);
        } else {
            EXPECT(info.table_memory == mem);
            if (mem == CLM_TABLE_LOCAL && info.local_table_bytes < info.table_bytes) {
                /* split: the table's head in local memory, the rest global */
                EXPECT(info.table_bytes > t_table_limit(CLM_TABLE_LOCAL));
                EXPECT(info.local_table_bytes > 0 &&
                       info.local_table_bytes <= t_table_limit(CLM_TABLE_LOCAL));
            } else {
                EXPECT((mem == CLM_TABLE_LOCAL) == (info.local_table_bytes == info.table_bytes));
            }
        }
    }
    t_matches_init(&want);
    t_matches_init(&got);
    ref_many(text, n, &set->ps, &want);
    if (t_scratch_alloc(db, &s, slab, capacity, desc)) {
        t_check_scan(db, s, text, n, &want, &got, desc, what);
        if (r) check_stream(db, s, text, n, &want, r, desc);
    }
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&want);
    t_matches_free(&got);
}

/* The engine the running test checks: its argument's (see register_multi_tests). */
typedef struct {
    clm_table_memory mem;
    clm_algorithm algo;
} mem_arg;

#define check_set(...) check_set_with(a->algo, __VA_ARGS__)

/* ---- tests ------------------------------------------------------------------------------- */

/* The reference itself, against the plain one (every pattern compared at every start). */
static void test_reference(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "multi.reference", 0);
    for (int round = 0; round < 6; round++) {
        unsigned alpha = round % 3 == 0 ? 2 : round % 3 == 1 ? 4 : 256;
        size_t n = 3000 + t_below(&r, 3000);
        unsigned char *text = random_text(&r, n, alpha);
        pset set;
        make_set(&set, &r, text, n, alpha, 60, 1, 12, round >= 4);
        t_matches a, b;
        char diff[512];
        t_matches_init(&a);
        t_matches_init(&b);
        ref_many(text, n, &set.ps, &a);
        t_reference(text, n, &set.ps, &b);
        if (t_matches_diff(&a, &b, diff, sizeof diff)) T_FAIL("round %d: %s", round, diff);
        EXPECT(a.n > 0);
        t_matches_free(&a);
        t_matches_free(&b);
        pset_free(&set);
        free(text);
    }
}

/* 2 to 1000 patterns of 1..40 symbols over 4, 26 and 256 symbols. */
static void test_sets(const void *arg)
{
    const mem_arg *a = arg;
    static const unsigned counts[] = {2, 10, 100, 1000};
    static const unsigned alphas[] = {4, 26, 256};
    t_rng r;
    t_rng_init(&r, "multi.sets", a->mem);
    size_t n = t_quick ? 40000 : 100000;
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        for (size_t ai = 0; ai < sizeof alphas / sizeof alphas[0]; ai++) {
            if (t_smoke && (ci + ai) % 3) continue;
            unsigned char *text = random_text(&r, n, alphas[ai]);
            pset set;
            char what[64];
            make_set(&set, &r, text, n, alphas[ai], counts[ci], 1, 40, 0);
            snprintf(what, sizeof what, "random alpha=%u", alphas[ai]);
            check_set(&set, text, n, 0, a->mem, 0, 0, 0, 0, NULL, what);
            pset_free(&set);
            free(text);
        }
    }
}

/* Matches across every boundary: 8 work-items of 16 bytes per group, slabs of 4099 bytes
 * (and 100), a stream in random pieces, a match buffer that must grow from 16. */
static void test_boundaries(const void *arg)
{
    const mem_arg *a = arg;
    t_rng r;
    t_rng_init(&r, "multi.boundaries", 0);
    size_t n = 30000;
    unsigned char *text = random_text(&r, n, 4);
    pset set;
    make_set(&set, &r, text, n, 4, 50, 1, 70, 0);
    check_set(&set, text, n, 0, CLM_TABLE_GLOBAL, 8, 16, 4099, 16, &r, "tiny geometry");
    check_set(&set, text, n, 0, CLM_TABLE_AUTO, 0, 0, 4099, 0, &r, "small slabs");
    check_set(&set, text, n, 0, CLM_TABLE_GLOBAL, 8, 16, 100, 0, NULL, "100-byte slabs");
    pset_free(&set);
    free(text);
}

/* Periodic and all-match text: a, aa, ... a^40 (and copies) match at every byte, many per
 * byte; (ab)^k patterns on (ab)* text. */
static void test_periodic(const void *arg)
{
    const mem_arg *a = arg;
    t_rng r;
    t_rng_init(&r, "multi.periodic", 0);
    size_t n = 20000, i;
    unsigned char *text = malloc(n);
    if (!text) abort();
    pset set;
    memset(&set, 0, sizeof set);
    set.count = 48;
    set.p = calloc(set.count, sizeof *set.p);
    set.lens = calloc(set.count, sizeof *set.lens);
    set.ids = calloc(set.count, sizeof *set.ids);
    if (!set.p || !set.lens || !set.ids) abort();
    for (i = 0; i < set.count; i++) {
        set.lens[i] = i < 40 ? i + 1 : 1 + (i % 5) * 7; /* the last 8 repeat lengths */
        set.p[i] = malloc(set.lens[i]);
        if (!set.p[i]) abort();
        memset(set.p[i], 'a', set.lens[i]);
        set.ids[i] = (unsigned)i;
    }
    set.ps.pats = (const unsigned char *const *)set.p;
    set.ps.lens = set.lens;
    set.ps.ids = set.ids;
    set.ps.count = set.count;
    memset(text, 'a', n);
    check_set(&set, text, n, 0, CLM_TABLE_AUTO, 0, 0, 0, 0, &r, "all-match a^n");
    check_set(&set, text, n, 0, CLM_TABLE_GLOBAL, 8, 16, 4099, 16, NULL, "all-match tiny");
    for (i = 0; i < set.count; i++) /* (ab)^k a prefixes */
        for (size_t k = 0; k < set.lens[i]; k++) set.p[i][k] = k % 2 ? 'b' : 'a';
    for (i = 0; i < n; i++) text[i] = i % 2 ? 'b' : 'a';
    for (i = 0; i < 40; i++) text[t_below(&r, n)] = 'c'; /* breaks in the period */
    check_set(&set, text, n, 0, CLM_TABLE_AUTO, 0, 0, 0, 0, NULL, "periodic (ab)*");
    pset_free(&set);
    free(text);
}

/* Case folding: letters in both cases, patterns in random case. */
static void test_caseless(const void *arg)
{
    const mem_arg *a = arg;
    t_rng r;
    t_rng_init(&r, "multi.caseless", 0);
    size_t n = 50000;
    unsigned char *text = malloc(n);
    if (!text) abort();
    static const char letters[] = "abcdeABCDE .";
    for (size_t i = 0; i < n; i++) text[i] = (unsigned char)letters[t_below(&r, 12)];
    pset set;
    make_set(&set, &r, text, n, 26, 200, 1, 20, 1);
    check_set(&set, text, n, CLM_CASELESS, CLM_TABLE_AUTO, 0, 0, 0, 0, &r, "caseless");
    pset_free(&set);
    free(text);
}

/* Every byte value in the patterns (the class map has no "other" class left), NUL bytes. */
static void test_allbytes(const void *arg)
{
    const mem_arg *a = arg;
    t_rng r;
    t_rng_init(&r, "multi.allbytes", 0);
    size_t n = 60000;
    unsigned char *text = random_text(&r, n, 256);
    pset set;
    make_set(&set, &r, text, n, 256, 300, 1, 6, 0);
    unsigned char every[256];
    for (int b = 0; b < 256; b++) every[b] = (unsigned char)b;
    free(set.p[0]); /* pattern 0: every byte value once, also planted */
    set.p[0] = xdup(every, 256);
    set.lens[0] = 256;
    memcpy(text + 1000, every, 256);
    memcpy(text + n - 256, every, 256);
    check_set(&set, text, n, 0, CLM_TABLE_GLOBAL, 0, 0, 0, 0, NULL, "all bytes");
    pset_free(&set);
    free(text);
}

/* Many patterns: 20 000 DNA patterns of 8..32 bases drawn from 1 MB (3 000 in quick runs). */
static void test_large(const void *arg)
{
    const mem_arg *a = arg;
    t_rng r;
    t_rng_init(&r, "multi.large", 0);
    size_t n = (size_t)1 << 20;
    unsigned char *text = random_text(&r, n, 4);
    pset set;
    make_set(&set, &r, text, n, 4, t_quick ? 3000 : 20000, 8, 32, 0);
    check_set(&set, text, n, 0, CLM_TABLE_AUTO, 0, 0, 0, 0, NULL, "many DNA patterns");
    pset_free(&set);
    free(text);
}

/* A table larger than local memory, asked for there: its head goes to local memory (the
 * shallowest states), the rest stays global, and the walk crosses between them. */
static void test_split(const void *arg)
{
    const mem_arg *a = arg;
    t_rng r;
    t_rng_init(&r, "multi.split", 0);
    size_t n = (size_t)1 << 19;
    unsigned char *text = random_text(&r, n, 4);
    pset set;
    unsigned count = 8000;
    make_set(&set, &r, text, n, 4, count, 8, 32, 0);
    while (t_table_bytes(&set.ps, CLM_ALGO_AHO) / 4 < t_table_limit(CLM_TABLE_LOCAL)) {
        pset_free(&set); /* a device with more local memory: more patterns */
        count *= 2;
        make_set(&set, &r, text, n, 4, count, 8, 32, 0);
    }
    check_set(&set, text, n, 0, CLM_TABLE_LOCAL, 0, 0, 0, 0, &r, "split table");
    check_set(&set, text, n, 0, CLM_TABLE_LOCAL, 8, 16, 5003, 16, NULL, "split, tiny");
    pset_free(&set);
    free(text);
}

/* DNA, both strands: aho (reverse complements as patterns of the group) against bitap's
 * engines, which the DNA tests check against their own reference; strands compared. */
typedef struct {
    clm_match *v;
    size_t n, cap;
} mlist;

static int collect_all(const clm_match *m, void *ctx)
{
    mlist *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) abort();
    }
    l->v[l->n++] = *m;
    return 0;
}

static void test_dna(const void *arg)
{
    const mem_arg *ma = arg;
    t_rng r;
    t_rng_init(&r, "multi.dna", 0);
    size_t n = 80000;
    unsigned char *text = random_text(&r, n, 4);
    for (size_t i = 0; i < n; i += 1 + t_below(&r, 500)) text[i] = 'N';
    for (size_t i = 0; i < n; i += 1 + t_below(&r, 700)) text[i] = "acgt"[t_below(&r, 4)];
    pset set;
    make_set(&set, &r, text, n, 4, 40, 3, 24, 0);
    free(set.p[1]); /* a palindrome: both strands match at one place */
    set.p[1] = xdup((const unsigned char *)"ACGTTAACGT", 10);
    set.lens[1] = 10;
    memcpy(text + 5000, "ACGTTAACGT", 10);
    for (unsigned i = 0; i < set.count; i++) /* plain bases in upper case */
        for (size_t k = 0; k < set.lens[i]; k++)
            set.p[i][k] = set.p[i][k] == 'N' ? 'A' : (unsigned char)(set.p[i][k] & 0xdf);
    static const unsigned flag_sets[] = {CLM_DNA | CLM_BOTH_STRANDS,
                                         CLM_DNA | CLM_BOTH_STRANDS | CLM_CASELESS, CLM_DNA};
    for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
        mlist got[2];
        memset(got, 0, sizeof got);
        for (int pass = 0; pass < 2; pass++) {
            clm_database *db = NULL;
            clm_scratch *s = NULL;
            clm_algorithm algo = pass ? CLM_ALGO_BITAP : ma->algo;
            if (!EXPECT_RC(t_compile(&set.ps, algo, CLM_TABLE_AUTO, flag_sets[f], 0, 0, &db),
                           CLM_OK)) {
                t_note("flags 0x%x %s: %s", flag_sets[f], clm_algorithm_name(algo),
                       clm_last_error());
                continue;
            }
            if (t_scratch_alloc(db, &s, 7001, 0, "dna"))
                EXPECT_RC(clm_scan(db, s, text, n, collect_all, &got[pass]), CLM_OK);
            clm_scratch_free(s);
            clm_database_free(db);
        }
        if (!EXPECT(got[0].n == got[1].n))
            t_note("flags 0x%x: %s %zu matches, bitap %zu", flag_sets[f],
                   clm_algorithm_name(ma->algo), got[0].n, got[1].n);
        for (size_t i = 0; i < got[0].n && i < got[1].n; i++) {
            const clm_match *a = &got[0].v[i], *b = &got[1].v[i];
            if (a->start != b->start || a->end != b->end || a->id != b->id ||
                a->strand != b->strand) {
                T_FAIL("flags 0x%x: match %zu: %s [%llu,%llu) id %u strand %d, bitap "
                       "[%llu,%llu) id %u strand %d", flag_sets[f], i, clm_algorithm_name(ma->algo),
                       (unsigned long long)a->start, (unsigned long long)a->end, a->id,
                       a->strand, (unsigned long long)b->start, (unsigned long long)b->end,
                       b->id, b->strand);
                break;
            }
        }
        EXPECT(got[0].n > 0);
        free(got[0].v);
        free(got[1].v);
    }
    pset_free(&set);
    free(text);
}

/* kmer's sample step s = shortest - q + 1 (q <= 16) and its cap of 32: sets whose shortest
 * pattern is 12 to 50 bytes, occurrences planted at every phase of the step, ranges of 16
 * bytes shorter than the step, slabs of 101 and 4099 bytes, streams; DNA and any bytes. */
static void test_steps(const void *arg)
{
    const mem_arg *a = arg;
    static const struct {
        size_t minl, maxl;
        unsigned alpha, count;
        int caseless;
    } sets[] = {{20, 20, 4, 300, 0}, {12, 13, 4, 50, 0}, {13, 40, 4, 200, 1},
                {50, 70, 4, 100, 0}, {16, 30, 256, 100, 0}, {24, 24, 26, 500, 1}};
    t_rng r;
    t_rng_init(&r, "multi.steps", 0);
    size_t n = 50000;
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        unsigned char *text = random_text(&r, n, sets[k].alpha);
        pset set;
        char what[64];
        make_set(&set, &r, text, n, sets[k].alpha, sets[k].count, sets[k].minl, sets[k].maxl,
                 sets[k].caseless);
        for (size_t at = 7; at + 80 < n; at += 997) /* pattern 0 at every phase */
            memcpy(text + at, set.p[0], set.lens[0]);
        snprintf(what, sizeof what, "steps %zu..%zu alpha=%u", sets[k].minl, sets[k].maxl,
                 sets[k].alpha);
        unsigned flags = sets[k].caseless ? CLM_CASELESS : 0;
        check_set(&set, text, n, flags, CLM_TABLE_AUTO, 0, 0, 0, 0, &r, what);
        check_set(&set, text, n, flags, CLM_TABLE_GLOBAL, 8, 16, 101, 16, NULL, what);
        check_set(&set, text, n, flags, CLM_TABLE_LOCAL, 8, 16, 4099, 0, &r, what);
        pset_free(&set);
        free(text);
    }
}

/* auto takes aho for two or more exact patterns, classes included while their literal
 * variants are few, and not for one pattern or errors; aho refuses what it cannot search
 * (errors, classes of too many variants), naming bitap. */
static void test_choice(const void *arg)
{
    (void)arg;
    const unsigned char *pats[3] = {(const unsigned char *)"abc", (const unsigned char *)"b.d",
                                    (const unsigned char *)"xyz"};
    const unsigned char *wide_pats[2] = {(const unsigned char *)"abc",
                                         (const unsigned char *)"b..........d"};
    const size_t lens[3] = {3, 3, 3}, wide_lens[2] = {3, 12};
    t_patset two = {pats, lens, NULL, 2, 0}, one = {pats, lens, NULL, 1, 0};
    t_patset wide = {wide_pats, wide_lens, NULL, 2, 0}; /* 5^10 variants of 12 bytes */
    clm_database *db = NULL;
    clm_database_info info;
    struct {
        const t_patset *ps;
        unsigned flags, k;
        int aho;
    } cases[] = {{&two, 0, 0, 1},
                 {&one, 0, 0, 0},
                 {&two, CLM_CLASSES, 0, 1},
                 {&wide, CLM_CLASSES, 0, 0},
                 {&two, 0, 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!EXPECT_RC(t_compile_ex(cases[i].ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, cases[i].flags,
                                    0, 0, CLM_VARIANT_AUTO, cases[i].k, &db),
                       CLM_OK))
            continue;
        if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK) &&
            !EXPECT((info.algorithm == CLM_ALGO_AHO) == cases[i].aho))
            t_note("case %zu: %s (%s)", i, clm_algorithm_name(info.algorithm), info.choice);
        clm_database_free(db);
        db = NULL;
        if (cases[i].aho) continue;
        if (cases[i].ps == &one) continue; /* one literal pattern: aho takes it too */
        int rc = t_compile_ex(cases[i].ps, CLM_ALGO_AHO, CLM_TABLE_AUTO, cases[i].flags, 0, 0,
                              CLM_VARIANT_AUTO, cases[i].k, &db);
        if (EXPECT_RC(rc, CLM_E_UNSUPPORTED))
            EXPECT(strstr(clm_last_error(), "bitap") != NULL);
        clm_database_free(db);
        db = NULL;
    }
}

/* ---- CLM_LINES ---------------------------------------------------------------------------- */

static int cmp_match(const void *a, const void *b)
{
    const clm_match *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* CLM_LINES: every match reported is one, every line where a match starts has one reported
 * (a line starting after a '\n' or NUL byte), far fewer are reported than there are, and
 * clm_count counts them all. Lines of up to 150 bytes: dense ('a' and 'b', matches at every
 * byte), sparse ('x' with or without one "qz"), empty; patterns that hold a line end and
 * start on the line before one that reports a shorter match first ("x\nab" after "a").
 * Work-items of 16 to 256 bytes, slabs of 4 KiB: line ends on every boundary. */
static void test_lines(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "multi.lines", 0);
    const size_t n = 120000;
    unsigned char *text = malloc(n);
    size_t *line = malloc(n * sizeof *line); /* the line of each byte */
    if (!text || !line) abort();
    size_t nlines = 0;
    for (size_t i = 0; i < n;) {
        const size_t kind = t_below(&r, 4), len = kind == 3 ? 0 : t_below(&r, 151);
        const size_t plant = kind == 1 && len >= 2 ? t_below(&r, len - 1) : SIZE_MAX;
        for (size_t k = 0; k < len && i < n; k++, i++) {
            text[i] = kind == 0        ? "ab"[t_below(&r, 2)]
                      : k == plant     ? 'q'
                      : k == plant + 1 ? 'z'
                                       : 'x';
            line[i] = nlines;
        }
        if (i < n) {
            text[i] = t_below(&r, 8) ? '\n' : 0;
            line[i++] = nlines++;
        }
    }
    static const char *const lit[] = {"a", "ab", "bba", "abab", "qz", "x\nab", "x\0b", "xq",
                                      "zx\n"};
    static const size_t lit_len[] = {1, 2, 3, 4, 2, 4, 3, 2, 3};
    pset set;
    memset(&set, 0, sizeof set);
    set.count = sizeof lit / sizeof lit[0];
    set.p = calloc(set.count, sizeof *set.p);
    set.lens = calloc(set.count, sizeof *set.lens);
    set.ids = calloc(set.count, sizeof *set.ids);
    if (!set.p || !set.lens || !set.ids) abort();
    for (unsigned k = 0; k < set.count; k++) {
        set.p[k] = xdup((const unsigned char *)lit[k], lit_len[k]);
        set.lens[k] = lit_len[k];
        set.ids[k] = 5 + k;
    }
    set.ps.pats = (const unsigned char *const *)set.p;
    set.ps.lens = set.lens;
    set.ps.ids = set.ids;
    set.ps.count = set.count;
    t_matches want;
    t_matches_init(&want);
    ref_many(text, n, &set.ps, &want);
    unsigned char *want_line = calloc(nlines + 1, 1), *got_line = calloc(nlines + 1, 1);
    if (!want_line || !got_line) abort();
    for (size_t i = 0; i < want.n; i++) want_line[line[want.v[i].start]] = 1;
    qsort(want.v, want.n, sizeof *want.v, cmp_match);
    static const unsigned bpis[] = {16, 64, 256};
    for (size_t b = 0; b < sizeof bpis / sizeof bpis[0]; b++) {
        char desc[96];
        snprintf(desc, sizeof desc, "CLM_LINES, %u patterns, bpi=%u", set.count, bpis[b]);
        clm_database *db = NULL;
        clm_scratch *s = NULL;
        t_matches got;
        t_matches_init(&got);
        if (!EXPECT_RC(t_compile(&set.ps, CLM_ALGO_AHO, CLM_TABLE_AUTO, CLM_LINES, 0, bpis[b],
                                 &db), CLM_OK)) {
            t_note("%s: %s", desc, clm_last_error());
            continue;
        }
        uint64_t count = 0;
        if (t_scratch_alloc(db, &s, 4096, 0, desc) &&
            EXPECT_RC(clm_scan(db, s, text, n, t_collect, &got), CLM_OK) &&
            EXPECT_RC(clm_count(db, s, text, n, &count), CLM_OK)) {
            EXPECT(count == want.n);
            qsort(got.v, got.n, sizeof *got.v, cmp_match);
            size_t j = 0, missing = 0;
            memset(got_line, 0, nlines + 1);
            for (size_t i = 0; i < got.n; i++) { /* got is a subset of want */
                while (j < want.n && cmp_match(&want.v[j], &got.v[i]) < 0) j++;
                if (j == want.n || cmp_match(&want.v[j], &got.v[i]) != 0) missing++;
                else got_line[line[got.v[i].start]] = 1;
            }
            if (missing)
                T_FAIL("%s: %zu of %zu reported matches are not matches", desc, missing, got.n);
            for (size_t k = 0; k <= nlines; k++)
                if (want_line[k] != got_line[k]) {
                    T_FAIL("%s: line %zu: %s", desc, k,
                           want_line[k] ? "has a match, none reported" : "reported, no match");
                    break;
                }
            if (got.n * 4 > want.n) /* a dense line holds dozens */
                T_FAIL("%s: %zu of %zu matches reported", desc, got.n, want.n);
        }
        clm_scratch_free(s);
        clm_database_free(db);
        t_matches_free(&got);
    }
    clm_database *db = NULL;
    EXPECT_RC(t_compile(&set.ps, CLM_ALGO_AHO, CLM_TABLE_AUTO, CLM_LINES | CLM_DNA, 0, 0, &db),
              CLM_E_INVALID);
    clm_database_free(db);
    t_matches_free(&want);
    pset_free(&set);
    free(want_line);
    free(got_line);
    free(line);
    free(text);
}

void register_multi_tests(void)
{
    static const clm_algorithm algos[] = {CLM_ALGO_AHO, CLM_ALGO_KMER};
    static const clm_table_memory mems[] = {CLM_TABLE_GLOBAL, CLM_TABLE_LOCAL, CLM_TABLE_AUTO};
    static mem_arg args[2][3];
    static const struct {
        const char *name;
        t_fn fn;
        int quick;
    } each[] = {{"boundaries", test_boundaries, 1}, {"periodic", test_periodic, 1},
                {"caseless", test_caseless, 1},     {"allbytes", test_allbytes, 0},
                {"large", test_large, 0},           {"dna", test_dna, 1}};
    char name[64];
    t_register("multi.reference", test_reference, NULL, 1);
    for (size_t g = 0; g < 2; g++) {
        /* aho keeps its old names; kmer's have its name after "multi." */
        const char *tag = g ? "kmer." : "";
        for (size_t i = 0; i < 3; i++) {
            args[g][i] = (mem_arg){mems[i], algos[g]};
            snprintf(name, sizeof name, "multi.%ssets.%s", tag, clm_table_memory_name(mems[i]));
            t_register(name, test_sets, &args[g][i], mems[i] == CLM_TABLE_GLOBAL);
        }
        for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
            snprintf(name, sizeof name, "multi.%s%s", tag, each[i].name);
            t_register(name, each[i].fn, &args[g][2], each[i].quick);
        }
    }
    t_register("multi.split", test_split, &args[0][2], 1);
    t_register("multi.kmer.steps", test_steps, &args[1][2], 1);
    t_register("multi.choice", test_choice, NULL, 1);
    t_register("multi.lines", test_lines, NULL, 1);
}
