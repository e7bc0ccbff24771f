/*
 * Reading a regular file's blocks one ahead (clmatch --dna): a thread of its own runs
 * gz_read into the other of two buffers while the caller works on the block it was handed,
 * so that the read (a copy out of the page cache, or inflating) overlaps the reader's parse,
 * the stream's copy into staging and the wait for the device. Only for regular files: a
 * thread blocked on a pipe could not be stopped.
 */
#ifndef CLMATCH_READAHEAD_H
#define CLMATCH_READAHEAD_H

#include "gz.h"

#include <stddef.h>

typedef struct readahead readahead;

/* Start reading gz in blocks of `block` bytes into buf[0] and buf[1] (the caller's, each of
 * `block` bytes). 0, or an errno value. */
int readahead_start(gz_input *gz, unsigned char *buf[2], size_t block, readahead **out);
/* The next block, as gz_read gives it (its status returned, *eof), in *data until the next
 * call: the block handed before is given back to be refilled. After a failure or the end,
 * nothing more is read (the call returns the same again). */
int readahead_next(readahead *ra, unsigned char **data, size_t *got, int *eof);
/* Stop (waits for a read under way) and free. NULL is ignored. */
void readahead_stop(readahead *ra);

#endif
