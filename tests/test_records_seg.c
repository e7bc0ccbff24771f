/*
 * Seed 004's Seg-k-t (CLM_ROWS_SEGMENT) and KMP variants (clm_selection.find) against the
 * CPU reference: teams of 2 to 32 work-items with slices of 1 to 17 places over rows whose
 * lengths straddle the team's rounds; periodic rows and patterns with long borders, where a
 * KMP table that is wrong by one loses or invents matches; prefixes, suffixes, equality,
 * several segments, '_' (no KMP: the first-byte scan), ILIKE, NOT LIKE and NULLs; ids and
 * positions; a pivoted and a self-pivoted column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_records.h"

static size_t len_long(t_rng *r, uint64_t i)
{
    (void)i;
    unsigned k = (unsigned)t_below(r, 8);
    return k == 0 ? 0 : k < 3 ? t_below(r, 24) : 100 + t_below(r, 1200);
}

static size_t len_short(t_rng *r, uint64_t i)
{
    (void)i;
    return t_below(r, 70);
}

typedef struct {
    const char *pats[2];
    unsigned flags[2], count;
} squery;

/* The reference's selection of q into want[], want_pos[]: its count. */
static uint64_t seg_ref(const tcol *c, const squery *q, unsigned char *want,
                        uint64_t *want_pos)
{
    const tquery tq = {q->pats, NULL, q->flags, q->count, '\\'};
    return tquery_ref(c, &tq, NULL, NULL, want, want_pos);
}

typedef struct {
    clm_rows_kernel kernel;
    clm_like_find find;
    unsigned seg_threads, seg_gap;
} smethod;

static void seg_check(const clm_like *like, const clm_column *col, const tcol *c,
                      const unsigned char *want, const uint64_t *want_pos, uint64_t n,
                      smethod m, const char *what)
{
    tsel t;
    tsel_open(&t, c, 64, 1);
    t.s.kernel = m.kernel;
    t.s.find = m.find;
    t.s.seg_threads = m.seg_threads;
    t.s.seg_gap = m.seg_gap;
    int rc = clm_like_select(like, col, &t.s);
    if (rc != CLM_OK)
        T_FAIL("%s: clm_like_select: %s (%s)", what, clm_strerror(rc), clm_last_error());
    else {
        if (t.s.kernel_used != m.kernel)
            T_FAIL("%s: kernel_used %d, want %d", what, (int)t.s.kernel_used, (int)m.kernel);
        tsel_check(&t, c, want, want_pos, n, what);
    }
    tsel_close(&t);
}

/* Every query of qs with every method on c (a host column, and resident when asked). */
static void seg_run(const tcol *c, const squery *qs, size_t nq, const smethod *ms, size_t nm,
                    int resident, const char *name)
{
    unsigned char *want = malloc(c->rows + 1);
    uint64_t *want_pos = malloc((c->rows + 1) * sizeof *want_pos);
    clm_column *host = NULL, *res = NULL;
    if (!want || !want_pos)
        abort();
    if (!EXPECT_RC(tcol_wrap(c, &host), CLM_OK) ||
        (resident && !EXPECT_RC(clm_column_upload(t_dev, host, &res), CLM_OK)))
        goto out;
    for (size_t q = 0; q < nq; q++) {
        uint64_t n = seg_ref(c, &qs[q], want, want_pos);
        clm_like *like = NULL;
        if (!EXPECT_RC(clm_like_compile(t_dev, qs[q].pats, NULL, qs[q].flags, qs[q].count,
                                        '\\', &like), CLM_OK))
            continue;
        for (size_t k = 0; k < nm; k++) {
            char what[200];
            snprintf(what, sizeof what, "%s: '%s'%s (flags %u), kernel %d find %d, T %u K %u",
                     name, qs[q].pats[0], qs[q].count > 1 ? " OR ..." : "", qs[q].flags[0],
                     (int)ms[k].kernel, (int)ms[k].find, ms[k].seg_threads, ms[k].seg_gap);
            seg_check(like, res ? res : host, c, want, want_pos, n, ms[k], what);
        }
        clm_like_free(like);
    }
out:
    clm_column_free(res);
    clm_column_free(host);
    free(want);
    free(want_pos);
}

/* Teams: rows of 0 to 1 300 bytes, so that rows end inside a round, a slice and an
 * overlap; teams of 2 and 32, slices of 1 and 17 places; a row count no group size
 * divides. */
static void test_teams(const void *arg)
{
    (void)arg;
    static const squery qs[] = {
        {{"%abca%"}, {0}, 1},
        {{"%ab%cab%b"}, {CLM_LIKE_CASELESS}, 1},
        {{"ab%", "%a_c%"}, {0, 0}, 2},
        {{"%cc%ba%"}, {CLM_LIKE_NOT}, 1},
        {{"%"}, {0}, 1},
        {{"abcab"}, {0}, 1},
    };
    static const smethod ms[] = {
        {CLM_ROWS_SEGMENT, CLM_FIND_AUTO, 2, 17},
        {CLM_ROWS_SEGMENT, CLM_FIND_AUTO, 32, 1},
        {CLM_ROWS_SEGMENT, CLM_FIND_KMP_HYBRID, 16, 7}, /* a program test_records.c builds */
    };
    t_rng r;
    t_rng_init(&r, "records_seg.teams", 0);
    for (unsigned bits = 32; bits <= 64; bits += 32) {
        tcol c;
        tcol_make(&c, &r, 1000 + 13 * bits + 3, bits, len_long, "abcA", bits == 32 ? 9 : 0);
        seg_run(&c, qs, sizeof qs / sizeof qs[0], ms, sizeof ms / sizeof ms[0], bits == 64,
                bits == 32 ? "host column" : "resident column");
        tcol_free(&c);
    }
}

/* KMP: rows over {a, b} and patterns with long borders (a^k b, (ab)^k a, aabaab...), where
 * every variant's failure links are taken; each variant in a work-item per row and in
 * teams; '_' falls back to the first-byte scan. */
static void test_kmp(const void *arg)
{
    (void)arg;
    static const squery qs[] = {
        {{"%aaaab%"}, {0}, 1},
        {{"%abababa%"}, {0}, 1},
        {{"%aabaabaaab%"}, {0}, 1}, /* failure links that fall back twice */
        {{"%aabaaaa%"}, {0}, 1},    /* a border shorter than the longest loses matches */
        {{"%abaababaabaab%"}, {0}, 1}, /* a Fibonacci word's prefix */
        {{"%abaab%baba%"}, {0}, 1},
        {{"%AAb%aBa"}, {CLM_LIKE_CASELESS}, 1},
        {{"%ab_ab%"}, {0}, 1},
        {{"aab%abba%"}, {CLM_LIKE_NOT}, 1},
        {{"%bbb%", "%aaaaa%"}, {0, 0}, 2},
    };
    static const smethod ms[] = {
        {CLM_ROWS_ITEM, CLM_FIND_FIRST_BYTE, 0, 0},  {CLM_ROWS_ITEM, CLM_FIND_KMP_BASIC, 0, 0},
        {CLM_ROWS_ITEM, CLM_FIND_KMP_STEP, 0, 0},    {CLM_ROWS_ITEM, CLM_FIND_KMP_HYBRID, 0, 0},
        {CLM_ROWS_SEGMENT, CLM_FIND_KMP_STEP, 4, 5}, {CLM_ROWS_SEGMENT, CLM_FIND_KMP_HYBRID, 8, 2},
        {CLM_ROWS_ITEM, CLM_FIND_FIRST_BYTE_WIDE, 0, 0},
        {CLM_ROWS_SEGMENT, CLM_FIND_FIRST_BYTE_WIDE, 2, 40},
    };
    t_rng r;
    t_rng_init(&r, "records_seg.kmp", 0);
    tcol c;
    tcol_make(&c, &r, 2500, 32, len_short, "aab", 13);
    seg_run(&c, qs, sizeof qs / sizeof qs[0], ms, sizeof ms / sizeof ms[0], 0, "a, b rows");
    tcol_free(&c);
}

/* A pivoted column (clm_column_pivot) and a self-pivoted one (clm_column_self_pivot: 4
 * segments of 16 bytes a chunk in pieces of 4) in teams, a team member per segment by
 * default, and with KMP_hybrid, whose 4 bytes a step come from one piece; the automaton of
 * an OR of contains on the self-pivoted one. */
static void test_pivot(const void *arg)
{
    (void)arg;
    static const squery qs[] = {{{"%abca%"}, {0}, 1},
                                {{"%aab%ba%"}, {CLM_LIKE_CASELESS}, 1},
                                {{"a%c", "%bbbb%"}, {0, CLM_LIKE_NOT}, 2},
                                {{"%cabc%", "%aaaa%"}, {0, 0}, 2}};
    static const smethod ms[] = {
        {CLM_ROWS_SEGMENT, CLM_FIND_KMP_HYBRID, 4, 9},
        {CLM_ROWS_SEGMENT, CLM_FIND_AUTO, 0, 0},
        {CLM_ROWS_ITEM, CLM_FIND_KMP_HYBRID, 0, 0},
        {CLM_ROWS_ITEM, CLM_FIND_FIRST_BYTE_WIDE, 0, 0}, /* a pivoted row: byte by byte */
        {CLM_ROWS_AUTOMATON, CLM_FIND_AUTO, 0, 0},
    };
    t_rng r;
    t_rng_init(&r, "records_seg.pivot", 0);
    tcol c;
    tcol_make(&c, &r, 700, 32, len_long, "abcA", 7);
    unsigned char *want = malloc(c.rows);
    uint64_t *want_pos = malloc(c.rows * sizeof *want_pos);
    clm_column *host = NULL;
    if (!want || !want_pos)
        abort();
    for (int self = 0; self < 2 && EXPECT_RC(host ? CLM_OK : tcol_wrap(&c, &host), CLM_OK);
         self++) {
        clm_column *piv = NULL;
        if (!EXPECT_RC(self ? clm_column_self_pivot(t_dev, host, 4, 4, 16, &piv)
                            : clm_column_pivot(t_dev, host, 4, &piv),
                       CLM_OK))
            continue;
        clm_column_info info;
        if (EXPECT_RC(clm_column_get_info(piv, &info, sizeof info), CLM_OK))
            EXPECT(info.pivot == 4 && info.self_segments == (self ? 4u : 0u) &&
                   info.seg_bytes == (self ? 16u : 0u));
        for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
            uint64_t n = seg_ref(&c, &qs[q], want, want_pos);
            clm_like *like = NULL;
            if (!EXPECT_RC(clm_like_compile(t_dev, qs[q].pats, NULL, qs[q].flags, qs[q].count,
                                            '\\', &like), CLM_OK))
                continue;
            for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
                /* the automaton serves an OR of contains only, a team none of it */
                int aho = qs[q].count == 2 && !qs[q].flags[1] && qs[q].pats[0][0] == '%';
                if ((ms[k].kernel == CLM_ROWS_AUTOMATON) != aho && k != 2)
                    continue;
                char what[160];
                snprintf(what, sizeof what, "%s 4: '%s', kernel %d", self ? "self-pivot" : "pivot",
                         qs[q].pats[0], (int)ms[k].kernel);
                seg_check(like, piv, &c, want, want_pos, n, ms[k], what);
            }
            clm_like_free(like);
        }
        clm_column_free(piv);
    }
    clm_column_free(host);
    free(want);
    free(want_pos);
    tcol_free(&c);
}

/* clm_column_self_pivot's arguments. */
static void test_self_pivot_misuse(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records_seg.self_pivot_misuse", 0);
    tcol c;
    tcol_make(&c, &r, 10, 32, len_short, "ab", 0);
    clm_column *host = NULL, *out = (clm_column *)&c;
    static const unsigned bad[][3] = {{3, 4, 16}, {4, 1, 16}, {4, 3, 16}, {4, 64, 16},
                                      {4, 4, 8},  {8, 4, 20}, {4, 4, 8192}};
    if (EXPECT_RC(tcol_wrap(&c, &host), CLM_OK)) {
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            EXPECT_RC(clm_column_self_pivot(t_dev, host, bad[i][0], bad[i][1], bad[i][2], &out),
                      CLM_E_INVALID);
            EXPECT(out == NULL);
        }
        EXPECT_RC(clm_column_self_pivot(NULL, host, 4, 4, 16, &out), CLM_E_INVALID);
        EXPECT_RC(clm_column_self_pivot(t_dev, host, 4, 4, 16, NULL), CLM_E_INVALID);
    }
    clm_column_free(host);
    tcol_free(&c);
}

void register_records_seg_tests(void)
{
    t_register("records_seg.teams", test_teams, NULL, 1);
    t_register("records_seg.kmp", test_kmp, NULL, 0);
    t_register("records_seg.pivot", test_pivot, NULL, 0);
    t_register("records_seg.self_pivot_misuse", test_self_pivot_misuse, NULL, 1);
}
