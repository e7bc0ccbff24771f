/* hamming.cl - every pattern of a group with at most K mismatches (Hamming distance) in one
 * pass: the text at a start as one-hot nibbles (pat maps a byte to its class's bit) is
 * compared with every pattern of the table (contract.h CLM_HAMMING_*), 8 symbols a uint: a
 * symbol matches where text and pattern nibbles share a bit. The patterns come in runs that
 * share exact ends (a CRISPR PAM): the work-group first queues the starts where a run's ends
 * pass, then compares the queued starts with the run's patterns, every lane at the same
 * pattern (clm_scan_group); a pattern's compare stops at the first uint that puts it past K
 * mismatches (in random DNA, its first). Matches are reported by their start and the
 * pattern's slot (info + j), with their mismatches beside it. */

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
 * local memory, CLM_HAMMING_QUEUE entries per work-item, and its fill count. */
#define GROUP_KERNEL
#define GROUP_LOCALS                                                                       \
    __local uint mh_queue[CLM_HAMMING_QUEUE * WG];                                         \
    __local uint mh_queued[1]
#define GROUP_LOCAL_ARGS , mh_queue, mh_queued
#define MH_QUEUE_LEN (CLM_HAMMING_QUEUE * WG)

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
