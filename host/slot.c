/* Slots: what one slab in flight needs (a queue, counters, a match buffer, text buffers),
 * made when a scan first uses the slot, grown for a larger slab, freed with the scratch; and
 * the events of the slab in flight. The text buffers themselves are the data path's
 * (path.c). */
#include <stdlib.h>

#include "scratch.h"

#define ROOM_STEP ((size_t)65536) /* slot buffers sized to the input: multiples of this */

static double event_seconds(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    if (!ev || clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) || t1 < t0)
        return 0.0;
    return (double)(t1 - t0) * 1e-9;
}

void clm_release_event(cl_event *ev)
{
    if (*ev)
        clReleaseEvent(*ev);
    *ev = NULL;
}

void clm_slot_release_events(struct clm_lane *ln, struct clm_slot *sl)
{
    ln->stats.transfer_seconds += event_seconds(sl->ev_write);
    clm_release_event(&sl->ev_write);
    for (unsigned i = 0; i < sl->n_sent; i++) {
        ln->stats.transfer_seconds += event_seconds(sl->ev_sent[i]);
        clm_release_event(&sl->ev_sent[i]);
    }
    sl->n_sent = 0;
    clm_release_event(&sl->ev_read);
    for (size_t i = 0; i < sl->n_kernels; i++) {
        ln->stats.kernel_seconds += event_seconds(sl->ev_kernels[i]);
        clm_release_event(&sl->ev_kernels[i]);
    }
    sl->n_kernels = 0;
    clm_slot_unview(ln, sl);
    if (sl->wrap) { /* the kernels that read it are done (or abandoned after clFinish) */
        clReleaseMemObject(sl->wrap);
        sl->wrap = NULL;
    }
    sl->host = NULL;
}

/* clFinish, through a marker waited for first: Mesa 22.3's rusticl returns from clFinish at
 * once when the queue was flushed since its last command (each pass is), with the
 * counters' read still writing into sl->counts (bench/experiments/finish_after_flush.c). An
 * in-order queue completes its marker after everything before it. */
void clm_finish_queue(cl_command_queue queue)
{
    cl_event marker;
    if (clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker) == CL_SUCCESS) {
        clWaitForEvents(1, &marker);
        clReleaseEvent(marker);
    }
    clFinish(queue);
}

void clm_slot_abandon(struct clm_lane *ln, struct clm_slot *sl)
{
    if (sl->queue)
        clm_finish_queue(sl->queue);
    clm_slot_release_events(ln, sl);
    sl->busy = 0;
}

void clm_lane_drop(struct clm_lane *ln)
{
    for (unsigned i = 0; i < ln->s->n_slots; i++) {
        if (ln->slot[i].busy)
            clm_slot_abandon(ln, &ln->slot[i]);
        clm_slot_unfill(ln, &ln->slot[i]);
    }
}

int clm_slot_push_event(struct clm_slot *sl, cl_event ev)
{
    if (sl->n_kernels == sl->cap_kernels) {
        size_t cap = sl->cap_kernels ? sl->cap_kernels * 2 : 8;
        cl_event *p = realloc(sl->ev_kernels, cap * sizeof *p);
        if (!p) {
            clReleaseEvent(ev);
            return clm_fail(CLM_E_NOMEM, "out of memory");
        }
        sl->ev_kernels = p;
        sl->cap_kernels = cap;
    }
    sl->ev_kernels[sl->n_kernels++] = ev;
    return CLM_OK;
}

/* ---- slot buffers: created on first use, sized to the slab at hand ------------------------- */

int clm_create_buffer(clm_device *dev, cl_mem_flags flags, size_t bytes, cl_mem *out,
                      const char *what)
{
    cl_int err;
    *out = clCreateBuffer(dev->context, flags, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        return CLM_OK;
    *out = NULL;
    int rc = clm_fail_cl(err, "clCreateBuffer");
    return clm_fail(rc, "cannot allocate %zu bytes of device memory for the %s on %s: %s (%d)",
                    bytes, what, dev->info.name, clm_cl_error_name(err), (int)err);
}

/* Has the slot its queue, counters and match buffer (clm_slot_open)? */
static int slot_is_open(const struct clm_slot *sl)
{
    return sl->queue && sl->counts && sl->counter && sl->matches;
}

int clm_slot_open(struct clm_lane *ln, struct clm_slot *sl, double *alloc_s)
{
    if (slot_is_open(sl))
        return CLM_OK;
    const clm_scratch *s = ln->s;
    clm_device *dev = ln->dev;
    double t0 = clm_now();
    int rc = CLM_OK;
    if (!sl->queue) {
        cl_int err;
        sl->queue = clCreateCommandQueue(dev->context, dev->device, CL_QUEUE_PROFILING_ENABLE,
                                         &err);
        if (err != CL_SUCCESS) {
            sl->queue = NULL;
            rc = clm_fail_cl(err, "clCreateCommandQueue");
        }
    }
    if (rc == CLM_OK && !sl->counts &&
        !(sl->counts = calloc(CLM_COUNTER_WORDS((size_t)s->slots), sizeof *sl->counts)))
        rc = clm_fail(CLM_E_NOMEM, "out of memory");
    if (rc == CLM_OK && !sl->counter)
        rc = clm_create_buffer(dev, CL_MEM_READ_WRITE, clm_counter_bytes(s->slots),
                               &sl->counter, "match counter");
    if (rc == CLM_OK && !sl->matches) {
        rc = clm_create_buffer(dev, CL_MEM_WRITE_ONLY, s->init_cap * 2 * sizeof(cl_uint),
                               &sl->matches, "match buffer");
        if (rc == CLM_OK)
            sl->cap = s->init_cap;
    }
    *alloc_s += clm_now() - t0;
    return rc;
}

/* Release the slot's text buffers (it is idle and not acquired). */
static void slot_free_text(struct clm_lane *ln, struct clm_slot *sl)
{
    ln->path->free(ln, sl);
    sl->room = 0;
}

/* Bytes to allocate for `need` when `room` are there: at least twice the room (a growing
 * input regrows a few times only), in ROOM_STEP multiples, at most `most`. */
static size_t grown_room(size_t room, size_t need, size_t most)
{
    size_t want = room > need / 2 ? 2 * room : need;
    want = clm_round_up(want, ROOM_STEP);
    return want < most ? want : most;
}

int clm_slot_reserve(struct clm_lane *ln, struct clm_slot *sl, size_t need, double *alloc_s)
{
    int rc = clm_slot_open(ln, sl, alloc_s);
    if (rc || sl->room >= need)
        return rc;
    double t0 = clm_now();
    size_t room = grown_room(sl->room, need, ln->s->text_bytes);
    slot_free_text(ln, sl);
    rc = ln->path->alloc(ln, sl, room);
    if (rc == CLM_OK)
        sl->room = room;
    else
        slot_free_text(ln, sl);
    *alloc_s += clm_now() - t0;
    return rc;
}

int clm_slot_reserve_packed(struct clm_lane *ln, struct clm_slot *sl, size_t n)
{
    if (!ln->s->db->packed || sl->packed_room >= n)
        return CLM_OK;
    double t0 = clm_now();
    size_t room = grown_room(sl->packed_room, n, ln->s->text_cap);
    if (sl->packed)
        clReleaseMemObject(sl->packed); /* commands that still use it keep it alive */
    sl->packed = NULL;
    sl->packed_room = 0;
    int rc = clm_create_buffer(ln->dev, CL_MEM_READ_WRITE, CLM_PACKED_BYTES(room), &sl->packed,
                               "packed slab");
    if (rc == CLM_OK)
        sl->packed_room = room;
    ln->stats.alloc_seconds += clm_now() - t0;
    return rc;
}

void clm_slot_close(struct clm_lane *ln, struct clm_slot *sl)
{
    if (sl->busy)
        clm_slot_abandon(ln, sl);
    clm_slot_unfill(ln, sl);
    clm_slot_unview(ln, sl);
    slot_free_text(ln, sl);
    if (sl->queue) {
        clm_finish_queue(sl->queue);
        clReleaseCommandQueue(sl->queue);
    }
    if (sl->packed)
        clReleaseMemObject(sl->packed);
    clm_slot_close_compact(sl);
    if (sl->counter)
        clReleaseMemObject(sl->counter);
    if (sl->matches)
        clReleaseMemObject(sl->matches);
    free(sl->counts);
    free(sl->ev_kernels);
}

size_t clm_lane_allocated_bytes(const struct clm_lane *ln)
{
    size_t sum = 0;
    for (unsigned i = 0; i < ln->s->n_slots; i++) {
        const struct clm_slot *sl = &ln->slot[i];
        if (sl->counter)
            sum += clm_counter_bytes(ln->s->slots);
        if (sl->matches)
            sum += sl->cap * 2 * sizeof(cl_uint);
        if (sl->text)
            sum += sl->room;
        if (sl->stage || sl->svm)
            sum += sl->room;
        if (sl->heap)
            sum += sl->room;
        if (sl->packed)
            sum += CLM_PACKED_BYTES(sl->packed_room);
        sum += sl->compact_room + sl->compact_groups * sizeof(cl_uint);
    }
    return sum;
}
