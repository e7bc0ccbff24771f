/*
 * yardstick — what bench/compare.sh's CPU yardsticks (hs_count, memmem_count) share: their
 * command line, loading the file (mmap or pread), the multi-threaded scan over parts with
 * m - 1 bytes of overlap, the timing and the report. Each program keeps only its own search.
 * Not part of clmatch-bench (the Makefile filters it out of BENCH_SRC with CMP_SRC).
 *
 *   PROG [-t THREADS] [--read] [-r REPS] ([-e] PATTERN | -f PATTERN_FILE) FILE
 */
#ifndef CLMATCH_BENCH_YARDSTICK_H
#define CLMATCH_BENCH_YARDSTICK_H

#include <stddef.h>

typedef struct {
    const char *prog;       /* the program's name: messages and the report line start with it */
    const char *pat, *path;
    size_t m;               /* the longest pattern's length, never 0 */
    /* The patterns: -f's lines (each non-empty; the last newline ends the last one), or
     * the one pattern (pats[0] = pat). */
    const char **pats;
    size_t *lens;
    unsigned npat;
    int threads;            /* parts (and threads) of the scan, 1..YARD_MAX_THREADS */
    long reps;              /* timed in-memory scans (the best is reported) */
    int use_mmap;           /* 1: mmap the file (default); 0: --read, pread into malloc'd memory */
    int fd;
    char *text;             /* the file's n bytes (NULL when n == 0 and mapped) */
    size_t n;
    double load_s;          /* open + map or read */
} yard;

/*
 * Count the occurrences in text[0, len) of shared's patterns for part `part`
 * (0..threads-1): the part's own bytes text[0, own) plus up to m - 1 bytes of the next one.
 * Count an occurrence when it starts before own (with one pattern, every one found does; a
 * shorter pattern of a set may lie wholly in the next part's bytes). Return 0, or nonzero on
 * an error (yard_scan then exits with status 2).
 */
typedef int (*yard_count_fn)(void *shared, int part, const char *text, size_t len, size_t own,
                             unsigned long long *count);

/* "PROG: what[: detail]" on stderr, exit status 2. */
void yard_die(const yard *y, const char *what, const char *detail);

/* Parse the command line (usage and exit 2 on a bad one), then open and load the file. */
void yard_open(yard *y, const char *prog, int argc, char **argv);

double yard_now(void);

/*
 * Run fn over the parts, each in its own thread, reps times; *best = the fastest run's seconds.
 * Returns the count of the last run. A nonzero return of fn: yard_die(y, fail, NULL).
 */
unsigned long long yard_scan(yard *y, yard_count_fn fn, void *shared, const char *fail,
                             double *best);

/*
 * stdout: the count.  stderr: "PROG: bytes=... load_s=... <mid>scan_s=... mode=...<tail>",
 * mid (e.g. "compile_s=0.001 ") and tail (e.g. " hyperscan=5.4") as given, "" for none.
 */
void yard_report(const yard *y, unsigned long long count, double best, const char *mid,
                 const char *tail);

#define YARD_MAX_THREADS 1024

#endif
