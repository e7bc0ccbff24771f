/*
 * PAMs for clmatch --dna (see crispr.h).
 */
#include "crispr.h"

#include "cli_common.h"

#include <stdlib.h>
#include <string.h>

unsigned iupac_set(unsigned char c)
{
    static const char codes[] = "ACGTURYSWKMBDHVN";
    static const unsigned char sets[] = {1, 2, 4, 8, 8, 5, 10, 6, 9, 12, 3, 14, 13, 11, 7, 15};
    const char *p;
    if (c >= 'a' && c <= 'z')
        c = (unsigned char)(c - 'a' + 'A');
    p = c ? strchr(codes, c) : NULL;
    return p ? sets[p - codes] : 0u;
}

unsigned char iupac_complement(unsigned char c)
{
    static const char from[] = "ACGTURYSWKMBDHVNacgturyswkmbdhvn";
    static const char to[] = "TGCAAYRSWMKVHDBNtgcaayrswmkvhdbn";
    const char *p = c ? strchr(from, c) : NULL;
    return p ? (unsigned char)to[p - from] : c;
}

int crispr_pam_check(const char *option, const char *seq)
{
    size_t i, n = strlen(seq);
    if (n == 0) {
        errmsg("%s: empty PAM (expected IUPAC codes, e.g. NGG or TTTV)", option);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (iupac_set((unsigned char)seq[i]) == 0) {
            char *q = cli_quote_bytes(seq, n);
            errmsg("%s '%s': '%c' at position %zu is not an IUPAC nucleotide code "
                   "(A C G T U R Y S W K M B D H V N, either case)",
                   option, q ? q : seq, seq[i], i + 1);
            free(q);
            return -1;
        }
    }
    return 0;
}

char *crispr_join(const crispr_pam *pam, const char *guide, size_t guide_len, size_t *len)
{
    char *s = malloc(guide_len + pam->len + 1);
    if (!s)
        return NULL;
    if (pam->five_prime) {
        memcpy(s, pam->seq, pam->len);
        memcpy(s + pam->len, guide, guide_len);
    } else {
        memcpy(s, guide, guide_len);
        memcpy(s + guide_len, pam->seq, pam->len);
    }
    *len = guide_len + pam->len;
    s[*len] = '\0';
    return s;
}

static int is_lower(unsigned char c)
{
    return c >= 'a' && c <= 'z';
}

/* Does text byte t match pattern code c the way the library matches them (CLM_DNA): t is a
 * base of c's set in c's case (either case with CLM_CASELESS); with CLM_DEGENERATE_TEXT also
 * an IUPAC code (not U) whose set meets c's. */
static int text_matches(const crispr_pam *pam, unsigned char t, unsigned char c)
{
    unsigned ts;
    if (!pam->caseless && is_lower(t) != is_lower(c))
        return 0;
    ts = iupac_set(t);
    if ((t | 0x20) == 'u')
        return 0;
    if (ts != 1 && ts != 2 && ts != 4 && ts != 8 && !pam->degenerate_text)
        return 0;
    return (ts & iupac_set(c)) != 0;
}

int crispr_pam_matches(const crispr_pam *pam, const unsigned char *site, size_t n, int strand)
{
    /* The PAM's offset in the site, in the site's (the pattern's) orientation. */
    const size_t off = pam->five_prime ? 0 : n - pam->len;
    size_t i;
    if (n < pam->len)
        return 0;
    for (i = 0; i < pam->len; i++) {
        const unsigned char c = (unsigned char)pam->seq[i];
        /* On the - strand the site is the reverse complement of the text: compare the text
         * byte with the code's complement (sets and case complement alike). */
        if (strand > 0 ? !text_matches(pam, site[off + i], c)
                       : !text_matches(pam, site[n - 1 - off - i], iupac_complement(c)))
            return 0;
    }
    return 1;
}
