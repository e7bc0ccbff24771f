/*
 * The host search (clmatch.h, "Host search"): one literal pattern, exact or ASCII caseless,
 * searched by the CPU's threads with no OpenCL call at all, so that a small input is done
 * before a GPU's platform and context could even come up.
 *
 * The input is cut into pieces of up to HOST_PART_BYTES (at least one a thread), each owning
 * the starts in [lo, hi) and reading m - 1 bytes past hi, so that a match is found exactly
 * once, by the piece where it starts. The threads take the pieces in turn, each keeping its
 * matches' starts in the piece's array, and the calling thread delivers them piece by piece,
 * which is text order. A thread takes a piece only once the piece 4 x threads before it has
 * been delivered: that bounds the memory (a text that matches everywhere holds 8 bytes a byte
 * of the pieces in flight, not of the whole input) and no thread waits for the others'
 * pieces to end.
 *
 * Candidates: 2 of the pattern's rarest bytes (4 for a pattern of at most 4 distinct bytes,
 * such as DNA), compared at 16 starts at once with SSE2; each candidate is then verified.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

#define HOST_PART_BYTES ((size_t)4 << 20) /* a piece: the most a thread takes at a time */
#define HOST_MIN_PART ((size_t)1 << 20)    /* automatic threads: no part smaller than this */
#define HOST_READ_BYTES ((uint64_t)256 << 10) /* a piece's file bytes read at a time */
#define HOST_FILTER_MAX 4

struct clm_host_database {
    unsigned char *pat; /* folded to lower case when caseless */
    size_t m;
    unsigned id;
    int caseless;
    unsigned nf;                         /* filter bytes */
    size_t fpos[HOST_FILTER_MAX];        /* their offsets in the pattern */
    unsigned char fbyte[HOST_FILTER_MAX]; /* the byte (folded) */
    unsigned char fmask[HOST_FILTER_MAX]; /* 0x20 for a caseless letter: OR'd in before the
                                             compare, so that 'A' and 'a' both give 'a' */
};

static unsigned char fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c;
}

/* How common a byte is in text (English, code, DNA), higher = more common; a fixed ranking
 * is enough to keep the candidates few. */
static unsigned byte_rank(unsigned char c)
{
    static const char common[] = " etaoinsrhldcumfpgwybvkxjqz\nETAOINSRHLDCUMFPGWYBVKXJQZ"
                                 "0123456789.,-_'\"()/:;=\t*#<>{}[]+!?";
    const char *p = c ? strchr(common, c) : NULL;
    return p ? (unsigned)(sizeof common - (size_t)(p - common)) : 0;
}

/* The filter: the rarest bytes, different values first (DNA's four positions then hold four
 * different bases, each passing a quarter of the starts). */
static void pick_filter(struct clm_host_database *db)
{
    unsigned seen[256 / 32] = {0}, distinct = 0, want;
    for (size_t i = 0; i < db->m; i++) {
        unsigned char c = db->pat[i];
        if (!(seen[c / 32] & (1u << (c % 32)))) distinct++;
        seen[c / 32] |= 1u << (c % 32);
    }
    want = distinct <= 4 ? 4 : 2;
    if (want > db->m) want = (unsigned)db->m;
    for (db->nf = 0; db->nf < want; db->nf++) {
        size_t best = SIZE_MAX;
        unsigned long best_score = ULONG_MAX;
        for (size_t i = 0; i < db->m; i++) {
            unsigned long score = byte_rank(db->pat[i]);
            for (unsigned k = 0; k < db->nf; k++) {
                if (db->fpos[k] == i) score = ULONG_MAX;
                else if (db->fbyte[k] == db->pat[i] && score != ULONG_MAX) score += 1000;
            }
            if (score < best_score) best_score = score, best = i;
        }
        unsigned char c = db->pat[best];
        db->fpos[db->nf] = best;
        db->fbyte[db->nf] = c;
        db->fmask[db->nf] = db->caseless && c >= 'a' && c <= 'z' ? 0x20 : 0;
    }
}

int clm_host_compile(const char *const *patterns, const size_t *lengths, const unsigned *ids,
                     unsigned count, const clm_compile_options *opts, clm_host_database **out)
{
    const unsigned known = CLM_CASELESS | CLM_CLASSES | CLM_MISMATCHES_ONLY | CLM_DNA |
                           CLM_DEGENERATE_TEXT | CLM_BOTH_STRANDS | CLM_LINES;
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    if (!out || !patterns) return clm_fail(CLM_E_INVALID, "clm_host_compile: NULL argument");
    *out = NULL;
    if (count == 0) return clm_fail(CLM_E_INVALID, "clm_host_compile: no pattern (count 0)");
    int rc = opts ? clm_options_read(&o, sizeof o, opts, CLM_COMPILE_OPTIONS_V1,
                                     "clm_compile_options", "clm_compile_options_init")
                  : CLM_OK;
    if (rc != CLM_OK) return rc;
    if (o.flags & ~known)
        return clm_fail(CLM_E_INVALID, "clm_host_compile: unknown flags 0x%x", o.flags & ~known);
    if (!patterns[0]) return clm_fail(CLM_E_INVALID, "pattern 0 is NULL");
    size_t m = lengths ? lengths[0] : strlen(patterns[0]);
    /* what the host search cannot do: the caller's cue to use a device */
    if (count > 1)
        return clm_fail(CLM_E_UNSUPPORTED, "the host search takes one pattern, not %u: "
                                           "clm_compile searches several", count);
    /* CLM_LINES lets a search leave matches out: this one reports them all */
    if (o.flags & ~(CLM_CASELESS | CLM_LINES))
        return clm_fail(CLM_E_UNSUPPORTED, "the host search takes literal patterns, exact or "
                                           "CLM_CASELESS, not flags 0x%x: clm_compile does",
                        o.flags & ~(CLM_CASELESS | CLM_LINES));
    if (o.max_errors > 0)
        return clm_fail(CLM_E_UNSUPPORTED, "the host search is exact, not %u errors: "
                                           "clm_compile searches approximately", o.max_errors);
    if (o.algorithm != CLM_ALGO_AUTO || o.variant != CLM_VARIANT_AUTO ||
        o.table_memory != CLM_TABLE_AUTO)
        return clm_fail(CLM_E_UNSUPPORTED, "the host search has no kernel: an algorithm, "
                                           "variant or table memory asks for clm_compile");
    if (m == 0) return clm_fail(CLM_E_EMPTY_PATTERN, "pattern 0 is empty");
    if (m > CLM_MAX_PATTERN_LENGTH)
        return clm_fail(CLM_E_PATTERN_TOO_LONG, "pattern 0 has %zu bytes, more than %u", m,
                        CLM_MAX_PATTERN_LENGTH);
    struct clm_host_database *db = calloc(1, sizeof *db);
    if (!db || !(db->pat = malloc(m))) {
        free(db);
        return clm_fail(CLM_E_NOMEM, "clm_host_compile: out of memory");
    }
    db->m = m;
    db->id = ids ? ids[0] : 0;
    db->caseless = (o.flags & CLM_CASELESS) != 0;
    for (size_t i = 0; i < m; i++) {
        unsigned char c = (unsigned char)patterns[0][i];
        db->pat[i] = db->caseless ? fold(c) : c;
    }
    pick_filter(db);
    *out = db;
    return CLM_OK;
}

void clm_host_database_free(clm_host_database *db)
{
    if (!db) return;
    free(db->pat);
    free(db);
}

/* ---- one part ------------------------------------------------------------------------- */

typedef struct {
    int count_only;
    uint64_t n;     /* matches found */
    uint64_t *v;    /* their starts (not count_only, no cb) */
    size_t cap;
    int oom;
    /* clm_host_scan_serial: each match goes to cb at once (db: its id and length) */
    clm_match_cb cb;
    void *ctx;
    const struct clm_host_database *db;
    int stopped;
} sink;

/* Non-zero stops the scan: out of memory, or cb asked to stop. */
static int emit(sink *k, uint64_t start)
{
    if (k->cb) {
        clm_match mt = {start, start + k->db->m, k->db->id, 0, 1};
        k->n++;
        return k->stopped = k->cb(&mt, k->ctx) != 0;
    }
    if (!k->count_only) {
        if (k->n == k->cap) {
            size_t cap = k->cap ? 2 * k->cap : 1024;
            uint64_t *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(k->v, cap * sizeof *v);
            if (!v) return k->oom = 1, 1;
            k->v = v;
            k->cap = cap;
        }
        k->v[k->n] = start;
    }
    k->n++;
    return 0;
}

static int verify(const struct clm_host_database *db, const unsigned char *t)
{
    if (!db->caseless) return memcmp(t, db->pat, db->m) == 0;
    for (size_t i = 0; i < db->m; i++)
        if (fold(t[i]) != db->pat[i]) return 0;
    return 1;
}

static int filter_at(const struct clm_host_database *db, const unsigned char *t)
{
    for (unsigned k = 0; k < db->nf; k++)
        if ((t[db->fpos[k]] | db->fmask[k]) != db->fbyte[k]) return 0;
    return 1;
}

/* The matches starting at buf[0, own) whose bytes lie in buf[0, avail), as base + start.
 * Non-zero when the sink ran out of memory or its callback stopped the scan. */
static int scan_block(const struct clm_host_database *db, const unsigned char *buf,
                      size_t avail, size_t own, uint64_t base, sink *k)
{
    const size_t m = db->m;
    size_t s = 0, fit = avail >= m ? avail - m + 1 : 0;
    if (own > fit) own = fit; /* a start past fit has no room for the pattern */
#ifdef __SSE2__
    __m128i vb[HOST_FILTER_MAX], vm[HOST_FILTER_MAX];
    for (unsigned f = 0; f < db->nf; f++) {
        vb[f] = _mm_set1_epi8((char)db->fbyte[f]);
        vm[f] = _mm_set1_epi8((char)db->fmask[f]);
    }
    /* A count of one exact byte (the CLI's line numbers: "\n" every few dozen bytes): the
     * filter is the whole match, so byte counters add its hits up, 255 loads at most. */
    if (k->count_only && !k->cb && m == 1 && db->nf == 1 && db->fmask[0] == 0 && !db->caseless) {
        const __m128i zero = _mm_setzero_si128();
        while (s + 16 <= own) {
            __m128i acc = zero;
            for (unsigned i = 0; i < 255 && s + 16 <= own; i++, s += 16) {
                __m128i t = _mm_loadu_si128((const __m128i *)(const void *)(buf + s));
                acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(t, vb[0]));
            }
            __m128i sum = _mm_sad_epu8(acc, zero); /* two 64-bit lanes of byte sums */
            k->n += (uint64_t)_mm_cvtsi128_si32(sum) +
                    (uint64_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
        }
    }
    /* 16 starts at once; s + 15 < own keeps every filter load inside buf[0, avail) */
    for (; s + 16 <= own; s += 16) {
        __m128i eq = _mm_set1_epi8((char)0xff);
        for (unsigned f = 0; f < db->nf; f++) {
            __m128i t = _mm_loadu_si128((const __m128i *)(const void *)(buf + s + db->fpos[f]));
            eq = _mm_and_si128(eq, _mm_cmpeq_epi8(_mm_or_si128(t, vm[f]), vb[f]));
        }
        unsigned bits = (unsigned)_mm_movemask_epi8(eq);
        while (bits) {
#if defined(__GNUC__) || defined(__clang__)
            unsigned j = (unsigned)__builtin_ctz(bits);
#else
            unsigned j = 0;
            while (!(bits & (1u << j))) j++;
#endif
            bits &= bits - 1;
            if (verify(db, buf + s + j) && emit(k, base + s + j)) return 1;
        }
    }
#else
    /* no SSE2: memchr finds the first filter byte where its case is exact */
    if (db->fmask[0] == 0) {
        const size_t p0 = db->fpos[0];
        while (s < own) {
            const unsigned char *p = memchr(buf + s + p0, db->fbyte[0], own - s);
            if (!p) return 0;
            s = (size_t)(p - buf) - p0;
            if (filter_at(db, buf + s) && verify(db, buf + s) && emit(k, base + s)) return 1;
            s++;
        }
        return 0;
    }
#endif
    for (; s < own; s++)
        if (filter_at(db, buf + s) && verify(db, buf + s) && emit(k, base + s)) return 1;
    return 0;
}

/* A piece of the input: offsets [lo, hi) are its starts, its matches those that start there.
 * The input is mem[0, avail) or the regular file fd from file offset fd_off (pread: no
 * mapping, so a file that shrinks is a short read, CLM_E_IO, and never a SIGBUS). */
typedef struct {
    uint64_t lo, hi;
    sink k;
    int status, err; /* err: errno of a failed read, 0 for a short one */
    uint64_t err_off;
    int done;
} piece;

struct job;

/* A thread's read buffer. */
typedef struct {
    struct job *j;
    unsigned char *buf;
    size_t cap;
    pthread_t thread;
} worker;

typedef struct job {
    const struct clm_host_database *db;
    clm_match_cb cb; /* NULL: count only */
    void *ctx;
    uint64_t count;
    unsigned threads; /* CLMATCH_HOST_THREADS or the online CPUs */
    int forced;       /* CLMATCH_HOST_THREADS: that many pieces at least, whatever the size */
    /* the input of the current run() and its pieces: piece i lives in slot[i % window]; a
     * thread takes the next piece once the one a window before it has been delivered */
    const unsigned char *mem;
    int fd;
    uint64_t fd_off, avail, base, own, pieces;
    piece *slot;
    unsigned window;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t claimed, delivered;
    int abort;
} job;

static int grow_buf(worker *w, size_t n)
{
    if (n <= w->cap) return 0;
    unsigned char *b = realloc(w->buf, n);
    if (!b) return -1;
    w->buf = b;
    w->cap = n;
    return 0;
}

static void scan_piece(const job *j, worker *w, piece *p)
{
    const uint64_t keep = j->db->m - 1;
    p->status = CLM_OK;
    p->k.n = 0;
    p->k.count_only = j->cb == NULL;
    if (j->mem) {
        uint64_t end = p->hi + keep < j->avail ? p->hi + keep : j->avail;
        if (scan_block(j->db, j->mem + p->lo, (size_t)(end - p->lo), (size_t)(p->hi - p->lo),
                       j->base + p->lo, &p->k))
            p->status = CLM_E_NOMEM;
        return;
    }
    /* a file: read HOST_READ_BYTES at a time, so that the copy and the scan after it stay in
     * the core's cache (with 4 MiB reads the copy out of the page cache was most of the time) */
    for (uint64_t lo = p->lo; lo < p->hi;) {
        uint64_t hi = p->hi - lo > HOST_READ_BYTES ? lo + HOST_READ_BYTES : p->hi;
        uint64_t end = hi + keep < j->avail ? hi + keep : j->avail;
        size_t n = (size_t)(end - lo);
        if (grow_buf(w, n) != 0) {
            p->status = CLM_E_NOMEM;
            return;
        }
        for (size_t got = 0; got < n;) {
            ssize_t r = pread(j->fd, w->buf + got, n - got, (off_t)(j->fd_off + lo + got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                p->status = CLM_E_IO;
                p->err = r < 0 ? errno : 0;
                p->err_off = j->fd_off + lo + got;
                return;
            }
            got += (size_t)r;
        }
        if (scan_block(j->db, w->buf, n, (size_t)(hi - lo), j->base + lo, &p->k)) {
            p->status = CLM_E_NOMEM;
            return;
        }
        lo = hi;
    }
}

/* Piece i's bounds: own * i / pieces (with CLMATCH_HOST_THREADS=N a small input is N
 * pieces, each a thread's). */
static void set_piece(const job *j, piece *p, uint64_t i)
{
    const uint64_t q = j->own / j->pieces, r = j->own % j->pieces; /* own * i / pieces */
    p->lo = q * i + r * i / j->pieces;
    p->hi = q * (i + 1) + r * (i + 1) / j->pieces;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    job *j = w->j;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->abort && j->claimed < j->pieces && j->claimed >= j->delivered + j->window)
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->abort || j->claimed >= j->pieces) break;
        uint64_t i = j->claimed++;
        piece *p = &j->slot[i % j->window];
        pthread_mutex_unlock(&j->mu);
        set_piece(j, p, i);
        scan_piece(j, w, p);
        pthread_mutex_lock(&j->mu);
        p->done = 1;
        pthread_cond_broadcast(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

/* The threads: CLMATCH_HOST_THREADS (*forced set), else the online CPUs. */
static int host_threads(unsigned *threads, int *forced)
{
    const char *env = clm_env(CLM_ENV_HOST_THREADS);
    *forced = 0;
    if (env && *env && strcmp(env, "auto") != 0) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (*end || env[0] == '-' || v < 1 || v > CLM_HOST_MAX_THREADS)
            return clm_fail(CLM_E_INVALID, "CLMATCH_HOST_THREADS='%s': expected 1 to %u or "
                                           "auto", env, CLM_HOST_MAX_THREADS);
        *threads = (unsigned)v;
        *forced = 1;
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        *threads = n < 1 ? 1 : n > (long)CLM_HOST_MAX_THREADS ? CLM_HOST_MAX_THREADS
                                                               : (unsigned)n;
    }
    return CLM_OK;
}

/* How many parts (threads, at least that many pieces) an input of len bytes is cut into. */
static unsigned parts_for(unsigned threads, int forced, uint64_t len)
{
    uint64_t parts = forced ? threads : len / HOST_MIN_PART;
    if (parts > threads) parts = threads;
    if (parts > len) parts = len;
    return parts < 1 ? 1 : (unsigned)parts;
}

int clm_host_threads(uint64_t bytes, unsigned *threads)
{
    unsigned t;
    int forced;
    if (!threads) return clm_fail(CLM_E_INVALID, "clm_host_threads: NULL threads");
    int rc = host_threads(&t, &forced);
    if (rc == CLM_OK) *threads = forced ? t : parts_for(t, 0, bytes);
    return rc;
}

static int job_init(job *j, const struct clm_host_database *db, clm_match_cb cb, void *ctx)
{
    memset(j, 0, sizeof *j);
    j->db = db;
    j->cb = cb;
    j->ctx = ctx;
    return host_threads(&j->threads, &j->forced);
}

/* A delivered piece's error, or its matches handed to the callback. */
static int deliver(job *j, const piece *p)
{
    if (p->status == CLM_E_IO)
        return p->err ? clm_fail(CLM_E_IO, "host search: pread at offset %llu: %s",
                                 (unsigned long long)p->err_off, strerror(p->err))
                      : clm_fail(CLM_E_IO, "host search: short read at offset %llu "
                                           "(the file shrank)",
                                 (unsigned long long)p->err_off);
    if (p->status != CLM_OK)
        return clm_fail(p->status, "host search: out of memory for the matches");
    j->count += p->k.n;
    for (uint64_t x = 0; j->cb && x < p->k.n; x++) {
        clm_match mt = {p->k.v[x], p->k.v[x] + j->db->m, j->db->id, 0, 1};
        if (j->cb(&mt, j->ctx)) return CLM_STOPPED;
    }
    return CLM_OK;
}

/* Search the starts [0, own) of an input of avail bytes (mem, or the file fd from fd_off),
 * reporting base + offset: pieces of up to HOST_PART_BYTES taken by the threads in turn and
 * delivered in text order on the calling thread. CLM_OK, CLM_STOPPED or an error. */
static int run(job *j, const unsigned char *mem, int fd, uint64_t fd_off, uint64_t own,
               uint64_t avail, uint64_t base)
{
    if (own == 0) return CLM_OK;
    j->mem = mem;
    j->fd = fd;
    j->fd_off = fd_off;
    j->avail = avail;
    j->base = base;
    j->own = own;
    j->pieces = parts_for(j->threads, j->forced, own);
    if (j->pieces < (own + HOST_PART_BYTES - 1) / HOST_PART_BYTES)
        j->pieces = (own + HOST_PART_BYTES - 1) / HOST_PART_BYTES;
    const unsigned nw = j->pieces < j->threads ? (unsigned)j->pieces : j->threads;
    j->window = nw > 1 ? 4 * nw : 1;
    j->claimed = j->delivered = 0;
    j->abort = 0;
    int rc = CLM_OK;
    worker *w = calloc(nw, sizeof *w);
    j->slot = calloc(j->window, sizeof *j->slot);
    if (!w || !j->slot) {
        free(w);
        free(j->slot);
        return clm_fail(CLM_E_NOMEM, "host search: out of memory");
    }
    if (nw == 1) { /* one piece at a time on this thread */
        w[0].j = j;
        for (uint64_t i = 0; i < j->pieces && rc == CLM_OK; i++) {
            set_piece(j, &j->slot[0], i);
            scan_piece(j, &w[0], &j->slot[0]);
            rc = deliver(j, &j->slot[0]);
        }
    } else {
        pthread_mutex_init(&j->mu, NULL);
        pthread_cond_init(&j->cv, NULL);
        unsigned started = 0;
        for (unsigned i = 0; i < nw; i++) {
            w[i].j = j;
            if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) break;
            started++;
        }
        if (started == 0) rc = clm_fail(CLM_E_NOMEM, "host search: no thread could start");
        for (uint64_t d = 0; d < j->pieces && rc == CLM_OK; d++) {
            piece *p = &j->slot[d % j->window];
            pthread_mutex_lock(&j->mu);
            while (!p->done) pthread_cond_wait(&j->cv, &j->mu);
            pthread_mutex_unlock(&j->mu);
            rc = deliver(j, p);
            pthread_mutex_lock(&j->mu);
            p->done = 0;
            j->delivered++;
            pthread_cond_broadcast(&j->cv);
            pthread_mutex_unlock(&j->mu);
        }
        pthread_mutex_lock(&j->mu);
        j->abort = 1;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
        for (unsigned i = 0; i < started; i++) pthread_join(w[i].thread, NULL);
        pthread_cond_destroy(&j->cv);
        pthread_mutex_destroy(&j->mu);
    }
    for (unsigned i = 0; i < nw; i++) free(w[i].buf);
    for (unsigned i = 0; i < j->window; i++) free(j->slot[i].k.v);
    free(w);
    free(j->slot);
    j->slot = NULL;
    return rc;
}

static int host_mem(const clm_host_database *db, const void *data, size_t len, clm_match_cb cb,
                    void *ctx, uint64_t *count)
{
    job j;
    if (!db || (!data && len) || (!cb && !count))
        return clm_fail(CLM_E_INVALID, "host search: NULL argument");
    int rc = job_init(&j, db, cb, ctx);
    if (rc == CLM_OK) rc = run(&j, data, -1, 0, len, len, 0);
    if (count && rc == CLM_OK) *count = j.count;
    return rc;
}

int clm_host_scan(const clm_host_database *db, const void *data, size_t len, clm_match_cb cb,
                  void *ctx)
{
    return cb ? host_mem(db, data, len, cb, ctx, NULL)
              : clm_fail(CLM_E_INVALID, "clm_host_scan: NULL callback");
}

int clm_host_count(const clm_host_database *db, const void *data, size_t len, uint64_t *count)
{
    return count ? host_mem(db, data, len, NULL, NULL, count)
                 : clm_fail(CLM_E_INVALID, "clm_host_count: NULL count");
}

int clm_host_scan_serial(const clm_host_database *db, const void *data, size_t len,
                         clm_match_cb cb, void *ctx)
{
    if (!db || !cb || (!data && len))
        return clm_fail(CLM_E_INVALID, "clm_host_scan_serial: NULL argument");
    sink k = {0};
    k.cb = cb;
    k.ctx = ctx;
    k.db = db;
    scan_block(db, data, len, len, 0, &k);
    return k.stopped ? CLM_STOPPED : CLM_OK;
}

/* A pipe or terminal: read to its end in blocks, each keeping the previous one's last m - 1
 * bytes, whose starts it searches once the bytes after them are in. */
static int host_stream(job *j, int fd)
{
    const size_t keep = j->db->m - 1;
    const size_t block = (size_t)j->threads * HOST_PART_BYTES;
    unsigned char *buf = malloc(block + keep);
    size_t have = 0; /* bytes in buf: input offsets [base, base + have) */
    uint64_t base = 0;
    int eof = 0, rc = CLM_OK;
    if (!buf) return clm_fail(CLM_E_NOMEM, "host search: out of memory for a read block");
    while (rc == CLM_OK && !eof) {
        while (have < block + keep) {
            ssize_t r = read(fd, buf + have, block + keep - have);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                rc = clm_fail(CLM_E_IO, "host search: read at offset %llu: %s",
                              (unsigned long long)(base + have), strerror(errno));
                break;
            }
            if (r == 0) {
                eof = 1;
                break;
            }
            have += (size_t)r;
        }
        if (rc != CLM_OK) break;
        /* at the end every start is searched; before it, those with a full pattern's room */
        size_t own = eof ? have : have - keep;
        rc = run(j, buf, -1, 0, own, have, base);
        memmove(buf, buf + own, have - own);
        base += own;
        have -= own;
    }
    free(buf);
    return rc;
}

static int host_fd(const clm_host_database *db, int fd, uint64_t offset, uint64_t length,
                   clm_match_cb cb, void *ctx, uint64_t *count)
{
    struct stat sb;
    job j;
    if (!db) return clm_fail(CLM_E_INVALID, "host search: NULL database");
    if (fd < 0) return clm_fail(CLM_E_INVALID, "host search: bad file descriptor %d", fd);
    if (fstat(fd, &sb) != 0)
        return clm_fail(CLM_E_IO, "host search: fstat: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode) && (offset != 0 || length != CLM_FD_TO_END))
        return clm_fail(CLM_E_INVALID, "host search: an fd that is no regular file is read "
                                       "from where it stands: offset 0 and CLM_FD_TO_END only");
    if (S_ISREG(sb.st_mode)) {
        uint64_t size = (uint64_t)sb.st_size;
        if (length == CLM_FD_TO_END) {
            length = offset < size ? size - offset : 0;
        } else if (offset > size || length > size - offset) {
            return clm_fail(CLM_E_INVALID, "host search: range [%llu, +%llu) reaches past the "
                                           "end of the file (%llu bytes)",
                            (unsigned long long)offset, (unsigned long long)length,
                            (unsigned long long)size);
        }
    }
    int rc = job_init(&j, db, cb, ctx);
    if (rc == CLM_OK)
        rc = S_ISREG(sb.st_mode) ? run(&j, NULL, fd, offset, length, length, 0)
                                 : host_stream(&j, fd);
    if (count && rc == CLM_OK) *count = j.count;
    return rc;
}

int clm_host_scan_fd_range(const clm_host_database *db, int fd, uint64_t offset,
                           uint64_t length, clm_match_cb cb, void *ctx)
{
    return cb ? host_fd(db, fd, offset, length, cb, ctx, NULL)
              : clm_fail(CLM_E_INVALID, "clm_host_scan_fd_range: NULL callback");
}

int clm_host_count_fd_range(const clm_host_database *db, int fd, uint64_t offset,
                            uint64_t length, uint64_t *count)
{
    return count ? host_fd(db, fd, offset, length, NULL, NULL, count)
                 : clm_fail(CLM_E_INVALID, "clm_host_count_fd_range: NULL count");
}

int clm_host_scan_fd(const clm_host_database *db, int fd, clm_match_cb cb, void *ctx)
{
    return clm_host_scan_fd_range(db, fd, 0, CLM_FD_TO_END, cb, ctx);
}

int clm_host_count_fd(const clm_host_database *db, int fd, uint64_t *count)
{
    return clm_host_count_fd_range(db, fd, 0, CLM_FD_TO_END, count);
}
