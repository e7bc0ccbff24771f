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
#include "fuzz_symbols.h"
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
        fz_check_literal(&s, caseless);
    } else {
        if (rc != CLM_E_PATTERN_SYNTAX || fz_detail_offset() >= size)
            abort();
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
        if (!fz_has(s.sets[j], data[j]))
            abort();
    fz_check_literal(&s, caseless);
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
