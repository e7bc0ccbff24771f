/*
 * clmatch-bench — small helpers: clock, statistics, argument parsing, directories.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"

double now_seconds(void)
{
    struct timespec ts;
    /* CLOCK_MONOTONIC cannot fail with a valid pointer; 0 would only skew one sample. */
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *values, size_t n)
{
    qsort(values, n, sizeof *values, compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double min_of(const double *values, size_t n)
{
    double m = values[0];
    for (size_t i = 1; i < n; i++)
        if (values[i] < m)
            m = values[i];
    return m;
}

int parse_size(const char *s, uint64_t *out)
{
    char *end;
    double x;
    if (!s || !*s)
        return -1;
    errno = 0;
    x = strtod(s, &end);
    if (errno || end == s || !(x >= 0) || !isfinite(x))
        return -1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': x *= 1024.0; end++; break;
    case 'M': x *= 1024.0 * 1024.0; end++; break;
    case 'G': x *= 1024.0 * 1024.0 * 1024.0; end++; break;
    default: return -1;
    }
    if (toupper((unsigned char)*end) == 'B' || toupper((unsigned char)*end) == 'I') {
        end++; /* accept "MB", "MiB" */
        if (toupper((unsigned char)*end) == 'B')
            end++;
    }
    if (*end || x > 1e15)
        return -1;
    *out = (uint64_t)x;
    return 0;
}

int parse_seconds(const char *s, double *out)
{
    char *end;
    double x;
    if (!s || !*s)
        return -1;
    errno = 0;
    x = strtod(s, &end);
    if (errno || *end || !(x > 0) || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

int parse_device_pair(const char *s, int *platform, int *device)
{
    char *end;
    long p, d;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    p = strtol(s, &end, 10);
    if (errno || *end != ':' || !isdigit((unsigned char)end[1]))
        return -1;
    d = strtol(end + 1, &end, 10);
    if (errno || *end || p > 100000 || d > 100000)
        return -1;
    *platform = (int)p;
    *device = (int)d;
    return 0;
}

int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

void one_line(char *dst, size_t max, const char *s)
{
    size_t i = 0;
    if (max == 0)
        return;
    while (*s == '\n' || *s == ' ')
        s++;
    for (; s[i] && s[i] != '\n' && i + 1 < max; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = c == '|' ? '/' : c < 0x20 ? ' ' : (char)c;
    }
    dst[i] = '\0';
}

const char *device_type_name(clm_device_type t)
{
    switch (t) {
    case CLM_DEVICE_CPU: return "CPU";
    case CLM_DEVICE_GPU: return "GPU";
    case CLM_DEVICE_ACCELERATOR: return "ACC";
    default: return "OTHER";
    }
}

double gbs(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / seconds * 1e-9 : 0.0;
}
