/* Host-side work over several threads: copying a slab into staging memory, and reading a
 * file with pread(). One memcpy or read stream is held to a fraction of the host's memory
 * bandwidth (reading the page cache: ~5-10 GB/s per thread); several cores together get
 * close to it. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <stdlib.h>
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
    const unsigned char *src;
    size_t n;
    size_t breaks; /* clm_parallel_copy_breaks: '\n' and '\r' bytes of the part */
    size_t shift;  /* clm_parallel_copy_drop_breaks: those of the parts before it */
};

static void *copy_part(void *arg)
{
    struct part *p = arg;
    memcpy(p->dst, p->src, p->n);
    return NULL;
}

/* Run fn over parts already placed: parts 1.. on their own threads, part 0 on the caller's
 * (and any part whose thread could not start, too). */
static void run_placed(struct part *parts, unsigned threads, void *(*fn)(void *))
{
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
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

/* `threads` contiguous parts of [0, n), each part's pointers moved to it. */
static void split_parts(struct part *parts, unsigned threads, size_t n)
{
    size_t step = clm_round_up((n + threads - 1) / threads, 4096); /* page-aligned parts */
    for (unsigned i = 0; i < threads; i++) {
        size_t a = (size_t)i * step < n ? (size_t)i * step : n;
        size_t b = a + step < n ? a + step : n;
        parts[i].dst += a;
        parts[i].src += a;
        parts[i].n = b - a;
    }
}

/* Run fn over `threads` contiguous parts of [0, n). */
static void run_parts(struct part *parts, unsigned threads, size_t n, void *(*fn)(void *))
{
    split_parts(parts, threads, n);
    run_placed(parts, threads, fn);
}

/* '\n' and '\r' bytes of p[0, n): W byte counters, each of at most 255 hits, in a loop the
 * compiler vectorizes (23 GB/s a thread in cache, where 8-byte SWAR words ran at 5). */
static size_t count_breaks(const unsigned char *p, size_t n)
{
    enum { W = 32, STEPS = 255 };
    size_t count = 0, i = 0;
    for (; i + W * STEPS <= n; i += W * STEPS) {
        unsigned char acc[W] = {0};
        for (size_t j = 0; j < W * STEPS; j += W)
            for (size_t k = 0; k < W; k++)
                acc[k] += (p[i + j + k] == '\n') | (p[i + j + k] == '\r');
        for (size_t k = 0; k < W; k++)
            count += acc[k];
    }
    for (; i < n; i++)
        count += p[i] == '\n' || p[i] == '\r';
    return count;
}

/* Copy in pieces that stay in the cache, counting each piece's line breaks where it landed. */
static void *copy_count_part(void *arg)
{
    enum { PIECE = 2 * 32 * 255 }; /* whole blocks of count_breaks */
    struct part *p = arg;
    for (size_t at = 0; at < p->n; at += PIECE) {
        size_t len = p->n - at < PIECE ? p->n - at : PIECE;
        memcpy(p->dst + at, p->src + at, len);
        p->breaks += count_breaks(p->dst + at, len);
    }
    return NULL;
}

/* Threads worth starting for n bytes: at most `threads` (and MAX_THREADS), and no more than n
 * has parts of PART_MIN; 0 below one part. */
static unsigned useful_threads(uint64_t n, unsigned threads)
{
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads > n / PART_MIN)
        threads = (unsigned)(n / PART_MIN);
    return threads;
}

/* Parts of a copy: the caller's own part counts, so at least one. */
static unsigned threads_for(size_t n, unsigned threads)
{
    unsigned t = useful_threads(n, threads);
    return t ? t : 1u;
}

/* Parts for a copy of n bytes from src to dst over up to `threads` threads: how many. */
static unsigned parts_init(struct part *parts, size_t n, unsigned threads, void *dst,
                           const void *src)
{
    threads = threads_for(n, threads);
    memset(parts, 0, MAX_THREADS * sizeof *parts);
    for (unsigned i = 0; i < threads; i++) {
        parts[i].dst = dst;
        parts[i].src = src;
    }
    return threads;
}

/* run_parts, or fn on the caller's thread alone for one part. */
static void run_all(struct part *parts, unsigned threads, size_t n, void *(*fn)(void *))
{
    if (threads == 1) {
        parts[0].n = n;
        fn(&parts[0]);
    } else {
        run_parts(parts, threads, n, fn);
    }
}

void clm_parallel_copy(void *dst, const void *src, size_t n, unsigned threads)
{
    struct part parts[MAX_THREADS];
    run_all(parts, parts_init(parts, n, threads, dst, src), n, copy_part);
}

void clm_parallel_copy2(void *dst, const void *src, size_t n, void *dst2, const void *src2,
                        size_t n2, unsigned threads)
{
    struct part parts[MAX_THREADS];
    unsigned t = useful_threads(n, threads - (threads > 1));
    if (t < 1 || t + 1 > MAX_THREADS || !n2) { /* one range would take every thread */
        clm_parallel_copy(dst, src, n, threads);
        memcpy(dst2, src2, n2);
        return;
    }
    parts_init(parts, n, t, dst, src);
    split_parts(parts, t, n);
    parts[t].dst = dst2;
    parts[t].src = src2;
    parts[t].n = n2;
    run_placed(parts, t + 1, copy_part);
}

/* run_all over dst and src, then the parts' line breaks summed. */
static size_t run_counted(void *dst, const void *src, size_t n, unsigned threads,
                          void *(*fn)(void *))
{
    struct part parts[MAX_THREADS];
    threads = parts_init(parts, n, threads, dst, src);
    run_all(parts, threads, n, fn);
    size_t sum = 0;
    for (unsigned i = 0; i < threads; i++)
        sum += parts[i].breaks;
    return sum;
}

size_t clm_parallel_copy_breaks(void *dst, const void *src, size_t n, unsigned threads)
{
    return run_counted(dst, src, n, threads, copy_count_part);
}

static void *count_part(void *arg)
{
    struct part *p = arg;
    p->breaks = count_breaks(p->src, p->n);
    return NULL;
}

size_t clm_parallel_count_breaks(const void *p, size_t n, unsigned threads)
{
    return run_counted((void *)p, p, n, threads, count_part); /* dst unused */
}

/* The part's bytes other than '\n' and '\r', to dst less the breaks before the part. */
static void *drop_part(void *arg)
{
    struct part *p = arg;
    unsigned char *out = p->dst - p->shift;
    const unsigned char *s = p->src, *end = p->src + p->n;
    while (s < end) {
        const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
        const unsigned char *stop = nl ? nl : end;
        for (const unsigned char *cr; (cr = memchr(s, '\r', (size_t)(stop - s))) != NULL;
             s = cr + 1) {
            memmove(out, s, (size_t)(cr - s));
            out += cr - s;
        }
        memmove(out, s, (size_t)(stop - s));
        out += stop - s;
        s = nl ? nl + 1 : end;
    }
    return NULL;
}

size_t clm_parallel_copy_drop_breaks(void *dst, const void *src, size_t n, unsigned threads)
{
    struct part parts[MAX_THREADS];
    threads = parts_init(parts, n, threads, dst, src);
    run_all(parts, threads, n, count_part);
    size_t before = 0;
    for (unsigned i = 0; i < threads; i++) { /* each part is at its place already */
        parts[i].shift = before;
        before += parts[i].breaks;
    }
    run_placed(parts, threads, drop_part);
    return n - before;
}

/* ---- a reader pool: one file scan's reads, piece by piece ---------------------------------
 * Threads started and joined for each slab, a contiguous part each, made every slab wait for
 * its slowest part and for thread start-up: the host read ran at 23-31 GB/s on the H200
 * machine where threads that take 4 MiB pieces of a queue, slab after slab, read the same
 * cached 10 GiB file at 42-46 GB/s (bench/experiments/README.md, "Streaming"). A read is cut
 * in a piece per thread (at least PART_MIN): with two slabs in flight, fewer pieces left
 * threads idle (16 MiB slabs in 4 MiB pieces: 26 GB/s). */

struct clm_reader {
    int fd;
    pthread_mutex_t lock;
    pthread_cond_t work, done; /* a read was queued or stop set; a read completed */
    struct clm_read *queue[CLM_READER_QUEUE]; /* oldest first; each with pieces not handed out */
    unsigned queued;
    int stop;
    unsigned threads;
    pthread_t tid[MAX_THREADS];
    double busy_since, busy_seconds; /* wall time with reads queued or in progress */
    unsigned active;                 /* reads submitted and not complete */
};

/* Take the next piece of the oldest read with pieces left (`only`: of that read alone); the
 * lock is held. 0 when there is none. */
static int take_piece(clm_reader *r, struct clm_read *only, struct clm_read **rd, size_t *at,
                      size_t *n)
{
    for (unsigned i = 0; i < r->queued; i++) {
        struct clm_read *q = r->queue[i];
        if (only && q != only)
            continue;
        *rd = q;
        *at = q->handed;
        *n = q->n - q->handed < q->piece ? q->n - q->handed : q->piece;
        q->handed += *n;
        if (q->handed == q->n) { /* all handed out: off the queue */
            memmove(&r->queue[i], &r->queue[i + 1], (r->queued - i - 1) * sizeof *r->queue);
            r->queued--;
        }
        return 1;
    }
    return 0;
}

/* pread n bytes at offset into dst, as far as it goes: 0, an errno value, or -1 after a
 * short read; *done gets the bytes read. */
static int pread_all(int fd, unsigned char *dst, size_t n, uint64_t offset, size_t *done)
{
    *done = 0;
    while (*done < n) {
        ssize_t got = pread(fd, dst + *done, n - *done, (off_t)(offset + *done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : -1;
        *done += (size_t)got;
    }
    return 0;
}

/* Read one piece (the lock is not held), in parts where the read has hooks or counts, then
 * account for it (the lock is held again). */
static void read_piece(clm_reader *r, struct clm_read *rd, size_t at, size_t n)
{
    pthread_mutex_unlock(&r->lock);
    const int parted = rd->count || (rd->hooks && rd->hooks->part);
    const size_t part = parted ? CLM_READ_PART : n;
    size_t done = 0, breaks = 0;
    int err = 0;
    while (done < n && !err) {
        size_t want = n - done < part ? n - done : part, got;
        unsigned char *p = rd->dst + at + done;
        err = pread_all(r->fd, p, want, rd->offset + at + done, &got);
        done += got;
        if (err)
            break;
        if (rd->count)
            breaks += count_breaks(p, want);
        if (rd->hooks && rd->hooks->part)
            rd->hooks->part(rd->hooks->ctx, rd->block, (unsigned)(at / rd->piece), p, want,
                            at + done - want, at);
    }
    pthread_mutex_lock(&r->lock);
    uint64_t where = rd->offset + at + done;
    if (err && (!rd->failed || where < rd->at)) { /* the failure nearest the start */
        rd->failed = 1;
        rd->err = err > 0 ? err : 0;
        rd->at = where;
    }
    rd->breaks += breaks;
    rd->left -= n;
    if (rd->left == 0) {
        if (--r->active == 0)
            r->busy_seconds += clm_now() - r->busy_since;
        pthread_cond_broadcast(&r->done);
    }
}

static void *reader_run(void *arg)
{
    clm_reader *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        struct clm_read *rd;
        size_t at, n;
        if (r->stop)
            break;
        if (take_piece(r, NULL, &rd, &at, &n))
            read_piece(r, rd, at, n);
        else
            pthread_cond_wait(&r->work, &r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

int clm_reader_open(int fd, unsigned threads, uint64_t bytes, clm_reader **out)
{
    *out = NULL;
    clm_reader *r = calloc(1, sizeof *r);
    if (!r)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    r->fd = fd;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        free(r);
        return clm_fail(CLM_E_NOMEM, "pthread_mutex_init failed");
    }
    pthread_cond_init(&r->work, NULL);
    pthread_cond_init(&r->done, NULL);
    threads = useful_threads(bytes, threads); /* a piece is at least PART_MIN: more would idle */
    /* a thread that cannot start is no error: the waiting caller reads too */
    for (unsigned i = 0; i < threads; i++)
        if (pthread_create(&r->tid[r->threads], NULL, reader_run, r) == 0)
            r->threads++;
    *out = r;
    return CLM_OK;
}

/* Queue rd (its fields set, its piece size too) for the pool. */
static int submit(clm_reader *r, struct clm_read *rd)
{
    pthread_mutex_lock(&r->lock);
    if (r->queued == CLM_READER_QUEUE) {
        pthread_mutex_unlock(&r->lock);
        return clm_fail(CLM_E_INVALID, "reader pool: more than %d reads queued",
                        CLM_READER_QUEUE);
    }
    if (r->active++ == 0)
        r->busy_since = clm_now();
    r->queue[r->queued++] = rd;
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->lock);
    return CLM_OK;
}

static void read_init(struct clm_read *rd, void *dst, size_t n, uint64_t offset)
{
    memset(rd, 0, sizeof *rd);
    rd->dst = dst;
    rd->n = n;
    rd->left = n;
    rd->offset = offset;
}

int clm_reader_submit(clm_reader *r, struct clm_read *rd, void *dst, size_t n, uint64_t offset)
{
    read_init(rd, dst, n, offset);
    if (n == 0)
        return CLM_OK;
    size_t piece = clm_round_up(n / (r->threads + 1), 4096); /* the caller reads too */
    rd->piece = piece > PART_MIN ? piece : PART_MIN;
    return submit(r, rd);
}

int clm_reader_submit_block(clm_reader *r, struct clm_read *rd, void *dst, size_t n,
                            uint64_t offset, const clm_fd_hooks *hooks, uint64_t block,
                            int count)
{
    read_init(rd, dst, n, offset);
    rd->hooks = hooks;
    rd->block = block;
    rd->count = count;
    if (n == 0)
        return CLM_OK;
    /* pieces that threads take in turn as they finish one (a piece a thread: each block
     * waited for its slowest), whole parts, and no more than the hook's bound */
    size_t piece = clm_round_up((n + CLM_FD_MAX_PIECES - 1) / CLM_FD_MAX_PIECES, CLM_READ_PART);
    rd->piece = piece;
    return submit(r, rd);
}

int clm_reader_wait(clm_reader *r, struct clm_read *rd)
{
    pthread_mutex_lock(&r->lock);
    while (rd->left > 0) {
        struct clm_read *mine;
        size_t at, n;
        if (take_piece(r, rd, &mine, &at, &n)) /* the caller reads its own read's pieces */
            read_piece(r, mine, at, n);
        else
            pthread_cond_wait(&r->done, &r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    if (!rd->failed)
        return CLM_OK;
    if (rd->err)
        return clm_fail(CLM_E_IO, "read of fd %d at offset %llu failed: %s", r->fd,
                        (unsigned long long)rd->at, strerror(rd->err));
    return clm_fail(CLM_E_IO,
                    "short read: fd %d ended at offset %llu, before the %llu bytes its size "
                    "promised (the file shrank while it was read?)",
                    r->fd, (unsigned long long)rd->at, (unsigned long long)(rd->offset + rd->n));
}

double clm_reader_close(clm_reader *r)
{
    if (!r)
        return 0.0;
    pthread_mutex_lock(&r->lock);
    r->stop = 1; /* pieces not begun are dropped; those in progress finish before the join */
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->lock);
    for (unsigned i = 0; i < r->threads; i++)
        pthread_join(r->tid[i], NULL);
    double busy = r->busy_seconds + (r->active ? clm_now() - r->busy_since : 0.0);
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->done);
    pthread_mutex_destroy(&r->lock);
    free(r);
    return busy;
}
