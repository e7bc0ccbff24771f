/* Pattern tables built on the host: case folding, KMP fail table, reduced alphabet, DFA. */
#include <string.h>

#include "internal.h"

unsigned char clm_fold(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

void clm_kmp_fail(const unsigned char *pat, size_t m, uint16_t *fail)
{
    fail[0] = 0;
    if (m == 0)
        return;
    fail[1] = 0;
    size_t k = 0; /* length of the current border */
    for (size_t j = 1; j < m; j++) {
        while (k > 0 && pat[j] != pat[k])
            k = fail[k];
        if (pat[j] == pat[k])
            k++;
        fail[j + 1] = (uint16_t)k;
    }
}

unsigned clm_class_map(const unsigned char *pat, size_t m, int caseless, unsigned char cls[256])
{
    unsigned short id[256] = {0}; /* 1..d while counting: d may reach 256 */
    unsigned d = 0;
    for (size_t i = 0; i < m; i++) {
        unsigned char c = caseless ? clm_fold(pat[i]) : pat[i];
        if (id[c] == 0) {
            id[c] = (unsigned short)++d;
            if (caseless && c >= 'a' && c <= 'z')
                id[c - 'a' + 'A'] = (unsigned short)d; /* both cases, one class */
        }
    }
    /* class 0 is "not in the pattern", unless every byte value is in it */
    unsigned shift = d == 256 ? 1 : 0;
    for (int b = 0; b < 256; b++)
        cls[b] = (unsigned char)(id[b] - shift);
    return d == 256 ? 256 : d + 1;
}

void clm_dfa_table(const unsigned char *pat, size_t m, const unsigned char cls[256],
                   unsigned sigma, uint16_t *table)
{
    /* Knuth-Morris-Pratt automaton: from state q (q bytes matched) on class c. X is the state
     * the automaton would be in after reading pat[1, q), i.e. the restart state. */
    memset(table, 0, (m + 1) * sigma * sizeof *table);
    table[cls[pat[0]]] = 1;
    size_t x = 0;
    for (size_t q = 1; q <= m; q++) {
        memcpy(table + q * sigma, table + x * sigma, sigma * sizeof *table);
        if (q < m) {
            unsigned c = cls[pat[q]];
            table[q * sigma + c] = (uint16_t)(q + 1);
            x = table[x * sigma + c];
        }
    }
}
