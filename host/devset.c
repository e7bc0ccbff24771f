/* devset.c - device sets: one input split across several devices (clm_device_set, clm_set_*).
 *
 * Built on the single-device API: each device of a set has its own database and scratch and
 * searches its part of the input, plus the context its matches can reach, on a host thread
 * of its own. A device keeps the matches that start in its part, so no match is lost or
 * reported twice, and the parts are delivered one after the other, in text order. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "devset.h"
#include "internal.h"

struct clm_device_set {
    unsigned n;
    clm_device *dev[CLM_MAX_SET_DEVICES];
    double speed[CLM_MAX_SET_DEVICES]; /* bytes per second; all 0: equal shares */
    int plat[CLM_MAX_SET_DEVICES];     /* each device's platform index */
    struct early *early;               /* clm_set_open_early's set; else NULL */
};

struct clm_set_database {
    const clm_device_set *set;
    unsigned n;
    clm_database *db[CLM_MAX_SET_DEVICES];
    /* Context a part needs around it: a match starting in it ends at most `tail` bytes after
     * it (longest pattern - 1, plus max_errors insertions); a best start of approximate
     * search is chosen among starts up to 2 * max_errors before the part (clm_match). */
    size_t lead, tail;
    /* Every match has one length (exact or Hamming search, patterns of one length): the
     * clm_count of a part and the tail after it counts exactly the part's starts. */
    int fast_count;
};

struct clm_set_scratch {
    const clm_set_database *db;
    unsigned n;
    clm_scratch *s[CLM_MAX_SET_DEVICES];
    atomic_int busy;
    int stream_open;
    struct clm_set_hook hook;
    atomic_uint running, most_running; /* parts searching now, and at most (tests) */
};

struct clm_set_stream {
    const clm_set_database *db;
    clm_set_scratch *s;
    unsigned flags;
    unsigned char *buf; /* absolute bytes [base, base + fill) of the input */
    size_t fill, block; /* a block of input is searched once `block` bytes are held */
    uint64_t base, own; /* own: the first start not searched yet */
    int dead;
    uint64_t total;
};

/* Early sets (below): wait for the devices still coming up; whether device i is ready. */
static void early_join(clm_device_set *set);
static int early_ready(const clm_device_set *set, unsigned i);
static void early_free(struct early *e);
/* Hold an early set's speeds still while a late device may set its own (no-op otherwise). */
static void early_lock(const clm_device_set *set, int lock);

/* ---- the set ------------------------------------------------------------------------------ */

/* Put "what: " before the current failure's detail (clm_fail clears the detail before it
 * formats, so the detail cannot be its own argument). */
static int fail_in(int st, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char *was = strdup(clm_last_error());
    clm_fail(st, "%s: %s", what, was ? was : "");
    free(was);
    return st;
}

/* fn(item) for every item of items[0, n) (each `size` bytes) whose skip flag is 0, all at
 * once: each on a thread of its own, the last on this thread (or here too, should a thread
 * not start). The per-device calls block on their own device, so a thread each keeps every
 * device busy. */
static void run_each(void *(*fn)(void *), void *items, size_t size, unsigned n,
                     const unsigned char *skip)
{
    pthread_t thread[CLM_MAX_SET_DEVICES];
    int started[CLM_MAX_SET_DEVICES] = {0};
    for (unsigned i = 0; i < n; i++) {
        void *item = (unsigned char *)items + i * size;
        if (skip && skip[i]) continue;
        if (i + 1 < n && pthread_create(&thread[i], NULL, fn, item) == 0)
            started[i] = 1;
        else
            fn(item);
    }
    for (unsigned i = 0; i < n; i++)
        if (started[i]) pthread_join(thread[i], NULL);
}

/* A device list's indices: present, 1 to CLM_MAX_SET_DEVICES of them, none below 0 or listed
 * twice. */
static int check_devices(const int *platform_indices, const int *device_indices,
                         unsigned count, const char *fn)
{
    if (!platform_indices || !device_indices)
        return clm_fail(CLM_E_INVALID, "%s: an index array is NULL", fn);
    if (count == 0 || count > CLM_MAX_SET_DEVICES)
        return clm_fail(CLM_E_INVALID, "%s: %u devices (1 to %u)", fn, count,
                        CLM_MAX_SET_DEVICES);
    for (unsigned i = 0; i < count; i++) {
        if (platform_indices[i] < 0 || device_indices[i] < 0)
            return clm_fail(CLM_E_INVALID, "%s: device %u is %d:%d (indices of "
                            "clm_list_devices, no -1)", fn, i, platform_indices[i],
                            device_indices[i]);
        for (unsigned j = 0; j < i; j++)
            if (platform_indices[j] == platform_indices[i] &&
                device_indices[j] == device_indices[i])
                return clm_fail(CLM_E_INVALID, "%s: device %d:%d is listed twice (%u and %u)",
                                fn, platform_indices[i], device_indices[i], j, i);
    }
    return CLM_OK;
}

/* PoCL 4 and 5 find the kernel module that a finished launch releases by the kernel's hash
 * and work-group size alone, not by the grid width the module was chosen for (PoCL 6.0 fixed
 * it: its commit 9184812 "fix dlhandle cache"). While launches of one kernel with grids of
 * different widths run at once, or a program's binary is asked for meanwhile (it loads a
 * module of its own), a release can hit another launch's module, and the last release of
 * that one aborts the process: "pocl_release_dlhandle_cache: Assertion `found->ref_count >
 * 0' failed". The hash is the build's, alike on alike devices, so the devices of one such
 * platform in a set use OpenCL one at a time (pocl_serial). PoCL 3 and older take two
 * references a launch and never release the last: no abort. */
int clm_pocl_release_race(const char *platform_version)
{
    const char *at = platform_version ? strstr(platform_version, "PoCL ") : NULL;
    unsigned major;
    return at && sscanf(at + 5, "%u", &major) == 1 && (major == 4 || major == 5);
}

/* Process-wide, as PoCL's module cache is. */
static pthread_mutex_t pocl_serial = PTHREAD_MUTEX_INITIALIZER;

/* Whether device i of the set (dev, opened) takes pocl_serial around its OpenCL work: it is
 * on such a PoCL platform, and so is another device of the set. */
static int one_at_a_time(const clm_device_set *set, unsigned i, const clm_device *dev)
{
    if (!clm_pocl_release_race(dev->info.platform_version)) return 0;
    for (unsigned j = 0; j < set->n; j++)
        if (j != i && set->plat[j] == set->plat[i]) return 1;
    return 0;
}

static void serial_lock(int serial, int lock)
{
    if (serial && lock) pthread_mutex_lock(&pocl_serial);
    if (serial && !lock) pthread_mutex_unlock(&pocl_serial);
}

/* The speed of a device's profile (0: none measured). */
static double profile_speed(const clm_device *dev)
{
    return (double)clm_tune_get(dev, CLM_ALGO_AUTO, CLM_KNOB_SPEED, NULL);
}

int clm_device_set_open(const int *platform_indices, const int *device_indices, unsigned count,
                        clm_device_set **out)
{
    if (!out) return clm_fail(CLM_E_INVALID, "clm_device_set_open: out is NULL");
    *out = NULL;
    int st = check_devices(platform_indices, device_indices, count, "clm_device_set_open");
    if (st != CLM_OK) return st;
    clm_device_set *set = calloc(1, sizeof *set);
    if (!set) return clm_fail(CLM_E_NOMEM, "clm_device_set_open: out of memory");
    memcpy(set->plat, platform_indices, count * sizeof *set->plat);
    int known = 1;
    for (unsigned i = 0; i < count; i++) {
        st = clm_device_open(platform_indices[i], device_indices[i], &set->dev[i]);
        if (st != CLM_OK) {
            fail_in(st, "clm_device_set_open: device %d:%d", platform_indices[i],
                    device_indices[i]);
            clm_device_set_close(set);
            return st;
        }
        set->n = i + 1;
        set->speed[i] = profile_speed(set->dev[i]);
        known &= set->speed[i] > 0;
    }
    if (!known) memset(set->speed, 0, sizeof set->speed); /* one unknown: equal shares */
    *out = set;
    return CLM_OK;
}

void clm_device_set_close(clm_device_set *set)
{
    if (!set) return;
    early_join(set);
    for (unsigned i = 0; i < set->n; i++) clm_device_close(set->dev[i]);
    early_free(set->early);
    free(set);
}

unsigned clm_device_set_count(const clm_device_set *set) { return set ? set->n : 0; }

clm_device *clm_device_set_device(const clm_device_set *set, unsigned i)
{
    return set && i < set->n && early_ready(set, i) ? set->dev[i] : NULL;
}

int clm_device_set_get_speeds(const clm_device_set *set, double *speeds, unsigned count)
{
    if (!set || !speeds || count != set->n)
        return clm_fail(CLM_E_INVALID, "clm_device_set_get_speeds: NULL, or count %u is not "
                        "the set's %u devices", count, set ? set->n : 0);
    early_lock(set, 1);
    memcpy(speeds, set->speed, count * sizeof *speeds);
    early_lock(set, 0);
    return CLM_OK;
}

int clm_device_set_set_speeds(clm_device_set *set, const double *speeds, unsigned count)
{
    if (!set || count != set->n)
        return clm_fail(CLM_E_INVALID, "clm_device_set_set_speeds: NULL, or count %u is not "
                        "the set's %u devices", count, set ? set->n : 0);
    for (unsigned i = 0; speeds && i < count; i++)
        if (!(speeds[i] > 0) || !isfinite(speeds[i]))
            return clm_fail(CLM_E_INVALID, "clm_device_set_set_speeds: speed %u is %g (> 0 "
                            "and finite)", i, speeds[i]);
    early_lock(set, 1);
    if (speeds)
        memcpy(set->speed, speeds, count * sizeof *speeds);
    else
        memset(set->speed, 0, sizeof set->speed);
    early_lock(set, 0);
    return CLM_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One device's speed over text[0, n): a warm-up scan (kernel build, buffers), then a timed
 * count. */
static int calibrate_one(clm_device *dev, const unsigned char *text, size_t n, double *speed)
{
    static const char pattern[] = "ACGTTGCAAGGCT"; /* 13 bases, as the benchmarks search */
    const char *pats[] = {pattern};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    uint64_t count;
    int st = clm_compile(dev, pats, NULL, NULL, 1, NULL, &db);
    if (st == CLM_OK) st = clm_scratch_alloc(db, NULL, &s);
    if (st == CLM_OK) st = clm_count(db, s, text, n < ((size_t)1 << 20) ? n : (size_t)1 << 20,
                                     &count);
    double t0 = now_seconds();
    if (st == CLM_OK) st = clm_count(db, s, text, n, &count);
    double t = now_seconds() - t0;
    if (st == CLM_OK) *speed = (double)n / (t > 1e-6 ? t : 1e-6);
    clm_scratch_free(s);
    clm_database_free(db);
    return st;
}

int clm_device_set_calibrate(clm_device_set *set, size_t bytes, double *speeds)
{
    if (!set || set->early)
        return clm_fail(CLM_E_INVALID, "clm_device_set_calibrate: set is NULL or early (its "
                        "devices come up while it searches)");
    size_t n = bytes ? bytes : (size_t)16 << 20;
    unsigned char *text = malloc(n);
    if (!text) return clm_fail(CLM_E_NOMEM, "clm_device_set_calibrate: %zu bytes", n);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        text[i] = "ACGT"[x >> 62];
    }
    double got[CLM_MAX_SET_DEVICES];
    int st = CLM_OK;
    for (unsigned i = 0; i < set->n && st == CLM_OK; i++) {
        st = calibrate_one(set->dev[i], text, n, &got[i]);
        if (st != CLM_OK) fail_in(st, "clm_device_set_calibrate: device %u", i);
    }
    free(text);
    if (st != CLM_OK) return st;
    memcpy(set->speed, got, set->n * sizeof *got);
    if (speeds) memcpy(speeds, got, set->n * sizeof *got);
    return CLM_OK;
}

/* ---- databases and scratches -------------------------------------------------------------- */

/* The context a part needs around it, from device 0's database. */
static void set_context(clm_set_database *db)
{
    clm_database_info info;
    clm_database_get_info(db->db[0], &info, sizeof info);
    int indels = info.max_errors && !(info.flags & CLM_MISMATCHES_ONLY);
    db->lead = indels ? 2 * (size_t)info.max_errors : 0;
    db->tail = info.max_length - 1 + (indels ? info.max_errors : 0);
    db->fast_count = !indels && info.min_length == info.max_length;
}

/* One device's clm_compile, on a thread of its own. */
struct compile_job {
    int serial; /* one_at_a_time */
    clm_device *dev;
    const char *const *patterns;
    const size_t *lengths;
    const unsigned *ids;
    unsigned count;
    const clm_compile_options *opts;
    clm_database **out;
    int status;
    char *err; /* the failure's detail (malloc'd) */
};

static void *compile_one(void *arg)
{
    struct compile_job *j = arg;
    serial_lock(j->serial, 1);
    j->status = clm_compile(j->dev, j->patterns, j->lengths, j->ids, j->count, j->opts, j->out);
    serial_lock(j->serial, 0);
    if (j->status != CLM_OK) j->err = strdup(clm_last_error());
    return NULL;
}

int clm_set_compile(clm_device_set *set, const char *const *patterns, const size_t *lengths,
                    const unsigned *ids, unsigned count, const clm_compile_options *opts,
                    clm_set_database **out)
{
    if (!out) return clm_fail(CLM_E_INVALID, "clm_set_compile: out is NULL");
    *out = NULL;
    if (!set || set->early)
        return clm_fail(CLM_E_INVALID, "clm_set_compile: set is NULL or early (its database "
                        "comes from clm_set_open_early)");
    clm_set_database *db = calloc(1, sizeof *db);
    if (!db) return clm_fail(CLM_E_NOMEM, "clm_set_compile: out of memory");
    db->set = set;
    db->n = set->n;
    /* at once: a GPU's build need not wait for a CPU's */
    struct compile_job job[CLM_MAX_SET_DEVICES];
    for (unsigned i = 0; i < set->n; i++)
        job[i] = (struct compile_job){one_at_a_time(set, i, set->dev[i]), set->dev[i], patterns,
                                      lengths, ids, count, opts, &db->db[i], CLM_OK, NULL};
    run_each(compile_one, job, sizeof job[0], set->n, NULL);
    int st = CLM_OK;
    for (unsigned i = 0; i < set->n; i++) {
        /* the device after the detail, which callers parse ("pattern N ...") */
        if (st == CLM_OK && job[i].status != CLM_OK)
            st = clm_fail(job[i].status, "%s (clm_set_compile, device %u of the set)",
                          job[i].err ? job[i].err : "", i);
        free(job[i].err);
    }
    if (st != CLM_OK) {
        clm_set_database_free(db);
        return st;
    }
    set_context(db);
    *out = db;
    return CLM_OK;
}

const clm_database *clm_set_database_get(const clm_set_database *db, unsigned i)
{
    return db && i < db->n && early_ready(db->set, i) ? db->db[i] : NULL;
}

void clm_set_database_free(clm_set_database *db)
{
    if (!db) return;
    early_join((clm_device_set *)db->set);
    for (unsigned i = 0; i < db->n; i++) clm_database_free(db->db[i]);
    free(db);
}

int clm_set_scratch_alloc(const clm_set_database *db, const clm_scratch_options *opts,
                          clm_set_scratch **out)
{
    if (!out) return clm_fail(CLM_E_INVALID, "clm_set_scratch_alloc: out is NULL");
    *out = NULL;
    if (!db || db->set->early)
        return clm_fail(CLM_E_INVALID, "clm_set_scratch_alloc: db is NULL or early (its "
                        "scratch comes from clm_set_open_early)");
    clm_set_scratch *s = calloc(1, sizeof *s);
    if (!s) return clm_fail(CLM_E_NOMEM, "clm_set_scratch_alloc: out of memory");
    s->db = db;
    s->hook.min_part = CLM_SET_MIN_PART;
    atomic_init(&s->busy, 0);
    atomic_init(&s->running, 0);
    atomic_init(&s->most_running, 0);
    for (unsigned i = 0; i < db->n; i++) {
        int st = clm_scratch_alloc(db->db[i], opts, &s->s[i]);
        if (st != CLM_OK) {
            fail_in(st, "clm_set_scratch_alloc: device %u", i);
            clm_set_scratch_free(s);
            return st;
        }
        s->n = i + 1;
    }
    *out = s;
    return CLM_OK;
}

void clm_set_scratch_free(clm_set_scratch *s)
{
    if (!s) return;
    early_join((clm_device_set *)s->db->set);
    for (unsigned i = 0; i < s->n; i++) clm_scratch_free(s->s[i]);
    free(s);
}

clm_scratch *clm_set_scratch_get(const clm_set_scratch *s, unsigned i)
{
    return s && i < s->n && early_ready(s->db->set, i) ? s->s[i] : NULL;
}

void clm_set_scratch_hook(clm_set_scratch *s, const struct clm_set_hook *hook)
{
    s->hook = *hook;
}

unsigned clm_set_scratch_most_running(const clm_set_scratch *s)
{
    return atomic_load(&s->most_running);
}

/* ---- one input across the devices -------------------------------------------------------- */

/* One device's part: owned starts [a, b), searched over the window [w0, w1) of the input
 * (absolute offsets). */
struct part {
    const clm_set_database *db;
    clm_set_scratch *s;
    unsigned dev;
    const unsigned char *text; /* the window's bytes; NULL: read [w0, w1) of fd */
    int fd;
    uint64_t w0, w1, a, b;
    uint64_t origin; /* reported offsets count from this input byte */
    int count_only, fast;
    uint64_t fail_after; /* 1 + the matches after which the hook fails the device (0: never) */
    /* what came of it */
    int status, nomem, injected;
    char err[1024];
    clm_match *v;
    size_t n, cap;
    uint64_t count;
};

static int part_match(const clm_match *m, void *ctx)
{
    struct part *p = ctx;
    clm_match x = *m; /* a window counts from its first byte, in memory and in a file */
    if (x.start + p->w0 < p->a || x.start + p->w0 >= p->b) return 0; /* another part's */
    x.start += p->w0 - p->origin;
    x.end += p->w0 - p->origin;
    if (p->fail_after && p->count + 1 >= p->fail_after) {
        p->injected = 1;
        return 1;
    }
    p->count++;
    if (p->count_only) return 0;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        clm_match *v = realloc(p->v, cap * sizeof *v);
        if (!v) {
            p->nomem = 1;
            return 1;
        }
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = x;
    return 0;
}

static void *part_run(void *arg)
{
    struct part *p = arg;
    const clm_database *db = p->db->db[p->dev];
    clm_scratch *s = p->s->s[p->dev];
    size_t n = (size_t)(p->w1 - p->w0);
    int serial = p->s->hook.one_at_a_time ||
                 one_at_a_time(p->db->set, p->dev, p->db->set->dev[p->dev]);
    int st;
    serial_lock(serial, 1);
    unsigned running = atomic_fetch_add(&p->s->running, 1) + 1;
    for (unsigned most = atomic_load(&p->s->most_running);
         running > most && !atomic_compare_exchange_weak(&p->s->most_running, &most, running);)
        ;
    if (p->fast)
        st = p->text ? clm_count(db, s, p->text, n, &p->count)
                     : clm_count_fd_range(db, s, p->fd, p->w0, n, &p->count);
    else
        st = p->text ? clm_scan(db, s, p->text, n, part_match, p)
                     : clm_scan_fd_range(db, s, p->fd, p->w0, n, part_match, p);
    atomic_fetch_sub(&p->s->running, 1);
    serial_lock(serial, 0);
    if (st == CLM_STOPPED && p->nomem)
        st = clm_fail(CLM_E_NOMEM, "out of memory holding %zu matches", p->n);
    else if (st == CLM_STOPPED && p->injected)
        st = clm_fail(CLM_E_OPENCL, "failed mid-scan after %llu matches (a test's injected "
                      "failure)", (unsigned long long)p->count);
    if (st < 0) snprintf(p->err, sizeof p->err, "%s", clm_last_error());
    p->status = st;
    return NULL;
}

/* Split owned starts [from, to) into parts: each device gets a share in proportion to its
 * speed (equal shares when unknown), and only as many devices as the input gives min_part
 * bytes each take part (the fastest). Returns the number of parts. */
static unsigned split(const clm_set_scratch *s, uint64_t from, uint64_t to, struct part *parts)
{
    const clm_device_set *set = s->db->set;
    uint64_t len = to - from;
    unsigned use = s->n;
    if (s->hook.min_part && len / s->hook.min_part < use)
        use = len / s->hook.min_part ? (unsigned)(len / s->hook.min_part) : 1;
    double w[CLM_MAX_SET_DEVICES];
    int chosen[CLM_MAX_SET_DEVICES] = {0};
    for (unsigned i = 0; i < s->n; i++) w[i] = set->speed[i] > 0 ? set->speed[i] : 1;
    for (unsigned k = 0; k < use; k++) { /* the fastest `use`, the first on a tie */
        unsigned best = s->n;
        for (unsigned i = 0; i < s->n; i++)
            if (!chosen[i] && (best == s->n || w[i] > w[best])) best = i;
        chosen[best] = 1;
    }
    double total = 0, sum = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (chosen[i]) total += w[i];
    unsigned n = 0;
    uint64_t a = from;
    for (unsigned i = 0; i < s->n; i++) {
        if (!chosen[i]) continue;
        sum += w[i];
        uint64_t b = n + 1 == use ? to : from + (uint64_t)((double)len * (sum / total));
        if (b < a) b = a;
        if (b > to) b = to;
        parts[n].dev = i;
        parts[n].a = a;
        parts[n].b = b;
        n++;
        a = b;
    }
    return n;
}

/* Search owned starts [from, to) of an input whose bytes [lo, hi) can be read: from memory
 * (text holding byte `base` at text[0]) or from fd (text NULL), reporting offsets from byte
 * lo of a file, from byte 0 of memory. Every part runs on a thread of its own; then the
 * matches are called back part after part (count_only: *count gets their number; else it
 * gets what was called back). */
/* The input a search reads: bytes [lo, hi), from memory (text holding byte `base` at
 * text[0]) or from fd (text NULL); offsets reported from byte lo of a file, from byte 0 of
 * memory. */
struct input {
    const unsigned char *text;
    uint64_t base;
    int fd;
    uint64_t lo, hi;
    int count_only;
};

/* Make p, whose device and owned starts [a, b) are set, search its window of the input. */
static void part_place(struct part *p, clm_set_scratch *s, const struct input *in)
{
    const clm_set_database *db = s->db;
    p->db = db;
    p->s = s;
    p->fd = in->fd;
    p->origin = in->text ? 0 : in->lo;
    p->count_only = in->count_only;
    if (s->hook.fail_device == p->dev + 1) p->fail_after = s->hook.fail_after + 1;
    p->fast = in->count_only && db->fast_count && !p->fail_after;
    if (p->fast) /* the part's own starts only: clm_count counts the whole window */
        p->w0 = p->a;
    else
        p->w0 = p->a - in->lo > db->lead ? p->a - db->lead : in->lo;
    p->w1 = in->hi - p->b < db->tail ? in->hi : p->b + db->tail;
    if (in->text) p->text = in->text + (p->w0 - in->base);
}

/* The searched parts, in text order: the first failure, else their matches called back (or
 * counted); *count as set_run says. Frees what the parts hold. */
static int deliver(struct part *const *parts, size_t n, const struct input *in,
                   clm_match_cb cb, void *ctx, uint64_t *count)
{
    int st = CLM_OK;
    for (size_t i = 0; i < n && st == CLM_OK; i++)
        if (parts[i]->status < 0)
            st = clm_fail(parts[i]->status, "device %u (%s), bytes %llu to %llu: %s",
                          parts[i]->dev, parts[i]->db->set->dev[parts[i]->dev]->info.name,
                          (unsigned long long)parts[i]->a, (unsigned long long)parts[i]->b,
                          parts[i]->err);
    for (size_t i = 0; i < n && st == CLM_OK; i++) {
        if (in->count_only) {
            *count += parts[i]->count;
            continue;
        }
        for (size_t j = 0; j < parts[i]->n && st == CLM_OK; j++) {
            ++*count;
            if (cb(&parts[i]->v[j], ctx)) st = CLM_STOPPED;
        }
    }
    for (size_t i = 0; i < n; i++) free(parts[i]->v);
    return st;
}

/* An early set's search: chunks claimed by the ready devices (below). */
static int claim_all(clm_set_scratch *s, const struct input *in, uint64_t from, uint64_t to,
                     clm_match_cb cb, void *ctx, uint64_t *count);

static int set_run(clm_set_scratch *s, const unsigned char *text, uint64_t base, int fd,
                   uint64_t lo, uint64_t hi, uint64_t from, uint64_t to, int count_only,
                   clm_match_cb cb, void *ctx, uint64_t *count)
{
    const struct input in = {text, base, fd, lo, hi, count_only};
    struct part parts[CLM_MAX_SET_DEVICES], *pp[CLM_MAX_SET_DEVICES];
    unsigned char empty[CLM_MAX_SET_DEVICES] = {0};
    memset(parts, 0, sizeof parts);
    *count = 0;
    if (to <= from) return CLM_OK;
    if (s->db->set->early) return claim_all(s, &in, from, to, cb, ctx, count);
    unsigned n = split(s, from, to, parts);
    for (unsigned i = 0; i < n; i++) {
        part_place(&parts[i], s, &in);
        empty[i] = parts[i].a == parts[i].b;
        pp[i] = &parts[i];
    }
    run_each(part_run, parts, sizeof parts[0], n, empty);
    return deliver(pp, n, &in, cb, ctx, count);
}

/* ---- early start (clm_set_open_early) ----------------------------------------------------- */

/* Largest chunk a device claims: big enough for a GPU's transfers to run at full rate. */
#define EARLY_MAX_CHUNK ((uint64_t)256 << 20)

/* A device coming up on a thread of its own. */
struct late {
    struct early *e;
    unsigned i;
};

struct early {
    clm_device_set *set;
    clm_set_database *db;
    clm_set_scratch *s;
    int plat[CLM_MAX_SET_DEVICES], devi[CLM_MAX_SET_DEVICES];
    /* mu guards state, err, claimed, closing and every call's claims; cv is broadcast when
     * any of them changes */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state[CLM_MAX_SET_DEVICES]; /* 1 ready, 0 coming up, < 0: the CLM_E_* it failed with */
    char err[CLM_MAX_SET_DEVICES][512];
    uint64_t claimed; /* chunks claimed since the set opened */
    int closing, joined;
    struct late late[CLM_MAX_SET_DEVICES];
    pthread_t thread[CLM_MAX_SET_DEVICES];
    unsigned char started[CLM_MAX_SET_DEVICES];
    /* what the devices compile, copied: they go on after clm_set_open_early returns */
    char **patterns;
    size_t *lengths;
    unsigned *ids, count;
    clm_compile_options copts;
    clm_scratch_options sopts;
    int has_copts, has_sopts;
    /* tests (CLMATCH_TEST_EARLY): device hook_dev (1 + its index; 0: none) fails to come up,
     * or starts only once hook_after chunks are claimed, and claims the next one */
    unsigned hook_dev;
    int hook_fail;
    uint64_t hook_after;
};

static int early_ready(const clm_device_set *set, unsigned i)
{
    if (!set->early) return 1;
    struct early *e = set->early;
    pthread_mutex_lock(&e->mu);
    int ready = e->state[i] == 1;
    pthread_mutex_unlock(&e->mu);
    return ready;
}

static void early_lock(const clm_device_set *set, int lock)
{
    if (set->early && lock) pthread_mutex_lock(&set->early->mu);
    if (set->early && !lock) pthread_mutex_unlock(&set->early->mu);
}

int clm_device_set_state(const clm_device_set *set, unsigned i)
{
    if (!set || i >= set->n)
        return clm_fail(CLM_E_INVALID, "clm_device_set_state: set is NULL or device %u is "
                        "not in it", i);
    if (!set->early) return 1;
    struct early *e = set->early;
    pthread_mutex_lock(&e->mu);
    int st = e->state[i];
    if (st < 0) clm_fail(st, "device %d:%d did not come up: %s", e->plat[i], e->devi[i],
                         e->err[i]);
    pthread_mutex_unlock(&e->mu);
    return st;
}

/* Open, compile and allocate device i of the set; publish them, or the failure's detail. */
static int come_up(struct early *e, unsigned i)
{
    clm_device *dev = NULL;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    int st = CLM_OK;
    if (e->hook_dev == i + 1 && e->hook_fail)
        st = clm_fail(CLM_E_OPENCL, "a test's injected failure to open (CLMATCH_TEST_EARLY)");
    if (st == CLM_OK) st = clm_device_open(e->plat[i], e->devi[i], &dev);
    int serial = st == CLM_OK && one_at_a_time(e->set, i, dev);
    serial_lock(serial, 1); /* its build may load kernel modules while another searches */
    if (st == CLM_OK)
        st = clm_compile(dev, (const char *const *)e->patterns, e->lengths, e->ids, e->count,
                         e->has_copts ? &e->copts : NULL, &db);
    if (st == CLM_OK) st = clm_scratch_alloc(db, e->has_sopts ? &e->sopts : NULL, &s);
    serial_lock(serial, 0);
    pthread_mutex_lock(&e->mu);
    if (st == CLM_OK) {
        e->set->dev[i] = dev;
        e->set->speed[i] = profile_speed(dev);
        e->db->db[i] = db;
        e->s->s[i] = s;
        e->state[i] = 1;
    } else {
        snprintf(e->err[i], sizeof e->err[i], "%s", clm_last_error());
        e->state[i] = st;
    }
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    if (st != CLM_OK) {
        clm_scratch_free(s);
        clm_database_free(db);
        clm_device_close(dev);
    }
    return st;
}

static void *come_up_late(void *arg)
{
    struct late *l = arg;
    struct early *e = l->e;
    if (e->hook_dev == l->i + 1 && e->hook_after) {
        pthread_mutex_lock(&e->mu);
        while (e->claimed < e->hook_after && !e->closing) pthread_cond_wait(&e->cv, &e->mu);
        int closing = e->closing; /* the set closed before its time came: stay down */
        pthread_mutex_unlock(&e->mu);
        if (closing) return NULL;
    }
    come_up(e, l->i);
    return NULL;
}

static void early_join(clm_device_set *set)
{
    struct early *e = set->early;
    if (!e || e->joined) return;
    pthread_mutex_lock(&e->mu);
    e->closing = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    for (unsigned i = 0; i < set->n; i++)
        if (e->started[i]) pthread_join(e->thread[i], NULL);
    e->joined = 1;
}

/* CLMATCH_TEST_EARLY: "D:fail" (device D of early sets fails to come up) or "D:K" (it
 * starts coming up once K chunks are claimed, and the claims wait for it to claim the next
 * one: it joins mid-input on any machine). */
static void early_test_hook(struct early *e, unsigned count)
{
    const char *v = clm_env(CLM_ENV_TEST_EARLY);
    unsigned d;
    unsigned long long k;
    char word[8];
    if (!v || sscanf(v, "%u:", &d) != 1 || d == 0 || d >= count) return;
    if (sscanf(v, "%u:%7s", &d, word) == 2 && strcmp(word, "fail") == 0) {
        e->hook_dev = d + 1;
        e->hook_fail = 1;
    } else if (sscanf(v, "%u:%llu", &d, &k) == 2 && k > 0) {
        e->hook_dev = d + 1;
        e->hook_after = k;
    }
}

/* Copy what the late devices compile. */
static int early_keep(struct early *e, const char *const *patterns, const size_t *lengths,
                      const unsigned *ids, unsigned count, const clm_compile_options *copts,
                      const clm_scratch_options *sopts)
{
    e->count = count;
    e->patterns = calloc(count ? count : 1, sizeof *e->patterns);
    e->lengths = calloc(count ? count : 1, sizeof *e->lengths);
    e->ids = ids ? malloc((count ? count : 1) * sizeof *e->ids) : NULL;
    if (!e->patterns || !e->lengths || (ids && !e->ids)) return CLM_E_NOMEM;
    for (unsigned i = 0; i < count; i++) {
        if (!patterns || !patterns[i]) return CLM_E_INVALID; /* device 0 says why */
        e->lengths[i] = lengths ? lengths[i] : strlen(patterns[i]);
        e->patterns[i] = malloc(e->lengths[i] + 1);
        if (!e->patterns[i]) return CLM_E_NOMEM;
        memcpy(e->patterns[i], patterns[i], e->lengths[i]);
        e->patterns[i][e->lengths[i]] = '\0';
    }
    if (ids) memcpy(e->ids, ids, count * sizeof *ids);
    if (copts && copts->size >= sizeof copts->size) {
        memcpy(&e->copts, copts, copts->size < sizeof e->copts ? copts->size : sizeof e->copts);
        e->has_copts = 1;
    }
    if (sopts && sopts->size >= sizeof sopts->size) {
        memcpy(&e->sopts, sopts, sopts->size < sizeof e->sopts ? sopts->size : sizeof e->sopts);
        e->has_sopts = 1;
    }
    return CLM_OK;
}

static void early_free(struct early *e)
{
    if (!e) return;
    for (unsigned i = 0; e->patterns && i < e->count; i++) free(e->patterns[i]);
    free(e->patterns);
    free(e->lengths);
    free(e->ids);
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

int clm_set_open_early(const int *platform_indices, const int *device_indices, unsigned count,
                       const char *const *patterns, const size_t *lengths, const unsigned *ids,
                       unsigned pattern_count, const clm_compile_options *copts,
                       const clm_scratch_options *sopts, clm_device_set **set_out,
                       clm_set_database **db_out, clm_set_scratch **scratch_out)
{
    if (!set_out || !db_out || !scratch_out)
        return clm_fail(CLM_E_INVALID, "clm_set_open_early: an out argument is NULL");
    *set_out = NULL;
    *db_out = NULL;
    *scratch_out = NULL;
    int st = check_devices(platform_indices, device_indices, count, "clm_set_open_early");
    if (st != CLM_OK) return st;
    clm_device_set *set = calloc(1, sizeof *set);
    clm_set_database *db = calloc(1, sizeof *db);
    clm_set_scratch *s = calloc(1, sizeof *s);
    struct early *e = calloc(1, sizeof *e);
    if (e) {
        pthread_mutex_init(&e->mu, NULL);
        pthread_cond_init(&e->cv, NULL);
    }
    if (!set || !db || !s || !e ||
        early_keep(e, patterns, lengths, ids, pattern_count, copts, sopts) == CLM_E_NOMEM) {
        free(set);
        free(db);
        free(s);
        early_free(e);
        return clm_fail(CLM_E_NOMEM, "clm_set_open_early: out of memory");
    }
    set->n = db->n = s->n = count;
    set->early = e;
    db->set = set;
    s->db = db;
    s->hook.min_part = CLM_SET_MIN_PART;
    atomic_init(&s->busy, 0);
    atomic_init(&s->running, 0);
    atomic_init(&s->most_running, 0);
    memcpy(set->plat, platform_indices, count * sizeof *set->plat);
    e->set = set;
    e->db = db;
    e->s = s;
    memcpy(e->plat, platform_indices, count * sizeof *e->plat);
    memcpy(e->devi, device_indices, count * sizeof *e->devi);
    early_test_hook(e, count);
    for (unsigned i = 1; i < count; i++) {
        e->late[i] = (struct late){e, i};
        e->started[i] = pthread_create(&e->thread[i], NULL, come_up_late, &e->late[i]) == 0;
        if (!e->started[i]) {
            snprintf(e->err[i], sizeof e->err[i], "no thread to open it on");
            e->state[i] = CLM_E_NOMEM;
        }
    }
    /* device 0 on this thread, while the others come up */
    st = come_up(e, 0);
    if (st == CLM_OK) {
        set_context(db);
        *set_out = set;
        *db_out = db;
        *scratch_out = s;
        return CLM_OK;
    }
    /* the device after the detail, which callers parse ("pattern N ...") */
    char *was = strdup(clm_last_error());
    clm_fail(st, "%s (clm_set_open_early, device %d:%d)", was ? was : "", platform_indices[0],
             device_indices[0]);
    free(was);
    clm_set_scratch_free(s);
    clm_set_database_free(db);
    clm_device_set_close(set);
    return st;
}

/* One call's claims: owned starts [next, to) not claimed yet, and the chunks claimed. */
struct claim {
    clm_set_scratch *s;
    const struct input *in;
    uint64_t next, to;
    struct part **chunk;
    size_t n, cap;
    uint64_t size[CLM_MAX_SET_DEVICES]; /* each device's next chunk */
    int failed;                         /* a chunk failed: claim no more */
    int nomem;                          /* no memory to claim one */
};

struct claimer {
    struct claim *c;
    unsigned dev;
};

/* The chunk device d claims next (called with mu held): its own size, doubled at each claim,
 * but at most its share of what is left, and never leaving less than a minimum chunk. Device
 * 0 (the CPU that starts) begins at the minimum; the late ones (GPUs) at a file slab, so that
 * their buffers are sized once and their first transfer runs at full rate. */
static uint64_t chunk_size(struct claim *c, unsigned d)
{
    const clm_device_set *set = c->s->db->set;
    const struct early *e = set->early;
    uint64_t min = c->s->hook.min_part ? c->s->hook.min_part : 1;
    uint64_t rest = c->to - c->next;
    double w = 0, total = 0;
    int known = 1;
    for (unsigned i = 0; i < set->n; i++)
        if (e->state[i] >= 0) known &= set->speed[i] > 0 && e->state[i] == 1;
    for (unsigned i = 0; i < set->n; i++) {
        if (e->state[i] < 0) continue;
        double wi = known ? set->speed[i] : 1;
        total += wi;
        if (i == d) w = wi;
    }
    if (!c->size[d]) c->size[d] = d && min < CLM_FILE_SLAB_MAX ? CLM_FILE_SLAB_MAX : min;
    uint64_t share = (uint64_t)((double)rest * (w / total));
    uint64_t size = c->size[d] < share ? c->size[d] : share;
    if (size < min) size = min;
    if (size > rest || rest - size < min) size = rest;
    if (c->size[d] < EARLY_MAX_CHUNK) c->size[d] *= 2;
    return size;
}

/* A device's claims: wait until it is ready, then claim chunk after chunk in text order and
 * search each, until none is left, a chunk failed, or the device failed to come up. */
static void *claim_loop(void *arg)
{
    struct claimer *w = arg;
    struct claim *c = w->c;
    struct early *e = c->s->db->set->early;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (e->state[w->dev] == 0 && c->next < c->to && !c->failed)
            pthread_cond_wait(&e->cv, &e->mu);
        if (e->state[w->dev] < 0 || c->next >= c->to || c->failed) break;
        /* the test's late device joins here: the others wait until it is up and has
         * claimed the next chunk itself, however fast they would take the rest */
        if (e->hook_after && e->claimed == e->hook_after && w->dev != e->hook_dev - 1 &&
            e->state[e->hook_dev - 1] >= 0) {
            pthread_cond_wait(&e->cv, &e->mu);
            continue;
        }
        struct part *p = calloc(1, sizeof *p);
        if (c->n == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            struct part **v = realloc(c->chunk, cap * sizeof *v);
            if (v) {
                c->chunk = v;
                c->cap = cap;
            }
        }
        if (!p || c->n == c->cap) {
            free(p);
            c->failed = c->nomem = 1;
            pthread_cond_broadcast(&e->cv);
            break;
        }
        p->dev = w->dev;
        p->a = c->next;
        p->b = c->next + chunk_size(c, w->dev);
        c->next = p->b;
        c->chunk[c->n++] = p;
        e->claimed++;
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->mu);
        part_place(p, c->s, c->in);
        part_run(p);
        pthread_mutex_lock(&e->mu);
        if (p->status < 0) {
            c->failed = 1;
            pthread_cond_broadcast(&e->cv);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static int claim_all(clm_set_scratch *s, const struct input *in, uint64_t from, uint64_t to,
                     clm_match_cb cb, void *ctx, uint64_t *count)
{
    const clm_device_set *set = s->db->set;
    struct claim c = {.s = s, .in = in, .next = from, .to = to};
    struct claimer w[CLM_MAX_SET_DEVICES];
    unsigned char skip[CLM_MAX_SET_DEVICES] = {0};
    pthread_mutex_lock(&set->early->mu);
    for (unsigned i = 0; i < set->n; i++) {
        w[i] = (struct claimer){&c, i};
        skip[i] = set->early->state[i] < 0;
    }
    pthread_mutex_unlock(&set->early->mu);
    run_each(claim_loop, w, sizeof w[0], set->n, skip);
    int st;
    if (c.nomem) {
        st = clm_fail(CLM_E_NOMEM, "out of memory claiming a chunk");
        for (size_t i = 0; i < c.n; i++) free(c.chunk[i]->v);
    } else {
        st = deliver(c.chunk, c.n, in, cb, ctx, count);
    }
    for (size_t i = 0; i < c.n; i++) free(c.chunk[i]);
    free(c.chunk);
    return st;
}

/* Check a call's arguments and take the set scratch for it (give it back with set_give). */
static int set_take(const clm_set_database *db, clm_set_scratch *s, int need, const char *fn)
{
    if (!db || !s || !need) return clm_fail(CLM_E_INVALID, "%s: a NULL argument", fn);
    if (s->db != db)
        return clm_fail(CLM_E_INVALID, "%s: the scratch belongs to another set database", fn);
    if (atomic_exchange(&s->busy, 1))
        return clm_fail(CLM_E_BUSY, "%s: the set scratch is in use by another call", fn);
    return CLM_OK;
}

static void set_give(clm_set_scratch *s) { atomic_store(&s->busy, 0); }

static int set_memory(const clm_set_database *db, clm_set_scratch *s, const void *data,
                      size_t len, int count_only, clm_match_cb cb, void *ctx, uint64_t *count,
                      const char *fn)
{
    uint64_t n;
    int st = set_take(db, s, (data || !len) && (count_only ? count != NULL : cb != NULL), fn);
    if (st != CLM_OK) return st;
    st = set_run(s, data, 0, -1, 0, len, 0, len, count_only, cb, ctx, &n);
    set_give(s);
    if (st < 0) return fail_in(st, "%s", fn);
    if (count) *count = n;
    return st;
}

int clm_set_scan(const clm_set_database *db, clm_set_scratch *s, const void *data, size_t len,
                 clm_match_cb cb, void *ctx)
{
    return set_memory(db, s, data, len, 0, cb, ctx, NULL, "clm_set_scan");
}

int clm_set_count(const clm_set_database *db, clm_set_scratch *s, const void *data, size_t len,
                  uint64_t *count)
{
    return set_memory(db, s, data, len, 1, NULL, NULL, count, "clm_set_count");
}

static int set_fd(const clm_set_database *db, clm_set_scratch *s, int fd, uint64_t offset,
                  uint64_t length, int count_only, clm_match_cb cb, void *ctx, uint64_t *count,
                  const char *fn)
{
    uint64_t n = 0;
    int st = set_take(db, s, count_only ? count != NULL : cb != NULL, fn);
    if (st != CLM_OK) return st;
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        st = clm_fail(CLM_E_IO, "%s: fstat of fd %d: %s", fn, fd, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        st = clm_fail(CLM_E_IO, "%s: fd %d is not a regular file (pipes and terminals: "
                      "clm_set_stream_write)", fn, fd);
    uint64_t size = st == CLM_OK ? (uint64_t)sb.st_size : 0;
    if (st == CLM_OK && length != CLM_FD_TO_END && (offset > size || length > size - offset))
        st = clm_fail(CLM_E_INVALID, "%s: range [%llu, +%llu) reaches past the end of the "
                      "file (%llu bytes)", fn, (unsigned long long)offset,
                      (unsigned long long)length, (unsigned long long)size);
    uint64_t end = length == CLM_FD_TO_END ? size : offset + length;
    if (st == CLM_OK && offset < end) {
        st = set_run(s, NULL, 0, fd, offset, end, offset, end, count_only, cb, ctx, &n);
        if (st < 0) fail_in(st, "%s", fn);
    }
    set_give(s);
    if (st >= 0 && count) *count = n;
    return st;
}

int clm_set_scan_fd(const clm_set_database *db, clm_set_scratch *s, int fd, clm_match_cb cb,
                    void *ctx)
{
    return set_fd(db, s, fd, 0, CLM_FD_TO_END, 0, cb, ctx, NULL, "clm_set_scan_fd");
}

int clm_set_count_fd(const clm_set_database *db, clm_set_scratch *s, int fd, uint64_t *count)
{
    return set_fd(db, s, fd, 0, CLM_FD_TO_END, 1, NULL, NULL, count, "clm_set_count_fd");
}

int clm_set_scan_fd_range(const clm_set_database *db, clm_set_scratch *s, int fd,
                          uint64_t offset, uint64_t length, clm_match_cb cb, void *ctx)
{
    return set_fd(db, s, fd, offset, length, 0, cb, ctx, NULL, "clm_set_scan_fd_range");
}

int clm_set_count_fd_range(const clm_set_database *db, clm_set_scratch *s, int fd,
                           uint64_t offset, uint64_t length, uint64_t *count)
{
    return set_fd(db, s, fd, offset, length, 1, NULL, NULL, count, "clm_set_count_fd_range");
}

/* ---- streams ------------------------------------------------------------------------------ */

/* Held input searched at once: a file slab per device, enough for a split to pay. */
#define SET_STREAM_BLOCK CLM_FILE_SLAB_MAX

int clm_set_stream_open(const clm_set_database *db, clm_set_scratch *s, unsigned flags,
                        clm_set_stream **out)
{
    if (!out) return clm_fail(CLM_E_INVALID, "clm_set_stream_open: out is NULL");
    *out = NULL;
    if (flags & ~CLM_STREAM_COUNT_ONLY)
        return clm_fail(CLM_E_INVALID, "clm_set_stream_open: unknown flags 0x%x", flags);
    int st = set_take(db, s, 1, "clm_set_stream_open");
    if (st != CLM_OK) return st;
    if (s->stream_open) {
        set_give(s);
        return clm_fail(CLM_E_BUSY, "clm_set_stream_open: the set scratch has a stream open");
    }
    clm_set_stream *t = calloc(1, sizeof *t);
    size_t block = s->hook.stream_block ? s->hook.stream_block : SET_STREAM_BLOCK * s->n;
    if (block < 4 * (db->lead + db->tail)) block = 4 * (db->lead + db->tail);
    unsigned char *buf = t ? malloc(block) : NULL;
    if (!buf) {
        free(t);
        set_give(s);
        return clm_fail(CLM_E_NOMEM, "clm_set_stream_open: %zu bytes", block);
    }
    t->db = db;
    t->s = s;
    t->flags = flags;
    t->buf = buf;
    t->block = block;
    s->stream_open = 1;
    set_give(s);
    *out = t;
    return CLM_OK;
}

/* Search the held starts before `to` (absolute) and keep only the bytes later starts need. */
static int stream_advance(clm_set_stream *t, uint64_t to, clm_match_cb cb, void *ctx)
{
    const clm_set_database *db = t->db;
    uint64_t n = 0;
    int st = CLM_OK;
    if (to > t->own) {
        st = set_run(t->s, t->buf, t->base, -1, t->base, t->base + t->fill, t->own, to,
                     (t->flags & CLM_STREAM_COUNT_ONLY) != 0, cb, ctx, &n);
        t->total += n;
        t->own = to;
    }
    uint64_t keep = t->own - t->base > db->lead ? t->own - db->lead : t->base;
    size_t drop = (size_t)(keep - t->base);
    memmove(t->buf, t->buf + drop, t->fill - drop);
    t->fill -= drop;
    t->base = keep;
    if (st != CLM_OK) t->dead = 1;
    return st < 0 ? fail_in(st, "device set stream") : st;
}

static int stream_take(clm_set_stream *t, clm_match_cb cb, const char *fn)
{
    if (!t) return clm_fail(CLM_E_INVALID, "%s: stream is NULL", fn);
    if (!cb && !(t->flags & CLM_STREAM_COUNT_ONLY))
        return clm_fail(CLM_E_INVALID, "%s: cb is NULL (only count-only streams)", fn);
    return set_take(t->db, t->s, 1, fn);
}

int clm_set_stream_write(clm_set_stream *t, const void *data, size_t len, clm_match_cb cb,
                         void *ctx)
{
    int st = stream_take(t, cb, "clm_set_stream_write");
    if (st != CLM_OK) return st;
    if (t->dead) st = clm_fail(CLM_E_INVALID, "clm_set_stream_write: the stream stopped or "
                               "failed earlier: close it");
    else if (!data && len) st = clm_fail(CLM_E_INVALID, "clm_set_stream_write: data is NULL");
    const unsigned char *p = data;
    while (st == CLM_OK && len) {
        size_t k = t->block - t->fill < len ? t->block - t->fill : len;
        memcpy(t->buf + t->fill, p, k);
        t->fill += k;
        p += k;
        len -= k;
        if (t->fill == t->block)
            st = stream_advance(t, t->base + t->fill - t->db->tail, cb, ctx);
    }
    set_give(t->s);
    return st;
}

int clm_set_stream_flush(clm_set_stream *t, clm_match_cb cb, void *ctx)
{
    int st = stream_take(t, cb, "clm_set_stream_flush");
    if (st != CLM_OK) return st;
    if (t->dead) st = clm_fail(CLM_E_INVALID, "clm_set_stream_flush: the stream stopped or "
                               "failed earlier: close it");
    else if (t->fill > t->db->tail)
        st = stream_advance(t, t->base + t->fill - t->db->tail, cb, ctx);
    set_give(t->s);
    return st;
}

int clm_set_stream_close(clm_set_stream *t, clm_match_cb cb, void *ctx, uint64_t *total)
{
    int st = stream_take(t, cb, "clm_set_stream_close");
    if (st != CLM_OK) return st;
    if (!t->dead) st = stream_advance(t, t->base + t->fill, cb, ctx);
    if (total) *total = t->total;
    t->s->stream_open = 0;
    set_give(t->s);
    free(t->buf);
    free(t);
    return st;
}
