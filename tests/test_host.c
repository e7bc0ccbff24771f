/*
 * The host search (clm_host_*, host/hostscan.c): against the CPU reference (t_reference) on
 * random, periodic and caseless text, with matches planted at every edge of the threads'
 * parts (CLMATCH_HOST_THREADS forces several parts on a small input), file ranges at
 * unaligned offsets, a pipe read block by block, a stop from the callback, the device's own
 * clm_scan, and what it refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"

/* Part i of a round of L bytes in N parts starts at L * i / N (host/hostscan.c). */
static void set_threads(unsigned n)
{
    char v[16];
    if (n == 0) {
        unsetenv("CLMATCH_HOST_THREADS");
        return;
    }
    snprintf(v, sizeof v, "%u", n);
    setenv("CLMATCH_HOST_THREADS", v, 1);
}

/* t_collect, also checking the fields clm_scan gives an exact match. */
static int collect(const clm_match *m, void *ctx)
{
    if (m->strand != 1 || m->edits != 0 || m->end <= m->start)
        T_FAIL("match [%llu, %llu) strand %d edits %u", (unsigned long long)m->start,
               (unsigned long long)m->end, m->strand, m->edits);
    return t_collect(m, ctx);
}

static int compile1(const unsigned char *pat, size_t m, unsigned id, unsigned flags,
                    clm_host_database **out)
{
    clm_compile_options o;
    const char *p = (const char *)pat;
    clm_compile_options_init(&o, sizeof o);
    o.flags = flags;
    return clm_host_compile(&p, &m, &id, 1, &o, out);
}

/* Scan and count text with pattern pat under threads n (0: auto); compare with the
 * reference. 1 when they agree. */
static int check(const unsigned char *text, size_t len, const unsigned char *pat, size_t m,
                 int caseless, unsigned n, const char *what)
{
    const unsigned char *pats[1] = {pat};
    const unsigned id = 7;
    t_patset ps = {pats, &m, &id, 1, caseless};
    t_matches want, got, serial;
    clm_host_database *db;
    uint64_t count = 0;
    char buf[512];
    int ok = 1;
    if (!EXPECT_RC(compile1(pat, m, id, caseless ? CLM_CASELESS : 0, &db), CLM_OK)) return 0;
    t_matches_init(&want);
    t_matches_init(&got);
    t_matches_init(&serial);
    t_reference(text, len, &ps, &want);
    set_threads(n);
    ok &= EXPECT_RC(clm_host_scan(db, text, len, collect, &got), CLM_OK);
    ok &= EXPECT_RC(clm_host_count(db, text, len, &count), CLM_OK);
    set_threads(0);
    if (t_matches_diff(&got, &want, buf, sizeof buf))
        ok = T_FAIL("%s (m %zu, threads %u): %s", what, m, n, buf);
    if (n == 0) { /* on this thread alone: the same matches */
        ok &= EXPECT_RC(clm_host_scan_serial(db, text, len, collect, &serial), CLM_OK);
        if (t_matches_diff(&serial, &want, buf, sizeof buf))
            ok = T_FAIL("%s (m %zu, serial): %s", what, m, buf);
    }
    t_matches_free(&serial);
    if (count != want.n)
        ok = T_FAIL("%s (m %zu, threads %u): count %llu, reference %zu", what, m, n,
                    (unsigned long long)count, want.n);
    t_matches_free(&want);
    t_matches_free(&got);
    clm_host_database_free(db);
    return ok;
}

static void test_random(const void *arg)
{
    static const unsigned alphas[] = {2, 4, 26, 256};
    static const size_t lens[] = {1, 2, 3, 5, 16, 17, 40};
    static const unsigned threads[] = {0, 1, 3, 7};
    const int caseless = arg != NULL;
    t_rng r;
    t_rng_init(&r, caseless ? "host.caseless" : "host.random", 0);
    const size_t n = t_quick ? 200000 : 1000000;
    for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++) {
        unsigned char *text = t_random_text(&r, n, alphas[a]);
        if (caseless) /* every letter in either case */
            for (size_t i = 0; i < n; i++)
                if (text[i] >= 'a' && text[i] <= 'z' && t_below(&r, 2)) text[i] -= 32;
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            unsigned char pat[64];
            memcpy(pat, text + t_below(&r, n - lens[l]), lens[l]); /* it occurs */
            if (caseless)
                for (size_t i = 0; i < lens[l]; i++)
                    if (pat[i] >= 'a' && pat[i] <= 'z' && t_below(&r, 2)) pat[i] -= 32;
            for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
                if (!check(text, n, pat, lens[l], caseless, threads[t], "random")) break;
        }
        free(text);
    }
}

/* Every start matches: overlapping matches at every part edge. */
static void test_periodic(const void *arg)
{
    (void)arg;
    size_t n = 100003;
    unsigned char *text = malloc(n);
    REQUIRE(text);
    memset(text, 'a', n);
    for (unsigned t = 0; t <= 9; t += 3) {
        check(text, n, (const unsigned char *)"aaa", 3, 0, t, "aaaa");
        check(text, n, (const unsigned char *)"a", 1, 0, t, "aaaa");
        check(text, n, (const unsigned char *)"AaA", 3, 1, t, "aaaa caseless");
        check(text, n, (const unsigned char *)"AaA", 3, 0, t, "aaaa, AaA exact (none)");
    }
    for (size_t i = 0; i < n; i += 2) text[i] = 'A';
    check(text, n, (const unsigned char *)"aAa", 3, 1, 4, "AaAa caseless");
    check(text, n, (const unsigned char *)"aAa", 3, 0, 4, "AaAa exact");
    /* DNA-like: a pattern of few distinct bytes takes four filter bytes */
    for (size_t i = 0; i < n; i++) text[i] = "ACGT"[(i * 7 + i / 5) % 4];
    check(text, n, text + 1000, 13, 0, 5, "dna");
    check(text, n, text + 99990, 13, 1, 5, "dna caseless");
    free(text);
}

/* One occurrence planted at each offset around each edge of N parts. */
static void test_edges(const void *arg)
{
    (void)arg;
    static const unsigned parts[] = {2, 3, 7, 16};
    static const unsigned char pat[] = "#Q@Z!"; /* none of these bytes in the text */
    const size_t m = 5, n = 4099;
    t_rng r;
    t_rng_init(&r, "host.edges", 0);
    unsigned char *base = t_random_text(&r, n, 26), *text = malloc(n);
    REQUIRE(text);
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
        for (unsigned i = 1; i < parts[p]; i++) {
            const size_t edge = n * i / parts[p];
            for (size_t d = 0; d <= m + 1; d++) {
                if (edge + 1 < d || edge + 1 - d + m > n) continue;
                const size_t at = edge + 1 - d; /* edge - m .. edge + 1 */
                memcpy(text, base, n);
                memcpy(text + at, pat, m);
                if (!check(text, n, pat, m, 0, parts[p], "planted at an edge") ||
                    !check(text, n, (const unsigned char *)"#q@z!", m, 1, parts[p],
                           "planted at an edge, caseless")) {
                    t_note("parts %u, edge %zu, match at %zu", parts[p], edge, at);
                    goto out;
                }
            }
        }
    /* the last bytes of the input, and a pattern as long as the input */
    memcpy(text, base, n);
    memcpy(text + n - m, pat, m);
    check(text, n, pat, m, 0, 3, "at the end");
    check(text, n, text, n, 0, 3, "the whole input");
    check(text, n - 1, text, n, 0, 3, "longer than the input");
out:
    free(base);
    free(text);
}

static int write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}

/* Ranges of a file at unaligned offsets against the reference of the same bytes. */
static void test_file_range(const void *arg)
{
    (void)arg;
    const size_t n = 3000001, m = 6;
    t_rng r;
    t_rng_init(&r, "host.file", 0);
    unsigned char *text = t_random_text(&r, n, 4);
    char *dir = t_tempdir("host"), path[4096];
    REQUIRE(text && dir);
    const unsigned char *pat = text + 777;
    snprintf(path, sizeof path, "%s/text", dir);
    int fd = -1;
    if (!EXPECT(write_file(path, text, n)) || !EXPECT((fd = open(path, O_RDONLY)) >= 0))
        goto out;
    clm_host_database *db;
    if (!EXPECT_RC(compile1(pat, m, 0, 0, &db), CLM_OK)) goto out;
    static const uint64_t offs[] = {0, 1, 4095, 12345, 1048577, 2999990};
    for (size_t o = 0; o < sizeof offs / sizeof *offs; o++)
        for (unsigned t = 0; t <= 5; t += 5) {
            const uint64_t off = offs[o];
            /* odd cases: an explicit length; the others up to the end */
            const size_t real = o % 2 && n - off > 1000003 ? 1000003 : n - (size_t)off;
            const uint64_t len = o % 2 ? real : CLM_FD_TO_END;
            const unsigned char *pats[1] = {pat};
            const unsigned id = 0;
            t_patset ps = {pats, &m, &id, 1, 0};
            t_matches want, got;
            uint64_t count = 0;
            char buf[512];
            t_matches_init(&want);
            t_matches_init(&got);
            t_reference(text + off, real, &ps, &want);
            set_threads(t);
            lseek(fd, 5, SEEK_SET);
            EXPECT_RC(clm_host_scan_fd_range(db, fd, off, len, collect, &got), CLM_OK);
            EXPECT_RC(clm_host_count_fd_range(db, fd, off, len, &count), CLM_OK);
            set_threads(0);
            EXPECT(lseek(fd, 0, SEEK_CUR) == 5); /* the fd's offset is not moved */
            if (t_matches_diff(&got, &want, buf, sizeof buf))
                T_FAIL("range at %llu (threads %u): %s", (unsigned long long)off, t, buf);
            if (count != want.n)
                T_FAIL("range at %llu: count %llu, reference %zu", (unsigned long long)off,
                       (unsigned long long)count, want.n);
            t_matches_free(&want);
            t_matches_free(&got);
        }
    /* the whole file through clm_host_scan_fd; ranges at and past the end */
    uint64_t c1 = 0, c2 = 0, c3 = 99;
    EXPECT_RC(clm_host_count_fd(db, fd, &c1), CLM_OK);
    EXPECT_RC(clm_host_count(db, text, n, &c2), CLM_OK);
    EXPECT(c1 == c2 && c1 > 0);
    EXPECT_RC(clm_host_count_fd_range(db, fd, n, CLM_FD_TO_END, &c3), CLM_OK);
    EXPECT(c3 == 0);
    EXPECT_RC(clm_host_count_fd_range(db, fd, n + 10, CLM_FD_TO_END, &c3), CLM_OK);
    EXPECT(c3 == 0);
    EXPECT_RC(clm_host_count_fd_range(db, fd, n - 10, 11, &c3), CLM_E_INVALID);
    EXPECT_RC(clm_host_count_fd_range(db, fd, n + 1, 0, &c3), CLM_E_INVALID);
    EXPECT_RC(clm_host_count_fd_range(db, fd, n, 0, &c3), CLM_OK);
    clm_host_database_free(db);
out:
    if (fd >= 0) close(fd);
    free(text);
    t_rmtree(dir);
    free(dir);
}

typedef struct {
    int fd;
    const unsigned char *p;
    size_t n;
} writer;

static void *write_pipe(void *arg)
{
    writer *w = arg;
    for (size_t done = 0; done < w->n;) { /* in odd pieces: the reader gets short reads */
        size_t piece = w->n - done < 65537 ? w->n - done : 65537;
        ssize_t k = write(w->fd, w->p + done, piece);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done += (size_t)k;
    }
    close(w->fd);
    return NULL;
}

/* Scan (or count) text through a pipe; the reference of the same bytes. */
static void pipe_case(const clm_host_database *db, const unsigned char *pat, size_t m,
                      const unsigned char *text, size_t n, int count_only, const char *what)
{
    int fds[2];
    pthread_t th;
    REQUIRE(pipe(fds) == 0);
    writer w = {fds[1], text, n};
    if (!EXPECT(pthread_create(&th, NULL, write_pipe, &w) == 0)) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    const unsigned char *pats[1] = {pat};
    const unsigned id = 0;
    t_patset ps = {pats, &m, &id, 1, 0};
    t_matches want, got;
    uint64_t count = 0;
    char buf[512];
    t_matches_init(&want);
    t_matches_init(&got);
    t_reference(text, n, &ps, &want);
    if (count_only) {
        EXPECT_RC(clm_host_count_fd(db, fds[0], &count), CLM_OK);
        if (count != want.n) T_FAIL("%s: count %llu, reference %zu", what,
                                    (unsigned long long)count, want.n);
    } else {
        EXPECT_RC(clm_host_scan_fd(db, fds[0], collect, &got), CLM_OK);
        if (t_matches_diff(&got, &want, buf, sizeof buf)) T_FAIL("%s: %s", what, buf);
    }
    char rest;
    EXPECT(read(fds[0], &rest, 1) == 0); /* read to its end */
    pthread_join(th, NULL);
    close(fds[0]);
    t_matches_free(&want);
    t_matches_free(&got);
}

/* A pipe of three 4 MiB blocks (one thread), matches planted across each block's end; the
 * same text in memory, in rounds. */
static void test_pipe(const void *arg)
{
    (void)arg;
    const size_t block = (size_t)4 << 20, n = 2 * block + 100000, m = 8;
    static const unsigned char pat[] = "xyzzyxyz";
    t_rng r;
    t_rng_init(&r, "host.pipe", 0);
    unsigned char *text = t_random_text(&r, n, 4);
    REQUIRE(text);
    for (size_t b = block; b < n; b += block)
        for (size_t at = b - m; at <= b + 1; at += 3) memcpy(text + at, pat, m);
    memcpy(text, pat, m);
    memcpy(text + n - m, pat, m);
    clm_host_database *db;
    REQUIRE_RC(compile1(pat, m, 0, 0, &db), CLM_OK);
    /* the same text in memory: rounds of 4 MiB (one thread) and 8 MiB (two) */
    check(text, n, pat, m, 0, 1, "rounds of one part");
    check(text, n, pat, m, 0, 2, "rounds of two parts");
    set_threads(1);
    pipe_case(db, pat, m, text, n, 0, "pipe");
    pipe_case(db, pat, m, text, n, 1, "pipe, count");
    set_threads(3); /* one block: the parts of a buffer */
    pipe_case(db, pat, m, text, n, 0, "pipe, 3 threads");
    set_threads(0);
    pipe_case(db, pat, m, text, 3, 0, "pipe shorter than the pattern");
    int fds[2];
    uint64_t c;
    if (EXPECT(pipe(fds) == 0)) {
        EXPECT_RC(clm_host_count_fd_range(db, fds[0], 1, CLM_FD_TO_END, &c), CLM_E_INVALID);
        close(fds[0]);
        close(fds[1]);
    }
    clm_host_database_free(db);
    free(text);
}

/* A callback that returns non-zero stops the scan: CLM_STOPPED, the first matches only. */
static void test_stop(const void *arg)
{
    (void)arg;
    size_t n = 50000;
    unsigned char *text = malloc(n);
    REQUIRE(text);
    memset(text, 'a', n);
    clm_host_database *db;
    REQUIRE_RC(compile1((const unsigned char *)"aa", 2, 0, 0, &db), CLM_OK);
    t_matches got;
    t_matches_init(&got);
    got.limit = 12345;
    set_threads(4);
    EXPECT_RC(clm_host_scan(db, text, n, collect, &got), CLM_STOPPED);
    set_threads(0);
    EXPECT(got.n == 12345);
    for (size_t i = 0; i < got.n; i++)
        if (got.v[i].start != i) {
            T_FAIL("match %zu starts at %llu", i, (unsigned long long)got.v[i].start);
            break;
        }
    t_matches_free(&got);
    t_matches_init(&got);
    got.limit = 777;
    EXPECT_RC(clm_host_scan_serial(db, text, n, collect, &got), CLM_STOPPED);
    EXPECT(got.n == 777 && got.v[776].start == 776);
    t_matches_free(&got);
    clm_host_database_free(db);
    free(text);
}

/* The parts clm_host_threads says clm_host_scan makes: 1 MiB at least, the env's count. */
static void test_threads(const void *arg)
{
    (void)arg;
    unsigned t = 0, all = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    set_threads(0);
    EXPECT_RC(clm_host_threads(0, &t), CLM_OK);
    EXPECT(t == 1);
    EXPECT_RC(clm_host_threads(((uint64_t)2 << 20) - 1, &t), CLM_OK);
    EXPECT(t == 1);
    EXPECT_RC(clm_host_threads((uint64_t)1 << 40, &all), CLM_OK);
    EXPECT(all >= 1 && all <= CLM_HOST_MAX_THREADS && (cpus < 1 || all <= (unsigned long)cpus));
    EXPECT_RC(clm_host_threads((uint64_t)3 << 20, &t), CLM_OK);
    EXPECT(t == (all < 3 ? all : 3));
    set_threads(5);
    EXPECT_RC(clm_host_threads(10, &t), CLM_OK);
    EXPECT(t == 5);
    setenv("CLMATCH_HOST_THREADS", "65", 1);
    EXPECT_RC(clm_host_threads(10, &t), CLM_E_INVALID);
    set_threads(0);
    EXPECT_RC(clm_host_threads(10, NULL), CLM_E_INVALID);
}

/* The same matches as the device's clm_scan, caseless included. */
static void test_vs_device(const void *arg)
{
    (void)arg;
    t_rng r;
    t_rng_init(&r, "host.device", 0);
    const size_t n = 500000;
    unsigned char *text = t_random_text(&r, n, 26);
    for (size_t i = 0; i < n; i += 3) text[i] = (unsigned char)(text[i] - 32);
    for (int caseless = 0; caseless <= 1; caseless++) {
        const unsigned char *pats[1] = {(const unsigned char *)"eFg"};
        const size_t m = 3;
        const unsigned id = 3;
        t_patset ps = {pats, &m, &id, 1, caseless};
        clm_database *ddb = NULL;
        clm_scratch *s = NULL;
        clm_host_database *hdb;
        t_matches want, got;
        char buf[512];
        t_matches_init(&want);
        t_matches_init(&got);
        if (EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO,
                                caseless ? CLM_CASELESS : 0, 0, 0, &ddb), CLM_OK) &&
            EXPECT_RC(clm_scratch_alloc(ddb, NULL, &s), CLM_OK) &&
            EXPECT_RC(clm_scan(ddb, s, text, n, t_collect, &want), CLM_OK) &&
            EXPECT_RC(compile1(pats[0], m, id, caseless ? CLM_CASELESS : 0, &hdb), CLM_OK)) {
            EXPECT_RC(clm_host_scan(hdb, text, n, collect, &got), CLM_OK);
            if (t_matches_diff(&got, &want, buf, sizeof buf))
                T_FAIL("caseless %d: host vs device: %s", caseless, buf);
            EXPECT(want.n > 0);
            clm_host_database_free(hdb);
        }
        clm_scratch_free(s);
        clm_database_free(ddb);
        t_matches_free(&want);
        t_matches_free(&got);
    }
    free(text);
}

static void test_refused(const void *arg)
{
    (void)arg;
    const char *two[2] = {"ab", "cd"}, *one[1] = {"ab"}, *none[1] = {NULL};
    clm_compile_options o;
    clm_host_database *db = (clm_host_database *)&o; /* set to NULL on error */
    uint64_t c;
    EXPECT_RC(clm_host_compile(two, NULL, NULL, 2, NULL, &db), CLM_E_UNSUPPORTED);
    EXPECT(db == NULL && clm_last_error()[0] != '\0');
    clm_compile_options_init(&o, sizeof o);
    o.flags = CLM_CLASSES;
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_UNSUPPORTED);
    o.flags = CLM_DNA;
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_UNSUPPORTED);
    o.flags = CLM_MISMATCHES_ONLY;
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_UNSUPPORTED);
    o.flags = 0;
    o.max_errors = 1;
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_UNSUPPORTED);
    o.max_errors = 0;
    o.algorithm = CLM_ALGO_KMP;
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_UNSUPPORTED);
    o.algorithm = CLM_ALGO_AUTO;
    o.flags = 1u << 20;
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_INVALID);
    o.flags = 0;
    o.size = 0; /* not initialised */
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, &o, &db), CLM_E_INVALID);
    EXPECT_RC(clm_host_compile(NULL, NULL, NULL, 1, NULL, &db), CLM_E_INVALID);
    EXPECT_RC(clm_host_compile(none, NULL, NULL, 1, NULL, &db), CLM_E_INVALID);
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 0, NULL, &db), CLM_E_INVALID);
    EXPECT_RC(clm_host_compile(one, NULL, NULL, 1, NULL, NULL), CLM_E_INVALID);
    size_t zero = 0, big = CLM_MAX_PATTERN_LENGTH + 1;
    EXPECT_RC(clm_host_compile(one, &zero, NULL, 1, NULL, &db), CLM_E_EMPTY_PATTERN);
    EXPECT_RC(clm_host_compile(one, &big, NULL, 1, NULL, &db), CLM_E_PATTERN_TOO_LONG);
    REQUIRE_RC(clm_host_compile(one, NULL, NULL, 1, NULL, &db), CLM_OK);
    t_matches got;
    t_matches_init(&got);
    EXPECT_RC(clm_host_scan(NULL, "ab", 2, collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan(db, "ab", 2, NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan(db, NULL, 2, collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan(db, NULL, 0, collect, &got), CLM_OK);
    EXPECT_RC(clm_host_scan_serial(NULL, "ab", 2, collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan_serial(db, "ab", 2, NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan_serial(db, NULL, 2, collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan_serial(db, NULL, 0, collect, &got), CLM_OK);
    EXPECT_RC(clm_host_count(db, "ab", 2, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_host_count_fd(db, -1, &c), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan_fd(NULL, 0, collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_host_scan_fd(db, 0, NULL, NULL), CLM_E_INVALID);
    setenv("CLMATCH_HOST_THREADS", "0", 1);
    EXPECT_RC(clm_host_count(db, "ab", 2, &c), CLM_E_INVALID);
    setenv("CLMATCH_HOST_THREADS", "many", 1);
    EXPECT_RC(clm_host_count(db, "ab", 2, &c), CLM_E_INVALID);
    setenv("CLMATCH_HOST_THREADS", "auto", 1);
    EXPECT_RC(clm_host_count(db, "xaby", 4, &c), CLM_OK);
    EXPECT(c == 1);
    set_threads(0);
    EXPECT(got.n == 0);
    t_matches_free(&got);
    clm_host_database_free(db);
    clm_host_database_free(NULL);
}

void register_host_tests(void)
{
    static const int yes = 1;
    t_register("host.random", test_random, NULL, 1);
    t_register("host.caseless", test_random, &yes, 1);
    t_register("host.periodic", test_periodic, NULL, 1);
    t_register("host.edges", test_edges, NULL, 1);
    t_register("host.file_range", test_file_range, NULL, 1);
    t_register("host.pipe", test_pipe, NULL, 0);
    t_register("host.stop", test_stop, NULL, 1);
    t_register("host.threads", test_threads, NULL, 1);
    t_register("host.vs_device", test_vs_device, NULL, 1);
    t_register("host.refused", test_refused, NULL, 1);
}
