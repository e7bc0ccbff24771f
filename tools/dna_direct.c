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
        if (peek[i] != '\n' && peek[i] != '\r')
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
}

void dna_direct_start(dna_direct *d, cli_stream *stream, clm_match_cb on_match, void *ctx,
                      unsigned char *copy, size_t block_bytes)
{
    d->on = 1;
    d->stream = stream;
    d->on_match = on_match;
    d->ctx = ctx;
    d->copy = copy;
    d->block_bytes = block_bytes;
}

void dna_direct_free(dna_direct *d)
{
    ffw_free(&d->fw);
    free(d->puts);
    d->puts = NULL;
    d->puts_cap = 0;
}

int dna_direct_read(dna_direct *d, readahead *ra, unsigned char **block, size_t *got, int *eof,
                    int *gst)
{
    void *buf = NULL;
    size_t len = 0;
    int st = clm_stream_reserve(cli_stream_one(d->stream), d->block_bytes, &buf, &len);
    *got = 0;
    *gst = 0;
    if (st != CLM_OK)
        return st;
    double t0 = now_seconds();
    *block = buf;
    *gst = readahead_read(ra, buf, len, got, eof, &d->file);
    d->block = buf;
    d->read_s += now_seconds() - t0;
    d->blocks++;
    d->bytes += *got;
    return CLM_OK;
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

int dna_direct_commit(dna_direct *d, unsigned char *p, size_t n, uint64_t t_end)
{
    int st = CLM_OK;
    d->block = NULL;
    if (!d->separate) {
        st = clm_stream_commit(cli_stream_one(d->stream), n, n - (size_t)(t_end - d->text),
                               d->on_match, d->ctx);
    } else {
        memcpy(d->copy, p, n); /* the room ends with the first write */
        uint64_t text = 0;
        for (size_t i = 0; i < d->n_puts && st == CLM_OK; i++) {
            const direct_put *w = &d->puts[i];
            st = cli_stream_write(d->stream, w->at == SIZE_MAX ? fdev_separator : d->copy + w->at,
                                  w->n, d->on_match, d->ctx);
        }
        if (st == CLM_OK && (st = cli_stream_text_offset(d->stream, &text)) == CLM_OK &&
            text != t_end)
            st = CLM_E_INVALID;
    }
    d->text = t_end;
    d->n_puts = 0;
    d->separate = 0;
    return st;
}

void dna_direct_stats(const dna_direct *d, unsigned threads)
{
    if (!d->blocks)
        return;
    fprintf(stderr, "clmatch: FASTA read into the stream's staging: %" PRIu64 " block(s), "
            "%" PRIu64 " bytes; reading and indexing %.4f s (%.2f GB/s, %u threads), "
            "headers and records %.4f s, commits %.4f s\n", d->blocks, d->bytes, d->read_s,
            d->read_s > 0 ? (double)d->bytes / d->read_s / 1e9 : 0.0, threads, d->feed_s,
            d->commit_s);
}
