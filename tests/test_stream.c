/*
 * Streams: the input written in pieces must give exactly the one-shot result — same matches
 * in the same order, same total — for any piece sizes, including matches that straddle
 * pieces and slabs; count-only streams; stopping; misuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

#define SLAB 4096

typedef struct {
    const char *name;
    clm_algorithm algo;
    unsigned alpha;
    size_t m;        /* 0: the multi-pattern set */
    size_t capacity; /* match buffer (16: growth inside streams) */
    int allmatch;
    clm_data_path path; /* copy and pinned send a staging's parts ahead of its launch */
    unsigned slots;     /* clm_scratch_options.slots (0: the default) */
} stream_arg;

static const stream_arg stream_args[] = {
    {"naive", CLM_ALGO_NAIVE, 4, 17, 0, 0, CLM_PATH_AUTO, 0},
    {"kmp", CLM_ALGO_KMP, 2, 300, 0, 0, CLM_PATH_AUTO, 0},
    {"dfa", CLM_ALGO_DFA, 26, 33, 0, 0, CLM_PATH_AUTO, 0},
    {"bitap", CLM_ALGO_BITAP, 4, 65, 0, 0, CLM_PATH_AUTO, 0},
    {"bmh", CLM_ALGO_BMH, 26, 17, 0, 0, CLM_PATH_AUTO, 0},
    {"witness", CLM_ALGO_WITNESS, 2, 300, 0, 0, CLM_PATH_AUTO, 0},
    {"simd", CLM_ALGO_SIMD, 4, 65, 0, 0, CLM_PATH_AUTO, 0},
    {"simd-allmatch-growth", CLM_ALGO_SIMD, 1, 17, 16, 1, CLM_PATH_AUTO, 0},
    {"multi", CLM_ALGO_AUTO, 4, 0, 0, 0, CLM_PATH_AUTO, 0},
    {"allmatch-growth", CLM_ALGO_AUTO, 1, 2, 16, 1, CLM_PATH_AUTO, 0},
    {"allmatch-growth-copy", CLM_ALGO_AUTO, 1, 2, 16, 1, CLM_PATH_COPY, 0},
    {"simd-allmatch-growth-pinned", CLM_ALGO_SIMD, 1, 17, 16, 1, CLM_PATH_PINNED, 0},
    {"multi-pinned", CLM_ALGO_AUTO, 4, 0, 0, 0, CLM_PATH_PINNED, 0},
    {"naive-3slots", CLM_ALGO_NAIVE, 4, 17, 0, 0, CLM_PATH_AUTO, 3},
    {"allmatch-growth-copy-4slots", CLM_ALGO_AUTO, 1, 2, 16, 1, CLM_PATH_COPY, 4},
    {"multi-pinned-4slots", CLM_ALGO_AUTO, 4, 0, 0, 0, CLM_PATH_PINNED, 4},
};

/* The pattern set of a case; owns its buffers. */
typedef struct {
    unsigned char *buf[3];
    const unsigned char *pats[3];
    size_t lens[3];
    unsigned ids[3];
    t_patset ps;
} sset;

static void sset_make(sset *s, const stream_arg *a)
{
    memset(s, 0, sizeof *s);
    if (a->m == 0) {
        /* 1 byte, 17 and 300 (overlap of the longest), ids out of order. */
        s->buf[0] = t_pattern(4, 1);
        s->buf[1] = t_pattern(4, 17);
        s->buf[2] = t_pattern(4, 300);
        s->lens[0] = 1; s->lens[1] = 17; s->lens[2] = 300;
        s->ids[0] = 30; s->ids[1] = 10; s->ids[2] = 20;
        s->ps.count = 3;
        s->ps.ids = s->ids;
    } else {
        s->buf[0] = a->allmatch ? malloc(a->m) : t_pattern(a->alpha, a->m);
        if (!s->buf[0]) abort();
        if (a->allmatch) memset(s->buf[0], 'A', a->m);
        s->lens[0] = a->m;
        s->ps.count = 1;
    }
    s->pats[0] = s->buf[0];
    s->pats[1] = s->buf[1];
    s->pats[2] = s->buf[2];
    s->ps.pats = s->pats;
    s->ps.lens = s->lens;
}

static void sset_free(sset *s)
{
    free(s->buf[0]);
    free(s->buf[1]);
    free(s->buf[2]);
}

/* Piece-size schedules. */
enum { SCHED_MIXED, SCHED_BYTES, SCHED_PRIME, SCHED_BIG, SCHED_COUNT };
static const char *const sched_names[SCHED_COUNT] = {"mixed", "1-byte-then-rest", "prime-7919",
                                                     "3-slabs+1"};

static size_t next_piece(int sched, t_rng *r, size_t done, size_t left)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 251, 509, 4093, SLAB, SLAB + 1,
                                   3 * SLAB + 7, 65537};
    size_t k;
    switch (sched) {
    case SCHED_MIXED: k = sizes[t_below(r, sizeof sizes / sizeof sizes[0])]; break;
    case SCHED_BYTES: k = done < 3000 ? 1 : left; break;
    case SCHED_PRIME: k = 7919; break;
    default: k = 3 * SLAB + 1; break;
    }
    return k < left ? k : left;
}

/* Write text in pieces following sched; returns the first non-OK status (CLM_STOPPED too). */
static int write_pieces(clm_stream *st, const unsigned char *text, size_t n, int sched,
                        uint64_t seed, t_matches *got, clm_match_cb cb, size_t *writes)
{
    t_rng r;
    size_t done = 0;
    t_rng_init(&r, "pieces", seed);
    *writes = 0;
    while (done < n) {
        size_t k = next_piece(sched, &r, done, n - done);
        int rc;
        if (got) got->written = done + k;
        rc = clm_stream_write(st, text + done, k, cb, got);
        ++*writes;
        if (rc != CLM_OK) return rc;
        done += k;
    }
    return CLM_OK;
}

/* Like write_pieces, with clm_stream_flush after every third write: afterwards every match
 * starting before (written - (longest - 1)) must have been delivered. Returns the number of
 * flushes that left such a match behind; *rc gets the first non-OK status. */
static size_t write_flushing(clm_stream *st, const unsigned char *text, size_t n,
                             const t_matches *want, size_t longest, t_matches *got, int *rc)
{
    t_rng r;
    size_t done = 0, writes = 0, late = 0, due = 0;
    t_rng_init(&r, "pieces", SCHED_MIXED);
    *rc = CLM_OK;
    while (done < n) {
        size_t k = next_piece(SCHED_MIXED, &r, done, n - done);
        got->written = done + k;
        *rc = clm_stream_write(st, text + done, k, t_collect, got);
        if (*rc != CLM_OK) return late;
        done += k;
        if (++writes % 3) continue;
        *rc = clm_stream_flush(st, t_collect, got);
        if (*rc != CLM_OK) return late;
        while (due < want->n && want->v[due].start + (longest - 1) < done) due++;
        if (got->n < due) {
            if (!late)
                t_note("after a flush at %zu bytes: %zu matches delivered, %zu are final",
                       done, got->n, due);
            late++;
        }
    }
    return late;
}

static unsigned char *make_text(const stream_arg *a, const sset *s, size_t n, int sched)
{
    unsigned char *text = malloc(n);
    t_rng r, pr;
    size_t done = 0, i;
    if (!text) abort();
    t_rng_init(&r, "stream-text", (uint64_t)sched);
    if (a->allmatch) {
        /* nearly all match, but no two slabs alike: a slab's pass run again over another
         * slab's bytes finds other matches */
        memset(text, 'A', n);
        text[n / 2] = 'B';
        for (i = 0; i < n; i++)
            if (t_below(&r, 64) == 0)
                text[i] = 'B';
        return text;
    }
    t_fill(&r, text, n, a->alpha);
    /* Plant copies straddling the piece boundaries of the schedule, and at every third one
     * (where write_flushing flushes) starting exactly m - 1 bytes before it: the first start
     * a flush may not deliver yet. Then the slab boundaries. */
    t_rng_init(&pr, "pieces", (uint64_t)sched);
    for (i = 1; done < n; i++) {
        size_t k = next_piece(sched, &pr, done, n - done), pi = t_below(&r, s->ps.count);
        size_t m = s->lens[pi], back = i % 3 == 0 ? m - 1 : 1 + t_below(&r, m);
        done += k;
        if (k > 0 && back > 0 && done >= back && done - back + m <= n)
            memcpy(text + done - back, s->pats[pi], m);
    }
    for (i = SLAB; i < n; i += SLAB) {
        size_t m = s->lens[s->ps.count - 1], back = 1 + t_below(&r, m);
        if (i >= back && i - back + m <= n) memcpy(text + i - back, s->pats[s->ps.count - 1], m);
    }
    return text;
}

static void test_stream(const void *arg)
{
    const stream_arg *a = arg;
    size_t n = t_quick ? 20000 : 200000;
    sset set;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_scratch_options so;
    t_matches got, once;
    int sched;

    t_matches_init(&got);
    t_matches_init(&once);
    sset_make(&set, a);
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = SLAB;
    so.match_capacity = a->capacity;
    so.data_path = a->path;
    so.slots = a->slots;
    if (!EXPECT_RC(t_compile(&set.ps, a->algo, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)) goto out;
    if (!EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)) goto out;
    for (sched = 0; sched < SCHED_COUNT; sched++) {
        unsigned char *text = make_text(a, &set, n, sched);
        t_matches want;
        clm_stream *st = NULL;
        uint64_t total = 0;
        size_t writes = 0;
        char diff[512];
        int rc;

        t_matches_init(&want);
        t_reference(text, n, &set.ps, &want);
        t_matches_clear(&once);
        if (!EXPECT_RC(clm_scan(db, s, text, n, t_collect, &once), CLM_OK)) goto next;
        if (t_matches_diff(&once, &want, diff, sizeof diff)) {
            T_FAIL("one-shot scan (schedule %s): %s", sched_names[sched], diff);
            goto next;
        }
        /* Matches through the stream, on a scratch whose match buffer has not grown yet
         * with a small capacity: passes run again inside the stream. */
        if (a->capacity || a->slots) {
            clm_scratch_free(s);
            s = NULL;
            if (!EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)) goto next;
        }
        if (!EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) goto next;
        t_matches_clear(&got);
        rc = write_pieces(st, text, n, sched, (uint64_t)sched, &got, t_collect, &writes);
        EXPECT_RC(rc, CLM_OK);
        got.written = 0;
        EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
        if (t_matches_diff(&got, &once, diff, sizeof diff))
            T_FAIL("stream (schedule %s, %zu writes, slab %d, n %zu) vs one-shot: %s",
                   sched_names[sched], writes, SLAB, n, diff);
        if (total != once.n)
            T_FAIL("stream (schedule %s): close gave total %llu, one-shot found %zu",
                   sched_names[sched], (unsigned long long)total, once.n);
        if (got.causality_errors)
            T_FAIL("stream (schedule %s): %d matches delivered before all their bytes were "
                   "written", sched_names[sched], got.causality_errors);
        /* on a fresh scratch the stream alone made the slots' buffers: it filled each (their
         * match buffers, at the initial capacity, hold most of them) */
        clm_scratch_info info;
        if (a->slots && !a->capacity &&
            EXPECT_RC(clm_scratch_get_info(s, &info, sizeof info), CLM_OK) &&
            !EXPECT(info.allocated_bytes >= a->slots * info.match_capacity * 8))
            t_note("%u slots, match buffers of %zu: %zu bytes allocated", a->slots,
                   info.match_capacity, info.allocated_bytes);
        /* With flushes: everything final is delivered at each flush, and the end result is
         * the same. */
        if (sched == SCHED_MIXED && EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
            size_t longest = set.lens[set.ps.count - 1], late;
            t_matches_clear(&got);
            late = write_flushing(st, text, n, &once, longest, &got, &rc);
            EXPECT_RC(rc, CLM_OK);
            EXPECT(late == 0);
            got.written = 0;
            total = 0;
            EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
            if (t_matches_diff(&got, &once, diff, sizeof diff))
                T_FAIL("flushed stream vs one-shot: %s", diff);
            EXPECT(total == once.n);
            EXPECT(got.causality_errors == 0);
        }
        /* Count only, no callback. */
        if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_COUNT_ONLY, &st), CLM_OK)) goto next;
        rc = write_pieces(st, text, n, sched, (uint64_t)sched, NULL, NULL, &writes);
        EXPECT_RC(rc, CLM_OK);
        total = 0;
        EXPECT_RC(clm_stream_close(st, NULL, NULL, &total), CLM_OK);
        if (total != once.n)
            T_FAIL("count-only stream (schedule %s): total %llu, expected %zu",
                   sched_names[sched], (unsigned long long)total, once.n);
    next:
        t_matches_free(&want);
        free(text);
    }
out:
    clm_scratch_free(s);
    clm_database_free(db);
    sset_free(&set);
    t_matches_free(&got);
    t_matches_free(&once);
}

/* Stopping a stream: inside a write, and inside close; then no more input or callbacks. */
static void test_stream_stop(const void *arg)
{
    static const stream_arg a = {"naive", CLM_ALGO_AUTO, 2, 3, 0, 0, CLM_PATH_AUTO, 0};
    size_t n = t_quick ? 20000 : 100000, writes, limit_i;
    sset set;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_scratch_options so;
    t_matches got, want;
    unsigned char *text;

    (void)arg;
    t_matches_init(&got);
    t_matches_init(&want);
    sset_make(&set, &a);
    text = make_text(&a, &set, n, SCHED_MIXED);
    t_reference(text, n, &set.ps, &want);
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = SLAB;
    if (!EXPECT_RC(t_compile(&set.ps, a.algo, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)) goto out;
    if (!EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_OK)) goto out;
    if (!EXPECT(want.n > 100)) goto out;
    for (limit_i = 0; limit_i < 3; limit_i++) {
        size_t limit = limit_i == 0 ? 1 : limit_i == 1 ? want.n / 2 : want.n;
        clm_stream *st = NULL;
        t_matches prefix = want;
        size_t before;
        int rc, rc2;
        char diff[512];

        if (!EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) break;
        t_matches_clear(&got);
        got.limit = limit;
        rc = write_pieces(st, text, n, SCHED_MIXED, SCHED_MIXED, &got, t_collect, &writes);
        got.written = 0;
        before = got.n;
        if (rc == CLM_STOPPED) {
            /* No more input after a stop: the write is refused and calls nothing. */
            EXPECT_RC(clm_stream_write(st, text, 10, t_collect, &got), CLM_E_INVALID);
            EXPECT(got.n == before);
            rc2 = clm_stream_close(st, t_collect, &got, NULL);
            if (!EXPECT(rc2 == CLM_OK || rc2 == CLM_STOPPED))
                t_note("close after a stopped write returned %d (%s)", rc2, clm_strerror(rc2));
        } else {
            EXPECT_RC(rc, CLM_OK);
            /* The stop can only come from the matches close delivers. */
            EXPECT_RC(clm_stream_close(st, t_collect, &got, NULL), CLM_STOPPED);
        }
        if (!EXPECT(got.n == limit))
            t_note("stop after %zu matches: %zu callbacks (%zu before close)", limit, got.n,
                   before);
        prefix.n = limit < want.n ? limit : want.n;
        if (t_matches_diff(&got, &prefix, diff, sizeof diff))
            T_FAIL("stop after %zu: %s", limit, diff);
        got.limit = 0;
    }
    /* The scratch takes a new stream after a stopped one. */
    {
        clm_stream *st = NULL;
        uint64_t total = 0;
        char diff[512];
        if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
            t_matches_clear(&got);
            EXPECT_RC(write_pieces(st, text, n, SCHED_PRIME, SCHED_PRIME, &got, t_collect, &writes),
                      CLM_OK);
            got.written = 0;
            EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
            if (t_matches_diff(&got, &want, diff, sizeof diff))
                T_FAIL("stream after stops: %s", diff);
            EXPECT(total == want.n);
        }
    }
out:
    clm_scratch_free(s);
    clm_database_free(db);
    sset_free(&set);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
}

static int count_calls(const clm_match *m, void *ctx)
{
    (void)m;
    ++*(size_t *)ctx;
    return 0;
}

/* Edge cases and misuse of the stream API. */
static void test_stream_api(const void *arg)
{
    size_t m = 5, calls = 0;
    unsigned char *p = t_pattern(4, m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL, *db2 = NULL;
    clm_scratch *s = NULL;
    clm_stream *st = NULL, *st2 = NULL;
    t_matches got;
    uint64_t total = 99;

    (void)arg;
    t_matches_init(&got);
    if (!EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)
        || !EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db2), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK))
        goto out;

    EXPECT_RC(clm_stream_open(NULL, s, 0, &st), CLM_E_INVALID);
    EXPECT_RC(clm_stream_open(db, NULL, 0, &st), CLM_E_INVALID);
    EXPECT_RC(clm_stream_open(db, s, 0, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_stream_open(db2, s, 0, &st), CLM_E_INVALID); /* scratch of another db */
    EXPECT_RC(clm_stream_write(NULL, p, m, t_collect, &got), CLM_E_INVALID);

    /* Empty input. */
    if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
        EXPECT_RC(clm_stream_write(st, p, 0, t_collect, &got), CLM_OK);
        EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
        EXPECT(total == 0 && got.n == 0);
    }
    /* Shorter than the pattern in total, in 1-byte pieces. */
    if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
        size_t i;
        for (i = 0; i + 1 < m; i++) EXPECT_RC(clm_stream_write(st, p + i, 1, t_collect, &got), CLM_OK);
        total = 99;
        EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
        EXPECT(total == 0 && got.n == 0);
    }
    /* Exactly the pattern, 1 byte at a time: one match, found only with the last byte. */
    if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
        size_t i;
        for (i = 0; i < m; i++) {
            got.written = i + 1;
            EXPECT_RC(clm_stream_write(st, p + i, 1, t_collect, &got), CLM_OK);
        }
        got.written = 0;
        EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
        EXPECT(total == 1 && got.n == 1 && got.v[0].start == 0 && got.v[0].end == m);
        EXPECT(got.causality_errors == 0);
    }
    /* One open stream per scratch; misuse inside an open stream. */
    if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
        EXPECT_RC(clm_stream_open(db, s, 0, &st2), CLM_E_INVALID);
        EXPECT_RC(clm_stream_write(st, p, m, NULL, NULL), CLM_E_INVALID); /* cb NULL, not count-only */
        EXPECT_RC(clm_stream_write(st, NULL, m, t_collect, &got), CLM_E_INVALID);
        clm_stream_close(st, NULL, NULL, NULL);
    }
    /* Flush: misuse, and a stop from a callback inside it. */
    EXPECT_RC(clm_stream_flush(NULL, t_collect, &got), CLM_E_INVALID);
    if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
        int i, rc = CLM_OK;
        t_matches_clear(&got);
        EXPECT_RC(clm_stream_flush(st, t_collect, &got), CLM_OK); /* nothing written yet */
        EXPECT_RC(clm_stream_flush(st, NULL, NULL), CLM_E_INVALID); /* cb NULL, not count-only */
        got.limit = 1;
        for (i = 0; i < 3 && rc == CLM_OK; i++) rc = clm_stream_write(st, p, m, t_collect, &got);
        /* Three copies: at least two are final, so a flush delivers one and stops (unless a
         * write already did). */
        if (rc == CLM_OK) EXPECT_RC(clm_stream_flush(st, t_collect, &got), CLM_STOPPED);
        else EXPECT_RC(rc, CLM_STOPPED);
        EXPECT(got.n == 1);
        got.limit = 0;
        EXPECT_RC(clm_stream_write(st, p, m, t_collect, &got), CLM_E_INVALID);
        clm_stream_close(st, t_collect, &got, NULL);
        EXPECT(got.n == 1);
    }
    /* Count-only streams never call a callback, even when one is given. */
    if (EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_COUNT_ONLY, &st), CLM_OK)) {
        EXPECT_RC(clm_stream_write(st, p, m, count_calls, &calls), CLM_OK);
        EXPECT_RC(clm_stream_flush(st, NULL, NULL), CLM_OK);
        EXPECT_RC(clm_stream_flush(st, count_calls, &calls), CLM_OK);
        EXPECT_RC(clm_stream_write(st, p, m, count_calls, &calls), CLM_OK);
        EXPECT_RC(clm_stream_close(st, count_calls, &calls, &total), CLM_OK);
        EXPECT(calls == 0);
        EXPECT(total == 2);
    }
    /* After a closed stream, plain scans work on the scratch. */
    t_matches_clear(&got);
    if (EXPECT_RC(clm_scan(db, s, p, m, t_collect, &got), CLM_OK)) EXPECT(got.n == 1);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    clm_database_free(db2);
    t_matches_free(&got);
    free(p);
}

void register_stream_tests(void)
{
    size_t i;
    for (i = 0; i < sizeof stream_args / sizeof stream_args[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "stream.pieces.%s", stream_args[i].name);
        t_register(name, test_stream, &stream_args[i], 1);
    }
    t_register("stream.stop", test_stream_stop, NULL, 1);
    t_register("stream.api", test_stream_api, NULL, 1);
}
