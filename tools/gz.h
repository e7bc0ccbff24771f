/*
 * Input that may be gzip-compressed, for the clmatch CLI's DNA mode: gzip is recognized by
 * its magic bytes (1f 8b), never by the file name, and inflated through zlib; any other input
 * is passed through unchanged. Concatenated gzip members (bgzip's blocks, `cat a.gz b.gz`)
 * are one stream. Corrupt or truncated gzip data, or data after a member that is not another
 * member, is an error naming the compressed offset. Only the CLI links zlib.
 */
#ifndef CLMATCH_GZ_H
#define CLMATCH_GZ_H

#include <stddef.h>
#include <stdint.h>

typedef struct gz_input gz_input;

/* Start reading fd (not closed by gz_close): reads its first bytes to recognize gzip.
 * Returns 0, or an errno value (the read failed, ENOMEM). */
int gz_open(int fd, gz_input **out);
/* Read up to want bytes of (inflated) data into buf, as read_block of cli_common.h: fewer
 * only at the end of the input (*eof set). Returns 0, or -1 with gz_error() saying why; then
 * *got bytes, what came before the error, are valid all the same. */
int gz_read(gz_input *g, unsigned char *buf, size_t want, size_t *got, int *eof);
/* Plain input: 0 with its fd in *fd; -1 for gzip. */
int gz_plain_fd(const gz_input *g, int *fd);
/* Plain input read by the caller from here on (readahead.c's parallel reads): the bytes
 * gz_open took from fd (at most 2) are copied to buf (cap bytes at least 2), and the rest of
 * the input follows at fd's current offset. gz_read must not be called afterwards. 0, or -1
 * for gzip input (nothing copied). */
int gz_plain_take(gz_input *g, unsigned char *buf, size_t cap, size_t *got);
/* Plain input that is a regular file: the file offset of its next byte (what gz_open took
 * not counted), for pread() instead of gz_read. 0, or -1 (gzip, or not seekable). */
int gz_plain_offset(const gz_input *g, uint64_t *off);
/* Why gz_read failed (an errno text, or what is wrong with the gzip data). */
const char *gz_error(const gz_input *g);
void gz_close(gz_input *g);

#endif
