/* FASTA on the device: the record splitter and the window of raw pieces (fasta_device.h). */
#include "fasta_device.h"

#include "cli_common.h"
#include "clmatch.h"
#include "dna_patterns.h"

#include <stdlib.h>
#include <string.h>

const unsigned char fdev_separator[] = "#################";
_Static_assert(sizeof fdev_separator > CLM_MAX_ERRORS + 1, "a separator of k + 1 bytes");

/* ---- the splitter -------------------------------------------------------------------------- */

void fasta_split_init(fasta_split *s)
{
    memset(s, 0, sizeof *s);
    s->at_line_start = 1;
}

void fasta_split_free(fasta_split *s)
{
    fasta_header_free(&s->hdr);
}

/* The header line is complete: start its record. */
static int end_header(fasta_split *s, const fasta_callbacks *cb, void *ctx)
{
    s->in_header = 0;
    s->in_record = 1;
    return fasta_header_start(&s->hdr, 0, cb, ctx);
}

int fasta_split_feed(fasta_split *s, const void *data, size_t n, const fasta_callbacks *cb,
                     void *ctx)
{
    const unsigned char *p = data, *end = p + n;
    int st;
    while (p < end) {
        if (s->in_header) {
            const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!s->hdr.truncated &&
                (st = fasta_header_append(&s->hdr, p, (size_t)((nl ? nl : end) - p))) != FASTA_OK)
                return st;
            if (!nl)
                return FASTA_OK;
            if ((st = end_header(s, cb, ctx)) != FASTA_OK)
                return st;
            s->at_line_start = 1;
            p = nl + 1;
            continue;
        }
        if (s->at_line_start && *p == '>') {
            if (s->in_record) {
                s->in_record = 0;
                if (cb->record_end(ctx))
                    return FASTA_ERR_CALLBACK;
            }
            s->in_header = 1;
            s->hdr.len = 0;
            s->hdr.truncated = 0;
            s->at_line_start = 0;
            p++;
            continue;
        }
        /* Sequence lines up to the next '>' that starts a line (p itself does not). */
        const unsigned char *q = p;
        while ((q = memchr(q, '>', (size_t)(end - q))) != NULL && (q == p || q[-1] != '\n'))
            q++;
        const unsigned char *stop = q ? q : end;
        if (cb->sequence(ctx, p, (size_t)(stop - p)))
            return FASTA_ERR_CALLBACK;
        s->at_line_start = stop[-1] == '\n';
        p = stop;
    }
    return FASTA_OK;
}

int fasta_split_finish(fasta_split *s, const fasta_callbacks *cb, void *ctx)
{
    int st;
    if (s->in_header && (st = end_header(s, cb, ctx)) != FASTA_OK) /* no final newline */
        return st;
    if (s->in_record) {
        s->in_record = 0;
        if (cb->record_end(ctx))
            return FASTA_ERR_CALLBACK;
    }
    return FASTA_OK;
}

/* ---- the window ---------------------------------------------------------------------------- */


void fdev_init(fdev_window *w)
{
    memset(w, 0, sizeof *w);
}

void fdev_free(fdev_window *w)
{
    for (size_t i = 0; i < w->n_chunks; i++)
        free(w->chunk[i]);
    free(w->chunk);
    free(w->v);
    free(w->keep[0]);
    free(w->keep[1]);
    free(w->out);
    fdev_init(w);
}

/* No piece; the chunks are free for reuse. */
static void drop_pieces(fdev_window *w)
{
    w->n = w->ci = w->craw = 0;
    w->cur = w->used = w->pend = 0;
}

void fdev_reset(fdev_window *w)
{
    drop_pieces(w);
    w->ctext = w->text_end = w->written = 0;
}

static int add_piece(fdev_window *w, uint64_t text, const unsigned char *p, size_t n,
                     const fdev_checkpoint *cp, size_t n_cp)
{
    if (dna_grow((void **)&w->v, &w->cap, w->n + 1, sizeof *w->v) != 0)
        return -1;
    w->v[w->n] = (fdev_piece){text, p, n, cp, n_cp};
    w->n++;
    return 0;
}

int fdev_flush(fdev_window *w, fdev_write_fn write, void *ctx)
{
    if (w->pend == w->used)
        return CLM_OK;
    uint64_t text;
    int st = write(ctx, w->chunk[w->cur] + w->pend, w->used - w->pend, &text);
    if (st != CLM_OK)
        return st;
    w->pend = w->used;
    w->written = text;
    return text == w->text_end ? CLM_OK : CLM_E_INVALID; /* the batch has no line break */
}

/* Room for n bytes (at most FDEV_CHUNK) in the current chunk, writing the batch to move on. */
static int chunk_room(fdev_window *w, size_t n, fdev_write_fn write, void *ctx)
{
    if (w->n_chunks && w->used + n <= FDEV_CHUNK)
        return CLM_OK;
    int st = fdev_flush(w, write, ctx);
    if (st != CLM_OK)
        return st;
    size_t next = w->n_chunks ? w->cur + 1 : 0;
    if (next == w->n_chunks) {
        unsigned char *c = malloc(FDEV_CHUNK);
        if (!c || dna_grow((void **)&w->chunk, &w->cap_chunks, w->n_chunks + 1,
                          sizeof *w->chunk) != 0) {
            free(c);
            return CLM_E_NOMEM;
        }
        w->chunk[w->n_chunks++] = c;
    }
    w->cur = next;
    w->used = w->pend = 0;
    return CLM_OK;
}

int fdev_put(fdev_window *w, const unsigned char *p, size_t n, fdev_write_fn write, void *ctx)
{
    return fdev_put_span(w, p, n, NULL, 0, write, ctx);
}

int fdev_put_span(fdev_window *w, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                  size_t n_cp, fdev_write_fn write, void *ctx)
{
    int st;
    if (n == 0)
        return CLM_OK;
    if (n > FDEV_SMALL) { /* in place: the library counts its line breaks */
        uint64_t text;
        if ((st = fdev_flush(w, write, ctx)) != CLM_OK)
            return st;
        if (add_piece(w, w->text_end, p, n, cp, n_cp) != 0)
            return CLM_E_NOMEM;
        if ((st = write(ctx, p, n, &text)) != CLM_OK)
            return st;
        w->text_end = w->written = text;
        return CLM_OK;
    }
    if ((st = chunk_room(w, n, write, ctx)) != CLM_OK)
        return st;
    unsigned char *d = w->chunk[w->cur] + w->used, *d0 = d;
    for (size_t i = 0; i < n; i++) /* a short record's lines joined, as the host path does */
        if (!is_line_break(p[i]))
            *d++ = p[i];
    if (d > d0 && add_piece(w, w->text_end, d0, (size_t)(d - d0), NULL, 0) != 0)
        return CLM_E_NOMEM;
    w->used += (size_t)(d - d0);
    w->text_end += (uint64_t)(d - d0);
    return CLM_OK;
}

/* Past *need text bytes of p[from, n): line by line (memchr), byte by byte only in the line
 * where they end. Returns the raw offset reached; *need gets what is left (piece ended). */
static size_t skip_text(const unsigned char *p, size_t n, size_t from, uint64_t *need)
{
    while (*need && from < n) {
        const unsigned char *nl = memchr(p + from, '\n', n - from);
        size_t stop = nl ? (size_t)(nl - p) : n, crs = 0;
        for (const unsigned char *c = p + from;
             (c = memchr(c, '\r', stop - (size_t)(c - p))) != NULL; c++)
            crs++;
        if (stop - from - crs <= *need) { /* the whole line, its '\n' too */
            *need -= stop - from - crs;
            from = nl ? stop + 1 : n;
            continue;
        }
        for (; *need; from++)
            *need -= !is_line_break(p[from]);
    }
    return from;
}

/* The cursor to the last checkpoint of its piece at or before text offset t, if it is ahead. */
static void jump_to_checkpoint(fdev_window *w, uint64_t t)
{
    const fdev_piece *pc = &w->v[w->ci];
    if (!pc->n_cp || pc->cp[0].text > t)
        return;
    size_t lo = 0, hi = pc->n_cp; /* cp[lo].text <= t */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pc->cp[mid].text <= t)
            lo = mid;
        else
            hi = mid;
    }
    size_t raw = (size_t)(pc->cp[lo].at - pc->p);
    if (raw > w->craw) {
        w->craw = raw;
        w->ctext = pc->cp[lo].text;
    }
}

/* The last piece that begins at or before text offset t. */
static size_t piece_of(const fdev_window *w, uint64_t t)
{
    size_t lo = 0, hi = w->n; /* v[lo].text <= t (the caller checked v[0]) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->v[mid].text <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const unsigned char *fdev_text(fdev_window *w, uint64_t start, uint64_t end)
{
    if (!w->n || start < w->v[0].text || end < start ||
        dna_grow((void **)&w->out, &w->out_cap, (size_t)(end - start) + 1, 1) != 0)
        return NULL;
    size_t i = piece_of(w, start);
    if (!(w->ci >= i && w->ci < w->n && w->ctext <= start)) { /* the cursor is of no use */
        w->ci = i;
        w->craw = 0;
        w->ctext = w->v[i].text;
    }
    while (w->ctext < start) { /* the cursor to start */
        jump_to_checkpoint(w, start);
        uint64_t need = start - w->ctext;
        w->craw = skip_text(w->v[w->ci].p, w->v[w->ci].n, w->craw, &need);
        w->ctext = start - need;
        if (need && ++w->ci == w->n)
            return NULL;
        if (need)
            w->craw = 0;
    }
    size_t got = 0, want = (size_t)(end - start), ci = w->ci, raw = w->craw;
    while (got < want) { /* then the text, leaving the cursor at start */
        if (raw == w->v[ci].n) {
            if (++ci == w->n)
                return NULL;
            raw = 0;
            continue;
        }
        unsigned char c = w->v[ci].p[raw++];
        if (!is_line_break(c))
            w->out[got++] = c;
    }
    return w->out;
}

int fdev_keep(fdev_window *w, uint64_t from)
{
    const uint64_t end = w->text_end;
    if (w->n && from < w->v[0].text)
        from = w->v[0].text;
    if (from > end)
        from = end;
    int next = !w->keep_cur;
    size_t want = (size_t)(end - from), at = want;
    if (dna_grow((void **)&w->keep[next], &w->keep_cap[next], want + 1, 1) != 0)
        return -1;
    unsigned char *dst = w->keep[next];
    for (size_t i = w->n; i-- > 0 && at > 0;) /* backwards: the pieces' last text bytes */
        for (size_t j = w->v[i].n; j > 0 && at > 0;) {
            unsigned char c = w->v[i].p[--j];
            if (!is_line_break(c))
                dst[--at] = c;
        }
    drop_pieces(w);
    w->keep_cur = next;
    w->ctext = from + at;
    /* at > 0 only if the pieces held less than they should: then lookups fail (NULL) */
    return want > at ? add_piece(w, from + at, dst + at, want - at, NULL, 0) : 0;
}
