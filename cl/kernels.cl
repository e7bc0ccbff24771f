/* kernels.cl - the two entry points every algorithm shares (appended after the algorithm's
 * clm_scan_range). Their arguments, the match words and the counters: cl/contract.h. */

#define CLM_ARG_DECL0(NAME, TYPE, VAR) TYPE VAR
#define CLM_ARG_DECL(NAME, TYPE, VAR) , TYPE VAR
#define CLM_KERNEL_ARGS CLM_KERNEL_ARG_LIST(CLM_ARG_DECL0, CLM_ARG_DECL)

#if defined(ALGO_TABLES)
/* The algorithm's own placement of its tables (aho.cl AHO_HOT) */
#define CLM_TABLES ALGO_TABLES
#elif defined(TABLE_LOCAL)
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

/* The per-item path: the range of match starts [begin, begin + CHUNK), if any is owned. */
#define CLM_RANGE_SCAN(begin, count_only)                                                  \
    ((begin) < owned ? clm_scan_range(text, n, owned, (begin), pat, tab, counter, out, cap, \
                                      info, (count_only))                                  \
                     : 0u)

#if STAGE
/* Staging (host's choice: exact dfa and one-word bitap with tables in local memory). A
 * work-group loads a whole region of WG*CHUNK match starts, with the M-1 bytes past it, into
 * local memory with coalesced uint4 loads (lane l reads uint4s l, l + WG, ...; one padding
 * uint4 per chunk so the lanes' strided reads fall in different banks), then each work-item
 * walks its own chunk there (clm_scan_staged, in the algorithm's file, with its table
 * STAGE_T stab[STAGE_TAB_LEN] built from pat and tab by clm_stage_build). H200, 1 GiB: 1.6-1.7
 * TB/s reading each range straight from global memory, 2.2-2.6 staged one region per group
 * (bench/results/h200-j), 2.4-2.8 with the loop below (h200-k). */
#define CLM_STAGE_LOCALS                                                                   \
    __local uint4 stage[(WG + 1) * (STAGE_CU + 1)];                                        \
    __local STAGE_T stab[STAGE_TAB_LEN];                                                   \
    __local uint stage_next[1]

#define STAGE_SPAN (WG * CHUNK)
/* Is region r (match starts from first + r * STAGE_SPAN) whole: all owned, and the M-1
 * bytes past it (as whole uint4s) in the slab? Other regions (a slab's last) go per item. */
#define STAGE_WHOLE(r)                                                                     \
    (first + (r) * STAGE_SPAN + STAGE_SPAN <= owned &&                                     \
     first + (r) * STAGE_SPAN + STAGE_SPAN + 16u * STAGE_TAIL <= n)
/* uint4 q of a region goes to chunk q / STAGE_CU, after one padding uint4 per chunk */
#define STAGE_AT(q) ((q) / STAGE_CU * (STAGE_CU + 1) + (q) % STAGE_CU)

/* The host launches a few groups per compute unit (clm_compile_options.groups_per_unit,
 * tuning key groups), not one per region: a group walks its own region (group id) first,
 * then takes the next from a queue (CLM_COUNTER_QUEUE of its slot, zeroed by the host, plus
 * the number of groups) until the slab's are all taken, so the tables are built once per
 * group instead of once per region (dfa: 256 columns of up to 36 states), and the queue's
 * next index is fetched one region ahead. STAGE_PREFETCH: the next region's uint4s are
 * loaded into registers while the group walks this one (CHUNK/16 + 1 uint4s per work-item,
 * registers that cost occupancy: the host's choice). H200, staged kernels, m = 8-16: dfa
 * 2.68 vs 2.46-2.54 TB/s one region per group; bitap with prefetch 2.81 vs 2.59-2.62
 * (bench/results/h200-k). The loops that fill and drain the registers are unrolled: PoCL
 * 3.1 lost part of the text kept in a private array indexed in a loop across barriers
 * (oclgrind got it right). */
uint clm_stage_loop(__global const uchar *text, uint n, uint owned, uint first,
                    __local uint4 *stage, __local STAGE_T *stab, __local uint *next,
                    __local const uchar *pat, __local const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    const uint l = (uint)get_local_id(0), groups = (uint)get_num_groups(0);
    const uint regions = (owned - first + STAGE_SPAN - 1u) / STAGE_SPAN;
    __global uint *queue = counter + CLM_COUNTER_QUEUE(CLM_INFO_SLOT(info));
    __global const uint4 *t4 = (__global const uint4 *)(text + first);
    clm_stage_build(l, stab, pat, tab);
    uint found = 0, r = (uint)get_group_id(0), ahead = 0;
    if (l == 0u)
        ahead = groups + atomic_inc(queue);
#if STAGE_PREFETCH
    uint4 pre[STAGE_CU], pre_tail = (uint4)(0u);
#define STAGE_FETCH(r)                                                                     \
    do {                                                                                   \
        __global const uint4 *src_ = t4 + (r) * (STAGE_SPAN / 16u);                        \
        _Pragma("unroll") for (uint k_ = 0; k_ < STAGE_CU; ++k_)                           \
            pre[k_] = src_[l + k_ * WG];                                                   \
        if (l < STAGE_TAIL)                                                                \
            pre_tail = src_[WG * STAGE_CU + l];                                            \
    } while (0)
    if (r < regions && STAGE_WHOLE(r))
        STAGE_FETCH(r);
#endif
    /* r, whole and next are the same for every work-item: all reach each barrier */
    while (r < regions) {
        const int whole = STAGE_WHOLE(r);
        barrier(CLK_LOCAL_MEM_FENCE); /* the last walk is done with stage, all read next */
        if (whole) {
#if STAGE_PREFETCH
#pragma unroll
            for (uint k = 0; k < STAGE_CU; ++k)
                stage[STAGE_AT(l + k * WG)] = pre[k];
            if (l < STAGE_TAIL)
                stage[STAGE_AT(WG * STAGE_CU + l)] = pre_tail;
#else
            __global const uint4 *src = t4 + r * (STAGE_SPAN / 16u);
            for (uint q = l; q < WG * STAGE_CU + STAGE_TAIL; q += WG)
                stage[STAGE_AT(q)] = src[q];
#endif
        }
        if (l == 0u)
            *next = ahead;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint rn = *next;
        if (l == 0u && rn < regions)
            ahead = groups + atomic_inc(queue);
#if STAGE_PREFETCH
        if (rn < regions && STAGE_WHOLE(rn))
            STAGE_FETCH(rn);
#endif
        const uint begin = first + r * STAGE_SPAN + l * CHUNK;
        if (whole)
            found += clm_scan_staged(stage + l * (STAGE_CU + 1), stab, pat, begin, counter,
                                     out, cap, info, count_only);
        else
            found += CLM_RANGE_SCAN(begin, count_only);
        r = rn;
    }
    return found;
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
#if STAGE
#define CLM_SCAN(count_only)                                                               \
    CLM_STAGE_LOCALS;                                                                      \
    const uint found = clm_stage_loop(text, n, owned, first, stage, stab, stage_next, pat,  \
                                      tab, counter, out, cap, info, (count_only))
#else
/* Work-item g owns the match starts [first + g*CHUNK, first + (g+1)*CHUNK). */
#define CLM_SCAN(count_only)                                                               \
    const uint found = CLM_RANGE_SCAN(first + (uint)get_global_id(0) * CHUNK, count_only)
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
        atomic_add(counter + CLM_COUNTER_COUNT(CLM_INFO_SLOT(info)), found);
}

#if PACKED
/* Pack the slab text[0, n) for FOR_EACH_BYTE (common.cl; the layout: contract.h): work-item g
 * packs bases [16g, 16g + 16) into one uint of codes and 16 validity bits (0 past n).
 * Little-endian devices only (the host packs nowhere else). */
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
    __global uchar *blk = packed + CLM_PACK_BLOCK * (g >> 3);
    *(__global uint *)(blk + 4u * (g & 7u)) = d;
    *(__global ushort *)(blk + CLM_PACK_VALID + 2u * (g & 7u)) = (ushort)v;
}
#endif
