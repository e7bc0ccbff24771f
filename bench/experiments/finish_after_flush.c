/* finish_after_flush.c - shows that clFinish on Mesa 22.3's rusticl returns at once when the
 * queue was flushed since its last command: it waits only for the commands it flushes itself.
 * clmatch flushes each slab's commands as soon as they are enqueued, so clm_scratch_free's
 * clFinish returned while the non-blocking read of the match counters was still running, and
 * the read then wrote into freed memory (ASan, fuzzy.growth on rusticl: heap-use-after-free in
 * the "rusticl queue" thread; without ASan glibc aborted the test run now and then). Later
 * rusticl waits for the last command flushed. Plain OpenCL, no clmatch.
 *
 * Each round: a kernel over 16 MiB, a non-blocking read of 12 bytes, clFlush, then either
 * clFinish or a marker enqueued and waited for (what host/scan.c does now), then the read's
 * status: it must be CL_COMPLETE. Mesa 22.3.6 (llvmpipe): clFinish 20 of 20 rounds early,
 * the marker 0 of 20; PoCL 3.1: 0 and 0.
 *
 * Build and run:
 *   gcc -std=c11 -O1 -o /tmp/finish_after_flush bench/experiments/finish_after_flush.c -lOpenCL
 *   OCL_ICD_VENDORS=<dir with rusticl.icd> RUSTICL_ENABLE=llvmpipe /tmp/finish_after_flush
 * Exit status 1 when a wait returned before the read was complete. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "__kernel void fill(__global uint *b)\n"
    "{\n"
    "    uint x = get_global_id(0);\n"
    "    for (int i = 0; i < 64; ++i)\n"
    "        x = x * 1664525u + 1013904223u;\n"
    "    b[get_global_id(0)] = x;\n"
    "}\n";

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cl_int e_ = (call);                                                                \
        if (e_ != CL_SUCCESS) {                                                            \
            fprintf(stderr, "%s: OpenCL error %d\n", #call, e_);                           \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

int main(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "fill", &err);
    CHECK(err);
    size_t n = (size_t)4 << 20;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(cl_uint), NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));

    const int rounds = 20;
    int early[2] = {0, 0};
    for (int how = 0; how < 2; how++) {
        for (int r = 0; r < rounds; r++) {
            cl_uint out[3];
            cl_event read, marker;
            cl_int status;
            CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
            CHECK(clEnqueueReadBuffer(q, buf, CL_FALSE, 0, sizeof out, out, 0, NULL, &read));
            CHECK(clFlush(q));
            if (how == 0) {
                CHECK(clFinish(q));
            } else {
                CHECK(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker));
                CHECK(clWaitForEvents(1, &marker));
                CHECK(clReleaseEvent(marker));
            }
            CHECK(clGetEventInfo(read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                 NULL));
            early[how] += status != CL_COMPLETE;
            CHECK(clWaitForEvents(1, &read)); /* out must outlive the read */
            CHECK(clReleaseEvent(read));
        }
    }
    printf("read not complete after clFinish: %d of %d rounds; after a marker waited for: %d "
           "of %d\n",
           early[0], rounds, early[1], rounds);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return early[0] || early[1] ? 1 : 0;
}
