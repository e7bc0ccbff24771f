/*
 * The host-kernel contract (cl/contract.h): the search kernels and clm_pack take their
 * arguments in the order the host sets them, built here with -cl-kernel-arg-info so that the
 * device names each argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "t.h"
#include "t_cl.h"

/* The names the contract gives the search kernels' arguments, by index. */
#define ARG_NAME(NAME, TYPE, VAR) #VAR,
static const char *const search_args[] = {CLM_KERNEL_ARG_LIST(ARG_NAME, ARG_NAME)};
static const char *const pack_args[] = {[CLM_PACK_ARG_TEXT] = "text", [CLM_PACK_ARG_N] = "n",
                                        [CLM_PACK_ARG_OUT] = "packed"};

void t_check_kernel_args(cl_program prog, const char *name, const char *const *names,
                         unsigned n)
{
    cl_int err;
    cl_kernel k = clCreateKernel(prog, name, &err);
    if (!EXPECT(err == CL_SUCCESS))
        return;
    cl_uint count = 0;
    EXPECT(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL) == CL_SUCCESS);
    if (!EXPECT(count == n))
        t_note("%s takes %u arguments; the contract has %u", name, count, n);
    for (cl_uint i = 0; i < count && i < n; i++) {
        char got[64] = "";
        err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof got, got, NULL);
        if (err == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) {
            t_note("%s: the device keeps no argument names: nothing to compare", name);
            break;
        }
        if (!EXPECT(err == CL_SUCCESS && strcmp(got, names[i]) == 0))
            t_note("%s argument %u is '%s'; the contract says '%s'", name, i, got, names[i]);
    }
    clReleaseKernel(k);
}

/* Build the program of a database's first engine again, with argument names kept. */
static cl_program build_with_arg_info(const clm_database *db)
{
    char *src = NULL, options[600];
    const struct clm_engine *e = &db->engines[0];
    if (!EXPECT(clm_program_source(&e->shape, &src) == CLM_OK))
        return NULL;
    snprintf(options, sizeof options, "%s -cl-kernel-arg-info", e->options);
    cl_int err;
    const char *text = src;
    cl_program prog = clCreateProgramWithSource(db->dev->context, 1, &text, NULL, &err);
    free(src);
    if (!EXPECT(err == CL_SUCCESS))
        return NULL;
    if (!EXPECT(clBuildProgram(prog, 1, &db->dev->device, options, NULL, NULL) == CL_SUCCESS)) {
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

static void test_kernel_args(const void *arg)
{
    (void)arg;
    REQUIRE(sizeof search_args / sizeof search_args[0] == CLM_ARG_COUNT);
    /* a packed DNA database: its program has clm_pack beside the search kernels */
    const char *pat = "GATTACA";
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.flags = CLM_DNA;
    o.packing = CLM_ON;
    o.algorithm = CLM_ALGO_DFA;
    clm_database *db = NULL;
    REQUIRE_RC(clm_compile(t_dev, &pat, NULL, NULL, 1, &o, &db), CLM_OK);
    cl_program prog = db->packed ? build_with_arg_info(db) : NULL;
    if (!db->packed)
        t_note("%s does not pack DNA: clm_pack not checked", t_devinfo.name);
    else if (prog) {
        t_check_kernel_args(prog, "clm_find", search_args, CLM_ARG_COUNT);
        t_check_kernel_args(prog, "clm_count", search_args, CLM_ARG_COUNT);
        t_check_kernel_args(prog, "clm_pack", pack_args, 3);
        clReleaseProgram(prog);
    }
    clm_database_free(db);
}

void register_contract_tests(void)
{
    t_register("contract.kernel_args", test_kernel_args, NULL, 1);
}
