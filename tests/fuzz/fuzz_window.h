/*
 * A stand-in for the --dna device path's stream, shared by the fuzz targets of its window
 * (fuzz_fasta_device.c, fuzz_fasta_blocks.c): it keeps the text a library stream with
 * CLM_STREAM_SKIP_LINE_BREAKS would search (every byte written but '\n' and '\r') and checks
 * the window's lookups against it.
 */
#ifndef CLMATCH_FUZZ_WINDOW_H
#define CLMATCH_FUZZ_WINDOW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clmatch.h"
#include "fasta_device.h"

typedef struct {
    fdev_window w;
    unsigned char *text; /* the stream's text */
    size_t len, cap;
    uint64_t kept;       /* the last fdev_keep's `from`: lookups start there or later */
    uint64_t rng;
} fake_stream;

static inline int fake_is_break(unsigned char c)
{
    return c == '\n' || c == '\r';
}

/* Whether the device path takes the input (its first byte other than a line break is '>',
 * at data[*first]). */
static inline int fake_takes(const unsigned char *data, size_t size, size_t *first)
{
    size_t i = 0;
    while (i < size && fake_is_break(data[i]))
        i++;
    *first = i;
    return i < size && data[i] == '>';
}

/* fdev_write_fn (ctx: a fake_stream): the stream, as the library counts it. */
static inline int fake_write(void *ctx, const unsigned char *p, size_t n, uint64_t *text)
{
    fake_stream *f = ctx;
    if (f->len + n > f->cap) {
        size_t cap = f->cap ? f->cap : 256;
        while (cap < f->len + n)
            cap *= 2;
        unsigned char *q = realloc(f->text, cap);
        if (!q)
            abort();
        f->text = q;
        f->cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        if (!fake_is_break(p[i]))
            f->text[f->len++] = p[i];
    *text = f->len;
    return CLM_OK;
}

static inline uint64_t fake_next(fake_stream *f)
{
    f->rng = f->rng * 6364136223846793005ull + 1442695040888963407ull;
    return f->rng >> 33;
}

/* A block's end, as dna.c's push_window: everything written, lookups in increasing order of
 * start checked against the stream's text, then all but the last `hold` text bytes let go. */
static inline void fake_block_end(fake_stream *f, unsigned hold)
{
    if (fdev_flush(&f->w, fake_write, f) != CLM_OK || f->w.text_end != f->len)
        abort();
    uint64_t s = f->kept;
    while (s < f->len) {
        uint64_t e = s + 1 + fake_next(f) % 40;
        if (e > f->len)
            e = f->len;
        const unsigned char *got = fdev_text(&f->w, s, e);
        if (!got || memcmp(got, f->text + s, (size_t)(e - s)) != 0)
            abort(); /* the window's text is not the stream's */
        s += fake_next(f) % 3000;
    }
    f->kept = f->len > hold ? f->len - hold : 0;
    if (fdev_keep(&f->w, f->kept) != 0)
        abort();
}

static inline void fake_free(fake_stream *f)
{
    fdev_free(&f->w);
    free(f->text);
}

#endif
