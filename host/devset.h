/* devset.h - what the tests may set on a device set's scratch (not installed). */
#ifndef CLM_DEVSET_H
#define CLM_DEVSET_H

#include <stdint.h>

#include "clmatch.h"

/* Owned bytes a device must get at least before a set splits an input onto it: below that
 * the transfer and launch costs outweigh the split. */
#define CLM_SET_MIN_PART ((size_t)1 << 20)

struct clm_set_hook {
    size_t min_part;       /* CLM_SET_MIN_PART unless a test splits tiny inputs (1) */
    unsigned fail_device;  /* 1 + the device that fails mid-scan (0: none) ... */
    uint64_t fail_after;   /* ... once it has found this many matches of its part */
    size_t stream_block;   /* input a stream holds before it searches (0: the default) */
    int one_at_a_time;     /* 1: the devices search one at a time, as on PoCL 4 and 5 */
};

/* Replace the scratch's hook (a scratch starts with {CLM_SET_MIN_PART, 0, 0, 0, 0}). */
void clm_set_scratch_hook(clm_set_scratch *s, const struct clm_set_hook *hook);

/* The most parts of one call that searched at once, over the scratch's life. */
unsigned clm_set_scratch_most_running(const clm_set_scratch *s);

/* Whether an OpenCL platform version is a PoCL whose devices of one set must search one at a
 * time (devset.c says why). */
int clm_pocl_release_race(const char *platform_version);

#endif
