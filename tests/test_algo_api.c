/*
 * The API of the bitap era: names of algorithms and variants, option defaults, the exact
 * status codes of max_errors, pattern length and variant misuse, and the automatic choice
 * (whatever it picks must give the reference result).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ref_util.h"

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* ---- names and defaults ------------------------------------------------------------------------ */

static void test_names(const void *arg)
{
    static const char *const anames[] = {"auto", "naive", "kmp", "dfa", "bitap", "bmh", "witness",
                                         "aho", "hamming", "simd", "kmer"};
    static const char *const vnames[] = {"auto", "item", "reduce", "subgroup"};
    clm_algorithm a;
    clm_variant v;
    int i;
    clm_compile_options o;
    (void)arg;
    for (i = 0; i < 11; i++) {
        const char *name = clm_algorithm_name((clm_algorithm)i);
        if (!EXPECT(name && strcmp(name, anames[i]) == 0))
            t_note("clm_algorithm_name(%d) = \"%s\", expected \"%s\"", i, name ? name : "(null)",
                   anames[i]);
        a = (clm_algorithm)77;
        if (EXPECT_RC(clm_algorithm_from_name(anames[i], &a), CLM_OK) && !EXPECT(a == (clm_algorithm)i))
            t_note("clm_algorithm_from_name(\"%s\") gave %d", anames[i], (int)a);
    }
    for (i = 0; i < 4; i++) {
        const char *name = clm_variant_name((clm_variant)i);
        if (!EXPECT(name && strcmp(name, vnames[i]) == 0))
            t_note("clm_variant_name(%d) = \"%s\", expected \"%s\"", i, name ? name : "(null)",
                   vnames[i]);
        v = (clm_variant)77;
        if (EXPECT_RC(clm_variant_from_name(vnames[i], &v), CLM_OK) && !EXPECT(v == (clm_variant)i))
            t_note("clm_variant_from_name(\"%s\") gave %d", vnames[i], (int)v);
    }
    EXPECT(clm_algorithm_count() == 11);
    /* every algorithm has the item kernel; only bitap the reduce (and reserved subgroup) */
    for (i = 0; i < 11; i++) {
        unsigned want = i == 0 ? 0 : 1u << CLM_VARIANT_ITEM;
        if (i == CLM_ALGO_BITAP)
            want |= 1u << CLM_VARIANT_REDUCE | 1u << CLM_VARIANT_SUBGROUP;
        if (!EXPECT(clm_algorithm_variants((clm_algorithm)i) == want))
            t_note("clm_algorithm_variants(%s) = %#x, expected %#x", anames[i],
                   clm_algorithm_variants((clm_algorithm)i), want);
    }
    EXPECT(clm_algorithm_variants((clm_algorithm)11) == 0);
    EXPECT(strcmp(clm_algorithm_name((clm_algorithm)11), "?") == 0);
    EXPECT(strcmp(clm_algorithm_name((clm_algorithm)-1), "?") == 0);
    EXPECT(strcmp(clm_variant_name((clm_variant)4), "?") == 0);
    EXPECT(strcmp(clm_variant_name((clm_variant)99), "?") == 0);
    EXPECT_RC(clm_variant_from_name("bogus", &v), CLM_E_INVALID);
    EXPECT_RC(clm_variant_from_name("", &v), CLM_E_INVALID);
    EXPECT_RC(clm_variant_from_name("items", &v), CLM_E_INVALID);
    EXPECT_RC(clm_variant_from_name(NULL, &v), CLM_E_INVALID);
    EXPECT_RC(clm_variant_from_name("item", NULL), CLM_E_INVALID);
    EXPECT_RC(clm_algorithm_from_name("bitap2", &a), CLM_E_INVALID);
    EXPECT_RC(clm_algorithm_from_name("witnes", &a), CLM_E_INVALID);

    memset(&o, 0xa5, sizeof o);
    clm_compile_options_init(&o, sizeof o);
    EXPECT(o.variant == CLM_VARIANT_AUTO && o.max_errors == 0 && o.flags == 0
           && o.algorithm == CLM_ALGO_AUTO);
}

/* ---- status codes --------------------------------------------------------------------------- */

typedef struct {
    clm_algorithm algo;
    clm_variant variant;
    unsigned flags, k;
} copts;

static int compile_set(const char *const *pats, const size_t *lens, unsigned count, copts c,
                       clm_database **keep)
{
    clm_compile_options o;
    clm_database *db = NULL;
    int rc;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = c.algo;
    o.variant = c.variant;
    o.flags = c.flags;
    o.max_errors = c.k;
    rc = clm_compile(t_dev, pats, lens, NULL, count, &o, &db);
    if (keep && rc == CLM_OK)
        *keep = db;
    else
        clm_database_free(db);
    return rc;
}

static int compile1(const char *p, size_t len, copts c)
{
    return compile_set(&p, &len, 1, c, NULL);
}

/* The detail of the last failure names the word (case-sensitive). */
static int detail_names(const char *word, const char *ctx)
{
    if (strstr(clm_last_error(), word)) return 1;
    return T_FAIL("%s: detail does not name \"%s\": \"%.300s\"", ctx, word, clm_last_error());
}

static void test_errors(const void *arg)
{
    static const clm_algorithm others[] = {CLM_ALGO_NAIVE, CLM_ALGO_KMP, CLM_ALGO_DFA,
                                           CLM_ALGO_BMH, CLM_ALGO_WITNESS, CLM_ALGO_AHO};
    char *p40 = (char *)t_pattern(4, 33);
    char *p300 = (char *)t_pattern(4, 300);
    char ctx[160], lim[16];
    size_t i;
    copts c;
    (void)arg;

    /* max_errors against the pattern length (in symbols) and CLM_MAX_ERRORS */
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, 0, 5};
    EXPECT_RC(compile1("ACGTA", 5, c), CLM_E_INVALID);
    c.k = 6;
    EXPECT_RC(compile1("ACGTA", 5, c), CLM_E_INVALID);
    c.k = 4;
    EXPECT_RC(compile1("ACGTA", 5, c), CLM_OK);
    c.k = 1;
    EXPECT_RC(compile1("A", 1, c), CLM_E_INVALID);
    c.algo = CLM_ALGO_AUTO;
    c.k = 5;
    EXPECT_RC(compile1("ACGTA", 5, c), CLM_E_INVALID);
    {
        const char *two[2] = {"ACGTAC", "ACG"};
        c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, 0, 3}; /* ≥ the shortest pattern */
        EXPECT_RC(compile_set(two, NULL, 2, c, NULL), CLM_E_INVALID);
        c.k = 2;
        EXPECT_RC(compile_set(two, NULL, 2, c, NULL), CLM_OK);
    }
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, CLM_CLASSES, 3}; /* 3 symbols, 8 bytes */
    EXPECT_RC(compile1("[AC]G[^T]", 9, c), CLM_E_INVALID);
    c.k = 2;
    EXPECT_RC(compile1("[AC]G[^T]", 9, c), CLM_OK);
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, 0, CLM_MAX_ERRORS + 1};
    EXPECT_RC(compile1(p40, 33, c), CLM_E_INVALID);
    c.k = 1000;
    EXPECT_RC(compile1(p40, 33, c), CLM_E_INVALID);
    c.k = CLM_MAX_ERRORS + 1;
    c.flags = CLM_MISMATCHES_ONLY;
    EXPECT_RC(compile1(p40, 33, c), CLM_E_INVALID);

    /* approximate search with the algorithms that cannot do it */
    for (i = 0; i < sizeof others / sizeof others[0]; i++) {
        snprintf(ctx, sizeof ctx, "max_errors 1 with %s", clm_algorithm_name(others[i]));
        c = (copts){others[i], CLM_VARIANT_AUTO, 0, 1};
        if (EXPECT_RC(compile1(p40, 33, c), CLM_E_UNSUPPORTED)) detail_names("bitap", ctx);
        c.flags = CLM_MISMATCHES_ONLY;
        snprintf(ctx, sizeof ctx, "max_errors 1 mismatches-only with %s",
                 clm_algorithm_name(others[i]));
        if (EXPECT_RC(compile1(p40, 33, c), CLM_E_UNSUPPORTED)) detail_names("bitap", ctx);
    }

    /* bitap's length limit, in symbols */
    snprintf(lim, sizeof lim, "%u", CLM_BITAP_MAX_LENGTH);
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, 0, 0};
    EXPECT_RC(compile1(p300, CLM_BITAP_MAX_LENGTH, c), CLM_OK);
    if (EXPECT_RC(compile1(p300, CLM_BITAP_MAX_LENGTH + 1, c), CLM_E_PATTERN_TOO_LONG)) {
        const char *d = clm_last_error();
        detail_names(lim, "exact bitap, 257 bytes");
        /* and an algorithm that works */
        if (!strstr(d, "kmp") && !strstr(d, "dfa") && !strstr(d, "bmh") && !strstr(d, "witness")
            && !strstr(d, "naive") && !strstr(d, "auto"))
            T_FAIL("exact bitap, 257 bytes: detail names no algorithm that works: \"%.300s\"", d);
    }
    c.k = 1;
    if (EXPECT_RC(compile1(p300, 300, c), CLM_E_PATTERN_TOO_LONG))
        detail_names(lim, "bitap k=1, 300 bytes");
    c.k = 0;
    c.flags = CLM_CASELESS;
    EXPECT_RC(compile1(p300, CLM_BITAP_MAX_LENGTH + 1, c), CLM_E_PATTERN_TOO_LONG);
    /* approximate, too long for bitap: nothing else can do it either */
    {
        int rc;
        c = (copts){CLM_ALGO_AUTO, CLM_VARIANT_AUTO, 0, 1};
        rc = compile1(p300, 300, c);
        if (!EXPECT(rc == CLM_E_PATTERN_TOO_LONG || rc == CLM_E_UNSUPPORTED))
            t_note("auto, k=1, 300 bytes: clm_compile returned %d (%s): %s", rc, clm_strerror(rc),
                   clm_last_error());
    }

    /* the reduce and subgroup variants: exact, up to 64 symbols */
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_REDUCE, 0, 1};
    if (EXPECT_RC(compile1(p40, 33, c), CLM_E_UNSUPPORTED)) detail_names("item", "reduce, k=1");
    c.k = 0;
    EXPECT_RC(compile1(p40, 33, c), CLM_OK);
    EXPECT_RC(compile1(p300, 64, c), CLM_OK);
    if (EXPECT_RC(compile1(p300, 65, c), CLM_E_UNSUPPORTED)) detail_names("item", "reduce, 65 bytes");
    c.flags = CLM_MISMATCHES_ONLY;
    c.k = 1;
    EXPECT_RC(compile1(p40, 33, c), CLM_E_UNSUPPORTED);
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_SUBGROUP, 0, 1};
    EXPECT_RC(compile1(p40, 33, c), CLM_E_UNSUPPORTED);
    c.k = 0;
    EXPECT_RC(compile1(p300, 65, c), CLM_E_UNSUPPORTED);
    /* auto variant with approximate search: an item kernel */
    {
        clm_database *db = NULL;
        clm_database_info info;
        c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, 0, 2};
        if (EXPECT_RC(compile_set((const char *const *)&p40, (size_t[]){33}, 1, c, &db), CLM_OK)
            && EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK))
            EXPECT(info.variant == CLM_VARIANT_ITEM && info.max_errors == 2
                   && info.algorithm == CLM_ALGO_BITAP);
        clm_database_free(db);
    }
    /* a variant other algorithms lack; item is every algorithm's */
    for (i = 0; i < sizeof others / sizeof others[0]; i++) {
        int rc;
        c = (copts){others[i], CLM_VARIANT_REDUCE, 0, 0};
        rc = compile1(p40, 33, c);
        if (!EXPECT(rc == CLM_E_UNSUPPORTED || rc == CLM_E_INVALID))
            t_note("variant reduce with %s: clm_compile returned %d (%s)",
                   clm_algorithm_name(others[i]), rc, clm_strerror(rc));
        c.variant = CLM_VARIANT_ITEM;
        if (!EXPECT_RC(compile1(p40, 33, c), CLM_OK))
            t_note("variant item with %s", clm_algorithm_name(others[i]));
    }
    /* bad option values */
    c = (copts){CLM_ALGO_BITAP, (clm_variant)99, 0, 0};
    EXPECT_RC(compile1(p40, 33, c), CLM_E_INVALID);
    c = (copts){(clm_algorithm)clm_algorithm_count(), CLM_VARIANT_AUTO, 0, 0};
    EXPECT_RC(compile1(p40, 33, c), CLM_E_INVALID);
    c = (copts){CLM_ALGO_BITAP, CLM_VARIANT_AUTO, 1u << 20, 0};
    EXPECT_RC(compile1(p40, 33, c), CLM_E_INVALID);
    free(p40);
    free(p300);
}

/* max_errors = CLM_MAX_ERRORS is accepted and searches right. */
static void test_max_errors(const void *arg)
{
    size_t m = 40, n = t_quick ? 2000 : 6000;
    unsigned char *p = t_pattern(26, m), *text = xmalloc(n), *buf = xmalloc(m + CLM_MAX_ERRORS);
    const unsigned char *pp = p;
    fcase c;
    t_rng r;
    unsigned q;
    (void)arg;
    fcase_init(&c);
    t_rng_init(&r, "max-errors", 0);
    t_fill(&r, text, n, 26);
    for (q = 0; q < 10; q++) {
        size_t len = t_mutate(&r, p, m, (unsigned)t_below(&r, CLM_MAX_ERRORS + 3), 0, 26, buf);
        memcpy(text + t_below(&r, n - len), buf, len);
    }
    c.algo = CLM_ALGO_BITAP;
    c.fs.pats = &pp;
    c.fs.lens = &m;
    c.fs.count = 1;
    c.fs.k = CLM_MAX_ERRORS;
    if (fcase_open(&c, NULL)) fcase_check(&c, text, n, "k=CLM_MAX_ERRORS");
    fcase_free(&c);
    free(buf);
    free(text);
    free(p);
}

/* ---- automatic choice ---------------------------------------------------------------------------- */

typedef struct {
    unsigned alpha;
    size_t m;
    unsigned flags, k;
    int want_bitap; /* classes or errors: only bitap can */
} auto_case;

static void test_auto(const void *arg)
{
    static const auto_case ac[] = {
        {4, 1, 0, 0, 0},     {26, 17, 0, 0, 0},         {256, 64, 0, 0, 0},
        {4, 300, 0, 0, 0},   {2, 1000, 0, 0, 0},        {26, 17, CLM_CASELESS, 0, 0},
        {4, 20, 0, 2, 1},    {26, 64, CLM_CASELESS, 1, 1}, {4, 100, CLM_MISMATCHES_ONLY, 3, 1},
        {4, 256, 0, 1, 1},
    };
    size_t i;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    t_rng_init(&r, "auto", 0);
    for (i = 0; i < sizeof ac / sizeof ac[0]; i++) {
        size_t m = ac[i].m, n = (t_quick ? 3000 : 15000) + 3 * m, q;
        unsigned char *p = t_pattern(ac[i].alpha, m), *text = xmalloc(n), *buf = xmalloc(m + 20);
        const unsigned char *pp = p;
        if (t_quick && i % 3) goto next;
        t_fill(&r, text, n, ac[i].alpha);
        for (q = 0; q < 12; q++) {
            size_t len = t_mutate(&r, p, m, (unsigned)t_below(&r, ac[i].k + 2) * (q % 2),
                                  (ac[i].flags & CLM_MISMATCHES_ONLY) != 0, ac[i].alpha, buf);
            memcpy(text + t_below(&r, n - len), buf, len);
        }
        c.algo = CLM_ALGO_AUTO;
        c.fs.pats = &pp;
        c.fs.lens = &m;
        c.fs.count = 1;
        c.fs.flags = ac[i].flags;
        c.fs.k = ac[i].k;
        if (fcase_open(&c, "auto")) {
            t_note("auto: m=%zu alpha=%u k=%u%s -> %s/%s/%s (\"%s\")", m, ac[i].alpha, ac[i].k,
                   ac[i].flags & CLM_CASELESS ? " caseless" : "",
                   clm_algorithm_name(c.info.algorithm), clm_variant_name(c.info.variant),
                   clm_table_memory_name(c.info.table_memory), c.info.choice);
            if (ac[i].want_bitap && !EXPECT(c.info.algorithm == CLM_ALGO_BITAP))
                t_note("%s: auto chose %s", c.desc, clm_algorithm_name(c.info.algorithm));
            if (m > CLM_BITAP_MAX_LENGTH && !EXPECT(c.info.algorithm != CLM_ALGO_BITAP))
                t_note("%s: auto chose bitap for %zu bytes", c.desc, m);
            fcase_check(&c, text, n, "auto");
        }
        fcase_close(&c);
    next:
        free(buf);
        free(text);
        free(p);
    }
    /* several patterns of very different lengths, exact: 1000 bytes among them */
    {
        unsigned char *a = t_pattern(4, 1000), *b = t_pattern(4, 3), *d = t_pattern(4, 300);
        const unsigned char *pats[3] = {a, b, d};
        size_t lens[3] = {1000, 3, 300}, n = t_quick ? 5000 : 20000, q;
        unsigned ids[3] = {2, 0, 1};
        unsigned char *text = xmalloc(n);
        t_fill(&r, text, n, 4);
        for (q = 0; q < 8; q++) {
            memcpy(text + t_below(&r, n - 1000), a, 1000);
            memcpy(text + t_below(&r, n - 300), d, 300);
        }
        c.algo = CLM_ALGO_AUTO;
        c.fs.pats = pats;
        c.fs.lens = lens;
        c.fs.ids = ids;
        c.fs.count = 3;
        c.fs.flags = 0;
        c.fs.k = 0;
        if (fcase_open(&c, "auto-multi")) {
            if (fcase_scratch(&c, 4099, 0)) fcase_check(&c, text, n, "auto-multi-slab-4099");
        }
        fcase_close(&c);
        c.fs.ids = NULL;
        free(text);
        free(a);
        free(b);
        free(d);
    }
    fcase_free(&c);
}

void register_algo_api_tests(void)
{
    t_register("algo.names", test_names, NULL, 1);
    t_register("algo.errors", test_errors, NULL, 1);
    t_register("algo.max_errors", test_max_errors, NULL, 1);
    t_register("algo.auto", test_auto, NULL, 1);
}
