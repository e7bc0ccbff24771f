/*
 * libFuzzer target: the device path of --dna (tools/fasta_device.c) against the host path.
 * The first input byte picks how the rest (the file) is cut into blocks and how much text
 * is kept between blocks. Besides the sanitizers it checks:
 *  - fasta_split over the blocks, its raw sequence pieces with '\n' and '\r' dropped (the
 *    device's compaction), logs the same records as the FASTA reader (fasta.c) fed the same
 *    way, for any input whose first byte other than a line break is '>';
 *  - fdev_window: what is put into it (large pieces in place, small ones batched; a write
 *    function stands in for the stream and counts text as the library does) gives, for
 *    lookups in increasing order, the text of the compacted stream, also across fdev_keep at
 *    each block's end, and its text offsets are the stream's.
 */
#include "fasta_device.h"
#include "fuzz_trace.h"
#include "fuzz_window.h"

#include "clmatch.h"

typedef struct {
    trace t;
    fake_stream f;
} device_run;

static void put_bytes(device_run *d, const unsigned char *p, size_t n)
{
    if (fdev_put(&d->f.w, p, n, fake_write, &d->f) != CLM_OK)
        abort();
}

static int dev_start(void *ctx, const char *header, size_t len, uint64_t line)
{
    device_run *d = ctx;
    if (line != 0)
        abort();
    put_bytes(d, (const unsigned char *)"###", 3); /* a separator, as dna.c's */
    return on_start(&d->t, header, len, 1);
}

static int dev_sequence(void *ctx, const unsigned char *seq, size_t n)
{
    device_run *d = ctx;
    unsigned char *buf = malloc(n);
    size_t k = 0;
    if (!buf)
        abort();
    put_bytes(d, seq, n);
    for (size_t i = 0; i < n; i++)
        if (!fake_is_break(seq[i]))
            buf[k++] = seq[i];
    if (k)
        on_sequence(&d->t, buf, k);
    free(buf);
    return 0;
}

static int dev_end(void *ctx)
{
    device_run *d = ctx;
    return on_end(&d->t);
}

static const fasta_callbacks dev_callbacks = {dev_start, dev_sequence, dev_end};

static int host_start(void *ctx, const char *header, size_t len, uint64_t line)
{
    (void)line;
    return on_start(ctx, header, len, 1);
}

static const fasta_callbacks host_callbacks = {host_start, on_sequence, on_end};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const unsigned cut = 1 + (data[0] & 7) * 1500; /* blocks of 1 to 10501 bytes */
    const unsigned hold = (data[0] >> 3) * 2;     /* 0 to 62 */
    data++;
    size--;
    size_t first;
    if (!fake_takes(data, size, &first))
        return 0;
    trace host = {0};
    device_run d;
    memset(&d, 0, sizeof d);
    d.f.rng = size;
    fasta_reader r;
    fasta_split s;
    fasta_init(&r, FASTA_DETECT, INPUT_NAME);
    fasta_split_init(&s);
    fdev_init(&d.f.w);
    int st_host = FASTA_OK, st_dev = FASTA_OK;
    for (size_t at = 0; at < size;) {
        size_t n = size - at < cut ? size - at : cut;
        if (st_host == FASTA_OK)
            st_host = fasta_feed(&r, data + at, n, &host_callbacks, &host);
        /* the CLI hands the splitter the input from its first '>' */
        size_t from = at < first ? (first - at < n ? first - at : n) : 0;
        if (st_dev == FASTA_OK)
            st_dev = fasta_split_feed(&s, data + at + from, n - from, &dev_callbacks, &d);
        fake_block_end(&d.f, hold);
        at += n;
    }
    if (st_host == FASTA_OK)
        st_host = fasta_finish(&r, &host_callbacks, &host);
    if (st_dev == FASTA_OK)
        st_dev = fasta_split_finish(&s, &dev_callbacks, &d);
    fake_block_end(&d.f, hold);
    if (st_host != st_dev || !same_trace(&host, &d.t))
        abort(); /* the device path's records are not the host path's */
    fasta_free(&r);
    fasta_split_free(&s);
    fake_free(&d.f);
    free(host.log);
    free(d.t.log);
    return 0;
}
