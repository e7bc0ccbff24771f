/* The DNA mode's patterns and IUPAC helpers (tools/dna_patterns.h). */
#include "dna_patterns.h"

#include "cli_common.h"
#include "fasta.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dna_is_iupac(unsigned char c)
{
    return c < 128 && strchr("ACGTURYSWKMBDHVNacgturyswkmbdhvn", c) != NULL && c != '\0';
}

/* Complement of an IUPAC code in its case; other bytes are kept. */
unsigned char dna_complement(unsigned char c)
{
    static const char from[] = "ACGTURYSWKMBDHVNacgturyswkmbdhvn";
    static const char to[] = "TGCAAYRSWMKVHDBNtgcaayrswmkvhdbn";
    const char *p = c ? strchr(from, c) : NULL;
    return p ? (unsigned char)to[p - from] : c;
}

unsigned char dna_lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

int dna_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 64;
    void *q;
    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

char *dna_dup_bytes(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

void dna_free_patterns(pattern_list *l)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].seq);
        free(l->v[i].shown);
        free(l->v[i].where);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Add a pattern (copied). Returns 0 or -1 after a message. */
static int add_pattern(pattern_list *l, const char *name, size_t name_len, const char *seq,
                       size_t len, const char *where)
{
    dna_pattern *p;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        dna_pattern *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            errmsg("out of memory");
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    p = &l->v[l->n];
    memset(p, 0, sizeof *p);
    p->name = dna_dup_bytes(name, name_len);
    p->name_len = name_len;
    p->seq = dna_dup_bytes(seq, len);
    p->len = len;
    p->shown = dna_dup_bytes(seq, len);
    p->where = dna_dup_bytes(where, strlen(where));
    l->n++;
    if (!p->name || !p->seq || !p->shown || !p->where) {
        errmsg("out of memory");
        return -1;
    }
    return 0;
}

/* Collects the records of a FASTA pattern file. */
typedef struct {
    pattern_list *list;
    const char *file;
    char *name;
    size_t name_len;
    uint64_t line;
    char *seq;
    size_t len, cap;
    int failed;
} pfile_ctx;

static int pf_start(void *vctx, const char *header, size_t len, uint64_t line)
{
    pfile_ctx *c = vctx;
    size_t id = fasta_id_length(header, len);
    free(c->name);
    c->name = dna_dup_bytes(header, id);
    c->name_len = id;
    c->line = line;
    c->len = 0;
    if (!c->name) {
        errmsg("out of memory");
        c->failed = 1;
        return 1;
    }
    return 0;
}

static int pf_seq(void *vctx, const unsigned char *seq, size_t n)
{
    pfile_ctx *c = vctx;
    if (c->len + n > c->cap) {
        size_t cap = c->cap ? c->cap : 64;
        char *p;
        while (cap < c->len + n)
            cap *= 2;
        p = realloc(c->seq, cap);
        if (!p) {
            errmsg("out of memory");
            c->failed = 1;
            return 1;
        }
        c->seq = p;
        c->cap = cap;
    }
    memcpy(c->seq + c->len, seq, n);
    c->len += n;
    return 0;
}

static int pf_end(void *vctx)
{
    pfile_ctx *c = vctx;
    char where[512];
    snprintf(where, sizeof where, "%s line %" PRIu64, c->file, c->line);
    if (c->len == 0) {
        char *name = cli_quote_bytes(c->name, c->name_len);
        errmsg("%s: pattern record '%s' has no sequence", where, name ? name : c->name);
        free(name);
        c->failed = 1;
        return 1;
    }
    if (add_pattern(c->list, c->name, c->name_len, c->seq, c->len, where) != 0) {
        c->failed = 1;
        return 1;
    }
    return 0;
}

/* The text of a -f file (path names it in messages) into l: FASTA (first non-empty line
 * '>'), else lines "NAME<TAB>PATTERN" or "PATTERN". Returns 0 or -1 after a message. Apart
 * from the file reading, so that tests/fuzz/fuzz_pattern_file.c can feed it memory. */
static int parse_pattern_file(const char *path, const char *data, size_t len, pattern_list *l)
{
    size_t i = 0, before = l->n; /* l may hold -e patterns and other files' already */
    uint64_t line = 1;
    int rc = 0;
    while (i < len && (data[i] == '\n' || data[i] == '\r'))
        i++;
    if (i < len && data[i] == '>') {
        static const fasta_callbacks cb = {pf_start, pf_seq, pf_end};
        fasta_reader fr;
        pfile_ctx c;
        int st;
        memset(&c, 0, sizeof c);
        c.list = l;
        c.file = path;
        fasta_init(&fr, FASTA_FORCE, path);
        st = fasta_feed(&fr, data, len, &cb, &c);
        if (st == FASTA_OK)
            st = fasta_finish(&fr, &cb, &c);
        if (st == FASTA_ERR_FORMAT)
            errmsg("%s", fr.error);
        else if (st == FASTA_ERR_NOMEM)
            errmsg("out of memory");
        rc = st == FASTA_OK ? 0 : -1;
        fasta_free(&fr);
        free(c.name);
        free(c.seq);
    } else {
        size_t pos = 0;
        while (pos < len && rc == 0) {
            const char *ln = data + pos, *nl = memchr(ln, '\n', len - pos);
            size_t n = nl ? (size_t)(nl - ln) : len - pos;
            const char *tab;
            char where[512];
            pos += n + (nl ? 1 : 0);
            while (n > 0 && ln[n - 1] == '\r')
                n--;
            snprintf(where, sizeof where, "%s line %" PRIu64, path, line);
            line++;
            if (n == 0)
                continue;
            tab = memchr(ln, '\t', n);
            if (tab) {
                size_t nn = (size_t)(tab - ln), pn = n - nn - 1;
                if (pn == 0) {
                    errmsg("%s: empty pattern after the tab (expected NAME<TAB>PATTERN)", where);
                    rc = -1;
                } else if (memchr(tab + 1, '\t', pn)) {
                    errmsg("%s: more than one tab (expected NAME<TAB>PATTERN)", where);
                    rc = -1;
                } else {
                    rc = add_pattern(l, ln, nn, tab + 1, pn, where);
                }
            } else {
                rc = add_pattern(l, ln, n, ln, n, where);
            }
        }
        if (rc == 0 && l->n == before) {
            errmsg("%s: no pattern in the file", path);
            rc = -1;
        }
    }
    return rc;
}

/* -f FILE: read it whole, then parse_pattern_file. */
static int load_pattern_file(const char *path, pattern_list *l)
{
    char *data;
    size_t len;
    int rc;
    if (read_path_all(path, &data, &len) != 0)
        return -1;
    rc = parse_pattern_file(path, data, len, l);
    free(data);
    return rc;
}

static const dna_pattern *sort_base; /* qsort has no context argument */

static int same_pattern(const dna_pattern *a, const dna_pattern *b)
{
    return a->len == b->len && a->name_len == b->name_len &&
           memcmp(a->seq, b->seq, a->len) == 0 && memcmp(a->name, b->name, a->name_len) == 0;
}

/* Indices of patterns by (length, bytes, name, index). */
static int pattern_cmp(const void *x, const void *y)
{
    const size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const dna_pattern *a = &sort_base[i], *b = &sort_base[j];
    int c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    if ((c = memcmp(a->seq, b->seq, a->len)) != 0)
        return c;
    if (a->name_len != b->name_len)
        return a->name_len < b->name_len ? -1 : 1;
    if ((c = memcmp(a->name, b->name, a->name_len)) != 0)
        return c;
    return i < j ? -1 : i > j;
}

/* --pam: the pattern becomes guide+PAM (PAM+guide with --pam5), searched and shown whole. */
static int join_pam(const crispr_pam *pam, dna_pattern *p)
{
    size_t len;
    char *seq = crispr_join(pam, p->seq, p->len, &len), *shown = seq ? dna_dup_bytes(seq, len) : NULL;
    if (!shown) {
        free(seq);
        errmsg("out of memory");
        return -1;
    }
    free(p->seq);
    free(p->shown);
    p->seq = seq;
    p->shown = shown;
    p->len = len;
    return 0;
}

/* Gather, validate and deduplicate the patterns. Returns 0 or -1 after a message. */
int dna_build_patterns(const dna_pattern_opts *o, pattern_list *l)
{
    size_t i, j, kept;
    for (i = 0; i < o->n_args; i++) {
        const char *p = o->args[i];
        if (add_pattern(l, p, strlen(p), p, strlen(p), "pattern") != 0)
            return -1;
    }
    for (i = 0; i < o->n_files; i++)
        if (load_pattern_file(o->files[i], l) != 0)
            return -1;
    for (i = 0; i < l->n; i++) {
        dna_pattern *p = &l->v[i];
        char *seq; /* the pattern as messages quote it */
        if (p->len == 0) {
            errmsg("%s: empty pattern: DNA mode searches for at least one base", p->where);
            return -1;
        }
        for (j = 0; j < p->len; j++) {
            unsigned char c = (unsigned char)p->seq[j];
            if (!dna_is_iupac(c)) {
                char shown[8];
                if (c >= 0x20 && c < 0x7f)
                    snprintf(shown, sizeof shown, "'%c'", c);
                else
                    snprintf(shown, sizeof shown, "0x%02x", c);
                seq = cli_quote_bytes(p->seq, p->len);
                errmsg("%s '%s': %s at position %zu is not an IUPAC nucleotide code "
                       "(A C G T U R Y S W K M B D H V N, either case)",
                       p->where, seq ? seq : p->seq, shown, j + 1);
                free(seq);
                return -1;
            }
        }
        if (o->max_errors > 0 && o->max_errors >= p->len) {
            seq = cli_quote_bytes(p->seq, p->len);
            errmsg("%s '%s': %s %u needs patterns longer than %u bases (this one has %zu)",
                   p->where, seq ? seq : p->seq,
                   o->mismatches_only ? "-m/--mismatches-only -k" : "-k", o->max_errors,
                   o->max_errors, p->len);
            free(seq);
            return -1;
        }
        if (o->pam && join_pam(o->pam, p) != 0)
            return -1;
        if (o->caseless && !o->degenerate)
            for (j = 0; j < p->len; j++)
                p->shown[j] = (char)dna_lower((unsigned char)p->shown[j]);
    }
    /* The same name and pattern given twice is searched (and reported) once; the first place
     * it was given decides its rank in the output. Sorted, so that large -f files stay fast. */
    if (l->n > 1) {
        size_t *order = malloc(l->n * sizeof *order);
        char *dup = calloc(l->n, 1);
        if (!order || !dup) {
            free(order);
            free(dup);
            errmsg("out of memory");
            return -1;
        }
        for (i = 0; i < l->n; i++)
            order[i] = i;
        sort_base = l->v;
        qsort(order, l->n, sizeof *order, pattern_cmp);
        for (i = 1; i < l->n; i++)
            if (same_pattern(&l->v[order[i - 1]], &l->v[order[i]]))
                dup[order[i]] = 1; /* order[i - 1] was given earlier (ties sort by index) */
        for (i = 0, kept = 0; i < l->n; i++) {
            if (dup[i]) {
                free(l->v[i].name);
                free(l->v[i].seq);
                free(l->v[i].shown);
                free(l->v[i].where);
            } else {
                l->v[kept++] = l->v[i];
            }
        }
        l->n = kept;
        free(order);
        free(dup);
    }
    return 0;
}
