/* One pass of the search kernels over a range of a slab (the counters zeroed, every engine
 * launched with its arguments through cl/contract.h's CLM_ARG_*, the counters read back), and
 * the collection of a slab's matches: a match buffer too small for them grows, or the range
 * splits, so that no match is ever dropped. */
#include "scratch.h"

/* ---- one pass over a range of a slab ------------------------------------------------------ */

cl_int clm_engine_enqueue(const clm_device *dev, const struct clm_engine *en, cl_kernel k,
                          cl_command_queue q, size_t n, size_t first, size_t end,
                          cl_mem counter, cl_mem out, size_t cap, cl_event *ev)
{
    cl_uint n32 = (cl_uint)n, owned = (cl_uint)end, first32 = (cl_uint)first;
    cl_uint cap32 = (cl_uint)cap, info = en->first;
    cl_int err = clSetKernelArg(k, CLM_ARG_N, sizeof n32, &n32);
    err |= clSetKernelArg(k, CLM_ARG_OWNED, sizeof owned, &owned);
    err |= clSetKernelArg(k, CLM_ARG_FIRST, sizeof first32, &first32);
    err |= clSetKernelArg(k, CLM_ARG_PAT, sizeof en->pat_buf, &en->pat_buf);
    err |= clSetKernelArg(k, CLM_ARG_TAB, sizeof en->tab_buf, &en->tab_buf);
    err |= clSetKernelArg(k, CLM_ARG_COUNTER, sizeof counter, &counter);
    err |= clSetKernelArg(k, CLM_ARG_OUT, sizeof out, &out);
    err |= clSetKernelArg(k, CLM_ARG_CAP, sizeof cap32, &cap32);
    err |= clSetKernelArg(k, CLM_ARG_INFO, sizeof info, &info);
    if (err)
        return CL_INVALID_KERNEL_ARGS;
    size_t groups = (end - first + en->shape.span - 1) / en->shape.span;
    size_t most = (size_t)dev->info.compute_units * en->shape.stage_groups;
    /* the groups take the other regions from a queue; on llvmpipe (a loop budget) one group
     * per region: a group's loop passes grow with its regions past the budget, and even
     * under it the queued walks lost matches there (test_stage.c queue-long) */
    if (en->shape.stage && most && groups > most && !dev->loop_budget)
        groups = most;
    size_t local = en->shape.wg, global = groups * local;
    return clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, ev);
}

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
        err = s->db->packed ? clSetKernelArg(k, CLM_ARG_TEXT, sizeof sl->packed, &sl->packed)
                            : clm_slot_text_arg(ln, sl, k, CLM_ARG_TEXT);
        if (err)
            return clm_fail(CLM_E_OPENCL, "clSetKernelArg failed");
        cl_event ev;
        err = clm_engine_enqueue(ln->dev, en, k, sl->queue, sl->n, first, end, sl->counter,
                                 sl->matches, sl->cap, &ev);
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
int clm_lane_wait(struct clm_lane *ln, cl_event ev, const char *what)
{
    double t0 = clm_now();
    cl_int err = clWaitForEvents(1, &ev);
    ln->stats.wait_seconds += clm_now() - t0;
    return err ? clm_fail_cl(err, what) : CLM_OK;
}

static int wait_pass(struct clm_lane *ln, struct clm_slot *sl)
{
    return clm_lane_wait(ln, sl->ev_read, "waiting for the search kernels");
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
        return clm_deliver(ln, sl, found, end, cb, ctx);
    return recollect(ln, sl, first, end, found, cb, ctx);
}

/* ---- a slab in flight --------------------------------------------------------------------- */

/* Start the search of the slab the slot holds (clm_slot_load_memory or clm_slot_commit put
 * it there): match starts [first, first + owned) of its n bytes. Asynchronous. */
int clm_slot_launch(struct clm_lane *ln, struct clm_slot *sl, size_t n, size_t first,
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
        cl_int err = clm_slot_text_arg(ln, sl, ln->k_pack, CLM_PACK_ARG_TEXT);
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
int clm_slot_finish(struct clm_lane *ln, struct clm_slot *sl, clm_match_cb cb, void *ctx,
                    uint64_t *total)
{
    clm_scratch *s = ln->s;
    if (!sl->busy)
        return CLM_OK;
    int rc = wait_pass(ln, sl);
    if (rc == CLM_OK)
        rc = clm_slot_compact_verify(sl);
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
        rc = found <= sl->cap ? clm_deliver(ln, sl, found, sl->first + sl->owned, cb, ctx)
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
