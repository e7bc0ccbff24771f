/*
 * Early sets (clm_set_open_early): device 0 searches at once while device 1 comes up on a
 * thread of its own and joins when ready. Whatever the timing, the matches and their order
 * are those of one device and of the CPU reference. Each test runs in a child with two PoCL
 * devices (POCL_DEVICES="pthread pthread") and CLMATCH_TEST_EARLY making device 1 join
 * mid-input (after a few chunks), never (it fails to open), or only after the inputs (never
 * needed): random text, matches straddling chunk edges, all-match text, tiny inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_devset.h"

/* An early set of the first CPU platform with two devices and one pattern, with the chunks of
 * `chunk` bytes and more; or none (skip). */
static int open_early(struct dcase *c, const unsigned char *pat, size_t m, size_t chunk)
{
    int plat[2], dev[2];
    memset(c, 0, sizeof *c);
    if (!t_set_devices(2, plat, dev)) return 0;
    static const unsigned char *pats[1];
    static size_t lens[1];
    pats[0] = pat;
    lens[0] = m;
    c->fs = (t_fset){pats, lens, NULL, 1, 0, 0};
    if (!EXPECT_RC(clm_set_open_early(plat, dev, 2, (const char *const *)pats, lens, NULL, 1,
                                      NULL, NULL, &c->set, &c->db, &c->s), CLM_OK))
        return 0;
    c->hook = (struct clm_set_hook){chunk, 0, 0, 0, 0};
    clm_set_scratch_hook(c->s, &c->hook);
    return 1;
}

static void close_early(struct dcase *c)
{
    clm_device_set *set = c->set;
    dcase_close(c);
    clm_device_set_close(set);
}

/* Bytes device i searched so far (0 while it is not ready). */
static uint64_t searched(const struct dcase *c, unsigned i)
{
    clm_stats st;
    clm_scratch *s = clm_set_scratch_get(c->s, i);
    if (!s || clm_scratch_get_stats(s, &st, sizeof st) != CLM_OK) return 0;
    return st.bytes;
}

/* Random text, all-match text (p repeats with this period), an occurrence around every chunk
 * edge of the first chunks, and tiny inputs: every entry point against the reference. */
static void check_texts(struct dcase *c, const unsigned char *p, size_t m, size_t period,
                        t_rng *r)
{
    size_t n = 100000;
    unsigned char *text = t_random_text(r, n, 4);
    dcase_check(c, text, n, "random text");
    for (size_t i = 0; i < n; i++) text[i] = p[i % period];
    dcase_check(c, text, n, "all-match text");
    /* chunks of 256 bytes and more start at multiples of 256 early on */
    for (size_t at = 256 - m; at <= 256 + 1 && !t_failures(); at++) {
        memset(text, 'x', n);
        memcpy(text + at, p, m);
        memcpy(text + at + 512, p, m);
        char desc[64];
        snprintf(desc, sizeof desc, "an occurrence at %zu", at);
        dcase_check(c, text, 4096, desc);
    }
    for (size_t len = 0; len <= 2 * m + 2 && !t_failures(); len++) {
        for (size_t i = 0; i < len; i++) text[i] = p[i % m];
        char desc[64];
        snprintf(desc, sizeof desc, "a tiny input of %zu bytes", len);
        dcase_check(c, text, len, desc);
    }
    free(text);
}

static int count_calls(const clm_match *m, void *ctx)
{
    (void)m;
    ++*(size_t *)ctx;
    return 0;
}

/* CLMATCH_TEST_EARLY=1:3: device 1 comes up only after 3 chunks, and joins that scan. */
static int child_join(const char *arg)
{
    (void)arg;
    static const unsigned char p[] = "aaaa";
    struct dcase c;
    t_rng r;
    t_rng_init(&r, "early.join", 0);
    if (open_early(&c, p, 4, 256)) {
        if (clm_device_set_state(c.set, 1) != 0)
            T_FAIL("device 1 is up before its 3 chunks were claimed");
        if (clm_set_scratch_get(c.s, 1) || clm_set_database_get(c.db, 1) ||
            clm_device_set_device(c.set, 1))
            T_FAIL("device 1's parts are given out before it is ready");
        size_t n = 300000;
        unsigned char *text = t_random_text(&r, n, 2); /* "ab" text: many matches of aaaa */
        dcase_check(&c, text, n, "the scan device 1 joins");
        EXPECT_RC(clm_device_set_state(c.set, 1), 1);
        if (!searched(&c, 0) || !searched(&c, 1))
            T_FAIL("both devices should have searched: %llu and %llu bytes",
                   (unsigned long long)searched(&c, 0), (unsigned long long)searched(&c, 1));
        /* either device failing mid-scan fails the call, and nothing is called back */
        memset(text, 'a', n);
        for (unsigned d = 0; d < 2 && !t_failures(); d++) {
            size_t calls = 0;
            c.hook.fail_device = d + 1;
            c.hook.fail_after = 10;
            clm_set_scratch_hook(c.s, &c.hook);
            EXPECT_RC(clm_set_scan(c.db, c.s, text, n, count_calls, &calls), CLM_E_OPENCL);
            if (calls) T_FAIL("device %u failed, yet %zu matches were called back", d, calls);
        }
        c.hook.fail_device = 0;
        clm_set_scratch_hook(c.s, &c.hook);
        free(text);
        check_texts(&c, p, 4, 1, &r);
    }
    close_early(&c);
    return t_failures();
}

/* CLMATCH_TEST_EARLY=1:1 with one chunk's bytes left once device 0 has claimed its first:
 * device 1 takes them, on any machine (once up, device 0 would claim them as fast). Fresh
 * sets, as the hook holds device 1 back once per set. */
static int child_join_rest(const char *arg)
{
    (void)arg;
    static const unsigned char p[] = "abab";
    t_rng r;
    t_rng_init(&r, "early.join_rest", 0);
    size_t n = 256 + 300;
    unsigned char text[256 + 300];
    t_fill(&r, text, n, 2);
    for (int trial = 0; trial < 8 && !t_failures(); trial++) {
        struct dcase c;
        if (!open_early(&c, p, 4, 256)) {
            close_early(&c);
            break;
        }
        char desc[64];
        snprintf(desc, sizeof desc, "trial %d", trial);
        dcase_check(&c, text, n, desc);
        if (searched(&c, 1) == 0 || searched(&c, 0) == 0)
            T_FAIL("%s: device 0 searched %llu bytes, device 1 %llu: both should have", desc,
                   (unsigned long long)searched(&c, 0), (unsigned long long)searched(&c, 1));
        close_early(&c);
    }
    return t_failures();
}

/* CLMATCH_TEST_EARLY=1:fail: device 1 never comes up; device 0 does everything and the
 * failure is kept for clm_device_set_state. */
static int child_fail(const char *arg)
{
    (void)arg;
    static const unsigned char p[] = "ACGTACGTACGTA";
    struct dcase c;
    t_rng r;
    t_rng_init(&r, "early.fail", 0);
    if (open_early(&c, p, 13, 256)) {
        check_texts(&c, p, 13, 4, &r);
        int st;
        while ((st = clm_device_set_state(c.set, 1)) == 0) usleep(1000);
        EXPECT_RC(st, CLM_E_OPENCL);
        if (!strstr(clm_last_error(), "injected") || !strstr(clm_last_error(), "did not come"))
            T_FAIL("the failure's detail is lost: %s", clm_last_error());
        if (clm_set_scratch_get(c.s, 1)) T_FAIL("device 1 failed, yet has a scratch");
        check_texts(&c, p, 13, 4, &r);
    }
    close_early(&c);
    return t_failures();
}

/* CLMATCH_TEST_EARLY=1:1000000: device 1 waits for more chunks than the tests claim, so
 * device 0 finishes every input alone (as a CPU finishes small inputs before a GPU is up);
 * the set closes without waiting for it. Then the refusals of an early set. */
static int child_alone(const char *arg)
{
    (void)arg;
    static const unsigned char p[] = "abc";
    struct dcase c;
    t_rng r;
    t_rng_init(&r, "early.alone", 0);
    if (open_early(&c, p, 3, 1)) {
        check_texts(&c, p, 3, 3, &r);
        EXPECT_RC(clm_device_set_state(c.set, 1), 0);
        if (searched(&c, 1)) T_FAIL("device 1 searched before it came up");
        clm_set_database *db2 = NULL;
        clm_set_scratch *s2 = NULL;
        const char *pats[] = {"abc"};
        EXPECT_RC(clm_set_compile(c.set, pats, NULL, NULL, 1, NULL, &db2), CLM_E_INVALID);
        EXPECT_RC(clm_set_scratch_alloc(c.db, NULL, &s2), CLM_E_INVALID);
        EXPECT_RC(clm_device_set_calibrate(c.set, 0, NULL), CLM_E_INVALID);
        EXPECT_RC(clm_device_set_state(c.set, 2), CLM_E_INVALID);
        if (db2 || s2) T_FAIL("a refused call returned something");
    }
    close_early(&c);
    /* no pattern: device 0's compile fails, and nothing is returned */
    clm_device_set *set = (clm_device_set *)&c;
    clm_set_database *db = (clm_set_database *)&c;
    clm_set_scratch *s = (clm_set_scratch *)&c;
    int cpu = t_cpu_platform(2), plat[] = {cpu, cpu}, dev[] = {0, 1};
    const char *none[] = {"abc"};
    EXPECT_RC(clm_set_open_early(plat, dev, 2, none, NULL, NULL, 0, NULL, NULL, &set, &db, &s),
              CLM_E_INVALID);
    if (set || db || s) T_FAIL("a failed clm_set_open_early returned something");
    EXPECT_RC(clm_set_open_early(plat, dev, 2, none, NULL, NULL, 1, NULL, NULL, NULL, &db, &s),
              CLM_E_INVALID);
    int twice[] = {0, 0};
    EXPECT_RC(clm_set_open_early(plat, twice, 2, none, NULL, NULL, 1, NULL, NULL, &set, &db,
                                 &s), CLM_E_INVALID);
    return t_failures();
}

static const char *const join_env[] = {"POCL_DEVICES=pthread pthread", "CLMATCH_TEST_EARLY=1:3",
                                       NULL};
static const char *const join_rest_env[] = {"POCL_DEVICES=pthread pthread",
                                            "CLMATCH_TEST_EARLY=1:1", NULL};
static const char *const fail_env[] = {"POCL_DEVICES=pthread pthread",
                                       "CLMATCH_TEST_EARLY=1:fail", NULL};
static const char *const alone_env[] = {"POCL_DEVICES=pthread pthread",
                                        "CLMATCH_TEST_EARLY=1:1000000", NULL};

struct early_test {
    const char *name, *child;
    t_child_fn fn;
    const char *const *env;
};

static void run_child_test(const void *arg)
{
    const struct early_test *t = arg;
    int rc = t_run_child(t->child, NULL, t->env);
    if (rc != 0) T_FAIL("child %s failed (%d)", t->child, rc);
}

void register_early_tests(void)
{
    static const struct early_test tests[] = {
        {"early.join", "early_join", child_join, join_env},
        {"early.join_rest", "early_join_rest", child_join_rest, join_rest_env},
        {"early.fail", "early_fail", child_fail, fail_env},
        {"early.alone", "early_alone", child_alone, alone_env},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        t_register_child(tests[i].child, tests[i].fn);
        t_register(tests[i].name, run_child_test, &tests[i], 0);
    }
}
