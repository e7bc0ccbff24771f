/* Scanning: slabs with overlap, two pipelined slots (each with its own queue, so slab k+1
 * transfers while slab k runs and is collected), match buffers that grow (or split the range)
 * instead of truncating, sorting into text order, streams, file scans, and the data paths
 * that carry a slab from the host to the kernels. */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scratch.h"

#define DEFAULT_MATCH_CAPACITY (1u << 18)
#define MAX_MATCH_CAPACITY (1u << 24) /* beyond this a range is split instead of grown */
#define BUDGET_STEP ((size_t)4096)    /* slabs a budget shrinks are multiples of this */

/* Sort 64-bit keys: LSD radix by bytes, skipping bytes that are equal in every key (start
 * offsets use few high bits, engine indices few low ones). */
static void sort_keys(uint64_t *a, uint64_t *tmp, size_t n)
{
    if (n < 64) {
        for (size_t i = 1; i < n; i++) {
            uint64_t k = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1] > k) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = k;
        }
        return;
    }
    uint64_t *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(src[i] >> shift) & 255]++;
        if (count[(src[0] >> shift) & 255] == n)
            continue;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 255]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static int ensure_host_cap(clm_scratch *s, size_t n)
{
    if (n <= s->host_cap)
        return CLM_OK;
    size_t cap = s->host_cap ? s->host_cap : 1024;
    while (cap < n)
        cap *= 2;
    cl_uint *raw = realloc(s->raw, cap * 2 * sizeof *raw);
    if (raw)
        s->raw = raw;
    uint64_t *keys = raw ? realloc(s->keys, cap * sizeof *keys) : NULL;
    if (keys)
        s->keys = keys;
    uint64_t *tmp = keys ? realloc(s->tmp, cap * sizeof *tmp) : NULL;
    if (tmp)
        s->tmp = tmp;
    clm_match *fm = tmp && s->db->indels ? realloc(s->found, cap * sizeof *fm) : NULL;
    if (fm)
        s->found = fm;
    if (!raw || !keys || !tmp || (s->db->indels && !fm))
        return clm_fail(CLM_E_NOMEM, "out of host memory for %zu matches", n);
    s->host_cap = cap;
    return CLM_OK;
}

/* ---- one pass over a range of a slab ------------------------------------------------------ */

/* Enqueue: zero the counters, run every engine over match starts [first, end), read the
 * counters back (non-blocking; sl->ev_read completes when they are in sl->counts). */
static int enqueue_pass_calls(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end);
static int enqueue_pass(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end)
{
    double t0 = clm_now();
    int rc = enqueue_pass_calls(ln, sl, first, end);
    ln->stats.launch_seconds += clm_now() - t0;
    return rc;
}

static int enqueue_pass_calls(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end)
{
    clm_scratch *s = ln->s;
    const clm_database *db = s->db;
    /* a write from zeros rather than clEnqueueFillBuffer: oclgrind 21.10 treats filled
     * memory as uninitialised, which would hide real reports under false ones */
    cl_int err = clEnqueueWriteBuffer(sl->queue, sl->counter, CL_FALSE, 0,
                                      clm_counter_bytes(db->slots), s->zeros, 0, NULL, NULL);
    if (err)
        return clm_fail_cl(err, "clEnqueueWriteBuffer (match counter)");
    for (unsigned e = 0; e < db->engine_count; e++) {
        const struct clm_engine *en = &db->engines[e];
        if (sl->n < (s->db->indels ? en->min_m - s->db->k : en->min_m))
            continue; /* no room for these patterns in the slab */
        cl_kernel k = sl->count_only ? ln->k_count[e] : ln->k_find[e];
        cl_uint n = (cl_uint)sl->n, owned = (cl_uint)end, first32 = (cl_uint)first;
        cl_uint cap = (cl_uint)sl->cap, info = en->first;
        err = s->db->packed ? clSetKernelArg(k, CLM_ARG_TEXT, sizeof sl->packed, &sl->packed)
                            : ln->path->text_arg(sl, k, CLM_ARG_TEXT);
        err |= clSetKernelArg(k, CLM_ARG_N, sizeof n, &n);
        err |= clSetKernelArg(k, CLM_ARG_OWNED, sizeof owned, &owned);
        err |= clSetKernelArg(k, CLM_ARG_FIRST, sizeof first32, &first32);
        err |= clSetKernelArg(k, CLM_ARG_PAT, sizeof en->pat_buf, &en->pat_buf);
        err |= clSetKernelArg(k, CLM_ARG_TAB, sizeof en->tab_buf, &en->tab_buf);
        err |= clSetKernelArg(k, CLM_ARG_COUNTER, sizeof sl->counter, &sl->counter);
        err |= clSetKernelArg(k, CLM_ARG_OUT, sizeof sl->matches, &sl->matches);
        err |= clSetKernelArg(k, CLM_ARG_CAP, sizeof cap, &cap);
        err |= clSetKernelArg(k, CLM_ARG_INFO, sizeof info, &info);
        if (err)
            return clm_fail(CLM_E_OPENCL, "clSetKernelArg failed");
        size_t groups = (end - first + en->shape.span - 1) / en->shape.span;
        size_t most = (size_t)ln->dev->info.compute_units * en->shape.stage_groups;
        if (en->shape.stage && most && groups > most)
            groups = most; /* the groups take the other regions from a queue */
        size_t local = en->shape.wg, global = groups * local;
        cl_event ev;
        err = clEnqueueNDRangeKernel(sl->queue, k, 1, NULL, &global, &local, 0, NULL, &ev);
        if (err)
            return clm_fail_cl(err, "clEnqueueNDRangeKernel");
        int rc = clm_slot_push_event(sl, ev);
        if (rc)
            return rc;
    }
    clm_release_event(&sl->ev_read);
    err = clEnqueueReadBuffer(sl->queue, sl->counter, CL_FALSE, 0, clm_counter_bytes(db->slots),
                              sl->counts, 0, NULL, &sl->ev_read);
    if (err)
        return clm_fail_cl(err, "clEnqueueReadBuffer (match counter)");
    clFlush(sl->queue);
    return CLM_OK;
}

/* Wait for one of the slot's events, the time counted as waiting for the device. */
static int wait_event(struct clm_lane *ln, cl_event ev, const char *what)
{
    double t0 = clm_now();
    cl_int err = clWaitForEvents(1, &ev);
    ln->stats.wait_seconds += clm_now() - t0;
    return err ? clm_fail_cl(err, what) : CLM_OK;
}

static int wait_pass(struct clm_lane *ln, struct clm_slot *sl)
{
    return wait_event(ln, sl->ev_read, "waiting for the search kernels");
}

/* Report order: start, id, strand (+1 first), end; edits only make equal keys of
 * patterns sharing an id deterministic. */
static int cmp_match(const void *a, const void *b)
{
    const clm_match *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->strand != y->strand)
        return x->strand > y->strand ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->edits < y->edits ? -1 : x->edits > y->edits;
}

static int call_back(clm_scratch *s, const clm_match *m, clm_match_cb cb, void *ctx)
{
    s->stats.matches++;
    return cb(m, ctx) ? CLM_STOPPED : CLM_OK;
}

/* Deliver every held-back match (end of a scan or stream). */
static int deliver_pending(clm_scratch *s, clm_match_cb cb, void *ctx)
{
    int rc = CLM_OK;
    for (size_t i = 0; i < s->n_pending && rc == CLM_OK; i++)
        rc = call_back(s, &s->pending[i], cb, ctx);
    s->n_pending = 0;
    return rc;
}

/* Approximate matches with insertions/deletions: kernels report ends; the start of the best
 * alignment comes from a small DP on the host. A later range owns nominal starts from
 * range_end on, so its matches start at range_end - k or later: matches from here that
 * start before that go out now (merged in order with those held back), the rest wait. */
static int deliver_indels(struct clm_lane *ln, struct clm_slot *sl, size_t found, size_t range_end,
                          clm_match_cb cb, void *ctx)
{
    clm_scratch *s = ln->s;
    const struct clm_pattern *pats = s->db->pats;
    const unsigned char *host = NULL;
    int vrc = found ? clm_slot_view(ln, sl, &host) : CLM_OK;
    if (vrc)
        return vrc;
    for (size_t i = 0; i < found; i++) {
        uint32_t pos = s->raw[2 * i], info = s->raw[2 * i + 1];
        unsigned slot = CLM_INFO_SLOT(info), d = CLM_INFO_EDITS(info), minus = CLM_INFO_RC(info);
        const struct clm_pattern *p = &pats[slot];
        size_t start = clm_best_start((const uint8_t(*)[32])(minus ? p->rc_sets : p->sets),
                                      p->m, host, pos, 0, d, s->db->k);
        clm_match *m = &s->found[i];
        m->start = sl->base + start;
        m->end = sl->base + pos;
        m->id = p->id;
        m->strand = minus ? -1 : p->strand;
        m->edits = d;
    }
    qsort(s->found, found, sizeof *s->found, cmp_match);
    uint64_t limit = sl->base + range_end;
    limit = limit > s->db->k ? limit - s->db->k : 0;
    /* merge held-back and new matches; what starts at or after the limit is held */
    size_t total = s->n_pending + found, a = 0, b = 0, kept = 0;
    if (total > s->cap_merged) {
        clm_match *grown = realloc(s->merged, total * sizeof *grown);
        if (!grown)
            return clm_fail(CLM_E_NOMEM, "out of memory");
        s->merged = grown;
        s->cap_merged = total;
    }
    clm_match *held = s->merged;
    int rc = CLM_OK;
    while (a < s->n_pending || b < found) {
        const clm_match *m = b >= found || (a < s->n_pending &&
                                            cmp_match(&s->pending[a], &s->found[b]) <= 0)
                                 ? &s->pending[a++]
                                 : &s->found[b++];
        if (m->start >= limit)
            held[kept++] = *m;
        else if (rc == CLM_OK)
            rc = call_back(s, m, cb, ctx);
    }
    /* swap: the old held-back array is the next merge's room */
    size_t held_cap = s->cap_merged;
    s->merged = s->pending;
    s->cap_merged = s->cap_pending;
    s->pending = held;
    s->cap_pending = held_cap;
    s->n_pending = rc == CLM_OK ? kept : 0;
    return rc;
}

/* Read the pass's `found` matches (all fit), put them in text order and call back. The pass
 * covered match starts up to range_end (slab offsets). */
static int deliver(struct clm_lane *ln, struct clm_slot *sl, size_t found, size_t range_end,
                   clm_match_cb cb, void *ctx)
{
    clm_scratch *s = ln->s;
    if (found == 0 && !s->db->indels)
        return CLM_OK;
    int rc = ensure_host_cap(s, found ? found : 1);
    if (rc)
        return rc;
    double t0 = clm_now();
    cl_int err = found ? clEnqueueReadBuffer(sl->queue, sl->matches, CL_TRUE, 0,
                                             found * 2 * sizeof(cl_uint), s->raw, 0, NULL, NULL)
                       : CL_SUCCESS;
    ln->stats.wait_seconds += clm_now() - t0;
    if (err)
        return clm_fail_cl(err, "clEnqueueReadBuffer (matches)");
    if (s->db->indels)
        return deliver_indels(ln, sl, found, range_end, cb, ctx);
    const struct clm_pattern *pats = s->db->pats;
    int ends = s->db->ends;
    const unsigned *rank = s->db->rank, *unrank = s->db->unrank;
    for (size_t i = 0; i < found; i++) {
        uint32_t pos = s->raw[2 * i], info = s->raw[2 * i + 1];
        uint32_t slot = CLM_INFO_SLOT(info);
        uint64_t start = ends ? pos - pats[slot].m : pos; /* exact or substitutions only */
        uint64_t r = rank[2 * slot + CLM_INFO_RC(info)];
        s->keys[i] = start << 32 | r << 7 | CLM_INFO_EDITS(info);
    }
    sort_keys(s->keys, s->tmp, found);
    /* ranks follow (id, strand, length), so (start, rank) is report order */
    clm_match m;
    for (size_t i = 0; i < found; i++) {
        unsigned v = unrank[(s->keys[i] >> 7) & 0x1ffffffu];
        const struct clm_pattern *p = &pats[v / 2];
        m.start = sl->base + (s->keys[i] >> 32);
        m.end = m.start + p->m;
        m.id = p->id;
        m.strand = v % 2 ? -1 : p->strand;
        m.edits = (unsigned)(s->keys[i] & 0x7fu);
        if (cb(&m, ctx)) {
            s->stats.matches += i + 1;
            return CLM_STOPPED;
        }
    }
    s->stats.matches += found;
    return CLM_OK;
}

/* Replace the match buffer by one of `cap` entries; the old one stays if allocation fails. */
static int grow_matches(struct clm_lane *ln, struct clm_slot *sl, size_t cap)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ln->dev->context, CL_MEM_WRITE_ONLY, cap * 2 * sizeof(cl_uint),
                              NULL, &err);
    if (err)
        return clm_fail_cl(err, "clCreateBuffer (match buffer)");
    clReleaseMemObject(sl->matches);
    sl->matches = m;
    sl->cap = cap;
    return CLM_OK;
}

/* Split [first, end) into `pieces` ranges with 16-aligned bounds (the kernels' loads need it)
 * and collect each in turn. */
static int collect_range(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end,
                         clm_match_cb cb, void *ctx);
static int collect_pieces(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end,
                          size_t pieces, clm_match_cb cb, void *ctx)
{
    size_t step = clm_round_up((end - first + pieces - 1) / pieces, 16);
    for (size_t a = first; a < end; a += step) {
        int rc = collect_range(ln, sl, a, end - a < step ? end : a + step, cb, ctx);
        if (rc)
            return rc;
    }
    return CLM_OK;
}

/* After a pass over [first, end) found more matches than the buffer holds: grow the buffer
 * to fit them all, or, when that is more than one buffer may hold, split the range into
 * pieces that should each fit (a piece that still overflows splits again). */
static int recollect(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end,
                     size_t found, clm_match_cb cb, void *ctx)
{
    clm_scratch *s = ln->s;
    ln->stats.rescans++;
    size_t want = found + found / 8;
    if (want <= s->max_cap && grow_matches(ln, sl, want) == CLM_OK)
        return collect_range(ln, sl, first, end, cb, ctx);
    if (sl->cap < s->max_cap)
        grow_matches(ln, sl, s->max_cap); /* fewer pieces if it works; fine if not */
    size_t pieces = found / (sl->cap - sl->cap / 4) + 2;
    if (end - first <= 16)
        return clm_fail(CLM_E_DEVICE_MEMORY, "match buffer of %zu entries cannot hold the "
                                             "matches of 16 bytes", sl->cap);
    return collect_pieces(ln, sl, first, end, pieces, cb, ctx);
}

/* Collect every match starting in [first, end) of the slab on the device, synchronously.
 * Never drops a match. */
static int collect_range(struct clm_lane *ln, struct clm_slot *sl, size_t first, size_t end,
                         clm_match_cb cb, void *ctx)
{
    int rc = enqueue_pass(ln, sl, first, end);
    if (rc == CLM_OK)
        rc = wait_pass(ln, sl);
    if (rc)
        return rc;
    size_t found = sl->counts[CLM_COUNTER_MATCHES];
    if (found <= sl->cap)
        return deliver(ln, sl, found, end, cb, ctx);
    return recollect(ln, sl, first, end, found, cb, ctx);
}

/* ---- slots ------------------------------------------------------------------------------- */

/* Start the search of the slab the slot holds (slot_load_* put it there): match starts
 * [first, first + owned) of its n bytes. Asynchronous. */
static int slot_launch(struct clm_lane *ln, struct clm_slot *sl, size_t n, size_t first,
                       size_t owned, uint64_t base, int count_only)
{
    clm_scratch *s = ln->s;
    sl->busy = 1;
    sl->count_only = count_only;
    sl->base = base;
    sl->n = n;
    sl->first = first;
    sl->owned = owned;
    int rc = clm_slot_reserve_packed(ln, sl, n);
    if (rc)
        return rc;
    if (s->db->packed) { /* 2 bits per base and a validity bit, for every pass over it */
        double t0 = clm_now();
        cl_uint n32 = (cl_uint)n;
        cl_int err = ln->path->text_arg(sl, ln->k_pack, CLM_PACK_ARG_TEXT);
        err |= clSetKernelArg(ln->k_pack, CLM_PACK_ARG_N, sizeof n32, &n32);
        err |= clSetKernelArg(ln->k_pack, CLM_PACK_ARG_OUT, sizeof sl->packed, &sl->packed);
        if (err)
            return clm_fail(CLM_E_OPENCL, "clSetKernelArg (pack) failed");
        size_t global = (n + 15) / 16;
        cl_event ev;
        err = clEnqueueNDRangeKernel(sl->queue, ln->k_pack, 1, NULL, &global, NULL, 0, NULL, &ev);
        ln->stats.launch_seconds += clm_now() - t0;
        if (err)
            return clm_fail_cl(err, "clEnqueueNDRangeKernel (pack)");
        rc = clm_slot_push_event(sl, ev);
        if (rc)
            return rc;
    }
    ln->stats.slabs++;
    ln->stats.bytes += owned;
    return enqueue_pass(ln, sl, first, first + owned);
}

/* Complete the slot's slab: counts, or matches delivered in order (growing as needed). */
static int slot_finish(struct clm_lane *ln, struct clm_slot *sl, clm_match_cb cb, void *ctx,
                       uint64_t *total)
{
    clm_scratch *s = ln->s;
    if (!sl->busy)
        return CLM_OK;
    int rc = wait_pass(ln, sl);
    if (rc == CLM_OK && sl->count_only) {
        uint64_t sum = 0;
        for (unsigned e = 0; e < s->db->engine_count; e++)
            sum += sl->counts[CLM_COUNTER_COUNT(s->db->engines[e].first)];
        s->stats.matches += sum;
        if (total)
            *total += sum;
    } else if (rc == CLM_OK) {
        size_t found = sl->counts[CLM_COUNTER_MATCHES];
        uint64_t before = s->stats.matches;
        rc = found <= sl->cap ? deliver(ln, sl, found, sl->first + sl->owned, cb, ctx)
                              : recollect(ln, sl, sl->first, sl->first + sl->owned, found, cb,
                                          ctx);
        if (total)
            *total += s->stats.matches - before;
    }
    if (rc == CLM_OK || rc == CLM_STOPPED) {
        clm_slot_release_events(ln, sl);
        sl->busy = 0;
    }
    return rc;
}

/* ---- scratch ----------------------------------------------------------------------------- */

static size_t env_size(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return *end ? 0 : (size_t)x;
}

/* Threads per slab read or copy: CLMATCH_IO_THREADS, else clm_io_threads(). */
static int choose_io_threads(unsigned *out, char *why, size_t why_cap)
{
    unsigned cpus = 1;
    const char *env = getenv("CLMATCH_IO_THREADS");
    *out = clm_io_threads(&cpus);
    snprintf(why, why_cap, "auto: %u CPU%s, at most 16", cpus, cpus == 1 ? "" : "s");
    if (!env || !*env || !strcmp(env, "auto"))
        return CLM_OK;
    unsigned long v = 0;
    const char *p = env;
    while (*p >= '0' && *p <= '9' && v <= CLM_MAX_IO_THREADS)
        v = v * 10 + (unsigned long)(*p++ - '0');
    if (*p || p == env || v < 1 || v > CLM_MAX_IO_THREADS)
        return clm_fail(CLM_E_INVALID, "CLMATCH_IO_THREADS='%s' is not a thread count (1 to %d, "
                                       "or auto)",
                        env, CLM_MAX_IO_THREADS);
    *out = (unsigned)v;
    snprintf(why, why_cap, "CLMATCH_IO_THREADS=%lu", v);
    return CLM_OK;
}

/* Memory a scratch with this slab uses (clm_scratch_info): device buffers and host staging
 * of every slot, match buffers at their initial capacity. */
struct plan {
    size_t slab, text_bytes, text_cap, cap, device, host;
};

static void plan_memory(const clm_database *db, const struct clm_path_ops *path, size_t align,
                        size_t slab,
                        size_t cap, struct plan *pl)
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
    pl->device = SLOTS * dev;
    pl->host = SLOTS * pl->text_bytes; /* heap, pinned, zero-copy or SVM staging */
}

/* The largest slab (a multiple of BUDGET_STEP, at most `slab`) whose plan fits the budget;
 * 0 when none from `least` up does. */
static size_t fit_slab(const clm_database *db, const struct clm_path_ops *path, size_t align,
                       size_t slab,
                       size_t least, size_t cap, size_t budget)
{
    struct plan a, b;
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

/* Release what the lane holds (what lane_open made of it, or part of it). */
static void lane_close(struct clm_lane *ln)
{
    for (int i = 0; i < SLOTS; i++)
        clm_slot_close(ln, &ln->slot[i]);
    for (unsigned e = 0; e < ln->s->engines; e++) { /* its database may be freed already */
        if (ln->k_find && ln->k_find[e])
            clReleaseKernel(ln->k_find[e]);
        if (ln->k_count && ln->k_count[e])
            clReleaseKernel(ln->k_count[e]);
    }
    if (ln->k_pack)
        clReleaseKernel(ln->k_pack);
    free(ln->k_find);
    free(ln->k_count);
}

/* The database's kernels for the lane's device and its first slot's queue and match buffer
 * (cheap; a match capacity the device cannot allocate fails here); text buffers and the
 * second slot when a scan needs them. lane_close undoes what was made, on failure too. */
static int lane_open(clm_scratch *s, struct clm_lane *ln, clm_device *dev,
                     const struct clm_path_ops *path,
                     size_t wrap_align)
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
    clm_scratch_options o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    const struct clm_path_ops *path = NULL;
    char why[sizeof ((clm_scratch_info *)0)->data_path_choice];
    char threads_why[sizeof ((clm_scratch_info *)0)->io_threads_choice];
    unsigned threads = 0;
    int rc = clm_path_choose(dev, o.data_path, &path, why, sizeof why);
    if (rc == CLM_OK)
        rc = choose_io_threads(&threads, threads_why, sizeof threads_why);
    if (rc)
        return rc;
    if (!o.slab_bytes)
        o.slab_bytes = env_size("CLMATCH_SLAB_BYTES");
    if (!o.slab_bytes)
        o.slab_bytes = (size_t)dev->tune.value[CLM_KNOB_SLAB]; /* the tuning's slab */
    if (o.slab_bytes > CLM_MAX_SLAB_BYTES)
        return clm_fail(CLM_E_INVALID, "slab of %zu bytes exceeds the largest slab clmatch "
                                       "supports (%u bytes)",
                        o.slab_bytes, CLM_MAX_SLAB_BYTES);
    /* a 16-byte range must always fit (see collect_range) */
    const size_t least_cap = 16 * (size_t)db->slots;
    size_t cap = o.match_capacity ? o.match_capacity : DEFAULT_MATCH_CAPACITY;
    /* under a budget the initial match buffers take at most an eighth of it (they grow when
     * needed), so that small budgets go to the slab */
    if (o.max_memory && !o.match_capacity && cap > o.max_memory / 8 / (SLOTS * 8))
        cap = o.max_memory / 8 / (SLOTS * 8);
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
    struct plan pl;
    plan_memory(db, path, align, least, o.match_capacity ? cap : least_cap, &pl);
    const size_t min_memory = pl.device + pl.host;
    if (o.max_memory && o.max_memory < min_memory)
        return clm_fail(CLM_E_INVALID,
                        "max_memory of %zu bytes is too small: this scratch needs at least %zu "
                        "bytes (%d slots of a %zu-byte slab + %zu bytes of overlap, data path "
                        "%s, match buffers of %zu matches)",
                        o.max_memory, min_memory, SLOTS, least, pl.text_bytes - least,
                        path->name, pl.cap);
    plan_memory(db, path, align, o.slab_bytes, cap, &pl);
    if (o.max_memory && pl.device + pl.host > o.max_memory) {
        size_t fit = fit_slab(db, path, align, o.slab_bytes, least, cap, o.max_memory);
        if (!fit) { /* the least slab, its match buffers starting with what is left */
            plan_memory(db, path, align, least, 0, &pl);
            size_t room = (o.max_memory - pl.device - pl.host) / (SLOTS * 2 * sizeof(cl_uint));
            cap = cap < room ? cap : room;
            fit = least;
        }
        plan_memory(db, path, align, fit, cap, &pl);
    }
    if (o.max_memory && !o.match_capacity_limit) { /* growth stays within the budget too */
        size_t room = (o.max_memory - pl.device - pl.host) / (SLOTS * 2 * sizeof(cl_uint));
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
    atomic_init(&s->owner, (uintptr_t)0);
    s->slab = pl.slab;
    s->text_bytes = pl.text_bytes;
    s->text_cap = pl.text_cap;
    s->overlap = db->max_len - 1;
    s->lead = db->lead;
    s->max_cap = max_cap > cap ? max_cap : cap;
    s->io_threads = threads;
    s->init_cap = cap;
    clm_scratch_info *in = &s->info;
    in->data_path = path->id;
    snprintf(in->data_path_choice, sizeof in->data_path_choice, "%s", why);
    in->slab_bytes = pl.slab;
    in->overlap_bytes = pl.text_bytes - pl.slab;
    in->slots = SLOTS;
    in->io_threads = s->io_threads;
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

int clm_scratch_get_info(const clm_scratch *s, clm_scratch_info *info)
{
    if (!s || !info)
        return clm_fail(CLM_E_INVALID, "clm_scratch_get_info: NULL argument");
    *info = s->info;
    info->allocated_bytes = 0;
    for (unsigned i = 0; i < s->lanes; i++)
        info->allocated_bytes += clm_lane_allocated_bytes(&s->lane[i]);
    return CLM_OK;
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

int clm_scratch_get_stats(const clm_scratch *s, clm_stats *out)
{
    if (!s || !out)
        return clm_fail(CLM_E_INVALID, "clm_scratch_get_stats: NULL argument");
    *out = s->stats;
    for (unsigned i = 0; i < s->lanes; i++)
        stats_add(out, &s->lane[i].stats);
    return CLM_OK;
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
static int scratch_take(clm_scratch *s, const char *fn)
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

static void scratch_give(clm_scratch *s)
{
    atomic_store(&s->owner, (uintptr_t)0);
}

/* CLM_E_INVALID when the scratch's database was freed (it is not read). */
static int scratch_live(const clm_scratch *s, const char *fn)
{
    if (clm_database_live(s->db, s->db_serial))
        return CLM_OK;
    return clm_fail(CLM_E_INVALID, "%s: the scratch's database was freed (clm_database_free); "
                                   "the scratch can only be freed",
                    fn);
}

/* Check a one-shot call's (or clm_stream_open's) arguments and take the scratch for it;
 * scratch_give when done. */
static int enter_scan(const clm_database *db, clm_scratch *s, const void *data, size_t len,
                      const char *fn)
{
    if (!db || !s)
        return clm_fail(CLM_E_INVALID, "%s: database and scratch are required", fn);
    int rc = scratch_take(s, fn);
    if (rc)
        return rc;
    rc = scratch_live(s, fn);
    if (rc == CLM_OK && s->db != db)
        rc = clm_fail(CLM_E_INVALID, "%s: the scratch was allocated for another database", fn);
    if (rc == CLM_OK && !data && len)
        rc = clm_fail(CLM_E_INVALID, "%s: data is NULL", fn);
    if (rc == CLM_OK && s->stream_open)
        rc = clm_fail(CLM_E_INVALID, "%s: a stream is open on this scratch", fn);
    if (rc)
        scratch_give(s);
    return rc;
}

/* ---- one-shot scans ------------------------------------------------------------------- */

/* The slab (of `slab` owned bytes at most) of an input of len bytes that owns the match starts
 * from off: *owned of them,
 * *pre bytes kept before, n bytes in all (returned). */
static size_t slab_extent(const clm_scratch *s, size_t slab, uint64_t len, uint64_t off,
                          size_t *owned, size_t *pre)
{
    *owned = len - off < slab ? (size_t)(len - off) : slab;
    *pre = off < s->lead ? (size_t)off : s->lead;
    uint64_t end = len - off - *owned < s->overlap ? len : off + *owned + s->overlap;
    return (size_t)(end - (off - *pre));
}

static size_t file_slab(const clm_scratch *s)
{
    return s->slab < CLM_FILE_SLAB_MAX ? s->slab : CLM_FILE_SLAB_MAX;
}

/* After the last launch (k slabs launched): the slabs still in flight collected in slab order
 * and held matches delivered, or, after a stop or failure, what the slots hold dropped. */
static int end_slabs(struct clm_lane *ln, uint64_t k, int rc, int count_only, clm_match_cb cb,
                     void *ctx, uint64_t *total)
{
    clm_scratch *s = ln->s;
    for (uint64_t i = k > SLOTS ? k - SLOTS : 0; i < k && rc == CLM_OK; i++)
        rc = slot_finish(ln, &ln->slot[i % SLOTS], cb, ctx, total); /* in slab order */
    if (rc == CLM_OK && !count_only)
        rc = deliver_pending(s, cb, ctx);
    s->n_pending = 0; /* stopped or failed: what was held is dropped with the scan */
    clm_lane_drop(ln);
    return rc;
}

/* The caller's memory, slab after slab: each owns `slab` bytes of match starts, keeps `lead`
 * bytes before them (approximate search: alignments may begin before the nominal start) and
 * `overlap` after (the longest pattern - 1). Slab k+1 is loaded and launched before slab k is
 * collected, so copying and the search overlap. */
static int run_memory(struct clm_lane *ln, const unsigned char *data, uint64_t len, int count_only,
                      clm_match_cb cb, void *ctx, uint64_t *total)
{
    clm_scratch *s = ln->s;
    int rc = CLM_OK;
    uint64_t k = 0; /* slabs launched; slab k goes to slot k % SLOTS */
    const size_t slab = s->slab;
    for (uint64_t off = 0; off < len && rc == CLM_OK; off += slab, k++) {
        size_t owned, pre, shift = 0;
        size_t n = slab_extent(s, slab, len, off, &owned, &pre);
        if (n < s->db->min_match)
            break; /* no match fits in what is left */
        struct clm_slot *sl = &ln->slot[k % SLOTS];
        /* its last slab is the oldest in flight: collect it (the others keep the device
         * busy meanwhile), then load this one while they run */
        if (sl->busy && (rc = slot_finish(ln, sl, cb, ctx, total)) != CLM_OK)
            break;
        rc = clm_slot_load_memory(ln, sl, data + (off - pre), n, (size_t)(off - pre), &shift);
        if (rc == CLM_OK)
            rc = slot_launch(ln, sl, n + shift, pre + shift, owned, off - pre - shift,
                             count_only);
    }
    return end_slabs(ln, k, rc, count_only, cb, ctx, total);
}

/* ---- files: a pool of reader threads ------------------------------------------------------ */

/* Slab k of a file: its bytes [from, from + n), the `owned` match starts after `pre` bytes. */
struct extent {
    uint64_t from;
    size_t n, owned, pre;
};

/* 0 when the file has no slab k (or none a match fits in). */
static int extent_of(const clm_scratch *s, size_t slab, uint64_t len, uint64_t k,
                     struct extent *e)
{
    uint64_t off = k * slab;
    if (off >= len)
        return 0;
    e->n = slab_extent(s, slab, len, off, &e->owned, &e->pre);
    e->from = off - e->pre;
    return e->n >= s->db->min_match;
}

/* Queue the read of a slab into the slot's staging (the input starts at file offset base).
 * The slab the slot held goes first: its
 * transfer done where `early` (the device has its copy; its search may still run), else all
 * of it collected. Every slot's staging holds `most` bytes, so one in flight never regrows. */
static int file_prepare(struct clm_lane *ln, clm_reader *pool, struct clm_read *rd,
                        struct clm_slot *sl, const struct extent *e, uint64_t base, size_t most,
                        int early, clm_match_cb cb, void *ctx, uint64_t *total)
{
    int rc = CLM_OK;
    if (sl->busy)
        rc = early ? wait_event(ln, sl->ev_write, "clWaitForEvents (text transfer)")
                   : slot_finish(ln, sl, cb, ctx, total);
    unsigned char *dst;
    if (rc == CLM_OK)
        rc = clm_slot_acquire(ln, sl, most, &dst);
    return rc ? rc : clm_reader_submit(pool, rd, dst, e->n, base + e->from);
}

/* Launch a slab once its read is complete (after collecting the slot's last slab, where
 * file_prepare left it in flight). */
static int file_launch(struct clm_lane *ln, clm_reader *pool, struct clm_read *rd,
                       struct clm_slot *sl, const struct extent *e, int count_only,
                       clm_match_cb cb, void *ctx, uint64_t *total)
{
    double t0 = clm_now();
    int rc = clm_reader_wait(pool, rd);
    ln->stats.read_seconds += clm_now() - t0;
    if (rc == CLM_OK && sl->busy)
        rc = slot_finish(ln, sl, cb, ctx, total);
    if (rc == CLM_OK)
        rc = clm_slot_commit(ln, sl, e->n);
    return rc ? rc : slot_launch(ln, sl, e->n, e->pre, e->owned, e->from, count_only);
}

/* A file's bytes [base, base + len), slab after slab as run_memory's; offsets count from
 * base. Its reads go to a pool of threads that take them
 * in pieces, so they go on with slab k + 1 while the caller waits for slab k, launches it and
 * collects older ones, and buffers for slot 1 are made while slab 0 is read. On the copy and
 * pinned paths the device has its own copy of a slab once its transfer is done, so the next
 * read goes into its staging while its search still runs (not with indels: their matches'
 * best starts are found in the staging when the slab is collected). */
static int run_file_slabs(struct clm_lane *ln, int fd, uint64_t base, uint64_t len, int count_only,
                          clm_match_cb cb, void *ctx, uint64_t *total)
{
    clm_scratch *s = ln->s;
    const size_t slab = file_slab(s);
    const int early = ln->path->device_copy &&
                      !s->db->indels;
    struct extent ext[SLOTS];
    struct clm_read reads[SLOTS];
    memset(ext, 0, sizeof ext);
    /* the largest slab: the second (it keeps the lead and the overlap), or the only one */
    size_t most = extent_of(s, slab, len, 1, &ext[1]) ? ext[1].n : 0;
    int have = extent_of(s, slab, len, 0, &ext[0]);
    if (ext[0].n > most)
        most = ext[0].n;
    clm_reader *pool = NULL;
    int rc = clm_reader_open(fd, s->io_threads, len, &pool);
    if (rc == CLM_OK && have)
        rc = file_prepare(ln, pool, &reads[0], &ln->slot[0], &ext[0], base, most, early, cb, ctx,
                          total);
    uint64_t k = 0; /* slabs launched */
    while (rc == CLM_OK && have) {
        unsigned now = k % SLOTS, next = (k + 1) % SLOTS;
        have = extent_of(s, slab, len, k + 1, &ext[next]);
        if (have)
            rc = file_prepare(ln, pool, &reads[next], &ln->slot[next], &ext[next], base, most,
                              early, cb, ctx, total);
        if (rc == CLM_OK)
            rc = file_launch(ln, pool, &reads[now], &ln->slot[now], &ext[now], count_only, cb,
                             ctx, total);
        if (rc == CLM_OK)
            k++;
    }
    ln->stats.reader_seconds += clm_reader_close(pool); /* before the slots are dropped */
    return end_slabs(ln, k, rc, count_only, cb, ctx, total);
}

/* A one-shot scan of the caller's memory (data) or of a file's bytes [base, base + len) (fd),
 * its wall time added to the scratch's stats. */
static int run_slabs(clm_scratch *s, const unsigned char *data, int fd, uint64_t base,
                     uint64_t len, int count_only, clm_match_cb cb, void *ctx, uint64_t *total)
{
    double t0 = clm_now();
    struct clm_lane *ln = &s->lane[0]; /* one device */
    int rc = data ? run_memory(ln, data, len, count_only, cb, ctx, total)
                  : run_file_slabs(ln, fd, base, len, count_only, cb, ctx, total);
    s->stats.wall_seconds += clm_now() - t0;
    return rc;
}

int clm_scan(const clm_database *db, clm_scratch *s, const void *data, size_t len,
             clm_match_cb cb, void *ctx)
{
    int rc = enter_scan(db, s, data, len, "clm_scan");
    if (rc)
        return rc;
    if (!cb)
        rc = clm_fail(CLM_E_INVALID, "clm_scan: callback is required (use clm_count to count)");
    else
        rc = run_slabs(s, data ? data : (const void *)"", -1, 0, len, 0, cb, ctx, NULL);
    scratch_give(s);
    return rc;
}

int clm_count(const clm_database *db, clm_scratch *s, const void *data, size_t len,
              uint64_t *count)
{
    int rc = enter_scan(db, s, data, len, "clm_count");
    if (rc)
        return rc;
    if (!count) {
        rc = clm_fail(CLM_E_INVALID, "clm_count: count is required");
    } else {
        *count = 0;
        rc = run_slabs(s, data ? data : (const void *)"", -1, 0, len, 1, NULL, NULL, count);
    }
    scratch_give(s);
    return rc;
}

/* A one-shot scan of bytes [offset, offset + length) of the regular file behind fd (length
 * CLM_FD_TO_END: up to its size from fstat), read with pread. */
static int run_file(clm_scratch *s, int fd, uint64_t offset, uint64_t length, const char *fn,
                    int count_only, clm_match_cb cb, void *ctx, uint64_t *total)
{
    struct stat st;
    if (fd < 0)
        return clm_fail(CLM_E_INVALID, "%s: fd %d is not a file descriptor", fn, fd);
    if (fstat(fd, &st) != 0)
        return clm_fail(CLM_E_IO, "%s: fstat of fd %d failed: %s", fn, fd, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return clm_fail(CLM_E_IO, "%s: fd %d: %s", fn, fd, strerror(EISDIR));
    if (!S_ISREG(st.st_mode))
        return clm_fail(CLM_E_IO, "%s: fd %d is not a regular file (a pipe, socket or device): "
                                  "it cannot be read with pread; stream it with "
                                  "clm_stream_write",
                        fn, fd);
    const uint64_t size = (uint64_t)st.st_size;
    if (length == CLM_FD_TO_END)
        length = offset < size ? size - offset : 0; /* past the end: nothing left to read */
    else if (offset > size || length > size - offset)
        return clm_fail(CLM_E_INVALID,
                        "%s: range [%llu, %llu + %llu) of fd %d reaches past the end of the "
                        "file (%llu bytes)",
                        fn, (unsigned long long)offset, (unsigned long long)offset,
                        (unsigned long long)length, fd, (unsigned long long)size);
    return run_slabs(s, NULL, fd, offset, length, count_only, cb, ctx, total);
}

/* clm_scan_fd and clm_scan_fd_range (range: the one called, for messages). */
static int scan_fd(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                   uint64_t length, clm_match_cb cb, void *ctx, int range)
{
    const char *fn = range ? "clm_scan_fd_range" : "clm_scan_fd";
    int rc = enter_scan(db, s, "", 0, fn);
    if (rc)
        return rc;
    if (!cb)
        rc = clm_fail(CLM_E_INVALID, "%s: callback is required (use %s to count)", fn,
                      range ? "clm_count_fd_range" : "clm_count_fd");
    else
        rc = run_file(s, fd, offset, length, fn, 0, cb, ctx, NULL);
    scratch_give(s);
    return rc;
}

/* clm_count_fd and clm_count_fd_range. */
static int count_fd(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                    uint64_t length, uint64_t *count, int range)
{
    const char *fn = range ? "clm_count_fd_range" : "clm_count_fd";
    int rc = enter_scan(db, s, "", 0, fn);
    if (rc)
        return rc;
    if (!count) {
        rc = clm_fail(CLM_E_INVALID, "%s: count is required", fn);
    } else {
        *count = 0;
        rc = run_file(s, fd, offset, length, fn, 1, NULL, NULL, count);
    }
    scratch_give(s);
    return rc;
}

int clm_scan_fd(const clm_database *db, clm_scratch *s, int fd, clm_match_cb cb, void *ctx)
{
    return scan_fd(db, s, fd, 0, CLM_FD_TO_END, cb, ctx, 0);
}

int clm_count_fd(const clm_database *db, clm_scratch *s, int fd, uint64_t *count)
{
    return count_fd(db, s, fd, 0, CLM_FD_TO_END, count, 0);
}

int clm_scan_fd_range(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                      uint64_t length, clm_match_cb cb, void *ctx)
{
    return scan_fd(db, s, fd, offset, length, cb, ctx, 1);
}

int clm_count_fd_range(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                       uint64_t length, uint64_t *count)
{
    return count_fd(db, s, fd, offset, length, count, 1);
}

/* ---- streams ------------------------------------------------------------------------------- */

static int stream_failed(clm_stream *st, int rc);

int clm_stream_open(const clm_database *db, clm_scratch *s, unsigned flags, clm_stream **out)
{
    if (out)
        *out = NULL;
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_stream_open: out is required");
    int rc = enter_scan(db, s, "", 0, "clm_stream_open");
    if (rc)
        return rc;
    clm_stream *st = NULL;
    if (flags & ~CLM_STREAM_COUNT_ONLY)
        rc = clm_fail(CLM_E_INVALID, "clm_stream_open: unknown flags");
    else if (!(st = calloc(1, sizeof *st)))
        rc = clm_fail(CLM_E_NOMEM, "out of memory");
    if (rc == CLM_OK) {
        st->db = db;
        st->s = s;
        st->ln = &s->lane[0]; /* one device */
        st->flags = flags;
        s->stream_open = 1;
        s->n_pending = 0;
        *out = st;
    }
    scratch_give(s);
    return rc;
}

static int stream_check(clm_stream *st, clm_match_cb cb, const char *fn)
{
    if (st->dead)
        return clm_fail(CLM_E_INVALID, "%s: the stream stopped or failed earlier; close it", fn);
    if (!cb && !(st->flags & CLM_STREAM_COUNT_ONLY))
        return clm_fail(CLM_E_INVALID, "%s: callback is required", fn);
    return CLM_OK;
}

/* Check a stream call's arguments and take the stream's scratch for it; scratch_give when
 * done. */
static int enter_stream(clm_stream *st, clm_match_cb cb, const char *fn)
{
    if (!st)
        return clm_fail(CLM_E_INVALID, "%s: stream is NULL", fn);
    int rc = scratch_take(st->s, fn);
    if (rc)
        return rc;
    rc = scratch_live(st->s, fn);
    if (rc == CLM_OK)
        rc = stream_check(st, cb, fn);
    if (rc)
        scratch_give(st->s);
    return rc;
}

/* Launch the current staging's [0, fill) owning starts [first, first + owned); carry what the
 * next one needs (its lead and the overlap) to the other slot's staging first, since a
 * launched staging may no longer be read on the host. */
static int stream_dispatch(clm_stream *st, size_t owned, clm_match_cb cb, void *ctx)
{
    clm_scratch *s = st->s;
    struct clm_lane *ln = st->ln;
    struct clm_slot *cur = &ln->slot[st->cur];
    int other = (st->cur + 1) % SLOTS, count_only = (st->flags & CLM_STREAM_COUNT_ONLY) != 0;
    int rc = CLM_OK;
    if (ln->slot[other].busy) { /* the oldest slab in flight: its staging is filled next */
        rc = slot_finish(ln, &ln->slot[other], cb, ctx, &st->total);
        if (rc)
            return rc;
    }
    size_t next_owned = st->first + owned; /* in this staging */
    size_t next_lead = st->base + next_owned < s->lead ? st->base + next_owned : s->lead;
    size_t keep_from = next_owned - next_lead, carry = st->fill - keep_from;
    if (carry) {
        unsigned char *src, *dst;
        if ((rc = clm_slot_acquire(ln, cur, s->text_bytes, &src)) != CLM_OK ||
            (rc = clm_slot_acquire(ln, &ln->slot[other], s->text_bytes, &dst)) != CLM_OK)
            return rc;
        memcpy(dst, src + keep_from, carry);
    }
    if (st->fill >= st->db->min_match) {
        rc = clm_slot_commit(ln, cur, st->fill);
        if (rc == CLM_OK)
            rc = slot_launch(ln, cur, st->fill, st->first, owned, st->base, count_only);
        if (rc)
            return rc;
    } /* else the staging stays acquired: it is filled again when its turn comes */
    st->cur = other;
    st->base += keep_from;
    st->first = next_lead;
    st->fill = carry;
    return CLM_OK;
}

static int stream_failed(clm_stream *st, int rc)
{
    if (rc != CLM_OK) {
        st->dead = 1;
        st->s->n_pending = 0;
        clm_lane_drop(st->ln);
    }
    return rc;
}

/* Collect every slab in flight, oldest first. */
static int stream_finish_all(clm_stream *st, clm_match_cb cb, void *ctx)
{
    int rc = CLM_OK;
    for (int i = 1; i < SLOTS && rc == CLM_OK; i++)
        rc = slot_finish(st->ln, &st->ln->slot[(st->cur + i) % SLOTS], cb, ctx, &st->total);
    return rc;
}

int clm_stream_write(clm_stream *st, const void *data, size_t len, clm_match_cb cb, void *ctx)
{
    int rc = enter_stream(st, cb, "clm_stream_write");
    if (rc)
        return rc;
    clm_scratch *s = st->s;
    if (!data && len) {
        scratch_give(s);
        return clm_fail(CLM_E_INVALID, "clm_stream_write: data is NULL");
    }
    double t0 = clm_now();
    const unsigned char *p = data;
    while (len && rc == CLM_OK) {
        /* a staging is full with its lead (none for the first), a slab and the overlap */
        size_t full = st->first + s->slab + s->overlap;
        size_t take = full - st->fill < len ? full - st->fill : len;
        unsigned char *stage;
        /* a stream does not know how much is coming: whole slabs */
        if ((rc = clm_slot_acquire(st->ln, &st->ln->slot[st->cur], s->text_bytes, &stage)) != CLM_OK)
            break;
        double t1 = clm_now();
        clm_parallel_copy(stage + st->fill, p, take, s->io_threads);
        s->stats.read_seconds += clm_now() - t1;
        st->fill += take;
        p += take;
        len -= take;
        if (st->fill == full)
            rc = stream_dispatch(st, s->slab, cb, ctx);
    }
    s->stats.wall_seconds += clm_now() - t0;
    rc = stream_failed(st, rc);
    scratch_give(s);
    return rc;
}

int clm_stream_flush(clm_stream *st, clm_match_cb cb, void *ctx)
{
    int rc = enter_stream(st, cb, "clm_stream_flush");
    if (rc)
        return rc;
    double t0 = clm_now();
    if (st->fill > st->first + st->s->overlap)
        rc = stream_dispatch(st, st->fill - st->first - st->s->overlap, cb, ctx);
    if (rc == CLM_OK)
        rc = stream_finish_all(st, cb, ctx);
    st->s->stats.wall_seconds += clm_now() - t0;
    rc = stream_failed(st, rc);
    scratch_give(st->s);
    return rc;
}

int clm_stream_close(clm_stream *st, clm_match_cb cb, void *ctx, uint64_t *total)
{
    if (!st)
        return clm_fail(CLM_E_INVALID, "clm_stream_close: stream is NULL");
    clm_scratch *s = st->s;
    int rc = scratch_take(s, "clm_stream_close");
    if (rc)
        return rc; /* the call that runs goes on with the stream */
    int was_dead = st->dead;
    if (!was_dead) /* a freed database: nothing is searched, the stream closes with the error */
        rc = scratch_live(s, "clm_stream_close");
    if (rc == CLM_OK && !was_dead)
        rc = stream_check(st, cb, "clm_stream_close");
    double t0 = clm_now();
    if (rc == CLM_OK && !was_dead && st->fill > st->first) /* the tail owns all its starts */
        rc = stream_dispatch(st, st->fill - st->first, cb, ctx);
    if (rc == CLM_OK && !was_dead)
        rc = stream_finish_all(st, cb, ctx);
    if (rc == CLM_OK && !was_dead && !(st->flags & CLM_STREAM_COUNT_ONLY)) {
        uint64_t before = st->s->stats.matches;
        rc = deliver_pending(st->s, cb, ctx);
        st->total += st->s->stats.matches - before;
    }
    st->s->n_pending = 0;
    stream_failed(st, rc);
    clm_lane_drop(st->ln);
    st->s->stats.wall_seconds += clm_now() - t0;
    if (total)
        *total = st->total;
    s->stream_open = 0;
    free(st);
    scratch_give(s);
    return rc;
}
