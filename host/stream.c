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

static int stream_check(clm_stream *st, clm_match_cb cb, const char *fn)
{
    if (st->dead)
        return clm_fail(CLM_E_INVALID, "%s: the stream stopped or failed earlier; close it", fn);
    if (!cb && !(st->flags & CLM_STREAM_COUNT_ONLY))
        return clm_fail(CLM_E_INVALID, "%s: callback is required", fn);
    return CLM_OK;
}

/* Check a stream call's arguments and take the stream's scratch for it;
 * clm_scratch_give when done. */
static int enter_stream(clm_stream *st, clm_match_cb cb, const char *fn)
{
    if (!st)
        return clm_fail(CLM_E_INVALID, "%s: stream is NULL", fn);
    int rc = clm_scratch_take(st->s, fn);
    if (rc)
        return rc;
    rc = clm_scratch_live(st->s, fn);
    if (rc == CLM_OK)
        rc = stream_check(st, cb, fn);
    if (rc)
        clm_scratch_give(st->s);
    return rc;
}

/* Launch the current staging's [0, fill) owning starts [first, first + owned); carry what the
 * next one needs (its lead and the overlap) to the other slot's staging first, since a
 * launched staging may no longer be read on the host. */
static int is_break(unsigned char c)
{
    return c == '\n' || c == '\r';
}

/* The last `carry` text bytes of the staging src[0, fill) to dst, without line breaks. */
static void carry_text(unsigned char *dst, const unsigned char *src, size_t fill, size_t carry)
{
    size_t from = fill;
    for (size_t kept = 0; kept < carry; from--)
        kept += !is_break(src[from - 1]);
    for (size_t i = from, w = 0; i < fill; i++)
        if (!is_break(src[i]))
            dst[w++] = src[i];
}

/* A staging full of line breaks, with no text to own past the lead and the overlap: drop them
 * on the host, so that it can take more (only input that is mostly line breaks comes here). */
static void squeeze(clm_stream *st, unsigned char *stage)
{
    size_t w = 0;
    for (size_t i = 0; i < st->fill; i++)
        if (!is_break(stage[i]))
            stage[w++] = stage[i];
    st->fill = w;
}

static int stream_dispatch(clm_stream *st, size_t owned, clm_match_cb cb, void *ctx)
{
    clm_scratch *s = st->s;
    struct clm_lane *ln = st->ln;
    struct clm_slot *cur = &ln->slot[st->cur];
    int other = (st->cur + 1) % SLOTS, count_only = (st->flags & CLM_STREAM_COUNT_ONLY) != 0;
    int rc = CLM_OK;
    if (ln->slot[other].busy) { /* the oldest slab in flight: its staging is filled next */
        rc = clm_slot_finish(ln, &ln->slot[other], cb, ctx, &st->total);
        if (rc)
            return rc;
    }
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
        if (rc == CLM_OK && st->fill != st->tfill) /* a slab without line breaks as it is */
            rc = clm_slot_compact(ln, cur, st->fill, st->tfill);
        if (rc == CLM_OK)
            rc = clm_slot_launch(ln, cur, st->tfill, st->first, owned, st->base, count_only);
        if (rc)
            return rc;
    } /* else the staging stays acquired: it is filled again when its turn comes */
    st->cur = other;
    st->base += keep_from;
    st->first = next_lead;
    st->fill = st->tfill = carry;
    return CLM_OK;
}

static int stream_failed(clm_stream *st, int rc)
{
    if (rc != CLM_OK) {
        st->dead = 1;
        st->s->n_pending = 0;
        clm_lane_drop(st->ln);
    }
    return rc;
}

/* Collect every slab in flight, oldest first. */
static int stream_finish_all(clm_stream *st, clm_match_cb cb, void *ctx)
{
    int rc = CLM_OK;
    for (int i = 1; i < SLOTS && rc == CLM_OK; i++)
        rc = clm_slot_finish(st->ln, &st->ln->slot[(st->cur + i) % SLOTS], cb, ctx, &st->total);
    return rc;
}

int clm_stream_write(clm_stream *st, const void *data, size_t len, clm_match_cb cb, void *ctx)
{
    int rc = enter_stream(st, cb, "clm_stream_write");
    if (rc)
        return rc;
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
        if (st->fill < full)
            continue;
        if (st->tfill > st->first + s->overlap)
            rc = stream_dispatch(st, st->tfill - st->first - s->overlap, cb, ctx);
        else
            squeeze(st, stage);
    }
    s->stats.wall_seconds += clm_now() - t0;
    rc = stream_failed(st, rc);
    clm_scratch_give(s);
    return rc;
}

int clm_stream_flush(clm_stream *st, clm_match_cb cb, void *ctx)
{
    int rc = enter_stream(st, cb, "clm_stream_flush");
    if (rc)
        return rc;
    double t0 = clm_now();
    if (st->tfill > st->first + st->s->overlap)
        rc = stream_dispatch(st, st->tfill - st->first - st->s->overlap, cb, ctx);
    if (rc == CLM_OK)
        rc = stream_finish_all(st, cb, ctx);
    st->s->stats.wall_seconds += clm_now() - t0;
    rc = stream_failed(st, rc);
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
    if (!was_dead) /* a freed database: nothing is searched, the stream closes with the error */
        rc = clm_scratch_live(s, "clm_stream_close");
    if (rc == CLM_OK && !was_dead)
        rc = stream_check(st, cb, "clm_stream_close");
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
    stream_failed(st, rc);
    clm_lane_drop(st->ln);
    st->s->stats.wall_seconds += clm_now() - t0;
    if (total)
        *total = st->total;
    s->stream_open = 0;
    free(st);
    clm_scratch_give(s);
    return rc;
}

int clm_stream_text_offset(clm_stream *st, uint64_t *offset)
{
    if (offset)
        *offset = 0;
    if (!st || !offset)
        return clm_fail(CLM_E_INVALID, "clm_stream_text_offset: %s is NULL",
                        st ? "offset" : "stream");
    int rc = clm_scratch_take(st->s, "clm_stream_text_offset");
    if (rc)
        return rc;
    *offset = st->base + st->tfill;
    clm_scratch_give(st->s);
    return CLM_OK;
}
