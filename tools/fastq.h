/*
 * A streaming FASTQ reader for the clmatch CLI (DNA mode), with the FASTA reader's callbacks
 * (fasta.h): each read is a record, its sequence line the record's sequence.
 *
 * Format accepted: four-line records, as sequencers write them:
 *     @ID DESCRIPTION
 *     SEQUENCE           (one line; may be empty: an empty read)
 *     +[ANYTHING]        (the optional repeat of the header is not checked)
 *     QUALITIES          (exactly as many bytes as the sequence)
 * Lines end with "\n" or "\r\n" (CR bytes are dropped from the sequence and not counted in the
 * qualities); the last line may lack its newline. Empty lines between records (and before the
 * first) are skipped. Anything else is an error naming the input and the line: a header not
 * starting with '@', a third line not starting with '+', a quality line of another length
 * than the sequence, a record cut short by the end of the input.
 * Memory: the current header line only.
 */
#ifndef CLMATCH_FASTQ_H
#define CLMATCH_FASTQ_H

#include "fasta.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;   /* the input's name, for messages */
    int part;           /* the line of the record being read: 0 header .. 3 qualities */
    int at_line_start;
    uint64_t line;      /* 1-based number of the current line */
    uint64_t rec_line;  /* the line of the current record's header */
    uint64_t seq_len, qual_len;
    fasta_header hdr;
    int bad;            /* the current line is malformed: its start is being collected */
    unsigned char bad_line[41]; /* ... to quote it (40 bytes and "...") whatever the blocks */
    size_t bad_len;
    char error[512];    /* why fastq_feed/fastq_finish failed (FASTA_ERR_FORMAT) */
} fastq_reader;

void fastq_init(fastq_reader *r, const char *name);
/* Feed the next n bytes; returns a FASTA_OK or FASTA_ERR_* code of fasta.h. */
int fastq_feed(fastq_reader *r, const void *data, size_t n, const fasta_callbacks *cb,
               void *ctx);
/* The input ended: a record cut short is an error. */
int fastq_finish(fastq_reader *r, const fasta_callbacks *cb, void *ctx);
void fastq_free(fastq_reader *r);

#endif
