/* clmatch --dna's device path reading into the stream's staging: see dna_direct.h. */
#if !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE)
#define _XOPEN_SOURCE 700 /* pread */
#endif
#include "dna_direct.h"

#include "cli_common.h"
#include "dna_patterns.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dna_direct_fasta(gz_input *gz, const struct stat *sb)
{
    uint64_t off;
    int fd;
    unsigned char peek[4096];
    if (!S_ISREG(sb->st_mode) || gz_plain_fd(gz, &fd) != 0 || gz_plain_offset(gz, &off) != 0)
        return 0;
    ssize_t n = pread(fd, peek, sizeof peek, (off_t)off);
    for (ssize_t i = 0; i < n; i++)
        if (!is_line_break(peek[i]))
            return peek[i] == '>';
    return 0;
}

void dna_direct_reset(dna_direct *d, int fd)
{
    ffw_free(&d->fw);
    ffw_init(&d->fw, fd);
    d->on = 0;
    d->stream = NULL;
    d->text = d->file = 0;
    d->block = NULL;
    d->n_puts = 0;
    d->separate = 0;
    d->leading = 1;
}

void dna_direct_start(dna_direct *d, cli_stream *stream, clm_match_cb on_match, void *ctx)
{
    d->on = 1;
    d->stream = stream;
    d->on_match = on_match;
    d->ctx = ctx;
}

void dna_direct_free(dna_direct *d)
{
    ffw_free(&d->fw);
    free(d->puts);
    free(d->copy);
    d->puts = NULL;
    d->copy = NULL;
    d->puts_cap = d->copy_cap = 0;
}

int dna_direct_put(void *ctx, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                   size_t n_cp)
{
    dna_direct *d = ctx;
    for (size_t i = 0; i < n_cp; i++)
        if (ffw_mark_add(&d->fw, cp[i].text, d->file + (uint64_t)(cp[i].at - d->block)) != 0)
            return CLM_E_NOMEM;
    if (!d->block) {
        int st = cli_stream_write(d->stream, fdev_separator, n, d->on_match, d->ctx);
        d->text += n;
        return st;
    }
    if (dna_grow((void **)&d->puts, &d->puts_cap, d->n_puts + 1, sizeof *d->puts) != 0)
        return CLM_E_NOMEM;
    d->puts[d->n_puts].at = p ? (size_t)(p - d->block) : SIZE_MAX;
    d->puts[d->n_puts].n = n;
    d->n_puts++;
    d->separate |= !p;
    return CLM_OK;
}

_Static_assert(CLM_FD_MAX_PIECES <= READAHEAD_MAX_PIECES && CLM_FD_MAX_BLOCKS <= FBLK_BLOCKS,
               "the index has room for every piece of every block being read");

/* clm_fd_hooks' part: the index of the block's pieces. */
static void direct_part(void *ctx, uint64_t block, unsigned piece, const unsigned char *p,
                        size_t n, size_t at, size_t piece_at)
{
    const dna_direct *d = ctx;
    fblk_index_piece(d->feed.ix, (int)(block % CLM_FD_MAX_BLOCKS), piece, p, n, at, piece_at);
}

/* clm_fd_hooks' block: what is settled printed, the block's headers overwritten and its
 * records noted, and its line breaks by the index; a block that needs a separator of its own
 * copied and declined. */
static int direct_block(void *ctx, uint64_t block, unsigned pieces, unsigned char *p, size_t n,
                        uint64_t offset, uint64_t settled, size_t *breaks)
{
    dna_direct *d = ctx;
    const fblk_sink sink = {dna_direct_put, d};
    double t0 = now_seconds();
    uint64_t t_end = 0;
    size_t skip = 0;
    d->feed.settle(d->feed.cb_ctx, settled);
    ffw_forget(&d->fw, settled);
    while (d->leading && skip < n && is_line_break(p[skip]))
        skip++;
    d->file = offset;
    d->block = p;
    d->n_puts = 0;
    d->separate = 0;
    int st = fblk_feed_to(d->feed.blocks, p, n, skip, d->feed.ix, (int)(block % CLM_FD_MAX_BLOCKS), pieces,
                          d->text, &sink, d->feed.cb, d->feed.cb_ctx, &t_end);
    d->block = NULL;
    if (st == CLM_OK && d->leading && skip == n)
        d->feed.blocks->at_line_start = 1; /* line breaks alone: the next byte starts a line */
    d->leading = d->leading && skip == n;
    if (st == CLM_OK && !d->separate) {
        *breaks = n - (size_t)(t_end - d->text);
        d->text = t_end;
    } else if (st == CLM_OK) { /* its puts are written after the call, from a copy */
        if (dna_grow((void **)&d->copy, &d->copy_cap, n, 1) != 0) {
            st = CLM_E_NOMEM;
        } else {
            memcpy(d->copy, p, n);
            d->declined = n;
            d->declined_end = t_end;
        }
    }
    d->blocks++;
    d->bytes += n;
    d->feed_s += now_seconds() - t0;
    if (st == CLM_OK)
        return d->declined ? CLM_STOPPED : CLM_OK;
    d->status = st; /* the library fails the stream; this is the status to report */
    return CLM_E_INVALID;
}

/* The declined block's puts, from its copy. */
static int write_declined(dna_direct *d)
{
    uint64_t text = 0;
    int st = CLM_OK;
    for (size_t i = 0; i < d->n_puts && st == CLM_OK; i++) {
        const direct_put *w = &d->puts[i];
        st = cli_stream_write(d->stream, w->at == SIZE_MAX ? fdev_separator : d->copy + w->at,
                              w->n, d->on_match, d->ctx);
    }
    if (st == CLM_OK && (st = cli_stream_text_offset(d->stream, &text)) == CLM_OK &&
        text != d->declined_end)
        st = CLM_E_INVALID; /* the stream counted other text than the index */
    d->text = d->declined_end;
    d->n_puts = 0;
    return st;
}

int dna_direct_file(dna_direct *d, uint64_t from, const direct_feed *feed, uint64_t *bytes)
{
    const clm_fd_hooks hooks = {direct_part, direct_block, d};
    const fblk_sink sink = {dna_direct_put, d};
    clm_stream *st = cli_stream_one(d->stream);
    uint64_t pos = from;
    int rc;
    d->feed = *feed;
    d->status = CLM_OK;
    *bytes = 0;
    for (;;) {
        uint64_t done = 0;
        double t0 = now_seconds();
        d->declined = 0;
        rc = clm_stream_write_fd(st, d->fw.fd, pos, CLM_FD_TO_END, &hooks, d->on_match, d->ctx,
                                 &done);
        d->call_s += now_seconds() - t0;
        pos += done;
        *bytes += done;
        if (d->status != CLM_OK)
            return d->status;
        if (rc != CLM_OK || !d->declined)
            break;
        t0 = now_seconds();
        rc = write_declined(d);
        d->write_s += now_seconds() - t0;
        if (rc != CLM_OK)
            return rc;
        pos += d->declined;
        *bytes += d->declined;
    }
    return rc == CLM_OK ? fblk_finish_to(feed->blocks, d->text, &sink, feed->cb, feed->cb_ctx)
                        : rc;
}

void dna_direct_stats(const dna_direct *d)
{
    if (!d->blocks)
        return;
    fprintf(stderr, "clmatch: FASTA read into the stream's staging: %" PRIu64 " block(s), "
            "%" PRIu64 " bytes; clm_stream_write_fd %.4f s (%.2f GB/s), "
            "of it headers and records %.4f s; blocks written instead %.4f s\n", d->blocks,
            d->bytes, d->call_s, d->call_s > 0 ? (double)d->bytes / d->call_s / 1e9 : 0.0,
            d->feed_s, d->write_s);
}
