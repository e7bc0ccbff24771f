/* Host-side work on one slab split over several threads: copying it into staging memory and
 * reading it from a file with pread(). One memcpy or read stream is held to a fraction of the
 * host's memory bandwidth (reading the page cache: ~5-10 GB/s per thread); several cores
 * together get close to it. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

#include "internal.h"

/* Below this many bytes per thread, starting a thread costs more than it saves. */
#define PART_MIN ((size_t)1 << 20)
#define MAX_THREADS CLM_MAX_IO_THREADS
/* The automatic count: enough threads that reading the page cache keeps up with a PCIe 5
 * bus (55 GB/s pinned on the H200 host, at ~5 GB/s a thread), no more than there are CPUs. */
#define AUTO_THREADS 16

/* CPUs this process may run on (its affinity mask where the system has one). */
static unsigned usable_cpus(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
#endif
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1u : (unsigned)cores;
}

unsigned clm_io_threads(unsigned *cpus)
{
    unsigned n = usable_cpus();
    if (cpus)
        *cpus = n;
    return n < AUTO_THREADS ? n : AUTO_THREADS;
}

struct part {
    unsigned char *dst;
    const unsigned char *src; /* copy */
    int fd;                   /* pread */
    uint64_t offset;
    size_t n;
    /* what went wrong (pread): errno, 0 for a short read, at this file offset */
    int failed, err;
    uint64_t at;
};

static void *copy_part(void *arg)
{
    struct part *p = arg;
    memcpy(p->dst, p->src, p->n);
    return NULL;
}

static void *read_part(void *arg)
{
    struct part *p = arg;
    size_t done = 0;
    while (done < p->n) {
        ssize_t got = pread(p->fd, p->dst + done, p->n - done, (off_t)(p->offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            p->failed = 1;
            p->err = got < 0 ? errno : 0;
            p->at = p->offset + done;
            break;
        }
        done += (size_t)got;
    }
    return NULL;
}

/* Run fn over `threads` contiguous parts of [0, n): parts 1.. on their own threads, part 0
 * on the caller's (and any part whose thread could not start, too). */
static void run_parts(struct part *parts, unsigned threads, size_t n, void *(*fn)(void *))
{
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    size_t step = (n + threads - 1) / threads;
    step = (step + 4095) & ~(size_t)4095; /* page-aligned parts keep reads on page bounds */
    for (unsigned i = 0; i < threads; i++) {
        size_t a = (size_t)i * step < n ? (size_t)i * step : n;
        size_t b = a + step < n ? a + step : n;
        parts[i].dst += a;
        if (parts[i].src)
            parts[i].src += a;
        parts[i].offset += a;
        parts[i].n = b - a;
    }
    for (unsigned i = 1; i < threads; i++)
        started[i] = parts[i].n && pthread_create(&tid[i], NULL, fn, &parts[i]) == 0;
    fn(&parts[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else if (parts[i].n)
            fn(&parts[i]);
    }
}

static unsigned threads_for(size_t n, unsigned threads)
{
    size_t most = n / PART_MIN;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (most < threads)
        threads = most ? (unsigned)most : 1u;
    return threads ? threads : 1u;
}

void clm_parallel_copy(void *dst, const void *src, size_t n, unsigned threads)
{
    threads = threads_for(n, threads);
    if (threads == 1) {
        memcpy(dst, src, n);
        return;
    }
    struct part parts[MAX_THREADS];
    memset(parts, 0, sizeof parts);
    for (unsigned i = 0; i < threads; i++) {
        parts[i].dst = dst;
        parts[i].src = src;
    }
    run_parts(parts, threads, n, copy_part);
}

int clm_parallel_pread(int fd, void *dst, size_t n, uint64_t offset, unsigned threads)
{
    struct part parts[MAX_THREADS];
    threads = threads_for(n, threads);
    memset(parts, 0, sizeof parts);
    for (unsigned i = 0; i < threads; i++) {
        parts[i].dst = dst;
        parts[i].fd = fd;
        parts[i].offset = offset;
    }
    run_parts(parts, threads, n, read_part);
    /* the failure nearest the start is the one to report (the detail is per thread, so it
     * is written here, on the caller's) */
    for (unsigned i = 0; i < threads; i++) {
        const struct part *p = &parts[i];
        if (!p->failed)
            continue;
        if (p->err)
            return clm_fail(CLM_E_IO, "read of fd %d at offset %llu failed: %s", fd,
                            (unsigned long long)p->at, strerror(p->err));
        return clm_fail(CLM_E_IO,
                        "short read: fd %d ended at offset %llu, before the %llu bytes its size "
                        "promised (the file shrank while it was read?)",
                        fd, (unsigned long long)p->at, (unsigned long long)(offset + n));
    }
    return CLM_OK;
}
