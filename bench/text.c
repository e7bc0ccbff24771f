/*
 * clmatch-bench — the input texts (the real genome repeated, all 'a'), their patterns, and a
 * host reference (exact, Hamming and edit distance, on every host core) to check every device
 * against.
 */
#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

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
    if (p > file_len || m == 0)
        return -1;
    /* Move to the start of a line. */
    while (p > 0 && p < file_len && file[p - 1] != '\n')
        p++;
    while (p < file_len) {
        size_t eol = p;
        while (eol < file_len && file[eol] != '\n' && file[eol] != '\r')
            eol++;
        if (file[p] != '>' && file[p] != ';' && p + m <= file_len) {
            /* The m bytes must not reach into a header line. */
            size_t bad = p;
            while (bad < p + m && !((file[bad] == '>' || file[bad] == ';')
                                    && (bad == 0 || file[bad - 1] == '\n')))
                bad++;
            if (bad == p + m) {
                memcpy(out, file + p, m);
                *offset = p;
                return 0;
            }
            eol = bad; /* go on after that header */
        }
        p = eol;
        while (p < file_len && file[p] != '\n')
            p++;
        while (p < file_len && (file[p] == '\n' || file[p] == '\r'))
            p++;
    }
    return -1;
}

void random_letters(uint64_t seed, size_t m, char *out)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < m; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = (char)('A' + (x >> 32) % 26);
    }
}

/* ---- the host reference ------------------------------------------------------------------ */

/* One piece of work: the matches that end in (lo, hi]. */
typedef struct ref_task {
    const unsigned char *text;
    const unsigned char *pat;
    size_t m, lo, hi;
    ref_kind kind;
    unsigned k;
    int use_kmp;
    const size_t *fail;         /* KMP fail table (exact, periodic patterns) */
    uint64_t hist[BENCH_MAX_K + 1];
} ref_task;

static void exact_horspool(ref_task *t)
{
    const unsigned char *x = t->text, *p = t->pat;
    const size_t m = t->m;
    size_t shift[256];
    size_t begin = t->lo + 1 > m ? t->lo + 1 - m : 0; /* first start whose end is > lo */
    for (size_t c = 0; c < 256; c++)
        shift[c] = m;
    for (size_t i = 0; i + 1 < m; i++)
        shift[p[i]] = m - 1 - i;
    const unsigned char last = p[m - 1];
    for (size_t pos = begin; pos + m <= t->hi; pos += shift[x[pos + m - 1]])
        if (x[pos + m - 1] == last && memcmp(x + pos, p, m - 1) == 0)
            t->hist[0]++;
}

static void exact_kmp(ref_task *t)
{
    const unsigned char *x = t->text, *p = t->pat;
    const size_t m = t->m;
    size_t q = 0; /* pattern bytes matched */
    size_t begin = t->lo + 1 > m ? t->lo + 1 - m : 0;
    for (size_t pos = begin; pos < t->hi; pos++) {
        while (q > 0 && p[q] != x[pos])
            q = t->fail[q];
        if (p[q] == x[pos])
            q++;
        if (q == m) {
            t->hist[0]++;
            q = t->fail[m];
        }
    }
}

/* Hamming distance: shift-and with one state vector per mismatch count (Wu-Manber). */
static void hamming(ref_task *t)
{
    uint64_t b[256] = {0}, d[BENCH_MAX_K + 1] = {0};
    const size_t m = t->m;
    const unsigned k = t->k;
    const uint64_t top = (uint64_t)1 << (m - 1);
    for (size_t i = 0; i < m; i++)
        b[t->pat[i]] |= (uint64_t)1 << i;
    size_t begin = t->lo + 1 > m ? t->lo + 1 - m : 0;
    for (size_t pos = begin; pos < t->hi; pos++) {
        const uint64_t eq = b[t->text[pos]];
        uint64_t prev = d[0];                 /* old D_{j-1} */
        d[0] = ((d[0] << 1) | 1) & eq;
        for (unsigned j = 1; j <= k; j++) {
            uint64_t old = d[j];
            d[j] = (((d[j] << 1) | 1) & eq) | ((prev << 1) | 1);
            prev = old;
        }
        if (pos + 1 > t->lo && (d[k] & top)) {
            unsigned j = 0;
            while (!(d[j] & top))
                j++;
            t->hist[j]++;
        }
    }
}

/* Edit distance, text start free: Myers' bit-vector algorithm (1999), m <= 64. */
static void edit(ref_task *t)
{
    uint64_t peq[256] = {0};
    const size_t m = t->m;
    const uint64_t top = (uint64_t)1 << (m - 1);
    const size_t reach = m + t->k; /* longest alignment with at most k edits */
    for (size_t i = 0; i < m; i++)
        peq[t->pat[i]] |= (uint64_t)1 << i;
    uint64_t pv = ~(uint64_t)0, mv = 0;
    size_t score = m;
    size_t begin = t->lo + 1 > reach ? t->lo + 1 - reach : 0;
    for (size_t pos = begin; pos < t->hi; pos++) {
        const uint64_t eq = peq[t->text[pos]];
        const uint64_t xv = eq | mv;
        const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        if (ph & top)
            score++;
        else if (mh & top)
            score--;
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
        if (score <= t->k && pos + 1 > t->lo)
            t->hist[score]++;
    }
}

static void *ref_worker(void *arg)
{
    ref_task *t = arg;
    switch (t->kind) {
    case REF_EXACT:
        if (t->use_kmp)
            exact_kmp(t);
        else
            exact_horspool(t);
        break;
    case REF_HAMMING: hamming(t); break;
    case REF_EDIT: edit(t); break;
    }
    return NULL;
}

int host_reference(const char *text, size_t len, const char *pat, size_t m, ref_kind kind,
                   unsigned k, const size_t *limits, size_t n,
                   uint64_t (*hist)[BENCH_MAX_K + 1])
{
    enum { MAX_THREADS = 64, MAX_LIMITS = 64 };
    if (k > BENCH_MAX_K || n > MAX_LIMITS || m == 0 || (kind != REF_EXACT && m > 64))
        return -1;
    for (size_t i = 0; i < n; i++)
        memset(hist[i], 0, sizeof hist[i]);

    /* The distinct limits, ascending: segments (0, L1], (L1, L2], ... */
    size_t sorted[MAX_LIMITS], ns = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = limits[i] < len ? limits[i] : len, j = ns;
        int dup = 0;
        for (size_t q = 0; q < ns; q++)
            dup |= sorted[q] == l;
        if (dup)
            continue;
        while (j > 0 && sorted[j - 1] > l) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = l;
        ns++;
    }

    /* KMP fail table, used for periodic patterns (Horspool is quadratic on aaa...a). */
    size_t *fail = NULL;
    int use_kmp = 0;
    if (kind == REF_EXACT) {
        fail = malloc((m + 1) * sizeof *fail);
        if (!fail)
            return -1;
        const unsigned char *p = (const unsigned char *)pat;
        fail[0] = fail[1] = 0;
        for (size_t i = 1, q = 0; i < m; i++) {
            while (q > 0 && p[i] != p[q])
                q = fail[q];
            if (p[i] == p[q])
                q++;
            fail[i + 1] = q;
        }
        use_kmp = m - fail[m] < m / 2 + 1 && m > 8; /* period at most about m/2 */
    }

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (size_t)cores;
    ref_task tasks[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    uint64_t running[BENCH_MAX_K + 1] = {0};
    size_t prev = 0;
    for (size_t s = 0; s < ns; s++) {
        size_t lo = prev, hi = sorted[s];
        size_t parts = hi - lo < ((size_t)1 << 22) ? 1 : threads;
        size_t step = (hi - lo + parts - 1) / (parts ? parts : 1);
        int started[MAX_THREADS] = {0};
        for (size_t i = 0; i < parts; i++) {
            ref_task *t = &tasks[i];
            memset(t, 0, sizeof *t);
            t->text = (const unsigned char *)text;
            t->pat = (const unsigned char *)pat;
            t->m = m;
            t->kind = kind;
            t->k = k;
            t->use_kmp = use_kmp;
            t->fail = fail;
            t->lo = lo + i * step < hi ? lo + i * step : hi;
            t->hi = lo + (i + 1) * step < hi ? lo + (i + 1) * step : hi;
            if (parts > 1 && pthread_create(&ids[i], NULL, ref_worker, t) == 0)
                started[i] = 1;
            else
                ref_worker(t); /* one piece, or no thread: do it here */
        }
        for (size_t i = 0; i < parts; i++) {
            if (started[i])
                pthread_join(ids[i], NULL);
            for (unsigned d = 0; d <= BENCH_MAX_K; d++)
                running[d] += tasks[i].hist[d];
        }
        for (size_t i = 0; i < n; i++)
            if ((limits[i] < len ? limits[i] : len) == hi)
                memcpy(hist[i], running, sizeof running);
        prev = hi;
    }
    free(fail);
    return 0;
}
