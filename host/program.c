/* Kernel programs: sources (built in, or CLMATCH_KERNEL_DIR), the build options that are also
 * the cache key, an in-memory cache per device and a binary cache on disk. */
#include <errno.h>
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

static const char *table_macro(clm_table_memory mem)
{
    switch (mem) {
    case CLM_TABLE_LOCAL: return "TABLE_LOCAL";
    case CLM_TABLE_CONSTANT: return "TABLE_CONSTANT";
    default: return "TABLE_GLOBAL";
    }
}

int clm_build_options(const clm_device *dev, const struct clm_kernel_shape *s, char *buf,
                      size_t cap)
{
    const struct clm_algo *a = clm_algo(s->algorithm);
    int n = snprintf(buf, cap,
                     "-cl-std=CL1.2 -D ALGO_%s -D VARIANT_%s -D M=%u -D SIGMA=%u -D PAT_LEN=%u "
                     "-D TAB_LEN=%u -D TAB_T=%s -D WG=%u -D CHUNK=%u -D %s -D CASELESS=%d "
                     "-D K=%u -D HAMMING=%d -D W=%u -D LEAD=%u -D PI=%u -D GS=%u -D HALO=%u "
                     "-D LITTLE_ENDIAN_DEVICE=%d -D PACKED=%d -D PACK_CASE=%u "
                     "-D PACK_LETTERS=%s -D PACK_SENTINEL=0 -D STRANDS=%u -D HIT_CHECK=%d "
                     "-D NO_FUNNEL_SHIFT=%d -D STAGE=%d -D DFA_COL=%u -D VEC=%u "
                     "-D STAGE_PREFETCH=%d -D STAGE_PREFIX=%u",
                     a ? a->macro : "AUTO", s->variant == CLM_VARIANT_REDUCE ? "REDUCE" : "ITEM",
                     s->m, s->sigma, s->pat_len, s->tab_len, s->tab_elem == 8 ? "ulong" : "ushort",
                     s->wg, s->chunk, table_macro(s->table_memory), s->caseless, s->k,
                     s->hamming, s->words, s->lead, s->pi, s->gs, s->halo, dev->little_endian,
                     s->packed, s->pack_case, s->pack_case == 1 ? "0x74676361u" : "0x54474341u",
                     s->strands ? s->strands : 1, dev->hit_check, dev->no_funnel_shift, s->stage,
                     s->dfa_col, s->vec ? s->vec : 16u, s->stage_prefetch, s->stage_prefix);
    if (n < 0 || (size_t)n >= cap)
        return clm_fail(CLM_E_INVALID, "build options do not fit");
    return CLM_OK;
}

/* Source of one file: from CLMATCH_KERNEL_DIR when set, else built in. malloc'd. */
static int load_source(const char *name, char **out)
{
    const char *dir = getenv("CLMATCH_KERNEL_DIR");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        return clm_read_file(path, out, NULL);
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
    if (clm_read_file(path, &data, &len) != CLM_OK)
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
