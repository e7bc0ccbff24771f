/* Small helpers: hashing, clock, files. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* What a path that is no regular file is, for messages. */
static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device file";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

int clm_open_regular(const char *path, const char **kind)
{
    struct stat st;
    *kind = NULL;
    /* stat first, so that a device is not even opened; fstat again after the open, in case
     * the path was replaced in between */
    if (stat(path, &st) != 0)
        return -1;
    if (S_ISREG(st.st_mode)) {
        /* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return -1;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
            return fd;
        close(fd);
    }
    *kind = file_kind(st.st_mode);
    errno = EINVAL;
    return -1;
}

int clm_read_fd(int fd, size_t max, char **out, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return ENOMEM;
    for (;;) {
        if (n + 1 >= cap) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                return ENOMEM;
            }
            buf = p;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int err = errno;
            free(buf);
            return err;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {
            free(buf);
            return EFBIG;
        }
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int clm_read_file(const char *path, size_t max, char **out, size_t *len)
{
    const char *kind;
    int fd = clm_open_regular(path, &kind);
    if (fd < 0 && kind)
        return clm_fail(CLM_E_IO, "cannot read %s: it is %s, not a regular file", path, kind);
    if (fd < 0)
        return clm_fail(CLM_E_IO, "cannot open %s: %s", path, strerror(errno));
    int err = clm_read_fd(fd, max, out, len);
    close(fd);
    if (err == ENOMEM)
        return clm_fail(CLM_E_NOMEM, "out of memory reading %s", path);
    if (err == EFBIG)
        return clm_fail(CLM_E_IO, "%s is larger than %zu bytes", path, max);
    if (err)
        return clm_fail(CLM_E_IO, "error reading %s: %s", path, strerror(err));
    return CLM_OK;
}

int clm_write_file_atomic(const char *path, const void *data, size_t len)
{
    static atomic_ulong sequence;
    char tmp[4200];
    int fd = -1;
    /* O_EXCL: a file left by a writer that died, or planted there (a link), is never
     * written through; the next name is tried */
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        int n = snprintf(tmp, sizeof tmp, "%s.%ld.%lu.tmp", path, (long)getpid(),
                         (unsigned long)atomic_fetch_add(&sequence, 1));
        if (n < 0 || (size_t)n >= sizeof tmp) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    if (fd < 0)
        return -1;
    const char *p = data;
    size_t left = len;
    int err = 0;
    while (left && !err) {
        ssize_t put = write(fd, p, left);
        if (put < 0 && errno != EINTR)
            err = errno;
        else if (put > 0)
            p += put, left -= (size_t)put;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
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

int clm_parse_size(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0, mul = 1;
    if (n && (s[n - 1] == 'K' || s[n - 1] == 'k'))
        mul = 1u << 10, n--;
    else if (n && (s[n - 1] == 'M' || s[n - 1] == 'm'))
        mul = 1u << 20, n--;
    else if (n && (s[n - 1] == 'G' || s[n - 1] == 'g'))
        mul = 1u << 30, n--;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
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
