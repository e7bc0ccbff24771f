/* oclgrind_layout.c - reproduces the uninitialised-read reports oclgrind 21.10 gives for the
 * packed DNA DFA on the pinned data path (tests/run.sh, test-oclgrind), outside the test suite.
 * A database of two DNA patterns (packed, dfa), then scratches of the slab sizes given, each
 * scanning the same 700-byte text with planted matches, counts checked against a host count.
 * With `7 61 67 130` oclgrind reports reads of the packed slab as uninitialised during the last
 * scratch while every count is right; the subsets tried report nothing (67 130, 7 61 67, ...),
 * and with a library patched not to allocate the pinned path's staging buffer (no kernel
 * reads it; the host copy then came from the heap) the same run reports nothing either.
 *
 * Build and run (Debian's oclgrind):
 *   gcc -std=c11 -O1 -Iinclude -o /tmp/olay bench/experiments/oclgrind_layout.c \
 *       build/libclmatch.a -lOpenCL -lpthread -lm
 *   CLMATCH_DATA_PATH=pinned CLMATCH_CACHE=off oclgrind --uninitialized /tmp/olay 7 61 67 130
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmatch.h"

static int count_cb(const clm_match *m, void *ctx)
{
    (void)m;
    ++*(unsigned long *)ctx;
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const pats[2] = {"GATTACAGATTAC", "ACGTA"};
    static const size_t lens[2] = {13, 5};
    const size_t n = 700;
    unsigned char *t = malloc(n);
    if (!t)
        return 1;
    srand(1);
    for (size_t i = 0; i < n; i++)
        t[i] = (unsigned char)"ACGTN"[rand() % 5];
    for (size_t i = 3; i + 13 < n; i += 37)
        memcpy(t + i, pats[(i / 37) % 2 ? 0 : 1], lens[(i / 37) % 2 ? 0 : 1]);
    unsigned long want = 0;
    for (int q = 0; q < 2; q++)
        for (size_t i = 0; i + lens[q] <= n; i++)
            want += !memcmp(t + i, pats[q], lens[q]);

    clm_device *dev = NULL;
    clm_database *db = NULL;
    clm_compile_options o;
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = CLM_ALGO_DFA;
    o.flags = CLM_DNA;
    o.packing = CLM_ON;
    if (clm_device_open(-1, -1, &dev) != CLM_OK ||
        clm_compile(dev, pats, lens, NULL, 2, &o, &db) != CLM_OK) {
        fprintf(stderr, "%s\n", clm_last_error());
        return 1;
    }
    int bad = 0;
    clm_scratch *s = NULL;
    for (int i = 1; i < argc; i++) {
        clm_scratch_options so;
        clm_scratch_options_init(&so, sizeof so);
        so.slab_bytes = (size_t)atol(argv[i]);
        clm_scratch_free(s); /* scratches one after another, as the test makes them */
        s = NULL;
        unsigned long got = 0;
        if (clm_scratch_alloc(db, &so, &s) != CLM_OK || clm_scan(db, s, t, n, count_cb, &got)) {
            fprintf(stderr, "%s\n", clm_last_error());
            return 1;
        }
        fprintf(stderr, "slab %zu: %lu matches, host %lu\n", so.slab_bytes, got, want);
        bad |= got != want;
    }
    clm_scratch_free(s);
    clm_database_free(db);
    clm_device_close(dev);
    free(t);
    return bad;
}
