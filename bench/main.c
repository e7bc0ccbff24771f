/*
 * clmatch-bench — every algorithm x table memory on every device, on the real U. maydis
 * genome repeated to ~1 GB (GPU) / 256 MB (CPU), against the device's own read bandwidth.
 *
 * Per row (device, algorithm, table memory, pattern): compile, allocate a scratch, then
 *  - clm_count: one warm-up call, then timed calls; kernel time from the scratch stats
 *    (profiling events) gives "kernel GB/s", the call's wall time "end-to-end count GB/s";
 *  - clm_scan with a counting callback: the same, wall time only ("end-to-end scan GB/s").
 * Every count is checked against a host reference (Horspool) for the same bytes.
 * See bench/README.md for the method and the columns.
 *
 * Exit status: 0 success, 1 a count mismatch or a failed row, 2 bad arguments or input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

enum {
    MAX_DEVICES = 64,
    MAX_USER_PATTERNS = 32,
    MAX_REPS = 1000,
    DEFAULT_PATTERN_OFFSET = 1000000 /* where the built-in patterns are taken from */
};

static const size_t default_pattern_lengths[] = {13, 32}; /* 13: the seed paper's length */

typedef struct options {
    const char *genome_path;
    uint64_t size;              /* 0: by device types */
    uint64_t cpu_size;          /* most bytes a CPU device scans; 0: the whole text */
    double time_per_row;        /* target seconds per row (count + scan) */
    double max_time_per_row;    /* hard cut per row; 0: 4x time_per_row */
    int min_reps;
    int quick;
    int write_files;
    int measure_bandwidth;
    uint64_t read_bytes, h2d_bytes; /* 0: by device type */
    const char *out_dir;
    const char *label;
    int device_count;
    int device_platform[MAX_DEVICES], device_index[MAX_DEVICES];
    int user_pattern_count;
    const char *user_patterns[MAX_USER_PATTERNS];
    unsigned algo_mask, table_mask; /* bit (1 << enum value); 0: all */
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: " BENCH_PROG " [OPTIONS]\n"
        "Benchmark every algorithm x table memory of libclmatch on every OpenCL device.\n"
        "\n"
        "  --genome FILE     FASTA to replicate (default data/umaydis.fa; tools/fetch-genome.sh)\n"
        "  --size BYTES      text size, suffix K/M/G (default 1G when a GPU is benched,\n"
        "                    else 256M; 32M with --quick)\n"
        "  --cpu-size BYTES  CPU devices scan only the first BYTES of the text (default: all;\n"
        "                    e.g. 256M keeps the rows of a slow CPU beside a GPU short)\n"
        "  --device P:D      bench only this device (repeatable; default: all)\n"
        "  --pattern STR     also search for STR (repeatable)\n"
        "  --algo NAME       only naive, kmp or dfa (repeatable)\n"
        "  --table NAME      only global, local or constant (repeatable)\n"
        "  --time SECONDS    target time per row, split between count and scan (default 1)\n"
        "  --max-time SEC    cut the timed calls of a row after this (default 4x --time)\n"
        "  --min-reps N      at least N timed calls unless cut (default 3)\n"
        "  --quick           small text and short times (a smoke test)\n"
        "  --out DIR         where to write LABEL-DATE.md and .csv (default bench/results)\n"
        "  --label NAME      name of the results (default: the host name)\n"
        "  --no-files        print the report only\n"
        "  --no-bandwidth    skip the read/transfer bandwidth yardsticks\n"
        "  --read-bytes B    read-bandwidth buffer (default 1G GPU, 256M CPU; raised to 4x cache)\n"
        "  --h2d-bytes B     host->device transfer size (default 256M)\n"
        "  -h, --help        this help\n"
        "\n"
        "Exit status: 0 success, 1 a count mismatch or a failed row, 2 bad arguments or input.\n");
}

/* ---- arguments ------------------------------------------------------------------------- */

static int bad_arg(const char *opt, const char *value, const char *why)
{
    fprintf(stderr, BENCH_PROG ": %s '%s': %s (see --help)\n", opt, value ? value : "", why);
    return 2;
}

/* 0 on success, else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->genome_path = "data/umaydis.fa";
    o->time_per_row = 1.0;
    o->min_reps = 3;
    o->write_files = 1;
    o->measure_bandwidth = 1;
    o->out_dir = "bench/results";
    int time_set = 0, size_set = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        /* Options without a value first. */
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
            continue;
        } else if (!strcmp(a, "--no-files")) {
            o->write_files = 0;
            continue;
        } else if (!strcmp(a, "--no-bandwidth")) {
            o->measure_bandwidth = 0;
            continue;
        }
        if (a[0] != '-' || a[1] != '-') {
            fprintf(stderr, BENCH_PROG ": unexpected argument '%s' (see --help)\n", a);
            return 2;
        }
        if (!v)
            return bad_arg(a, "", "needs a value");
        i++;
        if (!strcmp(a, "--genome")) {
            o->genome_path = v;
        } else if (!strcmp(a, "--size")) {
            if (parse_size(v, &o->size) != 0 || o->size == 0)
                return bad_arg(a, v, "not a size like 64M or 1G");
            size_set = 1;
        } else if (!strcmp(a, "--cpu-size")) {
            if (parse_size(v, &o->cpu_size) != 0)
                return bad_arg(a, v, "not a size like 256M (0 = whole text)");
        } else if (!strcmp(a, "--read-bytes")) {
            if (parse_size(v, &o->read_bytes) != 0 || o->read_bytes < 4096)
                return bad_arg(a, v, "not a size of at least 4K");
        } else if (!strcmp(a, "--h2d-bytes")) {
            if (parse_size(v, &o->h2d_bytes) != 0 || o->h2d_bytes < 4096)
                return bad_arg(a, v, "not a size of at least 4K");
        } else if (!strcmp(a, "--device")) {
            if (o->device_count == MAX_DEVICES)
                return bad_arg(a, v, "too many devices");
            if (parse_device_pair(v, &o->device_platform[o->device_count],
                                  &o->device_index[o->device_count]) != 0)
                return bad_arg(a, v, "expected PLATFORM:DEVICE, e.g. 0:1");
            o->device_count++;
        } else if (!strcmp(a, "--pattern")) {
            if (!*v)
                return bad_arg(a, v, "a pattern cannot be empty");
            if (strlen(v) > CLM_MAX_PATTERN_LENGTH)
                return bad_arg(a, "...", "longer than CLM_MAX_PATTERN_LENGTH");
            if (o->user_pattern_count == MAX_USER_PATTERNS)
                return bad_arg(a, v, "too many patterns");
            o->user_patterns[o->user_pattern_count++] = v;
        } else if (!strcmp(a, "--algo")) {
            clm_algorithm alg = CLM_ALGO_AUTO;
            if (clm_algorithm_from_name(v, &alg) != CLM_OK || alg == CLM_ALGO_AUTO)
                return bad_arg(a, v, "expected naive, kmp or dfa");
            o->algo_mask |= 1u << alg;
        } else if (!strcmp(a, "--table")) {
            clm_table_memory t = CLM_TABLE_AUTO;
            if (clm_table_memory_from_name(v, &t) != CLM_OK || t == CLM_TABLE_AUTO)
                return bad_arg(a, v, "expected global, local or constant");
            o->table_mask |= 1u << t;
        } else if (!strcmp(a, "--time")) {
            if (parse_seconds(v, &o->time_per_row) != 0)
                return bad_arg(a, v, "expected a positive number of seconds");
            time_set = 1;
        } else if (!strcmp(a, "--max-time")) {
            if (parse_seconds(v, &o->max_time_per_row) != 0)
                return bad_arg(a, v, "expected a positive number of seconds");
        } else if (!strcmp(a, "--min-reps")) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (errno || *end || n < 1 || n > MAX_REPS)
                return bad_arg(a, v, "expected a count from 1 to 1000");
            o->min_reps = (int)n;
        } else if (!strcmp(a, "--out")) {
            o->out_dir = v;
        } else if (!strcmp(a, "--label")) {
            if (!*v)
                return bad_arg(a, v, "a label cannot be empty");
            o->label = v;
        } else {
            fprintf(stderr, BENCH_PROG ": unknown option '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (o->quick) {
        if (!size_set)
            o->size = 32 * MIB;
        if (!time_set)
            o->time_per_row = 0.2;
        if (!o->read_bytes)
            o->read_bytes = 64 * MIB;
        if (!o->h2d_bytes)
            o->h2d_bytes = 32 * MIB;
    }
    if (o->max_time_per_row == 0)
        o->max_time_per_row = 4 * o->time_per_row;
    if (o->max_time_per_row < o->time_per_row)
        return bad_arg("--max-time", "", "must not be below --time");
    return 0;
}

/* ---- one row ---------------------------------------------------------------------------- */

/* Counting callback that also checks what the API promises: text order, right length. */
typedef struct scan_counter {
    uint64_t n;
    uint64_t last_start;
    size_t m;
    uint64_t out_of_order, wrong_length;
} scan_counter;

static int count_match(const clm_match *match, void *ctx)
{
    scan_counter *c = ctx;
    if (c->n && match->start < c->last_start)
        c->out_of_order++;
    if (match->end - match->start != c->m || match->id != 0)
        c->wrong_length++;
    c->last_start = match->start;
    c->n++;
    return 0;
}

/* Timed repetitions after the warm-up: at least min_reps and target seconds, but stop (after
 * at least one) once cap seconds have gone, so a slow device cannot stall the whole bench. */
typedef struct rep_loop {
    double timed_begin; /* first timed call */
    double target, cap;
    int min_reps, reps;
} rep_loop;

static int more_reps(const rep_loop *l)
{
    double elapsed = now_seconds() - l->timed_begin;
    if (l->reps >= MAX_REPS || (l->reps >= 1 && elapsed >= l->cap))
        return 0;
    return l->reps < l->min_reps || elapsed < l->target;
}

static void row_error(bench_row *row, const char *call, int st)
{
    row->status = ROW_ERROR;
    snprintf(row->note, sizeof row->note, "%s: %s: %s", call, clm_strerror(st), clm_last_error());
}

/* clm_count: warm-up, then timed calls. 0 on success. */
static int measure_count(const clm_database *db, clm_scratch *s, const char *text,
                         const options *o, bench_row *row)
{
    static double wall[MAX_REPS], kernel[MAX_REPS];
    rep_loop l = {0, o->time_per_row / 2, o->max_time_per_row / 2, o->min_reps, 0};
    int kernel_reps = 0;
    for (int r = -1; r < 0 || more_reps(&l); r++) {
        clm_stats stats;
        uint64_t count = 0;
        clm_scratch_reset_stats(s);
        double t = now_seconds();
        int st = clm_count(db, s, text, (size_t)row->bytes, &count);
        t = now_seconds() - t;
        if (st != CLM_OK) {
            row_error(row, "clm_count", st);
            return -1;
        }
        st = clm_scratch_get_stats(s, &stats);
        if (st != CLM_OK) {
            row_error(row, "clm_scratch_get_stats", st);
            return -1;
        }
        if (r < 0) {
            row->matches = count;
            row->warmup_count_s = t;
            l.timed_begin = now_seconds();
            continue;
        }
        if (count != row->matches) {
            row->mismatch = 1;
            snprintf(row->note, sizeof row->note, "clm_count gave %llu then %llu",
                     (unsigned long long)row->matches, (unsigned long long)count);
        }
        wall[l.reps++] = t;
        if (stats.kernel_seconds > 0)
            kernel[kernel_reps++] = stats.kernel_seconds;
    }
    row->count_reps = l.reps;
    row->count_med_s = median_of(wall, (size_t)l.reps);
    row->count_min_s = min_of(wall, (size_t)l.reps);
    /* Kernel time only when every call had one: a partial set would mislead. */
    if (kernel_reps == l.reps) {
        row->kernel_min_s = min_of(kernel, (size_t)kernel_reps);
        row->kernel_med_s = median_of(kernel, (size_t)kernel_reps);
    } else if (!row->note[0]) {
        snprintf(row->note, sizeof row->note, "no kernel time in clm_scratch_get_stats");
    }
    return 0;
}

/* clm_scan with a counting callback: warm-up, then timed calls. 0 on success. */
static int measure_scan(const clm_database *db, clm_scratch *s, const char *text, size_t m,
                        const options *o, bench_row *row)
{
    static double wall[MAX_REPS];
    rep_loop l = {0, o->time_per_row / 2, o->max_time_per_row / 2, o->min_reps, 0};
    for (int r = -1; r < 0 || more_reps(&l); r++) {
        scan_counter c = {0, 0, m, 0, 0};
        double t = now_seconds();
        int st = clm_scan(db, s, text, (size_t)row->bytes, count_match, &c);
        t = now_seconds() - t;
        if (st != CLM_OK) {
            row_error(row, "clm_scan", st);
            return -1;
        }
        if (c.n != row->matches || c.out_of_order || c.wrong_length) {
            row->mismatch = 1;
            snprintf(row->note, sizeof row->note,
                     "clm_scan delivered %llu matches (clm_count: %llu), %llu out of text "
                     "order, %llu with a wrong length or id",
                     (unsigned long long)c.n, (unsigned long long)row->matches,
                     (unsigned long long)c.out_of_order, (unsigned long long)c.wrong_length);
        }
        if (r < 0) {
            row->warmup_scan_s = t;
            l.timed_begin = now_seconds();
            continue;
        }
        wall[l.reps++] = t;
    }
    row->scan_reps = l.reps;
    row->scan_med_s = median_of(wall, (size_t)l.reps);
    row->scan_min_s = min_of(wall, (size_t)l.reps);
    return 0;
}

static void run_row(clm_device *dev, const char *text, const bench_pattern *pat,
                    const options *o, bench_row *row)
{
    clm_compile_options copts;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info info;
    const char *bytes = pat->bytes;
    int st;

    clm_compile_options_init(&copts);
    copts.algorithm = row->algorithm;
    copts.table_memory = row->table;
    double t = now_seconds();
    st = clm_compile(dev, &bytes, &pat->len, NULL, 1, &copts, &db);
    row->compile_s = now_seconds() - t;
    if (st == CLM_E_UNSUPPORTED) {
        row->status = ROW_UNSUPPORTED;
        one_line(row->note, sizeof row->note, clm_last_error());
        return;
    }
    if (st != CLM_OK) {
        row_error(row, "clm_compile", st);
        return;
    }
    st = clm_database_get_info(db, &info);
    if (st != CLM_OK) {
        row_error(row, "clm_database_get_info", st);
        goto done;
    }
    row->work_group_size = info.work_group_size;
    row->bytes_per_item = info.bytes_per_item;
    if (info.algorithm != row->algorithm || info.table_memory != row->table) {
        /* Asked for one variant, got another: the numbers would be mislabelled. */
        row->status = ROW_ERROR;
        snprintf(row->note, sizeof row->note, "asked for %s/%s, the library compiled %s/%s",
                 clm_algorithm_name(row->algorithm), clm_table_memory_name(row->table),
                 clm_algorithm_name(info.algorithm), clm_table_memory_name(info.table_memory));
        goto done;
    }
    st = clm_scratch_alloc(db, NULL, &s);
    if (st != CLM_OK) {
        row_error(row, "clm_scratch_alloc", st);
        goto done;
    }
    if (measure_count(db, s, text, o, row) != 0 || measure_scan(db, s, text, pat->len, o, row) != 0)
        goto done;
    if (row->matches != row->expected && !row->mismatch) {
        row->mismatch = 1;
        snprintf(row->note, sizeof row->note, "host reference count is %llu",
                 (unsigned long long)row->expected);
    }
    row->status = ROW_OK;
done:
    clm_scratch_free(s);
    clm_database_free(db);
}

/* ---- the run ---------------------------------------------------------------------------- */

static void fill_host(bench_report *r)
{
    struct utsname u;
    char name[128] = "unknown";
    if (gethostname(name, sizeof name) != 0)
        snprintf(name, sizeof name, "unknown");
    name[sizeof name - 1] = '\0';
    if (uname(&u) == 0)
        snprintf(r->host, sizeof r->host, "%s (%s %s, %s)", name, u.sysname, u.release,
                 u.machine);
    else
        snprintf(r->host, sizeof r->host, "%s", name);

    r->cpu[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *colon = strchr(line, ':');
                if (colon)
                    one_line(r->cpu, sizeof r->cpu, colon + 1);
                break;
            }
        }
        fclose(f);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && strlen(r->cpu) + 24 < sizeof r->cpu)
        snprintf(r->cpu + strlen(r->cpu), sizeof r->cpu - strlen(r->cpu), ", %ld threads",
                 cores);
}

/* The default label: the host name, made safe for a file name. */
static void default_label(char *out, size_t n)
{
    if (gethostname(out, n) != 0 || !out[0])
        snprintf(out, n, "host");
    out[n - 1] = '\0';
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
              || *p == '-' || *p == '_' || *p == '.'))
            *p = '-';
}

static int write_reports(const options *o, const bench_report *r)
{
    char path[4096];
    FILE *f;
    if (make_dirs(o->out_dir) != 0) {
        fprintf(stderr, BENCH_PROG ": cannot create %s: %s\n", o->out_dir, strerror(errno));
        return -1;
    }
    for (int csv = 0; csv <= 1; csv++) {
        int n = snprintf(path, sizeof path, "%s/%s-%s%s.%s", o->out_dir, r->label, r->date,
                         r->quick ? "-quick" : "", csv ? "csv" : "md");
        if (n < 0 || (size_t)n >= sizeof path) {
            fprintf(stderr, BENCH_PROG ": output path too long\n");
            return -1;
        }
        f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, BENCH_PROG ": cannot write %s: %s\n", path, strerror(errno));
            return -1;
        }
        if (csv)
            report_csv(f, r);
        else
            report_markdown(f, r);
        if (fclose(f) != 0) {
            fprintf(stderr, BENCH_PROG ": writing %s failed: %s\n", path, strerror(errno));
            return -1;
        }
        fprintf(stderr, BENCH_PROG ": wrote %s\n", path);
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int st = parse_args(argc, argv, &o);
    if (st != 0)
        return st;

    /* Fail now, not after minutes of measuring, when the report cannot be written. */
    if (o.write_files && make_dirs(o.out_dir) != 0) {
        fprintf(stderr, BENCH_PROG ": cannot create %s: %s\n", o.out_dir, strerror(errno));
        return 2;
    }

    /* The genome. */
    char *genome = NULL;
    size_t genome_len = 0;
    if (read_file(o.genome_path, &genome, &genome_len) != 0) {
        fprintf(stderr, BENCH_PROG ": cannot read %s: %s (fetch it with: sh "
                "tools/fetch-genome.sh)\n", o.genome_path, strerror(errno));
        return 2;
    }
    if (genome_len == 0) {
        fprintf(stderr, BENCH_PROG ": %s is empty\n", o.genome_path);
        free(genome);
        return 2;
    }

    /* The devices. */
    clm_device_info *list = NULL;
    size_t list_count = 0;
    st = clm_list_devices(0, &list, &list_count);
    if (st != CLM_OK || list_count == 0) {
        fprintf(stderr, BENCH_PROG ": %s: %s\n", clm_strerror(st != CLM_OK ? st : CLM_E_NO_DEVICE),
                st != CLM_OK ? clm_last_error() : "no OpenCL device");
        free(genome);
        return 2;
    }
    static bench_device devices[MAX_DEVICES];
    int device_count = 0, any_gpu = 0;
    for (size_t i = 0; i < list_count && device_count < MAX_DEVICES; i++) {
        int wanted = o.device_count == 0;
        for (int k = 0; k < o.device_count; k++)
            wanted |= o.device_platform[k] == list[i].platform_index
                      && o.device_index[k] == list[i].device_index;
        if (!wanted)
            continue;
        devices[device_count].info = list[i];
        any_gpu |= list[i].type == CLM_DEVICE_GPU;
        device_count++;
    }
    for (int k = 0; k < o.device_count; k++) {
        int found = 0;
        for (int i = 0; i < device_count; i++)
            found |= devices[i].info.platform_index == o.device_platform[k]
                     && devices[i].info.device_index == o.device_index[k];
        if (!found) {
            fprintf(stderr, BENCH_PROG ": --device %d:%d does not exist; devices:\n",
                    o.device_platform[k], o.device_index[k]);
            for (size_t i = 0; i < list_count; i++)
                fprintf(stderr, "  %d:%d  %s  %s\n", list[i].platform_index,
                        list[i].device_index, device_type_name(list[i].type), list[i].name);
            clm_free_device_list(list);
            free(genome);
            return 2;
        }
    }
    clm_free_device_list(list);

    /* The text, and what each device scans of it. */
    if (o.size == 0)
        o.size = any_gpu ? GIB : 256 * MIB;
    if (o.size > SIZE_MAX) {
        fprintf(stderr, BENCH_PROG ": --size too large for this host\n");
        free(genome);
        return 2;
    }
    for (int i = 0; i < device_count; i++) {
        devices[i].text_bytes = o.size;
        if (devices[i].info.type == CLM_DEVICE_CPU && o.cpu_size && o.cpu_size < o.size)
            devices[i].text_bytes = o.cpu_size;
    }

    /* The patterns: from the genome at a fixed place, then the user's. */
    static bench_pattern patterns[2 + MAX_USER_PATTERNS];
    static char genome_patterns[2][64];
    int pattern_count = 0;
    for (size_t k = 0; k < sizeof default_pattern_lengths / sizeof default_pattern_lengths[0];
         k++) {
        bench_pattern *p = &patterns[pattern_count];
        size_t m = default_pattern_lengths[k];
        if (pick_pattern(genome, genome_len, DEFAULT_PATTERN_OFFSET < genome_len / 2
                                                 ? DEFAULT_PATTERN_OFFSET : 0,
                         m, genome_patterns[k], &p->genome_offset) != 0) {
            fprintf(stderr, BENCH_PROG ": %s has no sequence line of %zu bytes to take a "
                    "pattern from\n", o.genome_path, m);
            free(genome);
            return 2;
        }
        p->bytes = genome_patterns[k];
        p->len = m;
        p->from_genome = 1;
        pattern_count++;
    }
    for (int k = 0; k < o.user_pattern_count; k++) {
        patterns[pattern_count].bytes = (char *)o.user_patterns[k];
        patterns[pattern_count].len = strlen(o.user_patterns[k]);
        pattern_count++;
    }

    fprintf(stderr, BENCH_PROG ": building a %.1f MiB text from %s\n",
            (double)o.size / (double)MIB, o.genome_path);
    char *text = replicate(genome, genome_len, (size_t)o.size);
    if (!text) {
        fprintf(stderr, BENCH_PROG ": out of host memory for a %llu-byte text (try --size)\n",
                (unsigned long long)o.size);
        free(genome);
        return 2;
    }

    /* Host reference counts for every pattern and every distinct scanned length. */
    size_t limits[MAX_DEVICES];
    int limit_count = 0;
    for (int i = 0; i < device_count; i++) {
        int seen = 0;
        for (int k = 0; k < limit_count; k++)
            seen |= limits[k] == devices[i].text_bytes;
        if (!seen)
            limits[limit_count++] = (size_t)devices[i].text_bytes;
    }
    static uint64_t reference[2 + MAX_USER_PATTERNS][MAX_DEVICES];
    fprintf(stderr, BENCH_PROG ": host reference counts...\n");
    for (int p = 0; p < pattern_count; p++)
        host_count(text, (size_t)o.size, patterns[p].bytes, patterns[p].len, limits,
                   reference[p], (size_t)limit_count);

    /* Rows in report order: device, algorithm, table memory, pattern. */
    static const clm_algorithm algos[] = {CLM_ALGO_NAIVE, CLM_ALGO_KMP, CLM_ALGO_DFA};
    static const clm_table_memory tables[] = {CLM_TABLE_GLOBAL, CLM_TABLE_LOCAL,
                                              CLM_TABLE_CONSTANT};
    size_t max_rows = (size_t)device_count * 3 * 3 * (size_t)pattern_count;
    bench_row *rows = calloc(max_rows, sizeof *rows);
    if (!rows) {
        fprintf(stderr, BENCH_PROG ": out of host memory\n");
        free(text);
        free(genome);
        return 2;
    }
    int row_count = 0;
    double started = now_seconds();
    for (int d = 0; d < device_count; d++) {
        bench_device *bd = &devices[d];
        const clm_device_info *di = &bd->info;
        int first_row = row_count;
        for (size_t a = 0; a < 3; a++)
            for (size_t t = 0; t < 3; t++)
                for (int p = 0; p < pattern_count; p++) {
                    if ((o.algo_mask && !(o.algo_mask & 1u << algos[a]))
                        || (o.table_mask && !(o.table_mask & 1u << tables[t])))
                        continue;
                    bench_row *row = &rows[row_count++];
                    row->device = d;
                    row->pattern = p;
                    row->algorithm = algos[a];
                    row->table = tables[t];
                    row->bytes = bd->text_bytes;
                    for (int k = 0; k < limit_count; k++)
                        if (limits[k] == bd->text_bytes)
                            row->expected = reference[p][k];
                }

        fprintf(stderr, BENCH_PROG ": device %d:%d %s (%s)\n", di->platform_index,
                di->device_index, di->name, device_type_name(di->type));
        if (o.measure_bandwidth) {
            uint64_t read_bytes = o.read_bytes ? o.read_bytes
                                               : di->type == CLM_DEVICE_GPU ? GIB : 256 * MIB;
            uint64_t h2d_bytes = o.h2d_bytes ? o.h2d_bytes : 256 * MIB;
            bw_measure(di->platform_index, di->device_index, di->name, read_bytes, h2d_bytes,
                       o.quick ? 0.2 : 0.5, &bd->bw);
            fprintf(stderr, "  read %.1f GB/s (%s), host->device %.1f GB/s pageable, %.1f GB/s "
                    "pinned%s%s\n", bd->bw.read_gbs, bd->bw.read_kernel,
                    bd->bw.h2d_pageable_gbs, bd->bw.h2d_pinned_gbs,
                    bd->bw.error[0] ? "; " : "", bd->bw.error);
        } else {
            snprintf(bd->bw.error, sizeof bd->bw.error, "not measured (--no-bandwidth)");
            bd->bw.read_kernel = "-";
        }

        clm_device *dev = NULL;
        st = clm_device_open(di->platform_index, di->device_index, &dev);
        if (st != CLM_OK) {
            for (int i = first_row; i < row_count; i++)
                row_error(&rows[i], "clm_device_open", st);
            fprintf(stderr, "  %s\n", rows[first_row].note);
            continue;
        }
        for (int i = first_row; i < row_count; i++) {
            bench_row *row = &rows[i];
            fprintf(stderr, "  [%d/%d] %s/%s m=%zu ... ", i - first_row + 1,
                    row_count - first_row, clm_algorithm_name(row->algorithm),
                    clm_table_memory_name(row->table), patterns[row->pattern].len);
            run_row(dev, text, &patterns[row->pattern], &o, row);
            if (row->status == ROW_OK)
                fprintf(stderr, "kernel %.2f GB/s, count %.2f GB/s, scan %.2f GB/s, %llu "
                        "matches%s\n", gbs(row->bytes, row->kernel_med_s),
                        gbs(row->bytes, row->count_med_s), gbs(row->bytes, row->scan_med_s),
                        (unsigned long long)row->matches, row->mismatch ? "  MISMATCH" : "");
            else
                fprintf(stderr, "%s: %s\n", row->status == ROW_UNSUPPORTED ? "unsupported"
                        : "ERROR", row->note);
        }
        clm_device_close(dev);
    }
    fprintf(stderr, BENCH_PROG ": %d rows in %.1f s\n", row_count, now_seconds() - started);

    /* The report. */
    bench_report r;
    char label[256];
    memset(&r, 0, sizeof r);
    if (o.label) {
        snprintf(label, sizeof label, "%s", o.label);
    } else {
        default_label(label, sizeof label);
    }
    r.label = label;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm)) {
        strftime(r.date, sizeof r.date, "%Y-%m-%d", &tm);
        strftime(r.timestamp, sizeof r.timestamp, "%Y-%m-%d %H:%M:%S %z", &tm);
    } else {
        snprintf(r.date, sizeof r.date, "unknown-date");
        snprintf(r.timestamp, sizeof r.timestamp, "unknown");
    }
    fill_host(&r);
    r.genome_path = o.genome_path;
    r.genome_bytes = genome_len;
    r.text_bytes = o.size;
    r.time_per_row = o.time_per_row;
    r.max_time_per_row = o.max_time_per_row;
    r.min_reps = o.min_reps;
    r.quick = o.quick;
    r.devices = devices;
    r.device_count = device_count;
    r.patterns = patterns;
    r.pattern_count = pattern_count;
    r.rows = rows;
    r.row_count = row_count;
    for (int i = 0; i < row_count; i++) {
        r.mismatches += rows[i].mismatch;
        r.errors += rows[i].status == ROW_ERROR;
    }

    report_markdown(stdout, &r);
    int status = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, BENCH_PROG ": writing the report to stdout failed\n");
        status = 1;
    }
    if (o.write_files && write_reports(&o, &r) != 0)
        status = 1;
    if (r.mismatches) {
        fprintf(stderr, "\n" BENCH_PROG ": MISMATCH: %d row(s) counted differently from the "
                "host reference:\n", r.mismatches);
        for (int i = 0; i < row_count; i++)
            if (rows[i].mismatch)
                fprintf(stderr, "  MISMATCH device %d:%d %s/%s m=%zu: %llu matches, expected "
                        "%llu; %s\n", devices[rows[i].device].info.platform_index,
                        devices[rows[i].device].info.device_index,
                        clm_algorithm_name(rows[i].algorithm),
                        clm_table_memory_name(rows[i].table), patterns[rows[i].pattern].len,
                        (unsigned long long)rows[i].matches,
                        (unsigned long long)rows[i].expected, rows[i].note);
        status = 1;
    }
    if (r.errors) {
        fprintf(stderr, BENCH_PROG ": %d row(s) failed (see the notes column)\n", r.errors);
        status = 1;
    }
    free(rows);
    free(text);
    free(genome);
    return status;
}
