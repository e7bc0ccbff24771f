/* aho.cl - Aho-Corasick automaton of a group of patterns (seed 004 section 3; a pattern
 * with symbol sets enters as each literal variant it stands for, host/aho.c): one walk over
 * the text finds every occurrence of every pattern of the group, overlapping ones included. pat: class map (case folded by the host when CASELESS); tab: the table of
 * contract.h CLM_AHO_*: transitions premultiplied by the row length, so one lookup per byte,
 * and the states where matches end numbered last, so one compare per byte finds them.
 * Matches are reported by their exclusive end and the pattern's slot (info + j); the walk
 * starts empty at `begin`, so every match it finds starts there or later, and it keeps those
 * that start before begin + CHUNK and before `owned`. With LINE_FIRST (CLM_LINES) a walk that
 * has reported a match starting on the current line (after the last '\n' or NUL byte it
 * read) leaves out the others that start there; a match holding a line end is always
 * reported; counts count all. */

#ifndef LINE_FIRST
#define LINE_FIRST 0
#endif

#if AHO_HOT
/* Tables in global memory, their first AHO_HOT entries (the header and the rows of the
 * shallowest states, where a walk over text that mostly does not match stays) copied to
 * local memory after the class map (the host's choice, host/aho.c clm_aho_split). */
#ifndef TABLE_GLOBAL
#error "AHO_HOT needs TABLE_GLOBAL"
#endif
#define ALGO_TABLES                                                                        \
    __local uint hot_[64u + AHO_HOT];                                                      \
    for (uint i_ = get_local_id(0); i_ < 64u; i_ += WG)                                    \
        hot_[i_] = ((__global const uint *)pat_in)[i_];                                    \
    for (uint i_ = get_local_id(0); i_ < AHO_HOT; i_ += WG)                                \
        hot_[64u + i_] = tab_in[i_];                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    __local const uchar *pat = (__local const uchar *)hot_;                                \
    __global const uint *tab = tab_in
#define AHO_PAT __local
#define AHO_TAB __global
#define AHO_NEXT(s, c)                                                                     \
    ((s) < AHO_HOT ? ((__local const uint *)pat)[64u + (s) + (c)] : tab[(s) + (c)])
#else
#define AHO_PAT TABLE_SPACE
#define AHO_TAB TABLE_SPACE
#define AHO_NEXT(s, c) tab[(s) + (c)]
#endif

/* Every pattern ending at exclusive end e, the walk being in output state `state`: their
 * number (count_only) or each appended. lines (LINE_FIRST): those starting at line_start or
 * later only while none is reported (line_hit), and whether one is now. */
uint clm_aho_outputs(AHO_TAB const uint *tab, uint state, uint e, uint limit,
                     __global uint *counter, __global uint *out, uint cap, uint info,
                     const int count_only, const int lines, const uint line_start, int line_hit)
{
    uint found = 0;
    const uint head = tab[CLM_AHO_HEAD], link = tab[CLM_AHO_LINK];
    const uint dup = tab[CLM_AHO_DUP], id = tab[CLM_AHO_ID], len = tab[CLM_AHO_LEN];
    for (uint o = (state - tab[CLM_AHO_OUT_MIN]) / tab[CLM_AHO_CLASSES]; o != CLM_AHO_NONE;
         o = tab[link + o])
        for (uint v = tab[head + o]; v != CLM_AHO_NONE; v = tab[dup + v]) {
            const uint j = tab[id + v], s = e - tab[len + j];
            if (s >= limit || (lines && line_hit && s >= line_start))
                continue;
            FOUND(e, info + j);
            line_hit |= lines && s >= line_start;
        }
    return lines ? (uint)line_hit : found;
}

/* Whether the 16 bytes of v hold a '\n' or a NUL byte. */
int clm_has_line_end(uint4 v)
{
    const uint4 n = v ^ (uint4)(0x0a0a0a0au);
    const uint4 z = ((v - (uint4)(0x01010101u)) & ~v) | ((n - (uint4)(0x01010101u)) & ~n);
    const uint4 h = z & (uint4)(0x80808080u);
    return (h.x | h.y | h.z | h.w) != 0u;
}

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    AHO_PAT const uchar *pat, AHO_TAB const uint *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0, state = CLM_AHO_HEADER;
    const uint out_min = tab[CLM_AHO_OUT_MIN];
    const int lines = LINE_FIRST && !count_only;
    int line_hit = 0;       /* lines: a match starting at line_start or later reported */
    uint line_start = begin; /* lines: after the last line end read (or later) */
    const uint end = begin + CHUNK, limit = min(end, owned), stop = min(end + (M - 1), n);
#define AHO_STEP(byte, pos)                                                                \
    do {                                                                                   \
        const uint b_ = (byte);                                                            \
        state = AHO_NEXT(state, pat[b_]);                                                  \
        if (lines && (b_ == 10u || b_ == 0u)) {                                            \
            line_hit = 0;                                                                  \
            line_start = (pos) + 1u;                                                       \
        }                                                                                  \
        if (state >= out_min) {                                                            \
            const uint f_ = clm_aho_outputs(tab, state, (pos) + 1u, limit, counter, out,   \
                                            cap, info, count_only, lines, line_start,      \
                                            line_hit);                                     \
            if (lines)                                                                     \
                line_hit = (int)f_;                                                        \
            else                                                                           \
                found += f_;                                                               \
        }                                                                                  \
    } while (0)
#if LITTLE_ENDIAN_DEVICE
    /* A whole range (every range of a slab but the last): blocks of 16 bytes, each walked
     * with a running max of the state alone; only a block where an output state was reached
     * walks again from its first state and reports (uniform work across the SIMD lanes). */
    if (end <= owned && end <= n) {
        __global const uchar *t16 = text + begin;
#define AHO_FAST(byte, pos)                                                                \
    do {                                                                                   \
        state = AHO_NEXT(state, pat[(byte)]);                                                  \
        hit = max(hit, state);                                                             \
    } while (0)
        for (uint j = 0; j < CHUNK / 16; ++j) {
            const uint4 v = LOAD16(t16, j);
            const uint p = begin + 16 * j, before = state;
            uint hit = 0;
            STEP_UINT4(AHO_FAST, v, p);
            if (hit >= out_min) {
                state = before;
                STEP_UINT4(AHO_STEP, v, p);
            } else if (lines && clm_has_line_end(v)) {
                /* no match ended in the block: a line starts in it after the last report;
                 * its end as the line's start only ever reports more */
                line_hit = 0;
                line_start = p + 16u;
            }
        }
#undef AHO_FAST
        FOR_EACH_BYTE(AHO_STEP, text, end, stop);
        return found;
    }
#endif
    FOR_EACH_BYTE(AHO_STEP, text, begin, stop);
#undef AHO_STEP
    return found;
}
