/*
 * CPU references for the bitap-era features, written from the header's text alone and
 * independently of the library:
 *  - a parser of the CLM_CLASSES syntax into one byte set per pattern symbol;
 *  - exact matching over those sets;
 *  - approximate matching (Levenshtein, Sellers' column DP for the best distance at each end
 *    position, then a brute-force banded DP per candidate start for the header's start rule);
 *  - Hamming matching (CLM_MISMATCHES_ONLY).
 */
#ifndef CLMATCH_TESTS_T_REF_H
#define CLMATCH_TESTS_T_REF_H

#include <stddef.h>
#include <stdint.h>

#include "t.h"

/* A set of byte values (one pattern symbol). */
typedef struct {
    uint8_t b[32];
} t_cset;

static inline int t_cset_has(const t_cset *s, unsigned char c) { return (s->b[c >> 3] >> (c & 7)) & 1; }

/*
 * Parse a pattern into its symbols. classes 0: every byte is a literal symbol. caseless: every
 * set is closed under ASCII case; a negated class [^...] closes the listed bytes before taking
 * the complement (so [^a] matches neither 'a' nor 'A'), as grep -i and PCRE do.
 * Returns the number of symbols (≥ 0) with *out a malloc'd array of them; -1 on a syntax
 * error, with *err_at the byte offset where the parser gave up and *why a short reason.
 */
long t_parse_pattern(const unsigned char *p, size_t len, int classes, int caseless, t_cset **out,
                     size_t *err_at, const char **why);

/* A pattern set with search options, for t_reference_ex. */
typedef struct {
    const unsigned char *const *pats;
    const size_t *lens;
    const unsigned *ids;  /* NULL: pattern i reports id i */
    unsigned count;
    unsigned flags;       /* CLM_CASELESS | CLM_CLASSES | CLM_MISMATCHES_ONLY */
    unsigned k;           /* max_errors */
} t_fset;

/*
 * Every match of every pattern as the header defines it, in the order the callback delivers
 * them (start, then id, then end):
 *  k = 0: every start where all symbols match; edits 0.
 *  k > 0, CLM_MISMATCHES_ONLY: every start with at most k mismatching symbols; end = start+m,
 *         edits = the number of mismatches.
 *  k > 0: for each end e with d(e) = min_s distance(P, T[s,e)) ≤ k, one match [s, e) with
 *         edits d(e) where s is the start of distance d(e) whose length e−s is closest to m,
 *         the earlier start on a tie.
 * Returns 0, or -1 when a pattern does not parse (nothing is pushed then).
 */
int t_reference_ex(const unsigned char *text, size_t n, const t_fset *fs, t_matches *out);

/* Levenshtein distance between the symbols P[0, m) and t[0, L) when it is ≤ k, else k + 1
 * (a DP over the band |i − j| ≤ k). Exposed for self-tests of the reference. */
unsigned t_edit_distance(const t_cset *P, size_t m, const unsigned char *t, size_t L, unsigned k);

/* Sort a match list into delivery order: start, then id, then end. */
void t_matches_sort(t_matches *m);

#endif
