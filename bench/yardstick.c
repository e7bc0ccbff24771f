/*
 * yardstick — the shared part of bench/compare.sh's CPU yardsticks hs_count and memmem_count
 * (bench/yardstick.h): command line, file load, threaded scan over overlapping parts, report.
 */
#define _GNU_SOURCE
#include "yardstick.h"

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

typedef struct {
    yard *y;
    size_t begin, end; /* this part owns the starts in [begin, end) */
    int index;
    yard_count_fn fn;
    void *shared;
    unsigned long long count;
    int err;
} part;

double yard_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void yard_die(const yard *y, const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", y->prog, what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-t THREADS] [--read] [-r REPS] ([-e] PATTERN | -f PATTERNS) "
                    "FILE\n"
                    "  -f FILE  every line of FILE is a pattern (hs_count only)\n"
                    "  -t N     scan threads (default 1; 0 = every online CPU)\n"
                    "  --read   read the file into memory (pread) instead of mapping it (mmap)\n"
                    "  -r N     time N in-memory scans, report the best (default 1)\n",
            prog);
    exit(2);
}

static void *load_part(void *arg)
{
    part *p = arg;
    size_t off = p->begin;
    while (off < p->end) {
        ssize_t got = pread(p->y->fd, p->y->text + off, p->end - off, (off_t)off);
        if (got <= 0) {
            p->err = got < 0 ? errno : EIO;
            return NULL;
        }
        off += (size_t)got;
    }
    return NULL;
}

/* The part's starts [begin, end) and m - 1 bytes more (not past the end of the text). */
static void *scan_part(void *arg)
{
    part *p = arg;
    const yard *y = p->y;
    size_t stop = p->end + y->m - 1 < y->n ? p->end + y->m - 1 : y->n;
    p->count = 0;
    p->err = p->fn(p->shared, p->index, y->text + p->begin, stop - p->begin, p->end - p->begin,
                   &p->count);
    return NULL;
}

/* Run fn over every part in its own thread (the calling thread takes the first part). */
static void run_parts(const yard *y, part *parts, void *(*fn)(void *))
{
    pthread_t tid[YARD_MAX_THREADS];
    for (int i = 1; i < y->threads; i++)
        if (pthread_create(&tid[i], NULL, fn, &parts[i]) != 0)
            yard_die(y, "pthread_create failed", NULL);
    fn(&parts[0]);
    for (int i = 1; i < y->threads; i++)
        pthread_join(tid[i], NULL);
}

/* Part i of t owns the starts in [part_start(i), part_start(i + 1)): equal shares of n. */
static size_t part_start(size_t n, int t, int i)
{
    size_t q = n / (size_t)t, r = n % (size_t)t, k = (size_t)i;
    return q * k + (k < r ? k : r);
}

static part *new_parts(yard *y)
{
    part *parts = calloc((size_t)y->threads, sizeof *parts);
    if (!parts)
        yard_die(y, "out of memory", NULL);
    for (int i = 0; i < y->threads; i++) {
        parts[i].y = y;
        parts[i].index = i;
        parts[i].begin = part_start(y->n, y->threads, i);
        parts[i].end = part_start(y->n, y->threads, i + 1);
    }
    return parts;
}

/* -f FILE: its lines as patterns (y->pats, lens, npat, m); a bad file ends the program. */
static void read_patterns(yard *y, const char *file)
{
    FILE *f = fopen(file, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        yard_die(y, file, strerror(errno));
    for (;;) {
        if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 1 << 16)))
            yard_die(y, "out of memory for the patterns", NULL);
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    if (ferror(f))
        yard_die(y, file, "read error");
    fclose(f);
    if (n == 0)
        yard_die(y, file, "no pattern in it");
    if (buf[n - 1] != '\n') { /* the last line without its newline */
        if (n == cap && !(buf = realloc(buf, cap + 1)))
            yard_die(y, "out of memory for the patterns", NULL);
        buf[n++] = '\n';
    }
    unsigned lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    y->pats = malloc(lines * sizeof *y->pats);
    y->lens = malloc(lines * sizeof *y->lens);
    if (!y->pats || !y->lens)
        yard_die(y, "out of memory for the patterns", NULL);
    for (size_t b = 0, e = 0; e < n; e++) {
        if (buf[e] != '\n')
            continue;
        if (e == b) {
            char where[64];
            snprintf(where, sizeof where, "line %u is empty (an empty pattern)", y->npat + 1);
            yard_die(y, file, where);
        }
        y->pats[y->npat] = buf + b;
        y->lens[y->npat++] = e - b;
        y->m = e - b > y->m ? e - b : y->m;
        b = e + 1;
    }
    y->pat = y->pats[0];
}

void yard_open(yard *y, const char *prog, int argc, char **argv)
{
    long threads = 1, reps = 1;
    int use_mmap = 1;
    const char *pat = NULL, *path = NULL, *pattern_file = NULL;
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
        else if (!strcmp(a, "-e") && i + 1 < argc && !pat && !pattern_file)
            pat = argv[++i];
        else if (!strcmp(a, "-f") && i + 1 < argc && !pat && !pattern_file)
            pattern_file = argv[++i];
        else if (!strcmp(a, "--") && i + 1 < argc) {
            for (i++; i < argc; i++) {
                if (!pat && !pattern_file)
                    pat = argv[i];
                else if (!path)
                    path = argv[i];
                else
                    usage(prog);
            }
        } else if (a[0] == '-' && a[1])
            usage(prog);
        else if (!pat && !pattern_file)
            pat = a;
        else if (!path)
            path = a;
        else
            usage(prog);
    }
    if ((!pat && !pattern_file) || !path || reps < 1 || threads < 0)
        usage(prog);
    if (threads == 0)
        threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if (threads > YARD_MAX_THREADS)
        threads = YARD_MAX_THREADS;
    memset(y, 0, sizeof *y);
    y->prog = prog;
    y->path = path;
    y->threads = (int)threads;
    y->reps = reps;
    y->use_mmap = use_mmap;
    if (pattern_file) {
        read_patterns(y, pattern_file);
    } else {
        static const char *one[1];
        static size_t one_len[1];
        y->pat = one[0] = pat;
        y->m = one_len[0] = strlen(pat);
        y->pats = one;
        y->lens = one_len;
        y->npat = 1;
    }
    if (y->m == 0)
        yard_die(y, "empty pattern", NULL);

    double t0 = yard_now();
    struct stat st;
    y->fd = open(path, O_RDONLY);
    if (y->fd < 0 || fstat(y->fd, &st) != 0)
        yard_die(y, path, strerror(errno));
    y->n = (size_t)st.st_size;
    if (use_mmap) {
        y->text = y->n ? mmap(NULL, y->n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, y->fd, 0) : NULL;
        if (y->n && y->text == MAP_FAILED)
            yard_die(y, "mmap", strerror(errno));
    } else {
        y->text = malloc(y->n ? y->n : 1);
        if (!y->text)
            yard_die(y, "out of memory for the text", NULL);
        part *parts = new_parts(y);
        run_parts(y, parts, load_part);
        for (int i = 0; i < y->threads; i++)
            if (parts[i].err)
                yard_die(y, path, strerror(parts[i].err));
        free(parts);
    }
    y->load_s = yard_now() - t0;
}

unsigned long long yard_scan(yard *y, yard_count_fn fn, void *shared, const char *fail,
                             double *best)
{
    part *parts = new_parts(y);
    for (int i = 0; i < y->threads; i++) {
        parts[i].fn = fn;
        parts[i].shared = shared;
    }
    unsigned long long count = 0;
    *best = 0;
    for (long r = 0; r < y->reps; r++) {
        double s0 = yard_now();
        run_parts(y, parts, scan_part);
        double s = yard_now() - s0;
        count = 0;
        for (int i = 0; i < y->threads; i++) {
            if (parts[i].err)
                yard_die(y, fail, NULL);
            count += parts[i].count;
        }
        if (r == 0 || s < *best)
            *best = s;
    }
    free(parts);
    return count;
}

void yard_report(const yard *y, unsigned long long count, double best, const char *mid,
                 const char *tail)
{
    printf("%llu\n", count);
    fflush(stdout);
    fprintf(stderr,
            "%s: bytes=%zu m=%zu patterns=%u threads=%d reps=%ld load_s=%.6f %sscan_s=%.6f "
            "scan_gbs=%.3f matches=%llu mode=%s%s\n",
            y->prog, y->n, y->m, y->npat, y->threads, y->reps, y->load_s, mid, best,
            best > 0 ? (double)y->n / best / 1e9 : 0.0, count, y->use_mmap ? "mmap" : "read",
            tail);
}
