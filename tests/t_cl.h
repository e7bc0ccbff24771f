/* Test helpers that take OpenCL objects (internal.h brings the OpenCL headers). */
#ifndef CLMATCH_T_CL_H
#define CLMATCH_T_CL_H

#include "internal.h"

/* Kernel `name` of prog (built with -cl-kernel-arg-info) takes exactly the `n` arguments
 * `names`, in that order: failures are EXPECTs with a note. Defined in test_contract.c. */
void t_check_kernel_args(cl_program prog, const char *name, const char *const *names,
                         unsigned n);

#endif
