/* compact.cl - a stream's slab without its line breaks (CLM_STREAM_SKIP_LINE_BREAKS,
 * host/compact.c): the raw bytes come to the device as written, and three launches copy every
 * byte but '\n' and '\r' to the buffer the search kernels read, in order:
 *   clm_compact_count  group g: kept bytes of its block [g * BLOCK, g * BLOCK + BLOCK)
 *   clm_compact_scan   one group: those counts -> each block's offset (exclusive scan),
 *                      and the total after them
 *   clm_compact_move   group g: its kept bytes to their offset (a local scan of the items)
 * The host knows the kept total (it counts line breaks as it copies into staging), so no
 * count is read back: the search launches follow at once. WG (a power of two) work-items,
 * 16 bytes each. OpenCL C 1.2. */

#define BLOCK (16u * WG)

uint kept16(uchar16 v)
{
    const uchar16 nl = (uchar16)('\n'), cr = (uchar16)('\r');
    const char16 drop = (v == nl) | (v == cr); /* -1 where dropped */
    const char8 a = drop.lo + drop.hi;
    const char4 b = a.lo + a.hi;
    const char2 c = b.lo + b.hi;
    return 16u - (uint)(-(c.x + c.y));
}

/* This item's 16 bytes [i, i + 16) of src[0, n): how many are kept; *v gets them (0 past n). */
uint load16(__global const uchar *src, uint n, uint i, uchar16 *v)
{
    if (i + 16u <= n) {
        *v = vload16(0, src + i);
        return kept16(*v);
    }
    uchar b[16];
    uint k = 0;
    for (uint j = 0; j < 16u; ++j) {
        b[j] = i + j < n ? src[i + j] : (uchar)'\n';
        k += b[j] != '\n' && b[j] != '\r';
    }
    *v = vload16(0, b);
    return k;
}

/* Exclusive scan of x over the group (Hillis-Steele in local memory); *total gets the sum. */
uint group_scan(__local uint *s, uint x, uint *total)
{
    const uint l = get_local_id(0);
    s[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        const uint y = l >= d ? s[l - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[l] += y;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *total = s[WG - 1];
    const uint r = s[l] - x;
    barrier(CLK_LOCAL_MEM_FENCE); /* s may be reused */
    return r;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_compact_count(__global const uchar *src, uint n, __global uint *counts)
{
    __local uint s[WG];
    uchar16 v;
    const uint k = load16(src, n, get_group_id(0) * BLOCK + 16u * get_local_id(0), &v);
    uint total;
    group_scan(s, k, &total);
    if (get_local_id(0) == 0)
        counts[get_group_id(0)] = total;
}

/* One group: counts[0, groups) becomes the exclusive prefix sums. Item l takes a run of
 * consecutive blocks: once per slab, a few hundred thousand blocks at most. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_compact_scan(__global uint *counts, uint groups)
{
    __local uint s[WG];
    const uint l = get_local_id(0), per = (groups + WG - 1u) / WG;
    const uint a = min(groups, l * per), b = min(groups, a + per);
    uint sum = 0, total;
    for (uint i = a; i < b; ++i)
        sum += counts[i];
    uint at = group_scan(s, sum, &total);
    for (uint i = a; i < b; ++i) {
        const uint c = counts[i];
        counts[i] = at;
        at += c;
    }
    if (l == 0)
        counts[groups] = total; /* the kept total, which the host may check */
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_compact_move(__global const uchar *src, uint n, __global const uint *offsets,
                 __global uchar *dst)
{
    __local uint s[WG];
    uchar16 v;
    const uint k = load16(src, n, get_group_id(0) * BLOCK + 16u * get_local_id(0), &v);
    uint total, at = offsets[get_group_id(0)] + group_scan(s, k, &total);
    if (k == 16u) {
        vstore16(v, 0, dst + at);
        return;
    }
    uchar b[16];
    vstore16(v, 0, b);
    for (uint j = 0; j < 16u; ++j)
        if (b[j] != '\n' && b[j] != '\r')
            dst[at++] = b[j];
}
