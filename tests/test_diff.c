/*
 * Differential tests: every algorithm (bitap in each variant) × table memory against the CPU
 * reference, over text kinds (random, periodic, adversarial, all-match, boundary-straddling,
 * large, caseless, several patterns, every byte value). Exact search only: classes and
 * approximate search are in test_classes.c and test_fuzzy.c.
 *
 * Kernel builds are the cost on a CPU OpenCL device (the pattern length and alphabet are
 * baked into each build), so patterns come from t_pattern(alphabet, length): the same bytes
 * in every kind, algorithm and table memory, and repeated compiles hit the program cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_cl.h" /* the device's loop budget */

enum { K_RANDOM, K_PERIODIC, K_ADVERSARIAL, K_ALLMATCH, K_BOUNDARY, K_LARGE, K_CASELESS,
       K_MULTI, K_ALLBYTES, K_COUNT };
static const char *const kind_names[K_COUNT] = {"random", "periodic", "adversarial",
                                                "allmatch", "boundary", "large", "caseless",
                                                "multi", "allbytes"};

typedef struct { unsigned alpha; size_t m; } alpha_len;

/* What one algorithm (or bitap variant) is tested with. */
typedef struct {
    clm_algorithm algo;
    clm_variant variant;     /* CLM_VARIANT_AUTO for the algorithms without variants */
    const char *name;        /* test name part */
    size_t maxlen;           /* longest pattern it takes (0: any); longer ones are skipped here */
    const size_t *lens;      /* pattern lengths of the random/periodic/adversarial/allmatch kinds */
    size_t nlens;
    const size_t *blens;     /* pattern lengths of the boundary kind */
    size_t nblens;
    const alpha_len *quick;  /* (alphabet, length) pairs of the quick subset's random kind */
    size_t nquick;
    size_t small, large;     /* new algorithms: the lengths of the local/constant sample */
} algo_spec;

typedef struct {
    const algo_spec *spec;
    clm_algorithm algo;
    clm_table_memory mem;
    int kind;
} diff_arg;

#define N(a) (sizeof (a) / sizeof (a)[0])

static const size_t lengths[] = {1, 2, 3, 7, 13, 16, 17, 31, 32, 33, 64, 100, 255, 300, 700};
#define NLENGTHS (sizeof lengths / sizeof lengths[0])
static const size_t blengths[] = {1, 2, 3, 7, 16, 17, 32, 33, 100, 300, 700};
/* The new algorithms (bitap, bmh, witness) get a sampled matrix (test_diff says how): their
 * kernels are built per pattern length and, for bitap, per reduced alphabet size (witness: per
 * pattern period), at 0.3-0.6 s a build on PoCL. */
/* bitap: around the 64-bit word edges and up to CLM_BITAP_MAX_LENGTH */
static const size_t bitap_lengths[] = {1, 2, 3, 7, 17, 33, 63, 64, 65, 127, 128, 129, 255, 256};
static const size_t bitap_blengths[] = {1, 3, 33, 64, 65, 129, 256};
/* the reduce and subgroup variants take up to 64 symbols */
static const size_t reduce_lengths[] = {1, 2, 3, 7, 17, 33, 63, 64};
static const size_t reduce_blengths[] = {1, 3, 33, 64};
static const size_t bmh_lengths[] = {1, 2, 3, 7, 16, 17, 32, 33, 64, 100, 255, 300};
static const size_t bmh_blengths[] = {1, 3, 17, 33, 300};
/* witness: long patterns too (periodic ones in the periodic kind) */
static const size_t witness_lengths[] = {1, 2, 3, 7, 17, 33, 300, 1000, 4000};
static const size_t witness_blengths[] = {1, 3, 33, 300, 1000};
/* simd: all 8 positions compared or not (8, 9), 16-byte blocks and 64-start steps (16, 17,
 * 63, 64, 65) and up to CLM_SIMD_MAX_LENGTH */
static const size_t simd_lengths[] = {1, 2, 3, 8, 9, 16, 17, 63, 64, 65, 255, 256};
static const size_t simd_blengths[] = {1, 3, 17, 65, 256};
static const unsigned alphas[] = {2, 4, 26, 256};

/* The quick subset (oclgrind, ASan): a few (alphabet, length) pairs that still cross the
 * interesting sizes (1, a 16-byte vector boundary, > 255 for 16-bit states). */
static const alpha_len quick_pairs[] = {
    {2, 1}, {4, 7}, {26, 17}, {256, 33}, {4, 100}, {256, 300}};
static const alpha_len bitap_quick[] = {{2, 1}, {4, 7}, {256, 33}, {4, 64}, {26, 65}, {256, 256}};
static const alpha_len reduce_quick[] = {{2, 1}, {4, 7}, {256, 33}, {4, 64}};
/* simd's builds are cheap: the quick set takes its lengths around blocks and steps too */
static const alpha_len simd_quick[] = {{2, 1},  {4, 2},    {26, 3},  {4, 8},   {256, 9},
                                       {26, 16}, {4, 17},  {2, 63},  {256, 64}, {26, 65},
                                       {4, 255}, {256, 256}};
static const alpha_len witness_quick[] = {{2, 1}, {4, 7}, {256, 33}, {4, 300}, {2, 1000}};

static const algo_spec specs[] = {
    {CLM_ALGO_NAIVE, CLM_VARIANT_AUTO, "naive", 0, lengths, N(lengths), blengths, N(blengths),
     quick_pairs, N(quick_pairs), 0, 0},
    {CLM_ALGO_KMP, CLM_VARIANT_AUTO, "kmp", 0, lengths, N(lengths), blengths, N(blengths),
     quick_pairs, N(quick_pairs), 0, 0},
    {CLM_ALGO_DFA, CLM_VARIANT_AUTO, "dfa", 0, lengths, N(lengths), blengths, N(blengths),
     quick_pairs, N(quick_pairs), 0, 0},
    {CLM_ALGO_BITAP, CLM_VARIANT_ITEM, "bitap-item", 256, bitap_lengths, N(bitap_lengths),
     bitap_blengths, N(bitap_blengths), bitap_quick, N(bitap_quick), 17, 129},
    {CLM_ALGO_BITAP, CLM_VARIANT_REDUCE, "bitap-reduce", 64, reduce_lengths, N(reduce_lengths),
     reduce_blengths, N(reduce_blengths), reduce_quick, N(reduce_quick), 7, 64},
    {CLM_ALGO_BITAP, CLM_VARIANT_SUBGROUP, "bitap-subgroup", 64, reduce_lengths,
     N(reduce_lengths), reduce_blengths, N(reduce_blengths), reduce_quick, N(reduce_quick), 7, 64},
    {CLM_ALGO_BMH, CLM_VARIANT_AUTO, "bmh", 0, bmh_lengths, N(bmh_lengths), bmh_blengths,
     N(bmh_blengths), quick_pairs, N(quick_pairs), 17, 300},
    {CLM_ALGO_WITNESS, CLM_VARIANT_AUTO, "witness", 0, witness_lengths, N(witness_lengths),
     witness_blengths, N(witness_blengths), witness_quick, N(witness_quick), 17, 1000},
    {CLM_ALGO_SIMD, CLM_VARIANT_AUTO, "simd", 256, simd_lengths, N(simd_lengths), simd_blengths,
     N(simd_blengths), simd_quick, N(simd_quick), 17, 255},
};
#define NSPECS N(specs)

static diff_arg diff_args[NSPECS * 3 * K_COUNT];

/* Does the spec take a pattern of m symbols? */
static int takes(const algo_spec *sp, size_t m) { return sp->maxlen == 0 || m <= sp->maxlen; }
/* The reduce and subgroup variants process one byte per work-item. */
static int per_byte(const algo_spec *sp)
{
    return sp->variant == CLM_VARIANT_REDUCE || sp->variant == CLM_VARIANT_SUBGROUP;
}

/* Slab of the scratches of ordinary cases: every text of those cases fits in one. */
#define ORDINARY_SLAB ((size_t)1 << 20)

/* One open database with its scratch and what describes the case on failure. */
typedef struct {
    const diff_arg *a;
    t_patset ps;
    clm_database *db;
    clm_scratch *s;
    clm_database_info info;
    char desc[256];
    t_matches got, want;
    unsigned unsupported; /* legitimate CLM_E_UNSUPPORTED answers seen (table too large) */
    unsigned no_variant;  /* legitimate CLM_E_UNSUPPORTED answers: variant not on this device */
} dctx;

/* Compile ps for the case's (algorithm, table memory). Returns 1 when the database is ready,
 * 0 when the combination was (legitimately or not) rejected — failures are recorded. */
static int dopen(dctx *c, const t_patset *ps, unsigned wgs, unsigned bpi, const char *extra,
                 unsigned alpha, size_t m)
{
    int rc;
    unsigned i;
    size_t minl = (size_t)-1, maxl = 0;

    c->ps = *ps;
    c->db = NULL;
    c->s = NULL;
    snprintf(c->desc, sizeof c->desc, "algo=%s variant=%s mem=%s kind=%s alpha=%u m=%zu "
             "patterns=%u%s wgs=%u bpi=%u seed=%llu%s%s",
             clm_algorithm_name(c->a->algo), clm_variant_name(c->a->spec->variant),
             clm_table_memory_name(c->a->mem),
             kind_names[c->a->kind], alpha, m, ps->count, ps->caseless ? " caseless" : "", wgs,
             bpi, (unsigned long long)t_seed, extra ? " " : "", extra ? extra : "");
    rc = t_compile_ex(ps, c->a->algo, c->a->mem, 0, wgs, bpi, c->a->spec->variant, 0, &c->db);
    if (c->a->spec->variant == CLM_VARIANT_SUBGROUP) {
        /* Not implemented (README): on every device a refusal naming what works. */
        const char *detail = clm_last_error();
        if (rc == CLM_OK) {
            clm_database_free(c->db);
            c->db = NULL;
            return T_FAIL("%s: the subgroup variant compiled (expected CLM_E_UNSUPPORTED: "
                          "not implemented)", c->desc);
        }
        c->db = NULL;
        if (rc != CLM_E_UNSUPPORTED)
            return T_FAIL("%s: subgroup variant: clm_compile returned %d (%s), expected "
                          "CLM_E_UNSUPPORTED: %.300s", c->desc, rc, clm_strerror(rc), detail);
        if (!strstr(detail, "item") && !strstr(detail, "reduce"))
            return T_FAIL("%s: subgroup refused, but the detail names no variant that works "
                          "(item, reduce): \"%.300s\"", c->desc, detail);
        c->no_variant++;
        return 0;
    }
    if (rc == CLM_E_UNSUPPORTED) {
        uint64_t need = t_table_bytes(ps, c->a->algo), limit = t_table_limit(c->a->mem);
        c->db = NULL;
        const char *detail = clm_last_error();
        if (!*detail)
            return T_FAIL("%s: CLM_E_UNSUPPORTED without a detail in clm_last_error()",
                          c->desc);
        /* The detail names an algorithm or table memory that works. */
        if (!strstr(detail, "global") && !strstr(detail, "local") && !strstr(detail, "constant")
            && !strstr(detail, "naive") && !strstr(detail, "kmp") && !strstr(detail, "dfa")
            && !strstr(detail, "bitap") && !strstr(detail, "bmh") && !strstr(detail, "witness")
            && !strstr(detail, "item"))
            return T_FAIL("%s: CLM_E_UNSUPPORTED detail names no alternative: %s", c->desc,
                          detail);
        if (need <= limit)
            return T_FAIL("%s: CLM_E_UNSUPPORTED although the table (<= %llu bytes) fits in "
                          "%llu bytes: %s",
                          c->desc, (unsigned long long)need, (unsigned long long)limit,
                          clm_last_error());
        c->unsupported++;
        return 0;
    }
    if (rc != CLM_OK) {
        c->db = NULL;
        return T_FAIL("%s: clm_compile: %s: %.500s", c->desc, clm_strerror(rc),
                      clm_last_error());
    }
    if (clm_database_get_info(c->db, &c->info, sizeof c->info) != CLM_OK) {
        T_FAIL("%s: clm_database_get_info failed", c->desc);
        goto bad;
    }
    for (i = 0; i < ps->count; i++) {
        if (ps->lens[i] < minl) minl = ps->lens[i];
        if (ps->lens[i] > maxl) maxl = ps->lens[i];
    }
    /* An explicit choice is honoured (or rejected above), and the info describes the set. */
    if (!EXPECT(c->info.algorithm == c->a->algo) || !EXPECT(c->info.table_memory == c->a->mem)
        || !EXPECT(c->info.variant != CLM_VARIANT_AUTO)
        || (c->a->spec->variant != CLM_VARIANT_AUTO
            && !EXPECT(c->info.variant == c->a->spec->variant))
        || !EXPECT(c->info.max_errors == 0)
        || !EXPECT(c->info.pattern_count == ps->count) || !EXPECT(c->info.min_length == minl)
        || !EXPECT(c->info.max_length == maxl) || !EXPECT(c->info.work_group_size > 0)
        || (!per_byte(c->a->spec)
            && !EXPECT(c->info.bytes_per_item > 0 && c->info.bytes_per_item % 16 == 0))
        || (wgs && !EXPECT(c->info.work_group_size == wgs))
        /* a loop budget (llvmpipe) shortens a range whose worst case would pass it */
        || (bpi && !per_byte(c->a->spec)
            && !EXPECT(c->info.bytes_per_item == (bpi + 15) / 16 * 16
                       || (t_dev->loop_budget && c->info.bytes_per_item < bpi)))) {
        t_note("in %s", c->desc);
        goto bad;
    }
    return 1;
bad:
    clm_database_free(c->db);
    c->db = NULL;
    return 0;
}

static int dscratch(dctx *c, size_t slab, size_t capacity)
{
    return t_scratch_alloc(c->db, &c->s, slab, capacity, c->desc);
}

static void dclose(dctx *c)
{
    clm_scratch_free(c->s);
    clm_database_free(c->db);
    c->s = NULL;
    c->db = NULL;
}

/* Scan and count text with the open database; compare with the reference. */
static int dcheck(dctx *c, const unsigned char *text, size_t n, const char *what)
{
    t_reference(text, n, &c->ps, &c->want);
    return t_check_scan(c->db, c->s, text, n, &c->want, &c->got, c->desc, what);
}

static void plant(unsigned char *text, size_t n, size_t at, const unsigned char *p, size_t m)
{
    if (at <= n && m <= n - at) memcpy(text + at, p, m);
}

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* ---- kinds ------------------------------------------------------------------------------- */

/* Random text over the pattern's alphabet with copies of the pattern planted; plus the edge
 * sizes: empty, shorter than the pattern, exactly the pattern. */
static void kind_random(dctx *c, unsigned alpha, size_t m, t_rng *r)
{
    size_t n = t_quick ? 3000 : 20000, i;
    unsigned char *p = t_pattern(alpha, m), *text = xmalloc(n + m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};

    if (dopen(c, &ps, 0, 0, NULL, alpha, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        t_fill(r, text, n + m, alpha);
        dcheck(c, text, 0, "empty");
        if (m > 1) dcheck(c, text, m - 1, "shorter-than-pattern");
        memcpy(text, p, m);
        dcheck(c, text, m, "exactly-the-pattern");
        dcheck(c, text, m + 5 < n ? m + 5 : n, "pattern-at-start");
        plant(text, n, n - m, p, m);
        for (i = 0; i < 8; i++) plant(text, n, t_below(r, n), p, m);
        dcheck(c, text, n, "random-planted");
    }
    dclose(c);
    free(text);
    free(p);
}

/* Text and pattern cut from one periodic sequence: the pattern is a rotation of the period
 * repeated (a multiple of it when the length allows), so it matches at every period. */
static void kind_periodic_with(dctx *c, const char *per, size_t rot, size_t m, t_rng *r);

static void kind_periodic(dctx *c, size_t li, size_t m, t_rng *r)
{
    static const char *const periods[] = {"ab", "abc", "aab", "ACGT", "abcdefghijklmnopqrstuvwxyz",
                                          "aabab", "xyzzy"};
    const char *per = periods[li % (sizeof periods / sizeof periods[0])];
    kind_periodic_with(c, per, t_below(r, strlen(per)), m, r);
}

/* Pattern: per rotated by rot, repeated to length m; text: per repeated (long enough for a
 * few dozen occurrences of long patterns). */
static void kind_periodic_with(dctx *c, const char *per, size_t rot, size_t m, t_rng *r)
{
    size_t plen = strlen(per), n = t_quick ? 2000 : 12000, i;
    unsigned char *p, *text;
    const unsigned char *pp;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    char what[64];

    if (n < 3 * m) n = 3 * m + 17;
    p = xmalloc(m);
    text = xmalloc(n);
    pp = p;
    for (i = 0; i < m; i++) p[i] = (unsigned char)per[(rot + i) % plen];
    for (i = 0; i < n; i++) text[i] = (unsigned char)per[i % plen];
    snprintf(what, sizeof what, "period=%s rot=%zu", per, rot);
    if (dopen(c, &ps, 0, 0, what, (unsigned)plen, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        dcheck(c, text, n, "periodic");
        /* Break the period in a few places: partial matches must fail there. */
        for (i = 0; i < 6; i++) {
            size_t at = t_below(r, n);
            text[at] = (unsigned char)(text[at] == 'q' ? 'r' : 'q');
        }
        dcheck(c, text, n, "periodic-broken");
    }
    dclose(c);
    free(text);
    free(p);
}

/* Worst cases for naive / KMP: long runs of partial matches. */
static void kind_adversarial(dctx *c, size_t m, t_rng *r)
{
    size_t n = (t_quick ? 1000 : 4000) + 4 * m, i, k;
    unsigned char *p = xmalloc(m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};

    /* a^(m-1) b against runs of a. */
    memset(p, 'a', m);
    p[m - 1] = 'b';
    if (dopen(c, &ps, 0, 0, "pattern=a..ab", 2, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        memset(text, 'a', n);
        dcheck(c, text, n, "a^n");
        text[n - 1] = 'b';
        dcheck(c, text, n, "a^(n-1)b");
        for (i = 0; i < n; i += 1 + t_below(r, 2 * m)) text[i] = 'b';
        dcheck(c, text, n, "a-runs-with-b");
    }
    dclose(c);

    /* And vice versa: a^m against (a^(m-1) b)* — every attempt fails at its last byte —
     * and against (a^m b)*. */
    memset(p, 'a', m);
    if (dopen(c, &ps, 0, 0, "pattern=a^m", 2, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        for (i = 0, k = 0; i < n; i++, k++) text[i] = (k % m == m - 1) ? 'b' : 'a';
        dcheck(c, text, n, "(a^(m-1)b)*");
        for (i = 0, k = 0; i < n; i++, k++) text[i] = (k % (m + 1) == m) ? 'b' : 'a';
        dcheck(c, text, n, "(a^m b)*");
    }
    dclose(c);
    free(text);
    free(p);
}

/* "AA" in "AAAA…": a match at every position. */
static void kind_allmatch(dctx *c, size_t m)
{
    size_t n = t_quick ? 2000 : 30000;
    unsigned char *p = xmalloc(m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};

    memset(p, 'A', m);
    memset(text, 'A', n);
    if (dopen(c, &ps, 0, 0, NULL, 1, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        dcheck(c, text, n, "A^n");
        dcheck(c, text, m, "A^m");
        if (m > 1) dcheck(c, text, m - 1, "A^(m-1)");
        /* simd: a match at every start from one launch; the buffer must grow, not truncate */
        if (c->a->algo == CLM_ALGO_SIMD && dscratch(c, ORDINARY_SLAB, 16))
            dcheck(c, text, n, "A^n-capacity-16");
    }
    dclose(c);
    free(text);
    free(p);
}

/* Matches planted across work-item, work-group and slab boundaries. */
static void kind_boundary(dctx *c, unsigned alpha, size_t m, unsigned wgs, unsigned bpi,
                          t_rng *r)
{
    unsigned char *p = t_pattern(alpha, m), *text = NULL;
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    static const size_t slabs_full[] = {4096, 4099, 65537};
    static const size_t slabs_quick[] = {4096, 4099};
    const size_t *slabs = t_quick ? slabs_quick : slabs_full;
    size_t nslabs = t_quick ? 2 : 3, si;

    if (dopen(c, &ps, wgs, bpi, NULL, alpha, m)) {
        /* (one byte per work-item in the reduce variants: plant at 16-byte steps there) */
        size_t item = c->info.bytes_per_item >= 16 ? c->info.bytes_per_item : 16;
        size_t group = item * c->info.work_group_size;
        size_t js[5], nj = 0, n, k, step, j;
        char what[96];

        js[nj++] = 1;
        if (m > 1) js[nj++] = m - 1;
        if (m > 2) js[nj++] = m / 2;
        js[nj++] = 0; /* starts exactly on the boundary */
        for (si = 0; si < nslabs; si++) {
            size_t slab = slabs[si], overlap_step = slab > m ? slab - (m - 1) : slab;
            /* Cover 3 work-groups and 4 slabs, but bound the size for the quick subset. */
            n = 3 * group + item;
            if (n < 4 * slab + m) n = 4 * slab + m;
            if (n > (t_quick ? (size_t)40000 : (size_t)4 << 20)) n = t_quick ? 40000 : 4 << 20;
            free(text);
            text = xmalloc(n);
            t_fill(r, text, n, alpha);
            /* Work-items: every few item boundaries, far enough apart not to overwrite. */
            step = (m + item) / item + 1;
            for (k = 1, j = 0; k * item < n && k < 4096; k += step, j++)
                plant(text, n, k * item - (js[j % nj] < k * item ? js[j % nj] : 0), p, m);
            /* Work-groups. */
            for (k = 1, j = 0; k * group < n; k++, j++)
                plant(text, n, k * group - js[j % nj], p, m);
            /* Slabs, at multiples of the slab size and of the slab step with its overlap. */
            for (k = 1, j = 0; k * slab < n; k++, j++) {
                plant(text, n, k * slab - js[j % nj], p, m);
                plant(text, n, k * overlap_step - js[(j + 1) % nj], p, m);
            }
            if (!dscratch(c, slab, 0)) break;
            snprintf(what, sizeof what, "boundaries(item=%zu group=%zu slab=%zu)", item, group,
                     slab);
            clm_scratch_reset_stats(c->s);
            if (dcheck(c, text, n, what)) {
                clm_stats st;
                /* The slab option took effect, or the slab boundaries were never crossed. */
                /* (a tail shorter than the pattern is never launched: no match fits) */
                size_t starts = n - m + 1;
                if (EXPECT(clm_scratch_get_stats(c->s, &st, sizeof st) == CLM_OK)
                    && !EXPECT(st.slabs >= 2 * ((starts + slab - 1) / slab)))
                    t_note("%s: %llu slab launches for scan+count of %zu bytes with slab %zu",
                           c->desc, (unsigned long long)st.slabs, n, slab);
            }
        }
    }
    dclose(c);
    free(text);
    free(p);
}

/* simd's steps of 64 starts (four 16-byte blocks) and its tail of fewer than 64: ranges of
 * 240 starts (3 steps and 48 more, so a step run too far crosses into the next range) in
 * groups of 4, copies planted on both sides of every
 * block edge of some steps and at the text's end, texts of every length mod 64 in a stretch
 * (so the last range's tail and the bytes near n vary). */
static void kind_steps(dctx *c, unsigned alpha, size_t m, t_rng *r)
{
    size_t base = t_quick ? 1000 : 3000, n, at, d;
    unsigned char *p = t_pattern(alpha, m), *text = xmalloc(base + 64 + m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    static const size_t edges[] = {0, 1, 15, 16, 17, 31, 32, 47, 48, 63};
    char what[64];

    if (dopen(c, &ps, 4, 240, "steps", alpha, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        for (d = 0; d < 64; d += t_quick ? 7 : 1) {
            n = base + d;
            t_fill(r, text, n, alpha);
            for (at = 0; at + 64 <= n; at += 64 * (1 + t_below(r, 3)))
                plant(text, n, at + edges[t_below(r, N(edges))], p, m);
            for (at = 240; at < n; at += 240 * (1 + t_below(r, 2)))
                plant(text, n, at - 1 - t_below(r, m < 64 ? m : 64), p, m);
            plant(text, n, n >= m ? n - m : 0, p, m);
            snprintf(what, sizeof what, "steps n=base+%zu", d);
            if (!dcheck(c, text, n, what)) break;
        }
    }
    dclose(c);
    free(text);
    free(p);
}

/* Several MB through the default scratch (default slab) and through small odd slabs. */
static void kind_large(dctx *c, unsigned alpha, size_t m, size_t n, t_rng *r)
{
    unsigned char *p = t_pattern(alpha, m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    size_t i;

    t_fill(r, text, n, alpha);
    for (i = 0; i < 1000; i++) plant(text, n, t_below(r, n), p, m);
    if (dopen(c, &ps, 0, 0, NULL, alpha, m)) {
        if (dscratch(c, 0, 0)) dcheck(c, text, n, "large-default-slab");
        if (dscratch(c, ((size_t)1 << 20) + 3, 0)) dcheck(c, text, n, "large-slab-1MiB+3");
    }
    dclose(c);
    free(text);
    free(p);
}

/* ASCII case folding: letters of both cases, plus bytes that differ from a letter by 0x20
 * but are not letters ('@' '`' '[' '{') and Latin-1 letters, which must not fold. */
static const unsigned char case_alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "@`[{^~09\xc0\xe0\xc9\xe9";
#define NCASE (sizeof case_alpha - 1)

static void kind_caseless(dctx *c, size_t m, t_rng *r)
{
    size_t n = t_quick ? 3000 : 20000, i, k;
    unsigned char *p = xmalloc(m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 1};
    t_rng pr;

    t_rng_init(&pr, "caseless-pattern", m);
    for (i = 0; i < m; i++) p[i] = case_alpha[t_below(&pr, NCASE)];
    if (dopen(c, &ps, 0, 0, NULL, (unsigned)NCASE, m) && dscratch(c, ORDINARY_SLAB, 0)) {
        for (i = 0; i < n; i++) text[i] = case_alpha[t_below(r, NCASE)];
        /* Copies with the case of each letter flipped at random. */
        for (k = 0; k < 12; k++) {
            size_t at = t_below(r, n);
            for (i = 0; i < m && at + i < n; i++) {
                unsigned char ch = p[i];
                if (((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z') && t_below(r, 2)) ch ^= 0x20;
                text[at + i] = ch;
            }
        }
        dcheck(c, text, n, "mixed-case");
        /* The same text with non-letters swapped for their ±0x20 partners: no new matches. */
        for (i = 0; i < n; i++) {
            unsigned char ch = text[i];
            if (ch == '@' || ch == '[' || ch == 0xc0 || ch == 0xc9) text[i] = (unsigned char)(ch + 0x20);
        }
        dcheck(c, text, n, "mixed-case-non-letters-shifted");
    }
    dclose(c);
    free(text);
    free(p);
}

/* Several patterns in one database: prefixes, suffixes and duplicates of each other (several
 * matches at one start, ordered by id), ids given out of order or NULL, NUL bytes. */
static void kind_multi(dctx *c, t_rng *r)
{
    /* the longest pattern: 300, or the longest the algorithm takes */
    size_t L = takes(c->a->spec, 300) ? 300 : c->a->spec->maxlen;
    size_t n = t_quick ? 2500 : 40000, i;
    /* the new algorithms: patterns over 2 symbols (and the same lengths), which share their
     * kernel builds with the random kind's (see fresh_plan) */
    unsigned alpha = c->a->algo >= CLM_ALGO_BITAP ? 2 : 4;
    unsigned char *base = t_pattern(alpha, 300), *other = t_pattern(alpha, 64),
                  *bin = t_pattern(256, 33), *text = xmalloc(n);
    const unsigned char *pats[9];
    size_t lens[9];
    static const unsigned ids[9] = {500, 3, 77, 12, 9, 3000, 41, 8, 1000};
    static const unsigned char nul2[2] = {0, 0};
    t_patset ps = {pats, lens, ids, 9, 0};
    int pass;

    size_t pre = alpha == 2 ? 33 : 17;
    pats[0] = base; lens[0] = pre;           /* a prefix of base */
    pats[1] = base; lens[1] = 3;             /* a prefix of that one */
    pats[2] = base + pre - 3; lens[2] = 3;   /* its suffix */
    pats[3] = base; lens[3] = L;
    pats[4] = base; lens[4] = pre;           /* duplicate of pattern 0, another id */
    pats[5] = other; lens[5] = 64;
    pats[6] = (const unsigned char *)"A"; lens[6] = 1;
    pats[7] = nul2; lens[7] = 2;
    pats[8] = bin; lens[8] = 33;
    t_fill(r, text, n, alpha);
    for (i = 0; i < n; i += 1 + t_below(r, 100)) text[i] = 'A';
    for (i = 0; i < n; i += 1 + t_below(r, 200)) text[i] = 0; /* NULs, some in pairs */
    for (i = 0; i < n; i += 1 + t_below(r, 300)) text[i] = 0;
    for (i = 0; i < 10; i++) {
        plant(text, n, t_below(r, n), base, L);
        plant(text, n, t_below(r, n), other, 64);
        plant(text, n, t_below(r, n), bin, 33);
    }
    for (pass = 0; pass < 2; pass++) {
        ps.ids = pass == 0 ? ids : NULL;
        if (dopen(c, &ps, 0, 0, pass == 0 ? "ids=given" : "ids=NULL", 4, L)) {
            if (dscratch(c, ORDINARY_SLAB, 0)) dcheck(c, text, n, "multi");
            /* Small slabs: the overlap is the longest pattern's, shorter ones must not be
             * reported twice there. */
            if (dscratch(c, 4099, 0)) dcheck(c, text, n, "multi-small-slabs");
        }
        dclose(c);
    }
    free(text);
    free(bin);
    free(other);
    free(base);
}

/* A pattern that holds every byte value (the reduced alphabet is all 256 bytes plus none
 * left for "other"), then repeats some. The text holds copies and near misses: each position
 * j of the pattern replaced by the pattern's first or last byte. */
static void kind_allbytes(dctx *c, t_rng *r)
{
    /* 300 bytes; 256 (each byte value once) for bitap; 64 of them for its reduce variants */
    size_t m = takes(c->a->spec, 300) ? 300 : c->a->spec->maxlen, i, j, at = 0, gap = 37;
    size_t n = (t_quick ? 24 : m) * 2 * (m + gap) + 4 * (m + gap);
    unsigned char *p = xmalloc(m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    t_rng pr;

    t_rng_init(&pr, "allbytes-pattern", 0);
    {
        unsigned char perm[256];
        for (i = 0; i < 256; i++) perm[i] = (unsigned char)i;
        for (i = 255; i > 0; i--) { /* a random permutation of 0..255 */
            size_t k = t_below(&pr, i + 1);
            unsigned char tmp = perm[i];
            perm[i] = perm[k];
            perm[k] = tmp;
        }
        memcpy(p, perm, m < 256 ? m : 256);
    }
    for (i = 256; i < m; i++) p[i] = p[t_below(&pr, 256)];
    if (m > 256) p[256] = p[255]; /* the last new byte again */
    t_fill(r, text, n, 256);
    for (i = 0; i < 4; i++, at += m + gap) memcpy(text + at, p, m);
    for (i = 0; i < (t_quick ? 24 : m); i++) {
        j = t_quick ? t_below(r, m) : i;
        memcpy(text + at, p, m);
        text[at + j] = p[0];
        at += m + gap;
        memcpy(text + at, p, m);
        text[at + j] = p[m - 1];
        at += m + gap;
    }
    if (dopen(c, &ps, 0, 0, "pattern=every-byte-value", 256, m) && dscratch(c, ORDINARY_SLAB, 0))
        dcheck(c, text, at, "copies-and-near-misses");
    dclose(c);
    free(text);
    free(p);
}

/* ---- the test functions -------------------------------------------------------------------- */

/* The sampled matrix of the new algorithms (bitap in each variant, bmh, witness).
 *
 * Their kernels are built per pattern length and table memory and, for bitap, per reduced
 * alphabet size (witness: per pattern period); a build costs about a second on a cold PoCL.
 * So the kinds share builds where they can: patterns over 2 symbols ("ab", a..ab, a^m, A^m,
 * periods ab/aab/aabab) all reduce to the same bitap alphabet, so the random kind runs every
 * length of the list over 2 symbols and the periodic, adversarial, all-match and default-
 * geometry boundary kinds reuse those builds; other alphabets (4, 26, 256) rotate over a third
 * of the lengths. Local and constant tables, which change only where the tables live, get the
 * spec's small and large lengths. */
static void fresh_plan(dctx *c, const diff_arg *a, t_rng *r)
{
    const algo_spec *sp = a->spec;
    const int full = a->mem == CLM_TABLE_GLOBAL;
    static const unsigned other[] = {4, 26, 256};
    static const size_t two_symbol_periods[] = {0, 2, 5}; /* ab, aab, aabab in kind_periodic */
    size_t i;

    if (t_quick) {
        switch (a->kind) {
        case K_RANDOM:
            for (i = 0; i < sp->nquick; i++) kind_random(c, sp->quick[i].alpha, sp->quick[i].m, r);
            break;
        case K_PERIODIC:
            kind_periodic(c, 1, sp->small, r);
            if (a->algo == CLM_ALGO_SIMD) {
                kind_periodic(c, 0, 2, r);
                kind_periodic(c, 2, 64, r);
                kind_periodic(c, 0, 256, r);
            }
            if (a->algo == CLM_ALGO_WITNESS) kind_periodic_with(c, "ab", 0, 101, r);
            break;
        case K_ADVERSARIAL:
            kind_adversarial(c, 33, r);
            if (a->algo == CLM_ALGO_SIMD) {
                kind_adversarial(c, 9, r);
                kind_adversarial(c, 65, r);
                kind_adversarial(c, 256, r);
            }
            break;
        case K_ALLMATCH:
            kind_allmatch(c, sp->small);
            if (a->algo == CLM_ALGO_SIMD) {
                kind_allmatch(c, 1);
                kind_allmatch(c, 64);
                kind_allmatch(c, 256);
            }
            break;
        case K_BOUNDARY:
            kind_boundary(c, 2, 33, 8, 16, r);
            if (!t_smoke) kind_boundary(c, 2, 33, 0, 0, r); /* the default geometry */
            if (a->algo == CLM_ALGO_SIMD) {
                kind_steps(c, 2, 1, r);
                kind_steps(c, 26, 8, r);
                kind_steps(c, 4, 65, r);
                kind_steps(c, 2, 256, r);
                kind_boundary(c, 4, 17, 4, 240, r);
            }
            break;
        case K_LARGE: kind_large(c, 4, sp->quick[1].m, (size_t)4 << 20, r); break;
        case K_CASELESS: kind_caseless(c, 17, r); break;
        case K_MULTI: kind_multi(c, r); break;
        case K_ALLBYTES: kind_allbytes(c, r); break;
        default: break;
        }
        return;
    }
    switch (a->kind) {
    case K_RANDOM:
        if (!full) {
            kind_random(c, 2, sp->small, r);
            kind_random(c, 2, sp->large, r);
            break;
        }
        for (i = 0; i < sp->nlens; i++) {
            kind_random(c, 2, sp->lens[i], r);
            if (i % 4 == 1) kind_random(c, other[(i / 4) % 3], sp->lens[i], r);
        }
        break;
    case K_PERIODIC:
        if (!full) {
            kind_periodic(c, two_symbol_periods[a->mem == CLM_TABLE_LOCAL], sp->small, r);
        } else {
            for (i = 0; i < sp->nlens; i++)
                if (i % 2 == 0) kind_periodic(c, two_symbol_periods[i / 2 % 3], sp->lens[i], r);
            kind_periodic(c, 3, sp->small, r); /* ACGT */
            kind_periodic(c, 4, sp->large, r); /* the 26 letters */
        }
        if (a->algo == CLM_ALGO_WITNESS) {
            /* Patterns with short periods, which witness duels in blocks of the period:
             * (ab)^k a, a^m, (abc)^k and a rotation of it, long ones included. */
            static const struct { const char *per; size_t rot, m; int sub; } wp[] = {
                {"ab", 0, 101, 1}, {"ab", 0, 4001, 0}, {"a", 0, 1000, 2}, {"abc", 1, 4000, 0}};
            for (i = 0; i < sizeof wp / sizeof wp[0]; i++)
                if (full || wp[i].sub == (a->mem == CLM_TABLE_LOCAL ? 1 : 2))
                    kind_periodic_with(c, wp[i].per, wp[i].rot, wp[i].m, r);
        }
        break;
    case K_ADVERSARIAL:
        if (!full) kind_adversarial(c, sp->small, r);
        for (i = 0; i < sp->nlens && full; i++)
            if (i % 2 == 0) kind_adversarial(c, sp->lens[i], r);
        break;
    case K_ALLMATCH:
        if (!full) kind_allmatch(c, sp->small);
        for (i = 0; i < sp->nlens && full; i++)
            if (i % 2 == 0) kind_allmatch(c, sp->lens[i]);
        break;
    case K_BOUNDARY:
        /* the default geometry over the list (shared builds), the tiny one (8 items of 16
         * bytes: new builds) at 3, 33 and the longest */
        if (!full) {
            kind_boundary(c, 2, sp->small, 0, 0, r);
            if (a->algo == CLM_ALGO_SIMD) kind_steps(c, 4, sp->small, r);
            break;
        }
        for (i = 0; i < sp->nblens; i++) {
            size_t m = sp->blens[i];
            int tiny = m == 3 || m == 33 || i + 1 == sp->nblens;
            kind_boundary(c, 2, m, 0, 0, r);
            if (tiny) kind_boundary(c, 2, m, 8, 16, r);
            /* simd: its steps, and item boundaries inside and past them */
            if (a->algo == CLM_ALGO_SIMD) {
                kind_steps(c, i % 2 ? 26 : 2, m, r);
                kind_boundary(c, 4, m, 4, 240, r);
            }
        }
        break;
    case K_LARGE:
        kind_large(c, 2, 7, (size_t)4 << 20, r);
        kind_large(c, 2, sp->small, (size_t)3 << 20, r);
        kind_large(c, 256, takes(sp, 255) ? 255 : sp->maxlen, (size_t)2 << 20, r);
        break;
    case K_CASELESS:
        kind_caseless(c, full ? (takes(sp, 255) ? 255 : sp->maxlen) : 17, r);
        break;
    case K_MULTI:
        kind_multi(c, r);
        break;
    case K_ALLBYTES:
        kind_allbytes(c, r);
        break;
    }
}

static void test_diff(const void *arg)
{
    const diff_arg *a = arg;
    const algo_spec *sp = a->spec;
    dctx c;
    t_rng r;
    size_t i, j;
    /* Global tables get the whole matrix; local and constant tables a sample of it. */
    const int full = a->mem == CLM_TABLE_GLOBAL;

    memset(&c, 0, sizeof c);
    c.a = a;
    t_matches_init(&c.got);
    t_matches_init(&c.want);
    t_rng_init(&r, kind_names[a->kind], (uint64_t)a->algo * 16 + a->mem + sp->variant * 256u);

    if (a->algo >= CLM_ALGO_BITAP) {
        fresh_plan(&c, a, &r);
        goto done;
    }
    switch (a->kind) {
    case K_RANDOM:
        if (t_quick) {
            for (i = 0; i < sp->nquick; i++) kind_random(&c, sp->quick[i].alpha, sp->quick[i].m, &r);
        } else {
            /* Global tables get every (alphabet, length); local and constant tables differ
             * only in where the tables live, so they get every length with two alphabets
             * (rotating), which halves their DFA builds. */
            for (j = 0; j < 4; j++)
                for (i = 0; i < sp->nlens; i++)
                    if (full || j == i % 4 || j == (i + 2) % 4)
                        kind_random(&c, alphas[j], sp->lens[i], &r);
        }
        break;
    case K_PERIODIC:
        for (i = 0; i < sp->nlens; i++)
            if (t_quick ? i % 4 == 1 : full || i % 2 == 0) kind_periodic(&c, i, sp->lens[i], &r);
        break;
    case K_ADVERSARIAL:
        for (i = 0; i < sp->nlens; i++)
            if (t_quick ? sp->lens[i] == 3 || sp->lens[i] == 33 : full || i % 2 == 0)
                kind_adversarial(&c, sp->lens[i], &r);
        break;
    case K_ALLMATCH:
        for (i = 0; i < sp->nlens; i++)
            if (!t_quick || i % 5 == 1) kind_allmatch(&c, sp->lens[i]);
        break;
    case K_BOUNDARY: {
        /* Default geometry, and a tiny one (8 items of 16 bytes) so that long patterns span
         * many items and groups. */
        const size_t *bl = sp->blens;
        for (i = 0; i < sp->nblens; i++) {
            unsigned alpha = i % 2 ? 26 : 256;
            int few = bl[i] == 3 || bl[i] == 33;
            if (t_quick && !few) continue;
            if (!full && !few && bl[i] != 1 && bl[i] != 17 && bl[i] != 300) continue;
            if (!t_smoke && (!t_quick || bl[i] == 33)) kind_boundary(&c, alpha, bl[i], 0, 0, &r);
            kind_boundary(&c, alpha, bl[i], 8, 16, &r);
        }
        break;
    }
    case K_LARGE:
        kind_large(&c, 4, 17, (size_t)4 << 20, &r);
        kind_large(&c, 2, 7, (size_t)3 << 20, &r);
        kind_large(&c, 256, 255, (size_t)2 << 20, &r);
        break;
    case K_CASELESS: {
        static const size_t cl[] = {1, 2, 5, 17, 33, 64, 255};
        for (i = 0; i < sizeof cl / sizeof cl[0]; i++)
            if (t_quick ? cl[i] == 1 || cl[i] == 17 : full || (cl[i] != 2 && cl[i] != 33 && cl[i] != 64))
                kind_caseless(&c, cl[i], &r);
        break;
    }
    case K_MULTI:
        kind_multi(&c, &r);
        break;
    case K_ALLBYTES:
        kind_allbytes(&c, &r);
        break;
    }
done:
    if (c.unsupported)
        t_note("%u combination(s) rejected with CLM_E_UNSUPPORTED, table larger than %s "
               "memory (%llu bytes)",
               c.unsupported, clm_table_memory_name(a->mem),
               (unsigned long long)t_table_limit(a->mem));
    if (c.no_variant)
        t_note("%u compile(s) of the %s variant refused with CLM_E_UNSUPPORTED as expected "
               "(not implemented: see the README)",
               c.no_variant, clm_variant_name(sp->variant));
    t_matches_free(&c.got);
    t_matches_free(&c.want);
}

/* ---- long work per work-item ------------------------------------------------------------ */

/* Inputs on which a work-item of the built-in shape makes far more than 65535 loop passes:
 * all-match text, every start compared in full (naive, m = 100, over its 4096 starts; bmh,
 * m = 300, over its m + 32), KMP over a range of 4 (m - 1) bytes (m = 13000), and KMP at
 * m = 3000 over (a^(m-1) b a^(m-1) c d^k)*, whose fail loops run m - 1 steps after each c, at
 * a different place in each work-item's range. Mesa's llvmpipe leaves every loop once a
 * work-item has made 65535 passes (bench/experiments/loop_budget.c): those matches were lost
 * until the host bounded the range. A pattern too long for any range there is refused with a
 * detail that says so and names dfa, which must then find them. */
typedef struct {
    clm_algorithm algo;
    size_t m, n;
    int fail_loops; /* the KMP text above, else a^n */
} long_work;
static const long_work long_works[] = {
    {CLM_ALGO_NAIVE, 100, 8192, 0}, {CLM_ALGO_NAIVE, 5000, 12000, 0},
    {CLM_ALGO_BMH, 300, 4096, 0},   {CLM_ALGO_KMP, 13000, 80000, 0},
    {CLM_ALGO_KMP, 3000, 200000, 1},
};

static void test_long_work(const void *arg)
{
    const long_work *w = arg;
    size_t m = w->m, n = w->n, i;
    unsigned char *p = xmalloc(m), *text = xmalloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    t_matches want, got;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    char desc[96];

    memset(p, 'a', m);
    memset(text, 'a', n);
    if (w->fail_loops) {
        size_t unit = 2 * m + m / 7 + 1;
        p[m - 1] = 'b';
        for (i = 0; i < n; i++) {
            size_t k = i % unit;
            if (k == m - 1) text[i] = 'b';
            else if (k == 2 * m - 1) text[i] = 'c';
            else if (k >= 2 * m) text[i] = 'd';
        }
    }
    t_matches_init(&want);
    t_matches_init(&got);
    t_reference(text, n, &ps, &want);
    snprintf(desc, sizeof desc, "algo=%s m=%zu", clm_algorithm_name(w->algo), m);
    int rc = t_compile(&ps, w->algo, CLM_TABLE_GLOBAL, 0, 0, 0, &db);
    if (rc == CLM_E_PATTERN_TOO_LONG) {
        if (!EXPECT(strstr(clm_last_error(), "loop passes") && strstr(clm_last_error(), "dfa")))
            t_note("%s: refused: %s", desc, clm_last_error());
        snprintf(desc, sizeof desc, "algo=dfa m=%zu (%s refused)", m,
                 clm_algorithm_name(w->algo));
        rc = t_compile(&ps, CLM_ALGO_DFA, CLM_TABLE_GLOBAL, 0, 0, 0, &db);
    }
    if (EXPECT_RC(rc, CLM_OK) && t_scratch_alloc(db, &s, 0, 0, desc))
        t_check_scan(db, s, text, n, &want, &got, desc,
                     w->fail_loops ? "(a^(m-1)b a^(m-1)c d^k)*" : "a^n");
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
    free(p);
}

void register_diff_tests(void)
{
    static const clm_table_memory mems[] = {CLM_TABLE_GLOBAL, CLM_TABLE_LOCAL,
                                            CLM_TABLE_CONSTANT};
    size_t ai, mi, k, n = 0;
    for (ai = 0; ai < NSPECS; ai++) {
        for (mi = 0; mi < 3; mi++) {
            for (k = 0; k < K_COUNT; k++) {
                char name[96];
                diff_arg *d;
                /* bitap, bmh, witness: several patterns and large inputs only with global
                 * tables (the table memory changes neither) */
                if (specs[ai].algo >= CLM_ALGO_BITAP && mi > 0 && (k == K_MULTI || k == K_LARGE))
                    continue;
                d = &diff_args[n++];
                d->spec = &specs[ai];
                d->algo = specs[ai].algo;
                d->mem = mems[mi];
                d->kind = (int)k;
                snprintf(name, sizeof name, "diff.%s.%s.%s", specs[ai].name,
                         clm_table_memory_name(d->mem), kind_names[k]);
                /* The large kind is too slow for oclgrind and adds nothing for ASan. The new
                 * algorithms' local and constant tables are left out of the quick subset
                 * (global ones cover their kernels there). */
                t_register(name, test_diff, d,
                           k != K_LARGE && (ai < 3 || mi == 0 || k == K_RANDOM));
            }
        }
    }
    for (k = 0; k < sizeof long_works / sizeof long_works[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "diff.long-work.%s-m%zu",
                 clm_algorithm_name(long_works[k].algo), long_works[k].m);
        t_register(name, test_long_work, &long_works[k], 0);
    }
}
