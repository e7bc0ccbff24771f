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

/* ---- pattern sets ------------------------------------------------------------------------ */

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

static int is_letter(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Where a candidate drawn at pos lies: [*at, *at + *m), or 0 when it is not one. */
static int candidate(const char *text, size_t len, set_kind kind, size_t pos, size_t min_m,
                     size_t max_m, uint64_t *x, size_t *at, size_t *m)
{
    if (kind == SET_DNA) {
        *m = min_m + (size_t)(xorshift(x) % (max_m - min_m + 1));
        if (pos + *m > len)
            return 0;
        for (size_t i = 0; i < *m; i++) {
            char c = text[pos + i];
            if (c != 'A' && c != 'C' && c != 'G' && c != 'T')
                return 0;
        }
        *at = pos;
        return 1;
    }
    if (!is_letter((unsigned char)text[pos]))
        return 0;
    size_t b = pos, e = pos;
    while (b > 0 && is_letter((unsigned char)text[b - 1]))
        b--;
    while (e < len && is_letter((unsigned char)text[e]))
        e++;
    *at = b;
    *m = e - b;
    return *m >= min_m && *m <= max_m;
}

void free_pattern_set(pattern_set *set)
{
    if (!set)
        return;
    free(set->bytes);
    free(set->ptrs);
    free(set->lens);
    memset(set, 0, sizeof *set);
}

int draw_pattern_set(const char *text, size_t len, set_kind kind, unsigned n, size_t min_m,
                     size_t max_m, uint64_t seed, pattern_set *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || min_m == 0 || min_m > max_m || len < max_m)
        return -1;
    size_t slots = 1;
    while (slots < 2 * (size_t)n)
        slots <<= 1;
    /* offsets[i]: pattern i's place in bytes; table: 1 + pattern index, 0 = free */
    size_t *offsets = malloc((size_t)n * sizeof *offsets);
    unsigned *table = calloc(slots, sizeof *table);
    out->bytes = malloc((size_t)n * max_m);
    out->ptrs = malloc((size_t)n * sizeof *out->ptrs);
    out->lens = malloc((size_t)n * sizeof *out->lens);
    if (!offsets || !table || !out->bytes || !out->ptrs || !out->lens) {
        free(offsets);
        free(table);
        free_pattern_set(out);
        return -1;
    }
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    size_t used = 0;
    out->min_len = SIZE_MAX;
    for (uint64_t tries = 0; out->count < n && tries < 1000 * (uint64_t)n; tries++) {
        size_t at, m;
        if (!candidate(text, len, kind, (size_t)(xorshift(&x) % len), min_m, max_m, &x, &at,
                       &m))
            continue;
        size_t h = (size_t)fnv1a(text + at, m) & (slots - 1);
        int dup = 0;
        for (; table[h]; h = (h + 1) & (slots - 1)) {
            unsigned j = table[h] - 1;
            if (out->lens[j] == m && !memcmp(out->bytes + offsets[j], text + at, m)) {
                dup = 1;
                break;
            }
        }
        if (dup)
            continue;
        memcpy(out->bytes + used, text + at, m);
        offsets[out->count] = used;
        out->lens[out->count] = m;
        table[h] = ++out->count;
        used += m;
        out->min_len = m < out->min_len ? m : out->min_len;
        out->max_len = m > out->max_len ? m : out->max_len;
    }
    for (unsigned i = 0; i < out->count; i++)
        out->ptrs[i] = out->bytes + offsets[i];
    free(offsets);
    free(table);
    if (out->count < n) {
        free_pattern_set(out);
        return -1;
    }
    return 0;
}

/* ---- the host reference ------------------------------------------------------------------ */

/* Aho-Corasick over a set's byte classes: a complete automaton (every state has a transition
 * for every class), each state's count of the patterns that end there, suffixes included. */
typedef struct automaton {
    unsigned short cls[256];    /* byte -> class; 0: in no pattern */
    unsigned classes;
    uint32_t *delta;            /* [state * classes + class] */
    uint32_t *out;              /* patterns ending at the state (duplicates each count) */
    size_t max_len;
} automaton;

/* One piece of work: the matches that end in (lo, hi]. */
typedef struct ref_task {
    const unsigned char *text;
    const unsigned char *pat;
    size_t m, lo, hi;
    ref_kind kind;
    unsigned k;
    int use_kmp;
    const size_t *fail;         /* KMP fail table (exact, periodic patterns) */
    const automaton *ac;        /* a pattern set (host_reference_set); NULL otherwise */
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

/* Every pattern of the set ending in (lo, hi]: the automaton starts max_len - 1 bytes
 * before, which every such match lies within. */
static void exact_set(ref_task *t)
{
    const automaton *a = t->ac;
    const unsigned char *x = t->text;
    size_t begin = t->lo + 1 > a->max_len ? t->lo + 1 - a->max_len : 0;
    uint32_t q = 0;
    uint64_t n = 0;
    for (size_t pos = begin; pos < t->hi; pos++) {
        q = a->delta[(size_t)q * a->classes + a->cls[x[pos]]];
        if (pos >= t->lo)
            n += a->out[q];
    }
    t->hist[0] += n;
}

static void *ref_worker(void *arg)
{
    ref_task *t = arg;
    if (t->ac) {
        exact_set(t);
        return NULL;
    }
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

enum { MAX_REF_THREADS = 64, MAX_LIMITS = 64 };

/* Run task `like` (everything but lo, hi and hist set) over the segments between the
 * distinct limits, each on every host core; hist[i] = the matches ending at or before
 * limits[i]. */
static void run_segments(const ref_task *like, size_t len, const size_t *limits, size_t n,
                         uint64_t (*hist)[BENCH_MAX_K + 1])
{
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

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cores < 1 ? 1 : cores > MAX_REF_THREADS ? MAX_REF_THREADS : (size_t)cores;
    ref_task tasks[MAX_REF_THREADS];
    pthread_t ids[MAX_REF_THREADS];
    uint64_t running[BENCH_MAX_K + 1] = {0};
    size_t prev = 0;
    for (size_t s = 0; s < ns; s++) {
        size_t lo = prev, hi = sorted[s];
        size_t parts = hi - lo < ((size_t)1 << 22) ? 1 : threads;
        size_t step = (hi - lo + parts - 1) / (parts ? parts : 1);
        int started[MAX_REF_THREADS] = {0};
        for (size_t i = 0; i < parts; i++) {
            ref_task *t = &tasks[i];
            *t = *like;
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
}

int host_reference(const char *text, size_t len, const char *pat, size_t m, ref_kind kind,
                   unsigned k, const size_t *limits, size_t n,
                   uint64_t (*hist)[BENCH_MAX_K + 1])
{
    if (k > BENCH_MAX_K || n > MAX_LIMITS || m == 0 || (kind != REF_EXACT && m > 64))
        return -1;
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

    ref_task like;
    memset(&like, 0, sizeof like);
    like.text = (const unsigned char *)text;
    like.pat = (const unsigned char *)pat;
    like.m = m;
    like.kind = kind;
    like.k = k;
    like.use_kmp = use_kmp;
    like.fail = fail;
    run_segments(&like, len, limits, n, hist);
    free(fail);
    return 0;
}

/* The automaton of a set (its trie, then the failure transitions breadth first); 0, or -1
 * when out of memory. */
static int build_automaton(const pattern_set *set, automaton *a)
{
    memset(a, 0, sizeof *a);
    a->classes = 1;
    for (unsigned i = 0; i < set->count; i++)
        for (size_t j = 0; j < set->lens[i]; j++) {
            unsigned char c = (unsigned char)set->ptrs[i][j];
            if (!a->cls[c])
                a->cls[c] = (unsigned short)a->classes++;
        }
    size_t states = 1;
    for (unsigned i = 0; i < set->count; i++)
        states += set->lens[i];
    a->max_len = set->max_len;
    if (states > UINT32_MAX)
        return -1;
    a->delta = calloc(states * a->classes, sizeof *a->delta);
    a->out = calloc(states, sizeof *a->out);
    uint32_t *fail = calloc(states, sizeof *fail), *queue = malloc(states * sizeof *queue);
    if (!a->delta || !a->out || !fail || !queue) {
        free(fail);
        free(queue);
        free(a->delta);
        free(a->out);
        return -1;
    }
    /* The trie: a transition that is not 0 leads to a child (0 is the root, never one). */
    uint32_t next = 1;
    for (unsigned i = 0; i < set->count; i++) {
        uint32_t q = 0;
        for (size_t j = 0; j < set->lens[i]; j++) {
            uint32_t *to = &a->delta[(size_t)q * a->classes + a->cls[(unsigned char)set->ptrs[i][j]]];
            if (!*to)
                *to = next++;
            q = *to;
        }
        a->out[q]++;
    }
    /* Breadth first, a state's failure state is done before it: its missing transitions are
     * its failure state's, and its count takes its failure state's (the suffixes). */
    size_t head = 0, tail = 0;
    for (unsigned c = 0; c < a->classes; c++)
        if (a->delta[c])
            queue[tail++] = a->delta[c];
    while (head < tail) {
        uint32_t q = queue[head++];
        a->out[q] += a->out[fail[q]];
        for (unsigned c = 0; c < a->classes; c++) {
            uint32_t *to = &a->delta[(size_t)q * a->classes + c];
            uint32_t via = a->delta[(size_t)fail[q] * a->classes + c];
            if (*to) {
                fail[*to] = via;
                queue[tail++] = *to;
            } else {
                *to = via;
            }
        }
    }
    free(fail);
    free(queue);
    return 0;
}

int host_reference_set(const char *text, size_t len, const pattern_set *set,
                       const size_t *limits, size_t n, uint64_t *counts)
{
    uint64_t hist[MAX_LIMITS][BENCH_MAX_K + 1];
    automaton a;
    if (n > MAX_LIMITS || set->count == 0 || build_automaton(set, &a) != 0)
        return -1;
    ref_task like;
    memset(&like, 0, sizeof like);
    like.text = (const unsigned char *)text;
    like.kind = REF_EXACT;
    like.ac = &a;
    run_segments(&like, len, limits, n, hist);
    for (size_t i = 0; i < n; i++)
        counts[i] = hist[i][0];
    free(a.delta);
    free(a.out);
    return 0;
}
