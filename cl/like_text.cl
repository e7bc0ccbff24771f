/* like_text.cl - LIKE '%a%' and '%a%b%' with literal segments (host/records_text.c, under
 * CLM_ROWS_FILTER): the batch's bytes are searched as one text for both segments, and each
 * place that lies within one row is kept by that row: the end of its first a and the start
 * of its last b (atomic min and max). A row is selected when it has an a that ends at or
 * before its last b starts; no row is read whole. Part of the records program: after
 * records.cl (OFF_T, clm_like_publish). */

/* A string of 4 bytes with its upper-case ASCII letters made lower-case (ILIKE). */
uint clm_text_fold4(uint w)
{
    const uint t = w & 0x7f7f7f7fu;
    const uint ge_a = t + 0x3f3f3f3fu;  /* high bit: the byte is 'A' or above */
    const uint gt_z = t + 0x25252525u;  /* high bit: the byte is above 'Z' */
    return w | ((ge_a & ~gt_z & ~w & 0x80808080u) >> 2);
}

/* Bit j (0..3) set where the segment's prefix (its first 1 to 3 bytes, PRE, each byte
 * replicated in P0..P2 with K1, K2 masking the bytes it lacks) may start at byte j of word a:
 * b and c are the words one and two bytes on. A zero byte of the OR of the XORs is a place
 * where all three bytes agree; the test may also flag a byte above a true one (borrows), which
 * the comparison of the whole segment then rejects. */
uint clm_text_cand(uint a, uint b, uint c, uint p0, uint p1, uint p2, uint k1, uint k2)
{
    const uint t = (a ^ p0) | ((b ^ p1) & k1) | ((c ^ p2) & k2);
    const uint z = (t - 0x01010101u) & ~t & 0x80808080u;
    return (z >> 7 & 1u) | (z >> 14 & 2u) | (z >> 21 & 4u) | (z >> 28 & 8u);
}

/* Whether the segment (LEN symbols at prog[SYM]) is at DATA[at], all of it before END. */
int clm_text_seg_at(__global const uchar *data, ulong at, ulong end, __global const uint *prog,
                    uint sym, uint len, int caseless)
{
    if (at + len > end)
        return 0;
    for (uint j = 0; j < len; j++) {
        uchar c = data[at + j];
        if (caseless)
            c = clm_like_fold(c);
        if (c != prog[sym + j])
            return 0;
    }
    return 1;
}

/* The row of the batch holding byte AT of DATA (AT within the batch's bytes): the index's
 * row at AT's grain, then on while the next row starts at or before AT. */
uint clm_text_row(__global const OFF_T *offsets, ulong row_off, ulong base, uint rows,
                  __global const uint *index, ulong b0, ulong at)
{
    uint r = index[(at - b0) / CLM_LIKE_TEXT_GRAIN];
    while (r + 1u < rows && (ulong)offsets[row_off + r + 1] - base <= at)
        r++;
    return r;
}

/* Word i (0..19) of the 80 bytes from DATA[c]: bytes past END read as 0. */
uint clm_text_word(__global const uchar *data, ulong c, ulong end, uint i)
{
    uint w = 0;
    for (uint j = 0; j < 4u; j++) {
        const ulong at = c + 4u * i + j;
        if (at < end)
            w |= (uint)data[at] << (8u * j);
    }
    return w;
}

/* Each word's candidates for segment A (bits 4k..4k+3 of *ca: word k) and B, words K and K + 1
 * of the chunk being W0 and W1. */
#define TEXT_WORD(K, W0, W1)                                                               \
    do {                                                                                   \
        uint a_ = (W0), n_ = (W1);                                                         \
        if (caseless) {                                                                    \
            a_ = clm_text_fold4(a_);                                                       \
            n_ = clm_text_fold4(n_);                                                       \
        }                                                                                  \
        const uint b_ = (a_ >> 8) | (n_ << 24), c_ = (a_ >> 16) | (n_ << 16);               \
        ca |= (ulong)clm_text_cand(a_, b_, c_, segs.s2, segs.s3, segs.s4, segs.s5, segs.s6) \
              << (4u * (K));                                                               \
        if (two)                                                                           \
            cb |= (ulong)clm_text_cand(a_, b_, c_, segs.s9, segs.sa, segs.sb, segs.sc,     \
                                       segs.sd)                                            \
                  << (4u * (K));                                                           \
    } while (0)

#define TEXT_QUAD(K, Q, NEXT)                                                              \
    do {                                                                                   \
        TEXT_WORD(4 * (K), (Q).x, (Q).y);                                                  \
        TEXT_WORD(4 * (K) + 1, (Q).y, (Q).z);                                              \
        TEXT_WORD(4 * (K) + 2, (Q).z, (Q).w);                                              \
        TEXT_WORD(4 * (K) + 3, (Q).w, (NEXT));                                             \
    } while (0)

/* Three kernels of one argument list (each its own registers: the search's must not thin
 * out the per-row passes' work-items). clm_like_text_index (STAGE 0): a work-item per row
 * clears its FIRST and LAST and writes the index (the row holding byte B0 + k GRAIN of DATA,
 * for each k its bytes hold; row 0 from k = 0). */
__kernel void clm_like_text_index(CLM_LIKE_TEXT_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    const uint g = (uint)get_global_id(0);
    if (g >= rows)
        return;
    first[g] = 0xffffffffu;
    if (segs.s8)
        last[g] = 0u;
    const ulong s = (ulong)offsets[row_off + g] - base;
    const ulong e = (ulong)offsets[row_off + g + 1] - base;
    for (ulong k = g ? (s - b0 + CLM_LIKE_TEXT_GRAIN - 1) / CLM_LIKE_TEXT_GRAIN : 0;
         b0 + k * CLM_LIKE_TEXT_GRAIN < e; k++)
        index[k] = g;
}

/* clm_like_text_select (STAGE 2): a work-item per row, its selection (NULL rows never),
 * position and count (clm_like_publish). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_like_text_select(CLM_LIKE_TEXT_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    __local uint words[WG / 32];
    const uint g = (uint)get_global_id(0);
    clm_like_words_clear(words);
    int sel = 0;
    if (g < rows) {
        const ulong vb = vbit + g;
        const uint f = first[g];
        const int not = (segs.s7 & CLM_LIKE_F_NOT) != 0u;
        const int found = f != 0xffffffffu && (!segs.s8 || f < last[g]);
        sel = (!has_valid || (valid[vb >> 3] >> (vb & 7) & 1)) && found != not;
        if (want_pos)
            pos[g] = sel && !not ? (ulong)(f - segs.s1) : CLM_LIKE_NONE;
    }
    clm_like_publish(words, sel, rows, bitmap, groups);
}

/* clm_like_text_search (STAGE 1, or 3 counting the places in PLACES): a work-item per CHUNK
 * bytes from ORIGIN finds the segments' places there (starts before OWNED, bytes before
 * AVAIL) and keeps those within a row of the batch. */
__kernel void clm_like_text_search(CLM_LIKE_TEXT_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    const uint g = (uint)get_global_id(0);
    const uint lenA = segs.s1, lenB = segs.s8;
    const int two = lenB != 0u, caseless = (segs.s7 & CLM_LIKE_F_CASELESS) != 0u;
    const ulong c = origin + (ulong)g * CLM_LIKE_TEXT_CHUNK;
    if (c >= owned)
        return;
    ulong ca = 0, cb = 0;
#if defined(__ENDIAN_LITTLE__)
    if (c + 80u <= avail) {
        __global const uint4 *q = (__global const uint4 *)(data + c);
        const uint4 q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3], q4 = q[4];
        TEXT_QUAD(0, q0, q1.x);
        TEXT_QUAD(1, q1, q2.x);
        TEXT_QUAD(2, q2, q3.x);
        TEXT_QUAD(3, q3, q4.x);
    } else
#endif
    {
        uint w0 = clm_text_word(data, c, avail, 0u);
        for (uint k = 0; k < 16u; k++) {
            const uint w1 = clm_text_word(data, c, avail, k + 1u);
            TEXT_WORD(k, w0, w1);
            w0 = w1;
        }
    }
    if (!(ca | cb))
        return;
    /* the places in order, the row in hand kept until a place lies past it: one index
     * lookup a work-item, and a row's places met here go to it in one atomic each */
    uint r = 0xffffffffu, fa = 0xffffffffu, lb = 0u, kept = 0;
    ulong start = 0, end = 0;
    for (ulong m = ca | cb; m; m &= m - 1ul) {
        const uint j = 63u - (uint)clz(m & (0ul - m)); /* the lowest candidate */
        const ulong at = c + j;
        if (at >= owned)
            break;
        const int a = (ca >> j & 1ul) && clm_text_seg_at(data, at, avail, prog, segs.s0, lenA,
                                                          caseless);
        const int b = (cb >> j & 1ul) && clm_text_seg_at(data, at, avail, prog, segs.se, lenB,
                                                          caseless);
        if (!a && !b)
            continue;
        if (r == 0xffffffffu || at >= end) {
            if (fa != 0xffffffffu)
                atomic_min(&first[r], fa);
            if (lb)
                atomic_max(&last[r], lb);
            fa = 0xffffffffu;
            lb = 0u;
            if (r == 0xffffffffu)
                r = clm_text_row(offsets, row_off, base, rows, index, b0, at);
            while (r + 1u < rows && (ulong)offsets[row_off + r + 1] - base <= at)
                r++;
            start = (ulong)offsets[row_off + r] - base;
            end = (ulong)offsets[row_off + r + 1] - base;
        }
        if (at < start) /* before the batch's first row */
            continue;
        if (a && at + lenA <= end) {
            if (fa == 0xffffffffu)
                fa = (uint)(at + lenA - start);
            kept++;
        }
        if (b && at + lenB <= end) {
            lb = (uint)(at - start + 1u);
            kept++;
        }
    }
    if (fa != 0xffffffffu)
        atomic_min(&first[r], fa);
    if (lb)
        atomic_max(&last[r], lb);
    if (stage == 3u && kept)
        atomic_add(places, kept);
}
