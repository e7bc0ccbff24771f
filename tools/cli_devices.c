/* --devices LIST: clmatch's search across a device set (tools/cli_devices.h). */
#include "cli_devices.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --devices auto: inputs of up to this many bytes go to the host search (CLMATCH_HOST_MAX).
 * No limit: on the H200 machine a 10 GiB text took 1.14 s there, 1.37 s on the CPU and GPU
 * together and 1.55 s with ripgrep (bench/results/h200-v7-2026-11-29-startup.md). */
#define HOST_MAX_DEFAULT UINT64_MAX

/* An input the host search took, for --stats. */
typedef struct {
    char *name;
    uint64_t bytes, matches;
} host_input;

struct cli_set {
    clm_device_set *set;
    clm_set_database *db;
    clm_set_scratch *scratch;
    /* --devices auto: the devices, opened with the patterns (clm_set_open_early) */
    int early;
    int plat[CLM_MAX_SET_DEVICES], dev[CLM_MAX_SET_DEVICES];
    unsigned n;
    const cli_device_opts *o;
    /* --devices auto: the host search (no OpenCL) takes the inputs it can; the devices are
     * listed and opened when an input first needs them (lazy), with the pattern kept here */
    int lazy;
    const char *list;
    uint64_t host_max;
    int host_max_env; /* CLMATCH_HOST_MAX was set */
    clm_host_database *host;
    char *pat;
    size_t pat_len;
    unsigned pat_id;
    clm_compile_options copts;
    int open_status; /* a lazy open that failed: not tried again */
    char *input;     /* the name of the input searched next (cli_set_input) */
    host_input *hosted;
    size_t n_hosted, hosted_cap;
};

/* Append device (p, d) to the list, refusing one that is not installed or already listed. */
static int add_device(const clm_device_info *all, size_t n_all, int p, int d, int *plat,
                      int *dev, unsigned *n, const char *item)
{
    size_t i;
    for (i = 0; i < n_all; i++)
        if (all[i].platform_index == p && all[i].device_index == d) break;
    if (i == n_all) {
        errmsg("--devices: unknown device '%s' (clmatch --list-devices lists them)", item);
        return -1;
    }
    for (unsigned j = 0; j < *n; j++)
        if (plat[j] == p && dev[j] == d) {
            errmsg("--devices: device %d:%d is listed twice", p, d);
            return -1;
        }
    if (*n == CLM_MAX_SET_DEVICES) {
        errmsg("--devices: more than %u devices", CLM_MAX_SET_DEVICES);
        return -1;
    }
    plat[*n] = p;
    dev[*n] = d;
    ++*n;
    return 0;
}

/* The devices LIST names, in its order. 0, or -1 after a message. */
static int parse_list(const char *list, const clm_device_info *all, size_t n_all, int *plat,
                      int *dev, unsigned *n)
{
    *n = 0;
    if (strcmp(list, "default") == 0) { /* clm_device_open's choice: a GPU, else a CPU, else any */
        for (int pass = 0; pass < 3 && *n == 0; pass++)
            for (size_t i = 0; i < n_all && *n == 0; i++)
                if (all[i].available &&
                    (pass == 2 || all[i].type == (pass ? CLM_DEVICE_CPU : CLM_DEVICE_GPU)))
                    add_device(all, n_all, all[i].platform_index, all[i].device_index, plat,
                               dev, n, list);
        if (*n == 0) errmsg("no available OpenCL device on any platform");
        return *n ? 0 : -1;
    }
    if (strcmp(list, "auto") == 0) { /* the first CPU, which starts at once, then the GPUs */
        for (size_t i = 0; i < n_all && *n == 0; i++)
            if (all[i].type == CLM_DEVICE_CPU)
                add_device(all, n_all, all[i].platform_index, all[i].device_index, plat, dev,
                           n, list);
        for (size_t i = 0; i < n_all; i++)
            if (all[i].type == CLM_DEVICE_GPU &&
                add_device(all, n_all, all[i].platform_index, all[i].device_index, plat, dev,
                           n, list) != 0)
                return -1;
        if (*n == 0) errmsg("--devices: no CPU or GPU device");
        return *n ? 0 : -1;
    }
    if (strcmp(list, "all") == 0 || strcmp(list, "gpus") == 0) {
        int gpus = list[0] == 'g';
        for (size_t i = 0; i < n_all; i++)
            if ((!gpus || all[i].type == CLM_DEVICE_GPU) &&
                add_device(all, n_all, all[i].platform_index, all[i].device_index, plat, dev,
                           n, list) != 0)
                return -1;
        if (*n == 0) errmsg("--devices: no %s device", gpus ? "GPU" : "OpenCL");
        return *n ? 0 : -1;
    }
    for (const char *s = list;; s++) {
        size_t len = strcspn(s, ",");
        char item[64], *colon;
        int p, d;
        if (len == 0 || len >= sizeof item) {
            errmsg("--devices: '%s' is not a list of P:D pairs, gpus or all", list);
            return -1;
        }
        memcpy(item, s, len);
        item[len] = '\0';
        colon = strchr(item, ':');
        if (!colon || (*colon = '\0', cli_parse_index(item, &p) != 0) ||
            cli_parse_index(colon + 1, &d) != 0) {
            if (colon) *colon = ':';
            errmsg("--devices: '%s' is not PLATFORM:DEVICE (e.g. 0:1)", item);
            return -1;
        }
        *colon = ':';
        if (add_device(all, n_all, p, d, plat, dev, n, item) != 0) return -1;
        s += len;
        if (!*s) return 0;
    }
}

/* The scratch options the CLI's options ask for. */
static void scratch_options(const cli_device_opts *o, clm_scratch_options *so)
{
    clm_scratch_options_init(so, sizeof *so);
    so->data_path = o->data_path;
    so->max_memory = o->max_memory;
}

int cli_no_device_chosen(const char *devices, const cli_device_opts *o)
{
    return !devices && o->platform < 0 && o->device < 0 && !getenv("CLMATCH_PLATFORM") &&
           !getenv("CLMATCH_DEVICE");
}

/* CLMATCH_HOST_MAX: bytes, with K, M or G; 0 turns the host search off. */
int cli_host_max_env(uint64_t *out, int *set)
{
    return cli_env_bytes("CLMATCH_HOST_MAX", HOST_MAX_DEFAULT, out, set);
}

int cli_device_from_env(uint64_t *out)
{
    int set;
    return cli_env_bytes("CLMATCH_DEVICE_FROM", CLI_DEVICE_FROM, out, &set);
}

int cli_machine_has_gpu(int ask)
{
    static int has = -1;
    clm_device_info *all;
    size_t n;
    if (has >= 0 || !ask)
        return has;
    has = 0;
    if (clm_list_devices(0, sizeof *all, &all, &n) != CLM_OK)
        return has; /* the host search goes on; a device would fail the same way */
    for (size_t i = 0; i < n; i++)
        if (all[i].type == CLM_DEVICE_GPU || all[i].type == CLM_DEVICE_ACCELERATOR)
            has = 1;
    clm_free_device_list(all);
    return has;
}

int cli_env_bytes(const char *name, uint64_t dflt, uint64_t *out, int *set)
{
    const char *v = getenv(name);
    char *end;
    *out = dflt;
    *set = v && *v;
    if (!*set) return 0;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (end != v && *end) {
        const char *u = strchr("KMG", toupper((unsigned char)*end));
        shift = u && *u && !end[1] ? 10u * (unsigned)(u - "KMG" + 1) : 64u;
    }
    if (end == v || !isdigit((unsigned char)v[0]) || errno || shift == 64 ||
        (shift && n > (UINT64_MAX >> shift))) {
        errmsg("%s='%s': expected bytes (a number, K, M or G after it)", name, v);
        return -1;
    }
    *out = (uint64_t)n << shift;
    return 0;
}

/* --devices auto's devices: listed, then opened with the patterns (clm_set_open_early).
 * CLM_OK, or a status after its message (list errors) or with its detail. */
static int open_lazy(cli_set *s, const char *const *patterns, const size_t *lengths,
                     const unsigned *ids, unsigned count, const clm_compile_options *opts)
{
    clm_device_info *all;
    size_t n_all;
    clm_scratch_options so;
    int st = clm_list_devices(0, sizeof *all, &all, &n_all);
    if (st != CLM_OK) {
        if (!s->host) /* else the input that needs them says it, with the detail */
            report_clm("--devices: cannot list the OpenCL devices", st);
        return s->open_status = st;
    }
    int rc = parse_list(s->list, all, n_all, s->plat, s->dev, &s->n);
    clm_free_device_list(all);
    if (rc != 0) return s->open_status = CLM_E_NO_DEVICE;
    scratch_options(s->o, &so);
    double t0 = now_seconds();
    cli_time.opened = 1;
    st = clm_set_open_early(s->plat, s->dev, s->n, patterns, lengths, ids, count, opts, &so,
                            &s->set, &s->db, &s->scratch);
    cli_time.compile += now_seconds() - t0;
    s->lazy = 0;
    if (st != CLM_OK) s->open_status = st;
    return st;
}

/* The devices, for an input the host search does not take: opened on first need. */
static int need_devices(cli_set *s)
{
    if (!s->lazy || s->open_status) return s->open_status;
    const char *p = s->pat;
    return open_lazy(s, &p, &s->pat_len, &s->pat_id, 1, &s->copts);
}

/* Does the host search take an input of len bytes? Then note it for --stats. */
static int to_host(cli_set *s, uint64_t len)
{
    if (!s->host || len > s->host_max) return 0;
    if (s->n_hosted == s->hosted_cap) {
        size_t cap = s->hosted_cap ? 2 * s->hosted_cap : 16;
        host_input *h = realloc(s->hosted, cap * sizeof *h);
        if (!h) return 1; /* --stats leaves it out */
        s->hosted = h;
        s->hosted_cap = cap;
    }
    host_input *h = &s->hosted[s->n_hosted++];
    h->name = s->input ? s->input : strdup("(input)");
    s->input = NULL;
    h->bytes = len;
    h->matches = 0;
    return 1;
}

/* The host search's callback: counts the matches for --stats. */
typedef struct {
    clm_match_cb cb;
    void *ctx;
    uint64_t n;
} host_cb;

static int host_count_cb(const clm_match *m, void *ctx)
{
    host_cb *h = ctx;
    h->n++;
    return h->cb(m, h->ctx);
}

static void host_done(cli_set *s, uint64_t matches)
{
    if (s->n_hosted) s->hosted[s->n_hosted - 1].matches = matches;
}

void cli_set_input(cli_set *set, const char *name)
{
    free(set->input);
    set->input = name ? strdup(name) : NULL;
}

int cli_set_open(const char *list, const cli_device_opts *o, cli_set **out)
{
    clm_device_info *all;
    size_t n_all;
    int plat[CLM_MAX_SET_DEVICES], dev[CLM_MAX_SET_DEVICES];
    unsigned n;
    *out = NULL;
    int early = strcmp(list, "auto") == 0 || strncmp(list, "early:", 6) == 0;
    if (strcmp(list, "auto") == 0 || strcmp(list, "default") == 0) {
        /* listed in cli_set_compile, or later (lazy) */
        cli_set *s = calloc(1, sizeof *s);
        if (!s) {
            errmsg("out of memory");
            return -1;
        }
        s->o = o;
        s->early = s->lazy = 1;
        s->list = list;
        if (cli_host_max_env(&s->host_max, &s->host_max_env) != 0) {
            free(s);
            return -1;
        }
        *out = s;
        return 0;
    }
    if (strncmp(list, "early:", 6) == 0) list += 6;
    int st = clm_list_devices(0, sizeof *all, &all, &n_all);
    if (st != CLM_OK) {
        report_clm("--devices: cannot list the OpenCL devices", st);
        return -1;
    }
    int rc = parse_list(list, all, n_all, plat, dev, &n);
    clm_free_device_list(all);
    if (rc != 0) return -1;
    cli_set *s = calloc(1, sizeof *s);
    if (!s) {
        errmsg("out of memory");
        return -1;
    }
    s->o = o;
    if (early) { /* opened with the patterns, in cli_set_compile */
        s->early = 1;
        s->n = n;
        memcpy(s->plat, plat, sizeof plat);
        memcpy(s->dev, dev, sizeof dev);
        *out = s;
        return 0;
    }
    double t0 = now_seconds();
    cli_time.opened = 1;
    st = clm_device_set_open(plat, dev, n, &s->set);
    cli_time.open = now_seconds() - t0;
    if (st != CLM_OK) {
        free(s);
        report_clm("cannot open the devices", st);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        clm_tuning t;
        if (clm_device_get_tuning(clm_device_set_device(s->set, i), &t, sizeof t) == CLM_OK &&
            t.profile_warning[0])
            errmsg("warning: tuning profile ignored: %s", t.profile_warning);
    }
    *out = s;
    return 0;
}

int cli_set_compile(cli_set *set, const char *const *patterns, const size_t *lengths,
                    const unsigned *ids, unsigned count, const clm_compile_options *opts)
{
    clm_scratch_options so;
    if (set->lazy) {
        /* one literal pattern the host search takes: no OpenCL until an input needs it */
        if (set->host_max > 0 &&
            clm_host_compile(patterns, lengths, ids, count, opts, &set->host) == CLM_OK) {
            size_t len = lengths ? lengths[0] : strlen(patterns[0]);
            if (!(set->pat = malloc(len))) return CLM_E_NOMEM;
            memcpy(set->pat, patterns[0], len);
            set->pat_len = len;
            set->pat_id = ids ? ids[0] : 0;
            clm_compile_options_init(&set->copts, sizeof set->copts);
            if (opts) set->copts = *opts;
            return CLM_OK;
        }
        double t0 = now_seconds();
        int st = open_lazy(set, patterns, lengths, ids, count, opts);
        cli_time.compile = now_seconds() - t0;
        return st;
    }
    scratch_options(set->o, &so);
    double t0 = now_seconds();
    cli_time.opened = 1;
    int st = set->early ? clm_set_open_early(set->plat, set->dev, set->n, patterns, lengths, ids,
                                             count, opts, &so, &set->set, &set->db,
                                             &set->scratch)
                        : clm_set_compile(set->set, patterns, lengths, ids, count, opts,
                                          &set->db);
    cli_time.compile = now_seconds() - t0;
    return st;
}

int cli_set_alloc(cli_set *set, const cli_device_opts *o)
{
    if (set->early) return 0; /* cli_set_compile allocated the scratches */
    clm_scratch_options so;
    scratch_options(o, &so);
    double t0 = now_seconds();
    int st = clm_set_scratch_alloc(set->db, &so, &set->scratch);
    cli_time.scratch = now_seconds() - t0;
    if (st != CLM_OK) {
        report_clm("cannot allocate device buffers", st);
        return -1;
    }
    return 0;
}

int cli_set_scan_fd_range(cli_set *set, int fd, uint64_t off, uint64_t len, clm_match_cb cb,
                          void *ctx)
{
    int st;
    if (to_host(set, len)) {
        host_cb h = {cb, ctx, 0};
        st = clm_host_scan_fd_range(set->host, fd, off, len, host_count_cb, &h);
        host_done(set, h.n);
        return st;
    }
    cli_set_input(set, NULL);
    if ((st = need_devices(set)) != CLM_OK) return st;
    return clm_set_scan_fd_range(set->db, set->scratch, fd, off, len, cb, ctx);
}

int cli_set_scan(cli_set *set, const void *data, size_t len, clm_match_cb cb, void *ctx)
{
    int st;
    if (to_host(set, len)) {
        host_cb h = {cb, ctx, 0};
        st = clm_host_scan(set->host, data, len, host_count_cb, &h);
        host_done(set, h.n);
        return st;
    }
    cli_set_input(set, NULL);
    if ((st = need_devices(set)) != CLM_OK) return st;
    return clm_set_scan(set->db, set->scratch, data, len, cb, ctx);
}

int cli_set_count_fd_range(cli_set *set, int fd, uint64_t off, uint64_t len, uint64_t *n)
{
    int st;
    if (to_host(set, len)) {
        st = clm_host_count_fd_range(set->host, fd, off, len, n);
        host_done(set, st == CLM_OK ? *n : 0);
        return st;
    }
    cli_set_input(set, NULL);
    if ((st = need_devices(set)) != CLM_OK) return st;
    return clm_set_count_fd_range(set->db, set->scratch, fd, off, len, n);
}

static void device_stats(const cli_set *set);

void cli_set_stats(const cli_set *set, double setup_s, double search_s, uint64_t bytes)
{
    for (size_t i = 0; i < set->n_hosted; i++)
        fprintf(stderr, "clmatch: %s: host search (no OpenCL), %" PRIu64 " bytes, %" PRIu64
                " matches\n", set->hosted[i].name ? set->hosted[i].name : "(input)",
                set->hosted[i].bytes, set->hosted[i].matches);
    if (set->set)
        device_stats(set);
    else
        fprintf(stderr, "clmatch: no OpenCL device opened%s\n",
                set->open_status ? " (they failed to open)" : "");
    cli_stats_setup(setup_s, search_s);
    if (search_s > 0)
        fprintf(stderr, " (%" PRIu64 " bytes, %.2f GB/s)", bytes, (double)bytes / search_s / 1e9);
    fputc('\n', stderr);
}

/* --stats: the devices, their shares and what each searched. */
static void device_stats(const cli_set *set)
{
    unsigned n = clm_device_set_count(set->set);
    double speed[CLM_MAX_SET_DEVICES];
    clm_device_set_get_speeds(set->set, speed, n);
    fprintf(stderr, "clmatch: %u devices, shares %s\n", n,
            speed[0] > 0 ? "by their profiles' speed" : "equal (no speed measured)");
    for (unsigned i = 0; i < n; i++) {
        clm_device_info di;
        clm_database_info dbi;
        clm_stats s;
        int state = clm_device_set_state(set->set, i);
        if (state != 1) { /* --devices auto: not up (yet) */
            fprintf(stderr, "clmatch: device %d:%d: %s%s\n", set->plat[i], set->dev[i],
                    state == 0 ? "still coming up, not used" : "failed to come up: ",
                    state == 0 ? "" : clm_last_error());
            continue;
        }
        clm_device_get_info(clm_device_set_device(set->set, i), &di, sizeof di);
        clm_database_get_info(clm_set_database_get(set->db, i), &dbi, sizeof dbi);
        clm_scratch_get_stats(clm_set_scratch_get(set->scratch, i), &s, sizeof s);
        fprintf(stderr, "clmatch: device %d:%d %s: %s, %" PRIu64 " bytes, %" PRIu64
                " matches, kernel %.4f s",
                di.platform_index, di.device_index, di.name, clm_algorithm_name(dbi.algorithm),
                s.bytes, s.matches, s.kernel_seconds);
        if (speed[i] > 0) fprintf(stderr, ", speed %.2f GB/s", speed[i] / 1e9);
        fputc('\n', stderr);
    }
}

uint64_t cli_set_host_max(const cli_set *set, uint64_t dflt)
{
    return !set || !set->lazy ? 0 : set->host_max_env ? set->host_max : dflt;
}

clm_device_set *cli_set_devices(const cli_set *set)
{
    return set && !set->early ? set->set : NULL;
}

void cli_set_close(cli_set *set)
{
    if (!set) return;
    clm_set_scratch_free(set->scratch);
    clm_set_database_free(set->db);
    clm_device_set_close(set->set);
    clm_host_database_free(set->host);
    for (size_t i = 0; i < set->n_hosted; i++) free(set->hosted[i].name);
    free(set->hosted);
    free(set->input);
    free(set->pat);
    free(set);
}

struct cli_stream {
    clm_stream *one;
    clm_set_stream *set;
};

int cli_stream_open(cli_set *set, const clm_database *db, clm_scratch *scratch, unsigned flags,
                    cli_stream **out)
{
    cli_stream *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) {
        errmsg("out of memory");
        return CLM_E_NOMEM;
    }
    /* --devices auto: a stream (a pipe) goes to the devices, opened now if not yet */
    int st = set ? need_devices(set) : CLM_OK;
    if (st == CLM_OK)
        st = set ? clm_set_stream_open(set->db, set->scratch, flags, &s->set)
                 : clm_stream_open(db, scratch, flags, &s->one);
    if (st != CLM_OK) {
        free(s);
        return st;
    }
    *out = s;
    return CLM_OK;
}

int cli_stream_write(cli_stream *s, const void *data, size_t len, clm_match_cb cb, void *ctx)
{
    return s->set ? clm_set_stream_write(s->set, data, len, cb, ctx)
                  : clm_stream_write(s->one, data, len, cb, ctx);
}

int cli_stream_text_offset(cli_stream *s, uint64_t *offset)
{
    return s->set ? clm_set_stream_text_offset(s->set, offset)
                  : clm_stream_text_offset(s->one, offset);
}

int cli_stream_flush(cli_stream *s, clm_match_cb cb, void *ctx)
{
    return s->set ? clm_set_stream_flush(s->set, cb, ctx) : clm_stream_flush(s->one, cb, ctx);
}

clm_stream *cli_stream_one(cli_stream *s)
{
    return s->one;
}

int cli_stream_close(cli_stream *s, clm_match_cb cb, void *ctx, uint64_t *total)
{
    int st = s->set ? clm_set_stream_close(s->set, cb, ctx, total)
                    : clm_stream_close(s->one, cb, ctx, total);
    free(s);
    return st;
}
