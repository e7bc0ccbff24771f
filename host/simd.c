/* SIMD-friendly exact search (W. Mula, "SIMD-friendly algorithms for substring searching"):
 * the hooks of its descriptor (host/algo.c). cl/simd.cl compares 64 starts a step with a few
 * of the pattern's bytes; here the host picks those bytes and the range per work-item. */
#include <string.h>

#include "algo.h"

/* Bytes compared per start before a candidate is verified (cl/simd.cl SIMD_K, TAB_LEN - 1). */
#define SIMD_POSITIONS 8u

/* Bytes per work-item on CPUs: a long range amortises PoCL's work-item loop and keeps the
 * M - 1 bytes re-read past it small; 32 KiB stays within L1/L2 per core. */
#define SIMD_CPU_CHUNK 32768u

/* How common a byte is in ordinary text (higher: more common), the order of English letter
 * frequency after the space, then capitals, digits and punctuation; other bytes count as
 * rare. The kernel tests its rarest bytes first, so few starts survive to verification. */
static unsigned byte_rank(unsigned char c)
{
    static const char common[] = " etaoinsrhldcumfpgwybvkxjqz\nETAOINSRHLDCUMFPGWYBVKXJQZ"
                                 "0123456789.,-'\"_/:;()=\t";
    const char *at = c ? memchr(common, c, sizeof common - 1) : NULL;
    return at ? (unsigned)(sizeof common - (size_t)(at - common)) : 0;
}

/* Is position p a better choice than q: a rarer byte, else a byte not chosen yet. */
static int better(const unsigned char *pat, size_t p, size_t q, const unsigned char *taken)
{
    unsigned rp = byte_rank(pat[p]), rq = byte_rank(pat[q]);
    if (rp != rq)
        return rp < rq;
    return !taken[pat[p]] && taken[pat[q]];
}

/* The positions the kernel compares, min(m, SIMD_POSITIONS) of them: the first and last
 * (independent even in periodic text), then the rarest of the rest. The two rarest, of two
 * byte values where the pattern has them, go first: the kernel compares those at every step
 * and the others only where these left a candidate. */
static void simd_positions(const unsigned char *pat, size_t m, uint16_t *pos)
{
    unsigned char chosen[CLM_SIMD_MAX_LENGTH] = {0}, taken[256] = {0};
    size_t k = m < SIMD_POSITIONS ? m : SIMD_POSITIONS, n = 0;
    pos[n++] = 0;
    chosen[0] = 1;
    taken[pat[0]] = 1;
    if (m > 1) {
        pos[n++] = (uint16_t)(m - 1);
        chosen[m - 1] = 1;
        taken[pat[m - 1]] = 1;
    }
    while (n < k) {
        size_t best = m;
        for (size_t p = 1; p + 1 < m; p++)
            if (!chosen[p] && (best == m || better(pat, p, best, taken)))
                best = p;
        pos[n++] = (uint16_t)best;
        chosen[best] = 1;
        taken[pat[best]] = 1;
    }
    /* the rarest to the front, then the rarest of another byte value after it */
    memset(taken, 0, sizeof taken);
    for (size_t f = 0; f < 2 && f < n; f++) {
        size_t best = f;
        for (size_t i = f + 1; i < n; i++)
            if (better(pat, pos[i], pos[best], taken))
                best = i;
        uint16_t t = pos[f];
        pos[f] = pos[best];
        pos[best] = t;
        taken[pat[pos[f]]] = 1;
    }
}

void clm_simd_shape(struct clm_kernel_shape *s, const clm_device *dev,
                    const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    unsigned k = s->m < SIMD_POSITIONS ? s->m : SIMD_POSITIONS;
    s->pat_len = s->m;
    s->tab_len = k + 1; /* the positions, then the pattern's period */
    /* A pattern of at most 4 distinct bytes (DNA) suggests text of a few letters, where the
     * two rarest positions leave a candidate in nearly every step: there one stage of all
     * positions measured 1.3-1.8x two stages (2-core PoCL, genome, m = 8-32); in random
     * letters two stages 3.4x one. */
    s->simd_fast = f->classes && f->classes <= 5 ? k /* 4 bytes and "other" */
                   : k < 2                      ? k
                                                : 2;
    /* GPUs keep the tuned chunk (many lanes want many short ranges); CPUs a long one */
    if (!given && dev->info.type == CLM_DEVICE_CPU) {
        size_t own = (size_t)clm_tune_own(dev, CLM_ALGO_SIMD, CLM_KNOB_CHUNK);
        *chunk = own ? own : SIMD_CPU_CHUNK;
    }
}

int clm_simd_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                    unsigned count, int caseless, unsigned char *bytes, void *tab, void *built)
{
    (void)count, (void)caseless, (void)built; /* bytes come folded when caseless */
    uint16_t pos[SIMD_POSITIONS + 1];
    memcpy(bytes, sym->bytes, sym->m);
    simd_positions(sym->bytes, sym->m, pos);
    /* the period lets a match vouch for the next one's first m - period bytes */
    pos[s->tab_len - 1] = (uint16_t)clm_period(sym->bytes, sym->m, NULL, 0);
    memcpy(tab, pos, (size_t)s->tab_len * sizeof *pos);
    return CLM_OK;
}

/* Per 64 starts a pass; at worst every start verified in full (m + 1 passes each), and the
 * tail's up to 63 starts alike. */
size_t clm_simd_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                            unsigned lanes)
{
    (void)bytes, (void)lanes;
    return chunk / 64 + (chunk + 64) * ((size_t)s->m + 1) + 2;
}
