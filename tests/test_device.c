/*
 * Device listing and choice: sane fields, CLM_LIST_PROBE, and the automatic choice of
 * clm_device_open(-1, -1) (CLMATCH_PLATFORM / CLMATCH_DEVICE, else GPU, CPU, first).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

static void test_list(const void *arg)
{
    clm_device_info *list = NULL, *probed = NULL;
    size_t count = 0, pcount = 0, i;
    (void)arg;

    REQUIRE_RC(clm_list_devices(0, sizeof *list, &list, &count), CLM_OK);
    if (!EXPECT(count >= 1 && list != NULL)) goto out;
    for (i = 0; i < count; i++) {
        const clm_device_info *d = &list[i];
        int ok = 1;
        /* Platform then device order, device indices counting from 0 in each platform. */
        if (i == 0)
            ok &= EXPECT(d->platform_index == 0 && d->device_index == 0);
        else if (d->platform_index == list[i - 1].platform_index)
            ok &= EXPECT(d->device_index == list[i - 1].device_index + 1);
        else
            ok &= EXPECT(d->platform_index > list[i - 1].platform_index && d->device_index == 0);
        ok &= EXPECT(d->name[0] != '\0' && d->platform_name[0] != '\0');
        ok &= EXPECT(strncmp(d->version, "OpenCL ", 7) == 0);
        ok &= EXPECT(d->compute_units >= 1);
        ok &= EXPECT(d->global_mem_bytes > 0 && d->max_alloc_bytes > 0
                     && d->max_alloc_bytes <= d->global_mem_bytes);
        ok &= EXPECT(d->local_mem_bytes > 0 && d->constant_mem_bytes > 0);
        ok &= EXPECT(d->max_work_group_size >= 1);
        ok &= EXPECT(d->type >= CLM_DEVICE_OTHER && d->type <= CLM_DEVICE_ACCELERATOR);
        ok &= EXPECT(d->preferred_work_group_multiple == 0); /* not probed */
        if (!ok) t_note("device %zu: platform %d device %d \"%s\"", i, d->platform_index,
                        d->device_index, d->name);
    }
    /* Probing fills the preferred work-group multiple of available devices. */
    if (EXPECT_RC(clm_list_devices(CLM_LIST_PROBE, sizeof *probed, &probed, &pcount), CLM_OK)
        && EXPECT(pcount == count)) {
        for (i = 0; i < pcount; i++) {
            EXPECT(strcmp(probed[i].name, list[i].name) == 0);
            if (probed[i].available && !EXPECT(probed[i].preferred_work_group_multiple > 0))
                t_note("device %zu \"%s\" not probed", i, probed[i].name);
        }
    }
out:
    clm_free_device_list(list);
    clm_free_device_list(probed);
}

/* The device the suite runs on is the one the documented rule picks. */
static void test_auto_choice(const void *arg)
{
    clm_device_info *list = NULL;
    size_t count = 0, i, want = (size_t)-1;
    const char *ep = getenv("CLMATCH_PLATFORM"), *ed = getenv("CLMATCH_DEVICE");
    (void)arg;

    REQUIRE_RC(clm_list_devices(0, sizeof *list, &list, &count), CLM_OK);
    if (ep && *ep) {
        int p = atoi(ep), d = ed && *ed ? atoi(ed) : 0;
        for (i = 0; i < count; i++)
            if (list[i].platform_index == p && list[i].device_index == d) want = i;
    } else {
        for (i = 0; i < count && want == (size_t)-1; i++)
            if (list[i].type == CLM_DEVICE_GPU) want = i;
        for (i = 0; i < count && want == (size_t)-1; i++)
            if (list[i].type == CLM_DEVICE_CPU) want = i;
        if (want == (size_t)-1 && count) want = 0;
    }
    if (EXPECT(want != (size_t)-1)) {
        const clm_device_info *w = &list[want];
        if (!EXPECT(t_devinfo.platform_index == w->platform_index
                    && t_devinfo.device_index == w->device_index
                    && strcmp(t_devinfo.name, w->name) == 0 && t_devinfo.type == w->type))
            t_note("opened platform %d device %d \"%s\", expected platform %d device %d \"%s\"",
                   t_devinfo.platform_index, t_devinfo.device_index, t_devinfo.name,
                   w->platform_index, w->device_index, w->name);
        EXPECT(t_devinfo.compute_units == w->compute_units
               && t_devinfo.global_mem_bytes == w->global_mem_bytes
               && t_devinfo.local_mem_bytes == w->local_mem_bytes);
    }
    clm_free_device_list(list);
}

/* arg: "P D RC": with the environment set by the parent, clm_device_open(-1, -1) returns RC
 * and, when RC is CLM_OK, the device (P, D). */
static int child_env_device(const char *arg)
{
    int p = -9, d = -9, want = -99, rc;
    clm_device *dev = NULL;
    clm_device_info info;
    if (!EXPECT(sscanf(arg, "%d %d %d", &p, &d, &want) == 3)) return 1;
    rc = clm_device_open(-1, -1, &dev);
    if (!EXPECT_RC(rc, want)) return 1;
    if (rc == CLM_OK) {
        if (EXPECT_RC(clm_device_get_info(dev, &info, sizeof info), CLM_OK)
            && !EXPECT(info.platform_index == p && info.device_index == d))
            t_note("got platform %d device %d", info.platform_index, info.device_index);
        clm_device_close(dev);
    }
    return 0;
}

static void test_env_choice(const void *arg)
{
    clm_device_info *list = NULL;
    size_t count = 0, i;
    int nplat = 0;
    (void)arg;

    REQUIRE_RC(clm_list_devices(0, sizeof *list, &list, &count), CLM_OK);
    for (i = 0; i < count; i++)
        if (list[i].platform_index + 1 > nplat) nplat = list[i].platform_index + 1;
    /* Every device (a few at most) can be chosen through the environment. */
    for (i = 0; i < count && i < 4; i++) {
        char ep[64], ed[64], a[64];
        const char *env[3];
        snprintf(ep, sizeof ep, "CLMATCH_PLATFORM=%d", list[i].platform_index);
        snprintf(ed, sizeof ed, "CLMATCH_DEVICE=%d", list[i].device_index);
        snprintf(a, sizeof a, "%d %d %d", list[i].platform_index, list[i].device_index, CLM_OK);
        env[0] = ep;
        env[1] = ed;
        env[2] = NULL;
        if (t_run_child("env_device", a, env) != 0) T_FAIL("choosing device %zu by environment", i);
    }
    {
        char ep[64], a[64];
        const char *env[3];
        snprintf(ep, sizeof ep, "CLMATCH_PLATFORM=%d", nplat + 3);
        snprintf(a, sizeof a, "0 0 %d", CLM_E_PLATFORM_INDEX);
        env[0] = ep;
        env[1] = "CLMATCH_DEVICE";
        env[2] = NULL;
        if (t_run_child("env_device", a, env) != 0) T_FAIL("CLMATCH_PLATFORM out of range");
        env[0] = "CLMATCH_PLATFORM=0";
        env[1] = "CLMATCH_DEVICE=999";
        snprintf(a, sizeof a, "0 0 %d", CLM_E_DEVICE_INDEX);
        if (t_run_child("env_device", a, env) != 0) T_FAIL("CLMATCH_DEVICE out of range");
    }
    clm_free_device_list(list);
}

/* CLMATCH_SLAB_BYTES sets the default slab of new scratches. */
static int child_slab_env(const char *arg)
{
    size_t m = 9, n = 65536, i;
    unsigned char *p = t_pattern(4, m), *text = malloc(n);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    clm_stats st;
    t_matches want;
    uint64_t count = 0;
    t_rng r;
    (void)arg;
    if (!text) abort();
    t_matches_init(&want);
    t_rng_init(&r, "slab-env", 0);
    t_fill(&r, text, n, 4);
    for (i = 4096; i < n; i += 4096) memcpy(text + i - 4, p, m); /* across each slab edge */
    t_reference(text, n, &ps, &want);
    if (EXPECT_RC(clm_device_open(-1, -1, &t_dev), CLM_OK)
        && EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)
        && EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_OK)
        && EXPECT_RC(clm_count(db, s, text, n, &count), CLM_OK)) {
        EXPECT(count == want.n);
        if (EXPECT_RC(clm_scratch_get_stats(s, &st, sizeof st), CLM_OK)
            && !EXPECT(st.slabs >= n / 4096))
            t_note("%llu slabs for %zu bytes with CLMATCH_SLAB_BYTES=4096",
                   (unsigned long long)st.slabs, n);
    }
    clm_scratch_free(s);
    clm_database_free(db);
    clm_device_close(t_dev);
    t_matches_free(&want);
    free(text);
    free(p);
    return 0;
}

/* A CLMATCH_SLAB_BYTES that is not a size makes clm_scratch_alloc fail, naming it. */
static int child_slab_env_bad(const char *arg)
{
    size_t m = 9;
    unsigned char *p = t_pattern(4, m);
    const unsigned char *pp = p;
    t_patset ps = {&pp, &m, NULL, 1, 0};
    clm_database *db = NULL;
    clm_scratch *s = NULL;
    (void)arg;
    if (EXPECT_RC(clm_device_open(-1, -1, &t_dev), CLM_OK)
        && EXPECT_RC(t_compile(&ps, CLM_ALGO_AUTO, CLM_TABLE_AUTO, 0, 0, 0, &db), CLM_OK)) {
        EXPECT_RC(clm_scratch_alloc(db, NULL, &s), CLM_E_INVALID);
        EXPECT(strstr(clm_last_error(), "CLMATCH_SLAB_BYTES") != NULL);
        EXPECT(s == NULL);
    }
    clm_scratch_free(s);
    clm_database_free(db);
    clm_device_close(t_dev);
    free(p);
    return 0;
}

static void test_slab_env(const void *arg)
{
    static const char *const env[] = {"CLMATCH_SLAB_BYTES=4096", NULL};
    static const char *const env_k[] = {"CLMATCH_SLAB_BYTES=4K", NULL};
    static const char *const bad[][2] = {{"CLMATCH_SLAB_BYTES=32Q", NULL},
                                         {"CLMATCH_SLAB_BYTES=M", NULL},
                                         {"CLMATCH_SLAB_BYTES=-4096", NULL}};
    (void)arg;
    if (t_run_child("slab_env", NULL, env) != 0) T_FAIL("CLMATCH_SLAB_BYTES child failed");
    if (t_run_child("slab_env", NULL, env_k) != 0) T_FAIL("CLMATCH_SLAB_BYTES=4K child failed");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (t_run_child("slab_env_bad", NULL, bad[i]) != 0)
            T_FAIL("%s: child failed", bad[i][0]);
}

void register_device_tests(void)
{
    t_register("device.list", test_list, NULL, 1);
    t_register("device.auto_choice", test_auto_choice, NULL, 1);
    t_register("device.env_choice", test_env_choice, NULL, 1);
    t_register("device.slab_env", test_slab_env, NULL, 1);
    t_register_child("env_device", child_env_device);
    t_register_child("slab_env", child_slab_env);
    t_register_child("slab_env_bad", child_slab_env_bad);
}
