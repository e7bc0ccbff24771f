/*
 * set_bench: how one scan scales from one device to several (seed 001). A text (a file's
 * bytes repeated to --size in host memory) is counted by each device set given, and, with
 * --file, a file is counted from the page cache the same way:
 *
 *     set_bench [--reps N] [--size BYTES] [--calibrate BYTES] [--file PATH]
 *               [--algorithm NAME] (-e PATTERN | -f PATTERNS) TEXT SET...
 *     set_bench [--reps N] --lines COLUMN --like PATTERN [--like PATTERN...] SET...
 *
 * SET: P:D[,P:D...] (indices as clmatch --list-devices prints them). Per set: the devices'
 * speeds (each one's tuning profile, --calibrate's measurement, or equal shares), one scan
 * whose matches are hashed in delivery order (every set must give the hash of the first),
 * then timed counts. Memory rows: the wall time of clm_set_count (transfers included) and
 * the set's kernel time, the slowest device's kernel seconds (profiling events) in the
 * call: the text's share on each device as if it were resident there. A markdown table on
 * stdout; exit status 0, 1 when a set disagrees with the first, 2 on an error.
 *
 * With --lines, a file of one value a line is a string column and the LIKE patterns (an OR)
 * select from it: as a host column (clm_set_like_select: rows split by speed, each device's
 * part sent by every call) and resident (each device's rows, split as clm_set_like_select
 * splits them, uploaded once to it; a thread per device selects its part, and the call's
 * time is the slowest thread's).
 *
 * It lives in bench/sets/ because the Makefile links every C file of bench/ into
 * clmatch-bench; bench/sets.sh builds it against the build's libclmatch.a.
 */
#define _POSIX_C_SOURCE 200809L
#include "clmatch.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 100
#define MAX_PATTERNS 200000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(const char *what, int status)
{
    fprintf(stderr, "set_bench: %s: %s (%s)\n", what, clm_strerror(status), clm_last_error());
    return 2;
}

static double gbs(uint64_t bytes, double s) { return s > 0 ? (double)bytes / s / 1e9 : 0; }

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1ull << 10, end++;
    else if (*end == 'M') mul = 1ull << 20, end++;
    else if (*end == 'G') mul = 1ull << 30, end++;
    if (end == s || *end) return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

typedef struct {
    uint64_t hash, count;
    uint64_t file_count; /* the first set's clm_set_count_fd (UINT64_MAX: none yet) */
} digest;

/* FNV-1a over every match's start, end and pattern, in delivery order. */
static int on_match(const clm_match *m, void *ctx)
{
    digest *d = ctx;
    uint64_t v[3] = {m->start, m->end, m->id};
    const unsigned char *b = (const unsigned char *)v;
    for (size_t i = 0; i < sizeof v; i++) d->hash = (d->hash ^ b[i]) * 1099511628211ull;
    d->count++;
    return 0;
}

typedef struct {
    const char *spec;
    unsigned n;
    int plat[CLM_MAX_SET_DEVICES], dev[CLM_MAX_SET_DEVICES];
} set_spec;

static int parse_set(const char *s, set_spec *out)
{
    out->spec = s;
    out->n = 0;
    for (const char *p = s; *p;) {
        char *end;
        long a = strtol(p, &end, 10), b = -1;
        if (end != p && *end == ':') {
            p = end + 1;
            b = strtol(p, &end, 10);
        }
        if (end == p || a < 0 || b < 0 || (*end && *end != ',') ||
            out->n == CLM_MAX_SET_DEVICES)
            return -1;
        out->plat[out->n] = (int)a;
        out->dev[out->n++] = (int)b;
        p = end + (*end == ',');
    }
    return out->n ? 0 : -1;
}

typedef struct {
    unsigned reps;
    uint64_t calibrate;
    const char *file;
    const clm_compile_options *copts;
    const char *const *pats;
    const size_t *lens;
    unsigned npat;
    const char *text;
    size_t len;
} job;

static void device_names(clm_device_set *set, char *out, size_t cap)
{
    out[0] = '\0';
    for (unsigned i = 0; i < clm_device_set_count(set); i++) {
        clm_device_info info;
        clm_device_get_info(clm_device_set_device(set, i), &info, sizeof info);
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%s", i ? " + " : "", info.name);
    }
}

/* Open a set and its speeds: measured when calibrate is not 0 (and the set has several
 * devices), else those in force (profiles or equal shares). */
static int open_set(const set_spec *ss, uint64_t calibrate, clm_device_set **set,
                    double *speeds)
{
    int st = clm_device_set_open(ss->plat, ss->dev, ss->n, set);
    if (st != CLM_OK) return st;
    if (calibrate && ss->n > 1) st = clm_device_set_calibrate(*set, calibrate, speeds);
    else st = clm_device_set_get_speeds(*set, speeds, ss->n);
    return st;
}

/* One set: its row of the table. *first (hash and count of the first set) is set by the
 * first call and checked by the others. */
static int run_set(const set_spec *ss, const job *j, digest *first, int *agree)
{
    clm_device_set *set = NULL;
    clm_set_database *db = NULL;
    clm_set_scratch *s = NULL;
    double speeds[CLM_MAX_SET_DEVICES] = {0};
    int st = open_set(ss, j->calibrate, &set, speeds);
    if (st == CLM_OK)
        st = clm_set_compile(set, j->pats, j->lens, NULL, j->npat, j->copts, &db);
    if (st == CLM_OK) st = clm_set_scratch_alloc(db, NULL, &s);
    digest d = {1469598103934665603ull, 0, 0};
    if (st == CLM_OK)
        st = clm_set_scan(db, s, j->text, j->len, on_match, &d); /* also the warm-up */
    double wall[MAX_REPS], kern[MAX_REPS];
    uint64_t bytes[CLM_MAX_SET_DEVICES] = {0};
    double dev_kernel[CLM_MAX_SET_DEVICES] = {0};
    unsigned reps = 0;
    for (; st == CLM_OK && reps < j->reps; reps++) {
        for (unsigned i = 0; i < ss->n; i++) clm_scratch_reset_stats(clm_set_scratch_get(s, i));
        uint64_t count = 0;
        double t0 = now();
        st = clm_set_count(db, s, j->text, j->len, &count);
        wall[reps] = now() - t0;
        if (st == CLM_OK && count != d.count) {
            fprintf(stderr, "set_bench: %s: clm_set_count %llu, clm_set_scan %llu\n", ss->spec,
                    (unsigned long long)count, (unsigned long long)d.count);
            *agree = 0;
        }
        kern[reps] = 0;
        for (unsigned i = 0; i < ss->n && st == CLM_OK; i++) {
            clm_stats stats;
            clm_scratch_get_stats(clm_set_scratch_get(s, i), &stats, sizeof stats);
            if (stats.kernel_seconds > kern[reps]) kern[reps] = stats.kernel_seconds;
            bytes[i] = stats.bytes;
            if (reps == 0 || stats.kernel_seconds < dev_kernel[i])
                dev_kernel[i] = stats.kernel_seconds;
        }
    }
    double file_s[MAX_REPS];
    unsigned file_reps = 0;
    uint64_t file_bytes = 0, file_count = 0;
    if (st == CLM_OK && j->file) {
        int fd = open(j->file, O_RDONLY);
        if (fd < 0) {
            perror(j->file);
            st = CLM_E_IO;
        }
        for (; fd >= 0 && st == CLM_OK && file_reps < j->reps; file_reps++) {
            double t0 = now();
            st = clm_set_count_fd(db, s, fd, &file_count);
            file_s[file_reps] = now() - t0;
        }
        if (fd >= 0) {
            file_bytes = (uint64_t)lseek(fd, 0, SEEK_END);
            close(fd);
        }
    }
    if (st != CLM_OK) {
        int rc = fail(ss->spec, st);
        clm_set_scratch_free(s);
        clm_set_database_free(db);
        clm_device_set_close(set);
        return rc;
    }
    if (!first->count && !first->hash) {
        *first = d;
        first->file_count = UINT64_MAX;
    } else if (first->hash != d.hash || first->count != d.count)
        *agree = 0;
    char names[512], shares[256] = "", speeds_s[256] = "", kernels[256] = "";
    device_names(set, names, sizeof names);
    for (unsigned i = 0; i < ss->n; i++) {
        size_t a = strlen(shares), b = strlen(speeds_s), c = strlen(kernels);
        snprintf(shares + a, sizeof shares - a, "%s%.2f", i ? " / " : "", (double)bytes[i] / 1e9);
        snprintf(speeds_s + b, sizeof speeds_s - b, "%s%.1f", i ? " / " : "", speeds[i] / 1e9);
        snprintf(kernels + c, sizeof kernels - c, "%s%.1f", i ? " / " : "",
                 gbs(bytes[i], dev_kernel[i]));
    }
    qsort(wall, reps, sizeof *wall, cmp_double);
    qsort(kern, reps, sizeof *kern, cmp_double);
    char file_cell[96] = "";
    if (file_reps) {
        qsort(file_s, file_reps, sizeof *file_s, cmp_double);
        if (first->file_count == UINT64_MAX) first->file_count = file_count;
        else if (file_count != first->file_count) *agree = 0;
        snprintf(file_cell, sizeof file_cell, "%.2f (%.3f s, %llu matches%s)",
                 gbs(file_bytes, file_s[0]), file_s[0], (unsigned long long)file_count,
                 file_count == first->file_count ? "" : ", **differs**");
    }
    printf("| %s | %s | %s | %s | %llu | %s | %.2f | %.2f | %.1f | %s | %s |\n", ss->spec, names,
           speeds_s[0] && speeds[0] > 0 ? speeds_s : "equal", shares,
           (unsigned long long)d.count, first->hash == d.hash && first->count == d.count
           ? "yes" : "**no**", gbs(j->len, wall[0]), gbs(j->len, wall[reps / 2]),
           gbs(j->len, kern[0]), kernels, file_cell);
    fflush(stdout);
    clm_set_scratch_free(s);
    clm_set_database_free(db);
    clm_device_set_close(set);
    return 0;
}

/* ---- records: a column of lines, LIKE over a set ------------------------------------- */

typedef struct {
    clm_column_desc desc;
    char *bytes;
    void *offsets;
} lines_column;

static int load_lines(const char *path, lines_column *c)
{
    size_t n;
    c->bytes = read_all(path, &n);
    if (!c->bytes) {
        perror(path);
        return 2;
    }
    uint64_t rows = 0;
    for (size_t i = 0; i < n; i++) rows += c->bytes[i] == '\n';
    rows += n && c->bytes[n - 1] != '\n';
    int wide = n > INT32_MAX;
    c->offsets = malloc((rows + 1) * (wide ? 8 : 4));
    if (!c->offsets) {
        fputs("set_bench: out of memory\n", stderr);
        return 2;
    }
    size_t w = 0;
    uint64_t r = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n ? (n && c->bytes[n - 1] != '\n') : c->bytes[i] == '\n') {
            r++;
            if (wide) ((int64_t *)c->offsets)[r] = (int64_t)w;
            else ((int32_t *)c->offsets)[r] = (int32_t)w;
        } else if (i < n)
            c->bytes[w++] = c->bytes[i];
    }
    if (wide) ((int64_t *)c->offsets)[0] = 0;
    else ((int32_t *)c->offsets)[0] = 0;
    clm_column_desc_init(&c->desc, sizeof c->desc);
    c->desc.rows = rows;
    c->desc.offset_bits = wide ? 64 : 32;
    c->desc.offsets = c->offsets;
    c->desc.data = c->bytes;
    c->desc.data_bytes = w;
    return 0;
}

/* Rows [from, to) of c as a column of their own (the same bytes). */
static clm_column_desc rows_of(const lines_column *c, uint64_t from, uint64_t to)
{
    clm_column_desc d = c->desc;
    d.rows = to - from;
    d.offsets = (const char *)c->offsets + from * (d.offset_bits / 8);
    return d;
}

typedef struct {
    const clm_like *like;
    const clm_column *col;
    pthread_barrier_t *bar;
    unsigned reps;
    uint64_t count;
    int status;
} part_worker;

static void *part_main(void *arg)
{
    part_worker *w = arg;
    for (unsigned r = 0; r < w->reps; r++) {
        pthread_barrier_wait(w->bar);
        clm_selection sel;
        clm_selection_init(&sel, sizeof sel);
        if (w->status == CLM_OK) w->status = clm_like_select(w->like, w->col, &sel);
        w->count = sel.count;
        pthread_barrier_wait(w->bar);
    }
    return NULL;
}

/* The resident rows: each device's part of the column uploaded to it, the parts selected
 * at once, reps times (after one warm-up). *best gets the fastest call, *count its rows. */
static int resident_parts(const clm_set_like *like, clm_device_set *set, const lines_column *c,
                          const double *speeds, unsigned reps, double *best, uint64_t *count)
{
    unsigned n = clm_device_set_count(set);
    clm_column *host[CLM_MAX_SET_DEVICES] = {0}, *res[CLM_MAX_SET_DEVICES] = {0};
    part_worker w[CLM_MAX_SET_DEVICES];
    pthread_t th[CLM_MAX_SET_DEVICES];
    pthread_barrier_t bar;
    double total = 0;
    for (unsigned i = 0; i < n; i++) total += speeds[i] > 0 ? speeds[i] : 1;
    uint64_t rows = c->desc.rows, from = 0;
    int st = CLM_OK;
    for (unsigned i = 0; i < n && st == CLM_OK; i++) {
        double part = 0;
        for (unsigned k = 0; k <= i; k++) part += speeds[k] > 0 ? speeds[k] : 1;
        uint64_t to = i + 1 == n ? rows : (uint64_t)((double)rows * part / total) / 64 * 64;
        if (to < from) to = from;
        clm_column_desc d = rows_of(c, from, to);
        st = clm_column_wrap(&d, &host[i]);
        if (st == CLM_OK) st = clm_column_upload(clm_device_set_device(set, i), host[i], &res[i]);
        from = to;
    }
    if (st == CLM_OK) {
        pthread_barrier_init(&bar, NULL, n + 1);
        for (unsigned i = 0; i < n; i++) {
            w[i] = (part_worker){clm_set_like_get(like, i), res[i], &bar, reps + 1, 0, CLM_OK};
            pthread_create(&th[i], NULL, part_main, &w[i]);
        }
        *best = 1e30;
        for (unsigned r = 0; r <= reps; r++) {
            pthread_barrier_wait(&bar);
            double t0 = now();
            pthread_barrier_wait(&bar);
            double t = now() - t0;
            if (r && t < *best) *best = t; /* the first call is the warm-up */
        }
        *count = 0;
        for (unsigned i = 0; i < n; i++) {
            pthread_join(th[i], NULL);
            if (w[i].status != CLM_OK) st = w[i].status;
            *count += w[i].count;
        }
        pthread_barrier_destroy(&bar);
    }
    for (unsigned i = 0; i < n; i++) {
        clm_column_free(res[i]);
        clm_column_free(host[i]);
    }
    return st;
}

static int run_like_set(const set_spec *ss, const lines_column *c, const char *const *pats,
                        unsigned npat, unsigned reps, uint64_t calibrate, uint64_t *first,
                        int *agree)
{
    clm_device_set *set = NULL;
    clm_set_like *like = NULL;
    clm_column *col = NULL;
    double speeds[CLM_MAX_SET_DEVICES] = {0};
    int st = open_set(ss, calibrate, &set, speeds);
    if (st == CLM_OK) st = clm_set_like_compile(set, pats, NULL, NULL, npat, '\\', &like);
    if (st == CLM_OK) st = clm_column_wrap(&c->desc, &col);
    uint64_t count = 0;
    double host_best = 1e30;
    for (unsigned r = 0; st == CLM_OK && r <= reps; r++) {
        clm_selection sel;
        clm_selection_init(&sel, sizeof sel);
        double t0 = now();
        st = clm_set_like_select(like, col, &sel);
        double t = now() - t0;
        if (r && t < host_best) host_best = t;
        count = sel.count;
    }
    double res_best = 0;
    uint64_t res_count = 0;
    if (st == CLM_OK) st = resident_parts(like, set, c, speeds, reps, &res_best, &res_count);
    int rc = 0;
    if (st != CLM_OK) rc = fail(ss->spec, st);
    else {
        if (*first == UINT64_MAX) *first = count;
        int same = count == *first && res_count == *first;
        if (!same) *agree = 0;
        char names[512], speeds_s[256] = "";
        device_names(set, names, sizeof names);
        for (unsigned i = 0; i < ss->n; i++) {
            size_t b = strlen(speeds_s);
            snprintf(speeds_s + b, sizeof speeds_s - b, "%s%.1f", i ? " / " : "",
                     speeds[i] / 1e9);
        }
        uint64_t bytes = c->desc.data_bytes;
        printf("| %s | %s | %s | %llu | %s | %.2f (%.4f s) | %.2f (%.4f s) |\n", ss->spec,
               names, speeds[0] > 0 ? speeds_s : "equal", (unsigned long long)count,
               same ? "yes" : "**no**", gbs(bytes, host_best), host_best, gbs(bytes, res_best),
               res_best);
        fflush(stdout);
    }
    clm_column_free(col);
    clm_set_like_free(like);
    clm_device_set_close(set);
    return rc;
}

static int like_main(const char *lines, const char *const *pats, unsigned npat, unsigned reps,
                     uint64_t calibrate, char **sets, int nsets)
{
    lines_column c;
    memset(&c, 0, sizeof c);
    int rc = load_lines(lines, &c);
    if (!rc) {
        printf("LIKE '%s'%s over `%s`: %llu rows, %.3f GB of strings; best of %u calls a "
               "set after a warm-up\n\n", pats[0], npat > 1 ? " OR ..." : "", lines,
               (unsigned long long)c.desc.rows, (double)c.desc.data_bytes / 1e9, reps);
        printf("| set | devices | speeds GB/s | rows | same | host column GB/s | resident "
               "GB/s |\n|---|---|---|---:|---|---:|---:|\n");
    }
    uint64_t first = UINT64_MAX;
    int agree = 1;
    for (int i = 0; i < nsets && !rc; i++) {
        set_spec ss;
        if (parse_set(sets[i], &ss)) {
            fprintf(stderr, "set_bench: %s: expected P:D[,P:D...]\n", sets[i]);
            rc = 2;
        } else
            rc = run_like_set(&ss, &c, pats, npat, reps, calibrate, &first, &agree);
    }
    free(c.bytes);
    free(c.offsets);
    return rc ? rc : agree ? 0 : 1;
}

static int usage(void)
{
    fputs("usage: set_bench [--reps N] [--size BYTES] [--calibrate BYTES] [--file PATH]\n"
          "                 [--algorithm NAME] (-e PATTERN | -f PATTERNS) TEXT SET...\n"
          "       set_bench [--reps N] [--calibrate BYTES] --lines COLUMN --like PATTERN..."
          " SET...\n"
          "SET: P:D[,P:D...]\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    job j;
    memset(&j, 0, sizeof j);
    j.reps = 5;
    uint64_t size = 0;
    const char *pattern = NULL, *pattern_file = NULL, *lines = NULL;
    const char *likes[64];
    unsigned nlike = 0;
    clm_compile_options copts;
    clm_compile_options_init(&copts, sizeof copts);
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!v) return usage();
        if (!strcmp(o, "--reps")) j.reps = (unsigned)atoi(v);
        else if (!strcmp(o, "--size")) {
            if (parse_size(v, &size)) return usage();
        } else if (!strcmp(o, "--calibrate")) {
            if (parse_size(v, &j.calibrate)) return usage();
        } else if (!strcmp(o, "--file")) j.file = v;
        else if (!strcmp(o, "--algorithm")) {
            if (clm_algorithm_from_name(v, &copts.algorithm) != CLM_OK) return usage();
        } else if (!strcmp(o, "-e")) pattern = v;
        else if (!strcmp(o, "-f")) pattern_file = v;
        else if (!strcmp(o, "--lines")) lines = v;
        else if (!strcmp(o, "--like") && nlike < 64) likes[nlike++] = v;
        else return usage();
        a++;
    }
    if (lines || nlike) {
        if (!lines || !nlike || j.reps < 1 || argc - a < 1) return usage();
        return like_main(lines, likes, nlike, j.reps, j.calibrate, argv + a, argc - a);
    }
    if (j.reps < 1 || j.reps > MAX_REPS || argc - a < 2 || !pattern == !pattern_file)
        return usage();
    static const char *pats[MAX_PATTERNS];
    static size_t lens[MAX_PATTERNS];
    char *pbuf = NULL;
    if (pattern) {
        pats[0] = pattern;
        lens[0] = strlen(pattern);
        j.npat = 1;
    } else {
        size_t plen;
        pbuf = read_all(pattern_file, &plen);
        if (!pbuf) {
            perror(pattern_file);
            return 2;
        }
        for (size_t i = 0, st = 0; i < plen; i++)
            if (pbuf[i] == '\n') {
                if (i > st && j.npat < MAX_PATTERNS) {
                    pats[j.npat] = pbuf + st;
                    lens[j.npat++] = i - st;
                }
                st = i + 1;
            }
        if (!j.npat) {
            fprintf(stderr, "set_bench: %s: no pattern\n", pattern_file);
            return 2;
        }
    }
    size_t flen;
    char *file = read_all(argv[a], &flen);
    if (!file || !flen) {
        fprintf(stderr, "set_bench: %s: unreadable or empty\n", argv[a]);
        return 2;
    }
    j.len = size ? (size_t)size : flen;
    char *text = malloc(j.len);
    if (!text) {
        fputs("set_bench: out of memory\n", stderr);
        return 2;
    }
    for (size_t o = 0; o < j.len; o += flen)
        memcpy(text + o, file, j.len - o < flen ? j.len - o : flen);
    free(file);
    j.text = text;
    j.pats = pats;
    j.lens = lens;
    j.copts = &copts;
    printf("%u pattern(s) (%s), %.2f GB of `%s` in host memory, %u timed counts a set\n\n",
           j.npat, clm_algorithm_name(copts.algorithm), (double)j.len / 1e9, argv[a], j.reps);
    printf("| set | devices | speeds GB/s | share GB | matches | same | memory GB/s best "
           "| median | kernel GB/s (set) | kernel GB/s per device | file GB/s |\n"
           "|---|---|---|---|---:|---|---:|---:|---:|---|---:|\n");
    digest first = {0, 0, 0};
    int agree = 1, rc = 0;
    for (int i = a + 1; i < argc && rc != 2; i++) {
        set_spec ss;
        if (parse_set(argv[i], &ss)) {
            fprintf(stderr, "set_bench: %s: expected P:D[,P:D...]\n", argv[i]);
            rc = 2;
            break;
        }
        rc = run_set(&ss, &j, &first, &agree);
    }
    free(text);
    free(pbuf);
    return rc ? rc : agree ? 0 : 1;
}
