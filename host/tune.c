/* Per-device tuning: work-group size, bytes per work-item, slab size, staging, load width,
 * staged work-groups per compute unit and prefetch, from generic defaults, a built-in table
 * keyed by vendor and device type, the device's profile file (written by clmatch-tune),
 * CLMATCH_STAGING and CLMATCH_TUNE, each overriding the one before (clmatch.h, "Tuning"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"

#define PROFILE_FORMAT 1u
#define PROFILE_MAGIC "clmatch-profile"
#define PROFILE_MAX_BYTES 65536
#define N_ALGOS ((int)CLM_ALGO_COUNT)

/* ---- the knobs: one row each ------------------------------------------------------------ */

static uint64_t max_wg(const clm_device_info *d)
{
    return d->max_work_group_size;
}

static uint64_t max_alloc(const clm_device_info *d)
{
    return d->max_alloc_bytes;
}

enum knob_kind {
    KNOB_NUMBER, /* a number within [min, max], a multiple of `multiple` (or a power of two) */
    KNOB_POW2,   /* a power of two within [min, max] */
    KNOB_SWITCH  /* on or off (1 or 0): CLM_TUNE_ON or CLM_TUNE_OFF */
};

struct knob {
    const char *key;      /* CLMATCH_TUNE item and profile key; ALGO.key when per_algorithm */
    const char *what;     /* for messages */
    int per_algorithm;
    uint64_t min, max;    /* fixed limits */
    uint64_t multiple;    /* values must be multiples of this ... */
    int pow2_ok;          /* ... or powers of two */
    const char *why;      /* why the multiple (KNOB_POW2: what the values mean) */
    uint64_t (*device_max)(const clm_device_info *d); /* NULL: none; 0 returned: unknown */
    const char *device_max_what;
    enum knob_kind kind;
};

static const struct knob knobs[CLM_KNOB_COUNT] = {
    [CLM_KNOB_WG] = {"wg", "work-group size", 1, 1, 0, 16, 1,
                     "whole SIMD groups", max_wg, "the device maximum", KNOB_NUMBER},
    [CLM_KNOB_CHUNK] = {"chunk", "bytes per work-item", 1, 16, 1u << 20, 16, 0,
                        "the kernels read 16-byte blocks", NULL, NULL, KNOB_NUMBER},
    [CLM_KNOB_SLAB] = {"slab", "slab size", 0, 4096, CLM_MAX_SLAB_BYTES, 4096, 0,
                       "whole pages", max_alloc, "the device's largest allocation", KNOB_NUMBER},
    /* exact dfa and one-word bitap with local tables stage work-group regions of text in
     * local memory (cl/kernels.cl STAGE) where the shape allows it */
    [CLM_KNOB_STAGE] = {"stage", "staging", 1, 0, 0, 0, 0, NULL, NULL, NULL, KNOB_SWITCH},
    /* bytes per load of the unstaged range reads (cl/common.cl LOAD16) */
    [CLM_KNOB_VEC] = {"vec", "bytes per load", 1, 4, 16, 0, 0, "uint, uint2 or uint4 loads",
                      NULL, NULL, KNOB_POW2},
    /* staged kernels: work-groups per compute unit, taking regions from a queue
     * (cl/kernels.cl clm_stage_loop) */
    [CLM_KNOB_GROUPS] = {"groups", "work-groups per compute unit", 1, 1, 1024, 1, 0, NULL,
                         NULL, NULL, KNOB_NUMBER},
    /* staged kernels: the next region loaded into registers during a walk */
    [CLM_KNOB_PREFETCH] = {"prefetch", "prefetch", 1, 0, 0, 0, 0, NULL, NULL, NULL,
                           KNOB_SWITCH},
    /* device sets: the device's share of an input (clm_device_set_calibrate measures it) */
    [CLM_KNOB_SPEED] = {"speed", "speed in bytes per second", 0, 1, UINT64_C(1) << 50, 1, 0,
                        NULL, NULL, NULL, KNOB_NUMBER},
};

/* ---- the built-in table ------------------------------------------------------------------ */

/* GPU: many small ranges keep every lane busy, and staging the text through on-chip local
 * memory coalesces the reads (H200: staged bitap 2.67 vs 1.68 TB/s, bench/results/h200-e);
 * CPU: long ranges per work-item amortise the work-group loop PoCL runs and keep the
 * per-range overlap small, and local memory is only a copy in the same caches, so no
 * staging. Both read 16-byte loads (vec 16, the kernels' loads before vec was a knob).
 * Staged kernels: 8 work-groups per compute unit, more than fit at once on the H200 (5 of
 * 256 work-items), so none idles while regions are left (4: 0.87-0.93x at m = 8-16); the
 * next region prefetched for bitap (2.73-2.75 vs 2.63 TB/s at m = 8-16 with 128-byte
 * chunks), not for the dfa (2.47-2.50 vs 2.68: its 80 registers let 3 groups in instead of
 * 5), bench/results/h200-k. GPU
 * slabs of 256 MiB: kernels of 64 MiB ran at 0.7x on the H200 (launch and tail-wave cost;
 * bench/results/h200-h); files are read in slabs of at most 64 MiB anyway (host/scan.c).
 * hamming: 128-byte chunks, twice the work-groups of 256 (H200, 1 000 guides + NGG over
 * 1 GB: 0.079 vs 0.095 s, bench/results/h200-r3-2026-11-28-crispr.md). */
#define GPU_VALUES                                                                         \
    "wg=256,chunk=256,slab=256M,stage=on,vec=16,groups=8,prefetch=off,bitap.prefetch=on,"  \
    "hamming.chunk=128"
#define CPU_VALUES "wg=16,chunk=4096,slab=64M,stage=off,vec=16,groups=8,prefetch=off"
#define GENERIC_VALUES CPU_VALUES

/* First row whose type and vendor match wins. match: '|'-separated lower-case substrings
 * of the platform name, platform vendor or device vendor; NULL: any. */
static const struct builtin {
    const char *name;
    clm_device_type type;
    const char *match;
    const char *values; /* CLMATCH_TUNE syntax */
} builtins[] = {
    {"NVIDIA GPU", CLM_DEVICE_GPU, "nvidia", GPU_VALUES},
    {"AMD GPU", CLM_DEVICE_GPU, "advanced micro devices|amd", GPU_VALUES},
    {"Intel GPU", CLM_DEVICE_GPU, "intel", GPU_VALUES},
    {"GPU", CLM_DEVICE_GPU, NULL, GPU_VALUES},
    {"accelerator", CLM_DEVICE_ACCELERATOR, NULL, GPU_VALUES},
    /* before "Intel CPU runtime": PoCL reports the CPU's vendor (GenuineIntel) */
    {"PoCL CPU", CLM_DEVICE_CPU, "portable computing language|pocl", CPU_VALUES},
    {"Intel CPU runtime", CLM_DEVICE_CPU, "intel", CPU_VALUES},
    {"CPU", CLM_DEVICE_CPU, NULL, CPU_VALUES},
};

/* ---- parsing items ------------------------------------------------------------------------ */

/* What one source sets; 0: not set. */
struct layer {
    uint64_t value[CLM_KNOB_COUNT];
    uint64_t algo[N_ALGOS][CLM_KNOB_COUNT];
};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s))
        (*s)++, (*n)--;
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

/* on or 1, off or 0: CLM_TUNE_ON or CLM_TUNE_OFF. */
static int parse_switch(const char *s, size_t n, uint64_t *out)
{
    if ((n == 2 && !memcmp(s, "on", 2)) || (n == 1 && s[0] == '1'))
        *out = CLM_TUNE_ON;
    else if ((n == 3 && !memcmp(s, "off", 3)) || (n == 1 && s[0] == '0'))
        *out = CLM_TUNE_OFF;
    else
        return -1;
    return 0;
}

static void known_keys(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < CLM_KNOB_COUNT && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "", knobs[k].key);
    for (int k = 0; k < CLM_KNOB_COUNT && n < cap; k++)
        if (knobs[k].per_algorithm)
            n += (size_t)snprintf(buf + n, cap - n, ", ALGO.%s", knobs[k].key);
}

/* Is v acceptable for knob k (on device d, when not NULL)? Else why not, into why. */
static int check_value(int k, uint64_t v, const clm_device_info *d, char *why, size_t cap)
{
    const struct knob *kn = &knobs[k];
    int pow2 = v && !(v & (v - 1));
    uint64_t dmax = d && kn->device_max ? kn->device_max(d) : 0;
    if (kn->kind == KNOB_POW2 && (!pow2 || v < kn->min || v > kn->max)) {
        size_t used = (size_t)snprintf(why, cap, "%s %llu is not ", kn->what,
                                       (unsigned long long)v);
        for (uint64_t c = kn->min; c <= kn->max && used < cap; c *= 2)
            used += (size_t)snprintf(why + used, cap - used, "%s%llu",
                                     c == kn->min ? "" : c * 2 > kn->max ? " or " : ", ",
                                     (unsigned long long)c);
        if (used < cap)
            snprintf(why + used, cap - used, " (%s)", kn->why);
        return -1;
    }
    if (kn->kind != KNOB_NUMBER) /* nothing more to check (no multiple: it would divide by 0) */
        return 0;
    if (v < kn->min)
        snprintf(why, cap, "%s %llu is below the minimum %llu", kn->what, (unsigned long long)v,
                 (unsigned long long)kn->min);
    else if (kn->max && v > kn->max)
        snprintf(why, cap, "%s %llu exceeds the maximum %llu", kn->what, (unsigned long long)v,
                 (unsigned long long)kn->max);
    else if (v % kn->multiple && !(kn->pow2_ok && pow2))
        snprintf(why, cap, "%s %llu is %s a multiple of %llu%s (%s)", kn->what,
                 (unsigned long long)v, kn->pow2_ok ? "neither" : "not",
                 (unsigned long long)kn->multiple, kn->pow2_ok ? " nor a power of two" : "",
                 kn->why);
    else if (dmax && v > dmax)
        snprintf(why, cap, "%s %llu exceeds %s, %llu", kn->what, (unsigned long long)v,
                 kn->device_max_what, (unsigned long long)dmax);
    else
        return 0;
    return -1;
}

/* One "key=value" item (or profile line "key = value") into l; d NULL skips the device's
 * limits (the built-in rows are capped instead). Returns 0, or -1 with the reason in why. */
static int parse_item(const char *s, size_t n, const clm_device_info *d, struct layer *l,
                      char *why, size_t cap)
{
    const char *eq = memchr(s, '=', n);
    if (!eq) {
        snprintf(why, cap, "'%.*s' is not key=value", (int)n, s);
        return -1;
    }
    const char *key = s, *val = eq + 1;
    size_t klen = (size_t)(eq - s), vlen = n - klen - 1;
    trim(&key, &klen);
    trim(&val, &vlen);
    int algo = 0; /* 0: global */
    const char *dot = memchr(key, '.', klen);
    const char *name = key;
    size_t nlen = klen;
    if (dot) {
        size_t alen = (size_t)(dot - key);
        for (int a = 1; a < N_ALGOS && !algo; a++) {
            const char *an = clm_algorithm_name((clm_algorithm)a);
            if (strlen(an) == alen && memcmp(an, key, alen) == 0)
                algo = a;
        }
        if (!algo) {
            snprintf(why, cap, "unknown algorithm '%.*s' in '%.*s' (known: %s)", (int)alen, key,
                     (int)klen, key, clm_algo_names());
            return -1;
        }
        name = dot + 1;
        nlen = klen - alen - 1;
    }
    int k = -1;
    for (int i = 0; i < CLM_KNOB_COUNT && k < 0; i++)
        if (strlen(knobs[i].key) == nlen && memcmp(knobs[i].key, name, nlen) == 0)
            k = i;
    if (k < 0) {
        char keys[256];
        known_keys(keys, sizeof keys);
        snprintf(why, cap, "unknown key '%.*s' (known: %s)", (int)klen, key, keys);
        return -1;
    }
    if (algo && !knobs[k].per_algorithm) {
        snprintf(why, cap, "%s has no per-algorithm value ('%.*s')", knobs[k].key, (int)klen,
                 key);
        return -1;
    }
    uint64_t v;
    if (knobs[k].kind == KNOB_SWITCH) {
        if (parse_switch(val, vlen, &v) != 0) {
            snprintf(why, cap, "'%.*s' is not on, off, 1 or 0 for %.*s", (int)vlen, val,
                     (int)klen, key);
            return -1;
        }
    } else if (clm_parse_size(val, vlen, &v) != 0) {
        snprintf(why, cap, "'%.*s' is no number for %.*s (digits, optionally K, M or G)",
                 (int)vlen, val, (int)klen, key);
        return -1;
    } else if (check_value(k, v, d, why, cap) != 0) {
        return -1;
    }
    uint64_t *slot = algo ? &l->algo[algo][k] : &l->value[k];
    if (*slot) {
        snprintf(why, cap, "'%.*s' is set twice", (int)klen, key);
        return -1;
    }
    *slot = v;
    return 0;
}

/* A comma-separated list of items (CLMATCH_TUNE syntax); empty items are skipped. On an
 * error, *bad and *bad_len locate the item. */
static int parse_list(const char *text, const clm_device_info *d, struct layer *l, char *why,
                      size_t cap, const char **bad, size_t *bad_len)
{
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *item = p;
        size_t len = n;
        trim(&item, &len);
        if (len && parse_item(item, len, d, l, why, cap) != 0) {
            *bad = item;
            *bad_len = len;
            return -1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* ---- formatting values ------------------------------------------------------------------- */

static size_t put(char *buf, size_t cap, size_t used, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static size_t put(char *buf, size_t cap, size_t used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(used < cap ? buf + used : NULL, used < cap ? cap - used : 0, fmt, ap);
    va_end(ap);
    return used + (n > 0 ? (size_t)n : 0);
}

/* Sizes of a mebibyte or more in M or G, as they are usually written. */
static size_t put_number(char *buf, size_t cap, size_t used, uint64_t v)
{
    if (v >= (1u << 30) && v % (1u << 30) == 0)
        return put(buf, cap, used, "%lluG", (unsigned long long)(v >> 30));
    if (v >= (1u << 20) && v % (1u << 20) == 0)
        return put(buf, cap, used, "%lluM", (unsigned long long)(v >> 20));
    return put(buf, cap, used, "%llu", (unsigned long long)v);
}

/* The values of a layer, globals then per-algorithm ones: "k=v,k=v" (lines 0) or one
 * "k = v" line each (lines 1). Returns the length the text needs. */
static size_t format_layer(const struct layer *l, int lines, char *buf, size_t cap)
{
    size_t used = 0;
    const char *assign = lines ? " = " : "=";
    if (cap)
        buf[0] = '\0';
    for (int a = 0; a < N_ALGOS; a++) {
        for (int k = 0; k < CLM_KNOB_COUNT; k++) {
            uint64_t v = a ? l->algo[a][k] : l->value[k];
            if (!v)
                continue;
            if (used && !lines)
                used = put(buf, cap, used, ",");
            if (a)
                used = put(buf, cap, used, "%s.", clm_algorithm_name((clm_algorithm)a));
            used = put(buf, cap, used, "%s%s", knobs[k].key, assign);
            if (knobs[k].kind == KNOB_SWITCH)
                used = put(buf, cap, used, "%s", v == CLM_TUNE_ON ? "on" : "off");
            else
                used = put_number(buf, cap, used, v);
            if (lines)
                used = put(buf, cap, used, "\n");
        }
    }
    return used;
}

/* ---- applying sources -------------------------------------------------------------------- */

/* A source that sets a key globally replaces the per-algorithm values below it: a user's
 * CLMATCH_TUNE=chunk=512 means 512 for every algorithm. */
static int apply(struct clm_tune *t, const struct layer *l, clm_tuning_source src)
{
    int set = 0;
    for (int k = 0; k < CLM_KNOB_COUNT; k++) {
        if (l->value[k]) {
            t->value[k] = l->value[k];
            t->source[k] = (unsigned char)src;
            t->layers |= 1u << src;
            set = 1;
            for (int a = 0; a < N_ALGOS; a++)
                t->algo[a][k] = 0;
        }
        for (int a = 1; a < N_ALGOS; a++) {
            if (l->algo[a][k]) {
                t->algo[a][k] = l->algo[a][k];
                t->algo_source[a][k] = (unsigned char)src;
                t->layers |= 1u << src;
                set = 1;
            }
        }
    }
    return set;
}

static int contains_ci(const char *hay, const char *needle, size_t n)
{
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

static int builtin_matches(const struct builtin *b, const clm_device_info *d)
{
    if (b->type != d->type)
        return 0;
    if (!b->match)
        return 1;
    for (const char *p = b->match; *p;) {
        size_t n = strcspn(p, "|");
        if (contains_ci(d->platform_name, p, n) || contains_ci(d->platform_vendor, p, n) ||
            contains_ci(d->vendor, p, n))
            return 1;
        p += n;
        if (*p == '|')
            p++;
    }
    return 0;
}

/* The built-in values are capped to the device rather than refused: a GPU whose maximum
 * work-group size is 128 gets 128; the slab stays within a quarter of the largest
 * allocation (at least 1 MiB); a device whose local memory is not on chip does not stage
 * (it would only copy the text within the same memory). */
static void cap_builtin(struct clm_tune *t, const clm_device_info *d)
{
    if (!d->local_mem_dedicated)
        t->value[CLM_KNOB_STAGE] = CLM_TUNE_OFF;
    uint64_t wg = t->value[CLM_KNOB_WG];
    while (d->max_work_group_size && wg > d->max_work_group_size)
        wg >>= 1;
    t->value[CLM_KNOB_WG] = wg ? wg : 1;
    uint64_t alloc = d->max_alloc_bytes ? d->max_alloc_bytes : (64u << 20);
    if (t->value[CLM_KNOB_SLAB] > alloc / 4)
        t->value[CLM_KNOB_SLAB] = alloc / 4 > (1u << 20) ? alloc / 4 : (1u << 20);
}

/* ---- profiles ------------------------------------------------------------------------------ */

/* Letters, digits, '.', '-' kept; every other run of bytes becomes one '_'. */
static size_t sanitize(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    int gap = 0;
    for (; *s && n + 2 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   ((c == '.' || c == '-') && n > 0);
        if (keep) {
            if (gap && n > 0)
                out[n++] = '_';
            out[n++] = (char)c;
            gap = 0;
        } else {
            gap = 1;
        }
    }
    if (n == 0)
        out[n++] = 'x';
    out[n] = '\0';
    return n;
}

/* CLMATCH_PROFILE_DIR, else $XDG_CONFIG_HOME/clmatch/profiles, else
 * ~/.config/clmatch/profiles; file <device name>_<driver version>.profile. */
static void profile_path(const clm_device_info *d, char *buf, size_t cap)
{
    const char *dir = clm_env(CLM_ENV_PROFILE_DIR);
    const char *xdg = clm_env(CLM_ENV_XDG_CONFIG_HOME), *home = clm_env(CLM_ENV_HOME);
    char base[600], name[200], driver[200];
    int n;
    buf[0] = '\0';
    if (dir && *dir)
        n = snprintf(base, sizeof base, "%s", dir);
    else if (xdg && xdg[0] == '/') /* relative values are invalid in the XDG spec */
        n = snprintf(base, sizeof base, "%s/clmatch/profiles", xdg);
    else if (home && *home)
        n = snprintf(base, sizeof base, "%s/.config/clmatch/profiles", home);
    else
        return;
    if (n < 0 || (size_t)n >= sizeof base)
        return; /* a cut directory name would be another directory: no profile */
    sanitize(d->name, name, sizeof name);
    sanitize(d->driver_version, driver, sizeof driver);
    n = snprintf(buf, cap, "%s/%s_%s.profile", base, name, driver);
    if (n < 0 || (size_t)n >= cap)
        buf[0] = '\0'; /* too long to be trusted: no profile */
}

/* The header line: format version and the device it was measured on. */
static size_t put_quoted(char *buf, size_t cap, size_t used, const char *s)
{
    used = put(buf, cap, used, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            used = put(buf, cap, used, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            used = put(buf, cap, used, " ");
        else
            used = put(buf, cap, used, "%c", *s);
    }
    return put(buf, cap, used, "\"");
}

static size_t format_header(const clm_device_info *d, char *buf, size_t cap, size_t used)
{
    used = put(buf, cap, used, "%s %u device=", PROFILE_MAGIC, PROFILE_FORMAT);
    used = put_quoted(buf, cap, used, d->name);
    used = put(buf, cap, used, " driver=");
    used = put_quoted(buf, cap, used, d->driver_version);
    return put(buf, cap, used, "\n");
}

/* `name="..."` at *p: the unescaped value into out (control characters read as spaces, as
 * the writer wrote them). Returns 0, or -1. */
static int read_quoted(const char **p, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name), n = 0;
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (strncmp(s, name, nl) != 0 || s[nl] != '=' || s[nl + 1] != '"')
        return -1;
    for (s += nl + 2; *s && *s != '"'; s++) {
        if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
            s++;
        if (n + 1 < cap)
            out[n++] = *s;
    }
    if (*s != '"')
        return -1;
    out[n] = '\0';
    *p = s + 1;
    return 0;
}

static void control_to_space(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in && n + 1 < cap; in++)
        out[n++] = (unsigned char)*in < 0x20 ? ' ' : *in;
    out[n] = '\0';
}

/* Check the header line; on a mismatch, why says what the file is for. */
static int check_header(const char *line, const clm_device_info *d, char *why, size_t cap)
{
    static const char expect[] = "expected '" PROFILE_MAGIC " 1 device=\"...\" driver=\"...\"'";
    size_t ml = strlen(PROFILE_MAGIC);
    if (strncmp(line, PROFILE_MAGIC, ml) != 0 || line[ml] != ' ') {
        snprintf(why, cap, "line 1: not a clmatch profile header (%s)", expect);
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long version = strtoul(line + ml + 1, &end, 10);
    if (end == line + ml + 1 || errno) {
        snprintf(why, cap, "line 1: no format version (%s)", expect);
        return -1;
    }
    if (version != PROFILE_FORMAT) {
        snprintf(why, cap, "line 1: format version %lu; this library reads version %u", version,
                 PROFILE_FORMAT);
        return -1;
    }
    char name[sizeof d->name], driver[sizeof d->driver_version];
    char my_name[sizeof d->name], my_driver[sizeof d->driver_version];
    const char *p = end;
    if (read_quoted(&p, "device", name, sizeof name) != 0 ||
        read_quoted(&p, "driver", driver, sizeof driver) != 0 || p[strspn(p, " \t\r")]) {
        snprintf(why, cap, "line 1: malformed header (%s)", expect);
        return -1;
    }
    control_to_space(d->name, my_name, sizeof my_name);
    control_to_space(d->driver_version, my_driver, sizeof my_driver);
    if (strcmp(name, my_name) != 0 || strcmp(driver, my_driver) != 0) {
        snprintf(why, cap,
                 "line 1: measured on \"%.200s\" driver \"%.100s\", not on this device \"%.200s\" "
                 "driver \"%.100s\" (run clmatch-tune again)",
                 name, driver, my_name, my_driver);
        return -1;
    }
    return 0;
}

/* Copy s into out, printable ASCII as it is and every other byte (and '\') escaped as \xNN
 * (\\): a profile's bytes quoted in a warning must not reach a terminal raw or break the
 * warning's line. Stops before an escape that would not fit. */
static void escape_bytes(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char unit[5];
        if (c == '\\')
            snprintf(unit, sizeof unit, "\\\\");
        else if (c >= 0x20 && c < 0x7f)
            snprintf(unit, sizeof unit, "%c", c);
        else
            snprintf(unit, sizeof unit, "\\x%02x", c);
        size_t u = strlen(unit);
        if (n + u >= cap)
            break;
        memcpy(out + n, unit, u);
        n += u;
    }
    out[n] = '\0';
}

/* t->warning: the profile is not used, and why. */
static void profile_warning(struct clm_tune *t, const char *why)
{
    char path[420], reason[560];
    escape_bytes(t->profile_path, path, sizeof path);
    escape_bytes(why, reason, sizeof reason);
    snprintf(t->warning, sizeof t->warning, "%s: %s; using the built-in tuning", path, reason);
}

int clm_tune_parse_profile(struct clm_tune *t, const clm_device_info *d, const char *data,
                           size_t len)
{
    char why[1024];
    struct layer l;
    memset(&l, 0, sizeof l);
    char *text = malloc(len + 1);
    if (!text) {
        profile_warning(t, "out of memory");
        return -1;
    }
    memcpy(text, data, len);
    text[len] = '\0';
    int rc = 0;
    if (memchr(text, '\0', len)) {
        snprintf(why, sizeof why, "contains a NUL byte: not a text file");
        rc = -1;
    }
    unsigned lineno = 0;
    for (char *line = text, *next; rc == 0 && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (lineno == 1) {
            if (check_header(line, d, why, sizeof why) != 0)
                rc = -1;
            continue;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        const char *s = line;
        size_t n = strlen(line);
        trim(&s, &n);
        if (n && parse_item(s, n, d, &l, why, sizeof why) != 0) {
            char msg[1024];
            snprintf(msg, sizeof msg, "line %u: %.900s", lineno, why);
            snprintf(why, sizeof why, "%s", msg);
            rc = -1;
        }
    }
    if (rc == 0 && lineno == 0) {
        snprintf(why, sizeof why, "empty file (no '%s' header)", PROFILE_MAGIC);
        rc = -1;
    }
    free(text);
    if (rc != 0) {
        profile_warning(t, why);
        return -1;
    }
    apply(t, &l, CLM_TUNING_PROFILE);
    t->profile_used = 1;
    return 0;
}

/* Read the profile at t->profile_path and apply it (clm_tune_parse_profile). 1: applied;
 * 0: there is none; -1: not used, with the reason in t->warning. */
static int load_profile(struct clm_tune *t, const clm_device_info *d)
{
    char why[300];
    const char *kind;
    int fd = clm_open_regular(t->profile_path, &kind);
    if (fd < 0) {
        if (kind)
            snprintf(why, sizeof why, "it is %s, not a regular file", kind);
        else if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        else
            snprintf(why, sizeof why, "cannot read: %s", strerror(errno));
        profile_warning(t, why);
        return -1;
    }
    char *text;
    size_t n;
    int err = clm_read_fd(fd, PROFILE_MAX_BYTES, &text, &n);
    close(fd);
    if (err) {
        profile_warning(t, err == EFBIG    ? "larger than 64 KiB"
                           : err == ENOMEM ? "out of memory"
                                           : strerror(err));
        return -1;
    }
    int rc = clm_tune_parse_profile(t, d, text, n);
    free(text);
    return rc == 0 ? 1 : -1;
}

/* ---- the device's tuning ------------------------------------------------------------------ */

int clm_tune_init(clm_device *dev)
{
    struct clm_tune *t = &dev->tune;
    const clm_device_info *d = &dev->info;
    struct layer l;
    char why[1024];
    const char *bad = NULL;
    size_t bad_len = 0;
    memset(t, 0, sizeof *t);

    /* generic defaults, then the first built-in row that matches (these never fail) */
    memset(&l, 0, sizeof l);
    parse_list(GENERIC_VALUES, NULL, &l, why, sizeof why, &bad, &bad_len);
    apply(t, &l, CLM_TUNING_DEFAULT);
    snprintf(t->builtin, sizeof t->builtin, "generic");
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        if (builtin_matches(&builtins[i], d)) {
            memset(&l, 0, sizeof l);
            parse_list(builtins[i].values, NULL, &l, why, sizeof why, &bad, &bad_len);
            apply(t, &l, CLM_TUNING_BUILTIN);
            snprintf(t->builtin, sizeof t->builtin, "%s", builtins[i].name);
            break;
        }
    }
    cap_builtin(t, d);

    /* the profile: not used when anything in it is wrong (the reason is kept) */
    profile_path(d, t->profile_path, sizeof t->profile_path);
    if (dev->model) /* a model is its built-in row: nothing of this machine's applies */
        return CLM_OK;
    const char *off = clm_env(CLM_ENV_PROFILE);
    int profiles_off = off && (strcmp(off, "off") == 0 || strcmp(off, "0") == 0);
    if (t->profile_path[0] && !profiles_off)
        load_profile(t, d);

    /* CLMATCH_STAGING, the switch staging had before it was a knob: a global stage item
     * just before CLMATCH_TUNE, whose own stage and ALGO.stage items win over it */
    const char *staging = clm_env(CLM_ENV_STAGING);
    if (staging && *staging) {
        memset(&l, 0, sizeof l);
        if (parse_switch(staging, strlen(staging), &l.value[CLM_KNOB_STAGE]) != 0)
            return clm_fail(CLM_E_INVALID, "CLMATCH_STAGING='%s': expected on or off (or 1, 0)",
                            staging);
        apply(t, &l, CLM_TUNING_ENV);
        t->staging_env = 1;
    }

    /* CLMATCH_TUNE: the user asked for it, so a bad item is an error */
    const char *env = clm_env(CLM_ENV_TUNE);
    if (env && *env) {
        memset(&l, 0, sizeof l);
        if (parse_list(env, d, &l, why, sizeof why, &bad, &bad_len) != 0)
            return clm_fail(CLM_E_INVALID, "CLMATCH_TUNE=%s: item '%.*s': %s", env,
                            (int)bad_len, bad, why);
        t->tune_env = apply(t, &l, CLM_TUNING_ENV);
    }
    return CLM_OK;
}

uint64_t clm_tune_get(const clm_device *dev, clm_algorithm algo, enum clm_knob knob,
                      clm_tuning_source *source)
{
    const struct clm_tune *t = &dev->tune;
    unsigned a = (unsigned)algo;
    if (a > 0 && a < N_ALGOS && t->algo[a][knob]) {
        if (source)
            *source = (clm_tuning_source)t->algo_source[a][knob];
        return t->algo[a][knob];
    }
    if (source)
        *source = (clm_tuning_source)t->source[knob];
    return t->value[knob];
}

uint64_t clm_tune_own(const clm_device *dev, clm_algorithm algo, enum clm_knob knob)
{
    unsigned a = (unsigned)algo;
    return a > 0 && a < N_ALGOS ? dev->tune.algo[a][knob] : 0;
}

int clm_device_get_algorithm_tuning(const clm_device *dev, clm_algorithm algorithm,
                                    clm_tuning *tuning, size_t size)
{
    if (!dev || !tuning)
        return clm_fail(CLM_E_INVALID, "clm_device_get_algorithm_tuning: NULL argument");
    if ((unsigned)algorithm >= CLM_ALGO_COUNT)
        return clm_fail(CLM_E_INVALID,
                        "clm_device_get_algorithm_tuning: %d is not an algorithm (0 to %d)",
                        (int)algorithm, N_ALGOS - 1);
    const struct clm_tune *t = &dev->tune;
    clm_tuning own, *out = &own;
    memset(out, 0, sizeof *out);
    out->algorithm = algorithm;
    /* each number as the algorithm's kernels get it (device-wide for CLM_ALGO_AUTO) */
    clm_tuning_source src[CLM_KNOB_COUNT];
    uint64_t v[CLM_KNOB_COUNT];
    for (int k = 0; k < CLM_KNOB_COUNT; k++)
        v[k] = clm_tune_get(dev, algorithm, (enum clm_knob)k, &src[k]);
    out->work_group_size = (unsigned)v[CLM_KNOB_WG];
    out->bytes_per_item = (unsigned)v[CLM_KNOB_CHUNK];
    out->slab_bytes = (size_t)v[CLM_KNOB_SLAB];
    out->work_group_size_source = src[CLM_KNOB_WG];
    out->bytes_per_item_source = src[CLM_KNOB_CHUNK];
    out->slab_bytes_source = src[CLM_KNOB_SLAB];
    out->stage = v[CLM_KNOB_STAGE] == CLM_TUNE_ON;
    out->vector_width = (unsigned)v[CLM_KNOB_VEC];
    out->stage_source = src[CLM_KNOB_STAGE];
    out->vector_width_source = src[CLM_KNOB_VEC];
    out->groups_per_unit = (unsigned)v[CLM_KNOB_GROUPS];
    out->prefetch = v[CLM_KNOB_PREFETCH] == CLM_TUNE_ON;
    out->groups_per_unit_source = src[CLM_KNOB_GROUPS];
    out->prefetch_source = src[CLM_KNOB_PREFETCH];
    /* the device's: every value in force and where they came from */
    struct layer l;
    memset(&l, 0, sizeof l);
    for (int k = 0; k < CLM_KNOB_COUNT; k++) {
        l.value[k] = t->value[k];
        for (int a = 1; a < N_ALGOS; a++)
            l.algo[a][k] = t->algo[a][k];
    }
    format_layer(&l, 0, out->values, sizeof out->values);
    size_t used = 0, cap = sizeof out->source;
    if (t->layers & (1u << CLM_TUNING_BUILTIN))
        used = put(out->source, cap, used, "built-in %s", t->builtin);
    else
        used = put(out->source, cap, used, "generic defaults");
    if (t->profile_used)
        used = put(out->source, cap, used, ", profile %s", t->profile_path);
    if (t->staging_env)
        used = put(out->source, cap, used, ", CLMATCH_STAGING");
    if (t->tune_env)
        put(out->source, cap, used, ", CLMATCH_TUNE");
    snprintf(out->builtin, sizeof out->builtin, "%s", t->builtin);
    snprintf(out->profile_path, sizeof out->profile_path, "%s", t->profile_path);
    out->profile_used = t->profile_used;
    snprintf(out->profile_warning, sizeof out->profile_warning, "%s", t->warning);
    return clm_copy_out(tuning, size, out, sizeof *out, CLM_TUNING_V1, "clm_tuning");
}

int clm_device_get_tuning(const clm_device *dev, clm_tuning *out, size_t size)
{
    return clm_device_get_algorithm_tuning(dev, CLM_ALGO_AUTO, out, size);
}

/* ---- writing profiles -------------------------------------------------------------------- */

int clm_tuning_format_profile(const clm_device *dev, const char *values, const char *comment,
                              char *buf, size_t cap)
{
    if (!dev || !values || !buf)
        return clm_fail(CLM_E_INVALID, "clm_tuning_format_profile: NULL argument");
    struct layer l;
    char why[1024];
    const char *bad = NULL;
    size_t bad_len = 0;
    memset(&l, 0, sizeof l);
    if (parse_list(values, &dev->info, &l, why, sizeof why, &bad, &bad_len) != 0)
        return clm_fail(CLM_E_INVALID, "profile values '%s': item '%.*s': %s", values,
                        (int)bad_len, bad, why);
    size_t used = format_header(&dev->info, buf, cap, 0);
    for (const char *p = comment; p && *p;) {
        size_t n = strcspn(p, "\n");
        used = put(buf, cap, used, "# %.*s\n", (int)n, p);
        p += n;
        if (*p == '\n')
            p++;
    }
    used += format_layer(&l, 1, used < cap ? buf + used : NULL, used < cap ? cap - used : 0);
    if (used >= cap)
        return clm_fail(CLM_E_INVALID, "the profile text needs %zu bytes; the buffer has %zu",
                        used + 1, cap);
    return CLM_OK;
}

int clm_tuning_write_profile(const clm_device *dev, const char *values, const char *comment,
                             const char *path)
{
    if (!dev || !values)
        return clm_fail(CLM_E_INVALID, "clm_tuning_write_profile: NULL argument");
    if (!path)
        path = dev->tune.profile_path;
    if (!path[0])
        return clm_fail(CLM_E_INVALID, "no profile location: set CLMATCH_PROFILE_DIR, "
                                       "XDG_CONFIG_HOME or HOME, or give a path");
    size_t cap = 16384;
    char *text = malloc(cap);
    if (!text)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    int rc = clm_tuning_format_profile(dev, values, comment, text, cap);
    if (rc != CLM_OK) {
        free(text);
        return rc;
    }
    /* the directory, then the file written as a whole (clm_write_file_atomic): a reader
     * never sees a half-written one */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (clm_mkdirs(dir) != 0) {
            rc = clm_fail(CLM_E_IO, "cannot create the profile directory %s: %s", dir,
                          strerror(errno));
            free(text);
            return rc;
        }
    }
    if (clm_write_file_atomic(path, text, strlen(text)) != 0)
        rc = clm_fail(CLM_E_IO, "cannot write the profile %s: %s", path, strerror(errno));
    free(text);
    return rc;
}
