/*
 * The program cache (CLMATCH_CACHE_DIR, CLMATCH_CACHE=off) and kernel sources from
 * CLMATCH_KERNEL_DIR. Each scenario runs in a child process with its own environment, so the
 * in-memory state of this process and the suite's cache directory are not involved.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"

/* Programs used by the cache scenarios: one per algorithm, lengths used nowhere else. */
static const struct { clm_algorithm algo; unsigned alpha; size_t m; } progs[] = {
    {CLM_ALGO_NAIVE, 4, 23}, {CLM_ALGO_KMP, 26, 29}, {CLM_ALGO_DFA, 256, 37}};
#define NPROGS (sizeof progs / sizeof progs[0])

/* A child that hangs (blocked on a FIFO) is killed by SIGALRM and the test fails. */
#define CHILD_ALARM_S 300

/* Compile program k on dev, check a scan against the reference; *hit gets cache_hit.
 * Returns the compile status (CLM_OK when the scan also matched). */
static int check_prog(clm_device *dev, size_t k, int *hit)
{
    size_t m = progs[k].m, n = 30000, i;
    unsigned char *p = t_pattern(progs[k].alpha, m), *text = malloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_compile_options o;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info info;
    t_matches got, want;
    t_rng r;
    char diff[512];
    int rc;

    if (!text) abort();
    t_matches_init(&got);
    t_matches_init(&want);
    t_rng_init(&r, "cache-text", k);
    t_fill(&r, text, n, progs[k].alpha);
    for (i = 0; i < 20; i++) memcpy(text + t_below(&r, n - m), p, m);
    t_reference(text, n, &ps, &want);
    clm_compile_options_init(&o);
    o.algorithm = progs[k].algo;
    o.table_memory = CLM_TABLE_GLOBAL;
    *hit = -1;
    rc = clm_compile(dev, (const char *const *)&pp, &m, NULL, 1, &o, &db);
    if (rc != CLM_OK) goto out;
    if (EXPECT_RC(clm_database_get_info(db, &info), CLM_OK)) *hit = info.cache_hit;
    if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        && EXPECT_RC(clm_scan(db, s, text, n, t_collect, &got), CLM_OK)
        && t_matches_diff(&got, &want, diff, sizeof diff))
        rc = T_FAIL("%s m=%zu: %s", clm_algorithm_name(progs[k].algo), m, diff) - 100;
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    t_matches_free(&want);
    free(text);
    free(p);
    return rc;
}

static clm_device *open_dev(void)
{
    clm_device *d = NULL;
    if (!EXPECT_RC(clm_device_open(-1, -1, &d), CLM_OK)) return NULL;
    return d;
}

/* Compile every program on a new device handle; expect each cache_hit to be want_hit
 * (-1: don't care). */
static int round_all(const char *what, int want_hit)
{
    clm_device *d = open_dev();
    size_t k;
    if (!d) return 0;
    for (k = 0; k < NPROGS; k++) {
        int hit;
        int rc = check_prog(d, k, &hit);
        if (!EXPECT_RC(rc, CLM_OK)) {
            t_note("%s: %s", what, clm_algorithm_name(progs[k].algo));
        } else if (want_hit >= 0 && hit != want_hit) {
            T_FAIL("%s: %s m=%zu has cache_hit %d, expected %d", what,
                   clm_algorithm_name(progs[k].algo), progs[k].m, hit, want_hit);
        }
    }
    clm_device_close(d);
    return 1;
}

static size_t count_files(const char *dir, size_t *tmp_files)
{
    char **list;
    size_t n = t_list_files(dir, &list), i;
    if (tmp_files) {
        *tmp_files = 0;
        for (i = 0; i < n; i++)
            if (strstr(list[i], ".tmp")) ++*tmp_files;
    }
    t_free_list(list, n);
    return n;
}

/* Damage a file in one of four ways. */
static void corrupt(const char *path, int how)
{
    FILE *f;
    struct stat st;
    long size;
    if (stat(path, &st) != 0) return;
    size = (long)st.st_size;
    switch (how) {
    case 0: /* truncated to half */
        if (truncate(path, size / 2) != 0) T_FAIL("truncate %s", path);
        break;
    case 1: /* bytes flipped through the body and at the end */
        if ((f = fopen(path, "r+b")) != NULL) {
            long at[4];
            int i;
            at[0] = size / 3;
            at[1] = size / 2;
            at[2] = 2 * size / 3;
            at[3] = size - 1;
            for (i = 0; i < 4; i++) {
                int c;
                if (at[i] < 0 || fseek(f, at[i], SEEK_SET) != 0 || (c = fgetc(f)) == EOF) continue;
                fseek(f, at[i], SEEK_SET);
                fputc(c ^ 0x5a, f);
            }
            fclose(f);
        }
        break;
    case 2: /* a garbage header */
        if ((f = fopen(path, "r+b")) != NULL) {
            fputs("GARBAGE HEADER, NOT A CLMATCH CACHE FILE AT ALL........", f);
            fclose(f);
        }
        break;
    default: /* empty */
        if ((f = fopen(path, "wb")) != NULL) fclose(f);
        break;
    }
}

/* CLMATCH_CACHE_DIR = arg, empty at the start. */
static int child_cache(const char *dir)
{
    clm_device *d;
    size_t k, nfiles, tmp, i;
    int round;

    if (!EXPECT(count_files(dir, NULL) == 0)) return 1;
    /* Cold: built from source, then files appear; the same handle then hits its memory. */
    if (!(d = open_dev())) return 1;
    for (k = 0; k < NPROGS; k++) {
        int hit;
        if (EXPECT_RC(check_prog(d, k, &hit), CLM_OK) && !EXPECT(hit == 0))
            t_note("cold compile of %s reported cache_hit %d", clm_algorithm_name(progs[k].algo), hit);
    }
    nfiles = count_files(dir, &tmp);
    if (!EXPECT(nfiles >= NPROGS)) t_note("%zu files in the cache directory after %zu builds",
                                          nfiles, (size_t)NPROGS);
    EXPECT(tmp == 0);
    for (k = 0; k < NPROGS; k++) {
        int hit;
        if (EXPECT_RC(check_prog(d, k, &hit), CLM_OK) && !EXPECT(hit == 1))
            t_note("second compile on one handle: cache_hit %d", hit);
    }
    clm_device_close(d);
    /* A new handle: from disk. */
    round_all("new device handle, warm disk cache", 1);

    /* Damaged files must be rebuilt (correctly) and rewritten valid. */
    for (round = 0; round < 4; round++) {
        char **list;
        size_t n = t_list_files(dir, &list);
        char what[64];
        for (i = 0; i < n; i++) corrupt(list[i], (int)(i + (size_t)round) % 4);
        t_free_list(list, n);
        snprintf(what, sizeof what, "after corruption round %d", round);
        round_all(what, -1);
        snprintf(what, sizeof what, "reload after corruption round %d", round);
        round_all(what, 1);
    }
    EXPECT(count_files(dir, &tmp) == nfiles);
    EXPECT(tmp == 0);
    return 0;
}

/* Two threads with their own device handles build the same new program at once into one
 * cache directory: both work, and the entry left on disk is valid. The handles are opened
 * before the threads start: PoCL 3.1 crashes when its first initialisation runs in two
 * threads at once (plain clGetPlatformIDs + clGetDeviceInfo), which is not what this tests. */
typedef struct {
    clm_device *dev;
    int rc;
} race_job;

static void *race_thread(void *arg)
{
    race_job *j = arg;
    int hit;
    j->rc = check_prog(j->dev, 2, &hit);
    return NULL;
}

static int child_cache_race(const char *dir)
{
    pthread_t th[2];
    race_job jobs[2];
    int started = 0, i;
    size_t tmp;
    for (i = 0; i < 2; i++) {
        jobs[i].rc = -99;
        if (!(jobs[i].dev = open_dev())) return 1;
    }
    while (started < 2 && EXPECT(pthread_create(&th[started], NULL, race_thread, &jobs[started]) == 0))
        started++;
    for (i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        EXPECT_RC(jobs[i].rc, CLM_OK);
    }
    for (i = 0; i < 2; i++) clm_device_close(jobs[i].dev);
    {
        clm_device *d = open_dev();
        int hit;
        if (d && EXPECT_RC(check_prog(d, 2, &hit), CLM_OK) && !EXPECT(hit == 1))
            t_note("after two concurrent builds, a new handle got cache_hit %d", hit);
        clm_device_close(d);
    }
    count_files(dir, &tmp);
    EXPECT(tmp == 0);
    return 0;
}

/* CLMATCH_CACHE=off: nothing on disk, no disk hits. */
static int child_cache_off(const char *dir)
{
    round_all("CLMATCH_CACHE=off", 0);
    round_all("CLMATCH_CACHE=off, second handle", 0);
    if (!EXPECT(count_files(dir, NULL) == 0)) t_note("files were written to %s", dir);
    return 0;
}

static void run_cache_child(const char *child, const char *extra_env)
{
    char *dir = t_tempdir("cache");
    char env_dir[4200];
    const char *env[4];
    int rc;
    REQUIRE(dir != NULL);
    snprintf(env_dir, sizeof env_dir, "CLMATCH_CACHE_DIR=%s", dir);
    env[0] = env_dir;
    env[1] = extra_env ? extra_env : "CLMATCH_CACHE";
    env[2] = "CLMATCH_KERNEL_DIR";
    env[3] = NULL;
    rc = t_run_child(child, dir, env);
    if (rc != 0) T_FAIL("child %s failed (status %d; see # lines above)", child, rc);
    t_rmtree(dir);
    free(dir);
}

static void test_cache_disk(const void *arg) { (void)arg; run_cache_child("cache", NULL); }
static void test_cache_race(const void *arg) { (void)arg; run_cache_child("cache_race", NULL); }
static void test_cache_off(const void *arg)
{
    (void)arg;
    run_cache_child("cache_off", "CLMATCH_CACHE=off");
}

/* ---- CLMATCH_KERNEL_DIR ------------------------------------------------------------------ */

#define BROKEN_IDENT "clmatch_test_undeclared_identifier"

/* kmp.cl is broken: compiling KMP fails with the build log in the detail, even though the
 * cache directory holds a program built from the intact sources. */
static int child_kernel_broken(const char *arg)
{
    clm_device *d = open_dev();
    int hit, attempt;
    (void)arg;
    if (!d) return 1;
    for (attempt = 0; attempt < 2; attempt++) { /* a failed build is not cached */
        if (EXPECT_RC(check_prog(d, 1, &hit), CLM_E_BUILD)
            && !EXPECT(strstr(clm_last_error(), BROKEN_IDENT) != NULL))
            t_note("the detail lacks the build log: \"%.400s\"", clm_last_error());
    }
    clm_device_close(d);
    return 0;
}

/* An intact copy of the sources gives the same results. */
static int child_kernel_ok(const char *arg)
{
    (void)arg;
    round_all("CLMATCH_KERNEL_DIR with intact sources", -1);
    return 0;
}

/* A directory without the sources: CLM_E_IO from whichever call reads them. */
static int child_kernel_missing(const char *arg)
{
    clm_device *d = NULL;
    int rc = clm_device_open(-1, -1, &d), hit;
    (void)arg;
    if (rc == CLM_OK) rc = check_prog(d, 0, &hit);
    EXPECT_RC(rc, CLM_E_IO);
    clm_device_close(d);
    return 0;
}

/* kmp.cl is a FIFO: compiling KMP fails promptly with CLM_E_IO naming it (reading it used to
 * wait for a writer forever). */
static int child_kernel_fifo(const char *arg)
{
    clm_device *d = open_dev();
    int hit;
    (void)arg;
    alarm(CHILD_ALARM_S);
    if (!d) return 1;
    if (EXPECT_RC(check_prog(d, 1, &hit), CLM_E_IO)
        && !EXPECT(strstr(clm_last_error(), "kmp.cl") && strstr(clm_last_error(), "FIFO")))
        t_note("detail: \"%.400s\"", clm_last_error());
    clm_device_close(d);
    return 0;
}

/* Warm a cache directory with the intact built-in sources. */
static int child_warm(const char *arg)
{
    (void)arg;
    round_all("warming the cache", -1);
    return 0;
}

static const char *cl_dir(void)
{
    const char *d = getenv("CLMATCH_TEST_CL_DIR");
    return d && *d ? d : "cl";
}

static void test_kernel_dir(const void *arg)
{
    static const char *const files[] = {"contract.h", "common.cl", "naive.cl", "kmp.cl", "dfa.cl",
                                        "kernels.cl"};
    char *broken = t_tempdir("kernels-broken"), *intact = t_tempdir("kernels"),
         *cache = t_tempdir("kernel-cache"), *fifo = t_tempdir("kernels-fifo");
    char env_cache[4200], env_kdir[4200];
    const char *env[4];
    char **list = NULL;
    size_t n = 0, i;
    int rc, found_kmp = 0;
    (void)arg;

    if (!EXPECT(broken && intact && cache && fifo)) goto out;
    /* Copy every kernel source (.cl, and the .h they share with the host). */
    n = t_list_files(cl_dir(), &list);
    for (i = 0; i < n; i++) {
        const char *base = strrchr(list[i], '/');
        char to[4200];
        size_t bl;
        base = base ? base + 1 : list[i];
        bl = strlen(base);
        if ((bl < 3 || strcmp(base + bl - 3, ".cl") != 0) && (bl < 2 || strcmp(base + bl - 2, ".h") != 0))
            continue;
        snprintf(to, sizeof to, "%s/%s", intact, base);
        EXPECT(t_copy_file(list[i], to) == 0);
        snprintf(to, sizeof to, "%s/%s", fifo, base);
        EXPECT(strcmp(base, "kmp.cl") == 0 ? mkfifo(to, 0644) == 0 : t_copy_file(list[i], to) == 0);
        snprintf(to, sizeof to, "%s/%s", broken, base);
        EXPECT(t_copy_file(list[i], to) == 0);
        if (strcmp(base, "kmp.cl") == 0) {
            FILE *f = fopen(to, "ab");
            found_kmp = 1;
            if (EXPECT(f != NULL)) {
                fputs("\nvoid clmatch_test_broken(void) { " BROKEN_IDENT " = 1; }\n", f);
                fclose(f);
            }
        }
    }
    if (!found_kmp) {
        T_FAIL("no kmp.cl under %s (set CLMATCH_TEST_CL_DIR to the kernel sources)", cl_dir());
        goto out;
    }
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", intact, files[i]);
        if (stat(p, &st) != 0) t_note("%s not found in %s", files[i], cl_dir());
    }

    snprintf(env_cache, sizeof env_cache, "CLMATCH_CACHE_DIR=%s", cache);
    env[0] = env_cache;
    env[1] = "CLMATCH_CACHE";
    env[3] = NULL;

    env[2] = "CLMATCH_KERNEL_DIR";
    if ((rc = t_run_child("warm", NULL, env)) != 0) T_FAIL("warming the cache failed (%d)", rc);

    snprintf(env_kdir, sizeof env_kdir, "CLMATCH_KERNEL_DIR=%s", broken);
    env[2] = env_kdir;
    if ((rc = t_run_child("kernel_broken", NULL, env)) != 0)
        T_FAIL("broken kmp.cl: child failed (status %d; see # lines above)", rc);

    snprintf(env_kdir, sizeof env_kdir, "CLMATCH_KERNEL_DIR=%s", intact);
    if ((rc = t_run_child("kernel_ok", NULL, env)) != 0)
        T_FAIL("intact kernel dir: child failed (status %d; see # lines above)", rc);

    snprintf(env_kdir, sizeof env_kdir, "CLMATCH_KERNEL_DIR=%s", fifo);
    if ((rc = t_run_child("kernel_fifo", NULL, env)) != 0)
        T_FAIL("kmp.cl a FIFO: child failed (status %d; see # lines above)", rc);

    snprintf(env_kdir, sizeof env_kdir, "CLMATCH_KERNEL_DIR=%s/missing", intact);
    if ((rc = t_run_child("kernel_missing", NULL, env)) != 0)
        T_FAIL("missing kernel dir: child failed (status %d; see # lines above)", rc);
out:
    t_free_list(list, n);
    if (broken) t_rmtree(broken);
    if (intact) t_rmtree(intact);
    if (cache) t_rmtree(cache);
    if (fifo) t_rmtree(fifo);
    free(fifo);
    free(broken);
    free(intact);
    free(cache);
}

void register_cache_tests(void)
{
    t_register("cache.disk", test_cache_disk, NULL, 1);
    t_register("cache.race", test_cache_race, NULL, 1);
    t_register("cache.off", test_cache_off, NULL, 1);
    t_register("cache.kernel_dir", test_kernel_dir, NULL, 1);
    t_register_child("cache", child_cache);
    t_register_child("cache_race", child_cache_race);
    t_register_child("cache_off", child_cache_off);
    t_register_child("warm", child_warm);
    t_register_child("kernel_broken", child_kernel_broken);
    t_register_child("kernel_ok", child_kernel_ok);
    t_register_child("kernel_fifo", child_kernel_fifo);
    t_register_child("kernel_missing", child_kernel_missing);
}
