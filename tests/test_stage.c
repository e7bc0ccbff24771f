/*
 * Staged kernels (cl/kernels.cl STAGE): exact dfa and one-word bitap with local tables read
 * whole work-group regions through local memory; other groups (the last of a slab, ranges
 * split after a full match buffer) take the per-item path. Checked against the reference
 * with geometries like the GPU's (16-32 work-items of 64-256 bytes), every length class of
 * the staged kernels (32-bit and 64-bit bitap words, tails of one to four uint4s), 4- and
 * 64-letter alphabets, matches and near misses (the long patterns' prefix walks) planted on
 * item, half-item, group and slab edges, all-match
 * and adversarial texts, scan and count (inline counting for m <= 5). stage.queue.*: one
 * work-group per compute unit, so every group takes many regions from the queue, with and
 * without prefetching the next region.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

typedef struct {
    clm_algorithm algo;
    const char *kind; /* "edges" (4 letters), "wide" (64 letters), "allmatch", "adversarial" */
} stage_arg;

static const stage_arg cases[] = {
    {CLM_ALGO_DFA, "edges"},         {CLM_ALGO_BITAP, "edges"},
    {CLM_ALGO_DFA, "allmatch"},      {CLM_ALGO_BITAP, "allmatch"},
    {CLM_ALGO_DFA, "adversarial"},   {CLM_ALGO_BITAP, "adversarial"},
    {CLM_ALGO_DFA, "wide"},
};

/* Letters of the random texts and patterns ("edges", "wide"); 0: the all-a texts. */
static int alphabet(const char *kind)
{
    return !strcmp(kind, "edges") ? 4 : !strcmp(kind, "wide") ? 64 : 0;
}

static const size_t lengths[] = {1, 2, 13, 16, 17, 31, 32, 33, 63, 64};
static const struct {
    unsigned wg, bpi;
} shapes[] = {{16, 64}, {32, 128}, {16, 256}};

/* Staging is on unless CLMATCH_STAGING turns it off. */
static int staging_expected(void)
{
    const char *v = getenv("CLMATCH_STAGING");
    return !(v && (!strcmp(v, "off") || !strcmp(v, "0")));
}

static unsigned char *make_text(const char *kind, size_t n, size_t m, const unsigned char *p,
                                size_t item, size_t group, t_rng *r)
{
    unsigned char *t = malloc(n);
    size_t k;
    if (!t) abort();
    if (alphabet(kind)) {
        t_fill(r, t, n, alphabet(kind));
        /* across item and group edges: ending 1 and m/2 bytes past, and starting on them */
        for (k = item; k + m < n; k += item) {
            size_t back = (k / item) % 3 == 0 ? 0 : (k / item) % 3 == 1 ? 1 : m / 2;
            if (k % group == 0 || (k / item) % 5 == 0) memcpy(t + k - (back < k ? back : 0), p, m);
            /* and across the middle of an item */
            if ((k / item) % 5 == 2) memcpy(t + k - item / 2 - (back < k ? back : 0), p, m);
            /* near misses across an edge (all but the last byte): the long patterns' prefix
             * walks meet their prefix and step the whole automaton without a match */
            if ((k / item) % 5 == 3 && k >= m / 3) {
                memcpy(t + k - m / 3, p, m);
                t[k - m / 3 + m - 1] ^= 1;
            }
        }
    } else {
        memset(t, 'a', n);
        if (!strcmp(kind, "adversarial")) /* a^(m-1)b every so often: near misses everywhere */
            for (k = m; k < n; k += 97) t[k] = 'b';
    }
    return t;
}

static void test_stage(const void *arg)
{
    const stage_arg *a = arg;
    size_t li, si;
    t_rng r;
    t_matches got, want;

    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, a->kind, (uint64_t)a->algo);
    /* standard set (a kernel build each, ~1 s on PoCL): edges on every shape with a length of
     * each class, the all-a texts on one shape; --full: everything */
    const int edges = alphabet(a->kind) != 0;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        if (!t_full && !edges && si > 0) break;
        for (li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            size_t m = lengths[li], item = shapes[si].bpi, group = item * shapes[si].wg;
            if (!t_full && (edges ? (m == 2 || m == 16 || m == 31 || m == 63)
                                  : (m == 1 || m == 13 || m == 16 || m == 31 || m == 63)))
                continue;
            size_t n = 7 * group + item / 2 + 5, slabs[2], sl;
            unsigned char *p = malloc(m);
            const unsigned char *pp;
            t_patset ps;
            clm_database *db = NULL;
            clm_scratch *s = NULL;
            clm_database_info info;
            char desc[160];
            unsigned char *text;
            int rc;

            if (!p) abort();
            if (alphabet(a->kind)) {
                unsigned char *q = t_pattern(alphabet(a->kind), m);
                memcpy(p, q, m);
                free(q);
            } else {
                memset(p, 'a', m);
                if (!strcmp(a->kind, "adversarial") && m > 1) p[m - 1] = 'b';
            }
            pp = p;
            ps.pats = &pp;
            ps.lens = &m;
            ps.ids = NULL;
            ps.count = 1;
            ps.caseless = 0;
            snprintf(desc, sizeof desc, "stage %s %s m=%zu wg=%u bpi=%u",
                     clm_algorithm_name(a->algo), a->kind, m, shapes[si].wg, shapes[si].bpi);
            rc = t_compile_ex(&ps, a->algo, CLM_TABLE_LOCAL, 0, shapes[si].wg, shapes[si].bpi,
                              CLM_VARIANT_AUTO, 0, &db);
            if (rc != CLM_OK) {
                T_FAIL("%s: clm_compile: %s: %.300s", desc, clm_strerror(rc), clm_last_error());
                free(p);
                continue;
            }
            if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)
                && !EXPECT(info.staged == staging_expected()))
                t_note("%s: staged=%d (CLMATCH_STAGING %s)", desc, info.staged,
                       getenv("CLMATCH_STAGING") ? getenv("CLMATCH_STAGING") : "unset");
            text = make_text(a->kind, n, m, p, item, group, &r);
            t_reference(text, n, &ps, &want);
            /* one slab; slabs that end inside group regions (those groups go per item) */
            slabs[0] = 0;
            slabs[1] = 2 * group + item + 48;
            for (sl = 0; sl < 2; sl++) {
                char what[48];
                if (!t_scratch_alloc(db, &s, slabs[sl], 0, desc)) break;
                snprintf(what, sizeof what, "slab=%zu", slabs[sl]);
                t_check_scan(db, s, text, n, &want, &got, desc, what);
            }
            /* a match buffer of 16 entries: all-match texts overflow it, ranges are grown
             * and rescanned (pieces that no longer cover whole groups) */
            if (!strcmp(a->kind, "allmatch") && t_scratch_alloc(db, &s, 0, 16, desc)) {
                char diff[512];
                t_matches_clear(&got);
                rc = clm_scan(db, s, text, n, t_collect, &got);
                if (rc != CLM_OK)
                    T_FAIL("%s capacity 16: clm_scan: %s", desc, clm_strerror(rc));
                else if (t_matches_diff(&got, &want, diff, sizeof diff))
                    T_FAIL("%s capacity 16: %s", desc, diff);
            }
            clm_scratch_free(s);
            clm_database_free(db);
            free(text);
            free(p);
        }
    }
    t_matches_free(&got);
    t_matches_free(&want);
}

/* Staged kernels launch groups_per_unit groups per compute unit, which take the regions
 * from a queue (cl/kernels.cl clm_stage_loop): with one per compute unit and a text of at
 * least 2 regions per group plus a partial one, every group walks several, its own first,
 * prefetching the next or not; a tail of two uint4s (32-bit bitap word, dfa byte table) and
 * of four (64-bit word, dfa class table). */
static void test_stage_queue(const void *arg)
{
    const clm_algorithm algo = *(const clm_algorithm *)arg;
    static const size_t qlengths[] = {17, 64};
    static const clm_switch prefetch[] = {CLM_ON, CLM_OFF};
    const unsigned wg = 16, bpi = 128;
    const size_t group = (size_t)wg * bpi;
    size_t units = t_devinfo.compute_units ? t_devinfo.compute_units : 1;
    size_t regions = 2 * units + 5 > 40 ? 2 * units + 5 : 40;
    size_t n = regions * group + group / 3, li, pi;
    t_rng r;
    t_matches got, want;

    if (!staging_expected()) return; /* CLMATCH_STAGING=off: nothing stages */
    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "queue", (uint64_t)algo);
    for (li = 0; li < sizeof qlengths / sizeof qlengths[0]; li++) {
        size_t m = qlengths[li];
        unsigned char *p = t_pattern(4, m);
        const unsigned char *pp = p;
        unsigned char *text = make_text("edges", n, m, p, bpi, group, &r);
        t_patset ps = {&pp, &m, NULL, 1, 0};
        t_reference(text, n, &ps, &want);
        for (pi = 0; pi < 2; pi++) {
            clm_compile_options o;
            clm_database *db = NULL;
            clm_scratch *s = NULL;
            clm_database_info info;
            char desc[160];
            int rc;
            t_compile_options(&o, &ps, algo, CLM_TABLE_LOCAL, 0, wg, bpi, CLM_VARIANT_AUTO, 0);
            o.staging = CLM_ON;
            o.prefetch = prefetch[pi];
            o.groups_per_unit = 1;
            snprintf(desc, sizeof desc, "stage queue %s m=%zu %s, %zu regions on %zu units",
                     clm_algorithm_name(algo), m, pi ? "no prefetch" : "prefetch", regions,
                     units);
            rc = t_compile_with(&ps, &o, &db);
            if (rc != CLM_OK) {
                T_FAIL("%s: clm_compile: %s: %.300s", desc, clm_strerror(rc), clm_last_error());
                continue;
            }
            if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)
                && !(EXPECT(info.staged) && EXPECT(info.groups_per_unit == 1)
                     && EXPECT(info.prefetch == !pi)))
                t_note("%s: staged=%d groups_per_unit=%u prefetch=%d", desc, info.staged,
                       info.groups_per_unit, info.prefetch);
            /* one slab; and slabs of 5 regions and a bit, each with its own queue pass */
            if (t_scratch_alloc(db, &s, 0, 0, desc))
                t_check_scan(db, s, text, n, &want, &got, desc, "slab=0");
            if (t_scratch_alloc(db, &s, 5 * group + 48, 0, desc))
                t_check_scan(db, s, text, n, &want, &got, desc, "slab=5 regions");
            clm_scratch_free(s);
            clm_database_free(db);
        }
        free(text);
        free(p);
    }
    t_matches_free(&got);
    t_matches_free(&want);
}

/* A long walk of the queue: 16 MiB of random DNA in one slab, 8192 regions of 2 KiB for the
 * groups of one per compute unit, a 2-symbol pattern (counted inline) and a 13-symbol one.
 * On Mesa's llvmpipe each group's loop passes grow with its regions past the 65535 a
 * work-item may make there, and the queued walks lost ~28 % of the count even with 16 groups
 * per unit: the host launches a group per region there (host/scan.c). */
static void test_stage_queue_long(const void *arg)
{
    const clm_algorithm algo = *(const clm_algorithm *)arg;
    static const size_t qlengths[] = {2, 13};
    const size_t n = (size_t)16 << 20;
    unsigned char *text = malloc(n);
    size_t li;
    t_rng r;
    t_matches got, want;

    REQUIRE(text != NULL);
    if (!staging_expected()) { /* CLMATCH_STAGING=off: nothing stages */
        free(text);
        return;
    }
    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "queue-long", (uint64_t)algo);
    t_fill(&r, text, n, 4);
    for (li = 0; li < sizeof qlengths / sizeof qlengths[0]; li++) {
        size_t m = qlengths[li];
        unsigned char *p = t_pattern(4, m);
        const unsigned char *pp = p;
        t_patset ps = {&pp, &m, NULL, 1, 0};
        clm_compile_options o;
        clm_database *db = NULL;
        clm_scratch *s = NULL;
        clm_database_info info;
        char desc[96];
        snprintf(desc, sizeof desc, "stage queue %s m=%zu, 16 MiB", clm_algorithm_name(algo), m);
        t_reference(text, n, &ps, &want);
        t_compile_options(&o, &ps, algo, CLM_TABLE_LOCAL, 0, 16, 128, CLM_VARIANT_AUTO, 0);
        o.staging = CLM_ON;
        o.groups_per_unit = 1;
        if (EXPECT_RC(t_compile_with(&ps, &o, &db), CLM_OK)
            && EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)
            && EXPECT(info.staged)
            && t_scratch_alloc(db, &s, n, 0, desc))
            t_check_scan(db, s, text, n, &want, &got, desc, "random DNA");
        clm_scratch_free(s);
        clm_database_free(db);
        free(p);
    }
    free(text);
    t_matches_free(&got);
    t_matches_free(&want);
}

/* The shape a staged bitap kernel of 128-byte chunks gets with work-group size wg, prefetch
 * and wg_as_tuning; 0 when it could not be compiled (a failure is recorded). */
static int staged_shape(const t_patset *ps, clm_switch prefetch, int wg_as_tuning, unsigned wg,
                        clm_database_info *info)
{
    clm_compile_options o;
    clm_database *db = NULL;
    int rc, ok;
    t_compile_options(&o, ps, CLM_ALGO_BITAP, CLM_TABLE_LOCAL, 0, wg, 128, CLM_VARIANT_AUTO, 0);
    o.staging = CLM_ON;
    o.prefetch = prefetch;
    o.wg_as_tuning = wg_as_tuning;
    rc = t_compile_with(ps, &o, &db);
    ok = EXPECT_RC(rc, CLM_OK) && EXPECT_RC(clm_database_get_info(db, info, sizeof *info), CLM_OK);
    clm_database_free(db);
    return ok;
}

/* wg_as_tuning: the options' work-group size is taken as a tuning's would be, capped at
 * CLM_PREFETCH_WG_MAX where the kernel prefetches and halved where the region does not fit in
 * local memory; without it the size is kept (and a region too large is not staged). */
static void test_wg_as_tuning(const void *arg)
{
    size_t m = 13;
    unsigned char *p = t_pattern(4, m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database_info kept, tuned;
    unsigned big = 16;
    (void)arg;
    if (!staging_expected()) { /* CLMATCH_STAGING=off: nothing stages */
        free(p);
        return;
    }
    /* where a region of 256 items (144 bytes each) and the tables (under 4 KiB) fit in
     * local memory: not in llvmpipe's 32 KiB */
    if (t_devinfo.max_work_group_size >= 256 && 257u * 144u + 4096u <= t_devinfo.local_mem_bytes
        && staged_shape(&ps, CLM_ON, 0, 256, &kept)
        && staged_shape(&ps, CLM_ON, 1, 256, &tuned)
        && !(EXPECT(kept.staged && kept.prefetch && kept.work_group_size == 256)
             && EXPECT(tuned.staged && tuned.prefetch
                       && tuned.work_group_size == CLM_PREFETCH_WG_MAX)))
        t_note("prefetch, wg 256: kept staged=%d wg=%u, as tuning staged=%d wg=%u",
               kept.staged, kept.work_group_size, tuned.staged, tuned.work_group_size);
    /* the largest power-of-two size the device allows; tested where its region (144 bytes
     * an item) is larger than local memory */
    while (2u * big <= t_devinfo.max_work_group_size) big *= 2;
    if ((big + 1u) * 144u > t_devinfo.local_mem_bytes
        && staged_shape(&ps, CLM_OFF, 0, big, &kept)
        && staged_shape(&ps, CLM_OFF, 1, big, &tuned)
        && !(EXPECT(!kept.staged && kept.work_group_size == big)
             && EXPECT(tuned.staged && tuned.work_group_size < big)))
        t_note("wg %u: kept staged=%d wg=%u, as tuning staged=%d wg=%u", big, kept.staged,
               kept.work_group_size, tuned.staged, tuned.work_group_size);
    free(p);
}

/* CLMATCH_STAGING: off gives unstaged kernels with the same results; a bad value is refused
 * when the device is opened. */
static int child_staging_env(const char *arg)
{
    clm_device *dev = NULL;
    int rc = clm_device_open(-1, -1, &dev);
    if (!strcmp(arg, "bad")) {
        if (!EXPECT_RC(rc, CLM_E_INVALID)) return 1;
        if (!EXPECT(strstr(clm_last_error(), "CLMATCH_STAGING") != NULL)) return 1;
        return 0;
    }
    if (!EXPECT_RC(rc, CLM_OK)) return 1;
    clm_device_close(dev);
    return 0;
}

static void test_staging_env(const void *arg)
{
    static const char *const bad[] = {"CLMATCH_STAGING=sometimes", NULL};
    static const char *const off[] = {"CLMATCH_STAGING=off", NULL};
    (void)arg;
    if (t_run_child("staging_env", "bad", bad) != 0) T_FAIL("CLMATCH_STAGING=sometimes");
    if (t_run_child("staging_env", "ok", off) != 0) T_FAIL("CLMATCH_STAGING=off");
}

void register_stage_tests(void)
{
    size_t i;
    static char names[sizeof cases / sizeof cases[0]][48];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(names[i], sizeof names[i], "stage.%s.%s", clm_algorithm_name(cases[i].algo),
                 cases[i].kind);
        t_register(names[i], test_stage, &cases[i], cases[i].kind[0] == 'e');
    }
    static const clm_algorithm queue_algos[] = {CLM_ALGO_DFA, CLM_ALGO_BITAP};
    t_register("stage.queue.dfa", test_stage_queue, &queue_algos[0], 1);
    t_register("stage.queue.bitap", test_stage_queue, &queue_algos[1], 1);
    t_register("stage.queue-long.dfa", test_stage_queue_long, &queue_algos[0], 0);
    t_register("stage.queue-long.bitap", test_stage_queue_long, &queue_algos[1], 0);
    t_register("stage.env", test_staging_env, NULL, 1);
    t_register("stage.wg_as_tuning", test_wg_as_tuning, NULL, 1);
    t_register_child("staging_env", child_staging_env);
}
