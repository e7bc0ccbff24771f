/* kmp.cl - Knuth-Morris-Pratt (seeds 000, 001). pat: the pattern (case-folded if CASELESS);
 * tab: fail table, tab[j] = length of the longest proper border of pat[0, j). Each
 * work-item runs KMP from state 0 at its range start, over its range plus M-1 bytes. */

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const ushort *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0, j = 0;
    const uint stop = min(begin + (CHUNK + M - 1), n);
#define KMP_STEP(byte, pos)                                                                \
    do {                                                                                   \
        const uchar c_ = FOLD(byte);                                                       \
        while (j > 0 && pat[j] != c_)                                                      \
            j = tab[j];                                                                    \
        if (pat[j] == c_)                                                                  \
            ++j;                                                                           \
        if (j == M) {                                                                      \
            REPORT((pos) + 1 - M);                                                         \
            j = tab[M];                                                                    \
        }                                                                                  \
    } while (0)
    FOR_EACH_BYTE(KMP_STEP, text, begin, stop);
#undef KMP_STEP
    return found;
}
