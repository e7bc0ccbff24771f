/* The checks of clm_stream_write_fd's hooks shared by its tests: see t_fd.h. */
#include "t_fd.h"

#include <string.h>

#include "t.h"

void t_fd_parts_init(t_fd_parts *fp)
{
    memset(fp, 0, sizeof *fp);
    pthread_mutex_init(&fp->lock, NULL);
}

void t_fd_parts_free(t_fd_parts *fp)
{
    pthread_mutex_destroy(&fp->lock);
}

void t_fd_part_hook(void *ctx, uint64_t block, unsigned piece, const unsigned char *p, size_t n,
                    size_t at, size_t piece_at)
{
    (void)p;
    t_fd_part(ctx, block, piece, n, at, piece_at);
}

void t_fd_part(t_fd_parts *fp, uint64_t block, unsigned piece, size_t n, size_t at,
               size_t piece_at)
{
    int bad = piece >= CLM_FD_MAX_PIECES || n == 0 || n > T_FD_PART;
    if (!bad) { /* a piece's parts come on one thread */
        size_t *next = &fp->next_at[block % CLM_FD_MAX_BLOCKS][piece];
        size_t *seen = &fp->seen[block % CLM_FD_MAX_BLOCKS][piece];
        if (at == piece_at) { /* its first part (again, for a block read again) */
            *next = at;
            *seen = 0;
        }
        bad = at != *next;
        *next = at + n;
        *seen += n;
    }
    pthread_mutex_lock(&fp->lock);
    fp->parts++;
    fp->errors += bad;
    fp->two_parts |= at != piece_at;
    pthread_mutex_unlock(&fp->lock);
}

void t_fd_block(t_fd_parts *fp, uint64_t block, unsigned pieces, size_t n)
{
    size_t seen = 0;
    for (unsigned i = 0; i < pieces && i < CLM_FD_MAX_PIECES; i++)
        seen += fp->seen[block % CLM_FD_MAX_BLOCKS][i];
    pthread_mutex_lock(&fp->lock); /* the next blocks' parts may be counting */
    fp->errors += seen != n || pieces == 0 || pieces > CLM_FD_MAX_PIECES;
    pthread_mutex_unlock(&fp->lock);
    if (pieces > fp->pieces_max)
        fp->pieces_max = pieces;
}

FILE *t_fd_file(const unsigned char *p, size_t n)
{
    FILE *f = tmpfile();
    if (!EXPECT(f != NULL)) return NULL;
    if (!EXPECT(fwrite(p, 1, n, f) == n && fflush(f) == 0)) {
        fclose(f);
        return NULL;
    }
    return f;
}
