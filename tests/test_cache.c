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

#include "internal.h" /* clm_cache_entry_check, clm_cache_entry_make: entries checked, forged */
#include "t.h"

/* Programs used by the cache scenarios: one per algorithm, lengths used nowhere else; the
 * last packs its DNA text, a program of three entry points (clm_pack) instead of two. */
static const struct { clm_algorithm algo; unsigned alpha; size_t m; int packed; } progs[] = {
    {CLM_ALGO_NAIVE, 4, 23, 0}, {CLM_ALGO_KMP, 26, 29, 0}, {CLM_ALGO_DFA, 256, 37, 0},
    {CLM_ALGO_DFA, 4, 31, 1}};
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
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = progs[k].algo;
    o.table_memory = CLM_TABLE_GLOBAL;
    o.flags = progs[k].packed ? CLM_DNA : 0;
    o.packing = progs[k].packed ? CLM_ON : CLM_AUTO;
    *hit = -1;
    rc = clm_compile(dev, (const char *const *)&pp, &m, NULL, 1, &o, &db);
    if (rc != CLM_OK) goto out;
    if (EXPECT_RC(clm_database_get_info(db, &info, sizeof info), CLM_OK)) *hit = info.cache_hit;
    if (progs[k].packed && !info.packed)
        t_note("%s m=%zu: the text is not packed here", clm_algorithm_name(progs[k].algo), m);
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

/* Read a whole file (malloc'd); NULL when it cannot be read. */
static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (buf = malloc((size_t)size + 1)) != NULL
        && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    if (buf) *len = (size_t)size;
    fclose(f);
    return buf;
}

static int write_all(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return -1;
    ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Sizes of the damaged entries seen after a cold `make test` on PoCL. */
#define SEEN_SMALL_1 (29 * 1024)
#define SEEN_SMALL_2 (37 * 1024)

/* Damage the entry at path in one of FILE_DAMAGE ways (other: the path of another entry). */
#define FILE_DAMAGE 11
static const char *const file_damage[FILE_DAMAGE] = {
    "truncated to half", "bytes flipped", "a garbage header", "emptied",
    "truncated to 29 KB", "truncated to 37 KB", "truncated within the header",
    "truncated by one byte", "zeroed", "swapped with another entry", "replaced by a FIFO"};

static void corrupt(const char *path, int how, const char *other)
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
    case 3: /* empty */
        if ((f = fopen(path, "wb")) != NULL) fclose(f);
        break;
    case 4:
    case 5:
    case 6:
    case 7: {
        long to = how == 4 ? SEEN_SMALL_1 : how == 5 ? SEEN_SMALL_2 : how == 6 ? 31 : size - 1;
        if (to >= size) to = size / 3; /* an entry smaller than the sizes seen */
        if (truncate(path, to) != 0) T_FAIL("truncate %s", path);
        break;
    }
    case 8: { /* zeroed */
        unsigned char *zeros = calloc(1, (size_t)size + 1);
        if (!zeros || write_all(path, zeros, (size_t)size) != 0) T_FAIL("zeroing %s", path);
        free(zeros);
        break;
    }
    case 9: { /* the other entry's bytes */
        size_t len;
        unsigned char *data = other ? read_all(other, &len) : NULL;
        if (!data || write_all(path, data, len) != 0) T_FAIL("copying %s over %s", other, path);
        free(data);
        break;
    }
    default: /* a FIFO: a reader that waits for its writer hangs */
        if (remove(path) != 0 || mkfifo(path, 0644) != 0) T_FAIL("mkfifo %s", path);
        break;
    }
}

/* The entry's own key (malloc'd) as the library wrote it: after the header's 32 bytes
 * (magic, format, key length, binary length, checksum). NULL when the file has none. */
static char *entry_key(const unsigned char *e, size_t len)
{
    uint32_t key_len;
    char *key;
    if (len < 32) return NULL;
    memcpy(&key_len, e + 12, 4);
    if (key_len > len - 32 || !(key = malloc(key_len + 1))) return NULL;
    memcpy(key, e + 32, key_len);
    key[key_len] = '\0';
    return key;
}

/* Entry points of the program an entry holds: clm_pack too when its text is packed. */
static unsigned entry_kernels(const char *key)
{
    return strstr(key, "-D PACKED=1 ") ? 3 : 2;
}

/* Every file in dir is an entry that verifies against its own key; returns their number. */
static size_t expect_entries_verify(const char *dir, const char *what)
{
    char **list;
    size_t n = t_list_files(dir, &list), i;
    for (i = 0; i < n; i++) {
        size_t len, at, bin_len;
        unsigned char *e = read_all(list[i], &len);
        char *key = e ? entry_key(e, len) : NULL;
        const char *why = key ? clm_cache_entry_check(e, len, key, entry_kernels(key), &at,
                                                      &bin_len)
                              : "no key";
        if (why) T_FAIL("%s: %s does not verify: %s", what, list[i], why);
        free(key);
        free(e);
    }
    t_free_list(list, n);
    return n;
}

/* CLMATCH_CACHE_DIR = arg, empty at the start. */
static int child_cache(const char *dir)
{
    clm_device *d;
    size_t k, nfiles, tmp, i;
    int round;

    alarm(CHILD_ALARM_S);
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
    /* A new handle: from disk, twice. */
    round_all("new device handle, warm disk cache", 1);
    round_all("second pass over the warm disk cache", 1);
    EXPECT(expect_entries_verify(dir, "warm") == nfiles);

    /* Damaged files are rebuilt (correctly) and replaced by entries that verify. Every
     * round damages every file, each kind of damage in turn. */
    for (round = 0; round * nfiles < FILE_DAMAGE; round++) {
        char **list;
        size_t n = t_list_files(dir, &list), used;
        char what[512];
        used = (size_t)snprintf(what, sizeof what, "after damage round %d (", round);
        for (i = 0; i < n; i++) {
            int how = (int)((i + (size_t)round * n) % FILE_DAMAGE);
            corrupt(list[i], how, list[(i + 1) % n]);
            if (used < sizeof what)
                used += (size_t)snprintf(what + used, sizeof what - used, "%s%s", i ? ", " : "",
                                         file_damage[how]);
        }
        t_free_list(list, n);
        if (used < sizeof what) snprintf(what + used, sizeof what - used, ")");
        round_all(what, 0);
        EXPECT(count_files(dir, &tmp) == nfiles && tmp == 0);
        EXPECT(expect_entries_verify(dir, what) == nfiles);
        snprintf(what, sizeof what, "reload after damage round %d", round);
        round_all(what, 1);
    }
    EXPECT(count_files(dir, &tmp) == nfiles);
    EXPECT(tmp == 0);
    return 0;
}

/* ---- entries whose checksum is right but whose binary is damaged --------------------------- */

/* What PoCL 3.1 wrote when another process rebuilt the program while its binary was taken:
 * an entry that passes every check of its own (the library sealed it) around a binary that
 * aborts PoCL when it is loaded. These entries are forged here, sealed by the library's own
 * clm_cache_entry_make; the library must refuse them before the driver sees them. Only PoCL's binaries
 * (an archive of files) are forged: for other drivers the library cannot tell a damaged
 * binary from a good one, and the file-level damage above is what it checks. */

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* A PoCL archive's program.bc emptied (its root entry shrunk to match), as PoCL 3.1 wrote it
 * when it found the file missing: header 77 bytes, then the root entry's size (8 bytes), the
 * file's name (length, bytes) and its content (length, bytes). Returns the new length, or 0
 * when the archive does not start so. */
static size_t empty_program_bc(unsigned char *b, size_t len)
{
    size_t at = 77, name_len, content, root;
    uint64_t size;
    if (len < at + 12) return 0;
    memcpy(&size, b + at, 8);
    name_len = rd32(b + at + 8);
    if (name_len != 11 || len < at + 12 + name_len + 4
        || memcmp(b + at + 12, "/program.bc", 11) != 0)
        return 0;
    content = rd32(b + at + 12 + name_len);
    root = 4 + name_len + 4 + content;
    if (size < root || len - at - 8 < size) return 0;
    size -= content;
    memcpy(b + at, &size, 8);
    memset(b + at + 12 + name_len, 0, 4);
    memmove(b + at + 8 + 4 + name_len + 4, b + at + 8 + root, len - (at + 8 + root));
    return len - content;
}

#define SEALED_DAMAGE 6
static const char *const sealed_damage[SEALED_DAMAGE] = {
    "program.bc emptied", "entry of 29 KB", "entry of 37 KB", "binary cut within its header",
    "binary short of one byte", "binary zeroed"};

/* Forge the entry at path with damage `how`; 0 when it is no PoCL entry (nothing done). */
static int forge(const char *path, int how)
{
    size_t len, at, bin_len, key_len, out_len;
    unsigned char *e = read_all(path, &len), *bin, *out;
    char *key = e ? entry_key(e, len) : NULL;
    int forged = 0;
    if (!key || clm_cache_entry_check(e, len, key, entry_kernels(key), &at, &bin_len) != NULL
        || bin_len < 8 || memcmp(e + at, "poclbin", 8) != 0)
        goto out;
    key_len = strlen(key);
    bin = e + at;
    switch (how) {
    case 0: { /* PoCL 3.1's layout; another PoCL's binary is cut short of a byte instead, so
                 that every entry is damaged and every program must be rebuilt */
        size_t emptied = empty_program_bc(bin, bin_len);
        bin_len = emptied ? emptied : bin_len - 1;
        break;
    }
    case 1: case 2: { /* the whole entry that size */
        size_t want = how == 1 ? SEEN_SMALL_1 : SEEN_SMALL_2, head = 32 + key_len;
        bin_len = want > head && want - head < bin_len ? want - head : bin_len / 3;
        break;
    }
    case 3: bin_len = 60; break;
    case 4: bin_len -= 1; break;
    default: memset(bin, 0, bin_len); break;
    }
    if (bin_len == 0) goto out;
    if (!(out = clm_cache_entry_make(key, bin, bin_len, &out_len))) abort();
    /* a damaged archive must be refused without the driver; a zeroed binary is no archive
     * at all, which PoCL refuses by itself (its magic) */
    if (how != 5
        && !EXPECT(clm_cache_entry_check(out, out_len, key, entry_kernels(key), &at, &bin_len)
                   != NULL))
        t_note("%s: a forged entry (%s) verifies", path, sealed_damage[how]);
    forged = write_all(path, out, out_len) == 0;
    free(out);
out:
    free(key);
    free(e);
    return forged;
}

/* A run over forged entries: every program rebuilt, right, and its entry replaced. */
static int child_sealed(const char *dir)
{
    alarm(CHILD_ALARM_S);
    round_all("over forged entries", 0);
    expect_entries_verify(dir, "after the rebuild");
    round_all("reload after forged entries", 1);
    return 0;
}

/* Each child gets a PoCL cache of its own (POCL_CACHE_DIR; other drivers ignore it): a
 * loaded binary writes its files there, so a regression cannot damage the machine's cache,
 * and a fresh one holds nothing that would hide a damaged program.bc. */
static void test_cache_sealed(const void *arg)
{
    char *dir = t_tempdir("cache-sealed"), *pocl = t_tempdir("pocl-cache");
    char env_dir[4200], env_pocl[4200];
    const char *env[5];
    size_t nfiles = 0, i;
    int round, rc, pocl_entries = 0;
    (void)arg;
    if (!EXPECT(dir && pocl)) goto out;
    snprintf(env_dir, sizeof env_dir, "CLMATCH_CACHE_DIR=%s", dir);
    env[0] = env_dir;
    env[1] = env_pocl;
    env[2] = "CLMATCH_CACHE";
    env[3] = "CLMATCH_KERNEL_DIR";
    env[4] = NULL;
    snprintf(env_pocl, sizeof env_pocl, "POCL_CACHE_DIR=%s/warm", pocl);
    if ((rc = t_run_child("warm", NULL, env)) != 0) T_FAIL("warming the cache failed (%d)", rc);
    for (round = 0; round == 0 || (size_t)round * nfiles < SEALED_DAMAGE; round++) {
        char **list;
        nfiles = t_list_files(dir, &list);
        pocl_entries = 0;
        for (i = 0; i < nfiles; i++) {
            int how = (int)((i + (size_t)round * nfiles) % SEALED_DAMAGE);
            pocl_entries += forge(list[i], how);
        }
        t_free_list(list, nfiles);
        if (!pocl_entries) {
            t_note("no PoCL binaries in the cache: nothing to forge");
            break;
        }
        snprintf(env_pocl, sizeof env_pocl, "POCL_CACHE_DIR=%s/round%d", pocl, round);
        if ((rc = t_run_child("cache_sealed", dir, env)) != 0) {
            T_FAIL("round %d: child failed (status %d; see # lines above)", round, rc);
            for (i = 0; i < nfiles; i++)
                t_note("round %d damaged entry %zu: %s", round, i,
                       sealed_damage[(i + (size_t)round * nfiles) % SEALED_DAMAGE]);
        }
    }
out:
    if (dir) t_rmtree(dir);
    if (pocl) t_rmtree(pocl);
    free(dir);
    free(pocl);
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

/* An entry is written to a temporary file beside it, then renamed. A file that already has
 * that name (a link planted there, or left by a writer that died) must not be written
 * through: links named as this process's first temporary files point at a victim file, and
 * the victim stays as it was. CLMATCH_CACHE_DIR = arg/a at the start. */
static int child_temp_taken(const char *base)
{
    static const char victim_text[] = "the victim's own bytes\n";
    char dir_b[4096], victim[4200], link[8400], **list;
    clm_device *d;
    const char *name;
    size_t n, len;
    unsigned char *kept;
    int hit, seq;
    alarm(CHILD_ALARM_S);
    /* the entry's name, from a first store */
    if (!(d = open_dev())) return 1;
    EXPECT_RC(check_prog(d, 0, &hit), CLM_OK);
    clm_device_close(d);
    n = t_list_files(getenv("CLMATCH_CACHE_DIR"), &list);
    if (!EXPECT(n == 1)) {
        t_free_list(list, n);
        return 1;
    }
    name = strrchr(list[0], '/') + 1;
    snprintf(dir_b, sizeof dir_b, "%s/b", base);
    snprintf(victim, sizeof victim, "%s/victim", base);
    if (!EXPECT(mkdir(dir_b, 0755) == 0 && write_all(victim, victim_text, sizeof victim_text - 1) == 0))
        return 1;
    for (seq = 0; seq < 64; seq++) {
        snprintf(link, sizeof link, "%s/%s.%ld.%d.tmp", dir_b, name, (long)getpid(), seq);
        EXPECT(symlink(victim, link) == 0);
    }
    t_free_list(list, n);
    /* the same program into the second directory, from a new handle (no memory cache) */
    setenv("CLMATCH_CACHE_DIR", dir_b, 1);
    if (!(d = open_dev())) return 1;
    if (EXPECT_RC(check_prog(d, 0, &hit), CLM_OK)) EXPECT(hit == 0);
    clm_device_close(d);
    kept = read_all(victim, &len);
    if (!EXPECT(kept && len == sizeof victim_text - 1 && memcmp(kept, victim_text, len) == 0))
        t_note("the victim file now holds %zu bytes", kept ? len : 0);
    free(kept);
    /* the entry was written all the same, and verifies */
    if (!(d = open_dev())) return 1;
    if (EXPECT_RC(check_prog(d, 0, &hit), CLM_OK)) EXPECT(hit == 1);
    clm_device_close(d);
    expect_entries_verify(dir_b, "the entry beside planted links");
    return 0;
}

static void test_cache_temp_taken(const void *arg)
{
    char *base = t_tempdir("cache-temp");
    char env_dir[4200], dir_a[4100];
    const char *env[4];
    int rc;
    (void)arg;
    REQUIRE(base != NULL);
    snprintf(dir_a, sizeof dir_a, "%s/a", base);
    snprintf(env_dir, sizeof env_dir, "CLMATCH_CACHE_DIR=%s", dir_a);
    env[0] = env_dir;
    env[1] = "CLMATCH_CACHE";
    env[2] = "CLMATCH_KERNEL_DIR";
    env[3] = NULL;
    if ((rc = t_run_child("temp_taken", base, env)) != 0)
        T_FAIL("child failed (status %d; see # lines above)", rc);
    t_rmtree(base);
    free(base);
}

/* CLMATCH_CACHE=off: nothing on disk, no disk hits. */
static int child_cache_off(const char *dir)
{
    round_all("CLMATCH_CACHE=off", 0);
    round_all("CLMATCH_CACHE=off, second handle", 0);
    if (!EXPECT(count_files(dir, NULL) == 0)) t_note("files were written to %s", dir);
    return 0;
}

/* ---- a damaged compiler cache of the driver ------------------------------------------------ */

/* Program 0 once: arg "ok" expects it to work, else a CLM_E_BUILD that names the missing
 * entry points. */
static int child_one_prog(const char *arg)
{
    clm_device *d = open_dev();
    int hit, rc;
    alarm(CHILD_ALARM_S);
    if (!d) return 1;
    rc = check_prog(d, 0, &hit);
    if (strcmp(arg, "ok") == 0)
        EXPECT_RC(rc, CLM_OK);
    else if (EXPECT_RC(rc, CLM_E_BUILD) && !EXPECT(strstr(clm_last_error(), "entry points")))
        t_note("detail: \"%.400s\"", clm_last_error());
    clm_device_close(d);
    return 0;
}

/* PoCL 3.1 keeps what it built in a cache of its own; after it loaded a binary without its
 * bitcode (see cache.sealed), its cache held an empty program.bc, and every later build of
 * that program gave a program without kernels. The build must then fail with a message that
 * says so (it used to succeed, and the scan failed with CL_INVALID_KERNEL_NAME). Only where
 * the driver's cache is PoCL's (POCL_CACHE_DIR holds program.bc files). */
static void test_driver_cache_damaged(const void *arg)
{
    char *pocl = t_tempdir("pocl-damaged");
    char env_pocl[4200], **list = NULL;
    const char *env[4];
    size_t n = 0, i, emptied = 0;
    int rc;
    (void)arg;
    REQUIRE(pocl != NULL);
    snprintf(env_pocl, sizeof env_pocl, "POCL_CACHE_DIR=%s", pocl);
    env[0] = env_pocl;
    env[1] = "CLMATCH_CACHE=off";
    env[2] = "CLMATCH_KERNEL_DIR";
    env[3] = NULL;
    if ((rc = t_run_child("one_prog", "ok", env)) != 0) T_FAIL("first build: child failed (%d)", rc);
    n = t_list_files(pocl, &list);
    for (i = 0; i < n; i++) {
        size_t len = strlen(list[i]);
        if (len >= 11 && strcmp(list[i] + len - 11, "/program.bc") == 0 && truncate(list[i], 0) == 0)
            emptied++;
    }
    t_free_list(list, n);
    if (emptied == 0)
        t_note("no PoCL cache in %s: nothing to damage", pocl);
    else if ((rc = t_run_child("one_prog", "damaged", env)) != 0)
        T_FAIL("build over a damaged PoCL cache: child failed (%d; see # lines above)", rc);
    t_rmtree(pocl);
    free(pocl);
}

/* ---- the entry check alone ----------------------------------------------------------------- */

static size_t put32(unsigned char *b, size_t at, uint32_t v) { memcpy(b + at, &v, 4); return at + 4; }
static size_t put64(unsigned char *b, size_t at, uint64_t v) { memcpy(b + at, &v, 8); return at + 8; }

/* A file of a PoCL archive: name, then content (each a 32-bit length and the bytes). */
static size_t put_file(unsigned char *b, size_t at, const char *name, size_t content)
{
    at = put32(b, at, (uint32_t)strlen(name));
    memcpy(b + at, name, strlen(name));
    at = put32(b, at + strlen(name), (uint32_t)content);
    memset(b + at, 0x42, content);
    return at + content;
}

/* A small PoCL archive as PoCL 3.1 writes it (format 9, pocl's lib/CL/pocl_binary.c): the
 * header, a root entry holding program.bc (bc bytes), and a record per kernel whose tail
 * holds one compiled file. Returns its length (b: 4096 bytes). Little-endian hosts only. */
static size_t fake_pocl(unsigned char *b, unsigned kernels, size_t bc)
{
    static const char *const names[] = {"clm_find", "clm_count", "clm_pack"};
    size_t at = 0, root, k;
    memset(b, 0, 4096);
    memcpy(b, "poclbin", 8);
    at = put64(b, 8, 0x1234);       /* device id */
    at = put32(b, at, 9);           /* format */
    at = put32(b, at, kernels);
    at = put64(b, at, 0);           /* flags */
    at = put32(b, at, 1);           /* root entries */
    memset(b + at, 'A', 40);        /* build hash, a string of 40 characters */
    at += 41;
    root = at;
    at = put_file(b, at + 8, "/program.bc", bc);
    put64(b, root, at - root - 8);
    for (k = 0; k < kernels; k++) {
        size_t start = at, files;
        char file[64];
        at = put32(b, at + 16, 0);      /* argument info size, after the record's two sizes */
        at = put32(b, at, (uint32_t)strlen(names[k]));
        memcpy(b + at, names[k], strlen(names[k]));
        at = put32(b, at + strlen(names[k]), 0);  /* arguments */
        at = put32(b, at, 0);                     /* locals */
        at += 24;                                 /* required work-group size */
        at = put32(b, at, 0);                     /* attributes */
        at = put64(b, at, 0);                     /* argument metadata */
        files = at;
        snprintf(file, sizeof file, "/%s/0-0-0/%s.so", names[k], names[k]);
        at = put_file(b, at, file, 100);
        put64(b, start, at - start);
        put64(b, start + 8, at - files);
    }
    return at;
}

static const char *check_bin(const char *key, const unsigned char *bin, size_t n, unsigned kernels)
{
    size_t len, at = 0, bin_len = 0;
    unsigned char *e = clm_cache_entry_make(key, bin, n, &len);
    const char *why;
    if (!e) abort();
    why = clm_cache_entry_check(e, len, key, kernels, &at, &bin_len);
    if (!why && (at + bin_len != len || bin_len != n || memcmp(e + at, bin, n) != 0))
        why = T_FAIL("the binary is not where the check says") ? NULL : "misplaced";
    free(e);
    return why;
}

static void test_entry_check(const void *arg)
{
    static const char key[] = "clmatch test\nkey";
    static unsigned char bin[4096], other[4096];
    size_t n = fake_pocl(bin, 2, 300), len, at, bin_len, i;
    unsigned char *e;
    const char *why;
    uint16_t one = 1;
    (void)arg;
    if (*(unsigned char *)&one != 1) {
        t_note("big-endian host: the synthetic PoCL archives are little-endian");
        return;
    }
    /* the archive as PoCL writes it verifies, for a program of its number of kernels */
    if ((why = check_bin(key, bin, n, 2)) != NULL) T_FAIL("a sound archive: %s", why);
    EXPECT(check_bin(key, bin, n, 3) != NULL);
    n = fake_pocl(other, 3, 300);
    if ((why = check_bin(key, other, n, 3)) != NULL) T_FAIL("three kernels: %s", why);
    /* damaged archives (sealed: only the archive's own structure can tell) */
    n = fake_pocl(bin, 2, 0);
    if (!EXPECT((why = check_bin(key, bin, n, 2)) && strstr(why, "program.bc")))
        t_note("an empty program.bc: %s", why ? why : "verifies");
    n = fake_pocl(bin, 2, 300);
    for (i = 0; i < n; i++) /* every shorter archive, down to nothing */
        if (check_bin(key, bin, i, 2) == NULL && !T_FAIL("the archive cut to %zu bytes verifies", i))
            break;
    bin[n] = 0;
    EXPECT(check_bin(key, bin, n + 1, 2) != NULL); /* a byte past the last kernel */
    put64(bin, 77 + 8 + 4 + 11 + 4 + 300, (uint64_t)1 << 62); /* first kernel record's size */
    EXPECT(check_bin(key, bin, n, 2) != NULL);
    n = fake_pocl(bin, 2, 300);
    put32(bin, 32, 2); /* two root entries, one there */
    EXPECT(check_bin(key, bin, n, 2) != NULL);
    /* another driver's binary is the driver's to judge */
    memcpy(other, "//\n// Generated by NVIDIA NVVM Compiler", 39);
    EXPECT(check_bin(key, other, 200, 2) == NULL);
    EXPECT(check_bin(key, other, 7, 2) != NULL);

    /* the entry: every byte is covered (header fields, key, binary), the key must match */
    n = fake_pocl(bin, 2, 300);
    e = clm_cache_entry_make(key, bin, n, &len);
    if (!e) abort();
    EXPECT(clm_cache_entry_check(e, len, key, 2, &at, &bin_len) == NULL);
    EXPECT(clm_cache_entry_check(e, len, "clmatch test\nkeY", 2, &at, &bin_len) != NULL);
    EXPECT(clm_cache_entry_check(e, len, "clmatch test", 2, &at, &bin_len) != NULL);
    for (i = 0; i < len; i++) {
        e[i] ^= 0x10;
        if (clm_cache_entry_check(e, len, key, 2, &at, &bin_len) == NULL
            && !T_FAIL("byte %zu of %zu flipped: the entry verifies", i, len))
            break;
        e[i] ^= 0x10;
    }
    for (i = 0; i < len; i++)
        if (clm_cache_entry_check(e, i, key, 2, &at, &bin_len) == NULL
            && !T_FAIL("the entry cut to %zu of %zu bytes verifies", i, len))
            break;
    free(e);
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
    t_register("cache.entry_check", test_entry_check, NULL, 1);
    t_register("cache.disk", test_cache_disk, NULL, 1);
    t_register("cache.sealed", test_cache_sealed, NULL, 1);
    t_register("cache.race", test_cache_race, NULL, 1);
    t_register("cache.temp_taken", test_cache_temp_taken, NULL, 1);
    t_register("cache.driver_cache_damaged", test_driver_cache_damaged, NULL, 1);
    t_register("cache.off", test_cache_off, NULL, 1);
    t_register("cache.kernel_dir", test_kernel_dir, NULL, 1);
    t_register_child("cache", child_cache);
    t_register_child("cache_sealed", child_sealed);
    t_register_child("one_prog", child_one_prog);
    t_register_child("temp_taken", child_temp_taken);
    t_register_child("cache_race", child_cache_race);
    t_register_child("cache_off", child_cache_off);
    t_register_child("warm", child_warm);
    t_register_child("kernel_broken", child_kernel_broken);
    t_register_child("kernel_ok", child_kernel_ok);
    t_register_child("kernel_fifo", child_kernel_fifo);
    t_register_child("kernel_missing", child_kernel_missing);
}
