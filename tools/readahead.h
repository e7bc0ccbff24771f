/*
 * Reading a regular file's blocks one ahead (clmatch --dna): a thread of its own runs
 * gz_read into the other of two buffers while the caller works on the block it was handed,
 * so that the read (a copy out of the page cache, or inflating) overlaps the reader's parse,
 * the stream's copy into staging and the wait for the device. Only for regular files: a
 * thread blocked on a pipe could not be stopped.
 *
 * Plain (not gzip) input may be read by several threads at once, which take the block's
 * pieces in turn and read each with pread(): one thread copies the page cache at a fraction
 * of the memory bandwidth. A hook of the caller's then runs on each part read on the thread
 * that read it, while its bytes are still in that core's cache (the DNA mode's index of
 * header marks and line breaks).
 */
#ifndef CLMATCH_READAHEAD_H
#define CLMATCH_READAHEAD_H

#include "gz.h"

#include <stddef.h>
#include <stdint.h>

/* Threads that read a block at most, and the pieces of a block they take in turn. */
#define READAHEAD_MAX_THREADS 32
#define READAHEAD_MAX_PIECES 64

/* Bytes p[0, n) of piece `piece` of the block in buffer `buf`, at offset `at` of the block;
 * the piece starts at `piece_at` (at == piece_at: its first part). Called on the reading
 * threads, several at once, on each piece's parts in order as they are read (a part of at
 * most READAHEAD_PART bytes, still in that core's cache), and at least once for every piece
 * of every block (n 0 for a piece past the end of the input). */
typedef void (*readahead_piece_fn)(void *ctx, int buf, unsigned piece, const unsigned char *p,
                                   size_t n, size_t at, size_t piece_at);

/* The parts the hook sees: a piece's reads are this long. */
#define READAHEAD_PART ((size_t)256 << 10)

typedef struct {
    unsigned threads;         /* plain input read by this many threads (at most
                                 READAHEAD_MAX_THREADS); 0 or 1: gz_read on one thread */
    readahead_piece_fn piece; /* or NULL */
    void *ctx;
} readahead_opts;

typedef struct readahead readahead;

/* Start reading gz in blocks of `block` bytes into buf[0] and buf[1] (the caller's, each of
 * `block` bytes). 0, or an errno value. */
int readahead_start(gz_input *gz, unsigned char *buf[2], size_t block, const readahead_opts *opts,
                    readahead **out);
/* The next block, as gz_read gives it (its status returned, *eof), in *data until the next
 * call: the block handed before is given back to be refilled. After a failure or the end,
 * nothing more is read (the call returns the same again). */
int readahead_next(readahead *ra, unsigned char **data, size_t *got, int *eof);
/* The buffer (0 or 1) of the block handed last. */
int readahead_buffer(const readahead *ra);
/* The pieces the hook saw of every block: 0 when the input is read on one thread (gzip, or
 * opts->threads below 2), where the hook is never called. */
unsigned readahead_pieces(const readahead *ra);
/* Why readahead_next failed. */
const char *readahead_error(const readahead *ra);
/* Stop (waits for a read under way) and free. NULL is ignored. */
void readahead_stop(readahead *ra);

#endif
