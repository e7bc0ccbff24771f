/*
 * clm_stream_write_fd beyond what stream.skip.* covers with its 4 KiB slabs: blocks of many
 * pieces and parts (the part hook sees every byte once, each piece's parts in order, the
 * pieces a block's hook is told of; matches as the text's), the range forms, and misuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "t_fd.h"

typedef struct {
    t_fd_parts parts;          /* first: t_fd_part_hook's */
    const unsigned char *file; /* the file's bytes */
    int errors;                /* blocks whose bytes are not the file's */
} pieces_seen;

static int see_block(void *ctx, uint64_t block, unsigned pieces, unsigned char *p, size_t n,
                     uint64_t offset, uint64_t settled, size_t *breaks)
{
    pieces_seen *ps = ctx;
    (void)settled;
    t_fd_block(&ps->parts, block, pieces, n);
    ps->errors += memcmp(p, ps->file + offset, n) != 0;
    *breaks = CLM_BREAKS_UNKNOWN;
    return CLM_OK;
}

typedef struct {
    size_t slab;
    unsigned slots;
    unsigned pieces_over; /* a block was read in more pieces than this, */
    int parted;           /* a piece in more than one part */
} pieces_arg;

/* A 40 MiB file of DNA lines through 68 MiB slabs: blocks of a quarter slab, in 34 pieces of
 * 2 parts; through 4 slots of 8 MiB: blocks queued in the stagings of the three slots past
 * the one filled. */
static const pieces_arg one_slab = {(size_t)68 << 20, 2, 16, 1},
                        four_slots = {(size_t)8 << 20, 4, 1, 0};

static void test_fd_pieces(const void *arg)
{
    const pieces_arg *a = arg;
    const size_t t = (size_t)40 << 20, width = 60, n = t + t / width;
    const unsigned char *pat = (const unsigned char *)"ACGTTGCAAC";
    const size_t m = strlen((const char *)pat);
    unsigned char *raw = malloc(n), *text = malloc(t);
    if (!raw || !text) abort();
    t_rng r;
    t_rng_init(&r, "fd-pieces", 1);
    for (size_t i = 0; i < t; i++)
        text[i] = (unsigned char)"ACGT"[t_below(&r, 4)];
    for (size_t i = 0; i + m < t; i += 1 + t_below(&r, 8000))
        memcpy(text + i, pat, m); /* planted, across line breaks too */
    for (size_t i = 0, w = 0; i < t; i++) {
        raw[w++] = text[i];
        if (i % width == width - 1) raw[w++] = '\n';
    }
    const unsigned char *pats[1] = {pat};
    size_t lens[1] = {m};
    t_patset set = {pats, lens, NULL, 1, 0};
    t_matches want, got;
    t_matches_init(&want);
    t_matches_init(&got);
    t_reference(text, t, &set, &want);
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_stream *st = NULL;
    FILE *f = t_fd_file(raw, n);
    pieces_seen ps;
    ps.file = raw;
    ps.errors = 0;
    t_fd_parts_init(&ps.parts);
    const clm_fd_hooks hooks = {t_fd_part_hook, see_block, &ps};
    uint64_t done = 0, total = 0;
    char diff[512];
    if (!f || !EXPECT_RC(t_compile(&set, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK) ||
        !t_scratch_alloc_slots(db, &s, a->slab, a->slots, "fd.pieces") ||
        !EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK))
        goto out;
    /* a range of bytes written first, the rest from the file in two ranges */
    EXPECT_RC(clm_stream_write(st, raw, 1000, t_collect, &got), CLM_OK);
    if (EXPECT_RC(clm_stream_write_fd(st, fileno(f), 1000, n / 2, &hooks, t_collect, &got,
                                      &done), CLM_OK))
        EXPECT(done == n / 2);
    if (EXPECT_RC(clm_stream_write_fd(st, fileno(f), 1000 + n / 2, CLM_FD_TO_END, &hooks,
                                      t_collect, &got, &done), CLM_OK))
        EXPECT(done == n - 1000 - n / 2);
    EXPECT_RC(clm_stream_close(st, t_collect, &got, &total), CLM_OK);
    if (t_matches_diff(&got, &want, diff, sizeof diff))
        T_FAIL("40 MiB from a file vs the text's matches: %s", diff);
    EXPECT(total == want.n && want.n > 1000);
    EXPECT(ps.errors == 0 && ps.parts.errors == 0);
    EXPECT(ps.parts.pieces_max > a->pieces_over); /* the threads took many pieces of a block */
    EXPECT(ps.parts.parts >= (n - 1000) / T_FD_PART);
    EXPECT(ps.parts.two_parts || !a->parted);
    clm_scratch_info info; /* the stream filled every slot's staging in turn */
    if (EXPECT_RC(clm_scratch_get_info(s, &info, sizeof info), CLM_OK) &&
        !EXPECT(info.allocated_bytes >= a->slots * a->slab))
        t_note("%u slots of %zu bytes: %zu bytes allocated", a->slots, a->slab,
               info.allocated_bytes);
out:
    if (f) fclose(f);
    t_fd_parts_free(&ps.parts);
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&want);
    t_matches_free(&got);
    free(raw);
    free(text);
}

static int fail_block(void *ctx, uint64_t block, unsigned pieces, unsigned char *p, size_t n,
                      uint64_t offset, uint64_t settled, size_t *breaks)
{
    (void)block, (void)pieces, (void)p, (void)offset, (void)settled;
    size_t *want = ctx;
    if (*want == SIZE_MAX - 1)
        return CLM_E_NOMEM;
    *breaks = *want == SIZE_MAX - 2 ? n + 1 : *want;
    return CLM_OK;
}

/* Misuse and failures: the stream as it was where the call says so, failed where not. */
static void test_fd_api(const void *arg)
{
    (void)arg;
    const unsigned char *pats[1] = {(const unsigned char *)"ACGT"};
    size_t lens[1] = {4};
    t_patset set = {pats, lens, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_stream *st = NULL;
    uint64_t done = 7, total = 0;
    const char *body = "ACGT\nAC\r\nGT";
    FILE *f = t_fd_file((const unsigned char *)body, strlen(body));
    size_t want = 0;
    const clm_fd_hooks hooks = {NULL, fail_block, &want};
    int pipefd[2] = {-1, -1};
    if (!f || !EXPECT_RC(t_compile(&set, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK) ||
        !t_scratch_alloc(db, &s, 4096, 0, "fd.api"))
        goto out;
    const int fd = fileno(f);
    EXPECT_RC(clm_stream_write_fd(NULL, fd, 0, CLM_FD_TO_END, NULL, t_ignore, NULL, &done),
              CLM_E_INVALID);
    EXPECT(done == 0);
    if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK)) goto out;
    EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, NULL, NULL, NULL, NULL),
              CLM_E_INVALID); /* no callback */
    EXPECT_RC(clm_stream_write_fd(st, -1, 0, 1, NULL, t_ignore, NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_stream_write_fd(st, fd, 3, 100, NULL, t_ignore, NULL, NULL), CLM_E_INVALID);
    if (EXPECT(pipe(pipefd) == 0))
        EXPECT_RC(clm_stream_write_fd(st, pipefd[0], 0, 1, NULL, t_ignore, NULL, NULL), CLM_E_IO);
    EXPECT_RC(clm_stream_write_fd(st, fd, 100, CLM_FD_TO_END, NULL, t_ignore, NULL, &done),
              CLM_OK); /* past the end: nothing */
    EXPECT(done == 0);
    /* the stream goes on after all of them; the second time told 0 line breaks, not 3 */
    EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, NULL, t_ignore, NULL, &done), CLM_OK);
    EXPECT(done == strlen(body));
    EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, &hooks, t_ignore, NULL, &done), CLM_OK);
    uint64_t off = 0;
    if (EXPECT_RC(clm_stream_text_offset(st, &off), CLM_OK)) EXPECT(off == 19); /* as told */
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_E_INVALID); /* 0 breaks: not 3 */
    want = 3;
    if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK)) goto out;
    EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, &hooks, t_ignore, NULL, &done), CLM_OK);
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK);
    EXPECT(total == 2);
    /* a hook's failure or an impossible count fails the stream */
    for (int i = 0; i < 2; i++) {
        want = i ? SIZE_MAX - 1 : SIZE_MAX - 2;
        if (!EXPECT_RC(clm_stream_open(db, s, CLM_STREAM_SKIP_LINE_BREAKS, &st), CLM_OK))
            goto out;
        EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, &hooks, t_ignore, NULL, &done),
                  i ? CLM_E_NOMEM : CLM_E_INVALID);
        EXPECT_RC(clm_stream_write(st, "ACGT", 4, t_ignore, NULL), CLM_E_INVALID);
        EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK); /* failed earlier */
    }
    /* without the flag a line break is text: a count of them is misuse */
    want = 3;
    if (!EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) goto out;
    EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, &hooks, t_ignore, NULL, &done),
              CLM_E_INVALID);
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK);
    want = 0;
    if (!EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) goto out;
    EXPECT_RC(clm_stream_write_fd(st, fd, 0, CLM_FD_TO_END, &hooks, t_ignore, NULL, &done), CLM_OK);
    if (EXPECT_RC(clm_stream_text_offset(st, &off), CLM_OK)) EXPECT(off == strlen(body));
    EXPECT_RC(clm_stream_close(st, t_ignore, NULL, &total), CLM_OK);
    EXPECT(total == 1);
out:
    if (pipefd[0] >= 0) close(pipefd[0]), close(pipefd[1]);
    if (f) fclose(f);
    clm_scratch_free(s);
    clm_database_free(db);
}

void register_stream_fd_tests(void)
{
    t_register("stream.fd.pieces", test_fd_pieces, &one_slab, 1);
    t_register("stream.fd.pieces.4slots", test_fd_pieces, &four_slots, 1);
    t_register("stream.fd.api", test_fd_api, NULL, 1);
}
