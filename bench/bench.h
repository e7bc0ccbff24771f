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

/* ---- text.c: the input text and its patterns -------------------------------------------- */

/** Read a whole file. Returns 0, or -1 with errno set. *data is NUL-terminated. */
int read_file(const char *path, char **data, size_t *len);
/** The file's bytes repeated (the last copy cut) to exactly size bytes; NULL when out of
 *  memory. */
char *replicate(const char *file, size_t file_len, size_t size);
/** m bytes of genome sequence at a fixed place of a FASTA file: the start of the first
 *  sequence line (not a header) at or after `from`, long enough for m bytes. Writes the
 *  pattern to out[0..m) and its file offset to *offset; -1 if there is no such line. */
int pick_pattern(const char *file, size_t file_len, size_t from, size_t m, char *out,
                 size_t *offset);
/** Host reference: counts[k] = occurrences (overlapping) of pat that end within
 *  text[0, limits[k]), for each of n limits (each <= len). Horspool. */
void host_count(const char *text, size_t len, const char *pat, size_t m, const size_t *limits,
                uint64_t *counts, size_t n);

/* ---- bandwidth.c: the device's own bandwidths, measured with plain OpenCL --------------- */

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
} bw_result;

/**
 * Measure the device's global-memory read bandwidth (buffer of at least read_bytes, raised to
 * 4x its cache, capped by its max allocation) and host->device bandwidth (h2d_bytes), each
 * for about target_s seconds. The device is platform_index:device_index in the order of
 * clGetPlatformIDs / clGetDeviceIDs(CL_DEVICE_TYPE_ALL), the order clm_list_devices uses;
 * expected_name guards that. Never exits; failures land in out->error.
 */
void bw_measure(int platform_index, int device_index, const char *expected_name,
                uint64_t read_bytes, uint64_t h2d_bytes, double target_s, bw_result *out);

/* ---- the results ------------------------------------------------------------------------ */

typedef struct bench_pattern {
    char *bytes;
    size_t len;
    int from_genome;            /* 1: picked from the genome; 0: --pattern */
    size_t genome_offset;       /* file offset when from_genome */
} bench_pattern;

typedef struct bench_device {
    clm_device_info info;
    uint64_t text_bytes;        /* bytes of the text this device scans */
    bw_result bw;
} bench_device;

typedef enum { ROW_OK, ROW_UNSUPPORTED, ROW_ERROR } row_status;

typedef struct bench_row {
    int device;                 /* index into the bench_device array */
    int pattern;                /* index into the bench_pattern array */
    clm_algorithm algorithm;
    clm_table_memory table;
    row_status status;
    char note[512];             /* unsupported reason, error, or a remark */
    uint64_t bytes;             /* text bytes scanned per call */
    double compile_s;
    double warmup_count_s, warmup_scan_s;
    int count_reps, scan_reps;
    double kernel_med_s, kernel_min_s;  /* 0 when the library gave no kernel time */
    double count_med_s, count_min_s;
    double scan_med_s, scan_min_s;
    uint64_t matches;           /* clm_count result */
    uint64_t expected;          /* host reference */
    int mismatch;               /* 1 when a count disagreed with the reference or itself */
    unsigned work_group_size, bytes_per_item;
} bench_row;

typedef struct bench_report {
    const char *label;
    char date[32];              /* YYYY-MM-DD */
    char timestamp[64];         /* ISO 8601 with zone */
    char host[512];             /* hostname, OS, arch */
    char cpu[256];              /* model name */
    const char *genome_path;
    size_t genome_bytes;
    uint64_t text_bytes;
    double time_per_row, max_time_per_row;
    int min_reps, quick;
    const bench_device *devices;
    int device_count;
    const bench_pattern *patterns;
    int pattern_count;
    const bench_row *rows;
    int row_count;
    int mismatches, errors;
} bench_report;

/* ---- report.c --------------------------------------------------------------------------- */

/** The markdown report (header, summary, table). */
void report_markdown(FILE *f, const bench_report *r);
/** One CSV line per row, with a header line. */
void report_csv(FILE *f, const bench_report *r);

#endif /* CLMATCH_BENCH_H */
