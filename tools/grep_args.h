/* The main mode's command line (tools/grep_args.c): what clmatch's options ask for. */
#ifndef CLMATCH_GREP_ARGS_H
#define CLMATCH_GREP_ARGS_H

#include <stddef.h>
#include <stdint.h>

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

enum { LIST_MATCHING = 1, LIST_NON_MATCHING };
enum { BINARY_BINARY, BINARY_TEXT, BINARY_WITHOUT_MATCH };
enum { RECURSE_PHYSICAL = 1, RECURSE_LOGICAL };
enum { RECORDS_MAY = 1, RECORDS_ALWAYS }; /* ALWAYS: options only tools/output.c has */
enum { NAME_IN_DIRS = 2 };

typedef struct {
    int only, positions, count_lines, count_matches, quiet; /* requested output modes */
    out_mode mode;                                          /* the one that wins */
    int line_numbers, byte_offsets;
    int with_filename; /* 0: -h, 1: -H or several files, NAME_IN_DIRS: files -r finds */
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
    /* grep's selection and output habits (tools/output.c, tools/batch.c, tools/walk.c) */
    int invert;             /* -v */
    int list_files;         /* LIST_MATCHING (-l), LIST_NON_MATCHING (-L), else 0 */
    uint64_t max_count;     /* -m NUM; UINT64_MAX: no limit */
    long before, after;     /* -B, -A (or -C, -NUM); -1: not asked (grep's "--" needs one) */
    const char *group_separator; /* "--", --group-separator=SEP; NULL: --no-group-separator */
    int no_messages;        /* -s: no messages about unreadable or missing files */
    int null_after_name;    /* -Z: NUL, not ':' or newline, after a file name */
    const char *label;      /* --label: standard input's name */
    int null_data;          /* -z: records end in NUL, not newline */
    int color;              /* --color, resolved: highlight (never/always/auto on a tty) */
    int binary_files;       /* BINARY_BINARY, BINARY_TEXT (-a), BINARY_WITHOUT_MATCH (-I) */
    int recursive;          /* RECURSE_PHYSICAL (-r), RECURSE_LOGICAL (-R), else 0 */
    const char **file_globs;      /* --include and --exclude, in order */
    unsigned char *glob_includes; /* file_globs[i] is an --include */
    const char **exclude_dirs;    /* --exclude-dir */
    size_t n_file_globs, n_exclude_dirs;
    int records;            /* RECORDS_MAY or RECORDS_ALWAYS: tools/output.c prints the
                               lines of files searched in batches (else: tools/clmatch.c) */
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

#endif
