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
 * stdout: the count.  stderr: one line of key=value timings (load_s, scan_s: the best of REPS
 * in-memory scans, scan_gbs = bytes / scan_s).  Exit status 0, or 2 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 1024

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "memmem_count: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

typedef struct {
    int fd;
    char *text;
    size_t n, m, begin, end; /* this part owns the starts in [begin, end) */
    const char *pat;
    unsigned long long count;
    int err;
} part;

static void *load_part(void *arg)
{
    part *p = arg;
    size_t off = p->begin;
    while (off < p->end) {
        ssize_t got = pread(p->fd, p->text + off, p->end - off, (off_t)off);
        if (got <= 0) {
            p->err = got < 0 ? errno : EIO;
            return NULL;
        }
        off += (size_t)got;
    }
    return NULL;
}

static void *scan_part(void *arg)
{
    part *p = arg;
    size_t stop = p->end + p->m - 1 < p->n ? p->end + p->m - 1 : p->n;
    const char *at = p->text + p->begin, *lim = p->text + stop;
    unsigned long long c = 0;
    while ((size_t)(lim - at) >= p->m && (at = memmem(at, (size_t)(lim - at), p->pat, p->m))) {
        c++;
        at++;
    }
    p->count = c;
    return NULL;
}

/* Run fn over every part in its own thread (the calling thread takes the first part). */
static void run_parts(part *parts, int t, void *(*fn)(void *))
{
    pthread_t tid[MAX_THREADS];
    for (int i = 1; i < t; i++)
        if (pthread_create(&tid[i], NULL, fn, &parts[i]) != 0)
            die("pthread_create failed", NULL);
    fn(&parts[0]);
    for (int i = 1; i < t; i++)
        pthread_join(tid[i], NULL);
}

/* Part i of t owns the starts in [part_start(i), part_start(i + 1)): equal shares of n. */
static size_t part_start(size_t n, int t, int i)
{
    size_t q = n / (size_t)t, r = n % (size_t)t, k = (size_t)i;
    return q * k + (k < r ? k : r);
}

static void usage(void)
{
    fprintf(stderr, "usage: memmem_count [-t THREADS] [--read] [-r REPS] [-e] PATTERN FILE\n"
                    "  -t N     scan threads (default 1; 0 = every online CPU)\n"
                    "  --read   read the file into memory (pread) instead of mapping it (mmap)\n"
                    "  -r N     time N in-memory scans, report the best (default 1)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    long threads = 1, reps = 1;
    int use_mmap = 1;
    const char *pat = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-t") && i + 1 < argc)
            threads = strtol(argv[++i], NULL, 10);
        else if (!strcmp(a, "-r") && i + 1 < argc)
            reps = strtol(argv[++i], NULL, 10);
        else if (!strcmp(a, "--read"))
            use_mmap = 0;
        else if (!strcmp(a, "--mmap"))
            use_mmap = 1;
        else if (!strcmp(a, "-e") && i + 1 < argc && !pat)
            pat = argv[++i];
        else if (!strcmp(a, "--") && i + 1 < argc) {
            for (i++; i < argc; i++) {
                if (!pat)
                    pat = argv[i];
                else if (!path)
                    path = argv[i];
                else
                    usage();
            }
        } else if (a[0] == '-' && a[1])
            usage();
        else if (!pat)
            pat = a;
        else if (!path)
            path = a;
        else
            usage();
    }
    if (!pat || !path || reps < 1 || threads < 0)
        usage();
    if (threads == 0)
        threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    size_t m = strlen(pat);
    if (m == 0)
        die("empty pattern", NULL);

    double t0 = now();
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        die(path, strerror(errno));
    size_t n = (size_t)st.st_size;
    int t = (int)threads;
    part *parts = calloc((size_t)t, sizeof *parts);
    char *text;
    if (!parts)
        die("out of memory", NULL);
    if (use_mmap) {
        text = n ? mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : NULL;
        if (n && text == MAP_FAILED)
            die("mmap", strerror(errno));
    } else {
        text = malloc(n ? n : 1);
        if (!text)
            die("out of memory for the text", NULL);
    }
    for (int i = 0; i < t; i++) {
        parts[i].fd = fd;
        parts[i].text = text;
        parts[i].n = n;
        parts[i].m = m;
        parts[i].pat = pat;
        parts[i].begin = part_start(n, t, i);
        parts[i].end = part_start(n, t, i + 1);
    }
    if (!use_mmap) {
        run_parts(parts, t, load_part);
        for (int i = 0; i < t; i++)
            if (parts[i].err)
                die(path, strerror(parts[i].err));
    }
    double t1 = now();

    double best = 0;
    unsigned long long count = 0;
    for (long r = 0; r < reps; r++) {
        double s0 = now();
        run_parts(parts, t, scan_part);
        double s = now() - s0;
        count = 0;
        for (int i = 0; i < t; i++)
            count += parts[i].count;
        if (r == 0 || s < best)
            best = s;
    }
    printf("%llu\n", count);
    fflush(stdout);
    fprintf(stderr,
            "memmem_count: bytes=%zu m=%zu threads=%d reps=%ld load_s=%.6f "
            "scan_s=%.6f scan_gbs=%.3f matches=%llu mode=%s\n",
            n, m, t, reps, t1 - t0, best, best > 0 ? (double)n / best / 1e9 : 0.0,
            count, use_mmap ? "mmap" : "read");
    return 0;
}
