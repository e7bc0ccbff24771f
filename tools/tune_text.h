/* The texts clmatch-tune times its searches on (tools/tune_text.c). */
#ifndef CLMATCH_TUNE_TEXT_H
#define CLMATCH_TUNE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* n random bases (a fixed seed): DNA-like text, the case clmatch is mostly used for. */
void tune_generate(unsigned char *t, size_t n);
/* Up to cap bytes of the file at path into t (*n: how many): a FASTA file's sequence lines
 * without their line breaks, anything else as it is. 0, or -1 after a message. */
int tune_read_text(const char *path, unsigned char *t, size_t cap, size_t *n);
/* Occurrences of p[0, m) in t[0, n), overlapping ones included: the answer every timed count
 * is checked against. */
uint64_t tune_host_count(const unsigned char *t, size_t n, const char *p, size_t m);

#endif
