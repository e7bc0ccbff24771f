/* Kernel programs: sources (built in, or CLMATCH_KERNEL_DIR), the build options that are also
 * the cache key, an in-memory cache per device and a binary cache on disk. */
#include <errno.h>
#include <stddef.h>
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
    if (s->records)
        return "records.cl";
    if (s->compact)
        return "compact.cl";
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
    snprintf(buf, cap, "TAB_T=%s",
             s->tab_elem == 8 ? "ulong" : s->tab_elem == 4 ? "uint" : "ushort");
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

/* Only for simd, so that the other kernels' options (their cache keys) stay as they were. */
static void opt_simd_fast(char *buf, size_t cap, const clm_device *d,
                          const struct clm_kernel_shape *s)
{
    (void)d;
    if (s->algorithm == CLM_ALGO_SIMD && !s->records)
        snprintf(buf, cap, "SIMD_FAST=%u", s->simd_fast);
    else if (cap)
        buf[0] = '\0';
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
/* A shape's value that only some kernels take: left out where it is 0, so that the other
 * kernels' options (their cache keys) stay as they were. */
#define SHAPE_IF_SET(field) offsetof(struct clm_kernel_shape, field), 3, NULL
#define TEXT(fn) 0, 0, fn

/* In the order of the options string, which is also the program cache's key. */
static const struct build_option {
    const char *name; /* -D NAME=value; NAME_* for an item the function makes */
    size_t offset;
    int from;         /* 0 the shape, 1 the device, 2 a constant, 3 the shape if set */
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
    {"TAB_T", TEXT(opt_tab_t), 0, "the second table's entries: ushort, uint (aho) or ulong (bitap)"},
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
    {"DFA_COL", SHAPE_IF_SET(dfa_col), 0,
     "staged dfa: bytes per column of its byte-indexed states; 0: class map and transitions"},
    {"VEC", SHAPE(vec), 16, "bytes per load of the unstaged range reads: 4, 8 or 16"},
    {"STAGE_PREFETCH", SHAPE(stage_prefetch), 0, "1: a staged group loads its next region early"},
    {"STAGE_PREFIX", SHAPE_IF_SET(stage_prefix), 0,
     "staged: length of the prefix the cheap walk runs; 0: the whole pattern"},
    {"AHO_HOT", SHAPE_IF_SET(aho_hot), 0,
     "aho, global tables: entries (the shallowest states' rows) also read from local memory"},
    {"LINE_FIRST", SHAPE_IF_SET(line_first), 0,
     "aho, CLM_LINES: 1: a work-item reports only the first match it meets on each line"},
    {"SIMD_FAST", TEXT(opt_simd_fast), 0,
     "simd alone: positions compared at every step, the rest only where they left a candidate"},
    {"RECORDS", SHAPE_IF_SET(records), 0,
     "records.cl (LIKE over string columns) alone: the offsets' width, 32 or 64"},
    {"LIKE_APPROX", SHAPE_IF_SET(like_approx), 0,
     "records.cl: 1 when the predicate has an approximate pattern (its matcher compiled in)"},
    {"LIKE_TEXT", SHAPE_IF_SET(like_text), 0,
     "records.cl: 1 when like_text.cl's kernels (LIKE segments paired over the text) are built "
     "too"},
    {"LIKE_BLOCK", SHAPE_IF_SET(like_block), 0,
     "records.cl: filter and verify's block of bytes (cl/contract.h CLM_LIKE_BLOCK, _CPU)"},
    {"LIKE_FIND", SHAPE_IF_SET(like_find), 0,
     "records.cl: how a row's segment is found: 0 first byte, 1 KMP_basic, 2 KMP_step, "
     "3 KMP_hybrid, 4 first byte 16 places a load"},
    {"LIKE_KMP_MAX", SHAPE_IF_SET(like_kmp_max), 0,
     "records.cl, with LIKE_FIND 1-3: the prog words KMP's local tables cover"},
    {"SELF_SEGS", SHAPE_IF_SET(self_segs), 0,
     "records.cl, with PIVOT: a self-pivoted column's segments a chunk (clm_column_self_pivot)"},
    {"SELF_LEN", SHAPE_IF_SET(self_len), 0, "records.cl, with SELF_SEGS: bytes a segment"},
    {"PIVOT", SHAPE_IF_SET(pivot), 0,
     "records.cl: the piece width of a pivoted column (clm_column_pivot); 0: contiguous rows"},
    {"COMPACT", SHAPE_IF_SET(compact), 0,
     "compact.cl (a stream's line breaks dropped on the device) alone: 1"},
    {"KMER_Q", SHAPE_IF_SET(kmer_q), 0, "kmer alone: bytes of a sampled q-gram, at most 16"},
    {"KMER_S", SHAPE_IF_SET(kmer_s), 0, "kmer alone: bytes between two samples"},
    {"KMER_BITS", SHAPE_IF_SET(kmer_bits), 0, "kmer alone: log2 of the filter's bits"},
    {"KMER_HOT", SHAPE_IF_SET(kmer_hot), 0,
     "kmer, global tables: the header and filter's uints, also read from local memory"},
    {"EMIT_BLOCKS", SHAPE_IF_SET(emit_blocks), 0,
     "LIKE's filter and verify alone: matches set a bit per block of this many bytes"},
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
            if (o->from != 2)
                memcpy(&v, (o->from == 1 ? (const char *)dev : (const char *)s) + o->offset,
                       sizeof v);
            if (o->from == 3 && !v)
                item[0] = '\0';
            else
                snprintf(item, sizeof item, "%s=%u", o->name, v ? v : o->otherwise);
        }
        if (!item[0]) /* an option this shape does not take */
            continue;
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
    const char *dir = clm_env(CLM_ENV_KERNEL_DIR);
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
 * helpers, the algorithm's range scan, entry points. The LIKE kernels: contract.h +
 * records.cl, and like_text.cl when asked for (LIKE_TEXT). */
#define PROGRAM_FILES 4
static int source_files(const struct clm_kernel_shape *shape, const char *files[PROGRAM_FILES])
{
    const char *all[PROGRAM_FILES] = {"contract.h", "common.cl", algorithm_file(shape),
                                      "kernels.cl"};
    const char *alone[PROGRAM_FILES] = {"contract.h", algorithm_file(shape), "like_text.cl"};
    int nfiles = shape->records   ? (shape->like_text ? 3 : 2)
                 : shape->compact ? 2
                                  : PROGRAM_FILES;
    /* records.cl (and like_text.cl), compact.cl: programs of their own */
    memcpy(files, nfiles < PROGRAM_FILES ? alone : all, sizeof all);
    return nfiles;
}

int clm_program_source(const struct clm_kernel_shape *shape, char **out)
{
    const char *files[PROGRAM_FILES];
    char *parts[PROGRAM_FILES] = {NULL};
    size_t total = 1;
    int rc = CLM_OK, nfiles = source_files(shape, files);
    for (int i = 0; i < nfiles && rc == CLM_OK; i++) {
        rc = load_source(files[i], &parts[i]);
        if (rc == CLM_OK)
            total += strlen(parts[i]) + 64;
    }
    char *src = rc == CLM_OK ? malloc(total) : NULL;
    if (rc == CLM_OK && !src)
        rc = clm_fail(CLM_E_NOMEM, "out of memory");
    if (src) {
        size_t n = 0;
        for (int i = 0; i < nfiles; i++) /* #line: build logs name file and line */
            n += (size_t)sprintf(src + n, "#line 1 \"%s\"\n%s\n", files[i], parts[i]);
    }
    for (int i = 0; i < PROGRAM_FILES; i++)
        free(parts[i]);
    *out = src;
    return rc;
}

/* ---- disk cache ------------------------------------------------------------------------ */

/* File layout: header, then the key text (checked byte for byte: a hash collision or a file
 * from another device/driver is rejected), then the binary. The checksum covers the whole
 * entry: the header's other fields, the key and the binary. Format 2: binaries are checked
 * before they are stored (binary_check); format 1 entries may hold damaged ones. */
#define CACHE_MAGIC "CLMCACHE"
#define CACHE_FORMAT 2u
/* larger binaries are refused (PoCL caps its own at 256 MiB) */
#define CACHE_MAX_BINARY ((uint64_t)1 << 30)

struct cache_header {
    char magic[8];
    uint32_t format;
    uint32_t key_len;
    uint64_t bin_len;
    uint64_t checksum;
};
_Static_assert(sizeof(struct cache_header) == 32, "the header is hashed as bytes: no padding");

static int cache_dir(char *buf, size_t cap)
{
    const char *mode = clm_env(CLM_ENV_CACHE);
    if (mode && strcmp(mode, "off") == 0)
        return -1;
    const char *dir = clm_env(CLM_ENV_CACHE_DIR);
    if (dir && *dir)
        return snprintf(buf, cap, "%s", dir) < (int)cap ? 0 : -1;
    const char *xdg = clm_env(CLM_ENV_XDG_CACHE_HOME);
    if (xdg && *xdg)
        return snprintf(buf, cap, "%s/clmatch", xdg) < (int)cap ? 0 : -1;
    const char *home = clm_env(CLM_ENV_HOME);
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

static uint64_t cache_checksum(const struct cache_header *h, const char *key,
                               const unsigned char *bin)
{
    struct cache_header fields = *h;
    fields.checksum = 0;
    uint64_t sum = clm_hash64(&fields, sizeof fields, 3);
    sum = clm_hash64(key, fields.key_len, sum);
    return clm_hash64(bin, (size_t)fields.bin_len, sum);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* One file of a PoCL archive at *at, ending by end: its name and content, each a 32-bit
 * length and the bytes. Returns the content's length, or -1 when the file has no name or
 * runs past end. */
static int64_t pocl_file(const unsigned char *b, size_t *at, size_t end, const unsigned char **name,
                         size_t *name_len)
{
    size_t p = *at;
    if (end - p < 4 || (*name_len = le32(b + p)) == 0 || end - p - 4 < *name_len)
        return -1;
    *name = b + p + 4;
    p += 4 + *name_len;
    if (end - p < 4 || end - p - 4 < le32(b + p))
        return -1;
    uint32_t content = le32(b + p);
    *at = p + 4 + content;
    return content;
}

/* PoCL's binaries ("poclbin", formats 9 to 12: PoCL 3.1 to 7, its lib/CL/pocl_binary.c) are
 * an archive of its kernel cache's files for the program: a header, the root files (the
 * program's LLVM bitcode, program.bc), then a record per kernel whose tail holds the
 * kernel's compiled files. PoCL reads them without bounds checks and asserts (aborts the
 * process) on what it does not expect. PoCL 3.1 builds the archive from its on-disk cache
 * when the binary is asked for, and rewrites program.bc there by remove-then-rename whenever
 * a process builds the program: another process that takes its binary in between gets an
 * empty program.bc (after a cold `make test`: entries of 29-37 KB instead of >= 68 KB).
 * Loading that one aborts PoCL (pocl_llvm_read_program_llvm_irs) and leaves the empty file in
 * its cache. */
static const char *pocl_binary_check(const unsigned char *b, size_t len, unsigned kernels)
{
    /* id 8, device 8, version 4, kernels 4, flags 8, root entries 4, build hash 41 */
    enum { HEADER = 77, KERNEL_FIXED = 24 };
    if (len < HEADER)
        return "PoCL binary: truncated header";
    uint32_t version = le32(b + 16), count = le32(b + 20), roots = le32(b + 32);
    if (version < 9 || version > 12)
        return NULL; /* a layout not known here: left to PoCL */
    if (count < kernels)
        return "PoCL binary: fewer kernels than the program's entry points";
    size_t at = HEADER;
    if (le64(b + 24) & 2) /* program-scope variables: their size follows (format 10 on) */
        at += 8;
    if (at > len)
        return "PoCL binary: truncated header";
    int bitcode = 0;
    for (uint32_t r = 0; r < roots; r++) {
        if (len - at < 8 || le64(b + at) > len - at - 8)
            return "PoCL binary: a root entry runs past the end";
        size_t end = at + 8 + (size_t)le64(b + at);
        for (at += 8; at < end;) {
            const unsigned char *name;
            size_t name_len;
            int64_t content = pocl_file(b, &at, end, &name, &name_len);
            if (content < 0)
                return "PoCL binary: a file runs past its root entry";
            if (name_len == 11 && memcmp(name, "/program.bc", 11) == 0) {
                if (content == 0)
                    return "PoCL binary: empty program.bc";
                bitcode = 1;
            }
        }
    }
    if (!bitcode)
        return "PoCL binary: no program.bc";
    for (uint32_t k = 0; k < count; k++) {
        if (len - at < KERNEL_FIXED)
            return "PoCL binary: a kernel record runs past the end";
        uint64_t size = le64(b + at), files = le64(b + at + 8);
        uint32_t name_len = le32(b + at + 20);
        if (size > len - at || size < KERNEL_FIXED || name_len == 0 ||
            name_len > size - KERNEL_FIXED || files > size - KERNEL_FIXED - name_len)
            return "PoCL binary: a kernel record runs past the end";
        size_t end = at + (size_t)size;
        for (at = end - (size_t)files; at < end;) {
            const unsigned char *name;
            size_t n;
            if (pocl_file(b, &at, end, &name, &n) < 0)
                return "PoCL binary: a kernel's file runs past its record";
        }
    }
    return at == len ? NULL : "PoCL binary: bytes after the last kernel";
}

/* The checks of a binary before it is stored, and of a stored one before the driver gets it
 * (a driver may abort on a damaged binary rather than fail). */
static const char *binary_check(const unsigned char *bin, uint64_t len, unsigned kernels)
{
    if (len < 8) /* every binary format starts with a longer header */
        return "binary of less than 8 bytes";
    if (len > CACHE_MAX_BINARY)
        return "binary larger than 1 GiB";
    if (memcmp(bin, "poclbin", 8) == 0)
        return pocl_binary_check(bin, (size_t)len, kernels);
    return NULL;
}

const char *clm_cache_entry_check(const void *entry, size_t len, const char *key,
                                  unsigned kernels, size_t *bin_at, size_t *bin_len)
{
    const unsigned char *e = entry;
    struct cache_header h;
    size_t key_len = strlen(key);
    if (len < sizeof h)
        return "shorter than its header";
    memcpy(&h, e, sizeof h);
    if (memcmp(h.magic, CACHE_MAGIC, 8) != 0)
        return "not a clmatch cache entry";
    if (h.format != CACHE_FORMAT)
        return "another format";
    if (h.key_len != key_len || len - sizeof h < key_len ||
        memcmp(e + sizeof h, key, key_len) != 0)
        return "another key";
    if (h.bin_len != len - sizeof h - key_len)
        return "its length is not the header's";
    const unsigned char *bin = e + sizeof h + key_len;
    if (cache_checksum(&h, key, bin) != h.checksum)
        return "checksum mismatch";
    const char *why = binary_check(bin, h.bin_len, kernels);
    if (why)
        return why;
    *bin_at = sizeof h + key_len;
    *bin_len = (size_t)h.bin_len;
    return NULL;
}

/* The binary of the entry at path when it verifies (a malloc'd buffer), else NULL: missing,
 * not a regular file, damaged or for another key. */
static unsigned char *cache_load(const char *path, const char *key, unsigned kernels,
                                 size_t *bin_len)
{
    const char *kind;
    int fd = clm_open_regular(path, &kind);
    if (fd < 0)
        return NULL;
    char *data;
    size_t len, at;
    int err = clm_read_fd(fd, CACHE_MAX_BINARY + 4096, &data, &len);
    close(fd);
    if (err)
        return NULL;
    if (clm_cache_entry_check(data, len, key, kernels, &at, bin_len) != NULL) {
        free(data);
        return NULL;
    }
    memmove(data, data + at, *bin_len);
    return (unsigned char *)data;
}

unsigned char *clm_cache_entry_make(const char *key, const unsigned char *bin, size_t bin_len,
                                    size_t *len)
{
    struct cache_header h;
    size_t key_len = strlen(key);
    unsigned char *entry = malloc(sizeof h + key_len + bin_len);
    if (!entry)
        return NULL;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.format = CACHE_FORMAT;
    h.key_len = (uint32_t)key_len;
    h.bin_len = bin_len;
    h.checksum = cache_checksum(&h, key, bin);
    memcpy(entry, &h, sizeof h);
    memcpy(entry + sizeof h, key, key_len);
    memcpy(entry + sizeof h + key_len, bin, bin_len);
    *len = sizeof h + key_len + bin_len;
    return entry;
}

/* Best effort: a cache that cannot be written only costs the next run a rebuild, and so does
 * a binary that fails binary_check, which is not stored. */
static void cache_store(const char *path, const char *key, const unsigned char *bin,
                        size_t bin_len, unsigned kernels)
{
    char dir[4096];
    size_t len;
    unsigned char *entry = NULL;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!binary_check(bin, bin_len, kernels) && clm_mkdirs(dir) == 0 &&
        (entry = clm_cache_entry_make(key, bin, bin_len, &len)) != NULL)
        clm_write_file_atomic(path, entry, len);
    free(entry);
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

/* The program's entry points (cl/kernels.cl): clm_find and clm_count, and clm_pack when the
 * text comes packed; the LIKE kernels' (cl/records.cl); the compaction's (cl/compact.cl).
 * Returns their number. */
#define ENTRY_POINTS_MAX 12
static unsigned entry_points(const struct clm_kernel_shape *shape,
                             const char *names[ENTRY_POINTS_MAX])
{
    static const char *const like[] = {"clm_like_match",     "clm_like_match_group",
                                       "clm_like_count",     "clm_like_ids32",
                                       "clm_like_ids64",     "clm_like_aho_local",
                                       "clm_like_aho_global", "clm_like_match_seg"};
    static const char *const compact[] = {"clm_compact_count", "clm_compact_scan",
                                          "clm_compact_move"};
    if (shape->compact) {
        memcpy(names, compact, sizeof compact);
        return sizeof compact / sizeof compact[0];
    }
    static const char *const text[] = {"clm_like_text_index", "clm_like_text_search",
                                       "clm_like_text_select", "clm_like_text_groups"};
    if (shape->records) {
        memcpy(names, like, sizeof like);
        if (!shape->like_text)
            return sizeof like / sizeof like[0];
        memcpy(names + sizeof like / sizeof like[0], text, sizeof text);
        return sizeof like / sizeof like[0] + sizeof text / sizeof text[0];
    }
    names[0] = "clm_find";
    names[1] = "clm_count";
    names[2] = "clm_pack";
    return shape->packed ? 3u : 2u;
}

/* NULL when prog has the shape's entry points (a driver may add kernels of its own), else
 * what it has (into buf). */
static const char *entry_points_differ(cl_program prog, const struct clm_kernel_shape *shape,
                                       char *buf, size_t cap)
{
    const char *want[ENTRY_POINTS_MAX];
    unsigned n = entry_points(shape, want), found = 0;
    size_t count = 0, size = 0;
    char *names = NULL;
    if (clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL) !=
            CL_SUCCESS ||
        clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) != CL_SUCCESS ||
        !(names = calloc(size + 1, 1)) ||
        clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) != CL_SUCCESS)
        count = 0;
    for (unsigned i = 0; i < n && names; i++) { /* names: "a;b;c" */
        size_t len = strlen(want[i]);
        for (const char *p = names; *p; p += strcspn(p, ";"), p += *p == ';')
            if (strncmp(p, want[i], len) == 0 && (p[len] == ';' || p[len] == '\0'))
                found++;
    }
    const char *why = NULL;
    if (count < n || found != n) {
        size_t at = (size_t)snprintf(buf, cap, "%zu kernel%s (\"%.200s\"), not the entry points",
                                     count, count == 1 ? "" : "s", names ? names : "");
        for (unsigned i = 0; i < n && at < cap; i++)
            at += (size_t)snprintf(buf + at, cap - at, "%s %s", i ? "," : "", want[i]);
        why = buf;
    }
    free(names);
    return why;
}

/* NULL when the driver refuses the binary or the program it builds lacks an entry point. */
static cl_program build_from_binary(clm_device *dev, const unsigned char *bin, size_t len,
                                    const char *options, const struct clm_kernel_shape *shape)
{
    char why[512];
    cl_int err, status;
    cl_program prog =
        clCreateProgramWithBinary(dev->context, 1, &dev->device, &len, &bin, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        if (prog)
            clReleaseProgram(prog);
        return NULL;
    }
    if (clBuildProgram(prog, 1, &dev->device, options, NULL, NULL) != CL_SUCCESS ||
        entry_points_differ(prog, shape, why, sizeof why)) {
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

/* The program cached in memory under KEY, retained for the caller (dev->lock held), or NULL. */
static cl_program memory_lookup(clm_device *dev, const char *key)
{
    for (struct clm_program_entry *e = dev->programs; e; e = e->next)
        if (strcmp(e->key, key) == 0) {
            clRetainProgram(e->program);
            return e->program;
        }
    return NULL;
}

int clm_get_program(clm_device *dev, const struct clm_kernel_shape *shape, cl_program *out,
                    int *cache_hit, char *options_out, size_t options_cap)
{
    char options[1024];
    int rc = clm_build_options(dev, shape, options, sizeof options);
    if (rc)
        return rc;
    if (options_out)
        snprintf(options_out, options_cap, "%s", options);
    /* the memory cache's key: the options and the source. The library's own sources are
     * named (hashing some 100 KiB would cost every select and scan about 0.1 ms); those of
     * CLMATCH_KERNEL_DIR are hashed, as the disk cache's key always hashes them. */
    char key[1088];
    const char *dir = clm_env(CLM_ENV_KERNEL_DIR), *files[PROGRAM_FILES];
    int nfiles = source_files(shape, files), built_in = !dir || !*dir;
    if (built_in) {
        size_t n = (size_t)snprintf(key, sizeof key, "%s\nbuilt-in", options);
        for (int i = 0; i < nfiles && n < sizeof key; i++)
            n += (size_t)snprintf(key + n, sizeof key - n, " %s", files[i]);
        if (n >= sizeof key)
            return clm_fail(CLM_E_INVALID, "build options do not fit");
        pthread_mutex_lock(&dev->lock);
        cl_program hit = memory_lookup(dev, key);
        pthread_mutex_unlock(&dev->lock);
        if (hit) {
            *out = hit;
            *cache_hit = 1;
            return CLM_OK;
        }
    }
    char *src;
    if ((rc = clm_program_source(shape, &src)) != CLM_OK)
        return rc;
    const unsigned long long hash = clm_hash64(src, strlen(src), 0);
    if (!built_in)
        snprintf(key, sizeof key, "%s\nsource %016llx", options, hash);

    /* the disk cache's key: options and source, device, driver and library */
    char full_key[2048];
    snprintf(full_key, sizeof full_key,
             "clmatch %s\nplatform %s %s\ndevice %s %s\ndriver %s\n%s\nsource %016llx",
             CLM_VERSION_STRING, dev->info.platform_name, dev->info.platform_version,
             dev->info.name, dev->info.version, dev->info.driver_version, options, hash);

    pthread_mutex_lock(&dev->lock);
    cl_program hit = memory_lookup(dev, key);
    if (hit) {
        *out = hit;
        *cache_hit = 1;
        pthread_mutex_unlock(&dev->lock);
        free(src);
        return CLM_OK;
    }

    cl_program prog = NULL;
    char path[4096], why[512];
    const char *names[ENTRY_POINTS_MAX];
    unsigned kernels = entry_points(shape, names);
    int have_path = cache_path(full_key, path, sizeof path) == 0;
    *cache_hit = 0;
    if (have_path) {
        size_t len;
        unsigned char *bin = cache_load(path, full_key, kernels, &len);
        if (bin) {
            prog = build_from_binary(dev, bin, len, options, shape);
            free(bin);
            *cache_hit = prog != NULL;
        }
    }
    if (!prog) { /* missing, damaged or refused by the driver: build and (re)write */
        rc = build_from_source(dev, src, options, &prog);
        if (rc == CLM_OK && entry_points_differ(prog, shape, why, sizeof why)) {
            /* seen with PoCL 3.1 after it loaded a damaged binary (pocl_binary_check) */
            rc = clm_fail(CLM_E_BUILD,
                          "the OpenCL build on %s has %s; the driver's own kernel cache may be "
                          "damaged (PoCL's: POCL_CACHE_DIR, else ~/.cache/pocl)",
                          dev->info.name, why);
            clReleaseProgram(prog);
            prog = NULL;
        }
        if (rc == CLM_OK && have_path) {
            size_t len;
            unsigned char *bin = program_binary(prog, &len);
            if (bin)
                cache_store(path, full_key, bin, len, kernels);
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
