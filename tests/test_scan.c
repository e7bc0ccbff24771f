/*
 * Scan behaviour beyond plain correctness: match-buffer growth, callback stop, statistics,
 * the longest pattern, and databases shared by threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

typedef struct {
    clm_algorithm algo;
    clm_table_memory mem;
} scan_arg;

static const scan_arg per_algo[] = {{CLM_ALGO_NAIVE, CLM_TABLE_GLOBAL}, {CLM_ALGO_NAIVE, CLM_TABLE_LOCAL},
                                    {CLM_ALGO_NAIVE, CLM_TABLE_CONSTANT}, {CLM_ALGO_KMP, CLM_TABLE_GLOBAL},
                                    {CLM_ALGO_KMP, CLM_TABLE_LOCAL}, {CLM_ALGO_KMP, CLM_TABLE_CONSTANT},
                                    {CLM_ALGO_DFA, CLM_TABLE_GLOBAL}, {CLM_ALGO_DFA, CLM_TABLE_LOCAL},
                                    {CLM_ALGO_DFA, CLM_TABLE_CONSTANT},
                                    {CLM_ALGO_BITAP, CLM_TABLE_GLOBAL}, {CLM_ALGO_BITAP, CLM_TABLE_LOCAL},
                                    {CLM_ALGO_BITAP, CLM_TABLE_CONSTANT}, {CLM_ALGO_BMH, CLM_TABLE_GLOBAL},
                                    {CLM_ALGO_BMH, CLM_TABLE_LOCAL}, {CLM_ALGO_BMH, CLM_TABLE_CONSTANT},
                                    {CLM_ALGO_WITNESS, CLM_TABLE_GLOBAL}, {CLM_ALGO_WITNESS, CLM_TABLE_LOCAL},
                                    {CLM_ALGO_WITNESS, CLM_TABLE_CONSTANT}};

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static clm_scratch *scratch(const clm_database *db, size_t slab, size_t capacity)
{
    clm_scratch_options so;
    clm_scratch *s = NULL;
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = slab;
    so.match_capacity = capacity;
    if (!EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)) return NULL;
    return s;
}

/* Compare a scan with the reference; describe the first difference. */
static int same(const t_matches *got, const t_matches *want, const char *what)
{
    char diff[512];
    if (!t_matches_diff(got, want, diff, sizeof diff)) return 1;
    return T_FAIL("%s: %s", what, diff);
}

/* ---- match buffer growth ----------------------------------------------------------------- */

/* A 16-match device buffer and a text where every position matches: the buffer overflows in
 * every slab, so each slab is rescanned after growing, and nothing may be lost or doubled. */
static void test_growth(const void *arg)
{
    const scan_arg *a = arg;
    size_t m = 2, n = t_quick ? 3000 : 50000, slab;
    unsigned char *text = xmalloc(n);
    const unsigned char *pp = (const unsigned char *)"AA";
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches got, want;
    int rc;

    t_matches_init(&got);
    t_matches_init(&want);
    memset(text, 'A', n);
    /* Some breaks so that not every item is full. */
    text[n / 3] = 'B';
    t_reference(text, n, &ps, &want);
    rc = t_compile(&ps, a->algo, a->mem, 0, 0, 0, &db);
    if (rc == CLM_E_UNSUPPORTED && t_table_bytes(&ps, a->algo) > t_table_limit(a->mem)) goto out;
    if (!EXPECT_RC(rc, CLM_OK)) goto out;
    /* Default slab; small slabs; and a growth limit of 64 matches, so that ranges with more
     * are split and rescanned in pieces. */
    for (slab = 0; slab < 3; slab++) {
        clm_stats st;
        uint64_t count = 0;
        char what[96];
        size_t slab_bytes = slab == 1 ? 4099 : 0;
        clm_scratch_options so;
        clm_scratch_free(s);
        clm_scratch_options_init(&so, sizeof so);
        so.slab_bytes = slab_bytes;
        so.match_capacity = 16;
        so.match_capacity_limit = slab == 2 ? 64 : 0;
        s = NULL;
        if (!EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)) break;
        snprintf(what, sizeof what, "capacity 16, limit %zu, slab %zu, n %zu",
                 so.match_capacity_limit, slab_bytes, n);
        t_matches_clear(&got);
        if (!EXPECT_RC(clm_scan(db, s, text, n, t_collect, &got), CLM_OK)) break;
        same(&got, &want, what);
        if (EXPECT_RC(clm_scratch_get_stats(s, &st, sizeof st), CLM_OK) && !EXPECT(st.rescans > 0))
            t_note("%s: stats.rescans is 0, so the growth path did not run", what);
        EXPECT(st.matches == want.n);
        /* The grown buffer is kept: scanning again gives the same. */
        t_matches_clear(&got);
        if (EXPECT_RC(clm_scan(db, s, text, n, t_collect, &got), CLM_OK)) same(&got, &want, what);
        if (EXPECT_RC(clm_count(db, s, text, n, &count), CLM_OK)) EXPECT(count == want.n);
    }
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
}

/* ---- callback stop ----------------------------------------------------------------------- */

static void test_stop(const void *arg)
{
    const scan_arg *a = arg;
    size_t m = 3, n = t_quick ? 6000 : 60000, i, ci;
    unsigned char *text = xmalloc(n);
    const unsigned char *pp = (const unsigned char *)"aba";
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches got, want;
    t_rng r;
    int rc;

    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "stop", a->algo);
    t_fill(&r, text, n, 2);
    t_reference(text, n, &ps, &want);
    rc = t_compile(&ps, a->algo, a->mem, 0, 0, 0, &db);
    if (!EXPECT_RC(rc, CLM_OK) || !EXPECT(want.n > 100)) goto out;
    /* Small slabs and a small match buffer: stops land in later slabs and in rescans. */
    for (ci = 0; ci < 2; ci++) {
        size_t limits[5];
        limits[0] = 1;
        limits[1] = 7;
        limits[2] = want.n / 2;
        limits[3] = want.n - 1;
        limits[4] = want.n; /* stopping at the very last match still reports a stop */
        clm_scratch_free(s);
        if (!(s = scratch(db, 4096, ci ? 16 : 0))) break;
        for (i = 0; i < 5; i++) {
            char what[96];
            t_matches prefix = want;
            snprintf(what, sizeof what, "stop after %zu of %zu matches, capacity %s", limits[i],
                     want.n, ci ? "16" : "default");
            t_matches_clear(&got);
            got.limit = limits[i];
            rc = clm_scan(db, s, text, n, t_collect, &got);
            got.limit = 0;
            if (!EXPECT_RC(rc, CLM_STOPPED)) {
                t_note("%s", what);
                continue;
            }
            /* Exactly the first k matches, and no callback after the one that said stop. */
            prefix.n = limits[i];
            same(&got, &prefix, what);
        }
        /* The scratch is still usable after a stop. */
        t_matches_clear(&got);
        if (EXPECT_RC(clm_scan(db, s, text, n, t_collect, &got), CLM_OK))
            same(&got, &want, "full scan after stops");
    }
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
}

/* ---- statistics -------------------------------------------------------------------------- */

static void test_stats(const void *arg)
{
    size_t m = 5, n = 20000;
    unsigned char *text = xmalloc(n), *p = t_pattern(4, m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_stats st;
    t_matches want;
    uint64_t count;
    t_rng r;

    (void)arg;
    t_matches_init(&want);
    t_rng_init(&r, "stats", 0);
    t_fill(&r, text, n, 4);
    t_reference(text, n, &ps, &want);
    if (!EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)) goto out;
    if (!(s = scratch(db, 4096, 0))) goto out;
    if (!EXPECT_RC(clm_scratch_get_stats(s, &st, sizeof st), CLM_OK)) goto out;
    EXPECT(st.bytes == 0 && st.slabs == 0 && st.matches == 0 && st.rescans == 0);
    if (!EXPECT_RC(clm_count(db, s, text, n, &count), CLM_OK)) goto out;
    EXPECT(count == want.n);
    if (!EXPECT_RC(clm_scratch_get_stats(s, &st, sizeof st), CLM_OK)) goto out;
    EXPECT(st.bytes >= n);
    EXPECT(st.slabs >= (n + 4095) / 4096);
    EXPECT(st.matches == want.n);
    EXPECT(st.kernel_seconds >= 0 && st.transfer_seconds >= 0 && st.wall_seconds >= 0);
    clm_scratch_reset_stats(s);
    if (!EXPECT_RC(clm_scratch_get_stats(s, &st, sizeof st), CLM_OK)) goto out;
    EXPECT(st.bytes == 0 && st.slabs == 0 && st.matches == 0 && st.rescans == 0);
    EXPECT(st.kernel_seconds == 0 && st.transfer_seconds == 0 && st.wall_seconds == 0);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&want);
    free(text);
    free(p);
}

/* ---- the longest pattern ------------------------------------------------------------------- */

static void test_max_length(const void *arg)
{
    const scan_arg *a = arg;
    size_t m = CLM_MAX_PATTERN_LENGTH, n = 3 * (size_t)CLM_MAX_PATTERN_LENGTH + 12345;
    unsigned char *p = t_pattern(4, m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches got, want;
    t_rng r;
    int rc;

    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "max-length", a->algo);
    t_fill(&r, text, n, 4);
    memcpy(text + 1000, p, m);                 /* one copy */
    memcpy(text + n - m, p, m);                /* one at the very end */
    memcpy(text + m + 5000, p, m);             /* a near copy: last byte differs */
    text[2 * m + 5000 - 1] = p[m - 1] == 'A' ? 'C' : 'A';
    t_reference(text, n, &ps, &want);
    rc = t_compile(&ps, a->algo, a->mem, 0, 0, 0, &db);
    if (a->algo == CLM_ALGO_BITAP) { /* beyond CLM_BITAP_MAX_LENGTH */
        EXPECT_RC(rc, CLM_E_PATTERN_TOO_LONG);
        goto out;
    }
    if (rc == CLM_E_UNSUPPORTED && t_table_bytes(&ps, a->algo) > t_table_limit(a->mem)) goto out;
    /* Mesa's llvmpipe leaves every loop once a work-item has made 65535 passes: naive, bmh and
     * kmp cannot search this length there, and say so (dfa can: auto takes it) */
    if (rc == CLM_E_PATTERN_TOO_LONG && a->algo != CLM_ALGO_AUTO
        && strstr(clm_last_error(), "loop passes"))
        goto out;
    if (!EXPECT_RC(rc, CLM_OK)) goto out;
    if (!(s = scratch(db, 0, 0))) goto out;
    if (EXPECT_RC(clm_scan(db, s, text, n, t_collect, &got), CLM_OK))
        same(&got, &want, "pattern of CLM_MAX_PATTERN_LENGTH bytes");
    EXPECT(want.n == 2);
    /* Shorter than the pattern: nothing, and no error. */
    t_matches_clear(&got);
    if (EXPECT_RC(clm_scan(db, s, text, m - 1, t_collect, &got), CLM_OK)) EXPECT(got.n == 0);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
    free(p);
}

/* ---- unaligned input ------------------------------------------------------------------- */

/* Every start once on each strand, in report order (+1 first): counts those that are. */
static int strand_pairs(const clm_match *m, void *ctx)
{
    size_t *k = ctx; /* [0]: matches seen, [1]: those in their place */
    k[1] += m->start == k[0] / 2 && m->end == m->start + 1 && m->strand == (k[0] % 2 ? -1 : 1);
    k[0]++;
    return 0;
}

/* The smallest match buffer a limit allows must hold every match of 16 bytes, the least a
 * range is split to: with both strands in one pass that is two per start and pattern. A
 * pattern equal to its own reverse complement that matches every base (N) fills it. */
static void test_least_capacity(const void *arg)
{
    const char *pat = "N";
    const size_t n = 1000;
    clm_compile_options o;
    clm_scratch_options so;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info info;
    unsigned char *text = xmalloc(n);
    size_t seen[2] = {0, 0};
    t_rng r;
    (void)arg;
    t_rng_init(&r, "least_capacity", 0);
    t_fill(&r, text, n, 4);
    clm_compile_options_init(&o, sizeof o);
    o.flags = CLM_DNA | CLM_BOTH_STRANDS;
    clm_scratch_options_init(&so, sizeof so);
    so.match_capacity = 1;
    so.match_capacity_limit = 1;
    if (!EXPECT_RC(clm_compile(t_dev, &pat, NULL, NULL, 1, &o, &db), CLM_OK)) goto out;
    EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK);
    if (!EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)) goto out;
    EXPECT_RC(clm_scan(db, s, text, n, strand_pairs, seen), CLM_OK);
    EXPECT(seen[0] == 2 * n && seen[1] == 2 * n);
    t_note("%zu matches for %zu bases, %zu in place (strands in one pass: %d)", seen[0], n,
           seen[1], info.strands_in_one_pass);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    free(text);
}

/* The input pointer and length need no alignment: scan the same bytes from every offset of
 * a 16-byte window, with lengths that are not multiples of anything. */
static void test_unaligned(const void *arg)
{
    size_t m = 11, n = 9001, off;
    unsigned char *p = t_pattern(26, m), *buf = xmalloc(n + 16);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches got, want;
    t_rng r;

    (void)arg;
    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "unaligned", 0);
    if (!EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)
        || !(s = scratch(db, 4096, 0)))
        goto out;
    for (off = 0; off < 16; off++) {
        unsigned char *text = buf + off;
        size_t len = n - off, i;
        char what[64];
        t_fill(&r, text, len, 26);
        for (i = 0; i < 12; i++) memcpy(text + t_below(&r, len - m), p, m);
        memcpy(text, p, m);
        memcpy(text + len - m, p, m);
        t_reference(text, len, &ps, &want);
        t_matches_clear(&got);
        snprintf(what, sizeof what, "input at offset %zu, %zu bytes", off, len);
        if (EXPECT_RC(clm_scan(db, s, text, len, t_collect, &got), CLM_OK)) same(&got, &want, what);
    }
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    t_matches_free(&want);
    free(buf);
    free(p);
}

/* ---- threads ----------------------------------------------------------------------------- */

typedef struct {
    const clm_database *db;
    const t_patset *ps;
    int index;
    int rc;        /* first non-OK status */
    size_t wrong;  /* scans that differed from the reference */
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    clm_scratch *s = NULL;
    t_matches got, want;
    t_rng r;
    size_t n = t_quick ? 5000 : 100000, it;
    unsigned char *text = xmalloc(n);
    char diff[256];

    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "thread", (uint64_t)j->index);
    j->rc = clm_scratch_alloc(j->db, NULL, &s);
    for (it = 0; it < 4 && j->rc == CLM_OK; it++) {
        t_fill(&r, text, n, 4);
        t_reference(text, n, j->ps, &want);
        t_matches_clear(&got);
        j->rc = clm_scan(j->db, s, text, n, t_collect, &got);
        if (j->rc == CLM_OK && t_matches_diff(&got, &want, diff, sizeof diff)) j->wrong++;
    }
    clm_scratch_free(s);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
    return NULL;
}

/* One database shared by threads, each with its own scratch (the documented contract). */
static void test_threads(const void *arg)
{
    size_t m = 4;
    unsigned char *p = t_pattern(4, m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    pthread_t th[3];
    thread_job jobs[3];
    int i, started = 0;

    (void)arg;
    if (!EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)) goto out;
    for (i = 0; i < 3; i++) {
        jobs[i].db = db;
        jobs[i].ps = &ps;
        jobs[i].index = i;
        jobs[i].rc = CLM_OK;
        jobs[i].wrong = 0;
        if (!EXPECT(pthread_create(&th[i], NULL, thread_main, &jobs[i]) == 0)) break;
        started++;
    }
    for (i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        if (!EXPECT(jobs[i].rc == CLM_OK))
            t_note("thread %d: %s", i, clm_strerror(jobs[i].rc));
        if (!EXPECT(jobs[i].wrong == 0)) t_note("thread %d: %zu scans differed", i, jobs[i].wrong);
    }
out:
    clm_database_free(db);
    free(p);
}

/* Two databases of one device used in turns: their scratches must not disturb each other. */
static void test_interleaved(const void *arg)
{
    size_t m1 = 7, m2 = 13, n = 20000, i;
    unsigned char *p1 = t_pattern(4, m1), *p2 = t_pattern(4, m2), *text = xmalloc(n);
    const unsigned char *pp1 = p1, *pp2 = p2;
    t_patset ps1 = {&pp1, &m1, NULL, 1, 0}, ps2 = {&pp2, &m2, NULL, 1, 0};
    clm_database *db1 = NULL, *db2 = NULL;
    clm_scratch *s1 = NULL, *s2 = NULL;
    t_matches got, want1, want2;
    t_rng r;

    (void)arg;
    t_matches_init(&got);
    t_matches_init(&want1);
    t_matches_init(&want2);
    t_rng_init(&r, "interleaved", 0);
    t_fill(&r, text, n, 4);
    for (i = 0; i < 20; i++) {
        memcpy(text + t_below(&r, n - m1), p1, m1);
        memcpy(text + t_below(&r, n - m2), p2, m2);
    }
    t_reference(text, n, &ps1, &want1);
    t_reference(text, n, &ps2, &want2);
    if (!EXPECT_RC(t_compile(&ps1, CLM_ALGO_KMP, CLM_TABLE_AUTO, 0, 0, 0, &db1), CLM_OK)
        || !EXPECT_RC(t_compile(&ps2, CLM_ALGO_DFA, CLM_TABLE_AUTO, 0, 0, 0, &db2), CLM_OK)
        || !(s1 = scratch(db1, 4096, 0)) || !(s2 = scratch(db2, 4096, 0)))
        goto out;
    for (i = 0; i < 3; i++) {
        t_matches_clear(&got);
        if (EXPECT_RC(clm_scan(db1, s1, text, n, t_collect, &got), CLM_OK))
            same(&got, &want1, "database 1");
        t_matches_clear(&got);
        if (EXPECT_RC(clm_scan(db2, s2, text, n, t_collect, &got), CLM_OK))
            same(&got, &want2, "database 2");
    }
out:
    clm_scratch_free(s1);
    clm_scratch_free(s2);
    clm_database_free(db1);
    clm_database_free(db2);
    t_matches_free(&got);
    t_matches_free(&want1);
    t_matches_free(&want2);
    free(text);
    free(p1);
    free(p2);
}

/* ---- the smallest memory budget ---------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *pats[3];
    unsigned count;
    unsigned flags;
    unsigned max_errors;
    size_t long_len; /* > 0: one pattern of this many bytes instead of pats */
    clm_switch packing;
} budget_db;

static const budget_db budget_dbs[] = {
    {"exact", {"needle"}, 1, 0, 0, 0, CLM_AUTO},
    {"long", {NULL}, 1, 0, 0, 3000, CLM_AUTO},
    {"three", {"GATTACA", "ACGT", "TTTTTTTTTTTT"}, 3, 0, 0, 0, CLM_AUTO},
    {"approximate", {"GATTACAGATTACA"}, 1, 0, 2, 0, CLM_AUTO},
    {"dna-packed", {"ACGTTGCAACGT"}, 1, CLM_DNA | CLM_BOTH_STRANDS, 0, 0, CLM_ON},
};

/* The N a too-small budget's detail names ("at least N bytes"); 0 when it names none. */
static size_t named_minimum(void)
{
    const char *at = strstr(clm_last_error(), "at least ");
    size_t n = 0;
    return at && sscanf(at, "at least %zu bytes", &n) == 1 ? n : 0;
}

/* Allocate with budget; CLM_OK or the failure's status (the scratch is freed again). */
static int alloc_budget(const clm_database *db, clm_scratch_options so, size_t budget,
                        clm_scratch_info *info)
{
    clm_scratch *s = NULL;
    so.max_memory = budget;
    int rc = clm_scratch_alloc(db, &so, &s);
    if (rc == CLM_OK && info) clm_scratch_get_info(s, info, sizeof *info);
    clm_scratch_free(s);
    return rc;
}

/* A scan at budget n of a text with a match every few hundred bytes over several slabs: the
 * match buffers start at their smallest, split ranges, and lose nothing. */
static void check_at_minimum(const clm_database *db, const t_patset *ps, clm_scratch_options so,
                             size_t n, const char *name)
{
    size_t len = 250000, i;
    unsigned char *text = xmalloc(len);
    clm_scratch *s = NULL;
    t_matches got, want;
    char desc[96];
    t_rng r;
    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "min_memory", 0);
    t_fill(&r, text, len, 4);
    for (i = 0; i + ps->lens[0] < len; i += ps->lens[0] + t_below(&r, 400))
        memcpy(text + i, ps->pats[0], ps->lens[0]);
    t_reference(text, len, ps, &want);
    so.max_memory = n;
    snprintf(desc, sizeof desc, "%s at its minimum budget %zu", name, n);
    if (EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK))
        t_check_scan(db, s, text, len, &want, &got, desc, "dense");
    clm_scratch_free(s);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
}

/* The minimum a budget of 1 byte names is the true one: it allocates (and clm_scratch_info
 * says the same minimum), one byte less fails naming it again, and every budget above it
 * allocates too. Over databases of different overlaps, lead, pattern counts and the packed
 * buffer, every data path, and requested slabs below and above the 1 MiB a budget keeps.
 * At the minimum, a scan with its smallest match buffers finds every match. */
static void test_min_memory(const void *arg)
{
    static const clm_data_path paths[] = {CLM_PATH_AUTO, CLM_PATH_COPY, CLM_PATH_PINNED,
                                          CLM_PATH_ZERO_COPY, CLM_PATH_SVM};
    static const struct {
        size_t slab, capacity; /* requested; 0: default */
    } shapes[] = {{0, 0}, {100000, 0}, {(size_t)8 << 20, 0}, {0, 5000}};
    static const size_t above[] = {1, 15, 16, 127, 128, 4095, 4096, 65537, (size_t)3 << 20};
    size_t d, p, k, i;
    (void)arg;

    for (d = 0; d < sizeof budget_dbs / sizeof budget_dbs[0]; d++) {
        const budget_db *b = &budget_dbs[d];
        unsigned char *longp = b->long_len ? t_pattern(26, b->long_len) : NULL;
        const unsigned char *pp[3];
        size_t lens[3];
        t_patset ps = {pp, lens, NULL, b->count, 0};
        clm_database *db = NULL;
        clm_database_info dinfo;
        clm_compile_options o;
        for (i = 0; i < b->count; i++) {
            pp[i] = longp ? longp : (const unsigned char *)b->pats[i];
            lens[i] = longp ? b->long_len : strlen(b->pats[i]);
        }
        t_compile_options(&o, &ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, b->flags, 0, 0,
                          CLM_VARIANT_AUTO, b->max_errors);
        o.packing = b->packing;
        if (!EXPECT_RC(t_compile_with(&ps, &o, &db), CLM_OK)) {
            free(longp);
            continue;
        }
        if (b->packing == CLM_ON
            && EXPECT_RC(clm_database_get_info(db, &dinfo, sizeof dinfo), CLM_OK)
            && !dinfo.packed)
            t_note("%s: the database is not packed on this device", b->name);
        for (p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                clm_scratch_options so;
                clm_scratch_info info;
                char where[160];
                size_t n;
                int rc;
                clm_scratch_options_init(&so, sizeof so);
                so.data_path = paths[p];
                so.slab_bytes = shapes[k].slab;
                so.match_capacity = shapes[k].capacity;
                snprintf(where, sizeof where, "%s, path %s, slab %zu, match capacity %zu",
                         b->name, clm_data_path_name(paths[p]), so.slab_bytes,
                         so.match_capacity);
                rc = alloc_budget(db, so, 1, NULL);
                if (rc == CLM_E_UNSUPPORTED && paths[p] == CLM_PATH_SVM)
                    break; /* no SVM on this device (path.* checks the refusal) */
                if (!EXPECT_RC(rc, CLM_E_INVALID) || !EXPECT((n = named_minimum()) > 1)) {
                    t_note("%s: \"%s\"", where, clm_last_error());
                    continue;
                }
                if (!EXPECT_RC(alloc_budget(db, so, n, &info), CLM_OK)) {
                    t_note("%s: the named minimum %zu fails: \"%s\"", where, n, clm_last_error());
                    continue;
                }
                if (!EXPECT(info.min_memory == n && info.memory_bytes <= n))
                    t_note("%s: budget %zu: min_memory %zu, memory %zu", where, n,
                           info.min_memory, info.memory_bytes);
                if (!EXPECT_RC(alloc_budget(db, so, n - 1, NULL), CLM_E_INVALID)
                    || !EXPECT(named_minimum() == n))
                    t_note("%s: budget %zu - 1: \"%s\"", where, n, clm_last_error());
                for (i = 0; i < sizeof above / sizeof above[0]; i++)
                    if (!EXPECT_RC(alloc_budget(db, so, n + above[i], NULL), CLM_OK))
                        t_note("%s: budget %zu + %zu: \"%s\"", where, n, above[i],
                               clm_last_error());
                if (b->max_errors == 0 && !(b->flags & CLM_DNA) && so.slab_bytes == 100000
                    && paths[p] == CLM_PATH_AUTO)
                    check_at_minimum(db, &ps, so, n, b->name);
            }
        }
        clm_database_free(db);
        free(longp);
    }
}

void register_scan_tests(void)
{
    size_t i;
    for (i = 0; i < sizeof per_algo / sizeof per_algo[0]; i++) {
        char name[96];
        /* the new algorithms: global tables only (diff.* covers their table memories) */
        if (per_algo[i].algo >= CLM_ALGO_BITAP && per_algo[i].mem != CLM_TABLE_GLOBAL) continue;
        snprintf(name, sizeof name, "scan.growth.%s.%s", clm_algorithm_name(per_algo[i].algo),
                 clm_table_memory_name(per_algo[i].mem));
        t_register(name, test_growth, &per_algo[i], 1);
    }
    for (i = 0; i < sizeof per_algo / sizeof per_algo[0]; i += 3) {
        char name[96];
        snprintf(name, sizeof name, "scan.stop.%s", clm_algorithm_name(per_algo[i].algo));
        t_register(name, test_stop, &per_algo[i], 1);
    }
    for (i = 0; i < sizeof per_algo / sizeof per_algo[0]; i += 3) {
        char name[96];
        snprintf(name, sizeof name, "scan.max_length.%s", clm_algorithm_name(per_algo[i].algo));
        t_register(name, test_max_length, &per_algo[i], 0);
    }
    {
        static const scan_arg auto_arg = {CLM_ALGO_AUTO, CLM_TABLE_AUTO};
        t_register("scan.max_length.auto", test_max_length, &auto_arg, 0);
    }
    t_register("scan.stats", test_stats, NULL, 1);
    t_register("scan.unaligned", test_unaligned, NULL, 1);
    t_register("scan.threads", test_threads, NULL, 1);
    t_register("scan.interleaved", test_interleaved, NULL, 1);
    t_register("scan.min_memory", test_min_memory, NULL, 1);
    t_register("scan.least_capacity", test_least_capacity, NULL, 1);
}
