/* gzip or plain input: see gz.h. */
#include "gz.h"

#include "cli_common.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZ_IN_BYTES ((size_t)256 << 10) /* compressed bytes read at a time */

struct gz_input {
    int fd;
    int gzip;         /* inflate; else pass through */
    int in_eof;       /* fd is at its end */
    int member_done;  /* the last gzip member ended (another may follow) */
    z_stream z;
    unsigned char *in;
    size_t in_len, in_pos; /* plain input: the bytes read to recognize gzip, not yet passed */
    uint64_t in_total;     /* bytes read from fd */
    uint64_t member_start; /* the compressed offset of the current member */
    char error[256];
};

int gz_open(int fd, gz_input **out)
{
    gz_input *g = calloc(1, sizeof *g);
    int err;
    *out = NULL;
    if (!g || !(g->in = malloc(GZ_IN_BYTES))) {
        free(g);
        return ENOMEM;
    }
    g->fd = fd;
    if ((err = read_block(fd, g->in, 2, &g->in_len, &g->in_eof)) != 0) {
        gz_close(g);
        return err;
    }
    g->in_total = g->in_len;
    g->gzip = g->in_len == 2 && g->in[0] == 0x1f && g->in[1] == 0x8b;
    if (g->gzip) {
        /* 16 + MAX_WBITS: gzip wrapper only (a zlib or raw deflate stream is corrupt here) */
        if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
            gz_close(g);
            return ENOMEM;
        }
        g->z.next_in = g->in;
        g->z.avail_in = (uInt)g->in_len;
    }
    *out = g;
    return 0;
}

const char *gz_error(const gz_input *g)
{
    return g->error;
}

void gz_close(gz_input *g)
{
    if (!g)
        return;
    if (g->gzip)
        inflateEnd(&g->z);
    free(g->in);
    free(g);
}

static int plain_read(gz_input *g, unsigned char *buf, size_t want, size_t *got, int *eof)
{
    size_t n = g->in_len - g->in_pos, more = 0;
    int err;
    if (n > want)
        n = want;
    memcpy(buf, g->in + g->in_pos, n);
    g->in_pos += n;
    *got = n;
    *eof = 0;
    if (n == want)
        return 0;
    if (g->in_eof) {
        *eof = 1;
        return 0;
    }
    if ((err = read_block(g->fd, buf + n, want - n, &more, eof)) != 0) {
        snprintf(g->error, sizeof g->error, "%s", strerror(err));
        return -1;
    }
    *got += more;
    return 0;
}

int gz_plain_fd(const gz_input *g, int *fd)
{
    *fd = g->fd;
    return g->gzip ? -1 : 0;
}

int gz_plain_offset(const gz_input *g, uint64_t *off)
{
    off_t at = g->gzip ? -1 : lseek(g->fd, 0, SEEK_CUR);
    size_t held = g->in_len - g->in_pos;
    if (at < 0 || (uint64_t)at < held)
        return -1;
    *off = (uint64_t)at - held;
    return 0;
}

int gz_plain_take(gz_input *g, unsigned char *buf, size_t cap, size_t *got)
{
    *got = 0;
    if (g->gzip)
        return -1;
    size_t n = g->in_len - g->in_pos < cap ? g->in_len - g->in_pos : cap;
    memcpy(buf, g->in + g->in_pos, n);
    g->in_pos += n;
    *got = n;
    return 0;
}

/* The offset of the next compressed byte not yet inflated. */
static uint64_t in_offset(const gz_input *g)
{
    return g->in_total - g->z.avail_in;
}

int gz_read(gz_input *g, unsigned char *buf, size_t want, size_t *got, int *eof)
{
    if (!g->gzip)
        return plain_read(g, buf, want, got, eof);
    *got = 0;
    *eof = 0;
    while (*got < want) {
        size_t room = want - *got;
        int zst;
        if (g->z.avail_in == 0 && !g->in_eof) {
            size_t n;
            int err = read_block(g->fd, g->in, GZ_IN_BYTES, &n, &g->in_eof);
            if (err) {
                snprintf(g->error, sizeof g->error, "%s", strerror(err));
                return -1;
            }
            g->in_total += n;
            g->z.next_in = g->in;
            g->z.avail_in = (uInt)n;
        }
        if (g->z.avail_in == 0) {
            if (g->member_done) {
                *eof = 1;
                return 0;
            }
            snprintf(g->error, sizeof g->error,
                     "truncated gzip data: the input ends inside a gzip member (after %" PRIu64
                     " compressed bytes)",
                     g->in_total);
            return -1;
        }
        if (g->member_done) { /* another member follows */
            inflateReset(&g->z);
            g->member_done = 0;
            g->member_start = in_offset(g);
        }
        g->z.next_out = buf + *got;
        g->z.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        zst = inflate(&g->z, Z_NO_FLUSH);
        *got = (size_t)(g->z.next_out - buf);
        if (zst == Z_STREAM_END) {
            g->member_done = 1;
        } else if (zst != Z_OK && zst != Z_BUF_ERROR) {
            snprintf(g->error, sizeof g->error,
                     "corrupt gzip data in the member at compressed byte %" PRIu64
                     " (near byte %" PRIu64 "): %s",
                     g->member_start, in_offset(g), g->z.msg ? g->z.msg : "inflate failed");
            return -1;
        }
    }
    return 0;
}
