/* Planning a database: the algorithm (docs: "Automatic choice"), its variant, packing, the
 * engines (groups of patterns, one kernel launch each) and each engine's kernel shape: table
 * memory, staging, load width, geometry. Nothing here touches OpenCL; host/compile.c builds
 * what this plans. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"

/* ---- table memory ------------------------------------------------------------------------ */

/* Bytes the kernel's two tables take. */
static size_t table_bytes(const struct clm_kernel_shape *s)
{
    return (size_t)s->pat_len + (size_t)s->tab_len * s->tab_elem;
}

/* Local memory a kernel may use for tables: leave room for what the compiler adds. */
static size_t local_budget(const clm_device *dev)
{
    size_t local = (size_t)dev->info.local_mem_bytes;
    return local > 1024 ? local - 1024 : 0;
}

/* Bytes of mem the shape needs: its tables, and in local memory what its work-group kernel
 * keeps there itself. */
static size_t mem_need(const struct clm_kernel_shape *s, clm_table_memory mem)
{
    const struct clm_algo *a = clm_algo(s->algorithm);
    return table_bytes(s) + (mem == CLM_TABLE_LOCAL && a->group_bytes ? a->group_bytes(s) : 0);
}

static int fits(const clm_device *dev, const struct clm_kernel_shape *s, clm_table_memory mem)
{
    size_t bytes = mem_need(s, mem);
    switch (mem) {
    case CLM_TABLE_LOCAL: return bytes <= local_budget(dev);
    case CLM_TABLE_CONSTANT: return bytes <= dev->info.constant_mem_bytes;
    default: return 1;
    }
}

static int unsupported_table(const clm_device *dev, const struct clm_kernel_shape *s,
                             clm_table_memory mem, size_t index)
{
    size_t limit = mem == CLM_TABLE_LOCAL ? local_budget(dev) : dev->info.constant_mem_bytes;
    return clm_fail(CLM_E_UNSUPPORTED,
                    "%s tables for pattern %zu (%u symbols) need %zu bytes (with the kernel's "
                    "own), more than the %zu bytes of %s memory %s offers; use table memory "
                    "global (CLM_TABLE_GLOBAL, --table-memory global)%s",
                    clm_algorithm_name(s->algorithm), index, s->m, mem_need(s, mem), limit,
                    clm_table_memory_name(mem), dev->info.name,
                    s->algorithm == CLM_ALGO_DFA
                        ? " or algorithm kmp (CLM_ALGO_KMP, --algorithm kmp)"
                        : "");
}

/* ---- staging ----------------------------------------------------------------------------- */

/* Is a switch knob on? The compile options' switch when set, else the tuning's value for the
 * algorithm (ALGO.key, else key). */
static int switch_wanted(const clm_device *dev, clm_algorithm algo, clm_switch sw,
                         enum clm_knob knob)
{
    if (sw != CLM_AUTO)
        return sw == CLM_ON;
    return clm_tune_get(dev, algo, knob, NULL) == CLM_TUNE_ON;
}

/* Is staging asked for? The options' staging, else the tuning's stage (CLMATCH_STAGING is
 * one of its sources). */
static int stage_wanted(const clm_device *dev, clm_algorithm algo, clm_switch staging)
{
    return switch_wanted(dev, algo, staging, CLM_KNOB_STAGE);
}

/* Has this shape a staged kernel (cl/kernels.cl STAGE), given local tables: exact item
 * kernels of one-word patterns on bytes in memory order? */
static int stageable(const clm_device *dev, const struct clm_kernel_shape *s)
{
    return dev->little_endian && clm_algo_can(s->algorithm, s->variant, CLM_CAP_STAGE) &&
           !s->k && !s->packed && s->strands <= 1 && s->m <= 64;
}

/* Local memory the staged kernels take on top of the tables (cl/kernels.cl STAGE): the
 * group's region with one padding uint4 per chunk, and the walk's own tables. */
static size_t stage_bytes(const struct clm_kernel_shape *s, unsigned wg, unsigned chunk)
{
    return ((size_t)wg + 1) * (chunk / 16 + 1) * 16 + clm_algo(s->algorithm)->stage_bytes(s);
}

/* Staging (cl/kernels.cl STAGE): exact dfa and one-word bitap item kernels with their tables
 * in local memory read each whole work-group region through local memory. Where the caller
 * left them open, the geometry is the one measured best with staging on the H200: 128 bytes
 * per item (bitap: 2.63 vs 2.58-2.61 TB/s with 256 at m = 8-16, bench/results/h200-k; with
 * the prefix walks 256 lost at every m, h200-l), at least 4 (m - 1) for a walk of a whole
 * pattern longer than 32 so the re-read tail stays small; with prefetch (only for chunks of
 * at most 8 uint4s: at m = 64, 256-byte chunks, it lost, 1.84-1.86 vs 1.90-1.94 TB/s for bitap)
 * work-groups of at most 128 (bitap: 2.81 vs 2.73-2.75 with 256); the work-group is halved
 * until the region fits in local memory. */
static void choose_stage(const clm_device *dev, struct clm_kernel_shape *s,
                         const clm_compile_options *o)
{
    s->stage = 0;
    s->dfa_col = 0;
    s->stage_prefix = 0;
    s->stage_groups = 0;
    s->stage_prefetch = 0;
    if (!stage_wanted(dev, s->algorithm, o->staging) || s->table_memory != CLM_TABLE_LOCAL ||
        !stageable(dev, s))
        return;
    /* chunk open: neither the options nor a profile or CLMATCH_TUNE set it. The work-group
     * may be halved unless the options fixed it (wg_as_tuning: clmatch-tune's sizes, taken
     * as its profile's will be): a profile's size, measured at m = 13 and 32, must not turn
     * staging off for a longer pattern (H200, m = 64 with a profile's wg=256: 1.43 unstaged
     * vs 1.90 TB/s staged with 128). */
    clm_tuning_source csrc = CLM_TUNING_DEFAULT;
    clm_tune_get(dev, s->algorithm, CLM_KNOB_CHUNK, &csrc);
    int wg_open = !o->work_group_size || o->wg_as_tuning;
    int chunk_open = !o->bytes_per_item && csrc <= CLM_TUNING_BUILTIN;
    unsigned wg = s->wg, chunk = s->chunk, prefix = clm_stage_prefix(s);
    if (chunk_open && dev->info.type != CLM_DEVICE_CPU) {
        /* past 32 a walk of the whole pattern (no prefix walk) keeps its tail small */
        int whole_walk = s->m > 32 && !prefix;
        unsigned need = whole_walk ? (unsigned)clm_round_up(4 * (s->m - 1), 16) : 0;
        chunk = need > 128u ? need : 128u;
    }
    if (16 * ((s->m + 14) / 16) > chunk) /* the tail must come from the next chunk */
        return;
    int prefetch = switch_wanted(dev, s->algorithm, o->prefetch, CLM_KNOB_PREFETCH) &&
                   chunk <= 128;
    if (prefetch && wg_open && wg > CLM_PREFETCH_WG_MAX)
        wg = CLM_PREFETCH_WG_MAX;
    size_t budget = local_budget(dev), tables = table_bytes(s);
    while (tables + stage_bytes(s, wg, chunk) > budget) {
        if (!wg_open || wg <= 16)
            return;
        wg /= 2;
    }
    const struct clm_algo *a = clm_algo(s->algorithm);
    s->stage = 1;
    s->stage_prefetch = prefetch;
    s->stage_prefix = prefix;
    if (a->stage_shape)
        a->stage_shape(s);
    s->stage_groups = o->groups_per_unit
                          ? o->groups_per_unit
                          : (unsigned)clm_tune_get(dev, s->algorithm, CLM_KNOB_GROUPS, NULL);
    s->wg = wg;
    s->chunk = chunk;
    s->span = wg * chunk;
}

/* Bytes per load of the unstaged range reads (cl/common.cl LOAD16): the option, else the
 * tuning's vec for the algorithm; 0 for kernels that read single bytes (naive, bmh, witness
 * and bitap reduce read bytes; packed text and big-endian devices are read otherwise). */
static unsigned choose_vec(const clm_device *dev, const struct clm_kernel_shape *s,
                           unsigned option)
{
    if (!clm_algo_can(s->algorithm, s->variant, CLM_CAP_BLOCKS) || !dev->little_endian ||
        s->packed)
        return 0;
    return option ? option : (unsigned)clm_tune_get(dev, s->algorithm, CLM_KNOB_VEC, NULL);
}

/* Tables: on devices with on-chip local memory, tables looked up per byte (dfa, bitap) ->
 * local; the others (threads mostly read the same entries, which constant memory broadcasts)
 * -> constant; each falls back to the other, then global. Devices without on-chip local
 * memory (CPUs): global (caches serve it; a copy to emulated local memory only costs time),
 * unless staging is asked for a kernel that has it: it reads its tables from local memory. */
static clm_table_memory auto_table(const clm_device *dev, const struct clm_kernel_shape *s,
                                   clm_switch staging)
{
    if (!dev->info.local_mem_dedicated)
        return stage_wanted(dev, s->algorithm, staging) && stageable(dev, s) &&
                       fits(dev, s, CLM_TABLE_LOCAL)
                   ? CLM_TABLE_LOCAL
                   : CLM_TABLE_GLOBAL;
    if (clm_algo_can(s->algorithm, s->variant, CLM_CAP_WALK))
        return fits(dev, s, CLM_TABLE_LOCAL) ? CLM_TABLE_LOCAL : CLM_TABLE_GLOBAL;
    static const clm_table_memory scattered[] = {CLM_TABLE_LOCAL, CLM_TABLE_CONSTANT};
    static const clm_table_memory shared[] = {CLM_TABLE_CONSTANT, CLM_TABLE_LOCAL};
    const clm_table_memory *order =
        clm_algo_can(s->algorithm, s->variant, CLM_CAP_LOOKUP) ? scattered : shared;
    for (int i = 0; i < 2; i++)
        if (fits(dev, s, order[i]))
            return order[i];
    return CLM_TABLE_GLOBAL;
}

/* ---- shapes ------------------------------------------------------------------------------ */

/* Table sizes and launch geometry of one engine: the common part, then the algorithm's. */
static void shape_tables(struct clm_kernel_shape *s, const clm_device *dev,
                         const struct clm_pattern_facts *f, unsigned wg, unsigned bytes_per_item)
{
    s->m = (unsigned)f->m;
    s->sigma = 1;
    s->tab_elem = 2;
    s->words = 1;
    s->pi = s->gs = 1;
    s->halo = 0;
    s->wg = wg;
    s->span = 0;
    size_t overlap = f->m - 1 + s->lead;
    size_t chunk = bytes_per_item ? bytes_per_item
                                  : (size_t)clm_tune_get(dev, s->algorithm, CLM_KNOB_CHUNK, NULL);
    if (!bytes_per_item && chunk < 4 * overlap) /* keep the re-read overlap under ~25% */
        chunk = 4 * overlap;
    clm_algo(s->algorithm)->shape(s, dev, f, &chunk, bytes_per_item != 0);
    s->chunk = (unsigned)clm_round_up(chunk ? chunk : 16, 16);
    if (!s->span) /* the algorithm's own geometry, else chunks of match starts */
        s->span = wg * s->chunk;
}

/* ---- loop budget (clm_device.loop_budget: Mesa's llvmpipe) ------------------------------ */

/* The most loop passes a work-item of shape s makes for `chunk` starts (its algorithm's
 * count, plus the table copy into local memory: (PAT_LEN + TAB_LEN) / WG). Unstaged item
 * kernels of exact search on bytes in memory order, which is what the budget is checked for
 * (fit_loop_budget). */
static size_t loop_passes(const clm_device *dev, const struct clm_kernel_shape *s, size_t chunk)
{
    size_t tables =
        s->table_memory == CLM_TABLE_LOCAL ? (s->pat_len + s->tab_len) / s->wg + 2 : 0;
    return tables + clm_algo(s->algorithm)->loop_passes(s, chunk, chunk + s->m - 1 + s->lead,
                                                         dev->loop_lanes);
}

/* Does a shape fit the device's loop budget with its smallest range (16 starts per
 * work-item)? */
static int loop_budget_fits(const clm_device *dev, const struct clm_kernel_shape *s)
{
    return !dev->loop_budget || loop_passes(dev, s, 16) <= dev->loop_budget;
}

/* Keep a kernel's loop passes within the device's budget (0: none): the shape's chunk, else
 * the largest multiple of 16 that fits (a user's bytes_per_item too: past the budget the
 * device would drop matches); CLM_E_PATTERN_TOO_LONG where not even 16 does. Staged kernels
 * walk one region per work-group under a budget (pass.c); the group variants' work-groups
 * scan WG starts each. */
static int fit_loop_budget(const clm_device *dev, struct clm_kernel_shape *s, size_t index)
{
    const size_t budget = dev->loop_budget;
    if (!budget || s->variant != CLM_VARIANT_ITEM || s->stage ||
        loop_passes(dev, s, s->chunk) <= budget)
        return CLM_OK;
    if (!loop_budget_fits(dev, s)) {
        struct clm_kernel_shape shorter = *s;
        while (shorter.m > 1 && !loop_budget_fits(dev, &shorter))
            --shorter.m;
        /* not even one symbol fits: the length is not the cause, the work at one place is
         * (kmer: a bucket of many patterns sharing a q-gram, each verified) */
        if (!loop_budget_fits(dev, &shorter))
            return clm_fail(CLM_E_UNSUPPORTED,
                            "%s: the work one place of the text may take with these patterns "
                            "passes the %zu loop passes a work-item makes on %s (Mesa's "
                            "llvmpipe leaves every loop past them); %s",
                            clm_algorithm_name(s->algorithm), budget, dev->info.name,
                            s->algorithm != CLM_ALGO_AHO && clm_algo(s->algorithm)->group > 1
                                ? "aho can (CLM_ALGO_AHO, --algorithm aho)"
                                : "search fewer patterns per database");
        return clm_fail(CLM_E_PATTERN_TOO_LONG,
                        "%s handles patterns up to %u symbols on %s, where a work-item makes "
                        "at most %zu loop passes (Mesa's llvmpipe leaves every loop past "
                        "them); pattern %zu has %u; dfa can (CLM_ALGO_DFA, --algorithm dfa)",
                        clm_algorithm_name(s->algorithm), shorter.m, dev->info.name, budget,
                        index, s->m);
    }
    /* the passes grow by a fixed number per byte of chunk */
    size_t base = loop_passes(dev, s, 0), per_byte = loop_passes(dev, s, 1) - base;
    s->chunk = (unsigned)((budget - base) / per_byte / 16 * 16);
    s->span = s->wg * s->chunk;
    return CLM_OK;
}

/* ---- the automatic choice (docs/design.md "Automatic choice") ---------------------------- */

static int dfa_fits_fast(const clm_device *dev, const struct clm_plan *plan)
{
    struct clm_kernel_shape s;
    struct clm_pattern_facts f = {.m = plan->longest, .classes = plan->most_classes, .period = 1};
    memset(&s, 0, sizeof s);
    s.algorithm = CLM_ALGO_DFA;
    shape_tables(&s, dev, &f, 64, 0);
    size_t limit = dev->info.local_mem_dedicated ? local_budget(dev) : (size_t)1 << 20;
    return table_bytes(&s) <= limit;
}

static clm_algorithm auto_algorithm(const clm_device *dev, const struct clm_plan *plan,
                                    unsigned k, clm_switch staging, char *why, size_t why_cap)
{
    size_t m = plan->longest;
    if (!plan->literal || k > 0) {
        snprintf(why, why_cap, "auto: %s needs bitap",
                 k > 0 ? "approximate search" : "a pattern with classes");
        return CLM_ALGO_BITAP;
    }
    /* On CPUs, 64 starts a step compared with a few rare pattern bytes as vectors (cl/simd.cl)
     * leaves the automata behind: only verification reads every byte. Not under a loop budget
     * (llvmpipe), where its worst case (every start verified) would shrink the ranges. */
    if (dev->info.type == CLM_DEVICE_CPU && !dev->loop_budget && m <= CLM_SIMD_MAX_LENGTH) {
        snprintf(why, why_cap, "auto: exact, m=%zu <= %u on a CPU: simd", m,
                 CLM_SIMD_MAX_LENGTH);
        return CLM_ALGO_SIMD;
    }
    /* On CPUs the one-word shift-and keeps its state in a register and beats the DFA's
     * table walk 2.5-3x (bench/results/h200-a: 15-21 vs 6-7 GB/s on 16-core PoCL). */
    if (dev->info.type == CLM_DEVICE_CPU && m <= 64) {
        snprintf(why, why_cap, "auto: exact, m=%zu fits one 64-bit word on a CPU: bitap", m);
        return CLM_ALGO_BITAP;
    }
    /* GPUs with staging (cl/kernels.cl STAGE): the one-word bitap (prefetching) measured
     * 1.04-1.10x the staged DFA for m = 4-16 on the H200 (2.55-2.83 vs 2.30-2.69 TB/s) and,
     * with its shift as a multiply (cl/bitap.cl STAGE_DOUBLE), 1.03-1.04x at m = 24 and 32
     * (2.75-2.77 vs 2.65-2.68); past 32 the DFA's prefix walk leads (m = 64: 2.63-2.66 vs
     * 2.57-2.59; bench/experiments "Staging, sixth round"). */
    if (stage_wanted(dev, CLM_ALGO_BITAP, staging) && dev->little_endian &&
        dev->info.local_mem_dedicated && m <= 32) {
        snprintf(why, why_cap, "auto: exact, m=%zu <= 32 with staging in local memory: bitap",
                 m);
        return CLM_ALGO_BITAP;
    }
    /* Else the DFA. BMH is faster on DNA when m >= 8 (1.2-1.5x, 2.9x when the pattern's
     * letters are absent from the text) but falls to 1-12 GB/s on periodic text (a...a),
     * where the DFA keeps ~1 TB/s: auto takes the Theta(n) worst case. */
    if (dfa_fits_fast(dev, plan)) {
        snprintf(why, why_cap,
                 "auto: exact, the DFA table (m=%zu, %u symbols) fits in %s memory: dfa", m,
                 plan->most_classes, dev->info.local_mem_dedicated ? "local" : "cache");
        return CLM_ALGO_DFA;
    }
    /* KMP's fail table (2 bytes per symbol) fits where the DFA's did not; witness duels
     * measured 2-6x slower than KMP (bench/results/h200-a, long-256/1000). On a device with
     * a loop budget too small for KMP's fail loops the DFA's walk (no inner loop) stays. */
    struct clm_kernel_shape kmp;
    struct clm_pattern_facts f = {.m = m, .classes = plan->most_classes, .period = 1};
    memset(&kmp, 0, sizeof kmp);
    kmp.algorithm = CLM_ALGO_KMP;
    shape_tables(&kmp, dev, &f, 16, 0);
    if (!loop_budget_fits(dev, &kmp)) {
        snprintf(why, why_cap,
                 "auto: exact, m=%zu: kmp would exceed the device's loop budget, dfa does not",
                 m);
        return CLM_ALGO_DFA;
    }
    snprintf(why, why_cap, "auto: exact, m=%zu too long for a fast DFA table: kmp", m);
    return CLM_ALGO_KMP;
}

/* From this many exact patterns on, one Aho-Corasick pass instead of a pass per pattern (and
 * from this many DNA patterns with mismatches, one hamming pass). */
#ifndef AHO_MIN_PATTERNS
#define AHO_MIN_PATTERNS 2u
#endif

/* Patterns with symbol sets go to aho as their literal variants while these are few: on
 * average at most this many a pattern, and a table of at most this many bytes at worst (a
 * state per variant byte). Beyond, a pass per pattern may well be faster; a guess until
 * measured. */
#define AHO_SETS_MEAN 64u
#define AHO_SETS_TABLE ((size_t)64 << 20)

static int aho_expands(const struct clm_plan *plan)
{
    size_t entries, bytes;
    unsigned classes;
    if (clm_aho_variants(plan->sym, plan->n_sym, &entries, &bytes, &classes) != CLM_OK) {
        clm_clear_error();
        return 0;
    }
    return entries <= (size_t)AHO_SETS_MEAN * plan->n_sym &&
           bytes <= AHO_SETS_TABLE / 4 / classes;
}

static void choose_algorithm(clm_database *db, const struct clm_plan *plan)
{
    const clm_compile_options *o = plan->o;
    int dna = (o->flags & CLM_DNA) != 0;
    db->algorithm = o->algorithm;
    if (db->algorithm != CLM_ALGO_AUTO)
        snprintf(db->choice, sizeof db->choice, "requested %s",
                 clm_algorithm_name(db->algorithm));
    else if (o->variant == CLM_VARIANT_REDUCE || o->variant == CLM_VARIANT_SUBGROUP) {
        db->algorithm = clm_algo_with(CLM_CAP_REDUCE)->id; /* the only one with those */
        snprintf(db->choice, sizeof db->choice, "auto: the %s variant is %s's",
                 clm_variant_name(o->variant), clm_algorithm_name(db->algorithm));
    } else if (!plan->literal && db->k == 0 && db->caller_count >= AHO_MIN_PATTERNS &&
               aho_expands(plan)) {
        db->algorithm = CLM_ALGO_AHO;
        snprintf(db->choice, sizeof db->choice,
                 "auto: %u exact patterns with symbol sets: aho searches their literal "
                 "variants in one pass", db->caller_count);
    } else if (dna && !plan->literal && db->k == 0) {
        db->algorithm = CLM_ALGO_BITAP; /* plain bases choose as literals do */
        snprintf(db->choice, sizeof db->choice, "auto: %s needs bitap",
                 (o->flags & CLM_DEGENERATE_TEXT) ? "CLM_DEGENERATE_TEXT"
                                                  : "a degenerate IUPAC code");
    } else if (plan->literal && db->k == 0 && db->caller_count >= AHO_MIN_PATTERNS &&
               !db->dev->loop_budget &&
               clm_kmer_suits(plan->sym, plan->n_sym, (o->flags & CLM_CASELESS) != 0)) {
        db->algorithm = CLM_ALGO_KMER;
        snprintf(db->choice, sizeof db->choice,
                 "auto: %u exact DNA patterns of %zu bases or more: kmer tests a sampled "
                 "q-gram every few bytes", db->caller_count, db->min_len);
    } else if (plan->literal && db->k == 0 && db->caller_count >= AHO_MIN_PATTERNS) {
        db->algorithm = CLM_ALGO_AHO;
        snprintf(db->choice, sizeof db->choice,
                 "auto: %u exact patterns: aho searches them all in one pass",
                 db->caller_count);
    } else if (dna && db->k > 0 && (o->flags & CLM_MISMATCHES_ONLY) &&
               (db->caller_count >= AHO_MIN_PATTERNS || db->exact_head || db->exact_tail) &&
               db->k <= CLM_HAMMING_MAX_ERRORS &&
               plan->longest <= CLM_HAMMING_MAX_LENGTH &&
               clm_hamming_fits(db->dev, plan->sym, plan->n_sym)) {
        db->algorithm = CLM_ALGO_HAMMING;
        snprintf(db->choice, sizeof db->choice,
                 "auto: %u DNA patterns with up to %u mismatches: hamming compares them all in "
                 "one pass", db->caller_count, db->k);
    } else
        db->algorithm = auto_algorithm(db->dev, plan, db->k, o->staging, db->choice,
                                       sizeof db->choice);
    db->variant = o->variant == CLM_VARIANT_AUTO ? CLM_VARIANT_ITEM : o->variant;
}

/* What the algorithm/variant can do with these patterns and options. */
static int check_capabilities(const clm_database *db, const struct clm_plan *plan)
{
    const struct clm_algo *a = clm_algo(db->algorithm);
    const char *name = a->name;
    const char *classes = clm_algo_with(CLM_CAP_CLASSES)->name;
    if (!plan->literal && !(a->caps & CLM_CAP_CLASSES))
        return clm_fail(CLM_E_UNSUPPORTED,
                        (db->flags & CLM_DNA)
                            ? "%s cannot search degenerate IUPAC codes (or CLM_DEGENERATE_TEXT), "
                              "only plain bases; %s can (CLM_ALGO_BITAP, --algorithm bitap)"
                            : "%s cannot search character classes; %s can (CLM_ALGO_BITAP, "
                              "--algorithm bitap)",
                        name, classes);
    int mismatches = (a->caps & CLM_CAP_MISMATCHES) && (db->flags & CLM_MISMATCHES_ONLY);
    if (db->k > 0 && !(a->caps & CLM_CAP_ERRORS) && !mismatches)
        return clm_fail(CLM_E_UNSUPPORTED,
                        (a->caps & CLM_CAP_MISMATCHES)
                            ? "%s counts mismatches only (CLM_MISMATCHES_ONLY, -m K); %s "
                              "searches with insertions and deletions (CLM_ALGO_BITAP, "
                              "--algorithm bitap)"
                            : "%s cannot search with errors; %s can (CLM_ALGO_BITAP, "
                              "--algorithm bitap)",
                        name, clm_algo_with(CLM_CAP_ERRORS)->name);
    if ((db->exact_head || db->exact_tail) && !(a->caps & CLM_CAP_EXACT_ENDS))
        return clm_fail(CLM_E_UNSUPPORTED,
                        "%s cannot keep the patterns' ends exact (exact_head, exact_tail); "
                        "hamming can (CLM_ALGO_HAMMING, --algorithm hamming)", name);
    if (mismatches && a->max_errors && db->k > a->max_errors)
        return clm_fail(CLM_E_UNSUPPORTED,
                        "%s counts up to %u mismatches, not %u; %s counts more (CLM_ALGO_BITAP, "
                        "--algorithm bitap)",
                        name, a->max_errors, db->k, clm_algo_with(CLM_CAP_ERRORS)->name);
    int grouped = db->variant == CLM_VARIANT_REDUCE || db->variant == CLM_VARIANT_SUBGROUP;
    if (grouped && !(a->caps & CLM_CAP_REDUCE))
        return clm_fail(CLM_E_UNSUPPORTED, "%s has no %s variant (only item); %s has", name,
                        clm_variant_name(db->variant), clm_algo_with(CLM_CAP_REDUCE)->name);
    if (plan->longest > a->max_length)
        return clm_fail(CLM_E_PATTERN_TOO_LONG,
                        "%s handles patterns up to %u symbols; this one has %zu%s", name,
                        a->max_length, plan->longest,
                        plan->literal && db->k == 0
                            ? " (exact search: dfa, kmp, bmh or witness can)"
                            : "");
    if (grouped && (db->k > 0 || plan->longest > 64))
        return clm_fail(CLM_E_UNSUPPORTED,
                        "the %s %s variant does exact search of patterns up to 64 symbols; use "
                        "variant item (CLM_VARIANT_ITEM, --variant item)",
                        name, clm_variant_name(db->variant));
    if (db->variant == CLM_VARIANT_SUBGROUP)
        return clm_fail(CLM_E_UNSUPPORTED,
                        "the %s subgroup variant is not implemented (of the devices measured, "
                        "only PoCL has sub-group shuffles, and there the per-item variant is "
                        "faster); on %s use variant reduce (CLM_VARIANT_REDUCE, --variant "
                        "reduce), its local-memory form, or item",
                        name, db->dev->info.name);
    return CLM_OK;
}

/* ---- packing and strands ------------------------------------------------------------------ */

/* Packing keeps 2 bits per base and whether the byte was a base, so every symbol set must be
 * bases of one case (-> *pack_case 0 upper, 1 lower), or of both cases with CLM_CASELESS
 * (2). Returns 0 when some set holds anything else. */
static int packable(const struct clm_symbols *sym, unsigned n, int caseless, unsigned *pack_case)
{
    uint8_t upper[32] = {0}, lower[32] = {0}, any[32] = {0};
    for (const char *b = "ACGT"; *b; b++) {
        upper[*b >> 3] |= (uint8_t)(1u << (*b & 7));
        lower[(*b | 0x20) >> 3] |= (uint8_t)(1u << ((*b | 0x20) & 7));
    }
    for (unsigned i = 0; i < n; i++)
        for (size_t j = 0; j < sym[i].m; j++)
            for (int w = 0; w < 32; w++)
                any[w] |= sym[i].sets[j][w];
    int in_upper = 1, in_lower = 1, in_both = 1;
    for (int w = 0; w < 32; w++) {
        in_upper &= (any[w] & ~upper[w]) == 0;
        in_lower &= (any[w] & ~lower[w]) == 0;
        in_both &= (any[w] & ~(upper[w] | lower[w])) == 0;
    }
    *pack_case = caseless ? 2 : in_upper ? 0 : 1;
    return caseless ? in_both : in_upper || in_lower;
}

/* Packing, first rule that applies: the options' CLM_OFF refuses it, CLMATCH_PACKED=off (or
 * CLM_PACKED=...) refuses it, CLMATCH_PACKED=on asks for it, the options' CLM_ON asks for it;
 * else off (slower where measured). */
static int packing_wanted(clm_switch packing)
{
    const char *v = clm_env(CLM_ENV_PACKED);
    if (!v || !*v)
        v = clm_env(CLM_ENV_PACKED_OLD);
    if (packing == CLM_OFF)
        return 0;
    if (v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0))
        return 0;
    if (v && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0))
        return 1;
    return packing == CLM_ON;
}

/* One pass over both strands: the symbols of pattern f, empty sets up to the next word, then
 * those of its reverse complement r, so one class map serves both and the masks of a
 * class are W words of f then W words of r. */
static int join_strands(const struct clm_symbols *f, const struct clm_symbols *r, unsigned words,
                        struct clm_symbols *out)
{
    memset(out, 0, sizeof *out);
    out->m = (size_t)64 * words + r->m;
    out->sets = calloc(out->m, sizeof *out->sets);
    if (!out->sets)
        return clm_fail(CLM_E_NOMEM, "out of memory building both strands' tables");
    memcpy(out->sets, f->sets, f->m * sizeof *f->sets);
    memcpy(out->sets + (size_t)64 * words, r->sets, r->m * sizeof *r->sets);
    return CLM_OK;
}

/* ---- engines --------------------------------------------------------------------------- */

/* The slots of the search: with both strands in one pass the reverse complements ride in
 * their patterns' engines (bit 31 of a match's info), else they are slots of their own. */
static void choose_strands(clm_database *db, const struct clm_plan *plan)
{
    int both = (db->flags & CLM_BOTH_STRANDS) != 0, dna = (db->flags & CLM_DNA) != 0;
    db->ends = (clm_algo(db->algorithm)->caps & CLM_CAP_ENDS) != 0;
    db->one_pass = both && clm_algo_can(db->algorithm, db->variant, CLM_CAP_STRANDS);
    db->slots = db->one_pass ? db->caller_count : plan->n_sym;
    unsigned pack_case = 0;
    /* the kernels that read through FOR_EACH_BYTE; unpacking assumes little-endian loads */
    db->packed = dna && db->dev->little_endian && packing_wanted(plan->o->packing) &&
                 clm_algo_can(db->algorithm, db->variant, CLM_CAP_PACKED) &&
                 packable(plan->sym, plan->n_sym, (db->flags & CLM_CASELESS) != 0, &pack_case);
    db->pack_case = pack_case;
}

/* The facts of engine e's patterns: the longest, the most classes, the shortest period. */
static struct clm_pattern_facts engine_facts(const struct clm_plan *plan, const struct clm_engine *e)
{
    struct clm_pattern_facts f = plan->facts[e->first];
    for (unsigned i = 1; i < e->count; i++) {
        const struct clm_pattern_facts *g = &plan->facts[e->first + i];
        f.m = g->m > f.m ? g->m : f.m;
        f.classes = g->classes > f.classes ? g->classes : f.classes;
        f.period = g->period < f.period ? g->period : f.period;
    }
    return f;
}

const struct clm_symbols *clm_plan_symbols(const struct clm_plan *plan, const clm_database *db,
                                           unsigned e)
{
    return plan->joined && plan->joined[e].m ? &plan->joined[e]
                                             : &plan->sym[db->engines[e].first];
}

/* Shape engine e's kernel: its facts, the algorithm's tables, table memory, staging, loads. */
static int shape_engine(clm_database *db, struct clm_plan *plan, unsigned e, unsigned wg)
{
    const clm_compile_options *o = plan->o;
    clm_device *dev = db->dev;
    struct clm_engine *en = &db->engines[e];
    struct clm_kernel_shape *s = &en->shape;
    const struct clm_algo *a = clm_algo(db->algorithm);
    int rc = CLM_OK;
    s->algorithm = db->algorithm;
    s->variant = db->variant;
    s->caseless = (db->flags & CLM_CASELESS) != 0;
    s->k = db->k;
    s->hamming = db->k > 0 && (db->flags & CLM_MISMATCHES_ONLY);
    s->lead = (unsigned)db->lead;
    s->packed = db->packed;
    s->pack_case = db->packed ? db->pack_case : 0;
    s->strands = db->one_pass ? 2 : 1;
    s->line_first = (db->flags & CLM_LINES) && s->algorithm == CLM_ALGO_AHO;
    struct clm_pattern_facts f = engine_facts(plan, en);
    f.exact_head = db->exact_head;
    f.exact_tail = db->exact_tail;
    f.rc_from = db->caller_count > en->first ? db->caller_count - en->first : 0;
    if (db->one_pass) /* the pattern, then its reverse complement (slot + caller_count) */
        rc = join_strands(&plan->sym[en->first], &plan->sym[db->caller_count + en->first],
                          (unsigned)((f.m + 63) / 64), &plan->joined[e]);
    if (rc == CLM_OK && a->facts)
        rc = a->facts(clm_plan_symbols(plan, db, e), en->count, s->strands, s->caseless, &f,
                      &plan->built[e]);
    if (rc != CLM_OK)
        return rc;
    shape_tables(s, dev, &f, wg, o->bytes_per_item);
    /* asked for local memory, a table that can be split and is too large for it keeps its
     * head there and the rest in global memory (auto does not: it measured slower on the
     * H200 in all but one of 14 sets, bench/experiments/aho-split.md) */
    int split = 0;
    s->table_memory = o->table_memory;
    if (s->table_memory == CLM_TABLE_AUTO)
        s->table_memory = auto_table(dev, s, o->staging);
    else if (a->split && s->table_memory == CLM_TABLE_LOCAL && !fits(dev, s, s->table_memory)) {
        s->table_memory = CLM_TABLE_GLOBAL;
        split = 1;
    } else if (!fits(dev, s, s->table_memory))
        return unsupported_table(dev, s, s->table_memory, en->first % db->caller_count);
    if (a->split && split) {
        clm_tuning_source csrc = CLM_TUNING_DEFAULT;
        clm_tune_get(dev, s->algorithm, CLM_KNOB_CHUNK, &csrc);
        a->split(s, &f, local_budget(dev), o->bytes_per_item || csrc > CLM_TUNING_BUILTIN);
    }
    choose_stage(dev, s, o);
    s->vec = choose_vec(dev, s, o->vector_width);
    return fit_loop_budget(dev, s, en->first % db->caller_count);
}

/* The pattern table: every slot's id, strand and length (compile.c adds the symbol sets
 * approximate search needs, once the tables are built from them). */
static int fill_patterns(clm_database *db, struct clm_plan *plan)
{
    db->pats = calloc(db->slots, sizeof *db->pats);
    if (!db->pats)
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    for (unsigned i = 0; i < db->slots; i++) {
        struct clm_pattern *p = &db->pats[i];
        unsigned caller = i % db->caller_count;
        p->id = plan->ids ? plan->ids[caller] : caller;
        p->strand = i < db->caller_count ? 1 : -1;
        p->m = plan->sym[i].m;
    }
    return CLM_OK;
}

/* Group the slots into engines: runs of at most the algorithm's group size. */
static int group_engines(clm_database *db)
{
    unsigned group = clm_algo(db->algorithm)->group;
    db->engine_count = (db->slots + group - 1) / group;
    db->engines = calloc(db->engine_count, sizeof *db->engines);
    if (!db->engines)
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    for (unsigned e = 0; e < db->engine_count; e++) {
        struct clm_engine *en = &db->engines[e];
        en->first = e * group;
        en->count = db->slots - en->first < group ? db->slots - en->first : group;
        en->min_m = SIZE_MAX;
        for (unsigned i = 0; i < en->count; i++)
            if (db->pats[en->first + i].m < en->min_m)
                en->min_m = db->pats[en->first + i].m;
    }
    return CLM_OK;
}

int clm_choose(clm_database *db, struct clm_plan *plan)
{
    choose_algorithm(db, plan);
    int rc = check_capabilities(db, plan);
    if (rc != CLM_OK)
        return rc;
    choose_strands(db, plan);
    db->indels = db->k > 0 && !(db->flags & CLM_MISMATCHES_ONLY);
    db->lead = db->indels ? db->k : 0;
    db->min_match = db->indels ? db->min_len - db->k : db->min_len;
    if ((rc = fill_patterns(db, plan)) != CLM_OK || (rc = group_engines(db)) != CLM_OK)
        return rc;
    if ((db->one_pass && !(plan->joined = calloc(db->engine_count, sizeof *plan->joined))) ||
        !(plan->built = calloc(db->engine_count, sizeof *plan->built)))
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    unsigned wg = plan->o->work_group_size
                      ? plan->o->work_group_size
                      : (unsigned)clm_tune_get(db->dev, db->algorithm, CLM_KNOB_WG, NULL);
    for (unsigned e = 0; e < db->engine_count && rc == CLM_OK; e++)
        rc = shape_engine(db, plan, e, wg);
    if (rc == CLM_OK) /* a split table is read from local memory first */
        db->table_memory = db->engines[0].shape.aho_hot ? CLM_TABLE_LOCAL
                                                         : db->engines[0].shape.table_memory;
    return rc;
}

void clm_plan_free(struct clm_plan *plan, const clm_database *db)
{
    for (unsigned e = 0; plan->joined && e < db->engine_count; e++)
        free(plan->joined[e].sets);
    free(plan->joined);
    const struct clm_algo *a = clm_algo(db->algorithm);
    for (unsigned e = 0; plan->built && e < db->engine_count; e++)
        if (plan->built[e] && a && a->release)
            a->release(plan->built[e]);
    free(plan->built);
    for (unsigned i = 0; plan->sym && i < plan->n_sym; i++)
        clm_symbols_free(&plan->sym[i]);
    free(plan->sym);
    free(plan->facts);
    memset(plan, 0, sizeof *plan);
}
