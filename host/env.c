/* The environment variables the library reads: one table, one accessor. docs/library.md's
 * Environment section is this table (make docs: clmatch-kernels --environment). */
#include <stdlib.h>

#include "internal.h"

static const struct clm_env_row {
    const char *name;
    const char *what;   /* what it changes */
    const char *values; /* what it accepts; anything else is said here */
    const char *see;    /* where it is documented further */
} env_rows[CLM_ENV_COUNT] = {
    [CLM_ENV_PLATFORM] = {"CLMATCH_PLATFORM",
                          "the platform `clm_device_open(-1, -1, ...)` opens (instead of the "
                          "first GPU, else CPU)",
                          "a platform index as `clmatch-devices` lists them; not a number: "
                          "`clm_device_open` fails with `CLM_E_INVALID`",
                          "`clm_device_open`"},
    [CLM_ENV_DEVICE] = {"CLMATCH_DEVICE",
                        "the device of that platform (of platform 0 when `CLMATCH_PLATFORM` is "
                        "unset)",
                        "a device index; not a number: `CLM_E_INVALID`", "`clm_device_open`"},
    [CLM_ENV_KERNEL_DIR] = {"CLMATCH_KERNEL_DIR",
                            "a directory of kernel sources (the `.cl` files and `contract.h`) read "
                            "instead of those built into the library (kernel development)",
                            "a directory holding every file of `cl/`", "[design.md](design.md)"},
    [CLM_ENV_CACHE] = {"CLMATCH_CACHE", "the on-disk program cache", "`off` disables it",
                       "[design.md](design.md)"},
    [CLM_ENV_CACHE_DIR] = {"CLMATCH_CACHE_DIR",
                           "the directory of the on-disk program cache (default "
                           "`$XDG_CACHE_HOME/clmatch`, else `~/.cache/clmatch`)",
                           "a directory (created when missing)", "[design.md](design.md)"},
    [CLM_ENV_XDG_CACHE_HOME] = {"XDG_CACHE_HOME",
                                "where the program cache goes when `CLMATCH_CACHE_DIR` is unset "
                                "or empty: `$XDG_CACHE_HOME/clmatch`",
                                "a directory", "[design.md](design.md)"},
    [CLM_ENV_HOME] = {"HOME",
                      "where the program cache (`~/.cache/clmatch`) and the tuning profiles "
                      "(`~/.config/clmatch/profiles`) go when nothing above names them",
                      "a directory; unset or empty: no cache, no profiles",
                      "[design.md](design.md), [tuning.md](tuning.md)"},
    [CLM_ENV_SLAB_BYTES] = {"CLMATCH_SLAB_BYTES",
                            "the slab of new scratches whose options leave it 0 (tests use "
                            "small slabs)",
                            "bytes, or with K, M or G; more than `CLM_MAX_SLAB_BYTES`, or not a "
                            "size, makes `clm_scratch_alloc` fail with `CLM_E_INVALID`",
                            "[tuning.md](tuning.md)"},
    [CLM_ENV_SLOTS] = {"CLMATCH_SLOTS",
                       "the slots (slabs in flight) of new scratches whose options leave them 0",
                       "`2` to `4` (`CLM_MAX_SCRATCH_SLOTS`); another value makes "
                       "`clm_scratch_alloc` fail with `CLM_E_INVALID`",
                       "[performance.md](performance.md)"},
    [CLM_ENV_DATA_PATH] = {"CLMATCH_DATA_PATH",
                           "the data path of new scratches whose options leave it "
                           "`CLM_PATH_AUTO`",
                           "`auto`, `copy`, `pinned`, `zero-copy`, `svm`; another value makes "
                           "`clm_scratch_alloc` fail with `CLM_E_INVALID`",
                           "[performance.md](performance.md#data-paths)"},
    [CLM_ENV_IO_THREADS] = {"CLMATCH_IO_THREADS",
                            "the threads with which new scratches read files and copy slabs "
                            "into staging (`clm_scratch_info.io_threads`)",
                            "`1` to `64` (`CLM_MAX_IO_THREADS`) or `auto`; another value makes "
                            "`clm_scratch_alloc` fail with `CLM_E_INVALID`",
                            "Files, above"},
    [CLM_ENV_PACKED] = {"CLMATCH_PACKED",
                        "2-bit packing of the text of `CLM_DNA` databases compiled meanwhile: "
                        "`on` packs where it can unless `clm_compile_options.packing` is "
                        "`CLM_OFF`; `off` never packs, whatever the options ask",
                        "`on` or `1`, `off` or `0`; another value: as unset",
                        "[dna.md](dna.md)"},
    [CLM_ENV_PACKED_OLD] = {"CLM_PACKED", "the older name of `CLMATCH_PACKED`, read when that "
                                          "is unset or empty",
                            "as `CLMATCH_PACKED`", "[dna.md](dna.md)"},
    [CLM_ENV_PROFILE_DIR] = {"CLMATCH_PROFILE_DIR",
                             "the directory of tuning profiles (default "
                             "`$XDG_CONFIG_HOME/clmatch/profiles`, else "
                             "`~/.config/clmatch/profiles`)",
                             "a directory", "[tuning.md](tuning.md)"},
    [CLM_ENV_XDG_CONFIG_HOME] = {"XDG_CONFIG_HOME",
                                 "where the tuning profiles are when `CLMATCH_PROFILE_DIR` is "
                                 "unset: `$XDG_CONFIG_HOME/clmatch/profiles`",
                                 "an absolute path (a relative one is ignored, as the XDG "
                                 "specification says)",
                                 "[tuning.md](tuning.md)"},
    [CLM_ENV_PROFILE] = {"CLMATCH_PROFILE", "reading tuning profiles",
                         "`off` or `0`: profiles are not read", "[tuning.md](tuning.md)"},
    [CLM_ENV_STAGING] = {"CLMATCH_STAGING",
                         "the tuning's `stage` (the switch staging had before it was a knob): "
                         "a `stage` item placed before `CLMATCH_TUNE`'s own items",
                         "`on`, `off`, `1`, `0`; another value makes `clm_device_open` fail "
                         "with `CLM_E_INVALID`",
                         "[tuning.md](tuning.md)"},
    [CLM_ENV_TUNE] = {"CLMATCH_TUNE",
                      "tuning values read by `clm_device_open`, over the built-in row and the "
                      "profile",
                      "items `key=value` separated by commas, e.g. `wg=128,dfa.chunk=1024`; a "
                      "bad item makes `clm_device_open` fail with `CLM_E_INVALID`",
                      "[tuning.md](tuning.md)"},
    [CLM_ENV_TEST_EARLY] = {"CLMATCH_TEST_EARLY",
                            "tests only: device D of sets that `clm_set_open_early` opens fails "
                            "to come up (`D:fail`), or comes up only once K chunks are claimed "
                            "and claims the next one itself, the others waiting for it (`D:K`: "
                            "it joins mid-input)",
                            "`D:fail` or `D:K` (D from 1); anything else: ignored",
                            "[library.md](library.md)"},
    [CLM_ENV_HOST_THREADS] = {"CLMATCH_HOST_THREADS",
                              "the threads of a host search (`clm_host_scan` and its "
                              "kin; at least that many pieces) and the parts of clmatch "
                              "`--dna`'s host search, whatever the input's size",
                              "`1` to `64` (`CLM_HOST_MAX_THREADS`) or `auto` (the online CPUs, "
                              "no piece below 1 MiB); another value makes the search fail with "
                              "`CLM_E_INVALID`",
                              "`clm_host_compile`"},
    [CLM_ENV_KMER_Q] = {"CLMATCH_KMER_Q",
                        "the q-gram length of `CLM_ALGO_KMER`'s filter in databases compiled "
                        "meanwhile (kernel development: the default is chosen from the "
                        "patterns)",
                        "`4` to `16`, at most the shortest pattern; anything else: ignored",
                        "[performance.md](performance.md)"},
    [CLM_ENV_LIKE_TEXT] = {"CLMATCH_LIKE_TEXT",
                           "whether `CLM_ROWS_FILTER` finds a LIKE of one or two literal "
                           "segments (`'%a%'`, `'%a%b%'`) over the column's bytes and pairs "
                           "the places per row, or searches an anchor and verifies its rows "
                           "(kernel development and tests: by default GPUs pair them, CPUs "
                           "verify)",
                           "`off`: anchor and verify on every device; `on`: pairing on every "
                           "device (llvmpipe excepted), a work-group per 8 x wg rows where "
                           "their mean length is 256 bytes or less, else through a row index; "
                           "`groups`, `index`: pairing, one of those two ways always; anything "
                           "else: ignored",
                           "[performance.md](performance.md)"},
};

const char *clm_env(enum clm_env_var var)
{
    return (unsigned)var < CLM_ENV_COUNT ? getenv(env_rows[var].name) : NULL;
}

const char *clm_env_name(enum clm_env_var var)
{
    return (unsigned)var < CLM_ENV_COUNT ? env_rows[var].name : "?";
}

void clm_env_doc(FILE *f)
{
    fprintf(f, "| variable | what it sets | values | more |\n|---|---|---|---|\n");
    for (size_t i = 0; i < CLM_ENV_COUNT; i++)
        fprintf(f, "| `%s` | %s | %s | %s |\n", env_rows[i].name, env_rows[i].what,
                env_rows[i].values, env_rows[i].see);
}
