/* Helpers of the test suite: RNG, text generation, the CPU reference, files. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"

/* ---- random ------------------------------------------------------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void t_rng_init(t_rng *r, const char *label, uint64_t salt)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the label, mixed with seed and salt */
    for (; label && *label; label++) h = (h ^ (unsigned char)*label) * 1099511628211ull;
    r->s = t_seed ^ h ^ (salt * 0x9e3779b97f4a7c15ull);
    (void)splitmix(&r->s);
}

uint64_t t_rand(t_rng *r) { return splitmix(&r->s); }

size_t t_below(t_rng *r, size_t n) { return n ? (size_t)(t_rand(r) % n) : 0; }

unsigned char t_symbol(unsigned alpha, size_t k)
{
    switch (alpha) {
    case 2: return (unsigned char)"ab"[k % 2];
    case 4: return (unsigned char)"ACGT"[k % 4];
    case 26: return (unsigned char)('a' + k % 26);
    default: return (unsigned char)(k % 256);
    }
}

void t_fill(t_rng *r, unsigned char *buf, size_t n, unsigned alpha)
{
    size_t i;
    for (i = 0; i < n; i++) buf[i] = t_symbol(alpha, t_below(r, alpha));
}

unsigned char *t_random_text(t_rng *r, size_t n, unsigned alpha)
{
    unsigned char *text = malloc(n ? n : 1);
    if (!text) abort();
    t_fill(r, text, n, alpha);
    return text;
}

unsigned char *t_pattern(unsigned alpha, size_t m)
{
    t_rng r;
    unsigned char *p = malloc(m ? m : 1);
    if (!p) abort();
    t_rng_init(&r, "pattern", alpha * 1000003ull + m);
    t_fill(&r, p, m, alpha);
    return p;
}

/* ---- matches ----------------------------------------------------------------------------- */

void t_matches_init(t_matches *m) { memset(m, 0, sizeof *m); }

void t_matches_free(t_matches *m)
{
    free(m->v);
    t_matches_init(m);
}

void t_matches_clear(t_matches *m)
{
    m->n = 0;
    m->written = 0;
    m->causality_errors = 0;
}

void t_matches_push_e(t_matches *m, uint64_t start, uint64_t end, unsigned id, unsigned edits)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
        if (!m->v) abort();
    }
    m->v[m->n].start = start;
    m->v[m->n].end = end;
    m->v[m->n].id = id;
    m->v[m->n].edits = edits;
    m->n++;
}

void t_matches_push(t_matches *m, uint64_t start, uint64_t end, unsigned id)
{
    t_matches_push_e(m, start, end, id, 0);
}

int t_ignore(const clm_match *match, void *ctx)
{
    (void)match;
    (void)ctx;
    return 0;
}

int t_collect(const clm_match *match, void *ctx)
{
    t_matches *m = ctx;
    /* A stream may only report a match once all of its bytes were written. */
    if (m->written && match->end > m->written) m->causality_errors++;
    t_matches_push_e(m, match->start, match->end, match->id, match->edits);
    return m->limit && m->n >= m->limit;
}

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

void t_reference(const unsigned char *text, size_t n, const t_patset *ps, t_matches *out)
{
    unsigned *order = malloc(ps->count * sizeof *order);
    unsigned char **pats = malloc(ps->count * sizeof *pats);
    unsigned char *ftext = NULL;
    const unsigned char *t = text;
    unsigned i, j;
    size_t pos;

    if (!order || !pats) abort();
    /* Patterns in id order: at one start, matches come by id. */
    for (i = 0; i < ps->count; i++) order[i] = i;
    for (i = 1; i < ps->count; i++) {
        for (j = i; j > 0; j--) {
            unsigned a = order[j - 1], b = order[j];
            unsigned ida = ps->ids ? ps->ids[a] : a, idb = ps->ids ? ps->ids[b] : b;
            if (ida <= idb) break;
            order[j - 1] = b;
            order[j] = a;
        }
    }
    for (i = 0; i < ps->count; i++) {
        pats[i] = malloc(ps->lens[i] ? ps->lens[i] : 1);
        if (!pats[i]) abort();
        memcpy(pats[i], ps->pats[i], ps->lens[i]);
        if (ps->caseless)
            for (pos = 0; pos < ps->lens[i]; pos++) pats[i][pos] = fold(pats[i][pos]);
    }
    if (ps->caseless && n) {
        ftext = malloc(n);
        if (!ftext) abort();
        for (pos = 0; pos < n; pos++) ftext[pos] = fold(text[pos]);
        t = ftext;
    }
    t_matches_clear(out);
    for (pos = 0; pos < n; pos++) {
        for (i = 0; i < ps->count; i++) {
            unsigned k = order[i];
            size_t m = ps->lens[k];
            if (m <= n - pos && t[pos] == pats[k][0] && memcmp(t + pos, pats[k], m) == 0)
                t_matches_push(out, pos, pos + m, ps->ids ? ps->ids[k] : k);
        }
    }
    for (i = 0; i < ps->count; i++) free(pats[i]);
    free(pats);
    free(order);
    free(ftext);
}

int t_matches_diff(const t_matches *got, const t_matches *want, char *buf, size_t size)
{
    size_t i, n = got->n < want->n ? got->n : want->n;
    for (i = 0; i < n; i++) {
        const clm_match *a = &got->v[i], *b = &want->v[i];
        if (a->start != b->start || a->end != b->end || a->id != b->id || a->edits != b->edits) {
            snprintf(buf, size,
                     "match #%zu differs: got (%llu,%llu,id %u,edits %u), expected "
                     "(%llu,%llu,id %u,edits %u); %zu matches, expected %zu",
                     i, (unsigned long long)a->start, (unsigned long long)a->end, a->id,
                     a->edits, (unsigned long long)b->start, (unsigned long long)b->end, b->id,
                     b->edits, got->n, want->n);
            return 1;
        }
    }
    if (got->n != want->n) {
        const clm_match *x = got->n > want->n ? &got->v[n] : &want->v[n];
        snprintf(buf, size, "%zu matches, expected %zu; first %s: (%llu,%llu,id %u,edits %u)",
                 got->n, want->n, got->n > want->n ? "extra" : "missing",
                 (unsigned long long)x->start, (unsigned long long)x->end, x->id, x->edits);
        return 1;
    }
    return 0;
}

/* ---- compile helpers ----------------------------------------------------------------------- */

int t_compile(const t_patset *ps, clm_algorithm algo, clm_table_memory mem, unsigned flags,
              unsigned wgs, unsigned bpi, clm_database **out)
{
    return t_compile_ex(ps, algo, mem, flags, wgs, bpi, CLM_VARIANT_AUTO, 0, out);
}

int t_compile_ex(const t_patset *ps, clm_algorithm algo, clm_table_memory mem, unsigned flags,
                 unsigned wgs, unsigned bpi, clm_variant variant, unsigned max_errors,
                 clm_database **out)
{
    clm_compile_options o;
    t_compile_options(&o, ps, algo, mem, flags, wgs, bpi, variant, max_errors);
    return t_compile_with(ps, &o, out);
}

int t_compile_with(const t_patset *ps, const clm_compile_options *o, clm_database **out)
{
    return clm_compile(t_dev, (const char *const *)ps->pats, ps->lens, ps->ids, ps->count, o,
                       out);
}

void t_compile_options(clm_compile_options *o, const t_patset *ps, clm_algorithm algo,
                       clm_table_memory mem, unsigned flags, unsigned wgs, unsigned bpi,
                       clm_variant variant, unsigned max_errors)
{
    const char *staging = getenv("CLMATCH_STAGING");
    clm_compile_options_init(o, sizeof *o);
    o->algorithm = algo;
    o->table_memory = mem;
    o->flags = flags | (ps->caseless ? CLM_CASELESS : 0u);
    /* Local tables stage where the kernel can, as on the GPUs (their built-in stage=on), so
     * the CPU test device runs the staged kernels too; CLMATCH_STAGING=off runs the suite
     * without them. A caller may set o->staging afterwards. */
    if (mem == CLM_TABLE_LOCAL
        && !(staging && (!strcmp(staging, "off") || !strcmp(staging, "0"))))
        o->staging = CLM_ON;
    o->work_group_size = wgs;
    o->bytes_per_item = bpi;
    o->variant = variant;
    o->max_errors = max_errors;
}

int t_has_extension(const char *name)
{
    const char *e = t_devinfo.extensions;
    size_t n = strlen(name);
    while ((e = strstr(e, name)) != NULL) {
        int starts = e == t_devinfo.extensions || e[-1] == ' ';
        if (starts && (e[n] == '\0' || e[n] == ' ')) return 1;
        e += n;
    }
    return 0;
}

uint64_t t_table_bytes(const t_patset *ps, clm_algorithm algo)
{
    /* The largest single pattern's table, laid out plainly with 32-bit entries: a library may
     * pack tables tighter, so a rejection is only legitimate above this size. */
    uint64_t worst = 0;
    unsigned i;
    if (algo == CLM_ALGO_AHO) {
        /* one automaton of every pattern: a state per pattern byte (and the root), a 32-bit
         * entry per state and distinct byte (and "other"), four per output and pattern */
        unsigned char seen[256] = {0};
        uint64_t total = 0, distinct = 0;
        for (i = 0; i < ps->count; i++) {
            total += ps->lens[i];
            for (size_t k = 0; k < ps->lens[i]; k++) {
                unsigned char c = ps->caseless ? fold(ps->pats[i][k]) : ps->pats[i][k];
                distinct += !seen[c];
                seen[c] = 1;
            }
        }
        return 256 + 4096 + 4 * ((total + 1) * (distinct + 1) * 9 / 8 + 2 * total + 2 * ps->count);
    }
    if (algo == CLM_ALGO_KMER) {
        /* a q-gram at up to 32 offsets of each pattern: per entry two 32-bit words, a bucket
         * word and at most 32 filter bits (or the filter's 512 bytes), and the patterns */
        uint64_t total = 0;
        for (i = 0; i < ps->count; i++) total += ps->lens[i];
        uint64_t entries = 32 * (uint64_t)ps->count;
        return (64 + 4 * (3 * entries + 2 * ps->count + 33) + 4 * entries + 512 + total + 4) * 9 / 8;
    }
    for (i = 0; i < ps->count; i++) {
        uint64_t m = ps->lens[i], bytes = m;
        if (algo == CLM_ALGO_KMP) {
            bytes += 4 * (m + 1);
        } else if (algo == CLM_ALGO_DFA) {
            unsigned char seen[256] = {0};
            unsigned distinct = 0;
            size_t k;
            for (k = 0; k < m; k++) {
                unsigned char c = ps->pats[i][k];
                if (ps->caseless) c = fold(c);
                if (!seen[c]) distinct++;
                seen[c] = 1;
            }
            /* (m + 1) states × (distinct symbols + one "other" class) + a byte→class map */
            bytes += 4 * (m + 1) * (distinct + 1) + 256;
        } else if (algo == CLM_ALGO_BITAP) {
            /* one mask per byte value, up to 256 bits each (symbols beyond 256 are refused) */
            bytes += 256 * 32 + 1024;
        } else if (algo == CLM_ALGO_BMH) {
            bytes += 256 * 4; /* the shift table */
        } else if (algo == CLM_ALGO_WITNESS) {
            bytes += 2 * 4 * (m + 1); /* witness table (+ a fail or period table) */
        }
        if (bytes > worst) worst = bytes;
    }
    return worst;
}

uint64_t t_table_limit(clm_table_memory mem)
{
    switch (mem) {
    case CLM_TABLE_LOCAL: return t_devinfo.local_mem_bytes;
    case CLM_TABLE_CONSTANT: return t_devinfo.constant_mem_bytes;
    default: return t_devinfo.max_alloc_bytes;
    }
}

/* ---- files ------------------------------------------------------------------------------- */

char *t_tempdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char *path;
    size_t len;
    if (!base || !*base) base = "/tmp";
    len = strlen(base) + strlen(tag) + 32;
    path = malloc(len);
    if (!path) abort();
    snprintf(path, len, "%s/clmatch-test-%s-XXXXXX", base, tag);
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

void t_rmtree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    if (!d) {
        remove(path);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char sub[4096];
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            t_rmtree(sub);
        else
            remove(sub);
    }
    closedir(d);
    rmdir(path);
}

static void list_into(const char *dir, char ***list, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        char sub[4096];
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (lstat(sub, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            list_into(sub, list, n, cap);
        } else if (S_ISREG(st.st_mode)) {
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 16;
                *list = realloc(*list, *cap * sizeof **list);
                if (!*list) abort();
            }
            (*list)[(*n)++] = strdup(sub);
        }
    }
    closedir(d);
}

size_t t_list_files(const char *dir, char ***out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    list_into(dir, out, &n, &cap);
    return n;
}

void t_free_list(char **list, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) free(list[i]);
    free(list);
}

int t_copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out;
    char buf[65536];
    size_t k;
    int rc = 0;
    if (!in) return -1;
    out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    while ((k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, out) != k) rc = -1;
    if (ferror(in)) rc = -1;
    fclose(in);
    if (fclose(out) != 0) rc = -1;
    return rc;
}

int t_check_scan(const clm_database *db, clm_scratch *s, const unsigned char *text, size_t n,
                 const t_matches *want, t_matches *got, const char *desc, const char *what)
{
    char diff[512];
    uint64_t count = 0;
    t_matches_clear(got);
    int rc = clm_scan(db, s, text, n, t_collect, got);
    if (rc != CLM_OK)
        return T_FAIL("%s n=%zu text=%s: clm_scan: %s: %s", desc, n, what, clm_strerror(rc),
                      clm_last_error());
    if (t_matches_diff(got, want, diff, sizeof diff))
        return T_FAIL("%s n=%zu text=%s: %s", desc, n, what, diff);
    rc = clm_count(db, s, text, n, &count);
    if (rc != CLM_OK)
        return T_FAIL("%s n=%zu text=%s: clm_count: %s: %s", desc, n, what, clm_strerror(rc),
                      clm_last_error());
    if (count != want->n)
        return T_FAIL("%s n=%zu text=%s: clm_count gave %llu, expected %zu", desc, n, what,
                      (unsigned long long)count, want->n);
    return 1;
}

static int scratch_alloc(const clm_database *db, clm_scratch **s, size_t slab, size_t capacity,
                         unsigned slots, const char *desc)
{
    clm_scratch_options so;
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = slab;
    so.match_capacity = capacity;
    so.slots = slots;
    clm_scratch_free(*s);
    *s = NULL;
    int rc = clm_scratch_alloc(db, &so, s);
    if (rc != CLM_OK) {
        *s = NULL;
        return T_FAIL("%s: clm_scratch_alloc(slab %zu): %s: %s", desc, slab, clm_strerror(rc),
                      clm_last_error());
    }
    return 1;
}

int t_scratch_alloc(const clm_database *db, clm_scratch **s, size_t slab, size_t capacity,
                    const char *desc)
{
    return scratch_alloc(db, s, slab, capacity, 0, desc);
}

int t_scratch_alloc_slots(const clm_database *db, clm_scratch **s, size_t slab, unsigned slots,
                          const char *desc)
{
    return scratch_alloc(db, s, slab, 0, slots, desc);
}
