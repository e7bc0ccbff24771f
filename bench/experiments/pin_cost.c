/* pin_cost.c - what pinned staging costs to make: CL_MEM_ALLOC_HOST_PTR buffers created and
 * mapped (as host/path.c's pinned path does), one after another or from several threads at
 * once, and the write rate from them to a device buffer. clmatch's FASTA stream pins two
 * 64 MiB stagings before its first read; this asks whether making them at once, or smaller,
 * takes less of the search. Plain OpenCL, no clmatch.
 *
 * Build and run:
 *   gcc -std=c11 -O2 -pthread -o /tmp/pin_cost bench/experiments/pin_cost.c -lOpenCL
 *   /tmp/pin_cost PLATFORM DEVICE
 * Prints, per layout, the wall time to create and map all buffers and the write rate. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BUFS 16

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct job {
    cl_context ctx;
    cl_device_id dev;
    size_t bytes;
    cl_command_queue q;
    cl_mem stage, text;
    void *ptr;
    double seconds;
};

static void *make(void *arg)
{
    struct job *j = arg;
    cl_int err;
    double t0 = now();
    j->q = clCreateCommandQueue(j->ctx, j->dev, 0, &err);
    j->text = clCreateBuffer(j->ctx, CL_MEM_READ_ONLY, j->bytes, NULL, &err);
    j->stage = clCreateBuffer(j->ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, j->bytes, NULL,
                              &err);
    j->ptr = clEnqueueMapBuffer(j->q, j->stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, j->bytes,
                                0, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        j->ptr = NULL;
    j->seconds = now() - t0;
    return NULL;
}

static void layout(cl_context ctx, cl_device_id dev, int n, size_t bytes, int threads)
{
    struct job jobs[MAX_BUFS];
    pthread_t th[MAX_BUFS];
    memset(jobs, 0, sizeof jobs);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        jobs[i].ctx = ctx;
        jobs[i].dev = dev;
        jobs[i].bytes = bytes;
        if (threads)
            pthread_create(&th[i], NULL, make, &jobs[i]);
        else
            make(&jobs[i]);
    }
    if (threads)
        for (int i = 0; i < n; i++)
            pthread_join(th[i], NULL);
    double made = now() - t0;
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= jobs[i].ptr != NULL;
    double w = 0;
    if (ok) {
        for (int i = 0; i < n; i++)
            memset(jobs[i].ptr, 'A' + i, bytes);
        double t1 = now();
        for (int r = 0; r < 4; r++)
            for (int i = 0; i < n; i++)
                clEnqueueWriteBuffer(jobs[i].q, jobs[i].text, CL_FALSE, 0, bytes, jobs[i].ptr, 0,
                                     NULL, NULL);
        for (int i = 0; i < n; i++)
            clFinish(jobs[i].q);
        w = 4.0 * n * bytes / (now() - t1) / 1e9;
    }
    double t2 = now();
    for (int i = 0; i < n; i++) {
        if (jobs[i].ptr)
            clEnqueueUnmapMemObject(jobs[i].q, jobs[i].stage, jobs[i].ptr, 0, NULL, NULL);
        clFinish(jobs[i].q);
        clReleaseMemObject(jobs[i].stage);
        clReleaseMemObject(jobs[i].text);
        clReleaseCommandQueue(jobs[i].q);
    }
    double freed = now() - t2;
    printf("%2d x %4zu MiB %-8s made %.4f s (%.2f GB/s; slowest buffer %.4f s), "
           "write %.1f GB/s, freed %.4f s%s\n", n, bytes >> 20, threads ? "threads" : "serial",
           made, n * (double)bytes / made / 1e9, jobs[0].seconds, w, freed, ok ? "" : " FAILED");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    cl_uint np = 0, nd = 0;
    cl_platform_id plats[8];
    cl_device_id devs[8];
    int p = argc > 1 ? atoi(argv[1]) : 0, d = argc > 2 ? atoi(argv[2]) : 0;
    clGetPlatformIDs(8, plats, &np);
    if (p >= (int)np || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 8, devs, &nd) ||
        d >= (int)nd) {
        fprintf(stderr, "no device %d:%d\n", p, d);
        return 2;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &devs[d], NULL, NULL, &err);
    if (err) {
        fprintf(stderr, "clCreateContext: %d\n", err);
        return 2;
    }
    const size_t mib = (size_t)1 << 20;
    layout(ctx, devs[d], 1, 16 * mib, 0); /* warm-up */
    for (int round = 0; round < 2; round++) {
        layout(ctx, devs[d], 2, 64 * mib, 0);
        layout(ctx, devs[d], 2, 64 * mib, 1);
        layout(ctx, devs[d], 2, 32 * mib, 0);
        layout(ctx, devs[d], 2, 32 * mib, 1);
        layout(ctx, devs[d], 4, 32 * mib, 1);
        layout(ctx, devs[d], 8, 16 * mib, 1);
        layout(ctx, devs[d], 1, 64 * mib, 0);
    }
    clReleaseContext(ctx);
    return 0;
}
