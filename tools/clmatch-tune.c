/*
 * clmatch-tune — measure a device and write its tuning profile, which clm_device_open then
 * loads by itself (clmatch.h, "Tuning").
 *
 *   clmatch-tune [-p P [-d D]] [--size BYTES] [--time S] [--quick] [--dry-run] [--out PATH]
 *                [--genome FILE] [-v]
 *
 * For dfa, bitap, kmp and bmh it counts exact patterns of 13 and 32 bytes taken from a text
 * (generated DNA, or --genome) with clm_count over work-group sizes (powers of two from 16 on
 * CPUs, 32 elsewhere, up to the device maximum, at most 1024) and bytes per work-item (16 to
 * 8192, powers of two), by kernel time (clm_scratch_get_stats) after a warm-up, best of N.
 * The search is a coordinate descent rather than the whole grid: first over shapes shared by
 * the four algorithms (the global wg and chunk: the geometric mean of each algorithm's time
 * relative to its built-in shape), then, unless --quick, for each algorithm alone from there.
 * An algorithm whose own best beats the global shape by more than 5 % gets ALGO.wg /
 * ALGO.chunk lines; naive, witness and simd, not timed, are run once with the global shape
 * (simd keeps its own 32 KiB ranges on CPUs unless simd.chunk says otherwise). Then,
 * at each algorithm's tuned shape, the load width (vec 4, 8, 16: kmp, dfa and bitap, read
 * unstaged) and staging on or off (dfa and bitap, where the kernel can stage): a value other
 * than the built-in one is taken when it is more than 2 % faster (the shared vec by the
 * geometric mean; ALGO.vec where an algorithm's own beats it by more than 5 %); staged, the
 * work-groups per compute unit (4, 8, 16) and prefetch on or off, written as ALGO.groups /
 * ALGO.prefetch where the tuned kernel stages, by the same 2 % rule. Every count
 * is checked against a count made on the host: a wrong answer stops the run, and nothing is
 * written.
 *
 * Exit status: 0 written (or printed), 1 a measurement failed or disagreed, 2 bad arguments
 * or no device.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clmatch.h"
#include "tune_text.h"

#define PROG "clmatch-tune"
#define MAX_POINTS 64
#define N_ALGOS 4
#define MAX_PATTERNS 2

static const clm_algorithm algos[N_ALGOS] = {CLM_ALGO_DFA, CLM_ALGO_BITAP, CLM_ALGO_KMP,
                                             CLM_ALGO_BMH};

/* One measured shape of one algorithm. wg 0 / chunk 0 / vec 0 / CLM_AUTO: the device's
 * built-in choice. */
typedef struct {
    unsigned wg, chunk, vec;
    clm_switch stage;  /* staging: CLM_AUTO (built-in), CLM_OFF or CLM_ON */
    unsigned groups;   /* staged kernels' work-groups per compute unit; 0: built-in */
    clm_switch prefetch; /* CLM_AUTO (built-in), CLM_OFF or CLM_ON */
    int status;        /* CLM_OK, or why it could not run (skipped as a candidate) */
    double seconds;    /* best kernel time */
    unsigned real_wg, real_chunk, real_vec; /* what the database got (clm_database_info) */
    int real_staged;
    unsigned real_groups;
    int real_prefetch;
} point;

typedef struct {
    point pts[MAX_POINTS];
    int n;
    int builtin;       /* index of the built-in shape's point */
    int best;          /* its own best point */
    clm_database *ref_db; /* the built-in shape, timed beside every candidate */
    clm_scratch *ref_s;
    double ref_seconds;
} algo_state;

typedef struct {
    clm_device *dev;
    clm_device_info info;
    clm_tuning tuning;      /* built-in values: profiles and CLMATCH_TUNE are off here */
    unsigned char *text;
    size_t n;
    const char *pats[MAX_PATTERNS];
    size_t lens[MAX_PATTERNS];
    unsigned npats;
    uint64_t want;          /* occurrences, counted on the host */
    int reps, verbose;
    double t0, budget;
    int out_of_time, force;
    unsigned wg_grid[16], chunk_grid[16];
    int n_wg, n_chunk;
    unsigned chunk_floor;   /* below it the library raises tuned chunks (4 x (m - 1)) */
    algo_state a[N_ALGOS];
    /* each algorithm's result: shape, then load width and staging (0 / CLM_AUTO: the
     * built-in value) */
    unsigned final_wg[N_ALGOS], final_chunk[N_ALGOS], final_vec[N_ALGOS];
    clm_switch final_stage[N_ALGOS];
    int own_shape[N_ALGOS];
    unsigned final_groups[N_ALGOS];      /* staged: 0 built-in */
    clm_switch final_prefetch[N_ALGOS];  /* staged: CLM_AUTO built-in */
} tuner;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- measuring --------------------------------------------------------------------------- */

/* One clm_count of the text by db; its kernel seconds. A count that differs from the host's
 * ends the program: a shape that answers wrongly must never be written. */
static int timed_count(tuner *T, int ai, clm_database *db, clm_scratch *s, double *secs)
{
    uint64_t count = 0;
    clm_stats st;
    clm_scratch_reset_stats(s);
    int rc = clm_count(db, s, T->text, T->n, &count);
    if (rc == CLM_OK && count != T->want) {
        clm_database_info di;
        clm_database_get_info(db, &di, sizeof di);
        fprintf(stderr,
                PROG ": %s with work-group size %u, %u bytes per work-item, %u-byte loads%s "
                "counted %llu occurrences, the host %llu: wrong answer, no profile written\n",
                clm_algorithm_name(algos[ai]), di.work_group_size, di.bytes_per_item,
                di.vector_width, di.staged ? ", staged" : "", (unsigned long long)count,
                (unsigned long long)T->want);
        exit(1);
    }
    if (rc == CLM_OK && (rc = clm_scratch_get_stats(s, &st, sizeof st)) == CLM_OK)
        *secs = st.kernel_seconds;
    return rc;
}

/* The algorithms not timed get the global shape too: count once with it. A wrong count
 * ends the program; one that cannot run (a work-group size above what its kernel allows)
 * returns the status, and the caller keeps the built-in work-group size for it. */
/* The device's speed for device sets (bytes per second; 0 when it cannot be measured): a
 * whole scan, transfers included, as clm_device_set_calibrate times it. */
static double measure_speed(const tuner *T)
{
    clm_device_set *set;
    double speed = 0;
    if (clm_device_set_open(&T->info.platform_index, &T->info.device_index, 1, &set) != CLM_OK)
        return 0;
    if (clm_device_set_calibrate(set, 0, &speed) != CLM_OK)
        speed = 0;
    clm_device_set_close(set);
    return speed;
}

static int check_untimed(tuner *T, clm_algorithm algo, unsigned wg, unsigned chunk)
{
    clm_compile_options o;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    uint64_t count = 0;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = algo;
    o.work_group_size = wg;
    o.bytes_per_item = chunk;
    o.wg_as_tuning = 1; /* the size its profile will give */
    int rc = clm_compile(T->dev, T->pats, T->lens, NULL, T->npats, &o, &db);
    if (rc == CLM_OK)
        rc = clm_scratch_alloc(db, NULL, &s);
    if (rc == CLM_OK)
        rc = clm_count(db, s, T->text, T->n, &count);
    if (rc == CLM_OK && count != T->want) {
        fprintf(stderr,
                PROG ": %s with work-group size %u and %u bytes per work-item counted %llu "
                "occurrences, the host %llu: wrong answer, no profile written\n",
                clm_algorithm_name(algo), wg, chunk, (unsigned long long)count,
                (unsigned long long)T->want);
        exit(1);
    }
    clm_scratch_free(s);
    clm_database_free(db);
    return rc;
}

/* The built-in load width and staging are the same kernels as leaving them open: 0 and
 * CLM_AUTO, so that they are measured once. */
static unsigned norm_vec(const tuner *T, unsigned vec)
{
    return vec == T->tuning.vector_width ? 0 : vec;
}

static clm_switch norm_stage(const tuner *T, clm_switch stage)
{
    return stage != CLM_AUTO && (stage == CLM_ON) == (T->tuning.stage != 0) ? CLM_AUTO
                                                                                   : stage;
}

/* Measure algorithm ai at (wg, chunk) with loads of vec bytes, staging as `stage` says and,
 * staged, `groups` per compute unit and prefetch as `prefetch` says, memoised; all 0 is the
 * built-in shape, kept open as the reference. Returns the point's
 * index, or -1 when the time budget is spent. Other programs share the machine (on a 2-core
 * PoCL the load made identical kernels differ 2x from one minute to the next), so each time
 * is the candidate's best over the reference's best in the same window, times the
 * reference's time: runs alternate. */
static int measure_full(tuner *T, int ai, unsigned wg, unsigned chunk, unsigned vec,
                        clm_switch stage, unsigned groups, clm_switch prefetch)
{
    algo_state *A = &T->a[ai];
    vec = norm_vec(T, vec);
    stage = norm_stage(T, stage);
    for (int i = 0; i < A->n; i++)
        if (A->pts[i].wg == wg && A->pts[i].chunk == chunk && A->pts[i].vec == vec &&
            A->pts[i].stage == stage && A->pts[i].groups == groups &&
            A->pts[i].prefetch == prefetch)
            return i;
    int ref = wg == 0 && chunk == 0 && vec == 0 && stage == CLM_AUTO && groups == 0 &&
              prefetch == CLM_AUTO;
    if (A->n == MAX_POINTS ||
        (T->budget > 0 && now() - T->t0 > T->budget && !ref && !T->force)) {
        T->out_of_time = A->n < MAX_POINTS;
        return -1;
    }
    point *p = &A->pts[A->n];
    memset(p, 0, sizeof *p);
    p->wg = wg;
    p->chunk = chunk;
    p->vec = vec;
    p->stage = stage;
    p->groups = groups;
    p->prefetch = prefetch;
    p->seconds = INFINITY;

    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = algos[ai];
    o.work_group_size = wg;
    o.bytes_per_item = chunk;
    o.vector_width = vec;
    /* the work-group size as its profile will give it (capped where the kernel prefetches) */
    o.wg_as_tuning = 1;
    o.staging = stage;
    o.prefetch = prefetch;
    o.groups_per_unit = groups;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info di;
    int rc = clm_compile(T->dev, T->pats, T->lens, NULL, T->npats, &o, &db);
    if (rc == CLM_OK)
        rc = clm_scratch_alloc(db, NULL, &s);
    if (rc == CLM_OK && clm_database_get_info(db, &di, sizeof di) == CLM_OK) {
        p->real_wg = di.work_group_size;
        p->real_chunk = di.bytes_per_item;
        p->real_vec = di.vector_width;
        p->real_staged = di.staged;
        p->real_groups = di.groups_per_unit;
        p->real_prefetch = di.prefetch;
    }
    double best = INFINITY, ref_best = INFINITY, t;
    for (int r = 0; rc == CLM_OK && r <= T->reps; r++) { /* r == 0: the warm-up */
        if (!ref && r > 0 && (rc = timed_count(T, ai, A->ref_db, A->ref_s, &t)) == CLM_OK &&
            t < ref_best)
            ref_best = t;
        if (rc == CLM_OK && (rc = timed_count(T, ai, db, s, &t)) == CLM_OK && r > 0 && t < best)
            best = t;
    }
    if (rc == CLM_OK)
        p->seconds = ref ? best : best / ref_best * A->ref_seconds;
    if (rc != CLM_OK && T->verbose)
        fprintf(stderr, PROG ": %s wg=%u chunk=%u vec=%u stage=%d unusable: %s: %s\n",
                clm_algorithm_name(algos[ai]), wg, chunk, vec, stage, clm_strerror(rc),
                clm_last_error());
    p->status = rc;
    if (ref && rc == CLM_OK) {
        A->ref_db = db;
        A->ref_s = s;
        A->ref_seconds = best;
    } else {
        clm_scratch_free(s);
        clm_database_free(db);
    }
    if (T->verbose && rc == CLM_OK)
        fprintf(stderr, PROG ": %-5s wg=%-4u chunk=%-5u vec=%-2u %-6s %9.3f ms  (%.0f s)\n",
                clm_algorithm_name(algos[ai]), p->real_wg, p->real_chunk, p->real_vec,
                p->real_staged ? "staged" : "", p->seconds * 1e3, now() - T->t0);
    return A->n++;
}

static int measure_ex(tuner *T, int ai, unsigned wg, unsigned chunk, unsigned vec,
                      clm_switch stage)
{
    return measure_full(T, ai, wg, chunk, vec, stage, 0, CLM_AUTO);
}

static int measure(tuner *T, int ai, unsigned wg, unsigned chunk)
{
    return measure_ex(T, ai, wg, chunk, 0, CLM_AUTO);
}

static double seconds_at(tuner *T, int ai, unsigned wg, unsigned chunk)
{
    int i = measure(T, ai, wg, chunk);
    return i < 0 || T->a[ai].pts[i].status != CLM_OK ? INFINITY : T->a[ai].pts[i].seconds;
}

static int is_bmh(int ai)
{
    return algos[ai] == CLM_ALGO_BMH;
}

/* Can the library give algorithm ai chunk c from a profile? Not below 4 x (m - 1): it raises
 * a tuned chunk there (bmh takes its own bmh.chunk as it is). */
static int chunk_ok(const tuner *T, int ai, unsigned c)
{
    return is_bmh(ai) || c >= T->chunk_floor;
}

/* What a global chunk gives algorithm ai: itself, but bmh keeps its m + 32 (0 here: the
 * library's rule) unless bmh.chunk says otherwise. */
static unsigned global_chunk(int ai, unsigned c)
{
    return is_bmh(ai) ? 0 : c;
}

/* The cost of a shared shape: geometric mean over the algorithms of time / built-in time;
 * ai >= 0: that algorithm's time alone. INFINITY when any cannot run it. */
static double cost(tuner *T, int ai, unsigned wg, unsigned chunk)
{
    if (ai >= 0)
        return chunk_ok(T, ai, chunk) ? seconds_at(T, ai, wg, chunk) : INFINITY;
    double log_sum = 0;
    for (int i = 0; i < N_ALGOS; i++) {
        if (!chunk_ok(T, i, chunk))
            return INFINITY;
        double t = seconds_at(T, i, wg, global_chunk(i, chunk));
        const point *b = &T->a[i].pts[T->a[i].builtin];
        if (!isfinite(t))
            return INFINITY;
        log_sum += log(t / b->seconds);
    }
    return exp(log_sum / N_ALGOS);
}

static int grid_index(const unsigned *grid, int n, unsigned v)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(log((double)grid[i] / v)) < fabs(log((double)grid[best] / v)))
            best = i;
    return best;
}

/* Walk one dimension (chunk when dim 0, wg when 1) up and then down from *wg, *chunk while
 * the cost falls by more than 2 % (noise), tolerating `patience` steps without gain. */
static void climb(tuner *T, int ai, int dim, unsigned *wg, unsigned *chunk, double *best,
                  int patience, int step)
{
    const unsigned *grid = dim ? T->wg_grid : T->chunk_grid;
    int n = dim ? T->n_wg : T->n_chunk;
    for (int dir = 1; dir >= -1; dir -= 2) {
        int start = grid_index(grid, n, dim ? *wg : *chunk), misses = 0;
        for (int i = start; !T->out_of_time;) {
            /* a step past the end of the grid stops at its last entry */
            int next = i + dir * step;
            if (next < 0 || next >= n)
                next = i + dir >= 0 && i + dir < n ? (dir > 0 ? n - 1 : 0) : -1;
            if (next < 0 || next == i)
                break;
            i = next;
            unsigned w = dim ? grid[i] : *wg, c = dim ? *chunk : grid[i];
            double t = cost(T, ai, w, c);
            if (t < *best * 0.98) {
                *best = t;
                *wg = w;
                *chunk = c;
                misses = 0;
            } else if (++misses > patience) {
                break;
            }
        }
    }
}

/* ---- the profile ------------------------------------------------------------------------- */

static double gbps(const tuner *T, double s)
{
    return isfinite(s) && s > 0 ? (double)T->n * T->npats / s / 1e9 : 0.0;
}

static int cmp_points(const void *x, const void *y)
{
    const point *a = x, *b = y;
    return (a->seconds > b->seconds) - (a->seconds < b->seconds);
}

static void print_table(tuner *T, unsigned gwg, unsigned gchunk)
{
    printf("# %-6s %6s %7s %4s %6s %12s %9s %10s\n", "algo", "wg", "chunk", "vec", "stage",
           "kernel ms", "GB/s", "vs built-in");
    for (int ai = 0; ai < N_ALGOS; ai++) {
        algo_state *A = &T->a[ai];
        double base = A->pts[A->builtin].seconds;
        point sorted[MAX_POINTS];
        memcpy(sorted, A->pts, sizeof(point) * (size_t)A->n);
        qsort(sorted, (size_t)A->n, sizeof *sorted, cmp_points);
        for (int i = 0; i < A->n; i++) {
            const point *p = &sorted[i];
            int shape = !p->vec && p->stage == CLM_AUTO;
            const char *mark = !p->wg && !p->chunk && shape                 ? " built-in"
                               : p->wg == T->final_wg[ai] && p->chunk == T->final_chunk[ai] &&
                                       p->vec == norm_vec(T, T->final_vec[ai]) &&
                                       p->stage == norm_stage(T, T->final_stage[ai])
                                   ? " tuned"
                               : shape && p->wg == gwg && p->chunk == global_chunk(ai, gchunk)
                                   ? " global"
                               : shape && p->wg == A->pts[A->best].wg &&
                                       p->chunk == A->pts[A->best].chunk ? " own best"
                                                                          : "";
            if (p->status != CLM_OK) {
                printf("# %-6s %6u %7u %4u %6s %12s %9s %10s  %s\n",
                       clm_algorithm_name(algos[ai]), p->wg, p->chunk, p->vec,
                       p->stage == CLM_ON ? "on" : p->stage == CLM_OFF ? "off" : "-", "-",
                       "-", "-", clm_strerror(p->status));
                continue;
            }
            printf("# %-6s %6u %7u %4u %6s %12.3f %9.2f %9.2fx%s\n",
                   clm_algorithm_name(algos[ai]), p->real_wg, p->real_chunk, p->real_vec,
                   p->real_staged ? "staged" : "-", p->seconds * 1e3, gbps(T, p->seconds),
                   base / p->seconds, mark);
        }
    }
}

/* Can algorithm ai's kernel stage (exact dfa and one-word bitap, the tuner's patterns)? */
static int may_stage(int ai)
{
    return algos[ai] == CLM_ALGO_DFA || algos[ai] == CLM_ALGO_BITAP;
}

static double point_seconds(const tuner *T, int ai, int i)
{
    return i < 0 || T->a[ai].pts[i].status != CLM_OK ? INFINITY : T->a[ai].pts[i].seconds;
}

/* At each algorithm's final shape: the load width (vec 4, 8, 16 read unstaged; bmh reads
 * single bytes), shared by the geometric mean against the built-in width unless an
 * algorithm's own is more than 5 % faster; then staging on against off (at its width) for
 * the kernels that stage, where the library staged when asked. A value other than the
 * built-in one must be more than 2 % faster. Fills final_vec (0: built-in), final_stage
 * (CLM_AUTO: not measured) and the notes for the profile; returns the shared width (0:
 * not measured). */
static unsigned tune_vec_stage(tuner *T, char *notes, size_t cap)
{
    static const unsigned vecs[3] = {4, 8, 16};
    double t[N_ALGOS][3];
    int measured[N_ALGOS], any = 0, base = 2;
    size_t nl = 0;
    for (int v = 0; v < 3; v++)
        if (vecs[v] == T->tuning.vector_width)
            base = v;
    for (int ai = 0; ai < N_ALGOS; ai++) {
        measured[ai] = 0;
        T->final_vec[ai] = 0;
        T->final_stage[ai] = CLM_AUTO;
        if (is_bmh(ai))
            continue;
        measured[ai] = 1;
        for (int v = 0; v < 3; v++) {
            int i = measure_ex(T, ai, T->final_wg[ai], T->final_chunk[ai], vecs[v],
                               may_stage(ai) ? CLM_OFF : CLM_AUTO);
            t[ai][v] = point_seconds(T, ai, i);
            /* a kernel that reads single bytes (big-endian device) has no width to tune */
            measured[ai] &= isfinite(t[ai][v]) && T->a[ai].pts[i].real_vec == vecs[v];
        }
        any |= measured[ai];
    }
    unsigned gvec = 0;
    if (any) {
        double best = 0.98; /* a width other than the built-in one: more than 2 % faster */
        int gv = base;
        for (int v = 0; v < 3; v++) {
            double log_sum = 0;
            int n = 0;
            for (int ai = 0; ai < N_ALGOS; ai++)
                if (measured[ai])
                    log_sum += log(t[ai][v] / t[ai][base]), n++;
            if (v != base && exp(log_sum / n) < best)
                best = exp(log_sum / n), gv = v;
        }
        gvec = vecs[gv];
        for (int ai = 0; ai < N_ALGOS; ai++) {
            if (!measured[ai])
                continue;
            int own = gv;
            for (int v = 0; v < 3; v++)
                if (t[ai][v] < 0.95 * t[ai][own])
                    own = v;
            T->final_vec[ai] = vecs[own];
            nl += (size_t)snprintf(notes + nl, nl < cap ? cap - nl : 0,
                                   "\n%s loads of 4 / 8 / 16 bytes%s: %.2f / %.2f / %.2f GB/s",
                                   clm_algorithm_name(algos[ai]), may_stage(ai) ? " unstaged" : "",
                                   gbps(T, t[ai][0]), gbps(T, t[ai][1]), gbps(T, t[ai][2]));
        }
    }
    for (int ai = 0; ai < N_ALGOS; ai++) {
        if (!may_stage(ai))
            continue;
        unsigned v = T->final_vec[ai];
        int on = measure_ex(T, ai, T->final_wg[ai], T->final_chunk[ai], v, CLM_ON);
        int off = measure_ex(T, ai, T->final_wg[ai], T->final_chunk[ai], v, CLM_OFF);
        double ton = point_seconds(T, ai, on), toff = point_seconds(T, ai, off);
        if (!isfinite(ton) || !T->a[ai].pts[on].real_staged || !isfinite(toff)) {
            nl += (size_t)snprintf(notes + nl, nl < cap ? cap - nl : 0,
                                   "\n%s cannot stage here", clm_algorithm_name(algos[ai]));
            continue;
        }
        int want_on = T->tuning.stage ? !(toff < 0.98 * ton) : ton < 0.98 * toff;
        T->final_stage[ai] = want_on ? CLM_ON : CLM_OFF;
        nl += (size_t)snprintf(notes + nl, nl < cap ? cap - nl : 0,
                               "\n%s staged %.2f GB/s, unstaged %.2f GB/s",
                               clm_algorithm_name(algos[ai]), gbps(T, ton), gbps(T, toff));
    }
    return gvec;
}

/* Staged kernels, at each algorithm's final shape, width and staging forced on: work-groups
 * per compute unit (4, 8, 16) and then prefetch against its built-in setting, for the kernels
 * that stage, where the library staged when asked. A value other than the built-in one must
 * be more than 2 % faster. Measured wherever the kernel can stage (so a CPU, where staging
 * stays off, still shows them in the notes); the caller writes them only for an algorithm
 * whose tuned kernel stages. Fills final_groups (0: built-in) and final_prefetch
 * (CLM_AUTO: built-in). */
static void tune_groups_prefetch(tuner *T, char *notes, size_t cap)
{
    static const unsigned groups[3] = {4, 8, 16};
    size_t nl = strlen(notes);
    for (int ai = 0; ai < N_ALGOS; ai++) {
        T->final_groups[ai] = 0;
        T->final_prefetch[ai] = CLM_AUTO;
        if (!may_stage(ai))
            continue;
        unsigned w = T->final_wg[ai], c = T->final_chunk[ai], v = T->final_vec[ai];
        int b = measure_full(T, ai, w, c, v, CLM_ON, 0, CLM_AUTO);
        double tb = point_seconds(T, ai, b);
        if (!isfinite(tb) || !T->a[ai].pts[b].real_staged)
            continue;
        unsigned builtin = T->a[ai].pts[b].real_groups, best_g = 0;
        int builtin_pf = T->a[ai].pts[b].real_prefetch;
        double t[3], best = tb;
        for (int g = 0; g < 3; g++) {
            int i = groups[g] == builtin ? b
                                         : measure_full(T, ai, w, c, v, CLM_ON, groups[g],
                                                        CLM_AUTO);
            t[g] = point_seconds(T, ai, i);
            if (groups[g] != builtin && t[g] < 0.98 * best)
                best = t[g], best_g = groups[g];
        }
        clm_switch flip = builtin_pf ? CLM_OFF : CLM_ON;
        int i = measure_full(T, ai, w, c, v, CLM_ON, best_g, flip);
        double tf = point_seconds(T, ai, i);
        T->final_groups[ai] = best_g;
        if (tf < 0.98 * best)
            T->final_prefetch[ai] = flip;
        nl += (size_t)snprintf(notes + nl, nl < cap ? cap - nl : 0,
                               "\n%s staged, 4 / 8 / 16 groups per compute unit: %.2f / %.2f / "
                               "%.2f GB/s; prefetch %s: %.2f GB/s",
                               clm_algorithm_name(algos[ai]), gbps(T, t[0]), gbps(T, t[1]),
                               gbps(T, t[2]), flip == CLM_ON ? "on" : "off", gbps(T, tf));
    }
}

/* ---- main -------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: " PROG " [-p P [-d D]] [--size BYTES] [--time S] [--quick] [--dry-run]\n"
            "                    [--out PATH] [--genome FILE] [-v]\n"
            "Measure a device and write its tuning profile (loaded by clmatch from then on).\n"
            "\n"
            "  -p, --platform P   platform index (clmatch-devices); default: the automatic device\n"
            "  -d, --device D     device index within the platform\n"
            "      --size BYTES   text to search (K, M, G suffixes); default 64M on GPUs, 16M\n"
            "                     on CPUs (--quick: 16M, 2M)\n"
            "      --time S       stop trying new shapes after S seconds (default 50, --quick 15)\n"
            "      --quick        fewer shapes, one pattern length (13), best of 5 (else 7)\n"
            "      --dry-run      print the profile instead of writing it\n"
            "      --out PATH     write there (a directory: under the profile's usual name)\n"
            "                     instead of where clmatch looks for it\n"
            "      --genome FILE  search this text (FASTA: its sequence, repeated to --size)\n"
            "                     instead of generated DNA\n"
            "  -v, --verbose      one line per measurement on stderr\n"
            "\n"
            "CLMATCH_TUNE, CLMATCH_STAGING and an existing profile are ignored while measuring.\n"
            "Exit status: 0 done, 1 a measurement failed or counted wrong, 2 bad arguments.\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (errno || end == s || *end || s[0] == '-' || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)v << shift;
    return 0;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    int platform = -1, device = -1, quick = 0, dry_run = 0, verbose = 0;
    size_t size = 0;
    double budget = -1;
    const char *out = NULL, *genome = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "-p") || !strcmp(a, "--platform") || !strcmp(a, "-d") ||
                    !strcmp(a, "--device") || !strcmp(a, "--size") || !strcmp(a, "--time") ||
                    !strcmp(a, "--out") || !strcmp(a, "--genome");
        if (takes && !v) {
            fprintf(stderr, PROG ": %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--dry-run")) {
            dry_run = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            verbose = 1;
        } else if ((!strcmp(a, "-p") || !strcmp(a, "--platform")) && parse_int(v, &platform) == 0) {
            i++;
        } else if ((!strcmp(a, "-d") || !strcmp(a, "--device")) && parse_int(v, &device) == 0) {
            i++;
        } else if (!strcmp(a, "--size") && parse_size(v, &size) == 0 && size >= 65536) {
            i++;
        } else if (!strcmp(a, "--time") && (budget = strtod(v, NULL)) > 0) {
            i++;
        } else if (!strcmp(a, "--out")) {
            out = argv[++i];
        } else if (!strcmp(a, "--genome")) {
            genome = argv[++i];
        } else {
            if (takes)
                fprintf(stderr, PROG ": bad value '%s' for %s%s\n", v, a,
                        !strcmp(a, "--size") ? " (at least 64K)" : "");
            else
                fprintf(stderr, PROG ": unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (device >= 0 && platform < 0)
        platform = 0;

    /* measure from the built-in values: neither an old profile nor CLMATCH_TUNE may shape
     * the baseline */
    const char *env_tune = getenv("CLMATCH_TUNE");
    if (env_tune && *env_tune)
        fprintf(stderr, PROG ": note: CLMATCH_TUNE=%s is ignored while measuring\n", env_tune);
    unsetenv("CLMATCH_TUNE");
    const char *env_staging = getenv("CLMATCH_STAGING");
    if (env_staging && *env_staging)
        fprintf(stderr, PROG ": note: CLMATCH_STAGING=%s is ignored while measuring\n",
                env_staging);
    unsetenv("CLMATCH_STAGING");
    setenv("CLMATCH_PROFILE", "off", 1);

    static tuner T;
    T.reps = quick ? 5 : 7; /* best of many: the minimum shrugs off interference */
    T.verbose = verbose;
    int rc = clm_device_open(platform, platform < 0 ? -1 : device, &T.dev);
    if (rc != CLM_OK) {
        fprintf(stderr, PROG ": cannot open the device: %s: %s\n", clm_strerror(rc),
                clm_last_error());
        return 2;
    }
    clm_device_get_info(T.dev, &T.info, sizeof T.info);
    clm_device_get_tuning(T.dev, &T.tuning, sizeof T.tuning);
    int gpu = T.info.type != CLM_DEVICE_CPU;
    if (!size)
        /* GPUs: the copy of the text, not the kernel, takes most of each count (pageable
         * memory, ~10 GB/s), so 64 MiB keeps a point near 0.1 s */
        size = gpu ? (quick ? 16u << 20 : 64u << 20) : (quick ? 2u << 20 : 16u << 20);
    if (budget < 0)
        budget = quick ? 15 : 50;
    T.budget = budget;

    T.text = malloc(size);
    if (!T.text) {
        fprintf(stderr, PROG ": out of memory for a text of %zu bytes\n", size);
        return 2;
    }
    if (genome) {
        if (tune_read_text(genome, T.text, size, &T.n) != 0)
            return 2;
        if (T.n < 65536) {
            fprintf(stderr, PROG ": %s has %zu bytes of text; at least 64K are needed\n", genome,
                    T.n);
            return 2;
        }
        /* repeated to --size, as the bench does: a short genome gave kernels of tens of
         * microseconds on the H200, timing the launch rather than the scan */
        for (size_t k = T.n; k < size; k += T.n)
            memcpy(T.text + k, T.text, size - k < T.n ? size - k : T.n);
        T.n = size;
    } else {
        tune_generate(T.text, size);
        T.n = size;
    }
    /* patterns taken from the text, so they occur */
    static const size_t lengths[MAX_PATTERNS] = {13, 32};
    T.npats = quick ? 1 : 2;
    for (unsigned i = 0; i < T.npats; i++) {
        T.lens[i] = lengths[i];
        T.pats[i] = (const char *)T.text + T.n / 3 * (i + 1);
        T.want += tune_host_count(T.text, T.n, T.pats[i], T.lens[i]);
    }
    T.chunk_floor = 4 * (unsigned)(lengths[T.npats - 1] - 1);

    /* the grids: powers of two; --quick every other one */
    unsigned wmax = T.info.max_work_group_size < 1024 ? (unsigned)T.info.max_work_group_size
                                                      : 1024;
    for (unsigned w = gpu ? 32 : 16; w <= wmax && T.n_wg < 16; w *= 2)
        T.wg_grid[T.n_wg++] = w;
    for (unsigned c = 16; c <= 8192; c *= 2)
        T.chunk_grid[T.n_chunk++] = c;
    if (T.n_wg == 0)
        T.wg_grid[T.n_wg++] = wmax ? wmax : 1;

    printf("# clmatch-tune %s: %s (%s), driver %s\n", clm_version(), T.info.name,
           T.info.platform_name, T.info.driver_version);
    printf("# text: %zu bytes of %s; patterns of %s bytes from the text, %llu occurrences; "
           "best of %d kernel times\n",
           T.n, genome ? genome : "generated DNA", T.npats == 2 ? "13 and 32" : "13",
           (unsigned long long)T.want, T.reps);
    fflush(stdout);

    T.t0 = now();
    /* the built-in shapes: the baseline, and they must count right */
    for (int ai = 0; ai < N_ALGOS; ai++) {
        int i = measure(&T, ai, 0, 0);
        point *p = &T.a[ai].pts[i];
        if (p->status != CLM_OK) {
            fprintf(stderr, PROG ": %s with its built-in shape failed: %s: %s\n",
                    clm_algorithm_name(algos[ai]), clm_strerror(p->status), clm_last_error());
            return 1;
        }
        T.a[ai].builtin = T.a[ai].best = i;
    }

    /* the global shape: from the built-in one, chunk then work-group size, then chunk again
     * when the size moved; --quick in steps of 4x with no patience */
    int step = quick ? 2 : 1, patience = quick ? 0 : 1;
    unsigned gwg = T.tuning.work_group_size, gchunk = T.tuning.bytes_per_item;
    gwg = T.wg_grid[grid_index(T.wg_grid, T.n_wg, gwg)];
    gchunk = T.chunk_grid[grid_index(T.chunk_grid, T.n_chunk, gchunk)];
    while (gchunk < T.chunk_floor)
        gchunk *= 2;
    T.force = 1; /* the starting point is measured whatever the budget */
    double gbest = cost(&T, -1, gwg, gchunk);
    T.force = 0;
    unsigned wg_before = gwg;
    climb(&T, -1, 0, &gwg, &gchunk, &gbest, patience, step);
    climb(&T, -1, 1, &gwg, &gchunk, &gbest, patience, step);
    if (gwg != wg_before && !quick)
        climb(&T, -1, 0, &gwg, &gchunk, &gbest, patience, step);
    if (!isfinite(gbest)) {
        fprintf(stderr, PROG ": no shape ran for every algorithm (run with -v to see why)\n");
        return 1;
    }

    /* each algorithm from the global shape (not --quick: its measured points stand); bmh
     * from 64 starts per work-item, near its own m + 32 */
    for (int ai = 0; ai < N_ALGOS && !quick; ai++) {
        unsigned w = gwg, c = is_bmh(ai) ? 64 : gchunk;
        double t = cost(&T, ai, w, c);
        climb(&T, ai, 0, &w, &c, &t, patience, step);
        if (is_bmh(ai) && cost(&T, ai, gwg, 0) < t) {
            w = gwg;
            c = 0;
            t = cost(&T, ai, w, c);
        }
        climb(&T, ai, 1, &w, &c, &t, patience, step);
    }

    /* each algorithm's best measured shape (the library's own raise of small chunks
     * respected); its own where it beats the global shape by more than 5 % */
    for (int ai = 0; ai < N_ALGOS; ai++) {
        algo_state *A = &T.a[ai];
        for (int i = 0; i < A->n; i++) {
            const point *p = &A->pts[i];
            if (p->status == CLM_OK && (p->wg || p->chunk) && !p->vec &&
                p->stage == CLM_AUTO && chunk_ok(&T, ai, p->chunk) &&
                p->seconds < A->pts[A->best].seconds)
                A->best = i;
        }
        const point *b = &A->pts[A->best];
        unsigned gc = global_chunk(ai, gchunk);
        double tg = seconds_at(&T, ai, gwg, gc);
        T.own_shape[ai] = (b->wg || b->chunk) && b->seconds < 0.95 * tg;
        T.final_wg[ai] = T.own_shape[ai] ? b->wg : gwg;
        T.final_chunk[ai] = T.own_shape[ai] ? b->chunk : gc;
    }

    /* then load width and staging at those shapes: a few points, measured whatever the
     * budget (they are what the wg and chunk search cannot see) */
    char notes[2048];
    notes[0] = '\0';
    T.force = 1;
    unsigned gvec = tune_vec_stage(&T, notes, sizeof notes);
    tune_groups_prefetch(&T, notes, sizeof notes);
    T.force = 0;
    double spent = now() - T.t0;

    char values[512], comment[4096], lines[1024];
    size_t vl = (size_t)snprintf(values, sizeof values, "wg=%u,chunk=%u", gwg, gchunk), ll = 0;
    double log_gain = 0;
    lines[0] = '\0';
    if (gvec)
        vl += (size_t)snprintf(values + vl, sizeof values - vl, ",vec=%u", gvec);
    const double speed = measure_speed(&T);
    if (speed >= 1)
        vl += (size_t)snprintf(values + vl, sizeof values - vl, ",speed=%.0f", speed);
    /* staging: one global item where the algorithms that stage agree, else one each */
    clm_switch st_dfa = CLM_AUTO, st_bitap = CLM_AUTO;
    for (int ai = 0; ai < N_ALGOS; ai++) {
        if (algos[ai] == CLM_ALGO_DFA)
            st_dfa = T.final_stage[ai];
        else if (algos[ai] == CLM_ALGO_BITAP)
            st_bitap = T.final_stage[ai];
    }
    if (st_dfa != CLM_AUTO && st_dfa == st_bitap)
        vl += (size_t)snprintf(values + vl, sizeof values - vl, ",stage=%s",
                               st_dfa == CLM_ON ? "on" : "off");
    for (int ai = 0; ai < N_ALGOS; ai++) {
        algo_state *A = &T.a[ai];
        const point *b = &A->pts[A->best];
        unsigned gc = global_chunk(ai, gchunk);
        double tb = A->pts[A->builtin].seconds;
        const char *name = clm_algorithm_name(algos[ai]);
        if (T.own_shape[ai]) {
            if (b->wg != gwg)
                vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.wg=%u", name, b->wg);
            if (b->chunk != gc && b->chunk)
                vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.chunk=%u", name,
                                       b->chunk);
        }
        if (T.final_vec[ai] && T.final_vec[ai] != gvec)
            vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.vec=%u", name,
                                   T.final_vec[ai]);
        if (T.final_stage[ai] != CLM_AUTO && st_dfa != st_bitap)
            vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.stage=%s", name,
                                   T.final_stage[ai] == CLM_ON ? "on" : "off");
        int i = measure_ex(&T, ai, T.final_wg[ai], T.final_chunk[ai], T.final_vec[ai],
                           T.final_stage[ai]);
        /* groups and prefetch where the tuned kernel stages */
        if (i >= 0 && A->pts[i].status == CLM_OK && A->pts[i].real_staged &&
            (T.final_groups[ai] || T.final_prefetch[ai] != CLM_AUTO)) {
            if (T.final_groups[ai])
                vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.groups=%u", name,
                                       T.final_groups[ai]);
            if (T.final_prefetch[ai] != CLM_AUTO)
                vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.prefetch=%s",
                                       name, T.final_prefetch[ai] == CLM_ON ? "on" : "off");
            i = measure_full(&T, ai, T.final_wg[ai], T.final_chunk[ai], T.final_vec[ai],
                             T.final_stage[ai], T.final_groups[ai], T.final_prefetch[ai]);
        }
        const point *tp = i >= 0 && A->pts[i].status == CLM_OK ? &A->pts[i] : &A->pts[A->builtin];
        /* the built-in shape itself: its own time, not a second reading of it */
        const point *bp = &A->pts[A->builtin];
        double tuned = tp->real_wg == bp->real_wg && tp->real_chunk == bp->real_chunk &&
                               tp->real_vec == bp->real_vec &&
                               tp->real_staged == bp->real_staged &&
                               tp->real_groups == bp->real_groups &&
                               tp->real_prefetch == bp->real_prefetch
                           ? tb
                           : tp->seconds;
        log_gain += log(tb / tuned);
        char vec[24] = "";
        if (tp->real_vec)
            snprintf(vec, sizeof vec, ", vec %u", tp->real_vec);
        char staged[48] = "";
        if (tp->real_staged)
            snprintf(staged, sizeof staged, ", staged, %u groups%s", tp->real_groups,
                     tp->real_prefetch ? ", prefetch" : "");
        ll += (size_t)snprintf(lines + ll, sizeof lines - ll,
                               "\n%s: %.2f GB/s tuned (wg %u, chunk %u%s%s), %.2f GB/s built-in",
                               name, gbps(&T, tuned), tp->real_wg, tp->real_chunk, vec, staged,
                               gbps(&T, tb));
    }
    size_t cl = (size_t)snprintf(
        comment, sizeof comment,
        "measured by clmatch-tune %s%s in %.0f s: %zu bytes of %s, patterns of %s bytes,\n"
        "kernel time best of %d; %.2fx the built-in speed (geometric mean):%s%s",
        clm_version(), quick ? " --quick" : "", spent, T.n, genome ? "a genome" : "generated DNA",
        T.npats == 2 ? "13 and 32" : "13", T.reps, exp(log_gain / N_ALGOS), lines, notes);
    static const clm_algorithm untimed[] = {CLM_ALGO_NAIVE, CLM_ALGO_WITNESS, CLM_ALGO_SIMD};
    for (size_t u = 0; u < sizeof untimed / sizeof untimed[0]; u++) {
        const char *name = clm_algorithm_name(untimed[u]);
        if ((gwg == T.tuning.work_group_size && gchunk == T.tuning.bytes_per_item) ||
            check_untimed(&T, untimed[u], gwg, gchunk) == 0)
            continue;
        vl += (size_t)snprintf(values + vl, sizeof values - vl, ",%s.wg=%u", name,
                               T.tuning.work_group_size);
        cl += (size_t)snprintf(comment + cl, sizeof comment - cl,
                               "\n%s does not run with wg=%u here: it keeps %u", name, gwg,
                               T.tuning.work_group_size);
    }
    if (T.out_of_time)
        cl += (size_t)snprintf(comment + cl, sizeof comment - cl,
                               "\nthe time budget (%.0f s) ended the search early", budget);

    print_table(&T, gwg, gchunk);
    printf("# search %.1f s%s\n", spent,
           T.out_of_time ? " (time budget reached: the search stopped early)" : "");

    if (dry_run) {
        char text[8192];
        rc = clm_tuning_format_profile(T.dev, values, comment, text, sizeof text);
        if (rc == CLM_OK)
            fputs(text, stdout);
    } else {
        char path[2048];
        const char *where = NULL; /* NULL: where clmatch looks */
        struct stat st;
        if (out) {
            size_t ol = strlen(out);
            const char *base = strrchr(T.tuning.profile_path, '/');
            if ((ol && out[ol - 1] == '/') || (stat(out, &st) == 0 && S_ISDIR(st.st_mode))) {
                if (!base) {
                    fprintf(stderr, PROG ": no profile name to write under %s (give a file)\n",
                            out);
                    return 2;
                }
                snprintf(path, sizeof path, "%s%s%s", out, out[ol - 1] == '/' ? "" : "/",
                         base + 1);
                where = path;
            } else {
                where = out;
            }
        }
        rc = clm_tuning_write_profile(T.dev, values, comment, where);
        if (rc == CLM_OK)
            printf("wrote %s\n", where ? where : T.tuning.profile_path);
    }
    if (rc != CLM_OK) {
        fprintf(stderr, PROG ": %s: %s\n", clm_strerror(rc), clm_last_error());
        return 1;
    }
    for (int ai = 0; ai < N_ALGOS; ai++) {
        clm_scratch_free(T.a[ai].ref_s);
        clm_database_free(T.a[ai].ref_db);
    }
    clm_device_close(T.dev);
    free(T.text);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": writing the output failed\n");
        return 1;
    }
    return 0;
}
