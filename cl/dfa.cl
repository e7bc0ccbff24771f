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
/* Staged walk (kernels.cl). The final state is the largest, so a running max is the whole
 * per-byte match test: a 16-byte block whose max reached it runs again with the reporting
 * step. Table forms, in local memory, built by each work-group (clm_stage_build), the
 * host's choice (host/compile.c dfa_stage_col, stage_prefix):
 * - DFA_COL > 0: one lookup per byte, stab[byte * DFA_COL + state] = next state (uchar).
 *   Lanes reading one byte in different states read neighbouring bytes; columns DFA_COL
 *   bytes apart (an odd number of words) put the columns of bytes less than 32 apart in
 *   different banks. Built one column per work-item (entry by entry, a division each, the
 *   build cost as much as the walk: bench/experiments).
 * - DFA_COL 0: the class map and the transitions with states premultiplied by SIGMA: two
 *   lookups per byte, but a table of (M+1) * SIGMA entries, cheap to build per work-group.
 * - both, STAGE_PREFIX > 0: below.
 * (Stepping two bytes per lookup over class pairs measured slower on the H200, 1.9-2.0 vs
 * 2.2 TB/s at m = 8-16, bench/results/h200-g: more bank conflicts.) */
#ifndef DFA_COL
#define DFA_COL 0
#endif
/* The walk's tables in stab: byte-major columns of the states 0..DFA_COL_LAST (uchar), and
 * the transitions premultiplied by SIGMA from ushort DFA_CLASSES_AT on, where defined. */
#if DFA_COL && STAGE_PREFIX
/* - STAGE_PREFIX > 0 (longer patterns, the host's choice): a prefix walk (common.cl
 *   STAGE_WALK). Below state STAGE_PREFIX the automaton is the one of the pattern's first
 *   STAGE_PREFIX bytes (the same transitions: a prefix that fits in the text read so far is a
 *   prefix of that one), so blocks whose state is below it run the byte-major table of those
 *   states, and only a block that reached it (the prefix matched: rare in DNA) steps the
 *   whole automaton in the class form. Both tables are built per work-group: the byte-major
 *   columns (uchar) in the first 128 * DFA_COL ushorts, the premultiplied transitions after. */
#define STAGE_T ushort
#define STAGE_TAB_LEN (128u * DFA_COL + TAB_LEN)
#define DFA_COL_LAST STAGE_PREFIX
#define DFA_CLASSES_AT (128u * DFA_COL)
#define FAST_T(T) uint
#define FAST_OK(S) ((S) < STAGE_PREFIX * SIGMA)
#define FAST_IN(S) ((S) / SIGMA)
#define FAST_OUT(F) ((F) * SIGMA)
#define FAST_ALWAYS 0 /* a state past the prefix would index past its columns */
#elif DFA_COL
#define STAGE_T uchar
#define STAGE_TAB_LEN (256u * DFA_COL)
#define DFA_COL_LAST M
#else
#define STAGE_T ushort
#define STAGE_TAB_LEN TAB_LEN
#define DFA_CLASSES_AT 0u
#endif
#if DFA_COL /* one lookup per byte */
#define DFA_FAST_NEXT(S, byte) (S) = ((__local const uchar *)stab)[(byte) * DFA_COL + (S)]
#define DFA_FAST_FINAL DFA_COL_LAST
#endif
#ifdef DFA_CLASSES_AT /* class map, then the transitions */
#define DFA_FINAL (M * SIGMA)
#define DFA_NEXT(S, byte)                                                                  \
    (S) = ((__local const ushort *)stab)[DFA_CLASSES_AT + (S) + pat[(byte)]]
#else
#define DFA_FINAL M
#define DFA_NEXT DFA_FAST_NEXT
#endif
#ifndef DFA_FAST_NEXT
#define DFA_FAST_NEXT DFA_NEXT
#define DFA_FAST_FINAL DFA_FINAL
#endif
void clm_stage_build(uint l, __local STAGE_T *stab, __local const uchar *pat,
                     __local const ushort *tab)
{
    (void)pat;
#if DFA_COL
    __local uchar *cols = (__local uchar *)stab;
    for (uint b = l; b < 256u; b += WG) {
        const uint c = pat[b];
        for (uint s = 0; s < DFA_COL; ++s)
            cols[b * DFA_COL + s] = s <= DFA_COL_LAST ? (uchar)tab[s * SIGMA + c] : (uchar)0;
    }
#endif
#ifdef DFA_CLASSES_AT
    for (uint i = l; i < TAB_LEN; i += WG)
        ((__local ushort *)stab)[DFA_CLASSES_AT + i] = (ushort)(tab[i] * SIGMA);
#endif
}

uint clm_scan_staged(__local const uint4 *mine, __local const STAGE_T *stab,
                     __local const uchar *pat, uint begin, __global uint *counter,
                     __global uint *out, uint cap, uint info, const int count_only)
{
    (void)pat;
    uint found = 0, state = 0;
    const uint end = begin + CHUNK;
#define HIT_OP(S, H, byte)                                                                 \
    do {                                                                                   \
        DFA_FAST_NEXT(S, byte);                                                            \
        H = max(H, S);                                                                     \
    } while (0)
#define COUNT_OP(S, H, byte)                                                               \
    do {                                                                                   \
        DFA_NEXT(S, byte);                                                                 \
        H += DFA_IS_FINAL(S);                                                              \
    } while (0)
/* No state is above the final one, so where that is a power of two (a 4-mer's 4) the
 * quotient is the match bit: a shift folded into the add (one LEA.HI on the H200 instead of a
 * compare and an add: m = 4 counting 2.33 -> 2.53 TB/s, bench/experiments). */
#if (DFA_FINAL & (DFA_FINAL - 1)) == 0
#define DFA_IS_FINAL(S) ((S) / DFA_FINAL)
#else
#define DFA_IS_FINAL(S) ((S) == DFA_FINAL)
#endif
#define HIT_TEST(H) ((H) >= DFA_FAST_FINAL)
/* the state is the length of the open prefix (times SIGMA in the class form): one started
 * in the chunk is longer than the t bytes read past it */
#define TAIL_DONE(t) (state <= (t) * (DFA_FINAL / M))
#define REPORT_OP(byte, pos)                                                               \
    do {                                                                                   \
        DFA_NEXT(state, byte);                                                             \
        if (state == DFA_FINAL && (pos) + 1 - M < end)                                     \
            FOUND((pos) + 1 - M, info);                                                    \
    } while (0)
    STAGE_WALK(uint);
#undef HIT_OP
#undef COUNT_OP
#undef HIT_TEST
#undef TAIL_DONE
#undef REPORT_OP
    return found;
}
#endif
