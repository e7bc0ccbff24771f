/*
 * The DNA mode's host search (dna_host.h): a FASTA file cut into one byte range per thread.
 *
 * Each thread reads its range with pread in chunks, drops the line breaks and CRs of its
 * sequence lines (fasta.h's format) and searches the sequence with every literal (a pattern,
 * or its reverse complement for the - strand) by clm_host_scan_serial. A thread owns the
 * matches that start in its range; it reads on past the range for up to (longest pattern - 1)
 * more sequence bytes of the same record, and to the end of a header line it began.
 * A range may begin inside a line: its kind comes from the last line break before the range,
 * which a first pass finds (each thread searches its own range backwards for its last one).
 * The threads keep their pieces of each record (segments) and matches; once all are done the
 * pieces are joined in file order, each record's offsets being the sum of its sequence bytes
 * in the ranges before, and every record goes to the callbacks whole.
 */
#define _GNU_SOURCE /* memrchr */
#include "dna_host.h"

#include "cli_common.h"
#include "clmatch.h"
#include "dna_patterns.h"
#include "fasta.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DH_MAX_LITERALS 16
#define DH_CHUNK_MAX ((size_t)256 << 10) /* the copy and the scan stay in cache */
#define DH_MATCH_MAX ((uint64_t)1 << 23) /* matches held before the search declines */
#define DH_SEG_MAX ((uint64_t)1 << 22)   /* record pieces held (many short records: reads) */
#define DH_HEAD_PROBE ((size_t)64 << 10)  /* where the first header must begin */
#define DH_NONE UINT64_MAX

typedef struct {
    clm_host_database *db;
    size_t len;
    unsigned pat;
    int strand;
} dh_literal;

struct dna_host {
    dh_literal lit[DH_MAX_LITERALS];
    unsigned n_lit;
    size_t max_len, chunk;
    int count_only;
};

/* Where a range begins. */
enum { AT_LINE_START, IN_SEQUENCE, IN_OTHERS_HEADER, IN_HEADER };

typedef struct {
    uint64_t pos; /* from the segment's first sequence byte */
    unsigned lit;
    size_t text; /* its bytes in the part's arena */
} dh_match;

/* A piece of one record inside a range. */
typedef struct {
    char *id; /* the record starts here (its identifier); NULL: it began before the range */
    size_t id_len;
    uint64_t seq;    /* its sequence bytes in the range */
    size_t first, n; /* its matches: m[first, first + n) */
    uint64_t count;  /* count_only: its matches */
} dh_seg;

typedef struct {
    const dna_host *h;
    int fd;
    uint64_t lo, hi, size; /* the range [lo, hi) of a file of size bytes */
    uint64_t last_nl;      /* first pass: its last '\n' (DH_NONE: none) */
    int state;             /* where lo is (AT_LINE_START, IN_SEQUENCE, IN_OTHERS_HEADER) */
    uint64_t match_max, seg_max; /* held before the search declines */
    /* results */
    dh_seg *seg;
    size_t n_seg, seg_cap;
    dh_match *m;
    size_t n_m, m_cap;
    unsigned char *arena;
    size_t arena_len, arena_cap;
    int status; /* DNA_HOST_DONE, _DECLINED (too many matches), _FAILED */
    int err;    /* errno of a failed read; 0: a short read, or out of memory if !io */
    int io;
    uint64_t err_off;
    /* work */
    unsigned char *raw;
    unsigned char *seq; /* the current segment's sequence bytes not yet searched */
    size_t seq_len, seq_cap;
    uint64_t seq_base; /* seq[0]'s offset in the segment */
    uint64_t owned;    /* the segment's sequence bytes in the range (the rest: read past it) */
    fasta_header hdr;
    pthread_t thread;
} dh_part;

int dna_host_open(const dna_host_spec *spec, dna_host **out)
{
    *out = NULL;
    size_t per = (size_t)(spec->plus != 0) + (size_t)(spec->minus != 0);
    if (spec->n == 0 || per == 0 || spec->n > DH_MAX_LITERALS / per) return 1;
    for (size_t i = 0; i < spec->n; i++)
        for (size_t j = 0; j < spec->lens[i]; j++)
            if (!strchr("ACGTUacgtu", spec->seqs[i][j]) || !spec->seqs[i][j]) return 1;
    dna_host *h = calloc(1, sizeof *h);
    if (!h) {
        errmsg("out of memory");
        return -1;
    }
    h->count_only = spec->count_only;
    h->chunk = spec->chunk < 1 ? 1 : spec->chunk > DH_CHUNK_MAX ? DH_CHUNK_MAX : spec->chunk;
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.flags = spec->caseless ? CLM_CASELESS : 0u;
    for (size_t i = 0; i < spec->n; i++) {
        size_t len = spec->lens[i];
        char *lit = malloc(len ? len : 1);
        if (!lit) {
            dna_host_close(h);
            errmsg("out of memory");
            return -1;
        }
        for (int s = 0; s < 2; s++) {
            if (!(s == 0 ? spec->plus : spec->minus)) continue;
            for (size_t j = 0; j < len; j++) { /* U is T; - searches the reverse complement */
                unsigned char c = (unsigned char)spec->seqs[i][s == 0 ? j : len - 1 - j];
                c = c == 'U' ? 'T' : c == 'u' ? 't' : c;
                lit[j] = (char)(s == 0 ? c : dna_complement(c));
            }
            dh_literal *L = &h->lit[h->n_lit];
            const char *p = lit;
            int st = clm_host_compile(&p, &len, NULL, 1, &o, &L->db);
            if (st != CLM_OK) {
                free(lit);
                dna_host_close(h);
                return st == CLM_E_NOMEM ? (errmsg("out of memory"), -1) : 1;
            }
            L->len = len;
            L->pat = (unsigned)i;
            L->strand = s == 0 ? 1 : -1;
            h->n_lit++;
            if (len > h->max_len) h->max_len = len;
        }
        free(lit);
    }
    *out = h;
    return 0;
}

void dna_host_close(dna_host *h)
{
    if (!h) return;
    for (unsigned i = 0; i < h->n_lit; i++) clm_host_database_free(h->lit[i].db);
    free(h);
}

/* ---- one range ---------------------------------------------------------------------------- */

static int fail_nomem(dh_part *p)
{
    p->status = DNA_HOST_FAILED;
    p->io = 0;
    return -1;
}

/* n bytes at file offset off into buf; -1 (status set) on a read error or short read. */
static int read_at(dh_part *p, unsigned char *buf, size_t n, uint64_t off)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(p->fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            p->status = DNA_HOST_FAILED;
            p->io = 1;
            p->err = r < 0 ? errno : 0;
            p->err_off = off + got;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

/* The first pass: the range's last '\n', searched backwards a chunk at a time. */
static void find_last_line_break(dh_part *p)
{
    p->last_nl = DH_NONE;
    for (uint64_t e = p->hi; e > p->lo;) {
        size_t n = e - p->lo < p->h->chunk ? (size_t)(e - p->lo) : p->h->chunk;
        if (read_at(p, p->raw, n, e - n) != 0) return;
        const unsigned char *q = memrchr(p->raw, '\n', n);
        if (q) {
            p->last_nl = e - n + (uint64_t)(q - p->raw);
            return;
        }
        e -= n;
    }
}

static int new_segment(dh_part *p, const char *header, size_t len)
{
    if (p->n_seg >= p->seg_max) { /* the devices stream such a file in bounded memory */
        p->status = DNA_HOST_DECLINED;
        return -1;
    }
    if (dna_grow((void **)&p->seg, &p->seg_cap, p->n_seg + 1, sizeof *p->seg) != 0)
        return fail_nomem(p);
    dh_seg *s = &p->seg[p->n_seg];
    memset(s, 0, sizeof *s);
    s->first = p->n_m;
    if (header) {
        while (len > 0 && header[len - 1] == '\r') len--; /* as fasta_header_start */
        s->id_len = fasta_id_length(header, len);
        if (!(s->id = dna_dup_bytes(header, s->id_len))) return fail_nomem(p);
    }
    p->n_seg++;
    p->seq_len = 0;
    p->seq_base = 0;
    p->owned = 0;
    return 0;
}

typedef struct {
    dh_part *p;
    const dh_literal *L;
    unsigned lit;
    size_t own;
} hit_ctx;

static int on_hit(const clm_match *m, void *vctx)
{
    hit_ctx *c = vctx;
    dh_part *p = c->p;
    dh_seg *s = &p->seg[p->n_seg - 1];
    if (m->start >= c->own) return 1; /* not this range's, or searched with the next bytes */
    if (p->h->count_only) {
        s->count++;
        return 0;
    }
    if (p->n_m >= p->match_max) {
        p->status = DNA_HOST_DECLINED;
        return 1;
    }
    if (dna_grow((void **)&p->m, &p->m_cap, p->n_m + 1, sizeof *p->m) != 0 ||
        dna_grow((void **)&p->arena, &p->arena_cap, p->arena_len + c->L->len, 1) != 0)
        return fail_nomem(p), 1;
    dh_match *x = &p->m[p->n_m++];
    x->pos = p->seq_base + m->start;
    x->lit = c->lit;
    x->text = p->arena_len;
    memcpy(p->arena + p->arena_len, p->seq + m->start, c->L->len);
    p->arena_len += c->L->len;
    s->n++;
    return 0;
}

/* Search the starts seq[0, own) (the bytes after them up to seq_len are theirs to match),
 * then drop them. */
static int search(dh_part *p, size_t own)
{
    const dna_host *h = p->h;
    for (unsigned i = 0; i < h->n_lit && own > 0; i++) {
        hit_ctx c = {p, &h->lit[i], i, own};
        clm_host_scan_serial(h->lit[i].db, p->seq, p->seq_len, on_hit, &c);
        if (p->status != DNA_HOST_DONE) return -1;
    }
    memmove(p->seq, p->seq + own, p->seq_len - own);
    p->seq_len -= own;
    p->seq_base += own;
    return 0;
}

/* The segment ends: search what is left of the starts in the range. */
static int end_segment(dh_part *p)
{
    p->seg[p->n_seg - 1].seq = p->owned;
    return search(p, (size_t)(p->owned - p->seq_base));
}

/* Append a sequence line's piece [c, e) without its CRs. */
static void append_sequence(dh_part *p, const unsigned char *c, const unsigned char *e)
{
    while (c < e) {
        const unsigned char *cr = memchr(c, '\r', (size_t)(e - c));
        const unsigned char *stop = cr ? cr : e;
        memcpy(p->seq + p->seq_len, c, (size_t)(stop - c));
        p->seq_len += (size_t)(stop - c);
        c = cr ? cr + 1 : e;
    }
}

/* Parse raw[0, n), the next bytes of the file; past the range (look) at most `want` more
 * sequence bytes are taken. Returns 1 when the range is done, 0 to read on, -1 on failure. */
static int parse(dh_part *p, int *state, size_t n, int look, size_t *want)
{
    const unsigned char *c = p->raw, *end = c + n;
    while (c < end) {
        const unsigned char *nl;
        switch (*state) {
        case IN_OTHERS_HEADER: /* the range before ours owns it */
            if (look) return 1;
            if (!(nl = memchr(c, '\n', (size_t)(end - c)))) return 0;
            c = nl + 1;
            *state = AT_LINE_START;
            break;
        case IN_HEADER:
            nl = memchr(c, '\n', (size_t)(end - c));
            if (!p->hdr.truncated &&
                fasta_header_append(&p->hdr, c, (size_t)((nl ? nl : end) - c)) != FASTA_OK)
                return fail_nomem(p);
            if (!nl) return 0;
            if (new_segment(p, p->hdr.text ? p->hdr.text : "", p->hdr.len) != 0) return -1;
            c = nl + 1;
            *state = AT_LINE_START;
            if (look) return 1; /* its sequence starts past the range: none of it is ours */
            break;
        case AT_LINE_START:
            if (*c == '\n') {
                c++;
                break;
            }
            if (*c == '>') {
                if (look) return 1;
                if (end_segment(p) != 0) return -1;
                p->hdr.len = 0;
                p->hdr.truncated = 0;
                *state = IN_HEADER;
                c++;
                break;
            }
            *state = IN_SEQUENCE;
            /* fall through */
        case IN_SEQUENCE: {
            nl = memchr(c, '\n', (size_t)(end - c));
            const unsigned char *stop = nl ? nl : end;
            if (look) {
                size_t before = p->seq_len;
                if ((size_t)(stop - c) > *want) stop = c + *want;
                append_sequence(p, c, stop);
                *want -= p->seq_len - before;
                if (*want == 0) return 1;
                if (stop < (nl ? nl : end)) { /* CRs left it short: more of the line */
                    c = stop;
                    continue;
                }
            } else {
                size_t before = p->seq_len;
                append_sequence(p, c, stop);
                p->owned += p->seq_len - before;
            }
            if (!nl) return 0;
            c = nl + 1;
            *state = AT_LINE_START;
            break;
        }
        }
    }
    return 0;
}

static void run_part(dh_part *p)
{
    const dna_host *h = p->h;
    const size_t keep = h->max_len - 1;
    int state = p->state;
    if (p->status != DNA_HOST_DONE || new_segment(p, NULL, 0) != 0) return;
    uint64_t off = p->lo;
    int rc = 0;
    while (rc == 0 && off < p->hi) { /* the range */
        size_t n = p->hi - off < h->chunk ? (size_t)(p->hi - off) : h->chunk;
        if (read_at(p, p->raw, n, off) != 0) return;
        off += n;
        rc = parse(p, &state, n, 0, NULL);
        /* a full buffer: search every start that has the longest pattern's room */
        if (rc == 0 && p->seq_len >= h->chunk + keep && search(p, p->seq_len - keep) != 0)
            return;
    }
    size_t want = keep; /* past it: the rest of a header begun, or the sequence's next bytes */
    while (rc == 0 && off < p->size && (want > 0 || state == IN_HEADER)) {
        size_t n = p->size - off < h->chunk ? (size_t)(p->size - off) : h->chunk;
        if (read_at(p, p->raw, n, off) != 0) return;
        off += n;
        rc = parse(p, &state, n, 1, &want);
    }
    if (rc < 0) return;
    if (state == IN_HEADER) { /* the file ends inside it */
        if (new_segment(p, p->hdr.text ? p->hdr.text : "", p->hdr.len) != 0) return;
    }
    end_segment(p);
}

static void *part_thread(void *arg)
{
    run_part(arg);
    return NULL;
}

static void *last_line_break_thread(void *arg)
{
    find_last_line_break(arg);
    return NULL;
}

/* Run f on every part, part 0 on this thread; a thread that cannot start runs here. */
static void run_all(dh_part *parts, unsigned n, void *(*f)(void *))
{
    unsigned char started[CLM_HOST_MAX_THREADS] = {0};
    for (unsigned i = 1; i < n; i++)
        started[i] = pthread_create(&parts[i].thread, NULL, f, &parts[i]) == 0;
    f(&parts[0]);
    for (unsigned i = 1; i < n; i++) {
        if (started[i]) pthread_join(parts[i].thread, NULL);
        else f(&parts[i]);
    }
}

/* ---- the file ----------------------------------------------------------------------------- */

/* Where the first header begins: after line breaks and CRs only (fasta.c), within the first
 * DH_HEAD_PROBE bytes. DH_NONE: not FASTA (or not found there); size: nothing but line
 * breaks (no record). */
static uint64_t first_header(int fd, uint64_t size)
{
    unsigned char buf[4096];
    for (uint64_t off = 0; off < size && off < DH_HEAD_PROBE;) {
        size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
        ssize_t r = pread(fd, buf, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return DH_NONE;
        if (off == 0 && r >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) return DH_NONE; /* gzip */
        for (ssize_t i = 0; i < r; i++)
            if (buf[i] != '\n' && buf[i] != '\r')
                return buf[i] == '>' ? off + (uint64_t)i : DH_NONE;
        off += (uint64_t)r;
    }
    return size <= DH_HEAD_PROBE ? size : DH_NONE;
}

/* Hand the records to the callbacks in file order. */
static int deliver(const dna_host *h, const dh_part *parts, unsigned n,
                   const dna_host_callbacks *cb, void *ctx)
{
    int have = 0;
    uint64_t base = 0; /* the current record's sequence bytes so far */
    for (unsigned i = 0; i < n; i++)
        for (size_t k = 0; k < parts[i].n_seg; k++) {
            const dh_seg *s = &parts[i].seg[k];
            if (s->id) {
                if (have && cb->record_end(ctx, base)) return DNA_HOST_STOPPED;
                if (cb->record_start(ctx, s->id, s->id_len)) return DNA_HOST_STOPPED;
                have = 1;
                base = 0;
            } else if (!have) {
                continue; /* before the first header: nothing (parts begin there) */
            }
            for (size_t x = s->first; x < s->first + s->n; x++) {
                const dh_match *mt = &parts[i].m[x];
                const dh_literal *L = &h->lit[mt->lit];
                if (cb->match(ctx, L->pat, L->strand, base + mt->pos, base + mt->pos + L->len,
                              parts[i].arena + mt->text))
                    return DNA_HOST_STOPPED;
            }
            if (h->count_only && cb->count(ctx, s->count)) return DNA_HOST_STOPPED;
            base += s->seq;
        }
    if (have && cb->record_end(ctx, base)) return DNA_HOST_STOPPED;
    return DNA_HOST_DONE;
}

int dna_host_search(const dna_host *h, int fd, uint64_t size, const char *name,
                    const dna_host_callbacks *cb, void *ctx, unsigned *threads)
{
    *threads = 0;
    uint64_t start = first_header(fd, size);
    if (start == DH_NONE) return DNA_HOST_DECLINED;
    if (start == size) return DNA_HOST_DONE; /* no record */
    unsigned n;
    if (clm_host_threads(size - start, &n) != CLM_OK) {
        report_clm(name, CLM_E_INVALID);
        return DNA_HOST_FAILED;
    }
    if (n > CLM_HOST_MAX_THREADS) n = CLM_HOST_MAX_THREADS;
    if (n > size - start) n = (unsigned)(size - start);
    /* tests (CLMATCH_TEST_HOST_MATCHES): smaller caps of the matches and the record pieces
     * held, to see the search decline */
    const char *cap_env = getenv("CLMATCH_TEST_HOST_MATCHES");
    const uint64_t match_max = cap_env && *cap_env ? strtoull(cap_env, NULL, 10) : DH_MATCH_MAX;
    const uint64_t seg_max = cap_env && *cap_env ? match_max : DH_SEG_MAX;
    dh_part *parts = calloc(n, sizeof *parts);
    int rc = DNA_HOST_DONE;
    if (!parts) {
        errmsg("out of memory");
        return DNA_HOST_FAILED;
    }
    for (unsigned i = 0; i < n; i++) {
        dh_part *p = &parts[i];
        p->h = h;
        p->fd = fd;
        p->size = size;
        p->lo = start + (size - start) * i / n;
        p->hi = start + (size - start) * (i + 1) / n;
        p->match_max = match_max / n;
        p->seg_max = seg_max / n + 2; /* the piece before the range's first header, and one */
        p->seq_cap = 2 * h->chunk + 2 * h->max_len;
        if (!(p->raw = malloc(h->chunk)) || !(p->seq = malloc(p->seq_cap))) {
            errmsg("out of memory");
            rc = DNA_HOST_FAILED;
        }
    }
    if (rc == DNA_HOST_DONE) {
        run_all(parts, n, last_line_break_thread);
        /* each range's first line: the one after the last '\n' before it */
        uint64_t nl = DH_NONE;
        for (unsigned i = 0; i < n; i++) {
            dh_part *p = &parts[i];
            uint64_t line = nl == DH_NONE ? start : nl + 1;
            unsigned char b = 0;
            if (line == p->lo) p->state = AT_LINE_START;
            else if (read_at(p, &b, 1, line) == 0)
                p->state = b == '>' ? IN_OTHERS_HEADER : IN_SEQUENCE;
            if (p->last_nl != DH_NONE) nl = p->last_nl;
        }
        run_all(parts, n, part_thread);
        *threads = n;
        for (unsigned i = 0; i < n && rc == DNA_HOST_DONE; i++) {
            const dh_part *p = &parts[i];
            if (p->status == DNA_HOST_DECLINED) {
                rc = DNA_HOST_DECLINED;
            } else if (p->status != DNA_HOST_DONE) {
                if (!p->io) errmsg("%s: out of memory", name);
                else if (p->err) errmsg("%s: read at offset %llu: %s", name,
                                        (unsigned long long)p->err_off, strerror(p->err));
                else errmsg("%s: short read at offset %llu (the file shrank)", name,
                            (unsigned long long)p->err_off);
                rc = DNA_HOST_FAILED;
            }
        }
        if (rc == DNA_HOST_DONE) rc = deliver(h, parts, n, cb, ctx);
    }
    for (unsigned i = 0; i < n; i++) {
        dh_part *p = &parts[i];
        for (size_t k = 0; k < p->n_seg; k++) free(p->seg[k].id);
        free(p->seg);
        free(p->m);
        free(p->arena);
        free(p->raw);
        free(p->seq);
        fasta_header_free(&p->hdr);
    }
    free(parts);
    return rc;
}
