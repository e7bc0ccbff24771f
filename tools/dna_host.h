/*
 * clmatch --dna --devices auto: exact patterns of plain bases searched in a FASTA file by the
 * CPU's threads with no OpenCL at all (tools/dna_host.c), so that a file is done before a
 * GPU's platform and context could have come up. It takes what it can do the same as the
 * device path and declines the rest before printing anything.
 */
#ifndef CLMATCH_DNA_HOST_H
#define CLMATCH_DNA_HOST_H

#include <stddef.h>
#include <stdint.h>

typedef struct dna_host dna_host;

/* The patterns (seqs[i] of lens[i] bytes, pattern ids 0..n-1) and how they are searched. */
typedef struct {
    const char *const *seqs;
    const size_t *lens;
    size_t n;
    int plus, minus; /* the strands searched: + the pattern, - its reverse complement */
    int caseless;
    int count_only;   /* only each record's count is asked for (no match's place or text) */
    size_t chunk;     /* bytes a thread reads at a time */
} dna_host_spec;

/* What the search delivers, in file order: each record whole, its matches in any order
 * (record offsets: 0-based start, end one past). Non-zero from a callback stops it. */
typedef struct {
    int (*record_start)(void *ctx, const char *id, size_t id_len);
    int (*match)(void *ctx, unsigned pat, int strand, uint64_t start, uint64_t end,
                 const unsigned char *text);
    int (*count)(void *ctx, uint64_t n); /* count_only: matches of the current record */
    int (*record_end)(void *ctx, uint64_t seq_len);
} dna_host_callbacks;

/* Ready the spec's patterns: 0 and *out, or 1 when the host search cannot take them (a code
 * other than A C G T U, too many patterns), or -1 after a message. */
int dna_host_open(const dna_host_spec *spec, dna_host **out);
void dna_host_close(dna_host *h);

enum {
    DNA_HOST_DONE = 0,     /* searched and delivered */
    DNA_HOST_DECLINED = 1, /* not FASTA, compressed, too many matches to hold: nothing was
                              delivered; the caller searches the file another way */
    DNA_HOST_FAILED = -1,  /* a read failed or memory ran out (after a message) */
    DNA_HOST_STOPPED = -2  /* a callback stopped it */
};

/* Search the regular file fd of size bytes, named name in messages. *threads: the threads it
 * used (0 when declined before searching). One of DNA_HOST_*. */
int dna_host_search(const dna_host *h, int fd, uint64_t size, const char *name,
                    const dna_host_callbacks *cb, void *ctx, unsigned *threads);

#endif
