/* Data paths: how a slab gets from the host to the kernels. Each path (copy, pinned,
 * zero-copy, svm) is one entry of the table below, with the operations a slot's slab needs;
 * the clm_slot_* functions here are what the rest of the scan calls, whatever the path. Which
 * path a scratch takes (the option, CLMATCH_DATA_PATH, the automatic table by device type)
 * is chosen here too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

/* ---- the kernels read a buffer: sl->text (or sl->wrap, caller memory in place) ------------- */

static void free_text(struct clm_lane *ln, struct clm_slot *sl)
{
    (void)ln;
    if (sl->text)
        clReleaseMemObject(sl->text);
    sl->text = NULL;
}

static cl_int map_text(struct clm_slot *sl)
{
    cl_int err;
    sl->view = clEnqueueMapBuffer(sl->queue, sl->text, CL_TRUE, CL_MAP_READ, 0, sl->n, 0, NULL,
                                  NULL, &err);
    return err;
}

static void unmap_text(struct clm_slot *sl)
{
    clEnqueueUnmapMemObject(sl->queue, sl->text, sl->view, 0, NULL, NULL);
}

static cl_int text_buffer_arg(const struct clm_slot *sl, cl_kernel k, cl_uint arg)
{
    cl_mem m = sl->wrap ? sl->wrap : sl->text;
    return clSetKernelArg(k, arg, sizeof m, &m);
}

/* The caller's bytes through the staging: a copy (over io_threads threads), then the
 * path's commit. */
static int load_staged(struct clm_lane *ln, struct clm_slot *sl, const unsigned char *p,
                       size_t n, size_t room, size_t *shift)
{
    (void)room;
    (void)shift;
    unsigned char *dst;
    int rc = clm_slot_acquire(ln, sl, n, &dst);
    if (rc)
        return rc;
    double t0 = clm_now();
    clm_parallel_copy(dst, p, n, ln->s->io_threads);
    ln->stats.read_seconds += clm_now() - t0;
    rc = clm_slot_commit(ln, sl, n);
    sl->host = p; /* readable without mapping the staging */
    return rc;
}

/* Copy and pinned: the staging's bytes [from, to) written to the device buffer (from pinned
 * staging this runs at the bus speed). */
static int write_range(struct clm_slot *sl, const unsigned char *p, size_t from, size_t to,
                       cl_event *ev)
{
    cl_int err = clEnqueueWriteBuffer(sl->queue, sl->text, CL_FALSE, from, to - from, p + from,
                                      0, NULL, ev);
    return err ? clm_fail_cl(err, "clEnqueueWriteBuffer (text)") : CLM_OK;
}

/* Copy and pinned: what clm_slot_send has not written yet; where it wrote everything, its
 * last write (the queue is in order) is the slab's transfer. */
static int write_text(struct clm_slot *sl, unsigned char *p, size_t n)
{
    sl->host = p;
    if (sl->sent < n || sl->n_sending == 0)
        return write_range(sl, p, sl->sent, n, &sl->ev_write);
    sl->ev_write = sl->ev_sending[--sl->n_sending];
    return CLM_OK;
}

/* Copy and pinned: their staging is never mapped while it is filled. */
static void unfill_nothing(struct clm_slot *sl)
{
    (void)sl;
}

/* ---- copy: the caller's memory written to a device buffer ---------------------------------- */

static int copy_alloc(struct clm_lane *ln, struct clm_slot *sl, size_t room)
{
    /* the heap staging of streams and fd scans comes with clm_slot_acquire */
    return clm_create_buffer(ln->dev, CL_MEM_READ_ONLY, room, &sl->text, "text slab");
}

static void copy_free(struct clm_lane *ln, struct clm_slot *sl)
{
    free_text(ln, sl);
    free(sl->heap);
    sl->heap = NULL;
}

static int copy_acquire(struct clm_slot *sl)
{
    if (!sl->heap && !(sl->heap = malloc(sl->room)))
        return clm_fail(CLM_E_NOMEM, "out of host memory for a %zu-byte slab buffer",
                        sl->room);
    sl->fill = sl->heap;
    return CLM_OK;
}

/* Straight from the caller's memory: no staging. */
static int copy_load(struct clm_lane *ln, struct clm_slot *sl, const unsigned char *p,
                     size_t n, size_t room, size_t *shift)
{
    (void)room;
    (void)shift;
    int rc = clm_slot_reserve(ln, sl, n, &ln->stats.alloc_seconds);
    if (rc)
        return rc;
    double t0 = clm_now();
    cl_int err = clEnqueueWriteBuffer(sl->queue, sl->text, CL_FALSE, 0, n, p, 0, NULL,
                                      &sl->ev_write);
    ln->stats.launch_seconds += clm_now() - t0;
    sl->host = p;
    return err ? clm_fail_cl(err, "clEnqueueWriteBuffer (text)") : CLM_OK;
}

/* ---- pinned: through mapped CL_MEM_ALLOC_HOST_PTR staging to a device buffer ---------------- */

static int pinned_alloc(struct clm_lane *ln, struct clm_slot *sl, size_t room)
{
    int rc = clm_create_buffer(ln->dev, CL_MEM_READ_ONLY, room, &sl->text, "text slab");
    if (rc == CLM_OK)
        rc = clm_create_buffer(ln->dev, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, room,
                               &sl->stage, "pinned staging buffer");
    if (rc)
        return rc;
    cl_int err;
    sl->stage_ptr = clEnqueueMapBuffer(sl->queue, sl->stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                       0, room, 0, NULL, NULL, &err);
    if (err) {
        sl->stage_ptr = NULL;
        return clm_fail_cl(err, "clEnqueueMapBuffer (pinned staging buffer)");
    }
    return CLM_OK;
}

static void pinned_free(struct clm_lane *ln, struct clm_slot *sl)
{
    if (sl->stage && sl->stage_ptr)
        clEnqueueUnmapMemObject(sl->queue, sl->stage, sl->stage_ptr, 0, NULL, NULL);
    sl->stage_ptr = NULL;
    if (sl->stage)
        clReleaseMemObject(sl->stage);
    sl->stage = NULL;
    free_text(ln, sl);
}

static int pinned_acquire(struct clm_slot *sl)
{
    sl->fill = sl->stage_ptr; /* mapped for the scratch's life */
    return CLM_OK;
}

/* ---- zero-copy: the kernels read host memory ------------------------------------------------ */

static int zero_copy_alloc(struct clm_lane *ln, struct clm_slot *sl, size_t room)
{
    return clm_create_buffer(ln->dev, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_ONLY, room, &sl->text,
                             "zero-copy text slab");
}

/* The buffer the kernels read, mapped while it is filled. */
static int zero_copy_acquire(struct clm_slot *sl)
{
    cl_int err;
    sl->fill = clEnqueueMapBuffer(sl->queue, sl->text, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                  0, sl->room, 0, NULL, NULL, &err);
    if (err) {
        sl->fill = NULL;
        return clm_fail_cl(err, "clEnqueueMapBuffer (zero-copy slab)");
    }
    return CLM_OK;
}

static void zero_copy_unfill(struct clm_slot *sl)
{
    clEnqueueUnmapMemObject(sl->queue, sl->text, sl->fill, 0, NULL, NULL);
}

static int zero_copy_commit(struct clm_slot *sl, unsigned char *p, size_t n)
{
    (void)n;
    cl_int err = clEnqueueUnmapMemObject(sl->queue, sl->text, p, 0, NULL, &sl->ev_write);
    return err ? clm_fail_cl(err, "clEnqueueUnmapMemObject (zero-copy slab)") : CLM_OK;
}

/* Caller memory the device shares is read in place (CL_MEM_USE_HOST_PTR), else staged. */
static int zero_copy_load(struct clm_lane *ln, struct clm_slot *sl, const unsigned char *p,
                          size_t n, size_t room, size_t *shift)
{
    if (ln->wrap_align) {
        /* The kernels' 16-byte loads and the device's buffer alignment need an aligned start.
         * Exact kernels also need `first` on a 16-byte boundary, so only approximate search
         * (no such fast path) may start the slab a few bytes early to get there. */
        size_t delta = (size_t)((uintptr_t)p % ln->wrap_align);
        if (delta == 0 || (ln->s->db->k > 0 && delta <= room)) {
            /* no staging: the kernels read p itself */
            int rc = clm_slot_open(ln, sl, &ln->stats.alloc_seconds);
            if (rc)
                return rc;
            cl_int err;
            cl_mem m = clCreateBuffer(ln->dev->context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY,
                                      n + delta, (void *)(uintptr_t)(p - delta), &err);
            if (err == CL_SUCCESS) {
                sl->wrap = m;
                sl->host = p - delta;
                *shift = delta;
                return CLM_OK;
            }
            /* else copy it, as for unaligned memory */
        }
    }
    return load_staged(ln, sl, p, n, room, shift);
}

/* ---- svm: coarse-grained shared virtual memory -------------------------------------------- */

static int svm_check(const clm_device *dev)
{
    /* svm_capabilities is only queried on OpenCL 2.0 and later devices (device.c) */
    if (dev->info.svm_capabilities & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)
        return CLM_OK;
    return clm_fail(CLM_E_UNSUPPORTED,
                    "data path svm needs OpenCL 2.0 coarse-grained SVM buffers, which %s (%s) "
                    "lacks; copy, pinned and zero-copy work on it",
                    dev->info.name, dev->info.version);
}

static int svm_alloc(struct clm_lane *ln, struct clm_slot *sl, size_t room)
{
    sl->svm = clSVMAlloc(ln->dev->context, CL_MEM_READ_ONLY, room, 0);
    if (!sl->svm)
        return clm_fail(CLM_E_DEVICE_MEMORY, "clSVMAlloc of %zu bytes for the text slab "
                                             "failed on %s",
                        room, ln->dev->info.name);
    return CLM_OK;
}

static void svm_free(struct clm_lane *ln, struct clm_slot *sl)
{
    if (!sl->svm)
        return;
    if (sl->queue)
        clm_finish_queue(sl->queue); /* clSVMFree waits for no command that uses it */
    clSVMFree(ln->dev->context, sl->svm);
    sl->svm = NULL;
}

static int svm_acquire(struct clm_slot *sl)
{
    cl_int err = clEnqueueSVMMap(sl->queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, sl->svm,
                                 sl->room, 0, NULL, NULL);
    if (err)
        return clm_fail_cl(err, "clEnqueueSVMMap (slab)");
    sl->fill = sl->svm;
    return CLM_OK;
}

static void svm_unmap(struct clm_slot *sl)
{
    clEnqueueSVMUnmap(sl->queue, sl->svm, 0, NULL, NULL);
}

static int svm_commit(struct clm_slot *sl, unsigned char *p, size_t n)
{
    (void)p;
    (void)n;
    cl_int err = clEnqueueSVMUnmap(sl->queue, sl->svm, 0, NULL, &sl->ev_write);
    return err ? clm_fail_cl(err, "clEnqueueSVMUnmap (slab)") : CLM_OK;
}

static cl_int svm_view(struct clm_slot *sl)
{
    cl_int err = clEnqueueSVMMap(sl->queue, CL_TRUE, CL_MAP_READ, sl->svm, sl->n, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        sl->view = sl->svm;
    return err;
}

static cl_int svm_arg(const struct clm_slot *sl, cl_kernel k, cl_uint arg)
{
    return clSetKernelArgSVMPointer(k, arg, sl->svm);
}

/* ---- the table -------------------------------------------------------------------------- */

static const struct clm_path_ops paths[] = {
    [CLM_PATH_AUTO] = {.id = CLM_PATH_AUTO, .name = "auto"}, /* a choice, not a path */
    [CLM_PATH_COPY] = {.id = CLM_PATH_COPY, .name = "copy", .device_copy = 1,
                       .alloc = copy_alloc, .free = copy_free, .acquire = copy_acquire,
                       .unfill = unfill_nothing, .commit = write_text, .load = copy_load,
                       .view = map_text, .unview = unmap_text, .text_arg = text_buffer_arg},
    [CLM_PATH_PINNED] = {.id = CLM_PATH_PINNED, .name = "pinned", .device_copy = 1,
                         .alloc = pinned_alloc, .free = pinned_free, .acquire = pinned_acquire,
                         .unfill = unfill_nothing, .commit = write_text, .load = load_staged,
                         .view = map_text, .unview = unmap_text, .text_arg = text_buffer_arg},
    [CLM_PATH_ZERO_COPY] = {.id = CLM_PATH_ZERO_COPY, .name = "zero-copy", .in_place = 1,
                            .alloc = zero_copy_alloc, .free = free_text,
                            .acquire = zero_copy_acquire, .unfill = zero_copy_unfill,
                            .commit = zero_copy_commit, .load = zero_copy_load,
                            .view = map_text, .unview = unmap_text,
                            .text_arg = text_buffer_arg},
    [CLM_PATH_SVM] = {.id = CLM_PATH_SVM, .name = "svm", .check = svm_check,
                      .alloc = svm_alloc, .free = svm_free, .acquire = svm_acquire,
                      .unfill = svm_unmap, .commit = svm_commit, .load = load_staged,
                      .view = svm_view, .unview = svm_unmap, .text_arg = svm_arg},
};
#define N_PATHS (sizeof paths / sizeof paths[0])

const char *clm_data_path_name(clm_data_path path)
{
    return (unsigned)path < N_PATHS ? paths[path].name : "?";
}

int clm_data_path_from_name(const char *name, clm_data_path *out)
{
    for (unsigned i = 0; name && out && i < N_PATHS; i++)
        if (strcmp(name, paths[i].name) == 0)
            return *out = (clm_data_path)i, CLM_OK;
    return clm_fail(CLM_E_INVALID,
                    "unknown data path '%s' (known: auto, copy, pinned, zero-copy, svm)",
                    name ? name : "(null)");
}

/* The automatic data path by device type: the one table (README, "Data paths"). The lead
 * adjusts it from measurements; a type not listed gets the copy path. */
static const struct {
    clm_device_type type;
    clm_data_path path;
    const char *why;
} auto_paths[] = {
    {CLM_DEVICE_GPU, CLM_PATH_PINNED,
     "auto: GPU -> pinned (copies from pinned memory run at the bus speed, 55 vs 10 GB/s "
     "from pageable memory on the H200)"},
    {CLM_DEVICE_ACCELERATOR, CLM_PATH_PINNED,
     "auto: accelerator -> pinned (copies from pinned memory run at the bus speed)"},
    {CLM_DEVICE_CPU, CLM_PATH_ZERO_COPY,
     "auto: CPU -> zero-copy (the device reads host memory; a copy would only cost)"},
};

int clm_path_choose(const clm_device *dev, clm_data_path asked,
                    const struct clm_path_ops **out, char *why, size_t why_cap)
{
    if ((unsigned)asked >= N_PATHS)
        return clm_fail(CLM_E_INVALID, "clm_scratch_options.data_path %d is not a data path "
                                       "(0 auto .. 4 svm)",
                        (int)asked);
    snprintf(why, why_cap, "requested");
    if (asked == CLM_PATH_AUTO) {
        const char *env = clm_env(CLM_ENV_DATA_PATH);
        if (env && *env) {
            if (clm_data_path_from_name(env, &asked) != CLM_OK)
                return clm_fail(CLM_E_INVALID, "CLMATCH_DATA_PATH=%s is not a data path "
                                               "(auto, copy, pinned, zero-copy or svm)",
                                env);
            snprintf(why, why_cap, "CLMATCH_DATA_PATH=%s", env);
        }
    }
    if (asked == CLM_PATH_AUTO) {
        asked = CLM_PATH_COPY;
        snprintf(why, why_cap, "auto: device type not in the table -> copy");
        for (size_t i = 0; i < sizeof auto_paths / sizeof auto_paths[0]; i++)
            if (auto_paths[i].type == dev->info.type) {
                asked = auto_paths[i].path;
                snprintf(why, why_cap, "%s", auto_paths[i].why);
            }
    }
    const struct clm_path_ops *p = &paths[asked];
    int rc = p->check ? p->check(dev) : CLM_OK;
    if (rc == CLM_OK)
        *out = p;
    return rc;
}

/* ---- what the scan calls, whatever the path ------------------------------------------------ */

int clm_slot_acquire(struct clm_lane *ln, struct clm_slot *sl, size_t need, unsigned char **out)
{
    if (!sl->fill) {
        int rc = clm_slot_reserve(ln, sl, need, &ln->stats.alloc_seconds);
        if (rc)
            return rc;
        double t0 = clm_now();
        rc = ln->path->acquire(sl);
        if (rc)
            return rc;
        ln->stats.wait_seconds += clm_now() - t0;
    }
    *out = sl->fill;
    return CLM_OK;
}

void clm_slot_unfill(struct clm_lane *ln, struct clm_slot *sl)
{
    clm_slot_unsend(sl);
    if (!sl->fill)
        return;
    ln->path->unfill(sl);
    sl->fill = NULL;
}

int clm_slot_commit(struct clm_lane *ln, struct clm_slot *sl, size_t n)
{
    unsigned char *p = sl->fill;
    sl->busy = 1;
    sl->compacted = 0; /* until clm_slot_compact */
    sl->fill = NULL;
    double t0 = clm_now();
    int rc = ln->path->commit(sl, p, n);
    if (sl->n_sending) { /* the slab's now (its last one was collected before they began) */
        memcpy(sl->ev_sent, sl->ev_sending, sl->n_sending * sizeof *sl->ev_sent);
        sl->n_sent = sl->n_sending;
        sl->n_sending = 0;
    }
    sl->sent = 0;
    ln->stats.launch_seconds += clm_now() - t0;
    return rc;
}

int clm_slot_send(struct clm_lane *ln, struct clm_slot *sl, size_t n)
{
    if (!ln->path->device_copy || !sl->fill || n <= sl->sent || sl->n_sending == CLM_SENDS_MAX)
        return CLM_OK;
    double t0 = clm_now();
    int rc = write_range(sl, sl->fill, sl->sent, n, &sl->ev_sending[sl->n_sending]);
    if (rc == CLM_OK) {
        sl->n_sending++;
        sl->sent = n;
        clFlush(sl->queue); /* under way while the rest is read */
    }
    ln->stats.launch_seconds += clm_now() - t0;
    return rc;
}

void clm_slot_unsend(struct clm_slot *sl)
{
    /* the writes still run in order before anything queued later */
    for (unsigned i = 0; i < sl->n_sending; i++)
        clm_release_event(&sl->ev_sending[i]);
    sl->n_sending = 0;
    sl->sent = 0;
}

int clm_slot_load_memory(struct clm_lane *ln, struct clm_slot *sl, const unsigned char *p,
                         size_t n, size_t room, size_t *shift)
{
    *shift = 0;
    sl->busy = 1;
    sl->compacted = 0;
    return ln->path->load(ln, sl, p, n, room, shift);
}

int clm_slot_view(struct clm_lane *ln, struct clm_slot *sl, const unsigned char **out)
{
    if (!sl->host && sl->compacted) {
        int rc = clm_slot_read_compact(ln, sl);
        if (rc)
            return rc;
    }
    if (!sl->host && !sl->view) {
        cl_int err = ln->path->view(sl);
        if (err) {
            sl->view = NULL;
            return clm_fail_cl(err, "mapping the slab to read it");
        }
    }
    *out = sl->host ? sl->host : sl->view;
    return CLM_OK;
}

void clm_slot_unview(struct clm_lane *ln, struct clm_slot *sl)
{
    if (!sl->view)
        return;
    ln->path->unview(sl);
    sl->view = NULL;
}
