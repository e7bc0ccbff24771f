/*
 * The records of a DNA-mode input, FASTA or FASTQ: the format is decided by the input's first
 * byte other than a line break ('@': FASTQ, fastq.h; anything else: FASTA or a raw sequence,
 * fasta.h), or forced. The records reach the callbacks of fasta.h either way.
 */
#ifndef CLMATCH_READS_H
#define CLMATCH_READS_H

#include "fasta.h"
#include "fastq.h"

typedef enum {
    READS_DETECT = 0, /* by the first byte */
    READS_FASTA = 1,  /* FASTA or an error naming the first line that is not */
    READS_FASTQ = 2   /* FASTQ or an error naming the first line that is not */
} reads_format;

typedef struct {
    reads_format format; /* asked for */
    int decided;         /* the reader below is chosen */
    int fastq;           /* ... and it is the FASTQ one */
    uint64_t blank_lines; /* line breaks before the first other byte */
    const char *name;
    fasta_reader fa;
    fastq_reader fq;
} reads_reader;

void reads_init(reads_reader *r, reads_format format, const char *name);
/* As fasta_feed / fasta_finish; FASTA_ERR_FORMAT: reads_error() says why. */
int reads_feed(reads_reader *r, const void *data, size_t n, const fasta_callbacks *cb,
               void *ctx);
int reads_finish(reads_reader *r, const fasta_callbacks *cb, void *ctx);
const char *reads_error(const reads_reader *r);
void reads_free(reads_reader *r);

#endif
