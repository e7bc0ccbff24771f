/* Small helpers: hashing, clock, files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"

/* FNV-1a, 64-bit; the seed replaces the offset basis so two seeds give two independent-ish
 * hashes (the cache key uses 128 bits from two of them). */
uint64_t clm_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ^ 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    /* final avalanche (from splitmix64) so that short keys spread over all bits */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

double clm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int clm_read_file(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return clm_fail(CLM_E_IO, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return clm_fail(CLM_E_NOMEM, "out of memory reading %s", path);
    if (failed) {
        free(buf);
        return clm_fail(CLM_E_IO, "error reading %s", path);
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return CLM_OK;
}

int clm_mkdirs(const char *path)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

size_t clm_round_up(size_t x, size_t multiple)
{
    return (x + multiple - 1) / multiple * multiple;
}

unsigned clm_next_pow2(unsigned x)
{
    unsigned p = 1;
    while (p < x)
        p <<= 1;
    return p;
}
