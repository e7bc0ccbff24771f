/*
 * Character classes (CLM_CLASSES): bitap against the test's own parser of the documented
 * syntax and a matcher over byte sets (t_ref.c), exact, caseless, approximate and Hamming;
 * several class patterns in one database; malformed patterns (CLM_E_PATTERN_SYNTAX); class
 * patterns with the algorithms that cannot search them (CLM_E_UNSUPPORTED naming bitap).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ref_util.h"

typedef struct {
    const char *p;
    size_t len;
} cpat;
#define CP(s) {s, sizeof(s) - 1}

/* Symbol counts 1, 3 and 5 only (plus two long ones built at run time), so that kernel builds
 * keyed on the pattern length are shared. */
static const cpat class_pats[] = {
    CP("."),
    CP("[ACGT]"),
    CP("[^ACGT]"),
    CP("\\d"),
    CP("\\W"),
    CP("a.c"),
    CP("[a-cx-z]q\\."),
    CP("\\D\\W\\S"),
    CP("\\\\\\[\\]"),            /* \ [ ] */
    CP("x\\ny"),                 /* x newline y */
    CP("\\t\\r\\s"),
    CP("[\\]\\-\\\\]ab"),        /* one of ] - \, then a, b */
    CP("[\\d_][\\w][\\s.]"),     /* classes inside brackets; '.' listed is a dot */
    CP("[\x80-\xff]\0[^\\d]"),   /* high bytes, a NUL byte, a negated class */
    CP("GA[AT]TC"),
    CP("\\d\\d-\\d\\d"),
    CP("[Aa]b[^b]\\tZ"),
    CP("\\s\\S\\w\\W."),
    CP("[0-9a-fA-F]x[^\\d\\s]\\[."),
    CP("[A-Z][a-z][a-z][a-z]."),
};
#define NCLASS (sizeof class_pats / sizeof class_pats[0])

/* Background bytes of the texts: what the classes above separate. */
static const unsigned char bg[] = "ACGTacgtabcxyzqXYZQbB0123456789_- .\\[]\n\t\r\v\f\0\x80\xc3\xff-Zz";
#define NBG (sizeof bg - 1)

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* A long class pattern: `symbols` symbols cycling through a few class forms (about 3 bytes a
 * symbol, so 256 symbols are far more than 256 bytes). malloc'd; *len gets its byte length. */
static unsigned char *long_class_pattern(size_t symbols, int negated, size_t *len)
{
    static const char *const parts[] = {"[ACGT]", "A", "C", ".", "[^T]", "\\w", "G", "[AC]"};
    unsigned char *p = xmalloc(symbols * 6 + 1);
    size_t i, o = 0;
    for (i = 0; i < symbols; i++) {
        const char *s = parts[(i * 7 + i / 8) % 8];
        if (!negated && s[1] == '^') s = "[AG]";
        size_t k = strlen(s);
        memcpy(p + o, s, k);
        o += k;
    }
    *len = o;
    return p;
}

/* One member of set s at random (any byte for '.'), or with miss, one non-member if any. */
static unsigned char pick(t_rng *r, const t_cset *s, int miss)
{
    unsigned char cand[256];
    unsigned n = 0, c;
    for (c = 0; c < 256; c++)
        if (t_cset_has(s, (unsigned char)c) != miss) cand[n++] = (unsigned char)c;
    if (n == 0) return (unsigned char)t_below(r, 256);
    /* prefer the background's bytes half of the time: they are what the text is made of */
    if (t_below(r, 2)) {
        unsigned k, tries;
        for (tries = 0; tries < 8; tries++) {
            k = (unsigned)t_below(r, NBG);
            if (t_cset_has(s, bg[k]) != miss) return bg[k];
        }
    }
    return cand[t_below(r, n)];
}

/* Text of n background bytes with `copies` instances of each pattern of fs sampled from its
 * sets (and as many near misses: one symbol replaced by a non-member). */
static unsigned char *class_text(t_rng *r, size_t n, const t_fset *fs, unsigned copies)
{
    unsigned char *text = xmalloc(n);
    size_t i;
    unsigned pi, k;
    for (i = 0; i < n; i++) text[i] = bg[t_below(r, NBG)];
    for (pi = 0; pi < fs->count; pi++) {
        t_cset *S = NULL;
        long m = t_parse_pattern(fs->pats[pi], fs->lens[pi], (fs->flags & CLM_CLASSES) != 0,
                                 (fs->flags & CLM_CASELESS) != 0, &S, NULL, NULL);
        if (m <= 0 || (size_t)m > n) {
            free(S);
            continue;
        }
        for (k = 0; k < 2 * copies; k++) {
            size_t at = t_below(r, n - (size_t)m + 1), j, bad = k % 2 ? t_below(r, (size_t)m) : (size_t)-1;
            for (j = 0; j < (size_t)m; j++) text[at + j] = pick(r, &S[j], j == bad);
        }
        free(S);
    }
    return text;
}

static void set_fs(fcase *c, const unsigned char *const *pats, const size_t *lens,
                   const unsigned *ids, unsigned count, unsigned flags, unsigned k)
{
    c->fs.pats = pats;
    c->fs.lens = lens;
    c->fs.ids = ids;
    c->fs.count = count;
    c->fs.flags = flags;
    c->fs.k = k;
}

/* ---- the reference's own parser -------------------------------------------------------------- */

/* A few patterns with their sets written out, so the reference is not only checked against
 * the library. */
static void test_parser(const void *arg)
{
    t_cset *S = NULL;
    long m;
    size_t at;
    const char *why;
    (void)arg;

    m = t_parse_pattern((const unsigned char *)"[a-c]\\d.\\W\\.", 12, 1, 0, &S, &at, &why);
    if (EXPECT(m == 5)) {
        EXPECT(t_cset_has(&S[0], 'b') && !t_cset_has(&S[0], 'B') && !t_cset_has(&S[0], 'd'));
        EXPECT(t_cset_has(&S[1], '7') && !t_cset_has(&S[1], 'a'));
        EXPECT(t_cset_has(&S[2], 0) && t_cset_has(&S[2], 0xff) && t_cset_has(&S[2], '\n'));
        EXPECT(t_cset_has(&S[3], ' ') && !t_cset_has(&S[3], '_') && !t_cset_has(&S[3], 'Q'));
        EXPECT(t_cset_has(&S[4], '.') && !t_cset_has(&S[4], 'x'));
    }
    free(S);
    m = t_parse_pattern((const unsigned char *)"[^a]", 4, 1, 1, &S, &at, &why);
    if (EXPECT(m == 1)) EXPECT(!t_cset_has(&S[0], 'a') && !t_cset_has(&S[0], 'A') && t_cset_has(&S[0], 'b'));
    free(S);
    m = t_parse_pattern((const unsigned char *)"[\\]\\-\\\\]", 8, 1, 0, &S, &at, &why);
    if (EXPECT(m == 1)) {
        EXPECT(t_cset_has(&S[0], ']') && t_cset_has(&S[0], '-') && t_cset_has(&S[0], '\\'));
        EXPECT(!t_cset_has(&S[0], '^') && !t_cset_has(&S[0], 'a'));
    }
    free(S);
    EXPECT(t_parse_pattern((const unsigned char *)"[AC", 3, 1, 0, &S, &at, &why) < 0);
    EXPECT(t_parse_pattern((const unsigned char *)"[]", 2, 1, 0, &S, &at, &why) < 0);
    EXPECT(t_parse_pattern((const unsigned char *)"[z-a]", 5, 1, 0, &S, &at, &why) < 0);
    EXPECT(t_parse_pattern((const unsigned char *)"ab\\", 3, 1, 0, &S, &at, &why) < 0);
    m = t_parse_pattern((const unsigned char *)"[AC", 3, 0, 0, &S, &at, &why);
    if (EXPECT(m == 3)) EXPECT(t_cset_has(&S[0], '[') && !t_cset_has(&S[0], 'A'));
    free(S);
}

/* ---- exact ---------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    clm_variant variant;
    unsigned flags; /* CLM_CASELESS */
} class_arg;

static void test_exact(const void *arg)
{
    const class_arg *a = arg;
    size_t n = t_quick ? 4000 : 30000, i, llen[2];
    unsigned char *longp[2];
    const unsigned char *pats[NCLASS + 2];
    size_t lens[NCLASS + 2];
    unsigned count = 0, pi;
    fcase c;
    t_rng r;
    int reduce = a->variant == CLM_VARIANT_REDUCE || a->variant == CLM_VARIANT_SUBGROUP;
    int caseless = (a->flags & CLM_CASELESS) != 0;

    if (a->variant == CLM_VARIANT_SUBGROUP) {
        t_note("the subgroup variant is not implemented: nothing to run (diff.bitap-subgroup.* "
               "checks the refusal)");
        return;
    }
    /* Negated classes with CLM_CASELESS are classes.caseless_negated's: left out here. */
    longp[0] = long_class_pattern(reduce ? 64 : 70, !caseless, &llen[0]);
    longp[1] = long_class_pattern(reduce ? 64 : 256, !caseless, &llen[1]);
    for (i = 0; i < NCLASS; i++) {
        if (t_quick && i % 3) continue;
        if (caseless && strstr(class_pats[i].p, "[^")) continue;
        /* caseless and the reduce variants: half the patterns (kernel builds) */
        if ((caseless || reduce) && i % 2) continue;
        pats[count] = (const unsigned char *)class_pats[i].p;
        lens[count++] = class_pats[i].len;
    }
    pats[count] = longp[0];
    lens[count++] = llen[0];
    if (!t_quick || !reduce) {
        pats[count] = longp[1];
        lens[count++] = llen[1];
    }
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    c.variant = a->variant;
    t_rng_init(&r, a->name, 0);
    /* One pattern at a time. */
    for (pi = 0; pi < count; pi++) {
        unsigned char *text;
        set_fs(&c, &pats[pi], &lens[pi], NULL, 1, CLM_CLASSES | a->flags, 0);
        text = class_text(&r, n, &c.fs, 30);
        if (fcase_open(&c, NULL)) {
            t_cset *S = NULL;
            size_t symbols = (size_t)t_parse_pattern(pats[pi], lens[pi], 1, 0, &S, NULL, NULL);
            free(S);
            /* lengths are counted in symbols */
            if (!EXPECT(c.info.min_length == symbols && c.info.max_length == symbols))
                t_note("%s: info min/max_length %zu/%zu, the pattern has %zu symbols", c.desc,
                       c.info.min_length, c.info.max_length, symbols);
            fcase_check(&c, text, n, "classes");
            fcase_check(&c, text, lens[pi] < n ? 3 : 0, "3-bytes");
        }
        fcase_close(&c);
        free(text);
    }
    /* All of them in one database, ids in reverse, through small slabs too. */
    {
        unsigned *ids = malloc(count * sizeof *ids);
        unsigned char *text;
        if (!ids) abort();
        for (pi = 0; pi < count; pi++) ids[pi] = 1000 - pi;
        set_fs(&c, pats, lens, ids, count, CLM_CLASSES | a->flags, 0);
        text = class_text(&r, n, &c.fs, 10);
        if (fcase_open(&c, "all-in-one-database")) {
            fcase_check(&c, text, n, "classes-multi");
            if (fcase_scratch(&c, 4099, 0)) fcase_check(&c, text, n, "classes-multi-slab-4099");
        }
        fcase_close(&c);
        free(text);
        free(ids);
    }
    fcase_free(&c);
    free(longp[0]);
    free(longp[1]);
}

/* Each class pattern searched with bitap against the reference, on random text of `density`
 * (class_text) that its classes match often. */
static void search_classes(const cpat *pats, size_t count, unsigned flags, unsigned density,
                           const char *label)
{
    size_t n = t_quick ? 3000 : 20000, i;
    fcase c;
    t_rng r;
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, label, 0);
    for (i = 0; i < count; i++) {
        const unsigned char *pp = (const unsigned char *)pats[i].p;
        unsigned char *text;
        set_fs(&c, &pp, &pats[i].len, NULL, 1, flags, 0);
        text = class_text(&r, n, &c.fs, density);
        if (fcase_open(&c, NULL)) fcase_check(&c, text, n, label);
        fcase_close(&c);
        free(text);
    }
    fcase_free(&c);
}

/* Caseless negated classes: [^a] with CLM_CASELESS matches neither 'a' nor 'A' (the listed
 * bytes are folded before the complement, as in grep -i and PCRE). Kept apart so that a
 * library reading it the other way fails here alone. */
static void test_caseless_negated(const void *arg)
{
    static const cpat negs[] = {CP("[^a]"), CP("[^ACGT]"), CP("[^a-c]x[^Q]")};
    (void)arg;
    search_classes(negs, sizeof negs / sizeof negs[0], CLM_CLASSES | CLM_CASELESS, 30,
                   "caseless-negated");
}

/* ---- approximate and Hamming with classes ------------------------------------------------------ */

static void test_fuzzy_classes(const void *arg)
{
#define FC(s, k, f) {s, sizeof(s) - 1, k, f}
    static const struct { const char *p; size_t len; unsigned k, flags; } cases[] = {
        FC("a.c", 1, 0),
        FC("GA[AT]TC", 1, 0),
        FC("GA[AT]TC", 2, 0),
        FC("[A-Z][a-z][a-z][a-z].", 2, CLM_CASELESS),
        FC("\\d\\d-\\d\\d", 1, CLM_MISMATCHES_ONLY),
        FC("GA[AT]TC", 2, CLM_MISMATCHES_ONLY),
        FC("[\\d_][\\w][\\s.]", 1, CLM_CASELESS),
    };
#undef FC
    size_t n = t_quick ? 3000 : 20000, i, llen;
    unsigned char *longp = long_class_pattern(70, 1, &llen);
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_BITAP;
    t_rng_init(&r, "fuzzy-classes", 0);
    for (i = 0; i < sizeof cases / sizeof cases[0] + 2; i++) {
        const unsigned char *pp;
        size_t len;
        unsigned k, flags;
        unsigned char *text;
        if (i < sizeof cases / sizeof cases[0]) {
            pp = (const unsigned char *)cases[i].p;
            len = cases[i].len;
            k = cases[i].k;
            flags = cases[i].flags;
        } else { /* the 70-symbol pattern (two 64-bit words) with 3 edits, and 2 mismatches */
            pp = longp;
            len = llen;
            k = i == sizeof cases / sizeof cases[0] ? 3 : 2;
            flags = i == sizeof cases / sizeof cases[0] ? 0 : CLM_MISMATCHES_ONLY;
        }
        if (t_quick && i % 2) continue;
        set_fs(&c, &pp, &len, NULL, 1, CLM_CLASSES | flags, k);
        text = class_text(&r, n, &c.fs, 20);
        if (fcase_open(&c, NULL)) {
            fcase_check(&c, text, n, "classes-fuzzy");
            if (fcase_scratch(&c, 4099, 0)) fcase_check(&c, text, n, "classes-fuzzy-slab-4099");
        }
        fcase_close(&c);
        free(text);
    }
    fcase_free(&c);
    free(longp);
}

/* ---- without CLM_CLASSES the same bytes are literal ------------------------------------------- */

static void test_literal(const void *arg)
{
    static const clm_algorithm algos[] = {CLM_ALGO_BITAP, CLM_ALGO_AUTO};
    size_t n = t_quick ? 3000 : 20000, i, j;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    t_rng_init(&r, "classes-literal", 0);
    for (i = 0; i < NCLASS; i += t_quick ? 8 : 4) {
        const unsigned char *pp = (const unsigned char *)class_pats[i].p;
        size_t len = class_pats[i].len, k;
        unsigned char *text = xmalloc(n);
        for (k = 0; k < n; k++) text[k] = bg[t_below(&r, NBG)];
        for (k = 0; k < 20; k++) memcpy(text + t_below(&r, n - len), pp, len);
        for (j = 0; j < sizeof algos / sizeof algos[0]; j++) {
            c.algo = algos[j];
            set_fs(&c, &pp, &len, NULL, 1, 0, 0);
            if (fcase_open(&c, "without CLM_CLASSES")) fcase_check(&c, text, n, "literal-copies");
            fcase_close(&c);
        }
        free(text);
    }
    fcase_free(&c);
}

/* ---- automatic choice ---------------------------------------------------------------------------- */

static void test_auto_classes(const void *arg)
{
    static const cpat ps[] = {CP("GA[AT]TC"), CP("\\d\\d-\\d\\d"), CP(".")};
    size_t n = t_quick ? 3000 : 20000, i;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_AUTO;
    t_rng_init(&r, "classes-auto", 0);
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        const unsigned char *pp = (const unsigned char *)ps[i].p;
        unsigned char *text;
        set_fs(&c, &pp, &ps[i].len, NULL, 1, CLM_CLASSES | (i == 1 ? CLM_CASELESS : 0u), 0);
        text = class_text(&r, n, &c.fs, 20);
        if (fcase_open(&c, "auto")) {
            if (!EXPECT(c.info.algorithm == CLM_ALGO_BITAP))
                t_note("%s: auto chose %s for a class pattern (choice \"%s\")", c.desc,
                       clm_algorithm_name(c.info.algorithm), c.info.choice);
            fcase_check(&c, text, n, "classes-auto");
        }
        fcase_close(&c);
        free(text);
    }
    fcase_free(&c);
}

/* Many class patterns in one aho automaton (each the literal variants its sets stand for),
 * overlapping sets and a duplicate included, against the reference: slab edges too. */
static void test_aho_classes(const void *arg)
{
    static const cpat ps[] = {CP("."),         CP("[ACGT]"),       CP("[^ACGT]"),
                              CP("\\d"),       CP("a.c"),          CP("[a-cx-z]q\\."),
                              CP("x\\ny"),      CP("GA[AT]TC"),     CP("\\d\\d-\\d\\d"),
                              CP("[Aa]b[^b]\\tZ"), CP("GA[AT]TC"),  CP("[\x80-\xff]\0[^\\d]"),
                              CP("[\\d_][\\w][\\s.]"), CP("ab"), CP("G[AT]")};
    enum { N = sizeof ps / sizeof ps[0] };
    const unsigned char *pats[N];
    size_t lens[N];
    unsigned ids[N], count;
    size_t n = t_quick ? 4000 : 20000;
    fcase c;
    t_rng r;
    (void)arg;
    fcase_init(&c);
    c.algo = CLM_ALGO_AHO;
    t_rng_init(&r, "classes-aho", 0);
    for (int caseless = 0; caseless < 2; caseless++) {
        count = 0;
        for (unsigned i = 0; i < N; i++) {
            if (caseless && strstr(ps[i].p, "[^")) continue; /* classes.caseless_negated's */
            pats[count] = (const unsigned char *)ps[i].p;
            lens[count] = ps[i].len;
            ids[count] = 500 - 3 * count;
            count++;
        }
        set_fs(&c, pats, lens, ids, count, CLM_CLASSES | (caseless ? CLM_CASELESS : 0u), 0);
        unsigned char *text = class_text(&r, n, &c.fs, 10);
        if (fcase_open(&c, "aho")) {
            fcase_check(&c, text, n, "classes-aho");
            if (fcase_scratch(&c, 4099, 0)) fcase_check(&c, text, n, "classes-aho-slab-4099");
            if (fcase_scratch(&c, 97, 64)) fcase_check(&c, text, 3000, "classes-aho-slab-97");
        }
        fcase_close(&c);
        free(text);
    }
    fcase_free(&c);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static int compile_rc(const char *p, size_t len, clm_algorithm algo, unsigned flags, unsigned k)
{
    clm_compile_options o;
    clm_database *db = NULL;
    const char *pats[1];
    int rc;
    pats[0] = p;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = algo;
    o.flags = flags;
    o.max_errors = k;
    rc = clm_compile(t_dev, pats, &len, NULL, 1, &o, &db);
    clm_database_free(db);
    return rc;
}

/* Does the detail say "offset N" for exactly this N (not a longer number starting so)? */
static int names_offset(const char *detail, size_t at)
{
    char want[32];
    const char *p = detail;
    size_t n = (size_t)snprintf(want, sizeof want, "offset %zu", at);
    while ((p = strstr(p, want)) != NULL) {
        if (p[n] < '0' || p[n] > '9') return 1;
        p += n;
    }
    return 0;
}

static void test_syntax(const void *arg)
{
    /* at: the byte offset the detail must name: the '[' of an unterminated or empty bracket,
     * the end of a reversed range, the backslash of a trailing one or of a class in a range */
    static const struct { const char *p; size_t len, at; } bad[] = {
#define BAD(s, at) {s, sizeof(s) - 1, at}
        BAD("[AC", 0), BAD("[]", 0), BAD("[z-a]", 3), BAD("ab\\", 2), BAD("[^", 0),
        BAD("x[a-", 1), BAD("[ab\\", 3), BAD("GA[AT]TC[9-0]", 11), BAD("\\d\\", 2),
        /* a class as a range's end or start spans no range of bytes ([a-\d] is not a-d) */
        BAD("[a-\\d]", 3), BAD("x[0-\\W]y", 4), BAD("[^!-\\s]", 4), BAD("[\\d-z]", 1),
        BAD("[ab\\S-Z]", 3), BAD("[\\w-\\d]", 1),
#undef BAD
    };
    static const clm_algorithm algos[] = {CLM_ALGO_BITAP, CLM_ALGO_AUTO};
    size_t i, j;
    (void)arg;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t_cset *S = NULL;
        /* the test's parser agrees that it is malformed */
        if (!EXPECT(t_parse_pattern((const unsigned char *)bad[i].p, bad[i].len, 1, 0, &S, NULL,
                                    NULL) < 0))
            t_note("reference parser accepts \"%s\"", bad[i].p);
        free(S);
        for (j = 0; j < sizeof algos / sizeof algos[0]; j++) {
            int rc = compile_rc(bad[i].p, bad[i].len, algos[j], CLM_CLASSES, 0);
            const char *detail = clm_last_error();
            if (rc != CLM_E_PATTERN_SYNTAX) {
                T_FAIL("pattern \"%s\" with CLM_CLASSES, algorithm %s: clm_compile returned %d "
                       "(%s), expected CLM_E_PATTERN_SYNTAX; detail \"%.300s\"",
                       bad[i].p, clm_algorithm_name(algos[j]), rc, clm_strerror(rc), detail);
                continue;
            }
            if (!*detail) {
                T_FAIL("pattern \"%s\": CLM_E_PATTERN_SYNTAX with an empty detail", bad[i].p);
                continue;
            }
            /* The detail names the pattern (its text or its index) and the byte offset. */
            if ((!strstr(detail, bad[i].p) && !strstr(detail, "pattern 0"))
                || !names_offset(detail, bad[i].at))
                T_FAIL("pattern \"%s\": CLM_E_PATTERN_SYNTAX detail does not name the pattern "
                       "and offset %zu: \"%.300s\"", bad[i].p, bad[i].at, detail);
        }
        /* Approximate search parses the same way. */
        if (bad[i].len > 4)
            EXPECT_RC(compile_rc(bad[i].p, bad[i].len, CLM_ALGO_BITAP, CLM_CLASSES, 1),
                      CLM_E_PATTERN_SYNTAX);
        /* Without CLM_CLASSES it is a plain literal. */
        if (!EXPECT_RC(compile_rc(bad[i].p, bad[i].len, CLM_ALGO_BITAP, 0, 0), CLM_OK))
            t_note("literal pattern \"%s\"", bad[i].p);
    }
    /* A malformed pattern among good ones: the whole compile fails. */
    {
        const char *pats[3] = {"GA[AT]TC", "[AC", "x"};
        clm_compile_options o;
        clm_database *db = NULL;
        clm_compile_options_init(&o, sizeof o);
        o.flags = CLM_CLASSES;
        if (EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 3, &o, &db), CLM_E_PATTERN_SYNTAX)
            && !strstr(clm_last_error(), "[AC") && !strstr(clm_last_error(), "pattern 1"))
            T_FAIL("the second of three patterns malformed: detail names neither \"[AC\" nor "
                   "\"pattern 1\": \"%.300s\"", clm_last_error());
        clm_database_free(db);
    }
}

/* A '-' next to a class that cannot make a range (first, last, escaped) is a literal '-':
 * the library matches what the reference reads, and the reference reads the '-'. */
static void test_class_hyphen(const void *arg)
{
    static const cpat ok[] = {CP("[\\d-]"), CP("[-\\d]"), CP("[\\d\\-z]"), CP("[a\\-\\W]"),
                              CP("[^\\s-]")};
    size_t i;
    (void)arg;
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        t_cset *S = NULL;
        long m = t_parse_pattern((const unsigned char *)ok[i].p, ok[i].len, 1, 0, &S, NULL, NULL);
        if (!EXPECT(m == 1) || !EXPECT(t_cset_has(&S[0], '-') != (ok[i].p[1] == '^')))
            t_note("reference parser on \"%s\": %ld symbols", ok[i].p, m);
        free(S);
    }
    search_classes(ok, sizeof ok / sizeof ok[0], CLM_CLASSES, 20, "class-hyphen");
}

static void test_unsupported(const void *arg)
{
    static const clm_algorithm algos[] = {CLM_ALGO_NAIVE, CLM_ALGO_KMP, CLM_ALGO_DFA, CLM_ALGO_BMH,
                                          CLM_ALGO_WITNESS};
    size_t i;
    (void)arg;
    for (i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        int rc = compile_rc("[AC]GT.", 7, algos[i], CLM_CLASSES, 0);
        if (!EXPECT_RC(rc, CLM_E_UNSUPPORTED)) {
            t_note("class pattern with algorithm %s", clm_algorithm_name(algos[i]));
            continue;
        }
        if (!strstr(clm_last_error(), "bitap"))
            T_FAIL("class pattern with %s: CLM_E_UNSUPPORTED detail does not name bitap: "
                   "\"%.300s\"", clm_algorithm_name(algos[i]), clm_last_error());
        /* caseless too */
        EXPECT_RC(compile_rc("[AC]GT.", 7, algos[i], CLM_CLASSES | CLM_CASELESS, 0),
                  CLM_E_UNSUPPORTED);
    }
}

/* Symbols, not bytes, count toward CLM_BITAP_MAX_LENGTH. */
static void test_symbols(const void *arg)
{
    size_t len;
    unsigned char *p = long_class_pattern(CLM_BITAP_MAX_LENGTH, 1, &len), *q;
    int rc;
    (void)arg;
    EXPECT(len > CLM_BITAP_MAX_LENGTH);
    rc = compile_rc((const char *)p, len, CLM_ALGO_BITAP, CLM_CLASSES, 0);
    if (!EXPECT_RC(rc, CLM_OK)) t_note("%u symbols in %zu bytes", CLM_BITAP_MAX_LENGTH, len);
    free(p);
    q = long_class_pattern(CLM_BITAP_MAX_LENGTH + 1, 1, &len);
    rc = compile_rc((const char *)q, len, CLM_ALGO_BITAP, CLM_CLASSES, 0);
    if (EXPECT_RC(rc, CLM_E_PATTERN_TOO_LONG)) {
        char lim[16];
        snprintf(lim, sizeof lim, "%u", CLM_BITAP_MAX_LENGTH);
        if (!strstr(clm_last_error(), lim))
            T_FAIL("%u class symbols: detail does not name the limit %s: \"%.300s\"",
                   CLM_BITAP_MAX_LENGTH + 1, lim, clm_last_error());
    }
    /* and with auto (only bitap searches classes) */
    EXPECT_RC(compile_rc((const char *)q, len, CLM_ALGO_AUTO, CLM_CLASSES, 0), CLM_E_PATTERN_TOO_LONG);
    free(q);
}

static const class_arg exact_args[] = {
    {"classes.exact.item", CLM_VARIANT_ITEM, 0},
    {"classes.exact.item.caseless", CLM_VARIANT_ITEM, CLM_CASELESS},
    {"classes.exact.auto-variant", CLM_VARIANT_AUTO, 0},
    {"classes.exact.reduce", CLM_VARIANT_REDUCE, 0},
    {"classes.exact.subgroup", CLM_VARIANT_SUBGROUP, 0},
};

void register_classes_tests(void)
{
    size_t i;
    t_register("classes.parser", test_parser, NULL, 1);
    for (i = 0; i < sizeof exact_args / sizeof exact_args[0]; i++)
        t_register(exact_args[i].name, test_exact, &exact_args[i],
                   i != 2);
    t_register("classes.caseless_negated", test_caseless_negated, NULL, 1);
    t_register("classes.fuzzy", test_fuzzy_classes, NULL, 1);
    t_register("classes.literal", test_literal, NULL, 0);
    t_register("classes.auto", test_auto_classes, NULL, 1);
    t_register("classes.aho", test_aho_classes, NULL, 1);
    t_register("classes.syntax", test_syntax, NULL, 1);
    t_register("classes.hyphen", test_class_hyphen, NULL, 1);
    t_register("classes.unsupported", test_unsupported, NULL, 1);
    t_register("classes.symbols", test_symbols, NULL, 1);
}
