/* A file into a stream (clm_stream_write_fd): the pool of reading threads reads each block
 * straight into the staging where the stream will take it, the next block queued before
 * the current one is waited for, so the pool never idles while the caller's thread runs the
 * block hook, launches slabs and collects them. A block fills the rest of a staging; the next
 * one goes past the lead and overlap that the launch will carry into the next slot's
 * staging. As in clm_scan_fd, on the copy and pinned paths a staging may be refilled once
 * its transfer is done (the device has its own copy), while its search still runs. */
#include <string.h>

#include "scratch.h"

struct fd_block {
    struct clm_read rd;
    int queued;     /* rd submitted (and not yet waited for) */
    int slot;       /* read into this slot's staging, */
    size_t at;      /* from this offset, */
    size_t n;       /* this many bytes */
    uint64_t index; /* its number in the call */
};

struct fd_run {
    clm_stream *st;
    clm_reader *pool;
    const clm_fd_hooks *hooks;
    uint64_t pos, end; /* the next file byte to place, the range's end */
    int early;         /* a staging may be refilled once its transfer is done */
    int count;         /* the pool counts line breaks (no part hook) */
    clm_match_cb cb;
    void *ctx;
};

/* The staging's bytes where a slot's block may start a slab: the lead and overlap carried
 * into it. */
static size_t carried(const clm_stream *st)
{
    return st->s->lead + st->s->overlap;
}

/* Queue the read of the next file bytes into slot's staging from `at`, up to `cap` bytes of
 * it: the slab the slot holds transferred first (where early) or collected. */
static int place(struct fd_run *f, struct fd_block *b, int slot, size_t at, size_t cap,
                 uint64_t index)
{
    clm_stream *st = f->st;
    struct clm_lane *ln = st->ln;
    struct clm_slot *sl = &ln->slot[slot];
    int rc = CLM_OK;
    if (sl->busy && slot != st->cur)
        rc = f->early ? clm_lane_wait(ln, sl->ev_write, "clWaitForEvents (text transfer)")
                      : clm_stream_finish(st, sl, f->cb, f->ctx);
    unsigned char *stage;
    if (rc == CLM_OK)
        rc = clm_slot_acquire(ln, sl, st->s->text_bytes, &stage);
    if (rc)
        return rc;
    b->slot = slot;
    b->at = at;
    b->n = f->end - f->pos < cap - at ? (size_t)(f->end - f->pos) : cap - at;
    b->index = index;
    rc = clm_reader_submit_block(f->pool, &b->rd, stage + at, b->n, f->pos, f->hooks, index,
                                 f->count);
    b->queued = rc == CLM_OK;
    if (b->queued)
        f->pos += b->n;
    return rc;
}

/* Queue the block after b where the stream will want it if b goes in as placed: after b in
 * its staging, or past the carried bytes in the next slot's when b fills its staging. */
static int place_next(struct fd_run *f, const struct fd_block *b, struct fd_block *next)
{
    clm_stream *st = f->st;
    const clm_scratch *s = st->s;
    size_t cap = (b->slot == st->cur ? st->first : s->lead) + s->slab + s->overlap;
    if (b->at + b->n < cap)
        return place(f, next, b->slot, b->at + b->n, cap, b->index + 1);
    return place(f, next, (b->slot + 1) % SLOTS, carried(st), s->lead + s->slab + s->overlap,
                 b->index + 1);
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

/* b was read elsewhere than at the stream's fill (its staging was squeezed, or the lead
 * carried was shorter than a full one): moved there. The block queued after it may lie
 * where b goes: it is dropped, to be read again after b. */
static int move_block(struct fd_run *f, struct fd_block *b, struct fd_block *next)
{
    clm_stream *st = f->st;
    struct clm_lane *ln = st->ln;
    if (next->queued) {
        wait_read(f, next); /* its bytes are read again: its status with them */
        f->pos -= next->n;
    }
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
        if (breaks != CLM_BREAKS_UNKNOWN && (skip ? breaks > b->n : breaks != 0))
            return clm_fail(CLM_E_INVALID, "clm_stream_write_fd: the block hook counted %zu "
                            "line breaks in %zu bytes%s", breaks, b->n,
                            skip ? "" : " (not a CLM_STREAM_SKIP_LINE_BREAKS stream)");
        told = skip && breaks != CLM_BREAKS_UNKNOWN;
    }
    if (!skip)
        breaks = 0;
    else if (breaks == CLM_BREAKS_UNKNOWN)
        breaks = clm_parallel_count_breaks(p, b->n, st->s->io_threads);
    return clm_stream_take(st, b->n, breaks, told, f->cb, f->ctx);
}

/* The blocks of [f->pos, f->end), each queued before the one before it is taken. *done: the
 * file bytes taken. */
static int run_blocks(struct fd_run *f, uint64_t *done)
{
    clm_stream *st = f->st;
    struct fd_block blk[2];
    memset(blk, 0, sizeof blk);
    const uint64_t start = f->pos;
    int rc = CLM_OK;
    int io = 0, declined = 0;
    for (uint64_t i = 0; f->pos < f->end || blk[i & 1].queued; i++) {
        struct fd_block *b = &blk[i & 1], *next = &blk[(i + 1) & 1];
        if (!b->queued) /* the first, or one dropped by a move: read where the stream is */
            rc = place(f, b, st->cur, st->fill, st->first + st->s->slab + st->s->overlap, i);
        if (rc == CLM_OK && f->pos < f->end)
            rc = place_next(f, b, next);
        const uint64_t at = b->rd.offset;
        if (rc == CLM_OK)
            io = (rc = wait_read(f, b)) == CLM_E_IO;
        if (rc == CLM_OK && (b->slot != st->cur || b->at != st->fill))
            rc = move_block(f, b, next);
        if (rc == CLM_OK)
            rc = take_block(f, b, &declined);
        if (rc != CLM_OK || declined)
            break;
        *done = at + b->n - start;
    }
    /* no read of ours may be left with the pool */
    wait_read(f, &blk[0]);
    wait_read(f, &blk[1]);
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
    struct fd_run f = {st, NULL, hooks, offset, offset + length, 0, 0, cb, ctx};
    f.early = ln->path->device_copy && !st->db->indels;
    f.count = (st->flags & CLM_STREAM_SKIP_LINE_BREAKS) && !(hooks && hooks->part);
    rc = clm_reader_open(fd, s->io_threads, length, &f.pool);
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
