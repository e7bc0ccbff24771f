/* Compiling patterns into a database: parse them, choose (host/choose.c: algorithm, engines,
 * kernel shapes), build (the kernel programs and the tables each engine uploads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"

const char *clm_version(void)
{
    return CLM_VERSION_STRING;
}

static const char *const table_names[] = {"auto", "global", "local", "constant"};
static const char *const variant_names[] = {"auto", "item", "reduce", "subgroup"};

static int name_lookup(const char *const *names, unsigned n, const char *name, unsigned *out)
{
    for (unsigned i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return *out = i, CLM_OK;
    return CLM_E_INVALID;
}

const char *clm_algorithm_name(clm_algorithm a)
{
    const struct clm_algo *d = clm_algo(a);
    return d ? d->name : a == CLM_ALGO_AUTO ? "auto" : "?";
}

const char *clm_table_memory_name(clm_table_memory m)
{
    return (unsigned)m < 4 ? table_names[m] : "?";
}

const char *clm_variant_name(clm_variant v)
{
    return (unsigned)v < 4 ? variant_names[v] : "?";
}

unsigned clm_algorithm_count(void)
{
    return CLM_ALGO_COUNT;
}

unsigned clm_algorithm_variants(clm_algorithm algorithm)
{
    const struct clm_algo *a = clm_algo(algorithm);
    unsigned v = a ? 1u << CLM_VARIANT_ITEM : 0;
    if (a && (a->caps & CLM_CAP_REDUCE))
        v |= 1u << CLM_VARIANT_REDUCE | 1u << CLM_VARIANT_SUBGROUP;
    return v;
}

int clm_algorithm_from_name(const char *name, clm_algorithm *out)
{
    for (unsigned i = 0; out && name && i < CLM_ALGO_COUNT; i++)
        if (strcmp(name, clm_algorithm_name((clm_algorithm)i)) == 0)
            return *out = (clm_algorithm)i, CLM_OK;
    return clm_fail(CLM_E_INVALID, "unknown algorithm '%s' (known: auto, %s)",
                    name ? name : "(null)", clm_algo_names());
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

/* ---- parse --------------------------------------------------------------------------- */

static int check_options(const clm_device *dev, const clm_compile_options *o)
{
    const unsigned known_flags = CLM_CASELESS | CLM_CLASSES | CLM_MISMATCHES_ONLY | CLM_DNA |
                                 CLM_DEGENERATE_TEXT | CLM_BOTH_STRANDS | CLM_LINES;
    if ((unsigned)o->algorithm >= CLM_ALGO_COUNT || (unsigned)o->table_memory > CLM_TABLE_CONSTANT ||
        (unsigned)o->variant > CLM_VARIANT_SUBGROUP)
        return clm_fail(CLM_E_INVALID, "clm_compile: bad algorithm, table memory or variant");
    if (o->flags & ~known_flags) /* 64 .. 4096 were the switches below before they were fields */
        return clm_fail(CLM_E_INVALID,
                        "clm_compile: unknown flags 0x%x (staging, prefetch, packing and "
                        "wg_as_tuning are fields of clm_compile_options)",
                        o->flags & ~known_flags);
    if ((unsigned)o->staging > CLM_OFF || (unsigned)o->prefetch > CLM_OFF ||
        (unsigned)o->packing > CLM_OFF || (unsigned)o->wg_as_tuning > 1)
        return clm_fail(CLM_E_INVALID, "clm_compile: staging, prefetch and packing take "
                                       "CLM_AUTO, CLM_ON or CLM_OFF, wg_as_tuning 0 or 1");
    if (o->work_group_size && o->work_group_size > dev->info.max_work_group_size)
        return clm_fail(CLM_E_INVALID, "work-group size %u exceeds the device maximum %zu",
                        o->work_group_size, dev->info.max_work_group_size);
    if (o->bytes_per_item > (1u << 20))
        return clm_fail(CLM_E_INVALID, "bytes per work-item %u exceeds 1 MiB",
                        o->bytes_per_item);
    if (o->vector_width && o->vector_width != 4 && o->vector_width != 8 &&
        o->vector_width != 16)
        return clm_fail(CLM_E_INVALID,
                        "vector width %u: expected 4, 8 or 16 bytes per load (uint, uint2 or "
                        "uint4), or 0 for the device's tuning",
                        o->vector_width);
    if (o->groups_per_unit > 1024)
        return clm_fail(CLM_E_INVALID,
                        "%u work-groups per compute unit: at most 1024, or 0 for the device's "
                        "tuning", o->groups_per_unit);
    int dna = (o->flags & CLM_DNA) != 0;
    if (dna && (o->flags & CLM_CLASSES))
        return clm_fail(CLM_E_INVALID, "clm_compile: CLM_DNA and CLM_CLASSES exclude each other "
                                       "(DNA patterns are IUPAC codes: R, Y, N, ... are the "
                                       "classes)");
    if (dna && (o->flags & CLM_LINES))
        return clm_fail(CLM_E_INVALID, "clm_compile: CLM_LINES is not for CLM_DNA (DNA text "
                                       "has no lines)");
    if (!dna && ((o->flags & (CLM_DEGENERATE_TEXT | CLM_BOTH_STRANDS)) || o->packing))
        return clm_fail(CLM_E_INVALID, "clm_compile: CLM_DEGENERATE_TEXT, CLM_BOTH_STRANDS and "
                                       "packing other than CLM_AUTO need CLM_DNA");
    if (o->max_errors > CLM_MAX_ERRORS)
        return clm_fail(CLM_E_INVALID, "%u errors requested; at most %u are supported",
                        o->max_errors, CLM_MAX_ERRORS);
    if ((o->exact_head || o->exact_tail) && o->max_errors && !(o->flags & CLM_MISMATCHES_ONLY))
        return clm_fail(CLM_E_INVALID, "clm_compile: exact_head and exact_tail need "
                                       "CLM_MISMATCHES_ONLY (they keep mismatches out of the "
                                       "patterns' ends)");
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

/* Parse every pattern, then (both strands) every reverse complement, and collect what the
 * choices need: each one's facts, whether all are literal, the longest and shortest. */
static int parse_patterns(clm_database *db, struct clm_plan *plan, const char *const *patterns,
                          const size_t *lengths)
{
    unsigned count = db->caller_count, k = db->k;
    int both = (db->flags & CLM_BOTH_STRANDS) != 0;
    if (both && count > 0x7fffffu)
        return clm_fail(CLM_E_INVALID, "clm_compile: %u patterns on both strands are more than "
                                       "%u engines",
                        count, 0xffffffu);
    plan->n_sym = both ? 2 * count : count;
    plan->sym = calloc(plan->n_sym, sizeof *plan->sym);
    plan->facts = calloc(plan->n_sym, sizeof *plan->facts);
    if (!plan->sym || !plan->facts)
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    plan->literal = 1;
    db->min_len = SIZE_MAX;
    for (unsigned i = 0; i < plan->n_sym; i++) {
        struct clm_symbols *sym = &plan->sym[i];
        int rc = parse_pattern(patterns, lengths, i % count, db->flags, i >= count, sym);
        if (rc != CLM_OK)
            return rc;
        struct clm_pattern_facts *f = &plan->facts[i];
        f->m = sym->m;
        if (k >= f->m)
            return clm_fail(CLM_E_INVALID,
                            "%u errors for pattern %u of %zu symbols: the errors must be fewer "
                            "than the symbols (else every position matches)",
                            k, i % count, f->m);
        if (k && (size_t)db->exact_head + db->exact_tail >= f->m)
            return clm_fail(CLM_E_INVALID,
                            "exact_head %u and exact_tail %u for pattern %u of %zu symbols: "
                            "together they must be fewer than the symbols",
                            db->exact_head, db->exact_tail, i % count, f->m);
        plan->literal &= sym->literal;
        f->period = 1;
        if (sym->literal) {
            unsigned char cls[256];
            f->classes = clm_class_map(sym->bytes, f->m, 0, cls);
            f->period = clm_period(sym->bytes, f->m, NULL, 0);
        }
        db->min_len = f->m < db->min_len ? f->m : db->min_len;
        db->max_len = f->m > db->max_len ? f->m : db->max_len;
        plan->most_classes = f->classes > plan->most_classes ? f->classes : plan->most_classes;
    }
    plan->longest = db->max_len;
    return CLM_OK;
}

/* ---- build ----------------------------------------------------------------------------- */

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

static void database_destroy(clm_database *db);

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

void clm_database_free(clm_database *db)
{
    /* one not live was freed already (or never compiled): reading it could crash */
    if (db && live_remove(db))
        database_destroy(db);
}

static void database_destroy(clm_database *db)
{
    free_engines(db->engines, db->engine_count);
    for (unsigned i = 0; db->pats && i < db->slots; i++) {
        free(db->pats[i].sets);
        free(db->pats[i].rc_sets);
    }
    free(db->pats);
    free(db->rank);
    free(db->unrank);
    free(db);
}

static int upload(clm_device *dev, const void *data, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)data, &err);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clCreateBuffer (pattern tables)");
}

/* Build engine e's tables and upload them (a model device keeps none). */
static int make_tables(clm_database *db, const struct clm_plan *plan, unsigned e)
{
    struct clm_engine *en = &db->engines[e];
    const struct clm_kernel_shape *s = &en->shape;
    unsigned char *bytes = calloc(s->pat_len, 1);
    void *tab = calloc(s->tab_len, s->tab_elem);
    int rc = CLM_OK;
    if (!bytes || !tab)
        rc = clm_fail(CLM_E_NOMEM, "out of memory building pattern tables");
    if (rc == CLM_OK)
        rc = clm_algo(s->algorithm)->tables(s, clm_plan_symbols(plan, db, e), en->count,
                                            s->caseless, bytes, tab,
                                            plan->built ? plan->built[e] : NULL);
    if (rc == CLM_OK && !db->dev->model &&
        (rc = upload(db->dev, bytes, s->pat_len, &en->pat_buf)) == CLM_OK)
        rc = upload(db->dev, tab, (size_t)s->tab_len * s->tab_elem, &en->tab_buf);
    free(bytes);
    free(tab);
    return rc;
}

/* Every engine's program and tables; a model device's database gets the build options only. */
static int build(clm_database *db, const struct clm_plan *plan)
{
    int rc = CLM_OK;
    for (unsigned e = 0; e < db->engine_count && rc == CLM_OK; e++) {
        struct clm_engine *en = &db->engines[e];
        rc = db->dev->model ? clm_build_options(db->dev, &en->shape, en->options,
                                                sizeof en->options)
                            : clm_get_program(db->dev, &en->shape, &en->program, &en->cache_hit,
                                              en->options, sizeof en->options);
        if (rc == CLM_OK)
            rc = make_tables(db, plan, e);
    }
    return rc;
}

/* Approximate search with insertions and deletions keeps each slot's symbol sets (and in one
 * pass its reverse complement's): the host searches a match's best start with them. */
static void keep_sets(clm_database *db, struct clm_plan *plan)
{
    if (!db->indels)
        return;
    for (unsigned i = 0; i < db->slots; i++) {
        db->pats[i].sets = plan->sym[i].sets;
        plan->sym[i].sets = NULL;
        if (db->one_pass) {
            db->pats[i].rc_sets = plan->sym[db->caller_count + i].sets;
            plan->sym[db->caller_count + i].sets = NULL;
        }
    }
}

/* Report order of (slot, strand) pairs: id, strand (+1 first), length (the end of an exact
 * match), then slot (the caller's order). Exact matches sort by (start, rank). */
struct rank_key {
    unsigned id, m, v; /* v: 2 * slot + (reverse complement searched in the same pass) */
    int strand;
};

static int cmp_rank(const void *pa, const void *pb)
{
    const struct rank_key *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->strand != b->strand)
        return a->strand > b->strand ? -1 : 1;
    if (a->m != b->m)
        return a->m < b->m ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

static int make_ranks(clm_database *db)
{
    unsigned n = 2 * db->slots;
    struct rank_key *keys = malloc((size_t)n * sizeof *keys);
    db->rank = calloc(n, sizeof *db->rank);
    db->unrank = calloc(n, sizeof *db->unrank);
    if (!keys || !db->rank || !db->unrank) {
        free(keys);
        return clm_fail(CLM_E_NOMEM, "out of memory");
    }
    for (unsigned v = 0; v < n; v++) {
        const struct clm_pattern *p = &db->pats[v / 2];
        keys[v] = (struct rank_key){p->id, (unsigned)p->m, v, v % 2 ? -1 : p->strand};
    }
    qsort(keys, n, sizeof *keys, cmp_rank); /* many patterns: not quadratic */
    for (unsigned r = 0; r < n; r++) {
        db->unrank[r] = keys[r].v;
        db->rank[keys[r].v] = r;
    }
    free(keys);
    return CLM_OK;
}

/* ---- compile ------------------------------------------------------------------------------ */

static int compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                   const unsigned *ids, unsigned count, const clm_compile_options *opts,
                   unsigned emit_blocks, clm_database **out);

int clm_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                const unsigned *ids, unsigned count, const clm_compile_options *opts,
                clm_database **out)
{
    return compile(dev, patterns, lengths, ids, count, opts, 0, out);
}

int clm_compile_blocks(clm_device *dev, const char *const *patterns, const size_t *lengths,
                       unsigned count, const clm_compile_options *opts, unsigned block,
                       clm_database **out)
{
    return compile(dev, patterns, lengths, NULL, count, opts, block, out);
}

static int compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                   const unsigned *ids, unsigned count, const clm_compile_options *opts,
                   unsigned emit_blocks, clm_database **out)
{
    if (out)
        *out = NULL;
    if (!dev || !patterns || !out || count == 0)
        return clm_fail(CLM_E_INVALID, "clm_compile: device, patterns and out are required "
                                       "and count must be at least 1");
    clm_compile_options o; /* the defaults, then the caller's fields (abi.c) */
    clm_compile_options_init(&o, sizeof o);
    int rc = opts ? clm_options_read(&o, sizeof o, opts, CLM_COMPILE_OPTIONS_V1,
                                     "clm_compile_options", "clm_compile_options_init")
                  : CLM_OK;
    opts = &o;
    if (rc == CLM_OK)
        rc = check_options(dev, opts);
    if (rc != CLM_OK)
        return rc;
    const double t0 = clm_now();
    clm_database *db = calloc(1, sizeof *db);
    if (!db)
        return clm_fail(CLM_E_NOMEM, "out of memory compiling patterns");
    db->dev = dev;
    db->flags = opts->flags;
    db->k = opts->max_errors;
    if (db->k) /* exact search matches the ends anyway */
        db->exact_head = opts->exact_head, db->exact_tail = opts->exact_tail;
    db->caller_count = count;
    struct clm_plan plan = {.o = opts, .ids = ids};
    rc = parse_patterns(db, &plan, patterns, lengths);
    if (rc == CLM_OK)
        rc = clm_choose(db, &plan);
    for (unsigned e = 0; rc == CLM_OK && e < db->engine_count; e++)
        db->engines[e].shape.emit_blocks = emit_blocks;
    if (rc == CLM_OK)
        rc = build(db, &plan);
    if (rc == CLM_OK) {
        keep_sets(db, &plan);
        rc = make_ranks(db);
    }
    clm_plan_free(&plan, db);
    if (rc != CLM_OK) {
        database_destroy(db);
        return rc;
    }
    db->compile_seconds = clm_now() - t0;
    live_add(db);
    *out = db;
    return CLM_OK;
}

int clm_database_get_info(const clm_database *db, clm_database_info *out, size_t size)
{
    clm_database_info own, *info = &own;
    if (!db || !out)
        return clm_fail(CLM_E_INVALID, "clm_database_get_info: NULL argument");
    memset(info, 0, sizeof *info);
    info->algorithm = db->algorithm;
    info->table_memory = db->table_memory;
    info->variant = db->variant;
    info->max_errors = db->k;
    info->flags = db->flags;
    info->pattern_count = db->caller_count;
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
    info->engines = db->engine_count;
    info->compile_seconds = db->compile_seconds;
    for (unsigned i = 0; i < db->engine_count; i++) {
        const struct clm_kernel_shape *s = &db->engines[i].shape;
        uint64_t bytes = s->pat_len + (uint64_t)s->tab_len * s->tab_elem;
        uint64_t local = s->table_memory == CLM_TABLE_LOCAL ? bytes
                         : s->aho_hot ? 256 + (uint64_t)s->aho_hot * 4
                                      : (uint64_t)s->kmer_hot * 4;
        info->cache_hit &= db->engines[i].cache_hit;
        info->table_bytes += bytes;
        info->local_table_bytes = local > info->local_table_bytes ? local : info->local_table_bytes;
    }
    return clm_copy_out(out, size, info, sizeof *info, CLM_DATABASE_INFO_V1,
                        "clm_database_info");
}
