/*
 * casoff_genome.h - one genome file of the Cas-OFFinder front end (casoff.c), read whole by
 * threads: its records and their sequences, upper-cased, in one buffer.
 */
#ifndef CLMATCH_CASOFF_GENOME_H
#define CLMATCH_CASOFF_GENOME_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *name;          /* the whole header line (2.4.1's name), trailing CRs dropped */
    uint64_t start, len; /* its sequence in the genome's text */
} casoff_record;

typedef struct {
    unsigned char *text; /* the file's lines without their '\n': each record's sequence
                            lines contiguous, upper case, headers left between records */
    size_t text_len;
    casoff_record *rec;  /* in text order */
    size_t nrec, rec_cap;
    unsigned char *odd;  /* per CASOFF_ODD_BLOCK bytes of text: 1 when the block may hold a
                            byte other than A/C/G/T (headers, N), 0 when it does not */
    size_t odd_blocks;
} casoff_genome;
#define CASOFF_ODD_BLOCK 512u

/* Whether upper-case byte b is A, C, G or T (2.4.1's plain bases). */
static inline int casoff_acgt(unsigned char b)
{
    return b == 'A' || b == 'C' || b == 'G' || b == 'T';
}
/* Read path into g (empty before). 1 when it is not FASTA (its first byte is not '>'), 0
 * when read, -1 after a message. */
int casoff_genome_load(casoff_genome *g, const char *path);
/* The record holding text offset pos: the last one starting at or before it (0 before the
 * first). */
size_t casoff_genome_record_of(const casoff_genome *g, uint64_t pos);
/* The sites of len bytes, within one record, that hold a byte other than A/C/G/T at an
 * offset where deg (len flags, the forward strand's offsets; the reverse strand's are
 * len - 1 - those) is set: each (start, strand) once, strand 1 or -1, to fn until it
 * returns non-zero (which is returned). */
int casoff_genome_odd_sites(const casoff_genome *g, size_t len, const unsigned char *deg,
                            int (*fn)(void *ctx, uint64_t start, int strand), void *ctx);
/* Free what a load made; g is empty again. */
void casoff_genome_free(casoff_genome *g);

#endif
