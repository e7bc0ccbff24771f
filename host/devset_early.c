/* devset_early.c - early device sets (clm_set_open_early): the first devices search at once
 * while the others come up on threads of their own; each ready device claims the next
 * chunk of the input in text order, and the chunks are delivered in that order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devset_impl.h"

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

int clm_devset_early_ready(const clm_device_set *set, unsigned i)
{
    if (!set->early) return 1;
    struct early *e = set->early;
    pthread_mutex_lock(&e->mu);
    int ready = e->state[i] == 1;
    pthread_mutex_unlock(&e->mu);
    return ready;
}

void clm_devset_early_lock(const clm_device_set *set, int lock)
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
    int serial = st == CLM_OK && clm_devset_one_at_a_time(e->set, i, dev);
    /* its build may load kernel modules while another searches */
    clm_devset_serial_lock(serial, 1);
    if (st == CLM_OK)
        st = clm_compile(dev, (const char *const *)e->patterns, e->lengths, e->ids, e->count,
                         e->has_copts ? &e->copts : NULL, &db);
    if (st == CLM_OK) st = clm_scratch_alloc(db, e->has_sopts ? &e->sopts : NULL, &s);
    clm_devset_serial_lock(serial, 0);
    pthread_mutex_lock(&e->mu);
    if (st == CLM_OK) {
        e->set->dev[i] = dev;
        e->set->speed[i] = clm_devset_profile_speed(dev);
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

void clm_devset_early_join(clm_device_set *set)
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

void clm_devset_early_free(struct early *e)
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
    int st = clm_devset_check_devices(platform_indices, device_indices, count,
                                      "clm_set_open_early");
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
        clm_devset_early_free(e);
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
        clm_devset_set_context(db);
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
        clm_devset_part_place(p, c->s, c->in);
        clm_devset_part_run(p);
        pthread_mutex_lock(&e->mu);
        if (p->status < 0) {
            c->failed = 1;
            pthread_cond_broadcast(&e->cv);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

int clm_devset_claim_all(clm_set_scratch *s, const struct input *in, uint64_t from, uint64_t to,
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
    clm_devset_run_each(claim_loop, w, sizeof w[0], set->n, skip);
    int st;
    if (c.nomem) {
        st = clm_fail(CLM_E_NOMEM, "out of memory claiming a chunk");
        for (size_t i = 0; i < c.n; i++) free(c.chunk[i]->v);
    } else {
        st = clm_devset_deliver(c.chunk, c.n, in, cb, ctx, count);
    }
    for (size_t i = 0; i < c.n; i++) free(c.chunk[i]);
    free(c.chunk);
    return st;
}

