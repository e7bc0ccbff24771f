/*
 * clmatch-bench — the input text (the real genome repeated) and its patterns, and a host
 * reference count to check every device against.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, used = 0;
    if (!f)
        return -1;
    for (;;) {
        if (used + 1 >= cap) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
            char *nbuf = realloc(buf, ncap);
            if (!nbuf) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return -1;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t got = fread(buf + used, 1, cap - used - 1, f);
        used += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        fclose(f);
        errno = e;
        return -1;
    }
    fclose(f);
    buf[used] = '\0';
    *data = buf;
    *len = used;
    return 0;
}

char *replicate(const char *file, size_t file_len, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (!text)
        return NULL;
    size_t filled = file_len < size ? file_len : size;
    memcpy(text, file, filled);
    /* Doubling copies: every page is written now, so no scan pays first-touch faults. */
    while (filled < size) {
        size_t n = filled < size - filled ? filled : size - filled;
        memcpy(text + filled, text, n);
        filled += n;
    }
    return text;
}

int pick_pattern(const char *file, size_t file_len, size_t from, size_t m, char *out,
                 size_t *offset)
{
    size_t p = from;
    if (p > file_len)
        return -1;
    /* Move to the start of a line. */
    while (p > 0 && p < file_len && file[p - 1] != '\n')
        p++;
    while (p < file_len) {
        size_t eol = p;
        while (eol < file_len && file[eol] != '\n' && file[eol] != '\r')
            eol++;
        if (file[p] != '>' && file[p] != ';' && eol - p >= m) {
            memcpy(out, file + p, m);
            *offset = p;
            return 0;
        }
        p = eol;
        while (p < file_len && (file[p] == '\n' || file[p] == '\r'))
            p++;
    }
    return -1;
}

void host_count(const char *text, size_t len, const char *pat, size_t m, const size_t *limits,
                uint64_t *counts, size_t n)
{
    size_t shift[256], end = 0;
    const unsigned char *t = (const unsigned char *)text, *p = (const unsigned char *)pat;
    for (size_t k = 0; k < n; k++) {
        counts[k] = 0;
        if (limits[k] > end)
            end = limits[k];
    }
    if (end > len)
        end = len;
    if (m == 0 || m > end)
        return;
    /* Horspool: shift by the distance of the window's last byte from the pattern's end. */
    for (size_t c = 0; c < 256; c++)
        shift[c] = m;
    for (size_t i = 0; i + 1 < m; i++)
        shift[p[i]] = m - 1 - i;
    const unsigned char last = p[m - 1];
    for (size_t pos = 0; pos + m <= end; pos += shift[t[pos + m - 1]]) {
        if (t[pos + m - 1] != last || memcmp(t + pos, p, m - 1) != 0)
            continue;
        for (size_t k = 0; k < n; k++)
            if (pos + m <= limits[k])
                counts[k]++;
    }
}
