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

int clm_hamming_fits(const struct clm_symbols *sym, unsigned count)
{
    unsigned char nib[256];
    return hamming_classes(sym, count, nib) <= MAX_CLASSES;
}

int clm_hamming_facts(const struct clm_symbols *sym, unsigned count, unsigned strands,
                      int caseless, struct clm_pattern_facts *f, void **built)
{
    (void)strands, (void)caseless, (void)built;
    unsigned char nib[256];
    unsigned classes = hamming_classes(sym, count, nib);
    if (classes > MAX_CLASSES)
        return clm_fail(CLM_E_UNSUPPORTED,
                        "hamming compares symbols of at most %u byte classes (DNA bases, with "
                        "IUPAC codes in the patterns); these patterns have more (mixed case, "
                        "CLM_DEGENERATE_TEXT or other bytes); bitap can (CLM_ALGO_BITAP, -a "
                        "bitap)", MAX_CLASSES);
    f->classes = classes;
    f->count = count;
    return CLM_OK;
}

/* uints of a pattern's record: its length, then its nibbles */
static size_t record_words(size_t m)
{
    return 1 + (m + 7) / 8;
}

void clm_hamming_shape(struct clm_kernel_shape *s, const clm_device *dev,
                       const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)chunk, (void)given;
    s->pat_len = 256;
    s->tab_elem = 4;
    /* the group's pattern count is in the table: sets of similar size share a kernel build */
    size_t words = CLM_HAMMING_HEADER + (size_t)f->count * record_words(f->m);
    s->tab_len = (unsigned)clm_round_up(words, 256);
}

int clm_hamming_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                       unsigned count, int caseless, unsigned char *bytes, void *tab_out,
                       void *built)
{
    (void)caseless, (void)built; /* the sets are folded already */
    uint32_t *tab = tab_out;
    const size_t stride = record_words(s->m);
    if (hamming_classes(sym, count, bytes) > MAX_CLASSES)
        return clm_fail(CLM_E_INVALID, "hamming: tables asked for patterns it refused");
    tab[CLM_HAMMING_COUNT] = count;
    tab[CLM_HAMMING_STRIDE] = (uint32_t)stride;
    for (unsigned j = 0; j < count; j++) {
        uint32_t *rec = tab + CLM_HAMMING_HEADER + j * stride;
        rec[0] = (uint32_t)sym[j].m;
        for (size_t i = 0; i < sym[j].m; i++) {
            uint32_t nibble = 0;
            for (unsigned b = 0; b < 256; b++)
                if (bytes[b] && set_has(sym[j].sets[i], b))
                    nibble |= bytes[b];
            rec[1 + i / 8] |= nibble << (4 * (i % 8));
        }
    }
    return CLM_OK;
}

/* The window's first bytes, then per start a byte and, per pattern, its words and the pass
 * that leaves their loop. */
size_t clm_hamming_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                               unsigned lanes)
{
    (void)bytes, (void)lanes;
    size_t words = (s->m + 7) / 8, patterns = s->tab_len / record_words(s->m);
    return 8 * words + chunk * (1 + patterns * (words + 2));
}
