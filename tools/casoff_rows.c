/*
 * casoff_rows.c - the Cas-OFFinder front end's sites and output rows (casoff_rows.h). A
 * large file's rows are formatted by threads, each its share into a buffer of its own,
 * written in order (113 050 rows of a 1 GB genome took 0.05 s on one thread).
 */
#include "casoff_rows.h"

#include "cli_common.h"
#include "crispr.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16
#define ROWS_PER_THREAD ((size_t)16384) /* fewer rows are formatted on the calling thread */

int casoff_sites_add(casoff_sites *l, uint64_t pos, unsigned q, unsigned mm, int strand)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        casoff_site *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->failed = 1;
            return 1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (casoff_site){pos, q, mm, strand};
    return 0;
}

int casoff_sites_move(casoff_sites *to, casoff_sites *from)
{
    if (to->n + from->n > to->cap) {
        size_t cap = to->n + from->n;
        casoff_site *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(to->v, cap * sizeof *v);
        if (!v)
            return -1;
        to->v = v;
        to->cap = cap;
    }
    if (from->n)
        memcpy(to->v + to->n, from->v, from->n * sizeof *from->v);
    to->n += from->n;
    from->n = 0;
    return 0;
}

void casoff_sites_free(casoff_sites *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

void casoff_revcomp(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char b = (unsigned char)src[n - 1 - i];
        dst[i] = (char)(b == 'U' ? b : iupac_complement(b));
    }
}

static int site_cmp(const void *a, const void *b)
{
    const casoff_site *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return (x->strand < y->strand) - (x->strand > y->strand);
}

/* Site h's row at d (room for format_part's bound), h in record rec whose name has `name`
 * bytes; its length. */
static size_t format_row(const casoff_rows *r, const casoff_site *h, const casoff_record *rec,
                         size_t name, char *d)
{
    const casoff_query *q = &r->q[h->q];
    const size_t n = r->len;
    char tmp[20];
    size_t k = 0, i;
    memcpy(d, q->seq, n);
    k += n;
    d[k++] = '\t';
    memcpy(d + k, rec->name, name);
    k += name;
    d[k++] = '\t';
    i = u64_digits(h->pos - rec->start, tmp);
    memcpy(d + k, tmp + i, sizeof tmp - i);
    k += sizeof tmp - i;
    d[k++] = '\t';
    char *site = d + k;
    if (h->strand > 0)
        memcpy(site, r->g->text + h->pos, n);
    else
        casoff_revcomp(site, (const char *)r->g->text + h->pos, n);
    for (size_t j = 0; j < n; j++) /* mismatched bases in lower case */
        if (r->mm[(unsigned char)q->seq[j] * 256 + (unsigned char)site[j]] && site[j] >= 'A' &&
            site[j] <= 'Z')
            site[j] = (char)(site[j] - 'A' + 'a');
    k += n;
    d[k++] = '\t';
    d[k++] = h->strand > 0 ? '+' : '-';
    d[k++] = '\t';
    i = u64_digits(h->mm, tmp);
    memcpy(d + k, tmp + i, sizeof tmp - i);
    k += sizeof tmp - i;
    if (q->id) {
        const size_t id = strlen(q->id);
        d[k++] = '\t';
        memcpy(d + k, q->id, id);
        k += id;
    }
    d[k++] = '\n';
    return k;
}


/* One thread's share of the rows, formatted into buf. */
struct part {
    const casoff_rows *r;
    const casoff_site *v;
    size_t n;
    char *buf;
    size_t len, cap;
    int failed;
};

static void *format_part(void *arg)
{
    struct part *p = arg;
    for (size_t i = 0; i < p->n && !p->failed; i++) {
        const casoff_site *h = &p->v[i];
        const casoff_record *rec = &p->r->g->rec[casoff_genome_record_of(p->r->g, h->pos)];
        const char *id = p->r->q[h->q].id;
        /* the row's most bytes: query and site, name, id, two numbers, separators */
        const size_t name = strlen(rec->name);
        const size_t need = 2 * p->r->len + name + (id ? strlen(id) : 0) + 2 * 20 + 8;
        if (p->cap - p->len < need) {
            size_t cap = p->cap ? 2 * p->cap : (p->n - i) * 96 + need;
            while (cap - p->len < need)
                cap *= 2;
            char *b = realloc(p->buf, cap);
            if (!b) {
                p->failed = 1;
                break;
            }
            p->buf = b;
            p->cap = cap;
        }
        p->len += format_row(p->r, h, rec, name, p->buf + p->len);
    }
    return NULL;
}

int casoff_rows_write(const casoff_rows *r, casoff_sites *l)
{
    struct part parts[MAX_THREADS];
    unsigned np = 1, i;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, site_cmp);
    if (cpus > 1 && l->n >= 2 * ROWS_PER_THREAD) {
        size_t most = l->n / ROWS_PER_THREAD;
        np = (unsigned)(most < (size_t)cpus ? most : (size_t)cpus);
        if (np > MAX_THREADS)
            np = MAX_THREADS;
    }
    for (i = 0; i < np; i++) {
        const size_t a = l->n / np * i, e = i + 1 == np ? l->n : l->n / np * (i + 1);
        parts[i] = (struct part){r, l->v + a, e - a, NULL, 0, 0, 0};
    }
    cli_run_parts(parts, sizeof *parts, np, format_part);
    int failed = 0;
    for (i = 0; i < np; i++)
        failed |= parts[i].failed;
    for (i = 0; i < np; i++) {
        if (!failed)
            out_bytes(parts[i].buf, parts[i].len);
        free(parts[i].buf);
    }
    return failed ? -1 : 0;
}
