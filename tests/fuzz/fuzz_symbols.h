/*
 * Checks shared by the fuzz targets of the pattern parsers (fuzz_classes.c, fuzz_iupac.c):
 * what struct clm_symbols promises, and the byte offset a syntax error names.
 */
#ifndef CLMATCH_FUZZ_SYMBOLS_H
#define CLMATCH_FUZZ_SYMBOLS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The checks loop over 256 byte values per symbol: left out of the coverage
 * instrumentation, whose comparison hooks would otherwise take most of the time. */
#define CHECK_CODE __attribute__((no_sanitize("coverage")))

CHECK_CODE static inline int fz_has(const uint8_t set[32], unsigned b)
{
    return (set[b >> 3] >> (b & 7)) & 1;
}

/* literal and bytes[j] as struct clm_symbols defines them, from the sets. */
CHECK_CODE static inline void fz_check_literal(const struct clm_symbols *s, int caseless)
{
    int literal = 1;
    for (size_t j = 0; j < s->m; j++) {
        unsigned count = 0, first = 256;
        for (unsigned b = 0; b < 256; b++)
            if (fz_has(s->sets[j], b)) {
                count++;
                if (first == 256)
                    first = b;
            }
        int pair = caseless && count == 2 && first >= 'A' && first <= 'Z' &&
                   fz_has(s->sets[j], first + 32);
        if (count == 1 || pair) {
            if (s->bytes[j] != (caseless ? clm_fold((unsigned char)first) : first))
                abort();
        } else {
            literal = 0;
        }
    }
    if (s->literal != literal)
        abort();
}

/* The offset N of the detail's closing "at byte offset N" (the quoted pattern may hold
 * those words too: the last ones count); SIZE_MAX when there is none. */
CHECK_CODE static inline size_t fz_detail_offset(void)
{
    const char *p = clm_last_error(), *at = NULL;
    while ((p = strstr(p, " at byte offset ")) != NULL)
        at = p++;
    return at ? (size_t)strtoull(at + 16, NULL, 10) : SIZE_MAX;
}

#endif
