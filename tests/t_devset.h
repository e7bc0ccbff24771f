/* t_devset.h - what tests/test_devset.c lends tests/test_early.c: a pattern set searched by a
 * device set, checked through every entry point against the CPU reference. */
#ifndef T_DEVSET_H
#define T_DEVSET_H

#include "devset.h"
#include "t.h"
#include "t_ref.h"

/* One pattern set compiled for the set, with the CPU reference's view of it. */
struct dcase {
    clm_device_set *set;
    clm_set_database *db;
    clm_set_scratch *s;
    t_fset fs;
    struct clm_set_hook hook;
    t_matches want, got, one;
};

/* text[0, n) through every entry point (scan, count, files, ranges, streams), against the
 * reference and against device 0 alone. */
void dcase_check(struct dcase *c, const unsigned char *text, size_t n, const char *desc);
/* Free c's scratch, database and matches (not its set). */
void dcase_close(struct dcase *c);
/* The first platform whose devices 0 to need - 1 are CPUs (PoCL's, which POCL_DEVICES
 * multiplies), or -1: neither platform 0 nor the default device is assumed to be one. */
int t_cpu_platform(unsigned need);
/* The devices of a set of `need`: the first `need` of CLMATCH_TEST_SET ("P:D,P:D,...", e.g.
 * a CPU and GPUs on a GPU machine) when it is set, else devices 0 to need - 1 of
 * t_cpu_platform. 1, or 0 after a note (no such platform: skip) or a failure (bad list). */
int t_set_devices(unsigned need, int *plat, int *dev);
/* Write text[0, n) to a fresh file; returns its fd (unlinked already) or -1. */
int temp_file(const unsigned char *text, size_t n);

#endif
