/* FASTA on the device, a block at a time: see fasta_blocks.h. */
#include "fasta_blocks.h"

#include "clmatch.h"
#include "cli_common.h"
#include "dna_patterns.h"

#include <stdlib.h>
#include <string.h>


/* ---- the index: the reading threads ---------------------------------------------------- */

void fblk_index_piece(void *ctx, int buf, unsigned piece, const unsigned char *p, size_t n,
                      size_t at, size_t piece_at)
{
    fblk_piece *pc = &((fblk_index *)ctx)->piece[buf][piece];
    if (at == piece_at) { /* the piece's first part */
        pc->n = 0;
        pc->bytes = 0;
        pc->breaks = 0;
        pc->at = piece_at;
        pc->nomem = 0;
    }
    const size_t off = at - piece_at, end = off + n; /* piece offsets */
    const unsigned char *base = p - off;              /* base[q]: the piece's byte q */
    uint64_t breaks = pc->breaks;
    if (pc->nomem || dna_grow((void **)&pc->seg, &pc->seg_cap,
                              (end + FBLK_SEGMENT - 1) / FBLK_SEGMENT + 1, sizeof *pc->seg) != 0) {
        pc->nomem = 1;
        return;
    }
    for (size_t i = off; i < end;) {
        size_t stop = (i / FBLK_SEGMENT + 1) * FBLK_SEGMENT;
        const unsigned char *q;
        if (stop > end)
            stop = end;
        if (i % FBLK_SEGMENT == 0)
            pc->seg[i / FBLK_SEGMENT] = (uint32_t)breaks;
        while ((q = memchr(base + i, '>', stop - i)) != NULL) {
            size_t o = (size_t)(q - base);
            breaks += count_either(base + i, o - i, '\n', '\r');
            if (dna_grow((void **)&pc->v, &pc->cap, pc->n + 1, sizeof *pc->v) != 0) {
                pc->nomem = 1;
                return;
            }
            pc->v[pc->n].at = (uint32_t)(piece_at + o);
            pc->v[pc->n].breaks = (uint32_t)breaks;
            pc->n++;
            i = o + 1;
        }
        breaks += count_either(base + i, stop - i, '\n', '\r');
        i = stop;
    }
    pc->breaks = breaks;
    pc->bytes = end;
}

void fblk_index_free(fblk_index *ix)
{
    for (int b = 0; b < FBLK_BLOCKS; b++)
        for (unsigned i = 0; i < READAHEAD_MAX_PIECES; i++)
            free(ix->piece[b][i].v), free(ix->piece[b][i].seg);
    memset(ix, 0, sizeof *ix);
}

/* ---- the split: the caller's thread ----------------------------------------------------- */

void fblk_init(fblk_split *s, unsigned sep)
{
    memset(s, 0, sizeof *s);
    s->sep = sep;
    s->at_line_start = 1;
}

void fblk_free(fblk_split *s)
{
    fasta_header_free(&s->hdr);
    free(s->cp);
}

/* The checkpoints of the block's segments that start in [pos, end) of piece pc: raw offset
 * c has text offset t0 + c + extra - (the line breaks before it, those the headers added
 * included). The ones inside a header line (before *pos) are left out. */
static int add_checkpoints(fblk_split *s, const unsigned char *p, const fblk_piece *pc,
                           size_t pos, size_t end, uint64_t t0, uint64_t base, int64_t more,
                           uint64_t extra)
{
    size_t j = pos > pc->at ? (pos - pc->at + FBLK_SEGMENT - 1) / FBLK_SEGMENT : 0;
    for (;; j++) {
        size_t c = pc->at + j * FBLK_SEGMENT;
        if (c >= end || c >= pc->at + pc->bytes)
            return CLM_OK;
        if (s->n_cp == s->cp_cap) /* cannot be: fblk_feed made room for every segment */
            return CLM_E_INVALID;
        s->cp[s->n_cp].text = t0 + c + extra - (base + pc->seg[j] + (uint64_t)more);
        s->cp[s->n_cp].at = p + c;
        s->n_cp++;
    }
}

/* Header line bytes p[a, b) (skip: its '>' is p[a]): kept as the header's text, then
 * overwritten, the separator first, line breaks after it. Returns how many more line breaks
 * the block has now; *st a status. */
static int64_t take_header(fblk_split *s, unsigned char *p, size_t a, size_t b, size_t skip,
                           int *st)
{
    if (!s->hdr.truncated && fasta_header_append(&s->hdr, p + a + skip, b - a - skip) != FASTA_OK)
        *st = CLM_E_NOMEM;
    int64_t more = 0;
    for (size_t j = a; j < b; j++) {
        unsigned char c = s->hdr_raw + (j - a) < s->sep ? '#' : '\n';
        more += (c == '\n') - (p[j] == '\r'); /* a '\n' ends the line: never in [a, b) */
        p[j] = c;
    }
    s->hdr_raw += b - a;
    return more;
}

/* The header is complete, its separator in the stream: its record starts. */
static int start_record(fblk_split *s, const fblk_callbacks *cb, void *ctx)
{
    size_t len = s->hdr.len;
    while (len > 0 && s->hdr.text[len - 1] == '\r')
        len--;
    s->in_header = 0;
    s->in_record = 1;
    return cb->record_start(ctx, s->hdr.text ? s->hdr.text : "", len, s->hdr_text + s->sep)
               ? CLM_STOPPED
               : CLM_OK;
}

/* The separator bytes a header of hdr_raw bytes lacks. */
static size_t separator_missing(const fblk_split *s)
{
    return s->hdr_raw < s->sep ? (size_t)(s->sep - s->hdr_raw) : 0;
}

/* The header line from p[a] (its '>' when skip is 1) to its '\n' or the block's end n.
 * Returns where parsing goes on; *x: the bytes up to it handed to the sink where the
 * header's separator needed a put of its own. A record that starts inside the block gets a
 * checkpoint at its first byte: from there the input holds its sequence lines alone. */
static size_t header_line(fblk_split *s, unsigned char *p, size_t n, size_t a, size_t skip,
                          int64_t *more, size_t *x, uint64_t *extra, const fblk_sink *out,
                          const fblk_callbacks *cb, void *ctx, int *st)
{
    const unsigned char *nl = memchr(p + a, '\n', n - a);
    size_t b = nl ? (size_t)(nl - p) : n;
    *more += take_header(s, p, a, b, skip, st);
    if (!nl || *st != CLM_OK)
        return n;
    size_t missing = separator_missing(s);
    if (missing) {
        if ((*st = out->put(out->ctx, p + *x, b - *x, s->cp + s->cp_used,
                            s->n_cp - s->cp_used)) == CLM_OK)
            *st = out->put(out->ctx, NULL, missing, NULL, 0);
        *x = b;
        *extra += missing;
        s->cp_used = s->n_cp;
    }
    if (*st == CLM_OK)
        *st = start_record(s, cb, ctx);
    if (*st == CLM_OK && b + 1 < n) {
        s->cp[s->n_cp].text = s->hdr_text + s->sep;
        s->cp[s->n_cp].at = p + b + 1;
        s->n_cp++;
    }
    return b + 1;
}

int fblk_feed_to(fblk_split *s, unsigned char *p, size_t n, size_t from, const fblk_index *ix,
                 int buf, unsigned pieces, uint64_t t0, const fblk_sink *out,
                 const fblk_callbacks *cb, void *ctx, uint64_t *t_end)
{
    int64_t more = 0;    /* line breaks the overwritten headers added */
    uint64_t base = 0;   /* line breaks of the pieces before the current one */
    uint64_t extra = 0;  /* separator bytes put on their own */
    size_t x = from;     /* p[from, x) went to the sink */
    size_t pos = from;   /* p[0, pos) is parsed */
    size_t indexed = 0, marks = 0;
    int st = CLM_OK;
    for (unsigned i = 0; i < pieces; i++)
        marks += ix->piece[buf][i].n;
    /* Room for every checkpoint now (segments and records): the sink may keep pointers */
    s->n_cp = s->cp_used = 0;
    if (dna_grow((void **)&s->cp, &s->cp_cap, n / FBLK_SEGMENT + pieces + marks + 2,
                 sizeof *s->cp) != 0)
        return CLM_E_NOMEM;
    if (s->in_header)
        pos = header_line(s, p, n, 0, 0, &more, &x, &extra, out, cb, ctx, &st);
    for (unsigned i = 0; i < pieces && st == CLM_OK; i++) {
        const fblk_piece *pc = &ix->piece[buf][i];
        if (pc->nomem)
            return CLM_E_NOMEM;
        for (size_t j = 0; j < pc->n && st == CLM_OK; j++) {
            size_t o = pc->v[j].at;
            if (o < pos || !(o == from ? s->at_line_start : p[o - 1] == '\n'))
                continue; /* in a header, or not at a line's start: sequence */
            if ((st = add_checkpoints(s, p, pc, pos, o, t0, base, more, extra)) != CLM_OK)
                break;
            uint64_t text = t0 + o + extra - (base + pc->v[j].breaks + (uint64_t)more);
            if (s->in_record) {
                s->in_record = 0;
                if (cb->record_end(ctx, text))
                    return CLM_STOPPED;
            }
            s->in_header = 1;
            s->hdr.len = 0;
            s->hdr.truncated = 0;
            s->hdr_raw = 0;
            s->hdr_text = text;
            pos = header_line(s, p, n, o, 1, &more, &x, &extra, out, cb, ctx, &st);
        }
        if (st == CLM_OK)
            st = add_checkpoints(s, p, pc, pos, n, t0, base, more, extra);
        base += pc->breaks;
        indexed += pc->bytes;
    }
    if (st == CLM_OK && n > x)
        st = out->put(out->ctx, p + x, n - x, s->cp + s->cp_used, s->n_cp - s->cp_used);
    if (st != CLM_OK)
        return st;
    if (n)
        s->at_line_start = p[n - 1] == '\n';
    *t_end = t0 + n + extra - (base + (uint64_t)more);
    return indexed == n ? CLM_OK : CLM_E_INVALID; /* every byte indexed */
}

/* fblk_sink into a window. */
typedef struct {
    fdev_window *w;
    fdev_write_fn write;
    void *wctx;
} window_sink;

static int window_put(void *ctx, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                      size_t n_cp)
{
    window_sink *ws = ctx;
    return p ? fdev_put_span(ws->w, p, n, cp, n_cp, ws->write, ws->wctx)
             : fdev_put(ws->w, fdev_separator, n, ws->write, ws->wctx);
}

int fblk_feed(fblk_split *s, unsigned char *p, size_t n, size_t from, const fblk_index *ix,
              int buf, unsigned pieces, fdev_window *w, fdev_write_fn write, void *wctx,
              const fblk_callbacks *cb, void *ctx)
{
    window_sink ws = {w, write, wctx};
    const fblk_sink out = {window_put, &ws};
    uint64_t t_end = 0;
    int st = fblk_feed_to(s, p, n, from, ix, buf, pieces, w->text_end, &out, cb, ctx, &t_end);
    /* the stream's text what the index says it is */
    return st == CLM_OK && w->text_end != t_end ? CLM_E_INVALID : st;
}

int fblk_finish_to(fblk_split *s, uint64_t text, const fblk_sink *out,
                   const fblk_callbacks *cb, void *ctx)
{
    int st = CLM_OK;
    if (s->in_header) { /* the last line, with no '\n' */
        size_t missing = separator_missing(s);
        if (missing)
            st = out->put(out->ctx, NULL, missing, NULL, 0);
        text += missing;
        if (st == CLM_OK)
            st = start_record(s, cb, ctx);
    }
    if (st == CLM_OK && s->in_record) {
        s->in_record = 0;
        if (cb->record_end(ctx, text))
            st = CLM_STOPPED;
    }
    return st;
}

int fblk_finish(fblk_split *s, fdev_window *w, fdev_write_fn write, void *wctx,
                const fblk_callbacks *cb, void *ctx)
{
    window_sink ws = {w, write, wctx};
    const fblk_sink out = {window_put, &ws};
    return fblk_finish_to(s, w->text_end, &out, cb, ctx);
}
