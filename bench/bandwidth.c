/*
 * clmatch-bench — the yardsticks: the device's global-memory read bandwidth and the
 * host->device transfer bandwidth, measured with plain OpenCL in a context of our own (not
 * the library's), so the search kernels can be judged against what the hardware can do.
 *
 * Read bandwidth: every work-item sums uint4 loads over a buffer at least 4x the device's
 * cache and writes one word, so the loads cannot be optimised away and the write traffic is
 * negligible. Two access patterns are timed and the faster one kept: "interleaved" (work-item
 * i reads i, i+N, ...: coalesced on GPUs) and "blocked" (each work-item reads one contiguous
 * range: streams well on CPUs). Kernel time comes from profiling events; median of reps.
 *
 * Host read: what clm_scan_fd does before a transfer can start, alone: the library's own
 * reader pool (clm_reader) reading a file in the page cache into the pinned staging buffer
 * as a file scan does, slab after slab with the next one queued, with 1, 2, 4, ... threads up
 * to the library's default count (clm_io_threads). Set beside H2D pinned it says whether
 * reading or the bus limits streaming.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl.h>

#include "bench.h"
#include "internal.h" /* clm_io_threads, clm_reader: the library's file reader */

static const char read_source[] =
    "__kernel void read_interleaved(__global const uint4 *in, ulong n,\n"
    "                               __global uint *out)\n"
    "{\n"
    "    size_t gid = get_global_id(0), step = get_global_size(0);\n"
    "    uint4 acc = (uint4)(0);\n"
    "    for (ulong i = gid; i < n; i += step)\n"
    "        acc += in[i];\n"
    "    out[gid] = acc.x + acc.y + acc.z + acc.w;\n"
    "}\n"
    "__kernel void read_blocked(__global const uint4 *in, ulong n, __global uint *out)\n"
    "{\n"
    "    size_t gid = get_global_id(0), items = get_global_size(0);\n"
    "    ulong per = (n + items - 1) / items;\n"
    "    ulong begin = gid * per, end = min(begin + per, n);\n"
    "    uint4 acc = (uint4)(0);\n"
    "    for (ulong i = begin; i < end; i++)\n"
    "        acc += in[i];\n"
    "    out[gid] = acc.x + acc.y + acc.z + acc.w;\n"
    "}\n";

typedef struct cl_state {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_device_type type;
    cl_uint compute_units;
    size_t max_wg;
    cl_ulong max_alloc, global_mem, cache;
} cl_state;

#define FAIL(out, ...)                                                  \
    do {                                                                \
        snprintf((out)->error, sizeof (out)->error, __VA_ARGS__);       \
        goto done;                                                      \
    } while (0)

enum { MIN_REPS = 5, MAX_REPS = 200 };

/* Timed repetitions: at least MIN_REPS and about target_s in total, at most MAX_REPS. */
static int enough_reps(int reps, double elapsed, double target_s)
{
    if (reps < MIN_REPS)
        return 0;
    return reps >= MAX_REPS || elapsed >= target_s;
}

/* One timed run of what is measured: its seconds, or a negative value after writing
 * out->error. */
typedef double (*timed_run)(void *ctx, bw_result *out);

/* Runs of `run`: one warm-up (a first launch may compile; a file's pages and a buffer's first
 * touch), then enough_reps of them, their seconds in times. Returns how many, or -1 after a
 * failed run. */
static int time_runs(timed_run run, void *ctx, double target_s, double times[MAX_REPS],
                     bw_result *out)
{
    int reps = 0;
    double t0 = now_seconds();
    for (int r = -1; !enough_reps(reps, now_seconds() - t0, target_s); r++) {
        double t = run(ctx, out);
        if (t < 0)
            return -1;
        if (r < 0)
            t0 = now_seconds();
        else
            times[reps++] = t;
    }
    return reps;
}

static int open_device(int pi, int di, const char *expected_name, cl_state *s, bw_result *out)
{
    cl_platform_id platforms[64];
    cl_device_id devices[64];
    cl_uint np = 0, nd = 0;
    cl_int err;
    char name[256];

    err = clGetPlatformIDs(64, platforms, &np);
    if (err != CL_SUCCESS || (cl_uint)pi >= np || np > 64) {
        snprintf(out->error, sizeof out->error, "clGetPlatformIDs: error %d or no platform %d",
                 err, pi);
        return -1;
    }
    err = clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 64, devices, &nd);
    if (err != CL_SUCCESS || (cl_uint)di >= nd || nd > 64) {
        snprintf(out->error, sizeof out->error, "clGetDeviceIDs: error %d or no device %d", err,
                 di);
        return -1;
    }
    s->device = devices[di];
    if (clGetDeviceInfo(s->device, CL_DEVICE_NAME, sizeof name, name, NULL) != CL_SUCCESS
        || clGetDeviceInfo(s->device, CL_DEVICE_TYPE, sizeof s->type, &s->type, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(s->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof s->compute_units,
                           &s->compute_units, NULL) != CL_SUCCESS
        || clGetDeviceInfo(s->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof s->max_wg,
                           &s->max_wg, NULL) != CL_SUCCESS
        || clGetDeviceInfo(s->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof s->max_alloc,
                           &s->max_alloc, NULL) != CL_SUCCESS
        || clGetDeviceInfo(s->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof s->global_mem,
                           &s->global_mem, NULL) != CL_SUCCESS
        || clGetDeviceInfo(s->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof s->cache,
                           &s->cache, NULL) != CL_SUCCESS) {
        snprintf(out->error, sizeof out->error, "clGetDeviceInfo failed");
        return -1;
    }
    name[sizeof name - 1] = '\0';
    /* The library's info may be truncated; compare what both hold. */
    if (strncmp(name, expected_name, strlen(expected_name)) != 0) {
        snprintf(out->error, sizeof out->error,
                 "device %d:%d is '%.80s' here but '%.80s' in clm_list_devices", pi, di, name,
                 expected_name);
        return -1;
    }
    s->context = clCreateContext(NULL, 1, &s->device, NULL, NULL, &err);
    if (!s->context) {
        snprintf(out->error, sizeof out->error, "clCreateContext: error %d", err);
        return -1;
    }
    s->queue = clCreateCommandQueue(s->context, s->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!s->queue) {
        snprintf(out->error, sizeof out->error, "clCreateCommandQueue: error %d", err);
        return -1;
    }
    return 0;
}

static void close_device(cl_state *s)
{
    if (s->program)
        clReleaseProgram(s->program);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    if (s->context)
        clReleaseContext(s->context);
}

/* Device seconds of one finished event. */
static double event_seconds(cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL)
            != CL_SUCCESS
        || clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL)
               != CL_SUCCESS
        || end <= start)
        return 0.0;
    return (double)(end - start) * 1e-9;
}

struct kernel_run {
    cl_state *s;
    cl_kernel k;
    const char *name;
    size_t global, local;
};

/* One launch of a read kernel: its device seconds (profiling events). */
static double run_kernel(void *ctx, bw_result *out)
{
    struct kernel_run *kr = ctx;
    cl_event ev;
    cl_int err = clEnqueueNDRangeKernel(kr->s->queue, kr->k, 1, NULL, &kr->global, &kr->local,
                                        0, NULL, &ev);
    if (err != CL_SUCCESS) {
        snprintf(out->error, sizeof out->error, "clEnqueueNDRangeKernel(%s): error %d", kr->name,
                 err);
        return -1;
    }
    err = clWaitForEvents(1, &ev);
    double t = event_seconds(ev);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS || t <= 0) {
        snprintf(out->error, sizeof out->error, "%s: kernel failed or no profiling time",
                 kr->name);
        return -1;
    }
    return t;
}

/* Median and best GB/s of one read kernel; 0 on success. */
static int time_read_kernel(cl_state *s, const char *kernel_name, cl_mem in, cl_ulong n16,
                            cl_mem out_buf, size_t global, size_t local, double target_s,
                            double *med_gbs, double *best_gbs, bw_result *out)
{
    double times[MAX_REPS];
    int reps, rc = -1;
    cl_int err;
    cl_kernel k = clCreateKernel(s->program, kernel_name, &err);
    if (!k) {
        snprintf(out->error, sizeof out->error, "clCreateKernel(%s): error %d", kernel_name,
                 err);
        return -1;
    }
    if (clSetKernelArg(k, 0, sizeof in, &in) != CL_SUCCESS
        || clSetKernelArg(k, 1, sizeof n16, &n16) != CL_SUCCESS
        || clSetKernelArg(k, 2, sizeof out_buf, &out_buf) != CL_SUCCESS) {
        snprintf(out->error, sizeof out->error, "clSetKernelArg(%s) failed", kernel_name);
        goto done;
    }
    struct kernel_run kr = {s, k, kernel_name, global, local};
    if ((reps = time_runs(run_kernel, &kr, target_s, times, out)) < 0)
        goto done;
    uint64_t bytes = (uint64_t)n16 * 16;
    *best_gbs = gbs(bytes, min_of(times, (size_t)reps));
    *med_gbs = gbs(bytes, median_of(times, (size_t)reps));
    rc = 0;
done:
    clReleaseKernel(k);
    return rc;
}

static void measure_read(cl_state *s, uint64_t want_bytes, double target_s, bw_result *out)
{
    cl_int err;
    cl_mem in = NULL, sums = NULL;
    const char *src = read_source;
    uint64_t bytes = want_bytes;

    out->cache_bytes = s->cache;
    /* At least 4x the cache, so the measurement is of memory, not of cache. */
    if (bytes < 4 * (uint64_t)s->cache)
        bytes = 4 * (uint64_t)s->cache;
    if (bytes > s->max_alloc)
        bytes = s->max_alloc;
    if (bytes > s->global_mem / 4 * 3) /* leave the device (or PoCL's host) some room */
        bytes = s->global_mem / 4 * 3;
    bytes &= ~(uint64_t)15;
    out->read_bytes = bytes;
    if (bytes < 4 * (uint64_t)s->cache)
        snprintf(out->error, sizeof out->error, "read buffer is only %.1fx the cache",
                 (double)bytes / (double)s->cache);

    /* Enough work-items to hide latency: a few full work-groups per compute unit, and on a
     * GPU as many as a compute unit can hold (2048 threads on current NVIDIA/AMD parts). */
    size_t local = 256;
    while (local > s->max_wg)
        local /= 2;
    size_t per_cu = s->type & CL_DEVICE_TYPE_GPU ? 2048 : local * 4;
    size_t global = (size_t)(s->compute_units ? s->compute_units : 1) * per_cu;
    global = (global + local - 1) / local * local;

    s->program = clCreateProgramWithSource(s->context, 1, &src, NULL, &err);
    if (!s->program)
        FAIL(out, "clCreateProgramWithSource: error %d", err);
    err = clBuildProgram(s->program, 1, &s->device, "", NULL, NULL);
    if (err != CL_SUCCESS)
        FAIL(out, "clBuildProgram of the read kernel: error %d", err);
    in = clCreateBuffer(s->context, CL_MEM_READ_ONLY, (size_t)bytes, NULL, &err);
    if (!in)
        FAIL(out, "clCreateBuffer(%llu bytes): error %d", (unsigned long long)bytes, err);
    sums = clCreateBuffer(s->context, CL_MEM_WRITE_ONLY, global * sizeof(cl_uint), NULL, &err);
    if (!sums)
        FAIL(out, "clCreateBuffer(sums): error %d", err);
    /* Fill it, so every page exists before timing (first touch is not bandwidth). */
    cl_uint pattern = 0x01020304u;
    err = clEnqueueFillBuffer(s->queue, in, &pattern, sizeof pattern, 0, (size_t)bytes, 0, NULL,
                              NULL);
    if (err == CL_SUCCESS)
        err = clFinish(s->queue);
    if (err != CL_SUCCESS)
        FAIL(out, "clEnqueueFillBuffer: error %d", err);

    double med_i = 0, best_i = 0, med_b = 0, best_b = 0;
    if (time_read_kernel(s, "read_interleaved", in, bytes / 16, sums, global, local,
                         target_s / 2, &med_i, &best_i, out) != 0)
        goto done;
    if (time_read_kernel(s, "read_blocked", in, bytes / 16, sums, global, local, target_s / 2,
                         &med_b, &best_b, out) != 0)
        goto done;
    out->read_kernel = med_i >= med_b ? "interleaved" : "blocked";
    out->read_gbs = med_i >= med_b ? med_i : med_b;
    out->read_gbs_best = med_i >= med_b ? best_i : best_b;
    out->ok = 1;
done:
    if (in)
        clReleaseMemObject(in);
    if (sums)
        clReleaseMemObject(sums);
}

struct write_run {
    cl_state *s;
    cl_mem dst;
    const void *src;
    size_t bytes;
};

/* One blocking clEnqueueWriteBuffer: its wall seconds. */
static double run_write(void *ctx, bw_result *out)
{
    struct write_run *w = ctx;
    double t = now_seconds();
    cl_int err = clEnqueueWriteBuffer(w->s->queue, w->dst, CL_TRUE, 0, w->bytes, w->src, 0,
                                      NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(out->error, sizeof out->error, "clEnqueueWriteBuffer: error %d", err);
        return -1;
    }
    return now_seconds() - t;
}

/* Median GB/s of blocking clEnqueueWriteBuffer calls from src, by wall clock (a pageable
 * write includes the driver's staging copy, which is part of what we want to see). */
static double time_writes(cl_state *s, cl_mem dst, const void *src, size_t bytes,
                          double target_s, bw_result *out)
{
    double times[MAX_REPS];
    struct write_run w = {s, dst, src, bytes};
    int reps = time_runs(run_write, &w, target_s, times, out);
    return reps < 0 ? 0.0 : gbs(bytes, median_of(times, (size_t)reps));
}

static void measure_host_read(int fd, unsigned char *dst, size_t bytes, double target_s,
                              bw_result *out);

static void measure_h2d(cl_state *s, uint64_t want_bytes, int read_fd, double target_s,
                        bw_result *out)
{
    cl_int err;
    cl_mem dst = NULL, pinned = NULL;
    void *pageable = NULL, *mapped = NULL;
    size_t bytes = (size_t)(want_bytes < s->max_alloc ? want_bytes : s->max_alloc);
    out->h2d_bytes = bytes;

    dst = clCreateBuffer(s->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (!dst)
        FAIL(out, "clCreateBuffer(h2d): error %d", err);
    pageable = malloc(bytes);
    if (!pageable)
        FAIL(out, "out of host memory for %zu bytes", bytes);
    memset(pageable, 'A', bytes);
    out->h2d_pageable_gbs = time_writes(s, dst, pageable, bytes, target_s / 2, out);
    free(pageable);
    pageable = NULL;

    pinned = clCreateBuffer(s->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL,
                            &err);
    if (!pinned)
        FAIL(out, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR): error %d", err);
    mapped = clEnqueueMapBuffer(s->queue, pinned, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL,
                                &err);
    if (!mapped)
        FAIL(out, "clEnqueueMapBuffer: error %d", err);
    memset(mapped, 'C', bytes);
    out->h2d_pinned_gbs = time_writes(s, dst, mapped, bytes, target_s / 2, out);
    if (read_fd >= 0)
        measure_host_read(read_fd, mapped, bytes, target_s, out);
done:
    free(pageable);
    if (mapped) {
        if (clEnqueueUnmapMemObject(s->queue, pinned, mapped, 0, NULL, NULL) == CL_SUCCESS)
            clFinish(s->queue);
    }
    if (pinned)
        clReleaseMemObject(pinned);
    if (dst)
        clReleaseMemObject(dst);
}

/* ---- host read: pread of a cached file into pinned memory by n threads ------------------ */

int host_read_thread_counts(unsigned counts[HOST_READ_COUNTS])
{
    unsigned most = clm_io_threads(NULL); /* the library's default: the last count */
    int n = 0;
    for (unsigned t = 1; t < most && n < HOST_READ_COUNTS - 1; t *= 2)
        counts[n++] = t;
    counts[n++] = most;
    return n;
}

double host_read_best(const bw_result *bw, unsigned *threads)
{
    double best = 0;
    *threads = 0;
    for (int i = 0; i < bw->host_read_counts; i++)
        if (bw->host_read_gbs[i] > best) {
            best = bw->host_read_gbs[i];
            *threads = bw->host_read_threads[i];
        }
    return best;
}

struct read_run {
    int fd;
    unsigned char *dst;
    size_t bytes;
    unsigned threads;
};

/* The whole file read as clm_scan_fd reads one: a reader pool started, slabs of
 * CLM_FILE_SLAB_MAX bytes queued, each waited for once the next is queued. Its wall
 * seconds. */
static double run_read(void *ctx, bw_result *out)
{
    struct read_run *rr = ctx;
    const size_t slab = CLM_FILE_SLAB_MAX;
    struct clm_read reads[2];
    clm_reader *pool = NULL;
    double t = now_seconds();
    int rc = clm_reader_open(rr->fd, rr->threads, rr->bytes, &pool);
    size_t k = 0, slabs = (rr->bytes + slab - 1) / slab;
    for (; rc == CLM_OK && k < slabs; k++) {
        size_t off = k * slab, n = rr->bytes - off < slab ? rr->bytes - off : slab;
        rc = clm_reader_submit(pool, &reads[k % 2], rr->dst + off, n, off);
        if (rc == CLM_OK && k > 0)
            rc = clm_reader_wait(pool, &reads[(k - 1) % 2]);
    }
    if (rc == CLM_OK && k > 0)
        rc = clm_reader_wait(pool, &reads[(k - 1) % 2]);
    clm_reader_close(pool);
    if (rc != CLM_OK) {
        snprintf(out->error, sizeof out->error, "host read: %s", clm_last_error());
        return -1;
    }
    return now_seconds() - t;
}

static void measure_host_read(int fd, unsigned char *dst, size_t bytes, double target_s,
                              bw_result *out)
{
    unsigned counts[HOST_READ_COUNTS];
    int n = host_read_thread_counts(counts);
    for (int c = 0; c < n; c++) {
        double times[MAX_REPS];
        struct read_run rr = {fd, dst, bytes, counts[c]};
        int reps = time_runs(run_read, &rr, target_s / n, times, out);
        if (reps < 0)
            return;
        out->host_read_threads[c] = counts[c];
        out->host_read_gbs[c] = gbs(bytes, median_of(times, (size_t)reps));
        out->host_read_gbs_best[c] = gbs(bytes, min_of(times, (size_t)reps));
        out->host_read_counts = c + 1;
    }
}

void bw_measure(int platform_index, int device_index, const char *expected_name,
                uint64_t read_bytes, uint64_t h2d_bytes, int read_fd, double target_s,
                bw_result *out)
{
    cl_state s;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    out->read_kernel = "-";
    if (open_device(platform_index, device_index, expected_name, &s, out) == 0) {
        measure_read(&s, read_bytes, target_s, out);
        /* Keep a read failure's message: it matters more than a transfer's. */
        char read_error[sizeof out->error];
        memcpy(read_error, out->error, sizeof read_error);
        out->error[0] = '\0';
        measure_h2d(&s, h2d_bytes, read_fd, target_s, out);
        if (read_error[0])
            memcpy(out->error, read_error, sizeof out->error);
    }
    close_device(&s);
}
