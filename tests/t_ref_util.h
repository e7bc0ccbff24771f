/*
 * Small helpers shared by the class, approximate-search and bitap-era API tests: compile a
 * t_fset, check one scan + count against t_reference_ex, plant mutated copies.
 */
#ifndef CLMATCH_TESTS_T_REF_UTIL_H
#define CLMATCH_TESTS_T_REF_UTIL_H

#include "t_ref.h"

/* One compiled case: the pattern set, its options, the open database and scratch. */
typedef struct {
    t_fset fs;
    clm_algorithm algo;
    clm_variant variant;
    clm_table_memory mem;
    unsigned wgs, bpi;
    clm_database *db;
    clm_scratch *s;
    clm_database_info info;
    char desc[512];
    t_matches got, want;
} fcase;

/* Describe the case (algorithm, variant, flags, k, patterns, geometry, seed) into c->desc;
 * extra is appended. */
void fcase_describe(fcase *c, const char *extra);
/* Compile c->fs with c's options; on failure record it (with the case) and return 0. */
int fcase_open(fcase *c, const char *extra);
/* (Re)allocate the scratch with this slab (0: default) and match capacity (0: default). */
int fcase_scratch(fcase *c, size_t slab, size_t capacity);
/* Scan and count text; compare with the reference; record a failure describing the case,
 * the text and the first differing match. Returns 1 when equal. */
int fcase_check(fcase *c, const unsigned char *text, size_t n, const char *what);
/* Free the database and scratch (match lists stay). */
void fcase_close(fcase *c);
/* Initialise / release a case (match lists). */
void fcase_init(fcase *c);
void fcase_free(fcase *c);

/* Apply `edits` random edits (insertions, deletions, substitutions; substitutions only when
 * subs_only) to p[0, m) into out (room for m + edits bytes) drawing new bytes from
 * alphabet alpha (t_symbol); returns the new length. */
size_t t_mutate(t_rng *r, const unsigned char *p, size_t m, unsigned edits, int subs_only,
                unsigned alpha, unsigned char *out);

/* A printable rendering of a pattern for messages (static buffer, valid until next call). */
const char *t_show(const unsigned char *p, size_t len);

#endif
