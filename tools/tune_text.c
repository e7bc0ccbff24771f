/* The texts clmatch-tune times its searches on, and their answers (tools/tune_text.h). */
#include "tune_text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Random bases (xorshift64*, fixed seed): a DNA-like text where the patterns below occur a
 * few times, the case clmatch is mostly used for. */
void tune_generate(unsigned char *t, size_t n)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i += 32) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint64_t r = s * 0x2545f4914f6cdd1dull;
        for (size_t j = 0; j < 32 && i + j < n; j++, r >>= 2)
            t[i + j] = (unsigned char)"ACGT"[r & 3];
    }
}

/* Up to n bytes of FILE: a FASTA file's sequence lines without their line breaks, anything
 * else as it is. */
int tune_read_text(const char *path, unsigned char *t, size_t cap, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "clmatch-tune: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int c = getc(f), fasta = c == '>', line_start = 1, header = 0;
    size_t k = 0;
    for (; c != EOF && k < cap; c = getc(f)) {
        if (fasta) {
            if (line_start && c == '>')
                header = 1;
            line_start = c == '\n';
            if (c == '\n')
                header = 0;
            if (header || c == '\n' || c == '\r')
                continue;
        }
        t[k++] = (unsigned char)c;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "clmatch-tune: reading %s failed\n", path);
        return -1;
    }
    *n = k;
    return 0;
}

uint64_t tune_host_count(const unsigned char *t, size_t n, const char *p, size_t m)
{
    uint64_t c = 0;
    for (size_t i = 0; i + m <= n; i++) {
        const unsigned char *q = memchr(t + i, (unsigned char)p[0], n - m + 1 - i);
        if (!q)
            break;
        i = (size_t)(q - t);
        c += memcmp(q, p, m) == 0;
    }
    return c;
}
