/*
 * Shared pieces of the clmatch test suite: the runner's registration and assertion API,
 * a seeded RNG, the CPU reference matcher, match lists and child-process helpers.
 */
#ifndef CLMATCH_TESTS_T_H
#define CLMATCH_TESTS_T_H

#include <stddef.h>
#include <stdint.h>

#include "clmatch.h"

/* ---- runner ------------------------------------------------------------------------------ */

typedef void (*t_fn)(const void *arg);

/* Register a test. name is copied; arg is passed through (must outlive the run).
 * quick: also part of the --quick subset. */
void t_register(const char *name, t_fn fn, const void *arg, int quick);

/* Options and shared state of the run. */
extern int t_quick;                 /* not --full: tests shrink their parameter sets */
extern int t_smoke;                 /* --quick: only the cases registered as quick, too */
extern int t_full;                  /* --full: every differential case (GPU machines) */
extern uint64_t t_seed;             /* base seed (--seed / CLMATCH_TEST_SEED) */
extern clm_device *t_dev;           /* the device under test, clm_device_open(-1, -1) */
extern clm_device_info t_devinfo;   /* its description */
extern const char *t_self;          /* path of this executable, for child processes */

/* Record a failure of the current test (the first reason is what `not ok` prints; later
 * ones are printed as comments). Returns 0 so it can be used in expressions. */
int t_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Print a diagnostic comment line ("# ...") under the current test. */
void t_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Number of failures recorded so far in the current test. */
int t_failures(void);

int t_expect_rc(int got, int want, const char *expr, const char *file, int line);

#define T_FAIL(...) t_fail(__FILE__, __LINE__, __VA_ARGS__)
/* EXPECT*: record a failure and evaluate to 0, else 1; the test goes on (use for cleanup). */
#define EXPECT(cond) ((cond) ? 1 : t_fail(__FILE__, __LINE__, "%s", #cond))
#define EXPECT_RC(expr, want) t_expect_rc((expr), (want), #expr, __FILE__, __LINE__)
/* REQUIRE*: same, then return from the test function. */
#define REQUIRE(cond) do { if (!EXPECT(cond)) return; } while (0)
#define REQUIRE_RC(expr, want) do { if (!EXPECT_RC(expr, want)) return; } while (0)

/* ---- random ------------------------------------------------------------------------------ */

typedef struct { uint64_t s; } t_rng;
/* A generator seeded from the base seed and a label, so each case is reproducible alone. */
void t_rng_init(t_rng *r, const char *label, uint64_t salt);
uint64_t t_rand(t_rng *r);
size_t t_below(t_rng *r, size_t n);                 /* uniform in [0, n), n > 0 */

/* Fill buf[0, n) with symbols of an alphabet of the given size: 2, 4, 26 map to "ab",
 * "ACGT", 'a'..'z'; 256 means every byte value (NUL included). */
void t_fill(t_rng *r, unsigned char *buf, size_t n, unsigned alpha);
/* n such bytes in a malloc'd buffer (abort when out of memory). */
unsigned char *t_random_text(t_rng *r, size_t n, unsigned alpha);
unsigned char t_symbol(unsigned alpha, size_t k);   /* k-th symbol of that alphabet */

/* A deterministic pattern for (alphabet, length): the same bytes for every algorithm, table
 * memory and text kind, so kernel builds that depend on the pattern are shared. */
unsigned char *t_pattern(unsigned alpha, size_t m);

/* ---- matches and the reference --------------------------------------------------------- */

typedef struct {
    clm_match *v;
    size_t n, cap;
    size_t limit;        /* callback returns 1 once n reaches limit (0: never stops) */
    uint64_t written;    /* streams: bytes written so far, to check causality */
    int causality_errors;
} t_matches;

void t_matches_init(t_matches *m);
void t_matches_free(t_matches *m);
void t_matches_clear(t_matches *m);
void t_matches_push(t_matches *m, uint64_t start, uint64_t end, unsigned id); /* edits 0 */
void t_matches_push_e(t_matches *m, uint64_t start, uint64_t end, unsigned id, unsigned edits);
int t_collect(const clm_match *match, void *ctx);  /* clm_match_cb appending to a t_matches */
int t_ignore(const clm_match *match, void *ctx);   /* clm_match_cb taking every match, keeping none */

/* A pattern set as handed to clm_compile. ids NULL: pattern i reports id i. */
typedef struct {
    const unsigned char *const *pats;
    const size_t *lens;
    const unsigned *ids;
    unsigned count;
    int caseless;
} t_patset;

/* Every occurrence of every pattern, by start then id: each start position compared with
 * memcmp (after ASCII case folding of both sides when caseless). */
void t_reference(const unsigned char *text, size_t n, const t_patset *ps, t_matches *out);

/* Compare two match lists (start, end, id and edits); on a difference write a description of
 * the first one into buf and return 1. */
int t_matches_diff(const t_matches *got, const t_matches *want, char *buf, size_t size);

/* ---- children ---------------------------------------------------------------------------- */

/* Run this executable as `t_self --child NAME [ARG]` with the environment changed by
 * env_changes ("K=V" sets, "K" alone unsets; NULL-terminated list). Returns the exit
 * status (0 = child passed), or -1 when it died on a signal / could not start. */
int t_run_child(const char *name, const char *arg, const char *const *env_changes);

/* A child routine: returns 0 on success; reports failures with T_FAIL like a test. */
typedef int (*t_child_fn)(const char *arg);
void t_register_child(const char *name, t_child_fn fn);

/* ---- files ------------------------------------------------------------------------------- */

/* Make a fresh temporary directory (mkdtemp under TMPDIR); returns a malloc'd path. */
char *t_tempdir(const char *tag);
/* Remove a directory tree (best effort). */
void t_rmtree(const char *path);
/* Regular files under dir (recursive); returns the count, *out a malloc'd array of malloc'd
 * paths (free with t_free_list). */
size_t t_list_files(const char *dir, char ***out);
void t_free_list(char **list, size_t n);
/* Copy a file; returns 0 on success. */
int t_copy_file(const char *from, const char *to);

/* Compile helper shared by tests: compile with algorithm / table memory / flags. */
int t_compile(const t_patset *ps, clm_algorithm algo, clm_table_memory mem, unsigned flags,
              unsigned wgs, unsigned bpi, clm_database **out);

/* The same with the options of the bitap era: a kernel variant and max_errors. */
int t_compile_ex(const t_patset *ps, clm_algorithm algo, clm_table_memory mem, unsigned flags,
                 unsigned wgs, unsigned bpi, clm_variant variant, unsigned max_errors,
                 clm_database **out);
/* t_compile_ex in two steps, for a test that sets further options in between: fill *o as
 * t_compile_ex compiles, then compile ps with *o. */
void t_compile_options(clm_compile_options *o, const t_patset *ps, clm_algorithm algo,
                       clm_table_memory mem, unsigned flags, unsigned wgs, unsigned bpi,
                       clm_variant variant, unsigned max_errors);
int t_compile_with(const t_patset *ps, const clm_compile_options *o, clm_database **out);
/* clm_scan and clm_count of text[0, n) with db and s against want (the reference, already
 * computed); got is scratch space. A difference is recorded naming desc and what; returns 1
 * when both agree, else 0. */
int t_check_scan(const clm_database *db, clm_scratch *s, const unsigned char *text, size_t n,
                 const t_matches *want, t_matches *got, const char *desc, const char *what);
/* Replace *s by a scratch of db with this slab and match capacity (0: defaults); on failure
 * record it (naming desc), leave *s NULL and return 0; else 1. */
int t_scratch_alloc(const clm_database *db, clm_scratch **s, size_t slab, size_t capacity,
                    const char *desc);
/* The same with this slab and number of slots (clm_scratch_options.slots). */
int t_scratch_alloc_slots(const clm_database *db, clm_scratch **s, size_t slab, unsigned slots,
                          const char *desc);
/* 1 when the test device lists the OpenCL extension name (exact word) in its extensions. */
int t_has_extension(const char *name);

/* A conservative bound of the table bytes an (algorithm, table memory) needs for a pattern
 * set: it is used to decide whether a CLM_E_UNSUPPORTED answer is legitimate. */
uint64_t t_table_bytes(const t_patset *ps, clm_algorithm algo);
/* Bytes available to a table in that memory on the test device. */
uint64_t t_table_limit(clm_table_memory mem);

/* Register the tests of each file (called by the runner in this order). */
void register_diff_tests(void);
void register_scan_tests(void);
void register_stream_tests(void);
void register_stream_skip_tests(void);
void register_stream_fd_tests(void);
void register_api_tests(void);
void register_cache_tests(void);
void register_device_tests(void);
void register_classes_tests(void);
void register_fuzzy_tests(void);
void register_algo_api_tests(void);
void register_stage_tests(void);
void register_tune_tests(void);
void register_path_tests(void);
void register_contract_tests(void);
void register_multi_tests(void);
void register_devset_tests(void);
void register_early_tests(void);
void register_records_tests(void);
void register_records_or_tests(void);
void register_records_pivot_tests(void);
void register_records_seg_tests(void);
void register_like_set_tests(void);
void register_hamming_tests(void);
void register_host_tests(void);

#endif
