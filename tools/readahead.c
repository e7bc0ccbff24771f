/* A regular file's blocks read one ahead on a thread of its own: see readahead.h. */
#include "readahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct readahead {
    gz_input *gz;
    unsigned char *buf[2];
    size_t block;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a block was filled, given back, or stop set */
    int full[2];            /* buf[i] holds a block the caller has not given back */
    size_t got[2];
    int eof[2], status[2];
    int cur;                /* the block handed to the caller (or to be handed next) */
    int handed;             /* buf[cur] is the caller's */
    int stop;
};

static void *reader(void *arg)
{
    readahead *ra = arg;
    int w = 0;
    pthread_mutex_lock(&ra->lock);
    for (;;) {
        while (ra->full[w] && !ra->stop)
            pthread_cond_wait(&ra->changed, &ra->lock);
        if (ra->stop)
            break;
        pthread_mutex_unlock(&ra->lock);
        size_t got = 0;
        int eof = 0, st = gz_read(ra->gz, ra->buf[w], ra->block, &got, &eof);
        pthread_mutex_lock(&ra->lock);
        ra->got[w] = got;
        ra->eof[w] = eof;
        ra->status[w] = st;
        ra->full[w] = 1;
        pthread_cond_broadcast(&ra->changed);
        if (eof || st != 0)
            break; /* gz is not touched again: the caller may ask gz_error */
        w ^= 1;
    }
    pthread_mutex_unlock(&ra->lock);
    return NULL;
}

int readahead_start(gz_input *gz, unsigned char *buf[2], size_t block, readahead **out)
{
    readahead *ra = calloc(1, sizeof *ra);
    *out = NULL;
    if (!ra)
        return ENOMEM;
    ra->gz = gz;
    ra->buf[0] = buf[0];
    ra->buf[1] = buf[1];
    ra->block = block;
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    int err = pthread_create(&ra->thread, NULL, reader, ra);
    if (err) {
        pthread_cond_destroy(&ra->changed);
        pthread_mutex_destroy(&ra->lock);
        free(ra);
        return err;
    }
    *out = ra;
    return 0;
}

int readahead_next(readahead *ra, unsigned char **data, size_t *got, int *eof)
{
    pthread_mutex_lock(&ra->lock);
    int c = ra->cur;
    if (ra->handed && !ra->eof[c] && ra->status[c] == 0) { /* give it back, take the next */
        ra->full[c] = 0;
        c = ra->cur ^= 1;
        pthread_cond_broadcast(&ra->changed);
    }
    while (!ra->full[c])
        pthread_cond_wait(&ra->changed, &ra->lock);
    ra->handed = 1;
    *data = ra->buf[c];
    *got = ra->got[c];
    *eof = ra->eof[c];
    int st = ra->status[c];
    pthread_mutex_unlock(&ra->lock);
    return st;
}

void readahead_stop(readahead *ra)
{
    if (!ra)
        return;
    pthread_mutex_lock(&ra->lock);
    ra->stop = 1;
    pthread_cond_broadcast(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
    pthread_join(ra->thread, NULL);
    pthread_cond_destroy(&ra->changed);
    pthread_mutex_destroy(&ra->lock);
    free(ra);
}
