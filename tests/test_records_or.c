/*
 * A disjunction of contains in one automaton walk per row (CLM_ROWS_AUTOMATON) against the
 * CPU reference (t_records.c): random rows over small alphabets with many overlapping
 * patterns (prefixes, suffixes and duplicates of each other), ILIKE, NULLs, empty rows,
 * rows at work-group edges, small slabs, host (copied and in place) and resident columns,
 * 32- and 64-bit offsets and ids, an automaton too large for local memory (and one too
 * large to build), positions, auto's choice, and the fallbacks to a work-item per row (NOT
 * LIKE, other shapes, LIKE beside ILIKE) with kernel_used saying which ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* struct clm_like: whether the automaton went to local memory */
#include "t.h"
#include "t_records.h"

/* A query of `count` patterns with one set of flags (or per pattern: flags[]). */
typedef struct {
    const char *const *pats;
    const unsigned *flags;
    unsigned count;
} orq;

/* The reference's selection of q over c into want[] (positions into pos when not NULL);
 * returns the count. */
static uint64_t or_ref(const tcol *c, const orq *q, unsigned char *want, uint64_t *pos)
{
    uint64_t count = 0;
    for (uint64_t i = 0; i < c->rows; i++) {
        want[i] = 0;
        if (pos) pos[i] = CLM_NO_POSITION;
        if (!tcol_valid(c, i)) continue;
        uint64_t a = tcol_off(c, i), b = tcol_off(c, i + 1);
        for (unsigned k = 0; k < q->count && !want[i]; k++) {
            unsigned f = q->flags ? q->flags[k] : 0;
            uint64_t at;
            int m = ref_like(c->data + a, (size_t)(b - a), q->pats[k], strlen(q->pats[k]), -1,
                             (f & CLM_LIKE_CASELESS) != 0, &at);
            if (f & CLM_LIKE_NOT) want[i] = !m;
            else if ((want[i] = (unsigned char)m) && pos) pos[i] = at;
        }
        count += want[i];
    }
    return count;
}

/* q over c every way the automaton runs: host columns copied (small slabs too) and in
 * place, resident, 32- and 64-bit ids, the count alone, and auto (`auto_used`: what auto
 * should take); then with positions, the lowest-numbered pattern's leftmost start. */
static void or_check_all(const tcol *c, const orq *q, size_t slab, clm_rows_kernel auto_used,
                         const char *what)
{
    unsigned char *want = malloc(c->rows + 1);
    uint64_t *want_pos = malloc((c->rows + 1) * sizeof *want_pos);
    if (!want || !want_pos) abort();
    uint64_t n = or_ref(c, q, want, want_pos);
    clm_like *like = NULL;
    clm_column *host = NULL, *res = NULL;
    char label[300];
    const clm_rows_kernel A = CLM_ROWS_AUTOMATON;
    if (EXPECT_RC(clm_like_compile(t_dev, q->pats, NULL, q->flags, q->count, -1, &like),
                  CLM_OK) &&
        EXPECT_RC(tcol_wrap(c, &host), CLM_OK)) {
        snprintf(label, sizeof label, "%s, host copied, 32-bit ids", what);
        tsel_select_check(like, host, c, want, NULL, n, 32, 0, 0, A, CLM_PATH_COPY, A, label);
        snprintf(label, sizeof label, "%s, host copied, slabs of %zu bytes", what, slab);
        tsel_select_check(like, host, c, want, NULL, n, 64, 0, slab, A, CLM_PATH_COPY, A,
                          label);
        snprintf(label, sizeof label, "%s, host in place, 64-bit ids", what);
        tsel_select_check(like, host, c, want, NULL, n, 64, 0, slab, A, CLM_PATH_ZERO_COPY, A,
                          label);
        snprintf(label, sizeof label, "%s, host, auto", what);
        tsel_select_check(like, host, c, want, NULL, n, 32, 0, 0, CLM_ROWS_AUTO, CLM_PATH_AUTO,
                          auto_used, label);
        snprintf(label, sizeof label, "%s, host, positions", what);
        tsel_select_check(like, host, c, want, want_pos, n, 32, 1, slab, A, CLM_PATH_COPY, A,
                          label);
        snprintf(label, sizeof label, "%s, host, positions, a work-item per row", what);
        tsel_select_check(like, host, c, want, want_pos, n, 32, 1, slab, CLM_ROWS_ITEM,
                          CLM_PATH_COPY, CLM_ROWS_ITEM, label);
        if (EXPECT_RC(clm_column_upload(t_dev, host, &res), CLM_OK)) {
            snprintf(label, sizeof label, "%s, resident, 64-bit ids", what);
            tsel_select_check(like, res, c, want, NULL, n, 64, 0, 0, A, CLM_PATH_AUTO, A,
                              label);
            snprintf(label, sizeof label, "%s, resident, the count alone", what);
            tsel_select_check(like, res, c, want, NULL, n, 0, 0, 0, A, CLM_PATH_AUTO, A, label);
            snprintf(label, sizeof label, "%s, resident, auto", what);
            tsel_select_check(like, res, c, want, NULL, n, 0, 0, 0, CLM_ROWS_AUTO,
                              CLM_PATH_AUTO, auto_used, label);
            snprintf(label, sizeof label, "%s, resident, positions", what);
            tsel_select_check(like, res, c, want, want_pos, n, 64, 1, 0, CLM_ROWS_AUTO,
                              CLM_PATH_AUTO, auto_used, label);
        }
    }
    clm_column_free(res);
    clm_column_free(host);
    clm_like_free(like);
    free(want);
    free(want_pos);
}

static size_t len_short(t_rng *r, uint64_t i)
{
    (void)i;
    return t_below(r, 4) == 0 ? 0 : t_below(r, 40); /* a row in four empty */
}

/* Patterns over the alphabet: random words, then prefixes, suffixes and copies of earlier
 * ones; words into buf (room for count * 16), pats[] pointing at '%word%'. */
static void random_words(t_rng *r, const char *alphabet, unsigned count, char *buf,
                         const char **pats)
{
    size_t na = strlen(alphabet);
    for (unsigned k = 0; k < count; k++) {
        char *w = buf + (size_t)k * 16, *p = w + 1;
        w[0] = '%';
        unsigned kind = k ? (unsigned)t_below(r, 4) : 0;
        const char *from = k ? pats[t_below(r, k)] + 1 : NULL;
        size_t flen = from ? strlen(from) - 1 : 0, len;
        if (kind == 1 && flen > 1) { /* a prefix of an earlier one */
            len = 1 + t_below(r, flen - 1);
            memcpy(p, from, len);
        } else if (kind == 2 && flen > 1) { /* a suffix */
            len = 1 + t_below(r, flen - 1);
            memcpy(p, from + flen - len, len);
        } else if (kind == 3 && flen) { /* a copy */
            len = flen;
            memcpy(p, from, len);
        } else {
            len = 1 + t_below(r, 6);
            for (size_t j = 0; j < len; j++) p[j] = alphabet[t_below(r, na)];
        }
        p[len] = '%';
        p[len + 1] = '\0';
        pats[k] = w;
    }
}

/* Random rows and many overlapping patterns, LIKE and ILIKE, row counts about work-group
 * edges, 32- and 64-bit offsets. */
static void test_random(const void *arg)
{
    (void)arg;
    static const char *const alphabets[] = {"ab", "abc", "abcAB", "aBcDe"};
    static const uint64_t rows[] = {1, 255, 256, 257, 1000, 2049};
    const unsigned rounds = t_smoke ? 4 : 12;
    for (unsigned round = 0; round < rounds; round++) {
        t_rng r;
        t_rng_init(&r, "records_or.random", round);
        const char *alphabet = alphabets[round % 4];
        unsigned count = 2 + (unsigned)t_below(&r, 11);
        char buf[12 * 16];
        const char *pats[12];
        unsigned flags[12];
        random_words(&r, alphabet, count, buf, pats);
        int caseless = round % 3 == 2;
        for (unsigned k = 0; k < count; k++) flags[k] = caseless ? CLM_LIKE_CASELESS : 0;
        tcol c;
        tcol_make(&c, &r, rows[round % 6], round % 2 ? 64 : 32, len_short, alphabet,
                  round % 4 == 1 ? 0 : 5);
        orq q = {pats, flags, count};
        char what[300];
        int at = snprintf(what, sizeof what, "round %u: %llu rows, %u-bit offsets, %s", round,
                          (unsigned long long)c.rows, c.bits, caseless ? "ILIKE" : "LIKE");
        for (unsigned k = 0; k < count && at < 250; k++)
            at += snprintf(what + at, sizeof what - (size_t)at, " '%s'", pats[k]);
        or_check_all(&c, &q, 64, CLM_ROWS_AUTOMATON, what);
        tcol_free(&c);
    }
}

/* Rows made by hand: a literal at a row's start and end, a row that is the literal, rows
 * shorter than every literal, a NULL row holding a literal, empty rows; over 300 rows, so
 * that work-groups end inside them. */
static void test_edges(const void *arg)
{
    (void)arg;
    static const char *const rows[] = {"abc", "xabc", "abcx", "ab", "", "c", "xxbcxx",
                                       "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzabc", "bca",
                                       "aabbcc", "ABC"};
    const unsigned nr = sizeof rows / sizeof rows[0], total = 300;
    tcol c;
    memset(&c, 0, sizeof c);
    c.rows = total;
    c.bits = 32;
    c.offsets = calloc(total + 1, 4);
    c.data = malloc(total * 64);
    c.validity = calloc(total / 8 + 1, 1);
    if (!c.offsets || !c.data || !c.validity) abort();
    uint64_t at = 0;
    for (unsigned i = 0; i < total; i++) {
        tcol_set_off(&c, i, at);
        const char *s = rows[(i * 7) % nr];
        memcpy(c.data + at, s, strlen(s));
        at += strlen(s);
        if (i % 13 != 6) c.validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    tcol_set_off(&c, total, at);
    c.bytes = at;
    const char *pats[] = {"%abc%", "%bc%", "%abc%", "%cc%", "%xxxxxxxxxxxxxxxxxxxxxxxxxxxx%"};
    orq q = {pats, NULL, 5};
    or_check_all(&c, &q, 20, CLM_ROWS_AUTOMATON, "rows by hand");
    unsigned fl[] = {CLM_LIKE_CASELESS, CLM_LIKE_CASELESS};
    const char *ipats[] = {"%aBc%", "%%zz%%"};
    orq iq = {ipats, fl, 2};
    or_check_all(&c, &iq, 20, CLM_ROWS_AUTOMATON, "rows by hand, ILIKE");
    tcol_free(&c);
}

/* Many long random literals: an automaton larger than the device's local memory, walked
 * from global memory. */
static void test_large(const void *arg)
{
    (void)arg;
    enum { N = 3000, M = 24 };
    t_rng r;
    t_rng_init(&r, "records_or.large", 0);
    const char *alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char *buf = malloc((size_t)N * (M + 3));
    const char **pats = malloc(N * sizeof *pats);
    if (!buf || !pats) abort();
    tcol c;
    tcol_make(&c, &r, 3000, 64, len_short, "abc", 7);
    for (unsigned k = 0; k < N; k++) {
        char *w = buf + (size_t)k * (M + 3);
        w[0] = '%';
        for (unsigned j = 1; j <= M; j++) w[j] = alphabet[t_below(&r, 62)];
        w[M + 1] = '%';
        w[M + 2] = '\0';
        pats[k] = w;
    }
    /* some literals that occur in the rows */
    for (unsigned k = 0; k < N; k += 500) {
        uint64_t i = t_below(&r, c.rows), a = tcol_off(&c, i), b = tcol_off(&c, i + 1);
        if (b - a >= 3) {
            char *w = buf + (size_t)k * (M + 3);
            memcpy(w + 1, c.data + a, 3);
            strcpy(w + 4, "%");
        }
    }
    clm_like *like = NULL;
    if (EXPECT_RC(clm_like_compile(t_dev, pats, NULL, NULL, N, -1, &like), CLM_OK)) {
        /* the kernel's choice: more than local memory holds */
        EXPECT(like->aho_buf != NULL);
        EXPECT((like->aho_words + CLM_LIKE_AHO_MAP) * 4ull > t_dev->info.local_mem_bytes);
        clm_like_free(like);
    }
    orq q = {pats, NULL, N};
    or_check_all(&c, &q, 256, CLM_ROWS_AUTOMATON, "an automaton in global memory");
    tcol_free(&c);
    free(buf);
    free(pats);
}

/* Literals whose automaton could pass 64 MiB (host/like.c AHO_MAX_BYTES: their bytes + 1
 * states by their distinct bytes + 1 classes) get none: a work-item per row. */
static void test_too_large(const void *arg)
{
    (void)arg;
    enum { N = 12000, M = 24 }; /* 288 001 x 63 x 4 bytes */
    t_rng r;
    t_rng_init(&r, "records_or.too_large", 0);
    const char *alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char *buf = malloc((size_t)N * (M + 3));
    const char **pats = malloc(N * sizeof *pats);
    if (!buf || !pats) abort();
    for (unsigned k = 0; k < N; k++) {
        char *w = buf + (size_t)k * (M + 3);
        w[0] = '%';
        for (unsigned j = 1; j <= M; j++) w[j] = alphabet[t_below(&r, 62)];
        strcpy(w + M + 1, "%");
        pats[k] = w;
    }
    strcpy(buf + 1, "ab%"); /* one that occurs */
    tcol c;
    tcol_make(&c, &r, 100, 32, len_short, "abc", 5);
    unsigned char *want = malloc(c.rows);
    if (!want) abort();
    orq q = {pats, NULL, N};
    uint64_t n = or_ref(&c, &q, want, NULL);
    clm_like *like = NULL;
    clm_column *col = NULL;
    if (EXPECT_RC(clm_like_compile(t_dev, pats, NULL, NULL, N, -1, &like), CLM_OK) &&
        EXPECT_RC(tcol_wrap(&c, &col), CLM_OK)) {
        EXPECT(like->aho_buf == NULL);
        tsel_select_check(like, col, &c, want, NULL, n, 32, 0, 0, CLM_ROWS_AUTOMATON,
                          CLM_PATH_AUTO, CLM_ROWS_ITEM, "an automaton too large to build");
    }
    clm_column_free(col);
    clm_like_free(like);
    free(want);
    tcol_free(&c);
    free(buf);
    free(pats);
}

/* Predicates the automaton does not serve run a work-item per row, whatever was asked, and
 * say so; a single contains walks it when asked (auto filters or runs a work-item then). */
static void test_fallbacks(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records_or.fallbacks", 0);
    tcol c;
    tcol_make(&c, &r, 700, 32, len_short, "abcAB", 6);
    static const unsigned NOT0[] = {CLM_LIKE_NOT, 0}, MIX[] = {0, CLM_LIKE_CASELESS};
    static const struct {
        const char *pats[3];
        const unsigned *flags;
        unsigned count;
        const char *what;
    } cases[] = {{{"%ab%", "%ba%"}, NOT0, 2, "NOT LIKE beside a contains"},
                 {{"%ab%", "ab%"}, NULL, 2, "a prefix beside a contains"},
                 {{"%ab%", "%bc"}, NULL, 2, "a suffix beside a contains"},
                 {{"%ab%", "%a_b%"}, NULL, 2, "'_' in a literal"},
                 {{"%ab%", "%a%b%"}, NULL, 2, "two segments"},
                 {{"%ab%", "%%"}, NULL, 2, "an empty literal"},
                 {{"%ab%", "abc"}, NULL, 2, "an equality"},
                 {{"%aB%", "%bc%"}, MIX, 2, "LIKE beside ILIKE"}};
    unsigned char *want = malloc(c.rows);
    if (!want) abort();
    clm_column *col = NULL;
    REQUIRE_RC(tcol_wrap(&c, &col), CLM_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        orq q = {cases[k].pats, cases[k].flags, cases[k].count};
        uint64_t n = or_ref(&c, &q, want, NULL);
        clm_like *like = NULL;
        if (!EXPECT_RC(clm_like_compile(t_dev, q.pats, NULL, q.flags, q.count, -1, &like),
                       CLM_OK))
            continue;
        EXPECT(like->aho_buf == NULL);
        tsel_select_check(like, col, &c, want, NULL, n, 32, 0, 0, CLM_ROWS_AUTOMATON,
                          CLM_PATH_AUTO, CLM_ROWS_ITEM, cases[k].what);
        clm_like_free(like);
    }
    /* one contains: the automaton when asked; auto keeps its rule for one pattern */
    const char *one = "%ab%";
    orq q1 = {&one, NULL, 1};
    uint64_t n = or_ref(&c, &q1, want, NULL);
    clm_like *like = NULL;
    if (EXPECT_RC(clm_like_compile(t_dev, &one, NULL, NULL, 1, -1, &like), CLM_OK)) {
        tsel_select_check(like, col, &c, want, NULL, n, 32, 0, 0, CLM_ROWS_AUTOMATON,
                          CLM_PATH_AUTO, CLM_ROWS_AUTOMATON, "one contains, asked for");
        tsel_select_check(like, col, &c, want, NULL, n, 32, 0, 0, CLM_ROWS_ITEM, CLM_PATH_AUTO,
                          CLM_ROWS_ITEM, "one contains, a work-item per row asked for");
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        if (EXPECT_RC(clm_like_select(like, col, &s), CLM_OK))
            EXPECT(s.kernel_used != CLM_ROWS_AUTOMATON && s.count == n);
        clm_like_free(like);
    }
    /* an approximate predicate: a work-item per row */
    const char *ap = "abab";
    if (EXPECT_RC(clm_approx_compile(t_dev, &ap, NULL, NULL, 1, 0, CLM_APPROX_EDITS, &like),
                  CLM_OK)) {
        const char *same = "%abab%";
        orq qa = {&same, NULL, 1};
        n = or_ref(&c, &qa, want, NULL);
        tsel_select_check(like, col, &c, want, NULL, n, 32, 0, 0, CLM_ROWS_AUTOMATON,
                          CLM_PATH_AUTO, CLM_ROWS_ITEM, "approximate contains");
        clm_like_free(like);
    }
    /* an unknown kernel past the last one, an unknown find method, a team or slice out of
     * range */
    clm_selection s;
    if (EXPECT_RC(clm_like_compile(t_dev, &one, NULL, NULL, 1, -1, &like), CLM_OK)) {
        static const struct {
            int kernel, find;
            unsigned seg_threads, seg_gap;
        } bad[] = {{CLM_ROWS_SEGMENT + 1, 0, 0, 0}, {CLM_ROWS_ITEM, CLM_FIND_FIRST_BYTE_WIDE + 1, 0, 0},
                   {CLM_ROWS_SEGMENT, 0, 1, 0},    {CLM_ROWS_SEGMENT, 0, 3, 0},
                   {CLM_ROWS_SEGMENT, 0, 64, 0},   {CLM_ROWS_SEGMENT, 0, 0, 65537}};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            clm_selection_init(&s, sizeof s);
            s.kernel = (clm_rows_kernel)bad[i].kernel;
            s.find = (clm_like_find)bad[i].find;
            s.seg_threads = bad[i].seg_threads;
            s.seg_gap = bad[i].seg_gap;
            EXPECT_RC(clm_like_select(like, col, &s), CLM_E_INVALID);
        }
    }
    clm_like_free(like);
    clm_column_free(col);
    free(want);
    tcol_free(&c);
}

static size_t len_long(t_rng *r, uint64_t i)
{
    (void)i;
    return 1000 + t_below(r, 200);
}

/* auto: the automaton for an OR of contains over short rows; over few rows of
 * CLM_ROWS_GROUP_MEAN bytes or more on average, a work-group per row on GPUs, a work-item
 * per row on CPUs. */
static void test_auto(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records_or.auto", 0);
    tcol c;
    tcol_make(&c, &r, 40, 64, len_long, "abcd", 0);
    const char *pats[] = {"%abcdab%", "%dddd%", "%cabca%"};
    orq q = {pats, NULL, 3};
    or_check_all(&c, &q, 4096,
                 t_dev->info.type == CLM_DEVICE_CPU ? CLM_ROWS_ITEM : CLM_ROWS_GROUP,
                 "long rows");
    tcol_free(&c);
}

/* clm_like_or: LIKE, NOT LIKE, ILIKE and approximate contains (edits, and caseless
 * mismatches) in one predicate select what the parts select one by one, each row with the
 * first selecting part's position, on a host column and a resident one; misuse refused. */
static void test_mixed(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records_or.mixed", 0);
    tcol c;
    tcol_make(&c, &r, 3000, 32, len_short, "abcxABC", 29);
    const char *lk[] = {"%abca%", "%a%", "%b_c%a", "c\\%%"};
    const unsigned lf[] = {0, CLM_LIKE_NOT, CLM_LIKE_CASELESS, 0};
    const char *ed[] = {"abcabc", "ccxxa"}, *mm[] = {"axbxc"};
    const unsigned mf[] = {CLM_LIKE_CASELESS};
    clm_like *parts[3] = {NULL, NULL, NULL}, *both = NULL;
    clm_column *host = NULL, *res = NULL;
    unsigned char *want = malloc(c.rows);
    uint64_t *want_pos = malloc(c.rows * sizeof *want_pos);
    if (!want || !want_pos) abort();
    if (EXPECT_RC(clm_like_compile(t_dev, lk, NULL, lf, 4, '\\', &parts[0]), CLM_OK) &&
        EXPECT_RC(clm_approx_compile(t_dev, ed, NULL, NULL, 2, 2, CLM_APPROX_EDITS, &parts[1]),
                  CLM_OK) &&
        EXPECT_RC(clm_approx_compile(t_dev, mm, NULL, mf, 1, 1, CLM_APPROX_MISMATCHES,
                                     &parts[2]), CLM_OK) &&
        EXPECT_RC(clm_like_or((const clm_like *const *)parts, 3, &both), CLM_OK) &&
        EXPECT_RC(tcol_wrap(&c, &host), CLM_OK)) {
        uint64_t n = tsel_parts_ref((const clm_like *const *)parts, 3, host, &c, want, want_pos);
        EXPECT(n > 0 && n < c.rows);
        tsel_select_check(both, host, &c, want, want_pos, n, 64, 1, 0, CLM_ROWS_ITEM,
                          CLM_PATH_COPY, CLM_ROWS_ITEM,
                          "LIKE, NOT LIKE and approximate contains, host");
        tsel_select_check(both, host, &c, want, NULL, n, 32, 0, 4096, CLM_ROWS_AUTO,
                          CLM_PATH_AUTO, CLM_ROWS_ITEM, "the same, auto, small slabs");
        if (EXPECT_RC(clm_column_upload(t_dev, host, &res), CLM_OK))
            tsel_select_check(both, res, &c, want, want_pos, n, 64, 1, 0, CLM_ROWS_AUTO,
                              CLM_PATH_AUTO, CLM_ROWS_ITEM, "the same, resident");
        /* the parts in the other order: another first part gives some rows' positions */
        clm_like *rev[3] = {parts[2], parts[1], parts[0]}, *back = NULL;
        if (EXPECT_RC(clm_like_or((const clm_like *const *)rev, 3, &back), CLM_OK)) {
            n = tsel_parts_ref((const clm_like *const *)rev, 3, host, &c, want, want_pos);
            tsel_select_check(back, host, &c, want, want_pos, n, 64, 1, 0, CLM_ROWS_ITEM,
                              CLM_PATH_COPY, CLM_ROWS_ITEM, "the parts reversed");
        }
        clm_like_free(back);
        /* an OR of contains alone, ORed again: the automaton still serves it */
        const char *cs[] = {"%abc%", "%xa%"}, *cs2[] = {"%cab%"};
        clm_like *c1 = NULL, *c2 = NULL, *cc = NULL;
        if (EXPECT_RC(clm_like_compile(t_dev, cs, NULL, NULL, 2, -1, &c1), CLM_OK) &&
            EXPECT_RC(clm_like_compile(t_dev, cs2, NULL, NULL, 1, -1, &c2), CLM_OK)) {
            clm_like *pair[2] = {c1, c2};
            if (EXPECT_RC(clm_like_or((const clm_like *const *)pair, 2, &cc), CLM_OK)) {
                n = tsel_parts_ref((const clm_like *const *)pair, 2, host, &c, want, want_pos);
                tsel_select_check(cc, host, &c, want, want_pos, n, 64, 1, 0, CLM_ROWS_AUTOMATON,
                                  CLM_PATH_COPY, CLM_ROWS_AUTOMATON,
                                  "contains ORed: the automaton");
            }
        }
        clm_like_free(cc);
        clm_like_free(c2);
        clm_like_free(c1);
    }
    /* misuse */
    clm_like *out = (clm_like *)&r, *none[2] = {parts[0], NULL};
    EXPECT_RC(clm_like_or((const clm_like *const *)parts, 3, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_like_or(NULL, 3, &out), CLM_E_INVALID);
    EXPECT(out == NULL);
    EXPECT_RC(clm_like_or((const clm_like *const *)parts, 0, &out), CLM_E_INVALID);
    EXPECT_RC(clm_like_or((const clm_like *const *)none, 2, &out), CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "part 1") != NULL);
    clm_column_free(res);
    clm_column_free(host);
    clm_like_free(both);
    for (int i = 0; i < 3; i++) clm_like_free(parts[i]);
    free(want);
    free(want_pos);
    tcol_free(&c);
}

void register_records_or_tests(void)
{
    t_register("records_or.random", test_random, NULL, 1);
    t_register("records_or.edges", test_edges, NULL, 1);
    t_register("records_or.large", test_large, NULL, 0);
    t_register("records_or.too_large", test_too_large, NULL, 0);
    t_register("records_or.fallbacks", test_fallbacks, NULL, 1);
    t_register("records_or.auto", test_auto, NULL, 1);
    t_register("records_or.mixed", test_mixed, NULL, 1);
}
