/*
 * What the FASTA callbacks saw, shared by the fuzz targets of DNA mode's input readers
 * (fuzz_fasta.c, fuzz_reads.c): the callbacks check what fasta.h promises and log the
 * records, so that a target can compare two ways of feeding the same input.
 */
#ifndef CLMATCH_FUZZ_TRACE_H
#define CLMATCH_FUZZ_TRACE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fasta.h"

/* The name the targets give their input: a raw record is named after it. */
#define INPUT_NAME "input"

/* The log is one byte string: 'S' header length, line, header; 'Q' then the sequence bytes
 * of a run of sequence callbacks (so that how the pieces were cut does not show); 'E'. */
typedef struct {
    unsigned char *log;
    size_t len, cap;
    int in_record, in_sequence;
} trace;

static inline void put(trace *t, const void *p, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n)
            cap *= 2;
        unsigned char *q = realloc(t->log, cap);
        if (!q)
            abort();
        t->log = q;
        t->cap = cap;
    }
    memcpy(t->log + t->len, p, n);
    t->len += n;
}

static inline int on_start(void *ctx, const char *header, size_t len, uint64_t line)
{
    trace *t = ctx;
    if (t->in_record || memchr(header, '\n', len) || (len && header[len - 1] == '\r'))
        abort();
    if (line == 0 && (len != strlen(INPUT_NAME) || memcmp(header, INPUT_NAME, len) != 0))
        abort(); /* line 0 is the raw record, named after the input */
    t->in_record = 1;
    t->in_sequence = 0;
    put(t, "S", 1);
    put(t, &len, sizeof len);
    put(t, &line, sizeof line);
    put(t, header, len);
    return 0;
}

static inline int on_sequence(void *ctx, const unsigned char *seq, size_t n)
{
    trace *t = ctx;
    if (!t->in_record || n == 0 || memchr(seq, '\n', n) || memchr(seq, '\r', n))
        abort();
    if (!t->in_sequence)
        put(t, "Q", 1);
    t->in_sequence = 1;
    put(t, seq, n);
    return 0;
}

static inline int on_end(void *ctx)
{
    trace *t = ctx;
    if (!t->in_record)
        abort();
    t->in_record = t->in_sequence = 0;
    put(t, "E", 1);
    return 0;
}

static const fasta_callbacks callbacks = {on_start, on_sequence, on_end};

/* The size of the k-th block of an input with `left` bytes still to feed: varied sizes, 1 to
 * 16 (cut 0: all at once). */
static inline size_t block_size(unsigned k, unsigned cut, size_t left)
{
    size_t n = cut ? 1 + (k * cut + k / 3) % 16 : left;
    return n < left ? n : left;
}

/* Both traces logged the same. */
static inline int same_trace(const trace *a, const trace *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->log, b->log, a->len) == 0);
}

#endif
