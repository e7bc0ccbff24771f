/*
 * libFuzzer target: DNA mode's input readers as dna.c drives them, tools/reads.c choosing
 * between the FASTA reader (tools/fasta.c) and the FASTQ reader (tools/fastq.c). The first
 * input byte picks the format (detect, FASTA, FASTQ) and how the rest is cut into blocks;
 * the rest is the file. Besides the sanitizers it checks:
 *  - fed whole or in blocks of 1 to 16 bytes, the readers say the same: the same records
 *    (header, line number, sequence), the same status and the same error message (FASTA's
 *    up to its first quote: fasta.c quotes what the block holds of the offending line);
 *  - callbacks come in order (start, sequences, end), sequence pieces without line breaks
 *    or CRs, headers without a newline or trailing CR, a raw record named after the input
 *    at line 0 (fuzz_trace.h); a format error says why.
 */
#include "fuzz_trace.h"
#include "reads.h"

/* Feed data in blocks (cut 0: all at once), then finish; the trace ends with the status and
 * the error message. */
static void read_all(const uint8_t *data, size_t size, reads_format format, unsigned cut,
                     trace *t)
{
    reads_reader r;
    int st = FASTA_OK;
    size_t at = 0;
    reads_init(&r, format, INPUT_NAME);
    for (unsigned k = 0; at < size && st == FASTA_OK; k++) {
        size_t n = block_size(k, cut, size - at);
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
    if (!same_trace(&whole, &blocks))
        abort(); /* the answer depends on how the input was cut */
    free(whole.log);
    free(blocks.log);
    return 0;
}
