/*
 * Data paths (copy, pinned, zero-copy, SVM), file scans (clm_scan_fd, clm_count_fd) and the
 * memory budget (max_memory): every path and the fd scans give the reference's matches, with
 * slabs small enough that matches straddle them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "t_ref.h"

/* ---- a case: patterns, a database, a scratch on one path ------------------------------- */

typedef struct {
    t_fset fs;
    clm_algorithm algo;
    unsigned extra_flags; /* compile flags the reference does not take (CLM_DNA) */
    clm_switch packing;
    clm_database *db;
    clm_scratch *s;
    t_matches got, want;
    char tmp[4096]; /* a file holding the text, for the fd scans */
} pcase;

static void pcase_init(pcase *c)
{
    memset(c, 0, sizeof *c);
    t_matches_init(&c->got);
    t_matches_init(&c->want);
}

static void pcase_free(pcase *c)
{
    clm_scratch_free(c->s);
    clm_database_free(c->db);
    t_matches_free(&c->got);
    t_matches_free(&c->want);
    c->s = NULL;
    c->db = NULL;
}

static int pcase_compile(pcase *c, const char *what)
{
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = c->algo;
    o.flags = c->fs.flags | c->extra_flags;
    o.packing = c->packing;
    o.max_errors = c->fs.k;
    int rc = clm_compile(t_dev, (const char *const *)c->fs.pats, c->fs.lens, NULL, c->fs.count,
                         &o, &c->db);
    if (rc != CLM_OK) {
        c->db = NULL;
        return T_FAIL("%s: clm_compile: %s: %s", what, clm_strerror(rc), clm_last_error());
    }
    return 1;
}

/* One exact pattern p (lens[0] bytes, pats and lens owned by the caller), auto algorithm, the
 * text file in dir; compiled. */
static int pcase_one(pcase *c, const char *dir, const unsigned char **pats, size_t *lens,
                     const unsigned char *p, const char *what)
{
    snprintf(c->tmp, sizeof c->tmp, "%s/text", dir);
    pats[0] = p;
    c->fs.pats = pats;
    c->fs.lens = lens;
    c->fs.count = 1;
    c->algo = CLM_ALGO_AUTO;
    return pcase_compile(c, what);
}

/* A scratch on `path` with this slab (and budget, and slots: 0 for the defaults); 0 after a
 * failure, -1 when the device cannot do the path (the test is skipped with a note). */
static int pcase_scratch_slots(pcase *c, clm_data_path path, size_t slab, size_t budget,
                               unsigned slots)
{
    clm_scratch_options so;
    clm_scratch_info info;
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = slab;
    so.data_path = path;
    so.max_memory = budget;
    so.slots = slots;
    clm_scratch_free(c->s);
    c->s = NULL;
    int rc = clm_scratch_alloc(c->db, &so, &c->s);
    if (rc == CLM_E_UNSUPPORTED && path == CLM_PATH_SVM) {
        /* only where the device lacks coarse-grained SVM buffers (CL_DEVICE_SVM_...: 1) */
        if (!EXPECT((t_devinfo.svm_capabilities & 1u) == 0)
            || !EXPECT(strstr(clm_last_error(), "copy") != NULL))
            t_note("svm refused: %s", clm_last_error());
        return -1;
    }
    if (rc != CLM_OK) {
        c->s = NULL;
        return T_FAIL("clm_scratch_alloc(path %s, slab %zu): %s: %s", clm_data_path_name(path),
                      slab, clm_strerror(rc), clm_last_error());
    }
    if (EXPECT_RC(clm_scratch_get_info(c->s, &info, sizeof info), CLM_OK)
        && (!EXPECT(info.data_path == path || (path == CLM_PATH_AUTO && info.data_path))
            || !EXPECT(info.slab_bytes == slab || budget)))
        t_note("asked for %s, slab %zu; info: %s, slab %zu", clm_data_path_name(path), slab,
               clm_data_path_name(info.data_path), info.slab_bytes);
    return 1;
}

static int pcase_scratch(pcase *c, clm_data_path path, size_t slab, size_t budget)
{
    return pcase_scratch_slots(c, path, slab, budget, 0);
}

static int write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    return ok ? 1 : T_FAIL("cannot write %s: %s", path, strerror(errno));
}

/* clm_scan_fd of fd's file against the reference want; 1 when they agree. */
static int fd_agrees(pcase *c, int fd, const char *desc)
{
    char diff[512];
    t_matches_clear(&c->got);
    if (!EXPECT_RC(clm_scan_fd(c->db, c->s, fd, t_collect, &c->got), CLM_OK))
        return 0;
    if (t_matches_diff(&c->got, &c->want, diff, sizeof diff))
        return T_FAIL("%s: clm_scan_fd: %s", desc, diff);
    return 1;
}

/* clm_scan, clm_count, clm_scan_fd, clm_count_fd and a stream in uneven pieces, each against
 * the reference. */
static void pcase_check(pcase *c, const unsigned char *text, size_t n, const char *what)
{
    char diff[512], desc[160];
    uint64_t count = 0, total = 0;
    clm_scratch_info info;
    clm_stream *st = NULL;
    int fd;

    if (!c->db || !c->s || clm_scratch_get_info(c->s, &info, sizeof info) != CLM_OK) return;
    snprintf(desc, sizeof desc, "%s, path %s, slab %zu, n %zu, k %u", what,
             clm_data_path_name(info.data_path), info.slab_bytes, n, c->fs.k);
    t_matches_clear(&c->want);
    if (t_reference_ex(text, n, &c->fs, &c->want) != 0) {
        T_FAIL("%s: the reference cannot parse a pattern (test bug)", desc);
        return;
    }
    t_check_scan(c->db, c->s, text, n, &c->want, &c->got, desc, "memory");

    if (!write_file(c->tmp, text, n)) return;
    fd = open(c->tmp, O_RDONLY);
    if (fd < 0) {
        T_FAIL("cannot open %s: %s", c->tmp, strerror(errno));
        return;
    }
    fd_agrees(c, fd, desc);
    count = 0;
    if (EXPECT_RC(clm_count_fd(c->db, c->s, fd, &count), CLM_OK) && count != c->want.n)
        T_FAIL("%s: clm_count_fd %llu, reference %zu", desc, (unsigned long long)count,
               c->want.n);
    close(fd);

    /* pieces of 1 .. 5000 bytes: the stream fills the slots' staging in turn */
    t_matches_clear(&c->got);
    if (EXPECT_RC(clm_stream_open(c->db, c->s, 0, &st), CLM_OK)) {
        size_t done = 0, step = 1;
        int rc = CLM_OK;
        while (done < n && rc == CLM_OK) {
            size_t take = n - done < step ? n - done : step;
            rc = clm_stream_write(st, text + done, take, t_collect, &c->got);
            done += take;
            step = step * 7 % 5003 + 1;
        }
        EXPECT_RC(rc, CLM_OK);
        if (EXPECT_RC(clm_stream_close(st, t_collect, &c->got, &total), CLM_OK)
            && t_matches_diff(&c->got, &c->want, diff, sizeof diff))
            T_FAIL("%s: stream: %s", desc, diff);
        EXPECT(total == c->want.n);
    }
}

/* Random ACGT text (16-byte aligned, so zero-copy may read it in place) with runs of A and
 * mutated copies of p planted. */
static unsigned char *path_text(t_rng *r, size_t n, const unsigned char *p, size_t m)
{
    unsigned char *text = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    if (!text) abort();
    t_fill(r, text, n, 4);
    for (size_t at = 0; at + 64 < n; at += 200 + t_below(r, 400)) {
        size_t run = 4 + t_below(r, 20);
        if (t_below(r, 2)) {
            memset(text + at, 'A', run);
        } else {
            memcpy(text + at, p, m);
            for (unsigned e = (unsigned)t_below(r, 3); e > 0; e--) /* substitutions */
                text[at + t_below(r, m)] = t_symbol(4, t_below(r, 4));
            if (t_below(r, 3) == 0) /* and an insertion or deletion */
                memmove(text + at + 3, text + at + 2, m);
        }
    }
    return text;
}

static const clm_data_path paths[] = {CLM_PATH_COPY, CLM_PATH_PINNED, CLM_PATH_ZERO_COPY,
                                      CLM_PATH_SVM};

/* One data path: exact search (two patterns, random and all-match text), edit distance
 * k = 2 (LEAD bytes before each slab) and a packed DNA database, with slabs of 4096 (aligned
 * slab starts: zero-copy reads them in place) and 4099 (unaligned: copied). */
static void test_path(const void *arg)
{
    const clm_data_path path = *(const clm_data_path *)arg;
    size_t n = t_smoke ? 9000 : 30000;
    size_t lens[2] = {5, 4};
    unsigned char *p5 = t_pattern(4, 5), *p12 = t_pattern(4, 12), *text = NULL, *all = NULL;
    const unsigned char *pats[2];
    char *dir = t_tempdir("path");
    pcase c;
    t_rng r;

    pcase_init(&c);
    t_rng_init(&r, "path", (uint64_t)path);
    if (!dir) goto out;
    snprintf(c.tmp, sizeof c.tmp, "%s/text", dir);
    text = path_text(&r, n, p12, 12);
    all = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    if (!all) abort();
    memset(all, 'A', n);

    /* exact, two patterns */
    pats[0] = p5;
    pats[1] = (const unsigned char *)"AAAA";
    c.fs.pats = pats;
    c.fs.lens = lens;
    c.fs.count = 2;
    c.algo = CLM_ALGO_AUTO;
    if (pcase_compile(&c, "exact")) {
        for (size_t slab = 4096; slab <= 4099 && !t_failures(); slab += 3) {
            int ok = pcase_scratch(&c, path, slab, 0);
            if (ok < 0) {
                t_note("skipped: the device cannot do data path %s (%s)",
                       clm_data_path_name(path), t_devinfo.version);
                goto out;
            }
            if (!ok) break;
            pcase_check(&c, text, n, "exact random");
            pcase_check(&c, all, n, "exact all-match");
            pcase_check(&c, text + 1, n - 1, "exact random, unaligned start");
        }
    }
    pcase_free(&c);
    pcase_init(&c);
    snprintf(c.tmp, sizeof c.tmp, "%s/text", dir);

    /* edit distance k = 2: slabs keep k bytes of lead */
    pats[0] = p12;
    lens[0] = 12;
    c.fs.pats = pats;
    c.fs.lens = lens;
    c.fs.count = 1;
    c.fs.k = 2;
    c.algo = CLM_ALGO_BITAP;
    if (!t_failures() && pcase_compile(&c, "k=2")) {
        for (size_t slab = 4096; slab <= 4099 && !t_failures(); slab += 3)
            if (pcase_scratch(&c, path, slab, 0) > 0) pcase_check(&c, text, n, "edit k=2");
    }
    pcase_free(&c);
    pcase_init(&c);
    snprintf(c.tmp, sizeof c.tmp, "%s/text", dir);

    /* packed DNA (packing on: clm_pack reads the slab): an upper-case pattern matches the
     * same bytes as the plain reference; a few lower-case bases and Ns match nothing */
    if (!t_failures()) {
        clm_database_info info;
        for (size_t i = 0; i < n; i += 97) text[i] = i % 2 ? 'N' : 'a';
        pats[0] = p12;
        c.fs.pats = pats;
        c.fs.lens = lens;
        c.fs.count = 1;
        c.algo = CLM_ALGO_DFA;
        c.extra_flags = CLM_DNA;
        c.packing = CLM_ON;
        if (pcase_compile(&c, "packed")
            && EXPECT_RC(clm_database_get_info(c.db, &info, sizeof info), CLM_OK)
            && EXPECT(info.packed == 1) && pcase_scratch(&c, path, 4099, 0) > 0)
            pcase_check(&c, text, n, "packed DNA");
    }
out:
    pcase_free(&c);
    free(text);
    free(all);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p5);
    free(p12);
}

/* ---- file scans -------------------------------------------------------------------------- */

/* Sizes that are no multiple of the slab, one shorter than the pattern, an empty file; and
 * the errors: a directory, a closed fd, a pipe, a missing callback. */
static void test_fd(const void *arg)
{
    static const size_t sizes[] = {3 * 4096 + 123, 4096, 4097, 3, 0};
    size_t lens[1] = {5};
    unsigned char *p5 = t_pattern(4, 5), *text;
    const unsigned char *pats[1];
    char *dir = t_tempdir("fd");
    uint64_t count = 7;
    pcase c;
    t_rng r;
    int fd, pipefd[2];

    (void)arg;
    pcase_init(&c);
    t_rng_init(&r, "fd", 0);
    if (!dir) goto out;
    if (!pcase_one(&c, dir, pats, lens, p5, "fd") || pcase_scratch(&c, CLM_PATH_AUTO, 4096, 0) <= 0)
        goto out;
    text = path_text(&r, sizes[0], p5, 5);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "file of %zu bytes", sizes[i]);
        pcase_check(&c, text, sizes[i], what);
    }
    free(text);

    fd = open(dir, O_RDONLY);
    if (EXPECT(fd >= 0)) {
        if (EXPECT_RC(clm_count_fd(c.db, c.s, fd, &count), CLM_E_IO)
            && !EXPECT(strstr(clm_last_error(), strerror(EISDIR)) != NULL))
            t_note("directory: \"%s\"", clm_last_error());
        close(fd);
        /* fd is closed now */
        if (EXPECT_RC(clm_scan_fd(c.db, c.s, fd, t_collect, &c.got), CLM_E_IO)
            && !EXPECT(strstr(clm_last_error(), strerror(EBADF)) != NULL))
            t_note("closed fd: \"%s\"", clm_last_error());
    }
    if (EXPECT(pipe(pipefd) == 0)) {
        if (EXPECT_RC(clm_count_fd(c.db, c.s, pipefd[0], &count), CLM_E_IO)
            && !EXPECT(strstr(clm_last_error(), "regular file") != NULL))
            t_note("pipe: \"%s\"", clm_last_error());
        close(pipefd[0]);
        close(pipefd[1]);
    }
    EXPECT_RC(clm_scan_fd(c.db, c.s, 0, NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_count_fd(c.db, c.s, -1, &count), CLM_E_INVALID);
    /* the scratch still works after the errors */
    {
        unsigned char small[64];
        t_fill(&r, small, sizeof small, 4);
        memcpy(small + 30, p5, 5);
        pcase_check(&c, small, sizeof small, "after errors");
    }
out:
    pcase_free(&c);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p5);
}

/* clm_scan_fd_range and clm_count_fd_range of [off, off + len) of fd's file (text[0, n)):
 * the reference's matches of text[off, off + len) with offsets from off, which clm_scan and
 * clm_count of those bytes give too; the fd's offset (set to 1234 by the caller) unmoved. */
static void range_check(pcase *c, int fd, const unsigned char *text, size_t n, uint64_t off,
                        uint64_t len, const char *what)
{
    /* the bytes the range holds: past the end of the file, none */
    const size_t from = off < n ? (size_t)off : n;
    const size_t to = len == CLM_FD_TO_END ? n : (size_t)(off + len);
    const size_t bytes = to > from ? to - from : 0;
    char desc[160], diff[512];
    uint64_t count = 7;
    snprintf(desc, sizeof desc, "%s, k %u: range at %llu of %s%zu bytes (file of %zu)", what,
             c->fs.k, (unsigned long long)off, len == CLM_FD_TO_END ? "all " : "", bytes, n);
    t_matches_clear(&c->want);
    if (t_reference_ex(text + from, bytes, &c->fs, &c->want) != 0) {
        T_FAIL("%s: the reference cannot parse a pattern (test bug)", desc);
        return;
    }
    t_check_scan(c->db, c->s, text + from, bytes, &c->want, &c->got, desc, "memory");
    t_matches_clear(&c->got);
    if (EXPECT_RC(clm_scan_fd_range(c->db, c->s, fd, off, len, t_collect, &c->got), CLM_OK)
        && t_matches_diff(&c->got, &c->want, diff, sizeof diff))
        T_FAIL("%s: clm_scan_fd_range: %s", desc, diff);
    if (EXPECT_RC(clm_count_fd_range(c->db, c->s, fd, off, len, &count), CLM_OK)
        && count != c->want.n)
        T_FAIL("%s: clm_count_fd_range %llu, reference %zu", desc, (unsigned long long)count,
               c->want.n);
    if (!EXPECT(lseek(fd, 0, SEEK_CUR) == 1234))
        t_note("%s: the fd's offset moved", desc);
}

/* Ranges of a file of 3 slabs and a bit: at offsets 0, 1, 15, 17 and around the slab edges,
 * of lengths that end inside, at and across them, to the end, empty; the range is the whole
 * input, so an approximate match (k = 2, whose slabs keep a lead) never reaches before it.
 * An offset at or past the end with CLM_FD_TO_END is empty; an explicit range past the end is
 * CLM_E_INVALID. */
static void test_fd_range(const void *arg)
{
    const size_t n = 3 * 4096 + 123, m = 12;
    static const uint64_t offsets[] = {0, 1, 15, 17, 4090, 4095, 4096, 4097, 8200};
    static const uint64_t lengths[] = {CLM_FD_TO_END, 0, 1, 11, 12, 100, 4096, 4097, 8191};
    size_t lens[1] = {m};
    unsigned char *p = t_pattern(4, m), *text = NULL;
    const unsigned char *pats[1];
    char *dir = t_tempdir("fd_range");
    uint64_t count = 7;
    pcase c;
    t_rng r;
    int fd = -1;

    (void)arg;
    pcase_init(&c);
    t_rng_init(&r, "fd_range", 0);
    if (!dir) goto out;
    text = path_text(&r, n, p, m);
    /* matches straddling offsets 15..17 and the first slab edge */
    memcpy(text + 10, p, m);
    memcpy(text + 4096 - 5, p, m);
    if (!pcase_one(&c, dir, pats, lens, p, "fd range") || !write_file(c.tmp, text, n)
        || (fd = open(c.tmp, O_RDONLY)) < 0 || !EXPECT(lseek(fd, 1234, SEEK_SET) == 1234))
        goto out;
    for (unsigned k = 0; k <= 2 && !t_failures(); k += 2) {
        if (k) { /* the same pattern with up to 2 edits */
            clm_database_free(c.db);
            c.db = NULL;
            c.fs.k = k;
            c.algo = CLM_ALGO_BITAP;
            if (!pcase_compile(&c, "fd range, k = 2")) break;
        }
        if (pcase_scratch(&c, CLM_PATH_AUTO, 4096, 0) <= 0) break;
        for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
            for (size_t j = 0; j < sizeof lengths / sizeof lengths[0]; j++)
                if (lengths[j] == CLM_FD_TO_END || offsets[i] + lengths[j] <= n)
                    range_check(&c, fd, text, n, offsets[i], lengths[j], "range");
        range_check(&c, fd, text, n, 0, n, "the whole file");
        range_check(&c, fd, text, n, n - m, m, "the last pattern length");
        range_check(&c, fd, text, n, n, 0, "empty at the end");
        range_check(&c, fd, text, n, n, CLM_FD_TO_END, "at the end, to the end");
        range_check(&c, fd, text, n, n + 5000, CLM_FD_TO_END, "past the end, to the end");
    }
    /* an explicit range past the end, or one whose end overflows */
    const uint64_t bad[][2] = {{0, n + 1}, {4096, n - 4096 + 1}, {n + 1, 0}, {n - 1, 2},
                               {1, UINT64_MAX - 1}, {UINT64_MAX, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0] && c.s; i++) {
        count = 7;
        if (EXPECT_RC(clm_count_fd_range(c.db, c.s, fd, bad[i][0], bad[i][1], &count),
                      CLM_E_INVALID)
            && !EXPECT(strstr(clm_last_error(), "past the end") != NULL))
            t_note("range [%llu, +%llu): \"%s\"", (unsigned long long)bad[i][0],
                   (unsigned long long)bad[i][1], clm_last_error());
        EXPECT(count == 0);
        EXPECT_RC(clm_scan_fd_range(c.db, c.s, fd, bad[i][0], bad[i][1], t_collect, &c.got),
                  CLM_E_INVALID);
    }
    if (c.s) {
        EXPECT_RC(clm_scan_fd_range(c.db, c.s, fd, 0, 1, NULL, NULL), CLM_E_INVALID);
        EXPECT_RC(clm_count_fd_range(c.db, c.s, fd, 0, 1, NULL), CLM_E_INVALID);
        EXPECT_RC(clm_count_fd_range(c.db, c.s, -1, 0, 1, &count), CLM_E_INVALID);
    }
out:
    if (fd >= 0) close(fd);
    pcase_free(&c);
    free(text);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p);
}

/* A file of many slabs read by the reader threads (host/io.c clm_reader), on every path: a
 * callback that stops after the first, 7th and middle match gets exactly those first matches;
 * an fd open for writing only fails with CLM_E_IO naming offset 0 (every piece fails); after
 * each, a full clm_scan_fd on the same scratch gives all the reference's matches. */
static void test_fd_stop(const void *arg)
{
    const size_t n = 40000, m = 5;
    size_t lens[1] = {m};
    unsigned char *p = t_pattern(4, m), *text = NULL;
    const unsigned char *pats[1];
    char *dir = t_tempdir("fd_stop"), desc[128];
    pcase c;
    t_rng r;

    (void)arg;
    pcase_init(&c);
    t_rng_init(&r, "fd_stop", 0);
    if (!dir || !pcase_one(&c, dir, pats, lens, p, "fd stop")) goto out;
    text = path_text(&r, n, p, m);
    if (!write_file(c.tmp, text, n) || t_reference_ex(text, n, &c.fs, &c.want) != 0
        || !EXPECT(c.want.n > 40))
        goto out;
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0] && !t_failures(); pi++) {
        int ok = pcase_scratch(&c, paths[pi], 4096, 0), fd = -1;
        if (ok < 0) continue;
        if (!ok || (fd = open(c.tmp, O_RDONLY)) < 0) break;
        const size_t limits[3] = {1, 7, c.want.n / 2};
        for (int i = 0; i < 3; i++) {
            t_matches prefix = c.want;
            char diff[512];
            snprintf(desc, sizeof desc, "path %s, stop after %zu of %zu",
                     clm_data_path_name(paths[pi]), limits[i], c.want.n);
            t_matches_clear(&c.got);
            c.got.limit = limits[i];
            int rc = clm_scan_fd(c.db, c.s, fd, t_collect, &c.got);
            c.got.limit = 0;
            prefix.n = limits[i];
            if (!EXPECT_RC(rc, CLM_STOPPED) || t_matches_diff(&c.got, &prefix, diff, sizeof diff))
                T_FAIL("%s: %s", desc, rc == CLM_STOPPED ? diff : "no stop");
            fd_agrees(&c, fd, desc);
        }
        close(fd);
        snprintf(desc, sizeof desc, "path %s, write-only fd", clm_data_path_name(paths[pi]));
        if ((fd = open(c.tmp, O_WRONLY)) < 0) {
            T_FAIL("cannot open %s for writing: %s", c.tmp, strerror(errno));
            break;
        }
        t_matches_clear(&c.got);
        if (EXPECT_RC(clm_scan_fd(c.db, c.s, fd, t_collect, &c.got), CLM_E_IO)
            && !EXPECT(strstr(clm_last_error(), "offset 0 ") != NULL))
            t_note("%s: \"%s\"", desc, clm_last_error());
        close(fd);
        if ((fd = open(c.tmp, O_RDONLY)) >= 0) {
            fd_agrees(&c, fd, desc);
            close(fd);
        }
    }
out:
    pcase_free(&c);
    free(text);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p);
}

/* Files are read in slabs of at most 32 MiB whatever the scratch's slab (host/internal.h
 * CLM_FILE_SLAB_MIB; 64 before): a scratch of 128 MiB slabs and a file of 64 MiB + 4099 bytes,
 * with matches ending right before, straddling and starting right after the 32 and 64 MiB
 * edges. */
static void test_file_slab(const void *arg)
{
    const size_t edge = (size_t)64 << 20, n = edge + 4099, m = 13;
    size_t lens[1] = {m};
    unsigned char *p = t_pattern(4, m), *text;
    const unsigned char *pats[1];
    char *dir = t_tempdir("file_slab");
    pcase c;
    t_rng r;

    (void)arg;
    pcase_init(&c);
    t_rng_init(&r, "file_slab", 0);
    if (!dir) goto out;
    if (!pcase_one(&c, dir, pats, lens, p, "file slab") ||
        pcase_scratch(&c, CLM_PATH_AUTO, 2 * edge, 0) <= 0)
        goto out;
    text = path_text(&r, n, p, m);
    for (size_t at = edge / 2; at <= edge; at += edge / 2) {
        memcpy(text + at - 19, p, m);
        memcpy(text + at - 6, p, m);
        memcpy(text + at + 7, p, m);
    }
    pcase_check(&c, text, n, "file across the 32 and 64 MiB file slab edges");
    free(text);
out:
    pcase_free(&c);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p);
}

/* ---- memory budget ------------------------------------------------------------------------ */

static void test_budget(const void *arg)
{
    /* 8 MiB fits a slab over 1 MiB on every path (pinned and copy hold each slab twice) */
    size_t lens[1] = {5}, n = 0, budget = (size_t)8 << 20;
    unsigned char *p5 = t_pattern(4, 5), *text = NULL;
    const unsigned char *pats[1];
    char *dir = t_tempdir("budget");
    clm_scratch_options so;
    clm_scratch_info info;
    clm_scratch *s = NULL;
    clm_stats st;
    pcase c;
    t_rng r;

    (void)arg;
    pcase_init(&c);
    t_rng_init(&r, "budget", 0);
    if (!dir) goto out;
    if (!pcase_one(&c, dir, pats, lens, p5, "budget")) goto out;

    /* too small: the detail gives the minimum */
    clm_scratch_options_init(&so, sizeof so);
    so.max_memory = 100000;
    if (EXPECT_RC(clm_scratch_alloc(c.db, &so, &s), CLM_E_INVALID)
        && !EXPECT(strstr(clm_last_error(), "at least") != NULL))
        t_note("detail: \"%s\"", clm_last_error());
    EXPECT(s == NULL);

    /* a 64 MiB slab asked for, 8 MiB allowed: the slab shrinks, the scans stay right */
    if (pcase_scratch(&c, CLM_PATH_AUTO, (size_t)64 << 20, budget) <= 0) goto out;
    if (EXPECT_RC(clm_scratch_get_info(c.s, &info, sizeof info), CLM_OK)) {
        if (!EXPECT(info.slab_bytes < ((size_t)64 << 20) && info.slab_bytes >= CLM_MIN_BUDGET_SLAB_BYTES)
            || !EXPECT(info.memory_bytes <= budget && info.max_memory == budget)
            || !EXPECT(info.memory_bytes == info.device_bytes + info.host_bytes))
            t_note("budget %zu: slab %zu, memory %zu (device %zu, host %zu)", budget,
                   info.slab_bytes, info.memory_bytes, info.device_bytes, info.host_bytes);
        if (!EXPECT(info.match_capacity_limit * 8 * info.slots <= budget))
            t_note("match buffers may grow to %zu matches", info.match_capacity_limit);
        n = 2 * info.slab_bytes + 777; /* three slabs */
    }
    if (!n) goto out;
    text = path_text(&r, n, p5, 5);
    clm_scratch_reset_stats(c.s);
    pcase_check(&c, text, n, "under an 8 MiB budget");
    if (EXPECT_RC(clm_scratch_get_stats(c.s, &st, sizeof st), CLM_OK) && !EXPECT(st.slabs >= 2 * 5))
        t_note("%llu slabs over five scans", (unsigned long long)st.slabs);
out:
    free(text);
    pcase_free(&c);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p5);
}

/* A child process that checks how a scratch variable of the environment is read: with arg
 * `bad` the allocation fails, its detail naming `named`; else env_ok judges the scratch the
 * environment gave, and one whose options set_option fills must satisfy option_ok (an
 * explicit option wins over the environment). */
typedef struct {
    const char *bad, *named;
    int (*env_ok)(const clm_scratch_info *info, const char *arg);
    void (*set_option)(clm_scratch_options *so);
    int (*option_ok)(const clm_scratch_info *info);
} env_case;

static int run_env_child(const env_case *c, const char *arg)
{
    size_t m = 5;
    unsigned char *p = t_pattern(4, m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_scratch_options so;
    clm_scratch_info info;
    if (!EXPECT_RC(clm_device_open(-1, -1, &t_dev), CLM_OK)) return 1;
    if (EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)) {
        clm_scratch_options_init(&so, sizeof so);
        if (strcmp(arg, c->bad) == 0) {
            if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_E_INVALID)
                && !EXPECT(strstr(clm_last_error(), c->named) != NULL))
                t_note("detail: \"%s\"", clm_last_error());
        } else if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
                   && EXPECT_RC(clm_scratch_get_info(s, &info, sizeof info), CLM_OK)) {
            c->env_ok(&info, arg);
            clm_scratch_free(s);
            s = NULL;
            c->set_option(&so);
            if (EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)
                && EXPECT_RC(clm_scratch_get_info(s, &info, sizeof info), CLM_OK))
                c->option_ok(&info);
        }
    }
    clm_scratch_free(s);
    clm_database_free(db);
    clm_device_close(t_dev);
    t_dev = NULL;
    free(p);
    return 0;
}

/* Child `child` run with each good[i][0] in its environment (its argument good[i][1]), then
 * with var=bad[i] for each bad value (its argument "bad"). */
static void run_env_children(const char *child, const char *var, const char *const (*good)[2],
                             size_t n_good, const char *const *bad, size_t n_bad)
{
    for (size_t i = 0; i < n_good; i++) {
        const char *env[] = {good[i][0], NULL};
        if (t_run_child(child, good[i][1], env) != 0)
            T_FAIL("child with %s failed (see # lines above)", good[i][0]);
    }
    for (size_t i = 0; i < n_bad; i++) {
        char set[64];
        const char *env[] = {set, NULL};
        snprintf(set, sizeof set, "%s=%s", var, bad[i]);
        if (t_run_child(child, "bad", env) != 0)
            T_FAIL("child with %s failed (see # lines above)", set);
    }
}

/* ---- slots: slabs in flight ---------------------------------------------------------------- */

/* A scratch of c's database with this many slots on `path` (pcase_scratch_slots), its info
 * checked: the host staging of every slot. */
static int slots_scratch(pcase *c, clm_data_path path, size_t slab, unsigned slots)
{
    clm_scratch_info info;
    int rc = pcase_scratch_slots(c, path, slab, 0, slots);
    if (rc <= 0)
        return rc;
    unsigned want = slots ? slots : 2;
    if (EXPECT_RC(clm_scratch_get_info(c->s, &info, sizeof info), CLM_OK)
        && (!EXPECT(info.slots == want)
            || !EXPECT(info.host_bytes == want * (info.slab_bytes + info.overlap_bytes))))
        t_note("%u slots asked: info.slots %u, host staging %zu of slab %zu + %zu", slots,
               info.slots, info.host_bytes, info.slab_bytes, info.overlap_bytes);
    return 1;
}

/* Scratches of 2 to 4 slots: every scan and stream form against the reference over many
 * slabs (copy: the staging refilled once sent); a slot count out of range refused. */
static void test_slots(const void *arg)
{
    static const clm_data_path ways[] = {CLM_PATH_AUTO, CLM_PATH_COPY};
    const size_t slab = 16384, n = 9 * slab + 1234;
    size_t lens[1] = {5};
    unsigned char *p5 = t_pattern(4, 5), *text = NULL;
    const unsigned char *pats[1];
    char *dir = t_tempdir("slots"), desc[64];
    clm_scratch_options so;
    clm_scratch *s = NULL;
    pcase c;
    t_rng r;

    (void)arg;
    pcase_init(&c);
    if (!dir || !pcase_one(&c, dir, pats, lens, p5, "slots")) goto out;
    t_rng_init(&r, "slots", 0);
    text = path_text(&r, n, p5, 5);
    for (size_t i = slab; i < n; i += slab)
        memcpy(text + i - 2, p5, 5); /* across every slab end */
    for (unsigned slots = 0; slots <= CLM_MAX_SCRATCH_SLOTS; slots++) {
        if (slots == 1) continue;
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
            if (slots_scratch(&c, ways[w], slab, slots) <= 0) continue;
            snprintf(desc, sizeof desc, "%u slots", slots);
            pcase_check(&c, text, n, desc);
        }
    }
    const unsigned bad[] = {1, CLM_MAX_SCRATCH_SLOTS + 1, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clm_scratch_options_init(&so, sizeof so);
        so.slots = bad[i];
        if (EXPECT_RC(clm_scratch_alloc(c.db, &so, &s), CLM_E_INVALID)
            && !EXPECT(strstr(clm_last_error(), "slots") != NULL))
            t_note("detail: \"%s\"", clm_last_error());
        EXPECT(s == NULL);
    }
out:
    free(text);
    pcase_free(&c);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p5);
}

/* CLMATCH_SLOTS (arg: the slots expected, or "bad"); an option's slots win over it. */
static int slots_env_ok(const clm_scratch_info *info, const char *arg)
{
    if (EXPECT(info->slots == (unsigned)atoi(arg)))
        return 1;
    t_note("CLMATCH_SLOTS=%s: %u slots", getenv("CLMATCH_SLOTS"), info->slots);
    return 0;
}

static void slots_option(clm_scratch_options *so)
{
    so->slots = 3;
}

static int slots_option_ok(const clm_scratch_info *info)
{
    return EXPECT(info->slots == 3);
}

static int child_slots(const char *arg)
{
    static const env_case c = {"bad", "CLMATCH_SLOTS", slots_env_ok, slots_option,
                               slots_option_ok};
    return run_env_child(&c, arg);
}

static void test_slots_env(const void *arg)
{
    static const char *const good[][2] = {
        {"CLMATCH_SLOTS=4", "4"}, {"CLMATCH_SLOTS=2", "2"}, {"CLMATCH_SLOTS=", "2"}};
    static const char *const bad[] = {"1", "5", "x", "33", "-3"};
    (void)arg;
    run_env_children("slots", "CLMATCH_SLOTS", good, sizeof good / sizeof good[0], bad,
                     sizeof bad / sizeof bad[0]);
}

/* ---- slot buffers sized to the input --------------------------------------------------------- */

/* A file of n bytes of text, scanned with clm_scan_fd on c's scratch; its allocated bytes
 * after the scan in *allocated. */
static int grow_step(pcase *c, const unsigned char *text, size_t n, size_t *allocated,
                     const char *desc)
{
    clm_scratch_info info;
    int fd, ok;
    t_matches_clear(&c->want);
    if (t_reference_ex(text, n, &c->fs, &c->want) != 0)
        return T_FAIL("%s: the reference cannot parse a pattern (test bug)", desc);
    if (!write_file(c->tmp, text, n)) return 0;
    fd = open(c->tmp, O_RDONLY);
    if (fd < 0) return T_FAIL("cannot open %s: %s", c->tmp, strerror(errno));
    ok = fd_agrees(c, fd, desc);
    close(fd);
    if (ok && EXPECT_RC(clm_scratch_get_info(c->s, &info, sizeof info), CLM_OK))
        *allocated = info.allocated_bytes;
    return ok;
}

/* A 4 MiB slab (1 MiB with --quick) with files of 3000 bytes, a sixth of a slab and 2.5
 * slabs, in that order, on one scratch per data path: the small files get buffers of their
 * size and one slot (less allocated than a quarter of a slab, then than a slab; the plan is
 * still two whole slots), the larger ones grow them, the last takes both slots (the second
 * allocated while reader threads read the first slab); every scan gives the reference's
 * matches. Then pcase_check (memory, fd, stream) on the last text. Exact search and a packed DNA database
 * (its packed buffer grows too). */
static void test_grow(const void *arg)
{
    const size_t slab = t_smoke ? (size_t)1 << 20 : (size_t)4 << 20;
    const size_t sizes[] = {3000, slab / 6 + 1, 2 * slab + slab / 2 + 333};
    const size_t big = sizes[2];
    size_t lens[2] = {5, 4};
    unsigned char *p5 = t_pattern(4, 5), *p12 = t_pattern(4, 12), *text;
    const unsigned char *pats[2];
    char *dir = t_tempdir("grow");
    pcase c;
    t_rng r;

    (void)arg;
    t_rng_init(&r, "grow", 0);
    text = path_text(&r, big, p12, 12);
    memcpy(text + slab - 2, p5, 5); /* across the first slab end */
    for (int packed = 0; packed < 2 && dir && !t_failures(); packed++) {
        pcase_init(&c);
        snprintf(c.tmp, sizeof c.tmp, "%s/text", dir);
        pats[0] = packed ? p12 : p5;
        pats[1] = (const unsigned char *)"AAAA";
        lens[0] = packed ? 12 : 5;
        c.fs.pats = pats;
        c.fs.lens = lens;
        c.fs.count = packed ? 1 : 2;
        c.algo = packed ? CLM_ALGO_DFA : CLM_ALGO_AUTO;
        c.extra_flags = packed ? CLM_DNA : 0;
        c.packing = packed ? CLM_ON : CLM_AUTO;
        if (!pcase_compile(&c, packed ? "grow, packed" : "grow")) break;
        for (size_t pi = 0; pi < sizeof paths / sizeof paths[0] && !t_failures(); pi++) {
            clm_scratch_options so;
            clm_scratch_info info;
            size_t allocated[3] = {0, 0, 0};
            char desc[128];
            clm_scratch_options_init(&so, sizeof so);
            so.slab_bytes = slab;
            so.data_path = paths[pi];
            so.match_capacity = 4096; /* so that the text buffers dominate what is held */
            clm_scratch_free(c.s);
            c.s = NULL;
            int rc = clm_scratch_alloc(c.db, &so, &c.s);
            if (rc == CLM_E_UNSUPPORTED && paths[pi] == CLM_PATH_SVM) {
                c.s = NULL;
                continue;
            }
            if (!EXPECT_RC(rc, CLM_OK)
                || !EXPECT_RC(clm_scratch_get_info(c.s, &info, sizeof info), CLM_OK))
                break;
            if (!EXPECT(info.memory_bytes >= 2 * slab) || !EXPECT(info.allocated_bytes < slab / 8))
                t_note("before any scan: plan %zu bytes, allocated %zu", info.memory_bytes,
                       info.allocated_bytes);
            for (size_t i = 0; i < 3; i++) {
                snprintf(desc, sizeof desc, "%s, path %s, slab %zu, file of %zu bytes",
                         packed ? "packed DNA" : "exact", clm_data_path_name(paths[pi]), slab,
                         sizes[i]);
                if (!grow_step(&c, text, sizes[i], &allocated[i], desc)) break;
            }
            if (t_failures()) break;
            /* a small file: buffers of its size, one slot; then growing; both slots last */
            if (!EXPECT(allocated[0] < slab / 4) || !EXPECT(allocated[1] < slab)
                || !EXPECT(allocated[0] < allocated[1]) || !EXPECT(allocated[1] < allocated[2])
                || !EXPECT(allocated[2] >= 2 * slab))
                t_note("path %s%s: allocated %zu, %zu, %zu after files of %zu, %zu, %zu bytes "
                       "(slab %zu)",
                       clm_data_path_name(paths[pi]), packed ? ", packed" : "", allocated[0],
                       allocated[1], allocated[2], sizes[0], sizes[1], sizes[2], slab);
            snprintf(desc, sizeof desc, "grown%s", packed ? ", packed DNA" : "");
            pcase_check(&c, text, big, desc);
            /* clm_scratch_reserve: a small input's buffers, then both whole slots before any
             * scan, which no scan grows afterwards */
            clm_scratch *rs = NULL;
            size_t held[3] = {0, 0, 0};
            if (EXPECT_RC(clm_scratch_alloc(c.db, &so, &rs), CLM_OK) &&
                EXPECT_RC(clm_scratch_reserve(rs, 3000), CLM_OK) &&
                EXPECT_RC(clm_scratch_get_info(rs, &info, sizeof info), CLM_OK) &&
                (held[0] = info.allocated_bytes, 1) &&
                EXPECT_RC(clm_scratch_reserve(rs, SIZE_MAX), CLM_OK) &&
                EXPECT_RC(clm_scratch_get_info(rs, &info, sizeof info), CLM_OK)) {
                held[1] = info.allocated_bytes;
                clm_scratch_free(c.s);
                c.s = rs;
                rs = NULL;
                snprintf(desc, sizeof desc, "reserved%s", packed ? ", packed DNA" : "");
                pcase_check(&c, text, big, desc);
                if (EXPECT_RC(clm_scratch_get_info(c.s, &info, sizeof info), CLM_OK))
                    held[2] = info.allocated_bytes;
                /* (no slot grown: less than a slab more, the match buffers grown by the
                 * scans' many matches; the copy path's heap staging of streams and fd
                 * scans, two slabs, comes with them) */
                const size_t more = paths[pi] == CLM_PATH_COPY ? 3 * slab : slab;
                if (!EXPECT(held[0] < slab / 4) || !EXPECT(held[1] >= 2 * slab) ||
                    !EXPECT(held[2] < held[1] + more))
                    t_note("path %s%s: reserved %zu, %zu, then %zu after the scans",
                           clm_data_path_name(paths[pi]), packed ? ", packed" : "", held[0],
                           held[1], held[2]);
                clm_stream *st = NULL;
                if (EXPECT_RC(clm_stream_open(c.db, c.s, 0, &st), CLM_OK)) {
                    EXPECT_RC(clm_scratch_reserve(c.s, 1), CLM_E_INVALID); /* a stream open */
                    EXPECT_RC(clm_stream_close(st, t_collect, &c.got, NULL), CLM_OK);
                }
            }
            clm_scratch_free(rs);
        }
        pcase_free(&c);
    }
    EXPECT_RC(clm_scratch_reserve(NULL, 1), CLM_E_INVALID);
    free(text);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p5);
    free(p12);
}

/* ---- reader threads: CLMATCH_IO_THREADS ------------------------------------------------------ */

/* In a child with CLMATCH_IO_THREADS set: arg "bad": clm_scratch_alloc refuses the value
 * (CLM_E_INVALID naming it). Else arg is the count the scratch must take ("auto": the
 * automatic one): slabs of 8 MiB + 4099 bytes (2 MiB + 4099 with --quick) over a file of 2.5
 * slabs, with matches across both slab ends, so that each slab is read by up to 8 threads (a
 * thread takes at least 1 MiB); clm_scan_fd, clm_count_fd, clm_scan and a stream give the
 * reference's matches, and so do clm_scan and clm_count with a slab that holds the whole
 * text. */
static int child_io_threads(const char *arg)
{
    const char *env = getenv("CLMATCH_IO_THREADS");
    const size_t slab = (t_smoke ? (size_t)2 << 20 : (size_t)8 << 20) + 4099;
    const size_t n = 2 * slab + slab / 2 + 777;
    size_t lens[2] = {5, 4};
    unsigned char *p5 = t_pattern(4, 5), *text = NULL;
    const unsigned char *pats[2];
    char *dir = NULL, desc[128];
    clm_scratch_info info;
    clm_scratch *one = NULL;
    clm_scratch_options so;
    pcase c;
    t_rng r;

    pcase_init(&c);
    if (!EXPECT_RC(clm_device_open(-1, -1, &t_dev), CLM_OK)) goto out;
    if (!EXPECT_RC(clm_device_get_info(t_dev, &t_devinfo, sizeof t_devinfo), CLM_OK)) goto out;
    if (!(dir = t_tempdir("iothreads"))) goto out;
    if (!pcase_one(&c, dir, pats, lens, p5, "io threads")) goto out;
    if (strcmp(arg, "bad") == 0) {
        char want[96];
        snprintf(want, sizeof want, "CLMATCH_IO_THREADS='%s'", env ? env : "");
        if (EXPECT_RC(clm_scratch_alloc(c.db, NULL, &c.s), CLM_E_INVALID)
            && !EXPECT(strstr(clm_last_error(), want) != NULL))
            t_note("detail: \"%s\"", clm_last_error());
        EXPECT(c.s == NULL);
        goto out;
    }
    pats[1] = (const unsigned char *)"AAAA";
    c.fs.count = 2;
    clm_database_free(c.db);
    c.db = NULL;
    if (!pcase_compile(&c, "io threads, two patterns")) goto out;
    if (pcase_scratch(&c, CLM_PATH_AUTO, slab, 0) <= 0) goto out;
    if (EXPECT_RC(clm_scratch_get_info(c.s, &info, sizeof info), CLM_OK)) {
        if (strcmp(arg, "auto") == 0) {
            /* a file into a stream leaves two of 8 or more CPUs to the caller and driver */
            unsigned cpus = 0, streams = 0;
            const char *in_stream = strchr(info.io_threads_choice, ';');
            if (!EXPECT(info.io_threads >= 1 && info.io_threads <= 16)
                || !EXPECT(sscanf(info.io_threads_choice, "auto: %u CPU", &cpus) == 1)
                || !EXPECT(in_stream && sscanf(in_stream, "; %u reading", &streams) == 1)
                || !EXPECT(streams == (cpus >= 8 && info.io_threads > cpus - 2 ? cpus - 2
                                                                            : info.io_threads))
                || !EXPECT(info.stream_io_threads == streams))
                t_note("io_threads %u (%s)", info.io_threads, info.io_threads_choice);
        } else if (!EXPECT(info.io_threads == (unsigned)atoi(arg))
                   || !EXPECT(info.stream_io_threads == info.io_threads)
                   || !EXPECT(strstr(info.io_threads_choice, "CLMATCH_IO_THREADS") != NULL)) {
            t_note("CLMATCH_IO_THREADS=%s: io_threads %u (%s)", env ? env : "(unset)",
                   info.io_threads, info.io_threads_choice);
        }
    }
    t_rng_init(&r, "iothreads", 0);
    text = path_text(&r, n, p5, 5);
    memcpy(text + slab - 2, p5, 5);      /* across the first slab end */
    memcpy(text + 2 * slab - 3, "AAAAAAA", 7); /* and the second */
    snprintf(desc, sizeof desc, "CLMATCH_IO_THREADS=%s", env ? env : "(unset)");
    pcase_check(&c, text, n, desc);
    /* one clm_scan over the whole text, one slab */
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = (n + 4095) / 4096 * 4096;
    if (!t_failures() && EXPECT_RC(clm_scratch_alloc(c.db, &so, &one), CLM_OK))
        t_check_scan(c.db, one, text, n, &c.want, &c.got, desc, "the whole text in one slab");
out:
    clm_scratch_free(one);
    pcase_free(&c);
    free(text);
    if (dir) t_rmtree(dir);
    free(dir);
    free(p5);
    clm_device_close(t_dev);
    t_dev = NULL;
    return 0;
}

static void test_io_threads(const void *arg)
{
    static const char *const counts[][2] = {
        {"CLMATCH_IO_THREADS=1", "1"}, {"CLMATCH_IO_THREADS=3", "3"},
        {"CLMATCH_IO_THREADS=64", "64"}, {"CLMATCH_IO_THREADS=auto", "auto"},
        {"CLMATCH_IO_THREADS", "auto"}};
    static const char *const bad[] = {"0", "65", "x", "4x", "-2", " 3", "99999999999999999999"};
    (void)arg;
    run_env_children("io_threads", "CLMATCH_IO_THREADS", counts,
                     sizeof counts / sizeof counts[0], bad, sizeof bad / sizeof bad[0]);
}

/* ---- names and CLMATCH_DATA_PATH ---------------------------------------------------------- */

/* CLMATCH_DATA_PATH=copy (or bogus); an explicit data path wins over it. */
static int data_path_env_ok(const clm_scratch_info *info, const char *arg)
{
    (void)arg;
    return EXPECT(info->data_path == CLM_PATH_COPY) &&
           EXPECT(strstr(info->data_path_choice, "CLMATCH_DATA_PATH") != NULL);
}

static void data_path_option(clm_scratch_options *so)
{
    so->data_path = CLM_PATH_PINNED;
}

static int data_path_option_ok(const clm_scratch_info *info)
{
    return EXPECT(info->data_path == CLM_PATH_PINNED);
}

static int child_env(const char *arg)
{
    static const env_case c = {"bogus", "CLMATCH_DATA_PATH=bogus", data_path_env_ok,
                               data_path_option, data_path_option_ok};
    return run_env_child(&c, arg);
}

static void test_env(const void *arg)
{
    static const char *const bogus[] = {"CLMATCH_DATA_PATH=bogus", NULL};
    static const char *const copy[] = {"CLMATCH_DATA_PATH=copy", NULL};
    clm_data_path p = CLM_PATH_AUTO;
    clm_scratch_info info;
    (void)arg;
    for (int i = 0; i <= CLM_PATH_SVM; i++)
        EXPECT(clm_data_path_from_name(clm_data_path_name((clm_data_path)i), &p) == CLM_OK
               && p == (clm_data_path)i);
    EXPECT_RC(clm_data_path_from_name("zero_copy", &p), CLM_E_INVALID);
    EXPECT(strcmp(clm_data_path_name((clm_data_path)99), "?") == 0);
    EXPECT_RC(clm_scratch_get_info(NULL, &info, sizeof info), CLM_E_INVALID);
    if (t_run_child("data_path_env", "bogus", bogus) != 0)
        T_FAIL("child with CLMATCH_DATA_PATH=bogus failed (see # lines above)");
    if (t_run_child("data_path_env", "copy", copy) != 0)
        T_FAIL("child with CLMATCH_DATA_PATH=copy failed (see # lines above)");
}

void register_path_tests(void)
{
    static char names[4][32];
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        snprintf(names[i], sizeof names[i], "path.%s", clm_data_path_name(paths[i]));
        /* pinned and zero-copy also in --quick (ASan): the mapped staging and threads */
        t_register(names[i], test_path, &paths[i],
                   paths[i] == CLM_PATH_PINNED || paths[i] == CLM_PATH_ZERO_COPY);
    }
    t_register("path.fd", test_fd, NULL, 1);
    t_register("path.fd_stop", test_fd_stop, NULL, 1);
    t_register("path.fd_range", test_fd_range, NULL, 1);
    t_register("path.file_slab", test_file_slab, NULL, 0);
    t_register("path.budget", test_budget, NULL, 0);
    t_register("path.slots", test_slots, NULL, 1);
    t_register("path.slots_env", test_slots_env, NULL, 0);
    t_register_child("slots", child_slots);
    t_register("path.env", test_env, NULL, 0);
    t_register_child("data_path_env", child_env);
    t_register("path.grow", test_grow, NULL, 1);
    t_register("path.io_threads", test_io_threads, NULL, 1);
    t_register_child("io_threads", child_io_threads);
}
