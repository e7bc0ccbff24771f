/* dfa.cl - KMP automaton (seed 000) over the pattern's reduced alphabet. pat: class map,
 * pat[b] = class of byte b (0 = not in the pattern; case folded by the host when CASELESS);
 * tab: transitions, tab[state * SIGMA + class], states 0..M. One table lookup per byte and
 * no data-dependent loop, so the lanes of a SIMD group stay together. */

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const ushort *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0, state = 0;
    const uint stop = min(begin + (CHUNK + M - 1), n);
#define DFA_STEP(byte, pos)                                                                \
    do {                                                                                   \
        state = tab[state * SIGMA + pat[(byte)]];                                          \
        if (state == M)                                                                    \
            REPORT((pos) + 1 - M);                                                         \
    } while (0)
    FOR_EACH_BYTE(DFA_STEP, text, begin, stop);
#undef DFA_STEP
    return found;
}
