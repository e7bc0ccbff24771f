/*
 * Pivoted resident columns (clm_column_pivot, seed 004's Pivot-k) against the same column
 * uploaded as it is, whose selections test_records*.c check against the CPU reference:
 * every piece width, rows shorter than a piece, rows of many pieces, empty rows and NULLs,
 * a last group of fewer than CLM_PIVOT_ROWS rows, 32- and 64-bit offsets; LIKE shapes,
 * ILIKE, NOT LIKE, approximate contains and the automaton of an OR of contains; bitmaps, ids
 * and positions; the kernels a pivoted column does not run falling back to a work-item per
 * row; misuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_records.h"

static size_t len_mixed(t_rng *r, uint64_t i)
{
    (void)i;
    unsigned k = (unsigned)t_below(r, 8);
    return k == 0 ? 0 : k < 6 ? t_below(r, 40) : 40 + t_below(r, 300);
}

/* One select of the pivoted column against want[]: kernel asked, kernel_used expected. */
#define pivot_check(like, piv, c, want, want_pos, n, id_bits, with_pos, kernel, used, what) \
    tsel_select_check(like, piv, c, want, want_pos, n, id_bits, with_pos, 0, kernel,        \
                      CLM_PATH_AUTO, used, what)

typedef struct {
    const char *pats[3];
    unsigned flags[3], count;
    int approx; /* 0 LIKE; else max_errors of an approximate contains (edits) */
    int automaton;
} pquery;

static void test_layouts(const void *arg)
{
    (void)arg;
    static const pquery qs[] = {
        {{"%abca%"}, {0}, 1, 0, 0},
        {{"%ab%ca%b"}, {CLM_LIKE_CASELESS}, 1, 0, 0},
        {{"ab%", "%a_c"}, {0, CLM_LIKE_NOT}, 2, 0, 0},
        {{"abcabcab"}, {0}, 1, 0, 0}, /* equality */
        {{"%cabc%", "%aaab%", "%bcb%"}, {0, 0, 0}, 3, 0, 1},
        {{"abcab", "ccca"}, {0, CLM_LIKE_CASELESS}, 2, 1, 0},
    };
    static const unsigned widths[] = {4, 8, 16};
    t_rng r;
    t_rng_init(&r, "records_pivot.layouts", 0);
    for (unsigned bits = 32; bits <= 64; bits += 32) {
        tcol c;
        tcol_make(&c, &r, 1000 + 7 * bits, bits, len_mixed, "abcA", bits == 32 ? 11 : 0);
        unsigned char *want = malloc(c.rows);
        uint64_t *want_pos = malloc(c.rows * sizeof *want_pos);
        clm_column *host = NULL, *plain = NULL;
        if (!want || !want_pos) abort();
        if (!EXPECT_RC(tcol_wrap(&c, &host), CLM_OK) ||
            !EXPECT_RC(clm_column_upload(t_dev, host, &plain), CLM_OK))
            goto next;
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            if (bits == 64 && widths[w] != 8) continue; /* each width once: builds cost */
            clm_column *piv = NULL;
            clm_column_info info;
            if (!EXPECT_RC(clm_column_pivot(t_dev, host, widths[w], &piv), CLM_OK))
                continue;
            if (EXPECT_RC(clm_column_get_info(piv, &info, sizeof info), CLM_OK)) {
                EXPECT(info.pivot == widths[w] && info.resident && info.rows == c.rows);
            }
            for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
                const pquery *q = &qs[k];
                if (q->approx && widths[w] != 8) continue; /* its own build: once */
                clm_like *like = NULL;
                char what[200];
                int rc = q->approx ? clm_approx_compile(t_dev, q->pats, NULL, q->flags, q->count,
                                                        (unsigned)q->approx, CLM_APPROX_EDITS,
                                                        &like)
                                   : clm_like_compile(t_dev, q->pats, NULL, q->flags, q->count,
                                                      -1, &like);
                if (!EXPECT_RC(rc, CLM_OK)) continue;
                uint64_t n = tsel_parts_ref((const clm_like *const *)&like, 1, plain, &c, want,
                                            want_pos);
                snprintf(what, sizeof what, "%u-bit offsets, pivot %u, query %zu (%s)", bits,
                         widths[w], k, q->pats[0]);
                pivot_check(like, piv, &c, want, want_pos, n, 64, 1, CLM_ROWS_ITEM,
                            CLM_ROWS_ITEM, what);
                pivot_check(like, piv, &c, want, NULL, n, 32, 0, CLM_ROWS_AUTO,
                            q->automaton ? CLM_ROWS_AUTOMATON : CLM_ROWS_ITEM, what);
                /* kernels that read rows in order run a work-item per row */
                pivot_check(like, piv, &c, want, NULL, n, 0, 0, CLM_ROWS_GROUP, CLM_ROWS_ITEM,
                            what);
                pivot_check(like, piv, &c, want, want_pos, n, 64, 1, CLM_ROWS_FILTER,
                            CLM_ROWS_ITEM, what);
                if (q->automaton)
                    pivot_check(like, piv, &c, want, want_pos, n, 64, 1, CLM_ROWS_AUTOMATON,
                                CLM_ROWS_AUTOMATON, what);
                clm_like_free(like);
            }
            clm_column_free(piv);
        }
    next:
        clm_column_free(plain);
        clm_column_free(host);
        free(want);
        free(want_pos);
        tcol_free(&c);
    }
}

/* Widths other than 4, 8 and 16, NULLs, a resident column; an empty column. */
static void test_misuse(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "records_pivot.misuse", 0);
    tcol c;
    tcol_make(&c, &r, 10, 32, len_mixed, "ab", 0);
    clm_column *host = NULL, *piv = (clm_column *)&r, *again = NULL;
    if (EXPECT_RC(tcol_wrap(&c, &host), CLM_OK)) {
        EXPECT_RC(clm_column_pivot(t_dev, host, 2, &piv), CLM_E_INVALID);
        EXPECT(piv == NULL);
        EXPECT(strstr(clm_last_error(), "4, 8 or 16") != NULL);
        EXPECT_RC(clm_column_pivot(t_dev, host, 32, &piv), CLM_E_INVALID);
        EXPECT_RC(clm_column_pivot(NULL, host, 8, &piv), CLM_E_INVALID);
        EXPECT_RC(clm_column_pivot(t_dev, NULL, 8, &piv), CLM_E_INVALID);
        EXPECT_RC(clm_column_pivot(t_dev, host, 8, NULL), CLM_E_INVALID);
        if (EXPECT_RC(clm_column_pivot(t_dev, host, 8, &piv), CLM_OK))
            EXPECT_RC(clm_column_pivot(t_dev, piv, 8, &again), CLM_E_INVALID);
        clm_column_free(piv);
    }
    clm_column_free(host);
    tcol_free(&c);
    /* no rows: nothing selected */
    tcol e;
    tcol_make(&e, &r, 0, 64, len_mixed, "ab", 0);
    clm_column *eh = NULL, *ep = NULL;
    clm_like *like = NULL;
    const char *pat = "%a%";
    if (EXPECT_RC(tcol_wrap(&e, &eh), CLM_OK) &&
        EXPECT_RC(clm_column_pivot(t_dev, eh, 4, &ep), CLM_OK) &&
        EXPECT_RC(clm_like_compile(t_dev, &pat, NULL, NULL, 1, -1, &like), CLM_OK)) {
        clm_selection s;
        clm_selection_init(&s, sizeof s);
        s.count = 77;
        if (EXPECT_RC(clm_like_select(like, ep, &s), CLM_OK)) EXPECT(s.count == 0);
    }
    clm_like_free(like);
    clm_column_free(ep);
    clm_column_free(eh);
    tcol_free(&e);
}

void register_records_pivot_tests(void)
{
    t_register("records_pivot.layouts", test_layouts, NULL, 0);
    t_register("records_pivot.misuse", test_misuse, NULL, 1);
}
