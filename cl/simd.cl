/* simd.cl - W. Mula's SIMD-friendly substring search, for CPU devices. A work-item takes its
 * range 64 starts a step, as four 16-byte blocks: for each of a few chosen pattern positions
 * j it loads text[start + pos_j ...] as uchar16s and compares them with pattern byte pos_j,
 * ANDing the masks; only starts that survive every position are verified byte by byte. Plain
 * vector compares: PoCL on AVX-512 chains them as vpcmpeqb through mask registers, one
 * instruction per load, compare and AND.
 * pat: the pattern (folded if CASELESS); tab: the positions, rarest byte first (host/simd.c),
 * min(M, 8) of them, then the pattern's smallest period. */

#define SIMD_K (TAB_LEN - 1)
/* SIMD_FAST (host/simd.c): compared at every step; the others only where these left a
 * candidate (rare in text of many letters; all positions at once for DNA) */
#ifndef SIMD_FAST
#define SIMD_FAST SIMD_K
#endif
/* every byte of the pattern compared: a survivor is a match */
#define SIMD_ALL (SIMD_K == M)

#if CASELESS
#define FOLD16(v) ((v) | (as_uchar16((v) - (uchar16)'A' < (uchar16)26) & (uchar16)0x20))
#else
#define FOLD16(v) (v)
#endif

/* lanes of block q of 16 starts at p whose byte at pos_j is the pattern's: -1, else 0 */
#define SIMD_EQ(p, q, j) (FOLD16(vload16((q), (p) + pos[j])) == want[j])
#define SIMD_AND(p, j)                                                                     \
    do {                                                                                   \
        c0 &= SIMD_EQ(p, 0, j);                                                            \
        c1 &= SIMD_EQ(p, 1, j);                                                            \
        c2 &= SIMD_EQ(p, 2, j);                                                            \
        c3 &= SIMD_EQ(p, 3, j);                                                            \
    } while (0)

/* A lane mask as bits, lane i at bit i: each half's lanes weighted 1..128 and summed into
 * the top byte by one multiply (distinct bits: no carries). */
uint simd_bits(char16 c)
{
    const uchar16 w = (uchar16)(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128);
    const uchar16 v = as_uchar16(c) & w;
    const ulong sum = 0x0101010101010101UL;
    return (uint)((as_ulong(v.lo) * sum) >> 56) | ((uint)((as_ulong(v.hi) * sum) >> 56) << 8);
}

/* Does the whole pattern start at s? A match at prev = s - period vouches for the bytes up to
 * its end (text[s, prev + M) = pat[period, M) = pat[0, M - period)): only those past it are
 * compared, so periodic text (a match every period) costs period bytes a match, not M. */
int simd_verify(__global const uchar *text, uint s, TABLE_SPACE const uchar *pat, uint prev,
                uint period)
{
    for (uint j = s - prev == period ? M - period : 0u; j < M; ++j)
        if (FOLD(text[s + j]) != pat[j])
            return 0;
    return 1;
}

/* A candidate start: verified (unless every byte was compared) and reported. */
#define SIMD_CHECK(start)                                                                  \
    do {                                                                                   \
        const uint st_ = (start);                                                          \
        if (SIMD_ALL || simd_verify(text, st_, pat, prev, period)) {                      \
            prev = st_;                                                                    \
            FOUND(st_, info);                                                              \
        }                                                                                  \
    } while (0)

/* The survivors of block c, starts at..at+15, in order (prev must be the last match before):
 * counted, or verified and reported. */
#define SIMD_REPORT(c, at)                                                                 \
    do {                                                                                   \
        uint bits_ = simd_bits(c);                                                         \
        if (count_only && SIMD_ALL) {                                                      \
            found += popcount(bits_);                                                      \
        } else {                                                                           \
            while (bits_) {                                                                \
                const uint i_ = 31u - clz(bits_ & (0u - bits_)); /* the lowest */          \
                bits_ &= bits_ - 1u;                                                       \
                SIMD_CHECK((at) + i_);                                                     \
            }                                                                              \
        }                                                                                  \
    } while (0)

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0;
    if (n < M)
        return 0;
    /* one past the last start: steps never read past n (start + 63 + M - 1 < n) */
    const uint last = min(min(begin + CHUNK, owned), n - M + 1);
    /* the last match found (none yet: far enough back that no start is period after it) */
    const uint period = tab[SIMD_K];
    uint prev = begin - M - period;
    uint pos[SIMD_K];
    uchar16 want[SIMD_K];
#pragma unroll
    for (uint j = 0; j < SIMD_K; ++j) {
        pos[j] = tab[j];
        want[j] = (uchar16)pat[pos[j]];
    }
    uint s = begin;
    for (; s + 64u <= last; s += 64u) {
        __global const uchar *p = text + s;
        char16 c0 = (char16)(-1), c1 = c0, c2 = c0, c3 = c0;
#pragma unroll
        for (uint j = 0; j < SIMD_FAST; ++j)
            SIMD_AND(p, j);
        if (!any(c0 | c1 | c2 | c3))
            continue;
#pragma unroll
        for (uint j = SIMD_FAST; j < SIMD_K; ++j)
            SIMD_AND(p, j);
        if (SIMD_K > SIMD_FAST && !any(c0 | c1 | c2 | c3))
            continue;
        SIMD_REPORT(c0, s);
        SIMD_REPORT(c1, s + 16u);
        SIMD_REPORT(c2, s + 32u);
        SIMD_REPORT(c3, s + 48u);
    }
    /* the last starts of the range, fewer than 64 */
    for (; s < last; ++s)
        if (simd_verify(text, s, pat, prev, period)) {
            prev = s;
            FOUND(s, info);
        }
    return found;
}
