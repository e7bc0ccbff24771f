/* A file into a stream (clm_stream_write_fd): the pool of reading threads reads each block
 * straight into the staging where the stream will take it, blocks queued ahead of the one
 * taken into the stagings of the other slots, so the pool goes on reading while the caller's
 * thread runs the block hook, launches slabs and waits for the device. A block is a quarter
 * of a slab: the first of a staging goes past the lead and overlap that the launch before
 * will carry there, the last fills it. As in clm_scan_fd, on the copy and pinned paths a
 * staging may be refilled once its transfer is done (the device has its own copy), while its
 * search still runs; with whole-slab blocks one ahead, the read of the next waited for the
 * transfer of the slab launched just before (bench/experiments/README.md, "FASTA
 * zero-copy"). */
#include <string.h>

#include "scratch.h"

_Static_assert(CLM_FD_MAX_BLOCKS <= CLM_READER_QUEUE, "the pool queues every block placed");

#ifndef BLOCKS_PER_SLAB /* blocks a slab is read in */
#define BLOCKS_PER_SLAB 4
#endif

struct fd_block {
    struct clm_read rd;
    int queued;     /* rd submitted (and not yet waited for) */
    int slot;       /* read into this slot's staging, */
    size_t at;      /* from this offset, */
    size_t n;       /* this many bytes; */
    size_t cap;     /* the staging holds this many when full */
    uint64_t index; /* its number in the call */
};

struct fd_run {
    clm_stream *st;
    clm_reader *pool;
    const clm_fd_hooks *hooks;
    uint64_t pos, end; /* the next file byte to place, the range's end */
    int count;         /* the pool counts line breaks (no part hook) */
    unsigned most;     /* blocks queued at most: the slots but one, CLM_FD_MAX_BLOCKS */
    clm_match_cb cb;
    void *ctx;
    struct fd_block q[CLM_FD_MAX_BLOCKS]; /* placed blocks, oldest (the next taken) first */
    unsigned head, n;
    uint64_t index; /* the number of the next block taken */
};

static struct fd_block *queued_block(struct fd_run *f, unsigned i)
{
    return &f->q[(f->head + i) % CLM_FD_MAX_BLOCKS];
}

/* Queue the read of the next file bytes (a block at most) into slot's staging from `at`, of
 * `cap` bytes in all: the slab the slot holds transferred first (where early) or collected. */
static int place(struct fd_run *f, int slot, size_t at, size_t cap)
{
    clm_stream *st = f->st;
    struct clm_lane *ln = st->ln;
    struct clm_slot *sl = &ln->slot[slot];
    struct fd_block *b = queued_block(f, f->n);
    int rc = slot != st->cur ? clm_stream_refillable(st, sl, f->cb, f->ctx) : CLM_OK;
    unsigned char *stage;
    if (rc == CLM_OK)
        rc = clm_slot_acquire(ln, sl, st->s->text_bytes, &stage);
    if (rc)
        return rc;
    size_t most = st->s->slab / BLOCKS_PER_SLAB;
    if (most == 0 || most > cap - at)
        most = cap - at;
    b->slot = slot;
    b->at = at;
    b->cap = cap;
    b->n = f->end - f->pos < most ? (size_t)(f->end - f->pos) : most;
    b->index = f->index + f->n;
    rc = clm_reader_submit_block(f->pool, &b->rd, stage + at, b->n, f->pos, f->hooks, b->index,
                                 f->count);
    b->queued = rc == CLM_OK;
    if (b->queued) {
        f->pos += b->n;
        f->n++;
    }
    return rc;
}

/* Queue blocks up to f->most where the stream will want them if those before go in
 * as placed: the first at the stream's fill, each next after the last in its staging, or
 * past the carried lead and overlap in the next slot's when the last fills its staging, but
 * never back into the staging of the oldest, which the stream still fills. */
static int place_ahead(struct fd_run *f)
{
    clm_stream *st = f->st;
    const clm_scratch *s = st->s;
    int rc = CLM_OK;
    while (rc == CLM_OK && f->n < f->most && f->pos < f->end) {
        if (f->n == 0) {
            rc = place(f, st->cur, st->fill, st->first + s->slab + s->overlap);
            continue;
        }
        const struct fd_block *last = queued_block(f, f->n - 1);
        int slot = (last->slot + 1) % (int)s->n_slots;
        if (last->at + last->n < last->cap)
            rc = place(f, last->slot, last->at + last->n, last->cap);
        else if (slot == queued_block(f, 0)->slot)
            break;
        else
            rc = place(f, slot, s->lead + s->overlap, s->lead + s->slab + s->overlap);
    }
    return rc;
}

/* Wait for b's read: the time counted as reading. */
static int wait_read(struct fd_run *f, struct fd_block *b)
{
    if (!b->queued)
        return CLM_OK;
    double t0 = clm_now();
    int rc = clm_reader_wait(f->pool, &b->rd);
    f->st->ln->stats.read_seconds += clm_now() - t0;
    b->queued = 0;
    return rc;
}

/* Drop the queued blocks after the oldest: they are read again after it. */
static void drop_ahead(struct fd_run *f)
{
    for (; f->n > 1; f->n--) {
        struct fd_block *b = queued_block(f, f->n - 1);
        wait_read(f, b); /* its bytes are read again: its status with them */
        f->pos -= b->n;
    }
}

/* The oldest block b was read elsewhere than at the stream's fill (its staging was squeezed,
 * or the lead carried was shorter than a full one): moved there, the blocks queued after it
 * dropped (b may go where they lie). */
static int move_block(struct fd_run *f, struct fd_block *b)
{
    clm_stream *st = f->st;
    struct clm_lane *ln = st->ln;
    drop_ahead(f);
    unsigned char *from, *to;
    int rc = clm_slot_acquire(ln, &ln->slot[b->slot], st->s->text_bytes, &from);
    if (rc == CLM_OK)
        rc = clm_slot_acquire(ln, &ln->slot[st->cur], st->s->text_bytes, &to);
    if (rc)
        return rc;
    if (b->n > st->first + st->s->slab + st->s->overlap - st->fill)
        return clm_fail(CLM_E_INVALID, "clm_stream_write_fd: a block of %zu bytes does not fit "
                        "its staging (internal error)", b->n);
    memmove(to + st->fill, from + b->at, b->n);
    b->slot = st->cur;
    b->at = st->fill;
    b->cap = st->first + st->s->slab + st->s->overlap;
    return CLM_OK;
}

/* b, read and where the stream wants it, through the block hook into the stream (*declined:
 * the hook ended the call before it). */
static int take_block(struct fd_run *f, struct fd_block *b, int *declined)
{
    clm_stream *st = f->st;
    const int skip = (st->flags & CLM_STREAM_SKIP_LINE_BREAKS) != 0;
    unsigned char *p = st->ln->slot[st->cur].fill + b->at;
    size_t breaks = skip && f->count ? b->rd.breaks : CLM_BREAKS_UNKNOWN;
    int told = 0;
    if (f->hooks && f->hooks->block) {
        unsigned pieces = (unsigned)((b->n + b->rd.piece - 1) / b->rd.piece);
        int rc = f->hooks->block(f->hooks->ctx, b->index, pieces, p, b->n, b->rd.offset,
                                 st->settled, &breaks);
        if (rc == CLM_STOPPED) {
            *declined = 1;
            return CLM_OK;
        }
        if (rc < 0)
            return clm_fail(rc, "clm_stream_write_fd: the block hook failed with %d (%s)", rc,
                            clm_strerror(rc));
        if (rc != CLM_OK)
            return clm_fail(CLM_E_INVALID, "clm_stream_write_fd: the block hook returned %d",
                            rc);
        if ((rc = clm_stream_check_breaks(st, b->n, breaks, "clm_stream_write_fd's block "
                                          "hook")) != CLM_OK)
            return rc;
        told = skip && breaks != CLM_BREAKS_UNKNOWN;
    }
    return clm_stream_take(st, b->n, breaks, told, f->cb, f->ctx);
}

/* The blocks of [f->pos, f->end), queued ahead of the one taken. *done: the file bytes
 * taken. */
static int run_blocks(struct fd_run *f, uint64_t *done)
{
    clm_stream *st = f->st;
    const uint64_t start = f->pos;
    int rc = CLM_OK, io = 0, declined = 0;
    while (rc == CLM_OK && (rc = place_ahead(f)) == CLM_OK && f->n > 0) {
        struct fd_block *b = queued_block(f, 0);
        if ((rc = wait_read(f, b)) != CLM_OK) {
            io = rc == CLM_E_IO;
            break;
        }
        if (b->slot != st->cur || b->at != st->fill)
            rc = move_block(f, b);
        if (rc == CLM_OK)
            rc = take_block(f, b, &declined);
        if (rc != CLM_OK || declined)
            break;
        *done = b->rd.offset + b->n - start;
        f->head = (f->head + 1) % CLM_FD_MAX_BLOCKS;
        f->n--;
        f->index++;
    }
    for (unsigned i = 0; i < f->n; i++) /* no read of ours may be left with the pool */
        wait_read(f, queued_block(f, i));
    /* a read that failed or a block declined: the stream goes on from the blocks before */
    return io || declined ? rc : clm_stream_failed(st, rc);
}

int clm_stream_write_fd(clm_stream *st, int fd, uint64_t offset, uint64_t length,
                        const clm_fd_hooks *hooks, clm_match_cb cb, void *ctx, uint64_t *done)
{
    const char *fn = "clm_stream_write_fd";
    uint64_t taken = 0;
    if (done)
        *done = 0;
    int rc = clm_stream_enter(st, cb, 1, fn);
    if (rc)
        return rc;
    clm_scratch *s = st->s;
    struct clm_lane *ln = st->ln;
    st->reserved = 0;
    rc = clm_fd_range(fd, offset, &length, fn);
    if (rc || length == 0) {
        clm_scratch_give(s);
        return rc; /* the stream as it was */
    }
    double t0 = clm_now();
    struct fd_run f;
    memset(&f, 0, sizeof f);
    f.st = st;
    f.hooks = hooks;
    f.pos = offset;
    f.end = offset + length;
    f.cb = cb;
    f.ctx = ctx;
    f.count = (st->flags & CLM_STREAM_SKIP_LINE_BREAKS) && !(hooks && hooks->part);
    /* the stagings of every slot but the oldest's: a slab ahead with two slots, two slabs
     * with three or four (bench/experiments/README.md, "Slots and reading threads") */
    f.most = (s->n_slots - 1) * BLOCKS_PER_SLAB;
    if (f.most > CLM_FD_MAX_BLOCKS)
        f.most = CLM_FD_MAX_BLOCKS;
    rc = clm_reader_open(fd, s->stream_io_threads, length, &f.pool);
    if (rc == CLM_OK)
        rc = run_blocks(&f, &taken);
    else
        rc = clm_stream_failed(st, rc);
    ln->stats.reader_seconds += clm_reader_close(f.pool);
    s->stats.wall_seconds += clm_now() - t0;
    if (done)
        *done = taken;
    clm_scratch_give(s);
    return rc;
}
