/* Pattern tables built on the host: case folding, KMP fail table, reduced alphabet, DFA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

unsigned char clm_fold(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

void clm_kmp_fail(const unsigned char *pat, size_t m, uint16_t *fail)
{
    fail[0] = 0;
    if (m == 0)
        return;
    fail[1] = 0;
    size_t k = 0; /* length of the current border */
    for (size_t j = 1; j < m; j++) {
        while (k > 0 && pat[j] != pat[k])
            k = fail[k];
        if (pat[j] == pat[k])
            k++;
        fail[j + 1] = (uint16_t)k;
    }
}

unsigned clm_class_map(const unsigned char *pat, size_t m, int caseless, unsigned char cls[256])
{
    unsigned short id[256] = {0}; /* 1..d while counting: d may reach 256 */
    unsigned d = 0;
    for (size_t i = 0; i < m; i++) {
        unsigned char c = caseless ? clm_fold(pat[i]) : pat[i];
        if (id[c] == 0) {
            id[c] = (unsigned short)++d;
            if (caseless && c >= 'a' && c <= 'z')
                id[c - 'a' + 'A'] = (unsigned short)d; /* both cases, one class */
        }
    }
    /* class 0 is "not in the pattern", unless every byte value is in it */
    unsigned shift = d == 256 ? 1 : 0;
    for (int b = 0; b < 256; b++)
        cls[b] = (unsigned char)(id[b] - shift);
    return d == 256 ? 256 : d + 1;
}

void clm_dfa_table(const unsigned char *pat, size_t m, const unsigned char cls[256],
                   unsigned sigma, uint16_t *table)
{
    /* Knuth-Morris-Pratt automaton: from state q (q bytes matched) on class c. X is the state
     * the automaton would be in after reading pat[1, q), i.e. the restart state. */
    memset(table, 0, (m + 1) * sigma * sizeof *table);
    table[cls[pat[0]]] = 1;
    size_t x = 0;
    for (size_t q = 1; q <= m; q++) {
        memcpy(table + q * sigma, table + x * sigma, sigma * sizeof *table);
        if (q < m) {
            unsigned c = cls[pat[q]];
            table[q * sigma + c] = (uint16_t)(q + 1);
            x = table[x * sigma + c];
        }
    }
}

/* ---- position sets -------------------------------------------------------------------- */

static void set_add(uint8_t set[32], unsigned b)
{
    set[b >> 3] |= (uint8_t)(1u << (b & 7));
}

static int set_has(const uint8_t set[32], unsigned b)
{
    return (set[b >> 3] >> (b & 7)) & 1;
}

static void set_add_range(uint8_t set[32], unsigned lo, unsigned hi)
{
    for (unsigned b = lo; b <= hi; b++)
        set_add(set, b);
}

/* Is \c one of the classes \d \w \s \D \W \S? */
static int is_class_letter(unsigned char c)
{
    unsigned lower = c | 0x20u;
    return lower == 'd' || lower == 'w' || lower == 's';
}

/* \d \w \s and their complements; returns 0 when c is not a class letter. */
static int escape_class(unsigned char c, uint8_t set[32])
{
    uint8_t tmp[32] = {0};
    switch (c | 0x20) {
    case 'd': set_add_range(tmp, '0', '9'); break;
    case 'w':
        set_add_range(tmp, '0', '9');
        set_add_range(tmp, 'A', 'Z');
        set_add_range(tmp, 'a', 'z');
        set_add(tmp, '_');
        break;
    case 's':
        set_add(tmp, ' ');
        set_add_range(tmp, '\t', '\r'); /* \t \n \v \f \r */
        break;
    default: return 0;
    }
    int negate = c >= 'A' && c <= 'Z';
    for (int i = 0; i < 32; i++)
        set[i] |= negate ? (uint8_t)~tmp[i] : tmp[i];
    return 1;
}

static unsigned char escape_byte(unsigned char c)
{
    return c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
}

/* The detail quotes the pattern (up to 60 bytes, non-printing bytes as '?'). */
static int syntax_error(const unsigned char *syntax_src, size_t syntax_len, unsigned index,
                        size_t at, const char *what)
{
    char quoted[64];
    size_t n = syntax_len < 60 ? syntax_len : 60;
    for (size_t i = 0; i < n; i++)
        quoted[i] = syntax_src[i] >= 32 && syntax_src[i] < 127 ? (char)syntax_src[i] : '?';
    quoted[n] = '\0';
    return clm_fail(CLM_E_PATTERN_SYNTAX, "pattern %u ('%s%s'): %s at byte offset %zu", index,
                    quoted, syntax_len > 60 ? "..." : "", what, at);
}

/* A class escape at src[at] (\d ...) as a range's start or end: it spans no byte range, so
 * [a-\d] and [\d-z] are errors (as in grep -P, and grep -E with [:digit:]), never a guess. */
static int class_in_range(const unsigned char *src, size_t len, unsigned index, size_t at,
                          const char *start_or_end)
{
    char what[48];
    snprintf(what, sizeof what, "class \\%c cannot %s a range", src[at + 1], start_or_end);
    return syntax_error(src, len, index, at, what);
}

/* Letters in the set bring their other case. */
static void fold_set(uint8_t set[32])
{
    for (unsigned b = 'a'; b <= 'z'; b++)
        if (set_has(set, b) || set_has(set, b - 32)) {
            set_add(set, b);
            set_add(set, b - 32);
        }
}

/* One bracket expression starting after '['; *pos ends after ']'. */
static int parse_bracket(const unsigned char *src, size_t len, size_t *pos, unsigned index,
                         int caseless, uint8_t set[32])
{
    size_t open = *pos - 1, i = *pos;
    int negate = i < len && src[i] == '^';
    uint8_t tmp[32] = {0};
    int items = 0;
    if (negate)
        i++;
    while (i < len && src[i] != ']') {
        unsigned lo;
        if (src[i] == '\\') {
            if (i + 1 >= len)
                return syntax_error(src, len, index, i, "trailing backslash");
            if (escape_class(src[i + 1], tmp)) {
                if (i + 3 < len && src[i + 2] == '-' && src[i + 3] != ']')
                    return class_in_range(src, len, index, i, "start");
                i += 2;
                items++;
                continue;
            }
            lo = escape_byte(src[i + 1]);
            i += 2;
        } else {
            lo = src[i++];
        }
        unsigned hi = lo;
        if (i + 1 < len && src[i] == '-' && src[i + 1] != ']') {
            if (src[i + 1] == '\\') {
                if (i + 2 >= len)
                    return syntax_error(src, len, index, i + 1, "trailing backslash");
                if (is_class_letter(src[i + 2]))
                    return class_in_range(src, len, index, i + 1, "end");
                hi = escape_byte(src[i + 2]);
                i += 3;
            } else {
                hi = src[i + 1];
                i += 2;
            }
            if (hi < lo)
                return syntax_error(src, len, index, i - 1, "range out of order");
        }
        set_add_range(tmp, lo, hi);
        items++;
    }
    if (i >= len)
        return syntax_error(src, len, index, open, "unterminated [");
    if (items == 0)
        return syntax_error(src, len, index, open, "empty []");
    if (caseless) /* before the complement: [^a] excludes A too */
        fold_set(tmp);
    for (int b = 0; b < 32; b++)
        set[b] = negate ? (uint8_t)~tmp[b] : tmp[b];
    *pos = i + 1;
    return CLM_OK;
}

/* Close a parsed symbol: a letter brings its other case when caseless (negated brackets
 * were folded inside). Returns 1 when the set is one byte (or one letter in both cases,
 * caseless), with that byte (folded when caseless) in *byte. */
static int finish_symbol(uint8_t set[32], int caseless, unsigned char *byte)
{
    if (caseless)
        fold_set(set);
    unsigned count = 0, first = 256;
    /* a byte of the set at a time, and no further than a third member: a million patterns'
     * symbols went through here (41 % of a 1M-pattern compile when every bit was tested) */
    for (unsigned w = 0; w < 32 && count <= 2; w++)
        for (unsigned b = 8 * w; set[w] && b < 8 * w + 8; b++)
            if (set_has(set, b)) {
                count++;
                if (first == 256)
                    first = b;
            }
    int pair = caseless && count == 2 && first >= 'A' && first <= 'Z' && set_has(set, first + 32);
    if (count == 1 || pair) {
        *byte = caseless ? clm_fold((unsigned char)first) : (unsigned char)first;
        return 1;
    }
    return 0;
}

/* Room for the per-symbol sets and bytes of a pattern of len bytes (at most len symbols). */
static int alloc_symbols(size_t len, unsigned index, uint8_t (**sets)[32],
                         unsigned char **bytes)
{
    *sets = calloc(len ? len : 1, sizeof **sets);
    *bytes = malloc(len ? len : 1);
    if (*sets && *bytes)
        return CLM_OK;
    free(*sets);
    free(*bytes);
    return clm_fail(CLM_E_NOMEM, "out of memory parsing pattern %u", index);
}

int clm_parse_symbols(const unsigned char *src, size_t len, int classes, int caseless,
                      unsigned index, struct clm_symbols *out)
{
    memset(out, 0, sizeof *out);
    uint8_t(*sets)[32];
    unsigned char *bytes;
    if (alloc_symbols(len, index, &sets, &bytes) != CLM_OK)
        return CLM_E_NOMEM;
    size_t m = 0, i = 0;
    int literal = 1;
    while (i < len) {
        uint8_t *set = sets[m];
        unsigned char c = src[i];
        if (classes && c == '.') {
            memset(set, 0xff, 32);
            i++;
        } else if (classes && c == '[') {
            i++;
            int rc = parse_bracket(src, len, &i, index, caseless, set);
            if (rc) {
                free(sets);
                free(bytes);
                return rc;
            }
        } else if (classes && c == '\\') {
            if (i + 1 >= len) {
                free(sets);
                free(bytes);
                return syntax_error(src, len, index, i, "trailing backslash");
            }
            if (!escape_class(src[i + 1], set))
                set_add(set, escape_byte(src[i + 1]));
            i += 2;
        } else {
            set_add(set, c);
            i++;
        }
        literal &= finish_symbol(set, caseless, &bytes[m]);
        m++;
    }
    out->m = m;
    out->sets = sets;
    out->bytes = bytes;
    out->literal = literal;
    return CLM_OK;
}

/* ---- DNA (IUPAC) -------------------------------------------------------------------------- */

/* Base set of an IUPAC code as bits A=1 C=2 G=4 T=8 (U = T); 0 for any other byte (only
 * letters map to codes through | 0x20). */
static unsigned iupac_bases(unsigned char c)
{
    switch (c | 0x20) {
    case 'a': return 1;
    case 'c': return 2;
    case 'g': return 4;
    case 't': case 'u': return 8;
    case 'r': return 1 | 4;
    case 'y': return 2 | 8;
    case 's': return 2 | 4;
    case 'w': return 1 | 8;
    case 'k': return 4 | 8;
    case 'm': return 1 | 2;
    case 'b': return 2 | 4 | 8;
    case 'd': return 1 | 4 | 8;
    case 'h': return 1 | 2 | 8;
    case 'v': return 1 | 2 | 4;
    case 'n': return 15;
    default: return 0;
    }
}

void clm_reverse_complement(const unsigned char *src, size_t len, unsigned char *out)
{
    static const char from[] = "acgturykmbdhvswn", to[] = "tgcaayrmkvhdbswn";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = src[len - 1 - i];
        const char *p = c ? strchr(from, c | 0x20) : NULL;
        unsigned char r = p ? (unsigned char)to[p - from] : c;
        out[i] = (p && c < 'a') ? (unsigned char)(r - 32) : r; /* the code's case kept */
    }
}

int clm_parse_dna(const unsigned char *src, size_t len, int caseless, int degenerate_text,
                  unsigned index, struct clm_symbols *out)
{
    static const char iupac[] = "ACGTURYSWKMBDHVN";
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < len; i++) {
        if (!iupac_bases(src[i])) {
            char what[120];
            unsigned char c = src[i];
            if (c >= 33 && c < 127)
                snprintf(what, sizeof what, "'%c' is not an IUPAC nucleotide code "
                                            "(A C G T U R Y S W K M B D H V N, either case)", c);
            else
                snprintf(what, sizeof what, "byte 0x%02x is not an IUPAC nucleotide code "
                                            "(A C G T U R Y S W K M B D H V N, either case)", c);
            return syntax_error(src, len, index, i, what);
        }
    }
    uint8_t(*sets)[32];
    unsigned char *bytes;
    if (alloc_symbols(len, index, &sets, &bytes) != CLM_OK)
        return CLM_E_NOMEM;
    int literal = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned bases = iupac_bases(src[i]);
        unsigned lower = src[i] >= 'a' ? 0x20 : 0; /* the code's case */
        for (unsigned b = 0; b < 4; b++)
            if (bases >> b & 1)
                set_add(sets[i], (unsigned)"ACGT"[b] | lower);
        if (degenerate_text) /* text codes whose bases meet the code's */
            for (const char *t = iupac; *t; t++)
                if (iupac_bases((unsigned char)*t) & bases)
                    set_add(sets[i], (unsigned)*t | lower);
        literal &= finish_symbol(sets[i], caseless, &bytes[i]);
    }
    out->m = len;
    out->sets = sets;
    out->bytes = bytes;
    out->literal = literal;
    return CLM_OK;
}

void clm_symbols_free(struct clm_symbols *s)
{
    free(s->sets);
    free(s->bytes);
    memset(s, 0, sizeof *s);
}

int clm_bitap_tables(const struct clm_symbols *sym, unsigned words, unsigned char cls[256],
                     uint64_t *masks, unsigned *classes)
{
    /* mask of byte b (words 64-bit words): the positions whose set holds b; bytes with equal
     * masks share a class */
    uint64_t *byte_mask = calloc((size_t)256 * words, sizeof *byte_mask);
    unsigned n = 0;
    if (!byte_mask)
        return clm_fail(CLM_E_NOMEM, "out of memory building bitap tables");
    for (unsigned b = 0; b < 256; b++)
        for (size_t j = 0; j < sym->m; j++)
            if (set_has(sym->sets[j], b))
                byte_mask[(size_t)b * words + j / 64] |= 1ull << (j % 64);
    for (unsigned b = 0; b < 256; b++) {
        const uint64_t *bm = byte_mask + (size_t)b * words;
        unsigned c;
        for (c = 0; c < n; c++)
            if (memcmp(masks + (size_t)c * words, bm, words * sizeof *masks) == 0)
                break;
        if (c == n)
            memcpy(masks + (size_t)n++ * words, bm, words * sizeof *masks);
        cls[b] = (unsigned char)c;
    }
    free(byte_mask);
    *classes = n;
    return CLM_OK;
}

size_t clm_period(const unsigned char *pat, size_t m, uint16_t *witness, size_t pi_max)
{
    /* Z-function: z[d] = length of the longest common prefix of pat and pat[d..] */
    size_t *z = calloc(m + 1, sizeof *z);
    size_t p = m;
    if (!z)
        return 0;
    for (size_t d = 1, l = 0, r = 0; d < m; d++) {
        size_t k = d < r ? (r - d < z[d - l] ? r - d : z[d - l]) : 0;
        while (d + k < m && pat[k] == pat[d + k])
            k++;
        z[d] = k;
        if (d + k > r)
            l = d, r = d + k;
        if (d + k == m && p == m)
            p = d; /* the smallest shift that is a period */
    }
    /* a shift d below the period has a mismatch at q = d + z[d]: pat[q] != pat[q - d] */
    for (size_t d = 1; witness && d < pi_max && d < p; d++)
        witness[d] = (uint16_t)(d + z[d]);
    free(z);
    return p;
}

void clm_bmh_shifts(const unsigned char *pat, size_t m, uint16_t shift[256])
{
    for (int b = 0; b < 256; b++)
        shift[b] = (uint16_t)m;
    for (size_t i = 0; i + 1 < m; i++)
        shift[pat[i]] = (uint16_t)(m - 1 - i);
}

size_t clm_best_start(const uint8_t (*sets)[32], size_t m, const unsigned char *text, size_t e,
                      size_t lo, unsigned d, unsigned k)
{
    /* Distances of the pattern to every text[s, e) with e - s <= m + k, in one DP over the
     * reversed strings: row i = last i pattern symbols, column j = last j text bytes. */
    size_t width = e - lo < m + k ? e - lo : m + k;
    unsigned *row = malloc((width + 1) * sizeof *row), *next = malloc((width + 1) * sizeof *next);
    size_t best = e >= m ? e - m : lo; /* what the match has without indels */
    if (!row || !next) {
        free(row);
        free(next);
        return best;
    }
    for (size_t j = 0; j <= width; j++)
        row[j] = (unsigned)j; /* empty pattern suffix vs j bytes: j insertions */
    for (size_t i = 1; i <= m; i++) {
        const uint8_t *set = sets[m - i];
        next[0] = (unsigned)i;
        for (size_t j = 1; j <= width; j++) {
            unsigned sub = row[j - 1] + !set_has(set, text[e - j]);
            unsigned del = row[j] + 1, ins = next[j - 1] + 1;
            unsigned v = sub < del ? sub : del;
            next[j] = v < ins ? v : ins;
        }
        unsigned *t = row;
        row = next;
        next = t;
    }
    /* among lengths j with distance d: closest to m, the longer (earlier start) on a tie */
    size_t best_gap = (size_t)-1;
    for (size_t j = 0; j <= width; j++) {
        if (row[j] != d)
            continue;
        size_t gap = j > m ? j - m : m - j;
        if (gap < best_gap || (gap == best_gap && e - j < best)) {
            best_gap = gap;
            best = e - j;
        }
    }
    free(row);
    free(next);
    return best;
}
