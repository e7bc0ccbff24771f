/*
 * clmatch — portable OpenCL string matching.
 *
 * The whole public API of libclmatch. The path of one search:
 *
 *     clm_device *dev;   clm_device_open(-1, -1, &dev);          // auto: a GPU, else a CPU
 *     clm_database *db;  clm_compile(dev, pats, lens, NULL, 1, NULL, &db);
 *     clm_scratch *s;    clm_scratch_alloc(db, NULL, &s);
 *     clm_scan(db, s, text, len, on_match, ctx);                  // matches in text order
 *     clm_scratch_free(s); clm_database_free(db); clm_device_close(dev);
 *
 * Conventions
 *  - Every function that can fail returns an int status: CLM_OK (0) on success, a negative
 *    CLM_E_* code on error, and CLM_STOPPED (1) when a match callback asked to stop.
 *    clm_strerror() names a status; clm_last_error() gives the detail of the most recent
 *    failure in the calling thread (which index was out of range and what exists, the
 *    OpenCL build log of a failed kernel build, ...).
 *  - The library never prints and never exits.
 *  - A database is immutable once compiled and may be shared by threads. A scratch (device
 *    buffers, queues, kernels) belongs to one database and serves one call at a time: a
 *    scan, count or stream call on a scratch (or its stream) while another call on it runs,
 *    in a second thread or from that call's own match callback, returns CLM_E_BUSY and
 *    leaves the running call undisturbed. A callback may scan with another scratch.
 *  - A scratch whose database was freed, or passed with another database than its own, is
 *    CLM_E_INVALID in every call that searches (the freed database is never read); it can
 *    still be inspected and freed.
 *  - Offsets are 0-based byte offsets from the start of the scanned input; a match covers
 *    [start, end). Every occurrence is reported, overlapping ones included, each exactly once.
 *  - Public structs grow only at their end, and the size the caller compiled travels with
 *    them, so a program built against an older clmatch.h keeps working with a newer
 *    library, and one built against a newer clmatch.h gets defaults or a clear error from an
 *    older library:
 *    - structs the library fills (clm_device_info, clm_tuning, clm_database_info,
 *      clm_scratch_info, clm_stats) are passed with the caller's sizeof: the library fills
 *      the fields both know and zeroes the rest (a field it does not know reads 0), e.g.
 *      clm_database_get_info(db, &info, sizeof info);
 *    - option structs (clm_compile_options, clm_scratch_options) begin with `size`, which
 *      their init function sets together with the defaults: clm_compile_options_init(&opts,
 *      sizeof opts), then set fields. The library reads the fields within that size; fields
 *      added later default to 0. NULL options are the defaults. A zeroed struct is not
 *      enough: its size 0 cannot say which clmatch.h it was built against;
 *    - CLM_E_INVALID, the detail naming the struct, for a size below the struct's first
 *      version, options whose size is 0 (not initialised), and options that set a field past
 *      what the library knows (built against a newer clmatch.h).
 *
 * Environment variables read by the library: CLMATCH_* (the device, the program cache, the
 * kernel sources, the tuning, DNA packing, the defaults of new scratches), and
 * XDG_CACHE_HOME, XDG_CONFIG_HOME and HOME for where the cache and the tuning profiles live.
 * Each one, what it takes and what a bad value does: docs/library.md, "Environment".
 */
#ifndef CLMATCH_H
#define CLMATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions of this header: the library is built with -fvisibility=hidden, so these
 * are the only symbols libclmatch.so exports. */
#if defined(__GNUC__) || defined(__clang__)
#define CLM_API __attribute__((visibility("default")))
#else
#define CLM_API
#endif

#define CLM_VERSION_MAJOR 0
#define CLM_VERSION_MINOR 1
#define CLM_VERSION_PATCH 0

/** Version string of the library, e.g. "0.1.0". */
CLM_API const char *clm_version(void);

/* ------------------------------------------------------------------------------------------ */
/* Status codes                                                                               */
/* ------------------------------------------------------------------------------------------ */

enum {
    CLM_OK = 0,                  /**< success */
    CLM_STOPPED = 1,             /**< a match callback returned non-zero; the scan stopped early */
    CLM_E_INVALID = -1,          /**< NULL pointer, bad option value or misuse of an object */
    CLM_E_NOMEM = -2,            /**< host memory allocation failed */
    CLM_E_NO_PLATFORM = -3,      /**< no OpenCL platform is installed (detail says how to add one) */
    CLM_E_PLATFORM_INDEX = -4,   /**< platform index out of range (detail lists what exists) */
    CLM_E_DEVICE_INDEX = -5,     /**< device index out of range (detail lists what exists) */
    CLM_E_NO_DEVICE = -6,        /**< no usable OpenCL device */
    CLM_E_EMPTY_PATTERN = -7,    /**< a pattern has length 0 */
    CLM_E_PATTERN_TOO_LONG = -8, /**< a pattern exceeds CLM_MAX_PATTERN_LENGTH */
    CLM_E_UNSUPPORTED = -9,      /**< algorithm / table memory cannot serve this pattern on this
                                      device (e.g. table larger than local memory); detail says
                                      why and what would work */
    CLM_E_BUILD = -10,           /**< OpenCL kernel build failed; detail holds the build log */
    CLM_E_DEVICE_MEMORY = -11,   /**< device memory allocation failed (out of device memory) */
    CLM_E_OPENCL = -12,          /**< any other OpenCL runtime error; detail names the call */
    CLM_E_IO = -13,              /**< a file could not be read or written (kernel dir, cache,
                                      clm_scan_fd input); detail has the errno text */
    CLM_E_PATTERN_SYNTAX = -14,  /**< malformed pattern with CLM_CLASSES (e.g. "[AC") or
                                      CLM_DNA, or a LIKE pattern ending with its escape; detail
                                      names the pattern and the byte offset */
    CLM_E_BUSY = -15             /**< the scratch is in use by another call: a second thread,
                                      or a call from its own match callback (detail names the
                                      function and which); the running call is not disturbed */
};

/** Short English text for a status code (never NULL). */
CLM_API const char *clm_strerror(int status);

/**
 * Detail of the most recent failure in the calling thread: a message naming what failed,
 * followed for CLM_E_BUILD by the OpenCL build log. "" when nothing failed yet. The pointer
 * stays valid until the next clmatch call in this thread.
 */
CLM_API const char *clm_last_error(void);

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef enum {
    CLM_DEVICE_OTHER = 0,
    CLM_DEVICE_CPU = 1,
    CLM_DEVICE_GPU = 2,
    CLM_DEVICE_ACCELERATOR = 3
} clm_device_type;

/** What one OpenCL device is and can do. Strings are NUL-terminated (truncated if longer). */
typedef struct clm_device_info {
    int platform_index;            /**< index as used by clm_device_open */
    int device_index;              /**< index within its platform */
    char platform_name[128];
    char platform_vendor[128];
    char platform_version[128];
    char name[256];
    char vendor[128];
    char version[128];             /**< CL_DEVICE_VERSION, e.g. "OpenCL 3.0 CUDA" */
    char driver_version[128];
    char opencl_c_version[128];
    clm_device_type type;
    unsigned compute_units;
    unsigned max_clock_mhz;
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;
    uint64_t local_mem_bytes;
    int local_mem_dedicated;       /**< 1 when local memory is on-chip (CL_LOCAL), 0 if emulated */
    uint64_t constant_mem_bytes;   /**< CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE */
    size_t max_work_group_size;
    size_t preferred_work_group_multiple; /**< from a probe kernel; 0 if not probed */
    int host_unified_memory;       /**< CL_DEVICE_HOST_UNIFIED_MEMORY (1.x query; 0 if unknown) */
    uint64_t svm_capabilities;     /**< CL_DEVICE_SVM_CAPABILITIES bits; 0 before OpenCL 2.0 */
    unsigned mem_base_align_bits;  /**< CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    int available;                 /**< CL_DEVICE_AVAILABLE */
    char extensions[4096];
    /* Where clm_device_open's time went, in seconds (0 in clm_list_devices entries): */
    double open_platforms_seconds; /**< clGetPlatformIDs: on a process's first call the ICD
                                        loader loads every installed OpenCL driver */
    double open_devices_seconds;   /**< choosing the device, querying it, its tuning */
    double open_context_seconds;   /**< clCreateContext */
} clm_device_info;

/** Flags for clm_list_devices. */
#define CLM_LIST_PROBE 1u  /**< build a tiny kernel on each device to fill
                                preferred_work_group_multiple (slower: one build per device) */

/**
 * List every device of every platform, in platform then device order.
 * On success *out is an array of *count entries of info_size bytes each (sizeof
 * (clm_device_info): see the Conventions) to release with clm_free_device_list().
 * Returns CLM_E_NO_PLATFORM when no OpenCL platform is installed.
 */
CLM_API int clm_list_devices(unsigned flags, size_t info_size, clm_device_info **out,
                             size_t *count);
CLM_API void clm_free_device_list(clm_device_info *list);

typedef struct clm_device clm_device;

/**
 * Open a device: create its context and queues.
 * platform_index, device_index: indices as listed by clm_list_devices(). Pass -1 for both to
 * choose automatically: the CLMATCH_PLATFORM / CLMATCH_DEVICE environment variables when set,
 * else the first GPU of any platform, else the first CPU device, else the first device.
 * A platform index with device_index -1 takes that platform's first device.
 * The device's tuning is resolved here (see "Tuning" below; clm_device_get_tuning).
 * Errors: CLM_E_NO_PLATFORM, CLM_E_PLATFORM_INDEX, CLM_E_DEVICE_INDEX (clm_last_error() lists
 * what exists), CLM_E_NO_DEVICE, CLM_E_OPENCL, CLM_E_NOMEM, CLM_E_INVALID (out NULL, index < -1,
 * a bad CLMATCH_TUNE item: the detail names it).
 */
CLM_API int clm_device_open(int platform_index, int device_index, clm_device **out);

/** Describe an open device (copies into *info, of size bytes: sizeof *info). */
CLM_API int clm_device_get_info(const clm_device *dev, clm_device_info *info, size_t size);

/** Release an open device. Databases compiled for it must be freed first. NULL is ignored. */
CLM_API void clm_device_close(clm_device *dev);

/* ------------------------------------------------------------------------------------------ */
/* Compiling patterns                                                                         */
/* ------------------------------------------------------------------------------------------ */

/** Longest pattern accepted, in bytes. */
#define CLM_MAX_PATTERN_LENGTH 65535u

typedef enum {
    CLM_ALGO_AUTO = 0,    /**< chosen from pattern length, alphabet, classes, errors and device
                               type (the table is in the README; clm_database_info says what
                               was chosen and why) */
    CLM_ALGO_NAIVE = 1,   /**< brute force: every start position compared */
    CLM_ALGO_KMP = 2,     /**< Knuth-Morris-Pratt with a fail table */
    CLM_ALGO_DFA = 3,     /**< KMP automaton over the pattern's reduced alphabet */
    CLM_ALGO_BITAP = 4,   /**< shift-and bit-parallel automaton; the algorithm for character
                               classes and for approximate matching with insertions and
                               deletions; patterns up to CLM_BITAP_MAX_LENGTH symbols */
    CLM_ALGO_BMH = 5,     /**< Boyer-Moore-Horspool, bad-character shifts */
    CLM_ALGO_WITNESS = 6, /**< Vishkin witness/duel elimination, then verification; for long
                               patterns. A pattern of period p <= m/2 duels in blocks of p
                               positions, so very short periods approach brute force. */
    CLM_ALGO_AHO = 7,     /**< Aho-Corasick automaton over every pattern of the database at
                               once (exact search): one pass over the text for any number of
                               patterns. A pattern with classes or degenerate IUPAC codes
                               enters as every literal variant it stands for; past 4 MiB of
                               variants in all the compile fails (CLM_E_UNSUPPORTED) */
    CLM_ALGO_HAMMING = 8, /**< many patterns with mismatches in one pass: every pattern of the
                               database compared at every start, symbols as one-hot nibbles
                               (patterns over at most 4 byte classes, such as DNA bases with
                               IUPAC codes), Hamming distance (CLM_MISMATCHES_ONLY) up to
                               CLM_HAMMING_MAX_ERRORS, patterns up to CLM_HAMMING_MAX_LENGTH
                               symbols */
    CLM_ALGO_SIMD = 9,    /**< literal patterns, exact search, on CPUs: 64 starts a step
                               compared with a few of the pattern's rarest bytes as 16-byte
                               vectors, then the candidates verified (W. Mula's SIMD-friendly
                               substring search); patterns up to CLM_SIMD_MAX_LENGTH bytes */
    CLM_ALGO_KMER = 10    /**< many literal patterns in one pass, filter and verify: a q-gram
                               (q <= 16) sampled every s bytes, s + q - 1 the shortest
                               pattern, tested against a filter of the patterns' q-grams, the
                               patterns listed under a q-gram that passes compared. Made for
                               DNA (2 bits a byte); any bytes are searched correctly, those
                               that share their bits 1-2 only more slowly */
} clm_algorithm;

/** CLM_ALGO_HAMMING's limits: mismatches and pattern length. */
#define CLM_HAMMING_MAX_ERRORS 8u
#define CLM_HAMMING_MAX_LENGTH 64u
/** CLM_ALGO_SIMD's longest pattern, in bytes. */
#define CLM_SIMD_MAX_LENGTH 256u

/** Kernel variant (only bitap has more than one). */
typedef enum {
    CLM_VARIANT_AUTO = 0,     /**< chosen by algorithm and device */
    CLM_VARIANT_ITEM = 1,     /**< each work-item scans its own range of text */
    CLM_VARIANT_REDUCE = 2,   /**< bitap: one byte per work-item; neighbours' masks combined by
                                   a parallel prefix in local memory; exact search
                                   (max_errors 0), patterns up to 64 symbols */
    CLM_VARIANT_SUBGROUP = 3  /**< reserved: REDUCE through sub-group shuffles. Not
                                   implemented: always CLM_E_UNSUPPORTED (docs/design.md says
                                   why) */
} clm_variant;

/** Longest bitap pattern, in symbols (a class counts as one symbol). */
#define CLM_BITAP_MAX_LENGTH 256u
/** Most edits an approximate search allows. */
#define CLM_MAX_ERRORS 16u

/** Where a kernel keeps its tables (pattern, fail table, DFA table). */
typedef enum {
    CLM_TABLE_AUTO = 0,     /**< chosen by size and device */
    CLM_TABLE_GLOBAL = 1,   /**< read from global memory (any size) */
    CLM_TABLE_LOCAL = 2,    /**< copied into local memory per work-group */
    CLM_TABLE_CONSTANT = 3  /**< constant memory (size ≤ CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) */
} clm_table_memory;

/** Compile flags. */
#define CLM_CASELESS 1u  /**< ASCII case-insensitive ('a' matches 'A'), through the tables */
/** Patterns use class syntax (else every byte is literal):
 *    .          any byte
 *    [ACGT]     one of the bytes listed; ranges [a-z0-9]; [^...] any byte not listed;
 *               inside brackets \ escapes the next byte (\], \-, \\) and \d \w \s work
 *    \d \w \s   digit [0-9], word byte [A-Za-z0-9_], white space [ \t\n\v\f\r];
 *    \D \W \S   their complements
 *    \n \t \r   newline, tab, carriage return
 *    \X         any other escaped byte X stands for itself (\. \\ \[ \])
 *  Each class is one symbol of the pattern. Only bitap searches classes. */
#define CLM_CLASSES 2u
/** With max_errors > 0: count substitutions only (Hamming distance), no insertions or
 *  deletions; a match then always has the pattern's length. */
#define CLM_MISMATCHES_ONLY 4u
/** DNA patterns: every pattern byte is an IUPAC nucleotide code, A C G T U R Y S W K M B D H
 *  V N in either case (U = T); any other byte is CLM_E_PATTERN_SYNTAX (detail names it and
 *  its offset). A code stands for its set of bases in its own case (R = [AG], r = [ag],
 *  N = [ACGT]); with CLM_CASELESS both cases. A text byte matches a code when it is one of
 *  those bases, so N, other IUPAC codes and anything else in the text never match (as
 *  `seqkit locate -d`), unless CLM_DEGENERATE_TEXT. Works with exact, CLM_MISMATCHES_ONLY
 *  and edit-distance search; patterns of plain bases run on every algorithm, patterns with
 *  degenerate codes on those that search classes (bitap, hamming, and aho, which enters
 *  each pattern as the literal variants its codes stand for, up to a limit). Not with
 *  CLM_CLASSES.
 *  The text is plain bytes (a FASTA record's sequence without its line breaks). Where every
 *  pattern symbol is a subset of A C G T (of one case, or any case with CLM_CASELESS) the
 *  scan may pack the text to 2 bits per base on the device (clm_database_info.packed):
 *  the results are the same. */
#define CLM_DNA 8u
/** With CLM_DNA: an IUPAC code in the text matches a pattern code when their base sets
 *  intersect (text N matches every base, text R matches A, G, R, N, ...). */
#define CLM_DEGENERATE_TEXT 16u
/** With CLM_DNA: also search the reverse complement of every pattern (A<->T, C<->G, R<->Y,
 *  K<->M, B<->V, D<->H; S W N unchanged), in the same pass where the algorithm allows it
 *  (bitap item: clm_database_info.strands_in_one_pass; the others run a second pass).
 *  Its matches carry the pattern's id and strand -1. A pattern equal to its own reverse
 *  complement (GAATTC) matches on both strands: two matches. */
#define CLM_BOTH_STRANDS 32u
/** Lines (grep's line modes: which lines have a match, not where each match is): a search
 *  may leave out a match that starts on a line (lines end at '\n' or a NUL byte) where it
 *  has reported another that starts there; a match that holds a line end is always
 *  reported. So every line where a match starts has one reported, and every match reported
 *  is one. Aho-Corasick then reports about one a line and work-item (dense matches, such as
 *  10 000 English words, no longer all go back to the host); the other algorithms report
 *  every match. clm_count and count-only streams count every match. Not with CLM_DNA. (8192:
 *  the bits 64 to 4096 were switches that are now fields of clm_compile_options.) */
#define CLM_LINES 8192u
/** The largest work-group of a prefetching staged kernel (clm_compile_options.prefetch) whose
 *  size the options leave open: the registers each work-item holds limit it. */
#define CLM_PREFETCH_WG_MAX 128u

/** A performance switch of clm_compile_options: left to the library, or forced. */
typedef enum {
    CLM_AUTO = 0, /**< the device's tuning decides (for packing: the environment) */
    CLM_ON = 1,   /**< on where it applies */
    CLM_OFF = 2   /**< off */
} clm_switch;

typedef struct clm_compile_options {
    size_t size;                   /**< sizeof (clm_compile_options), set by
                                        clm_compile_options_init */
    clm_algorithm algorithm;       /**< default CLM_ALGO_AUTO */
    clm_table_memory table_memory; /**< default CLM_TABLE_AUTO */
    unsigned flags;                /**< what is searched for: CLM_CASELESS, CLM_CLASSES,
                                        CLM_MISMATCHES_ONLY, CLM_DNA, CLM_DEGENERATE_TEXT,
                                        CLM_BOTH_STRANDS, CLM_LINES; another bit is
                                        CLM_E_INVALID */
    unsigned work_group_size;      /**< 0: the device's tuning (clm_device_get_tuning) */
    unsigned bytes_per_item;       /**< bytes of text each work-item owns; 0: the device's
                                        tuning. Rounded up to a multiple of 16. */
    unsigned max_errors;           /**< approximate search: up to this many edits (0: exact;
                                        at most CLM_MAX_ERRORS and less than the pattern
                                        length). Semantics at clm_match. */
    clm_variant variant;           /**< default CLM_VARIANT_AUTO */
    unsigned vector_width;         /**< bytes per load of the unstaged range reads: 4, 8 or
                                        16; 0: the device's tuning (key vec) */
    unsigned groups_per_unit;      /**< staged kernels: work-groups per compute unit (1 to
                                        1024); 0: the device's tuning (key groups) */
    clm_switch staging;            /**< CLM_ON: stage the text through local memory where
                                        the kernel can (exact dfa and one-word bitap with
                                        tables in local memory: clm_database_info.staged);
                                        on a device without on-chip local memory those two's
                                        automatic tables then go local (as with the tuning's
                                        stage=on). CLM_OFF: never. CLM_AUTO: the tuning's
                                        stage */
    clm_switch prefetch;           /**< CLM_ON: staged kernels load their group's next region
                                        into registers while they walk this one, where a
                                        work-item's chunk is at most 128 bytes
                                        (clm_database_info.prefetch); their work-group is
                                        then at most CLM_PREFETCH_WG_MAX unless
                                        work_group_size sets it. CLM_OFF: never. CLM_AUTO:
                                        the tuning's prefetch */
    clm_switch packing;            /**< CLM_DNA only (else CLM_E_INVALID): pack the text to 2
                                        bits per base (plus a validity bit) on the device
                                        where every pattern symbol allows it, dfa and bitap
                                        item only (clm_database_info.packed); the results
                                        are the same. CLM_AUTO: off (docs/dna.md says why),
                                        unless CLMATCH_PACKED=on; CLMATCH_PACKED=off wins
                                        over CLM_ON, CLM_OFF over both */
    int wg_as_tuning;              /**< 1: work_group_size is taken as a tuning value would
                                        be: halved where too large for a staged kernel's
                                        region, capped at CLM_PREFETCH_WG_MAX where the
                                        kernel prefetches (0: a size the options set is
                                        kept, or the kernel does not stage). For
                                        clmatch-tune, which times the shapes its profile
                                        will give */
    unsigned exact_head;           /**< approximate search with CLM_MISMATCHES_ONLY: the first
                                        exact_head and the last exact_tail symbols of every
                                        pattern must match, the mismatches are counted in the
                                        rest (a CRISPR PAM: exact_tail 3 for guide+NGG). A
                                        reverse complement (CLM_BOTH_STRANDS) has them at its
                                        other ends. Only CLM_ALGO_HAMMING can (auto takes it
                                        when the patterns allow); together less than the
                                        shortest pattern. 0, 0: none */
    unsigned exact_tail;
} clm_compile_options;

/** Fill *opts (of size bytes: sizeof *opts) with its size and the defaults. Call it before
 *  setting fields. Errors: CLM_E_INVALID (NULL, a size below the first version's). */
CLM_API int clm_compile_options_init(clm_compile_options *opts, size_t size);

/** Name of an algorithm ("auto", "naive", "kmp", "dfa", "bitap", "bmh", "witness", "aho",
 *  "hamming", "simd");
 *  "?" if unknown. */
CLM_API const char *clm_algorithm_name(clm_algorithm algorithm);
/** Parse an algorithm name; returns CLM_E_INVALID if unknown. */
CLM_API int clm_algorithm_from_name(const char *name, clm_algorithm *out);
/** The number of clm_algorithm values, CLM_ALGO_AUTO included: their names are
 *  clm_algorithm_name(0) ... clm_algorithm_name(clm_algorithm_count() - 1). */
CLM_API unsigned clm_algorithm_count(void);
/** The variants an algorithm has: bit (1u << v) set for each clm_variant v it takes.
 *  CLM_VARIANT_ITEM for every algorithm, CLM_VARIANT_REDUCE and the reserved
 *  CLM_VARIANT_SUBGROUP for those with a reduce kernel (bitap); 0 for auto and unknown
 *  values. */
CLM_API unsigned clm_algorithm_variants(clm_algorithm algorithm);
/** Name of a table memory ("auto", "global", "local", "constant"); "?" if unknown. */
CLM_API const char *clm_table_memory_name(clm_table_memory mem);
/** Parse a table memory name; returns CLM_E_INVALID if unknown. */
CLM_API int clm_table_memory_from_name(const char *name, clm_table_memory *out);
/** Name of a variant ("auto", "item", "reduce", "subgroup"); "?" if unknown. */
CLM_API const char *clm_variant_name(clm_variant variant);
/** Parse a variant name; returns CLM_E_INVALID if unknown. */
CLM_API int clm_variant_from_name(const char *name, clm_variant *out);

typedef struct clm_database clm_database;

/**
 * Compile patterns into an immutable database for one device.
 * patterns[i] points at lengths[i] bytes (any bytes, NUL included); lengths may be NULL for
 * NUL-terminated strings. ids may be NULL (pattern i then reports id i). opts may be NULL for
 * the defaults, else filled by clm_compile_options_init first. Several patterns are searched
 * over one upload of the text: each algorithm's engines search a group of them per kernel
 * launch (groups of one today; a pattern table maps each match to its id).
 * Errors: CLM_E_INVALID (NULL, count 0, max_errors >= the pattern length or above
 * CLM_MAX_ERRORS), CLM_E_EMPTY_PATTERN, CLM_E_PATTERN_SYNTAX, CLM_E_PATTERN_TOO_LONG (beyond
 * CLM_MAX_PATTERN_LENGTH, or beyond what the chosen algorithm handles: detail names the limit
 * and an algorithm that works), CLM_E_UNSUPPORTED (classes or errors with an algorithm that
 * cannot do them, a table that does not fit, a variant the device lacks: detail names what
 * works), CLM_E_BUILD (detail holds the build log), CLM_E_DEVICE_MEMORY, CLM_E_OPENCL,
 * CLM_E_NOMEM.
 */
CLM_API int clm_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                        const unsigned *ids, unsigned count, const clm_compile_options *opts,
                        clm_database **out);

/** What a compiled database ended up as (the choices auto made). */
typedef struct clm_database_info {
    clm_algorithm algorithm;       /**< never CLM_ALGO_AUTO */
    clm_table_memory table_memory; /**< never CLM_TABLE_AUTO */
    clm_variant variant;           /**< never CLM_VARIANT_AUTO */
    unsigned max_errors;
    unsigned flags;
    unsigned pattern_count;
    size_t min_length, max_length; /**< shortest and longest pattern, in symbols */
    unsigned work_group_size;
    unsigned bytes_per_item;
    char build_options[512];       /**< the macros of the first pattern's kernel build */
    int cache_hit;                 /**< 1 when every program came from the memory/disk cache */
    char choice[256];              /**< why this algorithm/variant/table memory (the automatic
                                        choice's rule, or "requested") */
    int packed;                    /**< 1: CLM_DNA text is packed to 2 bits per base on the
                                        device before the search */
    int strands_in_one_pass;       /**< 1: CLM_BOTH_STRANDS searches a pattern and its
                                        reverse complement in the same kernel pass */
    int staged;                    /**< 1: the first pattern's kernel stages whole
                                        work-group regions of text in local memory
                                        (exact dfa and bitap up to 64 symbols with tables
                                        in local memory, as the tuning's stage or
                                        clm_compile_options.staging ask) */
    unsigned vector_width;         /**< bytes per load of the first pattern's unstaged range
                                        reads (4, 8, 16); 0 where its kernel reads single
                                        bytes (naive, bmh, witness, bitap reduce, packed
                                        text, big-endian devices) */
    int prefetch;                  /**< 1: the first pattern's staged kernel loads the next
                                        region into registers during a walk */
    unsigned groups_per_unit;      /**< staged: work-groups launched per compute unit (0 when
                                        not staged) */
    unsigned engines;              /**< kernel launches per slab: groups of patterns searched
                                        together (aho: one for the whole set) */
    uint64_t table_bytes;          /**< device memory of every engine's pattern tables */
    uint64_t local_table_bytes;    /**< local memory a work-group fills with tables (the
                                        largest engine's): all of them (table memory local),
                                        or the head of a table too large for it (aho) */
    double compile_seconds;        /**< clm_compile's time: parsing, planning, the kernels
                                        (built or from the cache) and the tables */
} clm_database_info;

/** What db ended up as (copies into *info, of size bytes: sizeof *info). */
CLM_API int clm_database_get_info(const clm_database *db, clm_database_info *info, size_t size);

/** Release a database. NULL, and a database already freed, are ignored. Its scratches
 *  should be freed first; those still alive afterwards refuse scans (CLM_E_INVALID) and can
 *  only be inspected and freed. Not while a call with one of its scratches runs. */
CLM_API void clm_database_free(clm_database *db);

/* ------------------------------------------------------------------------------------------ */
/* Tuning                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/*
 * The kernel shape a database gets when clm_compile_options leaves it open (work_group_size,
 * bytes_per_item, vector_width and groups_per_unit 0, staging and prefetch CLM_AUTO) and the
 * default slab of new scratches are the device's tuning, resolved by clm_device_open from
 * these sources, each overriding the one before:
 *   1. generic defaults;
 *   2. a built-in row chosen by the device's vendor and type, capped to its limits;
 *   3. the device's profile file, written by clmatch-tune (clm_tuning.profile_path). A profile
 *      measured on another device or driver, with a bad line, or that is no regular file (a
 *      FIFO, a directory: not read, so it cannot hang the open), is not used: the device
 *      still opens, and clm_tuning.profile_warning says which file, which line and what is
 *      wrong;
 *   4. CLMATCH_STAGING=on|off: a global stage item (a bad value: CLM_E_INVALID);
 *   5. CLMATCH_TUNE, e.g. "wg=128,chunk=512,dfa.chunk=1024,bitap.stage=on"; a bad item makes
 *      clm_device_open fail with CLM_E_INVALID, naming it.
 * Those compile options, when set, win over all of them; clm_scratch_options.slab_bytes and
 * CLMATCH_SLAB_BYTES win over the slab.
 *
 * Keys (CLMATCH_TUNE items and profile lines "key = value"; numbers may end in K, M or G):
 *   wg        work-group size: a power of two or a multiple of 16, at most the device's
 *   chunk     bytes of text per work-item: a multiple of 16, at most 1M
 *   slab      default slab bytes: a multiple of 4K, at most CLM_MAX_SLAB_BYTES and the
 *             device's largest allocation
 *   stage     on or off (1 or 0): as clm_compile_options.staging
 *   vec       4, 8 or 16: as clm_compile_options.vector_width
 *   groups    1 to 1024: as clm_compile_options.groups_per_unit
 *   prefetch  on or off: as clm_compile_options.prefetch
 *   speed     bytes per second: the device's share of an input in a device set (no built-in
 *             value; clmatch-tune measures it with clm_device_set_calibrate)
 *   ALGO.key  the key for one algorithm only (naive, kmp, dfa, bitap, bmh, witness), e.g.
 *             dfa.chunk=1024; a source that sets a key globally replaces the per-algorithm
 *             values of that key from the sources below it.
 * The built-in rows, what each key changes in the kernels, the profile format and the
 * measurements behind the defaults: docs/tuning.md.
 */

/** Where a tuning value came from, lowest to highest precedence. */
typedef enum {
    CLM_TUNING_DEFAULT = 0, /**< generic default (no built-in row names the device) */
    CLM_TUNING_BUILTIN = 1, /**< the built-in row for the device's vendor and type */
    CLM_TUNING_PROFILE = 2, /**< the device's profile file */
    CLM_TUNING_ENV = 3      /**< CLMATCH_TUNE (for stage also CLMATCH_STAGING) */
} clm_tuning_source;

/** A device's tuning as clm_device_open resolved it. */
typedef struct clm_tuning {
    unsigned work_group_size;     /**< key wg */
    unsigned bytes_per_item;      /**< key chunk */
    size_t slab_bytes;            /**< key slab */
    clm_tuning_source work_group_size_source, bytes_per_item_source, slab_bytes_source;
    char values[512];      /**< every value in force, in CLMATCH_TUNE syntax, e.g.
                                "wg=16,chunk=4096,slab=64M,stage=off,vec=16,dfa.chunk=1024" */
    char source[1280];     /**< the sources applied, e.g. "built-in PoCL CPU, profile
                                /home/u/.config/clmatch/profiles/X.profile, CLMATCH_STAGING,
                                CLMATCH_TUNE" */
    char builtin[64];      /**< the built-in row: "NVIDIA GPU", "PoCL CPU", "CPU", ...;
                                "generic" when none matched */
    char profile_path[1024]; /**< this device's profile file, whether it exists or not (where
                                  clmatch-tune writes); "" when there is no location (no
                                  HOME) */
    int profile_used;      /**< 1: profile_path was read and applied */
    char profile_warning[1024]; /**< why an existing profile was not used ("FILE line N:
                                     what"), "" otherwise; clmatch prints it on stderr. One
                                     line: bytes other than printable ASCII (and '\') are
                                     written \xNN (\\) */
    int stage;                  /**< key stage: 1 on, 0 off */
    unsigned vector_width;      /**< key vec: bytes per load, 4, 8 or 16 */
    clm_tuning_source stage_source, vector_width_source;
    unsigned groups_per_unit;   /**< key groups */
    int prefetch;               /**< key prefetch: 1 on, 0 off */
    clm_tuning_source groups_per_unit_source, prefetch_source;
    clm_algorithm algorithm;    /**< CLM_ALGO_AUTO: the device-wide values above (the keys
                                     without ALGO.); else the values this algorithm's kernels
                                     get: its own ALGO.key where a source set one, else the
                                     device-wide key, each with its source */
} clm_tuning;

/** The device-wide tuning of an open device (copies into *out, of size bytes: sizeof *out). */
CLM_API int clm_device_get_tuning(const clm_device *dev, clm_tuning *out, size_t size);

/**
 * The tuning one algorithm's kernels get on dev (clm_tuning.algorithm says which): the
 * numbers and their sources are its own; values, source and the profile fields are the
 * device's, as clm_device_get_tuning gives them. CLM_ALGO_AUTO: clm_device_get_tuning.
 * Errors: CLM_E_INVALID (NULL, an unknown algorithm, a bad size).
 */
CLM_API int clm_device_get_algorithm_tuning(const clm_device *dev, clm_algorithm algorithm,
                                            clm_tuning *out, size_t size);

/**
 * The text of a tuning profile for dev: the header line naming dev's name and driver
 * version, `comment` (may be NULL; each of its lines becomes a "# " line), then one
 * "key = value" line per item of `values` (CLMATCH_TUNE syntax, checked as CLMATCH_TUNE is
 * against this device). Errors: CLM_E_INVALID (a bad item, named; buf too small: the detail
 * says how many bytes are needed).
 */
CLM_API int clm_tuning_format_profile(const clm_device *dev, const char *values,
                                      const char *comment, char *buf, size_t cap);

/**
 * Write that profile to path (NULL: clm_tuning.profile_path, where clm_device_open looks),
 * creating its directory; the file is replaced atomically. Devices opened afterwards use it.
 * Errors: CLM_E_INVALID (as clm_tuning_format_profile; no path and no profile location),
 * CLM_E_IO (detail names the file and the reason).
 */
CLM_API int clm_tuning_write_profile(const clm_device *dev, const char *values,
                                     const char *comment, const char *path);

/* ------------------------------------------------------------------------------------------ */
/* Scanning                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * One occurrence: pattern `id` occurs at [start, end) of the input with `edits` edits.
 *
 * Exact search: every start where the pattern occurs; edits is 0.
 * Approximate search (max_errors k > 0): for each end position e where the pattern matches
 * some text ending at e with at most k edits (Levenshtein: insertions, deletions,
 * substitutions), one match with the smallest edit count d; its start is that of a best
 * alignment: among starts s with distance(pattern, text[s, e)) = d, the one whose length
 * e - s is closest to the pattern length, the earlier start on a tie. With
 * CLM_MISMATCHES_ONLY: every start where at most k bytes differ (Hamming distance); the
 * match has the pattern's length.
 */
typedef struct clm_match {
    uint64_t start;
    uint64_t end;
    unsigned id;
    unsigned edits;
    int strand; /**< +1; -1 for a match of the reverse complement (CLM_BOTH_STRANDS) */
} clm_match;

/**
 * Called once per occurrence, in text order: by start, then pattern id, then strand (+1
 * first), then end. Return 0 to go on, non-zero to stop the scan (the scan then returns
 * CLM_STOPPED).
 */
typedef int (*clm_match_cb)(const clm_match *match, void *ctx);

typedef struct clm_scratch clm_scratch;

/** Largest slab a scratch accepts (positions inside a slab are 32-bit on the device). */
#define CLM_MAX_SLAB_BYTES (1u << 30)
/** Most slots a scratch has (clm_scratch_options.slots): slabs in flight at once. */
#define CLM_MAX_SCRATCH_SLOTS 4

/** How the text gets from host memory to the kernels (clm_scratch_options.data_path). The
 *  results are the same on every path; only the speed differs. */
typedef enum {
    CLM_PATH_AUTO = 0,      /**< by device type (the table is in the README; the choice and why
                                 are in clm_scratch_info): GPU and accelerator -> pinned, CPU
                                 -> zero-copy, other -> copy. CLMATCH_DATA_PATH overrides it. */
    CLM_PATH_COPY = 1,      /**< clEnqueueWriteBuffer from the caller's (pageable) memory into a
                                 device buffer */
    CLM_PATH_PINNED = 2,    /**< the slab is copied (several threads for big slabs) into a
                                 mapped CL_MEM_ALLOC_HOST_PTR staging buffer, then written to
                                 the device buffer from there (pinned memory: the full bus
                                 speed on discrete GPUs) */
    CLM_PATH_ZERO_COPY = 3, /**< the kernels read host memory: a CL_MEM_ALLOC_HOST_PTR buffer
                                 the slab is copied into, or, on devices with unified host
                                 memory, the caller's memory itself (CL_MEM_USE_HOST_PTR) where
                                 a slab starts at CL_DEVICE_MEM_BASE_ADDR_ALIGN alignment: no
                                 copy at all */
    CLM_PATH_SVM = 4        /**< coarse-grained shared virtual memory (clSVMAlloc, OpenCL 2.0
                                 and CL_DEVICE_SVM_COARSE_GRAIN_BUFFER): the slab is copied in
                                 and the kernels read it through the SVM pointer. Devices
                                 without it give CLM_E_UNSUPPORTED. */
} clm_data_path;

/** Name of a data path ("auto", "copy", "pinned", "zero-copy", "svm"); "?" if unknown. */
CLM_API const char *clm_data_path_name(clm_data_path path);
/** Parse a data path name; returns CLM_E_INVALID if unknown. */
CLM_API int clm_data_path_from_name(const char *name, clm_data_path *out);

/** Most threads a scratch reads or copies one slab with (CLMATCH_IO_THREADS). */
#define CLM_MAX_IO_THREADS 64

/** Smallest slab a memory budget (clm_scratch_options.max_memory) may shrink the slab to. */
#define CLM_MIN_BUDGET_SLAB_BYTES ((size_t)1 << 20)

typedef struct clm_scratch_options {
    size_t size;        /**< sizeof (clm_scratch_options), set by clm_scratch_options_init */
    size_t slab_bytes;  /**< text per device transfer/launch; 0: default (CLMATCH_SLAB_BYTES,
                             else chosen from device memory). Inputs larger than a slab are
                             scanned slab by slab with an overlap of (longest pattern − 1).
                             Above CLM_MAX_SLAB_BYTES: CLM_E_INVALID; above what the device can
                             allocate: CLM_E_DEVICE_MEMORY. */
    size_t match_capacity; /**< initial size of the device match buffer, in matches; 0:
                                default. It grows (and the slab is rescanned) when full. */
    size_t match_capacity_limit; /**< the most it may grow to, in matches; 0: default (16 M,
                                      bounded by the device's largest allocation, and by
                                      max_memory when set). A range with more matches is
                                      split and rescanned in pieces. */
    clm_data_path data_path; /**< default CLM_PATH_AUTO (CLMATCH_DATA_PATH, else by device) */
    size_t max_memory;  /**< budget in bytes for the device buffers, the host staging of every
                             slot and the initial match buffers (clm_scratch_info.memory_bytes);
                             0: none. The slab shrinks to fit (never below
                             CLM_MIN_BUDGET_SLAB_BYTES, or the requested slab if smaller), the
                             initial match buffers take at most an eighth of it (less near the
                             minimum) and grow only within it. A budget below the minimum
                             (clm_scratch_info.min_memory) is CLM_E_INVALID, the detail naming
                             that minimum; every budget from it up works. Host arrays for
                             the matches of one slab (24 bytes per match) are not counted. */
    unsigned slots;     /**< slabs in flight at once, each with its own buffers and staging:
                             2 to CLM_MAX_SCRATCH_SLOTS, else CLM_E_INVALID; 0: default
                             (CLMATCH_SLOTS, else 2). More slots of a smaller slab take the
                             same memory and let a file read into a stream
                             (clm_stream_write_fd) run further ahead of the transfers. */
} clm_scratch_options;

/** Fill *opts (of size bytes: sizeof *opts) with its size and the defaults (every other field
 *  0). Call it before setting fields. Errors: CLM_E_INVALID (NULL, a size below the first
 *  version's). */
CLM_API int clm_scratch_options_init(clm_scratch_options *opts, size_t size);

/**
 * Allocate the per-caller state for scanning with db: the plan of its device buffers and
 * staging, and its kernels. The buffers of each slot (queue, text, staging, match buffer) are
 * allocated when a scan first uses the slot, sized to the slab at hand: a small input gets
 * small buffers and one slot, so a scan can fail with CLM_E_DEVICE_MEMORY where allocation
 * used to fail here (a slab above the device's largest allocation still fails here).
 * opts may be NULL for the defaults, else filled by clm_scratch_options_init first.
 * Errors: CLM_E_INVALID (a bad option, CLMATCH_DATA_PATH, CLMATCH_IO_THREADS or
 * CLMATCH_SLAB_BYTES value, a max_memory below the minimum), CLM_E_UNSUPPORTED (a data path
 * the device cannot do: detail names those it can), CLM_E_DEVICE_MEMORY, CLM_E_OPENCL,
 * CLM_E_NOMEM.
 */
CLM_API int clm_scratch_alloc(const clm_database *db, const clm_scratch_options *opts,
                              clm_scratch **out);

/** Allocate now the slot buffers (device text, host staging) that calls over `bytes` bytes
 *  of input would allocate on first use: SIZE_MAX (or a stream's input) takes whole slabs,
 *  as streams do. On a GPU pinned staging costs a good part of a second for 256 MiB slabs:
 *  done here while the caller reads its input, it no longer delays the first search. Later
 *  calls reuse the buffers (a larger input grows them as before; the copy path's heap
 *  staging of streams and fd scans, a malloc, still comes with them). Errors: as clm_scan's
 *  allocations (CLM_E_DEVICE_MEMORY, CLM_E_OPENCL, CLM_E_NOMEM), CLM_E_INVALID (NULL, a
 *  freed database, a stream open on the scratch), CLM_E_BUSY. */
CLM_API int clm_scratch_reserve(clm_scratch *scratch, size_t bytes);

/** Release a scratch (waits for its device work). NULL is ignored. It may follow the
 *  clm_database_free of its database (the database is not read); not from a match callback
 *  of a call on the scratch, nor while another thread's call on it runs. */
CLM_API void clm_scratch_free(clm_scratch *scratch);

/** What a scratch ended up as (the choices auto and max_memory made). */
typedef struct clm_scratch_info {
    clm_data_path data_path;  /**< never CLM_PATH_AUTO */
    char data_path_choice[160]; /**< why: "requested", "CLMATCH_DATA_PATH=...", or the
                                     automatic rule that chose it */
    size_t slab_bytes;        /**< owned bytes per slab */
    size_t overlap_bytes;     /**< bytes a slab keeps besides: longest pattern - 1, plus the
                                   lead of approximate search */
    unsigned slots;           /**< slabs in flight at once (each with its buffers) */
    unsigned io_threads;      /**< threads that copy or read a big slab (clm_scan_fd):
                                   CLMATCH_IO_THREADS, else the CPUs this process may use, at
                                   most 16; a file read into a stream (clm_stream_write_fd)
                                   leaves two of 8 or more CPUs to the caller's thread and
                                   the driver's unless CLMATCH_IO_THREADS is set */
    char io_threads_choice[64]; /**< why: "CLMATCH_IO_THREADS=8", or "auto: 16 CPUs, at most
                                     16; 14 reading a file into a stream" */
    size_t device_bytes;      /**< device buffers: text, packed text, counters, match buffers */
    size_t host_bytes;        /**< host staging of every slot (pinned, zero-copy or SVM buffers,
                                   or the heap buffers of streams and clm_scan_fd on the copy
                                   path, allocated on first use) */
    size_t memory_bytes;      /**< device_bytes + host_bytes: what max_memory bounds */
    size_t max_memory;        /**< the budget (0: none) */
    size_t min_memory;        /**< the smallest max_memory these options (slab, data path,
                                   match capacity) accept */
    size_t match_capacity, match_capacity_limit; /**< initial and largest match buffer, in
                                                      matches */
    size_t allocated_bytes;   /**< device and host bytes allocated now. A slot's buffers are
                                   allocated when a scan first uses it, sized to the slab at
                                   hand (an input smaller than the slab gets smaller buffers
                                   and one slot; a later, larger input grows them, up to the
                                   plan above); streams take whole slabs. */
    double alloc_seconds;     /**< wall time clm_scratch_alloc took (queues, kernels; the slot
                                   buffers come later: clm_stats.alloc_seconds) */
    unsigned stream_io_threads; /**< of io_threads, those that read a file into a stream
                                     (clm_stream_write_fd) */
} clm_scratch_info;

/** What scratch ended up as (copies into *info, of size bytes: sizeof *info). */
CLM_API int clm_scratch_get_info(const clm_scratch *scratch, clm_scratch_info *info,
                                 size_t size);

/**
 * Find every occurrence in data[0, len) and call cb for each, in text order.
 * Returns CLM_OK, CLM_STOPPED, or an error. len 0 and patterns longer than the input give no
 * match and CLM_OK. When the device's match buffer fills, it is grown and the slab rescanned:
 * no match is dropped.
 */
CLM_API int clm_scan(const clm_database *db, clm_scratch *scratch, const void *data, size_t len,
                     clm_match_cb cb, void *ctx);

/** Count every occurrence in data[0, len) without collecting them (faster). */
CLM_API int clm_count(const clm_database *db, clm_scratch *scratch, const void *data,
                      size_t len, uint64_t *count);

/**
 * Scan a regular file: bytes [0, size) of fd, size as fstat() gives it at the call (the file
 * offset is not used or moved). Slab after slab is read with pread() by several threads
 * (clm_scratch_info.io_threads), each a contiguous part, straight into the staging buffer of
 * the free slot (pinned, zero-copy or SVM memory, or a heap buffer on the copy path), while
 * the previous slab is transferred and searched. Matches and their order are those of one
 * clm_scan over the whole file. The fd stays open.
 * Errors as clm_scan, and CLM_E_IO (detail: the call, the offset and the errno text) when
 * fstat or a read fails, the file shrinks while it is read (a short read), or fd is not a
 * regular file (pipes and terminals: use clm_stream_write).
 */
CLM_API int clm_scan_fd(const clm_database *db, clm_scratch *scratch, int fd, clm_match_cb cb,
                        void *ctx);

/** clm_scan_fd counting every occurrence instead of delivering them (as clm_count). */
CLM_API int clm_count_fd(const clm_database *db, clm_scratch *scratch, int fd, uint64_t *count);

/** Length for clm_scan_fd_range / clm_count_fd_range: up to the end of the file. */
#define CLM_FD_TO_END UINT64_MAX

/**
 * clm_scan_fd over bytes [offset, offset + length) of the regular file behind fd, as if that
 * range were the whole input: match offsets count from `offset`, and no byte outside the
 * range is read (approximate matches included). The fd's own offset is neither used nor
 * moved, so several threads or processes may scan ranges of one file (a standard input read
 * from its current offset, a range per MPI rank). length CLM_FD_TO_END: up to the size
 * fstat() gives at the call; an offset at or past that end is an empty range (no match,
 * CLM_OK). An explicit length must lie within the file at the call: a range that reaches past
 * its end is CLM_E_INVALID (the detail names the range and the size). clm_scan_fd is the
 * range [0, CLM_FD_TO_END). Other errors as clm_scan_fd.
 */
CLM_API int clm_scan_fd_range(const clm_database *db, clm_scratch *scratch, int fd,
                              uint64_t offset, uint64_t length, clm_match_cb cb, void *ctx);

/** clm_scan_fd_range counting every occurrence instead of delivering them (as clm_count). */
CLM_API int clm_count_fd_range(const clm_database *db, clm_scratch *scratch, int fd,
                               uint64_t offset, uint64_t length, uint64_t *count);

/* Incremental scanning of input that arrives in pieces. Matches that straddle pieces are
 * found; offsets are counted from the first byte written. Matches are delivered in text
 * order, each as soon as it can no longer be affected by later input (so some arrive only
 * during a later write or at close). A stream gathers its input in the staging buffers of
 * the scratch's slots (on its data path): it allocates no text buffers of its own, so it
 * stays within the scratch's max_memory. */

typedef struct clm_stream clm_stream;

/** Stream flags. */
#define CLM_STREAM_COUNT_ONLY 1u  /**< only count; callbacks are not called */
/** The bytes '\n' and '\r' written are not part of the text: matches are found in, and their
 *  offsets count, the other bytes alone ("text offsets"), as if the line breaks had been
 *  removed before the writes (a match may span a line break; clm_stream_flush's bound
 *  counts text bytes too). The bytes go to the device as
 *  written, and a kernel drops the line breaks there (for FASTA sequence lines: the host
 *  does not rewrite them). clm_stream_text_offset maps writes to text offsets. The device
 *  then holds a second text buffer per slot, allocated on first use, beyond max_memory. */
#define CLM_STREAM_SKIP_LINE_BREAKS 2u

/** Open a stream on scratch (one open stream per scratch at a time). */
CLM_API int clm_stream_open(const clm_database *db, clm_scratch *scratch, unsigned flags,
                            clm_stream **out);

/** Feed the next piece. cb may be NULL only for count-only streams. After CLM_STOPPED or an
 *  error the stream accepts no more input (close it). */
CLM_API int clm_stream_write(clm_stream *stream, const void *data, size_t len, clm_match_cb cb,
                             void *ctx);

/** Deliver now every match that later input cannot change: every match starting before
 *  (bytes written so far − (longest pattern − 1)), and for approximate search with
 *  insertions and deletions before (bytes written − (longest − 1) − max_errors), since a later
 *  match may start up to max_errors bytes before its nominal start and order must hold.
 *  Costs a device round trip: call it when the
 *  results are needed in hand (e.g. before printing the lines of a block), not after every
 *  small write. cb may be NULL only for count-only streams. */
CLM_API int clm_stream_flush(clm_stream *stream, clm_match_cb cb, void *ctx);

/** Finish: deliver the remaining matches, store the total number of occurrences seen in
 *  *total (may be NULL), and free the stream. */
CLM_API int clm_stream_close(clm_stream *stream, clm_match_cb cb, void *ctx, uint64_t *total);

/** The text offset the next write begins at: the bytes written so far, less their line
 *  breaks with CLM_STREAM_SKIP_LINE_BREAKS. Known at once (no device round trip), so a
 *  caller can note where each of its records begins in match coordinates. Not from a match
 *  callback of a call on the stream (CLM_E_BUSY). Errors: CLM_E_INVALID (NULL). */
CLM_API int clm_stream_text_offset(clm_stream *stream, uint64_t *offset);

/* Zero-copy input: the caller puts the next bytes straight into the stream's staging (on a
 * GPU's pinned path, the pinned memory the transfer reads) instead of handing a buffer that
 * clm_stream_write copies, e.g. with read() or pread() of a file, or in place after an edit.
 * One device's streams (clm_stream); a set's streams copy (clm_set_stream_write). */

/** Room for the next bytes of input: *buf, *len bytes (at most want, 0: as many as the
 *  current staging has; at least 1), the caller's to write until the next call on the
 *  stream. clm_stream_commit makes them input; any other call but clm_stream_text_offset
 *  and clm_stream_settled ends the reservation, its bytes never input. Errors: CLM_E_INVALID
 *  (NULL, or the stream stopped or failed earlier), those of allocating staging. */
CLM_API int clm_stream_reserve(clm_stream *stream, size_t want, void **buf, size_t *len);

/** clm_stream_commit: the stream counts the line breaks itself. */
#define CLM_BREAKS_UNKNOWN SIZE_MAX

/** The reservation's first len bytes (0: none) are the next input, as if written with
 *  clm_stream_write; the reservation ends. breaks: with CLM_STREAM_SKIP_LINE_BREAKS, how
 *  many of them are '\n' or '\r' when the caller counted them as it filled the room (the
 *  stream then reads none of them on the host), or CLM_BREAKS_UNKNOWN; without the flag 0 or
 *  CLM_BREAKS_UNKNOWN. A count that is not the bytes' own is found when their slab is
 *  searched (the device counts what it keeps): that call fails with CLM_E_INVALID and the
 *  stream delivers nothing from that slab on. cb as clm_stream_write. Errors: CLM_E_INVALID
 *  (len past the reservation, or none; breaks past len; the stream as it was), as
 *  clm_stream_write. */
CLM_API int clm_stream_commit(clm_stream *stream, size_t len, size_t breaks, clm_match_cb cb,
                              void *ctx);

/** Every match that starts before *offset (a text offset) has been delivered: what a caller
 *  keeps to look matches up (a record table, the text) may be dropped before it without a
 *  clm_stream_flush, which waits for the device. It grows as slabs complete during writes
 *  and commits. Errors: CLM_E_INVALID (NULL). */
CLM_API int clm_stream_settled(clm_stream *stream, uint64_t *offset);

/* A file into a stream: the library reads it itself, a block ahead, with the pool of reading
 * threads clm_scan_fd uses, straight into the staging, so reads, transfers and the search
 * overlap. The caller may see each block twice through hooks: as it is read (to index it
 * while it is in cache) and before it becomes input (to rewrite bytes in place, e.g. FASTA
 * headers, and to say how many line breaks it holds). */

/** Pieces of a block at most: a block is cut into pieces that the reading threads take in
 *  turn, each read in parts of at most 256 KiB. */
#define CLM_FD_MAX_PIECES 64
/** Blocks read or waiting to be taken at a time, at most. */
#define CLM_FD_MAX_BLOCKS 8

typedef struct {
    /** Or NULL. As bytes land: p[0, n) at offset `at` of block `block`
     *  (numbered from 0 in the call), in piece `piece` (below CLM_FD_MAX_PIECES), which
     *  starts at offset piece_at. A piece's parts come in order on one thread, its first
     *  with at == piece_at; hooks of several pieces and blocks run at once, on the reading
     *  threads and the caller's. Blocks from the oldest not yet taken on are read (block %
     *  CLM_FD_MAX_BLOCKS tells them apart). A block read again from its start (rare: where
     *  the stream's staging turned out elsewhere) has its parts seen again. */
    void (*part)(void *ctx, uint64_t block, unsigned piece, const unsigned char *p, size_t n,
                 size_t at, size_t piece_at);
    /** Or NULL. On the caller's thread once block `block` is read (every part seen):
     *  p[0, n) are the file's bytes [offset, offset + n), in `pieces` pieces, which it may
     *  rewrite in place before they become input. *breaks: with
     *  CLM_STREAM_SKIP_LINE_BREAKS, set it to the '\n' and '\r' bytes of p[0, n) as they
     *  are now (checked on the device as clm_stream_commit's), or leave CLM_BREAKS_UNKNOWN
     *  (without a part hook it arrives as counted while read). settled: as
     *  clm_stream_settled. No call on the stream from here. Returns 0 to take the block,
     *  CLM_STOPPED to end the call before it (its bytes are not input; the stream goes on
     *  from where it was), or a CLM_E_* status that fails the stream. */
    int (*block)(void *ctx, uint64_t block, unsigned pieces, unsigned char *p, size_t n,
                 uint64_t offset, uint64_t settled, size_t *breaks);
    void *ctx;
} clm_fd_hooks;

/** Bytes [offset, offset + length) of the regular file behind fd (length CLM_FD_TO_END: to
 *  the size fstat() gives) as the stream's next input, as if written with clm_stream_write
 *  after the block hook's changes. hooks may be NULL. *done (may be NULL): the file bytes
 *  taken; below length only when the block hook ended the call (CLM_OK) or a read failed
 *  (CLM_E_IO: the stream goes on from the blocks before it). One device's streams. Errors:
 *  CLM_E_INVALID (NULL stream, fd < 0, a range past the end of the file, the stream stopped
 *  or failed earlier, a count of line breaks past the block or without the flag), a block
 *  hook's own CLM_E_* status, CLM_E_IO (fd not a regular file, fstat or a read failed), as
 *  clm_stream_write. */
CLM_API int clm_stream_write_fd(clm_stream *stream, int fd, uint64_t offset, uint64_t length,
                                const clm_fd_hooks *hooks, clm_match_cb cb, void *ctx,
                                uint64_t *done);

/* ------------------------------------------------------------------------------------------ */
/* Host search: no OpenCL at all                                                              */
/* ------------------------------------------------------------------------------------------ */

/*
 * One literal pattern searched by the host's CPU threads alone: no platform, device, context
 * or kernel, so nothing waits for an OpenCL start-up (a few hundred milliseconds on a GPU
 * machine) and a small or medium input is done before a device could begin. The matches and
 * their order are those clm_scan gives for the same pattern and flags (id as given, edits 0,
 * strand +1, every occurrence, overlapping ones included), and a callback that returns
 * non-zero stops it with CLM_STOPPED, as there.
 *
 *     clm_host_database *h;
 *     if (clm_host_compile(pats, lens, ids, 1, opts, &h) == CLM_OK)   // else: a device
 *         clm_host_scan(h, text, len, on_match, ctx);
 *     clm_host_database_free(h);
 *
 * The input is cut into contiguous pieces of up to 4 MiB (its matches are those that start
 * in it), which the threads take in turn; the calling thread delivers them piece by piece.
 * A thread takes a piece only once the one 4 x threads pieces before it has been delivered,
 * which bounds the matches held. Threads: the online CPUs (at most CLM_HOST_MAX_THREADS),
 * with no piece below 1 MiB (an input under 2 MiB is one thread's); CLMATCH_HOST_THREADS=N
 * (1 to CLM_HOST_MAX_THREADS, or auto) makes N threads and at least N pieces whatever the
 * size (a bad value: CLM_E_INVALID from the scan and count calls).
 */

/** Most threads one host search uses. */
#define CLM_HOST_MAX_THREADS 64u

typedef struct clm_host_database clm_host_database;

/**
 * Ready a pattern for the host search: the arguments of clm_compile, without a device.
 * It takes what it can search: count 1, patterns[0] of lengths[0] bytes (lengths NULL: a
 * NUL-terminated string) searched literally, opts (NULL: the defaults) with flags 0 or
 * CLM_CASELESS (ASCII letters match either case, as clm_compile's CLM_CASELESS) and
 * CLM_LINES (every match is reported all the same), max_errors
 * 0, and algorithm, variant and table memory left to auto (the kernel-shape fields are
 * ignored: they change no match). ids NULL: the matches carry id 0, else ids[0].
 * Errors: CLM_E_UNSUPPORTED for what only clm_compile searches (several patterns,
 * CLM_CLASSES, CLM_DNA and its flags, CLM_MISMATCHES_ONLY, max_errors > 0, an algorithm,
 * variant or table memory asked for; the detail names it): the caller's cue to compile for
 * a device instead; CLM_E_INVALID (out or patterns NULL, patterns[0] NULL, count 0, unknown
 * flags, options not initialised), CLM_E_EMPTY_PATTERN, CLM_E_PATTERN_TOO_LONG (above
 * CLM_MAX_PATTERN_LENGTH), CLM_E_NOMEM. On error *out is NULL.
 * The database is immutable: threads may search with it at once.
 */
CLM_API int clm_host_compile(const char *const *patterns, const size_t *lengths,
                             const unsigned *ids, unsigned count,
                             const clm_compile_options *opts, clm_host_database **out);

/** Release a host database. NULL is ignored. */
CLM_API void clm_host_database_free(clm_host_database *db);

/**
 * Every occurrence in data[0, len), delivered to cb in text order. Returns CLM_OK,
 * CLM_STOPPED, or an error: CLM_E_INVALID (db or cb NULL, data NULL with len > 0, a bad
 * CLMATCH_HOST_THREADS), CLM_E_NOMEM (the matches of a piece did not fit in memory: 8 bytes
 * each). len 0, or a pattern longer than the input: no match, CLM_OK.
 */
CLM_API int clm_host_scan(const clm_host_database *db, const void *data, size_t len,
                          clm_match_cb cb, void *ctx);

/** The number of occurrences in data[0, len) into *count. Errors as clm_host_scan (count
 *  NULL: CLM_E_INVALID). */
CLM_API int clm_host_count(const clm_host_database *db, const void *data, size_t len,
                           uint64_t *count);

/**
 * clm_host_scan on the calling thread alone: no thread started, data[0, len) searched in one
 * go and each match delivered to cb as it is found, in text order. For callers that run
 * threads of their own, each searching its own part (clm_host_threads says how many parts
 * clm_host_scan would make). Returns CLM_OK, CLM_STOPPED, or CLM_E_INVALID (db or cb NULL,
 * data NULL with len > 0). CLMATCH_HOST_THREADS is not read.
 */
CLM_API int clm_host_scan_serial(const clm_host_database *db, const void *data, size_t len,
                                 clm_match_cb cb, void *ctx);

/**
 * The parts (threads) clm_host_scan cuts an input of `bytes` into: CLMATCH_HOST_THREADS when
 * it is set, else the online CPUs (at most CLM_HOST_MAX_THREADS) with no part below 1 MiB,
 * at least 1. Errors: CLM_E_INVALID (threads NULL, a bad CLMATCH_HOST_THREADS).
 */
CLM_API int clm_host_threads(uint64_t bytes, unsigned *threads);

/**
 * clm_host_scan over bytes [offset, offset + length) of fd, as if that range were the whole
 * input (offsets count from `offset`), with the range rules of clm_scan_fd_range: length
 * CLM_FD_TO_END is up to the size fstat() gives at the call, an offset at or past it is an
 * empty range; an explicit range past the end is CLM_E_INVALID. A regular file is read with
 * pread() by each thread into a buffer of its own (no mapping: a file that shrinks meanwhile
 * is a short read, CLM_E_IO, never a SIGBUS); the fd's offset is neither used nor moved.
 * An fd that is no regular file (a pipe, a terminal) is read with read() from where it
 * stands to its end, in blocks of (threads x 4 MiB), and searched block by block; it takes
 * only offset 0 and CLM_FD_TO_END (else CLM_E_INVALID). Errors as clm_host_scan, and
 * CLM_E_INVALID for fd < 0, CLM_E_IO (fstat or a read failed, or the file shrank: the
 * detail names the offset and the errno text).
 */
CLM_API int clm_host_scan_fd_range(const clm_host_database *db, int fd, uint64_t offset,
                                   uint64_t length, clm_match_cb cb, void *ctx);
/** clm_host_scan_fd_range counting the occurrences into *count instead. */
CLM_API int clm_host_count_fd_range(const clm_host_database *db, int fd, uint64_t offset,
                                    uint64_t length, uint64_t *count);
/** clm_host_scan_fd_range(db, fd, 0, CLM_FD_TO_END, cb, ctx). */
CLM_API int clm_host_scan_fd(const clm_host_database *db, int fd, clm_match_cb cb, void *ctx);
/** clm_host_count_fd_range(db, fd, 0, CLM_FD_TO_END, count). */
CLM_API int clm_host_count_fd(const clm_host_database *db, int fd, uint64_t *count);

/* ------------------------------------------------------------------------------------------ */
/* Device sets: one scan across several devices                                               */
/* ------------------------------------------------------------------------------------------ */

/*
 * A device set scans one input with several devices at once (of any platforms): the input is
 * split into one contiguous part per device, in proportion to the devices' speeds, each
 * device searches its part plus the bytes around it that a match owned by the part can reach
 * (longest pattern - 1 after it, and for approximate search max_errors more, and 2 *
 * max_errors before it), and every match is reported by the device whose part holds its
 * start. The results, and their order, are exactly those of one device scanning the whole
 * input. Each device runs on a host thread of its own (the single-device pipeline blocks on
 * its transfers and kernels, so a thread per device keeps every device busy without changing
 * it). A call delivers its matches after every device has finished: a call that fails on any
 * device calls back nothing, and its detail names the device.
 *
 *     int plat[] = {0, 0}, devi[] = {0, 1};
 *     clm_device_set *set;       clm_device_set_open(plat, devi, 2, &set);
 *     clm_set_database *db;      clm_set_compile(set, pats, lens, NULL, 1, NULL, &db);
 *     clm_set_scratch *s;        clm_set_scratch_alloc(db, NULL, &s);
 *     clm_set_scan(db, s, text, len, on_match, ctx);
 *     clm_set_scratch_free(s); clm_set_database_free(db); clm_device_set_close(set);
 *
 * The single-device API is unchanged; a set of one device is allowed.
 */

/** Most devices in a set. */
#define CLM_MAX_SET_DEVICES 16u

typedef struct clm_device_set clm_device_set;

/**
 * Open the devices (platform_indices[i], device_indices[i]), i < count, as clm_device_open
 * does, in that order (device i of the set). Indices are those of clm_list_devices (no -1).
 * Each device's speed, which sets its share of an input, is its tuning profile's `speed`
 * (clmatch-tune measures it) when every device has one; else every device gets an equal
 * share. Errors: CLM_E_INVALID (NULL, count 0 or above CLM_MAX_SET_DEVICES, an index below 0,
 * a device listed twice: the detail names it), and those of clm_device_open (the detail names
 * the device).
 */
CLM_API int clm_device_set_open(const int *platform_indices, const int *device_indices,
                                unsigned count, clm_device_set **out);
/** Release a set and its devices. Its databases must be freed first. NULL is ignored. */
CLM_API void clm_device_set_close(clm_device_set *set);
/** Number of devices in the set (0 for NULL). */
CLM_API unsigned clm_device_set_count(const clm_device_set *set);
/** Device i of the set, for clm_device_get_info and the tuning calls (NULL if out of range).
 *  It belongs to the set: do not close it. */
CLM_API clm_device *clm_device_set_device(const clm_device_set *set, unsigned i);
/** The speeds in force, in bytes per second, into speeds[0, count) (count: the set's size);
 *  all 0 when the shares are equal. */
CLM_API int clm_device_set_get_speeds(const clm_device_set *set, double *speeds,
                                      unsigned count);
/** Set the speeds that split later inputs (count: the set's size; each > 0 and finite), or
 *  with speeds NULL go back to equal shares. Device i then gets about
 *  speeds[i] / (sum of speeds) of an input. Errors: CLM_E_INVALID. */
CLM_API int clm_device_set_set_speeds(clm_device_set *set, const double *speeds,
                                      unsigned count);
/**
 * Measure each device's speed with a short scan (a 13-byte DNA pattern over `bytes` of
 * random DNA, 0: 16 MiB, from host memory: the best of two counts after an untimed one that
 * builds the kernel and allocates the buffers) and set them as
 * clm_device_set_set_speeds does; speeds (may be NULL) gets them. clmatch-tune keeps a
 * device's in its profile (key speed). Errors: those of clm_compile and clm_scan.
 */
CLM_API int clm_device_set_calibrate(clm_device_set *set, size_t bytes, double *speeds);

typedef struct clm_set_database clm_set_database;

/** clm_compile for every device of the set. Errors as clm_compile (the detail names the
 *  device); nothing is kept of a failed compile. */
CLM_API int clm_set_compile(clm_device_set *set, const char *const *patterns,
                            const size_t *lengths, const unsigned *ids, unsigned count,
                            const clm_compile_options *opts, clm_set_database **out);
/** The database of device i (for clm_database_get_info); NULL if out of range. */
CLM_API const clm_database *clm_set_database_get(const clm_set_database *db, unsigned i);
/** Release a set database (its scratches first). NULL is ignored. */
CLM_API void clm_set_database_free(clm_set_database *db);

typedef struct clm_set_scratch clm_set_scratch;

/** A scratch per device of db's set, each with opts (NULL: defaults). Errors as
 *  clm_scratch_alloc (the detail names the device). */
CLM_API int clm_set_scratch_alloc(const clm_set_database *db, const clm_scratch_options *opts,
                                  clm_set_scratch **out);
/** Release a set scratch. NULL is ignored. */
CLM_API void clm_set_scratch_free(clm_set_scratch *scratch);
/** The scratch of device i (for clm_scratch_get_info and clm_scratch_get_stats); NULL if out
 *  of range. */
CLM_API clm_scratch *clm_set_scratch_get(const clm_set_scratch *scratch, unsigned i);

/** clm_scan of data[0, len) across the set's devices: the same matches in the same order.
 *  The matches are held on the host until every device is done (32 bytes each). One call
 *  at a time per set scratch (CLM_E_BUSY otherwise, as for a scratch). An input too small to
 *  be worth splitting runs on fewer devices. */
CLM_API int clm_set_scan(const clm_set_database *db, clm_set_scratch *scratch,
                         const void *data, size_t len, clm_match_cb cb, void *ctx);
/** clm_count across the set's devices. */
CLM_API int clm_set_count(const clm_set_database *db, clm_set_scratch *scratch,
                          const void *data, size_t len, uint64_t *count);
/** clm_scan_fd across the set's devices: each reads its own range of the file. */
CLM_API int clm_set_scan_fd(const clm_set_database *db, clm_set_scratch *scratch, int fd,
                            clm_match_cb cb, void *ctx);
/** clm_count_fd across the set's devices. */
CLM_API int clm_set_count_fd(const clm_set_database *db, clm_set_scratch *scratch, int fd,
                             uint64_t *count);
/** clm_scan_fd_range across the set's devices (offsets count from `offset`, no byte outside
 *  the range is read, CLM_FD_TO_END and the errors as there). */
CLM_API int clm_set_scan_fd_range(const clm_set_database *db, clm_set_scratch *scratch, int fd,
                                  uint64_t offset, uint64_t length, clm_match_cb cb, void *ctx);
/** clm_count_fd_range across the set's devices. */
CLM_API int clm_set_count_fd_range(const clm_set_database *db, clm_set_scratch *scratch, int fd,
                                   uint64_t offset, uint64_t length, uint64_t *count);

/*
 * Early start: a set whose first device (a CPU, which opens in milliseconds) searches at once
 * while the others (GPUs, whose platform, context and program take a few hundred
 * milliseconds) come up on threads of their own and join when ready. The input of a call is
 * then cut into chunks that the ready devices claim in text order, each device's chunks
 * growing (from clm_set_scratch's minimum part, 1 MiB, by doubling) up to its share of what
 * is left (by speed when every device has one, else equal); the results are those of one
 * device, in the same order. An input the first device finishes before the others are ready
 * is searched by it alone. A device that fails to come up is left out of every call (its
 * failure is kept: clm_device_set_state); one that fails mid-scan fails the call as in
 * any set.
 */

/**
 * Open the devices as clm_device_set_open does, compile the patterns for them as
 * clm_set_compile does (copts may be NULL), and allocate a scratch for each with sopts (may
 * be NULL): device 0 here, before returning, the others on threads of their own that go on
 * after it returns. Free the three as for any set (clm_set_scratch_free, then
 * clm_set_database_free, then clm_device_set_close): the first of them waits for the devices
 * still coming up. clm_set_compile, clm_set_scratch_alloc and clm_device_set_calibrate refuse
 * an early set. Errors: those of clm_device_set_open, clm_set_compile and
 * clm_set_scratch_alloc for device 0 (nothing is returned then); the others' are kept.
 */
CLM_API int clm_set_open_early(const int *platform_indices, const int *device_indices,
                               unsigned count, const char *const *patterns,
                               const size_t *lengths, const unsigned *ids,
                               unsigned pattern_count, const clm_compile_options *copts,
                               const clm_scratch_options *sopts, clm_device_set **set,
                               clm_set_database **db, clm_set_scratch **scratch);
/**
 * Whether device i of the set takes part in calls: 1 ready, 0 still coming up (early sets
 * only), or the CLM_E_* status it failed to come up with (clm_last_error then gives its
 * detail). Until it is ready, clm_device_set_device, clm_set_database_get and
 * clm_set_scratch_get give NULL for it. CLM_E_INVALID for a NULL set or i out of range.
 */
CLM_API int clm_device_set_state(const clm_device_set *set, unsigned i);

typedef struct clm_set_stream clm_set_stream;

/** A stream across the set (as clm_stream_open; flags CLM_STREAM_COUNT_ONLY and
 *  CLM_STREAM_SKIP_LINE_BREAKS): the input is gathered on the host in blocks of 32 MiB per
 *  device, each block split across the devices. With CLM_STREAM_SKIP_LINE_BREAKS the
 *  library's host threads drop the '\n' and '\r' bytes as they gather them (the devices'
 *  shares are cut in text offsets). Matches arrive in text order, each once later input
 *  cannot change it. One open stream per set scratch. */
CLM_API int clm_set_stream_open(const clm_set_database *db, clm_set_scratch *scratch,
                                unsigned flags, clm_set_stream **out);
/** As clm_stream_write. */
CLM_API int clm_set_stream_write(clm_set_stream *stream, const void *data, size_t len,
                                 clm_match_cb cb, void *ctx);
/** As clm_stream_flush. */
CLM_API int clm_set_stream_flush(clm_set_stream *stream, clm_match_cb cb, void *ctx);
/** As clm_stream_text_offset: the text bytes written so far (line breaks not counted with
 *  CLM_STREAM_SKIP_LINE_BREAKS). */
CLM_API int clm_set_stream_text_offset(clm_set_stream *stream, uint64_t *offset);
/** As clm_stream_close: the remaining matches, the total, and the stream freed. */
CLM_API int clm_set_stream_close(clm_set_stream *stream, clm_match_cb cb, void *ctx,
                                 uint64_t *total);

/* ------------------------------------------------------------------------------------------ */
/* Statistics                                                                                 */
/* ------------------------------------------------------------------------------------------ */

typedef struct clm_stats {
    uint64_t bytes;           /**< input bytes scanned */
    uint64_t slabs;           /**< slabs launched */
    uint64_t matches;         /**< occurrences found */
    uint64_t rescans;         /**< slabs rescanned after the match buffer grew */
    double kernel_seconds;    /**< device time of search kernels (profiling events) */
    double transfer_seconds;  /**< device time of host→device transfers */
    double wall_seconds;      /**< wall-clock time inside scan/count/stream calls */
    /* where that wall time went, on the calling thread (the rest: sorting and delivering
     * matches, callbacks): */
    double read_seconds;      /**< putting input into staging: pread of the file (clm_scan_fd,
                                   clm_count_fd) or copies of the caller's bytes, by
                                   clm_scratch_info.io_threads threads; for a file, waiting
                                   for its reader threads (and reading beside them) */
    double alloc_seconds;     /**< allocating slot buffers on their first use (or growth);
                                   a file's second slot is allocated while reader threads
                                   read its first slab */
    double launch_seconds;    /**< enqueuing transfers and kernels (some drivers load or
                                   compile a kernel at its first launch) */
    double wait_seconds;      /**< waiting for the device: transfers and kernels not done yet,
                                   match read-back, mapping staging */
    /* not on the calling thread: */
    double reader_seconds;    /**< file scans: wall time their reader threads had reads
                                   queued or under way (bytes / this: the host's read rate) */
} clm_stats;

/** Totals since the scratch was allocated or last reset (copies into *out, of size bytes:
 *  sizeof *out). */
CLM_API int clm_scratch_get_stats(const clm_scratch *scratch, clm_stats *out, size_t size);
CLM_API void clm_scratch_reset_stats(clm_scratch *scratch);

/* ------------------------------------------------------------------------------------------ */
/* String columns and SQL LIKE                                                                */
/* ------------------------------------------------------------------------------------------ */

/*
 * A string column is many records (rows), each a string, in Apache Arrow's layout: rows + 1
 * offsets (32- or 64-bit, signed, non-decreasing) into one buffer of bytes, row i being
 * bytes [offsets[i], offsets[i + 1]), and an optional validity bitmap (bit i, LSB first, 0:
 * row i is NULL). A column either refers to the caller's host memory (clm_column_wrap,
 * clm_column_from_arrow: nothing is copied; the memory must outlive the column) and is sent
 * to the device query by query in slabs of whole rows, or is uploaded once
 * (clm_column_upload) and stays resident on a device for many queries.
 *
 * A LIKE predicate (clm_like_compile) is compiled once for a device and used for any
 * number of queries on any column; clm_like_select gives the rows it selects as a count,
 * an Arrow boolean bitmap, ascending row ids (32- or 64-bit) and each selected row's first
 * match position. Everything here takes plain pointers, integers and caller-allocated
 * arrays, so that bindings (ctypes) can call it directly.
 */

/* The Arrow C Data Interface structs, copied from the specification as it allows
 * (https://arrow.apache.org/docs/format/CDataInterface.html); the guard lets a program that
 * includes Arrow's own definition first keep it. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    /* Array type description */
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;

    /* Release callback */
    void (*release)(struct ArrowSchema *);
    /* Opaque producer-specific data */
    void *private_data;
};

struct ArrowArray {
    /* Array data description */
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;

    /* Release callback */
    void (*release)(struct ArrowArray *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

typedef struct clm_column clm_column;

/** A column in the caller's memory, as clm_column_wrap takes it. */
typedef struct clm_column_desc {
    size_t size;            /**< sizeof (clm_column_desc), set by clm_column_desc_init */
    uint64_t rows;          /**< number of rows (0: an empty column) */
    unsigned offset_bits;   /**< 32: int32_t offsets (Arrow "u"); 64: int64_t ("U") */
    const void *offsets;    /**< rows + 1 offsets, at least 0, non-decreasing, at most
                                 data_bytes */
    const void *data;       /**< the string bytes offsets index (may be NULL when no row has
                                 a byte) */
    uint64_t data_bytes;    /**< bytes readable at data */
    const uint8_t *validity; /**< NULL: no row is NULL; else bit (validity_bit + i) of this
                                  bitmap, LSB first, is 1 when row i is valid, 0 when NULL */
    uint64_t validity_bit;  /**< the bit of row 0 (Arrow's array offset) */
} clm_column_desc;

/** Fill *desc (of size bytes: sizeof *desc) with its size and zeros (offset_bits 32). */
CLM_API int clm_column_desc_init(clm_column_desc *desc, size_t size);

/**
 * A column over the caller's memory (nothing is copied; it must stay valid and unchanged
 * until clm_column_free). Every offset is checked here.
 * Errors: CLM_E_INVALID (NULL, offset_bits not 32 or 64, an offset below 0, below the one
 * before it or past data_bytes: the detail names the row and the values), CLM_E_NOMEM.
 */
CLM_API int clm_column_wrap(const clm_column_desc *desc, clm_column **out);

/**
 * A column over an Arrow array of strings (the array's buffers must stay valid until
 * clm_column_free; the release callbacks are not called). Formats "u" (utf8, 32-bit
 * offsets) and "U" (large utf8, 64-bit offsets), zero-copy, the string bytes taken to end
 * at the last offset; "vu" (utf8 view: 16-byte views, data buffers, their sizes last),
 * whose rows are checked and gathered into offsets and bytes the column owns (one copy).
 * The array's offset (a slice) and validity bitmap are honoured; a NULL row's view is not
 * read.
 * Errors: CLM_E_INVALID (NULL, a released struct, another format, buffers or children not
 * those of a string array, a negative length or offset, offsets as clm_column_wrap, a view
 * of a negative length or outside its data buffer: the detail names the row),
 * CLM_E_NOMEM.
 */
CLM_API int clm_column_from_arrow(const struct ArrowSchema *schema,
                                  const struct ArrowArray *array, clm_column **out);

/**
 * A copy of column `host` resident on dev: uploaded once, searched by any number of
 * clm_like_select calls with predicates compiled for dev, without further transfers. The
 * host column (and its memory) may be freed afterwards.
 * Errors: CLM_E_INVALID (NULL, a column that is already resident), CLM_E_DEVICE_MEMORY (the
 * column exceeds the device's memory or largest allocation), CLM_E_OPENCL, CLM_E_NOMEM.
 */
CLM_API int clm_column_upload(clm_device *dev, const clm_column *host, clm_column **out);

/** Rows of a group of the pivoted layout (clm_column_pivot). */
#define CLM_PIVOT_ROWS 32u

/**
 * clm_column_upload in seed 004's pivoted layout: the rows in groups of CLM_PIVOT_ROWS, each
 * row cut into pieces of `width` bytes (4, 8 or 16), a group's first pieces side by side,
 * then their second pieces, and so on (a group pads its rows to its longest). Work-items of
 * neighbouring rows then read neighbouring bytes while they move through their rows at
 * similar paces. Selections on it run a work-item per row (CLM_ROWS_ITEM) or the
 * automaton (CLM_ROWS_AUTOMATON); CLM_ROWS_GROUP and CLM_ROWS_FILTER, which read a row's
 * bytes in order, run CLM_ROWS_ITEM instead (kernel_used says). The layout is made on the
 * host, once per upload.
 * Errors: as clm_column_upload, and CLM_E_INVALID for another width.
 */
CLM_API int clm_column_pivot(clm_device *dev, const clm_column *host, unsigned width,
                             clm_column **out);

/**
 * clm_column_upload in seed 004's self-pivoted layout, for long rows: each row cut into
 * segments of seg_bytes bytes, `segments` of them a chunk, and a chunk's segments stored
 * pivoted in pieces of `width` bytes (its segments' first pieces side by side, then their
 * second pieces...). A row is padded to whole chunks (segments x seg_bytes). The work-items
 * of a CLM_ROWS_SEGMENT team, one per segment (seg_threads and seg_gap default to segments
 * and seg_bytes on it), then read neighbouring bytes while they move through their
 * segments at similar paces, whichever rows a query reads. Selections run as on
 * clm_column_pivot's layout (CLM_ROWS_GROUP and CLM_ROWS_FILTER run CLM_ROWS_ITEM).
 * width: 4, 8 or 16; segments: 2 to 32, a power of 2; seg_bytes: a multiple of width from
 * 16 to 4096. Errors: as clm_column_upload, and CLM_E_INVALID for other values.
 */
CLM_API int clm_column_self_pivot(clm_device *dev, const clm_column *host, unsigned width,
                                  unsigned segments, unsigned seg_bytes, clm_column **out);

/** Release a column (a resident one's device memory too). NULL is ignored. */
CLM_API void clm_column_free(clm_column *col);

/** What a column holds. */
typedef struct clm_column_info {
    uint64_t rows;
    uint64_t nulls;       /**< rows whose validity bit is 0 */
    uint64_t data_bytes;  /**< bytes of the rows: last offset - first offset */
    unsigned offset_bits; /**< 32 or 64 */
    int resident;         /**< 1: uploaded to a device (clm_column_upload) */
    unsigned pivot;       /**< the piece width of a pivoted column (clm_column_pivot); 0:
                               the rows' bytes one after the other */
    unsigned self_segments; /**< a self-pivoted column (clm_column_self_pivot): segments a
                                 chunk; 0: not self-pivoted */
    unsigned seg_bytes;     /**< a self-pivoted column: bytes a segment */
} clm_column_info;

/** Describe a column (copies into *info, of size bytes: sizeof *info). */
CLM_API int clm_column_get_info(const clm_column *col, clm_column_info *info, size_t size);

typedef struct clm_like clm_like;

/** Flags of one LIKE of a disjunction (clm_like_compile). */
#define CLM_LIKE_CASELESS 1u /**< ILIKE: ASCII case-insensitive */
#define CLM_LIKE_NOT 2u      /**< NOT LIKE: rows the pattern does not match */
/** clm_like_compile's escape when the pattern has none. */
#define CLM_LIKE_NO_ESCAPE (-1)
/** Longest LIKE pattern, in bytes. */
#define CLM_LIKE_MAX_PATTERN 65535u

/**
 * Compile a disjunction of `count` SQL LIKE patterns for dev: a row is selected when it is
 * not NULL and at least one of them selects it (a NULL row is selected by neither LIKE nor
 * NOT LIKE, as SQL's NULL rules say). A pattern must match the whole row: '%' matches any
 * run of bytes (empty included), '_' exactly one byte, the escape byte followed by any byte
 * that byte itself ('\%', '\_', '\\' with escape '\\'); every other byte itself. Equals,
 * prefix ('abc%'), suffix ('%abc'), contains ('%abc%') and segments in order ('%a%b%c%')
 * are LIKE shapes. patterns[i] has lengths[i] bytes (lengths NULL: NUL-terminated); flags
 * may be NULL (all plain LIKE), else flags[i] holds CLM_LIKE_CASELESS and CLM_LIKE_NOT for
 * pattern i. escape: a byte 0-255, or CLM_LIKE_NO_ESCAPE. The patterns go to the device
 * here; the kernels (cl/records.cl) are built at the first clm_like_select of each offset
 * width on the device and kept in its program cache.
 * Errors: CLM_E_INVALID (NULL, count 0, an escape outside -1..255, an unknown flag),
 * CLM_E_PATTERN_SYNTAX (the escape byte ends a pattern: the detail names the pattern and
 * offset), CLM_E_PATTERN_TOO_LONG (above CLM_LIKE_MAX_PATTERN), CLM_E_BUILD, CLM_E_OPENCL,
 * CLM_E_DEVICE_MEMORY, CLM_E_NOMEM.
 */
CLM_API int clm_like_compile(clm_device *dev, const char *const *patterns,
                             const size_t *lengths, const unsigned *flags, unsigned count,
                             int escape, clm_like **out);

/** How clm_approx_compile counts the errors of an occurrence. */
typedef enum {
    CLM_APPROX_EDITS = 0,     /**< Levenshtein: substitutions, insertions and deletions */
    CLM_APPROX_MISMATCHES = 1 /**< Hamming: substitutions only (occurrences of the
                                   pattern's length) */
} clm_approx_mode;
/** clm_approx_compile's limits: pattern length in bytes, and errors. */
#define CLM_APPROX_MAX_PATTERN 64u
#define CLM_APPROX_MAX_ERRORS 8u

/**
 * Compile a disjunction of `count` approximate contains for dev, a predicate that
 * clm_like_select runs as it runs LIKE: a row is selected when it is not NULL and at least
 * one pattern selects it. Pattern i selects the rows holding a substring within max_errors
 * errors of it (mode: edits or mismatches, the same for every pattern); with
 * CLM_LIKE_NOT in flags[i] the rows holding none (a NULL row is selected by neither);
 * CLM_LIKE_CASELESS compares ASCII letters case-insensitively. Patterns are plain bytes
 * (no '%', '_' or escape), 1 to CLM_APPROX_MAX_PATTERN bytes (lengths NULL:
 * NUL-terminated); flags may be NULL; max_errors at most CLM_APPROX_MAX_ERRORS and below
 * every pattern's length (max_errors 0: exact contains). clm_selection.positions gets, for
 * a selected row, the end (exclusive byte offset) of the occurrence that ends first: the
 * least e such that some row[s, e) is within max_errors of the pattern (for mismatches,
 * the occurrence starts at e - length). Such a predicate always runs a work-item per row
 * (kernel_used CLM_ROWS_ITEM whatever clm_selection.kernel asks: a bit-parallel automaton
 * per row, which stops at the first occurrence). To OR with LIKE patterns in one pass:
 * clm_like_or.
 * Errors: CLM_E_INVALID (NULL, count 0, an unknown flag or mode, max_errors above
 * CLM_APPROX_MAX_ERRORS or not below a pattern's length), CLM_E_EMPTY_PATTERN,
 * CLM_E_PATTERN_TOO_LONG (above CLM_APPROX_MAX_PATTERN), CLM_E_OPENCL, CLM_E_DEVICE_MEMORY,
 * CLM_E_NOMEM.
 */
CLM_API int clm_approx_compile(clm_device *dev, const char *const *patterns,
                               const size_t *lengths, const unsigned *flags, unsigned count,
                               unsigned max_errors, clm_approx_mode mode, clm_like **out);

/**
 * One predicate that ORs `count` compiled ones (clm_like_compile's, clm_approx_compile's or
 * this function's) of one device: LIKE patterns and approximate contains searched in one
 * pass over the rows instead of a select per predicate. Its patterns are parts[0]'s, then
 * parts[1]'s, and so on, so a selected row's position is that of the first of them that
 * selects it. The parts stay the caller's: free them when they are no longer used.
 * Errors: CLM_E_INVALID (NULL, count 0, a NULL part, parts of different devices, more than
 * 2^32 words of patterns in all), CLM_E_OPENCL, CLM_E_DEVICE_MEMORY, CLM_E_NOMEM.
 */
CLM_API int clm_like_or(const clm_like *const *parts, unsigned count, clm_like **out);

/** Release a compiled predicate (clm_like_compile or clm_approx_compile). NULL is ignored. */
CLM_API void clm_like_free(clm_like *like);

/** A position of clm_selection.positions for a row no pattern matched (NOT LIKE). */
#define CLM_NO_POSITION UINT64_MAX

/** How clm_like_select's kernels share out the rows (seed 004's basic form and Split). */
typedef enum {
    CLM_ROWS_AUTO = 0,  /**< by the column's mean row length and rows: CLM_ROWS_GROUP on
                             GPUs from CLM_ROWS_GROUP_MEAN bytes on, for fewer rows than
                             1 024 per compute unit (never on CPUs); else
                             CLM_ROWS_AUTOMATON for a disjunction of 2 or more contains
                             that it serves over rows below CLM_ROWS_GROUP_MEAN,
                             CLM_ROWS_FILTER for one LIKE or NOT LIKE that it
                             serves and that is no prefix or equality (no leading '%'),
                             on CPUs over rows below 256 bytes on a mean,
                             when its first 32 MiB hold few matches: for one or two literal
                             segments on a GPU, fewer than one place in 16 bytes; else
                             fewer anchors than one 64-byte block in 5 (in 4 on CPU
                             devices); else CLM_ROWS_ITEM. The
                             automaton's rule is a guess until measured on a GPU */
    CLM_ROWS_ITEM = 1,  /**< a work-item per row: short rows */
    CLM_ROWS_GROUP = 2, /**< a work-group per row, its work-items comparing the placements
                             of a segment side by side: long rows */
    CLM_ROWS_FILTER = 3, /**< filter and verify: the column's bytes are searched as one text
                             for each pattern's longest run of literal bytes by the exact
                             search kernels, and only the rows holding one are matched.
                             On GPUs one LIKE or NOT LIKE of one or two literal segments
                             ('%a%', '%a%b%') is decided by the search alone: both
                             segments are found over the bytes and each row keeps the end
                             of its first a and the start of its last b. A predicate it cannot serve (a
                             pattern without a literal byte, NOT LIKE beside other patterns)
                             and zero-copy host columns whose bytes do not start at a
                             16-byte aligned address run CLM_ROWS_ITEM instead:
                             kernel_used says which ran */
    CLM_ROWS_AUTOMATON = 4 /**< a disjunction of contains ('%literal%' patterns: no '_', a
                             literal of a byte or more, no NOT LIKE; all LIKE or all
                             ILIKE) in one pass over each row: a work-item per row walks
                             one Aho-Corasick automaton of every literal (in local memory
                             when it fits) and the row is selected where any literal
                             ends; asked for positions, the walk goes on to the row's end
                             (or to pattern 0) and the lowest-numbered pattern found gives
                             its leftmost start. A predicate it cannot serve (or whose
                             automaton could pass 64 MiB) runs CLM_ROWS_ITEM instead:
                             kernel_used says which ran */,
    CLM_ROWS_SEGMENT = 5 /**< seed 004's Seg-k-t: a team of clm_selection.seg_threads
                             work-items per row, each taking every seg_threads-th slice of
                             seg_gap places, the team's reads close together: rows of some
                             hundred bytes and more. An approximate predicate runs
                             CLM_ROWS_ITEM instead */
} clm_rows_kernel;

/** How a work-item looks for a segment of a LIKE in its row (clm_selection.find): seed
 *  004's KMP variants beside the first-byte scan. */
typedef enum {
    CLM_FIND_AUTO = 0,       /**< KMP_BASIC on GPUs, FIRST_BYTE_WIDE on CPUs (the fastest
                                  measured on each) */
    CLM_FIND_FIRST_BYTE = 1, /**< places tried where the segment's first byte is */
    CLM_FIND_KMP_BASIC = 2,  /**< KMP, each step advancing the row or the pattern */
    CLM_FIND_KMP_STEP = 3,   /**< KMP, a row byte per step, failure links in an inner loop */
    CLM_FIND_KMP_HYBRID = 4, /**< KMP, 4 row bytes per step (one load), basic's steps inside */
    CLM_FIND_FIRST_BYTE_WIDE = 5 /**< FIRST_BYTE, 16 places per load and compare (a CPU's
                                      vector registers); a pivoted column's rows: FIRST_BYTE */
} clm_like_find;
/** Default work-items per row and places per slice of CLM_ROWS_SEGMENT. */
#define CLM_SEG_THREADS 8u
#define CLM_SEG_GAP 64u
/** The mean row length from which CLM_ROWS_AUTO may take a work-group per row. */
#define CLM_ROWS_GROUP_MEAN 1024u

/** Where clm_like_select writes its results, and how it reads a host column. */
typedef struct clm_selection {
    size_t size;             /**< sizeof (clm_selection), set by clm_selection_init */
    uint8_t *bitmap;         /**< NULL, or (rows + 7) / 8 bytes: bit i (LSB first) set when
                                  row i is selected (an Arrow boolean array); bits past
                                  rows are 0 */
    void *row_ids;           /**< NULL, or room for row_id_capacity ids of the selected
                                  rows, ascending */
    unsigned row_id_bits;    /**< 32 (uint32_t ids, the default) or 64 (uint64_t) */
    uint64_t row_id_capacity;
    uint64_t *positions;     /**< NULL, or room for row_id_capacity entries, with row_ids:
                                  for each selected row, the byte offset in the row where
                                  the first pattern that selects it placed its first
                                  segment (0 for a pattern that starts without '%'),
                                  or for clm_approx_compile's the end of its first
                                  occurrence; CLM_NO_POSITION for a row selected by NOT
                                  LIKE only */
    size_t slab_bytes;       /**< a host column's string bytes per batch: 0 default
                                  (64 MiB). A slab holds whole rows; one longer than the
                                  slab gets a slab of its own. With CLM_ROWS_FILTER also
                                  the most bytes one search launch reads, on a resident
                                  column too (0: 1 GiB) */
    clm_rows_kernel kernel;  /**< default CLM_ROWS_AUTO */
    clm_data_path data_path; /**< a host column: CLM_PATH_COPY (batches copied to buffers
                                  of the query's own), CLM_PATH_ZERO_COPY (buffers over the
                                  caller's memory, CL_MEM_USE_HOST_PTR: read in place where
                                  the device shares host memory), or CLM_PATH_AUTO (the
                                  default: zero-copy on devices with host-unified memory,
                                  else copy); pinned and svm are CLM_E_INVALID */
    uint64_t count;          /**< out: rows selected */
    clm_rows_kernel kernel_used; /**< out: never CLM_ROWS_AUTO (after a search) */
    clm_data_path data_path_used; /**< out: a host column's path, never CLM_PATH_AUTO;
                                       CLM_PATH_AUTO for a resident column */
    unsigned seg_threads;    /**< CLM_ROWS_SEGMENT: work-items per row, 2 to 32, a power of
                                  2 (0: CLM_SEG_THREADS); fewer where the device's
                                  work-groups are small (a group holds 8 rows or more) */
    unsigned seg_gap;        /**< CLM_ROWS_SEGMENT: places per slice, 1 to 65536 (0:
                                  CLM_SEG_GAP) */
    clm_like_find find;      /**< how the work-item and Seg-k-t kernels (and filter and
                                  verify's check) look for a segment; KMP serves
                                  segments without '_' of predicates of up to 1 024 words
                                  (about 900 pattern bytes); others take the first-byte scan */
} clm_selection;

/** Fill *sel (of size bytes: sizeof *sel) with its size and the defaults. */
CLM_API int clm_selection_init(clm_selection *sel, size_t size);

/**
 * The rows of col that `like` selects. col is a host column (sent in slabs) or a column
 * resident on like's device. sel->count gets the number of rows selected; the bitmap, row
 * ids and positions are written where sel asks for them. Each call has its own queue and
 * buffers: threads may select with one predicate and one column at once.
 * Errors: CLM_E_INVALID (NULL, sel not initialised, an unknown kernel or data path, a
 * pinned or svm data path, row_id_bits not 32 or 64, 32-bit ids
 * for a column of more than 2^32 rows, positions without row_ids, a column resident on
 * another device, row_id_capacity below the count: sel->count then holds the count and
 * nothing past the capacity is written), CLM_E_BUILD, CLM_E_DEVICE_MEMORY, CLM_E_OPENCL,
 * CLM_E_NOMEM.
 */
CLM_API int clm_like_select(const clm_like *like, const clm_column *col, clm_selection *sel);

/*
 * LIKE over a device set (CPU+GPU co-processing, seed 004 section 6): a host column's rows
 * are split into one contiguous range per device of the set, in proportion to the set's
 * speeds (clm_device_set_get_speeds; equal shares when it has none) by their bytes, ranges
 * starting at multiples of 64 rows; each device selects its range on a thread of its own and
 * the results are put together in row order: the same count, bitmap, row ids and positions
 * as one device selecting the whole column.
 */
typedef struct clm_set_like clm_set_like;

/** clm_like_compile for every device of the set (an early set's devices are waited for).
 *  Errors as clm_like_compile (the detail names the device). */
CLM_API int clm_set_like_compile(clm_device_set *set, const char *const *patterns,
                                 const size_t *lengths, const unsigned *flags, unsigned count,
                                 int escape, clm_set_like **out);
/** A set predicate of predicates compiled for each device (per_device[i] for device i of
 *  the set, by clm_like_compile or clm_approx_compile, the same query on every device): it
 *  takes them over, clm_set_like_free frees them (on an error they stay the caller's).
 *  Errors: CLM_E_INVALID (NULL, a predicate compiled for another device), CLM_E_NOMEM. */
CLM_API int clm_set_like_wrap(clm_device_set *set, clm_like **per_device, clm_set_like **out);
/** Release a set predicate. NULL is ignored. */
CLM_API void clm_set_like_free(clm_set_like *like);
/** The predicate of device i (NULL if out of range). It belongs to the set predicate. */
CLM_API const clm_like *clm_set_like_get(const clm_set_like *like, unsigned i);
/**
 * clm_like_select across the set for a host column (a resident column lives on one device:
 * clm_like_select it there). sel as clm_like_select takes it; kernel_used and
 * data_path_used are device 0's (devices may choose differently under CLM_ROWS_AUTO).
 * Errors: those of clm_like_select (a device's detail names it), CLM_E_INVALID for a
 * resident column.
 */
CLM_API int clm_set_like_select(const clm_set_like *like, const clm_column *col,
                                clm_selection *sel);

#ifdef __cplusplus
}
#endif
#endif /* CLMATCH_H */
