/* common.cl - helpers shared by every clmatch kernel (OpenCL C 1.2).
 *
 * The macros the host sets (M, WG, CHUNK, TABLE_LOCAL, STAGE, ...) are listed with what each
 * means in one table, host/program.c's build_options, which makes the options string (also
 * the program cache's key); `clmatch-kernels --options` prints it (docs/design.md). What the
 * host and the kernels share besides: contract.h.
 *
 * Ownership: work-item g owns the match starts [first + g*CHUNK, first + (g+1)*CHUNK) that
 * are also < owned, and reads up to M-1 bytes past its range (never past n). A match is
 * reported only by the range where it starts: none is lost or reported twice at any range,
 * work-group or slab boundary.
 */

#ifndef TAB_T
#define TAB_T ushort
#endif

#if defined(TABLE_CONSTANT)
#define TABLE_ARG __constant
#define TABLE_SPACE __constant
#elif defined(TABLE_LOCAL)
#define TABLE_ARG __global
#define TABLE_SPACE __local
#else
#define TABLE_ARG __global
#define TABLE_SPACE __global
#endif

#if CASELESS
#define FOLD(c) ((uchar)(((uint)(c) - 'A') < 26u ? ((c) | 0x20) : (c)))
#else
#define FOLD(c) ((uchar)(c))
#endif

/* Append one match (start offset in this slab, pattern index) to the match buffer. The
 * counter keeps counting past the capacity so the host learns how much room it needs. */
void clm_emit(__global uint *counter, __global uint *out, uint cap, uint start, uint info)
{
#if EMIT_BLOCKS
    /* filter and verify (host/records.c): OUT is a bitmap of CAP words, a bit per block of
     * EMIT_BLOCKS bytes holding a match's position; bits spread the atomics over many
     * words where one counter would take them all */
    uint b = start / EMIT_BLOCKS;
    (void)counter;
    (void)info;
    if (b / 32u < cap)
        atomic_or(out + b / 32u, 1u << (b % 32u));
#else
    uint slot = atomic_inc(counter);
    if (slot < cap) { /* two scalar stores: oclgrind misreads a built uint2 as undefined */
        out[2 * slot] = start;
        out[2 * slot + 1] = info;
    }
#endif
}

/* One match this range owns: counted (clm_count) or appended with its position and info. */
#define FOUND(position, match_info)                                                        \
    do {                                                                                   \
        if (count_only)                                                                    \
            ++found;                                                                       \
        else                                                                               \
            clm_emit(counter, out, cap, (position), (match_info));                         \
    } while (0)

/* Report a match starting at `start` unless a later range owns it. */
#define REPORT(start)                                                                      \
    do {                                                                                   \
        uint start_ = (start);                                                             \
        if (start_ < owned)                                                                \
            FOUND(start_, info);                                                           \
    } while (0)

/* End-reporting kernels (bitap) find a match when its last byte is read. Ownership goes by
 * the nominal start e - M (the start had the match no insertions or deletions), which a
 * range [begin, begin + CHUNK) owns; a match nominally before 0 (deletions at the very start
 * of the text: begin == 0 and the slab starts the text) belongs to the first range.
 * `e` is the exclusive end, `edits` the edit count stored beside the pattern index. */
#define REPORT_END(e, edits) REPORT_END_STRAND(e, edits, 0u)
/* strand 1: a match of the reverse complement searched in the same pass (CLM_INFO_RC) */
#define REPORT_END_STRAND(e, edits, strand)                                                \
    do {                                                                                   \
        uint e_ = (e);                                                                     \
        if ((e_ >= begin + M || begin == 0u) && e_ < begin + (CHUNK + M) && e_ < owned + M) \
            FOUND(e_, info | ((uint)(edits) << CLM_INFO_EDITS_SHIFT) |                     \
                          ((uint)(strand) << CLM_INFO_RC_SHIFT));                            \
    } while (0)

#ifndef PACKED
#define PACKED 0
#endif

#ifndef STAGE
#define STAGE 0
#endif
#ifndef STAGE_PREFETCH
#define STAGE_PREFETCH 0
#endif
#define STAGE_CU (CHUNK / 16)       /* staging (kernels.cl): uint4s per chunk */
#define STAGE_TAIL ((M + 14) / 16)  /* uint4s that hold the M-1 bytes past a chunk */
/* Count frequent matches inline instead of re-running blocks (staged walks below): with a short
 * pattern on a small alphabet (a 4-mer in DNA: one match per ~256 bytes) most 16-byte blocks
 * of a SIMD group hold a match somewhere and the re-run doubled the work. */
#ifndef STAGE_COUNT_INLINE
#define STAGE_COUNT_INLINE (M <= 5)
#endif
/* The staged walk's per-byte operations OP(S, H, byte) over the 16 bytes of uint4 v: S is
 * the walk's state, H its hit accumulator (or the match count). */
#define SW_WORD(OP, S, H, w)                                                               \
    OP(S, H, (w) & 0xffu);                                                                 \
    OP(S, H, ((w) >> 8) & 0xffu);                                                          \
    OP(S, H, ((w) >> 16) & 0xffu);                                                         \
    OP(S, H, (w) >> 24)
#define SW16(OP, S, H, v)                                                                  \
    SW_WORD(OP, S, H, (v).x);                                                              \
    SW_WORD(OP, S, H, (v).y);                                                              \
    SW_WORD(OP, S, H, (v).z);                                                              \
    SW_WORD(OP, S, H, (v).w)
/* A work-item's staged walk (dfa.cl, bitap.cl): `mine` is its chunk [begin, begin + CHUNK)
 * in local memory, a padding uint4, then the uint4s of the next chunk. Per 16-byte block the
 * cheap walk HIT_OP folds a match test into `hit` (of type FAST_T, like the state it walks);
 * only a block where HIT_TEST(hit) says a match may have ended runs again from the saved
 * state with the reporting step REPORT_OP(byte, pos), which reads and writes `state` and
 * keeps the matches starting before begin + CHUNK. The M-1 bytes past the chunk take the same
 * two steps, and stop after a block where TAIL_DONE(t) says no match that started in the
 * chunk is still open t bytes past it (in random DNA, after the first block). Counting
 * kernels with STAGE_COUNT_INLINE count the chunk's own blocks with COUNT_OP instead: every
 * match ending there starts in the chunk, as the walk starts empty at `begin`.
 * Prefix walks (longer patterns, the algorithm's choice): the cheap walk runs the automaton
 * of the pattern's first bytes on a smaller state, FAST_IN(state) to FAST_OUT(fast), from
 * blocks whose state FAST_OK says that automaton can hold; HIT_TEST then means the prefix
 * matched, and only such blocks (rare in DNA) step the whole pattern's automaton. Without one
 * FAST_T is T and FAST_IN, FAST_OUT pass the state through.
 * The caller declares `found` and `state` (uint, T) and #defines HIT_OP, HIT_TEST, COUNT_OP,
 * REPORT_OP and TAIL_DONE. (Two interleaved walks per work-item, each over half the chunk,
 * measured 0.9x on the H200: bench/experiments.) */
#ifndef STAGE_PREFIX
#define STAGE_PREFIX 0 /* states or bits of the prefix walk (host's choice), 0: none */
#endif
/* An algorithm's prefix walk (STAGE_PREFIX > 0) defines FAST_T, FAST_OK, FAST_IN, FAST_OUT and
 * FAST_ALWAYS (1: the prefix walk runs whatever FAST_OK says, its state and hit then dropped,
 * sparing a branch per block where FAST_IN of any state is harmless); without one: */
#if !STAGE_PREFIX
#define FAST_T(T) T
#define FAST_OK(S) 1
#define FAST_IN(S) (S)
#define FAST_OUT(F) (F)
#define FAST_ALWAYS 0
#endif
#define STAGE_BLOCK(T, r)                                                                  \
    do {                                                                                   \
        const uint4 v_ = mine[(r) < STAGE_CU ? (r) : (r) + 1u];                            \
        if (count_only && STAGE_COUNT_INLINE && (r) < STAGE_CU) {                          \
            SW16(COUNT_OP, state, found, v_);                                              \
        } else {                                                                           \
            const T before_ = state;                                                       \
            const int fast_ok_ = FAST_OK(before_);                                         \
            FAST_T(T) hit_ = 0;                                                            \
            if (FAST_ALWAYS || fast_ok_) {                                                 \
                FAST_T(T) fast_ = FAST_IN(before_);                                        \
                SW16(HIT_OP, fast_, hit_, v_);                                             \
                state = FAST_OUT(fast_);                                                   \
            }                                                                              \
            if (!fast_ok_ || HIT_TEST(hit_)) {                                             \
                state = before_;                                                           \
                STEP_UINT4(REPORT_OP, v_, begin + 16u * (r));                              \
            }                                                                              \
        }                                                                                  \
    } while (0)
/* The chunk's blocks and the first block past it in a loop with a fixed trip count, then the
 * rest of the M-1 bytes past the chunk (M > 17) only while a match that started in the chunk
 * may still be open. (One loop with the tail's early exit kept its counter per work-item,
 * under convergence barriers, on the H200: 2-3 % slower at m = 32, bench/experiments.) */
#define STAGE_WALK(T)                                                                      \
    do {                                                                                   \
        for (uint r_ = 0; r_ <= STAGE_CU; ++r_)                                            \
            STAGE_BLOCK(T, r_);                                                            \
        for (uint r_ = STAGE_CU + 1u;                                                      \
             r_ < STAGE_CU + STAGE_TAIL && !TAIL_DONE(16u * (r_ - STAGE_CU)); ++r_)        \
            STAGE_BLOCK(T, r_);                                                            \
    } while (0)

#if PACKED
/* Packed slab (contract.h CLM_PACK_*): blocks of 128 bases in 48 bytes, 3 bits per base
 * instead of 8. */
#define PK_SYM(code, valid)                                                                \
    ((valid) ? (((uint)PACK_LETTERS >> (8u * (code))) & 0xffu) : (uint)PACK_SENTINEL)
#define PK_ONE(STEP, pk, i)                                                                \
    do {                                                                                   \
        const uint b_ = (i) & 127u;                                                        \
        __global const uchar *blk1_ = (pk) + CLM_PACK_BLOCK * ((i) >> 7);                  \
        const uint c_ = ((uint)blk1_[b_ >> 2] >> (2u * (b_ & 3u))) & 3u;                   \
        const uint ok_ = ((uint)blk1_[CLM_PACK_VALID + (b_ >> 3)] >> (b_ & 7u)) & 1u;      \
        STEP(PK_SYM(c_, ok_), (i));                                                        \
    } while (0)
/* 16 bases: codes in d (2 bits each), validity in the low 16 bits of v */
#define PK_WORD(STEP, d, v, pos)                                                           \
    for (uint j_ = 0; j_ < 16u; ++j_)                                                      \
        STEP(PK_SYM(((d) >> (2u * j_)) & 3u, ((v) >> j_) & 1u), (pos) + j_)
/* Feed every base of the packed slab [i0, stop) to STEP(byte, position): single bases up
 * to a 64-base boundary, then one uint4 of codes and one uint2 of validity bits per 64
 * bases, single bases for the tail. */
#define FOR_EACH_BYTE(STEP, text, i0, stop)                                                \
    do {                                                                                   \
        uint i_ = (i0);                                                                    \
        for (; (i_ & 63u) && i_ < (stop); ++i_)                                            \
            PK_ONE(STEP, text, i_);                                                        \
        for (; i_ + 64u <= (stop); i_ += 64u) {                                            \
            __global const uchar *blk_ = (text) + CLM_PACK_BLOCK * (i_ >> 7);              \
            const uint4 d_ = *(__global const uint4 *)(blk_ + ((i_ & 64u) >> 2));          \
            const uint2 v_ =                                                               \
                *(__global const uint2 *)(blk_ + CLM_PACK_VALID + ((i_ & 64u) >> 3));      \
            PK_WORD(STEP, d_.x, v_.x, i_);                                                 \
            PK_WORD(STEP, d_.y, v_.x >> 16, i_ + 16u);                                     \
            PK_WORD(STEP, d_.z, v_.y, i_ + 32u);                                           \
            PK_WORD(STEP, d_.w, v_.y >> 16, i_ + 48u);                                     \
        }                                                                                  \
        for (; i_ < (stop); ++i_)                                                          \
            PK_ONE(STEP, text, i_);                                                        \
    } while (0)
#elif LITTLE_ENDIAN_DEVICE
#ifndef VEC
#define VEC 16
#endif
/* The 16 bytes of block j of p (16-byte aligned) as a uint4, read with loads of VEC bytes:
 * one uint4, two uint2 or four uints (the host's choice: how wide a load serves a device
 * best). A block stays 16 bytes whatever VEC is, so what runs per block does not change. */
#if VEC == 4
#define LOAD16_W(p, i) (((__global const uint *)(p))[i])
#define LOAD16(p, j)                                                                       \
    ((uint4)(LOAD16_W(p, 4u * (j)), LOAD16_W(p, 4u * (j) + 1u), LOAD16_W(p, 4u * (j) + 2u), \
             LOAD16_W(p, 4u * (j) + 3u)))
#elif VEC == 8
#define LOAD16_W(p, i) (((__global const uint2 *)(p))[i])
#define LOAD16(p, j) ((uint4)(LOAD16_W(p, 2u * (j)), LOAD16_W(p, 2u * (j) + 1u)))
#else
#define LOAD16(p, j) (((__global const uint4 *)(p))[j])
#endif
/* Feed every byte of text[i0, stop) to STEP(byte, position). Single bytes up to a 16-byte
 * boundary, aligned 16-byte blocks (LOAD16) where the device is little-endian, single bytes
 * for the tail. (Exact kernels start on a boundary: CHUNK and `first` are multiples of 16.) */
#define STEP_WORD(STEP, w, pos)                                                            \
    STEP((w) & 0xffu, (pos));                                                              \
    STEP(((w) >> 8) & 0xffu, (pos) + 1);                                                   \
    STEP(((w) >> 16) & 0xffu, (pos) + 2);                                                  \
    STEP((w) >> 24, (pos) + 3)
/* the 16 bytes of a uint4 loaded at text position pos */
#define STEP_UINT4(STEP, v, pos)                                                           \
    STEP_WORD(STEP, (v).x, (pos));                                                         \
    STEP_WORD(STEP, (v).y, (pos) + 4u);                                                    \
    STEP_WORD(STEP, (v).z, (pos) + 8u);                                                    \
    STEP_WORD(STEP, (v).w, (pos) + 12u)
#define FOR_EACH_BYTE(STEP, text, i0, stop)                                                \
    do {                                                                                   \
        uint i_ = (i0);                                                                    \
        for (; (i_ & 15u) && i_ < (stop); ++i_)                                            \
            STEP((uint)(text)[i_], i_);                                                    \
        for (; i_ + 16u <= (stop); i_ += 16u) {                                            \
            uint4 v_ = LOAD16(text, i_ >> 4);                                              \
            STEP_UINT4(STEP, v_, i_);                                                      \
        }                                                                                  \
        for (; i_ < (stop); ++i_)                                                          \
            STEP((uint)(text)[i_], i_);                                                    \
    } while (0)
#else
#define FOR_EACH_BYTE(STEP, text, i0, stop)                                                \
    do {                                                                                   \
        for (uint i_ = (i0); i_ < (stop); ++i_)                                            \
            STEP((uint)(text)[i_], i_);                                                    \
    } while (0)
#endif
