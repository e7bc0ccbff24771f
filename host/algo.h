/* Algorithms as data: one descriptor per algorithm (host/algo.c). What differs between
 * algorithms lives there: names, kernel source, capabilities, table sizes and builders,
 * staging. host/compile.c plans databases from it, program.c builds from it, tune.c and the
 * tools take their names from it. Adding an algorithm: its descriptor, its cl/ file, its tests. */
#ifndef CLM_ALGO_H
#define CLM_ALGO_H

#include "internal.h"

/* What planning knows of the patterns one engine searches. */
struct clm_pattern_facts {
    size_t m;               /* symbols of the longest pattern */
    unsigned classes;       /* literal patterns: distinct bytes (the reduced alphabet) */
    unsigned bitap_classes; /* bitap: distinct position masks (set by its facts hook) */
    size_t period;          /* smallest period of the literal bytes (1 for symbol sets) */
    size_t states;          /* aho: states of the group's automaton */
    size_t tab_words;       /* aho, hamming: entries of its table (cl/aho.cl, cl/hamming.cl) */
    size_t outputs;         /* aho: loop passes of the most matches ending at one byte */
    unsigned count;         /* hamming: patterns of the engine */
    unsigned runs;          /* hamming: runs of patterns with the same exact ends */
    unsigned exact_head, exact_tail; /* hamming: symbols at each end that must match ... */
    unsigned rc_from;       /* ... at the other ends from this pattern of the engine on (the
                               reverse complements) */
    unsigned kmer_q, kmer_s, kmer_bits; /* kmer: q-gram, sample step, log2 of filter bits */
    size_t filter_words;    /* kmer: uints of its header and filter (the table's start) */
    size_t verify_passes;   /* kmer: loop passes of one sample's verification, at most */
};

/* What an algorithm can do (struct clm_algo.caps). */
enum clm_algo_cap {
    CLM_CAP_CLASSES = 1u << 0, /* symbol sets: classes, degenerate IUPAC codes */
    CLM_CAP_ERRORS = 1u << 1,  /* approximate search (max_errors > 0) */
    CLM_CAP_REDUCE = 1u << 2,  /* the reduce variant (its own kernel file) */
    CLM_CAP_STAGE = 1u << 3,   /* item kernels stage regions in local memory (exact, m <= 64,
                                  tables in local memory: cl/kernels.cl STAGE) */
    CLM_CAP_ENDS = 1u << 4,    /* kernels report exclusive ends, not starts */
    CLM_CAP_PACKED = 1u << 5,  /* item kernels read packed DNA text (cl/common.cl PACKED) */
    CLM_CAP_BLOCKS = 1u << 6,  /* item kernels read 16-byte blocks: the vec knob applies */
    CLM_CAP_STRANDS = 1u << 7, /* item kernels search both strands in one pass */
    CLM_CAP_LOOKUP = 1u << 8,  /* tables looked up once per byte, scattered (dfa, bitap):
                                  local memory first; else threads mostly read the same
                                  entries, which constant memory broadcasts */
    CLM_CAP_WALK = 1u << 9,    /* tables walked state by state, each lane at its own
                                  address (aho): local memory, else global; constant memory
                                  would serialize the lanes */
    CLM_CAP_MISMATCHES = 1u << 10, /* approximate search with substitutions only
                                      (CLM_MISMATCHES_ONLY), up to max_errors */
    CLM_CAP_EXACT_ENDS = 1u << 11  /* the patterns' ends kept exact (exact_head, _tail) */
};

struct clm_algo {
    clm_algorithm id;
    const char *name;          /* as the API, the CLI, tuning keys and the bench spell it */
    const char *macro;         /* the build option ALGO_<macro> */
    const char *source;        /* its file in cl/ */
    const char *reduce_source; /* the reduce variant's file (CLM_CAP_REDUCE) */
    unsigned caps;             /* enum clm_algo_cap */
    unsigned max_length;       /* longest pattern, in symbols */
    unsigned max_errors;       /* CLM_CAP_MISMATCHES: the most it counts (0: CLM_MAX_ERRORS) */
    unsigned group;            /* most patterns one engine (one launch) searches */
    unsigned stage_prefix;     /* CLM_CAP_STAGE: the prefix a longer pattern's cheap walk
                                  runs (cl/common.cl STAGE_PREFIX); 0: none */
    const char *summary;       /* one line, for docs and help */
    /* Facts beyond the common ones about the `count` patterns of one engine (may be NULL);
     * what it built to learn them, the tables hook may use: *built (freed by release). */
    int (*facts)(const struct clm_symbols *sym, unsigned count, unsigned strands, int caseless,
                 struct clm_pattern_facts *f, void **built);
    /* Table sizes (pat_len, tab_len, tab_elem, sigma, ...) and geometry beyond the common
     * ones; *chunk is the bytes per work-item so far, `given` when the options set it. */
    void (*shape)(struct clm_kernel_shape *s, const clm_device *dev,
                  const struct clm_pattern_facts *f, size_t *chunk, int given);
    /* Fill the byte table (pat_len bytes, zeroed) and the second table (tab_len entries of
     * tab_elem bytes, zeroed) for the `count` patterns the shape was planned for. */
    int (*tables)(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                  unsigned count, int caseless, unsigned char *bytes, void *tab, void *built);
    /* Free what the facts hook built (may be NULL when it builds nothing to keep). */
    void (*release)(void *built);
    /* Loop passes one work-item of an unstaged item kernel of shape s makes at most for
     * `chunk` starts, as a device with a loop budget counts them (clm_device.loop_budget):
     * every pass of every loop, the pass that leaves a loop included, an inner loop's passes
     * those of the busiest of `lanes` lanes run together; `bytes` is chunk + m - 1 + lead. */
    size_t (*loop_passes)(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                          unsigned lanes);
    /* Tables asked for in local memory but too large for it: put what part of them in local
     * memory, at most `budget` bytes, the rest staying in global memory (may be NULL: such
     * tables are refused); may raise the chunk unless chunk_given. */
    void (*split)(struct clm_kernel_shape *s, const struct clm_pattern_facts *f, size_t budget,
                  int chunk_given);
    /* Local memory its work-group kernel takes beside the tables (queues; may be NULL: none):
     * counted where the tables would go to local memory too. */
    size_t (*group_bytes)(const struct clm_kernel_shape *s);
    /* CLM_CAP_STAGE: local memory of the staged walk's tables, and its own shape fields. */
    size_t (*stage_bytes)(const struct clm_kernel_shape *s);
    void (*stage_shape)(struct clm_kernel_shape *s);
};

/* Aho-Corasick's hooks (host/aho.c). */
int clm_aho_facts(const struct clm_symbols *sym, unsigned count, unsigned strands, int caseless,
                  struct clm_pattern_facts *f, void **built);
void clm_aho_shape(struct clm_kernel_shape *s, const clm_device *dev,
                   const struct clm_pattern_facts *f, size_t *chunk, int given);
int clm_aho_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                   unsigned count, int caseless, unsigned char *bytes, void *tab, void *built);
void clm_aho_release(void *built);
/* The literal variants patterns with symbol sets stand for in one automaton, their bytes and
 * the classes of the alphabet (CLM_E_UNSUPPORTED past aho's limit). */
int clm_aho_variants(const struct clm_symbols *sym, unsigned count, size_t *entries,
                     size_t *bytes, unsigned *classes);
void clm_aho_split(struct clm_kernel_shape *s, const struct clm_pattern_facts *f, size_t budget,
                   int chunk_given);
size_t clm_aho_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                           unsigned lanes);

/* Hamming's hooks (host/hamming.c). */
int clm_hamming_facts(const struct clm_symbols *sym, unsigned count, unsigned strands,
                      int caseless, struct clm_pattern_facts *f, void **built);
void clm_hamming_shape(struct clm_kernel_shape *s, const clm_device *dev,
                       const struct clm_pattern_facts *f, size_t *chunk, int given);
int clm_hamming_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                       unsigned count, int caseless, unsigned char *bytes, void *tab, void *built);
void clm_hamming_release(void *built);
size_t clm_hamming_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                               unsigned lanes);
size_t clm_hamming_group_bytes(const struct clm_kernel_shape *s);
/* Should auto take hamming for these patterns: are their symbol sets over at most 4 byte
 * classes, and does a work-item fit the device's loop budget? */
int clm_hamming_fits(const clm_device *dev, const struct clm_symbols *sym, unsigned count);

/* The sampled k-mer filter's hooks (host/kmer.c). */
int clm_kmer_facts(const struct clm_symbols *sym, unsigned count, unsigned strands, int caseless,
                   struct clm_pattern_facts *f, void **built);
void clm_kmer_shape(struct clm_kernel_shape *s, const clm_device *dev,
                    const struct clm_pattern_facts *f, size_t *chunk, int given);
int clm_kmer_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                    unsigned count, int caseless, unsigned char *bytes, void *tab, void *built);
void clm_kmer_release(void *built);
size_t clm_kmer_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                            unsigned lanes);
/* Is kmer auto's choice for these literal patterns: DNA bases only, none shorter than the
 * filter needs to skip bytes? */
int clm_kmer_suits(const struct clm_symbols *sym, unsigned count, int caseless);

/* SIMD-friendly exact search's hooks (host/simd.c). */
void clm_simd_shape(struct clm_kernel_shape *s, const clm_device *dev,
                    const struct clm_pattern_facts *f, size_t *chunk, int given);
int clm_simd_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                    unsigned count, int caseless, unsigned char *bytes, void *tab, void *built);
size_t clm_simd_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                            unsigned lanes);

/* Entries of a table of x, rounded up to three significant bits: sets of similar size share a
 * kernel build (TAB_LEN is one of its options), for at most 1/8 more table. */
size_t clm_round_table(size_t x);
/* The descriptor of an algorithm; NULL for CLM_ALGO_AUTO and values out of range. */
const struct clm_algo *clm_algo(clm_algorithm id);
/* CLM_ALGO_COUNT, the number of clm_algorithm values, is in internal.h (the tuning's
 * per-algorithm tables are sized by it). */
/* The algorithms' names, "naive, kmp, ..." (CLM_ALGO_AUTO's not included), for messages. */
const char *clm_algo_names(void);
/* The algorithm that has every capability in caps (for "... can" hints); NULL if none. */
const struct clm_algo *clm_algo_with(unsigned caps);
/* Has the algorithm's kernel of this variant capability cap? CLM_CAP_STAGE, _PACKED,
 * _BLOCKS and _STRANDS are its item kernels' (CLM_VARIANT_ITEM; auto counts as item). */
int clm_algo_can(clm_algorithm id, clm_variant variant, unsigned cap);
/* The prefix a staged walk of shape s runs (the algorithm's stage_prefix, where the pattern
 * is longer); 0: the whole pattern. */
unsigned clm_stage_prefix(const struct clm_kernel_shape *s);

/* Planning a database (choose.c): parsed patterns in, engines with shapes out. */
struct clm_plan {
    const clm_compile_options *o;
    const unsigned *ids;      /* the caller's ids (NULL: pattern i is id i) */
    unsigned n_sym;           /* patterns parsed: the caller's, then (both strands) their
                                 reverse complements */
    struct clm_symbols *sym;  /* per parsed pattern */
    struct clm_pattern_facts *facts; /* per parsed pattern */
    struct clm_symbols *joined; /* per engine searching both strands in one pass: its
                                   pattern and reverse complement side by side (m 0: none) */
    void **built;             /* per engine: what the facts hook built for the tables hook */
    int literal;              /* every pattern is literal bytes */
    size_t longest;           /* symbols */
    unsigned most_classes;    /* literal patterns: the most distinct bytes of one */
};
/* Choose the algorithm, variant, packing and table memory, group the slots into engines and
 * shape each engine's kernel: everything but building and uploading. db holds the patterns
 * (slots) and the options' fields. */
int clm_choose(clm_database *db, struct clm_plan *plan);
/* What engine e's tables are built from: its patterns' symbols (e->count of them), or the
 * joined strands of one pass. */
const struct clm_symbols *clm_plan_symbols(const struct clm_plan *plan, const clm_database *db,
                                           unsigned e);
/* Free what parsing and planning allocated. */
void clm_plan_free(struct clm_plan *plan, const clm_database *db);

#endif
