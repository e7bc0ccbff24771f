/* The stream driver (clm_stream_*): the caller's pieces fill the staging of a lane's slots
 * in turn, each launched as a slab once full, with its lead and overlap carried to the next.
 * With CLM_STREAM_SKIP_LINE_BREAKS the staging holds the bytes as written, and each slab is
 * compacted on the device (compact.c); the host counts line breaks as it copies, so the
 * slab's text bounds are known at once, and the carried lead and overlap are copied without
 * theirs (a few bytes), so offsets up to `first` are the same in the staging and the text. */
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

int clm_stream_open(const clm_database *db, clm_scratch *s, unsigned flags, clm_stream **out)
{
    if (out)
        *out = NULL;
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_stream_open: out is required");
    int rc = clm_scratch_enter(db, s, "", 0, "clm_stream_open");
    if (rc)
        return rc;
    clm_stream *st = NULL;
    if (flags & ~(CLM_STREAM_COUNT_ONLY | CLM_STREAM_SKIP_LINE_BREAKS))
        rc = clm_fail(CLM_E_INVALID, "clm_stream_open: unknown flags");
    else if (!(st = calloc(1, sizeof *st)))
        rc = clm_fail(CLM_E_NOMEM, "out of memory");
    if (rc == CLM_OK) {
        st->db = db;
        st->s = s;
        st->ln = &s->lane[0]; /* one device */
        st->flags = flags;
        s->stream_open = 1;
        s->n_pending = 0;
        *out = st;
    }
    clm_scratch_give(s);
    return rc;
}

static int stream_check(clm_stream *st, clm_match_cb cb, int need_cb, const char *fn)
{
    if (st->dead)
        return clm_fail(CLM_E_INVALID, "%s: the stream stopped or failed earlier; close it", fn);
    if (need_cb && !cb && !(st->flags & CLM_STREAM_COUNT_ONLY))
        return clm_fail(CLM_E_INVALID, "%s: callback is required", fn);
    return CLM_OK;
}

/* Every call but clm_stream_commit ends a reservation. */
int clm_stream_enter(clm_stream *st, clm_match_cb cb, int need_cb, const char *fn)
{
    if (!st)
        return clm_fail(CLM_E_INVALID, "%s: stream is NULL", fn);
    int rc = clm_scratch_take(st->s, fn);
    if (rc)
        return rc;
    rc = clm_scratch_live(st->s, fn);
    if (rc == CLM_OK)
        rc = stream_check(st, cb, need_cb, fn);
    if (rc)
        clm_scratch_give(st->s);
    return rc;
}

static int is_break(unsigned char c)
{
    return c == '\n' || c == '\r';
}

/* The last `carry` text bytes of the staging src[0, fill) to dst, without line breaks. */
static void carry_text(unsigned char *dst, const unsigned char *src, size_t fill, size_t carry)
{
    size_t from = fill;
    for (size_t kept = 0; kept < carry && from > 0; from--) /* > 0: a caller's wrong count */
        kept += !is_break(src[from - 1]);
    for (size_t i = from, w = 0; i < fill; i++)
        if (!is_break(src[i]))
            dst[w++] = src[i];
}

/* A staging full of line breaks, with no text to own past the lead and the overlap: drop them
 * on the host, so that it can take more (only input that is mostly line breaks comes here). */
static int squeeze(clm_stream *st, unsigned char *stage)
{
    size_t w = 0;
    for (size_t i = 0; i < st->fill; i++)
        if (!is_break(stage[i]))
            stage[w++] = stage[i];
    if (w != st->tfill) /* only a caller's count can be wrong */
        return clm_fail(CLM_E_INVALID, "the line breaks counted by the caller "
                        "(clm_stream_commit, a clm_stream_write_fd block hook) are not those "
                        "of the bytes (%zu text bytes, not %zu)", w, st->tfill);
    st->fill = w;
    clm_slot_unsend(&st->ln->slot[st->cur]); /* its bytes moved: sent again */
    return CLM_OK;
}

/* Every match starting before the owned range's end has then been delivered (less k with
 * indels: deliver.c holds later ones back). */
int clm_stream_finish(clm_stream *st, struct clm_slot *sl, clm_match_cb cb, void *ctx)
{
    if (!sl->busy)
        return CLM_OK;
    uint64_t end = sl->base + sl->first + sl->owned, k = st->db->indels ? st->db->k : 0;
    int rc = clm_slot_finish(st->ln, sl, cb, ctx, &st->total);
    if (rc == CLM_OK && end > k && end - k > st->settled)
        st->settled = end - k;
    return rc;
}

int clm_stream_refillable(clm_stream *st, struct clm_slot *sl, clm_match_cb cb, void *ctx)
{
    if (!sl->busy)
        return CLM_OK;
    if (clm_lane_refill_early(st->ln))
        return clm_lane_wait(st->ln, sl->ev_write, "clWaitForEvents (text transfer)");
    return clm_stream_finish(st, sl, cb, ctx);
}

/* Launch the current staging's [0, fill) owning starts [first, first + owned); carry what the
 * next one needs (its lead and the overlap) to the other slot's staging first, since a
 * launched staging may no longer be read on the host. */
static int stream_dispatch(clm_stream *st, size_t owned, clm_match_cb cb, void *ctx)
{
    clm_scratch *s = st->s;
    struct clm_lane *ln = st->ln;
    struct clm_slot *cur = &ln->slot[st->cur];
    int other = (st->cur + 1) % (int)s->n_slots; /* the next slot in turn */
    int count_only = (st->flags & CLM_STREAM_COUNT_ONLY) != 0, rc;
    /* The staging of the oldest slab in flight is filled next. Where it is refilled once its
     * transfer is done, the slab this staging held is still in flight: collected first, so
     * the device holds a slab in every other slot at once. */
    if ((rc = clm_stream_finish(st, cur, cb, ctx)) != CLM_OK ||
        (rc = clm_stream_refillable(st, &ln->slot[other], cb, ctx)) != CLM_OK)
        return rc;
    size_t next_owned = st->first + owned; /* in this staging */
    size_t next_lead = st->base + next_owned < s->lead ? st->base + next_owned : s->lead;
    size_t keep_from = next_owned - next_lead, carry = st->tfill - keep_from;
    if (carry) {
        unsigned char *src, *dst;
        if ((rc = clm_slot_acquire(ln, cur, s->text_bytes, &src)) != CLM_OK ||
            (rc = clm_slot_acquire(ln, &ln->slot[other], s->text_bytes, &dst)) != CLM_OK)
            return rc;
        if (st->fill == st->tfill)
            memcpy(dst, src + keep_from, carry);
        else
            carry_text(dst, src, st->fill, carry);
    }
    if (st->tfill >= st->db->min_match) {
        rc = clm_slot_commit(ln, cur, st->fill);
        /* a slab without line breaks is searched as it is, unless the caller counted them */
        if (rc == CLM_OK && (st->fill != st->tfill || st->told_breaks))
            rc = clm_slot_compact(ln, cur, st->fill, st->tfill, st->told_breaks);
        if (rc == CLM_OK)
            rc = clm_slot_launch(ln, cur, st->tfill, st->first, owned, st->base, count_only);
        if (rc)
            return rc;
    } else { /* the staging stays acquired: it is filled again when its turn comes */
        clm_slot_unsend(cur);
    }
    st->cur = other;
    st->told_breaks = 0; /* the carried bytes were counted here */
    st->base += keep_from;
    st->first = next_lead;
    st->fill = st->tfill = carry;
    return CLM_OK;
}

int clm_stream_failed(clm_stream *st, int rc)
{
    if (rc != CLM_OK) {
        st->dead = 1;
        st->s->n_pending = 0;
        clm_lane_drop(st->ln);
    }
    return rc;
}

/* Collect every slab in flight, oldest first (the current staging's, refilled once sent,
 * is the oldest). */
static int stream_finish_all(clm_stream *st, clm_match_cb cb, void *ctx)
{
    int rc = CLM_OK;
    const int n = (int)st->s->n_slots;
    for (int i = 0; i < n && rc == CLM_OK; i++)
        rc = clm_stream_finish(st, &st->ln->slot[(st->cur + i) % n], cb, ctx);
    return rc;
}

/* The current staging is full: launch it, or drop its line breaks when it holds no more
 * than the lead and the overlap. */
static int stream_full(clm_stream *st, unsigned char *stage, clm_match_cb cb, void *ctx)
{
    size_t keep = st->first + st->s->overlap;
    return st->tfill > keep ? stream_dispatch(st, st->tfill - keep, cb, ctx)
                            : squeeze(st, stage);
}

#ifndef STREAM_SEND_PARTS /* a slab is sent in this many parts as it fills, at most */
#define STREAM_SEND_PARTS 4
#endif

/* Where the device has its own copy, the current staging's bytes go to it a part at a time
 * as they come, so that at the launch little is left to send and the staging is soon free to
 * be refilled (bench/experiments/README.md, "Sent as it fills"). The slab the slot held is
 * collected first: a pass run again for a full match buffer reads the device's text. */
static int stream_send(clm_stream *st, clm_match_cb cb, void *ctx)
{
    struct clm_lane *ln = st->ln;
    struct clm_slot *sl = &ln->slot[st->cur];
    size_t step = st->s->slab / STREAM_SEND_PARTS ? st->s->slab / STREAM_SEND_PARTS : 1;
    if (!ln->path->device_copy || st->fill < sl->sent + step)
        return CLM_OK;
    int rc = clm_stream_finish(st, sl, cb, ctx);
    return rc ? rc : clm_slot_send(ln, sl, st->fill);
}

int clm_stream_write(clm_stream *st, const void *data, size_t len, clm_match_cb cb, void *ctx)
{
    int rc = clm_stream_enter(st, cb, 1, "clm_stream_write");
    if (rc)
        return rc;
    st->reserved = 0;
    clm_scratch *s = st->s;
    if (!data && len) {
        clm_scratch_give(s);
        return clm_fail(CLM_E_INVALID, "clm_stream_write: data is NULL");
    }
    double t0 = clm_now();
    const unsigned char *p = data;
    while (len && rc == CLM_OK) {
        /* a staging is full with its lead (none for the first), a slab and the overlap */
        size_t full = st->first + s->slab + s->overlap;
        size_t take = full - st->fill < len ? full - st->fill : len;
        unsigned char *stage;
        /* a stream does not know how much is coming: whole slabs */
        rc = clm_slot_acquire(st->ln, &st->ln->slot[st->cur], s->text_bytes, &stage);
        if (rc != CLM_OK)
            break;
        double t1 = clm_now();
        size_t breaks = 0;
        if (st->flags & CLM_STREAM_SKIP_LINE_BREAKS)
            breaks = clm_parallel_copy_breaks(stage + st->fill, p, take, s->io_threads);
        else
            clm_parallel_copy(stage + st->fill, p, take, s->io_threads);
        s->stats.read_seconds += clm_now() - t1;
        st->fill += take;
        st->tfill += take - breaks;
        p += take;
        len -= take;
        rc = st->fill < full ? stream_send(st, cb, ctx) : stream_full(st, stage, cb, ctx);
    }
    s->stats.wall_seconds += clm_now() - t0;
    rc = clm_stream_failed(st, rc);
    clm_scratch_give(s);
    return rc;
}

int clm_stream_flush(clm_stream *st, clm_match_cb cb, void *ctx)
{
    int rc = clm_stream_enter(st, cb, 1, "clm_stream_flush");
    if (rc)
        return rc;
    st->reserved = 0;
    double t0 = clm_now();
    if (st->tfill > st->first + st->s->overlap)
        rc = stream_dispatch(st, st->tfill - st->first - st->s->overlap, cb, ctx);
    if (rc == CLM_OK)
        rc = stream_finish_all(st, cb, ctx);
    st->s->stats.wall_seconds += clm_now() - t0;
    rc = clm_stream_failed(st, rc);
    clm_scratch_give(st->s);
    return rc;
}

int clm_stream_close(clm_stream *st, clm_match_cb cb, void *ctx, uint64_t *total)
{
    if (!st)
        return clm_fail(CLM_E_INVALID, "clm_stream_close: stream is NULL");
    clm_scratch *s = st->s;
    int rc = clm_scratch_take(s, "clm_stream_close");
    if (rc)
        return rc; /* the call that runs goes on with the stream */
    int was_dead = st->dead;
    st->reserved = 0;
    if (!was_dead) /* a freed database: nothing is searched, the stream closes with the error */
        rc = clm_scratch_live(s, "clm_stream_close");
    if (rc == CLM_OK && !was_dead)
        rc = stream_check(st, cb, 1, "clm_stream_close");
    double t0 = clm_now();
    if (rc == CLM_OK && !was_dead && st->tfill > st->first) /* the tail owns all its starts */
        rc = stream_dispatch(st, st->tfill - st->first, cb, ctx);
    if (rc == CLM_OK && !was_dead)
        rc = stream_finish_all(st, cb, ctx);
    if (rc == CLM_OK && !was_dead && !(st->flags & CLM_STREAM_COUNT_ONLY)) {
        uint64_t before = st->s->stats.matches;
        rc = clm_deliver_pending(st->s, cb, ctx);
        st->total += st->s->stats.matches - before;
    }
    st->s->n_pending = 0;
    clm_stream_failed(st, rc);
    clm_lane_drop(st->ln);
    st->s->stats.wall_seconds += clm_now() - t0;
    if (total)
        *total = st->total;
    s->stream_open = 0;
    free(st);
    clm_scratch_give(s);
    return rc;
}

/* One of the stream's offsets, known on the host: the text written (settled 0) or what is
 * settled. */
static int stream_offset(clm_stream *st, uint64_t *offset, int settled, const char *fn)
{
    if (offset)
        *offset = 0;
    if (!st || !offset)
        return clm_fail(CLM_E_INVALID, "%s: %s is NULL", fn, st ? "offset" : "stream");
    int rc = clm_scratch_take(st->s, fn);
    if (rc)
        return rc;
    *offset = settled ? st->settled : st->base + st->tfill;
    clm_scratch_give(st->s);
    return CLM_OK;
}

int clm_stream_text_offset(clm_stream *st, uint64_t *offset)
{
    return stream_offset(st, offset, 0, "clm_stream_text_offset");
}

int clm_stream_reserve(clm_stream *st, size_t want, void **buf, size_t *len)
{
    if (buf)
        *buf = NULL;
    if (len)
        *len = 0;
    if (st && (!buf || !len))
        return clm_fail(CLM_E_INVALID, "clm_stream_reserve: %s is NULL", buf ? "len" : "buf");
    int rc = clm_stream_enter(st, NULL, 0, "clm_stream_reserve");
    if (rc)
        return rc;
    clm_scratch *s = st->s;
    unsigned char *stage;
    st->reserved = 0;
    /* never full between calls: a full staging is launched or squeezed at once */
    size_t room = st->first + s->slab + s->overlap - st->fill;
    rc = clm_slot_acquire(st->ln, &st->ln->slot[st->cur], s->text_bytes, &stage);
    if (rc == CLM_OK) {
        st->reserved = want && want < room ? want : room;
        *buf = stage + st->fill;
        *len = st->reserved;
    }
    rc = clm_stream_failed(st, rc);
    clm_scratch_give(s);
    return rc;
}

int clm_stream_commit(clm_stream *st, size_t len, size_t breaks, clm_match_cb cb, void *ctx)
{
    int rc = clm_stream_enter(st, cb, 1, "clm_stream_commit");
    if (rc)
        return rc;
    clm_scratch *s = st->s;
    const int skip = (st->flags & CLM_STREAM_SKIP_LINE_BREAKS) != 0;
    size_t reserved = st->reserved;
    st->reserved = 0;
    if (len > reserved)
        rc = clm_fail(CLM_E_INVALID, "clm_stream_commit: %zu bytes, %zu reserved", len,
                      reserved);
    else
        rc = clm_stream_check_breaks(st, len, breaks, "clm_stream_commit");
    if (rc || len == 0) {
        clm_scratch_give(s);
        return rc; /* misuse leaves the stream as it was */
    }
    double t0 = clm_now();
    rc = clm_stream_take(st, len, breaks, skip && breaks != CLM_BREAKS_UNKNOWN, cb, ctx);
    s->stats.wall_seconds += clm_now() - t0;
    rc = clm_stream_failed(st, rc);
    clm_scratch_give(s);
    return rc;
}

int clm_stream_check_breaks(const clm_stream *st, size_t len, size_t breaks, const char *fn)
{
    const int skip = (st->flags & CLM_STREAM_SKIP_LINE_BREAKS) != 0;
    if (breaks == CLM_BREAKS_UNKNOWN || (skip ? breaks <= len : breaks == 0))
        return CLM_OK;
    return clm_fail(CLM_E_INVALID, "%s: %zu line breaks in %zu bytes%s", fn, breaks, len,
                    skip ? "" : " (not a CLM_STREAM_SKIP_LINE_BREAKS stream)");
}

int clm_stream_take(clm_stream *st, size_t len, size_t breaks, int told, clm_match_cb cb,
                    void *ctx)
{
    unsigned char *stage = st->ln->slot[st->cur].fill;
    if (!(st->flags & CLM_STREAM_SKIP_LINE_BREAKS))
        breaks = 0;
    else if (breaks == CLM_BREAKS_UNKNOWN)
        breaks = clm_parallel_count_breaks(stage + st->fill, len, st->s->io_threads);
    st->told_breaks |= told;
    st->fill += len;
    st->tfill += len - breaks;
    if (st->fill == st->first + st->s->slab + st->s->overlap)
        return stream_full(st, stage, cb, ctx);
    return stream_send(st, cb, ctx);
}

int clm_stream_settled(clm_stream *st, uint64_t *offset)
{
    return stream_offset(st, offset, 1, "clm_stream_settled");
}
