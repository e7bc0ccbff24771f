/* Newlines of a file counted ahead by blocks: see line_index.h. */
#if !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE)
#define _XOPEN_SOURCE 700 /* pread */
#endif
#include "line_index.h"

#include "cli_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define READ_BYTES ((size_t)1 << 20) /* a thread's reads: whole blocks */
#define MAX_THREADS 64u

typedef struct {
    int fd;
    uint64_t from;   /* file offset of the thread's first block */
    size_t first, n; /* its blocks */
    uint32_t *count;
    int failed;
} part;

static void *count_part(void *arg)
{
    part *p = arg;
    unsigned char *buf = malloc(READ_BYTES);
    if (!buf) {
        p->failed = 1;
        return NULL;
    }
    const size_t per_read = READ_BYTES / LINE_INDEX_BLOCK;
    for (size_t b = 0; b < p->n && !p->failed; b += per_read) {
        size_t blocks = p->n - b < per_read ? p->n - b : per_read;
        size_t want = blocks * LINE_INDEX_BLOCK, got = 0;
        while (got < want) {
            ssize_t r = pread(p->fd, buf + got, want - got,
                              (off_t)(p->from + b * LINE_INDEX_BLOCK + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                p->failed = 1;
                break;
            }
            got += (size_t)r;
        }
        for (size_t i = 0; i < blocks && !p->failed; i++)
            p->count[p->first + b + i] =
                (uint32_t)count_newlines(buf + i * LINE_INDEX_BLOCK, LINE_INDEX_BLOCK);
    }
    free(buf);
    return NULL;
}

void line_index_init(line_index *li)
{
    li->from = 0;
    li->n = li->cap = 0;
    li->count = NULL;
}

void line_index_free(line_index *li)
{
    free(li->count);
    line_index_init(li);
}

int line_index_build(line_index *li, int fd, uint64_t from, uint64_t to, unsigned threads)
{
    const size_t n = (size_t)((to - from) / LINE_INDEX_BLOCK);
    li->n = 0;
    if (n > li->cap) {
        uint32_t *c = realloc(li->count, n * sizeof *c);
        if (!c)
            return -1;
        li->count = c;
        li->cap = n;
    }
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads > n)
        threads = n ? (unsigned)n : 1;
    part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    const size_t step = (n + threads - 1) / threads;
    for (unsigned t = 0; t < threads; t++) {
        size_t a = (size_t)t * step < n ? (size_t)t * step : n;
        size_t b = a + step < n ? a + step : n;
        parts[t] = (part){fd, from + a * LINE_INDEX_BLOCK, a, b - a, li->count, 0};
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, count_part, &parts[t]) == 0;
    }
    count_part(&parts[0]);
    int failed = parts[0].failed;
    for (unsigned t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            count_part(&parts[t]); /* no thread: on this one */
        failed |= parts[t].failed;
    }
    if (failed)
        return -1;
    li->from = from;
    li->n = n;
    return 0;
}

int line_index_covers(const line_index *li, uint64_t from, uint64_t to)
{
    return li->n && from >= li->from && to <= li->from + li->n * LINE_INDEX_BLOCK;
}

uint64_t line_index_sum(const line_index *li, uint64_t from, uint64_t to)
{
    uint64_t sum = 0;
    for (size_t i = (size_t)((from - li->from) / LINE_INDEX_BLOCK),
                e = (size_t)((to - li->from) / LINE_INDEX_BLOCK);
         i < e; i++)
        sum += li->count[i];
    return sum;
}
