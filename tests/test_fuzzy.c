/*
 * Approximate search (bitap, Wu-Manber, max_errors k > 0) against the test's Sellers DP with
 * the header's start rule (t_ref.c), and CLM_MISMATCHES_ONLY against a Hamming reference:
 * k from 1 to 8, pattern lengths across the 64-bit word edges up to CLM_BITAP_MAX_LENGTH,
 * approximate copies with insertions and deletions across work-item, work-group and slab
 * boundaries, matches at both ends of the text, texts shorter than the pattern, caseless,
 * several patterns, streams, counts, a growing match buffer and table memories.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_ref_util.h"

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static void one_pattern(fcase *c, const unsigned char **pp, const size_t *m, unsigned flags,
                        unsigned k)
{
    c->fs.pats = pp;
    c->fs.lens = m;
    c->fs.ids = NULL;
    c->fs.count = 1;
    c->fs.flags = flags;
    c->fs.k = k;
}

/* Plant a copy of p with `edits` random edits at `at` (clipped to the text). */
static void plant_mutated(t_rng *r, unsigned char *text, size_t n, size_t at,
                          const unsigned char *p, size_t m, unsigned edits, int subs_only,
                          unsigned alpha)
{
    unsigned char *buf = xmalloc(m + edits + 1);
    size_t len = t_mutate(r, p, m, edits, subs_only, alpha, buf);
    if (at < n) memcpy(text + at, buf, len <= n - at ? len : n - at);
    free(buf);
}

/* Random text over alpha with mutated copies (0..k+1 edits) planted at random places, at the
 * very start and ending at the very end. */
static unsigned char *fuzzy_text(t_rng *r, size_t n, const unsigned char *p, size_t m,
                                 unsigned k, int subs_only, unsigned alpha, unsigned copies)
{
    unsigned char *text = xmalloc(n);
    unsigned i;
    t_fill(r, text, n, alpha);
    if (n == 0) return text;
    for (i = 0; i < copies; i++)
        plant_mutated(r, text, n, t_below(r, n), p, m, (unsigned)t_below(r, k + 2), subs_only,
                      alpha);
    plant_mutated(r, text, n, 0, p, m, k, subs_only, alpha);
    if (n > m + k) {
        unsigned char *buf = xmalloc(m + k + 1);
        size_t len = t_mutate(r, p, m, k, subs_only, alpha, buf);
        memcpy(text + n - len, buf, len);
        free(buf);
    }
    return text;
}

/* ---- the reference checked against plain brute force ---------------------------------------- */

/* Full (unbanded) edit distance between two byte strings. */
static unsigned ed_full(const unsigned char *a, size_t m, const unsigned char *b, size_t L)
{
    unsigned row[64], prev[64];
    size_t i, j;
    for (j = 0; j <= L; j++) prev[j] = (unsigned)j;
    for (i = 1; i <= m; i++) {
        row[0] = (unsigned)i;
        for (j = 1; j <= L; j++) {
            unsigned v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            row[j] = v;
        }
        memcpy(prev, row, (L + 1) * sizeof *row);
    }
    return prev[L];
}

/* For small random cases: t_reference_ex against min over every start of the full distance,
 * and the start chosen by scanning every start. */
static void test_reference(const void *arg)
{
    t_rng r;
    unsigned iter, iters = t_quick ? 300 : 3000;
    t_matches got, want;
    (void)arg;
    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "fuzzy-reference", 0);
    for (iter = 0; iter < iters && !t_failures(); iter++) {
        unsigned alpha = 2 + (unsigned)t_below(&r, 2), k = 1 + (unsigned)t_below(&r, 3);
        size_t m = k + 1 + t_below(&r, 5), n = t_below(&r, 30), e, s;
        unsigned char p[16], text[40];
        const unsigned char *pp = p;
        t_fset fs;
        char diff[512];
        t_fill(&r, p, m, alpha == 3 ? 4 : alpha);
        t_fill(&r, text, n, alpha == 3 ? 4 : alpha);
        fs.pats = &pp;
        fs.lens = &m;
        fs.ids = NULL;
        fs.count = 1;
        fs.flags = 0;
        fs.k = k;
        t_reference_ex(text, n, &fs, &got);
        t_matches_clear(&want);
        for (e = 1; e <= n; e++) {
            unsigned best = 1000, bestlen_d = 1000;
            size_t best_s = 0;
            for (s = 0; s <= e; s++) {
                unsigned d = ed_full(p, m, text + s, e - s);
                if (d < best) best = d;
            }
            if (best > k) continue;
            /* among starts of distance best: |len - m| smallest, earlier start on a tie */
            for (s = 0; s <= e; s++) {
                size_t L = e - s;
                unsigned dist = (unsigned)(L > m ? L - m : m - L);
                if (ed_full(p, m, text + s, L) == best && dist < bestlen_d) {
                    bestlen_d = dist;
                    best_s = s;
                }
            }
            t_matches_push_e(&want, best_s, e, 0, best);
        }
        t_matches_sort(&want);
        if (t_matches_diff(&got, &want, diff, sizeof diff))
            T_FAIL("reference self-test: pattern \"%s\" k=%u text \"%.*s\": %s",
                   t_show(p, m), k, (int)n, (const char *)text, diff);
    }
    t_matches_free(&got);
    t_matches_free(&want);
}

/* ---- approximate search, one pattern ------------------------------------------------------------ */

typedef struct {
    const char *name;
    unsigned flags;           /* CLM_MISMATCHES_ONLY, CLM_CASELESS */
    const unsigned *ks;       /* (k, m) pairs */
    const size_t *ms;
    size_t count;
    size_t nquick;            /* the first nquick pairs form the quick subset */
} fuzzy_arg;

/* Lengths around the 64-bit word edges up to CLM_BITAP_MAX_LENGTH (each (m, k, alphabet) is
 * a kernel build, so the matrix is sampled: the alphabet rotates with the index). */
static const unsigned k1_k[] = {1, 1, 1, 1, 1, 1};
static const size_t k1_m[] = {2, 33, 256, 64, 65, 129};
static const unsigned k2_k[] = {2, 2, 2, 2};
static const size_t k2_m[] = {5, 65, 3, 255};
static const unsigned k3_k[] = {3, 3, 3};
static const size_t k3_m[] = {8, 128, 4};
static const unsigned kbig_k[] = {4, 8, 6};
static const size_t kbig_m[] = {16, 9, 64};
static const unsigned ham_k[] = {1, 2, 3, 1, 3};
static const size_t ham_m[] = {17, 64, 65, 2, 256};

static const fuzzy_arg fuzzy_args[] = {
    {"fuzzy.k1", 0, k1_k, k1_m, sizeof k1_m / sizeof k1_m[0], 3},
    {"fuzzy.k2", 0, k2_k, k2_m, sizeof k2_m / sizeof k2_m[0], 2},
    {"fuzzy.k3", 0, k3_k, k3_m, sizeof k3_m / sizeof k3_m[0], 2},
    {"fuzzy.k4-8", 0, kbig_k, kbig_m, sizeof kbig_m / sizeof kbig_m[0], 2},
    {"fuzzy.mismatches", CLM_MISMATCHES_ONLY, ham_k, ham_m, sizeof ham_m / sizeof ham_m[0], 3},
};

static void test_fuzzy(const void *arg)
{
    static const unsigned alphas[] = {4, 2, 26, 256};
    const fuzzy_arg *a = arg;
    size_t i;
    fcase c;
    t_rng r;

    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, a->name, 0);
    for (i = 0; i < a->count; i++) {
        unsigned k = a->ks[i], alpha = alphas[i % 4];
        size_t m = a->ms[i], n = t_quick ? 3000 : 12000, j;
        unsigned char *p = t_pattern(alpha, m), *text;
        const unsigned char *pp = p;
        int subs = (a->flags & CLM_MISMATCHES_ONLY) != 0;
        char what[64];

        if (t_quick && i >= a->nquick) {
            free(p);
            continue;
        }
        /* on 2 symbols a short pattern with k edits matches nearly everywhere: keep it */
        one_pattern(&c, &pp, &m, a->flags, k);
        c.variant = i % 2 ? CLM_VARIANT_ITEM : CLM_VARIANT_AUTO;
        snprintf(what, sizeof what, "alpha=%u", alpha);
        if (!fcase_open(&c, what)) {
            free(p);
            continue;
        }
        /* random text with mutated copies */
        text = fuzzy_text(&r, n, p, m, k, subs, alpha, 30);
        fcase_check(&c, text, n, "random-with-mutated-copies");
        /* through small slabs (approximate matches across slab edges) */
        if (i % 3 == 0 && fcase_scratch(&c, 4099, 0)) {
            fcase_check(&c, text, n, "random-slab-4099");
            fcase_scratch(&c, (size_t)1 << 20, 0);
        }
        /* edge texts: empty, and shorter than the pattern (deletions still match) */
        fcase_check(&c, text, 0, "empty");
        for (j = 0; j <= k + 1 && j < m; j++) {
            unsigned char *buf = xmalloc(m + 1);
            size_t len = m - j, e;
            /* the pattern with j bytes deleted, so the text is m - j long */
            memcpy(buf, p, m);
            for (e = 0; e < j; e++) {
                size_t at = t_below(&r, m - e);
                memmove(buf + at, buf + at + 1, m - e - at - 1);
            }
            snprintf(what, sizeof what, "shorter-than-pattern(%zu deletions)", j);
            fcase_check(&c, buf, len, what);
            free(buf);
        }
        /* exactly the pattern, and the pattern with k edits */
        fcase_check(&c, p, m, "exactly-the-pattern");
        {
            unsigned char *buf = xmalloc(m + k + 1);
            size_t len = t_mutate(&r, p, m, k, subs, alpha, buf);
            fcase_check(&c, buf, len, "the-pattern-with-k-edits");
            free(buf);
        }
        fcase_close(&c);
        free(text);
        free(p);
    }
    fcase_free(&c);
}

/* ---- boundaries -------------------------------------------------------------------------------- */

/* Approximate copies with insertions and deletions planted at work-item, work-group and slab
 * boundaries (± up to m + k bytes), in a tiny geometry (8 items of 16 bytes) and the
 * default one, through slabs of 4096, 4099 and 65537 bytes. */
static void test_boundary(const void *arg)
{
    static const struct { unsigned k; size_t m; unsigned alpha; unsigned wgs, bpi; int quick; } bc[] = {
        {2, 33, 26, 8, 16, 1}, {3, 100, 4, 8, 16, 0}, {1, 256, 26, 8, 16, 0},
        {2, 65, 4, 0, 0, 1}};
    static const size_t slabs[] = {4096, 4099, 65537};
    size_t i, si;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-boundary", 0);
    for (i = 0; i < sizeof bc / sizeof bc[0]; i++) {
        size_t m = bc[i].m, item, group;
        unsigned k = bc[i].k;
        unsigned char *p = t_pattern(bc[i].alpha, m);
        const unsigned char *pp = p;
        if (t_quick && !bc[i].quick) {
            free(p);
            continue;
        }
        one_pattern(&c, &pp, &m, 0, k);
        c.wgs = bc[i].wgs;
        c.bpi = bc[i].bpi;
        if (!fcase_open(&c, "boundaries")) {
            free(p);
            continue;
        }
        item = c.info.bytes_per_item >= 16 ? c.info.bytes_per_item : 16;
        group = item * c.info.work_group_size;
        for (si = 0; si < (t_quick ? 2u : 3u); si++) {
            size_t slab = slabs[si], n = 4 * slab + m, pos, j = 0;
            unsigned char *text;
            char what[128];
            if (n < 3 * group + item) n = 3 * group + item;
            if (n > ((size_t)1 << 20)) n = (size_t)1 << 20;
            text = xmalloc(n);
            t_fill(&r, text, n, bc[i].alpha);
            /* item edges: every few items, the copy ending or starting around the edge */
            for (pos = item; pos < n && pos < 200 * item; pos += item * ((m + k) / item + 2), j++) {
                size_t back = t_below(&r, m + k + 1);
                plant_mutated(&r, text, n, pos >= back ? pos - back : 0, p, m,
                              1 + (unsigned)t_below(&r, k), 0, bc[i].alpha);
            }
            for (pos = group; pos < n; pos += group) {
                size_t back = t_below(&r, m + k + 1);
                plant_mutated(&r, text, n, pos >= back ? pos - back : 0, p, m,
                              (unsigned)t_below(&r, k + 1), 0, bc[i].alpha);
            }
            for (pos = slab; pos < n; pos += slab) {
                /* around the slab edge and around the start of the next slab's overlap */
                size_t back = t_below(&r, m + k + 1), back2 = m + k - 1 - t_below(&r, 3);
                plant_mutated(&r, text, n, pos - back, p, m, 1 + (unsigned)t_below(&r, k), 0,
                              bc[i].alpha);
                if (pos > back2 + 2 * (m + k))
                    plant_mutated(&r, text, n, pos - back2 - 2 * (m + k), p, m, k, 0, bc[i].alpha);
            }
            if (!fcase_scratch(&c, slab, 0)) break;
            snprintf(what, sizeof what, "boundaries(item=%zu group=%zu slab=%zu)", item, group,
                     slab);
            fcase_check(&c, text, n, what);
            free(text);
        }
        fcase_close(&c);
        free(p);
    }
    fcase_free(&c);
}

/* ---- caseless --------------------------------------------------------------------------------- */

static void test_caseless(const void *arg)
{
    static const unsigned char letters[] = "acgtACGTxyzXYZ@[`{";
    static const struct { unsigned k; size_t m; unsigned flags; } cc[] = {
        {1, 5, 0}, {2, 17, 0}, {2, 64, 0}, {1, 33, CLM_MISMATCHES_ONLY}};
    size_t n = t_quick ? 3000 : 15000, i, j, q;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-caseless", 0);
    for (i = 0; i < sizeof cc / sizeof cc[0]; i++) {
        size_t m = cc[i].m;
        unsigned k = cc[i].k;
        unsigned char *p = xmalloc(m), *text = xmalloc(n), *buf = xmalloc(m + k + 1);
        const unsigned char *pp = p;
        if (t_quick && i % 2) goto next;
        for (j = 0; j < m; j++) p[j] = letters[t_below(&r, sizeof letters - 1)];
        for (j = 0; j < n; j++) text[j] = letters[t_below(&r, sizeof letters - 1)];
        for (q = 0; q < 25; q++) {
            size_t len = t_mutate(&r, p, m, (unsigned)t_below(&r, k + 2),
                                  (cc[i].flags & CLM_MISMATCHES_ONLY) != 0, 4, buf);
            size_t at = t_below(&r, n - len);
            for (j = 0; j < len; j++) {
                unsigned char ch = buf[j];
                if (((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z') && t_below(&r, 2)) ch ^= 0x20;
                text[at + j] = ch;
            }
        }
        one_pattern(&c, &pp, &m, CLM_CASELESS | cc[i].flags, k);
        if (fcase_open(&c, NULL)) fcase_check(&c, text, n, "mixed-case-mutated-copies");
        fcase_close(&c);
    next:
        free(buf);
        free(text);
        free(p);
    }
    fcase_free(&c);
}

/* ---- several patterns --------------------------------------------------------------------------- */

typedef struct {
    unsigned char *buf[6];
    const unsigned char *pats[6];
    size_t lens[6];
    unsigned ids[6];
    unsigned count;
} fset_own;

/* 3, 8, 17, 64 and 100 bytes over ACGT, and the 17 again under another id; ids out of order. */
static void multi_make(fset_own *o)
{
    static const size_t ls[6] = {3, 8, 17, 64, 100, 17};
    static const unsigned ids[6] = {40, 7, 23, 3, 99, 5};
    unsigned i;
    for (i = 0; i < 6; i++) {
        o->buf[i] = t_pattern(4, ls[i]);
        o->pats[i] = o->buf[i];
        o->lens[i] = ls[i];
        o->ids[i] = ids[i];
    }
    o->count = 6;
}

static void multi_free(fset_own *o)
{
    unsigned i;
    for (i = 0; i < o->count; i++) free(o->buf[i]);
}

static unsigned char *multi_text(t_rng *r, const fset_own *o, size_t n, unsigned k, int subs)
{
    unsigned char *text = xmalloc(n);
    unsigned i, q;
    t_fill(r, text, n, 4);
    for (q = 0; q < 12; q++)
        for (i = 0; i < o->count; i++)
            plant_mutated(r, text, n, t_below(r, n), o->pats[i], o->lens[i],
                          (unsigned)t_below(r, k + 2), subs, 4);
    return text;
}

static void test_multi(const void *arg)
{
    size_t n = t_quick ? 3000 : 20000;
    unsigned pass;
    fset_own o;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    multi_make(&o);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-multi", 0);
    for (pass = 0; pass < 2; pass++) {
        /* k = 2 Levenshtein; k = 2 Hamming with NULL ids (caseless: fuzzy.caseless) */
        unsigned k = 2, flags = pass == 1 ? CLM_MISMATCHES_ONLY : 0;
        unsigned char *text = multi_text(&r, &o, n, k, pass == 1);
        c.fs.pats = o.pats;
        c.fs.lens = o.lens;
        c.fs.ids = pass == 1 ? NULL : o.ids;
        c.fs.count = o.count;
        c.fs.flags = flags;
        c.fs.k = k;
        if (fcase_open(&c, "several-patterns")) {
            fcase_check(&c, text, n, "multi");
            if (fcase_scratch(&c, 4099, 0)) fcase_check(&c, text, n, "multi-slab-4099");
        }
        fcase_close(&c);
        free(text);
        if (t_quick) break;
    }
    multi_free(&o);
    fcase_free(&c);
}

/* ---- streams ------------------------------------------------------------------------------------ */

/* Pieces: 1..13 bytes for the first 2000 bytes, then a mix up to 3 slabs. */
static size_t piece(t_rng *r, size_t done, size_t left)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 251, 509, 4093, 4096, 4097, 12295};
    size_t k = done < 2000 ? 1 + t_below(r, 13) : sizes[t_below(r, sizeof sizes / sizeof sizes[0])];
    return k < left ? k : left;
}

static void stream_body(void)
{
    size_t n = t_quick ? 12000 : 60000;
    unsigned pass;
    fset_own o;
    fcase c;
    t_rng r;
    fcase_init(&c);
    multi_make(&o);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-stream", 0);
    for (pass = 0; pass < 3; pass++) {
        /* the 33-byte pattern alone with k = 3; the set with k = 2; Hamming k = 2 */
        unsigned char *p33 = t_pattern(26, 33), *text;
        const unsigned char *pp = p33;
        size_t m33 = 33, done = 0, writes = 0, flushes = 0;
        clm_stream *st = NULL;
        t_matches got;
        uint64_t total = 0;
        char diff[512];
        int rc = CLM_OK;

        t_matches_init(&got);
        if (pass == 0) {
            one_pattern(&c, &pp, &m33, 0, 3);
            text = fuzzy_text(&r, n, p33, m33, 3, 0, 26, 200);
        } else {
            c.fs.pats = o.pats;
            c.fs.lens = o.lens;
            c.fs.ids = o.ids;
            c.fs.count = o.count;
            c.fs.flags = pass == 2 ? CLM_MISMATCHES_ONLY : 0;
            c.fs.k = 2;
            text = multi_text(&r, &o, n, 2, pass == 2);
        }
        if (!fcase_open(&c, "stream") || !fcase_scratch(&c, 4096, 0)) goto next;
        /* the one-shot scan is right ... */
        if (!fcase_check(&c, text, n, "one-shot")) goto next;
        /* ... and the stream gives the same, with a flush every 5th write */
        if (!EXPECT_RC(clm_stream_open(c.db, c.s, 0, &st), CLM_OK)) goto next;
        while (done < n && rc == CLM_OK) {
            size_t k = piece(&r, done, n - done);
            got.written = done + k;
            rc = clm_stream_write(st, text + done, k, t_collect, &got);
            done += k;
            if (++writes % 5 == 0 && rc == CLM_OK) {
                rc = clm_stream_flush(st, t_collect, &got);
                flushes++;
            }
        }
        EXPECT_RC(rc, CLM_OK);
        got.written = 0;
        EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
        if (t_matches_diff(&got, &c.want, diff, sizeof diff))
            T_FAIL("%s: stream (%zu writes, %zu flushes, slab 4096) vs reference: %s", c.desc,
                   writes, flushes, diff);
        if (total != c.want.n)
            T_FAIL("%s: stream close total %llu, expected %zu", c.desc, (unsigned long long)total,
                   c.want.n);
        if (got.causality_errors)
            T_FAIL("%s: %d matches delivered before all their bytes were written", c.desc,
                   got.causality_errors);
        /* count only, in 1-byte pieces at first */
        if (EXPECT_RC(clm_stream_open(c.db, c.s, CLM_STREAM_COUNT_ONLY, &st), CLM_OK)) {
            done = 0;
            rc = CLM_OK;
            while (done < n && rc == CLM_OK) {
                size_t k = piece(&r, done, n - done);
                rc = clm_stream_write(st, text + done, k, NULL, NULL);
                done += k;
            }
            EXPECT_RC(rc, CLM_OK);
            total = 0;
            EXPECT_RC(clm_stream_close(st, NULL, NULL, &total), CLM_OK);
            if (total != c.want.n)
                T_FAIL("%s: count-only stream total %llu, expected %zu", c.desc,
                       (unsigned long long)total, c.want.n);
        }
    next:
        fcase_close(&c);
        t_matches_free(&got);
        free(text);
        free(p33);
        if (t_quick && pass == 1) break;
    }
    multi_free(&o);
    fcase_free(&c);
}

/* The stream cases run in a child process with an alarm, so that a stream that never returns
 * fails this test instead of hanging the suite. */
#define STREAM_ALARM_S 120

static int child_fuzzy_stream(const char *arg)
{
    unsigned long long seed = 0;
    int quick = 0, rc;
    if (arg && sscanf(arg, "%d %llu", &quick, &seed) == 2) {
        t_quick = quick;
        t_seed = seed;
    }
    alarm(STREAM_ALARM_S);
    rc = clm_device_open(-1, -1, &t_dev);
    if (rc != CLM_OK || clm_device_get_info(t_dev, &t_devinfo, sizeof t_devinfo) != CLM_OK)
        return T_FAIL("child: clm_device_open: %s: %s", clm_strerror(rc), clm_last_error()), 1;
    stream_body();
    clm_device_close(t_dev);
    t_dev = NULL;
    return 0;
}

static void test_stream(const void *arg)
{
    char buf[64];
    int rc;
    (void)arg;
    snprintf(buf, sizeof buf, "%d %llu", t_quick, (unsigned long long)t_seed);
    rc = t_run_child("fuzzy_stream", buf, NULL);
    if (rc != 0)
        T_FAIL("approximate streams (child process): %s%d%s", rc < 0 ? "died on a signal (SIGALRM "
               "after " : "failed (status ", rc < 0 ? STREAM_ALARM_S : rc, rc < 0 ? " s: a stream "
               "call never returned?), see the lines above" : "), see the lines above");
}

/* ---- match buffer growth, stop, table memories -------------------------------------------------- */

/* Matches at nearly every end position (2 symbols, k = 3, m = 8) into a 16-match buffer. */
static void test_growth(const void *arg)
{
    size_t m = 8, n = t_quick ? 5000 : 40000;
    unsigned char *p = t_pattern(2, m), *text;
    const unsigned char *pp = p;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-growth", 0);
    text = xmalloc(n);
    t_fill(&r, text, n, 2);
    one_pattern(&c, &pp, &m, 0, 3);
    if (fcase_open(&c, "growth") && fcase_scratch(&c, 4099, 16)) {
        if (fcase_check(&c, text, n, "dense-matches-capacity-16"))
            EXPECT(c.want.n > n / 2);
        /* stop after a few matches */
        if (c.want.n > 10) {
            t_matches got;
            char diff[512];
            t_matches_init(&got);
            got.limit = 7;
            if (EXPECT_RC(clm_scan(c.db, c.s, text, n, t_collect, &got), CLM_STOPPED)) {
                t_matches prefix = c.want;
                prefix.n = 7;
                if (t_matches_diff(&got, &prefix, diff, sizeof diff))
                    T_FAIL("%s: stop after 7: %s", c.desc, diff);
            }
            t_matches_free(&got);
        }
    }
    fcase_free(&c);
    free(text);
    free(p);
}

static void test_memories(const void *arg)
{
    /* (global tables are what every other approximate test uses on CPUs) */
    static const struct { size_t m; unsigned k, flags, alpha; clm_table_memory mem; } mc[] = {
        {65, 2, 0, 26, CLM_TABLE_LOCAL}, {33, 1, 0, 26, CLM_TABLE_CONSTANT},
        {17, 1, CLM_MISMATCHES_ONLY, 4, CLM_TABLE_LOCAL}};
    size_t n = t_quick ? 3000 : 12000, i;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-mem", 0);
    for (i = 0; i < sizeof mc / sizeof mc[0]; i++) {
        size_t m = mc[i].m;
        unsigned char *p = t_pattern(mc[i].alpha, m), *text;
        const unsigned char *pp = p;
        text = fuzzy_text(&r, n, p, m, mc[i].k, (mc[i].flags & CLM_MISMATCHES_ONLY) != 0,
                          mc[i].alpha, 30);
        one_pattern(&c, &pp, &m, mc[i].flags, mc[i].k);
        c.mem = mc[i].mem;
        if (fcase_open(&c, NULL)) fcase_check(&c, text, n, "table-memory");
        fcase_close(&c);
        free(text);
        free(p);
    }
    fcase_free(&c);
}

void register_fuzzy_tests(void)
{
    size_t i;
    t_register("fuzzy.reference", test_reference, NULL, 1);
    for (i = 0; i < sizeof fuzzy_args / sizeof fuzzy_args[0]; i++)
        t_register(fuzzy_args[i].name, test_fuzzy, &fuzzy_args[i], 1);
    t_register("fuzzy.boundary", test_boundary, NULL, 1);
    t_register("fuzzy.caseless", test_caseless, NULL, 1);
    t_register("fuzzy.multi", test_multi, NULL, 1);
    t_register("fuzzy.stream", test_stream, NULL, 1);
    t_register_child("fuzzy_stream", child_fuzzy_stream);
    t_register("fuzzy.growth", test_growth, NULL, 1);
    t_register("fuzzy.memories", test_memories, NULL, 0);
}
