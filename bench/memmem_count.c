/*
 * memmem_count — count the occurrences of one string with glibc memmem, the plain-C yardstick
 * of bench/compare.sh (not part of clmatch-bench: the Makefile builds it with
 * `make bench-tools`).
 *
 *   memmem_count [-t THREADS] [--read] [-r REPS] [-e] PATTERN FILE
 *
 * The file is mapped (mmap, MAP_POPULATE: the page cache's pages, as ripgrep maps a large
 * file) or, with --read, read into malloc'd memory (pread, in THREADS threads),
 * and searched in THREADS threads (0 = every online CPU), each over its own part of the text
 * with m - 1 bytes of overlap into the next part, so every occurrence is found once: an
 * occurrence found in a part starts in it. After each hit the search goes on one byte later,
 * so overlapping occurrences are counted (the numbers of `clmatch --count-matches` and
 * hs_count).
 *
 * The command line, the load, the threads and the report are bench/yardstick.c's.
 *
 * stdout: the count.  stderr: one line of key=value timings (load_s, scan_s: the best of REPS
 * in-memory scans, scan_gbs = bytes / scan_s).  Exit status 0, or 2 on an error.
 */
#define _GNU_SOURCE
#include <string.h>

#include "yardstick.h"

static int scan(void *shared, int part, const char *text, size_t len, size_t own,
                unsigned long long *count)
{
    const yard *y = shared;
    const char *at = text, *lim = text + len;
    unsigned long long c = 0;
    (void)part, (void)own; /* one pattern: every hit starts in the part */
    while ((size_t)(lim - at) >= y->m && (at = memmem(at, (size_t)(lim - at), y->pat, y->m))) {
        c++;
        at++;
    }
    *count = c;
    return 0;
}

int main(int argc, char **argv)
{
    yard y;
    yard_open(&y, "memmem_count", argc, argv);
    if (y.npat != 1)
        yard_die(&y, "one pattern only (-f is hs_count's)", NULL);
    double best;
    unsigned long long count = yard_scan(&y, scan, &y, "memmem failed", &best);
    yard_report(&y, count, best, "", "");
    return 0;
}
