/* loop_budget.c - shows the loop limit of Mesa's llvmpipe (rusticl, RUSTICL_ENABLE=llvmpipe):
 * a work-item runs at most 65535 loop passes in all, counted over every loop of the kernel
 * (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS, a "looplimiter" shared by all loops of a shader);
 * past it each loop leaves after its current pass, with no error. Plain OpenCL, no clmatch.
 * One work-item counts the passes of one loop (`flat`, n passes) or of a loop nested in
 * another (`nested`, outer x inner passes), reading a buffer of ones so that nothing folds
 * the loops away, and writes the count; it should be the number of passes.
 *
 * Mesa 22.3.6 (Debian 12) on llvmpipe: flat 65535 -> 65535, 65536 -> 65535, 200000 -> 65535;
 * nested 255 x 255 -> 65025 (255 + 255 x (255 + 1) = 65535 passes: each entry of the inner
 * loop also pays for the pass that leaves it), 256 x 256 -> 65027, 4096 x 100 -> 64251 (what
 * cl/naive.cl did at m = 100 on an all-match text: 4096 starts per work-item, up to m bytes
 * compared at each). PoCL 3.1 counts every pass. The host now bounds the work per work-item
 * on llvmpipe (clm_device.loop_budget; bench/experiments/README.md).
 *
 * Build and run:
 *   gcc -std=c11 -O1 -o /tmp/loop_budget bench/experiments/loop_budget.c -lOpenCL
 *   OCL_ICD_VENDORS=<dir with rusticl.icd> RUSTICL_ENABLE=llvmpipe /tmp/loop_budget
 * Optional arguments: platform and device index (default 0 0). Exit status 1 when a count is
 * short. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "__kernel void flat(__global const uint *ones, uint n, __global uint *out)\n"
    "{\n"
    "    uint c = 0;\n"
    "    for (uint i = 0; i < n; ++i)\n"
    "        c += ones[i & 255u];\n"
    "    out[get_global_id(0)] = c;\n"
    "}\n"
    "__kernel void nested(__global const uint *ones, uint outer, uint inner,\n"
    "                     __global uint *out)\n"
    "{\n"
    "    uint c = 0;\n"
    "    for (uint i = 0; i < outer; ++i) {\n"
    "        uint j = 0;\n"
    "        while (j < inner && ones[j & 255u])\n"
    "            ++j;\n"
    "        c += j;\n"
    "    }\n"
    "    out[get_global_id(0)] = c;\n"
    "}\n";

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cl_int e_ = (call);                                                                \
        if (e_ != CL_SUCCESS) {                                                            \
            fprintf(stderr, "%s: OpenCL error %d\n", #call, e_);                           \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    unsigned pi = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    unsigned di = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    cl_platform_id plats[16];
    cl_uint np = 0, nd = 0;
    CHECK(clGetPlatformIDs(16, plats, &np));
    if (pi >= np) {
        fprintf(stderr, "no platform %u (%u found)\n", pi, np);
        return 2;
    }
    cl_device_id devs[16];
    CHECK(clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd));
    if (di >= nd) {
        fprintf(stderr, "no device %u on platform %u\n", di, pi);
        return 2;
    }
    char name[256], version[256];
    CHECK(clGetDeviceInfo(devs[di], CL_DEVICE_NAME, sizeof name, name, NULL));
    CHECK(clGetDeviceInfo(devs[di], CL_DRIVER_VERSION, sizeof version, version, NULL));
    printf("device: %s, driver %s\n", name, version);

    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &devs[di], NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, devs[di], 0, &err);
    CHECK(err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &devs[di], "-cl-std=CL1.2", NULL, NULL));
    cl_uint ones[256];
    for (int i = 0; i < 256; i++)
        ones[i] = 1;
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ones, ones,
                               &err);
    CHECK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(cl_uint), NULL, &err);
    CHECK(err);

    static const cl_uint flat_n[] = {65535, 65536, 200000};
    static const cl_uint nested_n[][2] = {{255, 255}, {256, 256}, {4096, 100}};
    int short_counts = 0;
    for (int k = 0; k < 6; k++) {
        const int is_flat = k < 3;
        cl_kernel kern = clCreateKernel(prog, is_flat ? "flat" : "nested", &err);
        CHECK(err);
        cl_uint a = is_flat ? flat_n[k] : nested_n[k - 3][0], b = is_flat ? 0 : nested_n[k - 3][1];
        cl_uint arg = 0;
        CHECK(clSetKernelArg(kern, arg++, sizeof in, &in));
        CHECK(clSetKernelArg(kern, arg++, sizeof a, &a));
        if (!is_flat)
            CHECK(clSetKernelArg(kern, arg++, sizeof b, &b));
        CHECK(clSetKernelArg(kern, arg++, sizeof out, &out));
        size_t one = 1;
        CHECK(clEnqueueNDRangeKernel(q, kern, 1, NULL, &one, &one, 0, NULL, NULL));
        cl_uint got = 0;
        CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
        const cl_uint want = is_flat ? a : a * b;
        if (is_flat)
            printf("flat   %6u passes:        counted %6u%s\n", a, got,
                   got == want ? "" : "  SHORT");
        else
            printf("nested %4u x %3u = %6u: counted %6u%s\n", a, b, want, got,
                   got == want ? "" : "  SHORT");
        short_counts += got != want;
        clReleaseKernel(kern);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return short_counts ? 1 : 0;
}
