/*
 * String columns and SQL LIKE (clm_column_*, clm_like_*) against a plain CPU reference: a
 * dynamic-programming LIKE matcher over the pattern's tokens. Random columns with empty
 * strings and NULLs, rows across work-group and slab edges and longer than a slab, 32- and
 * 64-bit offsets, resident and host columns, every pattern shape ('%', '_', escapes,
 * ILIKE, NOT LIKE, disjunctions), Arrow arrays (sliced), and misuse.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the contract (cl/contract.h) and the program's source */
#include "t.h"
#include "t_cl.h"
#include "t_records.h"

/* ---- the reference (LIKE's: t_records.c) ------------------------------------------- */

/* Approximate contains by brute force: whether some row[s, e) is within k errors of p, and
 * the least such end e. Edits: Sellers' dynamic programming, d[i] the fewest edits between
 * p[0, i) and a substring ending at the current byte; mismatches: every alignment. */
static int ref_approx(const unsigned char *s, size_t n, const char *p, size_t m, unsigned k,
                      int mismatches, int caseless, uint64_t *end)
{
    if (mismatches) {
        for (size_t e = m; e <= n; e++) {
            unsigned diff = 0;
            for (size_t i = 0; i < m; i++)
                diff += caseless ? ref_lower(s[e - m + i]) != ref_lower((unsigned char)p[i])
                                 : s[e - m + i] != (unsigned char)p[i];
            if (diff <= k) {
                *end = e;
                return 1;
            }
        }
        return 0;
    }
    size_t *d = malloc((m + 1) * sizeof *d);
    if (!d) abort();
    for (size_t i = 0; i <= m; i++) d[i] = i;
    int found = 0;
    for (size_t j = 1; j <= n && !found; j++) {
        size_t diag = d[0]; /* d[i - 1] of the byte before */
        d[0] = 0;
        for (size_t i = 1; i <= m; i++) {
            unsigned char a = (unsigned char)p[i - 1], b = s[j - 1];
            size_t sub = diag + (caseless ? ref_lower(a) != ref_lower(b) : a != b);
            size_t best = d[i] + 1 < d[i - 1] + 1 ? d[i] + 1 : d[i - 1] + 1;
            diag = d[i];
            d[i] = sub < best ? sub : best;
        }
        if (d[m] <= k) {
            *end = j;
            found = 1;
        }
    }
    free(d);
    return found;
}

/* ---- columns (t_records.c) and slices ------------------------------------------------ */

/* Rows [first, first + rows) of c as a column of their own over c's data (the reference's
 * view of a slice); tcol_slice_free frees what it allocated. */
static tcol tcol_slice(const tcol *c, uint64_t first, uint64_t rows)
{
    tcol s = *c;
    s.rows = rows;
    s.offsets = malloc((rows + 1) * (c->bits / 8));
    s.validity = calloc(rows / 8 + 1, 1);
    if (!s.offsets || !s.validity) abort();
    for (uint64_t i = 0; i <= rows; i++) tcol_set_off(&s, i, tcol_off(c, first + i));
    for (uint64_t i = 0; i < rows; i++)
        if (tcol_valid(c, first + i)) s.validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    return s;
}

static void tcol_slice_free(tcol *s)
{
    free(s->offsets);
    free(s->validity);
}


/* ---- checking a query ---------------------------------------------------------------- */

/* The errors of an approximate contains (clm_approx_compile: the patterns are plain bytes,
 * no LIKE). */
typedef struct {
    unsigned k;
    clm_approx_mode mode;
} tapprox;

/* Pattern k of q as an approximate contains (arg: its tapprox), for tquery_ref. */
static int approx_match(const unsigned char *s, size_t n, const tquery *q, unsigned k,
                        const void *arg, uint64_t *at)
{
    const tapprox *ap = arg;
    unsigned f = q->flags ? q->flags[k] : 0;
    return ref_approx(s, n, q->pats[k], q->lens ? q->lens[k] : strlen(q->pats[k]), ap->k,
                      ap->mode == CLM_APPROX_MISMATCHES, (f & CLM_LIKE_CASELESS) != 0, at);
}

/* The reference's selection: sel[i], pos[i]. Returns the count. */
static uint64_t ref_select(const tcol *c, const tquery *q, const tapprox *ap,
                           unsigned char *sel, uint64_t *pos)
{
    return tquery_ref(c, q, ap ? approx_match : NULL, ap, sel, pos);
}

/* Select with `like` on col and compare count, bitmap, ids (bits) and positions with the
 * reference's. */
/* How a check's kernels look for segments: the find method, Seg-k-t's team and slice. */
typedef struct {
    clm_like_find find;
    unsigned seg_threads, seg_gap;
} tfind;

static void check_select_as(const clm_like *like, const clm_column *col, const tcol *c,
                            const unsigned char *want, const uint64_t *want_pos,
                            uint64_t want_n, unsigned id_bits, size_t slab,
                            clm_rows_kernel kernel, clm_data_path path, int filterable,
                            tfind f, const char *what)
{
    tsel t;
    tsel_open(&t, c, id_bits, 1); /* id_bits 0: the count and the bitmap alone */
    t.s.slab_bytes = slab;
    t.s.kernel = kernel;
    t.s.data_path = path;
    t.s.find = f.find;
    t.s.seg_threads = f.seg_threads;
    t.s.seg_gap = f.seg_gap;
    int rc = clm_like_select(like, col, &t.s);
    if (rc != CLM_OK) {
        T_FAIL("%s: clm_like_select: %s (%s)", what, clm_strerror(rc), clm_last_error());
        tsel_close(&t);
        return;
    }
    /* an approximate predicate runs a work-item per row, whatever was asked */
    if (like->approx && t.s.kernel_used != CLM_ROWS_ITEM)
        T_FAIL("%s: kernel_used %d, want a work-item per row", what, (int)t.s.kernel_used);
    if (!like->approx && kernel != CLM_ROWS_AUTO && t.s.kernel_used != kernel &&
        !(kernel == CLM_ROWS_FILTER && t.s.kernel_used == CLM_ROWS_ITEM && !filterable))
        T_FAIL("%s: kernel_used %d, want %d", what, (int)t.s.kernel_used, (int)kernel);
    if (path != CLM_PATH_AUTO && t.s.data_path_used != path)
        T_FAIL("%s: data_path_used %d, want %d", what, (int)t.s.data_path_used, (int)path);
    tsel_check(&t, c, want, want_pos, want_n, what);
    tsel_close(&t);
}

static void check_select(const clm_like *like, const clm_column *col, const tcol *c,
                         const unsigned char *want, const uint64_t *want_pos, uint64_t want_n,
                         unsigned id_bits, size_t slab, clm_rows_kernel kernel,
                         clm_data_path path, int filterable, const char *what)
{
    tfind f = {CLM_FIND_AUTO, 0, 0};
    check_select_as(like, col, c, want, want_pos, want_n, id_bits, slab, kernel, path,
                    filterable, f, what);
}

/* Whether filter and verify serves the query: every pattern has a literal byte, and NOT
 * LIKE only alone. */
static int ref_filterable(const tquery *q)
{
    for (unsigned k = 0; k < q->count; k++) {
        unsigned f = q->flags ? q->flags[k] : 0;
        size_t len = q->lens ? q->lens[k] : strlen(q->pats[k]), m, j;
        int *tok = malloc((len + 1) * sizeof *tok);
        if (!tok) abort();
        m = ref_tokens(q->pats[k], len, q->escape, 0, tok);
        for (j = 0; j < m && tok[j] < 0; j++)
            ;
        free(tok);
        if (j == m || ((f & CLM_LIKE_NOT) && q->count > 1))
            return 0;
    }
    return 1;
}

/* Columns up to this many rows are also searched with a work-group per row (WG work-items
 * for each row: millions of rows take half a minute on a CPU device). */
#define GROUP_ROWS_MAX 100000u

/* The query against the reference on the host column (slabs of `slab` bytes) and on a
 * resident copy, with 32- and 64-bit ids, a work-item and a work-group per row. */
static void check_query_as(const tcol *c, const tquery *q, const tapprox *ap, size_t slab,
                           const char *what)
{
    unsigned char *want = malloc(c->rows + 1);
    uint64_t *want_pos = malloc((c->rows + 1) * sizeof *want_pos);
    if (!want || !want_pos) abort();
    uint64_t n = ref_select(c, q, ap, want, want_pos);
    clm_like *like = NULL;
    clm_column *host = NULL, *res = NULL;
    char label[256];
    if (EXPECT_RC(ap ? clm_approx_compile(t_dev, q->pats, q->lens, q->flags, q->count, ap->k,
                                          ap->mode, &like)
                     : clm_like_compile(t_dev, q->pats, q->lens, q->flags, q->count, q->escape,
                                        &like), CLM_OK) &&
        EXPECT_RC(tcol_wrap(c, &host), CLM_OK)) {
        int fl = !ap && ref_filterable(q);
        snprintf(label, sizeof label, "%s, host column copied, a work-item per row", what);
        check_select(like, host, c, want, want_pos, n, 32, slab, CLM_ROWS_ITEM, CLM_PATH_COPY,
                     0, label);
        snprintf(label, sizeof label, "%s, host column in place, a work-item per row", what);
        check_select(like, host, c, want, want_pos, n, 64, slab, CLM_ROWS_ITEM,
                     CLM_PATH_ZERO_COPY, 0, label);
        snprintf(label, sizeof label, "%s, host column, a work-group per row", what);
        if (c->rows <= GROUP_ROWS_MAX)
            check_select(like, host, c, want, want_pos, n, 64, slab, CLM_ROWS_GROUP,
                         CLM_PATH_AUTO, 0, label);
        snprintf(label, sizeof label, "%s, host column copied, filter and verify", what);
        check_select(like, host, c, want, want_pos, n, 64, slab, CLM_ROWS_FILTER,
                     CLM_PATH_COPY, fl, label);
        /* in place: a batch's buffer from the aligned address before its first row, so
         * memory that is not 16-byte aligned runs a work-item per row */
        snprintf(label, sizeof label, "%s, host column in place, filter and verify", what);
        check_select(like, host, c, want, want_pos, n, 32, slab, CLM_ROWS_FILTER,
                     CLM_PATH_ZERO_COPY, fl && (uintptr_t)c->data % 16 == 0, label);
        /* Seg-k-t and KMP (few shapes: each is a program to build; test_records_seg.c
         * has the others): slices of 3 places, so that slices and their overlaps cut short
         * rows too, and the default's */
        static const struct {
            tfind f;
            int resident;
            clm_rows_kernel kernel;
            const char *name;
        } finds[] = {
            {{CLM_FIND_AUTO, 0, 0}, 0, CLM_ROWS_SEGMENT, "Seg-64-8"},
            {{CLM_FIND_KMP_HYBRID, 4, 3}, 0, CLM_ROWS_SEGMENT, "Seg-3-4, KMP_hybrid"},
            {{CLM_FIND_KMP_HYBRID, 4, 3}, 1, CLM_ROWS_SEGMENT, "Seg-3-4, KMP_hybrid"},
            {{CLM_FIND_KMP_HYBRID, 0, 0}, 1, CLM_ROWS_ITEM, "a work-item per row, KMP_hybrid"},
        };
        for (size_t f = 0; f < sizeof finds / sizeof finds[0]; f++) {
            if (finds[f].resident || ap) /* resident: below; approximate: a work-item */
                continue;
            snprintf(label, sizeof label, "%s, host column, %s", what, finds[f].name);
            check_select_as(like, host, c, want, want_pos, n, 32, slab, finds[f].kernel,
                            CLM_PATH_COPY, finds[f].kernel == CLM_ROWS_FILTER && fl,
                            finds[f].f, label);
        }
        snprintf(label, sizeof label, "%s, host column, auto", what);
        if (ap) /* auto takes a work-item per row for it, long rows or not */
            check_select(like, host, c, want, want_pos, n, 32, slab, CLM_ROWS_AUTO,
                         CLM_PATH_AUTO, 0, label);
        if (EXPECT_RC(clm_column_upload(t_dev, host, &res), CLM_OK)) {
            snprintf(label, sizeof label, "%s, resident column, a work-item per row", what);
            check_select(like, res, c, want, want_pos, n, 64, 0, CLM_ROWS_ITEM, CLM_PATH_AUTO,
                         0, label);
            snprintf(label, sizeof label, "%s, resident column, a work-group per row", what);
            if (c->rows <= GROUP_ROWS_MAX)
                check_select(like, res, c, want, want_pos, n, 32, 0, CLM_ROWS_GROUP,
                             CLM_PATH_AUTO, 0, label);
            for (size_t f = 0; f < sizeof finds / sizeof finds[0]; f++) {
                if (!finds[f].resident || ap)
                    continue;
                snprintf(label, sizeof label, "%s, resident column, %s", what, finds[f].name);
                check_select_as(like, res, c, want, want_pos, n, 64, 0, finds[f].kernel,
                                CLM_PATH_AUTO, 0, finds[f].f, label);
            }
            /* the slab: the bytes of one search launch, so pieces start inside rows */
            snprintf(label, sizeof label, "%s, resident column, filter and verify in pieces",
                     what);
            check_select(like, res, c, want, want_pos, n, 32, slab, CLM_ROWS_FILTER,
                         CLM_PATH_AUTO, fl, label);
            snprintf(label, sizeof label, "%s, resident column, filter and verify, count",
                     what);
            check_select(like, res, c, want, want_pos, n, 0, 0, CLM_ROWS_FILTER,
                         CLM_PATH_AUTO, fl, label);
        }
    }
    clm_column_free(res);
    clm_column_free(host);
    clm_like_free(like);
    free(want);
    free(want_pos);
}

static void check_query(const tcol *c, const tquery *q, size_t slab, const char *what)
{
    check_query_as(c, q, NULL, slab, what);
}

static void check_one(const tcol *c, const char *pat, unsigned flags, int escape, size_t slab)
{
    tquery q = {&pat, NULL, &flags, 1, escape};
    char what[160];
    snprintf(what, sizeof what, "pattern '%.100s' flags %u", pat, flags);
    check_query(c, &q, slab, what);
}

/* ---- tests ----------------------------------------------------------------------------- */

static size_t len_short(t_rng *r, uint64_t i) { (void)i; return t_below(r, 12); }
static size_t len_mixed(t_rng *r, uint64_t i)
{
    (void)i;
    return t_below(r, 8) == 0 ? 200 + t_below(r, 800) : t_below(r, 40);
}

/* Random patterns of the column's alphabet, '%', '_' and escapes, on random columns. */
static void test_random(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.random", 0);
    static const char *const pieces[] = {"a", "b", "ab", "ba", "%", "_", "A", "\\%", "\\_", "\\\\"};
    unsigned cases = t_quick ? 24 : 80;
    tcol c;
    tcol_make(&c, &r, 3000, 32, len_mixed, "abAB%_\\", 7);
    for (unsigned k = 0; k < cases && !t_failures(); k++) {
        char pat[64];
        size_t n = 0, parts = 1 + t_below(&r, 6);
        for (size_t j = 0; j < parts; j++) {
            const char *p = pieces[t_below(&r, sizeof pieces / sizeof pieces[0])];
            memcpy(pat + n, p, strlen(p));
            n += strlen(p);
        }
        pat[n] = '\0';
        unsigned flags = (unsigned)t_below(&r, 4);
        check_one(&c, pat, flags, '\\', 1 + t_below(&r, 2000));
    }
    tcol_free(&c);
}

/* Shapes SQL names: every answer here is also written out by hand. */
static void test_shapes(const void *arg)
{
    (void)arg;
    static const char *const rows[] = {"", "a", "abc", "xabcx", "ABC", "a%c", "a_c", "abcabc",
                                       "special requests", "specialrequests", "requests special"};
    enum { N = sizeof rows / sizeof rows[0] };
    int32_t off[N + 1];
    char data[256];
    size_t at = 0;
    for (int i = 0; i < N; i++) {
        off[i] = (int32_t)at;
        memcpy(data + at, rows[i], strlen(rows[i]));
        at += strlen(rows[i]);
    }
    off[N] = (int32_t)at;
    static const struct {
        const char *pat;
        unsigned flags;
        const char *want; /* a char per row: 1 selected */
    } cases[] = {
        {"%", 0, "11111111111"},
        {"", 0, "10000000000"},
        {"_", 0, "01000000000"},
        {"abc", 0, "00100000000"},
        {"abc%", 0, "00100001000"},
        {"%abc", 0, "00100001000"},
        {"%abc%", 0, "00110001000"},
        {"a_c", 0, "00100110000"},
        {"a\\%c", 0, "00000100000"},
        {"a\\_c", 0, "00000010000"},
        {"%a%c%", 0, "00110111000"},
        {"abc", CLM_LIKE_CASELESS, "00101000000"},
        {"abc", CLM_LIKE_NOT, "11011111111"},
        {"%special%requests%", 0, "00000000110"},
        {"%requests%special%", 0, "00000000001"},
        {"abc%abc", 0, "00000001000"},
        {"abca%abc", 0, "00000000000"}, /* the segments may not overlap */
        {"%%%", 0, "11111111111"},
        {"__", 0, "00000000000"},
    };
    tcol c = {N, 32, off, (unsigned char *)data, at, NULL};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned char sel[N];
        uint64_t pos[N];
        tquery q = {&cases[k].pat, NULL, &cases[k].flags, 1, '\\'};
        ref_select(&c, &q, NULL, sel, pos);
        for (int i = 0; i < N; i++)
            if (sel[i] != (cases[k].want[i] == '1'))
                T_FAIL("the reference: '%s' row %d ('%s')", cases[k].pat, i, rows[i]);
        check_one(&c, cases[k].pat, cases[k].flags, '\\', 0);
    }
}

/* A disjunction of LIKE, ILIKE and NOT LIKE, with NULLs: a NULL row is selected by none. */
static void test_disjunction(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.disjunction", 0);
    tcol c;
    tcol_make(&c, &r, t_quick ? 1500 : 5000, 64, len_short, "abcAB", 3);
    static const char *const pats[] = {"%abc%", "A%", "%b_a", "ccc", "%ba%"};
    static const unsigned flags[] = {0, CLM_LIKE_CASELESS, 0, 0, CLM_LIKE_NOT};
    tquery q = {pats, NULL, flags, 4, '\\'};
    check_query(&c, &q, 777, "4 LIKEs");
    q.count = 5;
    check_query(&c, &q, 333, "4 LIKEs or a NOT LIKE");
    tquery none = {pats + 4, NULL, flags + 4, 1, CLM_LIKE_NO_ESCAPE};
    check_query(&c, &none, 0, "NOT LIKE");
    tcol_free(&c);
}

/* Row counts around the work-group and bitmap edges, all-match and no-match. */
static void test_edges(const void *arg)
{
    (void)arg;
    static const uint64_t counts[] = {1, 7, 8, 31, 32, 33, 255, 256, 257, 511, 513, 1025};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && !t_failures(); k++) {
        t_rng r;
        t_rng_init(&r, "records.edges", counts[k]);
        tcol c;
        tcol_make(&c, &r, counts[k], 32, len_short, "ab", k % 2 ? 5 : 0);
        check_one(&c, "%", 0, CLM_LIKE_NO_ESCAPE, 16);       /* all (but NULLs) */
        check_one(&c, "%c%", 0, CLM_LIKE_NO_ESCAPE, 16);     /* none */
        check_one(&c, "%ab%", 0, CLM_LIKE_NO_ESCAPE, 64);
        check_one(&c, "%c%", CLM_LIKE_NOT, CLM_LIKE_NO_ESCAPE, 0);
        tcol_free(&c);
    }
}

static size_t len_runs(t_rng *r, uint64_t i) { (void)i; return t_below(r, 100); }

/* Filter and verify where every row holds many candidates: the candidates' buffer (room
 * for a row's worth at first) must grow, never drop one; search pieces of a few bytes
 * start and end inside rows and anchors; NOT LIKE and ILIKE turn the matches around. */
static void test_filter(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.filter", 0);
    tcol c;
    tcol_make(&c, &r, 2000, 32, len_runs, "aaaaaaaab", 6);
    static const struct {
        const char *pat;
        unsigned flags;
        size_t slab;
    } cases[] = {
        {"%a%", 0, 0},  {"%aa%", CLM_LIKE_NOT, 7},   {"a%ba", 0, 64},
        {"%A%B%", CLM_LIKE_CASELESS, 1}, {"%b_b%", 0, 5000}, {"%ba_", 0, 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0] && !t_failures(); k++)
        check_one(&c, cases[k].pat, cases[k].flags, CLM_LIKE_NO_ESCAPE, cases[k].slab);
    tcol_free(&c);
    /* rows of 'a', a "bb" across every multiple of 4096 bytes and in every tenth row: pieces
     * of 4096 bytes start there on any alignment, so only their overlap finds those (and no
     * other "bb" is near enough for its block to hold the row too) */
    enum { ROWS = 3000 };
    int32_t *off = malloc((ROWS + 1) * sizeof *off);
    unsigned char *data = malloc(ROWS * 64);
    if (!off || !data) abort();
    size_t at = 0;
    for (int i = 0; i < ROWS; i++) {
        size_t len = 2 + t_below(&r, 60), bb = t_below(&r, len - 1);
        size_t edge = (at / 4096 + 1) * 4096;
        if (at < edge - 1 && at + len > edge) /* the row reaches the next edge */
            bb = edge - 1 - at;
        off[i] = (int32_t)at;
        memset(data + at, 'a', len);
        if (bb == edge - 1 - at || i % 10 == 0)
            data[at + bb] = data[at + bb + 1] = 'b';
        at += len;
    }
    off[ROWS] = (int32_t)at;
    tcol e = {ROWS, 32, off, data, at, NULL};
    check_one(&e, "%bb%", 0, CLM_LIKE_NO_ESCAPE, 4096);
    /* rows of 64 bytes, every fifth ending in "bb": a search that reports a match's end
     * reports it in the next row's block */
    for (int i = 0; i <= ROWS / 2; i++)
        off[i] = 64 * i;
    memset(data, 'a', 64 * (ROWS / 2));
    for (int i = 0; i < ROWS / 2; i += 5)
        data[64 * i + 62] = data[64 * i + 63] = 'b';
    tcol f = {ROWS / 2, 32, off, data, 64 * (ROWS / 2), NULL};
    check_one(&f, "%bb%", 0, CLM_LIKE_NO_ESCAPE, 0);
    /* the same bytes one past an aligned address: in place, a work-item per row */
    unsigned char *odd = malloc(64 * (ROWS / 2) + 1);
    if (!odd) abort();
    memcpy(odd + 1, data, 64 * (ROWS / 2));
    f.data = odd + 1;
    check_one(&f, "%bb%", 0, CLM_LIKE_NO_ESCAPE, 1000);
    free(odd);
    free(off);
    free(data);
}

/* One or two literal segments ('%a%', '%a%b%'), found over the bytes and paired per row
 * (cl/like_text.cl) under CLM_ROWS_FILTER: random segments of a two-letter alphabet, so that
 * places abound, overlap each other and cross row, chunk (16 and 64 bytes), index grain (128
 * bytes), work-group (8 x wg rows) and slab edges; NOT LIKE, ILIKE, NULLs and empty rows; short and long rows. Each
 * check also runs the other kernels against the reference. */
static void test_text(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.text", 0);
    static size_t (*const lens[])(t_rng *, uint64_t) = {len_short, len_mixed};
    /* CPUs too, which verify by default: through the row index, and a work-group per
     * 8 x wg rows (2 to 4 groups here, the last one short) */
    static const char *const modes[] = {"index", "groups"};
    for (size_t l = 0; l < 4 && !t_failures(); l++) {
        setenv("CLMATCH_LIKE_TEXT", modes[l / 2], 1);
        tcol c;
        tcol_make(&c, &r, l % 2 ? 1500 : 4000 + 700 * l, l % 2 ? 64 : 32, lens[l % 2], "abAB",
                  5);
        unsigned cases = t_quick ? 8 : 20;
        for (unsigned k = 0; k < cases && !t_failures(); k++) {
            char pat[32];
            size_t n = 0, segs = 1 + t_below(&r, 2);
            pat[n++] = '%';
            /* groups: every other pattern's segments of 7 to 10 bytes, found by their
             * aligned words */
            const int aligned = l >= 2 && k % 2;
            for (size_t s = 0; s < segs; s++) {
                size_t len = aligned ? 7 + t_below(&r, 4) : 1 + t_below(&r, s ? 4 : 6);
                for (size_t j = 0; j < len; j++)
                    pat[n++] = "abAB"[t_below(&r, k % 3 ? 2 : 4)];
                pat[n++] = '%';
            }
            pat[n] = '\0';
            unsigned flags = (unsigned)t_below(&r, 4); /* NOT, CASELESS */
            check_one(&c, pat, flags, CLM_LIKE_NO_ESCAPE, 1 + t_below(&r, 3000));
        }
        tcol_free(&c);
    }
    unsetenv("CLMATCH_LIKE_TEXT");
}

/* auto's probe keeps filter and verify while its anchor marks at most one block in 5 of
 * the first piece (a GPU), one in 4 (a CPU, where verifying costs less beside a work-item
 * per row): rows of 64 bytes, one block each, the anchor in every 6th, 4th or 2nd row
 * ('%zq_%': a '_' in the segment, so not the text's pairing). One or two literal segments
 * ('%zq%', paired over the text on CPUs too here) are paired while their places are rarer
 * than one in 16 bytes: in every second row, yes; in rows of "zqzq...", no. */
static void test_dense(const void *arg)
{
    (void)arg;
    clm_device_info info;
    REQUIRE_RC(clm_device_get_info(t_dev, &info, sizeof info), CLM_OK);
    const int cpu = info.type == CLM_DEVICE_CPU;
    enum { ROWS = 4000 };
    static const struct {
        unsigned every;
        int filter_cpu, filter_gpu;
    } cases[] = {{6, 1, 1}, {4, 1, 0}, {2, 0, 0}, {40, 1, 1}};
    int32_t *off = malloc((ROWS + 1) * sizeof *off);
    unsigned char *data = malloc(64 * ROWS);
    if (!off || !data) abort();
    const char *pat = "%zq_%", *text_pat = "%zq%";
    clm_like *like = NULL, *text = NULL;
    REQUIRE_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK);
    REQUIRE_RC(clm_like_compile(t_dev, &text_pat, NULL, NULL, 1, -1, &text), CLM_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0] + 2; k++) {
        const int text_case = k >= sizeof cases / sizeof cases[0];
        const int zqzq = text_case && k == sizeof cases / sizeof cases[0] + 1;
        const unsigned every = text_case ? 2 : cases[k].every;
        memset(data, 'a', 64 * ROWS);
        uint64_t n = 0;
        for (int i = 0; i <= ROWS; i++) {
            off[i] = 64 * i;
            if (i < ROWS && (zqzq || i % (int)every == 0)) {
                for (int j = zqzq ? 0 : 20; j < (zqzq ? 64 : 22); j += 2)
                    memcpy(data + 64 * i + j, "zq", 2);
                n++;
            }
        }
        tcol c = {ROWS, 32, off, data, 64 * ROWS, NULL};
        clm_column *col = NULL, *res = NULL;
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        /* a device with a loop budget (llvmpipe) never pairs: '%zq%' takes the anchor's
         * probe there, and one marked block in 2 is too many */
        int want = text_case ? !zqzq && !t_dev->loop_budget
                             : cpu ? cases[k].filter_cpu : cases[k].filter_gpu;
        if (text_case)
            setenv("CLMATCH_LIKE_TEXT", "on", 1);
        if (EXPECT_RC(tcol_wrap(&c, &col), CLM_OK) &&
            EXPECT_RC(clm_column_upload(t_dev, col, &res), CLM_OK) &&
            EXPECT_RC(clm_like_select(text_case ? text : like, res, &s), CLM_OK) &&
            !EXPECT(s.count == n && (s.kernel_used == CLM_ROWS_FILTER) == want))
            t_note("'%s' in every %u rows%s (%s): kernel %d, count %llu of %llu",
                   text_case ? text_pat : pat, every, zqzq ? ", all of them" : "",
                   cpu ? "CPU" : "GPU", (int)s.kernel_used, (unsigned long long)s.count,
                   (unsigned long long)n);
        unsetenv("CLMATCH_LIKE_TEXT");
        clm_column_free(res);
        clm_column_free(col);
    }
    clm_like_free(like);
    clm_like_free(text);
    free(off);
    free(data);
}

/* auto's probe reads the first 32 MiB of a resident column: anchors only past them are
 * still all found by the pieces after it. */
static void test_probe(const void *arg)
{
    (void)arg;
    enum { ROWS = 700000, LEN = 60 };
    int32_t *off = malloc((ROWS + 1) * sizeof *off);
    unsigned char *data = malloc((size_t)ROWS * LEN);
    if (!off || !data) abort();
    memset(data, 'a', (size_t)ROWS * LEN);
    uint64_t want = 0;
    for (int i = 0; i <= ROWS; i++)
        off[i] = i * LEN;
    for (int i = 0; i < ROWS; i++)
        if (i % 1000 == 7 && (uint64_t)i * LEN > ((uint64_t)33 << 20)) {
            data[(size_t)i * LEN + 20] = data[(size_t)i * LEN + 21] = 'b';
            want++;
        }
    tcol c = {ROWS, 32, off, data, (uint64_t)ROWS * LEN, NULL};
    const char *pat = "%bb%";
    clm_like *like = NULL;
    clm_column *host = NULL, *res = NULL;
    clm_selection s;
    clm_selection_init(&s, sizeof s);
    if (EXPECT_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK) &&
        EXPECT_RC(tcol_wrap(&c, &host), CLM_OK) &&
        EXPECT_RC(clm_column_upload(t_dev, host, &res), CLM_OK) &&
        EXPECT_RC(clm_like_select(like, res, &s), CLM_OK) &&
        !EXPECT(s.kernel_used == CLM_ROWS_FILTER && s.count == want))
        t_note("kernel %d, count %llu of %llu", (int)s.kernel_used,
               (unsigned long long)s.count, (unsigned long long)want);
    clm_column_free(res);
    clm_column_free(host);
    clm_like_free(like);
    free(off);
    free(data);
}

static size_t len_long(t_rng *r, uint64_t i)
{
    return i % 97 == 5 ? 5000 + t_below(r, 3000) : t_below(r, 30);
}

/* Rows longer than the slab, batches of whole rows across slab edges; 64-bit offsets. */
static void test_slabs(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.slabs", 0);
    for (unsigned bits = 32; bits <= 64 && !t_failures(); bits += 32) {
        tcol c;
        tcol_make(&c, &r, 1500, bits, len_long, "abc", 11);
        for (size_t slab = 1; slab <= 4096; slab *= 8) {
            char what[64];
            static const char *const pats[] = {"%abc%cab%", "a%", "%b"};
            tquery q = {pats, NULL, NULL, 3, CLM_LIKE_NO_ESCAPE};
            snprintf(what, sizeof what, "%u-bit offsets, slab %zu", bits, slab);
            check_query(&c, &q, slab, what);
        }
        tcol_free(&c);
    }
}

static size_t len_tiny(t_rng *r, uint64_t i) { (void)i; return t_below(r, 4); }

/* More rows than one launch takes (1 Mi): later batches' bitmap bytes, ids and positions
 * go after the earlier ones', on host and resident columns. */
static void test_many_rows(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.many_rows", 0);
    tcol c;
    tcol_make(&c, &r, ((uint64_t)1 << 20) * 2 + 77, 32, len_tiny, "ab", 9);
    const char *pats[] = {"%ab%", "b_"};
    tquery q = {pats, NULL, NULL, 2, CLM_LIKE_NO_ESCAPE};
    check_query(&c, &q, 0, "2 Mi rows");
    tcol_free(&c);
}

static size_t len_1k(t_rng *r, uint64_t i) { (void)i; return 900 + t_below(r, 300); }

/* auto takes a work-group per row on GPUs from a mean row length of CLM_ROWS_GROUP_MEAN on
 * where rows are few (300 here), a work-item per row on CPUs. */
static void test_auto(const void *arg)
{
    (void)arg;
    const int cpu = t_dev->info.type == CLM_DEVICE_CPU;
    const struct {
        size_t (*len)(t_rng *, uint64_t);
        clm_rows_kernel want;
    } cases[] = {{len_short, CLM_ROWS_ITEM}, {len_1k, cpu ? CLM_ROWS_ITEM : CLM_ROWS_GROUP}};
    const char *pat = "%ab%";
    clm_like *like = NULL;
    REQUIRE_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK);
    for (size_t k = 0; k < 2; k++) {
        t_rng r;
        t_rng_init(&r, "records.auto", k);
        tcol c;
        tcol_make(&c, &r, 300, 32, cases[k].len, "abc", 0);
        uint64_t mean = c.bytes / c.rows;
        clm_column *col = NULL;
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        /* '%ab%' is in most short rows: its anchor too common to filter */
        if (EXPECT_RC(tcol_wrap(&c, &col), CLM_OK) &&
            EXPECT_RC(clm_like_select(like, col, &s), CLM_OK) &&
            !EXPECT(s.kernel_used == cases[k].want))
            t_note("mean row length %llu: kernel %d", (unsigned long long)mean,
                   (int)s.kernel_used);
        /* resident short rows: a rare literal is filtered; a disjunction of contains walks
         * the automaton; a prefix, a disjunction with one, a common anchor ('%cc_%') and a
         * literal at most places ('%c%', else paired over the text) take a work-item per
         * row */
        static const struct {
            const char *pats[2];
            unsigned count;
            clm_rows_kernel want;
        } more[] = {{{"%abcabcab%"}, 1, CLM_ROWS_FILTER},
                    {{"ab%"}, 1, CLM_ROWS_ITEM},
                    {{"%ab%", "%abcabcab%"}, 2, CLM_ROWS_AUTOMATON},
                    {{"%ab%", "ab%"}, 2, CLM_ROWS_ITEM},
                    {{"%cc_%"}, 1, CLM_ROWS_ITEM},
                    {{"%c%"}, 1, CLM_ROWS_ITEM}};
        clm_column *res = NULL;
        if (k == 0 && col &&
            EXPECT_RC(clm_column_upload(t_dev, col, &res), CLM_OK)) {
            for (size_t q = 0; q < sizeof more / sizeof more[0]; q++) {
                clm_like *other = NULL;
                unsigned char *want = malloc(c.rows);
                uint64_t *pos = malloc(c.rows * sizeof *pos);
                if (!want || !pos) abort();
                tquery tq = {more[q].pats, NULL, NULL, more[q].count, -1};
                uint64_t n = ref_select(&c, &tq, NULL, want, pos);
                clm_selection_init(&s, sizeof s);
                if (EXPECT_RC(clm_like_compile(t_dev, more[q].pats, NULL, NULL, more[q].count,
                                               -1, &other), CLM_OK) &&
                    EXPECT_RC(clm_like_select(other, res, &s), CLM_OK) &&
                    !EXPECT(s.kernel_used == more[q].want && s.count == n))
                    t_note("'%s' (%u patterns): kernel %d, count %llu of %llu", more[q].pats[0],
                           more[q].count, (int)s.kernel_used, (unsigned long long)s.count,
                           (unsigned long long)n);
                clm_like_free(other);
                free(want);
                free(pos);
            }
        }
        clm_column_free(res);
        EXPECT((mean >= CLM_ROWS_GROUP_MEAN) == (k == 1));
        clm_column_free(col);
        tcol_free(&c);
    }
    clm_like_free(like);
}

/* Threads selecting with one predicate on one host and one resident column at once. */
struct thread_job {
    const clm_like *like;
    const clm_column *col;
    uint64_t rows, want;
    const unsigned char *want_sel;
    int rc, wrong;
};

static void *select_thread(void *arg)
{
    struct thread_job *j = arg;
    uint8_t *bitmap = calloc((size_t)(j->rows + 7) / 8, 1);
    if (!bitmap) abort();
    for (int round = 0; round < 4 && !j->wrong && j->rc == CLM_OK; round++) {
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        s.bitmap = bitmap;
        s.slab_bytes = 1000; /* many batches, so that the threads' calls interleave */
        /* copied: the threads contend for the predicate's staging buffers (one holds them,
         * the others send from the column) */
        s.data_path = CLM_PATH_COPY;
        j->rc = clm_like_select(j->like, j->col, &s);
        j->wrong |= s.count != j->want;
        for (uint64_t i = 0; i < j->rows; i++)
            j->wrong |= (bitmap[i >> 3] >> (i & 7) & 1) != j->want_sel[i];
    }
    free(bitmap);
    return NULL;
}

static void test_threads(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.threads", 0);
    tcol c;
    tcol_make(&c, &r, 4000, 32, len_mixed, "abc", 6);
    const char *pat = "%ab%c%";
    tquery q = {&pat, NULL, NULL, 1, CLM_LIKE_NO_ESCAPE};
    unsigned char *want = malloc(c.rows);
    uint64_t *want_pos = malloc(c.rows * sizeof *want_pos);
    if (!want || !want_pos) abort();
    uint64_t n = ref_select(&c, &q, NULL, want, want_pos);
    clm_like *like = NULL;
    clm_column *host = NULL, *res = NULL;
    if (EXPECT_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK) &&
        EXPECT_RC(tcol_wrap(&c, &host), CLM_OK) &&
        EXPECT_RC(clm_column_upload(t_dev, host, &res), CLM_OK)) {
        struct thread_job jobs[4];
        pthread_t th[4];
        for (int i = 0; i < 4; i++) {
            jobs[i] = (struct thread_job){like, i % 2 ? res : host, c.rows, n, want, 0, 0};
            if (pthread_create(&th[i], NULL, select_thread, &jobs[i]) != 0) abort();
        }
        for (int i = 0; i < 4; i++) {
            pthread_join(th[i], NULL);
            if (!EXPECT(jobs[i].rc == CLM_OK && !jobs[i].wrong))
                t_note("thread %d (%s column): status %d, %s", i, i % 2 ? "resident" : "host",
                       jobs[i].rc, jobs[i].wrong ? "a wrong selection" : "right");
        }
    }
    clm_column_free(res);
    clm_column_free(host);
    clm_like_free(like);
    free(want);
    free(want_pos);
    tcol_free(&c);
}

/* Bytes of any value in rows and patterns (NUL included); an escape that is no backslash. */
static void test_bytes(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.bytes", 0);
    tcol c;
    tcol_make(&c, &r, 2000, 32, len_short, "\x01\xff#%_", 4);
    for (uint64_t i = 0; i < c.bytes; i += 5) c.data[i] = 0; /* NULs too */
    static const char pats[][5] = {"%\0%", "#%%", "%##", "_\xff%", "%#%%"};
    size_t lens[] = {3, 3, 3, 3, 4};
    for (size_t k = 0; k < 5; k++) {
        const char *p = pats[k];
        tquery q = {&p, &lens[k], NULL, 1, '#'};
        check_query(&c, &q, 100, "escape '#'");
    }
    tcol_free(&c);
}

/* Arrow arrays: "u" and "U", a slice (offset != 0) with its validity bits, and the arrays
 * that are no string array. */
static void release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void release_array(struct ArrowArray *a) { a->release = NULL; }

static void test_arrow(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.arrow", 0);
    for (unsigned bits = 32; bits <= 64 && !t_failures(); bits += 32) {
        tcol c;
        tcol_make(&c, &r, 1000, bits, len_short, "ab", 4);
        const void *bufs[3] = {c.validity, c.offsets, c.data};
        struct ArrowSchema schema = {bits == 64 ? "U" : "u", "s", NULL, ARROW_FLAG_NULLABLE,
                                     0, NULL, NULL, release_schema, NULL};
        struct ArrowArray array = {600, 1, 333, 3, 0, bufs, NULL, NULL, release_array, NULL};
        /* the reference sees the slice as a column of its own */
        tcol slice = tcol_slice(&c, 333, 600);
        const char *pat = "%ab%";
        tquery q = {&pat, NULL, NULL, 1, CLM_LIKE_NO_ESCAPE};
        unsigned char want[600];
        uint64_t want_pos[600];
        uint64_t n = ref_select(&slice, &q, NULL, want, want_pos);
        clm_like *like = NULL;
        clm_column *col = NULL;
        if (EXPECT_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK) &&
            EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_OK)) {
            clm_column_info info;
            EXPECT_RC(clm_column_get_info(col, &info, sizeof info), CLM_OK);
            EXPECT(info.rows == 600 && info.offset_bits == bits && !info.resident);
            check_select(like, col, &slice, want, want_pos, n, 32, 50, CLM_ROWS_AUTO,
                         CLM_PATH_AUTO, 0, "Arrow slice");
        }
        clm_column_free(col);
        col = NULL;
        /* what is no string array */
        schema.format = "z";
        EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
        schema.format = bits == 64 ? "U" : "u";
        array.n_buffers = 2;
        EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
        array.n_buffers = 3;
        array.n_children = 1;
        EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
        array.n_children = 0;
        /* an empty array whose producer left its buffers NULL */
        const void *none[3] = {NULL, NULL, NULL};
        struct ArrowArray empty = {0, 0, 0, 3, 0, none, NULL, NULL, release_array, NULL};
        if (EXPECT_RC(clm_column_from_arrow(&schema, &empty, &col), CLM_OK)) {
            clm_selection s;
            clm_selection_init(&s, sizeof s);
            EXPECT_RC(clm_like_select(like, col, &s), CLM_OK);
            EXPECT(s.count == 0);
        }
        clm_column_free(col);
        col = NULL;
        array.release = NULL;
        EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
        EXPECT(col == NULL);
        clm_like_free(like);
        tcol_slice_free(&slice);
        tcol_free(&c);
    }
}

/* Arrow string views ("vu"): rows of up to 12 bytes inline, longer ones in two data buffers,
 * a slice, NULL rows whose views are garbage (never read); and views that point outside. */
static void test_arrow_view(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.arrow_view", 0);
    tcol c;
    tcol_make(&c, &r, 700, 64, len_mixed, "abc", 5);
    unsigned char *views = calloc(c.rows, 16), *buf[2];
    int64_t sizes[2] = {0, 0};
    buf[0] = malloc(c.bytes + 1);
    buf[1] = malloc(c.bytes + 1);
    if (!views || !buf[0] || !buf[1]) abort();
    for (uint64_t i = 0; i < c.rows; i++) {
        int32_t len = (int32_t)(tcol_off(&c, i + 1) - tcol_off(&c, i));
        unsigned char *v = views + i * 16;
        const unsigned char *row = c.data + tcol_off(&c, i);
        if (!tcol_valid(&c, i)) {
            memset(v, 0xee, 16); /* garbage: a NULL row's view is not read */
            continue;
        }
        memcpy(v, &len, 4);
        if (len <= 12) {
            memcpy(v + 4, row, (size_t)len);
            continue;
        }
        int32_t b = (int32_t)(i % 2), off = (int32_t)sizes[b];
        memcpy(v + 4, row, 4);
        memcpy(v + 8, &b, 4);
        memcpy(v + 12, &off, 4);
        memcpy(buf[b] + off, row, (size_t)len);
        sizes[b] += len;
    }
    const void *bufs[5] = {c.validity, views, buf[0], buf[1], sizes};
    struct ArrowSchema schema = {"vu", "s", NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL,
                                 release_schema, NULL};
    struct ArrowArray array = {600, 1, 50, 5, 0, bufs, NULL, NULL, release_array, NULL};
    tcol slice = tcol_slice(&c, 50, 600);
    const char *pats[] = {"%abc%", "a%", "%c_"};
    tquery q = {pats, NULL, NULL, 3, CLM_LIKE_NO_ESCAPE};
    unsigned char want[600];
    uint64_t want_pos[600];
    uint64_t n = ref_select(&slice, &q, NULL, want, want_pos);
    clm_like *like = NULL;
    clm_column *col = NULL, *res = NULL;
    if (EXPECT_RC(clm_like_compile(t_dev, pats, NULL, NULL, 3, -1, &like), CLM_OK) &&
        EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_OK)) {
        check_select(like, col, &slice, want, want_pos, n, 32, 300, CLM_ROWS_AUTO,
                     CLM_PATH_AUTO, 0, "Arrow string view");
        if (EXPECT_RC(clm_column_upload(t_dev, col, &res), CLM_OK))
            check_select(like, res, &slice, want, want_pos, n, 64, 0, CLM_ROWS_AUTO,
                         CLM_PATH_AUTO, 0, "Arrow string view, resident");
    }
    clm_column_free(res);
    clm_column_free(col);
    col = NULL;
    /* views that point outside: a valid long row's buffer index, its offset, its length */
    uint64_t long_row = 0;
    for (uint64_t i = 50; i < 650 && !long_row; i++)
        if (tcol_valid(&c, i) && tcol_off(&c, i + 1) - tcol_off(&c, i) > 12) long_row = i;
    REQUIRE(long_row != 0);
    unsigned char saved[16];
    memcpy(saved, views + long_row * 16, 16);
    int32_t bad = 2;
    memcpy(views + long_row * 16 + 8, &bad, 4);
    EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
    char row_name[32];
    snprintf(row_name, sizeof row_name, "row %llu ", (unsigned long long)(long_row - 50));
    EXPECT(strstr(clm_last_error(), row_name) != NULL);
    memcpy(views + long_row * 16, saved, 16);
    bad = (int32_t)sizes[long_row % 2];
    memcpy(views + long_row * 16 + 12, &bad, 4);
    EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
    memcpy(views + long_row * 16, saved, 16);
    bad = -1;
    memcpy(views + long_row * 16, &bad, 4);
    EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
    memcpy(views + long_row * 16, saved, 16);
    array.n_buffers = 2;
    EXPECT_RC(clm_column_from_arrow(&schema, &array, &col), CLM_E_INVALID);
    EXPECT(col == NULL);
    clm_like_free(like);
    tcol_slice_free(&slice);
    free(views);
    free(buf[0]);
    free(buf[1]);
    tcol_free(&c);
}

/* Misuse: a clear error, never a crash. */
static void test_misuse(const void *arg)
{
    (void)arg;
    int32_t off[] = {0, 2, 1, 4};
    char data[] = "abcb";
    clm_column_desc d;
    clm_column *col = NULL;
    clm_column_desc_init(&d, sizeof d);
    d.rows = 3;
    d.offsets = off;
    d.data = data;
    d.data_bytes = 4;
    EXPECT_RC(clm_column_wrap(&d, &col), CLM_E_INVALID); /* decreasing */
    EXPECT(strstr(clm_last_error(), "row 1") != NULL);
    off[2] = 2;
    off[3] = 5;
    EXPECT_RC(clm_column_wrap(&d, &col), CLM_E_INVALID); /* past the bytes */
    off[3] = 4;
    off[0] = -1;
    EXPECT_RC(clm_column_wrap(&d, &col), CLM_E_INVALID); /* negative */
    off[0] = 0; /* now "ab", "", "cb" */
    d.offset_bits = 16;
    EXPECT_RC(clm_column_wrap(&d, &col), CLM_E_INVALID);
    d.offset_bits = 32;
    EXPECT(col == NULL);
    clm_column_desc zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    EXPECT_RC(clm_column_wrap(&zeroed, &col), CLM_E_INVALID);

    clm_like *like = NULL;
    const char *trailing = "ab\\";
    EXPECT_RC(clm_like_compile(t_dev, &trailing, NULL, NULL, 1, '\\', &like),
              CLM_E_PATTERN_SYNTAX);
    EXPECT(strstr(clm_last_error(), "offset 2") != NULL);
    EXPECT_RC(clm_like_compile(t_dev, &trailing, NULL, NULL, 0, '\\', &like), CLM_E_INVALID);
    EXPECT_RC(clm_like_compile(t_dev, &trailing, NULL, NULL, 1, 256, &like), CLM_E_INVALID);
    unsigned bad = 8;
    EXPECT_RC(clm_like_compile(t_dev, &trailing, NULL, &bad, 1, -1, &like), CLM_E_INVALID);
    EXPECT(like == NULL);

    const char *pat = "%b%";
    REQUIRE_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK);
    if (EXPECT_RC(clm_column_wrap(&d, &col), CLM_OK)) {
        uint32_t ids[3];
        uint64_t pos[3];
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        s.row_ids = ids;
        s.row_id_capacity = 0; /* rows "ab" and "bc" are selected */
        EXPECT_RC(clm_like_select(like, col, &s), CLM_E_INVALID);
        EXPECT(s.count == 2);
        s.row_id_capacity = 3;
        EXPECT_RC(clm_like_select(like, col, &s), CLM_OK);
        EXPECT(s.count == 2 && ids[0] == 0 && ids[1] == 2);
        s.row_id_bits = 16;
        EXPECT_RC(clm_like_select(like, col, &s), CLM_E_INVALID);
        s.row_id_bits = 32;
        s.data_path = CLM_PATH_PINNED;
        EXPECT_RC(clm_like_select(like, col, &s), CLM_E_INVALID);
        s.data_path = CLM_PATH_AUTO;
        s.row_id_bits = 32;
        s.row_ids = NULL;
        s.positions = pos;
        EXPECT_RC(clm_like_select(like, col, &s), CLM_E_INVALID);
        clm_selection zs;
        memset(&zs, 0, sizeof zs);
        EXPECT_RC(clm_like_select(like, col, &zs), CLM_E_INVALID);
        clm_column *res = NULL, *twice = NULL;
        if (EXPECT_RC(clm_column_upload(t_dev, col, &res), CLM_OK))
            EXPECT_RC(clm_column_upload(t_dev, res, &twice), CLM_E_INVALID);
        clm_column_free(res);
    }
    clm_column_free(col);
    /* an empty column */
    int32_t zero = 0;
    clm_column_desc_init(&d, sizeof d);
    d.offsets = &zero;
    col = NULL;
    if (EXPECT_RC(clm_column_wrap(&d, &col), CLM_OK)) {
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        s.count = 99;
        EXPECT_RC(clm_like_select(like, col, &s), CLM_OK);
        EXPECT(s.count == 0);
    }
    clm_column_free(col);
    clm_like_free(like);
}

/* ---- approximate contains (clm_approx_compile) ----------------------------------------- */

static void check_approx(const tcol *c, const char *const *pats, const unsigned *flags,
                         unsigned count, unsigned k, clm_approx_mode mode, size_t slab,
                         const char *what)
{
    tquery q = {pats, NULL, flags, count, CLM_LIKE_NO_ESCAPE};
    tapprox ap = {k, mode};
    char label[200];
    snprintf(label, sizeof label, "%s: '%.80s'%s k %u %s", what, pats[0],
             count > 1 ? " or more" : "", k, mode == CLM_APPROX_MISMATCHES ? "mismatches"
                                                                          : "edits");
    check_query_as(c, &q, &ap, slab, label);
}

static size_t len_approx(t_rng *r, uint64_t i)
{
    (void)i;
    return t_below(r, 10) == 0 ? 100 + t_below(r, 300) : t_below(r, 24);
}

/* Random patterns over the column's small alphabet (occurrences within k errors are
 * frequent), every k the pattern allows, both modes, ILIKE and NOT at random. */
static void test_approx_random(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.approx_random", 0);
    static const char *const alphabets[] = {"ab", "abc", "aAbB", "acgt"};
    unsigned cases = t_quick ? 16 : 60;
    for (unsigned a = 0; a < 4 && !t_failures(); a++) {
        tcol c;
        tcol_make(&c, &r, 2000, a % 2 ? 64 : 32, len_approx, alphabets[a], 6);
        for (unsigned i = 0; i < cases && !t_failures(); i++) {
            char pat[CLM_APPROX_MAX_PATTERN + 1];
            size_t m = 1 + t_below(&r, i % 4 ? 12 : CLM_APPROX_MAX_PATTERN);
            for (size_t j = 0; j < m; j++)
                pat[j] = alphabets[a][t_below(&r, strlen(alphabets[a]))];
            pat[m] = '\0';
            unsigned most = m - 1 < CLM_APPROX_MAX_ERRORS ? (unsigned)m - 1
                                                          : CLM_APPROX_MAX_ERRORS;
            unsigned k = (unsigned)t_below(&r, most + 1), flags = (unsigned)t_below(&r, 4);
            const char *p = pat;
            check_approx(&c, &p, &flags, 1, k, (clm_approx_mode)(i % 2), 1 + t_below(&r, 3000),
                         "random");
        }
        tcol_free(&c);
    }
}

/* Rows the automaton finds hard: periodic rows, empty rows, rows shorter than the pattern
 * and of exactly its length, the longest pattern, every k from 0 to the most. */
static void test_approx_shapes(const void *arg)
{
    (void)arg;
    static const char *const rows[] = {
        "", "a", "ab", "abc", "abcd", "abcde", "xbcde", "abxde", "bcde", "abde", "aabcde",
        "ABCDE", "abababababababababab", "abcabcabcabcabcabc", "kitten", "sitting",
        "mississippi", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "0123456789012345678901234567890123456789012345678901234567890123",
        "x0123456789012345678901234567890123456789012345678901234567890123y",
        "0123456789012345678901234567890123456789012345678901234567890124"};
    enum { N = sizeof rows / sizeof rows[0] };
    for (unsigned bits = 32; bits <= 64; bits += 32) {
        tcol c;
        memset(&c, 0, sizeof c);
        c.rows = N;
        c.bits = bits;
        c.offsets = calloc(N + 1, bits / 8);
        c.data = malloc(1024);
        c.validity = calloc(N / 8 + 1, 1);
        if (!c.offsets || !c.data || !c.validity) abort();
        for (unsigned i = 0; i < N; i++) {
            size_t len = strlen(rows[i]);
            memcpy(c.data + c.bytes, rows[i], len);
            tcol_set_off(&c, i, c.bytes);
            c.bytes += len;
            if (i != 3) /* "abc" is NULL */
                c.validity[i >> 3] |= (uint8_t)(1u << (i & 7));
        }
        tcol_set_off(&c, N, c.bytes);
        static const char *const pats[] = {"abcde", "sitting", "abab", "ississi", "aaaaaaaaa",
                                           "0123456789012345678901234567890123456789012345678901234567890123",
                                           "abc", "ab"};
        for (unsigned p = 0; p < sizeof pats / sizeof pats[0] && !t_failures(); p++) {
            size_t m = strlen(pats[p]);
            for (unsigned k = 0; k < m && k <= CLM_APPROX_MAX_ERRORS; k++)
                for (unsigned f = 0; f < 4; f++) {
                    check_approx(&c, &pats[p], &f, 1, k, CLM_APPROX_EDITS, 40, "shapes");
                    check_approx(&c, &pats[p], &f, 1, k, CLM_APPROX_MISMATCHES, 40, "shapes");
                }
        }
        tcol_free(&c);
    }
}

/* Answers written out by hand, so that the reference itself is checked: "kitten" is three
 * edits from "sitting" and two of them are substitutions; "abxde" holds "abcde" with one
 * mismatch, "abde" with one deletion only. */
static void test_approx_known(const void *arg)
{
    (void)arg;
    static const char data[] = "kittenabxdeabdeABCDE";
    int32_t off[] = {0, 6, 11, 15, 20};
    clm_column_desc d;
    clm_column *col = NULL;
    clm_column_desc_init(&d, sizeof d);
    d.rows = 4;
    d.offsets = off;
    d.data = data;
    d.data_bytes = 20;
    REQUIRE_RC(clm_column_wrap(&d, &col), CLM_OK);
    static const struct {
        const char *pat;
        unsigned k, flags;
        clm_approx_mode mode;
        uint8_t bitmap;
        uint64_t first_end; /* of the first row selected */
    } cases[] = {
        {"sitting", 3, 0, CLM_APPROX_EDITS, 0x1, 6},
        {"sitting", 2, 0, CLM_APPROX_EDITS, 0x0, 0},
        {"abcde", 1, 0, CLM_APPROX_MISMATCHES, 0x2, 5},
        {"abcde", 1, 0, CLM_APPROX_EDITS, 0x6, 5},
        {"abcde", 1, CLM_LIKE_CASELESS, CLM_APPROX_EDITS, 0xe, 5},
        {"abcde", 0, CLM_LIKE_CASELESS, CLM_APPROX_EDITS, 0x8, 5},
        {"abcde", 1, CLM_LIKE_NOT, CLM_APPROX_MISMATCHES, 0xd, CLM_NO_POSITION},
        {"bxd", 1, 0, CLM_APPROX_EDITS, 0x6, 3}, /* "abx": a substitution ends first */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clm_like *like = NULL;
        uint8_t bitmap = 0;
        uint32_t ids[4];
        uint64_t pos[4];
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        s.bitmap = &bitmap;
        s.row_ids = ids;
        s.row_id_capacity = 4;
        s.positions = pos;
        if (!EXPECT_RC(clm_approx_compile(t_dev, &cases[i].pat, NULL, &cases[i].flags, 1,
                                          cases[i].k, cases[i].mode, &like), CLM_OK))
            continue;
        if (EXPECT_RC(clm_like_select(like, col, &s), CLM_OK)) {
            if (bitmap != cases[i].bitmap)
                T_FAIL("case %zu ('%s' k %u): bitmap 0x%x, want 0x%x", i, cases[i].pat,
                       cases[i].k, bitmap, cases[i].bitmap);
            else if (s.count && pos[0] != cases[i].first_end)
                T_FAIL("case %zu ('%s' k %u): position %llu, want %llu", i, cases[i].pat,
                       cases[i].k, (unsigned long long)pos[0],
                       (unsigned long long)cases[i].first_end);
        }
        clm_like_free(like);
    }
    clm_column_free(col);
}

/* Disjunctions of approximate patterns with ILIKE and NOT; row counts around the
 * work-group and bitmap edges; slabs of a few bytes (a row longer than a slab). */
static void test_approx_disjunction(const void *arg)
{
    (void)arg;
    static const uint64_t counts[] = {1, 7, 8, 31, 33, 255, 256, 257, 513, 4000};
    static const char *const pats[] = {"abca", "BBB", "cacbc", "aaaaa"};
    static const unsigned flags[] = {0, CLM_LIKE_CASELESS, 0, CLM_LIKE_NOT};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0] && !t_failures(); i++) {
        t_rng r;
        t_rng_init(&r, "records.approx_disjunction", counts[i]);
        tcol c;
        tcol_make(&c, &r, counts[i], i % 2 ? 64 : 32, len_short, "abcB", i % 3 ? 5 : 0);
        check_approx(&c, pats, flags, 3, 1, CLM_APPROX_EDITS, 16, "3 patterns");
        check_approx(&c, pats, flags, 4, 2, CLM_APPROX_MISMATCHES, 7, "3 patterns or a NOT");
        check_approx(&c, pats + 3, flags + 3, 1, 1, CLM_APPROX_EDITS, 0, "NOT");
        tcol_free(&c);
    }
}

static size_t len_long_rows(t_rng *r, uint64_t i)
{
    (void)i;
    return 1000 + t_below(r, 3000);
}

/* Rows long enough that auto would give LIKE a work-group each: the automaton runs a
 * work-item per row all the same, across slabs of a row or two. */
static void test_approx_long_rows(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.approx_long_rows", 0);
    tcol c;
    tcol_make(&c, &r, 300, 64, len_long_rows, "abcdefgh", 9);
    static const char *const pats[] = {"abcdefghabcd", "hgfedcbahgfedcba", "aaaa"};
    for (unsigned k = 0; k <= 3 && !t_failures(); k += 3) {
        check_approx(&c, pats, NULL, 1, k, CLM_APPROX_EDITS, 5000, "long rows");
        check_approx(&c, pats + 1, NULL, 2, k, CLM_APPROX_MISMATCHES, 3000, "long rows");
    }
    check_approx(&c, pats, NULL, 2, CLM_APPROX_MAX_ERRORS, CLM_APPROX_EDITS, 3000, "long rows");
    tcol_free(&c);
}

/* Each refusal of clm_approx_compile, with its detail. */
static void test_approx_misuse(const void *arg)
{
    (void)arg;
    clm_like *like = NULL;
    const char *ab = "ab", *empty = "", *null = NULL;
    char long_pat[CLM_APPROX_MAX_PATTERN + 2];
    memset(long_pat, 'a', sizeof long_pat - 1);
    long_pat[sizeof long_pat - 1] = '\0';
    const char *lp = long_pat;
    unsigned bad = 4, ok = CLM_LIKE_CASELESS | CLM_LIKE_NOT;
    EXPECT_RC(clm_approx_compile(t_dev, &ab, NULL, NULL, 1, 1, CLM_APPROX_EDITS, NULL),
              CLM_E_INVALID);
    EXPECT_RC(clm_approx_compile(NULL, &ab, NULL, NULL, 1, 1, CLM_APPROX_EDITS, &like),
              CLM_E_INVALID);
    EXPECT_RC(clm_approx_compile(t_dev, NULL, NULL, NULL, 1, 1, CLM_APPROX_EDITS, &like),
              CLM_E_INVALID);
    EXPECT_RC(clm_approx_compile(t_dev, &ab, NULL, NULL, 0, 1, CLM_APPROX_EDITS, &like),
              CLM_E_INVALID);
    EXPECT_RC(clm_approx_compile(t_dev, &ab, NULL, NULL, 1, 1, (clm_approx_mode)2, &like),
              CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "mode 2") != NULL);
    EXPECT_RC(clm_approx_compile(t_dev, &ab, NULL, &bad, 1, 1, CLM_APPROX_EDITS, &like),
              CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "unknown flags") != NULL);
    EXPECT_RC(clm_approx_compile(t_dev, &ab, NULL, NULL, 1, 2, CLM_APPROX_MISMATCHES, &like),
              CLM_E_INVALID); /* k not below the length */
    EXPECT(strstr(clm_last_error(), "below its length") != NULL);
    EXPECT_RC(clm_approx_compile(t_dev, &lp, NULL, NULL, 1, CLM_APPROX_MAX_ERRORS + 1,
                                 CLM_APPROX_EDITS, &like), CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "CLM_APPROX_MAX_ERRORS") != NULL);
    EXPECT_RC(clm_approx_compile(t_dev, &lp, NULL, NULL, 1, 1, CLM_APPROX_EDITS, &like),
              CLM_E_PATTERN_TOO_LONG);
    EXPECT(strstr(clm_last_error(), "65 bytes") != NULL);
    EXPECT_RC(clm_approx_compile(t_dev, &empty, NULL, NULL, 1, 0, CLM_APPROX_EDITS, &like),
              CLM_E_EMPTY_PATTERN);
    size_t one = 1;
    EXPECT_RC(clm_approx_compile(t_dev, &null, &one, NULL, 1, 0, CLM_APPROX_EDITS, &like),
              CLM_E_INVALID);
    EXPECT(like == NULL);
    long_pat[CLM_APPROX_MAX_PATTERN] = '\0'; /* the longest, the most errors: accepted */
    EXPECT_RC(clm_approx_compile(t_dev, &lp, NULL, &ok, 1, CLM_APPROX_MAX_ERRORS,
                                 CLM_APPROX_EDITS, &like), CLM_OK);
    clm_like_free(like);
}

/* ---- the contract: records.cl's kernels take the arguments host/records.c sets ---------- */

#define ARG_NAME(NAME, TYPE, VAR) #VAR,
static const char *const match_args[] = {CLM_LIKE_MATCH_ARG_LIST(ARG_NAME, ARG_NAME)};
static const char *const count_args[] = {CLM_LIKE_COUNT_ARG_LIST(ARG_NAME, ARG_NAME)};
static const char *const ids_args[] = {CLM_LIKE_IDS_ARG_LIST(ARG_NAME, ARG_NAME)};
static const char *const aho_args[] = {CLM_LIKE_AHO_ARG_LIST(ARG_NAME, ARG_NAME)};
static const char *const seg_args[] = {CLM_LIKE_SEG_ARG_LIST(ARG_NAME, ARG_NAME)};

static void test_kernel_args(const void *arg)
{
    (void)arg;
    for (unsigned bits = 32; bits <= 64; bits += 32) {
        struct clm_kernel_shape shape;
        memset(&shape, 0, sizeof shape);
        shape.records = bits;
        shape.wg = 64;
        char *src = NULL, options[700];
        REQUIRE_RC(clm_program_source(&shape, &src), CLM_OK);
        REQUIRE_RC(clm_build_options(t_dev, &shape, options, sizeof options - 32), CLM_OK);
        strcat(options, " -cl-kernel-arg-info");
        cl_int err;
        const char *text = src;
        cl_program prog = clCreateProgramWithSource(t_dev->context, 1, &text, NULL, &err);
        free(src);
        REQUIRE(err == CL_SUCCESS);
        if (EXPECT(clBuildProgram(prog, 1, &t_dev->device, options, NULL, NULL) == CL_SUCCESS)) {
            t_check_kernel_args(prog, "clm_like_match", match_args, CLM_LIKE_MATCH_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_match_group", match_args, CLM_LIKE_MATCH_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_count", count_args, CLM_LIKE_COUNT_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_ids32", ids_args, CLM_LIKE_IDS_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_ids64", ids_args, CLM_LIKE_IDS_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_aho_local", aho_args, CLM_LIKE_AHO_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_aho_global", aho_args, CLM_LIKE_AHO_ARG_COUNT);
            t_check_kernel_args(prog, "clm_like_match_seg", seg_args, CLM_LIKE_SEG_ARG_COUNT);
        }
        clReleaseProgram(prog);
    }
}

/* Literal segments of 1 to 12 bytes over a two-letter alphabet, so that each occurs at
 * every alignment of rows up to 100 bytes, alone and in pairs, with '_' in them: a matcher
 * that reads rows a word at a time must miss no place (bench/experiments/records-item.md). */
static void test_words(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records.words", 0);
    tcol c;
    tcol_make(&c, &r, 2000, 32, len_runs, "ab", 0);
    unsigned cases = t_quick ? 16 : 48;
    for (unsigned k = 0; k < cases && !t_failures(); k++) {
        char pat[40];
        size_t n = 0;
        pat[n++] = '%';
        for (unsigned seg = 0, segs = 1 + t_below(&r, 2); seg < segs; seg++) {
            for (size_t j = 0, len = 1 + t_below(&r, 12); j < len; j++)
                pat[n++] = t_below(&r, 10) == 0 ? '_' : "ab"[t_below(&r, 2)];
            pat[n++] = '%';
        }
        pat[n] = '\0';
        check_one(&c, pat, k % 3 == 0 ? CLM_LIKE_NOT : 0, CLM_LIKE_NO_ESCAPE, 0);
    }
    tcol_free(&c);
}

void register_records_tests(void)
{
    t_register("records.kernel_args", test_kernel_args, NULL, 1);
    t_register("records.shapes", test_shapes, NULL, 1);
    t_register("records.random", test_random, NULL, 1);
    t_register("records.disjunction", test_disjunction, NULL, 1);
    t_register("records.edges", test_edges, NULL, 0);
    t_register("records.filter", test_filter, NULL, 0);
    t_register("records.text", test_text, NULL, 0);
    t_register("records.dense", test_dense, NULL, 1);
    t_register("records.probe", test_probe, NULL, 0);
    t_register("records.slabs", test_slabs, NULL, 0);
    t_register("records.bytes", test_bytes, NULL, 0);
    t_register("records.many_rows", test_many_rows, NULL, 0);
    t_register("records.threads", test_threads, NULL, 0);
    t_register("records.arrow", test_arrow, NULL, 1);
    t_register("records.auto", test_auto, NULL, 1);
    t_register("records.arrow_view", test_arrow_view, NULL, 1);
    t_register("records.misuse", test_misuse, NULL, 1);
    t_register("records.approx_known", test_approx_known, NULL, 1);
    t_register("records.approx_shapes", test_approx_shapes, NULL, 1);
    t_register("records.approx_random", test_approx_random, NULL, 1);
    t_register("records.approx_disjunction", test_approx_disjunction, NULL, 1);
    t_register("records.approx_long_rows", test_approx_long_rows, NULL, 1);
    t_register("records.approx_misuse", test_approx_misuse, NULL, 1);
    t_register("records.words", test_words, NULL, 1);
}
