/* records.cl - SQL LIKE and approximate contains (clm_like_approx) over a string column
 * (host/records.c): a work-item per row decides whether the predicate (cl/contract.h
 * CLM_LIKE_*, compiled by host/like.c and host/approx.c) selects it; a second kernel turns
 * the selection bitmap into ascending row ids from each work-group's base, an exclusive
 * prefix sum of the per-group counts. A disjunction of contains may walk one Aho-Corasick
 * automaton per row instead (clm_like_aho_*). Build options: RECORDS (the offsets' width,
 * 32 or 64), WG (a multiple of 32), LIKE_APPROX (1: the predicate has an approximate
 * pattern; else its matcher, whose states take registers, is left out of every kernel) and
 * LIKE_BLOCK (filter and verify's block, cl/contract.h); LIKE_FIND (how a work-item finds a
 * segment in its row: 0 by its first byte, 1 KMP_basic, 2 KMP_step, 3 KMP_hybrid, seed 004
 * section 5.2, 4 by its first byte 16 places a load) with LIKE_KMP_MAX (the most prog words
 * KMP's tables cover). */

#if RECORDS == 64
#define OFF_T ulong
#else
#define OFF_T uint
#endif

#ifndef PIVOT
#define PIVOT 0
#endif
#ifndef LIKE_BLOCK
#define LIKE_BLOCK CLM_LIKE_BLOCK
#endif
#ifndef LIKE_FIND
#define LIKE_FIND 0
#endif
/* KMP's failure tables live in local memory, an entry per symbol of prog: the kernels that
 * match rows take them as an extra argument of their matchers. */
#define LIKE_KMP (LIKE_FIND >= 1 && LIKE_FIND <= 3)
#if LIKE_KMP
#define KMP_PARAM , __local const ushort *kmp
#define KMP_PASS , kmp
#define KMP_DECL __local ushort kmp[LIKE_KMP_MAX];
#define KMP_BUILD clm_like_kmp_tables(prog, kmp);
#define CLM_LIKE_KMP_OFF 0xffffu /* kmp[sym]: the segment has a '_': found by first byte */
#else
#define KMP_PARAM
#define KMP_PASS
#define KMP_DECL
#define KMP_BUILD
#endif
/* Byte j of the row whose first byte is *row: in a pivoted column (PIVOT: its piece width,
 * clm_column_pivot) the row's pieces are CLM_PIVOT_GROUP pieces apart; in a self-pivoted one
 * (SELF_SEGS segments of SELF_LEN bytes a chunk, clm_column_self_pivot) piece p of segment s
 * of a chunk is at p * SELF_SEGS + s pieces from the chunk's start. */
#ifndef SELF_SEGS
#define SELF_SEGS 0
#endif
#if SELF_SEGS
#define SELF_CHUNK (SELF_SEGS * SELF_LEN)
#define ROW_AT(row, j)                                                                      \
    ((row)[(j) / SELF_CHUNK * SELF_CHUNK +                                                 \
           ((j) % SELF_LEN / PIVOT * SELF_SEGS + (j) % SELF_CHUNK / SELF_LEN) * PIVOT +    \
           (j) % PIVOT])
#elif PIVOT
#define ROW_AT(row, j) ((row)[(j) / PIVOT * (CLM_PIVOT_GROUP * PIVOT) + (j) % PIVOT])
#else
#define ROW_AT(row, j) ((row)[j])
#endif

#define CLM_LIKE_DECL0(NAME, TYPE, VAR) TYPE VAR
#define CLM_LIKE_DECL(NAME, TYPE, VAR) , TYPE VAR

uchar clm_like_fold(uchar c) { return c >= 'A' && c <= 'Z' ? (uchar)(c | 0x20) : c; }

/* Byte i of the row, folded for ILIKE. */
uchar clm_like_byte(__global const uchar *row, ulong i, int caseless)
{
    uchar c = ROW_AT(row, i);
    return caseless ? clm_like_fold(c) : c;
}

/* Whether the segment of `len` symbols at prog[sym] matches row[at, at + len). */
int clm_like_seg_at(__global const uchar *row, ulong at, __global const uint *prog, uint sym,
                    uint len, int caseless)
{
    for (uint j = 0; j < len; j++) {
        uint p = prog[sym + j];
        uchar c = clm_like_byte(row, at + j, caseless);
        if (p != CLM_LIKE_ANY && c != p)
            return 0;
    }
    return 1;
}

#if LIKE_KMP
/* The failure tables of every segment without '_' of every exact pattern: kmp[sym + j] the
 * longest proper border of the segment's first j + 1 symbols (kmp[sym] = CLM_LIKE_KMP_OFF
 * for a segment with a '_'). A work-item per segment; every work-item of the group calls
 * it. The host asks for LIKE_FIND only when prog has at most LIKE_KMP_MAX words. */
void clm_like_kmp_tables(__global const uint *prog, __local ushort *kmp)
{
    const uint lid = (uint)get_local_id(0), wg = (uint)get_local_size(0);
    uint g = 0;
    for (uint i = 0; i < prog[0]; i++) {
        const uint head = 1 + i * CLM_LIKE_HEAD;
        if (prog[head + CLM_LIKE_FLAGS] & CLM_LIKE_F_APPROX)
            continue;
        const uint seg = prog[head + CLM_LIKE_SEG], segs = prog[head + CLM_LIKE_SEGS];
        for (uint k = 0; k < segs; k++, g++) {
            const uint sym = prog[seg + 2 * k], len = prog[seg + 2 * k + 1];
            if (g % wg != lid || len == 0)
                continue;
            int plain = 1;
            for (uint j = 0; j < len; j++)
                plain &= prog[sym + j] != CLM_LIKE_ANY;
            kmp[sym] = plain ? 0 : CLM_LIKE_KMP_OFF;
            for (uint j = 1, b = 0; plain && j < len; j++) {
                while (b && prog[sym + j] != prog[sym + b])
                    b = kmp[sym + b - 1];
                if (prog[sym + j] == prog[sym + b])
                    b++;
                kmp[sym + j] = (ushort)b;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* clm_like_find by Knuth-Morris-Pratt over row[lo, hi) for a segment without '_', as seed
 * 004 writes it: basic advances the row or the pattern at each step (lanes drift apart);
 * step takes one byte per step, the failure links in an inner loop; hybrid takes 4 bytes per
 * outer step (one load in a contiguous row) and basic's steps over them. */
ulong clm_like_kmp(__global const uchar *row, ulong lo, ulong hi, __global const uint *prog,
                   uint sym, uint len, int caseless, __local const ushort *kmp)
{
    uint j = 0;
#if LIKE_FIND == 1
    for (ulong i = lo; i < hi;) {
        if (prog[sym + j] == clm_like_byte(row, i, caseless)) {
            i++;
            if (++j == len)
                return i - len;
        } else if (j)
            j = kmp[sym + j - 1];
        else
            i++;
    }
#elif LIKE_FIND == 2
    for (ulong i = lo; i < hi; i++) {
        const uint c = clm_like_byte(row, i, caseless);
        while (j && prog[sym + j] != c)
            j = kmp[sym + j - 1];
        if (prog[sym + j] == c && ++j == len)
            return i + 1 - len;
    }
#else
    for (ulong i = lo; i < hi; i += 4) {
        uchar4 t;
        if (i + 4 <= hi)
#if PIVOT
            t = (uchar4)(ROW_AT(row, i), ROW_AT(row, i + 1), ROW_AT(row, i + 2),
                         ROW_AT(row, i + 3));
#else
            t = vload4(0, row + i);
#endif
        else
            t = (uchar4)(ROW_AT(row, i), i + 1 < hi ? ROW_AT(row, i + 1) : 0,
                         i + 2 < hi ? ROW_AT(row, i + 2) : 0, 0);
        if (caseless)
            t = (uchar4)(clm_like_fold(t.s0), clm_like_fold(t.s1), clm_like_fold(t.s2),
                         clm_like_fold(t.s3));
        const uint w = (uint)t.s0 | (uint)t.s1 << 8 | (uint)t.s2 << 16 | (uint)t.s3 << 24;
        const uint end = hi - i < 4 ? (uint)(hi - i) : 4u;
        for (uint k = 0; k < end;) { /* seed 004's branch-reduced inner loop */
            const uint c = (w >> (8 * k)) & 0xffu;
            const int cmp = prog[sym + j] == c, adv = cmp || j == 0;
            if (!adv)
                j = kmp[sym + j - 1];
            j += cmp;
            k += adv;
            if (j == len)
                return i + k - len;
        }
    }
#endif
    return CLM_LIKE_NONE;
}
#endif

/* The leftmost place in [lo, hi - len] where the segment matches, or CLM_LIKE_NONE. Places
 * are tried where the segment's first byte (not '_') is: a loop over the row's bytes that
 * keeps only that byte in hand, not the whole segment (or by KMP, LIKE_FIND). */
ulong clm_like_find(__global const uchar *row, ulong lo, ulong hi, __global const uint *prog,
                    uint sym, uint len, int caseless KMP_PARAM)
{
#if LIKE_KMP
    if (len && kmp[sym] != CLM_LIKE_KMP_OFF)
        return lo + len > hi ? CLM_LIKE_NONE
                             : clm_like_kmp(row, lo, hi, prog, sym, len, caseless, kmp);
#endif
    uint lead = 0;
    while (lead < len && prog[sym + lead] == CLM_LIKE_ANY)
        lead++;
    if (lo + len > hi)
        return CLM_LIKE_NONE;
    if (lead == len) /* '_' alone: the first place */
        return lo;
    const uint first = prog[sym + lead];
    ulong at = lo;
#if LIKE_FIND == 4 && !PIVOT && !SELF_SEGS
    /* 16 places a step: one load of the bytes in the first byte's place (and one of the next
     * byte's, when the segment has one: a pair is far rarer than a byte), one compare each
     * (a CPU's vector registers); the places where all are equal are then checked in order */
    const uint two = lead + 1 < len && prog[sym + lead + 1] != CLM_LIKE_ANY;
    const uchar16 f = (uchar16)((uchar)first);
    const uchar16 g = (uchar16)((uchar)(two ? prog[sym + lead + 1] : 0));
    for (; at + lead + 16 + two <= hi && at + len <= hi; at += 16) {
        uchar16 v = vload16(0, row + at + lead);
        if (caseless)
            v |= (uchar16)0x20 & as_uchar16((v >= (uchar16)'A') & (v <= (uchar16)'Z'));
        char16 eq = v == f;
        if (two) {
            uchar16 w = vload16(0, row + at + lead + 1);
            if (caseless)
                w |= (uchar16)0x20 & as_uchar16((w >= (uchar16)'A') & (w <= (uchar16)'Z'));
            eq &= w == g;
        }
        const ulong2 m = as_ulong2(eq);
        for (uint h = 0; h < 2; h++) {
            for (ulong x = h ? m.s1 : m.s0; x;) { /* the lowest place first */
                const uint b = (uint)popcount((x & (~x + 1)) - 1); /* its bit: 8 x lane */
                const ulong k = at + 8 * h + b / 8;
                if (k + len > hi)
                    return CLM_LIKE_NONE;
                if (clm_like_seg_at(row, k, prog, sym, len, caseless))
                    return k;
                x &= ~((ulong)0xff << b);
            }
        }
    }
#endif
    for (; at + len <= hi; at++) {
        if (clm_like_byte(row, at + lead, caseless) == first &&
            clm_like_seg_at(row, at, prog, sym, len, caseless))
            return at;
    }
    return CLM_LIKE_NONE;
}

#if LIKE_APPROX
/* Whether the approximate pattern head (CLM_LIKE_F_APPROX) occurs in the row of n bytes,
 * by the bit-parallel automaton of Wu and Manber: bit i of state d is set when the
 * pattern's first i + 1 bytes end here within d errors; an occurrence ends where state k's
 * bit m - 1 is set, and *pos gets the first such end (exclusive). A substitution advances
 * from state d - 1 over the byte; edits add an insertion (state d - 1, the byte skipped) and
 * a deletion (the new state d - 1, a pattern byte skipped). The loops over the states have
 * a constant bound, so that they unroll and the states stay in registers. clm_like_one has
 * checked the row's length against MIN. */
int clm_like_approx(__global const uchar *row, ulong n, __global const uint *prog, uint head,
                    ulong *pos)
{
    const uint flags = prog[head + CLM_LIKE_FLAGS], masks = prog[head + CLM_LIKE_SEG];
    const uint k = flags >> CLM_LIKE_K_SHIFT;
    const int edits = !(flags & CLM_LIKE_F_MISMATCHES);
    const ulong end = (ulong)1 << (prog[head + CLM_LIKE_SEGS] - 1);
    ulong st[CLM_LIKE_APPROX_MAX_K + 1];
    for (uint d = 0; d <= CLM_LIKE_APPROX_MAX_K; d++) /* edits: d deletions before the row */
        st[d] = edits ? ((ulong)1 << d) - 1 : 0;
    for (ulong j = 0; j < n; j++) {
        const uint c = ROW_AT(row, j);
        const ulong b = (ulong)prog[masks + 2 * c] | (ulong)prog[masks + 2 * c + 1] << 32;
        ulong before = st[0]; /* state d - 1 before this byte */
        st[0] = ((st[0] << 1) | 1) & b;
        ulong top = st[0];
        for (uint d = 1; d <= CLM_LIKE_APPROX_MAX_K; d++) {
            if (d > k)
                continue;
            const ulong old = st[d];
            ulong next = (((old << 1) | 1) & b) | (before << 1) | 1;
            if (edits)
                next |= before | (st[d - 1] << 1);
            st[d] = next;
            before = old;
            top = next;
        }
        if (top & end) {
            *pos = j + 1;
            return 1;
        }
    }
    return 0;
}
#endif

/* Whether pattern head (its header in prog) matches the whole row of n bytes (an
 * approximate one: occurs in it, clm_like_approx); *pos gets where its first segment went.
 * Segments between '%' go to their leftmost place from the end of the one before: for runs
 * of fixed length separated by '%' that placement finds a match whenever one exists. */
int clm_like_one(__global const uchar *row, ulong n, __global const uint *prog, uint head,
                 ulong *pos KMP_PARAM)
{
    uint flags = prog[head + CLM_LIKE_FLAGS], segs = prog[head + CLM_LIKE_SEGS];
    uint seg = prog[head + CLM_LIKE_SEG];
    int caseless = (flags & CLM_LIKE_F_CASELESS) != 0;
    if (n < prog[head + CLM_LIKE_MIN])
        return 0;
    ulong lo = 0, hi = n;
    uint s = 0, e = segs;
    *pos = 0;
#if LIKE_APPROX
    if (flags & CLM_LIKE_F_APPROX)
        return clm_like_approx(row, n, prog, head, pos);
#endif
    if (flags & CLM_LIKE_F_EXACT)
        return n == prog[seg + 1] && clm_like_seg_at(row, 0, prog, prog[seg], prog[seg + 1],
                                                     caseless);
    if ((flags & CLM_LIKE_F_START) && s < e) {
        uint len = prog[seg + 1];
        if (!clm_like_seg_at(row, 0, prog, prog[seg], len, caseless))
            return 0;
        lo = len;
        s++;
    }
    if ((flags & CLM_LIKE_F_END) && s < e) {
        uint len = prog[seg + 2 * (e - 1) + 1];
        if (hi - lo < len || !clm_like_seg_at(row, hi - len, prog, prog[seg + 2 * (e - 1)], len,
                                              caseless))
            return 0;
        hi -= len;
        e--;
        if (s == 0 && e == 0)
            *pos = hi;
    }
    for (uint k = s; k < e; k++) {
        uint sym = prog[seg + 2 * k], len = prog[seg + 2 * k + 1];
        ulong at = clm_like_find(row, lo, hi, prog, sym, len, caseless KMP_PASS);
        if (at == CLM_LIKE_NONE)
            return 0;
        if (k == 0)
            *pos = at;
        lo = at + len;
    }
    return 1;
}

/* Row r of the batch, when it is within ROWS and not NULL: its bytes [*start, *start + *n)
 * of data (pivoted: *start is its first byte, ROW_AT finds the others). */
int clm_like_row(__global const uchar *data, __global const OFF_T *offsets,
                 __global const uchar *valid, ulong vbit, uint has_valid, uint rows,
                 ulong row_off, ulong base, uint r, ulong *start, ulong *n)
{
    ulong b = vbit + r;
    if (r >= rows || (has_valid && !(valid[b >> 3] >> (b & 7) & 1)))
        return 0;
    *n = (ulong)offsets[row_off + r + 1] - (ulong)offsets[row_off + r];
#if SELF_SEGS
    *start = ((__global const ulong *)data)[row_off + r];
    (void)base;
#elif PIVOT
    const ulong i = row_off + r;
    *start = ((__global const ulong *)data)[i / CLM_PIVOT_GROUP] + i % CLM_PIVOT_GROUP * PIVOT;
    (void)base;
#else
    *start = (ulong)offsets[row_off + r] - base;
#endif
    return 1;
}

/* A work-item per row: words[] (a bit per work-item of the group) cleared for
 * clm_like_publish. Every work-item of the group calls it. */
void clm_like_words_clear(__local uint *words)
{
    const uint lid = (uint)get_local_id(0);
    if (lid < WG / 32)
        words[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* A work-item per row: the group's selection (a bit per work-item in words[], local memory
 * cleared before) into the bitmap, a byte per 8 rows, and its count into GROUPS. Every
 * work-item of the group calls it. */
void clm_like_publish(__local uint *words, int sel, uint rows, __global uchar *bitmap,
                      __global uint *groups)
{
    const uint lid = (uint)get_local_id(0), grp = (uint)get_group_id(0);
    if (sel)
        atomic_or(&words[lid / 32], 1u << (lid % 32));
    barrier(CLK_LOCAL_MEM_FENCE);
    /* bytes, not words: LSB-first bytes whatever the device's byte order */
    if (lid < WG / 8 && (grp * (WG / 8) + lid) * 8 < rows)
        bitmap[grp * (WG / 8) + lid] = (uchar)(words[lid / 4] >> (8 * (lid % 4)));
    if (lid == 0) {
        uint c = 0;
        for (uint i = 0; i < WG / 32; i++)
            c += popcount(words[i]);
        groups[grp] = c;
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_like_match(CLM_LIKE_MATCH_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    __local uint words[WG / 32];
    KMP_DECL
    const uint gid = (uint)get_global_id(0);
    KMP_BUILD
    clm_like_words_clear(words);
    int sel = 0;
    ulong start, n, p = CLM_LIKE_NONE;
    if (clm_like_row(data, offsets, valid, vbit, has_valid, rows, row_off, base, gid, &start,
                     &n)) {
        uint count = prog[0];
        for (uint i = 0; i < count && !sel; i++) {
            uint head = 1 + i * CLM_LIKE_HEAD;
            ulong at;
            int m = clm_like_one(data + start, n, prog, head, &at KMP_PASS);
            if (prog[head + CLM_LIKE_FLAGS] & CLM_LIKE_F_NOT)
                sel = !m;
            else if ((sel = m))
                p = at;
        }
    }
    if (want_pos && gid < rows)
        pos[gid] = p;
    clm_like_publish(words, sel, rows, bitmap, groups);
}

/* ---- a disjunction of contains (CLM_ROWS_AUTOMATON): one walk per row of the Aho-Corasick
 * automaton of every pattern's literal (host/like.c, host/aho.c's table, cl/aho.cl's walk)
 * instead of a pass per pattern; the row is selected at the first output state the walk
 * reaches, where some literal ends. The class map, and the automaton when it fits, are read
 * from local memory: a lookup per byte, wherever the lanes' walks are. */

/* Whether a literal ends in row[0, n), the automaton in SPACE. The row's bytes are read a
 * uint at a time from its first 4-byte boundary (a GPU's lanes read rows apart, one load
 * each: a quarter of the loads of a byte at a time), bytes at both ends; output states are
 * numbered last, so the greatest of a word's 4 states tells whether one was reached. */
#if defined(__ENDIAN_LITTLE__) && !PIVOT
#define CLM_LIKE_AHO_WORDS 1
#else
#define CLM_LIKE_AHO_WORDS 0
#endif
#define CLM_LIKE_AHO_WALK(NAME, SPACE)                                                      \
    int NAME(__global const uchar *row, ulong n, __local const uchar *map,                  \
             SPACE const uint *tab)                                                         \
    {                                                                                       \
        const uint out_min = tab[CLM_AHO_OUT_MIN];                                          \
        uint state = CLM_AHO_HEADER;                                                        \
        ulong j = 0, head = (4u - (uint)((size_t)row & 3u)) & 3u;                           \
        if (!CLM_LIKE_AHO_WORDS || head > n)                                                \
            head = n;                                                                       \
        for (; j < head; j++)                                                               \
            if ((state = tab[state + map[ROW_AT(row, j)]]) >= out_min)                      \
                return 1;                                                                   \
        for (; j + 4 <= n; j += 4) {                                                        \
            const uint w = *(__global const uint *)(row + j);                               \
            uint hit = state = tab[state + map[w & 0xffu]];                                 \
            hit = max(hit, state = tab[state + map[(w >> 8) & 0xffu]]);                     \
            hit = max(hit, state = tab[state + map[(w >> 16) & 0xffu]]);                    \
            hit = max(hit, state = tab[state + map[w >> 24]]);                              \
            if (hit >= out_min)                                                             \
                return 1;                                                                   \
        }                                                                                   \
        for (; j < n; j++)                                                                  \
            if ((state = tab[state + map[ROW_AT(row, j)]]) >= out_min)                      \
                return 1;                                                                   \
        return 0;                                                                           \
    }
CLM_LIKE_AHO_WALK(clm_like_aho_walk_local, __local)
CLM_LIKE_AHO_WALK(clm_like_aho_walk_global, __global)
#undef CLM_LIKE_AHO_WALK

/* With positions: the walk goes on past the first output state, to the row's end or until
 * pattern 0 is found; of the patterns it meets, the lowest-numbered one's first occurrence
 * (the leftmost, as its first end is) gives the start, CLM_LIKE_NONE if none ends here. */
#define CLM_LIKE_AHO_FIRST(NAME, SPACE)                                                     \
    ulong NAME(__global const uchar *row, ulong n, __local const uchar *map,                \
               SPACE const uint *tab)                                                       \
    {                                                                                       \
        const uint out_min = tab[CLM_AHO_OUT_MIN], classes = tab[CLM_AHO_CLASSES];          \
        const uint head = tab[CLM_AHO_HEAD], link = tab[CLM_AHO_LINK];                      \
        const uint dup = tab[CLM_AHO_DUP], id = tab[CLM_AHO_ID], len = tab[CLM_AHO_LEN];    \
        uint state = CLM_AHO_HEADER, best = CLM_AHO_NONE;                                   \
        ulong at = CLM_LIKE_NONE;                                                           \
        for (ulong j = 0; j < n && best; j++) {                                             \
            if ((state = tab[state + map[ROW_AT(row, j)]]) < out_min)                       \
                continue;                                                                   \
            for (uint o = (state - out_min) / classes; o != CLM_AHO_NONE; o = tab[link + o]) \
                for (uint v = tab[head + o]; v != CLM_AHO_NONE; v = tab[dup + v]) {         \
                    const uint p = tab[id + v];                                             \
                    if (p < best) {                                                         \
                        best = p;                                                           \
                        at = j + 1 - tab[len + p];                                          \
                    }                                                                       \
                }                                                                           \
        }                                                                                   \
        return at;                                                                          \
    }
CLM_LIKE_AHO_FIRST(clm_like_aho_first_local, __local)
CLM_LIKE_AHO_FIRST(clm_like_aho_first_global, __global)
#undef CLM_LIKE_AHO_FIRST

/* A work-item per row, the class map (and for _local the automaton) copied to CACHE. */
#define CLM_LIKE_AHO_KERNEL(NAME, WALK, FIRST, TAB, COPY)                                   \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void NAME(                     \
        CLM_LIKE_AHO_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))                               \
    {                                                                                       \
        __local uint words[WG / 32];                                                        \
        const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);               \
        if (lid < WG / 32)                                                                  \
            words[lid] = 0;                                                                 \
        for (uint i = lid; i < (COPY); i += WG)                                             \
            cache[i] = aho[i];                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        ulong start, n, p = CLM_LIKE_NONE;                                                  \
        (void)prog, (void)aho_words;                                                        \
        int sel = clm_like_row(data, offsets, valid, vbit, has_valid, rows, row_off, base,  \
                               gid, &start, &n);                                            \
        __local const uchar *map_ = (__local const uchar *)cache;                           \
        if (sel && want_pos)                                                                \
            sel = (p = FIRST(data + start, n, map_, (TAB) + CLM_LIKE_AHO_MAP)) !=           \
                  CLM_LIKE_NONE;                                                            \
        else if (sel)                                                                       \
            sel = WALK(data + start, n, map_, (TAB) + CLM_LIKE_AHO_MAP);                    \
        if (want_pos && gid < rows)                                                         \
            pos[gid] = p;                                                                   \
        clm_like_publish(words, sel, rows, bitmap, groups);                                 \
    }

CLM_LIKE_AHO_KERNEL(clm_like_aho_local, clm_like_aho_walk_local, clm_like_aho_first_local,
                    cache, CLM_LIKE_AHO_MAP + aho_words)
CLM_LIKE_AHO_KERNEL(clm_like_aho_global, clm_like_aho_walk_global, clm_like_aho_first_global,
                    aho, CLM_LIKE_AHO_MAP)
#undef CLM_LIKE_AHO_KERNEL

/* ---- a work-group per row (seed 004's Split): for long rows, every work-item of the group
 * compares a part of each segment placement, and the leftmost place of a floating segment
 * is the smallest of WG candidates at a time. Control flow is the group's: every decision
 * reads local memory after a barrier. */

/* Whether the segment matches row[at, at + len): each work-item compares every WG-th byte. */
int clm_like_group_seg_at(__global const uchar *row, ulong at, __global const uint *prog,
                          uint sym, uint len, int caseless, __local uint *flag)
{
    const uint lid = (uint)get_local_id(0);
    if (lid == 0)
        *flag = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < len; j += WG) {
        uint p = prog[sym + j];
        uchar c = row[at + j];
        if (caseless)
            c = clm_like_fold(c);
        if (p != CLM_LIKE_ANY && c != p)
            atomic_and(flag, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = *flag != 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* The leftmost place in [lo, hi - len] where the segment matches, or CLM_LIKE_NONE: WG
 * candidates at a time, each work-item one. */
ulong clm_like_group_find(__global const uchar *row, ulong lo, ulong hi,
                          __global const uint *prog, uint sym, uint len, int caseless,
                          __local uint *best)
{
    const uint lid = (uint)get_local_id(0);
    for (ulong base = lo; base + len <= hi; base += WG) {
        if (lid == 0)
            *best = WG;
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong p = base + lid;
        if (p + len <= hi && clm_like_seg_at(row, p, prog, sym, len, caseless))
            atomic_min(best, lid);
        barrier(CLK_LOCAL_MEM_FENCE);
        uint b = *best;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (b < WG)
            return base + b;
    }
    return CLM_LIKE_NONE;
}

/* clm_like_one by the whole work-group: the same placements, the same answer. Never for
 * an approximate pattern: host/records.c gives those a work-item per row. */
int clm_like_group_one(__global const uchar *row, ulong n, __global const uint *prog, uint head,
                       ulong *pos, __local uint *scratch)
{
    uint flags = prog[head + CLM_LIKE_FLAGS], segs = prog[head + CLM_LIKE_SEGS];
    uint seg = prog[head + CLM_LIKE_SEG];
    int caseless = (flags & CLM_LIKE_F_CASELESS) != 0;
    if (n < prog[head + CLM_LIKE_MIN])
        return 0;
    ulong lo = 0, hi = n;
    uint s = 0, e = segs;
    *pos = 0;
    if (flags & CLM_LIKE_F_EXACT)
        return n == prog[seg + 1] && clm_like_group_seg_at(row, 0, prog, prog[seg],
                                                           prog[seg + 1], caseless, scratch);
    if ((flags & CLM_LIKE_F_START) && s < e) {
        uint len = prog[seg + 1];
        if (!clm_like_group_seg_at(row, 0, prog, prog[seg], len, caseless, scratch))
            return 0;
        lo = len;
        s++;
    }
    if ((flags & CLM_LIKE_F_END) && s < e) {
        uint len = prog[seg + 2 * (e - 1) + 1];
        if (hi - lo < len || !clm_like_group_seg_at(row, hi - len, prog,
                                                    prog[seg + 2 * (e - 1)], len, caseless,
                                                    scratch))
            return 0;
        hi -= len;
        e--;
        if (s == 0 && e == 0)
            *pos = hi;
    }
    for (uint k = s; k < e; k++) {
        uint sym = prog[seg + 2 * k], len = prog[seg + 2 * k + 1];
        ulong at = clm_like_group_find(row, lo, hi, prog, sym, len, caseless, scratch);
        if (at == CLM_LIKE_NONE)
            return 0;
        if (k == 0)
            *pos = at;
        lo = at + len;
    }
    return 1;
}

/* A work-group per row, 8 rows (a bitmap byte) per group, one after the other; the counts
 * per WG rows come from clm_like_count. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_like_match_group(CLM_LIKE_MATCH_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    __local uint scratch;
    const uint lid = (uint)get_local_id(0), grp = (uint)get_group_id(0);
    uint byte = 0;
    (void)groups;
    for (uint k = 0; k < 8; k++) {
        uint r = grp * 8 + k;
        if (r >= rows)
            break;
        ulong b = vbit + r, p = CLM_LIKE_NONE;
        int sel = 0;
        if (!has_valid || (valid[b >> 3] >> (b & 7) & 1)) {
            ulong start = (ulong)offsets[row_off + r] - base;
            ulong n = (ulong)offsets[row_off + r + 1] - base - start;
            uint count = prog[0];
            for (uint i = 0; i < count && !sel; i++) {
                uint head = 1 + i * CLM_LIKE_HEAD;
                ulong at;
                int m = clm_like_group_one(data + start, n, prog, head, &at, &scratch);
                if (prog[head + CLM_LIKE_FLAGS] & CLM_LIKE_F_NOT)
                    sel = !m;
                else if ((sel = m))
                    p = at;
            }
        }
        byte |= (uint)sel << k;
        if (want_pos && lid == 0)
            pos[r] = p;
    }
    if (lid == 0)
        bitmap[grp] = (uchar)byte;
}

/* ---- Seg-k-t (seed 004, CLM_ROWS_SEGMENT): a team of t work-items per row, member m
 * taking the slices m, m + t, ... of k places each, so that a team's reads at any
 * time lie within a few cache lines of its row. A floating segment's leftmost place is the
 * least of the members' first finds; a member stops once the team holds a find before its
 * next slice. Segments at fixed places (a prefix, a suffix, the whole row) are compared by
 * every member alike. Control flow is the group's where it meets a barrier: every team runs
 * every pattern's steps, a team whose row is decided passing through them idle. */
#define SEG_ROWS_MAX (WG / 2)

/* The team's leftmost place of the segment in [lo, hi - len], or CLM_LIKE_NONE; *best is
 * the team's slot. active: the member's team has a row to search (all members alike). */
ulong clm_like_team_find(__global const uchar *row, ulong lo, ulong hi,
                         __global const uint *prog, uint sym, uint len, int caseless,
                         volatile __local uint *best, uint m, uint t, uint k,
                         int active KMP_PARAM)
{
    if (m == 0)
        *best = UINT_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active && lo + len <= hi) {
        const ulong places = hi - len - lo + 1; /* below 2^32: the kernel's rows are */
        for (ulong s = (ulong)m * k; s < places; s += (ulong)t * k) {
            if (atomic_or(best, 0u) <= s) /* a teammate found one before this slice */
                break;
            const ulong e = min(s + k, places);
            const ulong at = clm_like_find(row, lo + s, lo + e + len - 1, prog, sym, len,
                                           caseless KMP_PASS);
            if (at != CLM_LIKE_NONE) {
                atomic_min(best, (uint)(at - lo));
                break;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint b = *best;
    barrier(CLK_LOCAL_MEM_FENCE);
    return b == UINT_MAX ? CLM_LIKE_NONE : lo + b;
}

/* clm_like_one by the team: the same placements, the same answer (never an approximate
 * pattern: host/records.c gives those a work-item per row). */
int clm_like_team_one(__global const uchar *row, ulong n, __global const uint *prog, uint head,
                      ulong *pos, volatile __local uint *best, uint m, uint t, uint slice,
                      int ok KMP_PARAM)
{
    const uint flags = prog[head + CLM_LIKE_FLAGS], segs = prog[head + CLM_LIKE_SEGS];
    const uint seg = prog[head + CLM_LIKE_SEG];
    const int caseless = (flags & CLM_LIKE_F_CASELESS) != 0;
    ok = ok && n >= prog[head + CLM_LIKE_MIN];
    ulong lo = 0, hi = n;
    uint s = 0, e = segs;
    *pos = 0;
    if (flags & CLM_LIKE_F_EXACT)
        return ok && n == prog[seg + 1] &&
               clm_like_seg_at(row, 0, prog, prog[seg], prog[seg + 1], caseless);
    if ((flags & CLM_LIKE_F_START) && s < e) {
        const uint len = prog[seg + 1];
        ok = ok && clm_like_seg_at(row, 0, prog, prog[seg], len, caseless);
        lo = len;
        s++;
    }
    if ((flags & CLM_LIKE_F_END) && s < e) {
        const uint len = prog[seg + 2 * (e - 1) + 1];
        ok = ok && hi - lo >= len &&
             clm_like_seg_at(row, hi - len, prog, prog[seg + 2 * (e - 1)], len, caseless);
        if (ok)
            hi -= len;
        e--;
        if (s == 0 && e == 0)
            *pos = hi;
    }
    for (uint k = s; k < e; k++) { /* the same steps in every team: barriers inside */
        const uint sym = prog[seg + 2 * k], len = prog[seg + 2 * k + 1];
        const ulong at = clm_like_team_find(row, lo, hi, prog, sym, len, caseless, best, m,
                                            t, slice, ok KMP_PASS);
        ok = ok && at != CLM_LIKE_NONE;
        if (ok && k == 0)
            *pos = at;
        if (ok)
            lo = at + len;
    }
    return ok;
}

/* WG / seg_t rows per group (a multiple of 8: whole bitmap bytes); the counts per WG rows
 * come from clm_like_count. A row of 2^32 bytes or more (past the team's uint places) is
 * matched by its first member alone. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
clm_like_match_seg(CLM_LIKE_SEG_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    volatile __local uint best[SEG_ROWS_MAX];
    __local uint words[(SEG_ROWS_MAX + 31) / 32];
    KMP_DECL
    const uint lid = (uint)get_local_id(0), grp = (uint)get_group_id(0);
    const uint rows_per_group = WG / seg_t;
    const uint team = lid / seg_t, m = lid % seg_t, r = grp * rows_per_group + team;
    (void)groups;
    KMP_BUILD
    if (lid < (SEG_ROWS_MAX + 31) / 32)
        words[lid] = 0;
    ulong start = 0, n = 0, p = CLM_LIKE_NONE;
    const int live = clm_like_row(data, offsets, valid, vbit, has_valid, rows, row_off, base, r,
                                  &start, &n);
    const int big = n >= (ulong)UINT_MAX;
    int sel = 0, decided = 0;
    const uint count = prog[0];
    for (uint i = 0; i < count; i++) {
        const uint head = 1 + i * CLM_LIKE_HEAD;
        ulong at;
        const int hit = clm_like_team_one(data + start, n, prog, head, &at, &best[team], m,
                                          seg_t, seg_k, live && !big && !decided KMP_PASS);
        if (live && !big && !decided) {
            if (prog[head + CLM_LIKE_FLAGS] & CLM_LIKE_F_NOT)
                sel = !hit;
            else if ((sel = hit))
                p = at;
            decided = sel;
        }
    }
    if (live && big && m == 0)
        for (uint i = 0; i < count && !sel; i++) {
            const uint head = 1 + i * CLM_LIKE_HEAD;
            ulong at;
            const int hit = clm_like_one(data + start, n, prog, head, &at KMP_PASS);
            if (prog[head + CLM_LIKE_FLAGS] & CLM_LIKE_F_NOT)
                sel = !hit;
            else if ((sel = hit))
                p = at;
        }
    barrier(CLK_LOCAL_MEM_FENCE); /* words cleared */
    if (m == 0 && sel)
        atomic_or(&words[team / 32], 1u << (team % 32));
    if (want_pos && m == 0 && r < rows)
        pos[r] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < rows_per_group / 8 && (grp * (rows_per_group / 8) + lid) * 8 < rows)
        bitmap[grp * (rows_per_group / 8) + lid] = (uchar)(words[lid / 4] >> (8 * (lid % 4)));
}

/* ---- filter and verify (CLM_ROWS_FILTER): a search kernel finds each pattern's longest
 * literal run in the batch's bytes as one text, at the speed of a single-pattern search;
 * only the rows holding a candidate are matched, a work-item per candidate, so rows without
 * one cost no work-item at all. */

/* Row r's bit in a bitmap of uint words whose bytes are a bit per row, LSB first. */
uint clm_like_word_bit(uint r)
{
#ifdef __ENDIAN_LITTLE__
    return r % 32u;
#else
    return (3u - (r % 32u) / 8u) * 8u + r % 8u;
#endif
}

/* Row r of the batch (its bytes [start, start + n) of data): whether one of the patterns
 * (NOT ignored) matches it; its bit set when so. */
void clm_like_verify_row(__global const uchar *data, __global const OFF_T *offsets,
                         __global const uchar *valid, ulong vbit, uint has_valid, ulong row_off,
                         ulong base, __global const uint *prog, uint r, __global uint *bitmap,
                         __global ulong *pos, uint want_pos KMP_PARAM)
{
    ulong b = vbit + r;
    if (has_valid && !(valid[b >> 3] >> (b & 7) & 1))
        return;
    ulong start = (ulong)offsets[row_off + r] - base;
    ulong n = (ulong)offsets[row_off + r + 1] - base - start;
    uint count = prog[0];
    for (uint i = 0; i < count; i++) {
        ulong p;
        if (clm_like_one(data + start, n, prog, 1 + i * CLM_LIKE_HEAD, &p KMP_PASS)) {
            atomic_or(&bitmap[r / 32], 1u << clm_like_word_bit(r));
            if (want_pos) /* every block of the row writes the same position */
                pos[r] = p;
            return;
        }
    }
}

/* The rows holding the marked blocks of uint w of the blocks' bitmap, in order, each once:
 * counted; with list, written to list[at ...] (at most cap - at of them); with match,
 * matched (clm_like_verify_row). Per block [lo, hi), the first row by a binary search of the
 * offsets from the last block's. */
uint clm_like_marked_rows(__global const uchar *data, __global const OFF_T *offsets,
                          __global const uchar *valid, ulong vbit, uint has_valid, uint rows,
                          ulong row_off, ulong base, __global const uint *prog,
                          __global const uint *blocks, uint nblocks, ulong origin, uint ends,
                          uint w, __global uint *list, uint at, uint cap, int match,
                          __global uint *bitmap, __global ulong *pos, uint want_pos KMP_PARAM)
{
    uint bits = blocks[w], k = 0;
    if (nblocks - w * 32u < 32u)
        bits &= (1u << (nblocks - w * 32u)) - 1u;
    const ulong first = (ulong)offsets[row_off] - base, last = (ulong)offsets[row_off + rows] - base;
    uint a = 0, next = 0; /* the search's lower bound; the first row not yet taken */
    while (bits) {
        const uint blk = w * 32u + (31u - clz(bits & (0u - bits))); /* its lowest marked */
        bits &= bits - 1u;
        ulong lo = origin + (ulong)blk * LIKE_BLOCK, hi = lo + LIKE_BLOCK;
        if (ends) { /* an exclusive end: the match's last byte is the one before */
            lo = lo ? lo - 1 : 0;
            hi--;
        }
        if (lo < first) /* an aligned piece starts before the batch */
            lo = first;
        if (hi > last)
            hi = last;
        if (lo >= hi)
            continue;
        /* the last row starting at or before lo: offsets never decrease, so it ends past lo */
        uint z = rows - 1;
        while (a < z) {
            uint mid = a + (z - a + 1) / 2;
            if ((ulong)offsets[row_off + mid] - base <= lo)
                a = mid;
            else
                z = mid - 1;
        }
        for (uint r = max(a, next); r < rows && (ulong)offsets[row_off + r] - base < hi; r++) {
            if (match)
                clm_like_verify_row(data, offsets, valid, vbit, has_valid, row_off, base, prog,
                                    r, bitmap, pos, want_pos KMP_PASS);
            else if (list && at + k < cap)
                list[at + k] = r;
            k++;
            next = r + 1;
        }
    }
    return k;
}

/* GPUs: stage 0 lists the candidate rows, a work-item's in one run of the list (one atomic
 * add); stage 1 matches them, neighbouring rows in neighbouring work-items. (A work-item per
 * block, each matching its own rows, left most lanes of a warp idle beside a few marked
 * blocks: H200, TPC-H Q13, 3.5 ms verifying after a 0.9 ms search; a work-item per uint
 * matching its blocks' rows, 2.2 ms; listed, 1.9 ms.) CPUs: stage 2, a work-item per uint
 * matches its blocks' rows, one launch a piece (two launches and a fill a piece doubled the
 * 2-core PoCL's time on small pieces). */
__kernel void clm_like_verify(CLM_LIKE_VERIFY_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    KMP_DECL
    const uint g = (uint)get_global_id(0);
    KMP_BUILD
    if (stage != 1u) {
        if (g >= (nblocks + 31u) / 32u)
            return;
        const int match = stage == 2u;
        const uint c = clm_like_marked_rows(data, offsets, valid, vbit, has_valid, rows, row_off,
                                            base, prog, blocks, nblocks, origin, ends, g, 0, 0,
                                            0, match, bitmap, pos, want_pos KMP_PASS);
        if (c && !match)
            clm_like_marked_rows(data, offsets, valid, vbit, has_valid, rows, row_off, base,
                                 prog, blocks, nblocks, origin, ends, g, list,
                                 atomic_add(listed, c), list_cap, 0, bitmap, pos,
                                 want_pos KMP_PASS);
        return;
    }
    const uint n = min(*listed, list_cap);
    for (uint i = g; i < n; i += (uint)get_global_size(0))
        clm_like_verify_row(data, offsets, valid, vbit, has_valid, row_off, base, prog, list[i],
                            bitmap, pos, want_pos KMP_PASS);
}

/* MARKED gets the bits set in WORDS words of the blocks' bitmap: how often the anchors
 * occur, which decides whether verifying their rows beats matching every row. */
__kernel void clm_like_marked(__global const uint *blocks, uint words, __global uint *marked)
{
    __local uint sum;
    if (get_local_id(0) == 0)
        sum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint w = (uint)get_global_id(0);
    uint c = w < words ? popcount(blocks[w]) : 0u;
    if (c)
        atomic_add(&sum, c);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && sum)
        atomic_add(marked, sum);
}

__kernel void clm_like_invert(CLM_LIKE_INVERT_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    const uint w = (uint)get_global_id(0);
    if ((ulong)w * 32 >= rows)
        return;
    uint m = bitmap[w], sel = 0;
    for (uint j = 0; j < 32 && w * 32 + j < rows; j++) {
        uint r = w * 32 + j, bit = clm_like_word_bit(r);
        ulong b = vbit + r;
        if (!(m >> bit & 1) && (!has_valid || (valid[b >> 3] >> (b & 7) & 1)))
            sel |= 1u << bit;
    }
    bitmap[w] = sel;
}

/* GROUPS[g]: the rows selected among rows [g * WG, (g + 1) * WG) of the bitmap. */
__kernel void clm_like_count(CLM_LIKE_COUNT_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))
{
    const uint g = (uint)get_global_id(0);
    if ((ulong)g * WG >= rows)
        return;
    uint c = 0;
    for (uint i = 0; i < WG / 8 && ((ulong)g * WG + i * 8) < rows; i++)
        c += popcount((uint)bitmap[g * (WG / 8) + i]);
    groups[g] = c;
}

/* A row's id goes to its group's base plus the selected rows before it in the group. */
#define CLM_LIKE_IDS_KERNEL(NAME)                                                           \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void NAME(                     \
        CLM_LIKE_IDS_ARG_LIST(CLM_LIKE_DECL0, CLM_LIKE_DECL))                               \
    {                                                                                       \
        __local uchar bits[WG / 8];                                                         \
        const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);               \
        const uint grp = (uint)get_group_id(0);                                             \
        if (lid < WG / 8)                                                                   \
            bits[lid] = (grp * (WG / 8) + lid) * 8 < rows ? bitmap[grp * (WG / 8) + lid] : 0; \
        barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        if (gid < rows && (bits[lid / 8] >> (lid % 8) & 1)) {                               \
            uint r = popcount((uint)(bits[lid / 8] & ((1u << (lid % 8)) - 1u)));            \
            for (uint i = 0; i < lid / 8; i++)                                              \
                r += popcount((uint)bits[i]);                                               \
            uint at = bases[grp] + r;                                                       \
            ids[at] = (ID_T)(row0 + gid);                                                   \
            if (want_pos)                                                                   \
                pos_out[at] = pos[gid];                                                     \
        }                                                                                   \
    }

#define ID_T uint
CLM_LIKE_IDS_KERNEL(clm_like_ids32)
#undef ID_T
#define ID_T ulong
CLM_LIKE_IDS_KERNEL(clm_like_ids64)
#undef ID_T
