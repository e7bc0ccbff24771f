/* Scratches: the memory plan (the slab under a budget, min_memory, match capacities),
 * clm_scratch_alloc/free/get_info/get_stats, the lanes a scratch scans with (one per device;
 * one today), and the guard that lets one call at a time use a scratch (CLM_E_BUSY; a freed
 * database is never read). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

#define DEFAULT_MATCH_CAPACITY (1u << 18)
#define DEFAULT_SLOTS 2 /* one slab searched while the next is read and sent */
#define MAX_MATCH_CAPACITY (1u << 24) /* beyond this a range is split instead of grown */
#define BUDGET_STEP ((size_t)4096)    /* slabs a budget shrinks are multiples of this */

/* ---- the memory plan -------------------------------------------------------------------- */

/* A size from the environment (bytes, or K, M or G of them) into *out; 0 when unset. */
static int env_size(enum clm_env_var var, size_t *out)
{
    const char *v = clm_env(var);
    uint64_t x;
    *out = 0;
    if (!v || !*v)
        return CLM_OK;
    if (clm_parse_size(v, strlen(v), &x) != 0 || x > SIZE_MAX)
        return clm_fail(CLM_E_INVALID, "%s=%s is not a size (bytes, or K, M or G of them)",
                        clm_env_name(var), v);
    *out = (size_t)x;
    return CLM_OK;
}

/* s as a count of decimal digits alone in [lo, hi] into *out: 1, else 0 (*out untouched). */
static int parse_count(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    unsigned long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9' && v <= hi)
        v = v * 10 + (unsigned long)(*p++ - '0');
    if (*p || p == s || v < lo || v > hi)
        return 0;
    *out = (unsigned)v;
    return 1;
}

/* Threads per slab read or copy: CLMATCH_IO_THREADS, else clm_io_threads(); *stream_out:
 * those that read a file into a stream. Its caller's thread takes every block on (hooks,
 * sends, launches) and the driver's threads run the transfers: left a core each where there
 * are 8 or more, a 10 GB FASTA file went 10-20 % faster on the H200 machine's 16 cores
 * (bench/experiments/README.md, "Slots and reading threads"). */
static int choose_io_threads(unsigned *out, unsigned *stream_out, char *why, size_t why_cap)
{
    unsigned cpus = 1;
    const char *env = clm_env(CLM_ENV_IO_THREADS);
    *out = *stream_out = clm_io_threads(&cpus);
    if (cpus >= 8 && *stream_out > cpus - 2)
        *stream_out = cpus - 2;
    snprintf(why, why_cap, "auto: %u CPU%s, at most 16; %u reading a file into a stream", cpus,
             cpus == 1 ? "" : "s", *stream_out);
    if (!env || !*env || !strcmp(env, "auto"))
        return CLM_OK;
    if (!parse_count(env, 1, CLM_MAX_IO_THREADS, out))
        return clm_fail(CLM_E_INVALID, "CLMATCH_IO_THREADS='%s' is not a thread count (1 to %d, "
                                       "or auto)",
                        env, CLM_MAX_IO_THREADS);
    *stream_out = *out;
    snprintf(why, why_cap, "CLMATCH_IO_THREADS=%u", *out);
    return CLM_OK;
}

/* The slots option (0: CLMATCH_SLOTS, else DEFAULT_SLOTS) checked. */
static int choose_slots(unsigned *slots)
{
    const char *env = clm_env(CLM_ENV_SLOTS);
    if (*slots == 0 && env && *env && !parse_count(env, 2, CLM_MAX_SCRATCH_SLOTS, slots))
        return clm_fail(CLM_E_INVALID, "CLMATCH_SLOTS='%s' is not a slot count (2 to %d)", env,
                        CLM_MAX_SCRATCH_SLOTS);
    if (*slots == 0)
        *slots = DEFAULT_SLOTS;
    if (*slots < 2 || *slots > CLM_MAX_SCRATCH_SLOTS)
        return clm_fail(CLM_E_INVALID, "%u slots: a scratch has 2 to %d (clm_scratch_options."
                        "slots, CLMATCH_SLOTS)", *slots, CLM_MAX_SCRATCH_SLOTS);
    return CLM_OK;
}

/* Memory a scratch with this slab uses (clm_scratch_info): device buffers and host staging
 * of every slot, match buffers at their initial capacity. */
struct plan {
    unsigned slots;
    size_t slab, text_bytes, text_cap, cap, device, host;
};

/* pl->slots set, the rest from them. */
static void plan_memory(const clm_database *db, const struct clm_path_ops *path, size_t align,
                        size_t slab, size_t cap, struct plan *pl)
{
    pl->slab = slab;
    pl->cap = cap;
    pl->text_bytes = slab + db->max_len - 1 + db->lead;
    pl->text_cap = pl->text_bytes + (path->in_place ? align : 0);
    size_t dev = clm_counter_bytes(db->slots) + cap * 2 * sizeof(cl_uint);
    if (path->device_copy)
        dev += pl->text_bytes;
    if (db->packed)
        dev += CLM_PACKED_BYTES(pl->text_cap);
    pl->device = pl->slots * dev;
    pl->host = pl->slots * pl->text_bytes; /* heap, pinned, zero-copy or SVM staging */
}

/* The largest slab (a multiple of BUDGET_STEP, at most `slab`) whose plan fits the budget;
 * 0 when none from `least` up does. */
static size_t fit_slab(const clm_database *db, const struct clm_path_ops *path, size_t align,
                       unsigned slots, size_t slab, size_t least, size_t cap, size_t budget)
{
    struct plan a = {.slots = slots}, b = {.slots = slots};
    plan_memory(db, path, align, 0, cap, &a);
    plan_memory(db, path, align, BUDGET_STEP, cap, &b);
    size_t fixed = a.device + a.host, per_step = b.device + b.host - fixed;
    if (budget < fixed)
        return 0;
    size_t steps = (budget - fixed) / per_step, fit = steps * BUDGET_STEP;
    if (fit > slab)
        fit = slab;
    for (;; fit -= BUDGET_STEP) { /* the packed buffer's rounding: a step or two at most */
        plan_memory(db, path, align, fit, cap, &a);
        if (a.device + a.host <= budget)
            return fit >= least ? fit : 0;
        if (fit < BUDGET_STEP + least)
            return 0;
    }
}

/* ---- lanes and scratches ---------------------------------------------------------------- */

/* Release what the lane holds (what lane_open made of it, or part of it). */
static void lane_close(struct clm_lane *ln)
{
    for (unsigned i = 0; i < ln->s->n_slots; i++)
        clm_slot_close(ln, &ln->slot[i]);
    for (unsigned e = 0; e < ln->s->engines; e++) { /* its database may be freed already */
        if (ln->k_find && ln->k_find[e])
            clReleaseKernel(ln->k_find[e]);
        if (ln->k_count && ln->k_count[e])
            clReleaseKernel(ln->k_count[e]);
    }
    if (ln->k_pack)
        clReleaseKernel(ln->k_pack);
    clm_lane_close_compact(ln);
    free(ln->k_find);
    free(ln->k_count);
}

/* The database's kernels for the lane's device and its first slot's queue and match buffer
 * (cheap; a match capacity the device cannot allocate fails here); text buffers and the
 * second slot when a scan needs them. lane_close undoes what was made, on failure too. */
static int lane_open(clm_scratch *s, struct clm_lane *ln, clm_device *dev,
                     const struct clm_path_ops *path, size_t wrap_align)
{
    const clm_database *db = s->db;
    ln->s = s;
    ln->dev = dev;
    ln->path = path;
    ln->wrap_align = wrap_align;
    ln->k_find = calloc(db->engine_count, sizeof *ln->k_find);
    ln->k_count = calloc(db->engine_count, sizeof *ln->k_count);
    int rc = (ln->k_find && ln->k_count) ? CLM_OK : clm_fail(CLM_E_NOMEM, "out of memory");
    for (unsigned e = 0; e < db->engine_count && rc == CLM_OK; e++) {
        cl_int err;
        ln->k_find[e] = clCreateKernel(db->engines[e].program, "clm_find", &err);
        if (err == CL_SUCCESS)
            ln->k_count[e] = clCreateKernel(db->engines[e].program, "clm_count", &err);
        if (err != CL_SUCCESS)
            rc = clm_fail_cl(err, "clCreateKernel");
    }
    if (rc == CLM_OK && db->packed) { /* every packed program has it; the first serves */
        cl_int err;
        ln->k_pack = clCreateKernel(db->engines[0].program, "clm_pack", &err);
        if (err != CL_SUCCESS)
            rc = clm_fail_cl(err, "clCreateKernel (clm_pack)");
    }
    double alloc_s = 0;
    return rc ? rc : clm_slot_open(ln, &ln->slot[0], &alloc_s);
}

void clm_scratch_free(clm_scratch *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->lanes; i++)
        lane_close(&s->lane[i]);
    free(s->zeros);
    free(s->raw);
    free(s->keys);
    free(s->tmp);
    free(s->found);
    free(s->pending);
    free(s->merged);
    free(s);
}

int clm_scratch_alloc(const clm_database *db, const clm_scratch_options *opts,
                      clm_scratch **out)
{
    if (out)
        *out = NULL;
    if (!db || !out)
        return clm_fail(CLM_E_INVALID, "clm_scratch_alloc: database and out are required");
    if (!clm_database_live(db, 0))
        return clm_fail(CLM_E_INVALID, "clm_scratch_alloc: the database was freed "
                                       "(clm_database_free), or is not from clm_compile");
    double t0 = clm_now();
    clm_device *dev = db->dev;
    clm_scratch_options o; /* the defaults, then the caller's fields (abi.c) */
    clm_scratch_options_init(&o, sizeof o);
    int rc = opts ? clm_options_read(&o, sizeof o, opts, CLM_SCRATCH_OPTIONS_V1,
                                     "clm_scratch_options", "clm_scratch_options_init")
                  : CLM_OK;
    if (rc)
        return rc;
    const struct clm_path_ops *path = NULL;
    char why[sizeof ((clm_scratch_info *)0)->data_path_choice];
    char threads_why[sizeof ((clm_scratch_info *)0)->io_threads_choice];
    unsigned threads = 0, stream_threads = 0;
    rc = clm_path_choose(dev, o.data_path, &path, why, sizeof why);
    if (rc == CLM_OK)
        rc = choose_io_threads(&threads, &stream_threads, threads_why, sizeof threads_why);
    if (rc)
        return rc;
    if (!o.slab_bytes && (rc = env_size(CLM_ENV_SLAB_BYTES, &o.slab_bytes)) != CLM_OK)
        return rc;
    if ((rc = choose_slots(&o.slots)) != CLM_OK)
        return rc;
    if (!o.slab_bytes)
        o.slab_bytes = (size_t)dev->tune.value[CLM_KNOB_SLAB]; /* the tuning's slab */
    if (o.slab_bytes > CLM_MAX_SLAB_BYTES)
        return clm_fail(CLM_E_INVALID, "slab of %zu bytes exceeds the largest slab clmatch "
                                       "supports (%u bytes)",
                        o.slab_bytes, CLM_MAX_SLAB_BYTES);
    /* a 16-byte range must always fit (pass.c splits a range down to 16 bytes): a match per
     * start and slot, two with both strands in one pass */
    const size_t least_cap = 16 * (size_t)db->slots * (db->one_pass ? 2 : 1);
    size_t cap = o.match_capacity ? o.match_capacity : DEFAULT_MATCH_CAPACITY;
    /* under a budget the initial match buffers take at most an eighth of it (they grow when
     * needed), so that small budgets go to the slab */
    if (o.max_memory && !o.match_capacity && cap > o.max_memory / 8 / (o.slots * 8))
        cap = o.max_memory / 8 / (o.slots * 8);
    if (cap < least_cap)
        cap = least_cap;
    size_t max_cap = o.match_capacity_limit ? o.match_capacity_limit : MAX_MATCH_CAPACITY;
    if (max_cap * 8 > dev->info.max_alloc_bytes)
        max_cap = (size_t)(dev->info.max_alloc_bytes / 8);
    if (cap > max_cap) /* the limit wins, but a 16-byte range must still fit */
        cap = max_cap > least_cap ? max_cap : least_cap;

    /* zero-copy reads the caller's memory in place only where host and device share it:
     * elsewhere a USE_HOST_PTR buffer is a hidden copy */
    size_t align = dev->info.mem_base_align_bits / 8;
    if (align < 16)
        align = 16;
    /* The smallest budget: the least slab a budget may shrink to, and the match buffers at
     * their least where the options leave them to the budget. Every budget from it up fits
     * (below, the match buffers give way where an eighth of the budget is too much). */
    size_t least = o.slab_bytes < CLM_MIN_BUDGET_SLAB_BYTES ? o.slab_bytes
                                                            : CLM_MIN_BUDGET_SLAB_BYTES;
    struct plan pl = {.slots = o.slots};
    plan_memory(db, path, align, least, o.match_capacity ? cap : least_cap, &pl);
    const size_t min_memory = pl.device + pl.host;
    if (o.max_memory && o.max_memory < min_memory)
        return clm_fail(CLM_E_INVALID,
                        "max_memory of %zu bytes is too small: this scratch needs at least %zu "
                        "bytes (%u slots of a %zu-byte slab + %zu bytes of overlap, data path "
                        "%s, match buffers of %zu matches)",
                        o.max_memory, min_memory, o.slots, least, pl.text_bytes - least,
                        path->name, pl.cap);
    plan_memory(db, path, align, o.slab_bytes, cap, &pl);
    if (o.max_memory && pl.device + pl.host > o.max_memory) {
        size_t fit = fit_slab(db, path, align, o.slots, o.slab_bytes, least, cap, o.max_memory);
        if (!fit) { /* the least slab, its match buffers starting with what is left */
            plan_memory(db, path, align, least, 0, &pl);
            size_t room = (o.max_memory - pl.device - pl.host) / (o.slots * 2 * sizeof(cl_uint));
            cap = cap < room ? cap : room;
            fit = least;
        }
        plan_memory(db, path, align, fit, cap, &pl);
    }
    if (o.max_memory && !o.match_capacity_limit) { /* growth stays within the budget too */
        size_t room = (o.max_memory - pl.device - pl.host) / (o.slots * 2 * sizeof(cl_uint));
        if (max_cap > cap + room)
            max_cap = cap + room;
    }
    if (pl.text_cap > dev->info.max_alloc_bytes)
        return clm_fail(CLM_E_DEVICE_MEMORY,
                        "slab of %zu bytes exceeds the largest buffer %s can allocate (%llu "
                        "bytes)",
                        pl.slab, dev->info.name, (unsigned long long)dev->info.max_alloc_bytes);

    clm_scratch *s = calloc(1, sizeof *s);
    if (!s)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    s->db = db;
    s->db_serial = db->serial;
    s->engines = db->engine_count;
    s->slots = db->slots;
    s->n_slots = o.slots;
    atomic_init(&s->owner, (uintptr_t)0);
    s->slab = pl.slab;
    s->text_bytes = pl.text_bytes;
    s->text_cap = pl.text_cap;
    s->overlap = db->max_len - 1;
    s->lead = db->lead;
    s->max_cap = max_cap > cap ? max_cap : cap;
    s->io_threads = threads;
    s->stream_io_threads = stream_threads;
    s->init_cap = cap;
    clm_scratch_info *in = &s->info;
    in->data_path = path->id;
    snprintf(in->data_path_choice, sizeof in->data_path_choice, "%s", why);
    in->slab_bytes = pl.slab;
    in->overlap_bytes = pl.text_bytes - pl.slab;
    in->slots = o.slots;
    in->io_threads = s->io_threads;
    in->stream_io_threads = s->stream_io_threads;
    snprintf(in->io_threads_choice, sizeof in->io_threads_choice, "%s", threads_why);
    in->device_bytes = pl.device;
    in->host_bytes = pl.host;
    in->memory_bytes = pl.device + pl.host;
    in->max_memory = o.max_memory;
    in->min_memory = min_memory;
    in->match_capacity = cap;
    in->match_capacity_limit = s->max_cap;

    s->zeros = calloc(CLM_COUNTER_WORDS((size_t)db->slots), sizeof *s->zeros);
    rc = s->zeros ? CLM_OK : clm_fail(CLM_E_NOMEM, "out of memory");
    if (rc == CLM_OK) { /* one lane: the database's device */
        s->lanes = 1;
        rc = lane_open(s, &s->lane[0], dev, path,
                       path->in_place && dev->info.host_unified_memory ? align : 0);
    }
    if (rc != CLM_OK) {
        clm_scratch_free(s);
        return rc;
    }
    in->alloc_seconds = clm_now() - t0;
    *out = s;
    return CLM_OK;
}

int clm_scratch_reserve(clm_scratch *s, size_t bytes)
{
    if (!s)
        return clm_fail(CLM_E_INVALID, "clm_scratch_reserve: scratch is NULL");
    int rc = clm_scratch_enter(s->db, s, "", 0, "clm_scratch_reserve");
    if (rc)
        return rc;
    /* as a scan of `bytes` sizes them: one slot below a slab, else both at a whole slab */
    size_t need = bytes >= s->slab ? s->text_bytes : bytes + s->lead + s->overlap;
    for (unsigned i = 0; i < s->lanes && rc == CLM_OK; i++) {
        struct clm_lane *ln = &s->lane[i];
        for (unsigned j = 0; j < (bytes > s->slab ? s->n_slots : 1u) && rc == CLM_OK; j++) {
            rc = clm_slot_reserve(ln, &ln->slot[j], need, &ln->stats.alloc_seconds);
            if (rc == CLM_OK) /* a packed database's 2-bit text too */
                rc = clm_slot_reserve_packed(ln, &ln->slot[j], need);
        }
    }
    clm_scratch_give(s);
    return rc;
}

int clm_scratch_get_info(const clm_scratch *s, clm_scratch_info *info, size_t size)
{
    if (!s || !info)
        return clm_fail(CLM_E_INVALID, "clm_scratch_get_info: NULL argument");
    clm_scratch_info own = s->info;
    own.allocated_bytes = 0;
    for (unsigned i = 0; i < s->lanes; i++)
        own.allocated_bytes += clm_lane_allocated_bytes(&s->lane[i]);
    return clm_copy_out(info, size, &own, sizeof own, CLM_SCRATCH_INFO_V1, "clm_scratch_info");
}

/* Add b's counters to a's. */
static void stats_add(clm_stats *a, const clm_stats *b)
{
    a->bytes += b->bytes;
    a->slabs += b->slabs;
    a->matches += b->matches;
    a->rescans += b->rescans;
    a->kernel_seconds += b->kernel_seconds;
    a->transfer_seconds += b->transfer_seconds;
    a->wall_seconds += b->wall_seconds;
    a->read_seconds += b->read_seconds;
    a->alloc_seconds += b->alloc_seconds;
    a->launch_seconds += b->launch_seconds;
    a->wait_seconds += b->wait_seconds;
    a->reader_seconds += b->reader_seconds;
}

int clm_scratch_get_stats(const clm_scratch *s, clm_stats *out, size_t size)
{
    if (!s || !out)
        return clm_fail(CLM_E_INVALID, "clm_scratch_get_stats: NULL argument");
    clm_stats own = s->stats;
    for (unsigned i = 0; i < s->lanes; i++)
        stats_add(&own, &s->lane[i].stats);
    return clm_copy_out(out, size, &own, sizeof own, CLM_STATS_V1, "clm_stats");
}

void clm_scratch_reset_stats(clm_scratch *s)
{
    if (!s)
        return;
    memset(&s->stats, 0, sizeof s->stats);
    for (unsigned i = 0; i < s->lanes; i++)
        memset(&s->lane[i].stats, 0, sizeof s->lane[i].stats);
}

/* ---- one call at a time ------------------------------------------------------------------ */

/* Its address names the calling thread (a pthread_t need not fit in an atomic). */
static _Thread_local char this_thread;

/* Take the scratch for a call of fn: CLM_E_BUSY while another call uses it, in this thread
 * (a match callback calling back in) or in another; the call that runs is not disturbed. */
int clm_scratch_take(clm_scratch *s, const char *fn)
{
    uintptr_t owner = 0, me = (uintptr_t)&this_thread;
    if (atomic_compare_exchange_strong(&s->owner, &owner, me))
        return CLM_OK;
    if (owner == me)
        return clm_fail(CLM_E_BUSY, "%s: the scratch is in use by a call of this thread: a "
                                    "match callback may not call the library on the scratch "
                                    "(or stream) of the call that runs it; use another scratch",
                        fn);
    return clm_fail(CLM_E_BUSY, "%s: the scratch is in use by a call in another thread (a "
                                "scratch serves one call at a time: one scratch per thread)",
                    fn);
}

void clm_scratch_give(clm_scratch *s)
{
    atomic_store(&s->owner, (uintptr_t)0);
}

/* CLM_E_INVALID when the scratch's database was freed (it is not read). */
int clm_scratch_live(const clm_scratch *s, const char *fn)
{
    if (clm_database_live(s->db, s->db_serial))
        return CLM_OK;
    return clm_fail(CLM_E_INVALID, "%s: the scratch's database was freed (clm_database_free); "
                                   "the scratch can only be freed",
                    fn);
}

/* Check a one-shot call's (or clm_stream_open's) arguments and take the scratch for it;
 * clm_scratch_give when done. */
int clm_scratch_enter(const clm_database *db, clm_scratch *s, const void *data, size_t len,
                      const char *fn)
{
    if (!db || !s)
        return clm_fail(CLM_E_INVALID, "%s: database and scratch are required", fn);
    int rc = clm_scratch_take(s, fn);
    if (rc)
        return rc;
    rc = clm_scratch_live(s, fn);
    if (rc == CLM_OK && s->db != db)
        rc = clm_fail(CLM_E_INVALID, "%s: the scratch was allocated for another database", fn);
    if (rc == CLM_OK && !data && len)
        rc = clm_fail(CLM_E_INVALID, "%s: data is NULL", fn);
    if (rc == CLM_OK && s->stream_open)
        rc = clm_fail(CLM_E_INVALID, "%s: a stream is open on this scratch", fn);
    if (rc)
        clm_scratch_give(s);
    return rc;
}
