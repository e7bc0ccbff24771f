/* Internal declarations shared by the library's host files. Not installed. */
#ifndef CLM_INTERNAL_H
#define CLM_INTERNAL_H

#include <CL/cl.h>
#include <stdio.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "clmatch.h"
#include "contract.h" /* cl/contract.h: what the kernels agree on */

/* "MAJOR.MINOR.PATCH" from clmatch.h, the one place that holds the version. */
#define CLM_STRINGIFY_(x) #x
#define CLM_STRINGIFY(x) CLM_STRINGIFY_(x)
#define CLM_VERSION_STRING                                                                  \
    CLM_STRINGIFY(CLM_VERSION_MAJOR) "." CLM_STRINGIFY(CLM_VERSION_MINOR) "."              \
        CLM_STRINGIFY(CLM_VERSION_PATCH)

/* ---- errors (error.c) ---------------------------------------------------------------- */

/* Record the detail of a failure for clm_last_error() and return status. */
int clm_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append more text (e.g. a build log) to the current detail. */
void clm_fail_append(const char *text);
void clm_clear_error(void);
/* Name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES". */
const char *clm_cl_error_name(cl_int err);
/* Map an OpenCL error of `call` to a clmatch status, recording the detail. Allocation
 * failures become CLM_E_DEVICE_MEMORY, the rest CLM_E_OPENCL. */
int clm_fail_cl(cl_int err, const char *call);

/* ---- environment (env.c) ------------------------------------------------------------ */

/* Every environment variable the library reads; each has one row in env.c's table (name,
 * what it sets, the values it takes, where it is documented), which docs/library.md shows. */
enum clm_env_var {
    CLM_ENV_PLATFORM,
    CLM_ENV_DEVICE,
    CLM_ENV_KERNEL_DIR,
    CLM_ENV_CACHE,
    CLM_ENV_CACHE_DIR,
    CLM_ENV_XDG_CACHE_HOME,
    CLM_ENV_HOME,
    CLM_ENV_SLAB_BYTES,
    CLM_ENV_SLOTS,
    CLM_ENV_DATA_PATH,
    CLM_ENV_IO_THREADS,
    CLM_ENV_PACKED,
    CLM_ENV_PACKED_OLD, /* CLM_PACKED, CLMATCH_PACKED's older name */
    CLM_ENV_PROFILE_DIR,
    CLM_ENV_XDG_CONFIG_HOME,
    CLM_ENV_PROFILE,
    CLM_ENV_STAGING,
    CLM_ENV_TUNE,
    CLM_ENV_TEST_EARLY,
    CLM_ENV_HOST_THREADS,
    CLM_ENV_KMER_Q,
    CLM_ENV_LIKE_TEXT,
    CLM_ENV_COUNT
};
/* The variable's value as getenv gives it: NULL when unset. */
const char *clm_env(enum clm_env_var var);
/* Its name, e.g. "CLMATCH_CACHE_DIR", for messages. */
const char *clm_env_name(enum clm_env_var var);
/* The table as markdown (docs/library.md, "Environment"). */
void clm_env_doc(FILE *f);

/* ---- public structs that may grow (abi.c; clmatch.h, Conventions) --------------------- */

/* The bytes of type up to the end of field. */
#define CLM_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
/* Each struct's first version ends at this field: a caller's size below it is CLM_E_INVALID.
 * Fields added later go after it; these lines do not change. */
#define CLM_DEVICE_INFO_V1 CLM_SIZE_THROUGH(clm_device_info, open_context_seconds)
#define CLM_TUNING_V1 CLM_SIZE_THROUGH(clm_tuning, algorithm)
#define CLM_DATABASE_INFO_V1 CLM_SIZE_THROUGH(clm_database_info, groups_per_unit)
#define CLM_SCRATCH_INFO_V1 CLM_SIZE_THROUGH(clm_scratch_info, alloc_seconds)
#define CLM_STATS_V1 CLM_SIZE_THROUGH(clm_stats, reader_seconds)
#define CLM_COMPILE_OPTIONS_V1 CLM_SIZE_THROUGH(clm_compile_options, wg_as_tuning)
#define CLM_SCRATCH_OPTIONS_V1 CLM_SIZE_THROUGH(clm_scratch_options, max_memory)

/* Copy the library's struct src (src_size bytes) into the caller's dst of dst_size bytes:
 * the bytes both have, zeros past them. CLM_E_INVALID naming `what` for a NULL dst or a
 * dst_size below min_size (then nothing is written). */
int clm_copy_out(void *dst, size_t dst_size, const void *src, size_t src_size, size_t min_size,
                 const char *what);
/* Read the caller's options src (its first member its size) into the library's dst of
 * dst_size bytes, which holds the defaults: the fields within both sizes become the caller's.
 * CLM_E_INVALID naming `what` (and `init`, the function that sets the size) for a size of 0,
 * below min_size, or one whose bytes past dst_size are not all 0 (fields this library does
 * not know, set by a caller built against a newer clmatch.h). */
int clm_options_read(void *dst, size_t dst_size, const void *src, size_t min_size,
                     const char *what, const char *init);

/* ---- small utilities (util.c) ------------------------------------------------------- */

uint64_t clm_hash64(const void *data, size_t len, uint64_t seed);
double clm_now(void);
/* Open a regular file for reading, never blocking: a FIFO, directory or device file is
 * refused, without waiting for a FIFO's writer. Returns the descriptor; or -1 with errno
 * set, and *kind naming what the path is ("a FIFO", ...) when it exists but is no regular
 * file (else NULL). */
int clm_open_regular(const char *path, const char **kind);
/* Read fd to its end into a NUL-terminated malloc'd buffer (*len may be NULL). Returns 0,
 * or an errno value: EFBIG past max bytes, ENOMEM, or read's. */
int clm_read_fd(int fd, size_t max, char **out, size_t *len);
/* clm_open_regular + clm_read_fd; CLM_E_IO (or CLM_E_NOMEM) with detail. */
int clm_read_file(const char *path, size_t max, char **out, size_t *len);
/* Write a file as a whole: data goes to a new file beside path (a name of its own, created
 * with O_EXCL, per process and call), which is then renamed over path, so readers never
 * see a half-written file and concurrent writers (threads or processes) never share one.
 * Returns 0, or -1 with errno set. */
int clm_write_file_atomic(const char *path, const void *data, size_t len);
/* mkdir -p; 0 on success. */
int clm_mkdirs(const char *path);
/* s[0, n): digits with an optional K, M or G (binary, either case) suffix into *out. 0, or
 * -1 when it is not that or overflows. */
int clm_parse_size(const char *s, size_t n, uint64_t *out);
size_t clm_round_up(size_t x, size_t multiple);
unsigned clm_next_pow2(unsigned x);

/* ---- tuning (tune.c) ----------------------------------------------------------------- */

/* The tuning knobs; each has one row in tune.c's knob table (key, limits, per-algorithm or
 * not). A knob the kernels (or, for speed, device sets) do not read yet does not belong
 * here. */
enum clm_knob {
    CLM_KNOB_WG,
    CLM_KNOB_CHUNK,
    CLM_KNOB_SLAB,
    CLM_KNOB_STAGE, /* a switch: CLM_TUNE_ON or CLM_TUNE_OFF */
    CLM_KNOB_VEC,
    CLM_KNOB_GROUPS,
    CLM_KNOB_PREFETCH, /* a switch */
    CLM_KNOB_SPEED,    /* bytes per second a device set gives the device's share by */
    CLM_KNOB_COUNT
};
/* What a switch knob holds (0 means "not set" in every table, so off cannot be 0). */
#define CLM_TUNE_OFF 1u
#define CLM_TUNE_ON 2u

/* The number of clm_algorithm values (CLM_ALGO_AUTO included). */
#define CLM_ALGO_COUNT 11u

/* A device's resolved tuning. Values 0 in algo[][] fall back to value[]. */
struct clm_tune {
    uint64_t value[CLM_KNOB_COUNT];
    unsigned char source[CLM_KNOB_COUNT]; /* clm_tuning_source */
    uint64_t algo[CLM_ALGO_COUNT][CLM_KNOB_COUNT];
    unsigned char algo_source[CLM_ALGO_COUNT][CLM_KNOB_COUNT];
    unsigned layers; /* bit per clm_tuning_source that set a value */
    int staging_env; /* CLMATCH_STAGING (stage's old switch) set stage */
    int tune_env;    /* CLMATCH_TUNE set something */
    char builtin[64];
    char profile_path[1024];
    int profile_used;
    char warning[1024];
};

struct clm_device;
/* Resolve dev->tune from dev->info and the environment (built-in row, profile, CLMATCH_TUNE).
 * Only a bad CLMATCH_TUNE fails (CLM_E_INVALID naming the item). */
int clm_tune_init(struct clm_device *dev);
/* The knob's value for an algorithm: its per-algorithm value, else the global one; *source
 * (may be NULL) gets where it came from. */
uint64_t clm_tune_get(const struct clm_device *dev, clm_algorithm algo, enum clm_knob knob,
                      clm_tuning_source *source);
/* Parse a profile's bytes (what clm_tune_init reads from t->profile_path) for device d: its
 * header must name d's name and driver version, and its values must suit d's limits. 0: the
 * values are applied to t (source CLM_TUNING_PROFILE, t->profile_used); -1: nothing is
 * applied, and t->warning says why (one line, the file's bytes escaped). Pure: no device,
 * no I/O. */
int clm_tune_parse_profile(struct clm_tune *t, const clm_device_info *d, const char *data,
                           size_t len);
/* The knob's per-algorithm value alone; 0 when there is none. */
uint64_t clm_tune_own(const struct clm_device *dev, clm_algorithm algo, enum clm_knob knob);

/* ---- slabs over a few host threads (io.c) ------------------------------------------- */

/* Threads that copy or read one slab by default: the CPUs this process may use (*cpus, may
 * be NULL), at most 16. CLMATCH_IO_THREADS (scratch.c) overrides it. */
unsigned clm_io_threads(unsigned *cpus);
/* memcpy over up to `threads` threads (one below 2 MiB). */
void clm_parallel_copy(void *dst, const void *src, size_t n, unsigned threads);
/* clm_parallel_copy of [src, src + n) and of a second range [src2, src2 + n2) at once: the
 * second on a thread of its own (a column's offsets beside its bytes). */
void clm_parallel_copy2(void *dst, const void *src, size_t n, void *dst2, const void *src2,
                        size_t n2, unsigned threads);
/* clm_parallel_copy that returns how many of the bytes are '\n' or '\r' (counted as they are
 * copied, while they are in the cache). */
size_t clm_parallel_copy_breaks(void *dst, const void *src, size_t n, unsigned threads);
/* The '\n' and '\r' bytes of p[0, n), counted by up to `threads` threads. */
size_t clm_parallel_count_breaks(const void *p, size_t n, unsigned threads);
/* The bytes of src[0, n) other than '\n' and '\r' to dst, in order, over up to `threads`
 * threads (dst and src do not overlap); returns how many. */
size_t clm_parallel_copy_drop_breaks(void *dst, const void *src, size_t n, unsigned threads);

/* Files are read in slabs of at most this many MiB, whatever the scratch's slab (the bench
 * reads its host-read yardstick so too). Pinning the staging costs time that nothing overlaps
 * (two slots of 256 MiB: 0.17 s on the H200, more than searching a 1 GiB file), and smaller
 * slabs keep the reader threads and the transfers busy sooner: a cached 10 GiB file streamed
 * at 41-44 GB/s with 32 MiB, 40-44 with 24 or 48, 35-40 with 64 (bench/experiments/README.md,
 * "Streaming"). Memory scans keep the whole slab: on resident text, kernels of 256 MiB ran
 * 1.4x those of 64 MiB (launch and tail-wave cost). */
#ifndef CLM_FILE_SLAB_MIB /* a build-time knob for such measurements */
#define CLM_FILE_SLAB_MIB 32
#endif
#define CLM_FILE_SLAB_MAX ((size_t)CLM_FILE_SLAB_MIB << 20)

/* A pool of threads that read a file in pieces of a queue of reads, so that they go on with
 * the next read (the next slab) without waiting for each other. */
typedef struct clm_reader clm_reader;
#define CLM_READER_QUEUE 8
struct clm_read { /* one read, the caller's until clm_reader_wait returns */
    unsigned char *dst;
    uint64_t offset;
    size_t n, handed, left; /* bytes handed to threads; bytes not read yet */
    size_t piece;           /* bytes a thread takes at once */
    int failed, err;        /* the failure nearest the start: errno (0: short read), at */
    uint64_t at;
    /* clm_reader_submit_block: read in parts, each handed to hooks->part as block `block`
     * and, with `count`, its line breaks added to `breaks` */
    const clm_fd_hooks *hooks;
    uint64_t block;
    int count;
    size_t breaks;
};
/* Start up to `threads` readers of fd, fewer for a file of few `bytes` (none started is no
 * error: waiters read). */
int clm_reader_open(int fd, unsigned threads, uint64_t bytes, clm_reader **out);
/* Queue n bytes of the file at offset into dst (at most CLM_READER_QUEUE reads at once). */
int clm_reader_submit(clm_reader *r, struct clm_read *rd, void *dst, size_t n, uint64_t offset);
/* clm_reader_submit of a stream's block (clm_stream_write_fd): at most CLM_FD_MAX_PIECES
 * pieces, read in parts of CLM_READ_PART bytes, each part to hooks->part (hooks may be NULL)
 * and, with count, its '\n' and '\r' bytes counted into rd->breaks. */
#define CLM_READ_PART ((size_t)256 << 10)
int clm_reader_submit_block(clm_reader *r, struct clm_read *rd, void *dst, size_t n,
                            uint64_t offset, const clm_fd_hooks *hooks, uint64_t block,
                            int count);
/* Wait for a read, reading its pieces not yet taken on the caller's thread. CLM_E_IO with
 * the offset and errno text on a failed or short read (the failure nearest the start). */
int clm_reader_wait(clm_reader *r, struct clm_read *rd);
/* Stop: pieces not begun are dropped, those being read finish first. Returns the wall time
 * the pool had reads queued or in progress. r may be NULL. */
double clm_reader_close(clm_reader *r);

/* ---- devices (device.c) ------------------------------------------------------------- */

struct clm_program_entry;

/* What LIKE selects leave for the next on their device (like_pool.c), under lock. */
#define CLM_POOL_BUFFERS 32
#define CLM_POOL_QUEUES 4
#define CLM_POOL_KERNELS 48
struct clm_like_pool {
    pthread_mutex_t lock;
    struct {
        cl_mem m;
        size_t n;
        cl_mem_flags flags;
    } buf[CLM_POOL_BUFFERS]; /* oldest first */
    unsigned nbuf;
    uint64_t bytes;
    cl_command_queue q[CLM_POOL_QUEUES];
    unsigned nq;
    struct {
        cl_kernel k;
        cl_program prog;
        char name[48];
    } kern[CLM_POOL_KERNELS]; /* oldest first */
    unsigned nk;
};

struct clm_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    clm_device_info info;
    int little_endian;
    /* kernel macros chosen per device when it is opened: HIT_CHECK (CPUs: bitap tests for
     * a match once per 16 bytes), NO_FUNNEL_SHIFT (oclgrind's interpreter lacks llvm.fshl) */
    int hit_check, no_funnel_shift;
    /* loop_budget: loop passes one work-item may make in all, over every loop of a kernel (0:
     * no limit). Mesa's llvmpipe (rusticl) leaves every loop once a work-item has made 65535,
     * with no error (bench/experiments/loop_budget.c); the host keeps each kernel's passes
     * under it (choose.c fit_loop_budget; pass.c: a staged group per region). loop_lanes:
     * work-items run as one SIMD batch there: an inner loop passes as often as its busiest
     * lane. */
    unsigned loop_budget, loop_lanes;
    /* tuning: work-group size, bytes per work-item, slab, staging and load width */
    struct clm_tune tune;
    pthread_mutex_t lock; /* guards the program cache */
    struct clm_program_entry *programs;
    int model; /* clm_device_model: no OpenCL device behind it; databases are planned only */
    /* host columns on the copy path (records.c): two pinned staging buffers of stage_cap
     * bytes, mapped on stage_q at stage_ptr, lent to one select at a time (stage_busy under
     * stage_lock) and kept until the device closes: pinning costs more than a batch's
     * transfer, and one pair a device bounds the pinned memory whatever the predicates */
    pthread_mutex_t stage_lock;
    int stage_busy;
    size_t stage_cap;
    cl_command_queue stage_q;
    cl_mem stage_buf[2];
    unsigned char *stage_ptr[2];
    struct clm_like_pool like_pool;
};
/* Release a device's LIKE staging buffers (records.c). */
void clm_like_stage_free(struct clm_device *dev);
/* like_pool.c: a buffer of at least n bytes (a kept one, else made); a buffer given back
 * (kept, or released when it is over host memory or past the bound); a command queue (kept
 * or made) and one given back, idle once returned; kernels alike; all of them released
 * (device close). */
int clm_pool_buffer(struct clm_device *dev, cl_mem_flags flags, size_t n, cl_mem *out);
void clm_pool_put_buffer(struct clm_device *dev, cl_mem m);
cl_command_queue clm_pool_queue(struct clm_device *dev, cl_int *err);
void clm_pool_put_queue(struct clm_device *dev, cl_command_queue q);
/* A kernel of prog (a kept one, its arguments those its last select set: each select sets
 * all of them before a launch), else made; one given back. */
cl_kernel clm_pool_kernel(struct clm_device *dev, cl_program prog, const char *name,
                          cl_int *err);
void clm_pool_put_kernel(struct clm_device *dev, cl_kernel k);
void clm_pool_free(struct clm_device *dev);

/* A device described by `info` alone (no platform, device or context), tuned by its built-in
 * row only: clm_compile plans kernels for it (shapes, options, tables) but builds and uploads
 * nothing, so the kernels of any device can be inspected anywhere (tools/clmatch-kernels). */
int clm_device_model(const clm_device_info *info, int little_endian, clm_device **out);

/* ---- programs (program.c) ----------------------------------------------------------- */

/* Everything that is baked into one kernel build. */
struct clm_kernel_shape {
    clm_algorithm algorithm;
    clm_table_memory table_memory;
    clm_variant variant;
    unsigned m;        /* pattern length in symbols */
    unsigned sigma;    /* dfa, bitap: rows/classes of the second table (power of two) */
    unsigned pat_len;  /* elements of the byte table (pattern or class map) */
    unsigned tab_len;  /* elements of the second table */
    unsigned tab_elem; /* bytes per element of the second table: 2 (ushort) or 8 (ulong) */
    unsigned wg;       /* work-group size */
    unsigned chunk;    /* bytes owned per work-item (item kernels) */
    unsigned span;     /* match starts covered by one work-group (launch geometry) */
    unsigned k;        /* bitap: edits allowed */
    int hamming;       /* bitap: substitutions only */
    unsigned words;    /* bitap: 64-bit words per row */
    unsigned lead;     /* bitap: bytes read before a range (k with indels, else 0) */
    unsigned pi;       /* witness: block of positions (min(period, ceil(m/2))) */
    unsigned gs;       /* witness: work-items per block */
    unsigned halo;     /* bitap reduce: bytes of history per group, 2^ceil(log2 m) - 1 */
    int caseless;
    int packed;        /* dfa, bitap item: the text comes packed (CLM_DNA, clm_pack) */
    unsigned pack_case; /* bases when packed: 0 ACGT, 1 acgt, 2 both */
    unsigned strands;  /* bitap item: 2 searches the reverse complement in the same pass
                          (masks of both, side by side per class), else 1 */
    int stage;         /* exact dfa / one-word bitap: whole work-group regions are staged in
                          local memory (cl/kernels.cl STAGE) */
    unsigned dfa_col;  /* staged dfa: bytes per column of its byte-indexed state table
                          (cl/dfa.cl DFA_COL); 0: the class map and transitions instead */
    unsigned stage_prefix; /* staged: length of the prefix its cheap walk runs (cl/common.cl
                              STAGE_PREFIX); 0: the whole pattern */
    unsigned stage_groups; /* staged: work-groups launched per compute unit, which take
                              regions from a queue (cl/kernels.cl clm_stage_loop) */
    int stage_prefetch; /* staged: the next region's loads in flight during a walk */
    unsigned vec;      /* bytes per load of the unstaged range reads (cl/common.cl LOAD16):
                          4, 8 or 16; 0 where the kernel reads no blocks (VEC=16 then) */
    unsigned aho_hot;  /* aho, tables in global memory: entries at the table's start (the
                          shallowest states' rows) also copied to local memory; 0: none */
    unsigned line_first; /* aho, CLM_LINES: 1: a work-item reports the first match it meets
                            on each line (cl/aho.cl LINE_FIRST) */
    unsigned aho_passes; /* aho: loop passes of the most matches ending at one byte (for a
                            device's loop budget; the kernel reads its table instead) */
    unsigned simd_fast; /* simd: positions compared at every step, the rest only where they
                           left a candidate (cl/simd.cl SIMD_FAST) */
    unsigned records;  /* the LIKE kernels of cl/records.cl (host/records.c): the width of
                          the column's offsets, 32 or 64; 0 for the search kernels */
    unsigned like_approx; /* records.cl: 1 when the predicate has an approximate pattern
                             (its matcher compiled in); 0: left out */
    unsigned like_text; /* records.cl: 1 when the program also holds like_text.cl's kernels
                           (segments paired over the text); 0: left out */
    unsigned pivot;    /* records.cl: the piece width of a pivoted column (clm_column_pivot);
                          0: rows one after the other */
    unsigned like_block; /* records.cl: filter and verify's block (cl/contract.h LIKE_BLOCK) */
    unsigned self_segs, self_len; /* records.cl: a self-pivoted column's segments a chunk and
                                     bytes a segment (SELF_SEGS, SELF_LEN); 0: not */
    unsigned like_find; /* records.cl: 0 first byte, 1-3 KMP basic, step, hybrid, 4 wide (LIKE_FIND) */
    unsigned like_kmp_max; /* records.cl, with like_find: prog words KMP's tables cover */
    unsigned compact;  /* the line-break compaction of cl/compact.cl (host/compact.c): 1;
                          0 for the search kernels */
    unsigned kmer_q;    /* kmer: bytes of a sampled q-gram (cl/kmer.cl KMER_Q), at most 16 */
    unsigned kmer_s;    /* kmer: bytes between samples (KMER_S) */
    unsigned ham_count, ham_runs; /* hamming: patterns, and runs of them with the same exact
                                     ends (its loop passes, for a device's loop budget) */
    unsigned kmer_bits; /* kmer: log2 of the filter's bits (KMER_BITS) */
    unsigned kmer_hot;  /* kmer, tables in global memory: the header and filter's uints, also
                           copied to local memory (KMER_HOT); 0: read from global memory */
    unsigned kmer_passes; /* kmer: loop passes of the verification of one sample, at most */
    unsigned emit_blocks; /* search kernels of LIKE's filter (records.c): matches set a bit
                             per block of this many bytes (cl/common.cl clm_emit); 0: they
                             are appended */
};

/* The one place that turns a shape into build options (program.c's table); the string is
 * also the cache key. */
int clm_build_options(const clm_device *dev, const struct clm_kernel_shape *shape, char *buf,
                      size_t cap);
/* That table as markdown: each option and what the kernels make of it. */
void clm_build_options_doc(FILE *f);

/* Get the built program for a shape: memory cache, then disk cache, then a build from
 * source. The returned program is retained for the caller. */
int clm_get_program(clm_device *dev, const struct clm_kernel_shape *shape, cl_program *out,
                    int *cache_hit, char *options_out, size_t options_cap);
void clm_release_programs(clm_device *dev);
/* The whole source of a shape's program (common.cl, the algorithm's file, kernels.cl), as
 * clm_get_program builds it; malloc'd. */
int clm_program_source(const struct clm_kernel_shape *shape, char **out);
/* Check a kernel cache entry (the bytes of its file) for the key it must hold and a program
 * of `kernels` entry points: its header, key, length and checksum, and that the binary may
 * be handed to the driver (a PoCL binary's archive is complete). NULL when it verifies, with
 * the binary at entry + *bin_at, *bin_len bytes; else the reason. Pure: no device, no I/O. */
const char *clm_cache_entry_check(const void *entry, size_t len, const char *key,
                                  unsigned kernels, size_t *bin_at, size_t *bin_len);
/* The cache entry for key around a binary, as it is stored (malloc'd, *len bytes); NULL when
 * out of memory. It does not check the binary. */
unsigned char *clm_cache_entry_make(const char *key, const unsigned char *bin, size_t bin_len,
                                    size_t *len);

/* Kernel sources built into the library (generated kernels_gen.c). */
struct clm_kernel_source {
    const char *name;
    const char *text;
};
extern const struct clm_kernel_source clm_kernel_sources[];
extern const size_t clm_kernel_source_count;

/* ---- patterns (pattern.c) ----------------------------------------------------------- */

unsigned char clm_fold(unsigned char c);
/* fail[j] (j = 0..m): length of the longest proper border of pat[0, j). */
void clm_kmp_fail(const unsigned char *pat, size_t m, uint16_t *fail);
/* Reduced alphabet: cls[b] is 0 for bytes not in the pattern, 1..d for the pattern's d
 * distinct bytes (both cases share a class when caseless); when all 256 byte values occur,
 * classes are 0..255 with no "other". Returns the number of classes. */
unsigned clm_class_map(const unsigned char *pat, size_t m, int caseless, unsigned char cls[256]);
/* KMP automaton: table[q * sigma + c] for states q = 0..m and classes c < sigma. */
void clm_dfa_table(const unsigned char *pat, size_t m, const unsigned char cls[256],
                   unsigned sigma, uint16_t *table);

/* A pattern as position sets: symbol j accepts the bytes in sets[j] (256-bit sets, case
 * folded when caseless). literal: every set is one byte (or one letter in both cases when
 * caseless); bytes[] then holds those bytes, folded when caseless. */
struct clm_symbols {
    size_t m;
    uint8_t (*sets)[32];
    unsigned char *bytes;
    int literal;
};

/* Parse a pattern (class syntax when `classes`, else every byte literal). */
int clm_parse_symbols(const unsigned char *src, size_t len, int classes, int caseless,
                      unsigned index, struct clm_symbols *out);
void clm_symbols_free(struct clm_symbols *s);
/* CLM_DNA: every byte an IUPAC code (else CLM_E_PATTERN_SYNTAX naming byte and offset), each
 * the set of its bases in its own case (both cases when caseless); degenerate_text adds the
 * IUPAC text codes whose bases meet the code's (CLM_DEGENERATE_TEXT). */
int clm_parse_dna(const unsigned char *src, size_t len, int caseless, int degenerate_text,
                  unsigned index, struct clm_symbols *out);
/* Reverse complement of IUPAC codes (A<->T, C<->G, R<->Y, K<->M, B<->V, D<->H, U->A; S W N
 * unchanged; case kept) into out[0, len). */
void clm_reverse_complement(const unsigned char *src, size_t len, unsigned char *out);
/* Bitap: bytes with equal position masks share a class; masks[c * words + w] (room for 256
 * classes); *classes gets their number. sym->m <= 64 * words. */
int clm_bitap_tables(const struct clm_symbols *sym, unsigned words, unsigned char cls[256],
                     uint64_t *masks, unsigned *classes);
/* Smallest period of pat; with witness != NULL, witness[d] for 1 <= d < min(pi_max, period):
 * an index q with pat[q] != pat[q - d]. */
size_t clm_period(const unsigned char *pat, size_t m, uint16_t *witness, size_t pi_max);
/* Horspool's bad-character shifts. */
void clm_bmh_shifts(const unsigned char *pat, size_t m, uint16_t shift[256]);
/* Start of the best alignment of a pattern (m symbol sets) ending at e with d edits (at most
 * k): the start whose length is closest to m, the earlier on a tie; text[lo, e) readable. */
size_t clm_best_start(const uint8_t (*sets)[32], size_t m, const unsigned char *text, size_t e,
                      size_t lo, unsigned d, unsigned k);

/* ---- databases (compile.c, choose.c) ------------------------------------------------- */

/* One pattern searched: a slot of the database's pattern table. The kernels report a match
 * with its slot, so the host knows its id, length and strand whatever engine found it. */
struct clm_pattern {
    unsigned id;  /* the caller's id */
    int strand;   /* +1, or -1: the reverse complement of the caller's pattern */
    size_t m;     /* symbols */
    uint8_t (*sets)[32];    /* approximate search with indels: the symbol sets the best
                               start is searched with ... */
    uint8_t (*rc_sets)[32]; /* ... and its reverse complement's, searched in the same pass */
};

/* An engine: one kernel launch over a group of patterns, slots [first, first + count). Its
 * kernel gets `first` as its info argument: matches carry first + the pattern's place in the
 * group, and its counters are those of slot `first` (cl/kernels.cl). */
struct clm_engine {
    unsigned first, count;
    size_t min_m;     /* its shortest pattern: a slab shorter than that holds no match */
    struct clm_kernel_shape shape;
    cl_program program;
    cl_mem pat_buf;   /* pattern bytes (naive, kmp, bmh, witness) or class map (dfa, bitap) */
    cl_mem tab_buf;   /* fail table, transitions, masks, shifts or witnesses */
    char options[512];
    int cache_hit;
};

/* Enqueue engine en's kernel k (clm_find or clm_count of its program, CLM_ARG_TEXT already
 * set) over match starts [first, end) of a text of n bytes: every other argument set, the
 * work-groups sized as its shape says; the counters zeroed by the caller. ev may be NULL. */
cl_int clm_engine_enqueue(const clm_device *dev, const struct clm_engine *en, cl_kernel k,
                          cl_command_queue q, size_t n, size_t first, size_t end,
                          cl_mem counter, cl_mem out, size_t cap, cl_event *ev);

struct clm_database {
    clm_device *dev;
    clm_algorithm algorithm;
    clm_table_memory table_memory;
    clm_variant variant;
    unsigned flags;
    unsigned k;       /* max_errors */
    unsigned exact_head, exact_tail; /* symbols at each end that must match (k > 0) */
    int ends;         /* kernels report exclusive ends (bitap), not starts */
    int packed;       /* the slab is packed on the device before the search (CLM_DNA) */
    int one_pass;     /* CLM_BOTH_STRANDS in each engine's pass (strand in bit 31 of info) */
    unsigned pack_case; /* 0 ACGT, 1 acgt, 2 both (caseless) */
    int indels;       /* approximate with insertions/deletions: starts found on the host */
    size_t lead;      /* bytes every slab keeps before its owned range */
    unsigned caller_count; /* patterns as compiled by the caller */
    unsigned slots;   /* patterns searched: the caller's, then (both strands in two passes)
                         their reverse complements */
    struct clm_pattern *pats;
    unsigned *rank;   /* [2 * slot + (strand bit)]: place in report order (id, strand,
                         length), for sorting exact matches */
    unsigned *unrank; /* inverse of rank */
    size_t min_len, max_len; /* symbols */
    size_t min_match;        /* shortest text a match can cover */
    char choice[256];
    unsigned engine_count;
    struct clm_engine *engines;
    double compile_seconds; /* clm_compile's time */
    uint64_t serial;  /* unique among the databases of the process (live list) */
    struct clm_database *live_next;
};

/* 1 when db is a database clm_compile returned and clm_database_free has not freed, with
 * this serial (0: any); a freed db is never read. */
int clm_database_live(const clm_database *db, uint64_t serial);

/* ---- string columns and LIKE (column.c, like.c, records.c) --------------------------- */

/* A string column (clmatch.h): rows + 1 offsets into the bytes, optional validity. A host
 * column refers to the caller's memory; a resident one holds device buffers: the offsets
 * as given, the bytes from the first offset on (dev_base: the offset at data_buf's byte 0)
 * and the validity bytes from the one holding row 0's bit (dev_vbit: its bit there). */
struct clm_column {
    uint64_t rows, nulls;
    uint64_t bytes;               /* of the rows: last offset - first offset */
    unsigned offset_bits;
    const void *offsets;          /* host: rows + 1 entries */
    const unsigned char *data;    /* host */
    const uint8_t *validity;      /* host; NULL: no NULL */
    uint64_t validity_bit;
    void *owned;                  /* host: offsets and bytes the column made itself (an
                                     Arrow string view gathered), freed with it */
    clm_device *dev;              /* resident: the device holding the buffers */
    cl_mem off_buf, data_buf, valid_buf; /* valid_buf NULL: no NULL */
    uint64_t dev_base, dev_vbit;
    unsigned pivot;               /* resident, pivoted (clm_column_pivot): the piece width;
                                     data_buf is cl/contract.h's CLM_PIVOT_* layout */
    unsigned self_segs, self_len; /* self-pivoted (clm_column_self_pivot): segments a chunk
                                     and bytes a segment; 0: not */
};
/* Offset i of a column's offsets (32- or 64-bit). */
uint64_t clm_column_offset(const struct clm_column *col, uint64_t i);

/* The clm_selection fields of version 1 (records.c, like_set.c). */
#define CLM_SELECTION_V1 CLM_SIZE_THROUGH(clm_selection, data_path_used)

/* A compiled LIKE disjunction: its program (cl/contract.h CLM_LIKE_*) on the host and on
 * its device. */
struct clm_like {
    clm_device *dev;
    uint32_t *prog;
    size_t prog_words;
    unsigned count;
    cl_mem prog_buf;
    /* CLM_ROWS_FILTER (records.c): each pattern's longest run of literal bytes (its
     * symbols' first word in prog and length; filterable 0 when a pattern has none or the
     * predicate mixes NOT LIKE with others), searched by `anchors`, a database compiled at
     * the first filtered select under anchor_lock (anchor_rc its outcome) */
    int filterable, anchor_caseless;
    int approx; /* a pattern is approximate (clm_approx_compile): a work-item per row */
    unsigned block; /* the anchors' matches mark blocks of this many bytes (contract.h) */
    uint32_t *anchor_at, *anchor_len;
    pthread_mutex_t anchor_lock;
    int anchor_tried, anchor_rc;
    clm_database *anchors;
    /* CLM_ROWS_AUTOMATON (like.c): when every pattern is a contains ('%literal%'), all LIKE
     * or all ILIKE, the class map and Aho-Corasick automaton of their literals
     * (cl/contract.h CLM_LIKE_AHO_ARG_LIST), aho_words the automaton's; else NULL */
    cl_mem aho_buf;
    uint32_t aho_words;
};
/* clm_compile for the anchors of LIKE's filter: engines whose matches set a bit per block
 * of `block` bytes (cl/common.cl EMIT_BLOCKS) instead of being appended. */
int clm_compile_blocks(clm_device *dev, const char *const *patterns, const size_t *lengths,
                       unsigned count, const clm_compile_options *opts, unsigned block,
                       clm_database **out);
/* A predicate over prog's `words` words (cl/contract.h CLM_LIKE_*) of `count` patterns,
 * its anchors found and prog sent to dev. Takes prog (freed on failure too). */
int clm_like_new(clm_device *dev, uint32_t *prog, size_t words, unsigned count,
                 clm_like **out);
/* The anchors' database of a filterable predicate, compiled once (thread-safe). */
int clm_like_anchors(const struct clm_like *like, const clm_database **db);

#endif
