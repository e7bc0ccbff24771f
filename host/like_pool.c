/* like_pool.c - what a clm_like_select call leaves on its device for the next one: its
 * command queue, its kernels and its buffers (per-row arrays, ids, bitmaps). Made and freed
 * per call they cost a resident column's select about 0.2 ms on the H200 (TPC-H SF 10 Q13
 * with its search left out: 0.66-0.77 ms, 0.47-0.51 with the queue and buffers kept;
 * bench/experiments/records-item.md). Buffers are kept up to a bound (an eighth of the
 * device's memory, 1 GiB at most), the oldest given back first; a buffer over the caller's
 * memory (CL_MEM_USE_HOST_PTR) is never kept. */
#include <string.h>

#include "internal.h"

#define POOL_MAX_BYTES ((uint64_t)1 << 30)

static void drop_oldest(struct clm_like_pool *p)
{
    clReleaseMemObject(p->buf[0].m);
    p->bytes -= p->buf[0].n;
    memmove(&p->buf[0], &p->buf[1], (p->nbuf - 1) * sizeof p->buf[0]);
    p->nbuf--;
}

int clm_pool_buffer(clm_device *dev, cl_mem_flags flags, size_t n, cl_mem *out)
{
    struct clm_like_pool *p = &dev->like_pool;
    if (!n)
        n = 1;
    pthread_mutex_lock(&p->lock);
    unsigned best = p->nbuf;
    for (unsigned i = 0; i < p->nbuf; i++) /* the smallest that fits, at most twice n */
        if (p->buf[i].flags == flags && p->buf[i].n >= n && p->buf[i].n / 2 <= n &&
            (best == p->nbuf || p->buf[i].n < p->buf[best].n))
            best = i;
    if (best < p->nbuf) {
        *out = p->buf[best].m;
        p->bytes -= p->buf[best].n;
        memmove(&p->buf[best], &p->buf[best + 1], (p->nbuf - best - 1) * sizeof p->buf[0]);
        p->nbuf--;
        pthread_mutex_unlock(&p->lock);
        return CLM_OK;
    }
    pthread_mutex_unlock(&p->lock);
    cl_int err;
    *out = clCreateBuffer(dev->context, flags, n, NULL, &err);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clCreateBuffer (LIKE query)");
}

void clm_pool_put_buffer(clm_device *dev, cl_mem m)
{
    struct clm_like_pool *p = &dev->like_pool;
    cl_mem_flags flags = 0;
    size_t n = 0;
    cl_mem parent = NULL;
    if (!m)
        return;
    uint64_t cap = dev->info.global_mem_bytes / 8;
    if (cap > POOL_MAX_BYTES)
        cap = POOL_MAX_BYTES;
    if (clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof flags, &flags, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof n, &n, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) !=
            CL_SUCCESS ||
        parent || (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR)) || n > cap) {
        clReleaseMemObject(m);
        return;
    }
    pthread_mutex_lock(&p->lock);
    while (p->nbuf && (p->nbuf == CLM_POOL_BUFFERS || p->bytes + n > cap))
        drop_oldest(p);
    p->buf[p->nbuf].m = m;
    p->buf[p->nbuf].n = n;
    p->buf[p->nbuf].flags = flags;
    p->nbuf++;
    p->bytes += n;
    pthread_mutex_unlock(&p->lock);
}

cl_command_queue clm_pool_queue(clm_device *dev, cl_int *err)
{
    struct clm_like_pool *p = &dev->like_pool;
    pthread_mutex_lock(&p->lock);
    cl_command_queue q = p->nq ? p->q[--p->nq] : NULL;
    pthread_mutex_unlock(&p->lock);
    if (q) {
        *err = CL_SUCCESS;
        return q;
    }
    return clCreateCommandQueue(dev->context, dev->device, 0, err);
}

void clm_pool_put_queue(clm_device *dev, cl_command_queue q)
{
    struct clm_like_pool *p = &dev->like_pool;
    if (!q)
        return;
    if (clFinish(q) == CL_SUCCESS) { /* an idle queue only */
        pthread_mutex_lock(&p->lock);
        if (p->nq < CLM_POOL_QUEUES) {
            p->q[p->nq++] = q;
            q = NULL;
        }
        pthread_mutex_unlock(&p->lock);
    }
    if (q)
        clReleaseCommandQueue(q);
}

/* A kept kernel holds its program: the pointer names that program while the kernel is kept. */
cl_kernel clm_pool_kernel(clm_device *dev, cl_program prog, const char *name, cl_int *err)
{
    struct clm_like_pool *p = &dev->like_pool;
    pthread_mutex_lock(&p->lock);
    for (unsigned i = p->nk; i-- > 0;)
        if (p->kern[i].prog == prog && strcmp(p->kern[i].name, name) == 0) {
            cl_kernel k = p->kern[i].k;
            memmove(&p->kern[i], &p->kern[i + 1], (p->nk - i - 1) * sizeof p->kern[0]);
            p->nk--;
            pthread_mutex_unlock(&p->lock);
            *err = CL_SUCCESS;
            return k;
        }
    pthread_mutex_unlock(&p->lock);
    return clCreateKernel(prog, name, err);
}

void clm_pool_put_kernel(clm_device *dev, cl_kernel k)
{
    struct clm_like_pool *p = &dev->like_pool;
    cl_program prog = NULL;
    char name[sizeof p->kern[0].name];
    size_t len = 0;
    if (!k)
        return;
    if (clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL) != CL_SUCCESS ||
        clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, &len) != CL_SUCCESS ||
        !len || len > sizeof name) {
        clReleaseKernel(k);
        return;
    }
    pthread_mutex_lock(&p->lock);
    if (p->nk == CLM_POOL_KERNELS) { /* the oldest goes */
        clReleaseKernel(p->kern[0].k);
        memmove(&p->kern[0], &p->kern[1], (p->nk - 1) * sizeof p->kern[0]);
        p->nk--;
    }
    p->kern[p->nk].k = k;
    p->kern[p->nk].prog = prog;
    memcpy(p->kern[p->nk].name, name, len);
    p->nk++;
    pthread_mutex_unlock(&p->lock);
}

void clm_pool_free(clm_device *dev)
{
    struct clm_like_pool *p = &dev->like_pool;
    while (p->nk)
        clReleaseKernel(p->kern[--p->nk].k);
    while (p->nbuf)
        drop_oldest(p);
    while (p->nq)
        clReleaseCommandQueue(p->q[--p->nq]);
}
