/*
 * clmatch-tests: a tiny registration-based test runner (no framework).
 *
 *   clmatch-tests [--quick] [--filter SUBSTR] [--skip SUBSTR]... [--seed N] [--list] [--times]
 *
 * Prints `ok - name` / `not ok - name: reason` per test and ends with exactly
 * `N passed, M failed`; exits 1 when M > 0. `--child NAME [ARG]` runs a helper routine in a
 * fresh process (used by tests that need their own environment).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t.h"

extern char **environ;

int t_quick;
int t_smoke;
int t_full;
uint64_t t_seed = 20240601u;
clm_device *t_dev;
clm_device_info t_devinfo;
const char *t_self;

typedef struct {
    char *name;
    t_fn fn;
    const void *arg;
    int quick;
} t_case;

static t_case *cases;
static size_t ncases, capcases;

typedef struct {
    const char *name;
    t_child_fn fn;
} t_child;

static t_child children[64];
static size_t nchildren;

/* The failure state of the test being run. */
static int cur_failures;
static char cur_reason[2048];

void t_register(const char *name, t_fn fn, const void *arg, int quick)
{
    if (ncases == capcases) {
        capcases = capcases ? 2 * capcases : 64;
        cases = realloc(cases, capcases * sizeof *cases);
        if (!cases) { perror("realloc"); exit(2); }
    }
    cases[ncases].name = strdup(name);
    cases[ncases].fn = fn;
    cases[ncases].arg = arg;
    cases[ncases].quick = quick;
    ncases++;
}

void t_register_child(const char *name, t_child_fn fn)
{
    if (nchildren == sizeof children / sizeof children[0]) { /* else its test fails unexplained */
        fprintf(stderr, "t_register_child: no room for %s: enlarge children[]\n", name);
        exit(2);
    }
    children[nchildren].name = name;
    children[nchildren].fn = fn;
    nchildren++;
}

/* Keep reasons on one line so `not ok - name: reason` stays one line. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r') *s = ' ';
}

int t_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    one_line(msg);
    if (cur_failures == 0) {
        snprintf(cur_reason, sizeof cur_reason, "%s (%s:%d)", msg, file, line);
    } else if (cur_failures < 8) {
        printf("#   also: %s (%s:%d)\n", msg, file, line);
    } else if (cur_failures == 8) {
        printf("#   (further failures of this test not shown)\n");
    }
    cur_failures++;
    return 0;
}

void t_note(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    one_line(msg);
    printf("#   %s\n", msg);
}

int t_failures(void) { return cur_failures; }

int t_expect_rc(int got, int want, const char *expr, const char *file, int line)
{
    if (got == want) return 1;
    return t_fail(file, line, "%s returned %d (%s), expected %d (%s); detail: \"%.600s\"", expr,
                  got, clm_strerror(got), want, clm_strerror(want), clm_last_error());
}

/* ---- children ---------------------------------------------------------------------------- */

/* The environment as the process started. Children get this one, not the live environ:
 * an OpenCL stack may edit the environment of its process at the first call (seen on an
 * NVIDIA machine: OCL_ICD_FILENAMES lost libnvidia-opencl.so.1), and a child built from the
 * edited copy would not see the devices its parent sees. */
static char **start_env;

static void snapshot_environment(void)
{
    size_t n = 0, i;
    while (environ[n]) n++;
    start_env = calloc(n + 1, sizeof *start_env);
    if (!start_env) return; /* children then fall back to the live environment */
    for (i = 0; i < n; i++) {
        start_env[i] = strdup(environ[i]);
        if (!start_env[i]) start_env[i] = environ[i];
    }
}

/* Children run with LeakSanitizer off (the parent keeps it): its tracer crashed ("Tracer
 * caught signal 11") at the exit of children that built several kernels under PoCL, as it does
 * for the CLI (tests/run.sh --asan). Returns entry, or ASAN_OPTIONS with detect_leaks=0. */
static char *no_child_leak_check(char *entry)
{
    static char options[1024];
    const char *on = "detect_leaks=1";
    char *at = strstr(entry, on);
    if (strncmp(entry, "ASAN_OPTIONS=", 13) != 0 || !at || strlen(entry) >= sizeof options)
        return entry;
    snprintf(options, sizeof options, "%.*sdetect_leaks=0%s", (int)(at - entry), entry,
             at + strlen(on));
    return options;
}

int t_run_child(const char *name, const char *arg, const char *const *env_changes)
{
    size_t nenv = 0, nchg = 0, i, j, k = 0;
    char **envp;
    char **base = start_env ? start_env : environ;
    pid_t pid;
    int status;

    while (base[nenv]) nenv++;
    while (env_changes && env_changes[nchg]) nchg++;
    /* Build the environment before fork: only execve runs in the child, since the parent
     * has OpenCL runtime threads and the child may not call malloc safely. */
    envp = calloc(nenv + nchg + 1, sizeof *envp);
    if (!envp) return -1;
    for (i = 0; i < nenv; i++) {
        int replaced = 0;
        for (j = 0; j < nchg; j++) {
            const char *c = env_changes[j];
            size_t kl = strcspn(c, "=");
            if (strncmp(base[i], c, kl) == 0 && base[i][kl] == '=') replaced = 1;
        }
        if (!replaced) envp[k++] = no_child_leak_check(base[i]);
    }
    for (j = 0; j < nchg; j++)
        if (strchr(env_changes[j], '=')) envp[k++] = (char *)env_changes[j];
    envp[k] = NULL;

    {
        char *argv[6];
        int a = 0;
        argv[a++] = (char *)t_self;
        argv[a++] = (char *)"--child";
        argv[a++] = (char *)name;
        if (arg) argv[a++] = (char *)arg;
        argv[a] = NULL;
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid == 0) {
            execve(t_self, argv, envp);
            _exit(127);
        }
    }
    free(envp);
    if (pid < 0) return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    printf("#   child %s died on signal %d\n", name, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}

static int run_child(const char *name, const char *arg)
{
    size_t i;
    for (i = 0; i < nchildren; i++) {
        if (strcmp(children[i].name, name) == 0) {
            int rc = children[i].fn(arg);
            if (cur_failures) printf("#   child %s: %s\n", name, cur_reason);
            fflush(stdout);
            return rc || cur_failures ? 1 : 0;
        }
    }
    printf("#   unknown child routine %s\n", name);
    return 2;
}

/* ---- main -------------------------------------------------------------------------------- */

static void usage(void)
{
    printf("usage: clmatch-tests [--quick | --full] [--filter SUBSTR] [--skip SUBSTR]... "
           "[--seed N] [--list] [--times]\n"
           "  default: the standard subset (sized for a 2-core machine with a cold kernel "
           "cache)\n"
           "  --quick: the smallest subset (ASan, oclgrind)\n"
           "  --full:  every differential case (a few thousand kernel builds: GPU machines)\n");
}

/* The suite's own (empty) CLMATCH_PROFILE_DIR, removed at exit. */
static char *profile_dir;

static void remove_profile_dir(void)
{
    t_rmtree(profile_dir);
    free(profile_dir);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *filter = NULL;
    const char *skips[16];
    size_t nskips = 0;
    int list = 0, times = 0, i;
    size_t passed = 0, failed = 0, c;
    const char *env_seed = getenv("CLMATCH_TEST_SEED");

    /* /proc/self/exe survives a relative argv[0] after chdir; fall back to argv[0]. */
    t_self = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : argv[0];
    /* A user's tuning profile or CLMATCH_TUNE must not change what the suite sees: an empty
     * profile directory of its own (children inherit the parent's). */
    if (!(argc >= 3 && strcmp(argv[1], "--child") == 0)) {
        profile_dir = t_tempdir("profiles");
        if (profile_dir) {
            setenv("CLMATCH_PROFILE_DIR", profile_dir, 1);
            atexit(remove_profile_dir);
        }
        unsetenv("CLMATCH_TUNE");
        unsetenv("CLMATCH_PROFILE");
    }
    snapshot_environment(); /* before any OpenCL call */
    setvbuf(stdout, NULL, _IOLBF, 0);

    register_diff_tests();
    register_classes_tests();
    register_fuzzy_tests();
    register_algo_api_tests();
    register_stage_tests();
    {
        void register_dna_tests(void); /* tests/test_dna.c */
        register_dna_tests();
    }
    register_scan_tests();
    register_stream_tests();
    register_stream_skip_tests();
    register_stream_fd_tests();
    register_path_tests();
    register_api_tests();
    register_cache_tests();
    register_device_tests();
    register_tune_tests();
    register_contract_tests();
    register_multi_tests();
    register_devset_tests();
    register_early_tests();
    register_records_tests();
    register_records_or_tests();
    register_records_pivot_tests();
    register_records_seg_tests();
    register_like_set_tests();
    register_hamming_tests();
    register_host_tests();

    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return run_child(argv[2], argc >= 4 ? argv[3] : NULL);

    if (env_seed && *env_seed) t_seed = strtoull(env_seed, NULL, 0);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            t_smoke = 1;
        } else if (strcmp(argv[i], "--full") == 0) {
            t_full = 1;
        } else if (strcmp(argv[i], "--list") == 0) {
            list = 1;
        } else if (strcmp(argv[i], "--times") == 0) {
            times = 1;
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc) {
            if (nskips < sizeof skips / sizeof skips[0]) skips[nskips++] = argv[i + 1];
            i++;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            t_seed = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage();
            return 0;
        } else {
            usage();
            return 2;
        }
    }

    /* The standard run and --quick both use the reduced parameter sets; --quick also leaves
     * out the cases not marked quick. */
    t_quick = !t_full || t_smoke;
    for (c = 0; c < ncases; c++) {
        size_t s;
        int skip = (t_smoke && !cases[c].quick) || (filter && !strstr(cases[c].name, filter));
        for (s = 0; s < nskips; s++)
            if (strstr(cases[c].name, skips[s])) skip = 1;
        if (skip) cases[c].fn = NULL;
    }
    if (list) {
        for (c = 0; c < ncases; c++)
            if (cases[c].fn) printf("%s\n", cases[c].name);
        return 0;
    }

    printf("# clmatch %s test suite, seed %llu%s (reproduce: --seed %llu or "
           "CLMATCH_TEST_SEED)\n",
           clm_version(), (unsigned long long)t_seed, t_smoke ? ", quick subset" : t_quick ? ", standard set" : ", full set",
           (unsigned long long)t_seed);
    {
        int rc = clm_device_open(-1, -1, &t_dev);
        if (rc != CLM_OK || clm_device_get_info(t_dev, &t_devinfo, sizeof t_devinfo) != CLM_OK) {
            printf("not ok - device_open: clm_device_open(-1, -1) failed: %s: %s\n",
                   clm_strerror(rc), clm_last_error());
            printf("0 passed, 1 failed\n");
            return 1;
        }
    }
    printf("# device: %s (%s) — platform %d \"%s\", device %d; %u compute units, local %llu "
           "bytes, constant %llu bytes, max alloc %llu bytes\n",
           t_devinfo.name, t_devinfo.version, t_devinfo.platform_index,
           t_devinfo.platform_name, t_devinfo.device_index, t_devinfo.compute_units,
           (unsigned long long)t_devinfo.local_mem_bytes,
           (unsigned long long)t_devinfo.constant_mem_bytes,
           (unsigned long long)t_devinfo.max_alloc_bytes);

    for (c = 0; c < ncases; c++) {
        double t0;
        if (!cases[c].fn) continue;
        cur_failures = 0;
        cur_reason[0] = '\0';
        t0 = now();
        cases[c].fn(cases[c].arg);
        if (times) printf("#   %.2f s\n", now() - t0);
        if (cur_failures == 0) {
            printf("ok - %s\n", cases[c].name);
            passed++;
        } else {
            printf("not ok - %s: %s\n", cases[c].name, cur_reason);
            failed++;
        }
    }
    clm_device_close(t_dev);
    for (c = 0; c < ncases; c++) free(cases[c].name);
    free(cases);
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
