/* hamming.cl - every pattern of a group with at most K mismatches (Hamming distance) in one
 * pass. The patterns come in runs that share exact ends (a CRISPR PAM): the work-group first
 * queues the starts where a run's ends pass, then compares the queued starts with the run's
 * patterns (clm_scan_group). The text's bytes map to class nibbles (pat: a bit per class of
 * the patterns' symbol sets, 0 in none); a symbol matches where text and pattern share a bit.
 * Patterns of up to CLM_HAMMING_PLANES_MAX symbols are compared as four bit planes, each
 * work-item holding CLM_HAMMING_HELD of them in registers against the queued windows
 * (H200, 1 000 guides + NGG over 1 GB: 0.08 s against 0.41 s for the nibble compare,
 * bench/results/h200-r3-2026-11-28-crispr.md); longer ones as nibbles, 8 symbols a uint,
 * every lane at the same pattern, stopping at the first uint past K. Matches are reported
 * by their start and the pattern's slot (info + j), with their mismatches beside it. */

#define MH_W ((M + 7u) / 8u) /* uints of nibbles of the longest pattern and of the window */
/* the nibble carried into the top of a window uint. NO_FUNNEL_SHIFT (host's choice for
 * oclgrind, whose interpreter lacks the llvm.fshl that clang makes of the window's shift):
 * through a volatile store and load, as bitap.cl's CARRY */
#if NO_FUNNEL_SHIFT
uint clm_mh_carry(uint x)
{
    volatile uint c = x << 28;
    return c;
}
#define MH_CARRY(x) clm_mh_carry(x)
#else
#define MH_CARRY(x) ((x) << 28)
#endif
/* each nibble of x folded into its lowest bit: 1 where text and pattern met */
#define MH_FOLD(x) ((x) | ((x) >> 1) | ((x) >> 2) | ((x) >> 3))

/* The work-group works together (kernels.cl GROUP_KERNEL): a queue of candidate starts in
 * local memory and its fill count; patterns of up to 32 symbols also the queued starts'
 * windows as bit planes, and the class map. */
#define GROUP_KERNEL
#define MH_QUEUE_LEN CLM_HAMMING_QUEUE_LEN(WG)
#if M <= CLM_HAMMING_PLANES_MAX
#define MH_PLANES 1
#define MP_HELD CLM_HAMMING_HELD_BY(WG)
/* the held patterns' loops unrolled where they are few (GPUs: registers), else loops */
#if MP_HELD <= 8
#define MP_UNROLL _Pragma("unroll")
#else
#define MP_UNROLL
#endif
#define GROUP_LOCALS                                                                       \
    __local uint4 mp_win[MH_QUEUE_LEN];                                                    \
    __local uint mh_queue[MH_QUEUE_LEN];                                                   \
    __local uint mh_queued[1];                                                             \
    __local uchar mp_nib[256]
#define GROUP_LOCAL_ARGS , mh_queue, mh_queued, mp_win, mp_nib
#else
#define MH_PLANES 0
#define GROUP_LOCALS                                                                       \
    __local uint mh_queue[MH_QUEUE_LEN];                                                   \
    __local uint mh_queued[1]
#define GROUP_LOCAL_ARGS , mh_queue, mh_queued
#endif

#if !MH_PLANES
/* Compare patterns q0, q0 + step, ... of a run (its records from p0, in_run of them) with
 * the text at s, every lane of the group at the same pattern where it can (its table reads
 * are broadcasts). */
uint clm_mh_verify(__global const uchar *text, uint n, uint s, TABLE_SPACE const uchar *pat,
                   TABLE_SPACE const TAB_T *tab, uint p0, uint in_run, uint q0, uint step,
                   uint stride, __global uint *counter, __global uint *out, uint cap,
                   uint info, const int count_only)
{
    uint found = 0, win[MH_W]; /* indexed by unrolled loops only: registers */
    /* symbol s + i at bits 4 (i % 8) of win[i / 8]; past M or n 0, which meets no nibble */
#pragma unroll
    for (uint w = 0; w < MH_W; ++w) {
        uint x = 0;
#pragma unroll
        for (uint b = 0; b < 8u; ++b)
            if (8u * w + b < M && s + 8u * w + b < n)
                x |= (uint)pat[text[s + 8u * w + b]] << (4u * b);
        win[w] = x;
    }
    for (uint q = q0; q < in_run; q += step) {
        const uint at = p0 + q * stride;
        TABLE_SPACE const TAB_T *p = tab + at + 2u;
        const uint len = tab[at + 1u];
        if (len > n - s)
            continue;
        uint matched = 0, bad = 0;
#pragma unroll
        for (uint w = 0; w < MH_W && 8u * w < len && bad <= K; ++w) {
            matched += popcount(MH_FOLD(win[w] & p[w]) & 0x11111111u);
            bad = min(8u * w + 8u, len) - matched;
        }
        if (bad <= K)
            FOUND(s, (info + tab[at]) | (bad << CLM_INFO_EDITS_SHIFT));
    }
    return found;
}

/* Per run of patterns, in rounds: phase 1, each work-item walks its own starts (work-item g
 * owns [first + g CHUNK, first + (g + 1) CHUNK) below owned) and queues those where the
 * run's exact ends pass (all of them for a run without exact ends); phase 2, the group's
 * lanes verify the queued starts against the run's patterns in lockstep. A work-item whose
 * slot falls past the queue stops there and goes on from that start in the next round: a
 * round ends every walk or fills the queue, and the fill count, the same for the whole group,
 * says whether another round is needed, so every work-item reaches every barrier. On a GPU
 * the old per-item loop paid every pattern at nearly every start (some lane of a warp passed
 * the ends); the queue pays them per start that passes. */
uint clm_scan_group(__global const uchar *text, uint n, uint owned, uint first,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only, __local uint *queue, __local uint *queued)
{
    uint found = 0, win[MH_W]; /* indexed by unrolled loops only: registers */
    const uint l = (uint)get_local_id(0);
    const uint runs = tab[CLM_HAMMING_RUNS], stride = tab[CLM_HAMMING_STRIDE];
    const uint begin = first + (uint)get_global_id(0) * CHUNK;
    const uint end = begin < owned ? min(min(begin + CHUNK, owned), n) : begin;
    /* win holds text[s, s + 8 MH_W) as nibbles, symbol s + i at bits 4 (i % 8) of win[i / 8];
     * bytes past n are 0, which no pattern's nibble meets */
#define MH_PUSH(i)                                                                         \
    do {                                                                                   \
        const uint c_ = (i) < n ? (uint)pat[text[(i)]] : 0u;                               \
        _Pragma("unroll") for (uint w_ = 0; w_ + 1u < MH_W; ++w_)                          \
            win[w_] = (win[w_] >> 4) | MH_CARRY(win[w_ + 1u]);                             \
        win[MH_W - 1u] = (win[MH_W - 1u] >> 4) | MH_CARRY(c_);                             \
    } while (0)
    if (l == 0u)
        *queued = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0, at = CLM_HAMMING_HEADER; r < runs; ++r) {
        const uint in_run = tab[at], p0 = at + 1u + 2u * MH_W;
        uint s = begin, more = 1u;
        while (more) {
            /* phase 1: the window is rebuilt at s each round (none kept across barriers) */
            if (s < end) {
#pragma unroll
                for (uint w = 0; w < MH_W; ++w)
                    win[w] = 0;
                for (uint i = s; i < s + 8u * MH_W; ++i)
                    MH_PUSH(i);
            }
            for (; s < end; ++s) {
                /* the run's exact ends: every masked nibble must meet the text's */
                uint miss = 0;
#pragma unroll
                for (uint w = 0; w < MH_W; ++w)
                    miss |= tab[at + 1u + w] & ~MH_FOLD(win[w] & tab[at + 1u + MH_W + w]);
                if (!miss) {
                    const uint slot = atomic_inc(queued);
                    if (slot >= MH_QUEUE_LEN)
                        break; /* the queue is full: this start again next round */
                    queue[slot] = s;
                }
                MH_PUSH(s + 8u * MH_W);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint total = *queued, c = min(total, (uint)MH_QUEUE_LEN);
            /* phase 2; with fewer candidates than lanes, the `share` lanes of a candidate
             * take every share-th pattern, from their part */
            const uint share = c && c < WG ? WG / c : 1u, part = share > 1u ? l / c : 0u;
            /* l - part c, not l % c: clang freezes l for a division and remainder pair, an
             * instruction oclgrind's uninitialised-value check cannot interpret */
            for (uint i = l - part * c; i < c && part < share; i += WG)
                found += clm_mh_verify(text, n, queue[i], pat, tab, p0, in_run, part, share,
                                       stride, counter, out, cap, info, count_only);
            more = total > MH_QUEUE_LEN; /* some slot fell past the queue */
            barrier(CLK_LOCAL_MEM_FENCE); /* every lane has read the queue and its count */
            if (l == 0u)
                *queued = 0u;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        at = p0 + in_run * stride;
    }
#undef MH_PUSH
    return found;
}
#else
/* Patterns of up to 32 symbols, as four bit planes: bit i of plane c is 1 where symbol i
 * has class c (the text's symbol s + i, a pattern's symbols' sets). A symbol matches where
 * text and pattern share a plane; a pattern's mismatches are its length less the popcount
 * of the OR of its planes ANDed with the window's. Each work-item holds MP_HELD patterns of
 * a tile in registers, and the queue holds the candidates' windows: one broadcast read of
 * local memory serves MP_HELD comparisons of a few instructions each. */

/* the planes of nibble words p (symbols past the pattern's length are 0 there) */
uint4 clm_mp_planes(TABLE_SPACE const TAB_T *p)
{
    uint4 pl = (uint4)(0u);
#pragma unroll
    for (uint i = 0; i < M; ++i) {
        const uint x = (p[i / 8u] >> (4u * (i % 8u))) & 15u;
        pl |= ((((uint4)(x)) >> (uint4)(0u, 1u, 2u, 3u)) & 1u) << i;
    }
    return pl;
}

/* the window's planes moved one symbol on, class nibble x entering at symbol M - 1 */
#define MP_PUSH(w, x)                                                                      \
    ((w) = ((w) >> 1u) | (((((uint4)(x)) >> (uint4)(0u, 1u, 2u, 3u)) & 1u) << (M - 1u)))

/* Per run of patterns, per tile of MP_HELD * WG of its patterns (MP_HELD: 4 on GPUs, more
 * in the small groups of CPUs, so that a tile is 1 024 patterns at least), in rounds: phase 1, each
 * work-item walks its own starts and queues those where the run's exact ends pass, with
 * their windows; phase 2, each work-item compares the patterns it holds with the queued
 * windows. A tile of u < WG patterns is held by WG / u replicas of u work-items, each
 * replica comparing every (WG / u)-th candidate. Rounds as the nibble kernel's. */
uint clm_scan_group(__global const uchar *text, uint n, uint owned, uint first,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only, __local uint *queue, __local uint *queued,
                    __local uint4 *wins, __local uchar *nib)
{
    uint found = 0;
    const uint l = (uint)get_local_id(0);
    const uint runs = tab[CLM_HAMMING_RUNS], stride = tab[CLM_HAMMING_STRIDE];
    const uint begin = first + (uint)get_global_id(0) * CHUNK;
    const uint end = begin < owned ? min(min(begin + CHUNK, owned), n) : begin;
    for (uint i = l; i < 256u; i += WG)
        nib[i] = pat[i];
    if (l == 0u)
        *queued = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0, at = CLM_HAMMING_HEADER; r < runs; ++r) {
        const uint in_run = tab[at], p0 = at + 1u + 2u * MH_W;
        /* the run's exact ends: symbols of kmask must meet the key's planes */
        const uint4 key = clm_mp_planes(tab + at + 1u + MH_W);
        const uint kmask = clm_mp_planes(tab + at + 1u).x;
        for (uint t0 = 0; t0 < in_run; t0 += MP_HELD * WG) {
            const uint tn = min(in_run - t0, MP_HELD * WG), u = min(tn, (uint)WG);
            const uint share = WG / u, part = l / u, base = l - part * u;
            /* this work-item's patterns t0 + base + j u, nheld of them */
            const uint nheld =
                part < share && base < tn ? min((tn - base + u - 1u) / u, (uint)MP_HELD) : 0u;
            uint4 held[MP_HELD];
            uint len[MP_HELD];
            MP_UNROLL for (uint j = 0; j < MP_HELD && j < nheld; ++j)
            {
                const uint a = p0 + (t0 + base + j * u) * stride;
                held[j] = clm_mp_planes(tab + a + 2u);
                len[j] = tab[a + 1u];
            }
            uint s = begin, more = 1u;
            while (more) {
                /* phase 1: the window is rebuilt at s each round (none kept across
                 * barriers); symbols past n in no class */
                uint4 w = (uint4)(0u);
                if (s < end)
                    for (uint i = s; i < s + M; ++i)
                        MP_PUSH(w, i < n ? (uint)nib[text[i]] : 0u);
                for (; s < end; ++s) {
                    const uint met =
                        (w.x & key.x) | (w.y & key.y) | (w.z & key.z) | (w.w & key.w);
                    if ((met & kmask) == kmask) {
                        const uint slot = atomic_inc(queued);
                        if (slot >= MH_QUEUE_LEN)
                            break; /* the queue is full: this start again next round */
                        queue[slot] = s;
                        wins[slot] = w;
                    }
                    MP_PUSH(w, s + M < n ? (uint)nib[text[s + M]] : 0u);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                const uint total = *queued, c = min(total, (uint)MH_QUEUE_LEN);
                /* phase 2 */
                for (uint i = part; i < c && part < share; i += share) {
                    const uint4 x = wins[i];
                    const uint room = n - queue[i];
                    MP_UNROLL for (uint j = 0; j < MP_HELD && j < nheld; ++j)
                    {
                        const uint bad = len[j] - popcount((x.x & held[j].x) |
                                                           (x.y & held[j].y) |
                                                           (x.z & held[j].z) |
                                                           (x.w & held[j].w));
                        if (bad <= K && len[j] <= room)
                            FOUND(queue[i], (info + tab[p0 + (t0 + base + j * u) * stride]) |
                                                (bad << CLM_INFO_EDITS_SHIFT));
                    }
                }
                more = total > MH_QUEUE_LEN; /* some slot fell past the queue */
                barrier(CLK_LOCAL_MEM_FENCE); /* every lane has read the queue and its count */
                if (l == 0u)
                    *queued = 0u;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
        at = p0 + in_run * stride;
    }
    return found;
}
#endif
