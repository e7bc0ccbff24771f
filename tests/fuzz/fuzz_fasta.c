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
#include "fuzz_trace.h"

/* Feed data in blocks (block_size; cut 0: all at once), then finish.
 * Returns the status; t gets the trace. */
static int read_all(const uint8_t *data, size_t size, fasta_mode mode, unsigned cut, trace *t)
{
    fasta_reader r;
    int st = FASTA_OK;
    size_t at = 0;
    fasta_init(&r, mode, INPUT_NAME);
    for (unsigned k = 0; at < size && st == FASTA_OK; k++) {
        size_t n = block_size(k, cut, size - at);
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
    if (st_whole != st_blocks || !same_trace(&whole, &blocks))
        abort(); /* the reader's answer depends on how the input was cut */
    free(whole.log);
    free(blocks.log);
    return 0;
}
