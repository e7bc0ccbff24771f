/* The memory and file drivers: one-shot scans (clm_scan, clm_count, clm_scan_fd and their
 * range and count forms) cut the input into slabs with overlap and keep two slots in flight
 * on a lane (each slot has its own queue, so slab k+1 transfers while slab k runs and is
 * collected); files are read by a pool of reader threads. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "scratch.h"

/* ---- memory ------------------------------------------------------------------------------ */

/* The slab (of `slab` owned bytes at most) of an input of len bytes that owns the match starts
 * from off: *owned of them, *pre bytes kept before, n bytes in all (returned). */
static size_t slab_extent(const clm_scratch *s, size_t slab, uint64_t len, uint64_t off,
                          size_t *owned, size_t *pre)
{
    *owned = len - off < slab ? (size_t)(len - off) : slab;
    *pre = off < s->lead ? (size_t)off : s->lead;
    uint64_t end = len - off - *owned < s->overlap ? len : off + *owned + s->overlap;
    return (size_t)(end - (off - *pre));
}

static size_t file_slab(const clm_scratch *s)
{
    return s->slab < CLM_FILE_SLAB_MAX ? s->slab : CLM_FILE_SLAB_MAX;
}

/* After the last launch (k slabs launched): the slabs still in flight collected in slab order
 * and held matches delivered, or, after a stop or failure, what the slots hold dropped. */
static int end_slabs(struct clm_lane *ln, uint64_t k, int rc, int count_only, clm_match_cb cb,
                     void *ctx, uint64_t *total)
{
    clm_scratch *s = ln->s;
    const unsigned n = s->n_slots;
    for (uint64_t i = k > n ? k - n : 0; i < k && rc == CLM_OK; i++)
        rc = clm_slot_finish(ln, &ln->slot[i % n], cb, ctx, total); /* in slab order */
    if (rc == CLM_OK && !count_only)
        rc = clm_deliver_pending(s, cb, ctx);
    s->n_pending = 0; /* stopped or failed: what was held is dropped with the scan */
    clm_lane_drop(ln);
    return rc;
}

/* The caller's memory, slab after slab: each owns `slab` bytes of match starts, keeps `lead`
 * bytes before them (approximate search: alignments may begin before the nominal start) and
 * `overlap` after (the longest pattern - 1). Slab k+1 is loaded and launched before slab k is
 * collected, so copying and the search overlap. */
static int run_memory(struct clm_lane *ln, const unsigned char *data, uint64_t len, int count_only,
                      clm_match_cb cb, void *ctx, uint64_t *total)
{
    clm_scratch *s = ln->s;
    int rc = CLM_OK;
    uint64_t k = 0; /* slabs launched; slab k goes to slot k % n_slots */
    const size_t slab = s->slab;
    for (uint64_t off = 0; off < len && rc == CLM_OK; off += slab, k++) {
        size_t owned, pre, shift = 0;
        size_t n = slab_extent(s, slab, len, off, &owned, &pre);
        if (n < s->db->min_match)
            break; /* no match fits in what is left */
        struct clm_slot *sl = &ln->slot[k % s->n_slots];
        /* its last slab is the oldest in flight: collect it (the others keep the device
         * busy meanwhile), then load this one while they run */
        if (sl->busy && (rc = clm_slot_finish(ln, sl, cb, ctx, total)) != CLM_OK)
            break;
        rc = clm_slot_load_memory(ln, sl, data + (off - pre), n, (size_t)(off - pre), &shift);
        if (rc == CLM_OK)
            rc = clm_slot_launch(ln, sl, n + shift, pre + shift, owned, off - pre - shift,
                                 count_only);
    }
    return end_slabs(ln, k, rc, count_only, cb, ctx, total);
}

/* ---- files: a pool of reader threads ------------------------------------------------------ */

/* Slab k of a file: its bytes [from, from + n), the `owned` match starts after `pre` bytes. */
struct extent {
    uint64_t from;
    size_t n, owned, pre;
};

/* 0 when the file has no slab k (or none a match fits in). */
static int extent_of(const clm_scratch *s, size_t slab, uint64_t len, uint64_t k,
                     struct extent *e)
{
    uint64_t off = k * slab;
    if (off >= len)
        return 0;
    e->n = slab_extent(s, slab, len, off, &e->owned, &e->pre);
    e->from = off - e->pre;
    return e->n >= s->db->min_match;
}

/* Queue the read of a slab into the slot's staging (the input starts at file offset base).
 * The slab the slot held goes first: its
 * transfer done where `early` (the device has its copy; its search may still run), else all
 * of it collected. Every slot's staging holds `most` bytes, so one in flight never regrows. */
static int file_prepare(struct clm_lane *ln, clm_reader *pool, struct clm_read *rd,
                        struct clm_slot *sl, const struct extent *e, uint64_t base, size_t most,
                        int early, clm_match_cb cb, void *ctx, uint64_t *total)
{
    int rc = CLM_OK;
    if (sl->busy)
        rc = early ? clm_lane_wait(ln, sl->ev_write, "clWaitForEvents (text transfer)")
                   : clm_slot_finish(ln, sl, cb, ctx, total);
    unsigned char *dst;
    if (rc == CLM_OK)
        rc = clm_slot_acquire(ln, sl, most, &dst);
    return rc ? rc : clm_reader_submit(pool, rd, dst, e->n, base + e->from);
}

/* Launch a slab once its read is complete (after collecting the slot's last slab, where
 * file_prepare left it in flight). */
static int file_launch(struct clm_lane *ln, clm_reader *pool, struct clm_read *rd,
                       struct clm_slot *sl, const struct extent *e, int count_only,
                       clm_match_cb cb, void *ctx, uint64_t *total)
{
    double t0 = clm_now();
    int rc = clm_reader_wait(pool, rd);
    ln->stats.read_seconds += clm_now() - t0;
    if (rc == CLM_OK && sl->busy)
        rc = clm_slot_finish(ln, sl, cb, ctx, total);
    if (rc == CLM_OK)
        rc = clm_slot_commit(ln, sl, e->n);
    return rc ? rc : clm_slot_launch(ln, sl, e->n, e->pre, e->owned, e->from, count_only);
}

/* A file's bytes [base, base + len), slab after slab as run_memory's; offsets count from
 * base. Its reads go to a pool of threads that take them
 * in pieces, so they go on with slab k + 1 while the caller waits for slab k, launches it and
 * collects older ones, and buffers for slot 1 are made while slab 0 is read. On the copy and
 * pinned paths the device has its own copy of a slab once its transfer is done, so the next
 * read goes into its staging while its search still runs (not with indels: their matches'
 * best starts are found in the staging when the slab is collected). */
static int run_file_slabs(struct clm_lane *ln, int fd, uint64_t base, uint64_t len, int count_only,
                          clm_match_cb cb, void *ctx, uint64_t *total)
{
    clm_scratch *s = ln->s;
    const size_t slab = file_slab(s);
    const int early = clm_lane_refill_early(ln);
    struct extent ext[CLM_MAX_SCRATCH_SLOTS];
    struct clm_read reads[CLM_MAX_SCRATCH_SLOTS];
    memset(ext, 0, sizeof ext);
    /* the largest slab: the second (it keeps the lead and the overlap), or the only one */
    size_t most = extent_of(s, slab, len, 1, &ext[1]) ? ext[1].n : 0;
    int have = extent_of(s, slab, len, 0, &ext[0]);
    if (ext[0].n > most)
        most = ext[0].n;
    clm_reader *pool = NULL;
    int rc = clm_reader_open(fd, s->io_threads, len, &pool);
    if (rc == CLM_OK && have)
        rc = file_prepare(ln, pool, &reads[0], &ln->slot[0], &ext[0], base, most, early, cb, ctx,
                          total);
    uint64_t k = 0; /* slabs launched */
    while (rc == CLM_OK && have) {
        unsigned now = k % s->n_slots, next = (k + 1) % s->n_slots;
        have = extent_of(s, slab, len, k + 1, &ext[next]);
        if (have)
            rc = file_prepare(ln, pool, &reads[next], &ln->slot[next], &ext[next], base, most,
                              early, cb, ctx, total);
        if (rc == CLM_OK)
            rc = file_launch(ln, pool, &reads[now], &ln->slot[now], &ext[now], count_only, cb,
                             ctx, total);
        if (rc == CLM_OK)
            k++;
    }
    ln->stats.reader_seconds += clm_reader_close(pool); /* before the slots are dropped */
    return end_slabs(ln, k, rc, count_only, cb, ctx, total);
}

/* A one-shot scan of the caller's memory (data) or of a file's bytes [base, base + len) (fd),
 * its wall time added to the scratch's stats. One lane scans it all; with a device set, each
 * lane would scan its part (with the overlap) and their matches merge in text order. */
static int run_slabs(clm_scratch *s, const unsigned char *data, int fd, uint64_t base,
                     uint64_t len, int count_only, clm_match_cb cb, void *ctx, uint64_t *total)
{
    double t0 = clm_now();
    struct clm_lane *ln = &s->lane[0]; /* one device */
    int rc = data ? run_memory(ln, data, len, count_only, cb, ctx, total)
                  : run_file_slabs(ln, fd, base, len, count_only, cb, ctx, total);
    s->stats.wall_seconds += clm_now() - t0;
    return rc;
}

int clm_scan(const clm_database *db, clm_scratch *s, const void *data, size_t len,
             clm_match_cb cb, void *ctx)
{
    int rc = clm_scratch_enter(db, s, data, len, "clm_scan");
    if (rc)
        return rc;
    if (!cb)
        rc = clm_fail(CLM_E_INVALID, "clm_scan: callback is required (use clm_count to count)");
    else
        rc = run_slabs(s, data ? data : (const void *)"", -1, 0, len, 0, cb, ctx, NULL);
    clm_scratch_give(s);
    return rc;
}

int clm_count(const clm_database *db, clm_scratch *s, const void *data, size_t len,
              uint64_t *count)
{
    int rc = clm_scratch_enter(db, s, data, len, "clm_count");
    if (rc)
        return rc;
    if (!count) {
        rc = clm_fail(CLM_E_INVALID, "clm_count: count is required");
    } else {
        *count = 0;
        rc = run_slabs(s, data ? data : (const void *)"", -1, 0, len, 1, NULL, NULL, count);
    }
    clm_scratch_give(s);
    return rc;
}

int clm_fd_range(int fd, uint64_t offset, uint64_t *length, const char *fn)
{
    struct stat st;
    if (fd < 0)
        return clm_fail(CLM_E_INVALID, "%s: fd %d is not a file descriptor", fn, fd);
    if (fstat(fd, &st) != 0)
        return clm_fail(CLM_E_IO, "%s: fstat of fd %d failed: %s", fn, fd, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return clm_fail(CLM_E_IO, "%s: fd %d: %s", fn, fd, strerror(EISDIR));
    if (!S_ISREG(st.st_mode))
        return clm_fail(CLM_E_IO, "%s: fd %d is not a regular file (a pipe, socket or device): "
                                  "it cannot be read with pread; stream it with "
                                  "clm_stream_write",
                        fn, fd);
    const uint64_t size = (uint64_t)st.st_size;
    if (*length == CLM_FD_TO_END)
        *length = offset < size ? size - offset : 0; /* past the end: nothing left to read */
    else if (offset > size || *length > size - offset)
        return clm_fail(CLM_E_INVALID,
                        "%s: range [%llu, %llu + %llu) of fd %d reaches past the end of the "
                        "file (%llu bytes)",
                        fn, (unsigned long long)offset, (unsigned long long)offset,
                        (unsigned long long)*length, fd, (unsigned long long)size);
    return CLM_OK;
}

/* A one-shot scan of bytes [offset, offset + length) of the regular file behind fd (length
 * CLM_FD_TO_END: up to its size from fstat), read with pread. */
static int run_file(clm_scratch *s, int fd, uint64_t offset, uint64_t length, const char *fn,
                    int count_only, clm_match_cb cb, void *ctx, uint64_t *total)
{
    int rc = clm_fd_range(fd, offset, &length, fn);
    return rc ? rc : run_slabs(s, NULL, fd, offset, length, count_only, cb, ctx, total);
}

/* clm_scan_fd and clm_scan_fd_range (range: the one called, for messages). */
static int scan_fd(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                   uint64_t length, clm_match_cb cb, void *ctx, int range)
{
    const char *fn = range ? "clm_scan_fd_range" : "clm_scan_fd";
    int rc = clm_scratch_enter(db, s, "", 0, fn);
    if (rc)
        return rc;
    if (!cb)
        rc = clm_fail(CLM_E_INVALID, "%s: callback is required (use %s to count)", fn,
                      range ? "clm_count_fd_range" : "clm_count_fd");
    else
        rc = run_file(s, fd, offset, length, fn, 0, cb, ctx, NULL);
    clm_scratch_give(s);
    return rc;
}

/* clm_count_fd and clm_count_fd_range. */
static int count_fd(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                    uint64_t length, uint64_t *count, int range)
{
    const char *fn = range ? "clm_count_fd_range" : "clm_count_fd";
    int rc = clm_scratch_enter(db, s, "", 0, fn);
    if (rc)
        return rc;
    if (!count) {
        rc = clm_fail(CLM_E_INVALID, "%s: count is required", fn);
    } else {
        *count = 0;
        rc = run_file(s, fd, offset, length, fn, 1, NULL, NULL, count);
    }
    clm_scratch_give(s);
    return rc;
}

int clm_scan_fd(const clm_database *db, clm_scratch *s, int fd, clm_match_cb cb, void *ctx)
{
    return scan_fd(db, s, fd, 0, CLM_FD_TO_END, cb, ctx, 0);
}

int clm_count_fd(const clm_database *db, clm_scratch *s, int fd, uint64_t *count)
{
    return count_fd(db, s, fd, 0, CLM_FD_TO_END, count, 0);
}

int clm_scan_fd_range(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                      uint64_t length, clm_match_cb cb, void *ctx)
{
    return scan_fd(db, s, fd, offset, length, cb, ctx, 1);
}

int clm_count_fd_range(const clm_database *db, clm_scratch *s, int fd, uint64_t offset,
                       uint64_t length, uint64_t *count)
{
    return count_fd(db, s, fd, offset, length, count, 1);
}
