/* Compiling patterns into a database: choose algorithm and table memory, build the tables,
 * get the kernel program, upload the tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *clm_version(void)
{
    return CLM_VERSION_STRING;
}

static const char *const algorithm_names[] = {"auto", "naive", "kmp", "dfa"};
static const char *const table_names[] = {"auto", "global", "local", "constant"};

const char *clm_algorithm_name(clm_algorithm a)
{
    return (unsigned)a < 4 ? algorithm_names[a] : "?";
}

const char *clm_table_memory_name(clm_table_memory m)
{
    return (unsigned)m < 4 ? table_names[m] : "?";
}

int clm_algorithm_from_name(const char *name, clm_algorithm *out)
{
    for (unsigned i = 0; name && out && i < 4; i++)
        if (strcmp(name, algorithm_names[i]) == 0)
            return *out = (clm_algorithm)i, CLM_OK;
    return clm_fail(CLM_E_INVALID, "unknown algorithm '%s' (known: auto, naive, kmp, dfa)",
                    name ? name : "(null)");
}

int clm_table_memory_from_name(const char *name, clm_table_memory *out)
{
    for (unsigned i = 0; name && out && i < 4; i++)
        if (strcmp(name, table_names[i]) == 0)
            return *out = (clm_table_memory)i, CLM_OK;
    return clm_fail(CLM_E_INVALID,
                    "unknown table memory '%s' (known: auto, global, local, constant)",
                    name ? name : "(null)");
}

void clm_compile_options_init(clm_compile_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->algorithm = CLM_ALGO_AUTO;
    opts->table_memory = CLM_TABLE_AUTO;
}

/* Bytes the kernel's two tables take for a shape (pattern/class map + ushort table). */
static size_t table_bytes(const struct clm_kernel_shape *s)
{
    return (size_t)s->pat_len + (size_t)s->tab_len * 2;
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

/* Table shape of one pattern under an algorithm (independent of table memory). */
static void shape_tables(struct clm_kernel_shape *s, clm_algorithm algo, size_t m,
                         unsigned classes)
{
    s->algorithm = algo;
    s->m = (unsigned)m;
    s->sigma = 1;
    switch (algo) {
    case CLM_ALGO_NAIVE:
        s->pat_len = (unsigned)m;
        s->tab_len = 1; /* unused; kept non-empty so every kernel has the same arguments */
        break;
    case CLM_ALGO_KMP:
        s->pat_len = (unsigned)m;
        s->tab_len = (unsigned)m + 1;
        break;
    default:
        /* rows padded to a power of two: cheaper indexing, and patterns with a similar
         * number of distinct bytes share one kernel build */
        s->sigma = clm_next_pow2(classes < 2 ? 2 : classes);
        s->pat_len = 256;
        s->tab_len = (unsigned)((m + 1) * s->sigma);
        break;
    }
}

/* The documented automatic choices (README "Automatic choice"):
 *  algorithm: dfa when its table fits in the device's local memory (GPU: on-chip) or, on a
 *             device without on-chip local memory, in 1 MiB (stays in cache); else kmp.
 *  tables:    on devices with on-chip local memory, dfa -> local, kmp and naive -> constant
 *             (seed 000: threads mostly read the same first entries, which constant memory
 *             broadcasts), each falling back to local, then global, when too large. Devices
 *             without on-chip local memory (CPUs) read tables from global: caches serve them
 *             and the copy to emulated local memory would only cost time. */
static clm_algorithm auto_algorithm(const clm_device *dev, size_t max_m, unsigned max_classes)
{
    struct clm_kernel_shape s;
    shape_tables(&s, CLM_ALGO_DFA, max_m, max_classes);
    size_t limit = dev->info.local_mem_dedicated ? local_budget(dev) : (size_t)1 << 20;
    return table_bytes(&s) <= limit ? CLM_ALGO_DFA : CLM_ALGO_KMP;
}

static clm_table_memory auto_table(const clm_device *dev, const struct clm_kernel_shape *s)
{
    if (!dev->info.local_mem_dedicated)
        return CLM_TABLE_GLOBAL;
    static const clm_table_memory dfa_order[] = {CLM_TABLE_LOCAL, CLM_TABLE_CONSTANT};
    static const clm_table_memory other_order[] = {CLM_TABLE_CONSTANT, CLM_TABLE_LOCAL};
    const clm_table_memory *order = s->algorithm == CLM_ALGO_DFA ? dfa_order : other_order;
    for (int i = 0; i < 2; i++)
        if (fits(dev, s, order[i]))
            return order[i];
    return CLM_TABLE_GLOBAL;
}

static void free_engines(struct clm_engine *e, unsigned n)
{
    for (unsigned i = 0; e && i < n; i++) {
        if (e[i].program)
            clReleaseProgram(e[i].program);
        if (e[i].pat_buf)
            clReleaseMemObject(e[i].pat_buf);
        if (e[i].tab_buf)
            clReleaseMemObject(e[i].tab_buf);
    }
    free(e);
}

void clm_database_free(clm_database *db)
{
    if (!db)
        return;
    free_engines(db->engines, db->count);
    free(db);
}

static int upload(clm_device *dev, const void *data, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)data, &err);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clCreateBuffer (pattern tables)");
}

/* Build the tables of one pattern and upload them. */
static int make_tables(clm_device *dev, struct clm_engine *e, const unsigned char *pat,
                       int caseless)
{
    const struct clm_kernel_shape *s = &e->shape;
    size_t m = e->m;
    unsigned char *bytes = malloc(s->pat_len);
    uint16_t *tab = calloc(s->tab_len, sizeof *tab);
    int rc = CLM_OK;
    if (!bytes || !tab) {
        rc = clm_fail(CLM_E_NOMEM, "out of memory building pattern tables");
        goto out;
    }
    if (s->algorithm == CLM_ALGO_DFA) {
        clm_class_map(pat, m, caseless, bytes);
        clm_dfa_table(pat, m, bytes, s->sigma, tab);
    } else {
        for (size_t i = 0; i < m; i++) /* kernels fold the text the same way */
            bytes[i] = caseless ? clm_fold(pat[i]) : pat[i];
        if (s->algorithm == CLM_ALGO_KMP)
            clm_kmp_fail(bytes, m, tab);
    }
    if ((rc = upload(dev, bytes, s->pat_len, &e->pat_buf)) == CLM_OK)
        rc = upload(dev, tab, (size_t)s->tab_len * sizeof *tab, &e->tab_buf);
out:
    free(bytes);
    free(tab);
    return rc;
}

static int unsupported_table(const clm_device *dev, const struct clm_kernel_shape *s,
                             clm_table_memory mem, size_t index)
{
    size_t limit = mem == CLM_TABLE_LOCAL ? local_budget(dev) : dev->info.constant_mem_bytes;
    return clm_fail(CLM_E_UNSUPPORTED,
                    "%s tables for pattern %zu (%u bytes) need %zu bytes, more than the %zu "
                    "bytes of %s memory %s offers; use table memory global (CLM_TABLE_GLOBAL, "
                    "--table-memory global)%s",
                    clm_algorithm_name(s->algorithm), index, s->m, table_bytes(s), limit,
                    clm_table_memory_name(mem), dev->info.name,
                    s->algorithm == CLM_ALGO_DFA ? " or algorithm kmp (CLM_ALGO_KMP, -a kmp)" : "");
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
    if ((unsigned)opts->algorithm > CLM_ALGO_DFA ||
        (unsigned)opts->table_memory > CLM_TABLE_CONSTANT || (opts->flags & ~CLM_CASELESS))
        return clm_fail(CLM_E_INVALID, "clm_compile: bad algorithm, table memory or flags");
    if (opts->work_group_size && opts->work_group_size > dev->info.max_work_group_size)
        return clm_fail(CLM_E_INVALID, "work-group size %u exceeds the device maximum %zu",
                        opts->work_group_size, dev->info.max_work_group_size);
    if (opts->bytes_per_item > (1u << 20))
        return clm_fail(CLM_E_INVALID, "bytes per work-item %u exceeds 1 MiB",
                        opts->bytes_per_item);
    int caseless = (opts->flags & CLM_CASELESS) != 0;

    size_t min_m = SIZE_MAX, max_m = 0;
    unsigned max_classes = 0;
    for (unsigned i = 0; i < count; i++) {
        if (!patterns[i])
            return clm_fail(CLM_E_INVALID, "pattern %u is NULL", i);
        size_t m = lengths ? lengths[i] : strlen(patterns[i]);
        if (m == 0)
            return clm_fail(CLM_E_EMPTY_PATTERN, "pattern %u is empty", i);
        if (m > CLM_MAX_PATTERN_LENGTH)
            return clm_fail(CLM_E_PATTERN_TOO_LONG,
                            "pattern %u is %zu bytes long; the limit is %u bytes", i, m,
                            CLM_MAX_PATTERN_LENGTH);
        unsigned char cls[256];
        unsigned classes = clm_class_map((const unsigned char *)patterns[i], m, caseless, cls);
        min_m = m < min_m ? m : min_m;
        max_m = m > max_m ? m : max_m;
        max_classes = classes > max_classes ? classes : max_classes;
    }

    clm_database *db = calloc(1, sizeof *db);
    struct clm_engine *engines = calloc(count, sizeof *engines);
    if (!db || !engines) {
        free(db);
        free(engines);
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    }
    db->dev = dev;
    db->flags = opts->flags;
    db->count = count;
    db->min_len = min_m;
    db->max_len = max_m;
    db->engines = engines;
    db->algorithm = opts->algorithm != CLM_ALGO_AUTO ? opts->algorithm
                                                     : auto_algorithm(dev, max_m, max_classes);

    unsigned wg = opts->work_group_size ? opts->work_group_size : dev->default_wg;
    int rc = CLM_OK;
    for (unsigned i = 0; i < count && rc == CLM_OK; i++) {
        struct clm_engine *e = &engines[i];
        const unsigned char *pat = (const unsigned char *)patterns[i];
        e->m = lengths ? lengths[i] : strlen(patterns[i]);
        e->id = ids ? ids[i] : i;
        unsigned char cls[256];
        unsigned classes = clm_class_map(pat, e->m, caseless, cls);
        struct clm_kernel_shape *s = &e->shape;
        shape_tables(s, db->algorithm, e->m, classes);
        s->caseless = caseless;
        s->wg = wg;
        /* each work-item re-reads m-1 bytes past its range: keep that under ~25% */
        size_t chunk = opts->bytes_per_item ? opts->bytes_per_item : dev->default_chunk;
        if (!opts->bytes_per_item && chunk < 4 * (e->m - 1))
            chunk = 4 * (e->m - 1);
        s->chunk = (unsigned)clm_round_up(chunk ? chunk : 16, 16);
        clm_table_memory mem = opts->table_memory;
        if (mem == CLM_TABLE_AUTO)
            mem = auto_table(dev, s);
        else if (!fits(dev, s, mem))
            rc = unsupported_table(dev, s, mem, i);
        s->table_memory = mem;
        if (rc == CLM_OK)
            rc = clm_get_program(dev, s, &e->program, &e->cache_hit, e->options,
                                 sizeof e->options);
        if (rc == CLM_OK)
            rc = make_tables(dev, e, pat, caseless);
    }
    if (rc != CLM_OK) {
        free_engines(engines, count);
        free(db);
        return rc;
    }
    /* report order is (start, id): order the engines by id, keeping the caller's order for
     * equal ids (a stable insertion sort: pattern counts are small here) */
    for (unsigned i = 1; i < count; i++) {
        struct clm_engine tmp = engines[i];
        unsigned j = i;
        while (j > 0 && engines[j - 1].id > tmp.id) {
            engines[j] = engines[j - 1];
            j--;
        }
        engines[j] = tmp;
    }
    db->table_memory = engines[0].shape.table_memory;
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
    info->pattern_count = db->count;
    info->min_length = db->min_len;
    info->max_length = db->max_len;
    info->work_group_size = db->engines[0].shape.wg;
    info->bytes_per_item = db->engines[0].shape.chunk;
    snprintf(info->build_options, sizeof info->build_options, "%s", db->engines[0].options);
    info->cache_hit = 1;
    for (unsigned i = 0; i < db->count; i++)
        info->cache_hit &= db->engines[i].cache_hit;
    return CLM_OK;
}
