/*
 * Tuning (clmatch.h, "Tuning"): the built-in values by device type, CLMATCH_TUNE items, the
 * profile file (written by clm_tuning_write_profile, found in CLMATCH_PROFILE_DIR, ignored
 * with a reason when it is for another device or has a bad line), the precedence built-in <
 * profile < CLMATCH_STAGING < CLMATCH_TUNE < clm_compile_options, per-algorithm values, and
 * that every tuned shape still finds exactly the reference's matches. The stage and vec
 * knobs: their sources, staged or unstaged kernels as asked, and every load width against
 * the reference on texts whose matches straddle work-item, work-group and slab edges.
 *
 * The runner gives the suite an empty CLMATCH_PROFILE_DIR and no CLMATCH_TUNE; these tests
 * set both on their own for the devices they open, and put them back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "t_ref.h"

/* ---- environment ------------------------------------------------------------------------ */

static const char *const env_names[] = {"CLMATCH_TUNE", "CLMATCH_PROFILE_DIR", "CLMATCH_PROFILE",
                                        "CLMATCH_STAGING"};
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

/* Save the tuning's environment and point it at an empty profile directory: no CLMATCH_TUNE,
 * profiles on. */
static void profile_env(env_saved *saved, const char *dir)
{
    env_save(saved);
    env_set("CLMATCH_PROFILE_DIR", dir);
    env_set("CLMATCH_TUNE", NULL);
    env_set("CLMATCH_PROFILE", NULL);
}

/* The device under test's tuning (where it looks for its profile: t->profile_path) and the
 * header the writer gives its profile (no values, no comment). */
static int this_profile(clm_tuning *t, char *header, size_t header_cap)
{
    clm_device *dev = NULL;
    if (!EXPECT_RC(open_dev(&dev), CLM_OK))
        return -1;
    int ok = EXPECT_RC(clm_device_get_tuning(dev, t, sizeof *t), CLM_OK) &&
             EXPECT_RC(clm_tuning_format_profile(dev, "", NULL, header, header_cap), CLM_OK);
    clm_device_close(dev);
    return ok ? 0 : -1;
}

/* The tuning algo's kernels get on dev (zeroed, a failure recorded, when there is none). */
static clm_tuning algo_tuning(const clm_device *dev, clm_algorithm algo)
{
    clm_tuning t;
    memset(&t, 0, sizeof t);
    if (EXPECT_RC(clm_device_get_algorithm_tuning(dev, algo, &t, sizeof t), CLM_OK))
        EXPECT(t.algorithm == algo);
    return t;
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

    REQUIRE_RC(clm_device_get_tuning(t_dev, &t, sizeof t), CLM_OK);
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
    /* no built-in row sets dfa's own: it gets the device-wide values, from their source */
    {
        clm_tuning d = algo_tuning(t_dev, CLM_ALGO_DFA);
        EXPECT(t.algorithm == CLM_ALGO_AUTO && d.work_group_size == t.work_group_size
               && d.bytes_per_item == t.bytes_per_item
               && d.work_group_size_source == t.work_group_size_source
               && d.bytes_per_item_source == t.bytes_per_item_source
               && strcmp(d.values, t.values) == 0 && strcmp(d.source, t.source) == 0);
    }
    /* staging: on for GPUs whose local memory is on chip, off for CPUs; 16-byte loads */
    {
        int stage = gpu && t_devinfo.local_mem_dedicated;
        const char *sv = getenv("CLMATCH_STAGING");
        if (sv && *sv) /* the suite run with CLMATCH_STAGING: it wins over the built-in row */
            stage = strcmp(sv, "off") != 0 && strcmp(sv, "0") != 0;
        if (!EXPECT(t.stage == stage && t.vector_width == 16))
            t_note("stage %d, vec %u; want %d, 16 (%s)", t.stage, t.vector_width, stage, t.values);
        EXPECT(t.vector_width_source == CLM_TUNING_BUILTIN || t_devinfo.type == CLM_DEVICE_OTHER);
        EXPECT(t.stage_source == (sv && *sv ? CLM_TUNING_ENV : CLM_TUNING_BUILTIN)
               || t_devinfo.type == CLM_DEVICE_OTHER);
        EXPECT(strstr(t.values, stage ? ",stage=on," : ",stage=off,") && strstr(t.values, ",vec=16"));
        EXPECT(algo_tuning(t_dev, CLM_ALGO_BITAP).stage == t.stage
               && algo_tuning(t_dev, CLM_ALGO_KMP).vector_width == t.vector_width);
    }
    EXPECT_RC(clm_device_get_tuning(NULL, &t, sizeof t), CLM_E_INVALID);
    EXPECT_RC(clm_device_get_tuning(t_dev, NULL, sizeof t), CLM_E_INVALID);
    EXPECT_RC(clm_device_get_algorithm_tuning(t_dev, (clm_algorithm)clm_algorithm_count(), &t,
                                              sizeof t),
              CLM_E_INVALID);
    EXPECT_RC(clm_device_get_algorithm_tuning(NULL, CLM_ALGO_DFA, &t, sizeof t), CLM_E_INVALID);
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
    /* item, what the detail must quote, and the reason it must give ("" : any) */
    static const char *const bad[][3] = {
        {"wg=100", "wg=100", ""},            /* neither a power of two nor a multiple of 16 */
        {"wg=0", "wg=0", ""},
        {"chunk=100", "chunk=100", ""},      /* not a multiple of 16 */
        {"chunk=2M", "chunk=2M", ""},        /* above 1 MiB */
        {"slab=4097", "slab=4097", ""},      /* not whole pages */
        {"slab=2G", "slab=2G", ""},          /* above CLM_MAX_SLAB_BYTES */
        {"wg=64,foo=1", "foo=1", "unknown key 'foo' (known: wg, chunk, slab, stage, vec"},
        {"dfa.slab=4K", "dfa.slab", ""},     /* no per-algorithm slab */
        {"auto.wg=16", "auto.wg", ""},
        {"dfa2.chunk=64", "dfa2", ""},
        {"wg", "'wg'", ""},
        {"wg=", "wg=", ""},
        {"wg=16x", "16x", ""},
        {"wg=99999999999999999999", "wg=99999999999999999999", ""},
        {"chunk=64,chunk=128", "chunk=128", ""},
        {"wg=1048576", "wg=1048576", ""},    /* above every device's maximum */
        {"stage=maybe", "stage=maybe", "'maybe' is not on, off, 1 or 0 for stage"},
        {"stage=2", "stage=2", "'2' is not on, off, 1 or 0"},
        {"stage=", "stage=", "not on, off"},
        {"stage=ON", "stage=ON", "not on, off"},
        {"bitap.stage=yes", "bitap.stage=yes", "'yes' is not on, off, 1 or 0 for bitap.stage"},
        {"stage=on,stage=off", "stage=off", "set twice"},
        {"vec=12", "vec=12", "bytes per load 12 is not 4, 8 or 16 (uint, uint2 or uint4 loads)"},
        {"vec=2", "vec=2", "bytes per load 2 is not 4, 8 or 16"},
        {"vec=32", "vec=32", "bytes per load 32 is not 4, 8 or 16"},
        {"vec=0", "vec=0", "is not 4, 8 or 16"},
        {"vec=on", "vec=on", "is no number for vec"},
        {"dfa.vec=3", "dfa.vec=3", "bytes per load 3 is not 4, 8 or 16"},
    };
    static const char *const good[][2] = {
        {"wg=32", "wg=32,"},
        {" wg = 48 , chunk=1K ,", "wg=48,chunk=1024,"},
        {"slab=8M,bitap.chunk=8192,kmp.wg=16", "slab=8M,|kmp.wg=16,bitap.chunk=8192"},
        {"stage=on,vec=8", ",stage=on,vec=8"},
        {"stage=0 , vec=4,dfa.stage=1,bitap.vec=16", ",stage=off,vec=4,|dfa.stage=on,bitap.vec=16"},
        {"dfa.vec=8,kmp.stage=off", "kmp.stage=off,dfa.vec=8"},
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
        if (!EXPECT(strstr(clm_last_error(), "CLMATCH_TUNE") && strstr(clm_last_error(), bad[i][1])
                    && strstr(clm_last_error(), bad[i][2])))
            t_note("CLMATCH_TUNE=%s: detail \"%s\" does not name '%s' and '%s'", bad[i][0],
                   clm_last_error(), bad[i][1], bad[i][2]);
    }
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        clm_device *dev = NULL;
        clm_tuning t;
        env_set("CLMATCH_TUNE", good[i][0]);
        if (!EXPECT_RC(open_dev(&dev), CLM_OK)) continue;
        if (EXPECT_RC(clm_device_get_tuning(dev, &t, sizeof t), CLM_OK)
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
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = algo;
    o.work_group_size = wg;
    o.bytes_per_item = bpi;
    /* staging may halve a work-group whose region does not fit local memory (oclgrind's
     * 32 KiB: a profile's wg=32 with dfa.chunk=1024 ran with 16): not what is checked here */
    o.staging = CLM_OFF;
    t_matches_init(&got);
    if (!EXPECT_RC(clm_compile(dev, (const char *const *)c->pats, c->lens, NULL, 1, &o, &db),
                   CLM_OK)) {
        t_note("%s: %s", what, clm_algorithm_name(algo));
        return;
    }
    if (EXPECT_RC(clm_database_get_info(db, &di, sizeof di), CLM_OK)
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
    profile_env(&saved, dir);
    ref_case_init(&c, 13);

    /* no profile yet: built-in values, and where the profile would be */
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    EXPECT_RC(clm_device_get_tuning(dev, &t, sizeof t), CLM_OK);
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
    if (EXPECT_RC(clm_device_get_tuning(dev, &t, sizeof t), CLM_OK)
        && !EXPECT(t.profile_used && t.profile_warning[0] == '\0'
                   && strstr(t.source, t.profile_path) && t.work_group_size == 32
                   && t.work_group_size_source == CLM_TUNING_PROFILE && t.bytes_per_item == 512
                   && algo_tuning(dev, CLM_ALGO_DFA).bytes_per_item == 1024
                   && algo_tuning(dev, CLM_ALGO_DFA).bytes_per_item_source == CLM_TUNING_PROFILE
                   && algo_tuning(dev, CLM_ALGO_KMP).bytes_per_item == 512))
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
    if (EXPECT_RC(clm_device_get_tuning(dev, &t, sizeof t), CLM_OK)
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
    if (EXPECT_RC(open_dev(&dev), CLM_OK)
        && EXPECT_RC(clm_device_get_tuning(dev, &t, sizeof t), CLM_OK))
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
        {"wg = 32\nchunk = 1024\ncolour = 11\n", "line 4: unknown key 'colour'"},
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
    profile_env(&saved, dir);
    if (this_profile(&builtin, header, sizeof header) != 0) goto out;
    snprintf(path, sizeof path, "%s", builtin.profile_path);
    /* the same header but another driver version */
    {
        char *drv = strstr(header, "driver=\"");
        if (EXPECT(drv != NULL)) {
            snprintf(body, sizeof body, "%.*sdriver=\"0.0-other\"\nwg = 32\n",
                     (int)(drv - header), header);
            if (EXPECT(write_file(path, body) == 0) && EXPECT_RC(open_dev(&dev), CLM_OK)) {
                clm_device_get_tuning(dev, &t, sizeof t);
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
        clm_device_get_tuning(dev, &t, sizeof t);
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

/* ---- profiles that are no text, or no file ------------------------------------------------ */

static int write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return -1;
    ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The warning is printed: it must hold no terminal controls, no line break, no raw byte
 * beyond ASCII. */
static int printable_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) return 0;
    return 1;
}

/* Bytes of the file quoted in the warning are escaped (\xNN). */
static void test_profile_escape(const void *arg)
{
#define CASE(lit, expect) {lit, sizeof lit - 1, expect}
    static const struct {
        const char *body; /* "!" + text: the whole file, else after this device's header */
        size_t len;
        const char *expect;
    } cases[] = {
        CASE("!clmatch-profile 1 device=\"Evil\x1b[2J\xff\" driver=\"1\"\n",
             "measured on \"Evil\\x1b[2J\\xff\" driver \"1\""),
        CASE("wg = 3\x1b]0;title\x07\n", "'3\\x1b]0;title\\x07' is no number"),
        CASE("\xff\xfe = 1\n", "unknown key '\\xff\\xfe'"),
        CASE("chunk = 32\r64\n", "'32\\x0d64' is no number"),
        CASE("!clmatch-profile 1 device=\"a\0b\" driver=\"1\"\n", "contains a NUL byte"),
        CASE("!clmatch-profile 1 device=\"a\nb\" driver=\"1\"\n", "line 1: malformed header"),
    };
#undef CASE
    env_saved saved;
    char *dir = t_tempdir("tune-escape");
    clm_device *dev = NULL;
    clm_tuning t;
    char header[1024], body[2048], path[1024];
    size_t i, hl;
    (void)arg;
    REQUIRE(dir != NULL);
    profile_env(&saved, dir);
    if (this_profile(&t, header, sizeof header) != 0) goto out;
    snprintf(path, sizeof path, "%s", t.profile_path);
    hl = strlen(header);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *b = cases[i].body;
        size_t n = 0;
        if (b[0] == '!') {
            n = cases[i].len - 1;
            memcpy(body, b + 1, n);
        } else {
            memcpy(body, header, hl);
            memcpy(body + hl, b, cases[i].len);
            n = hl + cases[i].len;
        }
        if (!EXPECT(write_bytes(path, body, n) == 0)) break;
        if (!EXPECT_RC(open_dev(&dev), CLM_OK)) continue;
        clm_device_get_tuning(dev, &t, sizeof t);
        if (!EXPECT(!t.profile_used && printable_line(t.profile_warning)
                    && strstr(t.profile_warning, cases[i].expect)))
            t_note("case %zu: used %d, warning \"%s\"; want \"%s\"", i, t.profile_used,
                   t.profile_warning, cases[i].expect);
        clm_device_close(dev);
        dev = NULL;
    }
out:
    clm_device_close(dev);
    env_restore(&saved);
    t_rmtree(dir);
    free(dir);
}

/* The profile path is a FIFO, a directory, then a device file (a link to /dev/null): the
 * device opens, with the built-in values and a warning that says what the path is. Opening
 * a FIFO for reading used to wait for a writer: every run hung (hence a child, killed by
 * an alarm if it hangs). CLMATCH_PROFILE_DIR comes from the parent. */
static int child_profile_special(const char *arg)
{
    static const char *const kinds[] = {"a FIFO", "a directory", "a device file"};
    clm_device *dev = NULL;
    clm_tuning t;
    char path[1024];
    int i;
    (void)arg;
    alarm(60);
    if (!EXPECT_RC(clm_device_open(-1, -1, &dev), CLM_OK)) return 1;
    clm_device_get_tuning(dev, &t, sizeof t);
    snprintf(path, sizeof path, "%s", t.profile_path);
    clm_device_close(dev);
    for (i = 0; i < 3; i++) {
        int made = i == 0 ? mkfifo(path, 0644) : i == 1 ? mkdir(path, 0755)
                                                        : symlink("/dev/null", path);
        if (!EXPECT(made == 0)) continue;
        if (EXPECT_RC(clm_device_open(-1, -1, &dev), CLM_OK)) {
            clm_device_get_tuning(dev, &t, sizeof t);
            if (!EXPECT(!t.profile_used && strstr(t.profile_warning, kinds[i])
                        && strstr(t.profile_warning, "not a regular file")
                        && t.work_group_size_source != CLM_TUNING_PROFILE))
                t_note("%s: used %d, warning \"%s\"", kinds[i], t.profile_used,
                       t.profile_warning);
            clm_device_close(dev);
            dev = NULL;
        }
        if (i == 1 ? rmdir(path) != 0 : remove(path) != 0) T_FAIL("cannot remove %s", path);
    }
    return 0;
}

static void test_profile_special(const void *arg)
{
    char *dir = t_tempdir("tune-special");
    char env_dir[1100];
    const char *env[3];
    int rc;
    (void)arg;
    REQUIRE(dir != NULL);
    snprintf(env_dir, sizeof env_dir, "CLMATCH_PROFILE_DIR=%s", dir);
    env[0] = env_dir;
    env[1] = "CLMATCH_PROFILE";
    env[2] = NULL;
    if ((rc = t_run_child("profile_special", NULL, env)) != 0)
        T_FAIL("child failed (status %d; see # lines above)", rc);
    t_rmtree(dir);
    free(dir);
}

/* Threads that write the same profile at once each write a file of their own, renamed over
 * the profile: every write succeeds and the profile is whole. (They used to share one
 * temporary name per process.) */
typedef struct {
    clm_device *dev;
    int failures;
    char detail[300];
} writer_job;

static void *profile_writer(void *arg)
{
    writer_job *j = arg;
    int i;
    for (i = 0; i < 40; i++) {
        if (clm_tuning_write_profile(j->dev, "wg=32,chunk=1024", "one of several writers", NULL)
            != CLM_OK && j->failures++ == 0)
            snprintf(j->detail, sizeof j->detail, "%s", clm_last_error());
    }
    return NULL;
}

static void test_profile_writers(const void *arg)
{
    env_saved saved;
    char *dir = t_tempdir("tune-writers");
    clm_device *dev = NULL;
    clm_tuning t;
    pthread_t th[4];
    writer_job jobs[4];
    int started = 0, i;
    char **list = NULL;
    size_t files;
    (void)arg;
    REQUIRE(dir != NULL);
    profile_env(&saved, dir);
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    for (i = 0; i < 4; i++) {
        jobs[i].dev = dev;
        jobs[i].failures = 0;
        jobs[i].detail[0] = '\0';
    }
    while (started < 4 && EXPECT(pthread_create(&th[started], NULL, profile_writer,
                                                &jobs[started]) == 0))
        started++;
    for (i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        if (!EXPECT(jobs[i].failures == 0))
            t_note("writer %d: %d of 40 writes failed: %s", i, jobs[i].failures, jobs[i].detail);
    }
    clm_device_close(dev);
    dev = NULL;
    files = t_list_files(dir, &list);
    if (!EXPECT(files == 1)) t_note("%zu files in the profile directory", files);
    t_free_list(list, files);
    if (EXPECT_RC(open_dev(&dev), CLM_OK) && EXPECT_RC(clm_device_get_tuning(dev, &t, sizeof t), CLM_OK)
        && !EXPECT(t.profile_used && t.work_group_size == 32 && t.bytes_per_item == 1024))
        t_note("the profile written: used %d, %s, warning \"%s\"", t.profile_used, t.values,
               t.profile_warning);
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


/* ---- stage and vec ------------------------------------------------------------------------ */

/* The device under test opened again; its tuning into *t. */
/* Open the device under test and take its tuning: device-wide into *t and, with a != NULL,
 * each algorithm's into a[algo] (a[CLM_ALGO_AUTO] as *t). */
static int open_tunings(clm_tuning *t, clm_tuning *a)
{
    clm_device *dev = NULL;
    int rc = open_dev(&dev);
    if (rc == CLM_OK) {
        clm_device_get_tuning(dev, t, sizeof *t);
        for (int i = 0; a && i <= CLM_ALGO_WITNESS; i++)
            a[i] = algo_tuning(dev, (clm_algorithm)i);
        clm_device_close(dev);
    }
    return rc;
}

static int open_tuning(clm_tuning *t)
{
    return open_tunings(t, NULL);
}

/* Where stage and vec come from: CLMATCH_TUNE (global and per algorithm), CLMATCH_STAGING
 * (an alias of a stage item just before CLMATCH_TUNE: over the profile, under CLMATCH_TUNE),
 * a profile with the new keys, a profile written before they existed, bad values. */
static void test_stage_vec_sources(const void *arg)
{
    env_saved saved;
    char *dir = t_tempdir("tune-sv");
    clm_device *dev = NULL;
    clm_tuning t, a[CLM_ALGO_WITNESS + 1];
    char header[1024], body[2048];
    (void)arg;
    REQUIRE(dir != NULL);
    env_save(&saved);
    env_set("CLMATCH_PROFILE_DIR", dir);
    env_set("CLMATCH_PROFILE", NULL);
    env_set("CLMATCH_STAGING", NULL);

    env_set("CLMATCH_TUNE", "stage=on,vec=8,dfa.vec=4,bitap.stage=off");
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK)
        && !EXPECT(t.stage == 1 && t.stage_source == CLM_TUNING_ENV && t.vector_width == 8
                   && t.vector_width_source == CLM_TUNING_ENV
                   && a[CLM_ALGO_DFA].vector_width == 4 && a[CLM_ALGO_KMP].vector_width == 8
                   && a[CLM_ALGO_BITAP].stage == 0 && a[CLM_ALGO_DFA].stage == 1
                   && strstr(t.source, "CLMATCH_TUNE")
                   && !strstr(t.source, "CLMATCH_STAGING")))
        t_note("CLMATCH_TUNE: %s from %s", t.values, t.source);

    /* CLMATCH_STAGING alone: stage from the environment, named as such */
    env_set("CLMATCH_TUNE", NULL);
    env_set("CLMATCH_STAGING", "off");
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK)
        && !EXPECT(t.stage == 0 && t.stage_source == CLM_TUNING_ENV
                   && t.vector_width_source != CLM_TUNING_ENV
                   && strstr(t.source, ", CLMATCH_STAGING") && !strstr(t.source, "CLMATCH_TUNE")
                   && strstr(t.values, ",stage=off,")))
        t_note("CLMATCH_STAGING=off: %s from %s", t.values, t.source);
    env_set("CLMATCH_STAGING", "1");
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK) && !EXPECT(t.stage == 1))
        t_note("CLMATCH_STAGING=1: %s from %s", t.values, t.source);
    /* CLMATCH_TUNE wins over it: its global stage, its per-algorithm stage on top */
    env_set("CLMATCH_STAGING", "on");
    env_set("CLMATCH_TUNE", "stage=off");
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK)
        && !EXPECT(t.stage == 0 && strstr(t.source, "CLMATCH_STAGING, CLMATCH_TUNE")))
        t_note("CLMATCH_STAGING=on, CLMATCH_TUNE=stage=off: %s from %s", t.values, t.source);
    env_set("CLMATCH_STAGING", "off");
    env_set("CLMATCH_TUNE", "bitap.stage=on");
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK)
        && !EXPECT(t.stage == 0 && a[CLM_ALGO_BITAP].stage == 1 && a[CLM_ALGO_DFA].stage == 0))
        t_note("CLMATCH_STAGING=off, CLMATCH_TUNE=bitap.stage=on: %s from %s", t.values,
               t.source);
    /* a bad CLMATCH_STAGING: the device does not open, and the detail says why */
    env_set("CLMATCH_TUNE", NULL);
    env_set("CLMATCH_STAGING", "sometimes");
    if (EXPECT_RC(open_tunings(&t, a), CLM_E_INVALID)
        && !EXPECT(strstr(clm_last_error(), "CLMATCH_STAGING='sometimes'")
                   && strstr(clm_last_error(), "on or off")))
        t_note("detail \"%s\"", clm_last_error());
    env_set("CLMATCH_STAGING", NULL);

    /* a profile with the new keys; the writer checks them */
    if (!EXPECT_RC(open_dev(&dev), CLM_OK)) goto out;
    EXPECT_RC(clm_tuning_write_profile(dev, "vec=12", NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_tuning_write_profile(dev, "stage=sometimes", NULL, NULL), CLM_E_INVALID);
    EXPECT_RC(clm_tuning_format_profile(dev, "", NULL, header, sizeof header), CLM_OK);
    if (EXPECT_RC(clm_tuning_format_profile(dev, "stage=1,vec=8,bitap.vec=4,dfa.stage=off",
                                            NULL, body, sizeof body), CLM_OK))
        EXPECT(strstr(body, "\nstage = on\nvec = 8\ndfa.stage = off\nbitap.vec = 4\n") != NULL);
    EXPECT_RC(clm_tuning_write_profile(dev, "stage=on,vec=8,bitap.vec=4,dfa.stage=off", NULL,
                                       NULL), CLM_OK);
    clm_device_close(dev);
    dev = NULL;
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK)
        && !EXPECT(t.profile_used && t.stage == 1 && t.stage_source == CLM_TUNING_PROFILE
                   && t.vector_width == 8 && t.vector_width_source == CLM_TUNING_PROFILE
                   && a[CLM_ALGO_BITAP].vector_width == 4
                   && a[CLM_ALGO_BITAP].vector_width_source == CLM_TUNING_PROFILE
                   && a[CLM_ALGO_DFA].stage == 0
                   && a[CLM_ALGO_DFA].stage_source == CLM_TUNING_PROFILE))
        t_note("profile: %s from %s (%s)", t.values, t.source, t.profile_warning);
    /* CLMATCH_STAGING over the profile: its global stage replaces the profile's dfa.stage */
    env_set("CLMATCH_STAGING", "off");
    if (EXPECT_RC(open_tunings(&t, a), CLM_OK)
        && !EXPECT(t.profile_used && t.stage == 0 && t.stage_source == CLM_TUNING_ENV
                   && a[CLM_ALGO_DFA].stage == 0 && a[CLM_ALGO_DFA].stage_source == CLM_TUNING_ENV
                   && t.vector_width_source == CLM_TUNING_PROFILE
                   && a[CLM_ALGO_BITAP].vector_width == 4))
        t_note("profile + CLMATCH_STAGING=off: %s from %s", t.values, t.source);
    env_set("CLMATCH_STAGING", NULL);
    /* a profile written before stage and vec existed is still used; they stay built-in */
    {
        clm_tuning builtin;
        char path[1024];
        env_set("CLMATCH_PROFILE", "off");
        EXPECT_RC(open_tuning(&builtin), CLM_OK);
        env_set("CLMATCH_PROFILE", NULL);
        snprintf(path, sizeof path, "%s", builtin.profile_path);
        snprintf(body, sizeof body, "%s# measured by an older clmatch-tune\nwg = 32\nchunk = 512\n",
                 header);
        if (EXPECT(write_file(path, body) == 0) && EXPECT_RC(open_tunings(&t, a), CLM_OK)
            && !EXPECT(t.profile_used && t.work_group_size == 32
                       && t.stage == builtin.stage && t.stage_source == builtin.stage_source
                       && t.vector_width == 16 && t.vector_width_source == builtin.vector_width_source))
            t_note("old profile: %s from %s (%s)", t.values, t.source, t.profile_warning);
        /* bad values in a profile: not used, the line and the reason in the warning */
        snprintf(body, sizeof body, "%swg = 32\nvec = 12\n", header);
        if (EXPECT(write_file(path, body) == 0) && EXPECT_RC(open_tunings(&t, a), CLM_OK)
            && !EXPECT(!t.profile_used && strstr(t.profile_warning, path)
                       && strstr(t.profile_warning, "line 3: bytes per load 12 is not 4, 8 or 16")
                       && t.vector_width == 16 && t.work_group_size == builtin.work_group_size))
            t_note("vec = 12: %s (%s)", t.values, t.profile_warning);
        snprintf(body, sizeof body, "%sstage = sometimes\n", header);
        if (EXPECT(write_file(path, body) == 0) && EXPECT_RC(open_tunings(&t, a), CLM_OK)
            && !EXPECT(!t.profile_used
                       && strstr(t.profile_warning, "line 2: 'sometimes' is not on, off, 1 or 0 for stage")
                       && t.stage == builtin.stage))
            t_note("stage = sometimes: %s (%s)", t.values, t.profile_warning);
    }
out:
    clm_device_close(dev);
    env_restore(&saved);
    t_rmtree(dir);
    free(dir);
}

/* Compile c's pattern on dev with o and check the reference's matches on 16 KiB slabs; the
 * database's info into *di. Returns 1 when it compiled. */
static int compile_check(clm_device *dev, ref_case *c, const clm_compile_options *o,
                         const char *what, clm_database_info *di)
{
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    t_matches got;
    int rc = clm_compile(dev, (const char *const *)c->pats, c->lens, NULL, 1, o, &db);
    if (!EXPECT_RC(rc, CLM_OK)) {
        t_note("%s: %s", what, clm_last_error());
        return 0;
    }
    t_matches_init(&got);
    EXPECT_RC(clm_database_get_info(db, di, sizeof *di), CLM_OK);
    if (t_scratch_alloc(db, &s, 16384, 0, what))
        t_check_scan(db, s, c->text, c->n, &c->want, &got, what, "tune");
    t_matches_free(&got);
    clm_scratch_free(s);
    clm_database_free(db);
    return 1;
}

/* stage=off gives unstaged kernels, stage=on staged ones where the kernel can stage (exact dfa
 * and one-word bitap with local tables; automatic tables go local for it on a CPU); the
 * options' staging wins over the tuning either way; ALGO.stage for its algorithm only;
 * CLMATCH_STAGING as a stage item under CLMATCH_TUNE. Every one finds the reference's
 * matches. */
static void test_stage_kernels(const void *arg)
{
    static const struct {
        const char *tune, *staging; /* CLMATCH_TUNE, CLMATCH_STAGING (NULL: unset) */
        clm_switch option;          /* clm_compile_options.staging */
        clm_algorithm algo;
        clm_table_memory mem;
        int staged;
    } cases[] = {
        {"stage=off", NULL, CLM_AUTO, CLM_ALGO_DFA, CLM_TABLE_AUTO, 0},
        {"stage=off", NULL, CLM_AUTO, CLM_ALGO_DFA, CLM_TABLE_LOCAL, 0},
        {"stage=off", NULL, CLM_ON, CLM_ALGO_DFA, CLM_TABLE_LOCAL, 1},
        {"stage=on", NULL, CLM_AUTO, CLM_ALGO_DFA, CLM_TABLE_AUTO, 1},
        {"stage=on", NULL, CLM_AUTO, CLM_ALGO_BITAP, CLM_TABLE_AUTO, 1},
        {"stage=on", NULL, CLM_OFF, CLM_ALGO_BITAP, CLM_TABLE_LOCAL, 0},
        {"stage=on", NULL, CLM_OFF, CLM_ALGO_DFA, CLM_TABLE_LOCAL, 0},
        {"stage=on", NULL, CLM_AUTO, CLM_ALGO_DFA, CLM_TABLE_GLOBAL, 0}, /* nothing local to stage */
        {"stage=on", NULL, CLM_AUTO, CLM_ALGO_KMP, CLM_TABLE_AUTO, 0},   /* no staged kernel */
        {"stage=off,bitap.stage=on", NULL, CLM_AUTO, CLM_ALGO_BITAP, CLM_TABLE_AUTO, 1},
        {"stage=off,bitap.stage=on", NULL, CLM_AUTO, CLM_ALGO_DFA, CLM_TABLE_AUTO, 0},
        {"stage=on,dfa.stage=off", NULL, CLM_AUTO, CLM_ALGO_DFA, CLM_TABLE_LOCAL, 0},
        {NULL, "off", CLM_AUTO, CLM_ALGO_BITAP, CLM_TABLE_LOCAL, 0},
        {NULL, "on", CLM_AUTO, CLM_ALGO_BITAP, CLM_TABLE_LOCAL, 1},
        {"bitap.stage=on", "off", CLM_AUTO, CLM_ALGO_BITAP, CLM_TABLE_AUTO, 1},
        {"stage=off", "on", CLM_AUTO, CLM_ALGO_BITAP, CLM_TABLE_LOCAL, 0},
    };
    env_saved saved;
    ref_case c;
    size_t i;
    (void)arg;
    env_save(&saved);
    env_set("CLMATCH_PROFILE", "off");
    ref_case_init(&c, 13);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clm_device *dev = NULL;
        clm_compile_options o;
        clm_database_info di;
        char what[160];
        snprintf(what, sizeof what, "CLMATCH_TUNE=%s CLMATCH_STAGING=%s staging %d %s/%s",
                 cases[i].tune ? cases[i].tune : "", cases[i].staging ? cases[i].staging : "",
                 (int)cases[i].option, clm_algorithm_name(cases[i].algo),
                 clm_table_memory_name(cases[i].mem));
        env_set("CLMATCH_TUNE", cases[i].tune);
        env_set("CLMATCH_STAGING", cases[i].staging);
        if (!EXPECT_RC(open_dev(&dev), CLM_OK)) continue;
        clm_compile_options_init(&o, sizeof o);
        o.algorithm = cases[i].algo;
        o.table_memory = cases[i].mem;
        o.staging = cases[i].option;
        o.work_group_size = 16; /* groups of 4 KiB: several whole ones per 16 KiB slab */
        o.bytes_per_item = 256;
        if (compile_check(dev, &c, &o, what, &di) && !EXPECT(di.staged == cases[i].staged))
            t_note("%s: staged %d, want %d (table memory %s, %s)", what, di.staged,
                   cases[i].staged, clm_table_memory_name(di.table_memory), di.build_options);
        clm_device_close(dev);
    }
    ref_case_free(&c);
    env_restore(&saved);
}

/* Is opt one of the space-separated words of the build options? */
static int has_option(const char *options, const char *opt)
{
    size_t n = strlen(opt);
    const char *p = options;
    while ((p = strstr(p, opt)) != NULL) {
        if ((p == options || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return 1;
        p += n;
    }
    return 0;
}

/* A text for the load widths: random DNA with the pattern planted across every work-item
 * edge (ending 1 byte, m/2 bytes and 15 bytes past it, starting on it or 1 byte before) and
 * across work-group edges; its length is no multiple of 16, so the tail is read by bytes. */
static unsigned char *vec_text(size_t n, const unsigned char *p, size_t m, size_t item,
                               size_t group, t_rng *r)
{
    unsigned char *t = malloc(n);
    size_t k, j = 0;
    if (!t) abort();
    t_fill(r, t, n, 4);
    for (k = item; k + m < n; k += item, j++) {
        static const size_t back[] = {1, 0, 15, 2};
        size_t b = k % group == 0 ? m - 1 : j % 5 == 4 ? m / 2 : back[j % 4];
        if (b > m - 1) b = m - 1;
        memcpy(t + k - b, p, m);
    }
    return t;
}

/* Every load width (4, 8, 16) gives the reference's matches with kmp, dfa and bitap (exact,
 * and with one edit: ranges then start K bytes early, off the 16-byte grid), unstaged, with
 * work-items of 64 bytes in groups of 16, on one slab and on slabs that end inside items;
 * the database and its build say which width it got. Then the width from CLMATCH_TUNE, per
 * algorithm, and none for kernels that read single bytes. */
static void test_vec_edges(const void *arg)
{
    static const struct {
        clm_algorithm algo;
        unsigned k;
    } algos[] = {{CLM_ALGO_KMP, 0}, {CLM_ALGO_DFA, 0}, {CLM_ALGO_BITAP, 0}, {CLM_ALGO_BITAP, 1}};
    static const unsigned vecs[] = {4, 8, 16};
    const size_t item = 64, wg = 16, group = item * wg, m = 13;
    const size_t n = 9 * group + item / 2 + 5;
    const size_t slabs[] = {0, 2 * group + item + 48, 3 * group + 5};
    unsigned char *p = t_pattern(4, m), *text;
    const unsigned char *pp = p;
    t_matches want[2], got;
    t_fset fs;
    t_rng r;
    env_saved saved;
    size_t a, v, sl, kk;
    (void)arg;
    t_rng_init(&r, "vec", 0);
    text = vec_text(n, p, m, item, group, &r);
    t_matches_init(&got);
    for (kk = 0; kk < 2; kk++) {
        t_matches_init(&want[kk]);
        memset(&fs, 0, sizeof fs);
        fs.pats = &pp;
        fs.lens = &m;
        fs.count = 1;
        fs.k = (unsigned)kk;
        if (!EXPECT(t_reference_ex(text, n, &fs, &want[kk]) == 0)) goto out;
    }
    /* the planted copies are there: a reference that found nothing would prove nothing */
    EXPECT(want[0].n >= n / item - 1);
    for (a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        for (v = 0; v < sizeof vecs / sizeof vecs[0]; v++) {
            clm_compile_options o;
            clm_database *db = NULL;
            clm_scratch *s = NULL;
            clm_database_info di;
            char desc[128], macro[16];
            int rc;
            snprintf(desc, sizeof desc, "%s k=%u vec=%u", clm_algorithm_name(algos[a].algo),
                     algos[a].k, vecs[v]);
            clm_compile_options_init(&o, sizeof o);
            o.algorithm = algos[a].algo;
            o.table_memory = CLM_TABLE_GLOBAL;
            o.staging = CLM_OFF;
            o.max_errors = algos[a].k;
            o.work_group_size = (unsigned)wg;
            o.bytes_per_item = (unsigned)item;
            o.vector_width = vecs[v];
            rc = clm_compile(t_dev, (const char *const *)&pp, &m, NULL, 1, &o, &db);
            if (!EXPECT_RC(rc, CLM_OK)) {
                t_note("%s: %s", desc, clm_last_error());
                continue;
            }
            snprintf(macro, sizeof macro, "-D VEC=%u", vecs[v]);
            if (EXPECT_RC(clm_database_get_info(db, &di, sizeof di), CLM_OK)
                && !EXPECT(di.vector_width == vecs[v] && !di.staged
                           && has_option(di.build_options, macro)))
                t_note("%s: vector width %u, staged %d, build %s", desc, di.vector_width,
                       di.staged, di.build_options);
            for (sl = 0; sl < sizeof slabs / sizeof slabs[0]; sl++) {
                char what[32];
                if (!t_scratch_alloc(db, &s, slabs[sl], 0, desc)) break;
                snprintf(what, sizeof what, "edges, slab %zu", slabs[sl]);
                t_check_scan(db, s, text, n, &want[algos[a].k], &got, desc, what);
            }
            clm_scratch_free(s);
            clm_database_free(db);
        }
    }
    /* a bad width in the options */
    {
        clm_compile_options o;
        clm_database *db = NULL;
        clm_compile_options_init(&o, sizeof o);
        o.vector_width = 12;
        if (EXPECT_RC(clm_compile(t_dev, (const char *const *)&pp, &m, NULL, 1, &o, &db),
                      CLM_E_INVALID))
            EXPECT(strstr(clm_last_error(), "vector width 12") != NULL);
        EXPECT(db == NULL);
    }
    /* the width from the tuning: global, per algorithm, and none where bytes are read */
    env_save(&saved);
    env_set("CLMATCH_PROFILE", "off");
    env_set("CLMATCH_TUNE", "vec=8,dfa.vec=4");
    {
        static const struct {
            clm_algorithm algo;
            unsigned vec;
        } want_vec[] = {{CLM_ALGO_DFA, 4}, {CLM_ALGO_KMP, 8}, {CLM_ALGO_BMH, 0}};
        clm_device *dev = NULL;
        ref_case c;
        ref_case_init(&c, 13);
        if (EXPECT_RC(open_dev(&dev), CLM_OK)) {
            for (a = 0; a < sizeof want_vec / sizeof want_vec[0]; a++) {
                clm_compile_options o;
                clm_database_info di;
                char what[64];
                clm_compile_options_init(&o, sizeof o);
                o.algorithm = want_vec[a].algo;
                o.table_memory = CLM_TABLE_GLOBAL;
                o.work_group_size = (unsigned)wg;
                o.bytes_per_item = 256;
                snprintf(what, sizeof what, "CLMATCH_TUNE=vec=8,dfa.vec=4 %s",
                         clm_algorithm_name(want_vec[a].algo));
                if (compile_check(dev, &c, &o, what, &di)
                    && !EXPECT(di.vector_width == want_vec[a].vec))
                    t_note("%s: vector width %u, want %u", what, di.vector_width,
                           want_vec[a].vec);
            }
            /* an explicit width wins over the tuning */
            {
                clm_compile_options o;
                clm_database_info di;
                clm_compile_options_init(&o, sizeof o);
                o.algorithm = CLM_ALGO_DFA;
                o.table_memory = CLM_TABLE_GLOBAL;
                o.work_group_size = (unsigned)wg;
                o.bytes_per_item = 256;
                o.vector_width = 16;
                if (compile_check(dev, &c, &o, "dfa.vec=4, option 16", &di)
                    && !EXPECT(di.vector_width == 16))
                    t_note("option 16 over dfa.vec=4: vector width %u", di.vector_width);
            }
        }
        clm_device_close(dev);
        ref_case_free(&c);
    }
    env_restore(&saved);
out:
    for (kk = 0; kk < 2; kk++) t_matches_free(&want[kk]);
    t_matches_free(&got);
    free(text);
    free(p);
}

void register_tune_tests(void)
{
    t_register("tune.builtin", test_builtin, NULL, 1);
    t_register("tune.env_items", test_env_items, NULL, 1);
    t_register("tune.profile_precedence", test_profile_precedence, NULL, 1);
    t_register("tune.bad_profiles", test_bad_profiles, NULL, 1);
    t_register("tune.profile_escape", test_profile_escape, NULL, 1);
    t_register("tune.profile_special", test_profile_special, NULL, 1);
    t_register("tune.profile_writers", test_profile_writers, NULL, 1);
    t_register_child("profile_special", child_profile_special);
    t_register("tune.witness_wg", test_witness_wg, NULL, 1);
    t_register("tune.stage_vec_sources", test_stage_vec_sources, NULL, 1);
    t_register("tune.stage_kernels", test_stage_kernels, NULL, 1);
    t_register("tune.vec_edges", test_vec_edges, NULL, 1);
}
