/*
 * hs_count — count the occurrences of one literal, or of every line of a file, with
 * Hyperscan: the CPU yardstick of bench/compare.sh (not part of clmatch-bench: the Makefile
 * builds it with `make bench-tools`).
 *
 *   hs_count [-t THREADS] [--read] [-r REPS] ([-e] PATTERN | -f PATTERN_FILE) FILE
 *
 * The file is mapped (mmap, MAP_POPULATE: the page cache's pages, as ripgrep maps a large
 * file) or, with --read, read into malloc'd memory (pread, in THREADS threads),
 * the pattern compiled as a literal (hs_compile_lit, block mode, no HS_FLAG_SOM_LEFTMOST), and
 * hs_scan run in THREADS threads (0 = every online CPU), each over its own part of the text
 * with m - 1 bytes of overlap into the next part, so every occurrence is found once: a match
 * found in a part starts in it. Parts longer than 1 GiB are scanned in 1 GiB pieces (hs_scan
 * takes an unsigned int length). Every occurrence is counted, overlapping ones included (the
 * numbers of `clmatch --count-matches` and memmem_count).
 * -f: every line of the file is a literal (hs_compile_lit_multi, id = its line index), all
 * searched in one hs_scan; every occurrence of every line counts, as clmatch counts a
 * pattern set. The overlap is the longest line - 1 bytes, so a match is counted by the part
 * (and piece) where it starts: its end, less its line's length.
 *
 * The command line, the load, the threads and the report are bench/yardstick.c's.
 *
 * stdout: the count.  stderr: one line of key=value timings (load_s, compile_s, scan_s: the
 * best of REPS in-memory scans, scan_gbs = bytes / scan_s).  Exit status 0, or 2 on an error.
 */
#include <stdio.h>
#include <stdlib.h>

#include <hs/hs.h>

#include "yardstick.h"

#define PIECE ((size_t)1 << 30)

typedef struct {
    hs_database_t *db;
    hs_scratch_t *scratch[YARD_MAX_THREADS]; /* one per part */
    size_t m;                                /* the longest pattern */
    const size_t *lens;                      /* by id */
} hs_shared;

/* One hs_scan of a piece: matches that start before `limit` (of the piece) count. */
typedef struct {
    const size_t *lens;
    unsigned long long limit, count;
} piece;

static int on_match(unsigned int id, unsigned long long from, unsigned long long to,
                    unsigned int flags, void *ctx)
{
    piece *p = ctx;
    (void)from, (void)flags; /* from is 0: no start-of-match flag, the end and length tell */
    p->count += to - p->lens[id] < p->limit;
    return 0;
}

/* hs_scan takes an unsigned int length: 1 GiB pieces, each with m - 1 bytes of overlap. */
static int scan(void *shared, int part, const char *text, size_t len, size_t own,
                unsigned long long *count)
{
    hs_shared *h = shared;
    for (size_t s = 0; s < own; s += PIECE) {
        size_t stop = len - s > PIECE + h->m - 1 ? s + PIECE + h->m - 1 : len;
        piece p = {h->lens, (own - s < PIECE ? own - s : PIECE), 0};
        hs_error_t r = hs_scan(h->db, text + s, (unsigned int)(stop - s), 0, h->scratch[part],
                               on_match, &p);
        if (r != HS_SUCCESS)
            return 1;
        *count += p.count;
    }
    return 0;
}

int main(int argc, char **argv)
{
    yard y;
    yard_open(&y, "hs_count", argc, argv);
    double t1 = yard_now();

    static hs_shared h;
    hs_compile_error_t *cerr = NULL;
    h.m = y.m;
    h.lens = y.lens;
    if (y.npat == 1) {
        if (hs_compile_lit(y.pat, 0, y.m, HS_MODE_BLOCK, NULL, &h.db, &cerr) != HS_SUCCESS)
            yard_die(&y, "hs_compile_lit", cerr ? cerr->message : "failed");
    } else {
        unsigned *ids = malloc(y.npat * sizeof *ids), *flags = calloc(y.npat, sizeof *flags);
        if (!ids || !flags)
            yard_die(&y, "out of memory", NULL);
        for (unsigned i = 0; i < y.npat; i++)
            ids[i] = i;
        if (hs_compile_lit_multi(y.pats, flags, ids, y.lens, y.npat, HS_MODE_BLOCK, NULL, &h.db,
                                 &cerr) != HS_SUCCESS)
            yard_die(&y, "hs_compile_lit_multi", cerr ? cerr->message : "failed");
        free(ids);
        free(flags);
    }
    if (hs_alloc_scratch(h.db, &h.scratch[0]) != HS_SUCCESS)
        yard_die(&y, "hs_alloc_scratch failed", NULL);
    for (int i = 1; i < y.threads; i++)
        if (hs_clone_scratch(h.scratch[0], &h.scratch[i]) != HS_SUCCESS)
            yard_die(&y, "hs_clone_scratch failed", NULL);
    double t2 = yard_now();

    double best;
    unsigned long long count = yard_scan(&y, scan, &h, "hs_scan failed", &best);
    char mid[64], tail[80];
    snprintf(mid, sizeof mid, "compile_s=%.6f ", t2 - t1);
    snprintf(tail, sizeof tail, " hyperscan=%.63s", hs_version()); /* as 5.4.x wrote it */
    for (char *c = tail + 1; *c; c++)
        if (*c == ' ')
            *c = '_';
    yard_report(&y, count, best, mid, tail);
    return 0;
}
