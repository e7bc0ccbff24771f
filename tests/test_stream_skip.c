/*
 * Streams with CLM_STREAM_SKIP_LINE_BREAKS: the raw bytes written (text with line breaks of
 * every kind put in anywhere: random line widths, CRLF, runs of CR and LF, at the device's
 * compaction blocks and at slab edges, a stretch of line breaks longer than a slab) must give
 * exactly the matches of the text without them: the reference's for exact searches, one-shot
 * clm_scan's of the text for the rest (approximate, DNA on both strands); the count-only
 * total too, and clm_stream_text_offset after every write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_fd.h"

#define SLAB 4096
#define BLOCK 4096 /* cl/compact.cl: 16 bytes x 256 work-items */

typedef struct {
    const char *name;
    clm_algorithm algo;
    unsigned alpha;   /* 0: DNA bases */
    size_t m;
    unsigned flags, k;
    size_t capacity;  /* match buffer (16: growth) */
    int allmatch;
    int exact;        /* the reference applies */
    int packed;       /* clm_compile_options.packing CLM_ON: 2-bit text (clm_pack reads the
                         compacted slab) */
    unsigned slots;   /* clm_scratch_options.slots (0: the default) */
} skip_arg;

static const skip_arg skip_args[] = {
    {"naive", CLM_ALGO_NAIVE, 4, 17, 0, 0, 0, 0, 1, 0, 0},
    {"dfa", CLM_ALGO_DFA, 26, 33, 0, 0, 0, 0, 1, 0, 0},
    {"bitap", CLM_ALGO_BITAP, 4, 65, 0, 0, 0, 0, 1, 0, 0},
    {"bmh-3slots", CLM_ALGO_BMH, 26, 17, 0, 0, 0, 0, 1, 0, 3},
    {"simd", CLM_ALGO_SIMD, 4, 65, 0, 0, 0, 0, 1, 0, 0},
    {"witness", CLM_ALGO_WITNESS, 2, 300, 0, 0, 0, 0, 1, 0, 0},
    {"allmatch-growth-4slots", CLM_ALGO_AUTO, 1, 2, 0, 0, 16, 1, 1, 0, 4},
    {"bitap-k2-edits-3slots", CLM_ALGO_BITAP, 4, 20, 0, 2, 0, 0, 0, 0, 3},
    {"dna-both-strands-k1-4slots", CLM_ALGO_AUTO, 0, 20, CLM_DNA | CLM_BOTH_STRANDS, 1, 0, 0, 0, 0,
     4},
    {"dna-mismatches-k2", CLM_ALGO_AUTO, 0, 23,
     CLM_DNA | CLM_BOTH_STRANDS | CLM_MISMATCHES_ONLY, 2, 0, 0, 0, 0, 0},
    {"dna-packed-k1", CLM_ALGO_BITAP, 0, 20, CLM_DNA | CLM_BOTH_STRANDS, 1, 0, 0, 0, 1, 0},
};

static void fill_dna(t_rng *r, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)"ACGT"[t_below(r, 4)];
}

/* The text: random, with the pattern planted often (also across where breaks go). */
static unsigned char *make_text(const skip_arg *a, const unsigned char *pat, size_t n,
                                t_rng *r)
{
    unsigned char *t = malloc(n);
    if (!t) abort();
    if (a->allmatch) {
        memset(t, 'A', n);
        t[n / 3] = 'B';
        return t;
    }
    if (a->alpha)
        t_fill(r, t, n, a->alpha);
    else
        fill_dna(r, t, n);
    for (size_t i = 0; i + a->m < n; i += 1 + t_below(r, 700))
        memcpy(t + i, pat, a->m);
    return t;
}

static int near_edge(size_t x, size_t edge)
{
    size_t o = x % edge;
    return o == 0 || o == 1 || o == 15 || o == 16 || o == edge - 1;
}

/* The text with line breaks put in: lines of random widths (1 up), "\n" or "\r\n" or a run of
 * CR and LF, more breaks where the raw offset is at a compaction block's or 16-byte load's
 * edge or the text offset at a slab's, and a stretch of 3 slabs of line breaks. */
static unsigned char *add_breaks(const unsigned char *t, size_t n, t_rng *r, size_t *raw_n)
{
    size_t cap = 4 * n + 8 * SLAB, w = 0, width = 1 + t_below(r, 120), col = 0;
    unsigned char *raw = malloc(cap);
    if (!raw) abort();
    for (size_t i = 0; i < n; i++) {
        int brk = col >= width || (near_edge(w, BLOCK) && t_below(r, 2)) ||
                  (near_edge(i, SLAB) && t_below(r, 2));
        if (brk) {
            unsigned kind = (unsigned)t_below(r, 4);
            if (kind == 0) raw[w++] = '\n';
            else if (kind == 1) { raw[w++] = '\r'; raw[w++] = '\n'; }
            else if (kind == 2) raw[w++] = '\r';
            else for (size_t j = 1 + t_below(r, 6); j > 0; j--) raw[w++] = "\r\n"[t_below(r, 2)];
            col = 0;
            if (t_below(r, 8) == 0) width = 1 + t_below(r, 120);
        }
        if (i == n / 2) /* more line breaks than a staging holds */
            for (size_t j = 0; j < 3 * SLAB + 5; j++) raw[w++] = j % 7 ? '\n' : '\r';
        raw[w++] = t[i];
        col++;
    }
    raw[w++] = '\r';
    raw[w++] = '\n';
    *raw_n = w;
    return raw;
}

static size_t kept(const unsigned char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += p[i] != '\n' && p[i] != '\r';
    return k;
}

/* Matches of want that start before `before`. */
static size_t starting_before(const t_matches *want, uint64_t before)
{
    size_t n = 0;
    while (n < want->n && want->v[n].start < before) n++;
    return n;
}

/* clm_stream_write_fd's input: a file of the raw bytes, or (hooked) of the raw bytes with
 * every '\n' made '@', which the block hook turns back (its rewrite must be what is
 * searched); the hooks check what they see against raw. */
typedef struct {
    t_fd_parts parts; /* first: t_fd_part_hook's */
    FILE *file;
    int hooked;
    const unsigned char *raw; /* the raw bytes, file offset 0 */
    t_rng *r;
    int content_errors, preset_errors, declined, calls;
    uint64_t decline_at, decline_n; /* the block declined last */
} fd_input;

static int hook_block(void *ctx, uint64_t block, unsigned pieces, unsigned char *p, size_t n,
                      uint64_t offset, uint64_t settled, size_t *breaks)
{
    fd_input *in = ctx;
    size_t at = 0;
    (void)settled;
    t_fd_block(&in->parts, block, pieces, n);
    in->preset_errors += *breaks != CLM_BREAKS_UNKNOWN; /* with a part hook none is counted */
    for (; at < n; at++) { /* as read, then rewritten */
        unsigned char want = in->raw[offset + at];
        if (p[at] != (want == '\n' ? '@' : want))
            break;
        if (p[at] == '@')
            p[at] = '\n';
    }
    if (at != n && in->content_errors++ == 0)
        t_note("block %llu at file offset %llu: byte %zu differs from the file's",
               (unsigned long long)block, (unsigned long long)offset, at);
    if (t_below(in->r, 4) == 0 || (in->declined == 0 && ++in->calls > 3)) { /* declined */
        in->declined++;
        in->decline_at = offset;
        in->decline_n = n;
        return CLM_STOPPED;
    }
    if (t_below(in->r, 2))
        *breaks = n - kept(p, n);
    return CLM_OK;
}

/* Bytes [off, off + k) of the file into the stream, a block the hook declined written by the
 * test instead. */
static int put_file(clm_stream *st, fd_input *in, uint64_t off, size_t k, t_matches *got)
{
    clm_match_cb cb = got ? t_collect : NULL;
    const clm_fd_hooks hooks = {t_fd_part_hook, hook_block, in};
    while (k) {
        uint64_t done = UINT64_MAX;
        int rc = clm_stream_write_fd(st, fileno(in->file), off, k, in->hooked ? &hooks : NULL,
                                     cb, got, &done);
        if (rc != CLM_OK) return rc;
        if (done > k || (done < k && (!in->hooked || in->decline_at != off + done))) {
            t_note("clm_stream_write_fd: %llu of %zu bytes taken", (unsigned long long)done, k);
            return CLM_E_INVALID;
        }
        off += done;
        k -= (size_t)done;
        if (k) { /* the declined block */
            rc = clm_stream_write(st, in->raw + off, (size_t)in->decline_n, cb, got);
            if (rc != CLM_OK) return rc;
            off += in->decline_n;
            k -= (size_t)in->decline_n;
        }
    }
    return CLM_OK;
}

/* A temporary file of the raw bytes (at: every '\n' made '@'). */
static FILE *raw_file(const unsigned char *raw, size_t n, int at)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    for (size_t i = 0; i < n; i++)
        p[i] = at && raw[i] == '\n' ? '@' : raw[i];
    FILE *f = t_fd_file(p, n);
    free(p);
    return f;
}

/* How pieces go into the stream. */
enum { BY_WRITE, BY_RESERVE, BY_FILE, BY_MODES };
static const char *const by_name[BY_MODES] = {"write", "reserve/commit", "file"};

/* One piece of k raw bytes into the stream: a write, a reservation filled and committed
 * (with the line breaks counted here or by the stream, a piece at a time as the reservation
 * allows), or read from the file at offset `off`. */
static int put_piece(clm_stream *st, const unsigned char *p, size_t k, int mode, fd_input *in,
                     uint64_t off, t_rng *r, t_matches *got)
{
    clm_match_cb cb = got ? t_collect : NULL;
    if (mode == BY_WRITE) return clm_stream_write(st, p, k, cb, got);
    if (mode == BY_FILE) return put_file(st, in, off, k, got);
    while (k) {
        void *buf = NULL;
        size_t room = 0, want = t_below(r, 2) ? 0 : k + t_below(r, 3);
        int rc = clm_stream_reserve(st, want, &buf, &room);
        if (rc != CLM_OK) return rc;
        if (room == 0 || (want && room > want)) {
            t_note("clm_stream_reserve: %zu bytes for %zu wanted", room, want);
            return CLM_E_INVALID;
        }
        size_t n = room < k ? room : k;
        memcpy(buf, p, n);
        rc = clm_stream_commit(st, n, t_below(r, 3) ? n - kept(p, n) : CLM_BREAKS_UNKNOWN,
                               cb, got);
        if (rc != CLM_OK) return rc;
        p += n;
        k -= n;
    }
    return CLM_OK;
}

/* Write raw in pieces of random sizes (1 byte up, past a slab), checking the text offset
 * after each write, and that every match before the settled offset has arrived (want: the
 * text's matches); returns the first status that is not CLM_OK. */
static int write_raw(clm_stream *st, const unsigned char *raw, size_t n, int mode, fd_input *in,
                     t_rng *r, t_matches *got, const t_matches *want, size_t *offset_errors)
{
    static const size_t sizes[] = {1, 2, 3, 7, 16, 31, 251, 4093, SLAB + 1, 3 * SLAB + 7,
                                   17 * SLAB + 5};
    size_t done = 0, text = 0;
    while (done < n) {
        size_t k = sizes[t_below(r, sizeof sizes / sizeof sizes[0])];
        if (k > n - done) k = n - done;
        text += kept(raw + done, k);
        if (got) got->written = text;
        int rc = put_piece(st, raw + done, k, mode, in, done, r, got);
        if (rc != CLM_OK) return rc;
        uint64_t off = 0, settled = 0;
        rc = clm_stream_text_offset(st, &off);
        if (rc == CLM_OK) rc = clm_stream_settled(st, &settled);
        if (rc != CLM_OK) return rc;
        if (off != text && (*offset_errors)++ == 0)
            t_note("after %zu raw bytes: text offset %llu, expected %zu", done + k,
                   (unsigned long long)off, text);
        if (got && (settled > text || starting_before(want, settled) > got->n) &&
            (*offset_errors)++ == 0)
            t_note("after %zu raw bytes: settled at %llu with %zu matches delivered", done + k,
                   (unsigned long long)settled, got->n);
        done += k;
    }
    return CLM_OK;
}

/* The raw text through a skip-line-breaks stream of a scratch on data path `path`, matching
 * and count-only, against want (the text's matches). */
static void stream_raw(const skip_arg *a, clm_database *db, clm_data_path path,
                       const unsigned char *raw, size_t raw_n, size_t n, const t_matches *want,
                       t_rng *r)
{
    clm_scratch *s = NULL;
    clm_stream *st = NULL;
    clm_scratch_options so;
    t_matches got;
    char diff[512];
    uint64_t total = 0;
    size_t off_errors = 0;
    const char *pn = clm_data_path_name(path);
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = SLAB;
    so.match_capacity = a->capacity;
    so.data_path = path;
    so.slots = a->slots;
    int rc = clm_scratch_alloc(db, &so, &s);
    if (rc == CLM_E_UNSUPPORTED && path != CLM_PATH_AUTO)
        return; /* a path this device cannot take */
    if (!EXPECT_RC(rc, CLM_OK))
        return;
    t_matches_init(&got);
    fd_input in;
    memset(&in, 0, sizeof in);
    in.raw = raw;
    in.r = r;
    t_fd_parts_init(&in.parts);
    /* rounds: matching, count-only; written, reserved and committed, read from a file (the
     * matching round's hooked) */
    for (int round = 0; round < 2 * BY_MODES; round++) {
        int count = round & 1, mode = round >> 1;
        const char *how = by_name[mode];
        unsigned flags = CLM_STREAM_SKIP_LINE_BREAKS | (count ? CLM_STREAM_COUNT_ONLY : 0u);
        in.hooked = !count;
        if (mode == BY_FILE && !(in.file = raw_file(raw, raw_n, in.hooked)))
            break;
        if (!EXPECT_RC(clm_stream_open(db, s, flags, &st), CLM_OK))
            break;
        t_matches_clear(&got);
        EXPECT_RC(write_raw(st, raw, raw_n, mode, &in, r, count ? NULL : &got, want,
                            &off_errors), CLM_OK);
        got.written = 0;
        total = 0;
        EXPECT_RC(clm_stream_close(st, count ? NULL : t_collect, count ? NULL : &got, &total),
                  CLM_OK);
        if (!count && t_matches_diff(&got, want, diff, sizeof diff))
            T_FAIL("%s, %s path, %s: stream of %zu raw bytes (text %zu) vs the text's "
                   "matches: %s", a->name, pn, how, raw_n, n, diff);
        if (!count && got.causality_errors)
            T_FAIL("%s, %s path, %s: %d matches delivered before their text was written",
                   a->name, pn, how, got.causality_errors);
        if (total != want->n)
            T_FAIL("%s, %s path, %s: %s stream total %llu, expected %zu", a->name, pn, how,
                   count ? "count-only" : "matching", (unsigned long long)total, want->n);
        if (in.file)
            fclose(in.file);
        in.file = NULL;
    }
    if (in.file)
        fclose(in.file);
    EXPECT(in.parts.errors == 0 && in.preset_errors == 0);
    t_fd_parts_free(&in.parts);
    EXPECT(in.content_errors == 0);
    if (in.declined == 0) T_FAIL("%s, %s path: no block declined", a->name, pn);
    EXPECT(off_errors == 0);
    t_matches_free(&got);
    clm_scratch_free(s);
}

static void test_skip(const void *arg)
{
    const skip_arg *a = arg;
    size_t n = t_quick ? 30000 : 200000, raw_n = 0;
    t_rng r;
    t_rng_init(&r, "skip", (uint64_t)a->m);
    unsigned char *pat = malloc(a->m);
    if (!pat) abort();
    if (a->allmatch) memset(pat, 'A', a->m);
    else if (a->alpha) t_fill(&r, pat, a->m, a->alpha);
    else fill_dna(&r, pat, a->m);
    const unsigned char *pats[1] = {pat};
    size_t lens[1] = {a->m};
    t_patset ps = {pats, lens, NULL, 1, 0};
    unsigned char *text = make_text(a, pat, n, &r);
    unsigned char *raw = add_breaks(text, n, &r, &raw_n);
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches want, got;
    t_matches_init(&want);
    t_matches_init(&got);
    clm_compile_options o;
    t_compile_options(&o, &ps, a->algo, CLM_TABLE_AUTO, a->flags, 0, 0, CLM_VARIANT_AUTO, a->k);
    if (a->packed)
        o.packing = CLM_ON;
    if (!EXPECT_RC(t_compile_with(&ps, &o, &db), CLM_OK) ||
        !t_scratch_alloc(db, &s, SLAB, a->capacity, a->name))
        goto out;
    if (a->exact) {
        t_reference(text, n, &ps, &want);
        if (!t_check_scan(db, s, text, n, &want, &got, a->name, "one-shot scan of the text"))
            goto out;
    } else if (!EXPECT_RC(clm_scan(db, s, text, n, t_collect, &want), CLM_OK)) {
        goto out;
    }
    if (!EXPECT(want.n > 0)) goto out;
    if (a->packed) {
        clm_database_info info;
        if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK))
            EXPECT(info.packed);
    }
    /* the device's own path, and copy and pinned (a GPU's), whatever the device */
    static const clm_data_path paths[] = {CLM_PATH_AUTO, CLM_PATH_COPY, CLM_PATH_PINNED};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
        stream_raw(a, db, paths[p], raw, raw_n, n, &want, &r);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&want);
    t_matches_free(&got);
    free(text);
    free(raw);
    free(pat);
}

/* Misuse, and offsets across line breaks alone. */
static void test_skip_api(const void *arg)
{
    (void)arg;
    const unsigned char *pats[1] = {(const unsigned char *)"ACGT"};
    size_t lens[1] = {4};
    t_patset ps = {pats, lens, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_stream *st = NULL;
    uint64_t off = 1, total = 1;
    if (!EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK) ||
        !t_scratch_alloc(db, &s, SLAB, 0, "skip.api"))
        goto out;
    EXPECT_RC(clm_stream_text_offset(NULL, &off), CLM_E_INVALID);
    EXPECT_RC(clm_stream_open(db, s, 4u, &st), CLM_E_INVALID);
    if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK)) goto out;
    EXPECT_RC(clm_stream_text_offset(st, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_stream_write(st, "\r\n\n\r", 4, t_ignore, NULL), CLM_OK);
    if (EXPECT_RC(clm_stream_text_offset(st, &off), CLM_OK)) EXPECT(off == 0);
    EXPECT_RC(clm_stream_write(st, "AC\r\nG\nT\n", 8, t_ignore, NULL), CLM_OK);
    if (EXPECT_RC(clm_stream_text_offset(st, &off), CLM_OK)) EXPECT(off == 4);
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK);
    EXPECT(total == 1);
    /* reserve and commit: misuse leaves the stream as it was */
    void *buf = NULL;
    size_t room = 0;
    if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK)) goto out;
    EXPECT_RC(clm_stream_reserve(NULL, 0, &buf, &room), CLM_E_INVALID);
    EXPECT_RC(clm_stream_reserve(st, 0, NULL, &room), CLM_E_INVALID);
    EXPECT_RC(clm_stream_commit(st, 1, 0, t_ignore, NULL), CLM_E_INVALID); /* none */
    EXPECT_RC(clm_stream_settled(st, NULL), CLM_E_INVALID);
    if (EXPECT_RC(clm_stream_reserve(st, 4, &buf, &room), CLM_OK)) {
        EXPECT(room == 4);
        memcpy(buf, "AC\nG", 4);
        EXPECT_RC(clm_stream_commit(st, 5, 1, t_ignore, NULL), CLM_E_INVALID);
    }
    if (EXPECT_RC(clm_stream_reserve(st, 4, &buf, &room), CLM_OK)) {
        memcpy(buf, "AC\nG", 4);
        EXPECT_RC(clm_stream_commit(st, 4, 5, t_ignore, NULL), CLM_E_INVALID);
        EXPECT_RC(clm_stream_commit(st, 4, 1, t_ignore, NULL), CLM_E_INVALID); /* ended */
    }
    if (EXPECT_RC(clm_stream_reserve(st, 0, &buf, &room), CLM_OK) && EXPECT(room >= 8)) {
        memcpy(buf, "AC\nGT\r\nA", 8);
        EXPECT_RC(clm_stream_write(st, "T", 1, t_ignore, NULL), CLM_OK); /* ends it */
        EXPECT_RC(clm_stream_commit(st, 8, 3, t_ignore, NULL), CLM_E_INVALID);
    }
    if (EXPECT_RC(clm_stream_reserve(st, 0, &buf, &room), CLM_OK) && EXPECT(room >= 8)) {
        memcpy(buf, "AC\nGT\r\nA", 8);
        EXPECT_RC(clm_stream_commit(st, 8, 3, t_ignore, NULL), CLM_OK);
    }
    if (EXPECT_RC(clm_stream_text_offset(st, &off), CLM_OK)) EXPECT(off == 6); /* TACGTA */
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK);
    EXPECT(total == 1);
    /* a wrong count of line breaks is found on the device: the stream fails */
    for (int over = 0; over < 2; over++) {
        if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK))
            goto out;
        if (EXPECT_RC(clm_stream_reserve(st, 0, &buf, &room), CLM_OK) && EXPECT(room >= 9)) {
            memcpy(buf, "ACGT\nACGT", 9);
            EXPECT_RC(clm_stream_commit(st, 9, over ? 2 : 0, t_ignore, NULL), CLM_OK);
        }
        EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_E_INVALID);
    }
    /* without the flag, a line break is text */
    if (!EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) goto out;
    if (EXPECT_RC(clm_stream_reserve(st, 0, &buf, &room), CLM_OK) && EXPECT(room >= 9)) {
        memcpy(buf, "ACGT\nACGT", 9);
        EXPECT_RC(clm_stream_commit(st, 9, 1, t_ignore, NULL), CLM_E_INVALID);
        EXPECT_RC(clm_stream_reserve(st, 0, &buf, &room), CLM_OK);
        memcpy(buf, "ACGT\nACGT", 9);
        EXPECT_RC(clm_stream_commit(st, 9, 0, t_ignore, NULL), CLM_OK);
    }
    if (EXPECT_RC(clm_stream_text_offset(st, &off), CLM_OK)) EXPECT(off == 9);
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK);
    EXPECT(total == 2);
out:
    clm_scratch_free(s);
    clm_database_free(db);
}

void register_stream_skip_tests(void)
{
    for (size_t i = 0; i < sizeof skip_args / sizeof skip_args[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "stream.skip.%s", skip_args[i].name);
        t_register(name, test_skip, &skip_args[i], 1);
    }
    t_register("stream.skip.api", test_skip_api, NULL, 1);
}
