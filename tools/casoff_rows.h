/*
 * casoff_rows.h - the Cas-OFFinder front end's (casoff.c) queries and sites, and its output
 * rows: 2.4.1's columns in its order, formatted by threads.
 */
#ifndef CLMATCH_CASOFF_ROWS_H
#define CLMATCH_CASOFF_ROWS_H

#include "casoff_genome.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *seq;        /* upper case, template length */
    char *rc;         /* its reverse complement */
    char *id;         /* third field, or NULL */
    unsigned limit;
    unsigned pattern; /* index of its library pattern */
} casoff_query;

typedef struct {
    uint64_t pos; /* in the genome text */
    unsigned q, mm;
    int strand;
} casoff_site;

typedef struct {
    casoff_site *v;
    size_t n, cap;
    int failed; /* out of memory */
} casoff_sites;

/* Add a site; 1 (and l->failed set) when out of memory, else 0. */
int casoff_sites_add(casoff_sites *l, uint64_t pos, unsigned q, unsigned mm, int strand);
/* Append from's sites to to's, from empty after; -1 when out of memory, else 0. */
int casoff_sites_move(casoff_sites *to, casoff_sites *from);
void casoff_sites_free(casoff_sites *l);

/* 2.4.1's complement (IUPAC pairs; U, S, W, N and other bytes stay) of src[0, n) reversed,
 * into dst. */
void casoff_revcomp(char *dst, const char *src, size_t n);

/* What a genome file's rows are made of. */
typedef struct {
    const casoff_genome *g;
    size_t len;              /* the template's */
    const casoff_query *q;
    const unsigned char *mm; /* 2.4.1's mismatch(code, byte) at [code * 256 + byte] */
} casoff_rows;

/* Sort l's sites as 2.4.1 writes them (per query in input order, by position, + before -)
 * and write their rows with cli_common's out_*: query, record name, 0-based position, the
 * site with its mismatched bases in lower case, strand, mismatches[, id]. Returns 0, or -1
 * out of memory (nothing written). */
int casoff_rows_write(const casoff_rows *r, casoff_sites *l);

#endif
