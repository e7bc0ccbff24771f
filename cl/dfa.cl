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
#if !PACKED && LITTLE_ENDIAN_DEVICE
    /* Fast path for a whole range (every range of a slab but the last): all its starts are
     * owned and all its bytes exist, so a loop of CHUNK/16 aligned blocks runs with no
     * per-byte ownership check - a match ending here starts at `begin` or later (the
     * automaton starts empty there) and before begin + CHUNK. Worth ~1.5x on the H200
     * (bench/experiments). The m - 1 bytes past the range take the checked path below. */
    if (begin + CHUNK <= owned && begin + CHUNK <= n) {
        __global const uchar *t16 = text + begin;
#define DFA_FAST(byte, pos)                                                                \
    do {                                                                                   \
        state = tab[state * SIGMA + pat[(byte)]];                                          \
        if (count_only)                                                                    \
            found += state == M;                                                           \
        else if (state == M)                                                               \
            clm_emit(counter, out, cap, (pos) + 1 - M, info);                              \
    } while (0)
        for (uint j = 0; j < CHUNK / 16; ++j) {
            const uint4 v = LOAD16(t16, j);
            const uint p = begin + 16 * j;
            STEP_UINT4(DFA_FAST, v, p);
        }
#undef DFA_FAST
        /* The m - 1 bytes past the range, read as whole uint4s where the slab has them (a
         * byte at a time cost as much as the range itself on the H200): a match ending there
         * is this range's if it starts before begin + CHUNK. */
        const uint end = begin + CHUNK;
        const uint tail = min(end + (M + 14u) / 16u * 16u, n);
#define DFA_TAIL(byte, pos)                                                                \
    do {                                                                                   \
        state = tab[state * SIGMA + pat[(byte)]];                                          \
        if (state == M && (pos) + 1 - M < end)                                             \
            REPORT((pos) + 1 - M);                                                         \
    } while (0)
        FOR_EACH_BYTE(DFA_TAIL, text, end, tail);
#undef DFA_TAIL
        return found;
    }
#endif
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

#if STAGE
/* Staged walk (kernels.cl): states premultiplied by SIGMA in stab, so the final state
 * M*SIGMA is the largest and a running max is the whole per-byte match test; a 16-byte block
 * whose max reached it runs again with the reporting step. H200: 2.5 vs 2.4 TB/s with a
 * compare per byte (bench/experiments). Stepping two bytes per lookup (a table of class
 * pairs) measured slower on the H200 (1.9-2.0 vs 2.2 TB/s at m = 8-16, bench/results/h200-g):
 * more lanes in different rows meet in one bank. */
#define STAGE_T ushort
#define STAGE_TAB_LEN TAB_LEN
ushort clm_stage_entry(uint i, __local const uchar *pat, __local const ushort *tab)
{
    (void)pat;
    return (ushort)(tab[i] * SIGMA);
}

uint clm_scan_staged(__local const uint4 *mine, __local const ushort *stab,
                     __local const uchar *pat, uint begin, __global uint *counter,
                     __global uint *out, uint cap, uint info, const int count_only)
{
    uint found = 0, state = 0;
    const uint end = begin + CHUNK;
#define DFA_MAX(byte, pos)                                                                 \
    do {                                                                                   \
        state = stab[state + pat[(byte)]];                                                 \
        hit = max(hit, state);                                                             \
    } while (0)
#define DFA_COUNT(byte, pos)                                                               \
    do {                                                                                   \
        state = stab[state + pat[(byte)]];                                                 \
        found += state == M * SIGMA;                                                       \
    } while (0)
#define DFA_REPORT(byte, pos)                                                              \
    do {                                                                                   \
        state = stab[state + pat[(byte)]];                                                 \
        if (state == M * SIGMA && (pos) + 1 - M < end)                                     \
            FOUND((pos) + 1 - M, info);                                                    \
    } while (0)
#define DFA_HIT_BLOCK(v) STEP_UINT4(DFA_MAX, v, 0u)
#define DFA_COUNT_BLOCK(v) STEP_UINT4(DFA_COUNT, v, 0u)
    STAGE_WALK(uint, state, DFA_HIT_BLOCK, hit == M * SIGMA, DFA_REPORT, DFA_COUNT_BLOCK);
#undef DFA_MAX
#undef DFA_COUNT
#undef DFA_REPORT
#undef DFA_HIT_BLOCK
#undef DFA_COUNT_BLOCK
    return found;
}
#endif
