/*
 * line_records.c - an input's records (lines, or NUL-terminated) as a string column for the
 * LIKE mode. A regular file is read by threads, each a part of it; the terminators are then
 * counted per part and each part's record bytes are copied down past the terminators before
 * it, again a thread per part: record k ends at its terminator's position less k, so no part
 * waits for another.
 */
#define _XOPEN_SOURCE 700
#include "line_records.h"

#include "cli_common.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PARTS 16
/* Below this many bytes a part is not worth a thread. */
#define MIN_PART ((size_t)4 << 20)

struct part {
    unsigned char *src, *dst;
    size_t lo, hi;  /* bytes [lo, hi) of the input */
    int fd, sep, err;
    uint64_t seps, before; /* terminators in the part, and in the parts before it */
    void *off;
    unsigned bits;
};

/* Ask for huge pages over a large buffer (where the kernel offers them only on request): a
 * gigabyte in 4 KiB pages is a quarter million first-touch faults. */
static void *alloc_large(size_t n)
{
    void *p = malloc(n);
#ifdef MADV_HUGEPAGE
    const uintptr_t page = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
    if (p && e > a)
        (void)madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
#endif
    return p;
}

/* A regular file mapped with its pages present (the page cache's own: no copy into fresh
 * memory, whose first touches fault and zero a page at a time; H200 machine, 1 GB genome).
 * NULL: read it instead. Like any mapping, a file truncated meanwhile would fault. */
static unsigned char *map_file(int fd, size_t n)
{
#ifdef MAP_POPULATE
    void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
#else
    void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
#endif
    if (p == MAP_FAILED)
        return NULL;
    struct stat st; /* shorter than n now: read it instead */
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < n) {
        munmap(p, n);
        return NULL;
    }
    return p;
}

static unsigned parts_for(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t p = n / MIN_PART;
    if (cpus < 1) cpus = 1;
    if (p > (size_t)cpus) p = (size_t)cpus;
    if (p > MAX_PARTS) p = MAX_PARTS;
    return p ? (unsigned)p : 1u;
}

/* Parts of src[0, n) for the threads: as many as parts_for says, the last to the end. */
static unsigned split_parts(struct part *parts, unsigned char *src, size_t n, int fd, int sep)
{
    unsigned np = parts_for(n);
    for (unsigned i = 0; i < np; i++)
        parts[i] = (struct part){src, NULL, n / np * i, i + 1 == np ? n : n / np * (i + 1),
                                 fd, sep, 0, 0, 0, NULL, 0};
    return np;
}

static void *read_part(void *arg)
{
    struct part *p = arg;
    for (size_t at = p->lo; at < p->hi && !p->err;) {
        ssize_t got = pread(p->fd, p->src + at, p->hi - at, (off_t)at);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) p->err = got < 0 ? errno : EIO; /* shorter than fstat said */
        else at += (size_t)got;
    }
    return NULL;
}

static void *count_part(void *arg)
{
    struct part *p = arg;
    p->seps = 0;
    for (const unsigned char *s = p->src + p->lo, *end = p->src + p->hi;
         (s = memchr(s, p->sep, (size_t)(end - s))) != NULL; s++)
        p->seps++;
    return NULL;
}

static void *split_part(void *arg)
{
    struct part *p = arg;
    uint64_t k = p->before;
    size_t at = p->lo;
    for (const unsigned char *e;
         (e = memchr(p->src + at, p->sep, p->hi - at)) != NULL; k++) {
        size_t end = (size_t)(e - p->src);
        memcpy(p->dst + at - k, p->src + at, end - at);
        if (p->bits == 32) ((int32_t *)p->off)[k + 1] = (int32_t)(end - k);
        else ((int64_t *)p->off)[k + 1] = (int64_t)(end - k);
        at = end + 1;
    }
    memcpy(p->dst + at - k, p->src + at, p->hi - at);
    return NULL;
}

int line_records_read(int fd, int sep, line_records *out)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    unsigned char *src = NULL;
    size_t n = 0;
    struct part parts[MAX_PARTS];
    unsigned np = 1;
    memset(parts, 0, sizeof parts);
    int mapped = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= SIZE_MAX) {
        n = (size_t)st.st_size;
        src = map_file(fd, n);
        mapped = src != NULL;
    }
    if (mapped) {
        np = split_parts(parts, src, n, fd, sep);
    } else if (n) {
        if (!(src = alloc_large(n))) return ENOMEM;
        np = split_parts(parts, src, n, fd, sep);
        cli_run_parts(parts, sizeof *parts, np, read_part);
        for (unsigned i = 0; i < np; i++)
            if (parts[i].err) {
                int err = parts[i].err;
                free(src);
                return err;
            }
    }
    /* a file that grew since fstat: the rest as a stream */
    unsigned char probe;
    if (src && pread(fd, &probe, 1, (off_t)n) == 1) {
        if (mapped)
            munmap(src, n);
        else
            free(src);
        src = NULL;
        mapped = 0;
        if (lseek(fd, 0, SEEK_SET) != 0) return errno;
    }
    if (!src) {
        int err = read_fd_all(fd, &src, &n);
        if (err) return err;
        np = split_parts(parts, src, n, fd, sep);
    }
    cli_run_parts(parts, sizeof *parts, np, count_part);
    uint64_t seps = 0;
    for (unsigned i = 0; i < np; i++) {
        parts[i].before = seps;
        seps += parts[i].seps;
    }
    uint64_t rows = seps + (n > 0 && src[n - 1] != sep); /* a last record without one */
    uint64_t bytes = n - seps;
    unsigned bits = bytes <= INT32_MAX ? 32 : 64; /* half the offsets' bytes to send */
    unsigned char *dst = alloc_large(bytes ? bytes : 1);
    void *off = malloc((rows + 1) * (bits / 8));
    if (!dst || !off) {
        if (mapped)
            munmap(src, n);
        else
            free(src);
        free(dst);
        free(off);
        return ENOMEM;
    }
    for (unsigned i = 0; i < np; i++) {
        parts[i].dst = dst;
        parts[i].off = off;
        parts[i].bits = bits;
    }
    cli_run_parts(parts, sizeof *parts, np, split_part);
    if (mapped)
        munmap(src, n);
    else
        free(src);
    if (bits == 32) {
        ((int32_t *)off)[0] = 0;
        ((int32_t *)off)[rows] = (int32_t)bytes;
    } else {
        ((int64_t *)off)[0] = 0;
        ((int64_t *)off)[rows] = (int64_t)bytes;
    }
    out->bytes = dst;
    out->offsets = off;
    out->offset_bits = bits;
    out->rows = rows;
    out->data_bytes = bytes;
    return 0;
}

uint64_t line_records_offset(const line_records *r, uint64_t i)
{
    return r->offset_bits == 32 ? (uint64_t)((const int32_t *)r->offsets)[i]
                                : (uint64_t)((const int64_t *)r->offsets)[i];
}

void line_records_free(line_records *r)
{
    free(r->bytes);
    free(r->offsets);
    memset(r, 0, sizeof *r);
}
