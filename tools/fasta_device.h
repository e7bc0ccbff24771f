/*
 * FASTA on the device (clmatch --dna): the host finds the records' header lines and hands
 * each record's sequence lines to a CLM_STREAM_SKIP_LINE_BREAKS stream as they are, line
 * breaks included; the device drops the line breaks. The host then maps text offsets (the
 * matches') back to the raw bytes only where a match needs its text.
 *
 *  - fasta_split: the records of FASTA input, as fasta.h's reader gives them once the input
 *    is known to be FASTA (its first byte other than a line break is '>'), except that the
 *    sequence pieces are raw: every byte of the sequence lines, their '\n' and '\r' too. A
 *    header is a line that starts with '>' (after a '\n'), so the host looks at the input
 *    with memchr for '>' alone: headers are rare.
 *  - fdev_window: the bytes written to the stream whose text a match may still need, as
 *    pieces (the caller's memory, valid until fdev_keep) with the text offset each begins at.
 */
#ifndef CLMATCH_FASTA_DEVICE_H
#define CLMATCH_FASTA_DEVICE_H

#include "fasta.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int in_header;     /* inside a header line */
    int in_record;     /* a record has started and not ended */
    int at_line_start; /* the last byte fed was '\n' (or none was fed) */
    fasta_header hdr;
} fasta_split;

/* Start at the input's first byte other than a line break, which must be '>'. */
void fasta_split_init(fasta_split *s);
/* As fasta_feed (line numbers are not counted: 0), sequence pieces raw. */
int fasta_split_feed(fasta_split *s, const void *data, size_t n, const fasta_callbacks *cb,
                     void *ctx);
/* As fasta_finish. */
int fasta_split_finish(fasta_split *s, const fasta_callbacks *cb, void *ctx);
void fasta_split_free(fasta_split *s);

typedef struct {
    uint64_t text;          /* text offset of its first byte */
    const unsigned char *p; /* its raw bytes */
    size_t n;
} fdev_piece;

typedef struct {
    fdev_piece *v;       /* in text order */
    size_t n, cap;
    unsigned char *keep[2]; /* fdev_keep's copies: the one in use and the next */
    size_t keep_cap[2];
    int keep_cur;
    /* where the last lookup ended: piece ci, raw offset craw in it, text offset ctext there */
    size_t ci, craw;
    uint64_t ctext;
    unsigned char *out;  /* fdev_text's result */
    size_t out_cap;
} fdev_window;

void fdev_init(fdev_window *w);
void fdev_free(fdev_window *w);
/* Forget every piece (a new file). */
void fdev_reset(fdev_window *w);
/* p[0, n) was written to the stream from text offset `text` on; it stays valid until
 * fdev_keep. 0, or -1 out of memory. */
int fdev_add(fdev_window *w, uint64_t text, const unsigned char *p, size_t n);
/* The text [start, end) (line breaks dropped), which the pieces must hold; NULL when they do
 * not (or out of memory). Lookups in increasing order of start are cheapest. */
const unsigned char *fdev_text(fdev_window *w, uint64_t start, uint64_t end);
/* No lookup will start before `from`, and the text ends at `end`: copy [from, end) out of the
 * pieces (they may be reused afterwards). 0, or -1 out of memory. */
int fdev_keep(fdev_window *w, uint64_t from, uint64_t end);
/* The first text offset the pieces hold (their end when there are none). */
uint64_t fdev_first(const fdev_window *w, uint64_t end);

#endif
