/* witness.cl - Vishkin's witness/duel algorithm (seed 002). Positions are split into blocks
 * of PI = min(period, ceil(M/2)) consecutive starts. Two candidate starts i < j of one block
 * differ by d < PI, which is no period of the pattern, so the witness q = tab[d] has
 * pat[q] != pat[q - d]: the byte text[i + q] rules out at least one of them (the duel).
 * GS work-items share a block: each folds its positions into one survivor, a tree of duels
 * in local memory leaves one, and the GS work-items verify it against the whole pattern.
 * pat: the pattern (case-folded if CASELESS); tab: witnesses for d = 1..PI-1. */

#define GROUP_KERNEL
#define GROUP_LOCALS                                                                       \
    __local uint cand[WG];                                                                 \
    __local uint dead[WG / GS]
#define GROUP_LOCAL_ARGS , cand, dead
#define NONE 0xffffffffu

uint duel(__global const uchar *text, uint n, TABLE_SPACE const uchar *pat,
          TABLE_SPACE const TAB_T *tab, uint a, uint b)
{
    if (a == NONE)
        return b;
    if (b == NONE)
        return a;
    const uint lo = min(a, b), hi = max(a, b);
    const uint q = tab[hi - lo];
    const uint t = lo + q;
    if (t >= n)
        return hi; /* both would run past the text: the survivor fails verification */
    return FOLD(text[t]) != pat[q] ? hi : lo;
}

uint clm_scan_group(__global const uchar *text, uint n, uint owned, uint first,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only, __local uint *cand, __local uint *dead)
{
    const uint lid = (uint)get_local_id(0);
    const uint g = lid / GS, t = lid % GS;
    const uint block = first + ((uint)get_group_id(0) * (WG / GS) + g) * PI;
    uint found = 0;

    uint best = NONE;
    for (uint p = block + t; p < block + PI && p < owned; p += GS)
        best = duel(text, n, pat, tab, best, p);
    cand[lid] = best;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = GS / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            cand[lid] = duel(text, n, pat, tab, cand[lid], cand[lid + stride]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint s = cand[g * GS];
    if (t == 0)
        dead[g] = (s == NONE || s + M > n) ? 1u : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!dead[g]) {
        for (uint j = t; j < M; j += GS)
            if (FOLD(text[s + j]) != pat[j])
                dead[g] = 1u; /* several may write 1: same value */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0 && !dead[g])
        FOUND(s, info);
    return found;
}
