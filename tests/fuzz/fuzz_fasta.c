/*
 * libFuzzer target: the streaming FASTA reader (tools/fasta.c). The first input byte picks
 * the mode (FASTA_DETECT or FASTA_FORCE) and how the rest is cut into blocks; the rest is
 * the file. Besides the sanitizers it checks:
 *  - fed whole or in blocks of 1 to 16 bytes, the reader says the same: the same records
 *    (header, line number, sequence) and the same status;
 *  - callbacks come in order (start, sequences, end) and hand what fasta.h promises:
 *    sequence pieces without line breaks or CRs, headers without a newline or trailing CR,
 *    a raw record named after the input at line 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fasta.h"

#define INPUT_NAME "input"

/* What the callbacks saw, as one byte string: 'S' header length, line, header; 'Q' then
 * the sequence bytes of a run of sequence callbacks (so that how the pieces were cut does
 * not show); 'E'. */
typedef struct {
    unsigned char *log;
    size_t len, cap;
    int in_record, in_sequence;
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
    if (line == 0 && (len != strlen(INPUT_NAME) || memcmp(header, INPUT_NAME, len) != 0))
        abort(); /* line 0 is the raw record, named after the input */
    t->in_record = 1;
    t->in_sequence = 0;
    put(t, "S", 1);
    put(t, &len, sizeof len);
    put(t, &line, sizeof line);
    put(t, header, len);
    return 0;
}

static int on_sequence(void *ctx, const unsigned char *seq, size_t n)
{
    trace *t = ctx;
    if (!t->in_record || n == 0 || memchr(seq, '\n', n) || memchr(seq, '\r', n))
        abort();
    if (!t->in_sequence)
        put(t, "Q", 1);
    t->in_sequence = 1;
    put(t, seq, n);
    return 0;
}

static int on_end(void *ctx)
{
    trace *t = ctx;
    if (!t->in_record)
        abort();
    t->in_record = t->in_sequence = 0;
    put(t, "E", 1);
    return 0;
}

static const fasta_callbacks callbacks = {on_start, on_sequence, on_end};

/* Feed data in blocks (block(k) bytes for the k-th one; 0: all at once), then finish.
 * Returns the status; t gets the trace. */
static int read_all(const uint8_t *data, size_t size, fasta_mode mode, unsigned cut, trace *t)
{
    fasta_reader r;
    int st = FASTA_OK;
    size_t at = 0;
    fasta_init(&r, mode, INPUT_NAME);
    for (unsigned k = 0; at < size && st == FASTA_OK; k++) {
        size_t n = cut ? 1 + (k * cut + k / 3) % 16 : size; /* varied sizes, 1 to 16 */
        if (n > size - at)
            n = size - at;
        st = fasta_feed(&r, data + at, n, &callbacks, t);
        at += n;
    }
    if (st == FASTA_OK)
        st = fasta_finish(&r, &callbacks, t);
    if (st == FASTA_OK && t->in_record)
        abort(); /* finished with a record still open */
    if (st == FASTA_ERR_FORMAT && !r.error[0])
        abort(); /* a format error says why */
    fasta_free(&r);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    fasta_mode mode = data[0] & 1 ? FASTA_FORCE : FASTA_DETECT;
    unsigned cut = 1 + (data[0] >> 1); /* 1 to 128 */
    trace whole = {0}, blocks = {0};
    int st_whole = read_all(data + 1, size - 1, mode, 0, &whole);
    int st_blocks = read_all(data + 1, size - 1, mode, cut, &blocks);
    if (st_whole != st_blocks || whole.len != blocks.len ||
        (whole.len && memcmp(whole.log, blocks.log, whole.len) != 0))
        abort(); /* the reader's answer depends on how the input was cut */
    free(whole.log);
    free(blocks.log);
    return 0;
}
