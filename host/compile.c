/* Compiling patterns into a database: parse them, choose algorithm, variant and table
 * memory, build the tables, get the kernel program, upload the tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *clm_version(void)
{
    return CLM_VERSION_STRING;
}

static const char *const algorithm_names[] = {"auto", "naive", "kmp",    "dfa",
                                              "bitap", "bmh",  "witness"};
static const char *const table_names[] = {"auto", "global", "local", "constant"};
static const char *const variant_names[] = {"auto", "item", "reduce", "subgroup"};
#define N_ALGORITHMS 7u

static int name_lookup(const char *const *names, unsigned n, const char *name, unsigned *out)
{
    for (unsigned i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return *out = i, CLM_OK;
    return CLM_E_INVALID;
}

const char *clm_algorithm_name(clm_algorithm a)
{
    return (unsigned)a < N_ALGORITHMS ? algorithm_names[a] : "?";
}

const char *clm_table_memory_name(clm_table_memory m)
{
    return (unsigned)m < 4 ? table_names[m] : "?";
}

const char *clm_variant_name(clm_variant v)
{
    return (unsigned)v < 4 ? variant_names[v] : "?";
}

int clm_algorithm_from_name(const char *name, clm_algorithm *out)
{
    unsigned i;
    if (out && name_lookup(algorithm_names, N_ALGORITHMS, name, &i) == CLM_OK)
        return *out = (clm_algorithm)i, CLM_OK;
    return clm_fail(CLM_E_INVALID,
                    "unknown algorithm '%s' (known: auto, naive, kmp, dfa, bitap, bmh, witness)",
                    name ? name : "(null)");
}

int clm_table_memory_from_name(const char *name, clm_table_memory *out)
{
    unsigned i;
    if (out && name_lookup(table_names, 4, name, &i) == CLM_OK)
        return *out = (clm_table_memory)i, CLM_OK;
    return clm_fail(CLM_E_INVALID,
                    "unknown table memory '%s' (known: auto, global, local, constant)",
                    name ? name : "(null)");
}

int clm_variant_from_name(const char *name, clm_variant *out)
{
    unsigned i;
    if (out && name_lookup(variant_names, 4, name, &i) == CLM_OK)
        return *out = (clm_variant)i, CLM_OK;
    return clm_fail(CLM_E_INVALID, "unknown variant '%s' (known: auto, item, reduce, subgroup)",
                    name ? name : "(null)");
}

void clm_compile_options_init(clm_compile_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->algorithm = CLM_ALGO_AUTO;
    opts->table_memory = CLM_TABLE_AUTO;
    opts->variant = CLM_VARIANT_AUTO;
}

/* ---- shapes ---------------------------------------------------------------------------- */

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

static int fits(const clm_device *dev, const struct clm_kernel_shape *s, clm_table_memory mem)
{
    size_t bytes = table_bytes(s);
    switch (mem) {
    case CLM_TABLE_LOCAL: return bytes <= local_budget(dev);
    case CLM_TABLE_CONSTANT: return bytes <= dev->info.constant_mem_bytes;
    default: return 1;
    }
}

/* What one pattern needs to know to shape its kernel. */
struct pattern_facts {
    size_t m;         /* symbols */
    unsigned classes; /* dfa: reduced alphabet size (literal patterns) */
    unsigned bitap_classes;
    size_t period;    /* of the literal bytes */
};

/* Table sizes and launch geometry of one pattern under an algorithm and variant. */
static void shape_tables(struct clm_kernel_shape *s, const clm_device *dev,
                         const struct pattern_facts *f, unsigned wg, unsigned bytes_per_item)
{
    size_t m = f->m;
    s->m = (unsigned)m;
    s->sigma = 1;
    s->tab_elem = 2;
    s->words = 1;
    s->pi = s->gs = 1;
    s->halo = 0;
    s->wg = wg;
    size_t overlap = m - 1 + s->lead;
    size_t chunk = bytes_per_item ? bytes_per_item
                                  : (size_t)clm_tune_get(dev, s->algorithm, CLM_KNOB_CHUNK, NULL);
    if (!bytes_per_item && chunk < 4 * overlap) /* keep the re-read overlap under ~25% */
        chunk = 4 * overlap;
    switch (s->algorithm) {
    case CLM_ALGO_NAIVE:
        s->pat_len = (unsigned)m;
        s->tab_len = 1; /* unused; kept non-empty so every kernel has the same arguments */
        break;
    case CLM_ALGO_KMP:
        s->pat_len = (unsigned)m;
        s->tab_len = (unsigned)m + 1;
        break;
    case CLM_ALGO_DFA:
        /* rows padded to a power of two: cheaper indexing, and patterns with a similar
         * number of distinct bytes share one kernel build */
        s->sigma = clm_next_pow2(f->classes < 2 ? 2 : f->classes);
        s->pat_len = 256;
        s->tab_len = (unsigned)((m + 1) * s->sigma);
        break;
    case CLM_ALGO_BITAP:
        s->words = (unsigned)((m + 63) / 64);
        s->sigma = clm_next_pow2(f->bitap_classes < 2 ? 2 : f->bitap_classes);
        s->pat_len = 256;
        s->tab_len = s->sigma * s->words * (s->strands ? s->strands : 1);
        s->tab_elem = 8;
        if (s->variant == CLM_VARIANT_REDUCE)
            s->halo = clm_next_pow2((unsigned)m) - 1;
        break;
    case CLM_ALGO_BMH:
        s->pat_len = (unsigned)m;
        s->tab_len = 256;
        /* seed 001: a range of m + 32 starts per work-item, so every thread gets a few
         * windows. A chunk tuned for the scanning kernels does not fit it (4096 ran at
         * 0.56x on PoCL): only bytes_per_item or bmh.chunk changes it, as it is (BMH skips,
         * so the overlap rule above does not apply) */
        if (!bytes_per_item) {
            size_t own = (size_t)clm_tune_own(dev, CLM_ALGO_BMH, CLM_KNOB_CHUNK);
            chunk = own ? own : m + 32;
        }
        break;
    case CLM_ALGO_WITNESS: {
        size_t half = (m + 1) / 2;
        s->pi = (unsigned)(f->period < half ? f->period : half);
        s->gs = clm_next_pow2(s->pi);
        /* the duel tree halves GS, and the WG / GS blocks of a group must fill it: GS is at
         * most the largest power of two dividing wg (wg 24 with GS 16 read past dead[]) */
        if (s->gs > (wg & (~wg + 1u)))
            s->gs = wg & (~wg + 1u);
        s->pat_len = (unsigned)m;
        s->tab_len = s->pi;
        break;
    }
    default: break;
    }
    s->chunk = (unsigned)clm_round_up(chunk ? chunk : 16, 16);
    if (s->algorithm == CLM_ALGO_WITNESS)
        s->span = (wg / s->gs) * s->pi;
    else if (s->variant == CLM_VARIANT_REDUCE)
        s->span = wg;
    else
        s->span = wg * s->chunk;
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
static unsigned stage_prefix(const struct clm_kernel_shape *s)
{
    unsigned p = s->algorithm == CLM_ALGO_DFA ? CLM_DFA_STAGE_PREFIX : CLM_BITAP_STAGE_PREFIX;
    return p && s->m > p ? p : 0;
}

/* The columns the staged DFA walks: of its prefix's states when it walks one. */
static unsigned dfa_walk_col(const struct clm_kernel_shape *s)
{
    unsigned prefix = stage_prefix(s);
    return dfa_stage_col(prefix ? prefix : s->m);
}

/* Local memory the staged kernels take on top of the tables (cl/kernels.cl STAGE): the
 * group's region with one padding uint4 per chunk, and the walk's tables: dfa.cl, 256 columns
 * of dfa_stage_col bytes (of the prefix's states, when it walks one), the transitions again
 * (premultiplied) where it has no such columns or walks a prefix; bitap.cl, 256 masks of 4
 * or 8 bytes and one entry more (STAGE_TWO_AT), and 256 of 4 for a prefix walk. */
static size_t stage_bytes(const struct clm_kernel_shape *s, unsigned wg, unsigned chunk)
{
    unsigned prefix = stage_prefix(s), col = dfa_walk_col(s);
    size_t dfa = 256 * (size_t)col + (!col || prefix ? (size_t)s->tab_len * 2 : 0);
    size_t bitap = 257u * (s->m <= 32 ? 4u : 8u) + (prefix ? 256u * 4u : 0);
    size_t table = s->algorithm == CLM_ALGO_DFA ? dfa : bitap;
    return ((size_t)wg + 1) * (chunk / 16 + 1) * 16 + table;
}

/* Is a switch knob on? The flag `off` (first) and the flag `on` of the compile options, else
 * the tuning's value for the algorithm (ALGO.key, else key). */
static int switch_wanted(const clm_device *dev, clm_algorithm algo, unsigned flags,
                         unsigned on, unsigned off, enum clm_knob knob)
{
    if (flags & off)
        return 0;
    if (flags & on)
        return 1;
    return clm_tune_get(dev, algo, knob, NULL) == CLM_TUNE_ON;
}

/* Is staging asked for? CLM_NO_STAGING, CLM_STAGING, else the tuning's stage
 * (CLMATCH_STAGING is one of its sources). */
static int stage_wanted(const clm_device *dev, clm_algorithm algo, unsigned flags)
{
    return switch_wanted(dev, algo, flags, CLM_STAGING, CLM_NO_STAGING, CLM_KNOB_STAGE);
}

/* Has this shape a staged kernel (cl/kernels.cl STAGE), given local tables: exact dfa and
 * one-word bitap item kernels on bytes in memory order? */
static int stageable(const clm_device *dev, const struct clm_kernel_shape *s)
{
    int dfa = s->algorithm == CLM_ALGO_DFA;
    int bitap = s->algorithm == CLM_ALGO_BITAP && s->variant == CLM_VARIANT_ITEM;
    return dev->little_endian && (dfa || bitap) && !s->k && !s->packed && s->strands <= 1 &&
           s->m <= 64;
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
    int dfa = s->algorithm == CLM_ALGO_DFA;
    if (!stage_wanted(dev, s->algorithm, o->flags) || s->table_memory != CLM_TABLE_LOCAL ||
        !stageable(dev, s))
        return;
    /* chunk open: neither the options nor a profile or CLMATCH_TUNE set it. The work-group
     * may be halved unless the options fixed it (CLM_WG_AS_TUNING: clmatch-tune's sizes, taken
     * as its profile's will be): a profile's size, measured at m = 13 and 32, must not turn
     * staging off for a longer pattern (H200, m = 64 with a profile's wg=256: 1.43 unstaged
     * vs 1.90 TB/s staged with 128). */
    clm_tuning_source csrc = CLM_TUNING_DEFAULT;
    clm_tune_get(dev, s->algorithm, CLM_KNOB_CHUNK, &csrc);
    int wg_open = !o->work_group_size || (o->flags & CLM_WG_AS_TUNING);
    int chunk_open = !o->bytes_per_item && csrc <= CLM_TUNING_BUILTIN;
    unsigned wg = s->wg, chunk = s->chunk, prefix = stage_prefix(s);
    if (chunk_open && dev->info.type != CLM_DEVICE_CPU) {
        /* past 32 a walk of the whole pattern (no prefix walk) keeps its tail small */
        int whole_walk = s->m > 32 && !prefix;
        unsigned need = whole_walk ? (unsigned)clm_round_up(4 * (s->m - 1), 16) : 0;
        chunk = need > 128u ? need : 128u;
    }
    if (16 * ((s->m + 14) / 16) > chunk) /* the tail must come from the next chunk */
        return;
    int prefetch = switch_wanted(dev, s->algorithm, o->flags, CLM_PREFETCH, CLM_NO_PREFETCH,
                                 CLM_KNOB_PREFETCH) &&
                   chunk <= 128;
    if (prefetch && wg_open && wg > CLM_PREFETCH_WG_MAX)
        wg = CLM_PREFETCH_WG_MAX;
    size_t budget = local_budget(dev), tables = table_bytes(s);
    while (tables + stage_bytes(s, wg, chunk) > budget) {
        if (!wg_open || wg <= 16)
            return;
        wg /= 2;
    }
    s->stage = 1;
    s->stage_prefetch = prefetch;
    s->stage_prefix = prefix;
    s->dfa_col = dfa ? dfa_walk_col(s) : 0;
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
    int blocks = s->algorithm == CLM_ALGO_KMP || s->algorithm == CLM_ALGO_DFA ||
                 (s->algorithm == CLM_ALGO_BITAP && s->variant == CLM_VARIANT_ITEM);
    if (!blocks || !dev->little_endian || s->packed)
        return 0;
    return option ? option : (unsigned)clm_tune_get(dev, s->algorithm, CLM_KNOB_VEC, NULL);
}

/* ---- the automatic choice (README "Automatic choice") ------------------------------------ */

static int dfa_fits_fast(const clm_device *dev, const struct pattern_facts *f)
{
    struct clm_kernel_shape s;
    memset(&s, 0, sizeof s);
    s.algorithm = CLM_ALGO_DFA;
    shape_tables(&s, dev, f, 64, 0);
    size_t limit = dev->info.local_mem_dedicated ? local_budget(dev) : (size_t)1 << 20;
    return table_bytes(&s) <= limit;
}

static clm_algorithm auto_algorithm(const clm_device *dev, const struct pattern_facts *worst,
                                    int literal, unsigned k, unsigned flags, char *why,
                                    size_t why_cap)
{
    if (!literal || k > 0) {
        snprintf(why, why_cap, "auto: %s needs bitap",
                 k > 0 ? "approximate search" : "a pattern with classes");
        return CLM_ALGO_BITAP;
    }
    /* On CPUs the one-word shift-and keeps its state in a register and beats the DFA's
     * table walk 2.5-3x (bench/results/h200-a: 15-21 vs 6-7 GB/s on 16-core PoCL). */
    if (dev->info.type == CLM_DEVICE_CPU && worst->m <= 64) {
        snprintf(why, why_cap, "auto: exact, m=%zu fits one 64-bit word on a CPU: bitap",
                 worst->m);
        return CLM_ALGO_BITAP;
    }
    /* GPUs with staging (cl/kernels.cl STAGE): the one-word bitap (prefetching) measured
     * 1.04-1.10x the staged DFA for m = 4-16 on the H200 (2.55-2.83 vs 2.30-2.69 TB/s) and,
     * with its shift as a multiply (cl/bitap.cl STAGE_DOUBLE), 1.03-1.04x at m = 24 and 32
     * (2.75-2.77 vs 2.65-2.68); past 32 the DFA's prefix walk leads (m = 64: 2.63-2.66 vs
     * 2.57-2.59; bench/experiments "Staging, sixth round"). */
    if (stage_wanted(dev, CLM_ALGO_BITAP, flags) && dev->little_endian &&
        dev->info.local_mem_dedicated && worst->m <= 32) {
        snprintf(why, why_cap,
                 "auto: exact, m=%zu <= 32 with staging in local memory: bitap", worst->m);
        return CLM_ALGO_BITAP;
    }
    /* Else the DFA. BMH is faster on DNA when m >= 8 (1.2-1.5x, 2.9x when the pattern's
     * letters are absent from the text) but falls to 1-12 GB/s on periodic text (a...a),
     * where the DFA keeps ~1 TB/s: auto takes the Theta(n) worst case. */
    if (dfa_fits_fast(dev, worst)) {
        snprintf(why, why_cap,
                 "auto: exact, the DFA table (m=%zu, %u symbols) fits in %s memory: dfa",
                 worst->m, worst->classes, dev->info.local_mem_dedicated ? "local" : "cache");
        return CLM_ALGO_DFA;
    }
    /* KMP's fail table (2 bytes per symbol) fits where the DFA's did not; witness duels
     * measured 2-6x slower than KMP (bench/results/h200-a, long-256/1000). */
    snprintf(why, why_cap, "auto: exact, m=%zu too long for a fast DFA table: kmp", worst->m);
    return CLM_ALGO_KMP;
}

/* Tables: on devices with on-chip local memory, dfa and bitap (one lookup per byte,
 * scattered) -> local; kmp, naive, bmh, witness (threads mostly read the same entries, which
 * constant memory broadcasts) -> constant; each falls back to the other, then global.
 * Devices without on-chip local memory (CPUs): global (caches serve it; a copy to emulated
 * local memory only costs time), unless staging is asked for a kernel that has it: it reads
 * its tables from local memory. */
static clm_table_memory auto_table(const clm_device *dev, const struct clm_kernel_shape *s,
                                   unsigned flags)
{
    if (!dev->info.local_mem_dedicated)
        return stage_wanted(dev, s->algorithm, flags) && stageable(dev, s) &&
                       fits(dev, s, CLM_TABLE_LOCAL)
                   ? CLM_TABLE_LOCAL
                   : CLM_TABLE_GLOBAL;
    static const clm_table_memory scattered[] = {CLM_TABLE_LOCAL, CLM_TABLE_CONSTANT};
    static const clm_table_memory shared[] = {CLM_TABLE_CONSTANT, CLM_TABLE_LOCAL};
    int lookup = s->algorithm == CLM_ALGO_DFA || s->algorithm == CLM_ALGO_BITAP;
    const clm_table_memory *order = lookup ? scattered : shared;
    for (int i = 0; i < 2; i++)
        if (fits(dev, s, order[i]))
            return order[i];
    return CLM_TABLE_GLOBAL;
}

/* ---- tables ---------------------------------------------------------------------------- */

static void free_engines(struct clm_engine *e, unsigned n)
{
    for (unsigned i = 0; e && i < n; i++) {
        if (e[i].program)
            clReleaseProgram(e[i].program);
        if (e[i].pat_buf)
            clReleaseMemObject(e[i].pat_buf);
        if (e[i].tab_buf)
            clReleaseMemObject(e[i].tab_buf);
        free(e[i].sets);
        free(e[i].rc_sets);
    }
    free(e);
}

/* ---- live databases ------------------------------------------------------------------- */

/* Every database clm_compile returned and clm_database_free has not freed yet, each with a
 * serial never given twice: a scratch keeps its database's pointer and serial, so that a
 * call can tell a freed database (or a new one at the same address) without reading it. A
 * list: a process holds few databases, and a look-up is cheap next to a scan. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static clm_database *live_head;
static uint64_t live_serials;

static void live_add(clm_database *db)
{
    pthread_mutex_lock(&live_lock);
    db->serial = ++live_serials;
    db->live_next = live_head;
    live_head = db;
    pthread_mutex_unlock(&live_lock);
}

/* Unlink db; 0 when it is not live (only pointers are compared until it is found). */
static int live_remove(const clm_database *db)
{
    pthread_mutex_lock(&live_lock);
    clm_database **p = &live_head;
    while (*p && *p != db)
        p = &(*p)->live_next;
    int found = *p != NULL;
    if (found)
        *p = db->live_next;
    pthread_mutex_unlock(&live_lock);
    return found;
}

int clm_database_live(const clm_database *db, uint64_t serial)
{
    pthread_mutex_lock(&live_lock);
    const clm_database *p = live_head;
    while (p && p != db)
        p = p->live_next;
    int live = p && (!serial || p->serial == serial);
    pthread_mutex_unlock(&live_lock);
    return live;
}

static void database_destroy(clm_database *db)
{
    free_engines(db->engines, db->count);
    free(db->rank);
    free(db->unrank);
    free(db);
}

void clm_database_free(clm_database *db)
{
    /* one not live was freed already (or never compiled): reading it could crash */
    if (db && live_remove(db))
        database_destroy(db);
}

static int upload(clm_device *dev, const void *data, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)data, &err);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clCreateBuffer (pattern tables)");
}

/* Build the tables of one pattern and upload them. Bitap's class map and masks were built
 * while shaping (their class count sizes the kernel): bitap_cls and bitap_masks. */
static int make_tables(clm_device *dev, struct clm_engine *e, const struct clm_symbols *sym,
                       int caseless, const unsigned char *bitap_cls,
                       const uint64_t *bitap_masks)
{
    const struct clm_kernel_shape *s = &e->shape;
    size_t m = sym->m;
    unsigned char *bytes = calloc(s->pat_len, 1);
    void *tab = calloc(s->tab_len, s->tab_elem);
    int rc = CLM_OK;
    if (!bytes || !tab) {
        rc = clm_fail(CLM_E_NOMEM, "out of memory building pattern tables");
        goto out;
    }
    switch (s->algorithm) {
    case CLM_ALGO_DFA:
        clm_class_map(sym->bytes, m, caseless, bytes);
        clm_dfa_table(sym->bytes, m, bytes, s->sigma, tab);
        break;
    case CLM_ALGO_BITAP: /* classes past the last are zero masks: the padding of sigma */
        memcpy(bytes, bitap_cls, 256);
        memcpy(tab, bitap_masks, (size_t)s->tab_len * s->tab_elem);
        break;
    default:
        memcpy(bytes, sym->bytes, m); /* folded when caseless: kernels fold the text alike */
        if (s->algorithm == CLM_ALGO_KMP)
            clm_kmp_fail(bytes, m, tab);
        else if (s->algorithm == CLM_ALGO_BMH)
            clm_bmh_shifts(bytes, m, tab);
        else if (s->algorithm == CLM_ALGO_WITNESS)
            clm_period(bytes, m, tab, s->pi);
        break;
    }
    if (dev->model)
        goto out;
    if ((rc = upload(dev, bytes, s->pat_len, &e->pat_buf)) == CLM_OK)
        rc = upload(dev, tab, (size_t)s->tab_len * s->tab_elem, &e->tab_buf);
out:
    free(bytes);
    free(tab);
    return rc;
}

/* ---- checks ------------------------------------------------------------------------------- */

static int unsupported_table(const clm_device *dev, const struct clm_kernel_shape *s,
                             clm_table_memory mem, size_t index)
{
    size_t limit = mem == CLM_TABLE_LOCAL ? local_budget(dev) : dev->info.constant_mem_bytes;
    return clm_fail(CLM_E_UNSUPPORTED,
                    "%s tables for pattern %zu (%u symbols) need %zu bytes, more than the %zu "
                    "bytes of %s memory %s offers; use table memory global (CLM_TABLE_GLOBAL, "
                    "--table-memory global)%s",
                    clm_algorithm_name(s->algorithm), index, s->m, table_bytes(s), limit,
                    clm_table_memory_name(mem), dev->info.name,
                    s->algorithm == CLM_ALGO_DFA ? " or algorithm kmp (CLM_ALGO_KMP, -a kmp)" : "");
}

/* What the algorithm/variant can do with these patterns and options. */
static int check_capabilities(const clm_device *dev, clm_algorithm algo, clm_variant variant,
                              int literal, int dna, unsigned k, size_t max_m)
{
    const char *name = clm_algorithm_name(algo);
    if (algo != CLM_ALGO_BITAP) {
        if (!literal && dna)
            return clm_fail(CLM_E_UNSUPPORTED,
                            "%s cannot search degenerate IUPAC codes (or CLM_DEGENERATE_TEXT), "
                            "only plain bases; bitap can (CLM_ALGO_BITAP, -a bitap)",
                            name);
        if (!literal)
            return clm_fail(CLM_E_UNSUPPORTED, "%s cannot search character classes; bitap can "
                                               "(CLM_ALGO_BITAP, -a bitap)",
                            name);
        if (k > 0)
            return clm_fail(CLM_E_UNSUPPORTED, "%s cannot search with errors; bitap can "
                                               "(CLM_ALGO_BITAP, -a bitap)",
                            name);
        if (variant != CLM_VARIANT_AUTO && variant != CLM_VARIANT_ITEM)
            return clm_fail(CLM_E_UNSUPPORTED, "%s has no %s variant (only item); bitap has",
                            name, clm_variant_name(variant));
        return CLM_OK;
    }
    if (max_m > CLM_BITAP_MAX_LENGTH)
        return clm_fail(CLM_E_PATTERN_TOO_LONG,
                        "bitap handles patterns up to %u symbols; this one has %zu%s",
                        CLM_BITAP_MAX_LENGTH, max_m,
                        literal && k == 0 ? " (exact search: dfa, kmp, bmh or witness can)" : "");
    if (variant == CLM_VARIANT_REDUCE || variant == CLM_VARIANT_SUBGROUP) {
        if (k > 0 || max_m > 64)
            return clm_fail(CLM_E_UNSUPPORTED,
                            "the bitap %s variant does exact search of patterns up to 64 "
                            "symbols; use variant item (CLM_VARIANT_ITEM, --variant item)",
                            clm_variant_name(variant));
    }
    if (variant == CLM_VARIANT_SUBGROUP)
        return clm_fail(CLM_E_UNSUPPORTED,
                        "the bitap subgroup variant is not implemented (of the devices "
                        "measured, only PoCL has sub-group shuffles, and there the per-item "
                        "variant is faster); on %s use variant reduce (CLM_VARIANT_REDUCE, "
                        "--variant reduce), its local-memory form, or item",
                        dev->info.name);
    return CLM_OK;
}

/* ---- compile ------------------------------------------------------------------------------- */

static void free_symbols(struct clm_symbols *sym, unsigned n)
{
    for (unsigned i = 0; sym && i < n; i++)
        clm_symbols_free(&sym[i]);
    free(sym);
}

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

/* Packing is asked for by CLM_PACKING or CLMATCH_PACKED=on, refused by CLM_NO_PACKING or
 * CLMATCH_PACKED=off (or CLM_PACKED=...); off by default (slower where measured). */
static int packing_wanted(unsigned flags)
{
    const char *v = getenv("CLMATCH_PACKED");
    if (!v || !*v)
        v = getenv("CLM_PACKED");
    if (flags & CLM_NO_PACKING)
        return 0;
    if (v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0))
        return 0;
    if (v && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0))
        return 1;
    return (flags & CLM_PACKING) != 0;
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

/* Report order of (engine, strand) pairs: id, strand (+1 first), length (the end of an
 * exact match), then engine index (the caller's order). Exact matches sort by (start, rank);
 * nothing else depends on the engines' order. */
static int make_ranks(clm_database *db)
{
    unsigned n = 2 * db->count;
    db->rank = calloc(n, sizeof *db->rank);
    db->unrank = calloc(n, sizeof *db->unrank);
    if (!db->rank || !db->unrank)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    for (unsigned v = 0; v < n; v++)
        db->unrank[v] = v;
    for (unsigned i = 1; i < n; i++) { /* insertion sort: engine counts are small */
        unsigned v = db->unrank[i], j = i;
        const struct clm_engine *b = &db->engines[v / 2];
        int sb = v % 2 ? -1 : b->strand;
        while (j > 0) {
            unsigned u = db->unrank[j - 1];
            const struct clm_engine *a = &db->engines[u / 2];
            int sa = u % 2 ? -1 : a->strand;
            int after = a->id != b->id ? a->id > b->id
                        : sa != sb     ? sa < sb
                        : a->m != b->m ? a->m > b->m
                                       : u > v;
            if (!after)
                break;
            db->unrank[j] = u;
            j--;
        }
        db->unrank[j] = v;
    }
    for (unsigned r = 0; r < n; r++)
        db->rank[db->unrank[r]] = r;
    return CLM_OK;
}

/* Parse pattern i (with rc_strand, the reverse complement of DNA pattern i). */
static int parse_pattern(const char *const *patterns, const size_t *lengths, unsigned i,
                         unsigned flags, int rc_strand, struct clm_symbols *out)
{
    if (!patterns[i])
        return clm_fail(CLM_E_INVALID, "pattern %u is NULL", i);
    const unsigned char *src = (const unsigned char *)patterns[i];
    size_t len = lengths ? lengths[i] : strlen(patterns[i]);
    if (len == 0)
        return clm_fail(CLM_E_EMPTY_PATTERN, "pattern %u is empty", i);
    if (len > CLM_MAX_PATTERN_LENGTH)
        return clm_fail(CLM_E_PATTERN_TOO_LONG,
                        "pattern %u is %zu bytes long; the limit is %u bytes", i, len,
                        CLM_MAX_PATTERN_LENGTH);
    int caseless = (flags & CLM_CASELESS) != 0, degenerate = (flags & CLM_DEGENERATE_TEXT) != 0;
    if (!(flags & CLM_DNA))
        return clm_parse_symbols(src, len, (flags & CLM_CLASSES) != 0, caseless, i, out);
    if (!rc_strand)
        return clm_parse_dna(src, len, caseless, degenerate, i, out);
    unsigned char *rcp = malloc(len);
    if (!rcp)
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    clm_reverse_complement(src, len, rcp);
    int rc = clm_parse_dna(rcp, len, caseless, degenerate, i, out);
    free(rcp);
    return rc;
}

int clm_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                const unsigned *ids, unsigned count, const clm_compile_options *opts,
                clm_database **out)
{
    if (out)
        *out = NULL;
    if (!dev || !patterns || !out || count == 0)
        return clm_fail(CLM_E_INVALID, "clm_compile: device, patterns and out are required "
                                       "and count must be at least 1");
    clm_compile_options defaults;
    clm_compile_options_init(&defaults);
    if (!opts)
        opts = &defaults;
    const unsigned known_flags = CLM_CASELESS | CLM_CLASSES | CLM_MISMATCHES_ONLY | CLM_DNA |
                                 CLM_DEGENERATE_TEXT | CLM_BOTH_STRANDS | CLM_NO_PACKING |
                                 CLM_PACKING | CLM_STAGING | CLM_NO_STAGING | CLM_PREFETCH |
                                 CLM_NO_PREFETCH | CLM_WG_AS_TUNING;
    if ((unsigned)opts->algorithm >= N_ALGORITHMS ||
        (unsigned)opts->table_memory > CLM_TABLE_CONSTANT ||
        (unsigned)opts->variant > CLM_VARIANT_SUBGROUP || (opts->flags & ~known_flags))
        return clm_fail(CLM_E_INVALID,
                        "clm_compile: bad algorithm, table memory, variant or flags");
    if (opts->work_group_size && opts->work_group_size > dev->info.max_work_group_size)
        return clm_fail(CLM_E_INVALID, "work-group size %u exceeds the device maximum %zu",
                        opts->work_group_size, dev->info.max_work_group_size);
    if (opts->bytes_per_item > (1u << 20))
        return clm_fail(CLM_E_INVALID, "bytes per work-item %u exceeds 1 MiB",
                        opts->bytes_per_item);
    if (opts->vector_width && opts->vector_width != 4 && opts->vector_width != 8 &&
        opts->vector_width != 16)
        return clm_fail(CLM_E_INVALID,
                        "vector width %u: expected 4, 8 or 16 bytes per load (uint, uint2 or "
                        "uint4), or 0 for the device's tuning",
                        opts->vector_width);
    if (opts->groups_per_unit > 1024)
        return clm_fail(CLM_E_INVALID,
                        "%u work-groups per compute unit: at most 1024, or 0 for the device's "
                        "tuning", opts->groups_per_unit);
    int dna = (opts->flags & CLM_DNA) != 0;
    if (dna && (opts->flags & CLM_CLASSES))
        return clm_fail(CLM_E_INVALID, "clm_compile: CLM_DNA and CLM_CLASSES exclude each other "
                                       "(DNA patterns are IUPAC codes: R, Y, N, ... are the "
                                       "classes)");
    if (!dna && (opts->flags & (CLM_DEGENERATE_TEXT | CLM_BOTH_STRANDS | CLM_NO_PACKING |
                                CLM_PACKING)))
        return clm_fail(CLM_E_INVALID, "clm_compile: CLM_DEGENERATE_TEXT, CLM_BOTH_STRANDS, "
                                       "CLM_PACKING and CLM_NO_PACKING need CLM_DNA");
    unsigned k = opts->max_errors;
    if (k > CLM_MAX_ERRORS)
        return clm_fail(CLM_E_INVALID, "%u errors requested; at most %u are supported", k,
                        CLM_MAX_ERRORS);
    int caseless = (opts->flags & CLM_CASELESS) != 0;
    int hamming = k > 0 && (opts->flags & CLM_MISMATCHES_ONLY);

    /* engines: every pattern, then (both strands) every reverse complement */
    int both = (opts->flags & CLM_BOTH_STRANDS) != 0;
    if (both && count > 0x7fffffu)
        return clm_fail(CLM_E_INVALID, "clm_compile: %u patterns on both strands are more than "
                                       "%u engines",
                        count, 0xffffffu);
    unsigned n_sym = both ? 2 * count : count, n_eng = n_sym;

    /* parse every pattern; collect what the choices need */
    struct clm_symbols *sym = calloc(n_sym, sizeof *sym);
    struct pattern_facts *facts = calloc(n_sym, sizeof *facts);
    if (!sym || !facts) {
        free(sym);
        free(facts);
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    }
    int rc = CLM_OK, literal = 1;
    struct pattern_facts worst = {0, 0, 0, (size_t)-1};
    size_t min_m = SIZE_MAX;
    for (unsigned i = 0; i < n_sym && rc == CLM_OK; i++) {
        /* every pattern, then (both strands) every reverse complement */
        if ((rc = parse_pattern(patterns, lengths, i % count, opts->flags, i >= count,
                                &sym[i])) != CLM_OK)
            break;
        struct pattern_facts *f = &facts[i];
        f->m = sym[i].m;
        if (k >= f->m) {
            rc = clm_fail(CLM_E_INVALID,
                          "%u errors for pattern %u of %zu symbols: the errors must be fewer "
                          "than the symbols (else every position matches)",
                          k, i % count, f->m);
            break;
        }
        literal &= sym[i].literal;
        if (sym[i].literal) {
            unsigned char cls[256];
            f->classes = clm_class_map(sym[i].bytes, f->m, 0, cls);
            f->period = clm_period(sym[i].bytes, f->m, NULL, 0);
        } else {
            f->period = 1;
        }
        min_m = f->m < min_m ? f->m : min_m;
        if (f->m > worst.m)
            worst.m = f->m;
        if (f->classes > worst.classes)
            worst.classes = f->classes;
        if (f->period < worst.period)
            worst.period = f->period;
    }

    clm_database *db = rc == CLM_OK ? calloc(1, sizeof *db) : NULL;
    struct clm_engine *engines = db ? calloc(n_eng, sizeof *engines) : NULL;
    if (rc == CLM_OK && (!db || !engines))
        rc = clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    if (rc == CLM_OK) {
        db->dev = dev;
        db->flags = opts->flags;
        db->k = k;
        db->patterns = count;
        db->min_len = min_m;
        db->max_len = worst.m;
        db->engines = engines;
        db->algorithm = opts->algorithm;
        if (db->algorithm == CLM_ALGO_AUTO &&
            (opts->variant == CLM_VARIANT_REDUCE || opts->variant == CLM_VARIANT_SUBGROUP)) {
            db->algorithm = CLM_ALGO_BITAP; /* the only algorithm with those variants */
            snprintf(db->choice, sizeof db->choice, "auto: the %s variant is bitap's",
                     clm_variant_name(opts->variant));
        } else if (db->algorithm == CLM_ALGO_AUTO && dna && !literal && k == 0) {
            db->algorithm = CLM_ALGO_BITAP; /* plain bases choose as literals do */
            snprintf(db->choice, sizeof db->choice, "auto: %s needs bitap",
                     (opts->flags & CLM_DEGENERATE_TEXT) ? "CLM_DEGENERATE_TEXT"
                                                         : "a degenerate IUPAC code");
        } else if (db->algorithm == CLM_ALGO_AUTO)
            db->algorithm = auto_algorithm(dev, &worst, literal, k, opts->flags, db->choice,
                                           sizeof db->choice);
        else
            snprintf(db->choice, sizeof db->choice, "requested %s",
                     clm_algorithm_name(db->algorithm));
        db->variant = opts->variant;
        if (db->variant == CLM_VARIANT_AUTO)
            db->variant = CLM_VARIANT_ITEM;
        rc = check_capabilities(dev, db->algorithm, db->variant, literal, dna, k, worst.m);
        db->ends = db->algorithm == CLM_ALGO_BITAP;
        /* bitap item keeps two state sets, one per strand, over one read of the text */
        db->one_pass = both && db->algorithm == CLM_ALGO_BITAP &&
                       db->variant == CLM_VARIANT_ITEM;
        n_eng = db->one_pass ? count : n_sym;
        db->count = n_eng;
        unsigned pack_case = 0;
        /* the kernels that read through FOR_EACH_BYTE in item ranges; unpacking assumes
         * little-endian loads */
        db->packed = dna && dev->little_endian && packing_wanted(opts->flags) &&
                     (db->algorithm == CLM_ALGO_DFA ||
                      (db->algorithm == CLM_ALGO_BITAP && db->variant == CLM_VARIANT_ITEM)) &&
                     packable(sym, n_sym, caseless, &pack_case);
        db->pack_case = pack_case;
        db->indels = k > 0 && !hamming;
        db->lead = db->indels ? k : 0;
        db->min_match = db->indels ? min_m - k : min_m;
    }

    unsigned wg = opts->work_group_size;
    if (!wg && db)
        wg = (unsigned)clm_tune_get(dev, db->algorithm, CLM_KNOB_WG, NULL);
    for (unsigned i = 0; i < n_eng && rc == CLM_OK; i++) {
        struct clm_engine *e = &engines[i];
        struct pattern_facts *f = &facts[i];
        e->m = f->m;
        e->id = ids ? ids[i % count] : i % count;
        e->strand = i < count ? 1 : -1;
        struct clm_kernel_shape *s = &e->shape;
        s->algorithm = db->algorithm;
        s->variant = db->variant;
        s->caseless = caseless;
        s->k = k;
        s->hamming = hamming;
        s->lead = (unsigned)db->lead;
        s->packed = db->packed;
        s->pack_case = db->packed ? db->pack_case : 0;
        s->strands = db->one_pass ? 2 : 1;
        struct clm_symbols joined = {0, NULL, NULL, 0}, *tsym = &sym[i];
        if (db->one_pass) {
            if ((rc = join_strands(&sym[i], &sym[count + i], (unsigned)((f->m + 63) / 64),
                                   &joined)) != CLM_OK)
                break;
            tsym = &joined;
        }
        unsigned char bitap_cls[256];
        uint64_t *bitap_masks = NULL; /* sym: both strands side by side when strands == 2 */
        if (db->algorithm == CLM_ALGO_BITAP) {
            unsigned words = (unsigned)((f->m + 63) / 64) * s->strands;
            bitap_masks = calloc((size_t)256 * words, sizeof *bitap_masks);
            if (!bitap_masks) {
                free(joined.sets);
                rc = clm_fail(CLM_E_NOMEM, "out of memory");
                break;
            }
            rc = clm_bitap_tables(tsym, words, bitap_cls, bitap_masks, &f->bitap_classes);
        }
        if (rc == CLM_OK) {
            shape_tables(s, dev, f, wg, opts->bytes_per_item);
            s->table_memory = opts->table_memory;
            if (s->table_memory == CLM_TABLE_AUTO)
                s->table_memory = auto_table(dev, s, opts->flags);
            else if (!fits(dev, s, s->table_memory))
                rc = unsupported_table(dev, s, s->table_memory, i % count);
            if (rc == CLM_OK)
                choose_stage(dev, s, opts);
            s->vec = choose_vec(dev, s, opts->vector_width);
        }
        if (rc == CLM_OK)
            rc = dev->model ? clm_build_options(dev, s, e->options, sizeof e->options)
                            : clm_get_program(dev, s, &e->program, &e->cache_hit, e->options,
                                              sizeof e->options);
        if (rc == CLM_OK)
            rc = make_tables(dev, e, tsym, caseless, bitap_cls, bitap_masks);
        free(bitap_masks);
        free(joined.sets);
        if (rc == CLM_OK && db->indels) { /* keep the sets for the best-start search */
            e->sets = sym[i].sets;
            sym[i].sets = NULL;
            if (db->one_pass) {
                e->rc_sets = sym[count + i].sets;
                sym[count + i].sets = NULL;
            }
        }
    }
    free_symbols(sym, n_sym);
    free(facts);
    if (rc != CLM_OK) {
        if (db)
            free_engines(engines, n_sym);
        free(db);
        return rc;
    }
    db->table_memory = engines[0].shape.table_memory;
    if ((rc = make_ranks(db)) != CLM_OK) {
        database_destroy(db);
        return rc;
    }
    live_add(db);
    *out = db;
    return CLM_OK;
}

int clm_database_get_info(const clm_database *db, clm_database_info *info)
{
    if (!db || !info)
        return clm_fail(CLM_E_INVALID, "clm_database_get_info: NULL argument");
    memset(info, 0, sizeof *info);
    info->algorithm = db->algorithm;
    info->table_memory = db->table_memory;
    info->variant = db->variant;
    info->max_errors = db->k;
    info->flags = db->flags;
    info->pattern_count = db->patterns;
    info->min_length = db->min_len;
    info->max_length = db->max_len;
    info->work_group_size = db->engines[0].shape.wg;
    info->bytes_per_item = db->engines[0].shape.chunk;
    info->staged = db->engines[0].shape.stage != 0;
    info->prefetch = db->engines[0].shape.stage_prefetch;
    info->groups_per_unit = db->engines[0].shape.stage_groups;
    info->vector_width = db->engines[0].shape.vec;
    snprintf(info->build_options, sizeof info->build_options, "%s", db->engines[0].options);
    snprintf(info->choice, sizeof info->choice, "%s", db->choice);
    info->packed = db->packed;
    info->strands_in_one_pass = db->one_pass;
    info->cache_hit = 1;
    for (unsigned i = 0; i < db->count; i++)
        info->cache_hit &= db->engines[i].cache_hit;
    return CLM_OK;
}
