/* hamming.cl - every pattern of a group with at most K mismatches (Hamming distance) in one
 * pass: each work-item keeps the text at its start as one-hot nibbles (pat maps a byte to
 * its class's bit) and compares every pattern of the table (contract.h CLM_HAMMING_*) with
 * it, 8 symbols a uint: a symbol matches where text and pattern nibbles share a bit. The
 * patterns come in runs that share exact ends (a CRISPR PAM), checked once for the run; a
 * pattern's compare stops at the first uint that puts it past K mismatches (in random DNA,
 * its first). Matches are reported by their start and the pattern's slot (info + j), with
 * their mismatches beside it. */

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

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0, win[MH_W]; /* indexed by unrolled loops only: registers */
    const uint runs = tab[CLM_HAMMING_RUNS], stride = tab[CLM_HAMMING_STRIDE];
    const uint end = min(min(begin + CHUNK, owned), n);
    /* win holds text[s, s + 8 MH_W) as nibbles, symbol s + i at bits 4 (i % 8) of win[i / 8];
     * bytes past n are 0, which no pattern's nibble meets */
#define MH_PUSH(i)                                                                         \
    do {                                                                                   \
        const uint c_ = (i) < n ? (uint)pat[text[(i)]] : 0u;                               \
        _Pragma("unroll") for (uint w_ = 0; w_ + 1u < MH_W; ++w_)                          \
            win[w_] = (win[w_] >> 4) | MH_CARRY(win[w_ + 1u]);                             \
        win[MH_W - 1u] = (win[MH_W - 1u] >> 4) | MH_CARRY(c_);                             \
    } while (0)
#pragma unroll
    for (uint w = 0; w < MH_W; ++w)
        win[w] = 0;
    for (uint i = begin; i < begin + 8u * MH_W; ++i)
        MH_PUSH(i);
    for (uint s = begin; s < end; ++s) {
        for (uint r = 0, at = CLM_HAMMING_HEADER; r < runs; ++r) {
            /* the run's exact ends: every masked nibble must meet the text's */
            const uint in_run = tab[at];
            uint miss = 0;
#pragma unroll
            for (uint w = 0; w < MH_W; ++w)
                miss |= tab[at + 1u + w] & ~MH_FOLD(win[w] & tab[at + 1u + MH_W + w]);
            at += 1u + 2u * MH_W;
            if (miss) {
                at += in_run * stride;
                continue;
            }
            for (uint q = 0; q < in_run; ++q, at += stride) {
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
        }
        MH_PUSH(s + 8u * MH_W);
    }
#undef MH_PUSH
    return found;
}
