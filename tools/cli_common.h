/*
 * What the two modes of the clmatch CLI share (tools/clmatch.c, and tools/dna.c for --dna):
 * the output buffer, messages, the device and kernel options, operands, device setup,
 * timings and the end of main. One copy, so that both modes word their messages alike.
 */
#ifndef CLMATCH_CLI_COMMON_H
#define CLMATCH_CLI_COMMON_H

#include "clmatch.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { EXIT_MATCH = 0, EXIT_NO_MATCH = 1, EXIT_TROUBLE = 2 };

#define DEFAULT_BLOCK_BYTES ((size_t)16 << 20)
#define OUT_BUF_BYTES ((size_t)1 << 20)

/* ---- output: our own buffer, because a stdio call per field (three or four per match) costs
 * a lock each and dominates -o / --positions on inputs with many matches. The small writers
 * are inline: they run once per field. ---- */

typedef struct {
    char *buf;
    size_t len, cap;
    int failed; /* errno of the first failed write, 0 if none */
} cli_output;

extern cli_output cli_out;

/* Called with 1 before and 0 after each write of out_flush and errmsg (tools/progress.c
 * clears its line and keeps it off meanwhile); NULL: nothing to do. */
extern void (*cli_write_hook)(int before);

void out_flush(void);

static inline void out_bytes(const void *p, size_t n)
{
    if (n > cli_out.cap - cli_out.len) {
        out_flush();
        if (n > cli_out.cap) { /* too big to buffer: write it straight through */
            if (!cli_out.failed && fwrite(p, 1, n, stdout) != n)
                cli_out.failed = errno ? errno : EIO;
            return;
        }
    }
    memcpy(cli_out.buf + cli_out.len, p, n);
    cli_out.len += n;
}

static inline void out_str(const char *s)
{
    out_bytes(s, strlen(s));
}

static inline void out_char(char ch)
{
    if (cli_out.len == cli_out.cap)
        out_flush();
    cli_out.buf[cli_out.len++] = ch;
}

/* The decimal digits of v at the end of tmp; returns where they start. */
static inline size_t u64_digits(uint64_t v, char tmp[20])
{
    size_t i = 20;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return i;
}

static inline void out_u64(uint64_t v)
{
    char tmp[20];
    size_t i = u64_digits(v, tmp);
    out_bytes(tmp + i, sizeof tmp - i);
}

/* Allocate the buffer and make stdout unbuffered (our buffer hands stdio whole megabytes).
 * Returns 0, or -1 after a message. */
/* "auto, naive, ... or witness": the algorithm names, for help texts and messages. */
const char *cli_algorithm_names(void);
int cli_output_init(void);

/* The end of main: flush what is buffered, report a failed final flush of stdout (unless the
 * status already says trouble), free the buffer. Returns the exit status. */
int cli_output_finish(int status);

/* ---- messages ---- */

/* "clmatch: " + the message + newline on stderr, after flushing stdout. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void errmsg(const char *fmt, ...);

/* A library failure: what we were doing, the status name, then the library's detail (which
 * lists the platforms/devices that exist, says how to install OpenCL, or holds a build log). */
void report_clm(const char *what, int status);

/* The two-line usage hint on stderr; mode is "" or "--dna ". */
void cli_usage_hint(const char *mode);

/* Bytes p[0, n) (a pattern, a record name) as a message quotes them: whole, NUL bytes
 * included, printable ASCII as is, a backslash as \\ and every other byte as \xHH. A malloc'd
 * string to free, or NULL when out of memory. */
char *cli_quote_bytes(const void *p, size_t n);

/* ---- options ---- */

/* Option codes shared by both modes' long-option tables; each mode numbers its own options
 * from CLI_OPT_LOCAL on. */
enum {
    CLI_OPT_ALGORITHM = 256, /* --algorithm: -a too, except in the main mode (grep's --text) */
    CLI_OPT_VARIANT,
    CLI_OPT_TABLE_MEMORY,
    CLI_OPT_BLOCK_SIZE,
    CLI_OPT_DATA_PATH,
    CLI_OPT_MAX_MEMORY,
    CLI_OPT_LOCAL
};

/* Their entries in a struct option table. */
#define CLI_DEVICE_LONG_OPTIONS                                                              \
    {"platform", required_argument, NULL, 'p'},                                              \
    {"device", required_argument, NULL, 'd'},                                                \
    {"algorithm", required_argument, NULL, CLI_OPT_ALGORITHM},                               \
    {"variant", required_argument, NULL, CLI_OPT_VARIANT},                                   \
    {"table-memory", required_argument, NULL, CLI_OPT_TABLE_MEMORY},                         \
    {"block-size", required_argument, NULL, CLI_OPT_BLOCK_SIZE},                             \
    {"data-path", required_argument, NULL, CLI_OPT_DATA_PATH},                               \
    {"max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY}

/* Device and kernel options (-p -d -a --variant --table-memory --block-size --data-path
 * --max-memory). */
typedef struct {
    int platform, device; /* -1: automatic */
    clm_algorithm algorithm;
    clm_variant variant;
    clm_table_memory table_memory;
    size_t block_bytes;
    clm_data_path data_path;
    size_t max_memory; /* 0: no budget */
    size_t slab_bytes; /* 0: the device's (CLMATCH_SLAB_BYTES, the tuning) */
    unsigned slots;    /* 0: the library's (CLMATCH_SLOTS, else 2) */
} cli_device_opts;

/* Help lines of --data-path and --max-memory (both modes print them). */
#define CLI_DATA_PATH_HELP                                                                   \
    "      --data-path=PATH      how text reaches the device: auto, copy, pinned, zero-copy\n" \
    "                            or svm (default auto: CLMATCH_DATA_PATH, else pinned on\n"    \
    "                            GPUs, zero-copy on CPUs)\n"                                   \
    "      --max-memory=BYTES    bound the device buffers and host staging (K, M, G\n"         \
    "                            suffixes); the slab shrinks to fit\n"

void cli_device_opts_init(cli_device_opts *o);

/* A non-negative int (no sign, no space). Returns 0 or -1. */
int cli_parse_index(const char *s, int *out_index);

/* Handle option opt with argument arg if it is one of the device options. block_div bounds
 * --block-size to SIZE_MAX / block_div (room for what the caller adds to a block);
 * device_hint is appended to the message for a bad -d. Returns 1 when opt is not a device
 * option, 0 when handled, -1 after a message. */
int cli_device_option(int opt, const char *arg, cli_device_opts *o, unsigned block_div,
                      const char *device_hint);

/* getopt_long returned ':' or '?': report it (suffix after the message, e.g. " in DNA
 * mode"), then the usage hint. Returns EXIT_TROUBLE. */
int cli_option_error(int opt, char **argv, const char *mode, const char *suffix);

/* --mismatches-only without -k K >= 1. Returns 0, or -1 after a message and the hint. */
int cli_check_mismatches(int mismatches_only, unsigned max_errors, const char *mode);

/* The operands after the options: when need_pattern, the first one is the PATTERN (appended
 * to pattern_args); the rest are files. Returns 0, or -1 after a message and the hint. */
int cli_operands(int argc, char **argv, int need_pattern, const char **pattern_args,
                 size_t *n_pattern_args, char ***files, size_t *n_files, const char *mode);

/* Run fn on each of n parts (part i at (char *)parts + i * size): parts 1 to n - 1 on threads
 * of their own (up to CLI_MAX_PARTS; on this one where a thread cannot be had), part 0 here;
 * returns when all are done. */
#define CLI_MAX_PARTS 64
void cli_run_parts(void *parts, size_t size, unsigned n, void *(*fn)(void *));

/* ---- device setup and timings ---- */

/* Where the run's time went, for --stats (seconds). cli_open_device, cli_compile and
 * cli_alloc_scratch fill their own; the modes fill start. */
typedef struct cli_timings {
    double start;   /* now_seconds() when main() began */
    double open;    /* cli_open_device: clm_device_open */
    double compile; /* cli_compile: clm_compile */
    double scratch; /* cli_alloc_scratch: clm_scratch_alloc */
    int opened;     /* an OpenCL device was opened: cli_exit_early hands its teardown off */
} cli_timings;
extern cli_timings cli_time;

/* Open the device the options name (-d alone: a device of platform 0). 0, or -1 after a
 * message (*dev NULL). */
int cli_open_device(const cli_device_opts *o, clm_device **dev);

/* clm_compile, timed into cli_time.compile; its status (the caller reports a failure).
 * Exact ends (exact_head, exact_tail) are a speed-up its callers also check themselves: where
 * the algorithm cannot keep them (CLM_E_UNSUPPORTED), it compiles without them. */
int cli_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                const unsigned *ids, unsigned count, const clm_compile_options *opts,
                clm_database **db);

/* A scratch with the options' data path and memory budget. 0, or -1 after a message
 * (*scratch NULL). */
int cli_alloc_scratch(clm_database *db, const cli_device_opts *o, clm_scratch **scratch);

double now_seconds(void);

/* Read until buf is full or the input ends. Returns 0 or an errno; *eof set at the end. */
int read_block(int fd, unsigned char *buf, size_t want, size_t *got, int *eof);
/* The whole of fd into a malloc'd buffer, NUL-terminated after its *len bytes. 0, or an
 * errno (ENOMEM, a read's). */
int read_fd_all(int fd, unsigned char **out, size_t *len);
/* The whole of the file at path ("-": standard input) into *data (malloc'd, NUL-terminated).
 * 0, or -1 after a message. */
int read_path_all(const char *path, char **data, size_t *len);

/* '\n' or '\r': what a CLM_STREAM_SKIP_LINE_BREAKS stream drops. */
static inline int is_line_break(unsigned char c)
{
    return c == '\n' || c == '\r';
}

/* The bytes of p[0, n) that are a or b. */
size_t count_either(const unsigned char *p, size_t n, unsigned char a, unsigned char b);
/* The newlines in p[0, n). */
size_t count_newlines(const unsigned char *p, size_t n);

/* --stats pieces: " — CHOICE" (when the library gave one) and the newline; "kernel S s
 * (GB/s), transfers S s, in library S s" and the newline; "clmatch: setup S s (device,
 * compile), search end-to-end S s" (the caller ends the line). */
void cli_stats_choice(const clm_database_info *dbi);
/* "clmatch: tuning wg=..,chunk=.. from built-in ..., profile FILE, CLMATCH_TUNE" and newline. */
void cli_stats_tuning(const clm_device *dev);
void cli_stats_kernel(const clm_stats *s);
void cli_stats_setup(double setup_s, double search_s);
/* "clmatch: data path P — why" and "clmatch: slab N bytes + overlap, ..., memory M bytes
 * (...) of a B-byte budget", each with its newline. */
void cli_stats_scratch(const clm_scratch *scratch);
/* The breakdown of setup_s and search_s (cli_time, the device's open timings, the scratch's
 * statistics): "clmatch: start-up S s: platforms S s, devices S s, context S s, compile S s,
 * scratch S s, rest S s" and "clmatch: search S s: read S s (GB/s, N I/O threads), buffers
 * S s, launches S s, device waits S s, rest S s", each with its newline. */
void cli_stats_breakdown(const clm_device *dev, const clm_database *db,
                         const clm_scratch *scratch, double setup_s, double search_s);
/* Free the scratch, the database and the device (each may be NULL); with stats, then print
 * "clmatch: teardown S s: scratch S s, database S s, device S s; process S s" (process: from
 * cli_time.start to now). */
void cli_teardown(clm_scratch *scratch, clm_database *db, clm_device *dev, int stats);
/* Once the output is flushed (cli_output_finish): exit with status at once, leaving the
 * devices to the operating system, unless stats asks for the teardown's timings. A GPU
 * driver's context release takes tens of milliseconds, and an early set's GPU may still be
 * coming up: the exit status need not wait for either. Where a device was opened
 * (cli_time.opened) and CLMATCH_EXIT is not `wait`, a child process holds the device's files
 * until this one is gone, so that the driver's teardown runs in it, after the exit status
 * (0.15 s of a 0.6 s run on the H200 machine); its standard streams, pipes and sockets are
 * closed first, so a reader of the output sees its end at once. */
void cli_exit_early(int status, int stats);

#endif
