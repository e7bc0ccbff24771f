/*
 * CRISPR helpers of the clmatch CLI: a PAM (protospacer-adjacent motif) joined to every guide
 * of DNA mode (clmatch --dna --pam / --pam5), and the IUPAC base sets they and the
 * Cas-OFFinder front end (casoff.c) share.
 *
 * Design: the library searches guide+PAM (or PAM+guide) with Hamming distance k; a match is
 * kept only when its PAM bases match exactly, so its distance is the guide's mismatches.
 */
#ifndef CLMATCH_CRISPR_H
#define CLMATCH_CRISPR_H

#include <stddef.h>

/* Bit set of the bases (A 1, C 2, G 4, T 8) an IUPAC code stands for, either case, U = T;
 * 0 for any other byte. */
unsigned iupac_set(unsigned char c);

/* The complement of an IUPAC code in its case; other bytes are kept. */
unsigned char iupac_complement(unsigned char c);

typedef struct {
    const char *seq; /* the PAM as given (IUPAC) */
    size_t len;
    int five_prime;  /* --pam5: before the guide; else after it (--pam) */
    int caseless;    /* the library's CLM_CASELESS */
    int degenerate_text; /* the library's CLM_DEGENERATE_TEXT */
} crispr_pam;

/* Check a PAM given to `option` (--pam or --pam5). Returns 0, or -1 after a message. */
int crispr_pam_check(const char *option, const char *seq);

/* The guide with the PAM on its side: a malloc'd string of *len bytes (NUL-terminated), or
 * NULL when out of memory. */
char *crispr_join(const crispr_pam *pam, const char *guide, size_t guide_len, size_t *len);

/* Do the PAM bases of a match match exactly, as the library matches a text byte? site: the
 * text of the match, n bytes (the + strand's bytes; strand < 0: the site is its reverse
 * complement). */
int crispr_pam_matches(const crispr_pam *pam, const unsigned char *site, size_t n, int strand);

#endif
