/*
 * clmatch-bench — shared declarations of the benchmark program (all of bench/).
 */
#ifndef CLMATCH_BENCH_H
#define CLMATCH_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clmatch.h"

#define BENCH_PROG "clmatch-bench"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* Most edits any scenario uses (the reference keeps a histogram of 0..BENCH_MAX_K). */
#define BENCH_MAX_K 3

/* ---- util.c ---------------------------------------------------------------------------- */

/** Monotonic wall clock, seconds. */
double now_seconds(void);
/** Median of n values (n > 0); values is reordered. */
double median_of(double *values, size_t n);
/** Smallest of n values (n > 0). */
double min_of(const double *values, size_t n);
/** Parse "256M", "1G", "64k", "1000" (binary suffixes K/M/G); 0 on success, -1 if bad. */
int parse_size(const char *s, uint64_t *out);
/** Parse a positive finite number of seconds; 0 on success, -1 if bad. */
int parse_seconds(const char *s, double *out);
/** Parse "P:D" into two non-negative indices; 0 on success, -1 if bad. */
int parse_device_pair(const char *s, int *platform, int *device);
/** mkdir -p; 0 on success, -1 with errno set. */
int make_dirs(const char *path);
/** First line of s, '|' and control characters replaced, cut to at most max bytes
 *  (for table cells). */
void one_line(char *dst, size_t max, const char *s);
/** "CPU", "GPU", ... */
const char *device_type_name(clm_device_type t);
/** Bytes / seconds in GB/s (10^9 bytes/s); 0 when seconds <= 0. */
double gbs(uint64_t bytes, double seconds);

/* ---- text.c: the input texts, their patterns and the host reference ---------------------- */

/** Read a whole file. Returns 0, or -1 with errno set. *data is NUL-terminated. */
int read_file(const char *path, char **data, size_t *len);
/** The file's bytes repeated (the last copy cut) to exactly size bytes; NULL when out of
 *  memory. */
char *replicate(const char *file, size_t file_len, size_t size);
/** m consecutive bytes of a FASTA file's byte stream, newlines kept: from the start of the
 *  first sequence line (not a header) at or after `from`, with no header line inside the m
 *  bytes (patterns longer than a line span lines, as the text does). Writes the pattern to
 *  out[0..m) and its file offset to *offset; -1 if there is no such place. */
int pick_pattern(const char *file, size_t file_len, size_t from, size_t m, char *out,
                 size_t *offset);
/** m letters A-Z from a fixed xorshift sequence seeded with seed (reproducible). */
void random_letters(uint64_t seed, size_t m, char *out);

/** A set of distinct patterns (the multi suite), back to back in one buffer. */
typedef struct pattern_set {
    unsigned count;
    char *bytes;                /* every pattern, back to back (owned) */
    const char **ptrs;          /* count pointers into bytes (owned) */
    size_t *lens;               /* (owned) */
    size_t min_len, max_len;
} pattern_set;

/** What a set is drawn from a text as: DNA windows of the bytes A, C, G, T only (other
 *  bytes, newlines included, are skipped), or words: maximal runs of ASCII letters. */
typedef enum { SET_DNA, SET_WORDS } set_kind;

/**
 * Draw n distinct patterns of min_m..max_m bytes (each length equally likely for DNA; a
 * word's own length, kept when within the range) at random positions of text (xorshift,
 * seeded: reproducible), so every one occurs in it. Returns 0, or -1 when the text does not
 * hold n distinct such patterns within 1000 n tries, or out of memory.
 */
int draw_pattern_set(const char *text, size_t len, set_kind kind, unsigned n, size_t min_m,
                     size_t max_m, uint64_t seed, pattern_set *out);
void free_pattern_set(pattern_set *set);

typedef enum { REF_EXACT, REF_HAMMING, REF_EDIT } ref_kind;

/**
 * Host reference, computed on every host core: for each of n limits (each <= len, ascending
 * or not), hist[i][d] = the number of matches ending at or before limits[i] whose (smallest)
 * edit count is d, d = 0..k:
 *  - REF_EXACT: every occurrence (overlapping ones included), hist[i][0]; KMP for periodic
 *    patterns, else Horspool;
 *  - REF_HAMMING: every start with at most k substitutions (bit-parallel, m <= 64);
 *  - REF_EDIT: every end position with Levenshtein distance <= k to some text ending there
 *    (Myers' bit-vector algorithm, m <= 64).
 * Returns 0, or -1 when the pattern is too long for the kind or k > BENCH_MAX_K.
 */
int host_reference(const char *text, size_t len, const char *pat, size_t m, ref_kind kind,
                   unsigned k, const size_t *limits, size_t n,
                   uint64_t (*hist)[BENCH_MAX_K + 1]);

/**
 * Host reference of a pattern set, on every host core: counts[i] = every occurrence of every
 * pattern (overlapping ones included, each pattern's own) ending at or before limits[i], as
 * host_reference does for one. An Aho-Corasick automaton over the set's byte classes: one
 * table step per text byte, whatever the number of patterns. Returns 0, or -1 when out of
 * memory.
 */
int host_reference_set(const char *text, size_t len, const pattern_set *set,
                       const size_t *limits, size_t n, uint64_t *counts);

/* ---- bandwidth.c: the device's own bandwidths, measured with plain OpenCL --------------- */

/* Thread counts of the host-read yardstick: 1, 2, 4, 8, 16, capped at the CPUs (the cap
 * itself is the last one: it is what clmatch reads with by default). */
#define HOST_READ_COUNTS 6

typedef struct bw_result {
    int ok;                     /* 1 when the read bandwidth was measured */
    char error[256];            /* why not (or a warning) */
    double read_gbs;            /* global-memory read bandwidth, median */
    double read_gbs_best;
    const char *read_kernel;    /* access pattern that won: "interleaved" or "blocked" */
    uint64_t read_bytes;        /* buffer size used */
    uint64_t cache_bytes;       /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
    double h2d_pageable_gbs;    /* clEnqueueWriteBuffer from malloc memory, median; 0 if failed */
    double h2d_pinned_gbs;      /* ... from a mapped CL_MEM_ALLOC_HOST_PTR buffer */
    uint64_t h2d_bytes;
    /* Host read: pread of a file in the page cache (h2d_bytes of it) into that mapped pinned
     * buffer, split over n threads as clm_scan_fd reads a slab; 0 where not measured. */
    int host_read_counts;
    unsigned host_read_threads[HOST_READ_COUNTS];
    double host_read_gbs[HOST_READ_COUNTS];      /* median */
    double host_read_gbs_best[HOST_READ_COUNTS];
} bw_result;

/**
 * Measure the device's global-memory read bandwidth (buffer of at least read_bytes, raised to
 * 4x its cache, capped by its max allocation) and host->device bandwidth (h2d_bytes), each
 * for about target_s seconds; with read_fd >= 0 (a file of at least h2d_bytes, in the page
 * cache) also the host's read rate into pinned memory by 1, 2, 4, ... threads. The device is
 * platform_index:device_index in the order of clGetPlatformIDs /
 * clGetDeviceIDs(CL_DEVICE_TYPE_ALL), the order clm_list_devices uses; expected_name guards
 * that. Never exits; failures land in out->error.
 */
void bw_measure(int platform_index, int device_index, const char *expected_name,
                uint64_t read_bytes, uint64_t h2d_bytes, int read_fd, double target_s,
                bw_result *out);
/** The thread counts of the host-read yardstick on this host; returns how many (<=
 *  HOST_READ_COUNTS). */
int host_read_thread_counts(unsigned counts[HOST_READ_COUNTS]);
/** The host-read row's best median and its thread count (0 when not measured). */
double host_read_best(const bw_result *bw, unsigned *threads);

/* ---- the scenarios ---------------------------------------------------------------------- */

/* Suites: groups of scenarios, selected with --suite (repeatable). */
enum {
    SUITE_BASIC = 1u << 0,  /* exact m = 13 and 32 on the genome (the first bench) */
    SUITE_EXACT = 1u << 1,  /* exact m = 4 ... 64 on the genome */
    SUITE_LONG = 1u << 2,   /* exact m = 256, 1000 on the genome */
    SUITE_APPROX = 1u << 3, /* bitap with k = 1..3 edits or mismatches, m = 13 and 32 */
    SUITE_WORST = 1u << 4,  /* the all-'a' text, and a non-matching pattern on the genome */
    SUITE_QUICK = 1u << 5,  /* one or two scenarios of each kind (--quick's default) */
    SUITE_MULTI = 1u << 6,  /* sets of 10 to 100 000 patterns: DNA on the genome, words on
                               the English corpus (not in full: a run of its own) */
    SUITE_FULL = SUITE_EXACT | SUITE_LONG | SUITE_APPROX | SUITE_WORST
};

typedef enum { TEXT_GENOME = 0, TEXT_ALL_A = 1, TEXT_CORPUS = 2 } text_kind;

typedef struct bench_scenario {
    char id[32];                /* "exact-13", "edit-k2-m32", "worst-a255b", ... */
    char title[96];             /* "exact, m = 13" */
    unsigned suites;            /* SUITE_* bits it belongs to */
    text_kind text;
    char *bytes;                /* the pattern (owned) */
    size_t len;
    unsigned k;                 /* max_errors */
    unsigned flags;             /* compile flags: CLM_MISMATCHES_ONLY */
    unsigned algo_mask;         /* explicit algorithms tried: bit (1 << clm_algorithm) */
    int count_only;             /* 1: clm_count only (every position matches: a clm_scan
                                   would time the delivery of ~1 match per byte) */
    int path_rows;              /* 1: also the automatic choice on each data path (by default
                                   one scenario; --data-path: every scenario) */
    char origin[96];            /* "genome offset 1000000", "--pattern", "xorshift seed 1" */
    pattern_set *set;           /* the multi suite: the patterns searched (owned; bytes/len
                                   are then its first pattern and its longest length) */
} bench_scenario;

/* ---- the results ------------------------------------------------------------------------ */

typedef struct bench_device {
    clm_device_info info;
    uint64_t text_bytes;        /* bytes of the genome text this device scans */
    uint64_t worst_bytes;       /* bytes of the all-'a' text this device scans */
    bw_result bw;
    char tuning[1024];          /* "tuning VALUES (SOURCES)" as clm_device_open resolved it:
                                   CLMATCH_TUNE, e.g. stage=off or vec=8, shows here */
} bench_device;

typedef enum { ROW_OK, ROW_UNSUPPORTED, ROW_ERROR } row_status;

typedef struct bench_row {
    int device;                 /* index into the bench_device array */
    int scenario;               /* index into the bench_scenario array */
    clm_algorithm algorithm;    /* asked for (CLM_ALGO_AUTO: the automatic-choice row) */
    clm_variant variant;        /* asked for */
    clm_table_memory table;     /* asked for */
    clm_data_path data_path;    /* asked for: CLM_PATH_AUTO, except the rows of the automatic
                                   kernel on one data path each */
    clm_data_path got_path;     /* what the scratch used (clm_scratch_get_info) */
    clm_algorithm got_algorithm;/* what the database reports (clm_database_get_info) */
    clm_variant got_variant;
    clm_table_memory got_table;
    char choice[256];           /* clm_database_info.choice */
    row_status status;
    char note[512];             /* unsupported reason, error, or a remark */
    uint64_t bytes;             /* text bytes scanned per call */
    double compile_s;
    double warmup_count_s, warmup_scan_s;
    int count_reps, scan_reps;
    int cut;                    /* 1 when --max-time cut a timed loop short of --min-reps */
    double kernel_med_s, kernel_min_s;  /* 0 when the library gave no kernel time */
    double count_med_s, count_min_s;
    double scan_med_s, scan_min_s;
    uint64_t matches;           /* clm_count result */
    uint64_t expected;          /* host reference */
    uint64_t expected_hist[BENCH_MAX_K + 1]; /* host reference by edit count */
    uint64_t scan_hist[BENCH_MAX_K + 1];     /* clm_scan's matches by edit count */
    int mismatch;               /* 1 when a count disagreed with the reference or itself */
    unsigned work_group_size, bytes_per_item;
    int cache_hit;              /* clm_database_info.cache_hit: compile_s had no kernel build */
    uint64_t table_bytes;       /* clm_database_info.table_bytes: device memory of every
                                   engine's pattern tables */
    uint64_t local_table_bytes; /* clm_database_info.local_table_bytes: local memory a
                                   work-group fills with tables (0: none) */
} bench_row;

typedef struct bench_report {
    const char *label;
    char date[32];              /* YYYY-MM-DD */
    char timestamp[64];         /* ISO 8601 with zone */
    char host[512];             /* hostname, OS, arch */
    char cpu[256];              /* model name */
    char suites[128];           /* "full", "basic", "exact+approx", ... */
    char filters[256];          /* "--algo dfa --table local", or "" */
    const char *genome_path;
    size_t genome_bytes;
    const char *corpus_path;    /* the multi suite's English text; NULL when not read */
    size_t corpus_bytes;
    uint64_t text_bytes;
    double time_per_row, max_time_per_row;
    int min_reps, quick;
    const bench_device *devices;
    int device_count;
    const bench_scenario *scenarios;
    int scenario_count;
    const bench_row *rows;
    int row_count;
    int mismatches, errors;
    double run_seconds;
} bench_report;

/* ---- report.c --------------------------------------------------------------------------- */

/** "bitap/reduce" for bitap, else the algorithm's name ("dfa"). */
const char *kind_name(clm_algorithm a, clm_variant v, char *buf, size_t n);
/** The markdown report (header, summary, tables). */
void report_markdown(FILE *f, const bench_report *r);
/** One CSV line per row, with a header line. */
void report_csv(FILE *f, const bench_report *r);

#endif /* CLMATCH_BENCH_H */
