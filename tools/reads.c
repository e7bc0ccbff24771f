/* FASTA or FASTQ: see reads.h. */
#include "reads.h"

#include <string.h>

void reads_init(reads_reader *r, reads_format format, const char *name)
{
    memset(r, 0, sizeof *r);
    r->format = format;
    r->name = name;
}

/* The first byte other than a line break is c: choose the reader, counting the lines
 * skipped so that its messages name the right line. */
static void decide(reads_reader *r, unsigned char c)
{
    r->decided = 1;
    r->fastq = r->format == READS_FASTQ || (r->format == READS_DETECT && c == '@');
    if (r->fastq) {
        fastq_init(&r->fq, r->name);
        r->fq.line += r->blank_lines;
    } else {
        fasta_init(&r->fa, r->format == READS_FASTA ? FASTA_FORCE : FASTA_DETECT, r->name);
        r->fa.line += r->blank_lines;
    }
}

int reads_feed(reads_reader *r, const void *data, size_t n, const fasta_callbacks *cb,
               void *ctx)
{
    const unsigned char *p = data, *end = p + n;
    if (!r->decided) {
        for (; p < end && (*p == '\n' || *p == '\r'); p++)
            r->blank_lines += *p == '\n';
        if (p == end)
            return FASTA_OK;
        decide(r, *p);
    }
    return r->fastq ? fastq_feed(&r->fq, p, (size_t)(end - p), cb, ctx)
                    : fasta_feed(&r->fa, p, (size_t)(end - p), cb, ctx);
}

int reads_finish(reads_reader *r, const fasta_callbacks *cb, void *ctx)
{
    if (!r->decided) /* empty, or line breaks only: no record */
        return FASTA_OK;
    return r->fastq ? fastq_finish(&r->fq, cb, ctx) : fasta_finish(&r->fa, cb, ctx);
}

const char *reads_error(const reads_reader *r)
{
    return r->fastq ? r->fq.error : r->fa.error;
}

void reads_free(reads_reader *r)
{
    if (!r->decided)
        return;
    if (r->fastq)
        fastq_free(&r->fq);
    else
        fasta_free(&r->fa);
}
