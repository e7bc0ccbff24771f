/* Many patterns with mismatches in one pass (issue 18): every pattern of a group compared at
 * every start, symbols as one-hot nibbles, and the hooks of its descriptor (host/algo.c). The
 * table's layout is cl/contract.h's CLM_HAMMING_*. */
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "contract.h"

#define MAX_CLASSES 4u /* one bit of a nibble each */

static int set_has(const uint8_t set[32], unsigned b)
{
    return (set[b >> 3] >> (b & 7)) & 1;
}

/* The byte classes of the patterns' symbol sets: bytes in the same sets share a class. Each
 * class in some set gets a nibble bit (nib[b]; 0: in no set). Returns the number of such
 * classes; more than MAX_CLASSES stops the count there (nib is then incomplete). */
static unsigned hamming_classes(const struct clm_symbols *sym, unsigned count,
                                unsigned char nib[256])
{
    /* with at most 4 classes at most 15 distinct sets: more already means too many classes */
    const uint8_t *sets[1u << MAX_CLASSES];
    unsigned n_sets = 0;
    for (unsigned j = 0; j < count; j++)
        for (size_t i = 0; i < sym[j].m; i++) {
            unsigned d = 0;
            while (d < n_sets && memcmp(sets[d], sym[j].sets[i], 32) != 0)
                d++;
            if (d < n_sets)
                continue;
            if (n_sets == (1u << MAX_CLASSES) - 1)
                return MAX_CLASSES + 1;
            sets[n_sets++] = sym[j].sets[i];
        }
    /* a byte's signature: the distinct sets it is in */
    unsigned sig_of_class[MAX_CLASSES], classes = 0;
    for (unsigned b = 0; b < 256; b++) {
        unsigned sig = 0, c = 0;
        for (unsigned d = 0; d < n_sets; d++)
            sig |= (unsigned)set_has(sets[d], b) << d;
        nib[b] = 0;
        if (!sig)
            continue;
        while (c < classes && sig_of_class[c] != sig)
            c++;
        if (c == classes) {
            if (classes == MAX_CLASSES)
                return MAX_CLASSES + 1;
            sig_of_class[classes++] = sig;
        }
        nib[b] = (unsigned char)(1u << c);
    }
    return classes;
}

/* Loop passes of a work-item of a wg-item group over `chunk` starts (all-match text: every
 * start a candidate of every run), for `patterns` in `runs`. Nibble kernel: per run, its walk
 * of the starts with the window's first bytes again each round of the group's queue (a round
 * per CLM_HAMMING_QUEUE starts of the item, and one more), and as many candidates verified,
 * each with its window's words and per pattern its words and the pass that leaves their loop.
 * Planes kernel: per tile of a run (MP_HELD * wg patterns), the compares (below), the walk,
 * each round's window and the held patterns' symbols; and the class map's copy. */
static size_t passes(size_t m, size_t patterns, size_t runs, size_t chunk, size_t wg)
{
    size_t words = (m + 7) / 8, rounds = chunk / CLM_HAMMING_QUEUE + 1;
    if (m <= CLM_HAMMING_PLANES_MAX) {
        /* a tile of tn patterns over u = min(tn, wg) work-items a replica: each takes at most
         * 2 u chunk candidates (and a pass a round) times ceil(tn / u) held patterns */
        size_t held = CLM_HAMMING_HELD_BY(wg), tiles = runs + patterns / (held * wg) + 1;
        return 2 * patterns * (chunk + 1) +
               tiles * (4 * wg * (chunk + 1) + rounds * (2 * held + m + 5) + chunk +
                        held * (m + 1) + 3) +
               256 / wg + 1;
    }
    size_t entries = patterns + runs;
    return entries * (chunk * (2 + words) + rounds * (8 * words + 2) + chunk * (words + 2));
}

int clm_hamming_fits(const clm_device *dev, const struct clm_symbols *sym, unsigned count)
{
    unsigned char nib[256];
    size_t longest = 0;
    for (unsigned j = 0; j < count; j++)
        longest = sym[j].m > longest ? sym[j].m : longest;
    /* a device with a loop budget (llvmpipe) must fit the smallest range, 16 starts, with
     * every pattern in a run of its own (and the tables' copy: 64 passes spare) */
    return hamming_classes(sym, count, nib) <= MAX_CLASSES &&
           (!dev->loop_budget ||
            passes(longest, 2 * (size_t)count, 2 * (size_t)count, 16, 16) + 64 <= dev->loop_budget);
}

/* What the facts hook builds: the class map and the whole table. */
struct hamming {
    unsigned char nib[256];
    uint32_t *tab;
    size_t words;
};

void clm_hamming_release(void *built)
{
    struct hamming *h = built;
    if (h)
        free(h->tab);
    free(h);
}

#define MAX_W (CLM_HAMMING_MAX_LENGTH / 8)

/* A pattern as the table holds it: its nibbles, and the masks and nibbles of its exact ends
 * (its run's key; words past W are 0). */
struct hrec {
    unsigned j;
    uint32_t nib[MAX_W], key[2 * MAX_W];
};

static int hrec_cmp(const void *a, const void *b)
{
    const struct hrec *x = a, *y = b;
    int c = memcmp(x->key, y->key, sizeof x->key);
    return c ? c : (x->j > y->j) - (x->j < y->j);
}

/* The table: runs of patterns with the same exact ends, each run's ends checked once per
 * start (a CRISPR PAM: 15 of 16 starts skip every guide of the run). */
static int hamming_table(const struct clm_symbols *sym, unsigned count,
                         const struct clm_pattern_facts *f, struct hamming *h)
{
    const size_t W = (f->m + 7) / 8, stride = 2 + W;
    struct hrec *r = calloc(count ? count : 1, sizeof *r);
    if (!r)
        return clm_fail(CLM_E_NOMEM, "out of memory building the hamming table");
    for (unsigned j = 0; j < count; j++) {
        size_t m = sym[j].m, head = j < f->rc_from ? f->exact_head : f->exact_tail;
        size_t tail = j < f->rc_from ? f->exact_tail : f->exact_head;
        r[j].j = j;
        for (size_t i = 0; i < m; i++) {
            uint32_t nibble = 0;
            for (unsigned b = 0; b < 256; b++)
                if (h->nib[b] && set_has(sym[j].sets[i], b))
                    nibble |= h->nib[b];
            r[j].nib[i / 8] |= nibble << (4 * (i % 8));
            if (i < head || i >= m - tail) {
                r[j].key[i / 8] |= 1u << (4 * (i % 8));
                r[j].key[MAX_W + i / 8] |= nibble << (4 * (i % 8));
            }
        }
    }
    qsort(r, count, sizeof *r, hrec_cmp);
    size_t runs = 0;
    for (unsigned i = 0; i < count; i++)
        runs += i == 0 || memcmp(r[i].key, r[i - 1].key, sizeof r[i].key) != 0;
    h->words = CLM_HAMMING_HEADER + runs * (1 + 2 * W) + (size_t)count * stride;
    h->tab = calloc(h->words, sizeof *h->tab);
    if (!h->tab) {
        free(r);
        return clm_fail(CLM_E_NOMEM, "out of memory building the hamming table");
    }
    uint32_t *t = h->tab, *run = NULL;
    t[CLM_HAMMING_RUNS] = (uint32_t)runs;
    t[CLM_HAMMING_STRIDE] = (uint32_t)stride;
    size_t at = CLM_HAMMING_HEADER;
    for (unsigned i = 0; i < count; i++) {
        if (i == 0 || memcmp(r[i].key, r[i - 1].key, sizeof r[i].key) != 0) {
            run = t + at;
            memcpy(run + 1, r[i].key, W * sizeof *run);
            memcpy(run + 1 + W, r[i].key + MAX_W, W * sizeof *run);
            at += 1 + 2 * W;
        }
        run[0]++;
        t[at] = r[i].j;
        t[at + 1] = (uint32_t)sym[r[i].j].m;
        memcpy(t + at + 2, r[i].nib, W * sizeof *t);
        at += stride;
    }
    free(r);
    return CLM_OK;
}

int clm_hamming_facts(const struct clm_symbols *sym, unsigned count, unsigned strands,
                      int caseless, struct clm_pattern_facts *f, void **built)
{
    (void)strands, (void)caseless; /* the sets are folded already */
    struct hamming *h = calloc(1, sizeof *h);
    if (!h)
        return clm_fail(CLM_E_NOMEM, "out of memory building the hamming table");
    unsigned classes = hamming_classes(sym, count, h->nib);
    int rc = classes > MAX_CLASSES
                 ? clm_fail(CLM_E_UNSUPPORTED,
                            "hamming compares symbols of at most %u byte classes (DNA bases, "
                            "with IUPAC codes in the patterns); these patterns have more "
                            "(mixed case, CLM_DEGENERATE_TEXT or other bytes); bitap can "
                            "(CLM_ALGO_BITAP, --algorithm bitap)", MAX_CLASSES)
                 : hamming_table(sym, count, f, h);
    if (rc != CLM_OK) {
        clm_hamming_release(h);
        return rc;
    }
    f->classes = classes;
    f->count = count;
    f->runs = h->tab[CLM_HAMMING_RUNS];
    f->tab_words = h->words;
    *built = h;
    return CLM_OK;
}

void clm_hamming_shape(struct clm_kernel_shape *s, const clm_device *dev,
                       const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)chunk, (void)given;
    s->pat_len = 256;
    s->tab_elem = 4;
    /* the counts are in the table: sets of similar size share a kernel build */
    s->tab_len = (unsigned)clm_round_up(f->tab_words, 256);
    s->ham_count = f->count;
    s->ham_runs = f->runs;
}

int clm_hamming_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                       unsigned count, int caseless, unsigned char *bytes, void *tab,
                       void *built)
{
    (void)s, (void)sym, (void)count, (void)caseless;
    const struct hamming *h = built;
    if (!h)
        return clm_fail(CLM_E_INVALID, "hamming: tables asked for without the facts");
    memcpy(bytes, h->nib, 256);
    memcpy(tab, h->tab, h->words * sizeof *h->tab);
    return CLM_OK;
}

/* cl/hamming.cl's GROUP_LOCALS: the queue of starts and its count, and for the planes
 * kernel the queued windows and the class map. */
size_t clm_hamming_group_bytes(const struct clm_kernel_shape *s)
{
    size_t queue = CLM_HAMMING_QUEUE_LEN((size_t)s->wg);
    return queue * 4 + 4 + (s->m <= CLM_HAMMING_PLANES_MAX ? queue * 16 + 256 : 0);
}

size_t clm_hamming_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                               unsigned lanes)
{
    (void)bytes, (void)lanes;
    return passes(s->m, s->ham_count, s->ham_runs, chunk, s->wg);
}
