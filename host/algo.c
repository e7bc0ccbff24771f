/* The algorithms: one descriptor each (host/algo.h), with the hooks that size and fill its
 * tables. The kernels are cl/<source>; the planning that uses these is host/compile.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"

/* ---- shapes ---------------------------------------------------------------------------- */

static void naive_shape(struct clm_kernel_shape *s, const clm_device *dev,
                        const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)f, (void)chunk, (void)given;
    s->pat_len = s->m;
    s->tab_len = 1; /* unused; kept non-empty so every kernel has the same arguments */
}

static void kmp_shape(struct clm_kernel_shape *s, const clm_device *dev,
                      const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)f, (void)chunk, (void)given;
    s->pat_len = s->m;
    s->tab_len = s->m + 1;
}

static void dfa_shape(struct clm_kernel_shape *s, const clm_device *dev,
                      const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)chunk, (void)given;
    /* rows padded to a power of two: cheaper indexing, and patterns with a similar number of
     * distinct bytes share one kernel build */
    s->sigma = clm_next_pow2(f->classes < 2 ? 2 : f->classes);
    s->pat_len = 256;
    s->tab_len = (s->m + 1) * s->sigma;
}

static void bitap_shape(struct clm_kernel_shape *s, const clm_device *dev,
                        const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)chunk, (void)given;
    s->words = (s->m + 63) / 64;
    s->sigma = clm_next_pow2(f->bitap_classes < 2 ? 2 : f->bitap_classes);
    s->pat_len = 256;
    s->tab_len = s->sigma * s->words * (s->strands ? s->strands : 1);
    s->tab_elem = 8;
    if (s->variant == CLM_VARIANT_REDUCE) {
        s->halo = clm_next_pow2(s->m) - 1;
        s->span = s->wg;
    }
}

static void bmh_shape(struct clm_kernel_shape *s, const clm_device *dev,
                      const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)f;
    s->pat_len = s->m;
    s->tab_len = 256;
    /* seed 001: a range of m + 32 starts per work-item, so every thread gets a few windows.
     * A chunk tuned for the scanning kernels does not fit it (4096 ran at 0.56x on PoCL):
     * only bytes_per_item or bmh.chunk changes it, as it is (BMH skips, so the overlap rule
     * does not apply) */
    if (!given) {
        size_t own = (size_t)clm_tune_own(dev, CLM_ALGO_BMH, CLM_KNOB_CHUNK);
        *chunk = own ? own : s->m + 32;
    }
}

static void witness_shape(struct clm_kernel_shape *s, const clm_device *dev,
                          const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)chunk, (void)given;
    size_t half = (s->m + 1) / 2;
    unsigned wg = s->wg;
    s->pi = (unsigned)(f->period < half ? f->period : half);
    s->gs = clm_next_pow2(s->pi);
    /* the duel tree halves GS, and the WG / GS blocks of a group must fill it: GS is at most
     * the largest power of two dividing wg (wg 24 with GS 16 read past dead[]) */
    if (s->gs > (wg & (~wg + 1u)))
        s->gs = wg & (~wg + 1u);
    s->pat_len = s->m;
    s->tab_len = s->pi;
    s->span = (wg / s->gs) * s->pi;
}

/* ---- facts and tables ----------------------------------------------------------------- */

/* Bitap: bytes with equal position masks share a class, and their number sizes the kernel.
 * strands: both strands side by side (sym joined by the caller), masks of W words each. */
static int bitap_masks(const struct clm_symbols *sym, unsigned words, unsigned char cls[256],
                       uint64_t **masks, unsigned *classes)
{
    *masks = calloc((size_t)256 * words, sizeof **masks);
    if (!*masks)
        return clm_fail(CLM_E_NOMEM, "out of memory building bitap tables");
    return clm_bitap_tables(sym, words, cls, *masks, classes);
}

static unsigned bitap_words(size_t m, unsigned strands)
{
    return (unsigned)((m + 63) / 64) * (strands ? strands : 1);
}

static int bitap_facts(const struct clm_symbols *sym, unsigned count, unsigned strands,
                       int caseless, struct clm_pattern_facts *f, void **built)
{
    (void)count, (void)caseless, (void)built; /* groups of one; the tables build their own */
    unsigned char cls[256];
    uint64_t *masks;
    int rc = bitap_masks(sym, bitap_words(f->m, strands), cls, &masks, &f->bitap_classes);
    free(masks);
    return rc;
}

static int bitap_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                        unsigned count, int caseless, unsigned char *bytes, void *tab, void *built)
{
    (void)count, (void)caseless, (void)built;
    uint64_t *masks;
    unsigned classes;
    int rc = bitap_masks(sym, s->words * (s->strands ? s->strands : 1), bytes, &masks, &classes);
    if (rc == CLM_OK) /* classes past the last are zero masks: the padding of sigma */
        memcpy(tab, masks, (size_t)s->tab_len * s->tab_elem);
    free(masks);
    return rc;
}

static int dfa_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                      unsigned count, int caseless, unsigned char *bytes, void *tab, void *built)
{
    (void)count, (void)built;
    clm_class_map(sym->bytes, sym->m, caseless, bytes);
    clm_dfa_table(sym->bytes, sym->m, bytes, s->sigma, tab);
    return CLM_OK;
}

/* The pattern's bytes (folded when caseless: kernels fold the text alike) and its table. */
static int literal_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                          unsigned count, int caseless, unsigned char *bytes, void *tab,
                          void *built)
{
    (void)count, (void)caseless, (void)built;
    memcpy(bytes, sym->bytes, sym->m);
    switch (s->algorithm) {
    case CLM_ALGO_KMP: clm_kmp_fail(bytes, sym->m, tab); break;
    case CLM_ALGO_BMH: clm_bmh_shifts(bytes, sym->m, tab); break;
    case CLM_ALGO_WITNESS: clm_period(bytes, sym->m, tab, s->pi); break;
    default: break;
    }
    return CLM_OK;
}

/* ---- staging ---------------------------------------------------------------------------- */

/* Longer patterns' staged walks (cl/common.cl STAGE_WALK, STAGE_PREFIX): the DFA walks the
 * byte-major table of its first CLM_DFA_STAGE_PREFIX states, bitap a 32-bit word of its first
 * CLM_BITAP_STAGE_PREFIX positions, and each steps the whole pattern only in the blocks where
 * that prefix matched; 0: no prefix walk. */
#ifndef CLM_DFA_STAGE_PREFIX
#define CLM_DFA_STAGE_PREFIX 16u
#endif
#ifndef CLM_BITAP_STAGE_PREFIX
#define CLM_BITAP_STAGE_PREFIX 32u
#endif

unsigned clm_stage_prefix(const struct clm_kernel_shape *s)
{
    const struct clm_algo *a = clm_algo(s->algorithm);
    unsigned p = a ? a->stage_prefix : 0;
    return p && s->m > p ? p : 0;
}

/* The staged DFA's state table (cl/dfa.cl DFA_COL): one lookup per byte in 256 columns of
 * m + 1 one-byte states (m <= 32), each column an odd number of words long so that the
 * columns of neighbouring bytes start in different banks (H200: 1.06-1.26x the class map and
 * transitions, bench/experiments); 0 for longer patterns, whose 17 KiB table would halve the
 * work-group: they walk the table of their prefix (stage_prefix). */
static unsigned dfa_stage_col(unsigned m)
{
    return m <= 32 ? 4 * (((m + 4) / 4) | 1) : 0;
}

/* The columns the staged DFA walks: of its prefix's states when it walks one. */
static unsigned dfa_walk_col(const struct clm_kernel_shape *s)
{
    unsigned prefix = clm_stage_prefix(s);
    return dfa_stage_col(prefix ? prefix : s->m);
}

/* dfa.cl: 256 columns of dfa_walk_col bytes, the transitions again (premultiplied) where it
 * has no such columns or walks a prefix. */
static size_t dfa_stage_bytes(const struct clm_kernel_shape *s)
{
    unsigned col = dfa_walk_col(s);
    return 256 * (size_t)col + (!col || clm_stage_prefix(s) ? (size_t)s->tab_len * 2 : 0);
}

static void dfa_stage_shape(struct clm_kernel_shape *s)
{
    s->dfa_col = dfa_walk_col(s);
}

/* bitap.cl: 256 masks of 4 or 8 bytes and one entry more (STAGE_TWO_AT), and 256 of 4 for a
 * prefix walk. */
static size_t bitap_stage_bytes(const struct clm_kernel_shape *s)
{
    return 257u * (s->m <= 32 ? 4u : 8u) + (clm_stage_prefix(s) ? 256u * 4u : 0);
}

/* ---- loop passes (clm_algo.loop_passes) -------------------------------------------------- */

/* naive: per start a pass, m - 1 bytes compared and the leaving pass; bmh the same at shifts
 * of 1 (periodic text) */
static size_t compare_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                             unsigned lanes)
{
    (void)bytes, (void)lanes;
    return chunk * (s->m + 1);
}

/* kmp: per byte a pass and the fail loop's leaving pass; fail steps are at most one per byte of
 * a lane's range, and the lanes' may all differ */
static size_t kmp_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                         unsigned lanes)
{
    (void)s, (void)chunk;
    return bytes * (2 + lanes);
}

/* dfa, bitap: 16 bytes a pass, single bytes at both ends */
static size_t block_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                           unsigned lanes)
{
    (void)s, (void)chunk, (void)lanes;
    return bytes / 16 + 32;
}

/* witness: a block's starts, the duel tree, the verification: GS a pass */
static size_t witness_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                             unsigned lanes)
{
    (void)chunk, (void)bytes, (void)lanes;
    size_t gs = s->gs ? s->gs : 1;
    return (s->pi + gs - 1) / gs + 16 + (s->m + gs - 1) / gs;
}

/* ---- the table ------------------------------------------------------------------------ */

static const struct clm_algo algos[CLM_ALGO_COUNT] = {
    [CLM_ALGO_NAIVE] = {.id = CLM_ALGO_NAIVE, .name = "naive", .macro = "NAIVE",
                        .source = "naive.cl", .max_length = CLM_MAX_PATTERN_LENGTH, .group = 1,
                        .summary = "brute force: every start compared with the pattern",
                        .shape = naive_shape, .tables = literal_tables,
                        .loop_passes = compare_passes},
    [CLM_ALGO_KMP] = {.id = CLM_ALGO_KMP, .name = "kmp", .macro = "KMP", .source = "kmp.cl",
                      .caps = CLM_CAP_BLOCKS, .max_length = CLM_MAX_PATTERN_LENGTH, .group = 1,
                      .summary = "Knuth-Morris-Pratt with a fail table", .shape = kmp_shape,
                      .tables = literal_tables, .loop_passes = kmp_passes},
    [CLM_ALGO_DFA] = {.id = CLM_ALGO_DFA, .name = "dfa", .macro = "DFA", .source = "dfa.cl",
                      .caps = CLM_CAP_STAGE | CLM_CAP_PACKED | CLM_CAP_BLOCKS | CLM_CAP_LOOKUP,
                      .max_length = CLM_MAX_PATTERN_LENGTH, .group = 1,
                      .stage_prefix = CLM_DFA_STAGE_PREFIX,
                      .summary = "KMP automaton over the pattern's reduced alphabet",
                      .shape = dfa_shape, .tables = dfa_tables, .loop_passes = block_passes,
                      .stage_bytes = dfa_stage_bytes, .stage_shape = dfa_stage_shape},
    [CLM_ALGO_BITAP] = {.id = CLM_ALGO_BITAP, .name = "bitap", .macro = "BITAP",
                        .source = "bitap.cl", .reduce_source = "bitap_reduce.cl",
                        .caps = CLM_CAP_CLASSES | CLM_CAP_ERRORS | CLM_CAP_REDUCE |
                                CLM_CAP_STAGE | CLM_CAP_ENDS | CLM_CAP_PACKED | CLM_CAP_BLOCKS |
                                CLM_CAP_STRANDS | CLM_CAP_LOOKUP,
                        .max_length = CLM_BITAP_MAX_LENGTH, .group = 1,
                        .stage_prefix = CLM_BITAP_STAGE_PREFIX,
                        .summary = "shift-and bit-parallel automaton: classes, k edits or "
                                   "mismatches",
                        .facts = bitap_facts, .shape = bitap_shape, .tables = bitap_tables,
                        .loop_passes = block_passes, .stage_bytes = bitap_stage_bytes},
    [CLM_ALGO_BMH] = {.id = CLM_ALGO_BMH, .name = "bmh", .macro = "BMH", .source = "bmh.cl",
                      .max_length = CLM_MAX_PATTERN_LENGTH, .group = 1,
                      .summary = "Boyer-Moore-Horspool, bad-character shifts",
                      .shape = bmh_shape, .tables = literal_tables,
                      .loop_passes = compare_passes},
    [CLM_ALGO_WITNESS] = {.id = CLM_ALGO_WITNESS, .name = "witness", .macro = "WITNESS",
                          .source = "witness.cl", .max_length = CLM_MAX_PATTERN_LENGTH,
                          .group = 1,
                          .summary = "Vishkin witness/duel elimination, then verification",
                          .shape = witness_shape, .tables = literal_tables,
                          .loop_passes = witness_passes},
    [CLM_ALGO_AHO] = {.id = CLM_ALGO_AHO, .name = "aho", .macro = "AHO", .source = "aho.cl",
                      .caps = CLM_CAP_CLASSES | CLM_CAP_ENDS | CLM_CAP_BLOCKS | CLM_CAP_WALK,
                      .max_length = CLM_MAX_PATTERN_LENGTH, .group = CLM_MAX_SLOTS,
                      .summary = "Aho-Corasick automaton of every pattern at once: one pass "
                                 "for many patterns",
                      .facts = clm_aho_facts, .shape = clm_aho_shape,
                      .tables = clm_aho_tables, .release = clm_aho_release,
                      .loop_passes = clm_aho_loop_passes, .split = clm_aho_split},
    [CLM_ALGO_HAMMING] = {.id = CLM_ALGO_HAMMING, .name = "hamming", .macro = "HAMMING",
                          .source = "hamming.cl", .caps = CLM_CAP_CLASSES | CLM_CAP_MISMATCHES |
                                  CLM_CAP_EXACT_ENDS,
                          .max_length = CLM_HAMMING_MAX_LENGTH,
                          .max_errors = CLM_HAMMING_MAX_ERRORS, .group = CLM_MAX_SLOTS,
                          .summary = "every pattern compared at every start where its exact "
                                     "ends pass, symbols as bit planes (to 32) or one-hot "
                                     "nibbles: one pass for many patterns with mismatches",
                          .facts = clm_hamming_facts, .shape = clm_hamming_shape,
                          .tables = clm_hamming_tables, .release = clm_hamming_release,
                          .loop_passes = clm_hamming_loop_passes,
                          .group_bytes = clm_hamming_group_bytes},
    [CLM_ALGO_KMER] = {.id = CLM_ALGO_KMER, .name = "kmer", .macro = "KMER",
                       .source = "kmer.cl",
                       .caps = CLM_CAP_ENDS | CLM_CAP_BLOCKS | CLM_CAP_WALK,
                       .max_length = CLM_MAX_PATTERN_LENGTH, .group = CLM_MAX_SLOTS,
                       .summary = "q-grams sampled every few bytes tested against a filter of "
                                  "the patterns', candidates verified: one pass for many DNA "
                                  "patterns",
                       .facts = clm_kmer_facts, .shape = clm_kmer_shape,
                       .tables = clm_kmer_tables, .release = clm_kmer_release,
                       .loop_passes = clm_kmer_loop_passes},
    [CLM_ALGO_SIMD] = {.id = CLM_ALGO_SIMD, .name = "simd", .macro = "SIMD",
                       .source = "simd.cl", .max_length = CLM_SIMD_MAX_LENGTH, .group = 1,
                       .summary = "64 starts a step compared with the pattern's rarest bytes "
                                  "as vectors, candidates verified (CPUs)",
                       .shape = clm_simd_shape, .tables = clm_simd_tables,
                       .loop_passes = clm_simd_loop_passes},
};

size_t clm_round_table(size_t x)
{
    size_t p = 64;
    while (p * 2 <= x)
        p *= 2;
    size_t step = p / 8 > 64 ? p / 8 : 64;
    return clm_round_up(x, step);
}

const struct clm_algo *clm_algo(clm_algorithm id)
{
    unsigned i = (unsigned)id;
    return i > CLM_ALGO_AUTO && i < CLM_ALGO_COUNT ? &algos[i] : NULL;
}

const char *clm_algo_names(void)
{
    static char names[CLM_ALGO_COUNT * 16]; /* the same text for every caller: no race */
    size_t n = 0;
    for (unsigned i = 1; i < CLM_ALGO_COUNT; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i > 1 ? ", " : "",
                              algos[i].name);
    return names;
}

const struct clm_algo *clm_algo_with(unsigned caps)
{
    for (unsigned i = 1; i < CLM_ALGO_COUNT; i++)
        if ((algos[i].caps & caps) == caps)
            return &algos[i];
    return NULL;
}

int clm_algo_can(clm_algorithm id, clm_variant variant, unsigned cap)
{
    const struct clm_algo *a = clm_algo(id);
    const unsigned item_only = CLM_CAP_STAGE | CLM_CAP_PACKED | CLM_CAP_BLOCKS | CLM_CAP_STRANDS;
    if (!a || !(a->caps & cap))
        return 0;
    return !(cap & item_only) || variant == CLM_VARIANT_ITEM || variant == CLM_VARIANT_AUTO;
}
