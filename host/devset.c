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

#include "devset_impl.h"

struct clm_set_stream {
    const clm_set_database *db;
    clm_set_scratch *s;
    unsigned flags;
    unsigned char *buf; /* absolute bytes [base, base + fill) of the input */
    size_t fill, block; /* a block of input is searched once `block` bytes are held */
    unsigned threads;   /* that drop line breaks (CLM_STREAM_SKIP_LINE_BREAKS) */
    uint64_t base, own; /* own: the first start not searched yet */
    int dead;
    uint64_t total;
};


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
void clm_devset_run_each(void *(*fn)(void *), void *items, size_t size, unsigned n,
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
int clm_devset_check_devices(const int *platform_indices, const int *device_indices,
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
int clm_devset_one_at_a_time(const clm_device_set *set, unsigned i, const clm_device *dev)
{
    if (!clm_pocl_release_race(dev->info.platform_version)) return 0;
    for (unsigned j = 0; j < set->n; j++)
        if (j != i && set->plat[j] == set->plat[i]) return 1;
    return 0;
}

void clm_devset_serial_lock(int serial, int lock)
{
    if (serial && lock) pthread_mutex_lock(&pocl_serial);
    if (serial && !lock) pthread_mutex_unlock(&pocl_serial);
}

/* The speed of a device's profile (0: none measured). */
double clm_devset_profile_speed(const clm_device *dev)
{
    return (double)clm_tune_get(dev, CLM_ALGO_AUTO, CLM_KNOB_SPEED, NULL);
}

int clm_device_set_open(const int *platform_indices, const int *device_indices, unsigned count,
                        clm_device_set **out)
{
    if (!out) return clm_fail(CLM_E_INVALID, "clm_device_set_open: out is NULL");
    *out = NULL;
    int st = clm_devset_check_devices(platform_indices, device_indices, count,
                                      "clm_device_set_open");
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
        set->speed[i] = clm_devset_profile_speed(set->dev[i]);
        known &= set->speed[i] > 0;
    }
    if (!known) memset(set->speed, 0, sizeof set->speed); /* one unknown: equal shares */
    *out = set;
    return CLM_OK;
}

void clm_device_set_close(clm_device_set *set)
{
    if (!set) return;
    clm_devset_early_join(set);
    for (unsigned i = 0; i < set->n; i++) clm_device_close(set->dev[i]);
    clm_devset_early_free(set->early);
    free(set);
}

unsigned clm_device_set_count(const clm_device_set *set) { return set ? set->n : 0; }

clm_device *clm_device_set_device(const clm_device_set *set, unsigned i)
{
    return set && i < set->n && clm_devset_early_ready(set, i) ? set->dev[i] : NULL;
}

int clm_device_set_get_speeds(const clm_device_set *set, double *speeds, unsigned count)
{
    if (!set || !speeds || count != set->n)
        return clm_fail(CLM_E_INVALID, "clm_device_set_get_speeds: NULL, or count %u is not "
                        "the set's %u devices", count, set ? set->n : 0);
    clm_devset_early_lock(set, 1);
    memcpy(speeds, set->speed, count * sizeof *speeds);
    clm_devset_early_lock(set, 0);
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
    clm_devset_early_lock(set, 1);
    if (speeds)
        memcpy(set->speed, speeds, count * sizeof *speeds);
    else
        memset(set->speed, 0, sizeof set->speed);
    clm_devset_early_lock(set, 0);
    return CLM_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One device's speed over text[0, n): a warm-up count of the whole text (kernel build, and
 * the slot and staging buffers a call of this size allocates on first use, which on a GPU
 * cost more than the scan), then the best of two timed counts. */
static int calibrate_one(clm_device *dev, const unsigned char *text, size_t n, double *speed)
{
    static const char pattern[] = "ACGTTGCAAGGCT"; /* 13 bases, as the benchmarks search */
    const char *pats[] = {pattern};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    uint64_t count;
    int st = clm_compile(dev, pats, NULL, NULL, 1, NULL, &db);
    if (st == CLM_OK) st = clm_scratch_alloc(db, NULL, &s);
    if (st == CLM_OK) st = clm_count(db, s, text, n, &count);
    double best = 0;
    for (int rep = 0; rep < 2 && st == CLM_OK; rep++) {
        double t0 = now_seconds();
        st = clm_count(db, s, text, n, &count);
        double t = now_seconds() - t0;
        if (rep == 0 || t < best) best = t;
    }
    if (st == CLM_OK) *speed = (double)n / (best > 1e-6 ? best : 1e-6);
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
void clm_devset_set_context(clm_set_database *db)
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
    clm_devset_serial_lock(j->serial, 1);
    j->status = clm_compile(j->dev, j->patterns, j->lengths, j->ids, j->count, j->opts, j->out);
    clm_devset_serial_lock(j->serial, 0);
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
        job[i] = (struct compile_job){clm_devset_one_at_a_time(set, i, set->dev[i]),
                                      set->dev[i], patterns, lengths, ids, count, opts,
                                      &db->db[i], CLM_OK, NULL};
    clm_devset_run_each(compile_one, job, sizeof job[0], set->n, NULL);
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
    clm_devset_set_context(db);
    *out = db;
    return CLM_OK;
}

const clm_database *clm_set_database_get(const clm_set_database *db, unsigned i)
{
    return db && i < db->n && clm_devset_early_ready(db->set, i) ? db->db[i] : NULL;
}

void clm_set_database_free(clm_set_database *db)
{
    if (!db) return;
    clm_devset_early_join((clm_device_set *)db->set);
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
    clm_devset_early_join((clm_device_set *)s->db->set);
    for (unsigned i = 0; i < s->n; i++) clm_scratch_free(s->s[i]);
    free(s);
}

clm_scratch *clm_set_scratch_get(const clm_set_scratch *s, unsigned i)
{
    return s && i < s->n && clm_devset_early_ready(s->db->set, i) ? s->s[i] : NULL;
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

void *clm_devset_part_run(void *arg)
{
    struct part *p = arg;
    const clm_database *db = p->db->db[p->dev];
    clm_scratch *s = p->s->s[p->dev];
    size_t n = (size_t)(p->w1 - p->w0);
    int serial = p->s->hook.one_at_a_time ||
                 clm_devset_one_at_a_time(p->db->set, p->dev, p->db->set->dev[p->dev]);
    int st;
    clm_devset_serial_lock(serial, 1);
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
    clm_devset_serial_lock(serial, 0);
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

/* Make p, whose device and owned starts [a, b) are set, search its window of the input. */
void clm_devset_part_place(struct part *p, clm_set_scratch *s, const struct input *in)
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
int clm_devset_deliver(struct part *const *parts, size_t n, const struct input *in,
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
    if (s->db->set->early) return clm_devset_claim_all(s, &in, from, to, cb, ctx, count);
    unsigned n = split(s, from, to, parts);
    for (unsigned i = 0; i < n; i++) {
        clm_devset_part_place(&parts[i], s, &in);
        empty[i] = parts[i].a == parts[i].b;
        pp[i] = &parts[i];
    }
    clm_devset_run_each(clm_devset_part_run, parts, sizeof parts[0], n, empty);
    return clm_devset_deliver(pp, n, &in, cb, ctx, count);
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
    if (flags & ~(CLM_STREAM_COUNT_ONLY | CLM_STREAM_SKIP_LINE_BREAKS))
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
    t->threads = clm_io_threads(NULL);
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
        /* line breaks dropped here, on the host's threads: the devices' shares are cut in
         * text offsets */
        size_t k = t->block - t->fill < len ? t->block - t->fill : len;
        if (t->flags & CLM_STREAM_SKIP_LINE_BREAKS)
            t->fill += clm_parallel_copy_drop_breaks(t->buf + t->fill, p, k, t->threads);
        else {
            memcpy(t->buf + t->fill, p, k);
            t->fill += k;
        }
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

int clm_set_stream_text_offset(clm_set_stream *t, uint64_t *offset)
{
    if (offset)
        *offset = 0;
    if (!t || !offset)
        return clm_fail(CLM_E_INVALID, "clm_set_stream_text_offset: %s is NULL",
                        !t ? "stream" : "offset");
    int st = set_take(t->db, t->s, 1, "clm_set_stream_text_offset");
    if (st != CLM_OK)
        return st;
    *offset = t->base + t->fill;
    set_give(t->s);
    return CLM_OK;
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
