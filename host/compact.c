/* A stream's slab without its line breaks (CLM_STREAM_SKIP_LINE_BREAKS): the staging holds
 * the bytes as written and goes to the device as it is (the data path's transfer); the
 * kernels of cl/compact.cl copy every byte but '\n' and '\r' into a buffer of the slot's own,
 * which the search kernels then read instead of the path's text. The host counts the line
 * breaks as it copies into staging (stream.c), so it knows the text's length without a read
 * back: the compaction and the search are queued together, as any slab's search is. */
#include <stdlib.h>

#include "scratch.h"

#define COMPACT_WG 256u /* work-items of a group, 16 bytes each (shrunk on small devices) */
enum { K_COUNT, K_SCAN, K_MOVE };

/* The lane's compaction kernels, built on the first compacted slab. */
static int compact_kernels(struct clm_lane *ln)
{
    if (ln->k_compact[K_MOVE])
        return CLM_OK;
    struct clm_kernel_shape shape = {0};
    shape.compact = 1;
    shape.wg = COMPACT_WG;
    while (shape.wg > 1 && shape.wg > ln->dev->info.max_work_group_size)
        shape.wg /= 2;
    cl_program prog;
    int hit, rc = clm_get_program(ln->dev, &shape, &prog, &hit, NULL, 0);
    if (rc)
        return rc;
    static const char *const names[] = {"clm_compact_count", "clm_compact_scan",
                                        "clm_compact_move"};
    for (int i = 0; i < 3 && rc == CLM_OK; i++) {
        cl_int err;
        ln->k_compact[i] = clCreateKernel(prog, names[i], &err);
        if (err != CL_SUCCESS)
            rc = clm_fail_cl(err, "clCreateKernel (compaction)");
    }
    clReleaseProgram(prog); /* the kernels keep it */
    ln->compact_wg = shape.wg;
    if (rc)
        clm_lane_close_compact(ln);
    return rc;
}

void clm_lane_close_compact(struct clm_lane *ln)
{
    for (int i = 0; i < 3; i++) {
        if (ln->k_compact[i])
            clReleaseKernel(ln->k_compact[i]);
        ln->k_compact[i] = NULL;
    }
}

void clm_slot_close_compact(struct clm_slot *sl)
{
    if (sl->compact)
        clReleaseMemObject(sl->compact);
    if (sl->compact_sums)
        clReleaseMemObject(sl->compact_sums);
    free(sl->compact_host);
    sl->compact = sl->compact_sums = NULL;
    sl->compact_host = NULL;
    sl->compact_room = sl->compact_groups = 0;
}

/* The slot's compacted text of `room` bytes and `groups` block offsets. */
static int compact_reserve(struct clm_lane *ln, struct clm_slot *sl, size_t room, size_t groups)
{
    if (room <= sl->compact_room && groups <= sl->compact_groups)
        return CLM_OK;
    clm_slot_close_compact(sl);
    room = clm_round_up(room, 64) + 64; /* whole loads past the end stay inside */
    groups++;                           /* the scan leaves the total after the offsets */
    int rc = clm_create_buffer(ln->dev, CL_MEM_READ_WRITE, room, &sl->compact,
                               "the compacted text");
    if (rc == CLM_OK)
        rc = clm_create_buffer(ln->dev, CL_MEM_READ_WRITE, groups * sizeof(cl_uint),
                               &sl->compact_sums, "the compaction's block offsets");
    if (rc) {
        clm_slot_close_compact(sl);
        return rc;
    }
    sl->compact_room = room;
    sl->compact_groups = groups - 1;
    return CLM_OK;
}

int clm_slot_compact(struct clm_lane *ln, struct clm_slot *sl, size_t raw, size_t text,
                     int check)
{
    int rc = compact_kernels(ln);
    if (rc)
        return rc;
    const size_t wg = ln->compact_wg, block = 16 * wg;
    const size_t groups = raw ? (raw + block - 1) / block : 1;
    if ((rc = compact_reserve(ln, sl, sl->room > text ? sl->room : text, groups)) != CLM_OK)
        return rc;
    double t0 = clm_now();
    cl_uint n32 = (cl_uint)raw, g32 = (cl_uint)groups;
    cl_kernel *k = ln->k_compact;
    cl_int err = ln->path->text_arg(sl, k[K_COUNT], 0);
    err |= clSetKernelArg(k[K_COUNT], 1, sizeof n32, &n32);
    err |= clSetKernelArg(k[K_COUNT], 2, sizeof sl->compact_sums, &sl->compact_sums);
    err |= clSetKernelArg(k[K_SCAN], 0, sizeof sl->compact_sums, &sl->compact_sums);
    err |= clSetKernelArg(k[K_SCAN], 1, sizeof g32, &g32);
    err |= ln->path->text_arg(sl, k[K_MOVE], 0);
    err |= clSetKernelArg(k[K_MOVE], 1, sizeof n32, &n32);
    err |= clSetKernelArg(k[K_MOVE], 2, sizeof sl->compact_sums, &sl->compact_sums);
    err |= clSetKernelArg(k[K_MOVE], 3, sizeof sl->compact, &sl->compact);
    if (err)
        rc = clm_fail(CLM_E_OPENCL, "clSetKernelArg (compaction) failed");
    const size_t global[3] = {groups * wg, wg, groups * wg};
    for (int i = 0; i < 3 && rc == CLM_OK; i++) {
        cl_event ev;
        err = clEnqueueNDRangeKernel(sl->queue, k[i], 1, NULL, &global[i], &wg, 0, NULL, &ev);
        rc = err ? clm_fail_cl(err, "clEnqueueNDRangeKernel (compaction)")
                 : clm_slot_push_event(sl, ev);
    }
    sl->compact_check = 0;
    if (rc == CLM_OK && check) { /* waited for with the pass (an in-order queue) */
        cl_event ev;
        err = clEnqueueReadBuffer(sl->queue, sl->compact_sums, CL_FALSE, groups * sizeof(cl_uint),
                                  sizeof(cl_uint), &sl->compact_total, 0, NULL, &ev);
        rc = err ? clm_fail_cl(err, "clEnqueueReadBuffer (compacted length)")
                 : clm_slot_push_event(sl, ev);
        sl->compact_check = rc == CLM_OK;
    }
    ln->stats.launch_seconds += clm_now() - t0;
    sl->compacted = rc == CLM_OK;
    sl->host = NULL; /* the staging holds the raw bytes: clm_slot_view reads the text back */
    return rc;
}

int clm_slot_compact_verify(const struct clm_slot *sl)
{
    if (!sl->compacted || !sl->compact_check || sl->compact_total == sl->n)
        return CLM_OK;
    return clm_fail(CLM_E_INVALID,
                    "the line breaks counted by the caller (clm_stream_commit, a "
                    "clm_stream_write_fd block hook) are not those of the bytes: a slab of %zu "
                    "text bytes by that count has %lu",
                    sl->n, (unsigned long)sl->compact_total);
}

cl_int clm_slot_text_arg(const struct clm_lane *ln, const struct clm_slot *sl, cl_kernel k,
                         cl_uint arg)
{
    return sl->compacted ? clSetKernelArg(k, arg, sizeof sl->compact, &sl->compact)
                         : ln->path->text_arg(sl, k, arg);
}

int clm_slot_read_compact(struct clm_lane *ln, struct clm_slot *sl)
{
    if (!sl->compact_host && !(sl->compact_host = malloc(sl->compact_room)))
        return clm_fail(CLM_E_NOMEM, "out of memory for the compacted text");
    double t0 = clm_now();
    cl_int err = clEnqueueReadBuffer(sl->queue, sl->compact, CL_TRUE, 0, sl->n,
                                     sl->compact_host, 0, NULL, NULL);
    ln->stats.wait_seconds += clm_now() - t0;
    if (err)
        return clm_fail_cl(err, "clEnqueueReadBuffer (compacted text)");
    sl->host = sl->compact_host;
    return CLM_OK;
}
