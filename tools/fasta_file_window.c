/* The FASTA device path's match text read back from the file: see fasta_file_window.h. */
#if !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE)
#define _XOPEN_SOURCE 700 /* pread */
#endif
#include "fasta_file_window.h"

#include "cli_common.h"
#include "dna_patterns.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FFW_CHUNK ((size_t)256 << 10) /* read around a lookup: matches come in text order */

void ffw_init(ffw_window *w, int fd)
{
    memset(w, 0, sizeof *w);
    w->fd = fd;
}

void ffw_free(ffw_window *w)
{
    free(w->v);
    free(w->buf);
    free(w->out);
    memset(w, 0, sizeof *w);
}

int ffw_mark_add(ffw_window *w, uint64_t text, uint64_t file)
{
    if (w->head > 0 && w->head * 2 >= w->n) { /* the forgotten half goes */
        memmove(w->v, w->v + w->head, (w->n - w->head) * sizeof *w->v);
        w->n -= w->head;
        if (w->cmark >= w->head)
            w->cmark -= w->head;
        else
            w->cvalid = 0;
        w->head = 0;
    }
    if (dna_grow((void **)&w->v, &w->cap, w->n + 1, sizeof *w->v) != 0)
        return -1;
    w->v[w->n].text = text;
    w->v[w->n].file = file;
    w->n++;
    return 0;
}

/* The last mark at or before text in v[head, n), or n when none. */
static size_t mark_of(const ffw_window *w, uint64_t text)
{
    size_t lo = w->head, hi = w->n; /* v[lo - 1] <= text < v[hi] */
    if (lo == hi || w->v[lo].text > text)
        return w->n;
    lo++;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->v[mid].text <= text)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

void ffw_forget(ffw_window *w, uint64_t text)
{
    size_t i = mark_of(w, text);
    if (i < w->n)
        w->head = i;
}

/* The byte at file offset off into *c: 0, or -1 (w->err). */
static int byte_at(ffw_window *w, uint64_t off, unsigned char *c)
{
    if (off < w->buf_off || off - w->buf_off >= w->buf_len) {
        if (!w->buf && !(w->buf = malloc(FFW_CHUNK))) {
            w->err = ENOMEM;
            return -1;
        }
        ssize_t r;
        do
            r = pread(w->fd, w->buf, FFW_CHUNK, (off_t)off);
        while (r < 0 && errno == EINTR);
        if (r <= 0) {
            w->err = r < 0 ? errno : EIO;
            w->buf_len = 0;
            return -1;
        }
        w->buf_off = off;
        w->buf_len = (size_t)r;
    }
    *c = w->buf[off - w->buf_off];
    return 0;
}


const unsigned char *ffw_text(ffw_window *w, uint64_t start, uint64_t end)
{
    size_t i = mark_of(w, start);
    if (i == w->n || end < start ||
        dna_grow((void **)&w->out, &w->out_cap, (size_t)(end - start) + 1, 1) != 0)
        return NULL;
    if (!(w->cvalid && w->cmark == i && w->ctext <= start)) { /* the cursor is of no use */
        w->cmark = i;
        w->ctext = w->v[i].text;
        w->cfile = w->v[i].file;
        w->cvalid = 1;
    }
    unsigned char c;
    while (w->ctext < start) { /* the cursor to start: spans of the buffer at a time */
        if (byte_at(w, w->cfile, &c) != 0)
            return NULL;
        size_t at = (size_t)(w->cfile - w->buf_off), span = w->buf_len - at;
        if (span > start - w->ctext)
            span = (size_t)(start - w->ctext); /* no more text than needed */
        w->ctext += span - count_either(w->buf + at, span, '\n', '\r');
        w->cfile += span;
    }
    while (byte_at(w, w->cfile, &c) == 0 && is_line_break(c)) /* on start's byte */
        w->cfile++;
    size_t got = 0, want = (size_t)(end - start);
    for (uint64_t f = w->cfile; got < want; f++) {
        if (byte_at(w, f, &c) != 0)
            return NULL;
        if (!is_line_break(c))
            w->out[got++] = c;
    }
    return w->out;
}
