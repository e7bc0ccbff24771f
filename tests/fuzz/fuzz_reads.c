/*
 * libFuzzer target: DNA mode's input readers as dna.c drives them, tools/reads.c choosing
 * between the FASTA reader (tools/fasta.c) and the FASTQ reader (tools/fastq.c). The first
 * input byte picks the format (detect, FASTA, FASTQ) and how the rest is cut into blocks;
 * the rest is the file. Besides the sanitizers it checks:
 *  - fed whole or in blocks of 1 to 16 bytes, the readers say the same: the same records
 *    (header, line number, sequence), the same status and the same error message (FASTA's
 *    up to its first quote: fasta.c quotes what the block holds of the offending line);
 *  - callbacks come in order (start, sequences, end), sequence pieces without line breaks
 *    or CRs, headers without a newline or trailing CR; a format error says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reads.h"

typedef struct {
    unsigned char *log;
    size_t len, cap;
    int in_record;
} trace;

static void put(trace *t, const void *p, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n)
            cap *= 2;
        unsigned char *q = realloc(t->log, cap);
        if (!q)
            abort();
        t->log = q;
        t->cap = cap;
    }
    memcpy(t->log + t->len, p, n);
    t->len += n;
}

static int on_start(void *ctx, const char *header, size_t len, uint64_t line)
{
    trace *t = ctx;
    if (t->in_record || memchr(header, '\n', len) || (len && header[len - 1] == '\r'))
        abort();
    t->in_record = 1;
    put(t, "S", 1);
    put(t, &len, sizeof len);
    put(t, &line, sizeof line);
    put(t, header, len);
    return 0;
}

/* Sequence bytes are logged as they come: how they were cut does not show. */
static int on_sequence(void *ctx, const unsigned char *seq, size_t n)
{
    trace *t = ctx;
    if (!t->in_record || n == 0 || memchr(seq, '\n', n) || memchr(seq, '\r', n))
        abort();
    put(t, seq, n);
    return 0;
}

static int on_end(void *ctx)
{
    trace *t = ctx;
    if (!t->in_record)
        abort();
    t->in_record = 0;
    put(t, "E", 1);
    return 0;
}

static const fasta_callbacks callbacks = {on_start, on_sequence, on_end};

/* Feed data in blocks (cut 0: all at once), then finish; the trace ends with the status and
 * the error message. */
static void read_all(const uint8_t *data, size_t size, reads_format format, unsigned cut,
                     trace *t)
{
    reads_reader r;
    int st = FASTA_OK;
    size_t at = 0;
    reads_init(&r, format, "input");
    for (unsigned k = 0; at < size && st == FASTA_OK; k++) {
        size_t n = cut ? 1 + (k * cut + k / 3) % 16 : size;
        if (n > size - at)
            n = size - at;
        st = reads_feed(&r, data + at, n, &callbacks, t);
        at += n;
    }
    if (st == FASTA_OK)
        st = reads_finish(&r, &callbacks, t);
    if (st == FASTA_OK && t->in_record)
        abort(); /* finished with a record still open */
    if (st == FASTA_ERR_FORMAT && !reads_error(&r)[0])
        abort(); /* a format error says why */
    put(t, &st, sizeof st);
    if (st == FASTA_ERR_FORMAT) {
        /* FASTQ's whole message; FASTA's up to its first quote: fasta.c quotes what the
         * block at hand holds of the offending line. */
        const char *msg = reads_error(&r);
        put(t, msg, r.fastq ? strlen(msg) : strcspn(msg, "'"));
    }
    reads_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    reads_format format = (reads_format)(data[0] % 3);
    unsigned cut = 1 + data[0] / 3; /* 1 to 86 */
    trace whole = {0}, blocks = {0};
    read_all(data + 1, size - 1, format, 0, &whole);
    read_all(data + 1, size - 1, format, cut, &blocks);
    if (whole.len != blocks.len || memcmp(whole.log, blocks.log, whole.len) != 0)
        abort(); /* the answer depends on how the input was cut */
    free(whole.log);
    free(blocks.log);
    return 0;
}
