/*
 * records_bench: the clmatch side of bench/records.sh. A file of one value a line becomes a
 * string column (the newlines left out); each query of a query file is a disjunction of
 * SQL LIKE patterns, timed on one device as a column resident there (uploaded once) and as
 * a host column (sent in slabs by every call, the transfer included).
 *
 *     records_bench --list
 *     records_bench -d P:D [--mode resident|host|both] [--kernels[=LIST]] [--reps N]
 *                   [--max-time S] COLUMN QUERIES
 *
 * QUERIES: one query a line, tab-separated: id, flags ("-" or "not": NOT LIKE), then the
 * patterns (escape '\'). --kernels also times each query with a work-item per row, a
 * work-group per row, filter and verify and the automaton walk forced (modes resident/item,
 * resident/group, resident/filter and resident/automaton, or host/... with --mode host; a
 * kernel that cannot serve the query reports the one that ran); --kernels=LIST only those
 * of a comma-separated list of methods: item, group, filter, automaton, segment (Seg-k-t;
 * segment:T:K for T work-items a row and slices of K places), each optionally followed by
 * /first_byte, /kmp_basic, /kmp_step, /kmp_hybrid or /wide (how a row's segments are found; seed
 * 004's variants). Output, tab-separated lines on stdout (bench/records.py reads them):
 *     device  P:D  type  name
 *     column  rows  string_bytes  offset_bits
 *     upload  seconds                          (before the resident queries)
 *     query   id  mode  count  best_s  median_s  reps  kernel  data_path  id_sum  id_sq_sum
 * id_sum and id_sq_sum are the sums of the selected row ids (0-based) and of their squares,
 * modulo 2^64: a check of the row-id set against DuckDB's. Exit status 0, or 2 after a
 * message on stderr.
 *
 * It lives in bench/records/, not bench/, because the Makefile links every C file of bench/
 * into clmatch-bench; bench/records.sh builds it against the build's libclmatch.a.
 */
#define _POSIX_C_SOURCE 200809L
#include "clmatch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PATTERNS 64
#define MAX_REPS 1000

static int fail(const char *what, int status)
{
    fprintf(stderr, "records_bench: %s: %s (%s)\n", what, clm_strerror(status),
            clm_last_error());
    return 2;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char *kernel_name(clm_rows_kernel k)
{
    return k == CLM_ROWS_AUTOMATON ? "automaton"
           : k == CLM_ROWS_FILTER  ? "filter"
           : k == CLM_ROWS_GROUP   ? "group"
           : k == CLM_ROWS_ITEM    ? "item"
           : k == CLM_ROWS_SEGMENT ? "segment"
                                   : "auto";
}

static const char *const find_names[] = {"auto",     "first_byte", "kmp_basic",
                                         "kmp_step", "kmp_hybrid", "wide"};

/* A way to select rows: the kernel, how it finds segments, Seg-k-t's team and slice. */
typedef struct {
    clm_rows_kernel kernel;
    clm_like_find find;
    unsigned seg_threads, seg_gap;
    char name[64];
} method;

/* "KERNEL[:T:K][/FIND]" into *m; 0, or 2 when it names nothing known. */
static int parse_method(const char *spec, method *m)
{
    char buf[64], *find;
    snprintf(buf, sizeof buf, "%s", spec);
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", spec);
    if ((find = strchr(buf, '/'))) {
        *find++ = '\0';
        int f = 0;
        while (f < 6 && strcmp(find, find_names[f]))
            f++;
        if (f == 6)
            return 2;
        m->find = (clm_like_find)f;
    }
    char *team = strchr(buf, ':');
    if (team) {
        *team++ = '\0';
        if (sscanf(team, "%u:%u", &m->seg_threads, &m->seg_gap) != 2)
            return 2;
    }
    int i = CLM_ROWS_ITEM;
    while (i <= CLM_ROWS_SEGMENT && strcmp(buf, kernel_name((clm_rows_kernel)i)))
        i++;
    if (i > CLM_ROWS_SEGMENT || (team && i != CLM_ROWS_SEGMENT))
        return 2;
    m->kernel = (clm_rows_kernel)i;
    return 0;
}

static void method_apply(const method *m, clm_selection *sel)
{
    sel->kernel = m->kernel;
    sel->find = m->find;
    sel->seg_threads = m->seg_threads;
    sel->seg_gap = m->seg_gap;
}

static int list_devices(void)
{
    clm_device_info *list;
    size_t n;
    int st = clm_list_devices(0, sizeof *list, &list, &n);
    if (st != CLM_OK)
        return fail("listing the devices", st);
    for (size_t i = 0; i < n; i++)
        printf("%d:%d\t%s\t%s\n", list[i].platform_index, list[i].device_index,
               list[i].type == CLM_DEVICE_GPU ? "gpu" : list[i].type == CLM_DEVICE_CPU ? "cpu"
                                                                                     : "other",
               list[i].name);
    clm_free_device_list(list);
    return 0;
}

/* The lines of the file as a column over its bytes, the newlines squeezed out in place
 * (a last line without a newline counts). The buffers stay allocated for the program's
 * life. */
static int load_column(const char *path, clm_column **out, uint64_t *rows, uint64_t *bytes,
                       unsigned *offset_bits)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger)
                free(text);
            text = bigger;
            cap *= 2;
        }
    }
    int bad = !text || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "records_bench: %s: read error or out of memory\n", path);
        return 2;
    }
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += text[i] == '\n';
    count += n > 0 && text[n - 1] != '\n';
    int64_t *off = malloc((count + 1) * sizeof *off);
    if (!off) {
        fputs("records_bench: out of memory\n", stderr);
        return 2;
    }
    size_t w = 0;
    uint64_t row = 0;
    off[0] = 0;
    for (size_t r = 0; r < n; r++) {
        if (text[r] == '\n')
            off[++row] = (int64_t)w;
        else
            text[w++] = text[r];
    }
    if (row < count)
        off[++row] = (int64_t)w;
    /* Arrow's utf8 ("u", 32-bit offsets) while the bytes fit, else large utf8 ("U"), as
     * a database hands the column over. */
    clm_column_desc desc;
    clm_column_desc_init(&desc, sizeof desc);
    desc.rows = count;
    desc.data = text;
    desc.data_bytes = w;
    desc.offset_bits = w <= INT32_MAX ? 32 : 64;
    desc.offsets = off;
    if (desc.offset_bits == 32) {
        int32_t *off32 = malloc((count + 1) * sizeof *off32);
        if (!off32) {
            fputs("records_bench: out of memory\n", stderr);
            return 2;
        }
        for (uint64_t i = 0; i <= count; i++)
            off32[i] = (int32_t)off[i];
        free(off);
        desc.offsets = off32;
    }
    int st = clm_column_wrap(&desc, out);
    if (st != CLM_OK)
        return fail(path, st);
    *rows = count;
    *bytes = w;
    *offset_bits = desc.offset_bits;
    return 0;
}

typedef struct {
    int reps;
    double max_time;
} timing;

/* One query on one column: a warm-up select (kernel build or cache load), the row-id check,
 * then timed count-only selects. Prints its `query` line. */
static int run_query(const clm_like *like, const clm_column *col, const char *id,
                     const char *mode, const method *how, const timing *t)
{
    clm_selection sel;
    clm_selection_init(&sel, sizeof sel);
    method_apply(how, &sel);
    int st = clm_like_select(like, col, &sel);
    if (st != CLM_OK)
        return fail(id, st);
    uint64_t count = sel.count, id_sum = 0, id_sq = 0;

    /* The row ids, untimed: their sums check the set, not just its size. */
    clm_selection ids;
    clm_selection_init(&ids, sizeof ids);
    method_apply(how, &ids);
    ids.row_id_bits = 64;
    ids.row_id_capacity = count ? count : 1;
    uint64_t *buf = malloc(ids.row_id_capacity * sizeof *buf);
    if (!buf) {
        fputs("records_bench: out of memory\n", stderr);
        return 2;
    }
    ids.row_ids = buf;
    st = clm_like_select(like, col, &ids);
    if (st != CLM_OK) {
        free(buf);
        return fail(id, st);
    }
    for (uint64_t i = 0; i < ids.count; i++) {
        id_sum += buf[i];
        id_sq += buf[i] * buf[i];
    }
    free(buf);
    if (ids.count != count) {
        fprintf(stderr, "records_bench: %s: %llu rows counted, %llu row ids\n", id,
                (unsigned long long)count, (unsigned long long)ids.count);
        return 2;
    }

    double times[MAX_REPS], start = now();
    int reps = 0;
    while (reps < t->reps && (reps == 0 || now() - start < t->max_time)) {
        clm_selection_init(&sel, sizeof sel);
        method_apply(how, &sel);
        double t0 = now();
        st = clm_like_select(like, col, &sel);
        times[reps++] = now() - t0;
        if (st != CLM_OK)
            return fail(id, st);
        if (sel.count != count) {
            fprintf(stderr, "records_bench: %s: the count changed from %llu to %llu\n", id,
                    (unsigned long long)count, (unsigned long long)sel.count);
            return 2;
        }
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    double median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    printf("query\t%s\t%s\t%llu\t%.9f\t%.9f\t%d\t%s\t%s\t%llu\t%llu\n", id, mode,
           (unsigned long long)count, times[0], median, reps, kernel_name(sel.kernel_used),
           strncmp(mode, "host", 4) ? "resident" : clm_data_path_name(sel.data_path_used),
           (unsigned long long)id_sum, (unsigned long long)id_sq);
    fflush(stdout);
    return 0;
}

typedef struct {
    char *id;
    unsigned negate;
    unsigned count;
    const char *patterns[MAX_PATTERNS];
} query;

/* Split one query line in place. 0, or 2 after a message. */
static int parse_query(char *line, query *q)
{
    if (!strchr(line, '\n')) {
        fprintf(stderr, "records_bench: a query line is too long or unterminated: %.40s...\n",
                line);
        return 2;
    }
    line[strcspn(line, "\r\n")] = '\0';
    char *fields[MAX_PATTERNS + 2];
    unsigned n = 0;
    for (char *p = line;;) {
        if (n == MAX_PATTERNS + 2) {
            fprintf(stderr, "records_bench: %s: more than %d patterns\n", fields[0],
                    MAX_PATTERNS);
            return 2;
        }
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    if (n < 3 || (strcmp(fields[1], "-") && strcmp(fields[1], "not"))) {
        fprintf(stderr, "records_bench: bad query line '%s': want id, - or not, patterns\n",
                fields[0]);
        return 2;
    }
    q->id = fields[0];
    q->negate = !strcmp(fields[1], "not");
    q->count = n - 2;
    for (unsigned i = 0; i < q->count; i++)
        q->patterns[i] = fields[i + 2];
    return 0;
}

static int usage(void)
{
    fputs("usage: records_bench --list\n"
          "       records_bench -d P:D [--mode resident|host|both] [--kernels[=LIST]]"
          " [--pivot W]... [--self-pivot W:S:L]... [--reps N] [--max-time S]\n"
          "                     COLUMN QUERIES\n"
          "       (LIST: comma-separated item, group, filter, automaton, segment[:T:K],\n"
          "        each optionally /first_byte, /kmp_basic, /kmp_step, /kmp_hybrid or /wide;\n"
          "        default the five kernels;\n"
          "        --pivot W: also the column pivoted in pieces of W bytes, mode pivotW;\n"
          "        --self-pivot W:S:L: also self-pivoted, S segments of L bytes a chunk in\n"
          "        pieces of W, mode selfpivotW:S:L; each also with every --kernels method)\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    int plat = -1, devi = -1, resident = 1, host = 1;
    method methods[32]; /* --kernels: each timed forced */
    unsigned nmethods = 0;
    unsigned pivots[3][3], npivots = 0; /* --pivot W, --self-pivot W:S:L */
    timing t = {10, 10.0};
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        const char *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--list"))
            return list_devices();
        if (!strcmp(argv[a], "--kernels") || !strncmp(argv[a], "--kernels=", 10)) {
            char list[1024];
            snprintf(list, sizeof list, "%s",
                     argv[a][9] ? argv[a] + 10 : "item,group,filter,automaton,segment");
            nmethods = 0;
            for (char *k = strtok(list, ","); k; k = strtok(NULL, ",")) {
                if (nmethods == sizeof methods / sizeof methods[0] ||
                    parse_method(k, &methods[nmethods++]))
                    return usage();
            }
            continue;
        }
        if (!val)
            return usage();
        if (!strcmp(argv[a], "-d")) {
            if (sscanf(val, "%d:%d", &plat, &devi) != 2 || plat < 0 || devi < 0)
                return usage();
        } else if (!strcmp(argv[a], "--mode")) {
            resident = strcmp(val, "host") != 0;
            host = strcmp(val, "resident") != 0;
            if (strcmp(val, "host") && strcmp(val, "resident") && strcmp(val, "both"))
                return usage();
        } else if (!strcmp(argv[a], "--pivot")) {
            if (npivots == 3)
                return usage();
            pivots[npivots][1] = pivots[npivots][2] = 0;
            pivots[npivots++][0] = (unsigned)atoi(val);
        } else if (!strcmp(argv[a], "--self-pivot")) {
            if (npivots == 3 || sscanf(val, "%u:%u:%u", &pivots[npivots][0],
                                       &pivots[npivots][1], &pivots[npivots][2]) != 3)
                return usage();
            npivots++;
        } else if (!strcmp(argv[a], "--reps")) {
            t.reps = atoi(val);
            if (t.reps < 1 || t.reps > MAX_REPS)
                return usage();
        } else if (!strcmp(argv[a], "--max-time")) {
            t.max_time = atof(val);
        } else {
            return usage();
        }
        a++;
    }
    if (argc - a != 2 || plat < 0)
        return usage();

    clm_device *dev;
    int st = clm_device_open(plat, devi, &dev);
    if (st != CLM_OK)
        return fail("opening the device", st);
    clm_device_info info;
    clm_device_get_info(dev, &info, sizeof info);
    printf("device\t%d:%d\t%s\t%s\n", plat, devi,
           info.type == CLM_DEVICE_GPU ? "gpu" : info.type == CLM_DEVICE_CPU ? "cpu" : "other",
           info.name);

    clm_column *col;
    uint64_t rows = 0, bytes = 0;
    unsigned offset_bits = 0;
    if ((st = load_column(argv[a], &col, &rows, &bytes, &offset_bits)))
        return st;
    printf("column\t%llu\t%llu\t%u\n", (unsigned long long)rows, (unsigned long long)bytes,
           offset_bits);

    clm_column *res = NULL;
    if (resident) {
        double t0 = now();
        st = clm_column_upload(dev, col, &res);
        if (st != CLM_OK)
            return fail("uploading the column", st);
        printf("upload\t%.9f\n", now() - t0);
    }
    clm_column *piv[3] = {NULL, NULL, NULL};
    char piv_mode[3][48];
    for (unsigned i = 0; i < npivots; i++) { /* seed 004's Pivot-k and self-pivoting */
        double t0 = now();
        const unsigned *p = pivots[i];
        st = p[1] ? clm_column_self_pivot(dev, col, p[0], p[1], p[2], &piv[i])
                  : clm_column_pivot(dev, col, p[0], &piv[i]);
        if (st != CLM_OK)
            return fail("pivoting the column", st);
        if (p[1])
            snprintf(piv_mode[i], sizeof piv_mode[i], "selfpivot%u:%u:%u", p[0], p[1], p[2]);
        else
            snprintf(piv_mode[i], sizeof piv_mode[i], "pivot%u", p[0]);
        printf("%s\t%.9f\n", piv_mode[i], now() - t0);
    }

    FILE *qf = fopen(argv[a + 1], "r");
    if (!qf) {
        perror(argv[a + 1]);
        return 2;
    }
    char line[8192];
    while (fgets(line, sizeof line, qf)) {
        query q;
        if ((st = parse_query(line, &q)))
            return st;
        unsigned flags[MAX_PATTERNS];
        for (unsigned i = 0; i < q.count; i++)
            flags[i] = q.negate ? CLM_LIKE_NOT : 0;
        clm_like *like;
        st = clm_like_compile(dev, q.patterns, NULL, flags, q.count, '\\', &like);
        if (st != CLM_OK)
            return fail(q.id, st);
        const method automatic = {CLM_ROWS_AUTO, CLM_FIND_AUTO, 0, 0, "auto"};
        if (resident && (st = run_query(like, res, q.id, "resident", &automatic, &t)))
            return st;
        if (host && (st = run_query(like, col, q.id, "host", &automatic, &t)))
            return st;
        for (unsigned i = 0; i < npivots; i++) {
            if ((st = run_query(like, piv[i], q.id, piv_mode[i], &automatic, &t)))
                return st;
            for (unsigned k = 0; k < nmethods; k++) { /* and each method forced on it */
                char mode[160];
                snprintf(mode, sizeof mode, "%s/%s", piv_mode[i], methods[k].name);
                if ((st = run_query(like, piv[i], q.id, mode, &methods[k], &t)))
                    return st;
            }
        }
        /* Seed 004's question: a work-item, a team or a work-group per row, filter and
         * verify, or an automaton walk per row (issue 19), whichever auto took; KMP's
         * variants beside the first-byte scan. */
        for (unsigned k = 0; k < nmethods; k++) {
            char mode[96];
            snprintf(mode, sizeof mode, "%s/%s", resident ? "resident" : "host",
                     methods[k].name);
            if ((st = run_query(like, resident ? res : col, q.id, mode, &methods[k], &t)))
                return st;
        }
        clm_like_free(like);
    }
    fclose(qf);
    for (unsigned i = 0; i < npivots; i++)
        clm_column_free(piv[i]);
    clm_column_free(res);
    clm_column_free(col);
    clm_device_close(dev);
    return 0;
}
