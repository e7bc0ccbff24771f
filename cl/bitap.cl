/* bitap.cl - shift-and (Baeza-Yates-Gonnet) and Wu-Manber approximate search (seed 003), one
 * range per work-item. Bit j of row d is set when the pattern's first j+1 symbols match the
 * text ending here with at most d edits. Rows are W 64-bit words (patterns up to 64*W
 * symbols); K is the number of edits (0: exact); HAMMING counts substitutions only.
 * pat: class map (byte -> class, case folded by the host when CASELESS); tab: masks,
 * tab[class * W + w] = word w of the set of pattern positions that accept the class.
 * LEAD: bytes read before the range so alignments with insertions that start before the
 * nominal start are seen (K for edit distance, 0 otherwise). */

/* the bit carried from word w-1 into word w. NO_FUNNEL_SHIFT (host's choice for oclgrind,
 * whose interpreter lacks the llvm.fshl that clang makes of the plain form): through a
 * volatile store and load, which clang cannot fold into a funnel shift */
#if NO_FUNNEL_SHIFT
ulong clm_carry(ulong x)
{
    volatile ulong c = x >> 63;
    return c;
}
#define CARRY(x) clm_carry(x)
#else
#define CARRY(x) ((x) >> 63)
#endif

/* row <<= 1 with a 1 shifted in (every position may start a match) */
#define SHIFT_IN(dst, src)                                                                 \
    do {                                                                                   \
        for (int w_ = W - 1; w_ > 0; --w_)                                                 \
            dst[w_] = (src[w_] << 1) | CARRY(src[w_ - 1]);                                 \
        dst[0] = (src[0] << 1) | 1ul;                                                      \
    } while (0)

#ifndef STRANDS
#define STRANDS 1
#endif

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0;
    /* (max of signed values: the unsigned form compiles to llvm.usub.sat, which oclgrind's
     * interpreter lacks) */
    const uint from = (uint)max((long)begin - LEAD, 0l);
    const uint stop = min(begin + (CHUNK + M - 1), n);
    /* STRANDS 2: a second automaton for the reverse complement over the same bytes; a
     * class's masks are W words of the pattern, then W of its reverse complement */
    ulong R[STRANDS][K + 1][W];
    /* before any text: row d holds the prefixes of length <= d (d deletions) */
    for (int s = 0; s < STRANDS; ++s)
        for (int d = 0; d <= K; ++d)
            for (int w = 0; w < W; ++w)
                R[s][d][w] = HAMMING ? 0ul : (w == 0 ? (1ul << d) - 1ul : 0ul);

#define BITAP_STEP(byte, pos)                                                              \
    do {                                                                                   \
        const uint cls_ = pat[(byte)];                                                     \
        for (int s = 0; s < STRANDS; ++s) {                                                \
            TABLE_SPACE const TAB_T *mask_ = tab + (cls_ * STRANDS + s) * W;               \
            ulong prev_old[W], t_[W];                                                      \
            for (int d = 0; d <= K; ++d) {                                                 \
                SHIFT_IN(t_, R[s][d]);                                                     \
                for (int w = 0; w < W; ++w)                                                \
                    t_[w] &= mask_[w];                                                     \
                if (d > 0) {                                                               \
                    ulong sub_[W], del_[W];                                                \
                    SHIFT_IN(sub_, prev_old);   /* substitution: old row d-1, advanced */  \
                    SHIFT_IN(del_, R[s][d - 1]); /* deletion: new row d-1, advanced */     \
                    for (int w = 0; w < W; ++w)                                            \
                        t_[w] |= HAMMING ? sub_[w] : (sub_[w] | del_[w] | prev_old[w]);    \
                }                                                                          \
                for (int w = 0; w < W; ++w) {                                              \
                    prev_old[w] = R[s][d][w];                                              \
                    R[s][d][w] = t_[w];                                                    \
                }                                                                          \
            }                                                                              \
            for (int d = 0; d <= K; ++d) {                                                 \
                if ((R[s][d][(M - 1) / 64] >> ((M - 1) % 64)) & 1ul) {                     \
                    REPORT_END_STRAND((pos) + 1, d, s);                                    \
                    break;                                                                 \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    } while (0)
#if K == 0 && W == 1 && STRANDS == 1 && !PACKED && LITTLE_ENDIAN_DEVICE
    /* Fast path for a whole range of exact search (every range of a slab but the last):
     * every match ending in it starts at `begin` or later (the automaton starts empty there)
     * and is owned, so one 64-bit row in a register runs CHUNK/16 aligned blocks with no
     * per-byte checks (bench/experiments). The m - 1 bytes past the range follow. */
    if (begin + CHUNK <= owned && begin + CHUNK <= n) {
        __global const uchar *t16 = text + begin;
        ulong D = 0;
#define BITAP_FAST(byte, pos)                                                              \
    do {                                                                                   \
        D = ((D << 1) | 1ul) & tab[pat[(byte)]];                                           \
        if (count_only)                                                                    \
            found += (uint)(D >> (M - 1)) & 1u;                                            \
        else if ((D >> (M - 1)) & 1ul)                                                     \
            clm_emit(counter, out, cap, (pos) + 1, info);                                  \
    } while (0)
        for (uint j = 0; j < CHUNK / 16; ++j) {
            const uint4 v = LOAD16(t16, j);
            const uint p = begin + 16 * j;
#if HIT_CHECK
            /* CPUs (host's choice): the shift-or form E = ~D costs a shift, an or and an and
             * into `hit` per byte; only a block of 16 where bit M-1 of E was ever clear (a
             * match ended) runs again with the reporting step. 16-core PoCL: 27-28 against
             * 17-25 GB/s (bench/experiments); on the H200 it was slower. */
            const ulong D0 = D;
            ulong E = ~D, hit = ~0ul;
#define BITAP_OR(byte, pos)                                                                \
    do {                                                                                   \
        E = (E << 1) | ~tab[pat[(byte)]];                                                  \
        hit &= E;                                                                          \
    } while (0)
            STEP_UINT4(BITAP_OR, v, p);
#undef BITAP_OR
            D = ~E;
            if ((hit >> (M - 1)) & 1ul)
                continue;
            D = D0;
#endif
            STEP_UINT4(BITAP_FAST, v, p);
        }
#undef BITAP_FAST
        /* the m - 1 bytes past the range as whole uint4s where the slab has them;
         * REPORT_END keeps only the matches this range owns */
        const uint end = begin + CHUNK;
        const uint tail = min(end + (M + 14u) / 16u * 16u, n);
#define BITAP_TAIL(byte, pos)                                                              \
    do {                                                                                   \
        D = ((D << 1) | 1ul) & tab[pat[(byte)]];                                           \
        if ((D >> (M - 1)) & 1ul)                                                          \
            REPORT_END((pos) + 1, 0u);                                                     \
    } while (0)
        FOR_EACH_BYTE(BITAP_TAIL, text, end, tail);
#undef BITAP_TAIL
        return found;
    }
#endif
    FOR_EACH_BYTE(BITAP_STEP, text, from, stop);
#undef BITAP_STEP
    return found;
}

#if STAGE
/* Staged walk (kernels.cl), exact search with one word: a byte-indexed mask table in local
 * memory (one lookup per byte instead of class, then mask) and a running OR as the per-byte
 * match test: a 16-byte block whose OR has the match bit runs again with the reporting step.
 * H200: 2.8-3.3 vs 2.1-2.6 TB/s (bench/experiments). The word is 32 bits up to M = 32.
 * Without a prefix walk the masks are shifted so the pattern's last position is the word's
 * top bit. STAGE_PREFIX > 0 (longer patterns, the host's choice): a prefix walk (common.cl
 * STAGE_WALK) with unshifted masks (bit j: position j) and, beside them, 32-bit masks of the
 * first STAGE_PREFIX positions: a block whose state has no prefix that long open runs those,
 * and only one where that prefix matched (rare in DNA) steps the whole word. */
#if M <= 32
#define STAGE_T uint
#define STAGE_BITS 32
#else
#define STAGE_T ulong
#define STAGE_BITS 64
#endif
#if STAGE_PREFIX
#define STAGE_SHIFT 0
/* the whole word's masks, then 256 32-bit ones */
#define STAGE_TWO_AT (256 + 256 * 4 / (STAGE_BITS / 8))
#define STAGE_LOW(stab) ((__local uint *)((stab) + 256))
#define FAST_T(T) uint
#define FAST_ALWAYS 1 /* a shift of any state: the branch cost m = 64 6 % on the H200 */
/* no prefix of STAGE_PREFIX open: the prefix walk's word carries nothing out */
#define FAST_OK(S) (!((S) >> (STAGE_PREFIX - 1)))
#define FAST_IN(S) ((uint)(S))
#define FAST_OUT(F) ((STAGE_T)(F))
#else
#define STAGE_SHIFT (STAGE_BITS - M)
#define STAGE_TWO_AT 256
#endif
/* and one entry holding 2 (STAGE_DOUBLE) */
#define STAGE_TAB_LEN (STAGE_TWO_AT + 1)
#define STAGE_IN ((STAGE_T)1 << STAGE_SHIFT) /* the start bit, shifted like the masks */
#define STAGE_MATCH(S) (((S) >> (STAGE_SHIFT + M - 1)) & 1u)
/* The walks' shift by one. Past m = 16 ptxas made (S << 1) | 1 and the byte offsets
 * into LEAs on the integer pipe, which the walk already fills, while the FMA pipe had room:
 * a multiply by a 2 read from local memory, which no compiler can fold, is one IMAD at any
 * m. H200, m = 24 / 32 / 48 / 64: 2.75 / 2.76 / 2.62 / 2.58 against 2.61 / 2.46 / 2.37 /
 * 2.35 TB/s; at m <= 16, where ptxas shifts with an IMAD already, the multiply measured
 * 0.97x (bench/experiments "Staging, sixth round"). */
#define STAGE_DOUBLE(S) (M > 16 ? (S) * two : (S) << 1)
void clm_stage_build(uint l, __local STAGE_T *stab, __local const uchar *pat,
                     __local const ulong *tab)
{
    for (uint b = l; b < 256u; b += WG) {
        stab[b] = (STAGE_T)(tab[pat[b]] << STAGE_SHIFT);
#if STAGE_PREFIX
        STAGE_LOW(stab)[b] = (uint)(tab[pat[b]] & ((1ul << STAGE_PREFIX) - 1ul));
#endif
    }
    if (l == 0u)
        stab[STAGE_TWO_AT] = 2u;
}

uint clm_scan_staged(__local const uint4 *mine, __local const STAGE_T *stab,
                     __local const uchar *pat, uint begin, __global uint *counter,
                     __global uint *out, uint cap, uint info, const int count_only)
{
    (void)pat;
    uint found = 0;
    const uint end = begin + CHUNK;
    STAGE_T state = 0;
    const uint two = (uint)stab[STAGE_TWO_AT];
/* one step from S doubled as D: the walks double with STAGE_DOUBLE, the reporting step
 * (a block where a match may end: rare) with a shift; the multiply there too cost m = 24 and
 * 32 3 % on the H200 (2.68-2.70 vs 2.76-2.78 TB/s, same machine) */
#define BITAP_NEXT_FROM(S, byte, D) (S) = ((D) | STAGE_IN) & stab[(byte)]
#define BITAP_NEXT(S, byte) BITAP_NEXT_FROM(S, byte, STAGE_DOUBLE(S))
#if STAGE_PREFIX
    __local const uint *low = STAGE_LOW(stab);
    /* the first STAGE_PREFIX positions: their top bit set when that prefix matched */
#define HIT_OP(S, H, byte)                                                                 \
    do {                                                                                   \
        (S) = (STAGE_DOUBLE(S) | 1u) & low[(byte)];                                        \
        H |= S;                                                                            \
    } while (0)
#define HIT_TEST(H) ((H) >> (STAGE_PREFIX - 1))
#else
#define HIT_OP(S, H, byte)                                                                 \
    do {                                                                                   \
        BITAP_NEXT(S, byte);                                                               \
        H |= S;                                                                            \
    } while (0)
#define HIT_TEST(H) ((H) >> (STAGE_BITS - 1))
#endif
#define COUNT_OP(S, H, byte)                                                               \
    do {                                                                                   \
        BITAP_NEXT(S, byte);                                                               \
        H += (uint)STAGE_MATCH(S);                                                         \
    } while (0)
/* bit STAGE_SHIFT + j: the prefix of length j + 1 is open; one started in the chunk is
 * longer than the t bytes read past it (a shift by the word's width would wrap: t >= M) */
#define TAIL_DONE(t) ((t) >= M || !(state >> (STAGE_SHIFT + (t))))
#define REPORT_OP(byte, pos)                                                               \
    do {                                                                                   \
        BITAP_NEXT_FROM(state, byte, state << 1);                                          \
        if (STAGE_MATCH(state) && (pos) + 1 < end + M)                                     \
            FOUND((pos) + 1, info);                                                        \
    } while (0)
    STAGE_WALK(STAGE_T);
#undef BITAP_NEXT_FROM
#undef BITAP_NEXT
#undef HIT_OP
#undef COUNT_OP
#undef HIT_TEST
#undef TAIL_DONE
#undef REPORT_OP
    return found;
}
#endif
