/* kernels.cl - the two entry points every algorithm shares (appended after the algorithm's
 * clm_scan_range). Arguments, in order:
 *   text     the slab (device buffer, 16-byte aligned)
 *   n        valid bytes in text
 *   owned    matches must start before this offset (the rest belong to the next slab)
 *   first    start offset of work-item 0's range (multiple of 16)
 *   pat_in   byte table (pattern or class map), PAT_LEN entries
 *   tab_in   ushort table (fail or transitions), TAB_LEN entries
 *   counter  clm_find: counter[0] = matches appended; clm_count: counter[1 + info] += count
 *   out      match buffer of cap entries, two uints each: (start, info)
 *   cap      capacity of out
 *   info     pattern index, stored with each match
 */

#define CLM_KERNEL_ARGS                                                                    \
    __global const uchar *text, uint n, uint owned, uint first, TABLE_ARG const uchar *pat_in, \
        TABLE_ARG const ushort *tab_in, __global uint *counter, __global uint *out, uint cap, \
        uint info

#if defined(TABLE_LOCAL)
/* Copy the tables into local memory once per work-group, before any work-item leaves. */
#define CLM_TABLES                                                                         \
    __local uchar pat[PAT_LEN];                                                            \
    __local ushort tab[TAB_LEN];                                                           \
    for (uint i_ = get_local_id(0); i_ < PAT_LEN; i_ += WG)                                \
        pat[i_] = pat_in[i_];                                                              \
    for (uint i_ = get_local_id(0); i_ < TAB_LEN; i_ += WG)                                \
        tab[i_] = tab_in[i_];                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)
#else
#define CLM_TABLES                                                                         \
    TABLE_SPACE const uchar *pat = pat_in;                                                 \
    TABLE_SPACE const ushort *tab = tab_in
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clm_find(CLM_KERNEL_ARGS)
{
    CLM_TABLES;
    const uint begin = first + (uint)get_global_id(0) * CHUNK;
    if (begin < owned)
        clm_scan_range(text, n, owned, begin, pat, tab, counter, out, cap, info, 0);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clm_count(CLM_KERNEL_ARGS)
{
    CLM_TABLES;
    const uint begin = first + (uint)get_global_id(0) * CHUNK;
    if (begin < owned) {
        uint found = clm_scan_range(text, n, owned, begin, pat, tab, counter, out, cap, info, 1);
        if (found)
            atomic_add(counter + 1 + info, found);
    }
}
