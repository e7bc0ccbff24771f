/*
 * API contract: argument checks with their exact status codes, names and strings, option
 * defaults, out-of-device-memory, and the behaviour with no OpenCL platform at all.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the first versions of the public structs */
#include "t.h"

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return 1;
    }
    return 0;
}

/* ---- strings ----------------------------------------------------------------------------- */

static void test_version(const void *arg)
{
    char want[32];
    (void)arg;
    snprintf(want, sizeof want, "%d.%d.%d", CLM_VERSION_MAJOR, CLM_VERSION_MINOR,
             CLM_VERSION_PATCH);
    REQUIRE(clm_version() != NULL);
    if (!EXPECT(strcmp(clm_version(), want) == 0))
        t_note("clm_version() is \"%s\", the header says %s", clm_version(), want);
}

static void test_strerror(const void *arg)
{
    int a, b;
    (void)arg;
    for (a = CLM_E_BUSY; a <= CLM_STOPPED; a++) {
        const char *s = clm_strerror(a);
        if (!EXPECT(s != NULL && *s)) {
            t_note("clm_strerror(%d) is empty", a);
            continue;
        }
        for (b = CLM_E_BUSY; b < a; b++)
            if (clm_strerror(b) && strcmp(s, clm_strerror(b)) == 0)
                T_FAIL("clm_strerror(%d) == clm_strerror(%d) == \"%s\"", a, b, s);
    }
    /* Unknown codes still get a string. */
    EXPECT(clm_strerror(-999) != NULL);
    EXPECT(clm_strerror(42) != NULL);
}

static void *fresh_thread(void *arg)
{
    const char **out = arg;
    out[0] = clm_last_error();
    out[0] = out[0] ? strdup(out[0]) : NULL;
    (void)clm_device_open(-2, -1, NULL); /* any failure */
    out[1] = clm_last_error();
    out[1] = out[1] ? strdup(out[1]) : NULL;
    return NULL;
}

/* The detail is per thread: "" in a thread where nothing failed yet, even if this thread has
 * failures; and a failure sets it. */
static void test_last_error(const void *arg)
{
    const char *got[2] = {NULL, NULL};
    pthread_t th;
    (void)arg;
    EXPECT_RC(clm_device_open(-1, -1, NULL), CLM_E_INVALID);
    EXPECT(*clm_last_error() != '\0');
    REQUIRE(pthread_create(&th, NULL, fresh_thread, (void *)got) == 0);
    pthread_join(th, NULL);
    if (EXPECT(got[0] != NULL) && !EXPECT(got[0][0] == '\0'))
        t_note("fresh thread's clm_last_error() is \"%s\"", got[0]);
    EXPECT(got[1] != NULL && got[1][0] != '\0');
    free((void *)got[0]);
    free((void *)got[1]);
}

static void test_names(const void *arg)
{
    static const char *const anames[] = {"auto", "naive", "kmp", "dfa"};
    static const char *const mnames[] = {"auto", "global", "local", "constant"};
    int i;
    clm_algorithm a;
    clm_table_memory m;
    (void)arg;
    for (i = 0; i < 4; i++) {
        EXPECT(strcmp(clm_algorithm_name((clm_algorithm)i), anames[i]) == 0);
        a = (clm_algorithm)77;
        if (EXPECT_RC(clm_algorithm_from_name(anames[i], &a), CLM_OK)) EXPECT(a == (clm_algorithm)i);
        EXPECT(strcmp(clm_table_memory_name((clm_table_memory)i), mnames[i]) == 0);
        m = (clm_table_memory)77;
        if (EXPECT_RC(clm_table_memory_from_name(mnames[i], &m), CLM_OK))
            EXPECT(m == (clm_table_memory)i);
    }
    EXPECT(strcmp(clm_algorithm_name((clm_algorithm)99), "?") == 0);
    EXPECT(strcmp(clm_table_memory_name((clm_table_memory)99), "?") == 0);
    EXPECT_RC(clm_algorithm_from_name("bogus", &a), CLM_E_INVALID);
    EXPECT_RC(clm_algorithm_from_name("", &a), CLM_E_INVALID);
    EXPECT_RC(clm_algorithm_from_name("naive-", &a), CLM_E_INVALID);
    EXPECT_RC(clm_algorithm_from_name(NULL, &a), CLM_E_INVALID);
    EXPECT_RC(clm_algorithm_from_name("kmp", NULL), CLM_E_INVALID);
    EXPECT_RC(clm_table_memory_from_name("shared", &m), CLM_E_INVALID);
    EXPECT_RC(clm_table_memory_from_name("", &m), CLM_E_INVALID);
    EXPECT_RC(clm_table_memory_from_name(NULL, &m), CLM_E_INVALID);
    EXPECT_RC(clm_table_memory_from_name("local", NULL), CLM_E_INVALID);
}

/* ---- devices ----------------------------------------------------------------------------- */

static void test_device_args(const void *arg)
{
    clm_device_info *list = NULL, info;
    size_t count = 0, i;
    int nplat = 0, ndev0 = 0, p0, p;
    clm_device *d = NULL;
    (void)arg;

    EXPECT_RC(clm_list_devices(0, sizeof *list, NULL, &count), CLM_E_INVALID);
    EXPECT_RC(clm_list_devices(0, sizeof *list, &list, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_device_open(-1, -1, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_device_open(-2, -1, &d), CLM_E_INVALID);
    EXPECT_RC(clm_device_open(-1, -2, &d), CLM_E_INVALID);
    EXPECT_RC(clm_device_open(0, -7, &d), CLM_E_INVALID);
    EXPECT_RC(clm_device_get_info(NULL, &info, sizeof info), CLM_E_INVALID);
    EXPECT_RC(clm_device_get_info(t_dev, NULL, sizeof info), CLM_E_INVALID);
    clm_device_close(NULL);
    clm_free_device_list(NULL);

    REQUIRE_RC(clm_list_devices(0, sizeof *list, &list, &count), CLM_OK);
    p0 = list[0].platform_index; /* the first platform with a device */
    for (i = 0; i < count; i++) {
        if (list[i].platform_index + 1 > nplat) nplat = list[i].platform_index + 1;
        if (list[i].platform_index == p0) ndev0++;
    }
    /* Platforms past the last one with a device have none (Mesa's Clover installs one where
     * it drives no device): device 0 is out of range there. Then one past the last platform:
     * the detail lists the platforms that exist. */
    for (p = nplat; p < nplat + 8 && clm_device_open(p, 0, &d) == CLM_E_DEVICE_INDEX; p++)
        ;
    if (EXPECT_RC(clm_device_open(p, 0, &d), CLM_E_PLATFORM_INDEX)
        && !EXPECT(strstr(clm_last_error(), list[0].platform_name) != NULL))
        t_note("detail does not name platform %d \"%s\": \"%s\"", p0, list[0].platform_name,
               clm_last_error());
    EXPECT_RC(clm_device_open(p + 100, -1, &d), CLM_E_PLATFORM_INDEX);
    /* One past that platform's last device: the detail lists its devices. */
    if (EXPECT_RC(clm_device_open(p0, ndev0, &d), CLM_E_DEVICE_INDEX)
        && !EXPECT(strstr(clm_last_error(), list[0].name) != NULL))
        t_note("detail does not name device 0 \"%s\": \"%s\"", list[0].name, clm_last_error());
    /* A platform with device -1: that platform's first device. */
    if (EXPECT_RC(clm_device_open(p0, -1, &d), CLM_OK)) {
        if (EXPECT_RC(clm_device_get_info(d, &info, sizeof info), CLM_OK))
            EXPECT(info.platform_index == p0 && info.device_index == 0
                   && strcmp(info.name, list[0].name) == 0);
        clm_device_close(d);
    }
    clm_free_device_list(list);
}

/* ---- compile ----------------------------------------------------------------------------- */

static void test_compile_args(const void *arg)
{
    const char *pats[2] = {"abc", "b"};
    size_t lens[2] = {3, 1};
    const char *nullpat[1] = {NULL};
    const char *empty[2] = {"abc", ""};
    char *big = malloc(CLM_MAX_PATTERN_LENGTH + 1);
    size_t biglen = CLM_MAX_PATTERN_LENGTH + 1;
    clm_compile_options o;
    clm_database *db = NULL;
    (void)arg;

    REQUIRE(big != NULL);
    memset(big, 'x', biglen);
    clm_compile_options_init(&o, sizeof o);
    EXPECT(o.algorithm == CLM_ALGO_AUTO && o.table_memory == CLM_TABLE_AUTO && o.flags == 0
           && o.work_group_size == 0 && o.bytes_per_item == 0 && o.vector_width == 0);
    EXPECT(o.staging == CLM_AUTO && o.prefetch == CLM_AUTO && o.packing == CLM_AUTO
           && o.wg_as_tuning == 0);

    EXPECT_RC(clm_compile(NULL, pats, lens, NULL, 2, NULL, &db), CLM_E_INVALID);
    EXPECT_RC(clm_compile(t_dev, NULL, lens, NULL, 2, NULL, &db), CLM_E_INVALID);
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 0, NULL, &db), CLM_E_INVALID);
    EXPECT_RC(clm_compile(t_dev, nullpat, lens, NULL, 1, NULL, &db), CLM_E_INVALID);
    lens[1] = 0;
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, NULL, &db), CLM_E_EMPTY_PATTERN);
    lens[1] = 1;
    EXPECT_RC(clm_compile(t_dev, empty, NULL, NULL, 2, NULL, &db), CLM_E_EMPTY_PATTERN);
    {
        const char *bp[1];
        bp[0] = big;
        EXPECT_RC(clm_compile(t_dev, bp, &biglen, NULL, 1, NULL, &db), CLM_E_PATTERN_TOO_LONG);
    }
    o.algorithm = (clm_algorithm)99;
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_E_INVALID);
    clm_compile_options_init(&o, sizeof o);
    o.table_memory = (clm_table_memory)99;
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_E_INVALID);
    /* the performance switches are fields: their old flag bits (64 .. 4096) are unknown flags,
     * named as such; a switch takes CLM_AUTO, CLM_ON or CLM_OFF; packing needs CLM_DNA */
    clm_compile_options_init(&o, sizeof o);
    o.flags = 256;
    if (EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_E_INVALID))
        EXPECT(strstr(clm_last_error(), "staging") != NULL);
    clm_compile_options_init(&o, sizeof o);
    o.staging = (clm_switch)3;
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_E_INVALID);
    clm_compile_options_init(&o, sizeof o);
    o.wg_as_tuning = 2;
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_E_INVALID);
    clm_compile_options_init(&o, sizeof o);
    o.packing = CLM_OFF;
    EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_E_INVALID);
    o.flags = CLM_DNA; /* "abc" and "b": IUPAC codes */
    if (EXPECT_RC(clm_compile(t_dev, pats, lens, NULL, 2, &o, &db), CLM_OK))
        clm_database_free(db);
    db = NULL;
    free(big);
}

/* NUL-terminated patterns (lengths NULL), default ids, auto choices, bytes_per_item rounding. */
static void test_compile_defaults(const void *arg)
{
    const char *pats[2] = {"abc", "b"};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info info;
    clm_compile_options o;
    t_matches got;
    (void)arg;

    t_matches_init(&got);
    if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 2, NULL, &db), CLM_OK)) goto out;
    EXPECT_RC(clm_database_get_info(NULL, &info, sizeof info), CLM_E_INVALID);
    EXPECT_RC(clm_database_get_info(db, NULL, sizeof info), CLM_E_INVALID);
    if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)) {
        EXPECT(info.algorithm != CLM_ALGO_AUTO && info.table_memory != CLM_TABLE_AUTO);
        EXPECT(info.pattern_count == 2 && info.min_length == 1 && info.max_length == 3);
        EXPECT(info.work_group_size > 0 && info.bytes_per_item > 0
               && info.bytes_per_item % 16 == 0);
        EXPECT(info.build_options[0] != '\0');
    }
    if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        && EXPECT_RC(clm_scan(db, s, "abcb", 4, t_collect, &got), CLM_OK)) {
        /* "abcb": abc@0 (id 0), b@1 and b@3 (id 1) */
        if (EXPECT(got.n == 3)) {
            EXPECT(got.v[0].start == 0 && got.v[0].end == 3 && got.v[0].id == 0);
            EXPECT(got.v[1].start == 1 && got.v[1].end == 2 && got.v[1].id == 1);
            EXPECT(got.v[2].start == 3 && got.v[2].end == 4 && got.v[2].id == 1);
        }
    }
    clm_scratch_free(s);
    s = NULL;
    clm_database_free(db);
    db = NULL;

    /* bytes_per_item is rounded up to a multiple of 16. */
    clm_compile_options_init(&o, sizeof o);
    o.bytes_per_item = 17;
    o.work_group_size = 16;
    if (EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 2, &o, &db), CLM_OK)
        && EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK))
        EXPECT(info.bytes_per_item == 32 && info.work_group_size == 16);
    clm_database_free(db);
    db = NULL;
    o.bytes_per_item = 1;
    if (EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 2, &o, &db), CLM_OK)
        && EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK))
        EXPECT(info.bytes_per_item == 16);
out:
    clm_database_free(db);
    t_matches_free(&got);
}

/* ---- scratch and scan -------------------------------------------------------------------- */

static void test_scan_args(const void *arg)
{
    const char *pats[1] = {"ab"}, *pats2[1] = {"cd"};
    clm_database *db = NULL, *db2 = NULL;
    clm_scratch *s = NULL, *s2 = NULL;
    clm_stats st;
    t_matches got;
    uint64_t count;
    (void)arg;

    t_matches_init(&got);
    if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 1, NULL, &db), CLM_OK)
        || !EXPECT_RC(clm_compile(t_dev, pats2, NULL, NULL, 1, NULL, &db2), CLM_OK))
        goto out;
    EXPECT_RC(clm_scratch_alloc(NULL, NULL, &s), CLM_E_INVALID);
    EXPECT_RC(clm_scratch_alloc(db, NULL, NULL), CLM_E_INVALID);
    if (!EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db2, NULL, &s2), CLM_OK))
        goto out;

    EXPECT_RC(clm_scan(NULL, s, "abab", 4, t_collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_scan(db, NULL, "abab", 4, t_collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_scan(db, s, NULL, 4, t_collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_scan(db, s, "abab", 4, NULL, &got), CLM_E_INVALID);
    EXPECT_RC(clm_count(NULL, s, "abab", 4, &count), CLM_E_INVALID);
    EXPECT_RC(clm_count(db, NULL, "abab", 4, &count), CLM_E_INVALID);
    EXPECT_RC(clm_count(db, s, NULL, 4, &count), CLM_E_INVALID);
    EXPECT_RC(clm_count(db, s, "abab", 4, NULL), CLM_E_INVALID);
    /* A scratch belongs to the database it was allocated for. */
    EXPECT_RC(clm_scan(db, s2, "abab", 4, t_collect, &got), CLM_E_INVALID);
    EXPECT_RC(clm_count(db2, s, "abab", 4, &count), CLM_E_INVALID);
    EXPECT(got.n == 0);
    EXPECT_RC(clm_scratch_get_stats(NULL, &st, sizeof st), CLM_E_INVALID);
    EXPECT_RC(clm_scratch_get_stats(s, NULL, sizeof st), CLM_E_INVALID);
    clm_scratch_reset_stats(NULL);
    /* Still fine after all that. */
    if (EXPECT_RC(clm_scan(db, s, "abab", 4, t_collect, &got), CLM_OK)) EXPECT(got.n == 2);
    count = 0;
    if (EXPECT_RC(clm_count(db, s, "xabab", 5, &count), CLM_OK)) EXPECT(count == 2);
    count = 7;
    if (EXPECT_RC(clm_count(db, s, "ab", 0, &count), CLM_OK)) EXPECT(count == 0);
out:
    clm_scratch_free(s);
    clm_scratch_free(s2);
    clm_database_free(db);
    clm_database_free(db2);
    clm_scratch_free(NULL);
    clm_database_free(NULL);
    t_matches_free(&got);
}

/* Slabs above CLM_MAX_SLAB_BYTES are CLM_E_INVALID; slabs the device cannot allocate are
 * CLM_E_DEVICE_MEMORY; either way the database stays usable. Returns 0. */
static int check_slab_limits(clm_device *dev, const clm_device_info *info)
{
    const char *pats[1] = {"needle"};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_scratch_options so;
    t_matches got;
    int rc;

    t_matches_init(&got);
    if (!EXPECT_RC(clm_compile(dev, pats, NULL, NULL, 1, NULL, &db), CLM_OK)) goto out;
    clm_scratch_options_init(&so, sizeof so);
    so.slab_bytes = (size_t)-1 / 2;
    if (EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_E_INVALID)) EXPECT(*clm_last_error());
    s = NULL;
    so.slab_bytes = (size_t)CLM_MAX_SLAB_BYTES + 1;
    EXPECT_RC(clm_scratch_alloc(db, &so, &s), CLM_E_INVALID);
    s = NULL;
    if (info->max_alloc_bytes < CLM_MAX_SLAB_BYTES) {
        so.slab_bytes = (size_t)info->max_alloc_bytes + 1;
        rc = clm_scratch_alloc(db, &so, &s);
        if (!EXPECT_RC(rc, CLM_E_DEVICE_MEMORY))
            t_note("slab_bytes %zu, device max allocation %llu", so.slab_bytes,
                   (unsigned long long)info->max_alloc_bytes);
        if (rc == CLM_OK) clm_scratch_free(s);
        s = NULL;
    }
    /* The match buffer grows anyway, so clamping an absurd initial capacity is fine too; but
     * a size overflow must not give a buffer smaller than the capacity it claims. */
    clm_scratch_options_init(&so, sizeof so);
    so.match_capacity = (size_t)-1 / 64;
    rc = clm_scratch_alloc(db, &so, &s);
    if (rc == CLM_OK) {
        if (EXPECT_RC(clm_scan(db, s, "a needle, two needles", 21, t_collect, &got), CLM_OK))
            EXPECT(got.n == 2);
        t_matches_clear(&got);
    } else if (!EXPECT(rc == CLM_E_DEVICE_MEMORY)) {
        t_note("match_capacity %zu: %s", so.match_capacity, clm_strerror(rc));
    }
    clm_scratch_free(s);
    s = NULL;
    if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        && EXPECT_RC(clm_scan(db, s, "a needle, two needles", 21, t_collect, &got), CLM_OK))
        EXPECT(got.n == 2);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    return 0;
}

/* In a child with PoCL's memory limited to 1 GiB (max allocation 256 MiB), so that a slab the
 * device cannot allocate is still below CLM_MAX_SLAB_BYTES. */
static int child_device_memory(const char *arg)
{
    clm_device *d = NULL;
    clm_device_info info;
    (void)arg;
    if (!EXPECT_RC(clm_device_open(-1, -1, &d), CLM_OK)) return 1;
    if (EXPECT_RC(clm_device_get_info(d, &info, sizeof info), CLM_OK)) {
        if (!EXPECT(info.max_alloc_bytes < CLM_MAX_SLAB_BYTES))
            t_note("POCL_MEMORY_LIMIT=1 left max allocation at %llu",
                   (unsigned long long)info.max_alloc_bytes);
        check_slab_limits(d, &info);
    }
    clm_device_close(d);
    return 0;
}

static void test_device_memory(const void *arg)
{
    (void)arg;
    check_slab_limits(t_dev, &t_devinfo);
    if (t_devinfo.max_alloc_bytes >= CLM_MAX_SLAB_BYTES) {
        /* Every slab this device cannot allocate is above the limit: on PoCL, shrink it. */
        static const char *const env[] = {"POCL_MEMORY_LIMIT=1", NULL};
        if (strstr(t_devinfo.platform_name, "Portable Computing Language")) {
            int rc = t_run_child("device_memory", NULL, env);
            if (rc != 0) T_FAIL("child with POCL_MEMORY_LIMIT=1 failed (status %d)", rc);
        } else {
            t_note("CLM_E_DEVICE_MEMORY not reachable by slab size on this device (max "
                   "allocation %llu >= CLM_MAX_SLAB_BYTES)",
                   (unsigned long long)t_devinfo.max_alloc_bytes);
        }
    }
}

/* ---- misuse: a scratch in use, a database freed ------------------------------------------- */

/* Occurrences of "ab" in text[0, n): the expected count, found without the library. */
static size_t count_ab(const char *text, size_t n)
{
    size_t i, c = 0;
    for (i = 0; i + 1 < n; i++) c += text[i] == 'a' && text[i + 1] == 'b';
    return c;
}

/* A text of 300 "ab" occurrences between other bytes, in memory (text) and in a file (the
 * FILE returned, NULL when it cannot be written); *want gets the occurrences. */
#define MISUSE_LEN 1200
static FILE *misuse_input(char *text, size_t *want)
{
    size_t i;
    for (i = 0; i < MISUSE_LEN; i++) text[i] = "xabz"[i % 4];
    *want = count_ab(text, MISUSE_LEN);
    FILE *f = tmpfile();
    if (f && (fwrite(text, 1, MISUSE_LEN, f) != MISUSE_LEN || fflush(f) != 0)) {
        fclose(f);
        f = NULL;
    }
    return f;
}

/* rc is want and the detail names the function fn and says `cause`. */
static int expect_misuse(int rc, int want, const char *fn, const char *cause)
{
    if (!EXPECT_RC(rc, want)) {
        t_note("%s: \"%s\"", fn, clm_last_error());
        return 0;
    }
    if (!EXPECT(strstr(clm_last_error(), fn) != NULL && contains_ci(clm_last_error(), cause))) {
        t_note("%s: detail \"%s\" lacks the function or \"%s\"", fn, clm_last_error(), cause);
        return 0;
    }
    return 1;
}

/* What a match callback tries, at its first match, on the scratch (and stream) of the call
 * that runs it. */
typedef struct {
    const clm_database *db;
    clm_scratch *s;     /* the running call's scratch */
    clm_scratch *other; /* another scratch of the same database: free to use */
    clm_stream *st;     /* the running stream (NULL for scans) */
    int fd;
    size_t matches;
} reenter_ctx;

static int reenter_cb(const clm_match *m, void *arg)
{
    reenter_ctx *c = arg;
    t_matches got;
    clm_stream *st = NULL;
    uint64_t n = 0;
    (void)m;
    if (c->matches++)
        return 0;
    t_matches_init(&got);
    expect_misuse(clm_scan(c->db, c->s, "xab", 3, t_collect, &got), CLM_E_BUSY, "clm_scan",
                  "callback");
    expect_misuse(clm_count(c->db, c->s, "xab", 3, &n), CLM_E_BUSY, "clm_count", "callback");
    expect_misuse(clm_scan_fd(c->db, c->s, c->fd, t_collect, &got), CLM_E_BUSY, "clm_scan_fd",
                  "callback");
    expect_misuse(clm_count_fd(c->db, c->s, c->fd, &n), CLM_E_BUSY, "clm_count_fd",
                  "callback");
    expect_misuse(clm_stream_open(c->db, c->s, 0, &st), CLM_E_BUSY, "clm_stream_open",
                  "callback");
    EXPECT(st == NULL);
    if (c->st) {
        expect_misuse(clm_stream_write(c->st, "xab", 3, t_collect, &got), CLM_E_BUSY,
                      "clm_stream_write", "callback");
        expect_misuse(clm_stream_flush(c->st, t_collect, &got), CLM_E_BUSY, "clm_stream_flush",
                      "callback");
        expect_misuse(clm_stream_close(c->st, t_collect, &got, &n), CLM_E_BUSY,
                      "clm_stream_close", "callback");
    }
    EXPECT(got.n == 0);
    /* only this scratch is in use: another one of the same database scans */
    n = 0;
    if (EXPECT_RC(clm_count(c->db, c->other, "xabab", 5, &n), CLM_OK)) EXPECT(n == 2);
    t_matches_free(&got);
    return 0;
}

/* A scan, a file scan and a stream whose callback calls the library again on the same
 * scratch (or stream): each nested call is CLM_E_BUSY, naming itself and the callback, and
 * the running call goes on to deliver every match. An open stream keeps plain scans off its
 * scratch (CLM_E_INVALID). The scratch works afterwards. */
static void test_reentry(const void *arg)
{
    const char *pats[1] = {"ab"};
    char text[MISUSE_LEN];
    size_t want;
    clm_database *db = NULL;
    clm_scratch *s = NULL, *other = NULL;
    clm_stream *st = NULL;
    reenter_ctx c;
    t_matches got;
    uint64_t total = 0;
    FILE *f;
    (void)arg;

    f = misuse_input(text, &want);
    t_matches_init(&got);
    REQUIRE(f != NULL);
    if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 1, NULL, &db), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db, NULL, &other), CLM_OK))
        goto out;
    memset(&c, 0, sizeof c);
    c.db = db;
    c.s = s;
    c.other = other;
    c.fd = fileno(f);
    if (EXPECT_RC(clm_scan(db, s, text, MISUSE_LEN, reenter_cb, &c), CLM_OK)
        && !EXPECT(c.matches == want))
        t_note("clm_scan delivered %zu of %zu matches", c.matches, want);
    c.matches = 0;
    if (EXPECT_RC(clm_scan_fd(db, s, c.fd, reenter_cb, &c), CLM_OK) && !EXPECT(c.matches == want))
        t_note("clm_scan_fd delivered %zu of %zu matches", c.matches, want);
    c.matches = 0;
    if (EXPECT_RC(clm_stream_open(db, s, 0, &st), CLM_OK)) {
        c.st = st;
        EXPECT_RC(clm_scan(db, s, text, MISUSE_LEN, t_collect, &got), CLM_E_INVALID);
        EXPECT_RC(clm_stream_write(st, text, MISUSE_LEN, reenter_cb, &c), CLM_OK);
        EXPECT_RC(clm_stream_flush(st, reenter_cb, &c), CLM_OK);
        EXPECT_RC(clm_stream_write(st, text, MISUSE_LEN, reenter_cb, &c), CLM_OK);
        if (EXPECT_RC(clm_stream_close(st, reenter_cb, &c, &total), CLM_OK)
            && !EXPECT(c.matches == 2 * want && total == 2 * want))
            t_note("the stream delivered %zu of %zu matches (total %llu)", c.matches, 2 * want,
                   (unsigned long long)total);
    }
    /* the scratch still works */
    EXPECT(got.n == 0);
    if (EXPECT_RC(clm_scan(db, s, text, MISUSE_LEN, t_collect, &got), CLM_OK))
        EXPECT(got.n == want);
    total = 0;
    if (EXPECT_RC(clm_count_fd(db, s, c.fd, &total), CLM_OK)) EXPECT(total == want);
out:
    clm_scratch_free(s);
    clm_scratch_free(other);
    clm_database_free(db);
    t_matches_free(&got);
    fclose(f);
}

/* A scan whose callback holds it (at its first match) until the main thread has tried the
 * scratch. */
typedef struct {
    const clm_database *db;
    clm_scratch *s;
    const char *text;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int inside, released, rc;
    size_t matches;
} hold_ctx;

static int hold_cb(const clm_match *m, void *arg)
{
    hold_ctx *h = arg;
    (void)m;
    pthread_mutex_lock(&h->mu);
    h->matches++;
    h->inside = 1;
    pthread_cond_broadcast(&h->cv);
    while (!h->released) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static void *hold_main(void *arg)
{
    hold_ctx *h = arg;
    h->rc = clm_scan(h->db, h->s, h->text, MISUSE_LEN, hold_cb, h);
    return NULL;
}

/* Two threads on one scratch: while the first one's scan runs, the second one's calls are
 * CLM_E_BUSY naming another thread, and the first scan delivers every match. */
static void test_busy_threads(const void *arg)
{
    const char *pats[1] = {"ab"};
    char text[MISUSE_LEN];
    size_t want;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_stream *st = NULL;
    t_matches got;
    uint64_t n = 0;
    hold_ctx h;
    pthread_t th;
    FILE *f;
    (void)arg;

    f = misuse_input(text, &want);
    t_matches_init(&got);
    REQUIRE(f != NULL);
    if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 1, NULL, &db), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK))
        goto out;
    memset(&h, 0, sizeof h);
    h.db = db;
    h.s = s;
    h.text = text;
    pthread_mutex_init(&h.mu, NULL);
    pthread_cond_init(&h.cv, NULL);
    if (!EXPECT(pthread_create(&th, NULL, hold_main, &h) == 0)) goto out;
    pthread_mutex_lock(&h.mu);
    while (!h.inside) pthread_cond_wait(&h.cv, &h.mu);
    pthread_mutex_unlock(&h.mu);
    expect_misuse(clm_scan(db, s, text, MISUSE_LEN, t_collect, &got), CLM_E_BUSY, "clm_scan",
                  "thread");
    expect_misuse(clm_count(db, s, text, MISUSE_LEN, &n), CLM_E_BUSY, "clm_count", "thread");
    expect_misuse(clm_count_fd(db, s, fileno(f), &n), CLM_E_BUSY, "clm_count_fd", "thread");
    expect_misuse(clm_stream_open(db, s, 0, &st), CLM_E_BUSY, "clm_stream_open", "thread");
    EXPECT(got.n == 0 && st == NULL);
    pthread_mutex_lock(&h.mu);
    h.released = 1;
    pthread_cond_broadcast(&h.cv);
    pthread_mutex_unlock(&h.mu);
    pthread_join(th, NULL);
    if (EXPECT_RC(h.rc, CLM_OK) && !EXPECT(h.matches == want))
        t_note("the first thread's scan delivered %zu of %zu matches", h.matches, want);
    /* the scratch is free again */
    if (EXPECT_RC(clm_scan(db, s, text, MISUSE_LEN, t_collect, &got), CLM_OK))
        EXPECT(got.n == want);
    pthread_mutex_destroy(&h.mu);
    pthread_cond_destroy(&h.cv);
out:
    clm_scratch_free(s);
    clm_database_free(db);
    t_matches_free(&got);
    fclose(f);
}

/* Scratches whose database was freed: every call that would search with it is CLM_E_INVALID
 * saying so, without reading the freed database (the ASan build checks that), even when a
 * new database lives at the old address; an open stream on one is closed with that error.
 * The scratches can still be inspected and freed; a second clm_database_free is ignored. */
static void test_freed_database(const void *arg)
{
    const char *pats[1] = {"ab"};
    char text[MISUSE_LEN];
    size_t want;
    clm_database *db = NULL, *db2 = NULL;
    clm_scratch *s = NULL, *s_stream = NULL, *s2 = NULL, *none = NULL;
    clm_stream *st = NULL, *st2 = NULL;
    clm_scratch_info info;
    t_matches got;
    uint64_t n = 0;
    uintptr_t old;
    FILE *f;
    (void)arg;

    f = misuse_input(text, &want);
    t_matches_init(&got);
    REQUIRE(f != NULL);
    if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 1, NULL, &db), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        || !EXPECT_RC(clm_scratch_alloc(db, NULL, &s_stream), CLM_OK)
        || !EXPECT_RC(clm_stream_open(db, s_stream, 0, &st), CLM_OK))
        goto out;
    EXPECT_RC(clm_scan(db, s, text, MISUSE_LEN, t_collect, &got), CLM_OK);
    EXPECT_RC(clm_stream_write(st, text, MISUSE_LEN, t_collect, &got), CLM_OK);
    t_matches_clear(&got);
    old = (uintptr_t)db;
    clm_database_free(db);

    expect_misuse(clm_scan(db, s, text, MISUSE_LEN, t_collect, &got), CLM_E_INVALID,
                  "clm_scan", "freed");
    expect_misuse(clm_count(db, s, text, MISUSE_LEN, &n), CLM_E_INVALID, "clm_count", "freed");
    expect_misuse(clm_scan_fd(db, s, fileno(f), t_collect, &got), CLM_E_INVALID, "clm_scan_fd",
                  "freed");
    expect_misuse(clm_count_fd(db, s, fileno(f), &n), CLM_E_INVALID, "clm_count_fd", "freed");
    expect_misuse(clm_stream_open(db, s, 0, &st2), CLM_E_INVALID, "clm_stream_open", "freed");
    expect_misuse(clm_scratch_alloc(db, NULL, &none), CLM_E_INVALID, "clm_scratch_alloc",
                  "freed");
    EXPECT(st2 == NULL && none == NULL);
    expect_misuse(clm_stream_write(st, text, MISUSE_LEN, t_collect, &got), CLM_E_INVALID,
                  "clm_stream_write", "freed");
    expect_misuse(clm_stream_flush(st, t_collect, &got), CLM_E_INVALID, "clm_stream_flush",
                  "freed");
    expect_misuse(clm_stream_close(st, t_collect, &got, &n), CLM_E_INVALID, "clm_stream_close",
                  "freed");
    st = NULL;
    if (EXPECT_RC(clm_scratch_get_info(s, &info, sizeof info), CLM_OK)) EXPECT(info.slots > 0);
    clm_database_free(db); /* already freed: ignored */
    db = NULL;

    /* a new database, often at the old address: the old scratch is still refused */
    if (!EXPECT_RC(clm_compile(t_dev, pats, NULL, NULL, 1, NULL, &db2), CLM_OK)) goto out;
    t_note("the new database %s the freed one's address",
           (uintptr_t)db2 == old ? "reuses" : "does not reuse");
    expect_misuse(clm_scan(db2, s, text, MISUSE_LEN, t_collect, &got), CLM_E_INVALID,
                  "clm_scan", "freed");
    EXPECT(got.n == 0); /* no refused call delivered a match */
    /* the library goes on working */
    if (EXPECT_RC(clm_scratch_alloc(db2, NULL, &s2), CLM_OK)
        && EXPECT_RC(clm_scan(db2, s2, text, MISUSE_LEN, t_collect, &got), CLM_OK))
        EXPECT(got.n == want);
out:
    if (st) clm_stream_close(st, NULL, NULL, NULL);
    clm_scratch_free(s); /* after their database: they must not touch it */
    clm_scratch_free(s_stream);
    clm_scratch_free(s2);
    clm_database_free(db);
    clm_database_free(db2);
    t_matches_free(&got);
    fclose(f);
}

/* ---- no OpenCL platform ------------------------------------------------------------------ */

/* Runs in a child whose ICD loader finds no vendor: every entry point says
 * CLM_E_NO_PLATFORM and tells how to install one. */
static int child_no_platform(const char *arg)
{
    clm_device_info *list = NULL;
    size_t count = 0;
    clm_device *d = NULL;
    (void)arg;
    if (EXPECT_RC(clm_list_devices(0, sizeof *list, &list, &count), CLM_E_NO_PLATFORM)
        && !EXPECT(contains_ci(clm_last_error(), "pocl")))
        t_note("clm_list_devices detail: \"%s\"", clm_last_error());
    if (EXPECT_RC(clm_device_open(-1, -1, &d), CLM_E_NO_PLATFORM)
        && !EXPECT(contains_ci(clm_last_error(), "pocl")))
        t_note("clm_device_open detail: \"%s\"", clm_last_error());
    EXPECT_RC(clm_device_open(0, 0, &d), CLM_E_NO_PLATFORM);
    return 0;
}

/* ---- struct sizes (clmatch.h, Conventions) ------------------------------------------------ */

/* Bytes a newer clmatch.h might have added to a struct; the marker of bytes not written. */
#define NEWER 64
#define UNTOUCHED 0xA5

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

typedef int (*getter)(const void *obj, void *out, size_t size);
static int get_device_info(const void *o, void *out, size_t size)
{
    return clm_device_get_info(o, out, size);
}
static int get_tuning(const void *o, void *out, size_t size)
{
    return clm_device_get_tuning(o, out, size);
}
static int get_bitap_tuning(const void *o, void *out, size_t size)
{
    return clm_device_get_algorithm_tuning(o, CLM_ALGO_BITAP, out, size);
}
static int get_database_info(const void *o, void *out, size_t size)
{
    return clm_database_get_info(o, out, size);
}
static int get_scratch_info(const void *o, void *out, size_t size)
{
    return clm_scratch_get_info(o, out, size);
}
static int get_stats(const void *o, void *out, size_t size)
{
    return clm_scratch_get_stats(o, out, size);
}

/* A getter with the caller's struct of its own size (the reference); of a newer header's size
 * (the same bytes, then zeros); of the first version's size, in a buffer of just that size
 * (the same bytes, none written past: ASan sees it); smaller (CLM_E_INVALID naming the struct,
 * nothing written). */
static void check_getter(const char *what, getter get, const void *obj, size_t own, size_t v1)
{
    unsigned char *ref = malloc(own), *newer = malloc(own + NEWER), *older = malloc(v1);
    if (!EXPECT(ref && newer && older)) goto out;
    memset(newer, UNTOUCHED, own + NEWER);
    if (!EXPECT_RC(get(obj, ref, own), CLM_OK) || !EXPECT_RC(get(obj, newer, own + NEWER), CLM_OK)
        || !EXPECT_RC(get(obj, older, v1), CLM_OK)) {
        t_note("%s", what);
        goto out;
    }
    if (!EXPECT(memcmp(newer, ref, own) == 0 && all_bytes(newer + own, NEWER, 0)
                && memcmp(older, ref, v1) == 0))
        t_note("%s: a newer or older caller's struct differs from its own", what);
    memset(newer, UNTOUCHED, own + NEWER);
    if (EXPECT_RC(get(obj, newer, v1 - 1), CLM_E_INVALID)
        && !EXPECT(all_bytes(newer, own + NEWER, UNTOUCHED) && strstr(clm_last_error(), what)))
        t_note("%s of %zu bytes: \"%s\"", what, v1 - 1, clm_last_error());
    EXPECT_RC(get(obj, newer, 0), CLM_E_INVALID);
out:
    free(ref);
    free(newer);
    free(older);
}

/* Options of the first version's size (a buffer of just that size), a newer header's size
 * (fields past the library's left 0, or set), size 0 (not initialised), too small, absurd. */
static void check_options(const char *what, const char *init_name,
                          int (*init)(void *opts, size_t size), int (*use)(void *opts),
                          size_t own, size_t v1)
{
    unsigned char *opts = malloc(own + NEWER), *older = malloc(v1);
    size_t size;
    if (!EXPECT(opts && older)) goto out;
    /* init: the size, the defaults, zeros past what the library knows */
    memset(opts, UNTOUCHED, own + NEWER);
    if (EXPECT_RC(init(opts, own + NEWER), CLM_OK)) {
        memcpy(&size, opts, sizeof size);
        EXPECT(size == own + NEWER && all_bytes(opts + own, NEWER, 0));
    }
    memset(opts, UNTOUCHED, own + NEWER);
    EXPECT_RC(init(opts, v1 - 1), CLM_E_INVALID);
    EXPECT_RC(init(NULL, own), CLM_E_INVALID);
    EXPECT(all_bytes(opts, own + NEWER, UNTOUCHED));
    /* a newer caller that leaves the fields this library does not know at 0; one that sets
     * one: refused, naming the struct */
    REQUIRE_RC(init(opts, own + NEWER), CLM_OK);
    if (!EXPECT_RC(use(opts), CLM_OK)) t_note("%s of a newer header", what);
    opts[own + NEWER - 1] = 1;
    if (EXPECT_RC(use(opts), CLM_E_INVALID)
        && !EXPECT(strstr(clm_last_error(), what) && strstr(clm_last_error(), "newer")))
        t_note("\"%s\"", clm_last_error());
    /* an older caller's struct: exactly its size is read */
    if (EXPECT_RC(init(older, v1), CLM_OK) && !EXPECT_RC(use(older), CLM_OK))
        t_note("%s of the first version's size", what);
    /* not initialised (a zeroed struct), too small, absurd: refused, naming the init function */
    memset(opts, 0, own);
    if (EXPECT_RC(use(opts), CLM_E_INVALID) && !EXPECT(strstr(clm_last_error(), init_name)))
        t_note("\"%s\"", clm_last_error());
    for (int i = 0; i < 2; i++) {
        size = i ? (size_t)1 << 40 : v1 - 1;
        memcpy(opts, &size, sizeof size);
        EXPECT_RC(use(opts), CLM_E_INVALID);
    }
out:
    free(opts);
    free(older);
}

static const clm_database *sizes_db;
static int init_compile(void *o, size_t size)
{
    return clm_compile_options_init(o, size);
}
static int init_scratch(void *o, size_t size)
{
    return clm_scratch_options_init(o, size);
}
static int use_compile(void *o)
{
    const char *pats[1] = {"needle"};
    clm_database *db = NULL;
    int rc = clm_compile(t_dev, pats, NULL, NULL, 1, o, &db);
    clm_database_free(db);
    return rc;
}
static int use_scratch(void *o)
{
    clm_scratch *s = NULL;
    int rc = clm_scratch_alloc(sizes_db, o, &s);
    clm_scratch_free(s);
    return rc;
}

/* Every struct that may grow, as callers built against an older or a newer clmatch.h pass
 * it: the library writes and reads exactly the caller's size. */
static void test_struct_sizes(const void *arg)
{
    const char *pats[1] = {"needle"};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_device_info *list = NULL, *wide = NULL;
    size_t n = 0, wide_n = 0;
    uint64_t count = 0;
    (void)arg;

    check_getter("clm_device_info", get_device_info, t_dev, sizeof(clm_device_info),
                 CLM_DEVICE_INFO_V1);
    check_getter("clm_tuning", get_tuning, t_dev, sizeof(clm_tuning), CLM_TUNING_V1);
    check_getter("clm_tuning", get_bitap_tuning, t_dev, sizeof(clm_tuning), CLM_TUNING_V1);
    REQUIRE_RC(clm_compile(t_dev, pats, NULL, NULL, 1, NULL, &db), CLM_OK);
    check_getter("clm_database_info", get_database_info, db, sizeof(clm_database_info),
                 CLM_DATABASE_INFO_V1);
    if (EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        && EXPECT_RC(clm_count(db, s, "a needle", 8, &count), CLM_OK)) {
        check_getter("clm_scratch_info", get_scratch_info, s, sizeof(clm_scratch_info),
                     CLM_SCRATCH_INFO_V1);
        check_getter("clm_stats", get_stats, s, sizeof(clm_stats), CLM_STATS_V1);
    }
    clm_scratch_free(s);

    check_options("clm_compile_options", "clm_compile_options_init", init_compile, use_compile,
                  sizeof(clm_compile_options), CLM_COMPILE_OPTIONS_V1);
    sizes_db = db;
    check_options("clm_scratch_options", "clm_scratch_options_init", init_scratch, use_scratch,
                  sizeof(clm_scratch_options), CLM_SCRATCH_OPTIONS_V1);
    clm_database_free(db);

    /* the device list: entries info_size bytes apart, as the caller's array has them */
    EXPECT_RC(clm_list_devices(0, CLM_DEVICE_INFO_V1 - 1, &list, &n), CLM_E_INVALID);
    EXPECT(list == NULL && n == 0);
    if (EXPECT_RC(clm_list_devices(0, sizeof *list, &list, &n), CLM_OK)
        && EXPECT_RC(clm_list_devices(0, sizeof *list + NEWER, &wide, &wide_n), CLM_OK)
        && EXPECT(n == wide_n && n > 0)) {
        for (size_t i = 0; i < n; i++) {
            const unsigned char *e = (const unsigned char *)wide + i * (sizeof *list + NEWER);
            if (!EXPECT(memcmp(e, &list[i], sizeof *list) == 0
                        && all_bytes(e + sizeof *list, NEWER, 0)))
                t_note("device list entry %zu of %zu bytes", i, sizeof *list + NEWER);
        }
    }
    clm_free_device_list(list);
    clm_free_device_list(wide);
}

static void test_no_platform(const void *arg)
{
    /* OCL_ICD_VENDORS points ocl-icd (and the Khronos loader) at an empty vendor list;
     * LD_PRELOAD is dropped so an interposed OpenCL (oclgrind) does not stand in. */
    static const char *const env[] = {"OCL_ICD_VENDORS=/nonexistent", "OCL_ICD_FILENAMES",
                                      "OPENCL_VENDOR_PATH=/nonexistent", "LD_PRELOAD",
                                      "CLMATCH_PLATFORM", "CLMATCH_DEVICE", NULL};
    int rc;
    (void)arg;
    rc = t_run_child("no_platform", NULL, env);
    if (rc != 0) T_FAIL("child with no OpenCL platform failed (status %d; see # lines above)", rc);
}

void register_api_tests(void)
{
    t_register("api.version", test_version, NULL, 1);
    t_register("api.strerror", test_strerror, NULL, 1);
    t_register("api.last_error", test_last_error, NULL, 1);
    t_register("api.names", test_names, NULL, 1);
    t_register("api.device_args", test_device_args, NULL, 1);
    t_register("api.compile_args", test_compile_args, NULL, 1);
    t_register("api.compile_defaults", test_compile_defaults, NULL, 1);
    t_register("api.scan_args", test_scan_args, NULL, 1);
    t_register("api.device_memory", test_device_memory, NULL, 1);
    t_register("api.reentry", test_reentry, NULL, 1);
    t_register("api.busy_threads", test_busy_threads, NULL, 1);
    t_register("api.freed_database", test_freed_database, NULL, 1);
    t_register("api.struct_sizes", test_struct_sizes, NULL, 1);
    t_register("api.no_platform", test_no_platform, NULL, 1);
    t_register_child("no_platform", child_no_platform);
    t_register_child("device_memory", child_device_memory);
}
