/* Kernel programs: sources (built in, or CLMATCH_KERNEL_DIR), the build options that are also
 * the cache key, an in-memory cache per device and a binary cache on disk. */
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"

struct clm_program_entry {
    char *key; /* options + source hash: equal keys build equal programs */
    cl_program program;
    struct clm_program_entry *next;
};

static const char *algorithm_file(const struct clm_kernel_shape *s)
{
    const struct clm_algo *a = clm_algo(s->algorithm);
    if (!a)
        return NULL;
    return s->variant == CLM_VARIANT_REDUCE && a->reduce_source ? a->reduce_source : a->source;
}

/* ---- build options: one table, which is also their documentation ------------------------ */

static void opt_algorithm(char *buf, size_t cap, const clm_device *d,
                          const struct clm_kernel_shape *s)
{
    const struct clm_algo *a = clm_algo(s->algorithm);
    (void)d;
    snprintf(buf, cap, "ALGO_%s", a ? a->macro : "AUTO");
}

static void opt_variant(char *buf, size_t cap, const clm_device *d,
                        const struct clm_kernel_shape *s)
{
    (void)d;
    snprintf(buf, cap, "VARIANT_%s", s->variant == CLM_VARIANT_REDUCE ? "REDUCE" : "ITEM");
}

static void opt_tab_t(char *buf, size_t cap, const clm_device *d,
                      const struct clm_kernel_shape *s)
{
    (void)d;
    snprintf(buf, cap, "TAB_T=%s", s->tab_elem == 8 ? "ulong" : "ushort");
}

static void opt_table(char *buf, size_t cap, const clm_device *d,
                      const struct clm_kernel_shape *s)
{
    (void)d;
    snprintf(buf, cap, "%s",
             s->table_memory == CLM_TABLE_LOCAL      ? "TABLE_LOCAL"
             : s->table_memory == CLM_TABLE_CONSTANT ? "TABLE_CONSTANT"
                                                     : "TABLE_GLOBAL");
}

static void opt_letters(char *buf, size_t cap, const clm_device *d,
                        const struct clm_kernel_shape *s)
{
    (void)d;
    snprintf(buf, cap, "PACK_LETTERS=%s", s->pack_case == 1 ? "0x74676361u" : "0x54474341u");
}

/* A value of the shape or of the device (their int and unsigned fields: 4 bytes, never
 * negative), a constant, or an item a function makes. */
#define SHAPE(field) offsetof(struct clm_kernel_shape, field), 0, NULL
#define DEVICE(field) offsetof(struct clm_device, field), 1, NULL
#define CONSTANT 0, 2, NULL
#define TEXT(fn) 0, 0, fn

/* In the order of the options string, which is also the program cache's key. */
static const struct build_option {
    const char *name; /* -D NAME=value; NAME_* for an item the function makes */
    size_t offset;
    int from;         /* 0 the shape, 1 the device, 2 a constant */
    void (*text)(char *buf, size_t cap, const clm_device *d, const struct clm_kernel_shape *s);
    unsigned otherwise; /* the value when the field is 0, or the constant */
    const char *doc;
} build_options[] = {
    {"ALGO_*", TEXT(opt_algorithm), 0, "which algorithm file follows (ALGO_DFA, ...)"},
    {"VARIANT_*", TEXT(opt_variant), 0, "VARIANT_ITEM, or VARIANT_REDUCE (bitap_reduce.cl)"},
    {"M", SHAPE(m), 0, "pattern length in symbols (of a group: the longest)"},
    {"SIGMA", SHAPE(sigma), 0, "dfa, bitap: rows or classes of the second table (a power of 2)"},
    {"PAT_LEN", SHAPE(pat_len), 0, "entries of the byte table (the pattern, or a class map)"},
    {"TAB_LEN", SHAPE(tab_len), 0, "entries of the second table (fail, transitions, masks...)"},
    {"TAB_T", TEXT(opt_tab_t), 0, "the second table's entries: ushort, or ulong (bitap)"},
    {"WG", SHAPE(wg), 0, "work-group size of every launch"},
    {"CHUNK", SHAPE(chunk), 0, "bytes of text a work-item owns (a multiple of 16)"},
    {"TABLE_*", TEXT(opt_table), 0, "TABLE_GLOBAL, _LOCAL or _CONSTANT: where tables are read"},
    {"CASELESS", SHAPE(caseless), 0, "1: fold ASCII case of text bytes (tables come folded)"},
    {"K", SHAPE(k), 0, "bitap: edits allowed"},
    {"HAMMING", SHAPE(hamming), 0, "bitap: 1 counts substitutions only"},
    {"W", SHAPE(words), 0, "bitap: 64-bit words per mask"},
    {"LEAD", SHAPE(lead), 0, "bitap: bytes read before a range (k with indels, else 0)"},
    {"PI", SHAPE(pi), 0, "witness: block of positions, min(period, ceil(m/2))"},
    {"GS", SHAPE(gs), 0, "witness: work-items per block"},
    {"HALO", SHAPE(halo), 0, "bitap reduce: bytes of history per group, 2^ceil(log2 m) - 1"},
    {"LITTLE_ENDIAN_DEVICE", DEVICE(little_endian), 0,
     "1: bytes may be unpacked from uint4 loads in memory order"},
    {"PACKED", SHAPE(packed), 0, "1: text is the slab clm_pack packed (contract.h CLM_PACK_*)"},
    {"PACK_CASE", SHAPE(pack_case), 0, "bases when packed: 0 ACGT, 1 acgt, 2 both (caseless)"},
    {"PACK_LETTERS", TEXT(opt_letters), 0, "the bytes FOR_EACH_BYTE yields for codes 0..3"},
    {"PACK_SENTINEL", CONSTANT, 0, "the byte it yields for a byte that was no base: in no set"},
    {"STRANDS", SHAPE(strands), 1, "bitap item: 2 searches the reverse complement in one pass"},
    {"HIT_CHECK", DEVICE(hit_check), 0, "1 (CPUs): exact bitap tests for a match per 16 bytes"},
    {"NO_FUNNEL_SHIFT", DEVICE(no_funnel_shift), 0,
     "1 (oclgrind, which lacks llvm.fshl): bitap shifts without funnel shifts"},
    {"STAGE", SHAPE(stage), 0, "1: work-group regions are staged in local memory (kernels.cl)"},
    {"DFA_COL", SHAPE(dfa_col), 0,
     "staged dfa: bytes per column of its byte-indexed states; 0: class map and transitions"},
    {"VEC", SHAPE(vec), 16, "bytes per load of the unstaged range reads: 4, 8 or 16"},
    {"STAGE_PREFETCH", SHAPE(stage_prefetch), 0, "1: a staged group loads its next region early"},
    {"STAGE_PREFIX", SHAPE(stage_prefix), 0,
     "staged: length of the prefix the cheap walk runs; 0: the whole pattern"},
};

int clm_build_options(const clm_device *dev, const struct clm_kernel_shape *s, char *buf,
                      size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "-cl-std=CL1.2");
    for (size_t i = 0; i < sizeof build_options / sizeof build_options[0] && n < cap; i++) {
        const struct build_option *o = &build_options[i];
        char item[128];
        unsigned v = 0;
        if (o->text)
            o->text(item, sizeof item, dev, s);
        else {
            if (o->from < 2)
                memcpy(&v, (o->from ? (const char *)dev : (const char *)s) + o->offset, sizeof v);
            snprintf(item, sizeof item, "%s=%u", o->name, v ? v : o->otherwise);
        }
        n += (size_t)snprintf(buf + n, cap - n, " -D %s", item);
    }
    if (n >= cap)
        return clm_fail(CLM_E_INVALID, "build options do not fit");
    return CLM_OK;
}

void clm_build_options_doc(FILE *f)
{
    fprintf(f, "| option | what the kernels make of it |\n|---|---|\n");
    for (size_t i = 0; i < sizeof build_options / sizeof build_options[0]; i++)
        fprintf(f, "| `%s` | %s |\n", build_options[i].name, build_options[i].doc);
}

/* The kernel sources are some 10 KiB each: anything far larger is not one of them. */
#define SOURCE_MAX_BYTES (16u << 20)

/* Source of one file: from CLMATCH_KERNEL_DIR when set, else built in. malloc'd. */
static int load_source(const char *name, char **out)
{
    const char *dir = getenv("CLMATCH_KERNEL_DIR");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        return clm_read_file(path, SOURCE_MAX_BYTES, out, NULL);
    }
    for (size_t i = 0; i < clm_kernel_source_count; i++) {
        if (strcmp(clm_kernel_sources[i].name, name) == 0) {
            *out = strdup(clm_kernel_sources[i].text);
            return *out ? CLM_OK : clm_fail(CLM_E_NOMEM, "out of memory");
        }
    }
    return clm_fail(CLM_E_IO, "kernel source %s is not built into the library", name);
}

/* contract.h + common.cl + <algorithm>.cl + kernels.cl: what host and kernels agree on,
 * helpers, the algorithm's range scan, entry points. */
#define PROGRAM_FILES 4
int clm_program_source(const struct clm_kernel_shape *shape, char **out)
{
    const char *files[PROGRAM_FILES] = {"contract.h", "common.cl", algorithm_file(shape),
                                        "kernels.cl"};
    char *parts[PROGRAM_FILES] = {NULL};
    size_t total = 1;
    int rc = CLM_OK;
    for (int i = 0; i < PROGRAM_FILES && rc == CLM_OK; i++) {
        rc = load_source(files[i], &parts[i]);
        if (rc == CLM_OK)
            total += strlen(parts[i]) + 64;
    }
    char *src = rc == CLM_OK ? malloc(total) : NULL;
    if (rc == CLM_OK && !src)
        rc = clm_fail(CLM_E_NOMEM, "out of memory");
    if (src) {
        size_t n = 0;
        for (int i = 0; i < PROGRAM_FILES; i++) /* #line: build logs name file and line */
            n += (size_t)sprintf(src + n, "#line 1 \"%s\"\n%s\n", files[i], parts[i]);
    }
    for (int i = 0; i < PROGRAM_FILES; i++)
        free(parts[i]);
    *out = src;
    return rc;
}

/* ---- disk cache ------------------------------------------------------------------------ */

/* File layout: header, then the key text (checked byte for byte: a hash collision or a file
 * from another device/driver is rejected), then the binary. The checksum covers both. */
#define CACHE_MAGIC "CLMCACHE"
#define CACHE_FORMAT 1u

struct cache_header {
    char magic[8];
    uint32_t format;
    uint32_t key_len;
    uint64_t bin_len;
    uint64_t checksum;
};

static int cache_dir(char *buf, size_t cap)
{
    const char *mode = getenv("CLMATCH_CACHE");
    if (mode && strcmp(mode, "off") == 0)
        return -1;
    const char *dir = getenv("CLMATCH_CACHE_DIR");
    if (dir && *dir)
        return snprintf(buf, cap, "%s", dir) < (int)cap ? 0 : -1;
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg)
        return snprintf(buf, cap, "%s/clmatch", xdg) < (int)cap ? 0 : -1;
    const char *home = getenv("HOME");
    if (home && *home)
        return snprintf(buf, cap, "%s/.cache/clmatch", home) < (int)cap ? 0 : -1;
    return -1;
}

static int cache_path(const char *full_key, char *buf, size_t cap)
{
    char dir[3800];
    if (cache_dir(dir, sizeof dir) != 0)
        return -1;
    size_t n = strlen(full_key);
    unsigned long long h1 = clm_hash64(full_key, n, 1), h2 = clm_hash64(full_key, n, 2);
    return snprintf(buf, cap, "%s/%016llx%016llx.bin", dir, h1, h2) < (int)cap ? 0 : -1;
}

static uint64_t cache_checksum(const char *key, size_t key_len, const unsigned char *bin,
                               size_t bin_len)
{
    return clm_hash64(bin, bin_len, clm_hash64(key, key_len, 3));
}

/* Returns a malloc'd binary when the file exists and verifies, else NULL. */
static unsigned char *cache_load(const char *path, const char *key, size_t *bin_len)
{
    char *data;
    size_t len;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fclose(f);
    if (clm_read_file(path, (size_t)1 << 30, &data, &len) != CLM_OK)
        return NULL;
    struct cache_header h;
    size_t key_len = strlen(key);
    unsigned char *bin = NULL;
    if (len >= sizeof h) {
        memcpy(&h, data, sizeof h);
        if (memcmp(h.magic, CACHE_MAGIC, 8) == 0 && h.format == CACHE_FORMAT &&
            h.key_len == key_len && h.bin_len > 0 &&
            (uint64_t)len == sizeof h + key_len + h.bin_len &&
            memcmp(data + sizeof h, key, key_len) == 0) {
            const unsigned char *b = (const unsigned char *)data + sizeof h + key_len;
            if (cache_checksum(key, key_len, b, h.bin_len) == h.checksum &&
                (bin = malloc(h.bin_len)) != NULL) {
                memcpy(bin, b, h.bin_len);
                *bin_len = h.bin_len;
            }
        }
    }
    free(data);
    return bin;
}

/* Best effort: a cache that cannot be written only costs the next run a rebuild. */
static void cache_store(const char *path, const char *key, const unsigned char *bin,
                        size_t bin_len)
{
    char dir[4096], tmp[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (clm_mkdirs(dir) != 0)
        return;
    /* write to a private name (per process and call), then rename: readers never see a
     * half-written file, and two threads writing the same entry never share a file */
    static atomic_ulong sequence;
    snprintf(tmp, sizeof tmp, "%s.%ld.%lu.tmp", path, (long)getpid(),
             (unsigned long)atomic_fetch_add(&sequence, 1));
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return;
    struct cache_header h;
    size_t key_len = strlen(key);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.format = CACHE_FORMAT;
    h.key_len = (uint32_t)key_len;
    h.bin_len = bin_len;
    h.checksum = cache_checksum(key, key_len, bin, bin_len);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(key, 1, key_len, f) == key_len &&
             fwrite(bin, 1, bin_len, f) == bin_len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0)
        remove(tmp);
}

/* ---- building ---------------------------------------------------------------------------- */

static int build_failed(clm_device *dev, cl_program prog, cl_int err, const char *options)
{
    int rc = clm_fail(CLM_E_BUILD, "OpenCL kernel build failed on %s: %s (%d)\noptions: %s\n",
                      dev->info.name, clm_cl_error_name(err), (int)err, options);
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) ==
            CL_SUCCESS &&
        n > 1) {
        char *log = malloc(n + 1);
        if (log && clGetProgramBuildInfo(prog, dev->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) ==
                       CL_SUCCESS) {
            log[n] = '\0';
            clm_fail_append("build log:\n");
            clm_fail_append(log);
        }
        free(log);
    }
    return rc;
}

static int build_from_source(clm_device *dev, const char *src, const char *options,
                             cl_program *out)
{
    cl_int err;
    cl_program prog = clCreateProgramWithSource(dev->context, 1, &src, NULL, &err);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &dev->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        int rc = build_failed(dev, prog, err, options);
        clReleaseProgram(prog);
        return rc;
    }
    *out = prog;
    return CLM_OK;
}

static cl_program build_from_binary(clm_device *dev, const unsigned char *bin, size_t len,
                                    const char *options)
{
    cl_int err, status;
    cl_program prog =
        clCreateProgramWithBinary(dev->context, 1, &dev->device, &len, &bin, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        if (prog)
            clReleaseProgram(prog);
        return NULL;
    }
    if (clBuildProgram(prog, 1, &dev->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

static unsigned char *program_binary(cl_program prog, size_t *len)
{
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return NULL;
    unsigned char *bin = malloc(size);
    if (!bin)
        return NULL;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    *len = size;
    return bin;
}

int clm_get_program(clm_device *dev, const struct clm_kernel_shape *shape, cl_program *out,
                    int *cache_hit, char *options_out, size_t options_cap)
{
    char options[512];
    int rc = clm_build_options(dev, shape, options, sizeof options);
    if (rc)
        return rc;
    if (options_out)
        snprintf(options_out, options_cap, "%s", options);
    char *src;
    if ((rc = clm_program_source(shape, &src)) != CLM_OK)
        return rc;

    /* the key: options and source (memory cache); plus device, driver and library (disk) */
    char key[1024];
    snprintf(key, sizeof key, "%s\nsource %016llx", options,
             (unsigned long long)clm_hash64(src, strlen(src), 0));
    char full_key[2048];
    snprintf(full_key, sizeof full_key, "clmatch %s\nplatform %s %s\ndevice %s %s\ndriver %s\n%s",
             CLM_VERSION_STRING, dev->info.platform_name, dev->info.platform_version,
             dev->info.name, dev->info.version, dev->info.driver_version, key);

    pthread_mutex_lock(&dev->lock);
    for (struct clm_program_entry *e = dev->programs; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            clRetainProgram(e->program);
            *out = e->program;
            *cache_hit = 1;
            pthread_mutex_unlock(&dev->lock);
            free(src);
            return CLM_OK;
        }
    }

    cl_program prog = NULL;
    char path[4096];
    int have_path = cache_path(full_key, path, sizeof path) == 0;
    *cache_hit = 0;
    if (have_path) {
        size_t len;
        unsigned char *bin = cache_load(path, full_key, &len);
        if (bin) {
            prog = build_from_binary(dev, bin, len, options);
            free(bin);
            *cache_hit = prog != NULL;
        }
    }
    if (!prog) { /* missing, corrupt or refused by the driver: build and (re)write */
        rc = build_from_source(dev, src, options, &prog);
        if (rc == CLM_OK && have_path) {
            size_t len;
            unsigned char *bin = program_binary(prog, &len);
            if (bin)
                cache_store(path, full_key, bin, len);
            free(bin);
        }
    }
    free(src);
    if (rc == CLM_OK) {
        struct clm_program_entry *e = calloc(1, sizeof *e);
        char *k = strdup(key);
        if (e && k) {
            e->key = k;
            e->program = prog;
            e->next = dev->programs;
            dev->programs = e;
            clRetainProgram(prog); /* one reference for the cache, one for the caller */
        } else {
            free(e);
            free(k);
        }
        *out = prog;
    }
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

void clm_release_programs(clm_device *dev)
{
    struct clm_program_entry *e = dev->programs;
    while (e) {
        struct clm_program_entry *next = e->next;
        clReleaseProgram(e->program);
        free(e->key);
        free(e);
        e = next;
    }
    dev->programs = NULL;
}
