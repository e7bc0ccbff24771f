/* The main mode's help text and option parsing (tools/grep_args.h). */
#include "grep_args.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_devices.h"
#include "clmatch.h"

static void print_help(void)
{
    fputs(
        "Usage: clmatch [OPTIONS] PATTERN [FILE...]\n"
        "Search for strings (like grep -F), character classes or approximate matches on an\n"
        "OpenCL device. PATTERN may hold several patterns separated by newlines. With no FILE,\n"
        "or when FILE is -, read standard input.\n"
        "\n"
        "DNA mode: clmatch --dna [OPTIONS] PATTERN [FILE...] locates IUPAC patterns in FASTA\n"
        "records on both strands, with seqkit-locate-style output (clmatch --dna --help).\n"
        "LIKE mode: clmatch --like PATTERN [FILE...] prints the lines an SQL LIKE pattern\n"
        "matches whole, clmatch --contains PATTERN -k K those holding PATTERN within K\n"
        "errors (--ilike, -v, -z, --row-ids: clmatch --like --help).\n"
        "\n"
        "Patterns:\n"
        "  -e, --regexp=PATTERN      use PATTERN (repeatable; then every operand is a FILE)\n"
        "  -f, --file=FILE           one pattern per line of FILE (- for standard input;\n"
        "                            repeatable, in order with -e); an empty line (or pattern)\n"
        "                            matches every line; an empty file, none\n"
        "  -w, --word-regexp         only occurrences with no word byte [A-Za-z0-9_] right\n"
        "                            before or after them\n"
        "  -x, --line-regexp         only occurrences that are a whole line (wins over -w;\n"
        "                            -w and -x refuse -k K >= 1)\n"
        "  -i, --ignore-case         ASCII case-insensitive matching (also of classes)\n"
        "  -F, --fixed-strings       every pattern is literal: no class syntax\n"
        "  -k, --errors=K            approximate search: up to K edits (insertions, deletions,\n"
        "                            substitutions; K < the pattern length, at most 16)\n"
        "      --mismatches-only     with -k: substitutions only (Hamming distance)\n"
        "\n"
        "Without -F, a pattern holding '.', '[' or '\\' uses class syntax (one symbol each):\n"
        "  .  any byte (newline included)     [ACGT] [a-z0-9] one of    [^...] none of\n"
        "  \\d \\w \\s  digit, word byte, space     \\D \\W \\S  their complements\n"
        "  \\n \\t \\r  newline, tab, CR           \\. \\\\ \\[ \\]  the byte itself\n"
        "Inside [...], \\ escapes the next byte (\\] \\- \\\\) and \\d \\w \\s work. A pattern\n"
        "without these bytes is literal, as with -F. Classes and -k need the bitap algorithm.\n"
        "\n",
        stdout);
    fputs(
        "Output (the first of -q, --count-matches, -c, --positions, -o wins; default: lines):\n"
        "  -n, --line-number         prefix each line (or -o match) with its 1-based line number\n"
        "  -b, --byte-offset         prefix the 0-based byte offset of the line (with -o: of the\n"
        "                            match)\n"
        "  -H, --with-filename       prefix each output with the file name\n"
        "  -h, --no-filename         never prefix the file name\n"
        "  -c, --count               print the number of matching lines per file\n"
        "      --count-matches       print the number of occurrences per file\n"
        "  -o, --only-matching       print each occurrence on its own line\n"
        "      --positions           print the 0-based start offset of each occurrence; with\n"
        "                            several patterns, then TAB and the pattern's number\n"
        "                            (1-based, in the order given)\n"
        "      --non-overlapping     for -o, --count-matches, --positions: leftmost-longest,\n"
        "                            non-overlapping occurrences as grep -o finds them\n"
        "                            (default: every occurrence, overlapping ones included)\n"
        "  -q, --quiet, --silent     print nothing; exit 0 at the first match\n"
        "\n",
        stdout);
    fputs(
        "Selection and output, as grep's:\n"
        "  -v, --invert-match        select the lines with no occurrence\n"
        "  -m, --max-count=NUM       stop after NUM selected lines (a negative NUM: no limit)\n"
        "  -l, --files-with-matches  print only the names of files with a selected line\n"
        "  -L, --files-without-match print only the names of files without one\n"
        "  -A, --after-context=NUM   print NUM lines after each selected line\n"
        "  -B, --before-context=NUM  print NUM lines before it\n"
        "  -C, --context=NUM, -NUM   both (-A, -B win); \"--\" between groups that do not touch\n"
        "      --group-separator=SEP  SEP instead of \"--\"; --no-group-separator: none\n"
        "  -Z, --null                a NUL byte after each file name\n"
        "      --label=LABEL         the name of standard input (default \"(standard input)\")\n"
        "  -z, --null-data           lines end in NUL bytes, not newlines\n"
        "      --color[=WHEN]        highlight occurrences, names, numbers and separators as\n"
        "                            GREP_COLORS says; WHEN: never, always or auto (default:\n"
        "                            on a terminal)\n"
        "  -s, --no-messages         no messages about missing or unreadable files\n"
        "A search longer than a second shows its progress on stderr when that is a terminal\n"
        "(bytes, GB/s, time left), except with -q.\n"
        "\n"
        "Files, as grep's:\n"
        "  -r, --recursive           search directories, without following the symbolic links\n"
        "                            met inside them; with no FILE, the working directory\n"
        "  -R, --dereference-recursive  the same, following every symbolic link\n"
        "      --include=GLOB        search only files whose name matches GLOB\n"
        "      --exclude=GLOB        skip files whose name matches GLOB\n"
        "      --exclude-dir=GLOB    skip directories whose name matches GLOB\n"
        "      --binary-files=TYPE   a file with a NUL byte is binary: TYPE binary (print\n"
        "                            \"clmatch: FILE: binary file matches\" on stderr instead\n"
        "                            of its lines), text, or without-match\n"
        "  -a, --text                --binary-files=text\n"
        "  -I                        --binary-files=without-match\n"
        "With -v, -l, -L, -m, -A, -B, -C, -z, --color, -r or several files each file is read\n"
        "whole into memory (small ones searched together, in one pass). -v, -l, -L, -m, -A,\n"
        "-B, -C and -z do not apply to -k K >= 1, --positions or --count-matches.\n"
        "\n",
        stdout);
    fputs(
        "Approximate search (-k K with K >= 1) reports, for each end position where the pattern\n"
        "matches with at most K edits, one match with the fewest edits (its start is that of\n"
        "the best alignment whose length is closest to the pattern's). Then:\n"
        "  lines, -n, -b, -c         a line is selected when a match STARTS in it (as agrep)\n"
        "  --positions               START<TAB>END<TAB>EDITS per match (0-based, END exclusive)\n"
        "  -o                        START<TAB>END<TAB>EDITS<TAB>TEXT, TEXT the matched bytes\n"
        "                            with newline written as \\n and backslash as \\\\\n"
        "  --count-matches           the number of matches (one per end position)\n"
        "  --non-overlapping         leftmost non-overlapping matches, taken in the order\n"
        "                            start, pattern, end\n"
        "\n",
        stdout);
    fputs(
        "Device and kernels:\n"
        "  -p, --platform=N          OpenCL platform index (see --list-devices)\n"
        "  -d, --device=N            device index within the platform (default platform 0)\n"
        "                            Default: CLMATCH_PLATFORM/CLMATCH_DEVICE, else the first\n"
        "                            GPU, else the first CPU.\n",
        stdout);
    printf("      --algorithm=NAME      %s (default auto)\n", cli_algorithm_names());
    fputs(
        "      --variant=NAME        kernel variant: auto, item, reduce or subgroup (bitap)\n"
        "      --table-memory=NAME   auto, global, local or constant (default auto)\n"
        "      --list-devices        list the OpenCL devices and exit (--json: as JSON)\n"
        "      --stats               print device, algorithm (and why), data path (and why),\n"
        "                            slab, memory, I/O threads, bytes and timings to stderr,\n"
        "                            with where start-up, search and teardown time went\n"
        CLI_DEVICES_HELP
        "      --block-size=BYTES    read block for standard input and pipes (default 16M;\n"
        "                            K, M, G suffixes)\n"
        CLI_DATA_PATH_HELP
        "\n"
        "  --help                    show this help and exit\n"
        "  -V, --version             show the version and exit\n"
        "\n"
        "Exit status: 0 if a line was selected, 1 if none was, 2 on an error (with -q, 0 if\n"
        "a line was selected even after an error; -s silences messages, not the status).\n",
        stdout);
}

/* ---------------------------------------------------------------------------------------- */
/* Option parsing                                                                             */
/* ---------------------------------------------------------------------------------------- */

enum {
    OPT_COUNT_MATCHES = CLI_OPT_LOCAL,
    OPT_POSITIONS,
    OPT_NON_OVERLAPPING,
    OPT_LIST_DEVICES,
    OPT_JSON,
    OPT_STATS,
    OPT_MISMATCHES_ONLY,
    OPT_DEVICES,
    OPT_LABEL,
    OPT_COLOR,
    OPT_TEXT,
    OPT_BINARY_FILES,
    OPT_INCLUDE,
    OPT_EXCLUDE,
    OPT_EXCLUDE_DIR,
    OPT_GROUP_SEPARATOR,
    OPT_NO_GROUP_SEPARATOR,
    OPT_HELP
};

static const struct option long_options[] = {
    {"regexp", required_argument, NULL, 'e'},
    {"file", required_argument, NULL, 'f'},
    {"word-regexp", no_argument, NULL, 'w'},
    {"line-regexp", no_argument, NULL, 'x'},
    {"ignore-case", no_argument, NULL, 'i'},
    {"fixed-strings", no_argument, NULL, 'F'},
    {"line-number", no_argument, NULL, 'n'},
    {"byte-offset", no_argument, NULL, 'b'},
    {"with-filename", no_argument, NULL, 'H'},
    {"no-filename", no_argument, NULL, 'h'},
    {"count", no_argument, NULL, 'c'},
    {"count-matches", no_argument, NULL, OPT_COUNT_MATCHES},
    {"only-matching", no_argument, NULL, 'o'},
    {"positions", no_argument, NULL, OPT_POSITIONS},
    {"non-overlapping", no_argument, NULL, OPT_NON_OVERLAPPING},
    {"quiet", no_argument, NULL, 'q'},
    {"silent", no_argument, NULL, 'q'},
    {"invert-match", no_argument, NULL, 'v'},
    {"files-with-matches", no_argument, NULL, 'l'},
    {"files-without-match", no_argument, NULL, 'L'},
    {"max-count", required_argument, NULL, 'm'},
    {"no-messages", no_argument, NULL, 's'},
    {"after-context", required_argument, NULL, 'A'},
    {"before-context", required_argument, NULL, 'B'},
    {"context", required_argument, NULL, 'C'},
    {"group-separator", required_argument, NULL, OPT_GROUP_SEPARATOR},
    {"no-group-separator", no_argument, NULL, OPT_NO_GROUP_SEPARATOR},
    {"null", no_argument, NULL, 'Z'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"null-data", no_argument, NULL, 'z'},
    {"color", optional_argument, NULL, OPT_COLOR},
    {"colour", optional_argument, NULL, OPT_COLOR},
    {"text", no_argument, NULL, OPT_TEXT},
    {"binary-files", required_argument, NULL, OPT_BINARY_FILES},
    {"recursive", no_argument, NULL, 'r'},
    {"dereference-recursive", no_argument, NULL, 'R'},
    {"include", required_argument, NULL, OPT_INCLUDE},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"exclude-dir", required_argument, NULL, OPT_EXCLUDE_DIR},
    CLI_DEVICE_LONG_OPTIONS,
    {"errors", required_argument, NULL, 'k'},
    {"mismatches-only", no_argument, NULL, OPT_MISMATCHES_ONLY},
    {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
    {"json", no_argument, NULL, OPT_JSON},
    {"stats", no_argument, NULL, OPT_STATS},
    {"devices", required_argument, NULL, OPT_DEVICES},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};

/* -A, -B, -C NUM: a number >= 0, as grep. 0, or -1 after grep's message. */
static int parse_context(const char *arg, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (*arg < '0' || *arg > '9' || *end || errno == ERANGE) {
        errmsg("%s: invalid context length argument", arg);
        return -1;
    }
    *out = v;
    return 0;
}

/* -m NUM: as grep, a negative NUM means no limit. 0, or -1 after grep's message. */
static int parse_max_count(const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (end == arg || *end || (errno == ERANGE && v > 0)) {
        errmsg("invalid max count");
        return -1;
    }
    *out = v < 0 || errno == ERANGE ? UINT64_MAX : (uint64_t)v;
    return 0;
}

/* --color[=WHEN] with grep's names for WHEN; auto: only on a terminal that is not "dumb". */
static int parse_color(const char *arg, int *out)
{
    const char *term = getenv("TERM");
    if (!arg || !strcmp(arg, "auto") || !strcmp(arg, "tty") || !strcmp(arg, "if-tty"))
        *out = isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0;
    else if (!strcmp(arg, "always") || !strcmp(arg, "yes") || !strcmp(arg, "force"))
        *out = 1;
    else if (!strcmp(arg, "never") || !strcmp(arg, "no") || !strcmp(arg, "none"))
        *out = 0;
    else {
        errmsg("invalid argument '%s' for '--color' (expected always, never or auto)", arg);
        return -1;
    }
    return 0;
}

static int parse_binary_files(const char *arg, int *out)
{
    if (!strcmp(arg, "binary"))
        *out = BINARY_BINARY;
    else if (!strcmp(arg, "text"))
        *out = BINARY_TEXT;
    else if (!strcmp(arg, "without-match"))
        *out = BINARY_WITHOUT_MATCH;
    else {
        errmsg("unknown binary-files type '%s' (expected binary, text or without-match)", arg);
        return -1;
    }
    return 0;
}

/* The options only tools/output.c implements (it reads each file whole, searches it exactly,
 * and prints lines): refused with the modes it does not print. 0, or -1 after a message. */
static int check_records(config *cfg)
{
    const int wanted = cfg->invert || cfg->list_files || cfg->max_count != UINT64_MAX ||
                       cfg->before >= 0 || cfg->after >= 0 || cfg->null_data;
    const int able = cfg->max_errors == 0 &&
                     (cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY ||
                      cfg->mode == MODE_COUNT_LINES || cfg->mode == MODE_QUIET);
    if (wanted && !able) {
        errmsg("-v, -l, -L, -m, -A, -B, -C and -z do not apply to approximate search (-k K "
               ">= 1), --positions or --count-matches");
        cli_usage_hint("");
        return -1;
    }
    cfg->records = !able ? 0 : wanted || cfg->color ? RECORDS_ALWAYS : RECORDS_MAY;
    return 0;
}

/* Returns -1 to go on, else the exit status (0 after --help/--version, 2 on a usage error). */
int grep_parse_args(int argc, char **argv, config *cfg)
{
    int opt, prev_optind = 1, digits_optind = 0;
    long context = -1; /* -C NUM, -NUM: for -A and -B not given */
    memset(cfg, 0, sizeof *cfg);
    cfg->with_filename = -1;
    cfg->max_count = UINT64_MAX;
    cfg->before = cfg->after = -1;
    cfg->group_separator = "--";
    cli_device_opts_init(&cfg->dev);
    cfg->pattern_args = malloc(sizeof *cfg->pattern_args * (size_t)(argc > 0 ? argc : 1));
    cfg->pattern_is_file = calloc((size_t)(argc > 0 ? argc : 1), 1);
    /* one array for the two glob lists: each gets argc slots, more than it can need */
    cfg->file_globs = malloc(sizeof *cfg->file_globs * 2 * (size_t)(argc > 0 ? argc : 1));
    cfg->exclude_dirs = cfg->file_globs + (argc > 0 ? argc : 1);
    cfg->glob_includes = calloc((size_t)(argc > 0 ? argc : 1), 1);
    if (!cfg->pattern_args || !cfg->pattern_is_file || !cfg->file_globs || !cfg->glob_includes) {
        errmsg("out of memory");
        return EXIT_TROUBLE;
    }

    opterr = 0; /* our own messages, with our prefix */
    while ((opt = getopt_long(argc, argv, ":e:f:wxiFnbHhcoqp:d:ak:VvlLm:sA:B:C:ZzrRI0123456789",
                              long_options, NULL)) != -1) {
        const int this_optind = prev_optind;
        prev_optind = optind;
        if (opt >= '0' && opt <= '9') {
            /* -NUM is -C NUM, its digits in one argument (grep: -12 is 12, -1 -2 is 2) */
            context = (digits_optind == this_optind && context < 100000000 ? context * 10 : 0) +
                      (opt - '0');
            digits_optind = this_optind;
            continue;
        }
        /* The block gets the hold-back added to it: half of the address space at most. -a
         * is grep's --text here, not the device options' --algorithm. */
        int dst = opt == 'a' ? 1 : cli_device_option(opt, optarg, &cfg->dev, 2, "");
        if (dst < 0)
            return EXIT_TROUBLE;
        if (dst == 0)
            continue;
        switch (opt) {
        case 'e': cfg->pattern_args[cfg->n_pattern_args++] = optarg; break;
        case 'f':
            cfg->pattern_is_file[cfg->n_pattern_args] = 1;
            cfg->pattern_args[cfg->n_pattern_args++] = optarg;
            break;
        case 'w': cfg->word_regexp = 1; break;
        case 'x': cfg->line_regexp = 1; break;
        case 'i': cfg->caseless = 1; break;
        case 'F': cfg->fixed_strings = 1; break;
        case 'n': cfg->line_numbers = 1; break;
        case 'b': cfg->byte_offsets = 1; break;
        case 'H': cfg->with_filename = 1; break;
        case 'h': cfg->with_filename = 0; break;
        case 'c': cfg->count_lines = 1; break;
        case 'o': cfg->only = 1; break;
        case 'q': cfg->quiet = 1; break;
        case OPT_COUNT_MATCHES: cfg->count_matches = 1; break;
        case OPT_POSITIONS: cfg->positions = 1; break;
        case OPT_NON_OVERLAPPING: cfg->non_overlapping = 1; break;
        case OPT_LIST_DEVICES: cfg->list_devices = 1; break;
        case OPT_JSON: cfg->json = 1; break;
        case OPT_STATS: cfg->stats = 1; break;
        case OPT_MISMATCHES_ONLY: cfg->mismatches_only = 1; break;
        case OPT_DEVICES: cfg->devices = optarg; break;
        case 'v': cfg->invert = 1; break;
        case 'l': cfg->list_files = LIST_MATCHING; break;
        case 'L': cfg->list_files = LIST_NON_MATCHING; break;
        case 's': cfg->no_messages = 1; break;
        case 'Z': cfg->null_after_name = 1; break;
        case 'z': cfg->null_data = 1; break;
        case 'r': /* as grep: -R then -r still follows links */
            if (!cfg->recursive)
                cfg->recursive = RECURSE_PHYSICAL;
            break;
        case 'R': cfg->recursive = RECURSE_LOGICAL; break;
        case 'I': cfg->binary_files = BINARY_WITHOUT_MATCH; break;
        case 'a': /* grep's -a; the device options' -a is --algorithm here */
        case OPT_TEXT: cfg->binary_files = BINARY_TEXT; break;
        case OPT_LABEL: cfg->label = optarg; break;
        case OPT_GROUP_SEPARATOR: cfg->group_separator = optarg; break;
        case OPT_NO_GROUP_SEPARATOR: cfg->group_separator = NULL; break;
        case OPT_INCLUDE:
        case OPT_EXCLUDE:
            cfg->glob_includes[cfg->n_file_globs] = opt == OPT_INCLUDE;
            cfg->file_globs[cfg->n_file_globs++] = optarg;
            break;
        case OPT_EXCLUDE_DIR: cfg->exclude_dirs[cfg->n_exclude_dirs++] = optarg; break;
        case 'm':
            if (parse_max_count(optarg, &cfg->max_count) != 0)
                return EXIT_TROUBLE;
            break;
        case 'A':
        case 'B':
        case 'C': {
            long n;
            if (parse_context(optarg, &n) != 0)
                return EXIT_TROUBLE;
            if (opt == 'A')
                cfg->after = n;
            else if (opt == 'B')
                cfg->before = n;
            else
                context = n;
            break;
        }
        case OPT_COLOR:
            if (parse_color(optarg, &cfg->color) != 0)
                return EXIT_TROUBLE;
            break;
        case OPT_BINARY_FILES:
            if (parse_binary_files(optarg, &cfg->binary_files) != 0)
                return EXIT_TROUBLE;
            break;
        case 'k': {
            int k;
            /* The range (at most CLM_MAX_ERRORS, below the pattern length) is the library's
             * to check: its message names the limit. */
            if (cli_parse_index(optarg, &k) != 0) {
                errmsg("invalid number of errors '%s' for -k (expected a number >= 0)", optarg);
                return EXIT_TROUBLE;
            }
            cfg->max_errors = (unsigned)k;
            break;
        }
        case OPT_HELP:
            print_help();
            return EXIT_MATCH;
        case 'V':
            printf("clmatch %d.%d.%d (libclmatch %s)\n", CLM_VERSION_MAJOR, CLM_VERSION_MINOR,
                   CLM_VERSION_PATCH, clm_version());
            return EXIT_MATCH;
        default: /* ':' or '?' */
            return cli_option_error(opt, argv, "", "");
        }
    }

    if (cfg->after < 0)
        cfg->after = context;
    if (cfg->before < 0)
        cfg->before = context;
    if (cfg->json && !cfg->list_devices) {
        errmsg("--json only applies to --list-devices");
        return EXIT_TROUBLE;
    }
    if (cfg->list_devices)
        return -1;
    if (cfg->devices && (cfg->dev.platform >= 0 || cfg->dev.device >= 0)) {
        errmsg("--devices and -p/-d exclude each other");
        return EXIT_TROUBLE;
    }
    if (cfg->max_errors > 0 && (cfg->word_regexp || cfg->line_regexp)) {
        /* an approximate match has no one extent to hold against word or line ends */
        errmsg("-%c does not apply to approximate search (-k K with K >= 1)",
               cfg->line_regexp ? 'x' : 'w');
        cli_usage_hint("");
        return EXIT_TROUBLE;
    }
    if (cli_check_mismatches(cfg->mismatches_only, cfg->max_errors, "") != 0 ||
        cli_operands(argc, argv, cfg->n_pattern_args == 0, cfg->pattern_args,
                     &cfg->n_pattern_args, &cfg->files, &cfg->n_files, "") != 0)
        return EXIT_TROUBLE;

    cfg->mode = cfg->quiet           ? MODE_QUIET
                : cfg->count_matches ? MODE_COUNT_MATCHES
                : cfg->count_lines   ? MODE_COUNT_LINES
                : cfg->positions     ? MODE_POSITIONS
                : cfg->only          ? MODE_ONLY
                                     : MODE_LINES;
    if (check_records(cfg) != 0)
        return EXIT_TROUBLE;
    /* as grep: -r names the files it finds in directories, not a lone FILE operand */
    if (cfg->with_filename < 0)
        cfg->with_filename = cfg->n_files > 1 ? 1 : cfg->recursive ? NAME_IN_DIRS : 0;
    return -1;
}

