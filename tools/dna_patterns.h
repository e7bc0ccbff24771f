/* The DNA mode's patterns (tools/dna_patterns.c): -e values and -f files (FASTA records,
 * NAME<TAB>PATTERN lines or one PATTERN a line), checked to be IUPAC codes, a CRISPR PAM
 * joined, each (name, pattern) kept once; and the IUPAC and memory helpers the mode uses. */
#ifndef CLMATCH_DNA_PATTERNS_H
#define CLMATCH_DNA_PATTERNS_H

#include <stddef.h>

#include "crispr.h"

typedef struct {
    char *name;      /* patternName column */
    size_t name_len;
    char *seq;       /* the pattern as given */
    size_t len;
    char *shown;     /* pattern column: the pattern, lower-cased with -i (not --degenerate) */
    char *where;     /* where it was given, for messages ("-e", "FILE line N") */
} dna_pattern;

typedef struct {
    dna_pattern *v;
    size_t n, cap;
} pattern_list;

/* What the patterns come from and are checked against. */
typedef struct {
    const char **args; /* -e values, or the PATTERN operand */
    size_t n_args;
    const char **files; /* -f values */
    size_t n_files;
    unsigned max_errors; /* -k */
    int mismatches_only, caseless, degenerate;
    const crispr_pam *pam; /* --pam / --pam5; NULL: none */
} dna_pattern_opts;

/* Gather, validate and deduplicate the patterns into l. 0, or -1 after a message. */
int dna_build_patterns(const dna_pattern_opts *o, pattern_list *l);
void dna_free_patterns(pattern_list *l);

/* Whether c is an IUPAC nucleotide code, either case. */
int dna_is_iupac(unsigned char c);
/* Complement of an IUPAC code in its case; other bytes are kept. */
unsigned char dna_complement(unsigned char c);
unsigned char dna_lower(unsigned char c);
/* n bytes of p, NUL-terminated, malloc'd (NULL: out of memory). */
char *dna_dup_bytes(const char *p, size_t n);
/* Grow *p (*cap elements of elem bytes, doubling) to hold need. 0, or -1 out of memory. */
int dna_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
