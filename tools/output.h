/*
 * grep's output of one file held in memory (tools/output.c): line selection with -v and -m,
 * context (-A -B -C) with "--" between groups, -c, -l, -L, -o, -q, -z records, the binary
 * file rule, file name prefixes (-H, -Z) and --color, byte for byte as GNU grep prints them.
 */
#ifndef CLMATCH_OUTPUT_H
#define CLMATCH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "grep_args.h"

/* An occurrence in a file (offsets in the file); before_ok: it passes -w's test of the byte
 * before it (kept when it fails only that, for grep's -o -w quirk, see output.c). */
typedef struct {
    uint64_t start, end;
    int before_ok;
} rec_match;

/* GREP_COLORS capabilities: SGR sequences (empty: none). */
typedef struct {
    char ms[32], mc[32], sl[32], cx[32], fn[32], ln[32], bn[32], se[32];
    int ne; /* no \33[K after each sequence */
} grep_colors;

typedef struct {
    const config *cfg;
    grep_colors colors;
    unsigned char eol; /* '\n', or NUL with -z */
    int used;          /* something printed: context's "--" goes before the next group */
    int matched;       /* a line was selected (the exit status) */
    int stop;          /* -q has its answer, or writing failed: search no further */
} out_state;

/* Ready st for a run (colors from GREP_COLORS when cfg->color). */
void output_init(out_state *st, const config *cfg);

/* Is the byte a word byte for -w ([A-Za-z0-9_])? */
int output_word_byte(int b);

/* Does [s, e) of text[0, len) pass -w or -x (the bytes around it, and no line end inside;
 * nul_ends: a NUL byte ends a line too, as in a binary file)? text[-1] and text[len] are
 * never read: outside is a line end. Sets *before_ok to the -w test of the byte before
 * alone. */
int output_passes(const config *cfg, unsigned char eol, int nul_ends, const unsigned char *text,
                  size_t len, uint64_t s, uint64_t e, int *before_ok);

/* The end of the line of t[0, len) holding from: its line end eol, or len. nul_ends: a NUL
 * byte ends a line too, as in a binary file (grep turns them into line ends). */
uint64_t output_line_end(const unsigned char *t, size_t len, uint64_t from, unsigned char eol,
                         int nul_ends);

/* Print what grep prints for the file `name` (prefixed to lines when show_name) whose bytes are
 * text[0, len), given its occurrences m[0, n) in the library's order (by start), those that
 * fail the -w or -x test already out except for before_ok ones. binary: the file holds a NUL
 * byte (its lines are then not printed: "NAME: binary file matches" goes to stderr). Returns
 * the number of lines selected. */
uint64_t output_file(out_state *st, const char *name, int show_name, const unsigned char *text,
                     size_t len, const rec_match *m, size_t n, int binary);

#endif
