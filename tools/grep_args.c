/* The main mode's help text and option parsing (tools/grep_args.h). */
#include "grep_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        "\n"
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
    printf("  -a, --algorithm=NAME      %s (default auto)\n", cli_algorithm_names());
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
        "Exit status: 0 if something matched, 1 if nothing did, 2 on an error (with -q, 0 if\n"
        "something matched even after an error).\n",
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

/* Returns -1 to go on, else the exit status (0 after --help/--version, 2 on a usage error). */
int grep_parse_args(int argc, char **argv, config *cfg)
{
    int opt;
    memset(cfg, 0, sizeof *cfg);
    cfg->with_filename = -1;
    cli_device_opts_init(&cfg->dev);
    cfg->pattern_args = malloc(sizeof *cfg->pattern_args * (size_t)(argc > 0 ? argc : 1));
    cfg->pattern_is_file = calloc((size_t)(argc > 0 ? argc : 1), 1);
    if (!cfg->pattern_args || !cfg->pattern_is_file) {
        errmsg("out of memory");
        return EXIT_TROUBLE;
    }

    opterr = 0; /* our own messages, with our prefix */
    while ((opt = getopt_long(argc, argv, ":e:f:wxiFnbHhcoqp:d:a:k:V", long_options, NULL)) != -1) {
        /* The block gets the hold-back added to it: half of the address space at most. */
        int dst = cli_device_option(opt, optarg, &cfg->dev, 2, "");
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
    if (cfg->with_filename < 0)
        cfg->with_filename = cfg->n_files > 1;
    return -1;
}

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
