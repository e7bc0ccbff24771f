/* kernels.cl - the two entry points every algorithm shares (appended after the algorithm's
 * clm_scan_range). Arguments, in order:
 *   text     the slab (device buffer, 16-byte aligned)
 *   n        valid bytes in text
 *   owned    matches must start before this offset (the rest belong to the next slab)
 *   first    start of the owned range (item kernels: work-item 0 begins here; a multiple of
 *            16 except in approximate search, which starts LEAD bytes into the slab)
 *   pat_in   byte table (pattern or class map), PAT_LEN entries
 *   tab_in   TAB_T table (fail, transitions, masks, shifts or witnesses), TAB_LEN entries
 *   counter  clm_find: counter[0] = matches appended; clm_count: counter[1 + info] += count
 *   out      match buffer of cap entries, two uints each: (start, info)
 *   cap      capacity of out
 *   info     pattern index, stored with each match (end-reporting kernels add the edit
 *            count in bits 24..31)
 */

#define CLM_KERNEL_ARGS                                                                    \
    __global const uchar *text, uint n, uint owned, uint first, TABLE_ARG const uchar *pat_in, \
        TABLE_ARG const TAB_T *tab_in, __global uint *counter, __global uint *out, uint cap,   \
        uint info

#if defined(TABLE_LOCAL)
/* Copy the tables into local memory once per work-group, before any work-item leaves. */
#define CLM_TABLES                                                                         \
    __local uchar pat[PAT_LEN];                                                            \
    __local TAB_T tab[TAB_LEN];                                                            \
    for (uint i_ = get_local_id(0); i_ < PAT_LEN; i_ += WG)                                \
        pat[i_] = pat_in[i_];                                                              \
    for (uint i_ = get_local_id(0); i_ < TAB_LEN; i_ += WG)                                \
        tab[i_] = tab_in[i_];                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)
#else
#define CLM_TABLES                                                                         \
    TABLE_SPACE const uchar *pat = pat_in;                                                 \
    TABLE_SPACE const TAB_T *tab = tab_in
#endif

#if STAGE
/* Staging (host's choice: exact dfa and one-word bitap with tables in local memory). A
 * work-group whose whole region [g, g + WG*CHUNK) is owned, with the M-1 bytes past it in
 * the slab, first loads the region into local memory with coalesced uint4 loads (lane l
 * reads uint4s l, l + WG, ...; one padding uint4 per chunk so the lanes' strided reads fall
 * in different banks), then each work-item walks its own chunk there (clm_scan_staged, in
 * the algorithm's file, with its table STAGE_T stab[STAGE_TAB_LEN] built from pat and tab
 * by clm_stage_build). H200, 1 GiB: dfa 2.24-2.57 TB/s and bitap 2.37-2.65 at m = 4-32
 * against 1.6-1.7 reading each range straight from global memory (bench/results/h200-j,
 * h200-e). Any other group takes the per-item path. */
#define CLM_STAGE_LOCALS                                                                   \
    __local uint4 stage[(WG + 1) * (STAGE_CU + 1)];                                        \
    __local STAGE_T stab[STAGE_TAB_LEN]

uint clm_stage_scan(__global const uchar *text, uint gbegin, __local uint4 *stage,
                    __local STAGE_T *stab, __local const uchar *pat, __local const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    const uint l = (uint)get_local_id(0);
    clm_stage_build(l, stab, pat, tab);
    __global const uint4 *t4 = (__global const uint4 *)(text + gbegin);
    for (uint q = l; q < WG * STAGE_CU + STAGE_TAIL; q += WG)
        stage[q / STAGE_CU * (STAGE_CU + 1) + q % STAGE_CU] = t4[q];
    barrier(CLK_LOCAL_MEM_FENCE);
    return clm_scan_staged(stage + l * (STAGE_CU + 1), stab, pat, gbegin + l * CHUNK, counter,
                           out, cap, info, count_only);
}
#endif

#ifdef GROUP_KERNEL
/* The work-group works together (local-memory reductions with barriers): every work-item
 * of the group calls clm_scan_group, none leaves early. */
#define CLM_SCAN(count_only)                                                               \
    GROUP_LOCALS;                                                                          \
    uint found = clm_scan_group(text, n, owned, first, pat, tab, counter, out, cap, info,  \
                                (count_only)GROUP_LOCAL_ARGS)
#else
/* Work-item g owns the match starts [first + g*CHUNK, first + (g+1)*CHUNK). */
#define CLM_ITEM_BEGIN (first + (uint)get_global_id(0) * CHUNK)
#define CLM_ITEM_SCAN(count_only)                                                          \
    (CLM_ITEM_BEGIN < owned ? clm_scan_range(text, n, owned, CLM_ITEM_BEGIN, pat, tab,     \
                                             counter, out, cap, info, (count_only))        \
                            : 0u)
#if STAGE
/* the test is the same for every work-item of a group, so all or none reach the barrier */
#define CLM_SCAN(count_only)                                                               \
    CLM_STAGE_LOCALS;                                                                      \
    const uint gbegin = first + (uint)get_group_id(0) * (WG * CHUNK);                      \
    const uint found =                                                                     \
        gbegin + WG * CHUNK <= owned && gbegin + WG * CHUNK + 16u * STAGE_TAIL <= n        \
            ? clm_stage_scan(text, gbegin, stage, stab, pat, tab, counter, out, cap, info, \
                             (count_only))                                                 \
            : CLM_ITEM_SCAN(count_only)
#else
#define CLM_SCAN(count_only) const uint found = CLM_ITEM_SCAN(count_only)
#endif
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clm_find(CLM_KERNEL_ARGS)
{
    CLM_TABLES;
    CLM_SCAN(0);
    (void)found;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clm_count(CLM_KERNEL_ARGS)
{
    CLM_TABLES;
    CLM_SCAN(1);
    if (found)
        atomic_add(counter + 1 + (info & 0xffffffu), found);
}

#if PACKED
/* Pack the slab text[0, n) for FOR_EACH_BYTE (common.cl): work-item g packs bases
 * [16g, 16g + 16) into one uint of codes and 16 validity bits (0 past n). Little-endian
 * devices only (the host packs nowhere else). */
__kernel void clm_pack(__global const uchar *text, uint n, __global uchar *packed)
{
    const uint g = (uint)get_global_id(0), i0 = 16u * g;
    if (i0 >= n)
        return;
    uint w[4] = {0u, 0u, 0u, 0u};
    if (i0 + 16u <= n) {
        const uint4 t = ((__global const uint4 *)text)[g];
        w[0] = t.x;
        w[1] = t.y;
        w[2] = t.z;
        w[3] = t.w;
    } else {
        for (uint j = 0; i0 + j < n; ++j)
            w[j >> 2] |= (uint)text[i0 + j] << (8u * (j & 3u));
    }
    uint d = 0, v = 0;
    for (uint j = 0; j < 16u; ++j) {
        const uint c = (w[j >> 2] >> (8u * (j & 3u))) & 0xffu, u = c & 0xdfu;
        const uint code = u == 'A' ? 0u : u == 'C' ? 1u : u == 'G' ? 2u : u == 'T' ? 3u : 4u;
#if PACK_CASE == 0
        const uint ok = code < 4u && c == u;
#elif PACK_CASE == 1
        const uint ok = code < 4u && c != u;
#else
        const uint ok = code < 4u;
#endif
        d |= (code & 3u) << (2u * j);
        v |= ok << j;
    }
    __global uchar *blk = packed + 48u * (g >> 3);
    *(__global uint *)(blk + 4u * (g & 7u)) = d;
    *(__global ushort *)(blk + 32u + 2u * (g & 7u)) = (ushort)v;
}
#endif
