/* A regular file's blocks read one ahead: see readahead.h. */
#if !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE)
#define _XOPEN_SOURCE 700 /* pread */
#endif
#include "readahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE_ALIGN 4096u

struct readahead {
    gz_input *gz;
    unsigned char *buf[2];
    size_t block;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a block was filled, given back, or stop set */
    int full[2];            /* buf[i] holds a block the caller has not given back */
    size_t got[2];
    int eof[2], status[2];
    int cur;                /* the block handed to the caller (or to be handed next) */
    int handed;             /* buf[cur] is the caller's */
    int stop;
    /* Plain input read in pieces (pieces > 0) that the workers and the thread that waits for
     * the block take in turn, so that a thread slowed down holds up one piece, not a share. */
    unsigned pieces, threads;
    readahead_piece_fn hook;
    void *ctx;
    int fd;
    pthread_t worker[READAHEAD_MAX_THREADS];
    unsigned workers;        /* started */
    unsigned next_piece;     /* the next piece of the block to take */
    pthread_mutex_t plock;
    pthread_cond_t go, fin;  /* a block to read, or quit; a piece done */
    unsigned gen, done;
    int quit;
    int job_buf;             /* the block being read: its buffer, */
    size_t job_len;          /* its length, */
    size_t job_pre;          /* its first bytes already there (gz_plain_take's), */
    uint64_t job_off;        /* the file offset of its byte job_pre */
    size_t pgot[READAHEAD_MAX_PIECES];
    int perr[READAHEAD_MAX_PIECES];
    char error[256];
};

/* Piece i of a block: [*a, *b). */
static void piece_bounds(const readahead *ra, unsigned i, size_t *a, size_t *b)
{
    size_t len = ra->job_len, step = (len + ra->pieces - 1) / ra->pieces;
    step = (step + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN;
    *a = (size_t)i * step < len ? (size_t)i * step : len;
    *b = *a + step < len ? *a + step : len;
}

/* Read piece i of the current job (pread until full, the end, or an error) a part at a time,
 * each part to the hook as soon as it is read. */
static void read_piece(readahead *ra, unsigned i)
{
    size_t a, b;
    piece_bounds(ra, i, &a, &b);
    unsigned char *buf = ra->buf[ra->job_buf];
    size_t at = a > ra->job_pre ? a : ra->job_pre, hooked = a;
    int err = 0;
    while (at < b) {
        size_t want = b - at < READAHEAD_PART ? b - at : READAHEAD_PART;
        ssize_t r = pread(ra->fd, buf + at, want, (off_t)(ra->job_off + (at - ra->job_pre)));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            err = errno;
        if (r <= 0)
            break;
        at += (size_t)r;
        if (ra->hook) {
            ra->hook(ra->ctx, ra->job_buf, i, buf + hooked, at - hooked, hooked, a);
            hooked = at;
        }
    }
    size_t got = at > a ? at - a : 0;
    ra->pgot[i] = got;
    ra->perr[i] = err;
    if (ra->hook && (hooked == a || hooked < at)) /* nothing read, or what gz_open took */
        ra->hook(ra->ctx, ra->job_buf, i, buf + hooked, at > hooked ? at - hooked : 0, hooked,
                 a);
}

/* The next piece of the current block to read, or ra->pieces when none is left. */
static unsigned take_piece(readahead *ra)
{
    pthread_mutex_lock(&ra->plock);
    unsigned i = ra->next_piece < ra->pieces ? ra->next_piece++ : ra->pieces;
    pthread_mutex_unlock(&ra->plock);
    return i;
}

static void *worker(void *arg)
{
    readahead *ra = arg;
    unsigned seen = 0; /* no block was asked for before the workers started */
    pthread_mutex_lock(&ra->plock);
    for (;;) {
        while (ra->gen == seen && !ra->quit)
            pthread_cond_wait(&ra->go, &ra->plock);
        if (ra->quit)
            break;
        seen = ra->gen;
        pthread_mutex_unlock(&ra->plock);
        for (unsigned i; (i = take_piece(ra)) < ra->pieces;)
            read_piece(ra, i);
        pthread_mutex_lock(&ra->plock);
        ra->done++;
        pthread_cond_signal(&ra->fin);
    }
    pthread_mutex_unlock(&ra->plock);
    return NULL;
}

/* Start reading a block of len bytes into buf[w]: the piece workers take it. */
static void job_start(readahead *ra, int w, size_t len, size_t pre, uint64_t off)
{
    pthread_mutex_lock(&ra->plock);
    ra->job_buf = w;
    ra->job_len = len;
    ra->job_pre = pre;
    ra->job_off = off;
    ra->done = 0;
    ra->next_piece = 0;
    ra->gen++;
    pthread_cond_broadcast(&ra->go);
    pthread_mutex_unlock(&ra->plock);
}

/* Read the pieces no worker takes, wait for the others: the block's bytes up to the first
 * piece that came back short (the end, or an error). */
static int job_finish(readahead *ra, size_t *got, int *eof)
{
    const int w = ra->job_buf;
    const size_t len = ra->job_len;
    for (unsigned i; (i = take_piece(ra)) < ra->pieces;) /* this thread helps */
        read_piece(ra, i);
    pthread_mutex_lock(&ra->plock);
    while (ra->done < ra->workers)
        pthread_cond_wait(&ra->fin, &ra->plock);
    pthread_mutex_unlock(&ra->plock);
    int st = 0;
    unsigned i = 0;
    size_t a = 0, b = 0;
    for (; i < ra->pieces; i++) {
        piece_bounds(ra, i, &a, &b);
        if (ra->perr[i] && !st) {
            snprintf(ra->error, sizeof ra->error, "%s", strerror(ra->perr[i]));
            st = -1;
        }
        if (ra->pgot[i] < b - a || ra->perr[i])
            break;
    }
    *eof = i < ra->pieces || len == 0;
    *got = i < ra->pieces ? a + ra->pgot[i] : len;
    for (unsigned j = i + 1; j < ra->pieces; j++) /* the file grew meanwhile: not input */
        if (ra->pgot[j] && ra->hook) {
            piece_bounds(ra, j, &a, &b);
            ra->hook(ra->ctx, w, j, ra->buf[w] + a, 0, a, a);
        }
    return st;
}

/* One block of len bytes into buf[w] by every piece's thread, this one's included. */
static int read_pieces(readahead *ra, int w, size_t len, size_t pre, uint64_t off, size_t *got,
                       int *eof)
{
    job_start(ra, w, len, pre, off);
    return job_finish(ra, got, eof);
}

static void *reader(void *arg)
{
    readahead *ra = arg;
    int w = 0;
    size_t pre = 0;
    uint64_t off = 0;
    if (ra->pieces) { /* what gz_open read, then the file from where it stands */
        gz_plain_take(ra->gz, ra->buf[0], ra->block, &pre);
        off_t at = lseek(ra->fd, 0, SEEK_CUR);
        off = at < 0 ? 0 : (uint64_t)at;
    }
    pthread_mutex_lock(&ra->lock);
    for (;;) {
        while (ra->full[w] && !ra->stop)
            pthread_cond_wait(&ra->changed, &ra->lock);
        if (ra->stop)
            break;
        pthread_mutex_unlock(&ra->lock);
        size_t got = 0;
        int eof = 0, st = ra->pieces ? read_pieces(ra, w, ra->block, pre, off, &got, &eof)
                                     : gz_read(ra->gz, ra->buf[w], ra->block, &got, &eof);
        off += got - pre;
        pre = 0;
        pthread_mutex_lock(&ra->lock);
        ra->got[w] = got;
        ra->eof[w] = eof;
        ra->status[w] = st;
        ra->full[w] = 1;
        pthread_cond_broadcast(&ra->changed);
        if (eof || st != 0)
            break; /* gz is not touched again: the caller may ask gz_error */
        w ^= 1;
    }
    pthread_mutex_unlock(&ra->lock);
    return NULL;
}

/* The piece workers: as many as start, one per thread but the reader's, which waits for the
 * block. */
static void start_workers(readahead *ra)
{
    pthread_mutex_init(&ra->plock, NULL);
    pthread_cond_init(&ra->go, NULL);
    pthread_cond_init(&ra->fin, NULL);
    for (unsigned i = 1; i < ra->threads; i++) {
        if (pthread_create(&ra->worker[ra->workers], NULL, worker, ra) != 0)
            break;
        ra->workers++;
    }
}

static void stop_workers(readahead *ra)
{
    pthread_mutex_lock(&ra->plock);
    ra->quit = 1;
    pthread_cond_broadcast(&ra->go);
    pthread_mutex_unlock(&ra->plock);
    for (unsigned i = 0; i < ra->workers; i++)
        pthread_join(ra->worker[i], NULL);
    pthread_cond_destroy(&ra->fin);
    pthread_cond_destroy(&ra->go);
    pthread_mutex_destroy(&ra->plock);
}

int readahead_start(gz_input *gz, unsigned char *buf[2], size_t block, const readahead_opts *opts,
                    readahead **out)
{
    readahead *ra = calloc(1, sizeof *ra);
    *out = NULL;
    if (!ra)
        return ENOMEM;
    ra->gz = gz;
    ra->buf[0] = buf[0];
    ra->buf[1] = buf[1];
    ra->block = block;
    unsigned threads = opts ? opts->threads : 0;
    if (threads > READAHEAD_MAX_THREADS)
        threads = READAHEAD_MAX_THREADS;
    if (threads > 1 && gz_plain_fd(gz, &ra->fd) == 0 && block >= 2) {
        ra->pieces = READAHEAD_MAX_PIECES;
        ra->threads = threads;
        ra->hook = opts->piece;
        ra->ctx = opts->ctx;
        start_workers(ra);
    }
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    int err = pthread_create(&ra->thread, NULL, reader, ra);
    if (err) {
        if (ra->pieces)
            stop_workers(ra);
        pthread_cond_destroy(&ra->changed);
        pthread_mutex_destroy(&ra->lock);
        free(ra);
        return err;
    }
    *out = ra;
    return 0;
}

int readahead_next(readahead *ra, unsigned char **data, size_t *got, int *eof)
{
    pthread_mutex_lock(&ra->lock);
    int c = ra->cur;
    if (ra->handed && !ra->eof[c] && ra->status[c] == 0) { /* give it back, take the next */
        ra->full[c] = 0;
        c = ra->cur ^= 1;
        pthread_cond_broadcast(&ra->changed);
    }
    while (!ra->full[c])
        pthread_cond_wait(&ra->changed, &ra->lock);
    ra->handed = 1;
    *data = ra->buf[c];
    *got = ra->got[c];
    *eof = ra->eof[c];
    int st = ra->status[c];
    pthread_mutex_unlock(&ra->lock);
    return st;
}

int readahead_buffer(const readahead *ra)
{
    return ra->cur;
}

unsigned readahead_pieces(const readahead *ra)
{
    return ra->pieces;
}

const char *readahead_error(const readahead *ra)
{
    return ra->pieces ? ra->error : gz_error(ra->gz);
}

void readahead_stop(readahead *ra)
{
    if (!ra)
        return;
    pthread_mutex_lock(&ra->lock);
    ra->stop = 1;
    pthread_cond_broadcast(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
    pthread_join(ra->thread, NULL);
    if (ra->pieces)
        stop_workers(ra);
    pthread_cond_destroy(&ra->changed);
    pthread_mutex_destroy(&ra->lock);
    free(ra);
}
