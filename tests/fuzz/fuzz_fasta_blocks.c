/*
 * libFuzzer target: the device path of --dna a block at a time (tools/fasta_blocks.c) against
 * the host path's FASTA reader (fasta.c). The first input byte picks the block size, the
 * separator (k + 1 bytes) and how the blocks are cut into the reading threads' pieces. Each
 * block goes to a copy the splitter may overwrite, is indexed piece by piece, and is fed as
 * dna.c feeds it (the leading line breaks of the input skipped). Besides the sanitizers it
 * checks:
 *  - the records (headers, and each one's text from its start to its end offset in a stream
 *    that drops '\n' and '\r', as the device does) are the reader's, with at least k + 1
 *    separator bytes between two records and only those;
 *  - the window's text (its checkpoints too) is the stream's, for lookups in increasing
 *    order, also across fdev_keep at each block's end; the stream's text offset after each
 *    block is the index's (as fblk_feed checks it);
 *  - the zero-copy path's file window (fasta_file_window.h), marked from the same
 *    checkpoints and read from a file of the input (its headers not overwritten), gives the
 *    stream's text inside every record, for lookups in increasing order.
 */
#include "fasta_blocks.h"
#include "fasta_file_window.h"
#include "fuzz_trace.h"
#include "fuzz_window.h"

#include "clmatch.h"

#include <stdio.h>
#include <unistd.h>

typedef struct {
    fake_stream f;
    uint64_t *start, *end; /* the records' text offsets */
    char **header;
    size_t *header_len;
    size_t n, n_cap;
    int open;            /* the last record has not ended */
    trace t;             /* the records, logged at the end */
} block_run;

static int rec_start(void *ctx, const char *header, size_t len, uint64_t text)
{
    block_run *d = ctx;
    if (d->open || (d->n && text < d->end[d->n - 1]))
        abort();
    if (d->n == d->n_cap) {
        d->n_cap = d->n_cap ? 2 * d->n_cap : 16;
        d->start = realloc(d->start, d->n_cap * sizeof *d->start);
        d->end = realloc(d->end, d->n_cap * sizeof *d->end);
        d->header = realloc(d->header, d->n_cap * sizeof *d->header);
        d->header_len = realloc(d->header_len, d->n_cap * sizeof *d->header_len);
        if (!d->start || !d->end || !d->header || !d->header_len)
            abort();
    }
    d->start[d->n] = text;
    d->end[d->n] = text;
    if (!(d->header[d->n] = malloc(len + 1)))
        abort();
    memcpy(d->header[d->n], header, len);
    d->header_len[d->n] = len;
    d->n++;
    d->open = 1;
    return 0;
}

static int rec_end(void *ctx, uint64_t text)
{
    block_run *d = ctx;
    if (!d->open || text < d->start[d->n - 1])
        abort();
    d->end[d->n - 1] = text;
    d->open = 0;
    return 0;
}

static const fblk_callbacks block_callbacks = {rec_start, rec_end};

/* fblk_sink into the window (as fblk_feed's) that also marks the file window, as
 * dna_direct_put does: a checkpoint's file offset is the block's plus its place in it. */
typedef struct {
    block_run *d;
    ffw_window fw;
    const unsigned char *block;
    uint64_t file;
} both_sink;

static int both_put(void *ctx, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                    size_t n_cp)
{
    both_sink *b = ctx;
    for (size_t i = 0; i < n_cp; i++)
        if (ffw_mark_add(&b->fw, cp[i].text, b->file + (uint64_t)(cp[i].at - b->block)) != 0)
            abort();
    return p ? fdev_put_span(&b->d->f.w, p, n, cp, n_cp, fake_write, &b->d->f)
             : fdev_put(&b->d->f.w, fdev_separator, n, fake_write, &b->d->f);
}

/* Lookups inside each record, in increasing order, through the file window. */
static void check_file_window(block_run *d, ffw_window *fw)
{
    for (size_t i = 0; i < d->n; i++)
        for (uint64_t s = d->start[i]; s < d->end[i]; s += 1 + fake_next(&d->f) % 700) {
            uint64_t e = s + 1 + fake_next(&d->f) % 40;
            if (e > d->end[i])
                e = d->end[i];
            const unsigned char *got = ffw_text(fw, s, e);
            if (!got || memcmp(got, d->f.text + s, (size_t)(e - s)) != 0)
                abort(); /* the file window's text is not the stream's */
        }
}

static int host_start(void *ctx, const char *header, size_t len, uint64_t line)
{
    (void)line;
    return on_start(ctx, header, len, 1);
}

static const fasta_callbacks host_callbacks = {host_start, on_sequence, on_end};

/* The records as the reader logs them: header, its text, end; the separators checked. */
static void log_records(block_run *d, unsigned sep)
{
    for (size_t i = 0; i < d->n; i++) {
        on_start(&d->t, d->header[i], d->header_len[i], 1);
        if (d->end[i] > d->start[i])
            on_sequence(&d->t, d->f.text + d->start[i], (size_t)(d->end[i] - d->start[i]));
        on_end(&d->t);
        uint64_t gap_from = i ? d->end[i - 1] : 0, gap_to = d->start[i];
        if (i && gap_to - gap_from < sep)
            abort(); /* fewer than k + 1 separator bytes between two records */
        for (uint64_t j = gap_from; j < gap_to; j++)
            if (d->f.text[j] != '#')
                abort();
        free(d->header[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const size_t cut = 1 + (data[0] & 7) * 1500; /* blocks of 1 to 10501 bytes */
    const unsigned sep = 1 + ((data[0] >> 3) & 3);  /* k = 0 to 3 */
    const unsigned pieces = 1 + (data[0] >> 5);     /* 1 to 8 pieces a block */
    data++;
    size--;
    if (cut == 1 && size > 600)
        size = 600; /* a block a byte: every byte a block's end, enough of them */
    size_t first;
    if (!fake_takes(data, size, &first))
        return 0;
    static fblk_index ix;
    trace host = {0};
    block_run d;
    memset(&d, 0, sizeof d);
    d.f.rng = size;
    fasta_reader r;
    fblk_split s;
    fasta_init(&r, FASTA_DETECT, INPUT_NAME);
    fblk_init(&s, sep);
    fdev_init(&d.f.w);
    unsigned char *bufs[2] = {malloc(cut), malloc(cut)};
    static FILE *file; /* the input as a file, for the file window */
    if (!file)
        file = tmpfile();
    if (!bufs[0] || !bufs[1] || !file || ftruncate(fileno(file), 0) != 0 ||
        pwrite(fileno(file), data, size, 0) != (ssize_t)size)
        abort();
    both_sink both = {&d, {0}, NULL, 0};
    ffw_init(&both.fw, fileno(file));
    const fblk_sink sink = {both_put, &both};
    int st_host = FASTA_OK, st = CLM_OK, b = 0;
    for (size_t at = 0; at < size; at += cut, b ^= 1) {
        size_t n = size - at < cut ? size - at : cut;
        if (st_host == FASTA_OK)
            st_host = fasta_feed(&r, data + at, n, &host_callbacks, &host);
        if (at + n <= first)
            continue; /* line breaks alone: dna.c opens no stream for them */
        memcpy(bufs[b], data + at, n);
        size_t a = 0; /* pieces at random places, some empty */
        for (unsigned i = 0; i < pieces; i++) {
            size_t e = i + 1 == pieces ? n : a + fake_next(&d.f) % (n - a + 1), c = a;
            do { /* in parts, as the reading threads do */
                size_t k = c + fake_next(&d.f) % (e - c + 1);
                fblk_index_piece(&ix, b, i, bufs[b] + c, k - c, c, a);
                c = k;
            } while (c < e);
            a = e;
        }
        size_t from = at < first ? first - at : 0;
        uint64_t t_end = 0;
        both.block = bufs[b];
        both.file = at;
        if (st == CLM_OK)
            st = fblk_feed_to(&s, bufs[b], n, from, &ix, b, pieces, d.f.w.text_end, &sink,
                              &block_callbacks, &d, &t_end);
        if (st != CLM_OK || d.f.w.text_end != t_end)
            abort(); /* the index and the stream disagree, or out of memory */
        fake_block_end(&d.f, 32);
    }
    if (st_host == FASTA_OK)
        st_host = fasta_finish(&r, &host_callbacks, &host);
    if (fblk_finish(&s, &d.f.w, fake_write, &d.f, &block_callbacks, &d) != CLM_OK)
        abort();
    fake_block_end(&d.f, 32);
    check_file_window(&d, &both.fw);
    ffw_free(&both.fw);
    log_records(&d, sep);
    if (st_host == FASTA_OK && !same_trace(&host, &d.t))
        abort(); /* the block path's records are not the host path's */
    fasta_free(&r);
    fblk_free(&s);
    fake_free(&d.f);
    free(bufs[0]);
    free(bufs[1]);
    free(host.log);
    free(d.t.log);
    free(d.start);
    free(d.end);
    free(d.header);
    free(d.header_len);
    return 0;
}
