/*
 * Device sets: one input split across several devices must give exactly the matches, in the
 * same order, of one device scanning it whole and of the CPU reference. PoCL exposes several
 * devices with POCL_DEVICES="pthread pthread pthread", so each test runs in a child with that
 * environment and uses the first platform that has at least three devices (else it notes the
 * skip): random text, matches straddling the split points, all-match text, tiny inputs,
 * several patterns of several lengths (aho), approximate patterns, counts, files, streams
 * across blocks and devices, very unequal shares, and a device failing mid-scan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_devset.h"

#define SET_N 3

static const char *const set_env[] = {"POCL_DEVICES=pthread pthread pthread", NULL};

int t_cpu_platform(unsigned need)
{
    clm_device_info *list;
    size_t count;
    if (clm_list_devices(0, sizeof *list, &list, &count) != CLM_OK) return -1;
    int found = -1;
    for (size_t i = 0; i < count && found < 0; i++) {
        unsigned cpus = 0;
        for (size_t j = 0; j < count; j++)
            if (list[j].platform_index == list[i].platform_index &&
                list[j].device_index < (int)need && list[j].type == CLM_DEVICE_CPU)
                cpus++;
        if (cpus == need) found = list[i].platform_index;
    }
    clm_free_device_list(list);
    return found;
}

int t_set_devices(unsigned need, int *plat, int *dev)
{
    const char *list = getenv("CLMATCH_TEST_SET");
    if (list && *list) {
        const char *p = list;
        for (unsigned k = 0; k < need; k++) {
            char *end;
            long a = strtol(p, &end, 10), b = -1;
            if (end != p && *end == ':') {
                p = end + 1;
                b = strtol(p, &end, 10);
            }
            if (end == p || a < 0 || b < 0 || (*end != ',' && *end != '\0') ||
                (*end == '\0' && k + 1 < need)) {
                T_FAIL("CLMATCH_TEST_SET=%s: want %u devices P:D,P:D,...", list, need);
                return 0;
            }
            plat[k] = (int)a;
            dev[k] = (int)b;
            p = end + (*end == ',');
        }
        return 1;
    }
    int p = t_cpu_platform(need);
    if (p < 0) {
        t_note("skipped: no platform with %u CPU devices", need);
        return 0;
    }
    for (unsigned k = 0; k < need; k++) {
        plat[k] = p;
        dev[k] = (int)k;
    }
    return 1;
}

/* A set of SET_N devices (t_set_devices), or none (skip). */
static int open_set(clm_device_set **out)
{
    *out = NULL;
    int plat[SET_N], dev[SET_N];
    if (!t_set_devices(SET_N, plat, dev)) return 0;
    if (!EXPECT_RC(clm_device_set_open(plat, dev, SET_N, out), CLM_OK)) return 0;
    return 1;
}

/* A set of the first CPU platform's SET_N alike devices, or none (skip). */
static int open_cpu_set(clm_device_set **out)
{
    *out = NULL;
    int p = t_cpu_platform(SET_N), plat[SET_N], dev[SET_N];
    if (p < 0) {
        t_note("skipped: no platform with %d CPU devices", SET_N);
        return 0;
    }
    for (int k = 0; k < SET_N; k++) {
        plat[k] = p;
        dev[k] = k;
    }
    return EXPECT_RC(clm_device_set_open(plat, dev, SET_N, out), CLM_OK);
}

/* slab: each device's slab (0: the default). */
static int dcase_open(struct dcase *c, clm_device_set *set, const unsigned char *const *pats,
                      const size_t *lens, unsigned count, clm_algorithm algo, unsigned flags,
                      unsigned k, size_t slab)
{
    memset(c, 0, sizeof *c);
    c->set = set;
    c->fs = (t_fset){pats, lens, NULL, count, flags, k};
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = algo;
    o.flags = flags;
    o.max_errors = k;
    if (!EXPECT_RC(clm_set_compile(set, (const char *const *)pats, lens, NULL, count, &o,
                                   &c->db), CLM_OK))
        return 0;
    clm_scratch_options so;
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = slab;
    if (!EXPECT_RC(clm_set_scratch_alloc(c->db, &so, &c->s), CLM_OK)) return 0;
    c->hook = (struct clm_set_hook){1, 0, 0, 0, 0}; /* split even tiny inputs */
    clm_set_scratch_hook(c->s, &c->hook);
    return 1;
}

void dcase_close(struct dcase *c)
{
    clm_set_scratch_free(c->s);
    clm_set_database_free(c->db);
    t_matches_free(&c->want);
    t_matches_free(&c->got);
    t_matches_free(&c->one);
}

static int same(const t_matches *got, const t_matches *want, const char *desc, const char *what)
{
    char buf[512];
    if (!t_matches_diff(got, want, buf, sizeof buf)) return 1;
    return T_FAIL("%s: %s differs from the reference: %s", desc, what, buf);
}

int temp_file(const unsigned char *text, size_t n)
{
    char path[] = "/tmp/clmatch-devset-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    unlink(path);
    if (n && write(fd, text, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Stream text[0, n) in pieces of random sizes (some across blocks), flushing now and then. */
static int stream_pieces(struct dcase *c, const unsigned char *text, size_t n, unsigned flags,
                         t_rng *r, uint64_t *total)
{
    clm_set_stream *st;
    int rc = clm_set_stream_open(c->db, c->s, flags, &st);
    if (rc != CLM_OK) return rc;
    t_matches_clear(&c->got);
    c->got.written = 0;
    clm_match_cb cb = flags & CLM_STREAM_COUNT_ONLY ? NULL : t_collect;
    for (size_t at = 0; at < n && rc == CLM_OK;) {
        size_t k = 1 + t_below(r, 3000);
        if (k > n - at) k = n - at;
        c->got.written += k;
        rc = clm_set_stream_write(st, text + at, k, cb, &c->got);
        at += k;
        if (rc == CLM_OK && t_below(r, 8) == 0) rc = clm_set_stream_flush(st, cb, &c->got);
    }
    int rc2 = clm_set_stream_close(st, cb, &c->got, total);
    return rc != CLM_OK ? rc : rc2;
}

/* Stream text[0, n) with line breaks ("\n", now and then "\r\n" or a blank line) put in
 * every 1 to 120 bytes, through CLM_STREAM_SKIP_LINE_BREAKS in random pieces: the matches of
 * the text, and the text offset after each write the text bytes written. */
static int stream_lined(struct dcase *c, const unsigned char *text, size_t n, t_rng *r,
                        uint64_t *total, const char *desc)
{
    unsigned char *lined = malloc(2 * n + 8);
    size_t *text_at = malloc((2 * n + 9) * sizeof *text_at); /* text bytes before lined[i] */
    if (!lined || !text_at) abort();
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t k = 1 + t_below(r, 120);
        if (k > n - i) k = n - i;
        for (size_t j = 0; j < k; j++) text_at[m] = i + j, lined[m++] = text[i + j];
        i += k;
        unsigned what = (unsigned)t_below(r, 10);
        if (what == 0) text_at[m] = i, lined[m++] = '\r';
        text_at[m] = i, lined[m++] = '\n';
        if (what == 1) text_at[m] = i, lined[m++] = '\n';
    }
    text_at[m] = n;
    clm_set_stream *st;
    int rc = clm_set_stream_open(c->db, c->s, CLM_STREAM_SKIP_LINE_BREAKS, &st);
    if (rc != CLM_OK) {
        free(lined);
        free(text_at);
        return rc;
    }
    t_matches_clear(&c->got);
    c->got.written = 0;
    for (size_t at = 0; at < m && rc == CLM_OK;) {
        size_t k = 1 + t_below(r, 3000);
        if (k > m - at) k = m - at;
        c->got.written = text_at[at + k]; /* matches may end up to here */
        rc = clm_set_stream_write(st, lined + at, k, t_collect, &c->got);
        at += k;
        uint64_t off = 0;
        if (rc == CLM_OK && EXPECT_RC(clm_set_stream_text_offset(st, &off), CLM_OK) &&
            off != text_at[at])
            T_FAIL("%s: text offset %llu after %zu bytes, want %zu", desc,
                   (unsigned long long)off, at, text_at[at]);
        if (rc == CLM_OK && t_below(r, 8) == 0) rc = clm_set_stream_flush(st, t_collect, &c->got);
    }
    int rc2 = clm_set_stream_close(st, t_collect, &c->got, total);
    free(lined);
    free(text_at);
    return rc != CLM_OK ? rc : rc2;
}

void dcase_check(struct dcase *c, const unsigned char *text, size_t n, const char *desc)
{
    const clm_database *db0 = clm_set_database_get(c->db, 0);
    clm_scratch *s0 = clm_set_scratch_get(c->s, 0);
    uint64_t count = 0;
    t_rng r;
    t_rng_init(&r, desc, n);
    if (!EXPECT(t_reference_ex(text, n, &c->fs, &c->want) == 0)) return;
    t_matches_clear(&c->one);
    if (EXPECT_RC(clm_scan(db0, s0, text, n, t_collect, &c->one), CLM_OK))
        same(&c->one, &c->want, desc, "one device");
    t_matches_clear(&c->got);
    if (EXPECT_RC(clm_set_scan(c->db, c->s, text, n, t_collect, &c->got), CLM_OK))
        same(&c->got, &c->want, desc, "clm_set_scan");
    if (EXPECT_RC(clm_set_count(c->db, c->s, text, n, &count), CLM_OK) &&
        count != c->want.n)
        T_FAIL("%s: clm_set_count %llu, the reference %zu", desc, (unsigned long long)count,
               c->want.n);
    int fd = temp_file(text, n);
    if (!EXPECT(fd >= 0)) return;
    t_matches_clear(&c->got);
    if (EXPECT_RC(clm_set_scan_fd(c->db, c->s, fd, t_collect, &c->got), CLM_OK))
        same(&c->got, &c->want, desc, "clm_set_scan_fd");
    if (EXPECT_RC(clm_set_count_fd(c->db, c->s, fd, &count), CLM_OK) && count != c->want.n)
        T_FAIL("%s: clm_set_count_fd %llu, the reference %zu", desc,
               (unsigned long long)count, c->want.n);
    /* a range of the file, as if it were the whole input */
    size_t off = n / 5, len = n / 2;
    t_matches part;
    t_matches_init(&part);
    if (EXPECT(t_reference_ex(text + off, len, &c->fs, &part) == 0)) {
        t_matches_clear(&c->got);
        if (EXPECT_RC(clm_set_scan_fd_range(c->db, c->s, fd, off, len, t_collect, &c->got),
                      CLM_OK))
            same(&c->got, &part, desc, "clm_set_scan_fd_range");
        if (EXPECT_RC(clm_set_count_fd_range(c->db, c->s, fd, off, len, &count), CLM_OK) &&
            count != part.n)
            T_FAIL("%s: clm_set_count_fd_range %llu, the reference %zu", desc,
                   (unsigned long long)count, part.n);
    }
    t_matches_free(&part);
    EXPECT_RC(clm_set_scan_fd_range(c->db, c->s, fd, off, n, t_collect, &c->got),
              off ? CLM_E_INVALID : CLM_OK);
    close(fd);
    uint64_t total = 0;
    if (EXPECT_RC(stream_pieces(c, text, n, 0, &r, &total), CLM_OK)) {
        same(&c->got, &c->want, desc, "a set stream");
        if (c->got.causality_errors) T_FAIL("%s: a stream match came before its bytes", desc);
        if (total != c->want.n) T_FAIL("%s: stream total %llu", desc, (unsigned long long)total);
    }
    if (EXPECT_RC(stream_pieces(c, text, n, CLM_STREAM_COUNT_ONLY, &r, &total), CLM_OK) &&
        total != c->want.n)
        T_FAIL("%s: count-only stream total %llu, the reference %zu", desc,
               (unsigned long long)total, c->want.n);
    if (EXPECT_RC(stream_lined(c, text, n, &r, &total, desc), CLM_OK)) {
        same(&c->got, &c->want, desc, "a set stream skipping line breaks");
        if (c->got.causality_errors) T_FAIL("%s: a stream match came before its bytes", desc);
        if (total != c->want.n) T_FAIL("%s: line-broken stream total %llu", desc,
                                       (unsigned long long)total);
    }
}

/* The shares that every text is checked with: equal, and very unequal both ways. */
static const double shares[][SET_N] = {{0}, {1, 7, 2}, {1000, 1, 1}, {1, 1, 1000}};
#define N_SHARES (sizeof shares / sizeof shares[0])

static void check_shares(struct dcase *c, const unsigned char *text, size_t n, const char *what)
{
    for (size_t i = 0; i < N_SHARES && !t_failures(); i++) {
        char desc[160];
        snprintf(desc, sizeof desc, "%s, %zu bytes, shares %g:%g:%g", what, n, shares[i][0],
                 shares[i][1], shares[i][2]);
        EXPECT_RC(clm_device_set_set_speeds(c->set, shares[i][0] ? shares[i] : NULL, SET_N),
                  CLM_OK);
        dcase_check(c, text, n, desc);
    }
}

/* ---- the cases ----------------------------------------------------------------------------- */

static int child_exact(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    t_rng r;
    t_rng_init(&r, "devset.exact", 0);
    size_t n = 200000, m = 13;
    unsigned char *text = t_random_text(&r, n, 4);
    unsigned char *p = malloc(m);
    memcpy(p, text + n / 3 - 5, m); /* occurs at least where a share of 1:1:1 splits */
    const unsigned char *pats[] = {p};
    size_t lens[] = {m};
    struct dcase c;
    if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_AUTO, 0, 0, 0)) {
        check_shares(&c, text, n, "random text");
        /* equal shares split at n / 3 and 2n / 3: one occurrence at each start around
         * them, in a text without others */
        EXPECT_RC(clm_device_set_set_speeds(set, NULL, SET_N), CLM_OK);
        for (size_t at = n / 3 - m - 1; at <= n / 3 + 1 && !t_failures(); at++) {
            memset(text, 'x', n);
            memcpy(text + at, p, m);
            memcpy(text + at + n / 3 + 1, p, m);
            char desc[64];
            snprintf(desc, sizeof desc, "an occurrence at %zu", at);
            dcase_check(&c, text, n, desc);
        }
        /* tiny inputs: shorter than the devices, than the pattern, just longer */
        for (size_t len = 0; len <= 2 * m + SET_N && !t_failures(); len++) {
            for (size_t i = 0; i < len; i++) text[i] = p[i % m];
            char desc[64];
            snprintf(desc, sizeof desc, "a tiny input of %zu bytes", len);
            dcase_check(&c, text, len, desc);
        }
    }
    dcase_close(&c);
    /* parts of several slabs each */
    if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_AUTO, 0, 0, 16384))
        check_shares(&c, text, n, "random text, 16 KiB slabs");
    dcase_close(&c);
    /* the split as it is without the test hook: only inputs of a megabyte a device split */
    t_fill(&r, text, n, 4);
    size_t big = 3 * CLM_SET_MIN_PART + 12345;
    unsigned char *large = malloc(big);
    if (!large) abort();
    t_fill(&r, large, big, 4);
    if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_AUTO, 0, 0, 0)) {
        struct clm_set_hook h = {CLM_SET_MIN_PART, 0, 0, 0, 0};
        clm_set_scratch_hook(c.s, &h);
        for (size_t i = 0; i < 3; i++) /* plant occurrences at the equal split points */
            memcpy(large + i * big / 3 - (i ? 6 : 0), p, m);
        dcase_check(&c, large, big, "3 MiB, the default split");
    }
    dcase_close(&c);
    free(large);
    free(text);
    free(p);
    clm_device_set_close(set);
    return t_failures();
}

/* Patterns of several lengths in one database (aho), on all-match text and random text. */
static int child_multi(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    t_rng r;
    t_rng_init(&r, "devset.multi", 0);
    static const unsigned char a1[] = "a", a2[] = "aa", a7[] = "aaaaaaa", ab[] = "ab";
    const unsigned char *pats[] = {a7, a1, ab, a2};
    size_t lens[] = {7, 1, 2, 2};
    size_t n = 30000;
    unsigned char *text = malloc(n);
    if (!text) abort();
    struct dcase c;
    if (dcase_open(&c, set, pats, lens, 4, CLM_ALGO_AHO, 0, 0, 0)) {
        memset(text, 'a', n);
        check_shares(&c, text, n, "all-match text");
        t_fill(&r, text, n, 2);
        check_shares(&c, text, n, "random ab text");
        for (size_t len = 0; len <= 9 && !t_failures(); len++) {
            char desc[64];
            snprintf(desc, sizeof desc, "a tiny input of %zu bytes", len);
            dcase_check(&c, text, len, desc);
        }
    }
    dcase_close(&c);
    free(text);
    clm_device_set_close(set);
    return t_failures();
}

/* Approximate patterns: edit distance (matches of several lengths, best starts before a
 * part) and mismatches only. */
static int child_approx(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    t_rng r;
    t_rng_init(&r, "devset.approx", 0);
    size_t n = 20000, m = 12;
    unsigned char *text = t_random_text(&r, n, 4);
    unsigned char *p = malloc(m);
    memcpy(p, text + n / 2 - 4, m);
    const unsigned char *pats[] = {p};
    size_t lens[] = {m};
    static const unsigned flags[] = {0, CLM_MISMATCHES_ONLY};
    for (size_t f = 0; f < 2 && !t_failures(); f++) {
        struct dcase c;
        if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_BITAP, flags[f], 3, 0)) {
            check_shares(&c, text, n, flags[f] ? "3 mismatches" : "3 edits");
            dcase_close(&c);
            if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_BITAP, flags[f], 3, 4096))
                check_shares(&c, text, n, flags[f] ? "3 mismatches, 4 KiB slabs"
                                                   : "3 edits, 4 KiB slabs");
            for (size_t len = 0; len <= m + 4 && !t_failures(); len++) {
                char desc[64];
                snprintf(desc, sizeof desc, "a tiny input of %zu bytes, k 3", len);
                dcase_check(&c, text + n / 2 - 4, len, desc);
            }
        }
        dcase_close(&c);
    }
    free(text);
    free(p);
    clm_device_set_close(set);
    return t_failures();
}

/* Edit distance on a two-letter text (a match ends at most positions), split at 200 random
 * points: part edges fall among alignments of every length from m - k to m + k. */
static int child_edges(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    t_rng r;
    t_rng_init(&r, "devset.edges", 0);
    size_t n = 4000, m = 8;
    unsigned char *text = t_random_text(&r, n, 2);
    const unsigned char *pats[] = {text + 100};
    size_t lens[] = {m};
    struct dcase c;
    if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_BITAP, 0, 3, 0) &&
        EXPECT(t_reference_ex(text, n, &c.fs, &c.want) == 0)) {
        for (int i = 0; i < 200 && !t_failures(); i++) {
            double sp[SET_N];
            for (int d = 0; d < SET_N; d++) sp[d] = 1 + (double)t_below(&r, 1000);
            EXPECT_RC(clm_device_set_set_speeds(set, sp, SET_N), CLM_OK);
            char desc[96];
            snprintf(desc, sizeof desc, "shares %g:%g:%g", sp[0], sp[1], sp[2]);
            t_matches_clear(&c.got);
            if (EXPECT_RC(clm_set_scan(c.db, c.s, text, n, t_collect, &c.got), CLM_OK))
                same(&c.got, &c.want, desc, "clm_set_scan");
        }
    }
    dcase_close(&c);
    free(text);
    clm_device_set_close(set);
    return t_failures();
}

/* Streams across several blocks: a block of a few kilobytes, so every write crosses them. */
static int child_stream(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    t_rng r;
    t_rng_init(&r, "devset.stream", 0);
    size_t n = 40000; /* 625 blocks of 64 bytes: every block edge a device edge somewhere */
    unsigned char *text = t_random_text(&r, n, 2);
    static const unsigned char p1[] = "abba", p2[] = "babababbab";
    const unsigned char *pats[] = {p1, p2};
    size_t lens[] = {4, 10};
    static const size_t blocks[] = {64, 4096, 10007};
    for (size_t k = 0; k < 2 && !t_failures(); k++) {
        struct dcase c;
        if (dcase_open(&c, set, pats, lens, 2, k ? CLM_ALGO_BITAP : CLM_ALGO_AHO, 0, k, 0)) {
            for (size_t b = 0; b < 3 && !t_failures(); b++) {
                c.hook.stream_block = blocks[b];
                clm_set_scratch_hook(c.s, &c.hook);
                char desc[64];
                snprintf(desc, sizeof desc, "stream blocks of %zu, k %zu", blocks[b], k);
                check_shares(&c, text, n, desc);
            }
        }
        dcase_close(&c);
    }
    free(text);
    clm_device_set_close(set);
    return t_failures();
}

static int refuse(const clm_match *m, void *ctx)
{
    (void)m;
    ++*(size_t *)ctx;
    return 0;
}

/* A device that fails mid-scan: the call fails naming it and calls back nothing; the set
 * scratch works afterwards. */
static int child_fail(const char *arg)
{
    (void)arg;
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    size_t n = 30000;
    unsigned char *text = malloc(n);
    if (!text) abort();
    memset(text, 'a', n);
    static const unsigned char a3[] = "aaa";
    const unsigned char *pats[] = {a3};
    size_t lens[] = {3};
    struct dcase c;
    if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_AUTO, 0, 0, 0)) {
        for (unsigned dev = 0; dev < SET_N && !t_failures(); dev++) {
            c.hook.fail_device = dev + 1;
            c.hook.fail_after = 100;
            clm_set_scratch_hook(c.s, &c.hook);
            size_t calls = 0;
            uint64_t count = 0;
            EXPECT_RC(clm_set_scan(c.db, c.s, text, n, refuse, &calls), CLM_E_OPENCL);
            char want[32];
            snprintf(want, sizeof want, "device %u ", dev);
            if (!strstr(clm_last_error(), want) || !strstr(clm_last_error(), "mid-scan"))
                T_FAIL("the detail does not name device %u: %s", dev, clm_last_error());
            if (calls) T_FAIL("device %u failed, yet %zu matches were called back", dev, calls);
            EXPECT_RC(clm_set_count(c.db, c.s, text, n, &count), CLM_E_OPENCL);
            int fd = temp_file(text, n);
            if (EXPECT(fd >= 0)) {
                EXPECT_RC(clm_set_scan_fd(c.db, c.s, fd, refuse, &calls), CLM_E_OPENCL);
                close(fd);
            }
            clm_set_stream *st;
            if (EXPECT_RC(clm_set_stream_open(c.db, c.s, 0, &st), CLM_OK)) {
                EXPECT_RC(clm_set_stream_write(st, text, n, refuse, &calls), CLM_OK);
                EXPECT_RC(clm_set_stream_close(st, refuse, &calls, NULL), CLM_E_OPENCL);
            }
            if (calls) T_FAIL("device %u failed, yet %zu matches were called back", dev, calls);
        }
        c.hook.fail_device = 0;
        clm_set_scratch_hook(c.s, &c.hook);
        dcase_check(&c, text, n, "after the failures");
    }
    dcase_close(&c);
    free(text);
    clm_device_set_close(set);
    return t_failures();
}

/* PoCL 4 and 5 abort when launches of one kernel overlap on alike devices (devset.c,
 * clm_pocl_release_race): a set of their devices searches one part at a time, and gets the
 * matches of the others. */
static int child_serial(const char *arg)
{
    (void)arg;
    static const struct {
        const char *version;
        int race;
    } versions[] = {
        {"OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC, LLVM 16.0.6, SLEEF", 1},
        {"OpenCL 3.0 PoCL 4.0  Linux, Release, RELOC, LLVM 15.0.7", 1},
        {"OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, SPIR, LLVM 15.0.6", 0},
        {"OpenCL 3.0 PoCL 6.0  Linux, Release, RELOC, LLVM 18.1.8", 0},
        {"OpenCL 3.0 PoCL 7.1", 0},
        {"OpenCL 3.0 CUDA 12.4.131", 0},
        {"OpenCL 3.0 ", 0},
    };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (clm_pocl_release_race(versions[i].version) != versions[i].race)
            T_FAIL("clm_pocl_release_race(\"%s\") is not %d", versions[i].version,
                   versions[i].race);
    if (clm_pocl_release_race(NULL)) T_FAIL("clm_pocl_release_race(NULL) is not 0");
    clm_device_set *set;
    if (!open_set(&set)) return t_failures();
    clm_device_info info;
    if (!EXPECT_RC(clm_device_get_info(clm_device_set_device(set, 0), &info, sizeof info),
                   CLM_OK))
        return t_failures();
    t_rng r;
    t_rng_init(&r, "devset.serial", 0);
    size_t n = 3 * CLM_SET_MIN_PART, m = 13;
    unsigned char *text = t_random_text(&r, n, 4);
    const unsigned char *pats[] = {text + n / 2};
    size_t lens[] = {m};
    for (int forced = 0; forced < 2 && !t_failures(); forced++) {
        struct dcase c;
        if (dcase_open(&c, set, pats, lens, 1, CLM_ALGO_AUTO, 0, 0, 0)) {
            c.hook.one_at_a_time = forced;
            clm_set_scratch_hook(c.s, &c.hook);
            dcase_check(&c, text, n, forced ? "one at a time" : "this platform's way");
            unsigned most = clm_set_scratch_most_running(c.s);
            if ((forced || clm_pocl_release_race(info.platform_version)) && most != 1)
                T_FAIL("%s: %u parts searched at once, not one at a time",
                       forced ? "the test hook" : info.platform_version, most);
            if (most < 1) T_FAIL("no part searched");
        }
        dcase_close(&c);
    }
    free(text);
    clm_device_set_close(set);
    return t_failures();
}

/* Bad device lists and speeds: clear errors. Speeds: none, then measured, then a profile's. */
static int child_errors(const char *arg)
{
    (void)arg;
    char *profiles = t_tempdir("devset-profiles"); /* the profile written here is its own */
    if (!EXPECT(profiles != NULL)) return t_failures();
    setenv("CLMATCH_PROFILE_DIR", profiles, 1);
    clm_device_set *set;
    if (!open_cpu_set(&set)) return t_failures();
    int p = t_cpu_platform(SET_N);
    int plat[] = {p, p}, dev[] = {1, 1}, far[] = {0, 99};
    char unknown[32];
    snprintf(unknown, sizeof unknown, "%d:99", p);
    clm_device_set *bad = NULL;
    EXPECT_RC(clm_device_set_open(plat, dev, 2, &bad), CLM_E_INVALID);
    if (!strstr(clm_last_error(), "twice")) T_FAIL("repeated device: %s", clm_last_error());
    EXPECT(bad == NULL);
    EXPECT_RC(clm_device_set_open(plat, far, 2, &bad), CLM_E_DEVICE_INDEX);
    if (!strstr(clm_last_error(), unknown)) T_FAIL("unknown device: %s", clm_last_error());
    EXPECT_RC(clm_device_set_open(plat, dev, 0, &bad), CLM_E_INVALID);
    double sp[SET_N] = {1, 0, 1};
    EXPECT_RC(clm_device_set_set_speeds(set, sp, SET_N), CLM_E_INVALID);
    EXPECT_RC(clm_device_set_set_speeds(set, sp, 2), CLM_E_INVALID);
    EXPECT_RC(clm_device_set_get_speeds(set, sp, SET_N), CLM_OK);
    EXPECT(sp[0] == 0 && sp[1] == 0 && sp[2] == 0); /* the tests' profiles are empty */
    EXPECT_RC(clm_device_set_calibrate(set, 1 << 20, sp), CLM_OK);
    EXPECT(sp[0] > 0 && sp[1] > 0 && sp[2] > 0);
    /* the devices are alike: one profile names them all */
    EXPECT_RC(clm_tuning_write_profile(clm_device_set_device(set, 0), "speed=3M", NULL, NULL),
              CLM_OK);
    clm_device_set_close(set);
    if (open_cpu_set(&set)) {
        EXPECT_RC(clm_device_set_get_speeds(set, sp, SET_N), CLM_OK);
        if (sp[0] != 3 << 20 || sp[1] != 3 << 20 || sp[2] != 3 << 20)
            T_FAIL("the profile's speed 3M was not used: %g %g %g", sp[0], sp[1], sp[2]);
        clm_device_set_close(set);
    }
    t_rmtree(profiles);
    free(profiles);
    return t_failures();
}

static void run_child_test(const void *arg)
{
    int rc = t_run_child((const char *)arg, NULL, set_env);
    if (rc != 0) T_FAIL("child %s failed (%d)", (const char *)arg, rc);
}

void register_devset_tests(void)
{
    static const struct {
        const char *name, *child;
        t_child_fn fn;
    } tests[] = {
        {"devset.exact", "devset_exact", child_exact},
        {"devset.multi", "devset_multi", child_multi},
        {"devset.approx", "devset_approx", child_approx},
        {"devset.edges", "devset_edges", child_edges},
        {"devset.stream", "devset_stream", child_stream},
        {"devset.fail", "devset_fail", child_fail},
        {"devset.errors", "devset_errors", child_errors},
        {"devset.serial", "devset_serial", child_serial},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        t_register_child(tests[i].child, tests[i].fn);
        t_register(tests[i].name, run_child_test, tests[i].child, 0);
    }
}
