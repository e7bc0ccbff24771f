/* devset_impl.h - what the device sets' files share (devset.c: sets, compiles and one input
 * split across the devices; devset_early.c: the early start, whose devices come up while
 * the first ones search and claim chunks of the input). Not installed. */
#ifndef CLM_DEVSET_IMPL_H
#define CLM_DEVSET_IMPL_H

#include <stdatomic.h>

#include "devset.h"
#include "internal.h"

struct early;

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

/* fn(item) for every item of items[0, n) (each `size` bytes) whose skip flag is 0, all at
 * once, a thread each. */
void clm_devset_run_each(void *(*fn)(void *), void *items, size_t size, unsigned n,
                         const unsigned char *skip);
/* A device list's indices: present, 1 to CLM_MAX_SET_DEVICES of them, none below 0 or
 * listed twice (fn names the caller in the message). */
int clm_devset_check_devices(const int *platform_indices, const int *device_indices,
                             unsigned count, const char *fn);
/* Whether device i of the set must search while no other does (PoCL 4 and 5), and the lock
 * that such devices take around their work. */
int clm_devset_one_at_a_time(const clm_device_set *set, unsigned i, const clm_device *dev);
void clm_devset_serial_lock(int serial, int lock);
/* A device's speed from its tuning profile (0: none). */
double clm_devset_profile_speed(const clm_device *dev);
/* The context every part needs around it (lead, tail, fast_count), from the databases. */
void clm_devset_set_context(clm_set_database *db);
/* Search one part (a struct part *) on its device; place it first (part_place). */
void *clm_devset_part_run(void *arg);
void clm_devset_part_place(struct part *p, clm_set_scratch *s, const struct input *in);
/* Call back the parts' matches part after part (count_only: count them). */
int clm_devset_deliver(struct part *const *parts, size_t n, const struct input *in,
                       clm_match_cb cb, void *ctx, uint64_t *count);

/* Early sets (devset_early.c): wait for the devices still coming up; whether device i is
 * ready; free the early state (NULL: nothing). */
void clm_devset_early_join(clm_device_set *set);
int clm_devset_early_ready(const clm_device_set *set, unsigned i);
void clm_devset_early_free(struct early *e);
/* Hold an early set's speeds still while a late device may set its own (no-op otherwise). */
void clm_devset_early_lock(const clm_device_set *set, int lock);
/* An early set's search: chunks claimed by the ready devices. */
int clm_devset_claim_all(clm_set_scratch *s, const struct input *in, uint64_t from,
                         uint64_t to, clm_match_cb cb, void *ctx, uint64_t *count);

#endif
