/*
 * casoff_genome.c - one genome file of the Cas-OFFinder front end, read whole by threads as
 * lines (line_records.h): a record's sequence lines are then contiguous, from the line after
 * its header to its next header, so the text is that buffer as it is.
 */
#include "casoff_genome.h"

#include "cli_common.h"
#include "line_records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

struct upper_part {
    unsigned char *p, *odd; /* odd: the flags of the part's blocks (casoff_genome.odd) */
    size_t n, crs;
};

/* Bytes equal to zero in x: their high bits (exact, no borrow). */
static uint64_t zero_bytes(uint64_t x)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fu;
    return ~(((x & low7) + low7) | x | low7);
}

/* Eight bytes at a time: the lower-case letters lose their 0x20 bit, a CR anywhere is noted,
 * and each block of CASOFF_ODD_BLOCK bytes gets its flag (a byte loop through u's fields
 * stayed scalar: on the H200 machine 1 GB took most of the genome's 1.3 s read). The part
 * starts on a block. */
static void *upper_part(void *arg)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    struct upper_part *u = arg;
    unsigned char *p = u->p;
    const size_t n = u->n;
    size_t i = 0, crs = 0;
    uint64_t cr = 0, odd = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w, t;
        memcpy(&w, p + i, 8);
        t = w & ~high;
        const uint64_t lower = (t + 0x1f * ones) & ~(t + 0x05 * ones) & ~w & high;
        const uint64_t x = w ^ ('\r' * ones);
        cr |= (x - ones) & ~x & high; /* a zero byte: a CR */
        w ^= lower >> 2;
        memcpy(p + i, &w, 8);
        odd |= ~(zero_bytes(w ^ ('A' * ones)) | zero_bytes(w ^ ('C' * ones)) |
                 zero_bytes(w ^ ('G' * ones)) | zero_bytes(w ^ ('T' * ones))) & high;
        if ((i + 8) % CASOFF_ODD_BLOCK == 0) {
            u->odd[i / CASOFF_ODD_BLOCK] = odd != 0;
            odd = 0;
        }
    }
    for (; i < n; i++) {
        const unsigned char c = p[i];
        if (c >= 'a' && c <= 'z')
            p[i] = (unsigned char)(c - 'a' + 'A');
        crs += c == '\r';
        odd |= !casoff_acgt(p[i]);
    }
    if (n % CASOFF_ODD_BLOCK)
        u->odd[n / CASOFF_ODD_BLOCK] = odd != 0;
    u->crs = crs + (cr != 0);
    return NULL;
}

/* Upper-case g's text, a part a thread (each whole blocks but the last), flagging its blocks;
 * whether it holds a CR. */
static int upper_all(casoff_genome *g)
{
    struct upper_part parts[MAX_THREADS];
    unsigned char *p = g->text;
    const size_t n = g->text_len;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned np = (unsigned)(n >> 22) + 1;
    if (cpus >= 1 && np > (unsigned long)cpus)
        np = (unsigned)cpus;
    if (np > MAX_THREADS)
        np = MAX_THREADS;
    const size_t per = (n / np + CASOFF_ODD_BLOCK - 1) / CASOFF_ODD_BLOCK * CASOFF_ODD_BLOCK;
    for (unsigned i = 0; i < np; i++) {
        size_t a = per * i < n ? per * i : n;
        size_t e = i + 1 == np || per * (i + 1) > n ? n : per * (i + 1);
        parts[i] = (struct upper_part){p + a, g->odd + a / CASOFF_ODD_BLOCK, e - a, 0};
    }
    cli_run_parts(parts, sizeof *parts, np, upper_part);
    size_t crs = 0;
    for (unsigned i = 0; i < np; i++)
        crs += parts[i].crs;
    return crs != 0;
}

/* Drop the CRs of record r's bytes (ragged "\r\n" files), the freed tail as N. */
static void drop_crs(casoff_genome *g, casoff_record *r)
{
    unsigned char *p = g->text + r->start;
    size_t k = 0;
    for (size_t i = 0; i < r->len; i++)
        if (p[i] != '\r')
            p[k++] = p[i];
    memset(p + k, 'N', r->len - k);
    r->len = k;
}

/* Read a FASTA file whole (2.4.1 does too) by threads, as lines (line_records.h): a record's
 * sequence lines are then contiguous, from the line after its header to its next header, so
 * the text is that buffer as it is, headers left between records (no site crosses a record's
 * end: on_match). Returns 1 when it is not FASTA (its first byte is not '>'), 0 when read, -1
 * after a message. */
int casoff_genome_load(casoff_genome *g, const char *path)
{
    line_records lr;
    int fd = open(path, O_RDONLY), err;
    if (fd < 0) {
        errmsg("%s: %s", path, strerror(errno));
        return -1;
    }
    err = line_records_read(fd, '\n', &lr);
    close(fd);
    if (err) {
        errmsg("%s: %s", path, err == ENOMEM ? "out of memory" : strerror(err));
        return -1;
    }
    if (lr.rows == 0 || line_records_offset(&lr, 1) == 0 || lr.bytes[0] != '>') {
        line_records_free(&lr);
        return 1;
    }
    for (uint64_t i = 0; i < lr.rows; i++) {
        uint64_t at = line_records_offset(&lr, i), end = line_records_offset(&lr, i + 1);
        if (end == at || lr.bytes[at] != '>')
            continue;
        if (g->nrec)
            g->rec[g->nrec - 1].len = at - g->rec[g->nrec - 1].start;
        size_t len = (size_t)(end - at - 1);
        while (len && lr.bytes[at + len] == '\r') /* the header's trailing CRs */
            len--;
        if (g->nrec == g->rec_cap) {
            size_t cap = g->rec_cap ? 2 * g->rec_cap : 64;
            casoff_record *more = realloc(g->rec, cap * sizeof *more);
            if (more) {
                g->rec = more;
                g->rec_cap = cap;
            }
        }
        if (g->nrec == g->rec_cap ||
            !(g->rec[g->nrec].name = strndup((const char *)lr.bytes + at + 1, len))) {
            errmsg("out of memory");
            line_records_free(&lr);
            return -1;
        }
        g->rec[g->nrec].start = end;
        g->rec[g->nrec].len = 0;
        g->nrec++;
    }
    g->rec[g->nrec - 1].len = lr.data_bytes - g->rec[g->nrec - 1].start;
    free(lr.offsets);
    g->text = lr.bytes;
    g->text_len = (size_t)lr.data_bytes;
    g->odd_blocks = g->text_len / CASOFF_ODD_BLOCK + 1;
    if (!(g->odd = calloc(g->odd_blocks, 1))) {
        errmsg("out of memory");
        return -1;
    }
    if (upper_all(g)) { /* CRs ("\r\n" lines): rare, looked for then */
        for (size_t r = 0; r < g->nrec; r++)
            if (memchr(g->text + g->rec[r].start, '\r', g->rec[r].len))
                drop_crs(g, &g->rec[r]);
        memset(g->odd, 1, g->odd_blocks); /* bytes moved: every block looked at */
    }
    return 0;
}

/* The record holding text offset pos (records are in text order). */
size_t casoff_genome_record_of(const casoff_genome *g, uint64_t pos)
{
    size_t lo = 0, hi = g->nrec;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->rec[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}


int casoff_genome_odd_sites(const casoff_genome *g, size_t len, const unsigned char *deg,
                            int (*fn)(void *ctx, uint64_t start, int strand), void *ctx)
{
    size_t *at = malloc((len ? len : 1) * sizeof *at), nd = 0; /* the set offsets, rising */
    if (!at)
        return -1;
    for (size_t j = 0; j < len; j++)
        if (deg[j])
            at[nd++] = j;
    int rc = 0;
    for (size_t r = 0; r < g->nrec && !rc; r++) {
        const uint64_t r0 = g->rec[r].start, r1 = r0 + g->rec[r].len;
        for (uint64_t p = r0; p < r1 && !rc; p++) {
            if (!g->odd[p / CASOFF_ODD_BLOCK]) { /* on to the next block */
                p = (p / CASOFF_ODD_BLOCK + 1) * CASOFF_ODD_BLOCK - 1;
                continue;
            }
            if (casoff_acgt(g->text[p]))
                continue;
            for (int strand = 1; strand >= -1 && !rc; strand -= 2)
                for (size_t d = 0; d < nd && !rc; d++) {
                    /* the byte at offset o of a site; a strand's offsets rise with d */
                    const size_t o = strand > 0 ? at[d] : len - 1 - at[nd - 1 - d];
                    if (p < r0 + o || p - o + len > r1)
                        continue;
                    const uint64_t start = p - o;
                    size_t e = 0; /* from the site's first such byte only */
                    while (e < d &&
                           casoff_acgt(g->text[start + (strand > 0 ? at[e]
                                                                   : len - 1 - at[nd - 1 - e])]))
                        e++;
                    if (e == d)
                        rc = fn(ctx, start, strand);
                }
        }
    }
    free(at);
    return rc;
}

void casoff_genome_free(casoff_genome *g)
{
    for (size_t i = 0; i < g->nrec; i++)
        free(g->rec[i].name);
    free(g->rec);
    free(g->text);
    free(g->odd);
    memset(g, 0, sizeof *g);
}
