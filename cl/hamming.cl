/* hamming.cl - every pattern of a group with at most K mismatches (Hamming distance) in one
 * pass: each work-item keeps the text at its start as one-hot nibbles (pat maps a byte to
 * its class's bit) and compares every pattern of the table (contract.h CLM_HAMMING_*) with
 * it, 8 symbols a uint: a symbol matches where text and pattern nibbles share a bit. A
 * pattern's compare stops at the first uint that puts it past K mismatches (in random DNA,
 * its first). Matches are reported by their start and the pattern's slot (info + j), with
 * their mismatches beside it. */

#define MH_W ((M + 7u) / 8u) /* uints of nibbles of the longest pattern and of the window */

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0, win[MH_W];
    const uint count = tab[CLM_HAMMING_COUNT], stride = tab[CLM_HAMMING_STRIDE];
    const uint end = min(min(begin + CHUNK, owned), n);
    /* win holds text[s, s + 8 MH_W) as nibbles, symbol s + i at bits 4 (i % 8) of win[i / 8];
     * bytes past n are 0, which no pattern's nibble meets */
#define MH_PUSH(i)                                                                         \
    do {                                                                                   \
        const uint c_ = (i) < n ? (uint)pat[text[(i)]] : 0u;                               \
        for (uint w_ = 0; w_ + 1u < MH_W; ++w_)                                            \
            win[w_] = (win[w_] >> 4) | (win[w_ + 1u] << 28);                               \
        win[MH_W - 1u] = (win[MH_W - 1u] >> 4) | (c_ << 28);                               \
    } while (0)
    for (uint w = 0; w < MH_W; ++w)
        win[w] = 0;
    for (uint i = begin; i < begin + 8u * MH_W; ++i)
        MH_PUSH(i);
    for (uint s = begin; s < end; ++s) {
        for (uint j = 0; j < count; ++j) {
            TABLE_SPACE const TAB_T *p = tab + CLM_HAMMING_HEADER + j * stride;
            const uint len = p[0];
            if (len > n - s)
                continue;
            uint matched = 0, bad = 0;
            for (uint w = 0; w < MH_W && 8u * w < len && bad <= K; ++w) {
                uint x = win[w] & p[1u + w];
                x |= x >> 2; /* a nibble's bits folded into its lowest */
                x |= x >> 1;
                matched += popcount(x & 0x11111111u);
                bad = min(8u * w + 8u, len) - matched;
            }
            if (bad <= K)
                FOUND(s, (info + j) | (bad << CLM_INFO_EDITS_SHIFT));
        }
        MH_PUSH(s + 8u * MH_W);
    }
#undef MH_PUSH
    return found;
}
