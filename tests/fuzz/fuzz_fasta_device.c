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

#include "clmatch.h"

static int is_break(unsigned char c)
{
    return c == '\n' || c == '\r';
}

typedef struct {
    trace t;
    fdev_window w;
    unsigned char *text; /* the fake stream's text: every byte written but line breaks */
    size_t len, cap;
    uint64_t kept;       /* the last fdev_keep's `from`: lookups start there or later */
    uint64_t rng;
} device_run;

/* The stream, as the library counts it. */
static int fake_write(void *ctx, const unsigned char *p, size_t n, uint64_t *text)
{
    device_run *d = ctx;
    if (d->len + n > d->cap) {
        size_t cap = d->cap ? d->cap : 256;
        while (cap < d->len + n)
            cap *= 2;
        unsigned char *q = realloc(d->text, cap);
        if (!q)
            abort();
        d->text = q;
        d->cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        if (!is_break(p[i]))
            d->text[d->len++] = p[i];
    *text = d->len;
    return CLM_OK;
}

static void put_bytes(device_run *d, const unsigned char *p, size_t n)
{
    if (fdev_put(&d->w, p, n, fake_write, d) != CLM_OK)
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
        if (!is_break(seq[i]))
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

static uint64_t next(device_run *d)
{
    d->rng = d->rng * 6364136223846793005ull + 1442695040888963407ull;
    return d->rng >> 33;
}

/* A block's end, as dna.c's push_window: everything written, lookups in increasing order of
 * start checked against the stream's text, then all but the last `hold` text bytes let go. */
static void block_end(device_run *d, unsigned hold)
{
    if (fdev_flush(&d->w, fake_write, d) != CLM_OK || d->w.text_end != d->len)
        abort();
    uint64_t s = d->kept;
    while (s < d->len) {
        uint64_t e = s + 1 + next(d) % 40;
        if (e > d->len)
            e = d->len;
        const unsigned char *got = fdev_text(&d->w, s, e);
        if (!got || memcmp(got, d->text + s, (size_t)(e - s)) != 0)
            abort(); /* the window's text is not the stream's */
        s += next(d) % 3000;
    }
    d->kept = d->len > hold ? d->len - hold : 0;
    if (fdev_keep(&d->w, d->kept) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const unsigned cut = 1 + (data[0] & 7) * 1500; /* blocks of 1 to 10501 bytes */
    const unsigned hold = (data[0] >> 3) * 2;     /* 0 to 62 */
    data++;
    size--;
    size_t first = 0;
    while (first < size && is_break(data[first]))
        first++;
    if (first == size || data[first] != '>')
        return 0; /* not what the device path takes */
    trace host = {0};
    device_run d;
    memset(&d, 0, sizeof d);
    d.rng = size;
    fasta_reader r;
    fasta_split s;
    fasta_init(&r, FASTA_DETECT, INPUT_NAME);
    fasta_split_init(&s);
    fdev_init(&d.w);
    int st_host = FASTA_OK, st_dev = FASTA_OK;
    for (size_t at = 0; at < size;) {
        size_t n = size - at < cut ? size - at : cut;
        if (st_host == FASTA_OK)
            st_host = fasta_feed(&r, data + at, n, &host_callbacks, &host);
        /* the CLI hands the splitter the input from its first '>' */
        size_t from = at < first ? (first - at < n ? first - at : n) : 0;
        if (st_dev == FASTA_OK)
            st_dev = fasta_split_feed(&s, data + at + from, n - from, &dev_callbacks, &d);
        block_end(&d, hold);
        at += n;
    }
    if (st_host == FASTA_OK)
        st_host = fasta_finish(&r, &host_callbacks, &host);
    if (st_dev == FASTA_OK)
        st_dev = fasta_split_finish(&s, &dev_callbacks, &d);
    block_end(&d, hold);
    if (st_host != st_dev || !same_trace(&host, &d.t))
        abort(); /* the device path's records are not the host path's */
    fasta_free(&r);
    fasta_split_free(&s);
    fdev_free(&d.w);
    free(host.log);
    free(d.t.log);
    free(d.text);
    return 0;
}
