/* The public structs that may grow (clmatch.h, Conventions): the caller's size travels with
 * each, so that the library never writes or reads past the struct the caller compiled, and
 * fields the other side does not know become 0 or an error. */
#include <string.h>

#include "internal.h"

/* Above this an options size is not a size (an uninitialised struct): the bytes past the
 * library's struct are not read. */
#define OPTIONS_SIZE_MAX 4096u

int clm_copy_out(void *dst, size_t dst_size, const void *src, size_t src_size, size_t min_size,
                 const char *what)
{
    if (!dst)
        return clm_fail(CLM_E_INVALID, "%s: NULL struct", what);
    if (dst_size < min_size)
        return clm_fail(CLM_E_INVALID,
                        "%s of %zu bytes: smaller than its first version (%zu bytes); pass "
                        "sizeof the struct",
                        what, dst_size, min_size);
    size_t n = dst_size < src_size ? dst_size : src_size;
    memcpy(dst, src, n);
    memset((unsigned char *)dst + n, 0, dst_size - n);
    return CLM_OK;
}

int clm_options_read(void *dst, size_t dst_size, const void *src, size_t min_size,
                     const char *what, const char *init)
{
    size_t size;
    memcpy(&size, src, sizeof size); /* the first member */
    if (size == 0)
        return clm_fail(CLM_E_INVALID, "%s.size is 0: fill the options with %s(&opts, sizeof "
                                       "opts) before setting fields",
                        what, init);
    if (size < min_size || size > OPTIONS_SIZE_MAX)
        return clm_fail(CLM_E_INVALID,
                        "%s.size %zu is not the size of the struct (%zu bytes or more in its "
                        "first version): fill the options with %s(&opts, sizeof opts)",
                        what, size, min_size, init);
    for (size_t i = dst_size; i < size; i++)
        if (((const unsigned char *)src)[i])
            return clm_fail(CLM_E_INVALID,
                            "%s sets fields past the %zu bytes this library (clmatch %s) "
                            "knows (the caller's struct has %zu): built against a newer "
                            "clmatch.h",
                            what, dst_size, CLM_VERSION_STRING, size);
    memcpy(dst, src, size < dst_size ? size : dst_size);
    return CLM_OK;
}

/* Fill the caller's options (size bytes) from the library's defaults (own bytes), zeros past
 * them, and set its size. */
static int options_init(void *opts, size_t size, const void *defaults, size_t own,
                        size_t min_size, const char *what)
{
    if (!opts)
        return clm_fail(CLM_E_INVALID, "%s_init: NULL options", what);
    if (size < min_size || size > OPTIONS_SIZE_MAX)
        return clm_fail(CLM_E_INVALID,
                        "%s_init: size %zu is not the size of the struct (%zu bytes or more "
                        "in its first version): pass sizeof the options",
                        what, size, min_size);
    memset(opts, 0, size);
    memcpy(opts, defaults, size < own ? size : own);
    memcpy(opts, &size, sizeof size);
    return CLM_OK;
}

int clm_compile_options_init(clm_compile_options *opts, size_t size)
{
    clm_compile_options d;
    memset(&d, 0, sizeof d);
    d.algorithm = CLM_ALGO_AUTO;
    d.table_memory = CLM_TABLE_AUTO;
    d.variant = CLM_VARIANT_AUTO;
    d.staging = d.prefetch = d.packing = CLM_AUTO;
    return options_init(opts, size, &d, sizeof d, CLM_COMPILE_OPTIONS_V1, "clm_compile_options");
}

int clm_scratch_options_init(clm_scratch_options *opts, size_t size)
{
    clm_scratch_options d;
    memset(&d, 0, sizeof d);
    d.data_path = CLM_PATH_AUTO;
    return options_init(opts, size, &d, sizeof d, CLM_SCRATCH_OPTIONS_V1, "clm_scratch_options");
}
