/*
 * DNA search (CLM_DNA, CLM_DEGENERATE_TEXT, CLM_BOTH_STRANDS) against a reference written
 * from the header's text: each IUPAC code becomes its set of bases (in its case, both with
 * CLM_CASELESS; with CLM_DEGENERATE_TEXT also the IUPAC text codes whose bases meet it),
 * the sets become a class pattern for the shared reference (exact, Hamming, Levenshtein in
 * t_ref.c), and the reverse complement is built here from base masks (not from a code table
 * like the library's). Texts: random bases with N runs, lowercase runs, IUPAC codes and
 * planted copies (of both strands, mutated for approximate search); every algorithm that
 * accepts the pattern; small slabs, streams in small pieces, count; bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ref_util.h"

/* ---- the reference ----------------------------------------------------------------------- */

/* Base mask of an IUPAC letter (A=1 C=2 G=4 T=8, U = T), 0 for other bytes. */
static unsigned mask_of(unsigned char c)
{
    static const char *const codes[16] = {"",  "A", "C", "M", "G", "R", "S", "V",
                                          "TU", "W", "Y", "H", "K", "D", "B", "N"};
    unsigned char up = c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
    for (unsigned m = 1; m < 16; m++)
        if (up && strchr(codes[m], up)) return m;
    return 0;
}

static int is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }

/* The reverse complement from masks: complement swaps A<->T and C<->G bits. */
static void ref_revcomp(const unsigned char *p, size_t m, unsigned char *out)
{
    static const char letter[16] = "?ACMGRSVTWYHKDBN";
    for (size_t i = 0; i < m; i++) {
        unsigned char c = p[m - 1 - i];
        unsigned b = mask_of(c);
        unsigned comp = (b & 1) << 3 | (b & 8) >> 3 | (b & 2) << 1 | (b & 4) >> 1;
        out[i] = (unsigned char)(letter[comp] | (is_lower(c) ? 0x20 : 0));
    }
}

/* Symbol set of code c as a class pattern "[...]" appended at o; returns the new length. */
static size_t ref_symbol(unsigned char c, unsigned flags, unsigned char *o)
{
    static const char all[] = "ACGTURYSWKMBDHVN";
    unsigned b = mask_of(c), lower = is_lower(c) ? 0x20 : 0;
    int both = (flags & CLM_CASELESS) != 0;
    size_t n = 0;
    o[n++] = '[';
    for (const char *t = all; *t; t++) {
        unsigned tb = mask_of((unsigned char)*t);
        /* plain: the text byte is one of the code's bases; degenerate: any IUPAC code whose
         * bases meet the code's */
        int in = (flags & CLM_DEGENERATE_TEXT) ? (tb & b) != 0
                                               : (strchr("ACGT", *t) && (tb & b));
        if (!in) continue;
        if (both || !lower) o[n++] = (unsigned char)*t;
        if (both || lower) o[n++] = (unsigned char)(*t | 0x20);
    }
    o[n++] = ']';
    return n;
}

/* Class pattern of a DNA pattern (or of its reverse complement). malloc'd. */
static unsigned char *ref_classes(const unsigned char *p, size_t m, unsigned flags, int rc,
                                  size_t *len)
{
    unsigned char *src = malloc(m ? m : 1), *out = malloc(m * 40 + 1);
    size_t n = 0;
    if (!src || !out) abort();
    if (rc) ref_revcomp(p, m, src);
    else memcpy(src, p, m);
    for (size_t i = 0; i < m; i++) n += ref_symbol(src[i], flags, out + n);
    free(src);
    *len = n;
    return out;
}

static int cmp_strand(const void *a, const void *b)
{
    const clm_match *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->strand != y->strand) return x->strand > y->strand ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->edits < y->edits ? -1 : x->edits > y->edits;
}

/* A DNA search as the header defines it. */
typedef struct {
    const unsigned char *const *pats;
    const size_t *lens;
    const unsigned *ids;
    unsigned count;
    unsigned flags; /* CLM_DNA | ... */
    unsigned k;
} dset;

static void dna_reference(const unsigned char *text, size_t n, const dset *d, t_matches *out)
{
    t_matches tmp;
    t_matches_init(&tmp);
    t_matches_clear(out);
    for (int strand = 1; strand >= -1; strand -= 2) {
        if (strand < 0 && !(d->flags & CLM_BOTH_STRANDS)) break;
        for (unsigned i = 0; i < d->count; i++) {
            size_t len;
            unsigned char *cp = ref_classes(d->pats[i], d->lens[i], d->flags, strand < 0, &len);
            const unsigned char *pp[1] = {cp};
            unsigned id = d->ids ? d->ids[i] : i;
            t_fset fs = {pp, &len, &id, 1, CLM_CLASSES | (d->flags & CLM_MISMATCHES_ONLY), d->k};
            if (t_reference_ex(text, n, &fs, &tmp) != 0) {
                T_FAIL("reference cannot parse %s (test bug)", t_show(cp, len));
                abort();
            }
            for (size_t j = 0; j < tmp.n; j++) {
                t_matches_push_e(out, tmp.v[j].start, tmp.v[j].end, id, tmp.v[j].edits);
                out->v[out->n - 1].strand = strand;
            }
            free(cp);
        }
    }
    if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, cmp_strand);
    t_matches_free(&tmp);
}

/* ---- collecting ---------------------------------------------------------------------------- */

static int collect(const clm_match *match, void *ctx)
{
    t_matches *m = ctx;
    if (m->written && match->end > m->written) m->causality_errors++;
    t_matches_push_e(m, match->start, match->end, match->id, match->edits);
    m->v[m->n - 1].strand = match->strand;
    return 0;
}

static int diff(const t_matches *got, const t_matches *want, char *buf, size_t size)
{
    size_t i, n = got->n < want->n ? got->n : want->n;
    for (i = 0; i <= n; i++) {
        if (i == n) {
            if (got->n == want->n) return 0;
            const clm_match *x = got->n > n ? &got->v[n] : &want->v[n];
            snprintf(buf, size, "%zu matches, expected %zu; first %s: (%llu,%llu,id %u,%+d,e%u)",
                     got->n, want->n, got->n > n ? "extra" : "missing",
                     (unsigned long long)x->start, (unsigned long long)x->end, x->id, x->strand,
                     x->edits);
            return 1;
        }
        const clm_match *a = &got->v[i], *b = &want->v[i];
        if (a->start != b->start || a->end != b->end || a->id != b->id || a->edits != b->edits ||
            a->strand != b->strand) {
            snprintf(buf, size,
                     "match #%zu: got (%llu,%llu,id %u,%+d,e%u), expected (%llu,%llu,id %u,%+d,"
                     "e%u); %zu matches, expected %zu",
                     i, (unsigned long long)a->start, (unsigned long long)a->end, a->id,
                     a->strand, a->edits, (unsigned long long)b->start,
                     (unsigned long long)b->end, b->id, b->strand, b->edits, got->n, want->n);
            return 1;
        }
    }
    return 0;
}

/* ---- texts and patterns --------------------------------------------------------------------- */

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* Random bases with runs of N, lowercase runs, single IUPAC codes (either case), U and a few
 * non-IUPAC bytes; then `copies` planted instances per pattern and strand, each symbol a
 * random member of the position's set (mutated by up to k edits when k > 0). */
static unsigned char *dna_text(t_rng *r, size_t n, const dset *d, unsigned copies)
{
    static const char codes[] = "RYSWKMBDHVNU";
    unsigned char *t = xmalloc(n);
    size_t i = 0;
    while (i < n) {
        size_t kind = t_below(r, 100), run = 1 + t_below(r, 30), j;
        for (j = 0; j < run && i < n; j++, i++) {
            unsigned char b = (unsigned char)"ACGT"[t_below(r, 4)];
            if (kind < 6) b = 'N';
            else if (kind < 8) b = 'n';
            else if (kind < 25) b |= 0x20;
            else if (kind < 30 && j == 0) b = (unsigned char)codes[t_below(r, sizeof codes - 1)];
            else if (kind < 32 && j == 0) b = (unsigned char)(codes[t_below(r, sizeof codes - 1)] | 0x20);
            else if (kind < 33 && j == 0) b = (unsigned char)"X\n-*"[t_below(r, 4)];
            t[i] = b;
        }
    }
    for (unsigned pi = 0; pi < d->count; pi++) {
        size_t m = d->lens[pi];
        for (int strand = 0; strand < ((d->flags & CLM_BOTH_STRANDS) ? 2 : 1); strand++) {
            size_t cl;
            unsigned char *cp = ref_classes(d->pats[pi], m, d->flags, strand, &cl);
            t_cset *S = NULL;
            long sm = t_parse_pattern(cp, cl, 1, 0, &S, NULL, NULL);
            free(cp);
            if (sm != (long)m) abort();
            unsigned char *inst = xmalloc(m + d->k + 1), *mut = xmalloc(m + d->k + 1);
            for (unsigned c = 0; c < copies && m + d->k < n; c++) {
                for (size_t j = 0; j < m; j++) {
                    unsigned char cand[256];
                    unsigned nc = 0;
                    for (unsigned b = 0; b < 256; b++)
                        if (t_cset_has(&S[j], (unsigned char)b)) cand[nc++] = (unsigned char)b;
                    inst[j] = nc ? cand[t_below(r, nc)] : 'A';
                }
                size_t len = m;
                if (d->k && c % 2)
                    len = t_mutate(r, inst, m, 1 + (unsigned)t_below(r, d->k),
                                   (d->flags & CLM_MISMATCHES_ONLY) != 0, 4, mut);
                else memcpy(mut, inst, m);
                if (len > n) continue;
                memcpy(t + t_below(r, n - len + 1), mut, len);
            }
            free(inst);
            free(mut);
            free(S);
        }
    }
    return t;
}

/* A random pattern of m codes: plain bases (upper), plain (mixed case) or degenerate. */
enum { P_PLAIN, P_MIXED, P_DEGEN, P_LOWER };
static void dna_pattern(t_rng *r, unsigned char *p, size_t m, int kind)
{
    static const char degen[] = "ACGTRYSWKMBDHVNU";
    for (size_t i = 0; i < m; i++) {
        unsigned char b = (unsigned char)"ACGTU"[t_below(r, 5)];
        if (kind == P_DEGEN && t_below(r, 3) == 0)
            b = (unsigned char)degen[t_below(r, sizeof degen - 1)];
        if ((kind == P_MIXED && t_below(r, 3) == 0) || kind == P_LOWER) b |= 0x20;
        p[i] = b;
    }
    if (kind == P_DEGEN && m > 2) p[m / 2] = (unsigned char)"RYN"[t_below(r, 3)];
}

/* ---- one case ------------------------------------------------------------------------------- */

typedef struct {
    dset d;
    clm_algorithm algo;
    clm_variant variant;
    unsigned bpi;
    clm_database *db;
    clm_scratch *s;
    clm_database_info info;
    clm_switch packing;
    char desc[400];
    t_matches got, want;
} dcase;

static void dcase_close(dcase *c)
{
    clm_scratch_free(c->s);
    clm_database_free(c->db);
    c->s = NULL;
    c->db = NULL;
}

static void describe(dcase *c)
{
    char pats[200];
    size_t o = 0;
    pats[0] = '\0';
    for (unsigned i = 0; i < c->d.count && i < 3 && o < sizeof pats - 1; i++)
        o += (size_t)snprintf(pats + o, sizeof pats - o, " \"%s\"",
                              t_show(c->d.pats[i], c->d.lens[i]));
    snprintf(c->desc, sizeof c->desc,
             "algo=%s variant=%s bpi=%u flags=%s%s%s%s%s k=%u%s%s seed=%llu",
             clm_algorithm_name(c->algo), clm_variant_name(c->variant), c->bpi,
             c->packing == CLM_OFF ? "no-packing," : "",
             c->d.flags & CLM_CASELESS ? "caseless," : "",
             c->d.flags & CLM_DEGENERATE_TEXT ? "degenerate-text," : "",
             c->d.flags & CLM_BOTH_STRANDS ? "both-strands," : "",
             c->d.flags & CLM_MISMATCHES_ONLY ? "mismatches-only," : "", c->d.k, pats,
             c->d.count > 3 ? " ..." : "", (unsigned long long)t_seed);
}

static int dcase_scratch(dcase *c, size_t slab)
{
    clm_scratch_options so;
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = slab;
    clm_scratch_free(c->s);
    c->s = NULL;
    int rc = clm_scratch_alloc(c->db, &so, &c->s);
    if (rc != CLM_OK) {
        c->s = NULL;
        return T_FAIL("%s: clm_scratch_alloc(slab %zu): %s", c->desc, slab, clm_last_error());
    }
    return 1;
}

static int dcase_open(dcase *c)
{
    clm_compile_options o;
    dcase_close(c);
    describe(c);
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = c->algo;
    o.variant = c->variant;
    o.flags = c->d.flags | CLM_DNA;
    o.packing = c->packing;
    o.max_errors = c->d.k;
    o.bytes_per_item = c->bpi;
    int rc = clm_compile(t_dev, (const char *const *)c->d.pats, c->d.lens, c->d.ids, c->d.count,
                         &o, &c->db);
    if (rc != CLM_OK) {
        c->db = NULL;
        return T_FAIL("%s: clm_compile: %s: %.300s", c->desc, clm_strerror(rc), clm_last_error());
    }
    clm_database_get_info(c->db, &c->info, sizeof c->info);
    if (!EXPECT(c->info.pattern_count == c->d.count) ||
        (c->algo != CLM_ALGO_AUTO && !EXPECT(c->info.algorithm == c->algo))) {
        dcase_close(c);
        return 0;
    }
    return dcase_scratch(c, (size_t)1 << 20);
}

/* clm_scan and clm_count against the reference. */
static int dcase_check(dcase *c, const unsigned char *text, size_t n, const char *what)
{
    char buf[400];
    uint64_t count = 0;
    if (!c->db || !c->s) return 0;
    dna_reference(text, n, &c->d, &c->want);
    t_matches_clear(&c->got);
    int rc = clm_scan(c->db, c->s, text, n, collect, &c->got);
    if (rc != CLM_OK)
        return T_FAIL("%s n=%zu %s: clm_scan: %s", c->desc, n, what, clm_last_error());
    if (diff(&c->got, &c->want, buf, sizeof buf))
        return T_FAIL("%s n=%zu %s: %s", c->desc, n, what, buf);
    rc = clm_count(c->db, c->s, text, n, &count);
    if (rc != CLM_OK)
        return T_FAIL("%s n=%zu %s: clm_count: %s", c->desc, n, what, clm_last_error());
    if (count != c->want.n)
        return T_FAIL("%s n=%zu %s: clm_count %llu, expected %zu", c->desc, n, what,
                      (unsigned long long)count, c->want.n);
    return 1;
}

/* Write text in pieces of 1..max bytes with a flush now and then; equal to the reference. */
static int dcase_stream(dcase *c, t_rng *r, const unsigned char *text, size_t n, size_t max)
{
    clm_stream *st = NULL;
    char buf[400];
    uint64_t total = 0;
    size_t done = 0;
    dna_reference(text, n, &c->d, &c->want);
    t_matches_clear(&c->got);
    c->got.written = 0;
    int rc = clm_stream_open(c->db, c->s, 0, &st);
    if (rc != CLM_OK) return T_FAIL("%s: clm_stream_open: %s", c->desc, clm_last_error());
    while (rc == CLM_OK && done < n) {
        size_t k = 1 + t_below(r, max);
        if (k > n - done) k = n - done;
        c->got.written = done + k;
        rc = clm_stream_write(st, text + done, k, collect, &c->got);
        done += k;
        if (rc == CLM_OK && t_below(r, 16) == 0) rc = clm_stream_flush(st, collect, &c->got);
    }
    c->got.written = 0;
    int rc2 = clm_stream_close(st, collect, &c->got, &total);
    if (rc != CLM_OK || rc2 != CLM_OK)
        return T_FAIL("%s: stream: %d/%d: %s", c->desc, rc, rc2, clm_last_error());
    if (c->got.causality_errors)
        return T_FAIL("%s: stream reported %d matches before their end was written", c->desc,
                      c->got.causality_errors);
    if (diff(&c->got, &c->want, buf, sizeof buf))
        return T_FAIL("%s n=%zu stream pieces<=%zu: %s", c->desc, n, max, buf);
    if (total != c->want.n)
        return T_FAIL("%s: stream total %llu, expected %zu", c->desc, (unsigned long long)total,
                      c->want.n);
    return 1;
}

/* ---- differential tests ------------------------------------------------------------------- */

typedef struct {
    const char *name;
    clm_algorithm algo;
    clm_variant variant;
    int kind;       /* P_PLAIN, P_MIXED, P_DEGEN */
    unsigned flags; /* beside CLM_DNA */
    unsigned k;
} diff_arg;

static void test_diff(const void *arg)
{
    const diff_arg *a = arg;
    static const size_t lens[] = {6, 13, 24};
    unsigned char pbuf[3][32];
    const unsigned char *pats[3];
    size_t plens[3];
    unsigned ids[3] = {7, 3, 7}; /* a shared id: order by strand, then end */
    dcase c;
    t_rng r;
    memset(&c, 0, sizeof c);
    t_matches_init(&c.got);
    t_matches_init(&c.want);
    t_rng_init(&r, a->name, 0);
    for (int i = 0; i < 3; i++) {
        dna_pattern(&r, pbuf[i], lens[i], a->kind);
        pats[i] = pbuf[i];
        plens[i] = lens[i];
    }
    c.d.pats = pats;
    c.d.lens = plens;
    c.d.ids = ids;
    c.d.count = 3;
    c.d.flags = a->flags;
    c.d.k = a->k;
    c.algo = a->algo;
    c.variant = a->variant;
    if (dcase_open(&c)) {
        size_t n = t_quick ? 3000 : 12000;
        unsigned char *text = dna_text(&r, n, &c.d, 12);
        dcase_check(&c, text, n, "random");
        /* small slabs: matches across slab edges */
        static const size_t slabs[] = {37, 100, 1000};
        for (size_t si = 0; si < 3 && !t_failures(); si++) {
            if (t_quick && si == 0) continue;
            char what[64];
            snprintf(what, sizeof what, "slab=%zu", slabs[si]);
            if (dcase_scratch(&c, slabs[si])) dcase_check(&c, text, si == 0 ? 1500 : n, what);
        }
        if (!t_failures() && dcase_scratch(&c, 500)) dcase_stream(&c, &r, text, n, 40);
        /* every short length, the empty text included */
        if (!t_failures() && dcase_scratch(&c, (size_t)1 << 20))
            for (size_t len = 0; len <= 40 && !t_failures(); len++) {
                unsigned char *t2 = dna_text(&r, len, &c.d, 1);
                dcase_check(&c, t2, len, "short");
                free(t2);
            }
        free(text);
    }
    dcase_close(&c);
    t_matches_free(&c.got);
    t_matches_free(&c.want);
}

#define ALGOS(kind, fl, nm)                                                                   \
    {"dna.exact." nm ".naive", CLM_ALGO_NAIVE, 0, kind, fl, 0},                               \
    {"dna.exact." nm ".kmp", CLM_ALGO_KMP, 0, kind, fl, 0},                                   \
    {"dna.exact." nm ".dfa", CLM_ALGO_DFA, 0, kind, fl, 0},                                   \
    {"dna.exact." nm ".bmh", CLM_ALGO_BMH, 0, kind, fl, 0},                                   \
    {"dna.exact." nm ".witness", CLM_ALGO_WITNESS, 0, kind, fl, 0},                           \
    {"dna.exact." nm ".bitap", CLM_ALGO_BITAP, CLM_VARIANT_ITEM, kind, fl, 0},                \
    {"dna.exact." nm ".auto", CLM_ALGO_AUTO, 0, kind, fl, 0}

static const diff_arg diff_args[] = {
    ALGOS(P_PLAIN, 0, "plain"),
    ALGOS(P_MIXED, CLM_CASELESS, "caseless"),
    ALGOS(P_MIXED, CLM_BOTH_STRANDS, "both"),
    ALGOS(P_PLAIN, CLM_BOTH_STRANDS | CLM_CASELESS, "both-caseless"),
    {"dna.degenerate.bitap", CLM_ALGO_BITAP, CLM_VARIANT_ITEM, P_DEGEN, 0, 0},
    {"dna.degenerate.auto", CLM_ALGO_AUTO, 0, P_DEGEN, 0, 0},
    {"dna.degenerate.reduce", CLM_ALGO_BITAP, CLM_VARIANT_REDUCE, P_DEGEN, CLM_BOTH_STRANDS, 0},
    {"dna.degenerate.caseless", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_CASELESS, 0},
    {"dna.degenerate.text", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_DEGENERATE_TEXT, 0},
    {"dna.degenerate.text-plain", CLM_ALGO_AUTO, 0, P_MIXED, CLM_DEGENERATE_TEXT, 0},
    {"dna.degenerate.text-caseless", CLM_ALGO_BITAP, 0, P_DEGEN,
     CLM_DEGENERATE_TEXT | CLM_CASELESS, 0},
    {"dna.degenerate.both", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_BOTH_STRANDS, 0},
    {"dna.degenerate.aho", CLM_ALGO_AHO, 0, P_DEGEN, 0, 0},
    {"dna.degenerate.aho-caseless", CLM_ALGO_AHO, 0, P_DEGEN, CLM_CASELESS, 0},
    {"dna.degenerate.aho-both", CLM_ALGO_AHO, 0, P_DEGEN, CLM_BOTH_STRANDS, 0},
    {"dna.degenerate.aho-both-caseless", CLM_ALGO_AHO, 0, P_DEGEN,
     CLM_BOTH_STRANDS | CLM_CASELESS, 0},
    {"dna.degenerate.both-text", CLM_ALGO_BITAP, 0, P_DEGEN,
     CLM_BOTH_STRANDS | CLM_DEGENERATE_TEXT, 0},
    {"dna.hamming.k1", CLM_ALGO_AUTO, 0, P_PLAIN, CLM_MISMATCHES_ONLY, 1},
    {"dna.hamming.k2-degenerate", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_MISMATCHES_ONLY, 2},
    {"dna.hamming.k3-both", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_MISMATCHES_ONLY | CLM_BOTH_STRANDS, 3},
    {"dna.hamming.k2-text-caseless", CLM_ALGO_BITAP, 0, P_MIXED,
     CLM_MISMATCHES_ONLY | CLM_DEGENERATE_TEXT | CLM_CASELESS | CLM_BOTH_STRANDS, 2},
    {"dna.edit.k1", CLM_ALGO_AUTO, 0, P_PLAIN, 0, 1},
    {"dna.edit.k1-both", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_BOTH_STRANDS, 1},
    {"dna.edit.k2-degenerate", CLM_ALGO_BITAP, 0, P_DEGEN, CLM_CASELESS, 2},
    {"dna.edit.k2-both-text", CLM_ALGO_BITAP, 0, P_MIXED,
     CLM_BOTH_STRANDS | CLM_DEGENERATE_TEXT, 2},
};

/* ---- hand-written cases -------------------------------------------------------------------- */

static int scan_all(clm_database *db, const char *text, t_matches *got, uint64_t *count)
{
    clm_scratch *s = NULL;
    int rc = clm_scratch_alloc(db, NULL, &s);
    t_matches_clear(got);
    if (rc == CLM_OK) rc = clm_scan(db, s, text, strlen(text), collect, got);
    if (rc == CLM_OK && count) rc = clm_count(db, s, text, strlen(text), count);
    clm_scratch_free(s);
    return rc;
}

/* compile1 with the options' packing switch too */
static int compile1_packing(const char *pat, unsigned flags, clm_switch packing,
                            clm_algorithm algo, unsigned k, clm_database **db)
{
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.flags = flags;
    o.packing = packing;
    o.algorithm = algo;
    o.max_errors = k;
    const char *pats[1] = {pat};
    return clm_compile(t_dev, pats, NULL, NULL, 1, &o, db);
}

static int compile1(const char *pat, unsigned flags, clm_algorithm algo, unsigned k,
                    clm_database **db)
{
    return compile1_packing(pat, flags, CLM_AUTO, algo, k, db);
}

/* Both strands in one bitap pass with patterns of 65..256 bases: the two strands' masks
 * side by side span up to 8 words (a 4-word limit once overflowed the host's table). */
static void test_long_both(const void *arg)
{
    static const size_t lens[] = {65, 129, 200, 256};
    t_rng r;
    t_matches got;
    (void)arg;
    t_rng_init(&r, "dna.long_both", 0);
    t_matches_init(&got);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t m = lens[li], n = 3 * m + 20;
        char *pat = malloc(m + 1), *text = malloc(n + 1);
        clm_database *db = NULL;
        uint64_t count = 0;
        if (!pat || !text) {
            free(pat);
            free(text);
            T_FAIL("out of memory");
            return;
        }
        for (size_t i = 0; i < m; i++)
            pat[i] = "ACGT"[t_below(&r, 4)];
        pat[m] = '\0';
        memset(text, 'N', n);
        text[n] = '\0';
        memcpy(text + 5, pat, m); /* forward at 5 */
        ref_revcomp((const unsigned char *)pat, m, (unsigned char *)text + 2 * m + 10); /* reverse at 2m + 10 */
        if (EXPECT_RC(compile1(pat, CLM_DNA | CLM_BOTH_STRANDS, CLM_ALGO_BITAP, 0, &db),
                      CLM_OK) &&
            EXPECT_RC(scan_all(db, text, &got, &count), CLM_OK)) {
            if (!(EXPECT(got.n == 2 && count == 2) && EXPECT(got.v[0].start == 5) &&
                  EXPECT(got.v[0].strand == 1) && EXPECT(got.v[1].start == 2 * m + 10) &&
                  EXPECT(got.v[1].strand == -1)))
                t_note("m=%zu: %zu matches", m, got.n);
        }
        clm_database_free(db);
        free(pat);
        free(text);
    }
    t_matches_free(&got);
}

/* GAATTC is its own reverse complement: two matches per site, +1 then -1; ACGR on the
 * reverse strand is YCGT. Every algorithm for the palindrome. */
static void test_strands(const void *arg)
{
    static const clm_algorithm algos[] = {CLM_ALGO_NAIVE, CLM_ALGO_KMP, CLM_ALGO_DFA,
                                          CLM_ALGO_BMH, CLM_ALGO_WITNESS, CLM_ALGO_BITAP,
                                          CLM_ALGO_AUTO};
    t_matches got;
    uint64_t count = 0;
    clm_database *db = NULL;
    (void)arg;
    t_matches_init(&got);
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        if (!EXPECT_RC(compile1("GAATTC", CLM_DNA | CLM_BOTH_STRANDS, algos[i], 0, &db), CLM_OK))
            continue;
        if (EXPECT_RC(scan_all(db, "ttGAATTCxGAATTCGAATTC", &got, &count), CLM_OK) &&
            EXPECT(got.n == 6) && EXPECT(count == 6)) {
            static const uint64_t starts[3] = {2, 9, 15};
            for (size_t j = 0; j < 6; j++)
                if (!EXPECT(got.v[j].start == starts[j / 2] && got.v[j].end == starts[j / 2] + 6 &&
                            got.v[j].strand == (j % 2 ? -1 : 1) && got.v[j].id == 0))
                    t_note("algorithm %s match %zu: %llu %+d", clm_algorithm_name(algos[i]), j,
                           (unsigned long long)got.v[j].start, got.v[j].strand);
        }
        clm_database_free(db);
        db = NULL;
    }
    /* ACGR: forward ACGA/ACGG, reverse complement YCGT: CCGT, TCGT */
    if (EXPECT_RC(compile1("ACGR", CLM_DNA | CLM_BOTH_STRANDS, CLM_ALGO_AUTO, 0, &db), CLM_OK)) {
        if (EXPECT_RC(scan_all(db, "ACGA.CCGT.TCGT.ACGT.ACGG.ACGN", &got, &count), CLM_OK) &&
            EXPECT(got.n == 4) && EXPECT(count == 4)) {
            EXPECT(got.v[0].start == 0 && got.v[0].strand == 1);
            EXPECT(got.v[1].start == 5 && got.v[1].strand == -1);
            EXPECT(got.v[2].start == 10 && got.v[2].strand == -1);
            EXPECT(got.v[3].start == 20 && got.v[3].strand == 1);
        }
        clm_database_free(db);
        db = NULL;
    }
    /* lowercase codes keep their case on the reverse strand: acgr -> ycgt */
    if (EXPECT_RC(compile1("acgr", CLM_DNA | CLM_BOTH_STRANDS, CLM_ALGO_AUTO, 0, &db), CLM_OK)) {
        if (EXPECT_RC(scan_all(db, "CCGT.ccgt.acgg.ACGG", &got, &count), CLM_OK) &&
            EXPECT(got.n == 2)) {
            EXPECT(got.v[0].start == 5 && got.v[0].strand == -1);
            EXPECT(got.v[1].start == 10 && got.v[1].strand == 1);
        }
        clm_database_free(db);
        db = NULL;
    }
    /* text N: no match unless CLM_DEGENERATE_TEXT; then N matches every base and R matches
     * R's pattern codes */
    if (EXPECT_RC(compile1("ACR", CLM_DNA, CLM_ALGO_AUTO, 0, &db), CLM_OK)) {
        if (EXPECT_RC(scan_all(db, "ANG.ACN.ACR.ACG", &got, NULL), CLM_OK) && EXPECT(got.n == 1))
            EXPECT(got.v[0].start == 12);
        clm_database_free(db);
        db = NULL;
    }
    if (EXPECT_RC(compile1("ACR", CLM_DNA | CLM_DEGENERATE_TEXT, CLM_ALGO_AUTO, 0, &db), CLM_OK)) {
        if (EXPECT_RC(scan_all(db, "ANG.ACN.ACR.ACG.ACY.ACC.acg", &got, NULL), CLM_OK) &&
            EXPECT(got.n == 4)) /* not ACY (Y and R share no base), ACC, acg */
            EXPECT(got.v[0].start == 0 && got.v[1].start == 4 && got.v[2].start == 8 &&
                   got.v[3].start == 12);
        clm_database_free(db);
        db = NULL;
    }
    /* U in a pattern is T; a text U is a code, matched only as degenerate text */
    if (EXPECT_RC(compile1("GUA", CLM_DNA, CLM_ALGO_DFA, 0, &db), CLM_OK)) {
        if (EXPECT_RC(scan_all(db, "GTA.GUA.gta", &got, NULL), CLM_OK) && EXPECT(got.n == 1))
            EXPECT(got.v[0].start == 0);
        clm_database_free(db);
        db = NULL;
    }
    t_matches_free(&got);
}

/* Every path sets strand +1 without CLM_BOTH_STRANDS, DNA or not: exact (start and end
 * reporting), Hamming, edit distance (host best starts), streams. */
static void test_strand_plus(const void *arg)
{
    static const struct {
        unsigned flags, k;
        clm_algorithm algo;
    } cases[] = {{0, 0, CLM_ALGO_DFA},          {0, 0, CLM_ALGO_BITAP},
                 {CLM_MISMATCHES_ONLY, 1, 0},   {0, 1, 0},
                 {CLM_DNA, 0, CLM_ALGO_KMP},     {CLM_DNA, 2, 0},
                 {CLM_DNA | CLM_MISMATCHES_ONLY, 1, 0}};
    const char *text = "xxACGTTGCAxxACGATGCAxxACGTTGCAACGTTGCA";
    t_matches got;
    (void)arg;
    t_matches_init(&got);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clm_database *db = NULL;
        clm_scratch *s = NULL;
        clm_stream *st = NULL;
        if (!EXPECT_RC(compile1("ACGTTGCA", cases[i].flags, cases[i].algo, cases[i].k, &db),
                       CLM_OK))
            continue;
        if (EXPECT_RC(scan_all(db, text, &got, NULL), CLM_OK) && EXPECT(got.n >= 3))
            for (size_t j = 0; j < got.n; j++)
                if (!EXPECT(got.v[j].strand == 1)) break;
        t_matches_clear(&got);
        if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK) &&
            EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
            for (size_t j = 0; text[j]; j++) EXPECT_RC(clm_stream_write(st, text + j, 1, collect, &got), CLM_OK);
            EXPECT_RC(clm_stream_close(st, collect, &got, NULL), CLM_OK);
            if (EXPECT(got.n >= 3))
                for (size_t j = 0; j < got.n; j++)
                    if (!EXPECT(got.v[j].strand == 1)) break;
        }
        clm_scratch_free(s);
        clm_database_free(db);
    }
    t_matches_free(&got);
}

/* Bad input: exact status codes, details that name what is wrong. */
static void test_errors(const void *arg)
{
    clm_database *db = NULL;
    static const clm_algorithm literal_only[] = {CLM_ALGO_NAIVE, CLM_ALGO_KMP, CLM_ALGO_DFA,
                                                 CLM_ALGO_BMH, CLM_ALGO_WITNESS};
    static const char *const bad[] = {"ACGX", "AC GT", "ACG-T", "E", "ACGT.", "[AC]", "AC*"};
    static const size_t bad_at[] = {3, 2, 3, 0, 4, 0, 2};
    (void)arg;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        if (!EXPECT_RC(compile1(bad[i], CLM_DNA, CLM_ALGO_AUTO, 0, &db), CLM_E_PATTERN_SYNTAX)) {
            clm_database_free(db);
            db = NULL;
            continue;
        }
        EXPECT(db == NULL);
        snprintf(want, sizeof want, "offset %zu", bad_at[i]);
        if (!EXPECT(strstr(clm_last_error(), want) != NULL))
            t_note("pattern \"%s\": detail \"%s\" lacks \"%s\"", bad[i], clm_last_error(), want);
    }
    {   /* a NUL byte inside the pattern */
        const char *pats[1] = {"AC\0T"};
        size_t len = 4;
        clm_compile_options o;
        clm_compile_options_init(&o, sizeof o);
        o.flags = CLM_DNA;
        EXPECT_RC(clm_compile(t_dev, pats, &len, NULL, 1, &o, &db), CLM_E_PATTERN_SYNTAX);
        EXPECT(strstr(clm_last_error(), "offset 2") != NULL);
    }
    EXPECT_RC(compile1("ACGT", CLM_DNA | CLM_CLASSES, CLM_ALGO_AUTO, 0, &db), CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "CLM_CLASSES") != NULL);
    EXPECT_RC(compile1("ACGT", CLM_DEGENERATE_TEXT, CLM_ALGO_AUTO, 0, &db), CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "CLM_DNA") != NULL);
    EXPECT_RC(compile1("ACGT", CLM_BOTH_STRANDS, CLM_ALGO_AUTO, 0, &db), CLM_E_INVALID);
    EXPECT(strstr(clm_last_error(), "CLM_DNA") != NULL);
    EXPECT_RC(compile1("ACGT", CLM_BOTH_STRANDS | CLM_CASELESS, CLM_ALGO_DFA, 0, &db),
              CLM_E_INVALID);
    for (size_t i = 0; i < sizeof literal_only / sizeof literal_only[0]; i++) {
        EXPECT_RC(compile1("ACNGT", CLM_DNA, literal_only[i], 0, &db), CLM_E_UNSUPPORTED);
        EXPECT(strstr(clm_last_error(), "bitap") != NULL);
        EXPECT_RC(compile1("ACGT", CLM_DNA | CLM_DEGENERATE_TEXT, literal_only[i], 0, &db),
                  CLM_E_UNSUPPORTED);
        EXPECT(strstr(clm_last_error(), "bitap") != NULL);
        /* plain bases: a literal pattern, every algorithm runs it */
        if (EXPECT_RC(compile1("ACgtU", CLM_DNA | CLM_BOTH_STRANDS, literal_only[i], 0, &db),
                      CLM_OK))
            clm_database_free(db);
        db = NULL;
    }
}

/* Plain bases choose as a literal pattern does; degenerate codes choose bitap; the info says
 * how many patterns the caller gave (not engines). */
static void test_info(const void *arg)
{
    clm_database *db = NULL, *lit = NULL;
    clm_database_info a, b;
    const char *pats[2] = {"ACGTACGGTA", "TTGACA"};
    clm_compile_options o;
    (void)arg;
    clm_compile_options_init(&o, sizeof o);
    o.flags = CLM_DNA | CLM_BOTH_STRANDS;
    if (EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 2, &o, &db), CLM_OK) &&
        EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 2, NULL, &lit), CLM_OK)) {
        /* plain bases choose as the same literal patterns do */
        clm_database_get_info(db, &a, sizeof a);
        clm_database_get_info(lit, &b, sizeof b);
        EXPECT(a.algorithm == b.algorithm);
        EXPECT(a.pattern_count == 2);
        EXPECT(a.flags == (CLM_DNA | CLM_BOTH_STRANDS));
    }
    clm_database_free(db);
    clm_database_free(lit);
    db = NULL;
    /* both strands in one pass: bitap item only (two automata over one read of the text);
     * the other algorithms and the reduce variant search the reverse complement apart */
    {
        static const struct {
            clm_algorithm algo;
            clm_variant variant;
            unsigned flags, k;
            int one_pass;
        } sp[] = {
            {CLM_ALGO_BITAP, CLM_VARIANT_ITEM, CLM_DNA | CLM_BOTH_STRANDS, 0, 1},
            {CLM_ALGO_BITAP, CLM_VARIANT_AUTO, CLM_DNA | CLM_BOTH_STRANDS, 2, 1},
            {CLM_ALGO_AUTO, CLM_VARIANT_AUTO, CLM_DNA | CLM_BOTH_STRANDS | CLM_DEGENERATE_TEXT, 0,
             1},
            {CLM_ALGO_BITAP, CLM_VARIANT_REDUCE, CLM_DNA | CLM_BOTH_STRANDS, 0, 0},
            {CLM_ALGO_DFA, CLM_VARIANT_AUTO, CLM_DNA | CLM_BOTH_STRANDS, 0, 0},
            {CLM_ALGO_KMP, CLM_VARIANT_AUTO, CLM_DNA | CLM_BOTH_STRANDS, 0, 0},
            {CLM_ALGO_BITAP, CLM_VARIANT_ITEM, CLM_DNA, 0, 0},
        };
        for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
            o.algorithm = sp[i].algo;
            o.variant = sp[i].variant;
            o.flags = sp[i].flags;
            o.max_errors = sp[i].k;
            if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 2, &o, &db), CLM_OK)) continue;
            clm_database_get_info(db, &a, sizeof a);
            if (!EXPECT(a.strands_in_one_pass == sp[i].one_pass))
                t_note("case %zu: %s/%s strands_in_one_pass %d", i,
                       clm_algorithm_name(a.algorithm), clm_variant_name(a.variant),
                       a.strands_in_one_pass);
            EXPECT(a.pattern_count == 2);
            clm_database_free(db);
            db = NULL;
        }
    }
    if (EXPECT_RC(compile1("ACGTNNACGT", CLM_DNA, CLM_ALGO_AUTO, 0, &db), CLM_OK)) {
        clm_database_get_info(db, &a, sizeof a);
        EXPECT(a.algorithm == CLM_ALGO_BITAP);
        EXPECT(strstr(a.choice, "bitap") != NULL);
    }
    clm_database_free(db);
}

/* ---- packing ------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    clm_algorithm algo;
    int kind;
    unsigned flags, k, bpi;
} pack_arg;

/* The packed path (dfa, bitap item) and the byte path (packing CLM_OFF) against the
 * reference: every text length 0..200 (ranges ending inside a 4- and a 64-base group),
 * item ranges of 16 and 48 bytes (starting off the 64-base grid, and LEAD bytes before them
 * with edit distance), odd slabs, lowercase and N runs. */
static void test_packed(const void *arg)
{
    const pack_arg *a = arg;
    static const size_t lens[] = {5, 13};
    static const size_t slabs[] = {7, 61, 67, 130};
    unsigned char pbuf[2][16];
    const unsigned char *pats[2];
    size_t plens[2];
    dcase c[2];
    t_rng r;
    t_rng_init(&r, a->name, 0);
    for (int i = 0; i < 2; i++) {
        dna_pattern(&r, pbuf[i], lens[i], a->kind);
        pats[i] = pbuf[i];
        plens[i] = lens[i];
    }
    for (int v = 0; v < 2; v++) {
        memset(&c[v], 0, sizeof c[v]);
        t_matches_init(&c[v].got);
        t_matches_init(&c[v].want);
        c[v].d.pats = pats;
        c[v].d.lens = plens;
        c[v].d.count = 2;
        c[v].d.flags = a->flags;
        c[v].packing = v ? CLM_OFF : CLM_ON;
        c[v].d.k = a->k;
        c[v].algo = a->algo;
        c[v].bpi = a->bpi;
    }
    for (int v = 0; v < 2 && !t_failures(); v++) {
        if (!dcase_open(&c[v])) break;
        /* every device this suite meets is little-endian, the one condition besides the
         * pattern sets and the algorithm */
        if (!EXPECT(c[v].info.packed == !v)) {
            t_note("%s: info.packed %d", c[v].desc, c[v].info.packed);
            break;
        }
        /* --quick (oclgrind runs it): every length to 70, then every 7th */
        for (size_t n = 0; n <= 200 && !t_failures(); n += t_smoke && n >= 70 ? 7 : 1) {
            unsigned char *t = dna_text(&r, n, &c[v].d, n / 40);
            dcase_check(&c[v], t, n, "short");
            free(t);
        }
        size_t n = t_quick ? 700 : 2000;
        unsigned char *t = dna_text(&r, n, &c[v].d, 20);
        for (size_t si = 0; si < 4 && !t_failures(); si++) {
            char what[32];
            snprintf(what, sizeof what, "slab=%zu", slabs[si]);
            if (dcase_scratch(&c[v], slabs[si])) dcase_check(&c[v], t, n, what);
        }
        free(t);
        if (!t_failures() && dcase_scratch(&c[v], (size_t)1 << 20)) {
            n = t_quick ? 50000 : 300000;
            t = dna_text(&r, n, &c[v].d, 200);
            dcase_check(&c[v], t, n, "long");
            free(t);
        }
    }
    for (int v = 0; v < 2; v++) {
        dcase_close(&c[v]);
        t_matches_free(&c[v].got);
        t_matches_free(&c[v].want);
    }
}

static const pack_arg pack_args[] = {
    {"dna.packed.dfa-upper", CLM_ALGO_DFA, P_PLAIN, 0, 0, 0},
    {"dna.packed.dfa-lower-both", CLM_ALGO_DFA, P_LOWER, CLM_BOTH_STRANDS, 0, 16},
    {"dna.packed.dfa-caseless", CLM_ALGO_DFA, P_MIXED, CLM_CASELESS, 0, 48},
    {"dna.packed.bitap-upper-both", CLM_ALGO_BITAP, P_PLAIN, CLM_BOTH_STRANDS, 0, 16},
    {"dna.packed.bitap-lower", CLM_ALGO_BITAP, P_LOWER, 0, 0, 0},
    {"dna.packed.bitap-caseless-hamming", CLM_ALGO_BITAP, P_MIXED,
     CLM_CASELESS | CLM_MISMATCHES_ONLY, 2, 48},
    {"dna.packed.bitap-edit-both", CLM_ALGO_BITAP, P_PLAIN, CLM_BOTH_STRANDS, 2, 16},
    {"dna.packed.bitap-edit-lower", CLM_ALGO_BITAP, P_LOWER, 0, 1, 0},
};

/* Which databases pack: DNA sets of bases of one case (any case with CLM_CASELESS), dfa or
 * bitap item, not packing CLM_OFF. */
static void test_packed_info(const void *arg)
{
    static const struct {
        const char *pat;
        unsigned flags;
        clm_switch packing; /* CLM_AUTO: CLM_ON for CLM_DNA (which can pack?) */
        clm_algorithm algo;
        unsigned k;
        int packed;
    } cases[] = {
        {"ACGTTGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_DFA, 0, 1},
        {"acgtugca", CLM_DNA, CLM_AUTO, CLM_ALGO_DFA, 0, 1},
        {"ACGTugca", CLM_DNA, CLM_AUTO, CLM_ALGO_DFA, 0, 0},           /* both cases, not caseless */
        {"ACGTugca", CLM_DNA | CLM_CASELESS, CLM_AUTO, CLM_ALGO_DFA, 0, 1},
        {"ACGTTGCA", CLM_DNA | CLM_BOTH_STRANDS, CLM_AUTO, CLM_ALGO_BITAP, 0, 1},
        {"ACGTTGCA", CLM_DNA | CLM_MISMATCHES_ONLY, CLM_AUTO, CLM_ALGO_AUTO, 2, 1},
        {"ACGTTGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_AUTO, 1, 1},
        {"ACGTTGCA", CLM_DNA, CLM_OFF, CLM_ALGO_DFA, 0, 0},
        {"ACGTTGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_KMP, 0, 0},
        {"ACGTTGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_NAIVE, 0, 0},
        {"ACGTTGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_BMH, 0, 0},
        {"ACGTTGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_WITNESS, 0, 0},
        {"ACGTNGCA", CLM_DNA, CLM_AUTO, CLM_ALGO_BITAP, 0, 1},         /* N, R: sets of bases */
        {"ACGTRGca", CLM_DNA | CLM_CASELESS, CLM_AUTO, CLM_ALGO_AUTO, 0, 1},
        {"ACGTTGCA", CLM_DNA | CLM_DEGENERATE_TEXT, CLM_AUTO, CLM_ALGO_BITAP, 0, 0},
        {"ACGTTGCA", 0, CLM_AUTO, CLM_ALGO_DFA, 0, 0},
    };
    (void)arg;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clm_database *db = NULL;
        clm_database_info info;
        /* packing is asked for: which ones can */
        clm_switch packing = cases[i].packing != CLM_AUTO ? cases[i].packing
                             : cases[i].flags & CLM_DNA   ? CLM_ON
                                                          : CLM_AUTO;
        if (!EXPECT_RC(compile1_packing(cases[i].pat, cases[i].flags, packing, cases[i].algo,
                                        cases[i].k, &db),
                       CLM_OK))
            continue;
        clm_database_get_info(db, &info, sizeof info);
        if (!EXPECT(info.packed == cases[i].packed))
            t_note("\"%s\" flags %u algorithm %s: packed %d", cases[i].pat, cases[i].flags,
                   clm_algorithm_name(info.algorithm), info.packed);
        clm_database_free(db);
    }
    /* not asked for: bytes (packing measured slower) */
    {
        clm_database *db = NULL;
        clm_database_info info;
        if (EXPECT_RC(compile1("ACGTTGCA", CLM_DNA, CLM_ALGO_DFA, 0, &db), CLM_OK)) {
            clm_database_get_info(db, &info, sizeof info);
            EXPECT(info.packed == 0);
        }
        clm_database_free(db);
    }
    /* the reduce variant reads bytes */
    {
        clm_database *db = NULL;
        clm_database_info info;
        clm_compile_options o;
        const char *pats[1] = {"ACGTTGCA"};
        clm_compile_options_init(&o, sizeof o);
        o.flags = CLM_DNA;
        o.packing = CLM_ON;
        o.algorithm = CLM_ALGO_BITAP;
        o.variant = CLM_VARIANT_REDUCE;
        if (EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 1, &o, &db), CLM_OK)) {
            clm_database_get_info(db, &info, sizeof info);
            EXPECT(info.packed == 0);
        }
        clm_database_free(db);
    }
    {
        static const char *const env[] = {"CLMATCH_PACKED=off", NULL};
        EXPECT(t_run_child("dna_packed_off", NULL, env) == 0);
    }
}

/* CLMATCH_PACKED=off: the byte path, same matches. */
static int child_packed_off(const char *arg)
{
    clm_database *db = NULL;
    clm_database_info info;
    t_matches got;
    (void)arg;
    if (!EXPECT_RC(clm_device_open(-1, -1, &t_dev), CLM_OK)) return 1;
    t_matches_init(&got);
    if (EXPECT_RC(compile1_packing("GAATTC", CLM_DNA | CLM_BOTH_STRANDS, CLM_ON, CLM_ALGO_DFA,
                                   0, &db),
                  CLM_OK)) {
        clm_database_get_info(db, &info, sizeof info);
        EXPECT(info.packed == 0);
        if (EXPECT_RC(scan_all(db, "xGAATTCgaattcGAATTC", &got, NULL), CLM_OK))
            EXPECT(got.n == 4 && got.v[0].start == 1 && got.v[3].start == 13);
    }
    clm_database_free(db);
    clm_device_close(t_dev);
    t_dev = NULL;
    t_matches_free(&got);
    return t_failures() ? 1 : 0;
}

void register_dna_tests(void)
{
    t_register("dna.errors", test_errors, NULL, 1);
    t_register("dna.info", test_info, NULL, 1);
    t_register("dna.strands", test_strands, NULL, 1);
    t_register("dna.long_both", test_long_both, NULL, 1);
    t_register("dna.strand_plus", test_strand_plus, NULL, 1);
    t_register("dna.packed.info", test_packed_info, NULL, 1);
    t_register_child("dna_packed_off", child_packed_off);
    for (size_t i = 0; i < sizeof pack_args / sizeof pack_args[0]; i++)
        t_register(pack_args[i].name, test_packed, &pack_args[i],
                   i == 0 || i == 3); /* quick: one dfa and one bitap case (oclgrind) */
    for (size_t i = 0; i < sizeof diff_args / sizeof diff_args[0]; i++)
        t_register(diff_args[i].name, test_diff, &diff_args[i],
                   diff_args[i].algo == CLM_ALGO_BITAP || diff_args[i].algo == CLM_ALGO_AUTO);
}
