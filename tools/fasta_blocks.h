/*
 * FASTA on the device, a block at a time (clmatch --dna, a plain regular file): the reading
 * threads index each piece of a block as they read it (every '>' and the line breaks before
 * it: readahead.h's hook), and the caller then hands the whole block to the stream in one
 * write, its headers overwritten in place: the first k + 1 bytes of a header line become the
 * record separator ('#', which no IUPAC code matches) and the rest line breaks, which the
 * device drops. The records' text offsets come from the index, not from a write per record:
 * a genome of many short contigs is one parallel copy into staging per block, not one
 * single-threaded write per contig.
 *
 * A header line shorter than k + 1 bytes gets the rest of its separator as a write of its
 * own. A '>' is a header where it starts a line, as in fasta_split (fasta_device.h).
 */
#ifndef CLMATCH_FASTA_BLOCKS_H
#define CLMATCH_FASTA_BLOCKS_H

#include "clmatch.h"
#include "fasta.h"
#include "fasta_device.h"
#include "readahead.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t at;     /* a '>' at this offset of the block, */
    uint32_t breaks; /* after this many '\n' and '\r' of its piece */
} fblk_mark;

/* Line breaks are counted by segments of the piece too, which become checkpoints of the
 * window (fdev_checkpoint): a match's text is then found from the segment it lies in. */
#define FBLK_SEGMENT ((size_t)16 << 10)

typedef struct {
    fblk_mark *v;
    size_t n, cap;
    uint32_t *seg;   /* seg[j]: line breaks of the piece before its byte j * FBLK_SEGMENT */
    size_t seg_cap;
    uint64_t breaks; /* of the whole piece */
    size_t bytes;    /* the piece's length */
    size_t at;       /* its offset in the block */
    int nomem;       /* a mark could not be kept */
} fblk_piece;

/* The index of the blocks being read: those of readahead's two buffers, or up to
 * CLM_FD_MAX_BLOCKS of clm_stream_write_fd's (by block % CLM_FD_MAX_BLOCKS). */
#define FBLK_BLOCKS CLM_FD_MAX_BLOCKS
typedef struct {
    fblk_piece piece[FBLK_BLOCKS][READAHEAD_MAX_PIECES];
} fblk_index;

/* readahead_piece_fn: index p[0, n), a part of a piece (ctx: an fblk_index). */
void fblk_index_piece(void *ctx, int buf, unsigned piece, const unsigned char *p, size_t n,
                      size_t at, size_t piece_at);
void fblk_index_free(fblk_index *ix);

typedef struct {
    int (*record_start)(void *ctx, const char *header, size_t len, uint64_t text);
    int (*record_end)(void *ctx, uint64_t text);
} fblk_callbacks;

typedef struct {
    fdev_checkpoint *cp; /* of the block fed last (the window's pieces point here) */
    size_t n_cp, cp_cap, cp_used; /* cp[0, cp_used) went with the spans written */
    unsigned sep;      /* separator bytes between records: k + 1 */
    int in_header;     /* inside a header line */
    int in_record;
    int at_line_start; /* the last byte fed was '\n' (or none was fed) */
    uint64_t hdr_text; /* the text offset at the current header's '>' */
    uint64_t hdr_raw;  /* bytes of the header line so far, its '>' too */
    fasta_header hdr;
} fblk_split;

void fblk_init(fblk_split *s, unsigned sep);
void fblk_free(fblk_split *s);
/* The block p[0, n) (modified: its headers), indexed in `pieces` pieces of ix->piece[buf],
 * from byte `from` on (the bytes before it are line breaks, skipped: p[from] starts a line
 * when the last block ended one, as at the input's start) into the window's stream, and
 * its records to cb. Every byte put before is written (fdev_flush). A CLM_* status of the
 * window (CLM_E_INVALID: the stream counted other text than the index: an internal error),
 * CLM_E_NOMEM, or CLM_STOPPED when a callback returned non-zero. */
int fblk_feed(fblk_split *s, unsigned char *p, size_t n, size_t from, const fblk_index *ix,
              int buf, unsigned pieces, fdev_window *w, fdev_write_fn write, void *wctx,
              const fblk_callbacks *cb, void *ctx);
/* The end of the input. Statuses as fblk_feed. */
int fblk_finish(fblk_split *s, fdev_window *w, fdev_write_fn write, void *wctx,
                const fblk_callbacks *cb, void *ctx);

/* Where fblk_feed_to puts the block: p[0, n) of it (p NULL: n separator bytes) with the
 * checkpoints cp[0, n_cp) in p[0, n) (valid until the next block is fed). A CLM_* status. */
typedef struct {
    int (*put)(void *ctx, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
               size_t n_cp);
    void *ctx;
} fblk_sink;

/* fblk_feed into any sink: t0 is the text offset at p[0], and *t_end gets the one after the
 * block by the index (the caller checks the stream's against it). The bytes before `from`
 * are line breaks and the puts cover the rest, so a sink may take the whole block as it is
 * when no separator was put on its own. Statuses as fblk_feed (CLM_E_INVALID: a piece
 * was not indexed). */
int fblk_feed_to(fblk_split *s, unsigned char *p, size_t n, size_t from, const fblk_index *ix,
                 int buf, unsigned pieces, uint64_t t0, const fblk_sink *out,
                 const fblk_callbacks *cb, void *ctx, uint64_t *t_end);
/* fblk_finish into any sink, text: the text offset after every byte put. */
int fblk_finish_to(fblk_split *s, uint64_t text, const fblk_sink *out,
                   const fblk_callbacks *cb, void *ctx);

#endif
