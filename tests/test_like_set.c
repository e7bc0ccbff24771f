/*
 * LIKE over a device set (clm_set_like_*): the rows split across three PoCL devices
 * (POCL_DEVICES="pthread pthread pthread", in a child) must give exactly what one device
 * gives for the whole column, and for LIKE what the plain CPU reference (t_records.c) gives:
 * count, bitmap, 32- and 64-bit row ids, positions, NULLs, equal and very unequal shares
 * (empty ranges), columns shorter than one range, small slabs, too little room for the ids,
 * and a resident column refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_devset.h"
#include "t_records.h"

#define SET_N 3

static const char *const set_env[] = {"POCL_DEVICES=pthread pthread pthread", NULL};

static size_t len_upto12(t_rng *r, uint64_t i)
{
    (void)i;
    return (size_t)t_below(r, 13);
}

/* rows of 0..12 bytes of "abc", a NULL in about one row in 7. */
static void scol_make(tcol *c, t_rng *r, uint64_t rows, unsigned bits)
{
    tcol_make(c, r, rows, bits, len_upto12, "abc", 7);
}

/* The reference's selection of pattern (flags: CLM_LIKE_NOT, _CASELESS) into bits. */
static uint64_t ref_select_bits(const tcol *c, const char *pattern, unsigned flags,
                                uint8_t *bits)
{
    uint64_t count = 0, pos;
    memset(bits, 0, (size_t)(c->rows + 7) / 8);
    for (uint64_t i = 0; i < c->rows; i++) {
        if (!tcol_valid(c, i)) continue;
        uint64_t a = tcol_off(c, i), b = tcol_off(c, i + 1);
        int m = ref_like(c->data + a, (size_t)(b - a), pattern, strlen(pattern),
                         CLM_LIKE_NO_ESCAPE, (flags & CLM_LIKE_CASELESS) != 0, &pos);
        if (m != ((flags & CLM_LIKE_NOT) != 0)) {
            bits[i >> 3] |= (uint8_t)(1u << (i & 7));
            count++;
        }
    }
    return count;
}

/* What one selection wrote: count, bitmap, ids and positions (room for `cap`). */
typedef struct {
    uint64_t count;
    uint8_t *bitmap;
    void *ids;
    uint64_t *pos;
    int rc;
} result;

static void select_into(const clm_like *one, const clm_set_like *set, const clm_column *col,
                        uint64_t rows, unsigned id_bits, uint64_t cap, size_t slab,
                        result *out)
{
    clm_selection s;
    clm_selection_init(&s, sizeof s);
    out->bitmap = malloc((size_t)(rows + 7) / 8 + 1);
    out->ids = malloc((size_t)(cap + 1) * 8);
    out->pos = malloc((size_t)(cap + 1) * 8);
    if (!out->bitmap || !out->ids || !out->pos) abort();
    memset(out->bitmap, 0xa5, (size_t)(rows + 7) / 8 + 1);
    memset(out->ids, 0xa5, (size_t)(cap + 1) * 8);
    memset(out->pos, 0xa5, (size_t)(cap + 1) * 8);
    s.bitmap = out->bitmap;
    s.row_ids = out->ids;
    s.row_id_bits = id_bits;
    s.row_id_capacity = cap;
    s.positions = out->pos;
    s.slab_bytes = slab;
    out->rc = one ? clm_like_select(one, col, &s) : clm_set_like_select(set, col, &s);
    out->count = s.count;
}

static void result_free(result *r)
{
    free(r->bitmap);
    free(r->ids);
    free(r->pos);
}

/* The set's result equals device 0's, byte for byte where either wrote. */
static void same_results(const result *a, const result *b, uint64_t rows, unsigned id_bits,
                         const char *what)
{
    if (!EXPECT(a->rc == b->rc && a->count == b->count)) {
        t_note("%s: set rc %d count %llu, one device rc %d count %llu", what, a->rc,
               (unsigned long long)a->count, b->rc, (unsigned long long)b->count);
        return;
    }
    if (memcmp(a->bitmap, b->bitmap, (size_t)(rows + 7) / 8 + 1) != 0)
        T_FAIL("%s: bitmaps differ", what);
    size_t idb = id_bits / 8, n = (size_t)a->count + 1; /* the sentinel after them too */
    if (memcmp(a->ids, b->ids, n * idb) != 0) T_FAIL("%s: row ids differ", what);
    if (memcmp(a->pos, b->pos, n * 8) != 0) T_FAIL("%s: positions differ", what);
}

static int open_set(clm_device_set **out)
{
    *out = NULL;
    int plat[SET_N], dev[SET_N];
    if (!t_set_devices(SET_N, plat, dev)) return 0;
    return EXPECT_RC(clm_device_set_open(plat, dev, SET_N, out), CLM_OK);
}

static const struct {
    const char *pattern;
    unsigned flags;
    unsigned k; /* > 0: approximate contains (compared with one device), per device and
                   wrapped; else LIKE, compared with the reference too */
} queries[] = {
    {"%ab%", 0, 0},
    {"%cc%", CLM_LIKE_NOT, 0},
    {"%AbC%", CLM_LIKE_CASELESS, 0},
    {"a%b_", 0, 0},
    {"abcab", 0, 1},
};

/* The query compiled for every device of the set: LIKE at once, approximate contains per
 * device and wrapped. */
static int compile_query(clm_device_set *set, size_t q, clm_set_like **out)
{
    const char *pat = queries[q].pattern;
    if (!queries[q].k)
        return clm_set_like_compile(set, &pat, NULL, &queries[q].flags, 1, CLM_LIKE_NO_ESCAPE,
                                    out);
    clm_like *per[SET_N] = {NULL};
    int rc = CLM_OK;
    for (unsigned i = 0; i < SET_N && rc == CLM_OK; i++)
        rc = clm_approx_compile(clm_device_set_device(set, i), &pat, NULL, &queries[q].flags,
                                1, queries[q].k, CLM_APPROX_EDITS, &per[i]);
    if (rc == CLM_OK) rc = clm_set_like_wrap(set, per, out);
    if (rc != CLM_OK)
        for (unsigned i = 0; i < SET_N; i++) clm_like_free(per[i]);
    return rc;
}

static int child_like_set(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    t_rng r;
    t_rng_init(&r, "like-set", 0);
    static const double speeds[][SET_N] = {{0, 0, 0}, {1, 5, 0.001}, {0.001, 0.001, 1}};
    static const uint64_t sizes[] = {20000, 200, 10, 0};
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
        const char *pat = queries[q].pattern;
        clm_set_like *sl = NULL;
        if (!EXPECT_RC(compile_query(set, q, &sl), CLM_OK)) continue;
        EXPECT(clm_set_like_get(sl, SET_N) == NULL && clm_set_like_get(sl, 0) != NULL);
        for (size_t sz = 0; sz < sizeof sizes / sizeof sizes[0]; sz++)
            for (size_t sp = 0; sp < sizeof speeds / sizeof speeds[0]; sp++) {
                unsigned bits = sp % 2 ? 64 : 32, id_bits = sz % 2 ? 64 : 32;
                size_t slab = sp == 2 ? 100 : 0;
                char what[160];
                snprintf(what, sizeof what, "'%s' flags %u, %llu rows, speeds %zu, offsets %u, "
                         "ids %u, slab %zu", pat, queries[q].flags,
                         (unsigned long long)sizes[sz], sp, bits, id_bits, slab);
                if (sp == 0) EXPECT_RC(clm_device_set_set_speeds(set, NULL, SET_N), CLM_OK);
                else EXPECT_RC(clm_device_set_set_speeds(set, speeds[sp], SET_N), CLM_OK);
                tcol c;
                clm_column *col = NULL;
                scol_make(&c, &r, sizes[sz], bits);
                if (!EXPECT_RC(tcol_wrap(&c, &col), CLM_OK)) {
                    tcol_free(&c);
                    continue;
                }
                result a, b;
                select_into(NULL, sl, col, c.rows, id_bits, c.rows, slab, &a);
                select_into(clm_set_like_get(sl, 0), NULL, col, c.rows, id_bits, c.rows, slab,
                            &b);
                EXPECT_RC(a.rc, CLM_OK);
                same_results(&a, &b, c.rows, id_bits, what);
                if (!queries[q].k) {
                    uint8_t *want = malloc((size_t)(c.rows + 7) / 8 + 1);
                    if (!want) abort();
                    uint64_t n = ref_select_bits(&c, pat, queries[q].flags, want);
                    if (!EXPECT(a.count == n))
                        t_note("%s: %llu rows, the reference %llu", what,
                               (unsigned long long)a.count, (unsigned long long)n);
                    else if (memcmp(a.bitmap, want, (size_t)(c.rows + 7) / 8) != 0)
                        T_FAIL("%s: the bitmap differs from the reference", what);
                    free(want);
                }
                result_free(&b);
                /* too little room: the count still, nothing past the room */
                if (c.rows >= 200 && sp == 1) {
                    uint64_t all = a.count;
                    result_free(&a);
                    select_into(NULL, sl, col, c.rows, id_bits, 5, slab, &a);
                    EXPECT_RC(a.rc, CLM_E_INVALID);
                    if (!EXPECT(a.count == all && all > 5))
                        t_note("%s, room for 5: count %llu, %llu with room", what,
                               (unsigned long long)a.count, (unsigned long long)all);
                    const unsigned char *past = (const unsigned char *)a.ids + 5 * (id_bits / 8);
                    for (size_t k = 0; k < id_bits / 8; k++)
                        if (past[k] != 0xa5) {
                            T_FAIL("%s: an id written past the room", what);
                            break;
                        }
                }
                result_free(&a);
                clm_column_free(col);
                tcol_free(&c);
            }
        clm_set_like_free(sl);
    }
    clm_device_set_close(set);
    return t_failures();
}

/* Misuse: NULLs, a resident column, an uninitialised selection, a bad pattern. */
static int child_like_set_errors(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    const char *pat = "%a%", *bad = "a\\";
    clm_set_like *sl = NULL;
    EXPECT_RC(clm_set_like_compile(NULL, &pat, NULL, NULL, 1, '\\', &sl), CLM_E_INVALID);
    EXPECT_RC(clm_set_like_compile(set, &bad, NULL, NULL, 1, '\\', &sl), CLM_E_PATTERN_SYNTAX);
    if (!strstr(clm_last_error(), "device 0")) T_FAIL("no device named: %s", clm_last_error());
    EXPECT(sl == NULL);
    clm_like *per[SET_N] = {NULL};
    EXPECT_RC(clm_set_like_wrap(set, per, &sl), CLM_E_INVALID); /* NULL predicates */
    for (unsigned i = 0; i < SET_N; i++) /* each compiled for device 0: the wrong device */
        EXPECT_RC(clm_like_compile(clm_device_set_device(set, 0), &pat, NULL, NULL, 1, '\\',
                                   &per[i]),
                  CLM_OK);
    EXPECT_RC(clm_set_like_wrap(set, per, &sl), CLM_E_INVALID);
    EXPECT(sl == NULL);
    for (unsigned i = 0; i < SET_N; i++) clm_like_free(per[i]);
    if (EXPECT_RC(clm_set_like_compile(set, &pat, NULL, NULL, 1, '\\', &sl), CLM_OK)) {
        t_rng r;
        t_rng_init(&r, "like-set-errors", 0);
        tcol c;
        clm_column *col = NULL, *res = NULL;
        scol_make(&c, &r, 100, 32);
        if (EXPECT_RC(tcol_wrap(&c, &col), CLM_OK)) {
            clm_selection s;
            memset(&s, 0, sizeof s);
            EXPECT_RC(clm_set_like_select(sl, col, &s), CLM_E_INVALID); /* not initialised */
            clm_selection_init(&s, sizeof s);
            EXPECT_RC(clm_set_like_select(NULL, col, &s), CLM_E_INVALID);
            EXPECT_RC(clm_set_like_select(sl, NULL, &s), CLM_E_INVALID);
            s.kernel = (clm_rows_kernel)99;
            EXPECT_RC(clm_set_like_select(sl, col, &s), CLM_E_INVALID);
            clm_selection_init(&s, sizeof s);
            if (EXPECT_RC(clm_column_upload(clm_device_set_device(set, 1), col, &res), CLM_OK)) {
                EXPECT_RC(clm_set_like_select(sl, res, &s), CLM_E_INVALID);
                if (!strstr(clm_last_error(), "resident"))
                    T_FAIL("resident column: %s", clm_last_error());
            }
            EXPECT_RC(clm_set_like_select(sl, col, &s), CLM_OK);
        }
        clm_column_free(res);
        clm_column_free(col);
        tcol_free(&c);
        clm_set_like_free(sl);
    }
    clm_set_like_free(NULL);
    clm_device_set_close(set);
    return t_failures();
}

static void run_child_test(const void *arg)
{
    int rc = t_run_child((const char *)arg, NULL, set_env);
    if (rc != 0) T_FAIL("child %s failed (%d)", (const char *)arg, rc);
}

void register_like_set_tests(void)
{
    t_register_child("like_set", child_like_set);
    t_register("records.set", run_child_test, "like_set", 0);
    t_register_child("like_set_errors", child_like_set_errors);
    t_register("records.set_errors", run_child_test, "like_set_errors", 0);
}
