/* The main mode's patterns, gathered and compiled on the device (tools/grep_db.h). */
#include "grep_db.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_common.h"

/* Gather the patterns in order, then ready them for clm_compile. 0, or -1 after a message.
 * Sets cfg's classes, numbered, has_empty, no_patterns and host_side. */
int grep_build_patterns(config *cfg, pattern_list *pl)
{
    size_t i;
    for (i = 0; i < cfg->n_pattern_args; i++)
        if ((cfg->pattern_is_file[i] ? patterns_add_file(pl, cfg->pattern_args[i])
                                     : patterns_add_string(pl, cfg->pattern_args[i])) != 0)
            return -1;
    cfg->numbered = pl->count > 1;
    cfg->classes = 0;
    if (!cfg->fixed_strings)
        for (i = 0; i < pl->count; i++)
            if (pattern_has_class_syntax(&pl->items[i]))
                cfg->classes = 1; /* for the whole set: the others hold no class syntax */
    /* --positions reports every pattern's number: duplicates are searched for each */
    patterns_prepare(pl, cfg->caseless, cfg->classes,
                     cfg->numbered && cfg->mode == MODE_POSITIONS, &cfg->has_empty);
    cfg->no_patterns = pl->count == 0;
    cfg->host_side =
        cfg->word_regexp || cfg->line_regexp || cfg->has_empty || cfg->no_patterns;
    return 0;
}

/* No device chosen (no -p, -d, --devices, CLMATCH_PLATFORM or CLMATCH_DEVICE), nothing asked
 * of the kernels, CLMATCH_HOST_MAX not 0, and patterns the host search takes (one literal):
 * then files go to the host search and the default device opens only for what needs it (a
 * pipe), as --devices auto does with its devices. On the H200 machine that is ahead of
 * ripgrep at 20 MB, 1 GiB and 10 GiB of text, where the GPU's start-up alone costs 0.2-0.4 s
 * (bench/results/h200-v7-2026-11-29-startup.md). */
static int host_by_default(const config *cfg, const char *const *ptrs, const size_t *lens,
                           const unsigned *ids, unsigned n, const clm_compile_options *opts)
{
    uint64_t host_max;
    int env_set;
    clm_host_database *host = NULL;
    if (!cli_no_device_chosen(cfg->devices, &cfg->dev) || opts->algorithm != CLM_ALGO_AUTO ||
        opts->variant != CLM_VARIANT_AUTO || opts->table_memory != CLM_TABLE_AUTO)
        return 0;
    if (cli_host_max_env(&host_max, &env_set) != 0)
        return -1; /* a bad CLMATCH_HOST_MAX, named */
    if (host_max == 0 || clm_host_compile(ptrs, lens, ids, n, opts, &host) != CLM_OK)
        return 0;
    clm_host_database_free(host);
    return 1;
}

int grep_setup_device(const config *cfg, const pattern_list *pl, clm_device **dev,
                      clm_database **db, clm_scratch **scratch, cli_set **set, size_t *max_len)
{
    static const pattern placeholder = {"\n", 1, NO_ID}; /* its matches are dropped */
    const pattern *pats = pl->count ? pl->items : &placeholder;
    const size_t n = pl->count ? pl->count : 1;
    clm_compile_options opts;
    const char **ptrs;
    size_t *lens, i;
    unsigned *ids;
    int st;

    ptrs = malloc(n * sizeof *ptrs);
    lens = malloc(n * sizeof *lens);
    ids = malloc(n * sizeof *ids);
    if (!ptrs || !lens || !ids) {
        errmsg("out of memory");
        free(ptrs);
        free(lens);
        free(ids);
        return -1;
    }
    *max_len = 0;
    for (i = 0; i < n; i++) {
        ptrs[i] = pats[i].ptr;
        lens[i] = pats[i].len;
        ids[i] = pats[i].number;
        if (lens[i] > *max_len)
            *max_len = lens[i];
    }
    clm_compile_options_init(&opts, sizeof opts);
    opts.algorithm = cfg->dev.algorithm;
    opts.table_memory = cfg->dev.table_memory;
    opts.variant = cfg->dev.variant;
    /* the placeholder is searched exactly: -k K would exceed its length */
    opts.max_errors = pl->count ? cfg->max_errors : 0;
    if (cfg->caseless)
        opts.flags |= CLM_CASELESS;
    /* Only when needed: literal patterns stay eligible for every algorithm. */
    if (cfg->classes)
        opts.flags |= CLM_CLASSES;
    if (cfg->mismatches_only && pl->count)
        opts.flags |= CLM_MISMATCHES_ONLY;
    const int host = host_by_default(cfg, ptrs, lens, ids, (unsigned)n, &opts);
    const char *devices = cfg->devices ? cfg->devices : host > 0 ? "default" : NULL;
    if (host < 0 || (devices ? cli_set_open(devices, &cfg->dev, set) != 0
                             : cli_open_device(&cfg->dev, dev) != 0)) {
        free(ptrs);
        free(lens);
        free(ids);
        return -1;
    }
    /* Which lines match, not where each match is: one report a line will do (dense matches,
     * such as 10 000 English words, otherwise all go back to the host). Not where the host
     * checks each match (-w, -x), nor where --color marks each one. */
    if (!cfg->host_side && !cfg->color &&
        (cfg->mode == MODE_LINES || cfg->mode == MODE_COUNT_LINES || cfg->mode == MODE_QUIET ||
         cfg->list_files))
        opts.flags |= CLM_LINES;
    st = *set ? cli_set_compile(*set, ptrs, lens, ids, (unsigned)n, &opts)
              : cli_compile(*dev, ptrs, lens, ids, (unsigned)n, &opts, db);
    free(ptrs);
    free(lens);
    free(ids);
    if (st != CLM_OK) {
        unsigned bad = UINT_MAX;
        *db = NULL;
        /* The library names a malformed pattern by its index in our (sorted) list: say
         * which one the user wrote. */
        if (st == CLM_E_PATTERN_SYNTAX && sscanf(clm_last_error(), "pattern %u", &bad) != 1)
            bad = UINT_MAX;
        report_clm("cannot compile the patterns", st);
        if (st == CLM_E_PATTERN_SYNTAX) {
            if (bad < n && pats[bad].len <= INT_MAX)
                errmsg("pattern %u is '%.*s' (-F searches for it literally)", pats[bad].number,
                       (int)pats[bad].len, pats[bad].ptr);
            else
                errmsg("-F searches for the patterns literally");
        }
        return -1;
    }
    return *set ? cli_set_alloc(*set, &cfg->dev) : cli_alloc_scratch(*db, &cfg->dev, scratch);
}
