/* bmh.cl - Boyer-Moore-Horspool (seed 001), one range of start positions per work-item
 * (CHUNK: m + 32 in the seed; tunable). pat: the pattern (case-folded if CASELESS);
 * tab[b]: bad-character shift for the folded byte b under the window's last byte. */

uint clm_scan_range(__global const uchar *text, uint n, uint owned, uint begin,
                    TABLE_SPACE const uchar *pat, TABLE_SPACE const TAB_T *tab,
                    __global uint *counter, __global uint *out, uint cap, uint info,
                    const int count_only)
{
    uint found = 0;
    if (n < M)
        return 0;
    const uint last = min(min(begin + CHUNK, owned), n - M + 1); /* one past the last start */
    const uchar tail = pat[M - 1];
    for (uint s = begin; s < last;) {
        const uchar c = FOLD(text[s + M - 1]);
        if (c == tail) {
            int j = M - 2;
            while (j >= 0 && FOLD(text[s + j]) == pat[j])
                --j;
            if (j < 0)
                REPORT(s);
        }
        s += tab[c];
    }
    return found;
}
