/* Many literal patterns by sampled q-grams (issue 18's filter and verify): the table of
 * cl/kmer.cl (contract.h CLM_KMER_*) and the hooks of its descriptor (host/algo.c).
 *
 * With s + q - 1 the shortest pattern, an occurrence starting at t holds the q-gram starting
 * at the one multiple of s in [t, t + s), at offset o < s of the pattern. So the table lists
 * each pattern's q-grams at offsets 0 .. s - 1 (s entries a pattern), the kernel tests one
 * q-gram every s bytes, and each occurrence is found at exactly one sample. */
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "contract.h"

#define Q_MAX 16u         /* a q-gram's 2-bit codes fill a uint */
#define STEP_MIN 5u       /* a step of 5 with q = 16 beat 9 with q = 12 for DNA 20-mers on the
                             H200 (bench/experiments/kmer.md): a longer q hits less often */
#define FILTER_LOAD 32u   /* filter bits per entry: two hashes then let ~0.4 % through */
#define FILTER_MIN 12u    /* 512 bytes */
#define FILTER_MAX 28u    /* 32 MiB */
#define FILTER_LOCAL 18u  /* 32 KiB, which most GPUs' local memory holds: taken while it gives
                             at least 8 bits per entry (~2 % through) */
#define AUTO_MIN_LENGTH 16u /* auto's shortest pattern: q = 12 and a step of 5 */

struct kmer {
    unsigned q, s, bits, bucket_bits;
    size_t entries, filter_words, bucket_at, entry_at, info_at, bytes_at, words;
    size_t verify_passes;
    uint32_t *code; /* entry j * s + o: pattern j's q-gram at offset o */
};

static uint32_t qgram_code(const unsigned char *p, unsigned q)
{
    uint32_t code = 0;
    for (unsigned i = 0; i < q; i++)
        code |= (uint32_t)((p[i] >> 1) & 3u) << (2 * i);
    return code;
}

static unsigned log2_up(size_t x)
{
    unsigned b = 0;
    while (((size_t)1 << b) < x)
        b++;
    return b;
}

static uint32_t bucket_of(uint32_t code, unsigned bucket_bits)
{
    return (uint32_t)(code * CLM_KMER_MUL1) >> (32 - bucket_bits);
}

/* q from the shortest pattern: 16, or shorter to keep a step of STEP_MIN (not below 8);
 * CLMATCH_KMER_Q for experiments. */
static unsigned choose_q(size_t shortest)
{
    unsigned q = Q_MAX;
    if (shortest < Q_MAX + STEP_MIN - 1)
        q = shortest >= 8 + STEP_MIN - 1 ? (unsigned)shortest - (STEP_MIN - 1) : 8;
    const char *v = clm_env(CLM_ENV_KMER_Q);
    if (v && *v) {
        char *end;
        unsigned long x = strtoul(v, &end, 10);
        if (!*end && x >= 4 && x <= Q_MAX)
            q = (unsigned)x;
    }
    return shortest < q ? (unsigned)shortest : q;
}

int clm_kmer_facts(const struct clm_symbols *sym, unsigned count, unsigned strands, int caseless,
                   struct clm_pattern_facts *f, void **built)
{
    (void)strands, (void)caseless; /* reverse complements are patterns of the group; codes
                                      ignore case */
    size_t shortest = SIZE_MAX, bytes = 0;
    for (unsigned j = 0; j < count; j++) {
        if (!sym[j].literal)
            return clm_fail(CLM_E_UNSUPPORTED, "kmer searches literal patterns only; pattern "
                                               "%u has classes (aho can: --algorithm aho)", j);
        shortest = sym[j].m < shortest ? sym[j].m : shortest;
        bytes += sym[j].m;
    }
    if (!count || !shortest)
        return clm_fail(CLM_E_INVALID, "kmer: no pattern, or an empty one");
    struct kmer *k = calloc(1, sizeof *k);
    if (!k)
        return clm_fail(CLM_E_NOMEM, "out of memory building the k-mer filter");
    k->q = choose_q(shortest);
    k->s = (unsigned)(shortest - k->q + 1 < CLM_KMER_MAX_STEP ? shortest - k->q + 1
                                                               : CLM_KMER_MAX_STEP);
    k->entries = (size_t)count * k->s;
    k->bits = log2_up(k->entries * FILTER_LOAD);
    k->bits = k->bits < FILTER_MIN ? FILTER_MIN : k->bits > FILTER_MAX ? FILTER_MAX : k->bits;
    if (k->bits > FILTER_LOCAL && k->entries * 8 <= ((size_t)1 << FILTER_LOCAL))
        k->bits = FILTER_LOCAL;
    k->bucket_bits = log2_up(k->entries);
    k->bucket_bits = k->bucket_bits < 4 ? 4 : k->bucket_bits > 31 ? 31 : k->bucket_bits;
    k->filter_words = CLM_KMER_HEADER + ((size_t)1 << (k->bits - 5));
    k->bucket_at = k->filter_words;
    k->entry_at = k->bucket_at + ((size_t)1 << k->bucket_bits) + 1;
    k->info_at = k->entry_at + 2 * k->entries;
    k->bytes_at = k->info_at + 2 * (size_t)count;
    k->words = k->bytes_at + (bytes + 3) / 4;
    if (k->words >= UINT32_MAX / 4) {
        free(k);
        return clm_fail(CLM_E_UNSUPPORTED, "the k-mer table of %u patterns needs more than "
                                           "4 GiB; search them in several databases", count);
    }
    /* the most loop passes one sample's verification makes: every entry of its bucket, each
     * compared whole, and the pass that leaves each loop */
    size_t *cost = calloc((size_t)1 << k->bucket_bits, sizeof *cost);
    k->code = malloc(k->entries * sizeof *k->code);
    if (!cost || !k->code) {
        free(cost);
        clm_kmer_release(k);
        return clm_fail(CLM_E_NOMEM, "out of memory building the k-mer filter");
    }
    for (unsigned j = 0; j < count; j++)
        for (unsigned o = 0; o < k->s; o++) {
            uint32_t code = k->code[(size_t)j * k->s + o] = qgram_code(sym[j].bytes + o, k->q);
            size_t *c = &cost[bucket_of(code, k->bucket_bits)];
            *c += sym[j].m + 2;
            k->verify_passes = *c > k->verify_passes ? *c : k->verify_passes;
        }
    free(cost);
    *built = k;
    f->kmer_q = k->q;
    f->kmer_s = k->s;
    f->kmer_bits = k->bits;
    f->filter_words = k->filter_words;
    f->verify_passes = k->verify_passes + 1;
    f->tab_words = k->words;
    return CLM_OK;
}

void clm_kmer_release(void *built)
{
    if (built)
        free(((struct kmer *)built)->code);
    free(built);
}

/* The header and filter in local memory where they fit (the rest of the table stays in
 * global memory, read only to verify). */
void clm_kmer_shape(struct clm_kernel_shape *s, const clm_device *dev,
                    const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)chunk, (void)given;
    s->pat_len = 16; /* unused: the patterns' bytes are in the table */
    s->tab_elem = 4;
    s->tab_len = (unsigned)clm_round_table(f->tab_words);
    s->kmer_q = f->kmer_q;
    s->kmer_s = f->kmer_s;
    s->kmer_bits = f->kmer_bits;
    s->kmer_passes = (unsigned)(f->verify_passes < 0xffffffu ? f->verify_passes : 0xffffffu);
    size_t local = (size_t)dev->info.local_mem_bytes;
    s->kmer_hot = dev->info.local_mem_dedicated && f->filter_words * 4 + 1024 <= local
                      ? (unsigned)f->filter_words
                      : 0;
}

int clm_kmer_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                    unsigned count, int caseless, unsigned char *bytes, void *tab_out,
                    void *built)
{
    (void)s, (void)bytes;
    if (!built)
        return clm_fail(CLM_E_INVALID, "kmer: tables asked for without the facts");
    const struct kmer *k = built;
    uint32_t *tab = tab_out, *filter = tab + CLM_KMER_HEADER, *bucket = tab + k->bucket_at;
    tab[CLM_KMER_SHIFT] = 32 - k->bucket_bits;
    tab[CLM_KMER_BUCKETS] = (uint32_t)k->bucket_at;
    tab[CLM_KMER_ENTRIES] = (uint32_t)k->entry_at;
    tab[CLM_KMER_INFO] = (uint32_t)k->info_at;
    /* entries by bucket: a count per bucket, its prefix sums, then each placed */
    for (unsigned j = 0; j < count; j++)
        for (unsigned o = 0; o < k->s; o++) {
            uint32_t code = k->code[(size_t)j * k->s + o];
            uint32_t h1 = (uint32_t)(code * CLM_KMER_MUL1) >> (32 - k->bits);
            uint32_t h2 = (uint32_t)(code * CLM_KMER_MUL2) >> (32 - k->bits);
            filter[h1 >> 5] |= 1u << (h1 & 31);
            filter[h2 >> 5] |= 1u << (h2 & 31);
            bucket[bucket_of(code, k->bucket_bits) + 1]++;
        }
    const size_t buckets = (size_t)1 << k->bucket_bits;
    for (size_t b = 0; b < buckets; b++)
        bucket[b + 1] += bucket[b];
    uint32_t *fill = malloc(buckets * sizeof *fill);
    if (!fill)
        return clm_fail(CLM_E_NOMEM, "out of memory building the k-mer table");
    memcpy(fill, bucket, buckets * sizeof *fill);
    unsigned char *text = (unsigned char *)(tab + k->bytes_at);
    size_t at = 0;
    for (unsigned j = 0; j < count; j++) {
        for (unsigned o = 0; o < k->s; o++) {
            uint32_t code = k->code[(size_t)j * k->s + o];
            uint32_t *e = tab + k->entry_at + 2 * (size_t)fill[bucket_of(code, k->bucket_bits)]++;
            e[0] = code;
            e[1] = (uint32_t)j << 5 | o;
        }
        tab[k->info_at + 2 * (size_t)j] = (uint32_t)(k->bytes_at * 4 + at);
        tab[k->info_at + 2 * (size_t)j + 1] = (uint32_t)sym[j].m;
        for (size_t i = 0; i < sym[j].m; i++) /* the kernel folds text bytes, not these */
            text[at++] = caseless ? clm_fold(sym[j].bytes[i]) : sym[j].bytes[i];
    }
    free(fill);
    return CLM_OK;
}

/* The walk: a block of 16 bytes a pass, and its samples' loop a pass more than it has
 * samples; the tail's byte-wise q-grams, and per sample its verification at worst (all-match
 * text). */
size_t clm_kmer_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                            unsigned lanes)
{
    (void)lanes;
    size_t samples = (chunk + s->kmer_s - 1) / s->kmer_s + 1;
    size_t verify = s->kmer_passes ? s->kmer_passes : 1;
    return 2 * (bytes / 16 + 4) + samples * (s->kmer_q + 2 + verify);
}

int clm_kmer_suits(const struct clm_symbols *sym, unsigned count, int caseless)
{
    for (unsigned j = 0; j < count; j++) {
        if (!sym[j].literal || sym[j].m < AUTO_MIN_LENGTH)
            return 0;
        for (size_t i = 0; i < sym[j].m; i++) {
            unsigned char c = caseless ? clm_fold(sym[j].bytes[i]) : sym[j].bytes[i];
            if (!strchr(caseless ? "acgt" : "ACGTacgt", c) || !c)
                return 0;
        }
    }
    return count > 0;
}
