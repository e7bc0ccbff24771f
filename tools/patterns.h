/*
 * The main mode's patterns: gathered from -e, -f FILE and the PATTERN operand in the order
 * given (as grep -F: one pattern a line, a newline in an -e value separates patterns), each
 * with its 1-based position in that order, then made ready for clm_compile.
 */
#ifndef CLMATCH_PATTERNS_H
#define CLMATCH_PATTERNS_H

#include <stddef.h>

/* The id of the placeholder pattern searched when no pattern is left for the library (an
 * empty -f file, empty patterns only): pattern numbers start at 1. */
#define NO_ID 0u

typedef struct {
    const char *ptr;
    size_t len;      /* NUL bytes count: a pattern from a file may hold them */
    unsigned number; /* 1-based, in the order given (the --positions column) */
} pattern;

typedef struct {
    pattern *items;
    size_t count, cap;
    char **files; /* contents read for -f, owned (items point into them) */
    size_t n_files;
} pattern_list;

/* A pattern argument (-e or PATTERN): split at newlines. 0, or -1 after a message. */
int patterns_add_string(pattern_list *l, const char *s);

/* -f FILE ("-": standard input): one pattern a line, the line's bytes as they are ('\r'
 * and NUL included); a final line without newline is a pattern too; an empty file gives
 * none. 0, or -1 after a grep-like message ("FILE: No such file or directory"). */
int patterns_add_file(pattern_list *l, const char *path);

/* For clm_compile: take the empty patterns out (*has_empty set when there was one: the
 * library refuses them, the caller handles them), and unless keep_duplicates drop the
 * patterns equal to another (caseless: ASCII case aside; classes: an escape keeps its case),
 * so that one occurrence is not reported once per copy. The order is changed. */
void patterns_prepare(pattern_list *l, int caseless, int classes, int keep_duplicates,
                      int *has_empty);

/* Does the pattern use class syntax ('.', '[' or '\\') when -F is not given? */
int pattern_has_class_syntax(const pattern *p);

void patterns_free(pattern_list *l);

#endif
