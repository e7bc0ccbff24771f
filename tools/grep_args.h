/* The main mode's command line (tools/grep_args.c): what clmatch's options ask for. */
#ifndef CLMATCH_GREP_ARGS_H
#define CLMATCH_GREP_ARGS_H

#include <stddef.h>

#include "cli_common.h"
#include "patterns.h"

/* What is printed, in order of precedence when several are asked for. */
typedef enum {
    MODE_LINES,         /* default: matching lines */
    MODE_ONLY,          /* -o: each occurrence */
    MODE_POSITIONS,     /* --positions: start offset of each occurrence */
    MODE_COUNT_LINES,   /* -c */
    MODE_COUNT_MATCHES, /* --count-matches */
    MODE_QUIET          /* -q */
} out_mode;

typedef struct {
    int only, positions, count_lines, count_matches, quiet; /* requested output modes */
    out_mode mode;                                          /* the one that wins */
    int line_numbers, byte_offsets;
    int with_filename; /* -1: when several files, 0: -h, 1: -H */
    int non_overlapping;
    int caseless;
    int fixed_strings;   /* -F: every pattern literal, never class syntax */
    unsigned max_errors; /* -k K */
    int mismatches_only; /* --mismatches-only */
    int word_regexp;     /* -w */
    int line_regexp;     /* -x (wins over -w, as in grep) */
    /* Set by build_patterns: */
    int classes;         /* some pattern uses class syntax */
    int numbered;        /* several patterns: --positions adds the pattern's number */
    int has_empty;       /* an empty pattern: it matches every line (the CLI's to handle) */
    int no_patterns;     /* nothing for the library: it searches a placeholder (NO_ID) */
    int host_side;       /* matches pass the host's checks (-w, -x, empty, placeholder) */
    int stats, list_devices, json;
    cli_device_opts dev; /* -p -d -a --variant --table-memory --block-size */
    const char *devices; /* --devices LIST (tools/cli_devices.c); NULL: one device */
    const char **pattern_args; /* -e and -f values, or the PATTERN operand, in order */
    unsigned char *pattern_is_file; /* pattern_args[i] names a -f FILE */
    size_t n_pattern_args;
    char **files;
    size_t n_files;
} config;

/* Parse argv into *cfg. Returns -1 to go on, else the exit status (0 after --help and
 * --version, 2 on a usage error, with its message printed). */
int grep_parse_args(int argc, char **argv, config *cfg);

/* Gather the patterns of -e, -f and PATTERN in order (pl starts empty), then ready them for
 * clm_compile. 0, or -1 after a message. Sets cfg's classes, numbered, has_empty,
 * no_patterns and host_side. */
int grep_build_patterns(config *cfg, pattern_list *pl);

#endif
