/*
 * clmatch-bench — every algorithm x variant x table memory of libclmatch, and its automatic
 * choice, on every OpenCL device, over a set of scenarios (pattern lengths, approximate
 * search, worst cases), against the device's own read bandwidth.
 *
 * Per row (device, scenario, algorithm/variant, table memory): compile, allocate a scratch,
 * then
 *  - clm_count: one warm-up call, then timed calls; kernel time from the scratch stats
 *    (profiling events) gives "kernel GB/s", the call's wall time "end-to-end count GB/s";
 *  - clm_scan with a counting callback: the same, wall time only ("end-to-end scan GB/s").
 * The automatic choice also runs once per data path (copy, pinned, zero-copy, svm: how the
 * text reaches the device), on exact-32 by default, on every scenario with --data-path, so the
 * end-to-end columns compare the paths.
 * Every count is checked against a host reference (exact, Hamming or edit distance) for the
 * same bytes. See bench/README.md for the method, the suites and the columns.
 *
 * Exit status: 0 success, 1 a count mismatch or a failed row, 2 bad arguments or input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "algo.h" /* clm_algo(a)->group: how many patterns one launch of it searches */
#include "bench.h"

enum {
    MAX_DEVICES = 64,
    MAX_USER_PATTERNS = 32,
    MAX_SCENARIOS = 64 + MAX_USER_PATTERNS,
    MAX_FILTERS = 32,
    MAX_REPS = 1000,
    DEFAULT_PATTERN_OFFSET = 1000000, /* where the genome patterns are taken from */
    NONMATCH_LENGTH = 64,
    NONMATCH_SEED = 1,
    /* The multi suite: a per-pattern algorithm (a launch per pattern) runs sets of at most
     * this many patterns; auto, where no algorithm searches a group, at most the second
     * (beyond, a call launches that many kernels per slab: hours on a CPU device). */
    PER_PATTERN_MAX_SET = 100,
    PER_PATTERN_MAX_AUTO = 1000
};

#define ALGO_BIT(a) (1u << (unsigned)(a))
#define PATHS_ALL                                                                           \
    ((1u << CLM_PATH_COPY) | (1u << CLM_PATH_PINNED) | (1u << CLM_PATH_ZERO_COPY)           \
     | (1u << CLM_PATH_SVM))
/* every algorithm but auto */
#define ALL_ALGOS (ALGO_BIT(clm_algorithm_count()) - 2u)

/* The explicit kinds of kernel, in report order: every algorithm of the library, each
 * variant of those with several (bench_kinds). Algorithms with a single kernel ask for
 * CLM_VARIANT_AUTO (the row then shows the variant the library reports). */
typedef struct kind {
    clm_algorithm algorithm;
    clm_variant variant;
} kind;
#define MAX_KINDS 64
static kind kinds[MAX_KINDS];
static int kind_count;

static void bench_kinds(void)
{
    for (unsigned a = 1; a < clm_algorithm_count(); a++) {
        unsigned v = clm_algorithm_variants((clm_algorithm)a);
        if (v == 1u << CLM_VARIANT_ITEM) {
            if (kind_count < MAX_KINDS)
                kinds[kind_count++] = (kind){(clm_algorithm)a, CLM_VARIANT_AUTO};
            continue;
        }
        for (unsigned k = CLM_VARIANT_ITEM; k < 32; k++)
            if ((v >> k & 1u) && kind_count < MAX_KINDS)
                kinds[kind_count++] = (kind){(clm_algorithm)a, (clm_variant)k};
    }
}
static const clm_table_memory tables[] = {CLM_TABLE_GLOBAL, CLM_TABLE_LOCAL, CLM_TABLE_CONSTANT};

/* Names of variants for parsing --variant (algorithms: the library's, clm_algorithm_from_name). */
static const char *const variant_names[] = {"auto", "item", "reduce", "subgroup"};

typedef struct suite_name {
    const char *name;
    unsigned bits;
} suite_name;
static const suite_name suite_names[] = {
    {"basic", SUITE_BASIC}, {"exact", SUITE_EXACT}, {"long", SUITE_LONG},
    {"approx", SUITE_APPROX}, {"worst", SUITE_WORST}, {"multi", SUITE_MULTI},
    {"quick", SUITE_QUICK}, {"full", SUITE_FULL},
};

typedef struct options {
    const char *genome_path;
    const char *corpus_path;    /* the multi suite's English text */
    const char *write_patterns; /* --write-patterns DIR: write the sets and exit */
    unsigned max_patterns;      /* multi scenarios of at most this many patterns; 0: all */
    uint64_t size;              /* 0: by suite and device types */
    uint64_t cpu_size;          /* most bytes a CPU device scans; 0: by suite */
    uint64_t worst_size;        /* all-'a' text a device scans; 0: a quarter of its text */
    int cpu_size_set;
    double time_per_row;        /* target seconds per row (count + scan) */
    double max_time_per_row;    /* hard cut per row; 0: 4x time_per_row */
    int min_reps;
    int quick;
    int write_files;
    int measure_bandwidth;
    int list_scenarios;
    uint64_t read_bytes, h2d_bytes; /* 0: by device type */
    const char *out_dir;
    const char *label;
    int device_count;
    int device_platform[MAX_DEVICES], device_index[MAX_DEVICES];
    int user_pattern_count;
    const char *user_patterns[MAX_USER_PATTERNS];
    unsigned suites;            /* SUITE_* bits; 0: full (quick with --quick) */
    unsigned algo_mask;         /* bit (1 << clm_algorithm), bit 0 = the auto rows; 0: all */
    unsigned variant_mask, table_mask; /* bit (1 << enum value); 0: all */
    unsigned path_mask;         /* data paths of the extra auto rows, bit (1 << clm_data_path) */
    int path_set;               /* --data-path given: those rows on every scenario */
    int scenario_filter_count;
    const char *scenario_filters[MAX_FILTERS];
    char filters[256];          /* the filter options given, for the report */
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: " BENCH_PROG " [OPTIONS]\n"
        "Benchmark every algorithm x variant x table memory of libclmatch, and its automatic\n"
        "choice, on every OpenCL device, over the scenarios of the chosen suites.\n"
        "\n"
        "  --suite NAME      basic (exact m=13/32, the first bench), exact (m=4..64), long\n"
        "                    (m=256, 1000), approx (bitap k=1..3, edits and mismatches),\n"
        "                    worst (all-'a' text, non-matching pattern), full (exact + long\n"
        "                    + approx + worst; the default), quick (a few of each; --quick's\n"
        "                    default), multi (sets of 10 to 100000 DNA patterns on the\n"
        "                    genome, 10 to 10000 words on --corpus; not in full).\n"
        "                    Repeatable: the union is run\n"
        "  --scenario ID     only scenarios whose id starts with ID (repeatable;\n"
        "                    --list-scenarios shows them)\n"
        "  --non-matching    the non-matching random-letter scenario (= --scenario nonmatch)\n"
        "  --list-scenarios  print the scenarios of the chosen suites and exit\n"
        "  --genome FILE     FASTA to replicate (default data/umaydis.fa; tools/fetch-genome.sh)\n"
        "  --corpus FILE     English text of the multi suite's words (default data/gcide.txt;\n"
        "                    bench/fetch-corpus.sh)\n"
        "  --max-patterns N  only the multi scenarios of at most N patterns\n"
        "  --write-patterns DIR  write each selected multi scenario's patterns, one a line,\n"
        "                    to DIR/ID.txt and exit (bench/compare.sh's pattern sets)\n"
        "  --size BYTES      text size, suffix K/M/G (default: basic 1G when a GPU is benched,\n"
        "                    else 256M; other suites 256M, 64M without a GPU; 32M --quick)\n"
        "  --cpu-size BYTES  CPU devices scan only the first BYTES of the text (default: basic\n"
        "                    all, other suites 64M when a GPU is benched; 0 = all)\n"
        "  --worst-size B    all-'a' text each device scans (default: a quarter of its text)\n"
        "  --device P:D      bench only this device (repeatable; default: all)\n"
        "  --pattern STR     also search for STR, exact (repeatable)\n"
        "  --algo NAME       only this algorithm (repeatable; auto: the automatic-choice rows)\n"
        "  --variant NAME    bitap rows: only item, reduce or subgroup (repeatable)\n"
        "  --table NAME      only global, local or constant (repeatable)\n"
        "  --data-path NAME  the automatic choice also on data path copy, pinned, zero-copy\n"
        "                    or svm (repeatable; all; none), for every scenario (default: all\n"
        "                    four, on exact-32 only)\n"
        "  --time SECONDS    target time per row, split between count and scan (default:\n"
        "                    basic 1, other suites 0.15, --quick 0.1)\n"
        "  --max-time SEC    cut the timed calls of a row after this (default 4x --time)\n"
        "  --min-reps N      at least N timed calls unless cut (default 3)\n"
        "  --quick           small text, short times, the quick suite (a smoke test)\n"
        "  --out DIR         where to write LABEL-DATE.md and .csv (default bench/results)\n"
        "  --label NAME      name of the results (default: the host name)\n"
        "  --no-files        print the report only\n"
        "  --no-bandwidth    skip the read/transfer bandwidth yardsticks\n"
        "  --read-bytes B    read-bandwidth buffer (default 1G GPU, 256M CPU; raised to 4x cache)\n"
        "  --h2d-bytes B     host->device transfer size (default 256M)\n"
        "  -h, --help        this help\n"
        "\n"
        "Exit status: 0 success, 1 a count mismatch or a failed row, 2 bad arguments or input.\n"
        "\nAlgorithms:");
    for (unsigned a = 0; a < clm_algorithm_count(); a++)
        fprintf(f, " %s", clm_algorithm_name((clm_algorithm)a));
    fprintf(f, "\n");
}

/* ---- arguments ------------------------------------------------------------------------- */

static int bad_arg(const char *opt, const char *value, const char *why)
{
    fprintf(stderr, BENCH_PROG ": %s '%s': %s (see --help)\n", opt, value ? value : "", why);
    return 2;
}

static int name_index(const char *const *names, int n, const char *v)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], v))
            return i;
    return -1;
}

static void add_filter_text(options *o, const char *a, const char *v)
{
    size_t n = strlen(o->filters);
    snprintf(o->filters + n, sizeof o->filters - n, "%s%s %s", n ? " " : "", a, v);
}

/* 0 on success, else the exit status. */
static int parse_args(int argc, char **argv, options *o, int *time_set, int *size_set)
{
    memset(o, 0, sizeof *o);
    o->genome_path = "data/umaydis.fa";
    o->corpus_path = "data/gcide.txt";
    o->time_per_row = 1.0;
    o->min_reps = 3;
    o->write_files = 1;
    o->measure_bandwidth = 1;
    o->out_dir = "bench/results";
    *time_set = *size_set = 0;

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
        } else if (!strcmp(a, "--list-scenarios")) {
            o->list_scenarios = 1;
            continue;
        } else if (!strcmp(a, "--non-matching")) { /* seed 001's name for it */
            if (o->scenario_filter_count == MAX_FILTERS)
                return bad_arg(a, "", "too many scenario filters");
            o->scenario_filters[o->scenario_filter_count++] = "nonmatch";
            add_filter_text(o, "--scenario", "nonmatch");
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
        } else if (!strcmp(a, "--corpus")) {
            o->corpus_path = v;
        } else if (!strcmp(a, "--max-patterns")) {
            char *end;
            errno = 0;
            unsigned long n = strtoul(v, &end, 10);
            if (errno || *end || v[0] == '-' || n < 1 || n > 100000000)
                return bad_arg(a, v, "expected a count of patterns");
            o->max_patterns = (unsigned)n;
            add_filter_text(o, a, v);
        } else if (!strcmp(a, "--write-patterns")) {
            o->write_patterns = v;
        } else if (!strcmp(a, "--size")) {
            if (parse_size(v, &o->size) != 0 || o->size == 0)
                return bad_arg(a, v, "not a size like 64M or 1G");
            *size_set = 1;
        } else if (!strcmp(a, "--cpu-size")) {
            if (parse_size(v, &o->cpu_size) != 0)
                return bad_arg(a, v, "not a size like 256M (0 = whole text)");
            o->cpu_size_set = 1;
        } else if (!strcmp(a, "--worst-size")) {
            if (parse_size(v, &o->worst_size) != 0 || o->worst_size == 0)
                return bad_arg(a, v, "not a size like 16M");
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
            add_filter_text(o, a, v);
        } else if (!strcmp(a, "--pattern")) {
            if (!*v)
                return bad_arg(a, v, "a pattern cannot be empty");
            if (strlen(v) > CLM_MAX_PATTERN_LENGTH)
                return bad_arg(a, "...", "longer than CLM_MAX_PATTERN_LENGTH");
            if (o->user_pattern_count == MAX_USER_PATTERNS)
                return bad_arg(a, v, "too many patterns");
            o->user_patterns[o->user_pattern_count++] = v;
        } else if (!strcmp(a, "--suite")) {
            int found = 0;
            for (size_t k = 0; k < sizeof suite_names / sizeof suite_names[0]; k++)
                if (!strcmp(v, suite_names[k].name)) {
                    o->suites |= suite_names[k].bits;
                    found = 1;
                }
            if (!found)
                return bad_arg(a, v, "expected basic, exact, long, approx, worst, multi, full or "
                                     "quick");
        } else if (!strcmp(a, "--scenario")) {
            if (o->scenario_filter_count == MAX_FILTERS)
                return bad_arg(a, v, "too many scenario filters");
            if (!*v)
                return bad_arg(a, v, "an id cannot be empty");
            o->scenario_filters[o->scenario_filter_count++] = v;
            add_filter_text(o, a, v);
        } else if (!strcmp(a, "--algo")) {
            clm_algorithm alg;
            if (clm_algorithm_from_name(v, &alg) != CLM_OK)
                return bad_arg(a, v, clm_last_error());
            o->algo_mask |= 1u << alg;
            add_filter_text(o, a, v);
        } else if (!strcmp(a, "--variant")) {
            int var = name_index(variant_names, 4, v);
            if (var <= 0)
                return bad_arg(a, v, "expected item, reduce or subgroup");
            o->variant_mask |= 1u << var;
            add_filter_text(o, a, v);
        } else if (!strcmp(a, "--table")) {
            clm_table_memory t = CLM_TABLE_AUTO;
            if (clm_table_memory_from_name(v, &t) != CLM_OK || t == CLM_TABLE_AUTO)
                return bad_arg(a, v, "expected global, local or constant");
            o->table_mask |= 1u << t;
            add_filter_text(o, a, v);
        } else if (!strcmp(a, "--data-path")) {
            clm_data_path p = CLM_PATH_AUTO;
            o->path_set = 1;
            if (!strcmp(v, "all"))
                o->path_mask |= PATHS_ALL;
            else if (strcmp(v, "none") != 0) {
                if (clm_data_path_from_name(v, &p) != CLM_OK || p == CLM_PATH_AUTO)
                    return bad_arg(a, v, "expected copy, pinned, zero-copy, svm, all or none");
                o->path_mask |= 1u << p;
            }
        } else if (!strcmp(a, "--time")) {
            if (parse_seconds(v, &o->time_per_row) != 0)
                return bad_arg(a, v, "expected a positive number of seconds");
            *time_set = 1;
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
    if (!o->path_set)
        o->path_mask = PATHS_ALL;
    if (o->write_patterns) /* the sets alone: no other scenario is built */
        o->suites = SUITE_MULTI;
    if (!o->suites)  /* --scenario alone picks from every scenario */
        o->suites = o->scenario_filter_count ? ~0u : o->quick ? SUITE_QUICK : SUITE_FULL;
    if (!*time_set)
        o->time_per_row = o->quick ? 0.1 : o->suites == SUITE_BASIC ? 1.0 : 0.15;
    if (o->quick) {
        if (!*size_set)
            o->size = 32 * MIB;
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

/* ---- the host-read yardstick's file --------------------------------------------------------- */

/* A file of `bytes` bytes (copies of src, or 'a's) in $TMPDIR, already unlinked, its pages
 * written back (no writeback during the timing) and in the page cache: what clm_scan_fd reads
 * in a whole-process run on a file read before. Returns the fd, or -1 with a message. */
static int host_read_file(const char *src, size_t src_len, uint64_t bytes)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/clmatch-bench-read.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, BENCH_PROG ": host read: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    unlink(path);
    static const char a[4096] = {0};
    uint64_t done = 0;
    while (done < bytes) {
        const char *p = src && src_len ? src + done % src_len : a;
        size_t left = src && src_len ? src_len - (size_t)(done % src_len) : sizeof a;
        if (left > bytes - done)
            left = (size_t)(bytes - done);
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, BENCH_PROG ": host read: writing a %llu-byte file in %s: %s\n",
                    (unsigned long long)bytes, dir && *dir ? dir : "/tmp",
                    w < 0 ? strerror(errno) : "no space");
            close(fd);
            return -1;
        }
        done += (uint64_t)w;
    }
    fdatasync(fd);
    return fd;
}

/* ---- the scenarios ---------------------------------------------------------------------- */

static int scenario_wanted(const options *o, const bench_scenario *sc)
{
    if (!(sc->suites & o->suites))
        return 0;
    if (sc->set && o->max_patterns && sc->set->count > o->max_patterns)
        return 0;
    if (o->scenario_filter_count == 0)
        return 1;
    for (int i = 0; i < o->scenario_filter_count; i++)
        if (!strncmp(sc->id, o->scenario_filters[i], strlen(o->scenario_filters[i])))
            return 1;
    return 0;
}

/* Appends a scenario; the pattern bytes are copied. NULL when out of memory. */
static bench_scenario *add_scenario(bench_scenario *list, int *count, unsigned suites,
                                    text_kind text, const char *bytes, size_t len, unsigned k,
                                    unsigned flags, unsigned algo_mask)
{
    if (*count == MAX_SCENARIOS)
        return NULL;
    bench_scenario *sc = &list[(*count)++];
    memset(sc, 0, sizeof *sc);
    sc->bytes = malloc(len ? len : 1);
    if (!sc->bytes) {
        (*count)--;
        return NULL;
    }
    memcpy(sc->bytes, bytes, len);
    sc->len = len;
    sc->suites = suites;
    sc->text = text;
    sc->k = k;
    sc->flags = flags;
    sc->algo_mask = algo_mask;
    return sc;
}

static void free_scenario(bench_scenario *sc)
{
    free(sc->bytes);
    free_pattern_set(sc->set);
    free(sc->set);
}

/* 1 when the run may select a multi scenario: their sets are drawn (and the corpus read)
 * only then. */
static int multi_wanted(const options *o)
{
    if (!(o->suites & SUITE_MULTI))
        return 0;
    for (int i = 0; i < o->scenario_filter_count; i++)
        if (!strncmp(o->scenario_filters[i], "multi", strlen(o->scenario_filters[i]) < 5
                                                          ? strlen(o->scenario_filters[i])
                                                          : 5))
            return 1;
    return o->scenario_filter_count == 0;
}

/* The multi suite: sets of distinct patterns drawn at random places (fixed seeds) of the
 * file they are searched in, so every one occurs: DNA of mixed lengths and 20-mers from the
 * genome, words from the corpus (NULL: none). A set the file cannot give is left out with a
 * message. 0, or the exit status. */
static int add_multi_scenarios(const options *o, const char *genome, size_t genome_len,
                               const char *corpus, size_t corpus_len, bench_scenario *list,
                               int *count)
{
    static const unsigned sizes[] = {10, 100, 1000, 10000, 100000};
    static const struct {
        const char *name, *what;
        set_kind kind;
        text_kind text;
        size_t min_m, max_m;
        unsigned most;      /* largest set */
        uint64_t seed;
    } kinds[] = {
        {"dna", "DNA patterns", SET_DNA, TEXT_GENOME, 8, 32, 100000, 18001},
        {"dna20", "DNA 20-mers", SET_DNA, TEXT_GENOME, 20, 20, 100000, 18002},
        {"words", "English words", SET_WORDS, TEXT_CORPUS, 3, 20, 10000, 18003},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && sizes[i] <= kinds[k].most;
             i++) {
            const int words = kinds[k].text == TEXT_CORPUS;
            const char *from = words ? corpus : genome;
            size_t from_len = words ? corpus_len : genome_len;
            const char *path = words ? o->corpus_path : o->genome_path;
            if (!from)
                continue;
            pattern_set *set = calloc(1, sizeof *set);
            if (!set) {
                fprintf(stderr, BENCH_PROG ": out of memory\n");
                return 2;
            }
            if (draw_pattern_set(from, from_len, kinds[k].kind, sizes[i], kinds[k].min_m,
                                 kinds[k].max_m, kinds[k].seed + i, set) != 0) {
                fprintf(stderr, BENCH_PROG ": %s does not hold %u distinct %s of %zu-%zu "
                        "bytes: multi-%s-%u left out\n", path, sizes[i], kinds[k].what,
                        kinds[k].min_m, kinds[k].max_m, kinds[k].name, sizes[i]);
                free(set);
                continue;
            }
            bench_scenario *sc = add_scenario(list, count, SUITE_MULTI, kinds[k].text,
                                              set->ptrs[0], set->max_len, 0, 0, ALL_ALGOS);
            if (!sc) {
                fprintf(stderr, BENCH_PROG ": out of memory or too many scenarios\n");
                free_pattern_set(set);
                free(set);
                return 2;
            }
            memcpy(sc->bytes, set->ptrs[0], set->lens[0]);
            sc->set = set;
            snprintf(sc->id, sizeof sc->id, "multi-%s-%u", kinds[k].name, sizes[i]);
            if (kinds[k].min_m == kinds[k].max_m)
                snprintf(sc->title, sizeof sc->title, "%u %s", sizes[i], kinds[k].what);
            else
                snprintf(sc->title, sizeof sc->title, "%u %s, m = %zu-%zu", sizes[i],
                         kinds[k].what, set->min_len, set->max_len);
            snprintf(sc->origin, sizeof sc->origin, "%s, xorshift seed %llu",
                     words ? "corpus words" : "genome windows of ACGT",
                     (unsigned long long)(kinds[k].seed + i));
        }
    return 0;
}

/* Every scenario of every suite (the selection happens later). 0, or the exit status. */
static int build_scenarios(const options *o, const char *genome, size_t genome_len,
                           const char *corpus, size_t corpus_len, bench_scenario *list,
                           int *count)
{
    static const size_t exact_m[] = {4, 8, 13, 16, 32, 64};
    static const size_t long_m[] = {256, 1000};
    static const size_t approx_m[] = {13, 32};
    static const size_t worst_m[] = {16, 64, 256};
    const size_t from = DEFAULT_PATTERN_OFFSET < genome_len / 2 ? DEFAULT_PATTERN_OFFSET : 0;
    char buf[1024];
    size_t offset;
    bench_scenario *sc;
    *count = 0;

#define PICK(m)                                                                             \
    do {                                                                                    \
        if (pick_pattern(genome, genome_len, from, (m), buf, &offset) != 0) {               \
            fprintf(stderr, BENCH_PROG ": %s has no sequence of %zu bytes to take a pattern " \
                    "from\n", o->genome_path, (size_t)(m));                                 \
            return 2;                                                                       \
        }                                                                                   \
    } while (0)
#define ADD(...)                                                                            \
    do {                                                                                    \
        if (!(sc = add_scenario(list, count, __VA_ARGS__))) {                               \
            fprintf(stderr, BENCH_PROG ": out of memory or too many scenarios\n");          \
            return 2;                                                                       \
        }                                                                                   \
    } while (0)

    if (!(o->suites & ~(unsigned)SUITE_MULTI))
        goto multi; /* the multi suite alone: --genome need not hold the patterns below */
    /* Exact, genome. */
    for (size_t i = 0; i < sizeof exact_m / sizeof exact_m[0]; i++) {
        size_t m = exact_m[i];
        unsigned suites = SUITE_EXACT;
        if (m == 13 || m == 32)
            suites |= SUITE_BASIC;
        if (m == 8 || m == 32)
            suites |= SUITE_QUICK;
        PICK(m);
        ADD(suites, TEXT_GENOME, buf, m, 0, 0, ALL_ALGOS);
        snprintf(sc->id, sizeof sc->id, "exact-%zu", m);
        sc->path_rows = m == 32; /* in the basic, exact and quick suites */
        snprintf(sc->title, sizeof sc->title, "exact, m = %zu", m);
        snprintf(sc->origin, sizeof sc->origin, "genome offset %zu", offset);
    }
    /* Long, genome: naive is left out (it is brute force), bitap and simd go to 256 symbols. */
    for (size_t i = 0; i < sizeof long_m / sizeof long_m[0]; i++) {
        size_t m = long_m[i];
        unsigned algos = ALGO_BIT(CLM_ALGO_KMP) | ALGO_BIT(CLM_ALGO_DFA) | ALGO_BIT(CLM_ALGO_BMH)
                         | ALGO_BIT(CLM_ALGO_WITNESS);
        if (m <= CLM_BITAP_MAX_LENGTH)
            algos |= ALGO_BIT(CLM_ALGO_BITAP);
        if (m <= CLM_SIMD_MAX_LENGTH)
            algos |= ALGO_BIT(CLM_ALGO_SIMD);
        PICK(m);
        ADD(SUITE_LONG | (m == 256 ? SUITE_QUICK : 0), TEXT_GENOME, buf, m, 0, 0, algos);
        snprintf(sc->id, sizeof sc->id, "long-%zu", m);
        snprintf(sc->title, sizeof sc->title, "exact long, m = %zu", m);
        snprintf(sc->origin, sizeof sc->origin, "genome offset %zu", offset);
    }
    /* Approximate, genome: bitap only (the only algorithm that searches with errors). */
    for (int hamming = 0; hamming <= 1; hamming++)
        for (size_t i = 0; i < sizeof approx_m / sizeof approx_m[0]; i++)
            for (unsigned k = 1; k <= 3; k++) {
                size_t m = approx_m[i];
                unsigned suites = SUITE_APPROX;
                if ((!hamming && k == 1 && m == 13) || (hamming && k == 2 && m == 32))
                    suites |= SUITE_QUICK;
                PICK(m);
                ADD(suites, TEXT_GENOME, buf, m, k, hamming ? CLM_MISMATCHES_ONLY : 0,
                    ALGO_BIT(CLM_ALGO_BITAP));
                snprintf(sc->id, sizeof sc->id, "%s-k%u-m%zu", hamming ? "hamming" : "edit", k,
                         m);
                snprintf(sc->title, sizeof sc->title, "%s, k = %u, m = %zu",
                         hamming ? "mismatches only (Hamming)" : "edit distance", k, m);
                snprintf(sc->origin, sizeof sc->origin, "genome offset %zu", offset);
            }
    /* Worst cases: the all-'a' text with a^m (every position matches) and a^(m-1)b (none
     * does, after m-1 equal bytes at every position). */
    for (int ab = 0; ab <= 1; ab++)
        for (size_t i = 0; i < sizeof worst_m / sizeof worst_m[0]; i++) {
            size_t m = worst_m[i];
            unsigned suites = SUITE_WORST;
            if ((!ab && m == 16) || (ab && m == 64))
                suites |= SUITE_QUICK;
            memset(buf, 'a', m);
            if (ab)
                buf[m - 1] = 'b';
            ADD(suites, TEXT_ALL_A, buf, m, 0, 0, ALL_ALGOS);
            sc->count_only = 1;
            snprintf(sc->id, sizeof sc->id, "worst-%s%zu", ab ? "ab" : "a", m);
            if (ab)
                snprintf(sc->title, sizeof sc->title, "all-'a' text, a^%zu b (m = %zu)", m - 1,
                         m);
            else
                snprintf(sc->title, sizeof sc->title, "all-'a' text, a^%zu", m);
            snprintf(sc->origin, sizeof sc->origin, "%s", ab ? "no match" : "every position");
        }
    /* A pattern of random letters over the genome: (almost) never matches; BMH's best case. */
    random_letters(NONMATCH_SEED, NONMATCH_LENGTH, buf);
    ADD(SUITE_WORST | SUITE_QUICK, TEXT_GENOME, buf, NONMATCH_LENGTH, 0, 0, ALL_ALGOS);
    snprintf(sc->id, sizeof sc->id, "nonmatch-%d", NONMATCH_LENGTH);
    snprintf(sc->title, sizeof sc->title, "non-matching random letters, m = %d",
             NONMATCH_LENGTH);
    snprintf(sc->origin, sizeof sc->origin, "letters A-Z, xorshift seed %d", NONMATCH_SEED);
multi:
    if (multi_wanted(o)) {
        int st = add_multi_scenarios(o, genome, genome_len, corpus, corpus_len, list, count);
        if (st != 0)
            return st;
    }
    /* The user's patterns: exact, in whatever suites run. */
    for (int k = 0; k < o->user_pattern_count; k++) {
        const char *p = o->user_patterns[k];
        ADD(~0u, TEXT_GENOME, p, strlen(p), 0, 0, ALL_ALGOS);
        snprintf(sc->id, sizeof sc->id, "user-%d", k + 1);
        snprintf(sc->title, sizeof sc->title, "--pattern #%d, m = %zu", k + 1, strlen(p));
        snprintf(sc->origin, sizeof sc->origin, "--pattern");
    }
#undef PICK
#undef ADD
    return 0;
}

static void suites_text(unsigned suites, char *out, size_t n)
{
    out[0] = '\0';
    if ((suites & SUITE_FULL) == SUITE_FULL) {
        snprintf(out, n, "full");
        suites &= ~(unsigned)(SUITE_FULL | SUITE_BASIC | SUITE_QUICK); /* all in full */
    }
    for (size_t k = 0; k + 1 < sizeof suite_names / sizeof suite_names[0]; k++)
        if (suites & suite_names[k].bits) {
            size_t l = strlen(out);
            snprintf(out + l, n - l, "%s%s", l ? "+" : "", suite_names[k].name);
        }
}

/* ---- one row ---------------------------------------------------------------------------- */

/* Counting callback that also checks what the API promises: text order (start, then end;
 * for a set start, then id), the lengths and edit counts the search allows, ids. */
typedef struct scan_counter {
    uint64_t n;
    uint64_t last_start, last_end;
    unsigned last_id;
    size_t min_len, max_len;
    const pattern_set *set;     /* a set: match id i has length set->lens[i] */
    unsigned k;
    uint64_t out_of_order, wrong_length;
    uint64_t hist[BENCH_MAX_K + 1];
} scan_counter;

static int count_match(const clm_match *match, void *ctx)
{
    scan_counter *c = ctx;
    if (c->n && (match->start < c->last_start
                 || (match->start == c->last_start
                     && (c->set ? match->id <= c->last_id : match->end <= c->last_end))))
        c->out_of_order++;
    uint64_t len = match->end - match->start;
    int wrong_id = c->set ? match->id >= c->set->count || len != c->set->lens[match->id]
                          : match->id != 0;
    if (match->end < match->start || len < c->min_len || len > c->max_len || wrong_id
        || match->edits > c->k)
        c->wrong_length++;
    else if (match->edits <= BENCH_MAX_K)
        c->hist[match->edits]++;
    c->last_start = match->start;
    c->last_end = match->end;
    c->last_id = match->id;
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

/* The warm-up call before the timed calls launches every kernel once (first-launch work:
 * PoCL compiles a kernel for its work-group size then). It scans a prefix of this many bytes:
 * the launch is what matters, and slow variants then cost one full-size call, not two. */
#define WARMUP_BYTES ((uint64_t)4 << 20)

/* clm_count: warm-up on a prefix, then timed calls. 0 on success. */
static int measure_count(const clm_database *db, clm_scratch *s, const char *text,
                         const options *o, bench_row *row)
{
    static double wall[MAX_REPS], kernel[MAX_REPS];
    rep_loop l = {0, o->time_per_row / 2, o->max_time_per_row / 2, o->min_reps, 0};
    int kernel_reps = 0;
    for (int r = -1; r < 0 || more_reps(&l); r++) {
        clm_stats stats;
        uint64_t count = 0;
        size_t bytes = (size_t)(r < 0 && row->bytes > WARMUP_BYTES ? WARMUP_BYTES : row->bytes);
        clm_scratch_reset_stats(s);
        double t = now_seconds();
        int st = clm_count(db, s, text, bytes, &count);
        t = now_seconds() - t;
        if (st != CLM_OK) {
            row_error(row, "clm_count", st);
            return -1;
        }
        st = clm_scratch_get_stats(s, &stats, sizeof stats);
        if (st != CLM_OK) {
            row_error(row, "clm_scratch_get_stats", st);
            return -1;
        }
        if (r < 0) {
            row->warmup_count_s = t;
            l.timed_begin = now_seconds();
            continue;
        }
        if (r == 0) {
            row->matches = count;
        } else if (count != row->matches) {
            row->mismatch = 1;
            snprintf(row->note, sizeof row->note, "clm_count gave %llu then %llu",
                     (unsigned long long)row->matches, (unsigned long long)count);
        }
        wall[l.reps++] = t;
        if (stats.kernel_seconds > 0)
            kernel[kernel_reps++] = stats.kernel_seconds;
    }
    row->count_reps = l.reps;
    row->cut |= l.reps < o->min_reps;
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

/* clm_scan with a counting callback: warm-up on a prefix, then timed calls. 0 on success. */
static int measure_scan(const clm_database *db, clm_scratch *s, const char *text,
                        const bench_scenario *sc, const options *o, bench_row *row)
{
    static double wall[MAX_REPS];
    rep_loop l = {0, o->time_per_row / 2, o->max_time_per_row / 2, o->min_reps, 0};
    for (int r = -1; r < 0 || more_reps(&l); r++) {
        scan_counter c;
        memset(&c, 0, sizeof c);
        c.k = sc->k;
        c.min_len = sc->set ? sc->set->min_len : sc->len;
        c.max_len = sc->len;
        c.set = sc->set;
        if (sc->k && !(sc->flags & CLM_MISMATCHES_ONLY)) {
            c.min_len = sc->len - sc->k;
            c.max_len = sc->len + sc->k;
        }
        size_t bytes = (size_t)(r < 0 && row->bytes > WARMUP_BYTES ? WARMUP_BYTES : row->bytes);
        double t = now_seconds();
        int st = clm_scan(db, s, text, bytes, count_match, &c);
        t = now_seconds() - t;
        if (st != CLM_OK) {
            row_error(row, "clm_scan", st);
            return -1;
        }
        if (r < 0) {
            row->warmup_scan_s = t;
            l.timed_begin = now_seconds();
            continue;
        }
        if (c.n != row->matches || c.out_of_order || c.wrong_length) {
            row->mismatch = 1;
            snprintf(row->note, sizeof row->note,
                     "clm_scan delivered %llu matches (clm_count: %llu), %llu out of text "
                     "order, %llu with a wrong length, id or edit count",
                     (unsigned long long)c.n, (unsigned long long)row->matches,
                     (unsigned long long)c.out_of_order, (unsigned long long)c.wrong_length);
        }
        if (r == 0)
            memcpy(row->scan_hist, c.hist, sizeof c.hist);
        wall[l.reps++] = t;
    }
    row->scan_reps = l.reps;
    row->cut |= l.reps < o->min_reps;
    row->scan_med_s = median_of(wall, (size_t)l.reps);
    row->scan_min_s = min_of(wall, (size_t)l.reps);
    return 0;
}

static void run_row(clm_device *dev, const char *text, const bench_scenario *sc,
                    const options *o, bench_row *row)
{
    clm_compile_options copts;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info info;
    const char *bytes = sc->bytes;
    const char *const *patterns = sc->set ? sc->set->ptrs : &bytes;
    const size_t *lengths = sc->set ? sc->set->lens : &sc->len;
    unsigned count = sc->set ? sc->set->count : 1;
    char want[64], got[64];
    int st;

    clm_compile_options_init(&copts, sizeof copts);
    copts.algorithm = row->algorithm;
    copts.variant = row->variant;
    copts.table_memory = row->table;
    copts.max_errors = sc->k;
    copts.flags = sc->flags;
    double t = now_seconds();
    st = clm_compile(dev, patterns, lengths, NULL, count, &copts, &db);
    row->compile_s = now_seconds() - t;
    /* A variant that cannot serve this pattern on this device: the library says why. The
     * automatic choice must always work. */
    if ((st == CLM_E_UNSUPPORTED || st == CLM_E_PATTERN_TOO_LONG)
        && row->algorithm != CLM_ALGO_AUTO) {
        row->status = ROW_UNSUPPORTED;
        one_line(row->note, sizeof row->note, clm_last_error());
        return;
    }
    if (st != CLM_OK) {
        row_error(row, "clm_compile", st);
        return;
    }
    st = clm_database_get_info(db, &info, sizeof info);
    if (st != CLM_OK) {
        row_error(row, "clm_database_get_info", st);
        goto done;
    }
    row->cache_hit = info.cache_hit;
    row->table_bytes = info.table_bytes;
    row->local_table_bytes = info.local_table_bytes;
    row->work_group_size = info.work_group_size;
    row->bytes_per_item = info.bytes_per_item;
    row->got_algorithm = info.algorithm;
    row->got_variant = info.variant;
    row->got_table = info.table_memory;
    one_line(row->choice, sizeof row->choice, info.choice);
    /* Asked for one variant, got another: the numbers would be mislabelled. */
    int wrong = info.algorithm == CLM_ALGO_AUTO || info.table_memory == CLM_TABLE_AUTO
                || info.variant == CLM_VARIANT_AUTO;
    if (row->algorithm != CLM_ALGO_AUTO)
        wrong |= info.algorithm != row->algorithm;
    if (row->table != CLM_TABLE_AUTO)
        wrong |= info.table_memory != row->table;
    if (row->variant != CLM_VARIANT_AUTO)
        wrong |= info.variant != row->variant;
    if (wrong) {
        row->status = ROW_ERROR;
        snprintf(row->note, sizeof row->note, "asked for %s/%s, the library compiled %s/%s",
                 kind_name(row->algorithm, row->variant, want, sizeof want),
                 clm_table_memory_name(row->table),
                 kind_name(info.algorithm, info.variant, got, sizeof got),
                 clm_table_memory_name(info.table_memory));
        goto done;
    }
    if (info.max_errors != sc->k
        || (info.flags & CLM_MISMATCHES_ONLY) != (sc->flags & CLM_MISMATCHES_ONLY)) {
        row->status = ROW_ERROR;
        snprintf(row->note, sizeof row->note, "asked for max_errors %u flags 0x%x, the "
                 "database reports max_errors %u flags 0x%x", sc->k, sc->flags,
                 info.max_errors, info.flags);
        goto done;
    }
    clm_scratch_options so;
    clm_scratch_info si;
    clm_scratch_options_init(&so, sizeof so);
    so.data_path = row->data_path;
    st = clm_scratch_alloc(db, &so, &s);
    if (st == CLM_E_UNSUPPORTED && row->data_path != CLM_PATH_AUTO) {
        row->status = ROW_UNSUPPORTED;
        one_line(row->note, sizeof row->note, clm_last_error());
        goto done;
    }
    if (st != CLM_OK) {
        row_error(row, "clm_scratch_alloc", st);
        goto done;
    }
    if (clm_scratch_get_info(s, &si, sizeof si) == CLM_OK)
        row->got_path = si.data_path;
    if (measure_count(db, s, text, o, row) != 0
        || (!sc->count_only && measure_scan(db, s, text, sc, o, row) != 0))
        goto done;
    if (row->matches != row->expected && !row->mismatch) {
        row->mismatch = 1;
        snprintf(row->note, sizeof row->note, "host reference count is %llu",
                 (unsigned long long)row->expected);
    }
    if (sc->k && !row->mismatch && !sc->count_only
        && memcmp(row->scan_hist, row->expected_hist, sizeof row->scan_hist) != 0) {
        row->mismatch = 1;
        snprintf(row->note, sizeof row->note, "clm_scan matches by edit count 0..%u: "
                 "%llu/%llu/%llu/%llu, host reference %llu/%llu/%llu/%llu", sc->k,
                 (unsigned long long)row->scan_hist[0], (unsigned long long)row->scan_hist[1],
                 (unsigned long long)row->scan_hist[2], (unsigned long long)row->scan_hist[3],
                 (unsigned long long)row->expected_hist[0],
                 (unsigned long long)row->expected_hist[1],
                 (unsigned long long)row->expected_hist[2],
                 (unsigned long long)row->expected_hist[3]);
    }
    if (row->cut && !row->note[0] && sc->count_only)
        snprintf(row->note, sizeof row->note, "cut by --max-time after %d count call(s)",
                 row->count_reps);
    else if (row->cut && !row->note[0])
        snprintf(row->note, sizeof row->note, "cut by --max-time after %d count and %d scan "
                 "call(s)", row->count_reps, row->scan_reps);
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

/* LABEL-DATE[-SUITES][-partial][-quick].{md,csv}: a run of other suites, or a filtered one,
 * never overwrites the default run's files. */
static int write_reports(const options *o, const bench_report *r)
{
    char path[4096], suffix[256] = "";
    FILE *f;
    if (make_dirs(o->out_dir) != 0) {
        fprintf(stderr, BENCH_PROG ": cannot create %s: %s\n", o->out_dir, strerror(errno));
        return -1;
    }
    if (o->suites != (o->quick ? (unsigned)SUITE_QUICK : (unsigned)SUITE_FULL))
        snprintf(suffix, sizeof suffix, "-%s", r->suites);
    if (r->filters[0])
        snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "-partial");
    for (int csv = 0; csv <= 1; csv++) {
        int n = snprintf(path, sizeof path, "%s/%s-%s%s%s.%s", o->out_dir, r->label, r->date,
                         suffix, r->quick ? "-quick" : "", csv ? "csv" : "md");
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

/* How many patterns one launch of the algorithm searches (1: a launch per pattern). */
static unsigned algo_group(clm_algorithm a)
{
    const struct clm_algo *d = clm_algo(a);
    return d ? d->group : 1;
}

static int row_wanted(const options *o, const bench_scenario *sc, const kind *kd,
                      clm_table_memory table)
{
    if (!(sc->algo_mask & ALGO_BIT(kd->algorithm)))
        return 0;
    if (sc->set && sc->set->count > PER_PATTERN_MAX_SET && algo_group(kd->algorithm) <= 1)
        return 0;
    if (o->algo_mask && !(o->algo_mask & ALGO_BIT(kd->algorithm)))
        return 0;
    if (o->table_mask && !(o->table_mask & 1u << table))
        return 0;
    if (kd->algorithm == CLM_ALGO_BITAP) {
        if (o->variant_mask && !(o->variant_mask & 1u << kd->variant))
            return 0;
        /* reduce and subgroup are exact search only (clmatch.h). */
        if (sc->k && kd->variant != CLM_VARIANT_ITEM)
            return 0;
    }
    return 1;
}

static ref_kind scenario_ref_kind(const bench_scenario *sc)
{
    return sc->k == 0 ? REF_EXACT : (sc->flags & CLM_MISMATCHES_ONLY) ? REF_HAMMING : REF_EDIT;
}

/* --write-patterns: DIR/ID.txt per multi scenario, one pattern a line (bench/compare.sh
 * gives them to the CPU tools with -f). 0, or the exit status. */
static int write_pattern_sets(const char *dir, const bench_scenario *list, int count)
{
    char path[4096];
    if (make_dirs(dir) != 0) {
        fprintf(stderr, BENCH_PROG ": cannot create %s: %s\n", dir, strerror(errno));
        return 2;
    }
    for (int i = 0; i < count; i++) {
        const pattern_set *set = list[i].set;
        if (!set)
            continue;
        int n = snprintf(path, sizeof path, "%s/%.31s.txt", dir, list[i].id);
        if (n < 0 || (size_t)n >= sizeof path) {
            fprintf(stderr, BENCH_PROG ": --write-patterns path too long\n");
            return 2;
        }
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, BENCH_PROG ": cannot write %s: %s\n", path, strerror(errno));
            return 2;
        }
        for (unsigned k = 0; k < set->count; k++) {
            fwrite(set->ptrs[k], 1, set->lens[k], f);
            fputc('\n', f);
        }
        if (fclose(f) != 0) {
            fprintf(stderr, BENCH_PROG ": writing %s failed: %s\n", path, strerror(errno));
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int time_set, size_set;
    int st = parse_args(argc, argv, &o, &time_set, &size_set);
    if (st != 0)
        return st;
    bench_kinds();

    /* Fail now, not after minutes of measuring, when the report cannot be written. */
    if (o.write_files && !o.list_scenarios && make_dirs(o.out_dir) != 0) {
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

    /* The English corpus of the multi suite's words: a run that asked for the suite needs
     * it; one that only may select it (--scenario alone) goes on without those scenarios. */
    char *corpus = NULL;
    size_t corpus_len = 0;
    if (multi_wanted(&o) && (read_file(o.corpus_path, &corpus, &corpus_len) != 0
                             || corpus_len == 0)) {
        int asked = o.suites != ~0u;
        fprintf(stderr, BENCH_PROG ": %s %s %s (fetch it with: sh bench/fetch-corpus.sh)%s\n",
                asked ? "cannot read" : "no", o.corpus_path,
                corpus ? "is empty" : strerror(errno),
                asked ? "" : "; the multi-words scenarios are left out");
        free(corpus);
        corpus = NULL;
        if (asked) {
            free(genome);
            return 2;
        }
    }

    /* The scenarios of the chosen suites. */
    static bench_scenario all_scenarios[MAX_SCENARIOS], scenarios[MAX_SCENARIOS];
    int all_count = 0, scenario_count = 0;
    st = build_scenarios(&o, genome, genome_len, corpus, corpus_len, all_scenarios,
                         &all_count);
    if (st != 0) {
        for (int i = 0; i < all_count; i++)
            free_scenario(&all_scenarios[i]);
        free(corpus);
        free(genome);
        return st;
    }
    for (int i = 0; i < all_count; i++)
        if (scenario_wanted(&o, &all_scenarios[i]))
            scenarios[scenario_count++] = all_scenarios[i];
        else
            free_scenario(&all_scenarios[i]);
    if (o.list_scenarios || o.write_patterns) {
        st = o.write_patterns ? write_pattern_sets(o.write_patterns, scenarios, scenario_count)
                              : 0;
        for (int i = 0; i < scenario_count; i++) {
            char suites[128];
            suites_text(scenarios[i].suites, suites, sizeof suites);
            if (o.list_scenarios)
                printf("%-18s %-44s %s\n", scenarios[i].id, scenarios[i].title,
                       scenarios[i].suites == ~0u ? "every suite" : suites);
            free_scenario(&scenarios[i]);
        }
        free(corpus);
        free(genome);
        return st;
    }
    if (scenario_count == 0) {
        fprintf(stderr, BENCH_PROG ": no scenario selected (see --list-scenarios)\n");
        free(corpus);
        free(genome);
        return 2;
    }

    /* The devices. */
    clm_device_info *list = NULL;
    size_t list_count = 0;
    st = clm_list_devices(0, sizeof *list, &list, &list_count);
    if (st != CLM_OK || list_count == 0) {
        fprintf(stderr, BENCH_PROG ": %s: %s\n", clm_strerror(st != CLM_OK ? st : CLM_E_NO_DEVICE),
                st != CLM_OK ? clm_last_error() : "no OpenCL device");
        free(corpus);
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
            free(corpus);
            free(genome);
            return 2;
        }
    }
    clm_free_device_list(list);

    /* The texts, and what each device scans of them. The basic suite keeps the first bench's
     * sizes; the others are many more rows, so smaller texts by default. */
    const int basic_only = o.suites == SUITE_BASIC;
    if (o.size == 0)
        o.size = basic_only ? (any_gpu ? GIB : 256 * MIB) : (any_gpu ? 256 * MIB : 64 * MIB);
    if (!o.cpu_size_set && !basic_only && !o.quick && any_gpu)
        o.cpu_size = 64 * MIB;
    if (o.size > SIZE_MAX) {
        fprintf(stderr, BENCH_PROG ": --size too large for this host\n");
        free(corpus);
        free(genome);
        return 2;
    }
    int any_genome = 0, any_worst = 0, any_corpus = 0;
    for (int i = 0; i < scenario_count; i++) {
        any_genome |= scenarios[i].text == TEXT_GENOME;
        any_worst |= scenarios[i].text == TEXT_ALL_A;
        any_corpus |= scenarios[i].text == TEXT_CORPUS;
    }
    uint64_t worst_max = 0;
    for (int i = 0; i < device_count; i++) {
        bench_device *bd = &devices[i];
        bd->text_bytes = o.size;
        if (bd->info.type == CLM_DEVICE_CPU && o.cpu_size && o.cpu_size < o.size)
            bd->text_bytes = o.cpu_size;
        bd->worst_bytes = o.worst_size ? o.worst_size : bd->text_bytes / 4;
        if (bd->worst_bytes < 4096)
            bd->worst_bytes = 4096;
        if (bd->worst_bytes > worst_max)
            worst_max = bd->worst_bytes;
    }

    char *text = NULL, *all_a = NULL, *corpus_text = NULL;
    if (any_genome) {
        fprintf(stderr, BENCH_PROG ": building a %.1f MiB text from %s\n",
                (double)o.size / (double)MIB, o.genome_path);
        text = replicate(genome, genome_len, (size_t)o.size);
    }
    if (any_corpus) {
        fprintf(stderr, BENCH_PROG ": building a %.1f MiB text from %s\n",
                (double)o.size / (double)MIB, o.corpus_path);
        corpus_text = replicate(corpus, corpus_len, (size_t)o.size);
    }
    if (any_worst && (all_a = malloc((size_t)worst_max)) != NULL)
        memset(all_a, 'a', (size_t)worst_max);
    if ((any_genome && !text) || (any_worst && !all_a) || (any_corpus && !corpus_text)) {
        fprintf(stderr, BENCH_PROG ": out of host memory for the texts (try --size)\n");
        free(text);
        free(all_a);
        free(corpus_text);
        free(corpus);
        free(corpus);
        free(genome);
        return 2;
    }

    /* Rows in report order: device, scenario, algorithm/variant, table memory, then the
     * automatic choice of that scenario. */
    size_t max_rows = (size_t)device_count * (size_t)scenario_count
                      * ((size_t)kind_count * 3 + 1 + CLM_PATH_SVM);
    bench_row *rows = calloc(max_rows, sizeof *rows);
    if (!rows) {
        fprintf(stderr, BENCH_PROG ": out of host memory\n");
        free(text);
        free(all_a);
        free(corpus_text);
        free(corpus);
        free(corpus);
        free(genome);
        return 2;
    }
    int row_count = 0, any_group = 0;
    for (unsigned a = 1; a < clm_algorithm_count(); a++)
        any_group |= algo_group((clm_algorithm)a) > 1;
    for (int d = 0; d < device_count; d++)
        for (int sci = 0; sci < scenario_count; sci++) {
            const bench_scenario *sc = &scenarios[sci];
            for (int kd = 0; kd < kind_count; kd++)
                for (int t = 0; t < 3; t++) {
                    if (!row_wanted(&o, sc, &kinds[kd], tables[t]))
                        continue;
                    bench_row *row = &rows[row_count++];
                    row->device = d;
                    row->scenario = sci;
                    row->algorithm = kinds[kd].algorithm;
                    row->variant = kinds[kd].variant;
                    row->table = tables[t];
                }
            if (!o.algo_mask || (o.algo_mask & 1u)) {
                /* the automatic choice, then (path rows) the same on each data path */
                int paths = o.path_set || sc->path_rows ? CLM_PATH_SVM : CLM_PATH_AUTO;
                for (int p = CLM_PATH_AUTO; p <= paths; p++) {
                    if (p != CLM_PATH_AUTO && !(o.path_mask & 1u << p))
                        continue;
                    bench_row *row = &rows[row_count++];
                    row->device = d;
                    row->scenario = sci;
                    row->algorithm = CLM_ALGO_AUTO;
                    row->variant = CLM_VARIANT_AUTO;
                    row->table = CLM_TABLE_AUTO;
                    row->data_path = (clm_data_path)p;
                    if (sc->set && sc->set->count > PER_PATTERN_MAX_AUTO && !any_group) {
                        row->status = ROW_UNSUPPORTED; /* set before the run: not run */
                        snprintf(row->note, sizeof row->note, "not run: no algorithm of this "
                                 "library searches a group of patterns in one launch, so auto "
                                 "would launch %u kernels per slab", sc->set->count);
                    }
                }
            }
        }
    if (row_count == 0) {
        fprintf(stderr, BENCH_PROG ": the filters leave no row to measure\n");
        free(rows);
        free(text);
        free(all_a);
        free(corpus_text);
        free(corpus);
        free(corpus);
        free(genome);
        return 2;
    }

    /* Host reference for every scenario that has rows, for every distinct scanned length. */
    double ref_started = now_seconds();
    fprintf(stderr, BENCH_PROG ": host reference counts...\n");
    for (int sci = 0; sci < scenario_count; sci++) {
        const bench_scenario *sc = &scenarios[sci];
        size_t limits[MAX_DEVICES];
        uint64_t hist[MAX_DEVICES][BENCH_MAX_K + 1];
        int used = 0;
        for (int i = 0; i < row_count; i++)
            used |= rows[i].scenario == sci && rows[i].status != ROW_UNSUPPORTED;
        if (!used)
            continue;
        for (int d = 0; d < device_count; d++)
            limits[d] = (size_t)(sc->text == TEXT_ALL_A ? devices[d].worst_bytes
                                                        : devices[d].text_bytes);
        const char *t = sc->text == TEXT_ALL_A ? all_a : sc->text == TEXT_CORPUS ? corpus_text
                                                                                 : text;
        size_t tlen = (size_t)(sc->text == TEXT_ALL_A ? worst_max : o.size);
        uint64_t set_counts[MAX_DEVICES];
        int ref = 0;
        if (sc->set) {
            memset(hist, 0, sizeof hist);
            ref = host_reference_set(t, tlen, sc->set, limits, (size_t)device_count,
                                     set_counts);
            for (int d = 0; d < device_count; d++)
                hist[d][0] = set_counts[d];
        } else {
            ref = host_reference(t, tlen, sc->bytes, sc->len, scenario_ref_kind(sc), sc->k,
                                 limits, (size_t)device_count, hist);
        }
        if (ref != 0) {
            fprintf(stderr, BENCH_PROG ": no host reference for scenario %s (out of memory, "
                    "or too long for an approximate reference)\n", sc->id);
            free(rows);
            free(text);
            free(all_a);
            free(corpus_text);
            free(corpus);
            free(corpus);
            free(genome);
            return 2;
        }
        for (int i = 0; i < row_count; i++) {
            bench_row *row = &rows[i];
            if (row->scenario != sci)
                continue;
            memcpy(row->expected_hist, hist[row->device], sizeof row->expected_hist);
            row->expected = 0;
            for (unsigned e = 0; e <= BENCH_MAX_K; e++)
                row->expected += hist[row->device][e];
            row->bytes = limits[row->device];
        }
    }
    fprintf(stderr, BENCH_PROG ": host reference in %.1f s; %d rows over %d scenarios\n",
            now_seconds() - ref_started, row_count, scenario_count);

    /* the host-read yardstick reads one file of --h2d-bytes into each device's pinned
     * buffer */
    int read_fd = -1;
    if (o.measure_bandwidth)
        read_fd = host_read_file(text, text ? (size_t)o.size : 0,
                                 o.h2d_bytes ? o.h2d_bytes : 256 * MIB);
    double started = now_seconds();
    for (int d = 0; d < device_count; d++) {
        bench_device *bd = &devices[d];
        const clm_device_info *di = &bd->info;
        int first_row = -1, end_row = -1;
        for (int i = 0; i < row_count; i++)
            if (rows[i].device == d) {
                if (first_row < 0)
                    first_row = i;
                end_row = i + 1;
            }
        if (first_row < 0)
            continue;

        fprintf(stderr, BENCH_PROG ": device %d:%d %s (%s)\n", di->platform_index,
                di->device_index, di->name, device_type_name(di->type));
        if (o.measure_bandwidth) {
            uint64_t read_bytes = o.read_bytes ? o.read_bytes
                                               : di->type == CLM_DEVICE_GPU ? GIB : 256 * MIB;
            uint64_t h2d_bytes = o.h2d_bytes ? o.h2d_bytes : 256 * MIB;
            bw_measure(di->platform_index, di->device_index, di->name, read_bytes, h2d_bytes,
                       read_fd, o.quick ? 0.2 : 0.5, &bd->bw);
            fprintf(stderr, "  read %.1f GB/s (%s), host->device %.1f GB/s pageable, %.1f GB/s "
                    "pinned%s%s\n", bd->bw.read_gbs, bd->bw.read_kernel,
                    bd->bw.h2d_pageable_gbs, bd->bw.h2d_pinned_gbs,
                    bd->bw.error[0] ? "; " : "", bd->bw.error);
            if (bd->bw.host_read_counts) {
                fprintf(stderr, "  host read (pread of a cached %.0f MiB file into pinned "
                        "memory):", (double)bd->bw.h2d_bytes / (double)MIB);
                for (int c = 0; c < bd->bw.host_read_counts; c++)
                    fprintf(stderr, "%s %u thread%s %.1f GB/s", c ? "," : "",
                            bd->bw.host_read_threads[c], bd->bw.host_read_threads[c] == 1 ? "" : "s",
                            bd->bw.host_read_gbs[c]);
                fputc('\n', stderr);
            }
        } else {
            snprintf(bd->bw.error, sizeof bd->bw.error, "not measured (--no-bandwidth)");
            bd->bw.read_kernel = "-";
        }

        clm_device *dev = NULL;
        st = clm_device_open(di->platform_index, di->device_index, &dev);
        if (st != CLM_OK) {
            for (int i = first_row; i < end_row; i++)
                row_error(&rows[i], "clm_device_open", st);
            fprintf(stderr, "  %s\n", rows[first_row].note);
            continue;
        }
        clm_tuning tuning;
        if (clm_device_get_tuning(dev, &tuning, sizeof tuning) == CLM_OK) {
            snprintf(bd->tuning, sizeof bd->tuning, "tuning %.500s (%.500s)", tuning.values,
                     tuning.source);
            fprintf(stderr, "  %s\n", bd->tuning);
        }
        double dev_started = now_seconds();
        for (int i = first_row; i < end_row; i++) {
            bench_row *row = &rows[i];
            const bench_scenario *sc = &scenarios[row->scenario];
            char kn[64];
            double row_started = now_seconds();
            fprintf(stderr, "  [%d/%d] %s %s/%s%s%s ... ", i - first_row + 1,
                    end_row - first_row, sc->id,
                    kind_name(row->algorithm, row->variant, kn, sizeof kn),
                    clm_table_memory_name(row->table), row->data_path ? ", data path " : "",
                    row->data_path ? clm_data_path_name(row->data_path) : "");
            if (row->status == ROW_UNSUPPORTED) { /* decided before the run */
                fprintf(stderr, "%s\n", row->note);
                continue;
            }
            run_row(dev, sc->text == TEXT_ALL_A ? all_a : sc->text == TEXT_CORPUS ? corpus_text
                                                                                   : text,
                    sc, &o, row);
            if (row->status == ROW_OK) {
                if (row->algorithm == CLM_ALGO_AUTO)
                    fprintf(stderr, "chose %s/%s (data path %s), ",
                            kind_name(row->got_algorithm, row->got_variant, kn, sizeof kn),
                            clm_table_memory_name(row->got_table),
                            clm_data_path_name(row->got_path));
                char scan[48] = "count only";
                if (!sc->count_only)
                    snprintf(scan, sizeof scan, "scan %.2f GB/s",
                             gbs(row->bytes, row->scan_med_s));
                fprintf(stderr, "kernel %.2f GB/s, count %.2f GB/s, %s, %llu matches%s%s "
                        "(%.1f s)\n", gbs(row->bytes, row->kernel_med_s),
                        gbs(row->bytes, row->count_med_s), scan,
                        (unsigned long long)row->matches, row->mismatch ? "  MISMATCH" : "",
                        row->cut ? " (cut)" : "", now_seconds() - row_started);
            } else {
                fprintf(stderr, "%s: %s\n", row->status == ROW_UNSUPPORTED ? "unsupported"
                        : "ERROR", row->note);
            }
        }
        fprintf(stderr, "  device %d:%d: %d rows in %.1f s\n", di->platform_index,
                di->device_index, end_row - first_row, now_seconds() - dev_started);
        clm_device_close(dev);
    }
    if (read_fd >= 0)
        close(read_fd);
    double run_seconds = now_seconds() - started;
    fprintf(stderr, BENCH_PROG ": %d rows in %.1f s\n", row_count, run_seconds);

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
    suites_text(o.suites, r.suites, sizeof r.suites);
    snprintf(r.filters, sizeof r.filters, "%s", o.filters);
    r.genome_path = o.genome_path;
    r.genome_bytes = genome_len;
    r.corpus_path = any_corpus ? o.corpus_path : NULL;
    r.corpus_bytes = corpus_len;
    r.text_bytes = o.size;
    r.time_per_row = o.time_per_row;
    r.max_time_per_row = o.max_time_per_row;
    r.min_reps = o.min_reps;
    r.quick = o.quick;
    r.devices = devices;
    r.device_count = device_count;
    r.scenarios = scenarios;
    r.scenario_count = scenario_count;
    r.rows = rows;
    r.row_count = row_count;
    r.run_seconds = run_seconds;
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
            if (rows[i].mismatch) {
                char kn[64];
                fprintf(stderr, "  MISMATCH device %d:%d %s %s/%s: %llu matches, expected "
                        "%llu; %s\n", devices[rows[i].device].info.platform_index,
                        devices[rows[i].device].info.device_index,
                        scenarios[rows[i].scenario].id,
                        kind_name(rows[i].algorithm, rows[i].variant, kn, sizeof kn),
                        clm_table_memory_name(rows[i].table),
                        (unsigned long long)rows[i].matches,
                        (unsigned long long)rows[i].expected, rows[i].note);
            }
        status = 1;
    }
    if (r.errors) {
        fprintf(stderr, BENCH_PROG ": %d row(s) failed (see the notes column):\n", r.errors);
        for (int i = 0; i < row_count; i++)
            if (rows[i].status == ROW_ERROR) {
                char kn[64];
                fprintf(stderr, "  ERROR device %d:%d %s %s/%s: %s\n",
                        devices[rows[i].device].info.platform_index,
                        devices[rows[i].device].info.device_index,
                        scenarios[rows[i].scenario].id,
                        kind_name(rows[i].algorithm, rows[i].variant, kn, sizeof kn),
                        clm_table_memory_name(rows[i].table), rows[i].note);
            }
        status = 1;
    }
    for (int i = 0; i < scenario_count; i++)
        free_scenario(&scenarios[i]);
    free(rows);
    free(text);
    free(all_a);
    free(corpus_text);
    free(corpus);
    free(genome);
    return status;
}
