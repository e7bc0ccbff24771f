/* kmer.cl - many literal patterns by sampled q-grams: filter, then verify (host/kmer.c; the
 * table: contract.h CLM_KMER_*). Every pattern is at least KMER_Q + KMER_S - 1 bytes long,
 * so an occurrence starting at t holds the q-gram that starts at the one sample of
 * [t, t + KMER_S) (samples: the multiples of KMER_S), and the table lists each pattern's
 * q-grams at its offsets 0 .. KMER_S - 1. A work-item codes its bytes 2 bits each, tests each
 * sample's q-gram against a filter of two hashed bits (a Bloom filter), and only where both
 * are set looks the q-gram up and compares the patterns listed there. A lookup per KMER_S
 * bytes instead of aho's per byte. Matches are reported as aho's are: by their exclusive end
 * and the pattern's slot (info + j); a range keeps those that start in it and before owned. */

#if KMER_HOT && defined(TABLE_GLOBAL)
/* Tables in global memory, their header and filter (the first KMER_HOT uints) copied to
 * local memory, where every sample reads them. */
#define ALGO_TABLES                                                                        \
    __local uint hot_[KMER_HOT];                                                           \
    for (uint i_ = get_local_id(0); i_ < KMER_HOT; i_ += WG)                               \
        hot_[i_] = tab_in[i_];                                                             \
    barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    __local const uchar *pat = (__local const uchar *)hot_;                                \
    __global const uint *tab = tab_in
#define KM_PAT __local
#define KM_TAB __global
#define KM_FILTER(pat, tab) ((__local const uint *)(pat) + CLM_KMER_HEADER)
#else
#define KM_PAT TABLE_SPACE
#define KM_TAB TABLE_SPACE
#define KM_FILTER(pat, tab) ((tab) + CLM_KMER_HEADER)
#endif

#define KM_QMASK (KMER_Q >= 16 ? 0xffffffffu : (1u << (2 * KMER_Q)) - 1u)
#define KM_BIT(f, h) (((f)[(h) >> 5] >> ((h) & 31u)) & 1u)
#define KM_PASS(f, c)                                                                      \
    (KM_BIT(f, ((c) * CLM_KMER_MUL1) >> (32 - KMER_BITS)) &&                                 \
     KM_BIT(f, ((c) * CLM_KMER_MUL2) >> (32 - KMER_BITS)))

/* The codes of four bytes, the first lowest: (byte >> 1) & 3 each, 8 bits in all. */
uint km_codes4(uint w)
{
    uint c = (w >> 1) & 0x03030303u;
    c |= c >> 6;
    return (c & 0xfu) | ((c >> 12) & 0xf0u);
}

uint km_codes16(uint4 v)
{
    return km_codes4(v.x) | (km_codes4(v.y) << 8) | (km_codes4(v.z) << 16) |
           (km_codes4(v.w) << 24);
}

/* The patterns listed under a q-gram `code` sampled at p: each whose occurrence would start
 * in [begin, limit) compared with the text there. */
uint clm_km_verify(__global const uchar *text, uint n, KM_TAB const uint *tab, uint code,
                   uint p, uint begin, uint limit, __global uint *counter, __global uint *out,
                   uint cap, uint info, const int count_only)
{
    uint found = 0;
    const uint b = (code * CLM_KMER_MUL1) >> tab[CLM_KMER_SHIFT];
    const uint buckets = tab[CLM_KMER_BUCKETS], entries = tab[CLM_KMER_ENTRIES];
    const uint infos = tab[CLM_KMER_INFO], last = tab[buckets + b + 1u];
    for (uint e = tab[buckets + b]; e < last; ++e) {
        if (tab[entries + 2u * e] != code)
            continue;
        const uint jo = tab[entries + 2u * e + 1u], o = jo & 31u;
        if (o > p || p - o < begin || p - o >= limit)
            continue;
        const uint t = p - o, j = jo >> 5, len = tab[infos + 2u * j + 1u];
        if (len > n - t)
            continue;
        KM_TAB const uchar *w = (KM_TAB const uchar *)tab + tab[infos + 2u * j];
        uint i = 0;
        while (i < len && FOLD(text[t + i]) == w[i])
            ++i;
        if (i == len)
            FOUND(t + len, info + j);
    }
    return found;
}

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    KM_PAT const uchar *pat, KM_TAB const uint *tab, __global uint *counter,
                    __global uint *out, uint cap, uint info, const int count_only)
{
    uint found = 0;
    if (n < KMER_Q)
        return 0;
    (void)pat;
    const uint limit = min(begin + CHUNK, owned);
    /* samples whose q-gram is in the slab and may start an occurrence owned here */
    const uint stop = min(begin + CHUNK + (KMER_S - 1u), n - KMER_Q + 1u);
    uint p = (begin + KMER_S - 1u) / KMER_S * KMER_S;
#define KM_SAMPLE(code_)                                                                   \
    do {                                                                                   \
        const uint c_ = (code_);                                                           \
        if (KM_PASS(KM_FILTER(pat, tab), c_))                                              \
            found += clm_km_verify(text, n, tab, c_, p, begin, limit, counter, out, cap,   \
                                   info, count_only);                                      \
    } while (0)
#if LITTLE_ENDIAN_DEVICE
    /* 16-byte blocks (begin is a multiple of 16): block j's codes and block j + 1's in one
     * 64-bit window hold every q-gram starting in block j */
    if (p < stop && 16u * ((stop - 1u) / 16u + 2u) <= n) {
        uint j = p / 16u, cur = km_codes16(LOAD16(text, j));
        for (; p < stop; ++j) {
            const uint next = km_codes16(LOAD16(text, j + 1u));
            const ulong win = (ulong)cur | ((ulong)next << 32);
            for (; p < stop && p < 16u * j + 16u; p += KMER_S)
                KM_SAMPLE((uint)(win >> (2u * (p - 16u * j))) & KM_QMASK);
            cur = next;
        }
        return found;
    }
#endif
    for (; p < stop; p += KMER_S) {
        uint code = 0;
        for (uint i = 0; i < KMER_Q; ++i)
            code |= (((uint)text[p + i] >> 1) & 3u) << (2u * i);
        KM_SAMPLE(code);
    }
#undef KM_SAMPLE
    return found;
}
