/*
 * libFuzzer target: the IUPAC pattern parser (clm_parse_dna) with caseless and
 * degenerate_text off and on, and clm_reverse_complement. The input is the pattern. Besides
 * the sanitizers it checks against a table written here from the header's text:
 *  - a pattern is accepted exactly when every byte is an IUPAC code (either case), and a
 *    rejection is CLM_E_PATTERN_SYNTAX naming the offset of the first other byte;
 *  - symbol j holds the bases of code j in its case (both cases when caseless); with
 *    degenerate_text also the codes whose bases meet those, and nothing else;
 *  - the literal flag and bytes agree with the sets;
 *  - the reverse complement reversed and complemented again is the pattern, U read as T.
 */
#include "fuzz_symbols.h"

/* Each code, then its bases (U is T). */
static const char *const codes[] = {"AA",  "CC",  "GG",  "TT",   "UT",   "RAG",  "YCT",  "SCG",
                                    "WAT", "KGT", "MAC", "BCGT", "DAGT", "HACT", "VACG", "NACGT"};
#define NCODES (sizeof codes / sizeof codes[0])

/* Bases of each byte as bits A=1 C=2 G=4 T=8; 0 for a byte that is no code. */
static unsigned char base_bits[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    for (size_t k = 0; k < NCODES; k++) {
        unsigned bits = 0;
        for (const char *b = codes[k] + 1; *b; b++)
            bits |= 1u << (strchr("ACGT", *b) - "ACGT");
        base_bits[(unsigned char)codes[k][0]] = base_bits[codes[k][0] + 32] = (unsigned char)bits;
    }
    return 0;
}

static unsigned bases_of(unsigned char c)
{
    return base_bits[c];
}

/* The set symbol j must be: every byte x whose bases are those of code c (or meet them with
 * degenerate_text), in c's case or both cases when caseless; x is a base letter (A C G T)
 * unless degenerate_text. */
CHECK_CODE static void check_set(const uint8_t set[32], unsigned char c, int caseless,
                                 int degenerate_text)
{
    unsigned want = bases_of(c);
    int lower = c >= 'a';
    for (unsigned x = 0; x < 256; x++) {
        unsigned xb = bases_of((unsigned char)x);
        int x_lower = x >= 'a';
        int base_letter = xb && strchr("ACGTacgt", (int)x) != NULL;
        int in = xb && (caseless || x_lower == lower) &&
                 (degenerate_text ? (xb & want) != 0 : base_letter && (xb & want) == xb);
        if (fz_has(set, x) != in)
            abort();
    }
}

static void parse(const uint8_t *data, size_t size, int caseless, int degenerate_text)
{
    struct clm_symbols s;
    size_t bad = 0;
    while (bad < size && bases_of(data[bad]))
        bad++;
    int rc = clm_parse_dna(data, size, caseless, degenerate_text, 0, &s);
    if (bad < size) {
        if (rc != CLM_E_PATTERN_SYNTAX || fz_detail_offset() != bad)
            abort();
        return;
    }
    if (rc != CLM_OK || s.m != size)
        abort();
    for (size_t j = 0; j < size; j++)
        check_set(s.sets[j], data[j], caseless, degenerate_text);
    fz_check_literal(&s, caseless);
    clm_symbols_free(&s);
}

/* Twice reversed and complemented: the pattern, with U (u) as T (t); other bytes kept. */
static void reverse_complement_twice(const uint8_t *data, size_t size)
{
    unsigned char *once = malloc(size ? size : 1), *twice = malloc(size ? size : 1);
    if (!once || !twice)
        abort();
    clm_reverse_complement(data, size, once);
    clm_reverse_complement(once, size, twice);
    for (size_t j = 0; j < size; j++) {
        unsigned char want = data[j] == 'U' ? 'T' : data[j] == 'u' ? 't' : data[j];
        if (twice[j] != want)
            abort();
        /* the complement's bases: A<->T, C<->G, bit for bit reversed */
        unsigned b = bases_of(data[j]), rb = bases_of(once[size - 1 - j]);
        unsigned flipped = (b & 1) << 3 | (b & 2) << 1 | (b & 4) >> 1 | (b & 8) >> 3;
        if (rb != flipped)
            abort();
    }
    free(once);
    free(twice);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int mode = 0; mode < 4; mode++)
        parse(data, size, mode & 1, mode >> 1);
    reverse_complement_twice(data, size);
    return 0;
}
