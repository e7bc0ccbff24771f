/*
 * libFuzzer target: the class-syntax parser (clm_parse_symbols with CLM_CLASSES), caseless
 * off and on. The input is the pattern. Besides the sanitizers it checks:
 *  - the library and the tests' reference parser (tests/t_ref.c, written from the header's
 *    text alone) accept the same patterns and read the same symbol sets;
 *  - a rejection is CLM_E_PATTERN_SYNTAX with a detail naming a byte offset inside the
 *    pattern;
 *  - the literal flag and bytes agree with the sets;
 *  - without CLM_CLASSES every byte is its own symbol.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "t_ref.h"

/* t_ref.c's matchers, which this target never calls, append to the test runner's match
 * lists: stand-ins so that t_parse_pattern links without the runner. */
void t_matches_clear(t_matches *m)
{
    (void)m;
    abort();
}

void t_matches_push_e(t_matches *m, uint64_t start, uint64_t end, unsigned id, unsigned edits)
{
    (void)m, (void)start, (void)end, (void)id, (void)edits;
    abort();
}

/* The checks below loop over 256 byte values per symbol: left out of the coverage
 * instrumentation, whose comparison hooks would otherwise take most of the time. */
#define CHECK_CODE __attribute__((no_sanitize("coverage")))

CHECK_CODE static int has(const uint8_t set[32], unsigned b)
{
    return (set[b >> 3] >> (b & 7)) & 1;
}

/* The detail ends "at byte offset N" with N < len (the quoted pattern may hold those words
 * too: the last ones count). */
CHECK_CODE static void check_detail(size_t len)
{
    const char *p = clm_last_error(), *at = NULL;
    while ((p = strstr(p, " at byte offset ")) != NULL)
        at = p++;
    if (!at || strtoull(at + 16, NULL, 10) >= len)
        abort();
}

/* literal and bytes[j] as clm_symbols defines them, from the sets. */
CHECK_CODE static void check_literal(const struct clm_symbols *s, int caseless)
{
    int literal = 1;
    for (size_t j = 0; j < s->m; j++) {
        unsigned count = 0, first = 256;
        for (unsigned b = 0; b < 256; b++)
            if (has(s->sets[j], b)) {
                count++;
                if (first == 256)
                    first = b;
            }
        int pair = caseless && count == 2 && first >= 'A' && first <= 'Z' &&
                   has(s->sets[j], first + 32);
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

static void parse_classes(const uint8_t *data, size_t size, int caseless)
{
    struct clm_symbols s;
    t_cset *want = NULL;
    int rc = clm_parse_symbols(data, size, 1, caseless, 0, &s);
    long m = t_parse_pattern(data, size, 1, caseless, &want, NULL, NULL);
    if ((rc == CLM_OK) != (m >= 0))
        abort(); /* one parser accepts what the other rejects */
    if (rc == CLM_OK) {
        if (s.m != (size_t)m || s.m > size)
            abort();
        for (size_t j = 0; j < s.m; j++)
            if (memcmp(s.sets[j], want[j].b, 32) != 0)
                abort();
        check_literal(&s, caseless);
    } else {
        if (rc != CLM_E_PATTERN_SYNTAX)
            abort();
        check_detail(size);
    }
    free(want);
    clm_symbols_free(&s);
}

static void parse_literal(const uint8_t *data, size_t size, int caseless)
{
    struct clm_symbols s;
    if (clm_parse_symbols(data, size, 0, caseless, 0, &s) != CLM_OK || s.m != size)
        abort();
    for (size_t j = 0; j < size; j++)
        if (!has(s.sets[j], data[j]))
            abort();
    check_literal(&s, caseless);
    clm_symbols_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse_classes(data, size, 0);
    parse_classes(data, size, 1);
    if (size <= 64) /* simple code: short inputs show it all, long ones only cost time */
        parse_literal(data, size, size % 2);
    return 0;
}
