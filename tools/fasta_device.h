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
 *  - fdev_window: what goes to the stream, and the bytes whose text a match may still need,
 *    as pieces (the caller's memory, valid until fdev_keep) with the text offset each begins
 *    at. A large piece is written as it is (the library counts its line breaks); small ones
 *    (short records, separators) are copied without their line breaks into chunks that are
 *    written a megabyte at a time: millions of short records cost no write call each.
 */
#ifndef CLMATCH_FASTA_DEVICE_H
#define CLMATCH_FASTA_DEVICE_H

#include "fasta.h"

#include <stddef.h>
#include <stdint.h>

/* The device path's record separator: k + 1 bytes that no IUPAC code matches, as the host
 * path's newlines, but kept by a CLM_STREAM_SKIP_LINE_BREAKS stream (CLM_MAX_ERRORS + 1 of
 * them at most). */
extern const unsigned char fdev_separator[];

/* Pieces up to this many bytes are copied and batched; larger ones are written in place. */
#define FDEV_SMALL 4096u
/* The batches' chunks. */
#define FDEV_CHUNK ((size_t)1 << 20)

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

/* A place in a piece whose text offset is known: lookups start at the last one before them
 * instead of counting the piece's line breaks from its start. */
typedef struct {
    uint64_t text;
    const unsigned char *at;
} fdev_checkpoint;

typedef struct {
    uint64_t text;          /* text offset of its first byte */
    const unsigned char *p; /* its raw bytes */
    size_t n;
    const fdev_checkpoint *cp; /* in increasing order, inside [p, p + n) (or none) */
    size_t n_cp;
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
    /* the small pieces' copies: chunk[0 .. cur] in use since fdev_keep, bytes [0, used) of
     * chunk[cur], of which [pend, used) are not written yet */
    unsigned char **chunk;
    size_t n_chunks, cap_chunks, cur, used, pend;
    uint64_t text_end;   /* text offset after every byte put */
    uint64_t written;    /* ... after every byte written */
} fdev_window;

/* Write p[0, n) to the stream; *text gets the stream's text offset after it. A CLM_* status. */
typedef int (*fdev_write_fn)(void *ctx, const unsigned char *p, size_t n, uint64_t *text);

void fdev_init(fdev_window *w);
void fdev_free(fdev_window *w);
/* Forget every piece (a new file: text offsets from 0). */
void fdev_reset(fdev_window *w);
/* Put p[0, n) into the stream (p stays valid until fdev_keep): a large piece is written now
 * (after the batch), a small one copied into the batch. CLM_OK, CLM_E_NOMEM, CLM_E_INVALID
 * (the stream's text offset is not the one counted: an internal error), or write's status. */
int fdev_put(fdev_window *w, const unsigned char *p, size_t n, fdev_write_fn write,
             void *ctx);
/* fdev_put with checkpoints of p (valid as long as p; unused for a piece that is copied). */
int fdev_put_span(fdev_window *w, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                  size_t n_cp, fdev_write_fn write, void *ctx);
/* Write the batch. Statuses as fdev_put. */
int fdev_flush(fdev_window *w, fdev_write_fn write, void *ctx);
/* The text [start, end) (line breaks dropped), which the pieces must hold; NULL when they do
 * not (or out of memory). Lookups in increasing order of start are cheapest. */
const unsigned char *fdev_text(fdev_window *w, uint64_t start, uint64_t end);
/* Everything is written (fdev_flush) and no lookup will start before `from`: copy the text
 * [from, text_end) out of the pieces, which may be reused afterwards. 0, or -1 out of
 * memory. */
int fdev_keep(fdev_window *w, uint64_t from);

#endif
