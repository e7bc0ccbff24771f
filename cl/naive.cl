/* naive.cl - brute force (seed 002): every start position of the range is compared with the
 * pattern, stopping at the first mismatch. pat: the pattern (case-folded if CASELESS). */

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const ushort *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0;
    (void)tab;
    if (n < M)
        return 0;
    uint last = min(min(begin + CHUNK, owned), n - M + 1); /* one past the last start */
    const uchar first = pat[0];
    for (uint s = begin; s < last; ++s) {
        if (FOLD(text[s]) != first)
            continue;
        uint j = 1;
        while (j < M && FOLD(text[s + j]) == pat[j])
            ++j;
        if (j == M)
            REPORT(s);
    }
    return found;
}
