/*
 * libFuzzer target: the DNA mode's host search (tools/dna_host.c), which cuts a FASTA file
 * into byte ranges, one a thread. The first input byte picks the threads (1 to 8) and the
 * bytes a thread reads at a time (1 to 32), the second the patterns, strands and case; the
 * rest, after a '>', is the file. Besides the sanitizers it checks that the records (their
 * identifiers and sequence lengths) and every match (pattern, strand, place, text) are those
 * of the FASTA reader (tools/fasta.c) with a plain search of each record's sequence.
 */
#include "fuzz_trace.h"

#include "dna_host.h"
#include "dna_patterns.h"

#include <stdio.h>
#include <unistd.h>

#define MAX_ITEMS 4096

/* A record or a match, as the two sides deliver them. */
typedef struct {
    int kind; /* 'R' a record (a: its sequence length), 'M' a match */
    unsigned pat;
    int strand;
    uint64_t a;
    char text[8];
    char id[32];
} item;

typedef struct {
    item v[MAX_ITEMS];
    size_t n;
    int over;
    char id[32];
} list;

static item *add(list *l)
{
    if (l->n == MAX_ITEMS) {
        l->over = 1;
        return NULL;
    }
    item *it = &l->v[l->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static const char *const pats[] = {"A", "AC", "GAT", "TTAC", "CA", "ACGT", "GG", "UA"};

static const char *cur[2]; /* this input's two patterns */

static int fold(int c) { return c >= 'A' && c <= 'Z' ? c | 0x20 : c; }

/* ---- the host search's side -------------------------------------------------------------- */

static int h_start(void *ctx, const char *id, size_t len)
{
    list *l = ctx;
    snprintf(l->id, sizeof l->id, "%.*s", (int)len, id);
    return 0;
}

static int h_match(void *ctx, unsigned pat, int strand, uint64_t start, uint64_t end,
                   const unsigned char *text)
{
    list *l = ctx;
    item *it = add(l);
    if (!it) return 0;
    if (pat > 1 || end - start != strlen(cur[pat])) abort();
    it->kind = 'M';
    it->pat = pat;
    it->strand = strand;
    it->a = start;
    memcpy(it->text, text, (size_t)(end - start));
    return 0;
}

static int h_count(void *ctx, uint64_t n)
{
    (void)ctx;
    (void)n;
    abort(); /* not asked for */
}

static int h_end(void *ctx, uint64_t seq_len)
{
    list *l = ctx;
    item *it = add(l);
    if (!it) return 0;
    it->kind = 'R';
    it->a = seq_len;
    snprintf(it->id, sizeof it->id, "%s", l->id);
    return 0;
}

/* ---- the reference: the FASTA reader, then a plain search ---------------------------------- */

typedef struct {
    list *l;
    unsigned char *seq;
    size_t len, cap;
    const char *lit[2 * 8];
    unsigned pat[2 * 8];
    int strand[2 * 8];
    unsigned n_lit;
    int caseless;
} ref;

static int r_start(void *ctx, const char *header, size_t len, uint64_t line)
{
    ref *r = ctx;
    (void)line;
    size_t id = fasta_id_length(header, len);
    snprintf(r->l->id, sizeof r->l->id, "%.*s", (int)id, header);
    r->len = 0;
    return 0;
}

static int r_seq(void *ctx, const unsigned char *s, size_t n)
{
    ref *r = ctx;
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < r->len + n) cap *= 2;
        unsigned char *q = realloc(r->seq, cap);
        if (!q) abort();
        r->seq = q;
        r->cap = cap;
    }
    memcpy(r->seq + r->len, s, n);
    r->len += n;
    return 0;
}

static int r_end(void *ctx)
{
    ref *r = ctx;
    for (unsigned k = 0; k < r->n_lit; k++) {
        const char *p = r->lit[k];
        size_t m = strlen(p);
        for (size_t at = 0; at + m <= r->len; at++) {
            size_t j = 0;
            while (j < m && (r->caseless ? fold(r->seq[at + j]) == fold(p[j])
                                         : r->seq[at + j] == (unsigned char)p[j]))
                j++;
            if (j < m) continue;
            item *it = add(r->l);
            if (!it) return 0;
            it->kind = 'M';
            it->pat = r->pat[k];
            it->strand = r->strand[k];
            it->a = at;
            memcpy(it->text, r->seq + at, m);
        }
    }
    item *it = add(r->l);
    if (it) {
        it->kind = 'R';
        it->a = r->len;
        snprintf(it->id, sizeof it->id, "%s", r->l->id);
    }
    return 0;
}

/* Within a record, matches in any order: sort the runs between records. */
static int item_cmp(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->pat != y->pat) return x->pat < y->pat ? -1 : 1;
    if (x->strand != y->strand) return x->strand < y->strand ? -1 : 1;
    return x->a < y->a ? -1 : x->a > y->a;
}

static void sort_runs(list *l)
{
    size_t i = 0;
    while (i < l->n) {
        size_t j = i;
        while (j < l->n && l->v[j].kind == 'M') j++;
        qsort(l->v + i, j - i, sizeof *l->v, item_cmp);
        i = j + 1;
    }
}

static list host_side, ref_side;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    char threads[8];
    snprintf(threads, sizeof threads, "%u", 1u + (data[0] & 7u));
    setenv("CLMATCH_HOST_THREADS", threads, 1);
    const size_t chunk = 1u + (data[0] >> 3);
    const unsigned sel = data[1];
    const char *seqs[2] = {pats[sel & 7], pats[(sel >> 3) & 7]};
    size_t lens[2] = {strlen(seqs[0]), strlen(seqs[1])};
    cur[0] = seqs[0];
    cur[1] = seqs[1];
    const int plus = !(sel & 0x40), minus = (sel & 0xc0) != 0;
    const int caseless = (sel >> 7) & 1;
    dna_host_spec spec = {seqs, lens, 2, plus, minus, caseless, 0, chunk};
    dna_host *h = NULL;
    if (dna_host_open(&spec, &h) != 0) abort();

    static FILE *f; /* one file for every input, rewritten */
    if (!f && !(f = tmpfile())) abort();
    if (ftruncate(fileno(f), 0) != 0 || pwrite(fileno(f), ">", 1, 0) != 1 ||
        pwrite(fileno(f), data + 2, size - 2, 1) != (ssize_t)(size - 2))
        abort();
    const uint64_t fsize = (uint64_t)(size - 1);

    memset(&host_side, 0, sizeof host_side);
    memset(&ref_side, 0, sizeof ref_side);
    static const dna_host_callbacks hcb = {h_start, h_match, h_count, h_end};
    unsigned used;
    int st = dna_host_search(h, fileno(f), fsize, INPUT_NAME, &hcb, &host_side, &used);
    if (st != DNA_HOST_DONE) abort(); /* a file of '>' first, few matches: always taken */

    /* the reference: the whole file through the FASTA reader */
    ref r = {&ref_side, NULL, 0, 0, {0}, {0}, {0}, 0, caseless};
    static char lits[16][8];
    for (unsigned i = 0; i < 2; i++)
        for (int s = 0; s < 2; s++) {
            if (!(s == 0 ? spec.plus : spec.minus)) continue;
            char *lit = lits[r.n_lit];
            for (size_t j = 0; j < lens[i]; j++) {
                char c = seqs[i][s == 0 ? j : lens[i] - 1 - j];
                c = c == 'U' ? 'T' : c;
                lit[j] = (char)(s == 0 ? c : (char)dna_complement((unsigned char)c));
            }
            lit[lens[i]] = '\0';
            r.lit[r.n_lit] = lit;
            r.pat[r.n_lit] = i;
            r.strand[r.n_lit] = s == 0 ? 1 : -1;
            r.n_lit++;
        }
    unsigned char *file = malloc(size);
    if (!file) abort();
    file[0] = '>';
    memcpy(file + 1, data + 2, size - 2);
    fasta_reader fr;
    static const fasta_callbacks rcb = {r_start, r_seq, r_end};
    fasta_init(&fr, FASTA_FORCE, INPUT_NAME);
    if (fasta_feed(&fr, file, size - 1, &rcb, &r) != FASTA_OK ||
        fasta_finish(&fr, &rcb, &r) != FASTA_OK)
        abort();
    fasta_free(&fr);
    free(file);
    free(r.seq);

    if (host_side.over || ref_side.over) goto done; /* too many to compare: not a finding */
    sort_runs(&host_side);
    sort_runs(&ref_side);
    if (host_side.n != ref_side.n) abort();
    for (size_t i = 0; i < host_side.n; i++) {
        const item *x = &host_side.v[i], *y = &ref_side.v[i];
        if (x->kind != y->kind || x->a != y->a || strcmp(x->id, y->id) != 0 ||
            (x->kind == 'M' &&
             (x->pat != y->pat || x->strand != y->strand || strcmp(x->text, y->text) != 0)))
            abort();
    }
done:
    dna_host_close(h);
    return 0;
}
