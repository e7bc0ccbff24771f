/*
 * The Cas-OFFinder 2.4.1 front end (see casoff.h; formats taken from its documentation and
 * source, no code).
 *
 * Input file: line 1 the genome (a FASTA file, or a directory whose FASTA files are read in
 * name order), line 2 the template (e.g. NNNNNNNNNNNNNNNNNNNNNRG), then one query a line:
 * "QUERY LIMIT [ID]" separated by white space, every line with the same number of fields.
 *
 * What 2.4.1 reports, and so we do: a site is L = template length bases inside one record
 * (records are upper-cased; the name is the whole header line). On the + strand the site is
 * the text, on the - strand its reverse complement. The template's non-N positions must not
 * mismatch; the query's non-N positions count mismatches, at most LIMIT. "Mismatch" is
 * 2.4.1's: a code A/C/G/T mismatches any other byte (N included); a degenerate code
 * mismatches only the bases A/C/G/T outside its set (so a text N or other code never
 * mismatches it); N never mismatches.
 *
 * How: each query, its N positions filled from the template, is one pattern of ONE library
 * search on both strands with Hamming distance max(LIMIT) (below the length), over the text
 * with every byte other than A/C/G/T in no pattern class; each site it reports is checked
 * with 2.4.1's rules above. The library counts a text N under a code as a mismatch where
 * 2.4.1 does not: the sites holding such a byte are checked on the host (odd_site), on a
 * thread while the library searches, and so are the sites where every base of a query whose
 * limit is the length mismatches (all_mismatch_sites). (A text N matching every code,
 * CLM_DEGENERATE_TEXT, made every window of a run of Ns a candidate of every query: 55 s
 * instead of 2 on 200 MB with 1 000 guides.) With distance at most 8 the library searches
 * every query on both strands in one launch (hamming), with the template's plain bases at the
 * patterns' ends (the G of NRG, the GG of NGG) as exact ends, checked once per start for all
 * queries (exact_end).
 *
 * Rows: per genome file, per query in input order, by position, + before -.
 */
#include "casoff.h"

#include "casoff_genome.h"
#include "casoff_device.h"
#include "casoff_rows.h"
#include "clmatch.h"
#include "cli_common.h"
#include "crispr.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LIMIT 65535u /* 2.4.1 keeps the limit in 16 bits */
#define CASOFF_SLAB_BYTES ((size_t)64 << 20)

typedef casoff_query query;

typedef struct {
    const char *input; /* for messages */
    char *genome;      /* line 1 */
    char *tmpl, *tmpl_rc;
    size_t len;        /* template length */
    query *q;
    size_t nq, q_cap;
    int has_ids;
    /* Library patterns: the distinct queries with the template in their N positions. */
    char **pat;
    size_t npat;
    size_t *first_q, *next_q; /* the queries of pattern p: first_q[p], next_q[q] ... */
    unsigned max_limit;
    casoff_genome g; /* one genome file */
    casoff_sites hits; /* the search's sites, then the host pass's after them */
    casoff_sites odd;  /* the host pass's (odd_site), on a thread of its own */
    int failed;
    double searched, written, freed; /* CLMATCH_STATS: seconds in each, every file */
    double in_matches, odd_seconds;   /* ... in on_match, when timed; in odd_site's pass */
    uint64_t matches;
    int timed;
    /* the library's mismatch limit, and the offsets (flags) where a pattern has a code other
     * than A/C/G/T: there 2.4.1 takes any other byte of the text, the library none */
    unsigned lib_k;
    unsigned char *deg;
    unsigned char *mm; /* mismatch(c, b) at [c * 256 + b]: the per-site counts' table */
} casoff;

static void usage(FILE *f)
{
    fputs("Usage: clmatch-cas-offinder {INPUT|-} {C|G|A}[DEVICE_IDS] {OUTPUT|-}\n"
          "A drop-in for Cas-OFFinder 2.4.1 (C: CPUs, G: GPUs, A: accelerators; ids as\n"
          "0,2 or 0:3 pick among the devices of that type; clmatch uses the first one).\n"
          "INPUT: the genome (FASTA file or directory), the template, then QUERY LIMIT [ID]\n"
          "lines. See docs/dna.md.\n",
          f);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 64;
    void *n;
    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    n = realloc(*p, c * elem);
    if (!n) {
        errmsg("out of memory");
        return -1;
    }
    *p = n;
    *cap = c;
    return 0;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- 2.4.1's base comparison ------------------------------------------------------------- */

/* Does upper-case text byte b mismatch upper-case code c? */
static int mismatch(unsigned char c, unsigned char b)
{
    if (casoff_acgt(c))
        return b != c;
    if (c == 'N')
        return 0;
    return casoff_acgt(b) && (iupac_set(b) & iupac_set(c)) == 0;
}

/* ---- the input file ---------------------------------------------------------------------- */

/* Upper-case an IUPAC sequence (codes A C G T R Y S W K M B D H V N only, as 2.4.1 lists
 * them). Returns the 0-based offset of the first other byte, or n. */
static size_t upper_iupac(char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 'a' + 'A');
        if (c == 'U' || iupac_set(c) == 0)
            return i;
        s[i] = (char)c;
    }
    return n;
}

static int bad_code(const casoff *c, size_t line, const char *what, const char *s, size_t at)
{
    errmsg("%s line %zu: %s: '%c' at position %zu is not one of Cas-OFFinder's codes "
           "(A C G T R Y S W K M B D H V N)",
           c->input, line, what, s[at], at + 1);
    return -1;
}

/* A query line (its fields split in place). Returns 0 or -1 after a message. */
static int parse_query(casoff *c, char *ln, size_t line)
{
    char *f[4], *save = NULL, *end;
    size_t nf = 0, n;
    unsigned long limit;
    query *q;
    for (char *t = strtok_r(ln, " \t\v\f", &save); t; t = strtok_r(NULL, " \t\v\f", &save))
        if (nf < 4)
            f[nf++] = t;
        else
            nf++;
    if (nf != 2 && nf != 3) {
        errmsg("%s line %zu: expected 'QUERY LIMIT' or 'QUERY LIMIT ID' (%zu fields)", c->input,
               line, nf);
        return -1;
    }
    if (c->nq > 0 && (nf == 3) != c->has_ids) {
        errmsg("%s line %zu: %zu fields, but the first query line has %d (every query line "
               "has the same number)",
               c->input, line, nf, c->has_ids ? 3 : 2);
        return -1;
    }
    c->has_ids = nf == 3;
    n = strlen(f[0]);
    if (n != c->len) {
        errmsg("%s line %zu: the query has %zu bases, the template (line 2) %zu: they must be "
               "as long",
               c->input, line, n, c->len);
        return -1;
    }
    if (upper_iupac(f[0], n) != n)
        return bad_code(c, line, "query", f[0], upper_iupac(f[0], n));
    errno = 0;
    limit = strtoul(f[1], &end, 10);
    if (f[1][0] < '0' || f[1][0] > '9' || *end || errno || limit > MAX_LIMIT) {
        errmsg("%s line %zu: invalid mismatch limit '%s' (expected a number 0 to %u)", c->input,
               line, f[1], MAX_LIMIT);
        return -1;
    }
    if (grow((void **)&c->q, &c->q_cap, c->nq + 1, sizeof *c->q) != 0)
        return -1;
    q = &c->q[c->nq];
    memset(q, 0, sizeof *q);
    c->nq++;
    q->seq = dup_n(f[0], n);
    q->rc = malloc(n + 1);
    q->id = nf == 3 ? dup_n(f[2], strlen(f[2])) : NULL;
    q->limit = (unsigned)limit;
    if (!q->seq || !q->rc || (nf == 3 && !q->id)) {
        errmsg("out of memory");
        return -1;
    }
    casoff_revcomp(q->rc, q->seq, n);
    q->rc[n] = '\0';
    return 0;
}

/* The whole input file. Returns 0 or -1 after a message. */
static int parse_input(casoff *c, const char *path)
{
    char *data, *p;
    size_t len, line = 0, blank = 0;
    int rc = 0;
    c->input = strcmp(path, "-") == 0 ? "(standard input)" : path;
    if (read_path_all(path, &data, &len) != 0)
        return -1;
    {
        char *d = realloc(data, len + 1); /* room for the final NUL */
        if (!d) {
            free(data);
            errmsg("out of memory");
            return -1;
        }
        data = d;
        data[len] = '\0';
    }
    for (p = data; rc == 0 && *p;) {
        char *nl = strchr(p, '\n'), *ln = p;
        size_t n;
        if (nl)
            *nl = '\0';
        p = nl ? nl + 1 : p + strlen(p);
        n = strlen(ln);
        if (n > 0 && ln[n - 1] == '\r')
            ln[--n] = '\0';
        line++;
        if (line == 1) {
            if (n == 0) {
                errmsg("%s line 1: no genome path (a FASTA file or a directory of them)",
                       c->input);
                rc = -1;
            } else if (!(c->genome = dup_n(ln, n))) {
                errmsg("out of memory");
                rc = -1;
            }
        } else if (line == 2) {
            if (n == 0) {
                errmsg("%s line 2: no template (e.g. NNNNNNNNNNNNNNNNNNNNNRG)", c->input);
                rc = -1;
            } else if (upper_iupac(ln, n) != n) {
                rc = bad_code(c, 2, "template", ln, upper_iupac(ln, n));
            } else if (!(c->tmpl = dup_n(ln, n)) || !(c->tmpl_rc = dup_n(ln, n))) {
                errmsg("out of memory");
                rc = -1;
            } else {
                c->len = n;
                casoff_revcomp(c->tmpl_rc, c->tmpl, n);
            }
        } else if (n == 0 || strspn(ln, " \t\v\f") == n) {
            if (!blank)
                blank = line;
        } else if (blank) {
            /* 2.4.1 stops at an empty line and silently drops the queries after it. */
            errmsg("%s line %zu: empty line before more queries", c->input, blank);
            rc = -1;
        } else {
            rc = parse_query(c, ln, line);
        }
    }
    if (rc == 0 && line < 2) {
        errmsg("%s: %s", c->input,
               line == 0 ? "empty input (expected the genome path, the template, queries)"
                         : "no template line (line 2)");
        rc = -1;
    } else if (rc == 0 && c->nq == 0) {
        errmsg("%s: no query line (expected 'QUERY LIMIT' lines after the template)", c->input);
        rc = -1;
    }
    free(data);
    return rc;
}

/* ---- library patterns -------------------------------------------------------------------- */

static const casoff *sort_ctx;

static int pat_cmp(const void *a, const void *b)
{
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int r = strcmp(sort_ctx->pat[i], sort_ctx->pat[j]);
    return r ? r : (i < j ? -1 : i > j);
}

/* One pattern per distinct query-with-template (queries that differ only in their limit or
 * id share one). Returns 0 or -1 after a message. */
static int build_patterns(casoff *c)
{
    size_t i, j, *order;
    unsigned *which;
    c->pat = calloc(c->nq, sizeof *c->pat);
    c->first_q = malloc(c->nq * sizeof *c->first_q);
    c->next_q = malloc(c->nq * sizeof *c->next_q);
    order = malloc(c->nq * sizeof *order);
    which = malloc(c->nq * sizeof *which);
    if (!c->pat || !c->first_q || !c->next_q || !order || !which) {
        free(order);
        free(which);
        errmsg("out of memory");
        return -1;
    }
    for (i = 0; i < c->nq; i++) {
        const query *q = &c->q[i];
        if (!(c->pat[i] = dup_n(q->seq, c->len))) {
            errmsg("out of memory");
            c->npat = i + 1;
            free(order);
            free(which);
            return -1;
        }
        for (j = 0; j < c->len; j++)
            if (q->seq[j] == 'N')
                c->pat[i][j] = c->tmpl[j];
        if (q->limit > c->max_limit)
            c->max_limit = q->limit;
        order[i] = i;
    }
    c->npat = c->nq;
    sort_ctx = c;
    qsort(order, c->nq, sizeof *order, pat_cmp);
    /* Number the distinct patterns; queries of one pattern are chained in input order. */
    for (i = 0; i < c->nq; i++) {
        if (i > 0 && strcmp(c->pat[order[i]], c->pat[order[i - 1]]) == 0)
            which[order[i]] = which[order[i - 1]];
        else
            which[order[i]] = (unsigned)order[i];
    }
    for (i = 0; i < c->nq; i++)
        c->next_q[i] = SIZE_MAX;
    /* order, no longer needed, maps a first query to its pattern number. */
    {
        size_t kept = 0, w = 0;
        for (i = 0; i < c->nq; i++) {
            if (which[i] == i) { /* the first query of its pattern (the smallest index) */
                order[i] = kept;
                c->first_q[kept++] = i;
            } else {
                for (j = c->first_q[order[which[i]]]; c->next_q[j] != SIZE_MAX; j = c->next_q[j])
                    ;
                c->next_q[j] = i;
            }
            c->q[i].pattern = (unsigned)order[which[i]];
        }
        for (i = 0; i < c->nq; i++) {
            if (which[i] == i)
                c->pat[w++] = c->pat[i];
            else
                free(c->pat[i]);
        }
        for (i = w; i < c->nq; i++)
            c->pat[i] = NULL;
        c->npat = kept;
    }
    free(order);
    free(which);
    return 0;
}

/* ---- one genome file --------------------------------------------------------------------- */

/* Each pair's mismatch(), looked up by the per-site counts (the host pass over sites with a
 * text N compares every query there: 0.3 s of a 1 GB run with the call). */
static int mismatch_table(casoff *c)
{
    if (!(c->mm = malloc(256 * 256)))
        return -1;
    for (unsigned a = 0; a < 256; a++)
        for (unsigned b = 0; b < 256; b++)
            c->mm[a * 256 + b] = (unsigned char)mismatch((unsigned char)a, (unsigned char)b);
    return 0;
}

/* 2.4.1's count of query mismatches at text offset pos, or UINT_MAX when the template
 * mismatches (strand < 0: the reverse complements against the text); any count above most
 * once it passes it. */
static unsigned count_mismatches(const casoff *c, const query *q, uint64_t pos, int strand,
                                 unsigned most)
{
    const unsigned char *t = (const unsigned char *)(strand > 0 ? c->tmpl : c->tmpl_rc);
    const unsigned char *s = (const unsigned char *)(strand > 0 ? q->seq : q->rc);
    const unsigned char *g = c->g.text + pos;
    unsigned mm = 0;
    for (size_t j = 0; j < c->len; j++) {
        if (c->mm[t[j] * 256 + g[j]])
            return UINT_MAX;
        mm += c->mm[s[j] * 256 + g[j]];
        if (mm > most)
            return mm;
    }
    return mm;
}

static int on_match_sites(const clm_match *m, casoff *c);

static int on_match(const clm_match *m, void *vctx)
{
    casoff *c = vctx;
    if (!c->timed)
        return on_match_sites(m, c);
    double t0 = now_seconds();
    int rc = on_match_sites(m, c);
    c->in_matches += now_seconds() - t0;
    c->matches++;
    return rc;
}

/* The sites of the queries of match m's pattern (2.4.1's template and limits). */
static int on_match_sites(const clm_match *m, casoff *c)
{
    const casoff_record *r;
    size_t qi;
    if (m->id >= c->npat)
        return 1;
    r = &c->g.rec[casoff_genome_record_of(&c->g, m->start)];
    if (m->start < r->start || m->end > r->start + r->len)
        return 0; /* in a header, or crosses into the next record */
    for (qi = c->first_q[m->id]; qi != SIZE_MAX; qi = c->next_q[qi]) {
        unsigned mm = count_mismatches(c, &c->q[qi], m->start, m->strand, c->q[qi].limit);
        if (mm <= c->q[qi].limit &&
            casoff_sites_add(&c->hits, m->start, (unsigned)qi, mm, m->strand)) {
            c->failed = 1;
            return 1;
        }
    }
    return 0;
}

static int on_ignore(const clm_match *m, void *vctx)
{
    (void)m;
    (void)vctx;
    return 0;
}

/* The bytes other than A/C/G/T at site g where query q's pattern has a code (the library
 * counts each as a mismatch, 2.4.1 does not). */
static unsigned odd_under_codes(const casoff *c, const query *q, const unsigned char *g,
                                int strand)
{
    const char *pat = c->pat[q->pattern];
    unsigned n = 0;
    for (size_t j = 0; j < c->len; j++) {
        const unsigned char code = (unsigned char)pat[strand > 0 ? j : c->len - 1 - j];
        n += !casoff_acgt(g[j]) && !casoff_acgt(code);
    }
    return n;
}

/* A site holding a byte other than A/C/G/T under a pattern's code (casoff_genome_odd_sites):
 * each query's row when 2.4.1's count passes its limit and the library's (one more for each
 * such byte) did not pass lib_k, so that the library did not report it. */
static int odd_site(void *vctx, uint64_t start, int strand)
{
    casoff *c = vctx;
    const unsigned char *g = c->g.text + start;
    const char *t = strand > 0 ? c->tmpl : c->tmpl_rc;
    for (size_t j = 0; j < c->len; j++) /* the template first: in a run of N, its PAM fails */
        if (c->mm[(unsigned char)t[j] * 256 + g[j]])
            return 0;
    for (size_t qi = 0; qi < c->nq; qi++) {
        const query *q = &c->q[qi];
        unsigned mm = count_mismatches(c, q, start, strand, q->limit), lib;
        if (mm > q->limit) /* or the template mismatches */
            continue;
        lib = mm + odd_under_codes(c, q, g, strand);
        if (lib > c->lib_k && casoff_sites_add(&c->odd, start, (unsigned)qi, mm, strand))
            return 1;
    }
    return 0;
}

/* Whether casoff_genome_odd_sites calls odd_site for site g: a byte other than A/C/G/T
 * where some pattern has a code. */
static int odd_pass_visits(const casoff *c, const unsigned char *g, int strand)
{
    for (size_t j = 0; c->deg && j < c->len; j++)
        if (c->deg[strand > 0 ? j : c->len - 1 - j] && !casoff_acgt(g[j]))
            return 1;
    return 0;
}

/* Sites where every base of a query whose limit is the template's length or more
 * mismatches: the library's distance stays below the length, so it reports none of them.
 * Those that odd_site looks at are its own; the others are added here, in a pass over every
 * start that the first base ends for almost all. 0, or 1 out of memory. */
static int all_mismatch_sites(casoff *c)
{
    for (size_t qi = 0; qi < c->nq; qi++) {
        const query *q = &c->q[qi];
        if (q->limit < c->len)
            continue;
        for (size_t r = 0; r < c->g.nrec; r++) {
            const uint64_t r0 = c->g.rec[r].start, r1 = r0 + c->g.rec[r].len;
            for (uint64_t p = r0; p + c->len <= r1; p++)
                for (int strand = 1; strand >= -1; strand -= 2) {
                    const unsigned char *g = c->g.text + p;
                    const unsigned char s0 = (unsigned char)(strand > 0 ? q->seq : q->rc)[0];
                    if (!c->mm[s0 * 256 + g[0]] ||
                        count_mismatches(c, q, p, strand, UINT_MAX - 1) != c->len ||
                        odd_pass_visits(c, g, strand))
                        continue;
                    if (casoff_sites_add(&c->odd, p, (unsigned)qi, (unsigned)c->len, strand))
                        return 1;
                }
        }
    }
    return 0;
}

/* Search the text of one file. Bytes other than A/C/G/T (N, other codes, headers between
 * records) are in none of the patterns' classes: each mismatches every pattern symbol, as
 * 2.4.1's N does under a plain code (CLM_DEGENERATE_TEXT is off; see the top). */
static int search_text(casoff *c, const clm_database *db, clm_scratch *scratch, size_t block)
{
    clm_stream *s = NULL;
    int st = clm_stream_open(db, scratch, 0u, &s);
    for (uint64_t off = 0; st == CLM_OK && off < c->g.text_len; off += block) {
        size_t n = (size_t)(c->g.text_len - off < block ? c->g.text_len - off : block);
        st = clm_stream_write(s, c->g.text + off, n, on_match, c);
    }
    if (s) {
        int cst = clm_stream_close(s, st == CLM_OK ? on_match : on_ignore, c, NULL);
        if (st == CLM_OK)
            st = cst;
    }
    if (st != CLM_OK && !c->failed)
        report_clm("search", st);
    return st == CLM_OK && !c->failed ? 0 : -1;
}

static void free_file(casoff *c)
{
    casoff_genome_free(&c->g);
    c->hits.n = c->odd.n = 0;
}

/* The host pass over the sites with a text N under a code (odd_site), on a thread while the
 * library searches: it reads the genome only, and adds to a list of its own. */
struct odd_pass {
    casoff *c;
    pthread_t th;
    int started, rc;
    double seconds;
};

static void *odd_pass_run(void *arg)
{
    struct odd_pass *p = arg;
    double t0 = now_seconds();
    casoff *c = p->c;
    p->rc = c->deg ? casoff_genome_odd_sites(&c->g, c->len, c->deg, odd_site, c) : 0;
    if (p->rc == 0 && c->max_limit >= c->len)
        p->rc = all_mismatch_sites(c);
    p->seconds = now_seconds() - t0;
    return NULL;
}

/* Join the pass (or run it here when no thread started) and append its sites to the
 * search's. Returns 0, or -1 after a message. */
static int odd_pass_join(struct odd_pass *p)
{
    casoff *c = p->c;
    if (p->started)
        pthread_join(p->th, NULL);
    else
        odd_pass_run(p);
    c->odd_seconds += p->seconds;
    if (p->rc == 0 && casoff_sites_move(&c->hits, &c->odd) == 0)
        return 0;
    errmsg("out of memory");
    return -1;
}

/* Search a file casoff_genome_load read (st its result). Returns 0 (searched, or skipped
 * when not FASTA and skip_other), or -1 after a message. */
static int search_loaded(casoff *c, const char *path, int st, int skip_other,
                         const clm_database *db, clm_scratch *scratch, size_t block)
{
    int rc = 0;
    if (st == 1) {
        if (skip_other) {
            fprintf(stderr, "clmatch: skipping %s: not FASTA (2bit is not supported)\n", path);
        } else {
            errmsg("%s: not a FASTA file (its first byte is not '>'; 2bit is not supported)",
                   path);
            rc = -1;
        }
    } else if (st < 0) {
        rc = -1;
    } else if (c->g.text_len >= c->len) {
        double t0 = now_seconds();
        struct odd_pass odd = {.c = c};
        const int host_pass = c->deg || c->max_limit >= c->len;
        if (host_pass)
            odd.started = pthread_create(&odd.th, NULL, odd_pass_run, &odd) == 0;
        rc = search_text(c, db, scratch, block);
        if (host_pass && odd_pass_join(&odd) != 0)
            rc = -1;
        double t1 = now_seconds();
        const casoff_rows rows = {&c->g, c->len, c->q, c->mm};
        if (rc == 0 && casoff_rows_write(&rows, &c->hits) != 0) {
            errmsg("out of memory");
            rc = -1;
        }
        c->searched += t1 - t0;
        c->written += now_seconds() - t1;
    }
    double t2 = now_seconds();
    free_file(c);
    c->freed += now_seconds() - t2;
    return rc;
}

/* The first genome file read while the device opens and the queries compile. */
struct preload {
    casoff *c;
    const char *path;
    int st, started;
    pthread_t th;
    double seconds; /* the read's, on its thread */
};

static void *preload_run(void *arg)
{
    struct preload *p = arg;
    double t0 = now_seconds();
    p->st = casoff_genome_load(&p->c->g, p->path);
    p->seconds = now_seconds() - t0;
    return NULL;
}

static void preload_start(struct preload *p, casoff *c, const char *path)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->path = path;
    p->started = pthread_create(&p->th, NULL, preload_run, p) == 0;
}

/* casoff_genome_load's result for the file: the thread's, joined, or read now. */
static int preload_wait(struct preload *p)
{
    if (!p->started)
        return casoff_genome_load(&p->c->g, p->path);
    pthread_join(p->th, NULL);
    p->started = 0;
    return p->st;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The genome's files: the path itself, or the regular files (links followed) of the
 * directory in name order (2.4.1 takes readdir's order). Returns 0 or -1 after a message. */
static int genome_files(const casoff *c, char ***files, size_t *n, int *is_dir)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;
    size_t cap = 0;
    *files = NULL;
    *n = 0;
    if (stat(c->genome, &sb) != 0) {
        errmsg("%s line 1: genome '%s': %s", c->input, c->genome, strerror(errno));
        return -1;
    }
    *is_dir = S_ISDIR(sb.st_mode);
    if (!*is_dir) {
        *files = malloc(sizeof **files);
        if (!*files || !((*files)[0] = dup_n(c->genome, strlen(c->genome)))) {
            errmsg("out of memory");
            return -1;
        }
        *n = 1;
        return 0;
    }
    if (!(d = opendir(c->genome))) {
        errmsg("%s line 1: genome '%s': %s", c->input, c->genome, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(c->genome) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path || grow((void **)files, &cap, *n + 1, sizeof **files) != 0) {
            free(path);
            closedir(d);
            errmsg("out of memory");
            return -1;
        }
        snprintf(path, len, "%s/%s", c->genome, e->d_name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            (*files)[(*n)++] = path;
        else
            free(path);
    }
    closedir(d);
    if (*n > 1)
        qsort(*files, *n, sizeof **files, name_cmp);
    return 0;
}

/* The offsets where a pattern has a code other than A/C/G/T (c->deg, NULL: none): a text
 * byte other than A/C/G/T there mismatches in the library's count, not in 2.4.1's, so
 * odd_site looks at those sites on the host. 0, or -1 out of memory. */
static int degenerate_offsets(casoff *c)
{
    int any = 0;
    if (!(c->deg = calloc(c->len ? c->len : 1, 1)))
        return -1;
    for (size_t i = 0; i < c->npat; i++)
        for (size_t j = 0; j < c->len; j++)
            if (!casoff_acgt((unsigned char)c->pat[i][j]))
                c->deg[j] = 1, any = 1;
    if (!any) {
        free(c->deg);
        c->deg = NULL;
    }
    return 0;
}

/* Symbols at the start (tail 0) or end (tail 1) of every pattern that are plain bases of the
 * template, kept by every pattern: 2.4.1 drops a site with any other byte there (a plain code
 * mismatches anything else, N included), as the library's exact ends do, so the kernel may
 * skip such starts before comparing any query. */
static unsigned exact_end(const casoff *c, int tail)
{
    unsigned n = 0;
    for (; n < c->len; n++) {
        size_t j = tail ? c->len - 1 - n : n;
        if (!casoff_acgt((unsigned char)c->tmpl[j]))
            return n;
        for (size_t i = 0; i < c->npat; i++)
            if (c->pat[i][j] != c->tmpl[j])
                return n;
    }
    return n;
}

/* ---- main -------------------------------------------------------------------------------- */

int casoff_main(int argc, char **argv)
{
    casoff c;
    clm_device *dev = NULL;
    clm_database *db = NULL;
    clm_scratch *scratch = NULL;
    clm_compile_options opts;
    cli_device_opts dev_opts;
    char **files = NULL;
    size_t n_files = 0, i, *lens = NULL;
    unsigned *ids = NULL;
    int status = EXIT_TROUBLE, is_dir = 0, st;
    const size_t block = DEFAULT_BLOCK_BYTES;
    struct preload pre = {0};
    /* CLMATCH_STATS=1: where the time went, on stderr (the arguments are 2.4.1's: no
     * --stats) */
    const char *stats_env = getenv("CLMATCH_STATS");
    const int stats = stats_env && strcmp(stats_env, "1") == 0;
    double t_open = 0, t_compile = 0, t_search = 0, t_wait = 0;

    memset(&c, 0, sizeof c);
    c.timed = stats;
    if (!cli_time.start) /* clmatch's main sets it before handing its arguments over */
        cli_time.start = now_seconds();
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 4) {
        errmsg("expected 3 arguments: INPUT {C|G|A}[DEVICE_IDS] OUTPUT");
        usage(stderr);
        return EXIT_TROUBLE;
    }
    if (parse_input(&c, argv[1]) != 0 || genome_files(&c, &files, &n_files, &is_dir) != 0)
        goto done;
    if (strcmp(argv[3], "-") != 0 && !freopen(argv[3], "w", stdout)) {
        errmsg("%s: %s", argv[3], strerror(errno));
        goto done;
    }
    if (cli_output_init() != 0 || build_patterns(&c) != 0)
        goto done;
    if (mismatch_table(&c) != 0) {
        errmsg("out of memory");
        goto done;
    }
    if (n_files)
        preload_start(&pre, &c, files[0]);
    t_open = now_seconds();
    if (casoff_open_device(argv[2], &dev) != 0)
        goto done;
    t_compile = now_seconds();

    lens = malloc(c.npat * sizeof *lens);
    ids = malloc(c.npat * sizeof *ids);
    if (!lens || !ids) {
        errmsg("out of memory");
        goto done;
    }
    for (i = 0; i < c.npat; i++) {
        lens[i] = c.len;
        ids[i] = (unsigned)i;
    }
    clm_compile_options_init(&opts, sizeof opts);
    opts.flags = CLM_DNA | CLM_BOTH_STRANDS;
    if (degenerate_offsets(&c) != 0) {
        errmsg("out of memory");
        goto done;
    }
    {
        size_t k = c.max_limit;
        c.lib_k = (unsigned)(k < c.len ? k : c.len - 1);
        if (k > 0) {
            /* Hamming distance below the length: a limit of the length or more admits every
             * site whose template matches, and the library needs k < length. */
            opts.flags |= CLM_MISMATCHES_ONLY;
            opts.max_errors = (unsigned)(k < c.len ? k : c.len - 1);
            opts.exact_head = exact_end(&c, 0);
            opts.exact_tail = exact_end(&c, 1);
            if (opts.exact_head + opts.exact_tail >= c.len) /* all of it: exact search */
                opts.exact_head = opts.exact_tail = 0;
        }
    }
    st = cli_compile(dev, (const char *const *)c.pat, lens, ids, (unsigned)c.npat, &opts, &db);
    if (st != CLM_OK) {
        db = NULL;
        report_clm("cannot compile the queries", st);
        goto done;
    }
    cli_device_opts_init(&dev_opts);
    /* Slabs of 64 MiB unless CLMATCH_SLAB_BYTES says: the GPUs' 256 MiB took 0.21 s to pin
     * (two slots) of a 1 s run on the H200 machine; the kernel lost 6 ms of 79. */
    if (!getenv("CLMATCH_SLAB_BYTES"))
        dev_opts.slab_bytes = CASOFF_SLAB_BYTES;
    if (cli_alloc_scratch(db, &dev_opts, &scratch) != 0)
        goto done;
    /* the stream's whole slabs (pinned staging on a GPU: 0.27 s for 1 GB on the H200)
     * allocated while the genome is still being read */
    if (pre.started && (st = clm_scratch_reserve(scratch, SIZE_MAX)) != CLM_OK) {
        report_clm("cannot allocate the search's buffers", st);
        goto done;
    }
    status = 0;
    t_search = now_seconds();
    for (i = 0; i < n_files && status == 0 && !cli_out.failed; i++) {
        int loaded = i ? casoff_genome_load(&c.g, files[i]) : preload_wait(&pre);
        if (i == 0)
            t_wait = now_seconds() - t_search;
        if (search_loaded(&c, files[i], loaded, is_dir, db, scratch, block) != 0)
            status = EXIT_TROUBLE;
    }
    out_flush();
    if (cli_out.failed) {
        errmsg("write error: %s", strerror(cli_out.failed));
        status = EXIT_TROUBLE;
    }

done:
    if (pre.started) /* setup failed while the first file was read */
        preload_wait(&pre);
    status = cli_output_finish(status);
    if (stats && scratch) {
        double end = now_seconds();
        clm_stats st;
        fprintf(stderr, "clmatch: process %.4f s: arguments %.4f s, device open %.4f s, "
                        "compile and scratch %.4f s, first genome file read %.4f s on a thread "
                        "(then waited %.4f s), files searched and written %.4f s\n",
                end - cli_time.start, t_open - cli_time.start, t_compile - t_open,
                t_search - t_compile, pre.seconds, t_wait, end - t_search - t_wait);
        fprintf(stderr, "clmatch: searched %.4f s (%llu matches, %.4f s in their callbacks; "
                        "sites with a text N under a code %.4f s on a thread), sites sorted "
                        "and written %.4f s, genome freed %.4f s\n",
                c.searched, (unsigned long long)c.matches, c.in_matches, c.odd_seconds,
                c.written, c.freed);
        if (clm_scratch_get_stats(scratch, &st, sizeof st) == CLM_OK) {
            fprintf(stderr, "clmatch: read %.4f s, buffers %.4f s, device waits %.4f s, ",
                    st.read_seconds, st.alloc_seconds, st.wait_seconds);
            cli_stats_kernel(&st);
        }
        cli_stats_scratch(scratch);
    }
    cli_exit_early(status, 0); /* the output is written: the device's teardown is the OS's */
    clm_scratch_free(scratch);
    clm_database_free(db);
    clm_device_close(dev);
    for (i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    for (i = 0; i < c.nq; i++) {
        free(c.q[i].seq);
        free(c.q[i].rc);
        free(c.q[i].id);
    }
    for (i = 0; i < c.npat; i++)
        free(c.pat[i]);
    free(c.pat);
    free(c.first_q);
    free(c.next_q);
    free(c.q);
    free(c.genome);
    free(c.tmpl);
    free(c.tmpl_rc);
    casoff_genome_free(&c.g);
    casoff_sites_free(&c.hits);
    casoff_sites_free(&c.odd);
    free(c.deg);
    free(c.mm);
    free(lens);
    free(ids);
    return status;
}
