/*
 * Tuning (clmatch.h, "Tuning"): the built-in values by device type, CLMATCH_TUNE items, the
 * profile file (written by clm_tuning_write_profile, found in CLMATCH_PROFILE_DIR, ignored
 * with a reason when it is for another device or has a bad line), the precedence built-in <
 * profile < CLMATCH_TUNE < clm_compile_options, per-algorithm values, and that every tuned
 * shape still finds exactly the reference's matches.
 *
 * The runner gives the suite an empty CLMATCH_PROFILE_DIR and no CLMATCH_TUNE; these tests
 * set both on their own for the devices they open, and put them back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

/* ---- environment ------------------------------------------------------------------------ */

static const char *const env_names[] = {"CLMATCH_TUNE", "CLMATCH_PROFILE_DIR", "CLMATCH_PROFILE"};
#define N_ENV (sizeof env_names / sizeof env_names[0])

typedef struct {
    char *v[N_ENV];
} env_saved;

static void env_save(env_saved *s)
{
    size_t i;
    for (i = 0; i < N_ENV; i++) {
        const char *v = getenv(env_names[i]);
        s->v[i] = v ? strdup(v) : NULL;
    }
}

static void env_restore(env_saved *s)
{
    size_t i;
    for (i = 0; i < N_ENV; i++) {
        if (s->v[i])
            setenv(env_names[i], s->v[i], 1);
        else
            unsetenv(env_names[i]);
        free(s->v[i]);
        s->v[i] = NULL;
    }
}

/* NULL unsets. */
static void env_set(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* The device under test, opened again (tuning is resolved at open). */
static int open_dev(clm_device **dev)
{
    return clm_device_open(t_devinfo.platform_index, t_devinfo.device_index, dev);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* ---- built-in ----------------------------------------------------------------------------- */

static void test_builtin(const void *arg)
{
    clm_tuning t;
    const char *dir = getenv("CLMATCH_PROFILE_DIR");
    int gpu = t_devinfo.type == CLM_DEVICE_GPU || t_devinfo.type == CLM_DEVICE_ACCELERATOR;
    unsigned wg = gpu ? 256 : 16, chunk = gpu ? 256 : 4096;
    size_t slab = gpu ? (size_t)256 << 20 : (size_t)64 << 20, quarter;
    char want[128];
    (void)arg;

    REQUIRE_RC(clm_device_get_tuning(t_dev, &t), CLM_OK);
    while (wg > t_devinfo.max_work_group_size) wg /= 2;
    quarter = (size_t)(t_devinfo.max_alloc_bytes / 4);
    if (slab > quarter) slab = quarter > ((size_t)1 << 20) ? quarter : (size_t)1 << 20;
    if (!EXPECT(t.work_group_size == wg && t.bytes_per_item == chunk && t.slab_bytes == slab))
        t_note("tuning %s (%u, %u, %zu), want (%u, %u, %zu) for a %s", t.values,
               t.work_group_size, t.bytes_per_item, t.slab_bytes, wg, chunk, slab,
               gpu ? "GPU" : "CPU");
    if (t_devinfo.type != CLM_DEVICE_OTHER) {
        EXPECT(t.work_group_size_source == CLM_TUNING_BUILTIN);
        EXPECT(t.bytes_per_item_source == CLM_TUNING_BUILTIN);
        EXPECT(t.slab_bytes_source == CLM_TUNING_BUILTIN);
        EXPECT(strncmp(t.source, "built-in ", 9) == 0 && strstr(t.source, t.builtin));
    }
    if (strstr(t_devinfo.platform_name, "Portable Computing Language")
        && t_devinfo.type == CLM_DEVICE_CPU && !EXPECT(strcmp(t.builtin, "PoCL CPU") == 0))
        t_note("built-in row \"%s\" for PoCL's CPU device", t.builtin);
    snprintf(want, sizeof want, "wg=%u,chunk=%u,", wg, chunk);
    if (!EXPECT(strncmp(t.values, want, strlen(want)) == 0)) t_note("values \"%s\"", t.values);
    /* the runner's empty profile directory: looked in, nothing found, nothing to warn about */
    EXPECT(!t.profile_used && t.profile_warning[0] == '\0');
    if (dir && *dir && !EXPECT(strncmp(t.profile_path, dir, strlen(dir)) == 0))
        t_note("profile path %s is not under CLMATCH_PROFILE_DIR=%s", t.profile_path, dir);
    EXPECT(strlen(t.profile_path) > 8
           && strcmp(t.profile_path + strlen(t.profile_path) - 8, ".profile") == 0);
    EXPECT(t.algorithm_work_group_size[CLM_ALGO_DFA] == 0
           && t.algorithm_bytes_per_item[CLM_ALGO_DFA] == 0);
    EXPECT_RC(clm_device_get_tuning(NULL, &t), CLM_E_INVALID);
    EXPECT_RC(clm_device_get_tuning(t_dev, NULL), CLM_E_INVALID);
}

/* ---- CLMATCH_TUNE ---------------------------------------------------------------------- */

/* Does text contain every '|'-separated piece of pieces? */
static int has_all(const char *text, const char *pieces)
{
    char piece[256];
    while (*pieces) {
        size_t n = strcspn(pieces, "|");
        snprintf(piece, sizeof piece, "%.*s", (int)n, pieces);
        if (!strstr(text, piece)) return 0;
        pieces += n;
        if (*pieces == '|') pieces++;
    }
    return 1;
}

static void test_env_items(const void *arg)
{
    /* Each bad item: clm_device_open fails with CLM_E_INVALID and names it. */
    static const char *const bad[][2] = {
        {"wg=100", "wg=100"},            /* neither a power of two nor a multiple of 16 */
        {"wg=0", "wg=0"},
        {"chunk=100", "chunk=100"},      /* not a multiple of 16 */
        {"chunk=2M", "chunk=2M"},        /* above 1 MiB */
        {"slab=4097", "slab=4097"},      /* not whole pages */
        {"slab=2G", "slab=2G"},          /* above CLM_MAX_SLAB_BYTES */
        {"wg=64,foo=1", "foo=1"},
        {"dfa.slab=4K", "dfa.slab"},     /* no per-algorithm slab */
        {"auto.wg=16", "auto.wg"},
        {"dfa2.chunk=64", "dfa2"},
        {"wg", "'wg'"},
        {"wg=", "wg="},
        {"wg=16x", "16x"},
        {"wg=99999999999999999999", "wg=99999999999999999999"},
        {"chunk=64,chunk=128", "chunk=128"},
        {"wg=1048576", "wg=1048576"},    /* above every device's maximum */
    };
    static const char *const good[][2] = {
        {"wg=32", "wg=32,"},
        {" wg = 48 , chunk=1K ,", "wg=48,chunk=1024,"},
        {"slab=8M,bitap.chunk=8192,kmp.wg=16", "slab=8M,|kmp.wg=16,bitap.chunk=8192"},
    };
    env_saved saved;
    size_t i;
    (void)arg;
    env_save(&saved);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clm_device *dev = NULL;
        int rc;
        env_set("CLMATCH_TUNE", bad[i][0]);
        rc = open_dev(&dev);
        if (!EXPECT_RC(rc, CLM_E_INVALID)) {
            clm_device_close(dev);
            continue;
        }
        EXPECT(dev == NULL);
        if (!EXPECT(strstr(clm_last_error(), "CLMATCH_TUNE") && strstr(clm_last_error(), bad[i][1])))
            t_note("CLMATCH_TUNE=%s: detail \"%s\" does not name '%s'", bad[i][0],
                   clm_last_error(), bad[i][1]);
    }
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        clm_device *dev = NULL;
        clm_tuning t;
        env_set("CLMATCH_TUNE", good[i][0]);
        if (!EXPECT_RC(open_dev(&dev), CLM_OK)) continue;
        if (EXPECT_RC(clm_device_get_tuning(dev, &t), CLM_OK)
            && !EXPECT(has_all(t.values, good[i][1]) && strstr(t.source, "CLMATCH_TUNE")))
            t_note("CLMATCH_TUNE=\"%s\": values \"%s\" from \"%s\", want \"%s\"", good[i][0],
                   t.values, t.source, good[i][1]);
        clm_device_close(dev);
    }
    env_restore(&saved);
}

/* ---- profiles, precedence and results ------------------------------------------------------ */

typedef struct {
    unsigned char *text;
    size_t n;
    const unsigned char *pats[1];
    size_t lens[1];
    t_matches want;
} ref_case;

/* A random DNA text with many copies of a pattern of m bytes taken from it. */
static void ref_case_init(ref_case *c, size_t m)
{
    size_t i;
    t_rng r;
    t_patset ps;
    c->n = 65536;
    c->text = malloc(c->n);
    if (!c->text) abort();
    t_rng_init(&r, "tune", 0);
    t_fill(&r, c->text, c->n, 4);
    c->lens[0] = m;
    c->pats[0] = c->text + 1000; /* occurs, and is planted across many range ends */
    for (i = 4093; i + m < c->n; i += 4093 + 16 * (i % 7)) memcpy(c->text + i, c->pats[0], m);
    t_matches_init(&c->want);
    ps.pats = c->pats;
    ps.lens = c->lens;
    ps.ids = NULL;
    ps.count = 1;
    ps.caseless = 0;
    t_reference(c->text, c->n, &ps, &c->want);
}

static void ref_case_free(ref_case *c)
{
    t_matches_free(&c->want);
    free(c->text);
}

/* Compile c's pattern on dev for algo (explicit wg and bpi when non-zero); expect the shape
 * (wg, chunk) in clm_database_info, and the reference's matches from a scan. */
static void expect_shape(clm_device *dev, ref_case *c, clm_algorithm algo, unsigned wg,
                         unsigned bpi, unsigned want_wg, unsigned want_chunk, const char *what)
{
    clm_compile_options o;
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_database_info di;
    t_matches got;
    char diff[512];
    clm_compile_options_init(&o);
    o.algorithm = algo;
    o.work_group_size = wg;
    o.bytes_per_item = bpi;
    t_matches_init(&got);
    if (!EXPECT_RC(clm_compile(dev, (const char *const *)c->pats, c->lens, NULL, 1, &o, &db),
                   CLM_OK)) {
        t_note("%s: %s", what, clm_algorithm_name(algo));
        return;
    }
    if (EXPECT_RC(clm_database_get_info(db, &di), CLM_OK)
        && !EXPECT(di.work_group_size == want_wg && di.bytes_per_item == want_chunk))
        t_note("%s: %s got work-group size %u, %u bytes per item; want %u, %u", what,
               clm_algorithm_name(algo), di.work_group_size, di.bytes_per_item, want_wg,
               want_chunk);
    /* a tuned shape must never change results (16 KiB slabs: several) */
    if (t_scratch_alloc(db, &s, 16384, 0, what)
        && EXPECT_RC(clm_scan(db, s, c->text, c->n, t_collect, &got), CLM_OK)
        && !EXPECT(!t_matches_diff(&got, &c->want, diff, sizeof diff)))
        t_note("%s: %s (wg %u, chunk %u): %s", what, clm_algorithm_name(algo),
               di.work_group_size, di.bytes_per_item, diff);
    t_matches_free(&got);
    clm_scratch_free(s);
    clm_database_free(db);
}

static void test_profile_precedence(const void *arg)
{
    env_saved saved;
    char *dir = t_tempdir("tune");
    clm_device *dev = NULL;
    clm_tuning t;
    char text[4096];
    ref_case c;
    (void)arg;
    REQUIRE(dir != NULL);
    env_save(&saved);
    ref_case_init(&c, 13);
    env_set("CLMATCH_PROFILE_DIR", dir);
    env_set("CLMATCH_TUNE", NULL);
    env_set("CLMATCH_PROFILE", NULL);

    /* no profile yet: built-in values, and where the profile would be */
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    EXPECT_RC(clm_device_get_tuning(dev, &t), CLM_OK);
    EXPECT(!t.profile_used && strncmp(t.profile_path, dir, strlen(dir)) == 0);
    /* the writer checks its values as CLMATCH_TUNE is checked */
    EXPECT_RC(clm_tuning_write_profile(dev, "wg=33", NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_tuning_format_profile(dev, "wg=32", NULL, text, 16), CLM_E_INVALID);
    if (EXPECT_RC(clm_tuning_format_profile(dev, "wg=32,chunk=512", "a\nb", text, sizeof text),
                  CLM_OK))
        EXPECT(strncmp(text, "clmatch-profile 1 device=\"", 26) == 0
               && strstr(text, "\n# a\n# b\nwg = 32\nchunk = 512\n"));
    EXPECT_RC(clm_tuning_write_profile(dev, "wg=32,chunk=512,dfa.chunk=1024,bmh.chunk=64",
                                       "test profile", NULL), CLM_OK);
    clm_device_close(dev);
    dev = NULL;

    /* the profile is picked up by the next open */
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    if (EXPECT_RC(clm_device_get_tuning(dev, &t), CLM_OK)
        && !EXPECT(t.profile_used && t.profile_warning[0] == '\0'
                   && strstr(t.source, t.profile_path) && t.work_group_size == 32
                   && t.work_group_size_source == CLM_TUNING_PROFILE && t.bytes_per_item == 512
                   && t.algorithm_bytes_per_item[CLM_ALGO_DFA] == 1024
                   && t.algorithm_bytes_per_item[CLM_ALGO_KMP] == 0))
        t_note("with a profile: %s from %s; warning \"%s\"", t.values, t.source,
               t.profile_warning);
    /* per-algorithm values only for their algorithm; bmh.chunk as it is */
    expect_shape(dev, &c, CLM_ALGO_KMP, 0, 0, 32, 512, "profile");
    expect_shape(dev, &c, CLM_ALGO_DFA, 0, 0, 32, 1024, "profile");
    expect_shape(dev, &c, CLM_ALGO_BMH, 0, 0, 32, 64, "profile");
    clm_device_close(dev);
    dev = NULL;

    /* CLMATCH_TUNE over the profile: its global chunk replaces the profile's dfa.chunk and
     * bmh.chunk (bmh is back to m + 32 = 45, rounded to 48); the profile's wg stays */
    env_set("CLMATCH_TUNE", "chunk=256,dfa.wg=64,bitap.chunk=16");
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    if (EXPECT_RC(clm_device_get_tuning(dev, &t), CLM_OK)
        && !EXPECT(t.profile_used && t.bytes_per_item_source == CLM_TUNING_ENV
                   && t.work_group_size_source == CLM_TUNING_PROFILE
                   && strstr(t.source, "CLMATCH_TUNE")))
        t_note("profile + CLMATCH_TUNE: %s from %s", t.values, t.source);
    expect_shape(dev, &c, CLM_ALGO_DFA, 0, 0, 64, 256, "CLMATCH_TUNE");
    expect_shape(dev, &c, CLM_ALGO_BMH, 0, 0, 32, 48, "CLMATCH_TUNE");
    /* bitap.chunk=16 is raised to 4 x (13 - 1): the re-read overlap stays small */
    expect_shape(dev, &c, CLM_ALGO_BITAP, 0, 0, 32, 48, "CLMATCH_TUNE");
    /* explicit options win over everything */
    expect_shape(dev, &c, CLM_ALGO_DFA, 16, 2048, 16, 2048, "explicit options");
    clm_device_close(dev);
    dev = NULL;

    /* CLMATCH_PROFILE=off: no profile, no warning */
    env_set("CLMATCH_TUNE", NULL);
    env_set("CLMATCH_PROFILE", "off");
    if (EXPECT_RC(open_dev(&dev), CLM_OK) && EXPECT_RC(clm_device_get_tuning(dev, &t), CLM_OK))
        EXPECT(!t.profile_used && t.work_group_size_source != CLM_TUNING_PROFILE
               && t.profile_warning[0] == '\0');
    clm_device_close(dev);
    dev = NULL;
out:
    clm_device_close(dev);
    env_restore(&saved);
    ref_case_free(&c);
    t_rmtree(dir);
    free(dir);
}

/* A profile that is for another device or driver, or has a bad line, is not used: the device
 * opens with the built-in values and the warning names the file, the line and the fault. */
static void test_bad_profiles(const void *arg)
{
    static const struct {
        const char *body;   /* after the header; "!" + text: the whole file */
        const char *expect; /* in the warning; NULL: the profile is used */
    } cases[] = {
        {"# a comment\r\n\r\nwg = 32  # trailing comment\r\n   chunk=1024\n", NULL},
        {"wg = 32\nchunk = 1024\nspeed = 11\n", "line 4: unknown key 'speed'"},
        {"wg = 32\nchunk = 100\n", "line 3: bytes per work-item 100"},
        {"wg 32\n", "line 2: 'wg 32' is not key=value"},
        {"wg = 32\nwg = 64\n", "line 3: 'wg' is set twice"},
        {"dfa.slab = 64M\n", "line 2: slab has no per-algorithm value"},
        {"!wg = 32\n", "line 1: not a clmatch profile header"},
        {"!clmatch-profile 2 device=\"x\" driver=\"y\"\nwg = 32\n", "format version 2"},
        {"!clmatch-profile 1 device=\"Another Device\" driver=\"1.0\"\nwg = 32\n",
         "line 1: measured on \"Another Device\" driver \"1.0\""},
        {"!clmatch-profile 1 device=\"\n", "line 1: malformed header"},
        {"!", "empty file"},
    };
    env_saved saved;
    char *dir = t_tempdir("tune-bad");
    clm_device *dev = NULL;
    clm_tuning builtin, t;
    char header[1024], body[2048], path[1024];
    size_t i;
    (void)arg;
    REQUIRE(dir != NULL);
    env_save(&saved);
    env_set("CLMATCH_PROFILE_DIR", dir);
    env_set("CLMATCH_TUNE", NULL);
    env_set("CLMATCH_PROFILE", NULL);
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    clm_device_get_tuning(dev, &builtin);
    snprintf(path, sizeof path, "%s", builtin.profile_path);
    /* this device's header, as the writer makes it (no values, no comment) */
    EXPECT_RC(clm_tuning_format_profile(dev, "", NULL, header, sizeof header), CLM_OK);
    clm_device_close(dev);
    dev = NULL;
    /* the same header but another driver version */
    {
        char *drv = strstr(header, "driver=\"");
        if (EXPECT(drv != NULL)) {
            snprintf(body, sizeof body, "%.*sdriver=\"0.0-other\"\nwg = 32\n",
                     (int)(drv - header), header);
            if (EXPECT(write_file(path, body) == 0) && EXPECT_RC(open_dev(&dev), CLM_OK)) {
                clm_device_get_tuning(dev, &t);
                if (!EXPECT(!t.profile_used && strstr(t.profile_warning, "0.0-other")
                            && t.work_group_size == builtin.work_group_size))
                    t_note("other driver: used %d, warning \"%s\"", t.profile_used,
                           t.profile_warning);
                clm_device_close(dev);
                dev = NULL;
            }
        }
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *b = cases[i].body;
        if (b[0] == '!')
            snprintf(body, sizeof body, "%s", b + 1);
        else
            snprintf(body, sizeof body, "%s%s", header, b);
        if (!EXPECT(write_file(path, body) == 0)) break;
        if (!EXPECT_RC(open_dev(&dev), CLM_OK)) continue;
        clm_device_get_tuning(dev, &t);
        if (cases[i].expect == NULL) {
            if (!EXPECT(t.profile_used && t.profile_warning[0] == '\0' && t.work_group_size == 32
                        && t.bytes_per_item == 1024))
                t_note("case %zu: a good profile was not used: %s (\"%s\")", i, t.values,
                       t.profile_warning);
        } else if (!EXPECT(!t.profile_used && strstr(t.profile_warning, path)
                           && strstr(t.profile_warning, cases[i].expect)
                           && strcmp(t.values, builtin.values) == 0
                           && t.work_group_size_source != CLM_TUNING_PROFILE)) {
            t_note("case %zu: used %d, values %s, warning \"%s\"; want \"%s\"", i,
                   t.profile_used, t.values, t.profile_warning, cases[i].expect);
        }
        clm_device_close(dev);
        dev = NULL;
    }
out:
    clm_device_close(dev);
    env_restore(&saved);
    t_rmtree(dir);
    free(dir);
}

/* Witness with work-group sizes that are no power of two (a tuning may pick 48): its blocks
 * of GS work-items must tile the group. A 40-byte pattern duels in blocks of up to 20
 * positions, GS 32: with wg 24 and 40 the duel tree used to lose candidates. */
static void test_witness_wg(const void *arg)
{
    static const unsigned wgs[] = {24, 40};
    ref_case c;
    size_t i;
    (void)arg;
    ref_case_init(&c, 40);
    for (i = 0; i < sizeof wgs / sizeof wgs[0]; i++)
        if (wgs[i] <= t_devinfo.max_work_group_size)
            expect_shape(t_dev, &c, CLM_ALGO_WITNESS, wgs[i], 512, wgs[i], 512, "witness wg");
    ref_case_free(&c);
}

void register_tune_tests(void)
{
    t_register("tune.builtin", test_builtin, NULL, 1);
    t_register("tune.env_items", test_env_items, NULL, 1);
    t_register("tune.profile_precedence", test_profile_precedence, NULL, 1);
    t_register("tune.bad_profiles", test_bad_profiles, NULL, 1);
    t_register("tune.witness_wg", test_witness_wg, NULL, 1);
}
