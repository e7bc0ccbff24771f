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

/* The candidates of a CLM_LIKE_TEXT_CHUNK at DATA[c] (bytes before AVAIL): bit j of *CA where
 * segment a's prefix may start at c + j, of *CB b's (TWO: there is a b). */
void clm_text_prefixes(__global const uchar *data, ulong c, ulong avail, uint16 segs, int two,
                       int caseless, ulong *pa, ulong *pb)
{
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
    *pa = ca;
    *pb = cb;
}

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
    ulong ca, cb;
    clm_text_prefixes(data, c, avail, segs, two, caseless, &ca, &cb);
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

/* clm_like_text_groups: rows a work-group, the row at every TEXT_GRAIN bytes of them
 * (TEXT_GRAINS of them at most) and the candidates queued (TEXT_QUEUE at most) */
#define TEXT_ROWS (8u * WG)
#define TEXT_GRAIN 64u
#define TEXT_GRAINS (8u * WG)
#define TEXT_QUEUE (8u * WG)

/* The group's row holding byte REL of its N rows (offsets LOFF): from GRAIN's row at REL's
 * grain when USE_GRAIN (the group's bytes fit it), else by a binary search. */
uint clm_text_group_row(__local const uint *loff, uint n, __local const ushort *grain,
                        int use_grain, uint rel)
{
    uint r;
    if (use_grain)
        r = grain[rel / TEXT_GRAIN];
    else {
        uint lo = 0u, hi = n;
        while (hi - lo > 1u) {
            const uint mid = (lo + hi) / 2u;
            if (loff[mid] <= rel)
                lo = mid;
            else
                hi = mid;
        }
        r = lo;
    }
    while (loff[r + 1u] <= rel)
        r++;
    return r;
}

/* Candidate E of the group (its byte REL from S0 shifted by 2; bit 1: a may start there, bit
 * 0: b): each segment found there whole and within one row is kept by that row (its first
 * a's end, its last b's start + 1). Returns the places kept. */
uint clm_text_place(__global const uchar *data, __global const uint *prog, uint16 segs,
                    ulong s0, ulong s1, uint e, __local const uint *loff, uint n,
                    __local const ushort *grain, int use_grain, __local uint *lfirst,
                    __local uint *llast)
{
    const int caseless = (segs.s7 & CLM_LIKE_F_CASELESS) != 0u;
    const uint rel = e >> 2, lenA = segs.s1, lenB = segs.s8;
    const ulong at = s0 + rel;
    const int a = (e & 2u) && clm_text_seg_at(data, at, s1, prog, segs.s0, lenA, caseless);
    const int b = (e & 1u) && clm_text_seg_at(data, at, s1, prog, segs.se, lenB, caseless);
    if (!a && !b)
        return 0u;
    const uint r = clm_text_group_row(loff, n, grain, use_grain, rel);
    uint kept = 0;
    if (a && rel + lenA <= loff[r + 1u]) {
        atomic_min(&lfirst[r], rel + lenA - loff[r]);
        kept++;
    }
    if (b && rel + lenB <= loff[r + 1u]) {
        atomic_max(&llast[r], rel - loff[r] + 1u);
        kept++;
    }
    return kept;
}

/* A work-item's candidates CA (a) and CB (b) at bits t: byte C - SHIFT + t of DATA; those in
 * the group's bytes [S0, S1) are queued (one reservation a chunk), past the queue's room
 * placed at once. Returns the places kept so. */
uint clm_text_queue(ulong ca, ulong cb, ulong c, uint shift, ulong s0, ulong s1,
                    __local uint *queue, volatile __local uint *queued,
                    __global const uchar *data, __global const uint *prog, uint16 segs,
                    __local const uint *loff, uint n, __local const ushort *grain,
                    int use_grain, __local uint *lfirst, __local uint *llast)
{
    /* the bits before s0 and from s1 on dropped */
    const ulong lo = c + 64u <= s0 + shift ? 64u : c >= s0 + shift ? 0u : s0 + shift - c;
    const ulong hi = c + 64u <= s1 + shift ? 64u : c >= s1 + shift ? 0u : s1 + shift - c;
    const ulong keep = (hi == 64u ? ~0ul : (1ul << hi) - 1ul) & (lo == 64u ? 0ul : ~0ul << lo);
    ca &= keep;
    cb &= keep;
    const ulong m0 = ca | cb;
    if (!m0)
        return 0u;
    uint at = atomic_add(queued, (uint)popcount(m0)), kept = 0;
    for (ulong m = m0; m; m &= m - 1ul, at++) {
        const uint t = 63u - (uint)clz(m & (0ul - m));
        const uint e = (uint)(c + t - shift - s0) << 2 | (uint)(ca >> t & 1ul) << 1 |
                       (uint)(cb >> t & 1ul);
        if (at < TEXT_QUEUE)
            queue[at] = e;
        else
            kept += clm_text_place(data, prog, segs, s0, s1, e, loff, n, grain, use_grain,
                                   lfirst, llast);
    }
    return kept;
}

/* Segment S's 4 bytes from its byte I (folded as the program holds them), a little-endian word. */
uint clm_text_quad(__global const uint *prog, uint sym, uint i)
{
    return prog[sym + i] | prog[sym + i + 1u] << 8 | prog[sym + i + 2u] << 16 |
           prog[sym + i + 3u] << 24;
}

/* Bits 3 - i + 4m (m, i: 0..3) where word m of Q equals P_i: a segment whose bytes i to i + 3
 * are P_i starts 3 - i + 4m - 3 bytes from Q's first. */
uint clm_text_hits(uint4 q, uint4 p)
{
    return ((uint)(q.x == p.x) << 3 | (uint)(q.x == p.y) << 2 | (uint)(q.x == p.z) << 1 |
            (uint)(q.x == p.w)) |
           ((uint)(q.y == p.x) << 3 | (uint)(q.y == p.y) << 2 | (uint)(q.y == p.z) << 1 |
            (uint)(q.y == p.w))
               << 4 |
           ((uint)(q.z == p.x) << 3 | (uint)(q.z == p.y) << 2 | (uint)(q.z == p.z) << 1 |
            (uint)(q.z == p.w))
               << 8 |
           ((uint)(q.w == p.x) << 3 | (uint)(q.w == p.y) << 2 | (uint)(q.w == p.z) << 1 |
            (uint)(q.w == p.w))
               << 12;
}

/* The same over 64 bytes, Q0 first. */
ulong clm_text_hits64(uint4 q0, uint4 q1, uint4 q2, uint4 q3, uint4 p)
{
    return (ulong)clm_text_hits(q0, p) | (ulong)clm_text_hits(q1, p) << 16 |
           (ulong)clm_text_hits(q2, p) << 32 | (ulong)clm_text_hits(q3, p) << 48;
}

/* Non-zero lanes where a word of Q is one of P's. */
int4 clm_text_any(uint4 q, uint4 p) { return q == p.x | q == p.y | q == p.z | q == p.w; }

/* 16 bytes from DATA[c] as four words, bytes past END as 0. */
uint4 clm_text_quad_at(__global const uchar *data, ulong c, ulong end)
{
    return (uint4)(clm_text_word(data, c, end, 0u), clm_text_word(data, c, end, 1u),
                   clm_text_word(data, c, end, 2u), clm_text_word(data, c, end, 3u));
}

uint4 clm_text_fold16(uint4 q)
{
    return (uint4)(clm_text_fold4(q.x), clm_text_fold4(q.y), clm_text_fold4(q.z),
                   clm_text_fold4(q.w));
}

/* clm_like_text_groups (STAGE 4, or 5 counting the places as stage 3 does): the batch's
 * short rows without per-row arrays in global memory. Work-group ORIGIN + k takes rows
 * [k TEXT_ROWS, (k + 1) TEXT_ROWS) of the batch: their offsets, their first a and last b live
 * in local memory. Its work-items search the rows' bytes a CLM_LIKE_TEXT_CHUNK each, WG
 * chunks apart, queueing their candidates; then take the queue's entries side by side (a
 * lane's few candidates no longer hold its warp's other lanes); then select 8 rows each (a
 * bitmap byte). ORIGIN and OWNED count groups here; INDEX, FIRST and LAST are not read.
 * Segments of 7 bytes or more (SEGS sf set) are found by their aligned words: each place
 * holds a 4-byte word at a multiple of 4 that is one of the segment's first four. Else by
 * 3-byte prefixes, as clm_like_text_search. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_like_text_groups(CLM_LIKE_TEXT_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    __local uint loff[TEXT_ROWS + 1], lfirst[TEXT_ROWS], llast[TEXT_ROWS], counts[8];
    __local uint queue[TEXT_QUEUE], queued;
    __local ushort grains[TEXT_GRAINS];
    const uint lid = (uint)get_local_id(0);
    const ulong grp = origin + get_group_id(0), r0 = grp * TEXT_ROWS;
    const uint lenA = segs.s1, lenB = segs.s8;
    const int two = lenB != 0u, caseless = (segs.s7 & CLM_LIKE_F_CASELESS) != 0u;
    /* a group past the batch has no rows (every work-item still meets the barriers) */
    const uint n = grp >= owned || r0 >= rows ? 0u
                   : rows - r0 < TEXT_ROWS    ? (uint)(rows - r0)
                                              : TEXT_ROWS;
    const ulong s0 = n ? (ulong)offsets[row_off + r0] - base : 0ul;
    for (uint i = lid; i <= TEXT_ROWS; i += WG)
        loff[i] = n ? (uint)((ulong)offsets[row_off + r0 + min(i, n)] - base - s0) : 0u;
    for (uint i = lid; i < TEXT_ROWS; i += WG) {
        lfirst[i] = 0xffffffffu;
        llast[i] = 0u;
    }
    if (lid < 8u)
        counts[lid] = 0u;
    if (lid == 0u)
        queued = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong s1 = s0 + loff[n];
    const int use_grain = loff[n] <= TEXT_GRAINS * TEXT_GRAIN;
    for (uint i = lid; use_grain && i < n; i += WG)
        for (uint k = (loff[i] + TEXT_GRAIN - 1u) / TEXT_GRAIN; k * TEXT_GRAIN < loff[i + 1u]; k++)
            grains[k] = (ushort)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint kept = 0;
#if defined(__ENDIAN_LITTLE__)
    if (segs.sf) {
        uint4 pa, pb = (uint4)(0u);
        pa = (uint4)(clm_text_quad(prog, segs.s0, 0u), clm_text_quad(prog, segs.s0, 1u),
                     clm_text_quad(prog, segs.s0, 2u), clm_text_quad(prog, segs.s0, 3u));
        if (two)
            pb = (uint4)(clm_text_quad(prog, segs.se, 0u), clm_text_quad(prog, segs.se, 1u),
                         clm_text_quad(prog, segs.se, 2u), clm_text_quad(prog, segs.se, 3u));
        for (ulong c = (s0 & ~(ulong)15) + (ulong)lid * CLM_LIKE_TEXT_CHUNK; c < s1;
             c += (ulong)WG * CLM_LIKE_TEXT_CHUNK) {
            uint4 q0, q1, q2, q3;
            if (c + 64u <= avail) {
                __global const uint4 *g = (__global const uint4 *)(data + c);
                q0 = g[0];
                q1 = g[1];
                q2 = g[2];
                q3 = g[3];
            } else {
                q0 = clm_text_quad_at(data, c, avail);
                q1 = clm_text_quad_at(data, c + 16u, avail);
                q2 = clm_text_quad_at(data, c + 32u, avail);
                q3 = clm_text_quad_at(data, c + 48u, avail);
            }
            if (caseless) {
                q0 = clm_text_fold16(q0);
                q1 = clm_text_fold16(q1);
                q2 = clm_text_fold16(q2);
                q3 = clm_text_fold16(q3);
            }
            int4 hit = clm_text_any(q0, pa) | clm_text_any(q1, pa) | clm_text_any(q2, pa) |
                       clm_text_any(q3, pa);
            if (two)
                hit |= clm_text_any(q0, pb) | clm_text_any(q1, pb) | clm_text_any(q2, pb) |
                       clm_text_any(q3, pb);
            if (any(hit))
                kept += clm_text_queue(clm_text_hits64(q0, q1, q2, q3, pa),
                                       two ? clm_text_hits64(q0, q1, q2, q3, pb) : 0ul, c, 3u,
                                       s0, s1, queue, &queued, data, prog, segs, loff, n,
                                       grains, use_grain, lfirst, llast);
        }
    } else
#endif
        for (ulong c = (s0 & ~(ulong)15) + (ulong)lid * CLM_LIKE_TEXT_CHUNK; c < s1;
             c += (ulong)WG * CLM_LIKE_TEXT_CHUNK) {
            ulong ca, cb;
            clm_text_prefixes(data, c, avail, segs, two, caseless, &ca, &cb);
            if (ca | cb)
                kept += clm_text_queue(ca, cb, c, 0u, s0, s1, queue, &queued, data, prog, segs,
                                       loff, n, grains, use_grain, lfirst, llast);
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint total = min(queued, TEXT_QUEUE);
    for (uint i = lid; i < total; i += WG)
        kept += clm_text_place(data, prog, segs, s0, s1, queue[i], loff, n, grains, use_grain,
                               lfirst, llast);
    if (stage == 5u && kept)
        atomic_add(places, kept);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int not = (segs.s7 & CLM_LIKE_F_NOT) != 0u;
    uint byte = 0;
    for (uint k = 0; k < 8u && lid * 8u + k < n; k++) {
        const uint i = lid * 8u + k;
        const ulong g = r0 + i, vb = vbit + g;
        const uint f = lfirst[i];
        const int found = f != 0xffffffffu && (!two || f < llast[i]);
        const int sel = (!has_valid || (valid[vb >> 3] >> (vb & 7) & 1)) && found != not;
        byte |= (uint)sel << k;
        if (want_pos)
            pos[g] = sel && !not ? (ulong)(f - lenA) : CLM_LIKE_NONE;
    }
    if (lid * 8u < n)
        bitmap[grp * (TEXT_ROWS / 8u) + lid] = (uchar)byte;
    if (byte)
        atomic_add(&counts[lid * 8u / WG], popcount(byte));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 8u && lid * WG < n)
        groups[grp * 8u + lid] = counts[lid];
}
