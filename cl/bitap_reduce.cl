/* bitap_reduce.cl - exact shift-or bitap with one byte per work-item (seed 003's
 * exact_reduce). In shift-or form (bit set = mismatch) the state after byte i is
 *     R_i = OR over t = 0..M-1 of (D_{i-t} << t),   D_i = ~mask(text[i]),
 * and bit M-1 of R_i clear means the pattern ends at i. A work-group loads the masks of its
 * WG end positions plus HALO = 2^ceil(log2 M) - 1 bytes before them into local memory and
 * combines neighbours in log2(HALO + 1) doubling steps: x_i |= x_{i-s} << s. Coalesced
 * loads, no per-work-item overlap. Exact search, M <= 64 (one word). */

#define GROUP_KERNEL
#define GROUP_LOCALS __local ulong x[WG + HALO]
#define GROUP_LOCAL_ARGS , x

uint clm_scan_group(__global const uchar *text, uint n, uint owned, uint first,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only, __local ulong *x)
{
    const uint lid = (uint)get_local_id(0);
    /* end positions (inclusive) of this group: the matches starting in [first, owned) end
     * in [first + M - 1, owned + M - 1) */
    const uint base = first + (M - 1) + (uint)get_group_id(0) * WG;
    uint found = 0;
    for (uint j = lid; j < WG + HALO; j += WG) {
        const long p = (long)base - HALO + (long)j;
        /* outside the slab nothing can match: all-mismatch */
        x[j] = (p >= 0 && p < (long)n) ? ~tab[pat[text[p]]] : ~0ul;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s <= HALO; s <<= 1) {
        ulong v[(WG + HALO + WG - 1) / WG];
        uint c = 0;
        for (uint j = lid; j < WG + HALO; j += WG, ++c)
            v[c] = j >= s ? (x[j] | (x[j - s] << s)) : ~0ul;
        barrier(CLK_LOCAL_MEM_FENCE);
        c = 0;
        for (uint j = lid; j < WG + HALO; j += WG, ++c)
            x[j] = v[c];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint e = base + lid; /* inclusive end */
    if (e < n && !((x[HALO + lid] >> (M - 1)) & 1ul) && e + 1 - M < owned)
        FOUND(e + 1, info);
    return found;
}
