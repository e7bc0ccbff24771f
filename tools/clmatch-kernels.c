/*
 * clmatch-kernels — write the source and build options of every kernel shape clmatch plans
 * for a fixed list of cases (device models x pattern sets x options), so that a refactor of
 * the host or the kernels can be diffed: `make check-kernels` preprocesses what this writes
 * (tools/check-kernels.sh). Needs no OpenCL device: the databases are planned for model
 * devices (clm_device_model), which build and upload nothing.
 *
 * Usage: clmatch-kernels DIR | --options | --algorithms | --environment
 * --options and --algorithms print, as markdown tables, the build options (host/program.c)
 * and the algorithms' descriptors (host/algo.c): docs/design.md holds both; --environment
 * the environment variables the library reads (host/env.c), for docs/library.md.
 * Writes DIR/cases.txt (one line per case: its name, then for each engine the key of its
 * kernel, or the status and message of a refused compile) and DIR/KEY.cl per distinct kernel:
 * a first line "// options: ..." and the program source.
 * Exit status: 0 success, 1 failure (a message on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algo.h"

/* ---- device models ------------------------------------------------------------------------ */

/* The properties the planning reads, as the devices of bench/results report them. */
static const struct model {
    const char *name;
    clm_device_info info;
} models[] = {
    {"gpu",
     {.platform_name = "NVIDIA CUDA", .platform_vendor = "NVIDIA Corporation",
      .name = "NVIDIA H200 (model)", .vendor = "NVIDIA Corporation", .type = CLM_DEVICE_GPU,
      .compute_units = 132, .global_mem_bytes = (uint64_t)140 << 30,
      .max_alloc_bytes = (uint64_t)35 << 30, .local_mem_bytes = 49152,
      .local_mem_dedicated = 1, .constant_mem_bytes = 65536, .max_work_group_size = 1024,
      .mem_base_align_bits = 4096}},
    {"cpu",
     {.platform_name = "Portable Computing Language", .platform_vendor = "The pocl project",
      .name = "pthread (model)", .vendor = "GenuineIntel", .type = CLM_DEVICE_CPU,
      .compute_units = 16, .global_mem_bytes = (uint64_t)16 << 30,
      .max_alloc_bytes = (uint64_t)4 << 30, .local_mem_bytes = 1 << 20,
      .local_mem_dedicated = 0, .constant_mem_bytes = 1 << 20, .max_work_group_size = 4096,
      .host_unified_memory = 1, .mem_base_align_bits = 1024}},
};

/* ---- pattern sets ------------------------------------------------------------------------- */

struct patset {
    const char *name;
    const char *pats[4];
    unsigned flags, k; /* the compile flags and these cases' own switches (below) */
};

/* The options' switches a case sets, as bits above the compile flags. */
#define K_PACKING (1u << 24)
#define K_STAGING (1u << 25)
#define K_NO_STAGING (1u << 26)
#define K_PREFETCH (1u << 27)
#define K_SWITCHES (K_PACKING | K_STAGING | K_NO_STAGING | K_PREFETCH)

static void set_switches(clm_compile_options *o, unsigned flags)
{
    o->flags = flags & ~K_SWITCHES;
    o->packing = flags & K_PACKING ? CLM_ON : CLM_AUTO;
    o->staging = flags & K_NO_STAGING ? CLM_OFF : flags & K_STAGING ? CLM_ON : CLM_AUTO;
    o->prefetch = flags & K_PREFETCH ? CLM_ON : CLM_AUTO;
}

static const struct patset sets[] = {
    {"dna1", {"A"}, 0, 0},
    {"dna4", {"ACGT"}, 0, 0},
    {"dna13", {"GATTACAGATTAC"}, 0, 0},
    {"dna17", {"GATTACAGATTACAGAT"}, 0, 0},
    {"dna32", {"ACGTTGCAACGTTGCAGATTACAGATTACAGA"}, 0, 0},
    {"dna33", {"ACGTTGCAACGTTGCAGATTACAGATTACAGAT"}, 0, 0},
    {"dna64", {"ACGTTGCAACGTTGCAGATTACAGATTACAGAACGTTGCAACGTTGCAGATTACAGATTACAGA"}, 0, 0},
    {"periodic16", {"AAAAAAAAAAAAAAAA"}, 0, 0},
    {"text", {"hello world"}, 0, 0},
    {"caseless", {"Hello World"}, CLM_CASELESS, 0},
    {"mixed", {"GATTACA", "ACGTTGCAACGTTGCAGATTACAG", "TTT"}, 0, 0},
    {"dna20-set", {"GATTACAGATTACAGATTAC", "ACGTTGCAACGTTGCAGATT", "TTTGACCAGTTTGACCAGTA"}, 0, 0},
    {"classes", {"[ab]c.d\\d"}, CLM_CLASSES, 0},
    {"edits2", {"GATTACAGATTACAG"}, 0, 2},
    {"mismatch2", {"GATTACAGATTACAG"}, CLM_MISMATCHES_ONLY, 2},
    {"dna-both", {"GATTACAGG"}, CLM_DNA | CLM_BOTH_STRANDS, 0},
    {"dna-iupac", {"GATNRYACA"}, CLM_DNA | CLM_BOTH_STRANDS, 0},
    {"dna-packed", {"GATTACAGATTACA"}, CLM_DNA | K_PACKING, 0},
    {"dna-both-mm", {"GATTACAGATTACANGG"}, CLM_DNA | CLM_BOTH_STRANDS | CLM_MISMATCHES_ONLY, 3},
    {"nostage", {"GATTACAGATTAC"}, K_NO_STAGING, 0},
    {"prefetch", {"GATTACAGATTAC"}, K_PREFETCH | K_STAGING, 0},
};

/* A pattern of m bytes of the DNA alphabet, not periodic (long-pattern cases). */
static void long_pattern(char *buf, size_t m)
{
    unsigned x = 12345;
    for (size_t i = 0; i < m; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = "ACGT"[(x >> 16) & 3];
    }
    buf[m] = '\0';
}

/* ---- output -------------------------------------------------------------------------------- */

static int write_kernel(const char *dir, const struct clm_engine *e, char *key, size_t cap)
{
    unsigned long long h = clm_hash64(e->options, strlen(e->options), 7);
    snprintf(key, cap, "%016llx", h);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cl", dir, key);
    struct stat st;
    if (stat(path, &st) == 0)
        return 0; /* the same options: the same program */
    char *src = NULL;
    if (clm_program_source(&e->shape, &src) != CLM_OK) {
        fprintf(stderr, "clmatch-kernels: %s\n", clm_last_error());
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "clmatch-kernels: %s: %s\n", path, strerror(errno));
        free(src);
        return -1;
    }
    fprintf(f, "// options: %s\n%s", e->options, src);
    free(src);
    return fclose(f) == 0 ? 0 : -1;
}

/* Compile one case and record it: the engines' kernel keys, or the refusal. */
static int run_case(FILE *cases, const char *dir, clm_device *dev, const char *name,
                    const char *const *pats, unsigned count, const clm_compile_options *o)
{
    clm_database *db = NULL;
    int rc = clm_compile(dev, pats, NULL, NULL, count, o, &db);
    fprintf(cases, "%s:", name);
    if (rc != CLM_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", clm_last_error());
        for (char *c = msg; *c; c++)
            if (*c == '\n')
                *c = ' ';
        fprintf(cases, " refused %s: %s\n", clm_strerror(rc), msg);
        return 0;
    }
    int bad = 0;
    for (unsigned i = 0; i < db->engine_count && !bad; i++) {
        char key[32];
        bad = write_kernel(dir, &db->engines[i], key, sizeof key);
        fprintf(cases, " %s", key);
    }
    fprintf(cases, " (%s)\n", db->choice);
    clm_database_free(db);
    return bad;
}

/* The descriptors' names and capabilities, for docs/design.md. */
static void print_algorithms(void)
{
    static const struct {
        unsigned cap;
        const char *what;
    } caps[] = {{CLM_CAP_CLASSES, "classes"},      {CLM_CAP_ERRORS, "errors"},
                {CLM_CAP_REDUCE, "reduce variant"}, {CLM_CAP_STAGE, "staged"},
                {CLM_CAP_PACKED, "packed DNA"},     {CLM_CAP_STRANDS, "both strands in one pass"},
                {CLM_CAP_MISMATCHES, "mismatches"}, {CLM_CAP_EXACT_ENDS, "exact ends"}};
    printf("| algorithm | what | can | longest pattern | kernel |\n|---|---|---|---:|---|\n");
    for (unsigned i = 1; i < CLM_ALGO_COUNT; i++) {
        const struct clm_algo *a = clm_algo((clm_algorithm)i);
        printf("| `%s` | %s | ", a->name, a->summary);
        int any = 0;
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
            if (a->caps & caps[c].cap)
                printf("%s%s", any++ ? ", " : "", caps[c].what);
        printf(" | %u | `cl/%s`%s%s%s |\n", a->max_length, a->source,
               a->reduce_source ? ", `cl/" : "", a->reduce_source ? a->reduce_source : "",
               a->reduce_source ? "`" : "");
    }
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: clmatch-kernels DIR | --options | --algorithms | --environment\n";
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    /* an unknown option is refused, not taken for the directory to write */
    if (argc != 2 || (argv[1][0] == '-' && strcmp(argv[1], "--options") &&
                      strcmp(argv[1], "--algorithms") && strcmp(argv[1], "--environment"))) {
        fputs(usage, stderr);
        return 1;
    }
    if (!strcmp(argv[1], "--options")) {
        clm_build_options_doc(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--algorithms")) {
        print_algorithms();
        return 0;
    }
    if (!strcmp(argv[1], "--environment")) {
        clm_env_doc(stdout);
        return 0;
    }
    const char *dir = argv[1];
    if (clm_mkdirs(dir) != 0) {
        fprintf(stderr, "clmatch-kernels: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *cases = fopen(path, "w");
    if (!cases) {
        fprintf(stderr, "clmatch-kernels: %s: %s\n", path, strerror(errno));
        return 1;
    }
    static char longp[4][1100];
    static const size_t long_m[] = {65, 100, 300, 1000};
    for (int i = 0; i < 4; i++)
        long_pattern(longp[i], long_m[i]);
    int bad = 0;
    for (size_t mi = 0; mi < sizeof models / sizeof models[0] && !bad; mi++) {
        clm_device *dev;
        if (clm_device_model(&models[mi].info, 1, &dev) != CLM_OK) {
            fprintf(stderr, "clmatch-kernels: %s\n", clm_last_error());
            return 1;
        }
        for (int a = 0; a <= CLM_ALGO_WITNESS && !bad; a++)
            for (int v = CLM_VARIANT_AUTO; v <= CLM_VARIANT_REDUCE && !bad; v++)
                for (int t = CLM_TABLE_AUTO; t <= CLM_TABLE_CONSTANT && !bad; t++) {
                    if (v == CLM_VARIANT_REDUCE && a != CLM_ALGO_BITAP)
                        continue;
                    clm_compile_options o;
                    clm_compile_options_init(&o, sizeof o);
                    o.algorithm = (clm_algorithm)a;
                    o.variant = (clm_variant)v;
                    o.table_memory = (clm_table_memory)t;
                    char name[256];
                    for (size_t si = 0; si < sizeof sets / sizeof sets[0] && !bad; si++) {
                        const struct patset *ps = &sets[si];
                        unsigned n = 0;
                        while (n < 4 && ps->pats[n])
                            n++;
                        set_switches(&o, ps->flags);
                        o.max_errors = ps->k;
                        snprintf(name, sizeof name, "%s/%s/%s/%s/%s", models[mi].name,
                                 clm_algorithm_name(o.algorithm), clm_variant_name(o.variant),
                                 clm_table_memory_name(o.table_memory), ps->name);
                        bad = run_case(cases, dir, dev, name, ps->pats, n, &o);
                    }
                    set_switches(&o, 0);
                    o.max_errors = 0;
                    for (int li = 0; li < 4 && !bad; li++) {
                        const char *p[1] = {longp[li]};
                        snprintf(name, sizeof name, "%s/%s/%s/%s/long%zu", models[mi].name,
                                 clm_algorithm_name(o.algorithm), clm_variant_name(o.variant),
                                 clm_table_memory_name(o.table_memory), long_m[li]);
                        bad = run_case(cases, dir, dev, name, p, 1, &o);
                    }
                }
        /* the options' own shape knobs */
        static const unsigned wgs[] = {64, 128}, chunks[] = {64, 512};
        for (int w = 0; w < 2 && !bad; w++)
            for (int c = 0; c < 2 && !bad; c++) {
                clm_compile_options o;
                clm_compile_options_init(&o, sizeof o);
                o.work_group_size = wgs[w];
                o.bytes_per_item = chunks[c];
                o.vector_width = c ? 8 : 4;
                o.groups_per_unit = 4;
                char name[128];
                snprintf(name, sizeof name, "%s/wg%u/chunk%u", models[mi].name, wgs[w], chunks[c]);
                bad = run_case(cases, dir, dev, name, sets[2].pats, 1, &o);
            }
        clm_device_close(dev);
    }
    if (fclose(cases) != 0)
        bad = 1;
    return bad ? 1 : 0;
}
