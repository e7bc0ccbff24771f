/* What clm_stream_write_fd's hooks see, checked the same way by every test that reads a file
 * into a stream: each piece's parts in order and of at most T_FD_PART bytes, and every byte
 * of a block seen in the pieces its block hook is told of. The part hook runs on several
 * threads at once. */
#ifndef CLMATCH_T_FD_H
#define CLMATCH_T_FD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "clmatch.h"

#define T_FD_PART ((size_t)256 << 10) /* the parts the header promises at most */

typedef struct {
    /* per block (index % CLM_FD_MAX_BLOCKS) and piece: the next part's offset, bytes seen */
    size_t next_at[CLM_FD_MAX_BLOCKS][CLM_FD_MAX_PIECES], seen[CLM_FD_MAX_BLOCKS][CLM_FD_MAX_PIECES];
    size_t parts, pieces_max;
    int two_parts; /* a piece came in more than one part */
    int errors;
    pthread_mutex_t lock;
} t_fd_parts;

void t_fd_parts_init(t_fd_parts *fp);
void t_fd_parts_free(t_fd_parts *fp);
/* A part hook's call (clm_fd_hooks.part's arguments but p). */
void t_fd_part(t_fd_parts *fp, uint64_t block, unsigned piece, size_t n, size_t at,
               size_t piece_at);
/* clm_fd_hooks.part for a ctx whose first member is its t_fd_parts: t_fd_part. */
void t_fd_part_hook(void *ctx, uint64_t block, unsigned piece, const unsigned char *p, size_t n,
                    size_t at, size_t piece_at);
/* At a block hook's call: every byte of block's n seen in its `pieces` pieces; else an error
 * counted. */
void t_fd_block(t_fd_parts *fp, uint64_t block, unsigned pieces, size_t n);
/* A temporary file holding p[0, n) (an expectation recorded on failure: NULL). */
FILE *t_fd_file(const unsigned char *p, size_t n);

#endif
