/*
 * The parts of the clmatch CLI that its two modes share (cli_common.h).
 */
#include "cli_common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

cli_output cli_out;
cli_timings cli_time;
void (*cli_write_hook)(int before);

/* ---------------------------------------------------------------------------------------- */
/* Output                                                                                     */
/* ---------------------------------------------------------------------------------------- */

void out_flush(void)
{
    if (cli_write_hook)
        cli_write_hook(1);
    if (cli_out.len > 0 && !cli_out.failed &&
        fwrite(cli_out.buf, 1, cli_out.len, stdout) != cli_out.len)
        cli_out.failed = errno ? errno : EIO;
    cli_out.len = 0;
    if (cli_write_hook)
        cli_write_hook(0);
}


const char *cli_algorithm_names(void)
{
    static char names[256];
    if (!names[0]) {
        size_t n = 0;
        unsigned count = clm_algorithm_count();
        for (unsigned i = 0; i < count; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                                  i == 0 ? "" : i + 1 == count ? " or " : ", ",
                                  clm_algorithm_name((clm_algorithm)i));
    }
    return names;
}

int cli_output_init(void)
{
    cli_out.cap = OUT_BUF_BYTES;
    cli_out.buf = malloc(cli_out.cap);
    if (!cli_out.buf) {
        cli_out.cap = 0;
        errmsg("out of memory");
        return -1;
    }
    /* Our buffer hands stdio whole megabytes; a second copy in stdio would only cost. */
    if (setvbuf(stdout, NULL, _IONBF, 0) != 0) {
        errmsg("cannot set up standard output");
        return -1;
    }
    return 0;
}

int cli_output_finish(int status)
{
    if (cli_out.buf)
        out_flush();
    if (fflush(stdout) != 0 && status != EXIT_TROUBLE) {
        fprintf(stderr, "clmatch: write error: %s\n", strerror(errno));
        status = EXIT_TROUBLE;
    }
    free(cli_out.buf);
    cli_out.buf = NULL;
    cli_out.len = cli_out.cap = 0;
    return status;
}

/* ---------------------------------------------------------------------------------------- */
/* Messages                                                                                   */
/* ---------------------------------------------------------------------------------------- */

void errmsg(const char *fmt, ...)
{
    va_list ap;
    if (cli_write_hook)
        cli_write_hook(1);
    if (cli_out.buf)
        out_flush(); /* keep stdout and stderr in order on a terminal */
    (void)fflush(stdout);
    fputs("clmatch: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (cli_write_hook)
        cli_write_hook(0);
}

void report_clm(const char *what, int status)
{
    /* Copy the detail first: it stays valid only until the next library call. */
    const char *detail = clm_last_error();
    char *copy = NULL;
    if (detail && *detail) {
        size_t n = strlen(detail);
        copy = malloc(n + 1);
        if (copy)
            memcpy(copy, detail, n + 1);
    }
    errmsg("%s: %s", what, clm_strerror(status));
    if (copy) {
        size_t n = strlen(copy);
        while (n > 0 && copy[n - 1] == '\n')
            copy[--n] = '\0';
        fprintf(stderr, "clmatch: %s\n", copy);
        free(copy);
    }
}

char *cli_quote_bytes(const void *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = p;
    char *q = n < SIZE_MAX / 4 ? malloc(4 * n + 1) : NULL, *o = q;
    size_t i;
    if (!q)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == '\\') {
            *o++ = '\\';
            *o++ = '\\';
        } else if (s[i] >= 0x20 && s[i] < 0x7f) {
            *o++ = (char)s[i];
        } else {
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[s[i] >> 4];
            *o++ = hex[s[i] & 15];
        }
    }
    *o = '\0';
    return q;
}

void cli_usage_hint(const char *mode)
{
    fprintf(stderr,
            "Usage: clmatch %s[OPTIONS] PATTERN [FILE...]\n"
            "Try 'clmatch %s--help' for more information.\n",
            mode, mode);
}

/* ---------------------------------------------------------------------------------------- */
/* Options                                                                                    */
/* ---------------------------------------------------------------------------------------- */

void cli_device_opts_init(cli_device_opts *o)
{
    o->platform = o->device = -1;
    o->algorithm = CLM_ALGO_AUTO;
    o->variant = CLM_VARIANT_AUTO;
    o->table_memory = CLM_TABLE_AUTO;
    o->block_bytes = DEFAULT_BLOCK_BYTES;
    o->data_path = CLM_PATH_AUTO;
    o->max_memory = 0;
    o->slab_bytes = 0;
    o->slots = 0;
}

int cli_parse_index(const char *s, int *out_index)
{
    char *end;
    long v;
    if (*s < '0' || *s > '9') /* strtol would accept spaces and signs */
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v > INT_MAX)
        return -1;
    *out_index = (int)v;
    return 0;
}

static int parse_size(const char *s, size_t *out_size, unsigned div)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (SIZE_MAX >> shift) / div)
        return -1;
    *out_size = (size_t)v << shift;
    return 0;
}

int cli_device_option(int opt, const char *arg, cli_device_opts *o, unsigned block_div,
                      const char *device_hint)
{
    switch (opt) {
    case 'p':
        if (cli_parse_index(arg, &o->platform) != 0) {
            errmsg("invalid platform index '%s' (expected a number >= 0)", arg);
            return -1;
        }
        return 0;
    case 'd':
        if (cli_parse_index(arg, &o->device) != 0) {
            errmsg("invalid device index '%s' (expected a number >= 0%s)", arg, device_hint);
            return -1;
        }
        return 0;
    case 'a':
    case CLI_OPT_ALGORITHM:
        if (clm_algorithm_from_name(arg, &o->algorithm) != CLM_OK) {
            errmsg("unknown algorithm '%s' (expected %s)", arg, cli_algorithm_names());
            return -1;
        }
        return 0;
    case CLI_OPT_VARIANT:
        if (clm_variant_from_name(arg, &o->variant) != CLM_OK) {
            errmsg("unknown variant '%s' (expected auto, item, reduce or subgroup)", arg);
            return -1;
        }
        return 0;
    case CLI_OPT_TABLE_MEMORY:
        if (clm_table_memory_from_name(arg, &o->table_memory) != CLM_OK) {
            errmsg("unknown table memory '%s' (expected auto, global, local or constant)", arg);
            return -1;
        }
        return 0;
    case CLI_OPT_BLOCK_SIZE:
        if (parse_size(arg, &o->block_bytes, block_div) != 0) {
            errmsg("invalid block size '%s' (expected bytes > 0, with K, M or G)", arg);
            return -1;
        }
        return 0;
    case CLI_OPT_DATA_PATH:
        if (clm_data_path_from_name(arg, &o->data_path) != CLM_OK) {
            errmsg("unknown data path '%s' (expected auto, copy, pinned, zero-copy or svm)", arg);
            return -1;
        }
        return 0;
    case CLI_OPT_MAX_MEMORY:
        if (parse_size(arg, &o->max_memory, 1) != 0) {
            errmsg("invalid memory budget '%s' for --max-memory (expected bytes > 0, with K, M "
                   "or G)",
                   arg);
            return -1;
        }
        return 0;
    default:
        return 1;
    }
}

int cli_option_error(int opt, char **argv, const char *mode, const char *suffix)
{
    if (opt == ':')
        errmsg("option '%s' requires an argument", argv[optind - 1]);
    else if (optopt)
        errmsg("invalid option -- '%c'%s", optopt, suffix);
    else
        errmsg("unrecognized option '%s'%s", argv[optind - 1], suffix);
    cli_usage_hint(mode);
    return EXIT_TROUBLE;
}

int cli_check_mismatches(int mismatches_only, unsigned max_errors, const char *mode)
{
    if (mismatches_only && max_errors == 0) {
        errmsg("--mismatches-only needs -k K with K >= 1 (the number of substitutions allowed)");
        cli_usage_hint(mode);
        return -1;
    }
    return 0;
}

int cli_operands(int argc, char **argv, int need_pattern, const char **pattern_args,
                 size_t *n_pattern_args, char ***files, size_t *n_files, const char *mode)
{
    if (need_pattern) {
        if (optind >= argc) {
            errmsg("no PATTERN given");
            cli_usage_hint(mode);
            return -1;
        }
        pattern_args[(*n_pattern_args)++] = argv[optind++];
    }
    *files = argv + optind;
    *n_files = (size_t)(argc - optind);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Device setup, timings                                                                      */
/* ---------------------------------------------------------------------------------------- */

int cli_open_device(const cli_device_opts *o, clm_device **dev)
{
    int p = o->platform, d = o->device, st;
    if (d >= 0 && p < 0)
        p = 0; /* -d alone: a device of the first platform */
    double t0 = now_seconds();
    cli_time.opened = 1;
    st = clm_device_open(p, p < 0 ? -1 : d, dev);
    cli_time.open = now_seconds() - t0;
    if (st != CLM_OK) {
        *dev = NULL;
        report_clm("cannot open an OpenCL device", st);
        return -1;
    }
    /* a profile the library could not use: the search still runs, with built-in values */
    clm_tuning t;
    if (clm_device_get_tuning(*dev, &t, sizeof t) == CLM_OK && t.profile_warning[0])
        errmsg("warning: tuning profile ignored: %s", t.profile_warning);
    return 0;
}

int cli_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                const unsigned *ids, unsigned count, const clm_compile_options *opts,
                clm_database **db)
{
    double t0 = now_seconds();
    int st = clm_compile(dev, patterns, lengths, ids, count, opts, db);
    if (st == CLM_E_UNSUPPORTED && (opts->exact_head || opts->exact_tail)) {
        clm_compile_options plain = *opts;
        plain.exact_head = plain.exact_tail = 0;
        st = clm_compile(dev, patterns, lengths, ids, count, &plain, db);
    }
    cli_time.compile = now_seconds() - t0;
    return st;
}

int cli_alloc_scratch(clm_database *db, const cli_device_opts *o, clm_scratch **scratch)
{
    clm_scratch_options so;
    clm_scratch_options_init(&so, sizeof so);
    so.data_path = o->data_path;
    so.max_memory = o->max_memory;
    so.slab_bytes = o->slab_bytes;
    so.slots = o->slots;
    double t0 = now_seconds();
    int st = clm_scratch_alloc(db, &so, scratch);
    cli_time.scratch = now_seconds() - t0;
    if (st != CLM_OK) {
        *scratch = NULL;
        report_clm("cannot allocate device buffers", st);
        return -1;
    }
    return 0;
}

void cli_run_parts(void *parts, size_t size, unsigned n, void *(*fn)(void *))
{
    pthread_t th[CLI_MAX_PARTS];
    unsigned char started[CLI_MAX_PARTS] = {0};
    char *p = parts;
    for (unsigned i = 1; i < n; i++)
        if (i >= CLI_MAX_PARTS || !(started[i] = pthread_create(&th[i], NULL, fn,
                                                                 p + i * size) == 0))
            fn(p + i * size);
    if (n)
        fn(p);
    for (unsigned i = 1; i < n && i < CLI_MAX_PARTS; i++)
        if (started[i])
            pthread_join(th[i], NULL);
}

double now_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int read_block(int fd, unsigned char *buf, size_t want, size_t *got, int *eof)
{
    *got = 0;
    *eof = 0;
    while (*got < want) {
        ssize_t n = read(fd, buf + *got, want - *got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0) {
            *eof = 1;
            break;
        }
        *got += (size_t)n;
    }
    return 0;
}

int read_fd_all(int fd, unsigned char **out, size_t *len)
{
    size_t cap = 0, n = 0;
    unsigned char *buf = NULL;
    for (int eof = 0; !eof;) {
        if (cap - n < 65536) { /* doubling: a large input is read in linear time */
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char *bigger = ncap < cap ? NULL : realloc(buf, ncap + 1);
            if (!bigger) {
                free(buf);
                return ENOMEM;
            }
            buf = bigger;
            cap = ncap;
        }
        size_t got;
        int err = read_block(fd, buf + n, cap - n, &got, &eof);
        if (err) {
            free(buf);
            return err;
        }
        n += got;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int read_path_all(const char *path, char **data, size_t *len)
{
    const int is_stdin = strcmp(path, "-") == 0;
    const int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        errmsg("%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char *buf;
    int err = read_fd_all(fd, &buf, len);
    if (!is_stdin)
        close(fd);
    if (err) {
        errmsg("%s: %s", path, err == ENOMEM ? "out of memory" : strerror(err));
        return -1;
    }
    *data = (char *)buf;
    return 0;
}

/* Eight bytes at a time: a memchr call per line cost -n more than the search on text of
 * short lines (1.5 GB/s). A byte of x = word ^ '\n'... is zero exactly where the top bit of
 * ((x & 0x7f..) + 0x7f..) | x is clear. */
size_t count_either(const unsigned char *p, size_t n, unsigned char a, unsigned char b)
{
    /* W byte counters of at most 255 hits each, in a loop compilers vectorize */
    enum { W = 32, STEPS = 255 };
    size_t k = 0, i = 0;
    for (; i + W * STEPS <= n; i += W * STEPS) {
        unsigned char acc[W] = {0};
        for (size_t j = 0; j < W * STEPS; j += W)
            for (size_t l = 0; l < W; l++)
                acc[l] += (p[i + j + l] == a) | (p[i + j + l] == b);
        for (size_t l = 0; l < W; l++)
            k += acc[l];
    }
    for (; i < n; i++)
        k += p[i] == a || p[i] == b;
    return k;
}

size_t count_newlines(const unsigned char *p, size_t n)
{
    return count_either(p, n, '\n', '\n');
}

void cli_stats_choice(const clm_database_info *dbi)
{
    if (dbi->choice[0])
        fprintf(stderr, " \xe2\x80\x94 %.*s", (int)sizeof dbi->choice, dbi->choice);
    fprintf(stderr, "\nclmatch: compiled in %.3f s: %u launch(es) per slab, tables %" PRIu64
                    " bytes (%" PRIu64 " in local memory per work-group)\n",
            dbi->compile_seconds, dbi->engines, dbi->table_bytes, dbi->local_table_bytes);
}

void cli_stats_kernel(const clm_stats *s)
{
    fprintf(stderr, "kernel %.6f s", s->kernel_seconds);
    if (s->kernel_seconds > 0)
        fprintf(stderr, " (%.2f GB/s)", (double)s->bytes / s->kernel_seconds / 1e9);
    fprintf(stderr, ", transfers %.6f s, in library %.6f s\n", s->transfer_seconds,
            s->wall_seconds);
}

void cli_stats_tuning(const clm_device *dev)
{
    clm_tuning t;
    if (clm_device_get_tuning(dev, &t, sizeof t) == CLM_OK)
        fprintf(stderr, "clmatch: tuning %s from %s\n", t.values, t.source);
}

void cli_stats_setup(double setup_s, double search_s)
{
    fprintf(stderr, "clmatch: setup %.6f s (device, compile), search end-to-end %.6f s",
            setup_s, search_s);
}

void cli_stats_scratch(const clm_scratch *scratch)
{
    clm_scratch_info si;
    if (clm_scratch_get_info(scratch, &si, sizeof si) != CLM_OK)
        return;
    fprintf(stderr, "clmatch: data path %s \xe2\x80\x94 %.*s\n", clm_data_path_name(si.data_path),
            (int)sizeof si.data_path_choice, si.data_path_choice);
    fprintf(stderr, "clmatch: slab %zu bytes + %zu overlap, %u slots, %u I/O threads (%.*s), "
                    "memory %zu bytes (device %zu, host staging %zu)",
            si.slab_bytes, si.overlap_bytes, si.slots, si.io_threads,
            (int)sizeof si.io_threads_choice, si.io_threads_choice, si.memory_bytes,
            si.device_bytes, si.host_bytes);
    if (si.max_memory)
        fprintf(stderr, " of a %zu-byte budget", si.max_memory);
    fprintf(stderr, ", %zu allocated\n", si.allocated_bytes);
}

/* Where setup and search time went. The device's own split of clm_device_open, the
 * scratch's of its scans; "rest" is what the named parts leave (arguments, patterns and
 * output set-up; sorting and delivering matches, callbacks, printing). */
void cli_stats_breakdown(const clm_device *dev, const clm_database *db,
                         const clm_scratch *scratch, double setup_s, double search_s)
{
    clm_device_info di;
    clm_database_info dbi;
    clm_scratch_info si;
    clm_stats st;
    double named = cli_time.open + cli_time.compile + cli_time.scratch;
    fprintf(stderr, "clmatch: start-up %.4f s:", setup_s);
    if (dev && clm_device_get_info(dev, &di, sizeof di) == CLM_OK)
        fprintf(stderr, " platforms %.4f s, devices %.4f s, context %.4f s (device open %.4f s),",
                di.open_platforms_seconds, di.open_devices_seconds, di.open_context_seconds,
                cli_time.open);
    else
        fprintf(stderr, " device open %.4f s,", cli_time.open);
    fprintf(stderr, " compile %.4f s", cli_time.compile);
    if (db && clm_database_get_info(db, &dbi, sizeof dbi) == CLM_OK)
        fprintf(stderr, " (%s)", dbi.cache_hit ? "from cache" : "built");
    fprintf(stderr, ", scratch %.4f s, rest %.4f s\n", cli_time.scratch,
            setup_s > named ? setup_s - named : 0.0);
    if (!scratch || clm_scratch_get_info(scratch, &si, sizeof si) != CLM_OK ||
        clm_scratch_get_stats(scratch, &st, sizeof st) != CLM_OK)
        return;
    named = st.read_seconds + st.alloc_seconds + st.launch_seconds + st.wait_seconds;
    fprintf(stderr, "clmatch: search %.4f s: read %.4f s", search_s, st.read_seconds);
    if (st.reader_seconds > 0) /* a reader pool: the caller waited, the threads read */
        fprintf(stderr, " waited (reader threads %.4f s, %.2f GB/s, %u I/O threads, %u into a "
                "stream)", st.reader_seconds, (double)st.bytes / st.reader_seconds / 1e9,
                si.io_threads, si.stream_io_threads);
    else if (st.read_seconds > 0)
        fprintf(stderr, " (%.2f GB/s, %u I/O threads)", (double)st.bytes / st.read_seconds / 1e9,
                si.io_threads);
    fprintf(stderr, ", buffers %.4f s, launches %.4f s, device waits %.4f s, rest %.4f s\n",
            st.alloc_seconds, st.launch_seconds, st.wait_seconds,
            search_s > named ? search_s - named : 0.0);
}

/* The child of hand_off_teardown: nothing but async-signal-safe calls (the parent may have
 * held locks in other threads). Its standard streams go to /dev/null and its pipes and
 * sockets are closed; it waits for the parent's end of the pipe to close, then exits,
 * releasing the device's files last. */
static void teardown_child(int wait_fd)
{
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
        dup2(null, fd);
    struct rlimit rl;
    int most = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur
                                                                          : 65536;
    for (int fd = 3; fd < most; fd++) {
        struct stat st;
        if (fd != wait_fd && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
            close(fd);
    }
    char b;
    while (read(wait_fd, &b, 1) < 0 && errno == EINTR)
        ;
    _exit(0);
}

/* Fork the child that outlives this process with the device's files (cli_exit_early). */
static void hand_off_teardown(void)
{
    const char *how = getenv("CLMATCH_EXIT");
    int fds[2];
    if (!cli_time.opened || (how && strcmp(how, "wait") == 0) || pipe(fds) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[1]);
        teardown_child(fds[0]);
    }
    close(fds[0]); /* the parent's write end closes when it exits */
}

void cli_exit_early(int status, int stats)
{
    if (stats) return;
    (void)fflush(stderr);
    hand_off_teardown();
    _exit(status);
}

void cli_teardown(clm_scratch *scratch, clm_database *db, clm_device *dev, int stats)
{
    double t0 = now_seconds();
    clm_scratch_free(scratch);
    double t1 = now_seconds();
    clm_database_free(db);
    double t2 = now_seconds();
    clm_device_close(dev);
    double t3 = now_seconds();
    if (stats && dev)
        fprintf(stderr, "clmatch: teardown %.4f s: scratch %.4f s, database %.4f s, device %.4f "
                        "s; process %.4f s (main to here)\n",
                t3 - t0, t1 - t0, t2 - t1, t3 - t2, t3 - cli_time.start);
}
