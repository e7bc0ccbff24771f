/* Approximate contains compiled into the program that cl/records.cl runs for LIKE
 * (cl/contract.h CLM_LIKE_F_APPROX): each pattern's header and its masks, a 64-bit word per
 * byte value for the bit-parallel automaton of clm_like_approx. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

_Static_assert(CLM_APPROX_MAX_ERRORS == CLM_LIKE_APPROX_MAX_K,
               "the kernel's states (CLM_LIKE_APPROX_MAX_K) are the API's errors");
_Static_assert(CLM_APPROX_MAX_PATTERN <= 64, "a pattern's bits fit one ulong");
_Static_assert(CLM_APPROX_MAX_ERRORS < 1u << (32 - CLM_LIKE_K_SHIFT - 1),
               "the errors fit the flags word above CLM_LIKE_K_SHIFT");

/* Whether the arguments describe a predicate; its CLM_E_* detail when not. */
static int check_args(clm_device *dev, const char *const *patterns, const size_t *lengths,
                      const unsigned *flags, unsigned count, unsigned max_errors,
                      clm_approx_mode mode)
{
    if (!dev || !patterns || count == 0)
        return clm_fail(CLM_E_INVALID, "clm_approx_compile: %s",
                        !dev ? "dev is NULL" : !patterns ? "patterns is NULL" : "count is 0");
    if (mode != CLM_APPROX_EDITS && mode != CLM_APPROX_MISMATCHES)
        return clm_fail(CLM_E_INVALID, "clm_approx_compile: mode %d: CLM_APPROX_EDITS or "
                                       "CLM_APPROX_MISMATCHES",
                        (int)mode);
    if (max_errors > CLM_APPROX_MAX_ERRORS)
        return clm_fail(CLM_E_INVALID, "clm_approx_compile: max_errors %u, above "
                                       "CLM_APPROX_MAX_ERRORS (%u)",
                        max_errors, CLM_APPROX_MAX_ERRORS);
    for (unsigned i = 0; i < count; i++) {
        size_t len = lengths ? lengths[i] : patterns[i] ? strlen(patterns[i]) : 0;
        if (!patterns[i] && len)
            return clm_fail(CLM_E_INVALID, "clm_approx_compile: pattern %u is NULL", i);
        if (len == 0)
            return clm_fail(CLM_E_EMPTY_PATTERN, "clm_approx_compile: pattern %u is empty", i);
        if (len > CLM_APPROX_MAX_PATTERN)
            return clm_fail(CLM_E_PATTERN_TOO_LONG, "clm_approx_compile: pattern %u: %zu "
                                                    "bytes, above CLM_APPROX_MAX_PATTERN (%u)",
                            i, len, CLM_APPROX_MAX_PATTERN);
        if (max_errors >= len) /* every row (empty or not) would hold it */
            return clm_fail(CLM_E_INVALID, "clm_approx_compile: pattern %u: max_errors %u "
                                           "must be below its length %zu",
                            i, max_errors, len);
        if (flags && (flags[i] & ~(CLM_LIKE_CASELESS | CLM_LIKE_NOT)))
            return clm_fail(CLM_E_INVALID, "clm_approx_compile: pattern %u: unknown flags "
                                           "0x%x (CLM_LIKE_CASELESS, CLM_LIKE_NOT)",
                            i, flags[i]);
    }
    return CLM_OK;
}

/* Pattern i's header and masks at prog[*at]: bit j of byte c's mask set when pattern byte
 * j is c (either case of a letter when caseless, so that the kernel never folds). */
static void approx_pattern(const unsigned char *src, size_t len, unsigned flags,
                           unsigned max_errors, clm_approx_mode mode, unsigned i,
                           uint32_t *prog, size_t *at)
{
    uint32_t *head = prog + 1 + (size_t)i * CLM_LIKE_HEAD;
    uint64_t mask[256] = {0};
    int caseless = (flags & CLM_LIKE_CASELESS) != 0;
    for (size_t j = 0; j < len; j++) {
        unsigned char c = caseless ? clm_fold(src[j]) : src[j];
        mask[c] |= (uint64_t)1 << j;
        if (caseless && c >= 'a' && c <= 'z')
            mask[c - 'a' + 'A'] |= (uint64_t)1 << j;
    }
    uint32_t *words = prog + *at;
    for (unsigned c = 0; c < 256; c++) {
        words[2 * c] = (uint32_t)mask[c];
        words[2 * c + 1] = (uint32_t)(mask[c] >> 32);
    }
    head[CLM_LIKE_FLAGS] = CLM_LIKE_F_APPROX | (uint32_t)max_errors << CLM_LIKE_K_SHIFT |
                           (mode == CLM_APPROX_MISMATCHES ? CLM_LIKE_F_MISMATCHES : 0u) |
                           (flags & CLM_LIKE_NOT ? CLM_LIKE_F_NOT : 0u) |
                           (caseless ? CLM_LIKE_F_CASELESS : 0u);
    head[CLM_LIKE_SEGS] = (uint32_t)len;
    head[CLM_LIKE_SEG] = (uint32_t)*at;
    /* an occurrence is m - k bytes at least with edits (k deletions), m with mismatches */
    head[CLM_LIKE_MIN] = (uint32_t)(mode == CLM_APPROX_MISMATCHES ? len : len - max_errors);
    *at += CLM_LIKE_APPROX_WORDS;
}

int clm_approx_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                       const unsigned *flags, unsigned count, unsigned max_errors,
                       clm_approx_mode mode, clm_like **out)
{
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_approx_compile: out is NULL");
    *out = NULL;
    int rc = check_args(dev, patterns, lengths, flags, count, max_errors, mode);
    if (rc != CLM_OK)
        return rc;
    size_t at = 1 + (size_t)count * CLM_LIKE_HEAD;
    uint32_t *prog = calloc(at + (size_t)count * CLM_LIKE_APPROX_WORDS, sizeof *prog);
    if (!prog)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    prog[0] = count;
    for (unsigned i = 0; i < count; i++)
        approx_pattern((const unsigned char *)patterns[i],
                       lengths ? lengths[i] : strlen(patterns[i]), flags ? flags[i] : 0,
                       max_errors, mode, i, prog, &at);
    return clm_like_new(dev, prog, at, count, out);
}
