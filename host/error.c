/* Status codes, their texts, and the per-thread detail of the last failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The detail lives per thread so that concurrent callers never see each other's errors. A
 * pthread key frees it when the thread exits (a bare _Thread_local pointer would leak). */
struct detail_buf {
    char *text;
    size_t len, cap;
};

static pthread_key_t detail_key;
static pthread_once_t detail_once = PTHREAD_ONCE_INIT;

static void detail_free(void *p)
{
    struct detail_buf *d = p;
    if (d)
        free(d->text);
    free(d);
}

static void detail_key_init(void)
{
    pthread_key_create(&detail_key, detail_free);
}

static struct detail_buf *detail_get(void)
{
    pthread_once(&detail_once, detail_key_init);
    struct detail_buf *d = pthread_getspecific(detail_key);
    if (!d && (d = calloc(1, sizeof *d)) != NULL && pthread_setspecific(detail_key, d) != 0) {
        free(d);
        d = NULL;
    }
    return d;
}

static void detail_reserve(struct detail_buf *d, size_t need)
{
    if (need <= d->cap)
        return;
    size_t cap = d->cap ? d->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(d->text, cap);
    if (!p)
        return; /* keep the old (shorter) text rather than lose it */
    d->text = p;
    d->cap = cap;
}

static void detail_vappend(const char *fmt, va_list ap)
{
    struct detail_buf *d = detail_get();
    if (!d)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    detail_reserve(d, d->len + (size_t)n + 1);
    if (d->len + (size_t)n + 1 > d->cap)
        return;
    vsnprintf(d->text + d->len, (size_t)n + 1, fmt, ap);
    d->len += (size_t)n;
}

void clm_clear_error(void)
{
    struct detail_buf *d = detail_get();
    if (d && d->text) {
        d->len = 0;
        d->text[0] = '\0';
    }
}

int clm_fail(int status, const char *fmt, ...)
{
    clm_clear_error();
    va_list ap;
    va_start(ap, fmt);
    detail_vappend(fmt, ap);
    va_end(ap);
    return status;
}

static void append_literal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    detail_vappend(fmt, ap);
    va_end(ap);
}

void clm_fail_append(const char *text)
{
    append_literal("%s", text);
}

const char *clm_last_error(void)
{
    struct detail_buf *d = detail_get();
    return d && d->text ? d->text : "";
}

const char *clm_strerror(int status)
{
    switch (status) {
    case CLM_OK: return "success";
    case CLM_STOPPED: return "scan stopped by the match callback";
    case CLM_E_INVALID: return "invalid argument";
    case CLM_E_NOMEM: return "out of host memory";
    case CLM_E_NO_PLATFORM: return "no OpenCL platform installed";
    case CLM_E_PLATFORM_INDEX: return "OpenCL platform index out of range";
    case CLM_E_DEVICE_INDEX: return "OpenCL device index out of range";
    case CLM_E_NO_DEVICE: return "no usable OpenCL device";
    case CLM_E_EMPTY_PATTERN: return "empty pattern";
    case CLM_E_PATTERN_TOO_LONG: return "pattern too long";
    case CLM_E_UNSUPPORTED: return "not supported for this pattern or device";
    case CLM_E_BUILD: return "OpenCL kernel build failed";
    case CLM_E_DEVICE_MEMORY: return "out of device memory";
    case CLM_E_OPENCL: return "OpenCL runtime error";
    case CLM_E_IO: return "file input/output error";
    case CLM_E_PATTERN_SYNTAX: return "malformed pattern";
    case CLM_E_BUSY:
        return "the scratch is in use by another call: a second thread, or a call from its own "
               "match callback";
    default: return "unknown status";
    }
}

const char *clm_cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
    E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

int clm_fail_cl(cl_int err, const char *call)
{
    int status = CLM_E_OPENCL;
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE)
        status = CLM_E_DEVICE_MEMORY;
    return clm_fail(status, "%s failed: %s (%d)", call, clm_cl_error_name(err), (int)err);
}
