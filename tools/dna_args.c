/* The DNA mode's command line (tools/dna_args.h). */
#include "dna_args.h"

#include "clmatch.h"
#include "cli_devices.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_help(void)
{
    fputs(
        "Usage: clmatch --dna [OPTIONS] PATTERN [FILE...]\n"
        "       clmatch --dna [OPTIONS] (-e PATTERN)... | -f PATTERN_FILE  [FILE...]\n"
        "Locate IUPAC nucleotide patterns in the records of FASTA or FASTQ files, on both\n"
        "strands, as 'seqkit locate' does. With no FILE, or when FILE is -, read standard\n"
        "input.\n"
        "\n"
        "Input (gzip-compressed or not: recognized by its content, not its name):\n"
        "  A file whose first non-empty line starts with '>' is FASTA: records, headers, lines\n"
        "  of any width, CRLF, lower case kept (soft-masked bases match only with -i). Matches\n"
        "  never cross records; positions are 1-based in each record's sequence. A file\n"
        "  starting with '@' is FASTQ: four-line records (@ID, sequence, +, qualities), each\n"
        "  read a record (qualities checked for length, not used). Any other file is ONE raw\n"
        "  sequence named after the file (line breaks dropped).\n"
        "      --fasta               the input must be FASTA: else an error naming the line\n"
        "      --fastq               the input must be FASTQ: else an error naming the line\n"
        "\n"
        "Patterns (IUPAC codes A C G T U R Y S W K M B D H V N, either case; each code is its\n"
        "set of bases, N = any base; N or other codes in the text never match):\n"
        "  -e, --regexp=PATTERN      a pattern (repeatable; then every operand is a FILE)\n"
        "  -f, --pattern-file=FILE   patterns from FILE: FASTA (name = record id), or lines\n"
        "                            NAME<TAB>PATTERN, or one PATTERN per line (repeatable)\n"
        "  -i, --ignore-case         ignore case; the pattern and matched columns are printed\n"
        "                            in lower case (as seqkit locate -i)\n"
        "      --degenerate          seqkit's -d: accepted, patterns are always IUPAC; with -i\n"
        "                            the columns keep their case (as seqkit -d -i)\n"
        "      --degenerate-text     N and IUPAC codes in the text match the pattern bases they\n"
        "                            stand for (text N matches any base)\n"
        "  -k, --errors=K            up to K edits (insertions, deletions, substitutions)\n"
        "      --mismatches-only     with -k: substitutions only (as seqkit locate -m K)\n"
        "  -m, --max-mismatch=K      the same as --mismatches-only -k K\n"
        "      --strand=both|+|-     strands searched (default both)\n"
        "  -P, --only-positive-strand  the same as --strand=+\n"
        "      --pam=PAM             CRISPR: append the IUPAC PAM (e.g. NGG) on the 3' side\n"
        "                            of every pattern; it must match exactly, -m K counts\n"
        "                            the mismatches of the guide only (matched shows the PAM)\n"
        "      --pam5=PAM            the same with the PAM on the 5' side (Cas12a: TTTV)\n"
        "\n",
        stdout);
    fputs(
        "Output (rows per record in file order; in a record per pattern in the order given;\n"
        "+ strand rows by start, then - strand rows by descending start):\n"
        "  (default)                 TSV with the header seqID patternName pattern strand start\n"
        "                            end matched (1-based start, end inclusive; matched: the\n"
        "                            text, reverse-complemented on the - strand), and a last\n"
        "                            column edits with -k\n"
        "      --bed                 BED6: seqID start-1 end patternName 0 strand\n"
        "  -c, --count               per record 'seqID<TAB>matches' (every record, 0 too), then\n"
        "                            '# total<TAB>matches'\n"
        "\n"
        "Device and kernels (none chosen: exact patterns of A C G T in a FASTA file are\n"
        "searched by the CPU's threads, with no OpenCL, as with --devices auto):\n"
        "  -p, --platform=N          OpenCL platform index (clmatch --list-devices)\n"
        "  -d, --device=N            device index within the platform (as in clmatch; seqkit's\n"
        "                            -d is --degenerate here)\n",
        stdout);
    printf("  -a, --algorithm=NAME      %s\n", cli_algorithm_names());
    fputs(
        "      --variant=NAME        auto, item, reduce or subgroup\n"
        "      --table-memory=NAME   auto, global, local or constant\n"
        CLI_DEVICES_HELP
        "      --block-size=BYTES    input read per stream write (default 64M; K, M, G)\n"
        "      --line-breaks=WHERE   where FASTA's line breaks are dropped: device (the file's\n"
        "                            bytes go to the device as they are; the host only finds\n"
        "                            the headers), host (the host reads the lines), or auto\n"
        "                            (default; CLMATCH_LINE_BREAKS): device on GPUs and other\n"
        "                            non-CPU devices. FASTQ, raw input and --devices: host\n"
        CLI_DATA_PATH_HELP
        "      --stats               device, algorithm, packing, data path, bytes and timings\n"
        "                            to stderr\n"
        "\n"
        "  --help                    show this help and exit\n"
        "\n"
        "Exit status: 0 if something matched, 1 if nothing did, 2 on an error.\n",
        stdout);
}

/* ---------------------------------------------------------------------------------------- */
/* Option parsing                                                                             */
/* ---------------------------------------------------------------------------------------- */

enum {
    OPT_DNA = CLI_OPT_LOCAL,
    OPT_FASTA,
    OPT_FASTQ,
    OPT_DEGENERATE,
    OPT_DEGENERATE_TEXT,
    OPT_MISMATCHES_ONLY,
    OPT_STRAND,
    OPT_BED,
    OPT_STATS,
    OPT_PAM,
    OPT_PAM5,
    OPT_DEVICES,
    OPT_LINE_BREAKS,
    OPT_HELP
};

static const struct option long_options[] = {
    {"dna", no_argument, NULL, OPT_DNA},
    {"fasta", no_argument, NULL, OPT_FASTA},
    {"fastq", no_argument, NULL, OPT_FASTQ},
    {"regexp", required_argument, NULL, 'e'},
    {"pattern-file", required_argument, NULL, 'f'},
    {"ignore-case", no_argument, NULL, 'i'},
    {"degenerate", no_argument, NULL, OPT_DEGENERATE},
    {"degenerate-text", no_argument, NULL, OPT_DEGENERATE_TEXT},
    {"errors", required_argument, NULL, 'k'},
    {"mismatches-only", no_argument, NULL, OPT_MISMATCHES_ONLY},
    {"max-mismatch", required_argument, NULL, 'm'},
    {"strand", required_argument, NULL, OPT_STRAND},
    {"only-positive-strand", no_argument, NULL, 'P'},
    {"bed", no_argument, NULL, OPT_BED},
    {"count", no_argument, NULL, 'c'},
    CLI_DEVICE_LONG_OPTIONS,
    {"stats", no_argument, NULL, OPT_STATS},
    {"devices", required_argument, NULL, OPT_DEVICES},
    {"line-breaks", required_argument, NULL, OPT_LINE_BREAKS},
    {"pam", required_argument, NULL, OPT_PAM},
    {"pam5", required_argument, NULL, OPT_PAM5},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0}};

static int parse_errors(const char *opt, const char *arg, unsigned *k)
{
    int v;
    if (cli_parse_index(arg, &v) != 0) {
        errmsg("invalid number of errors '%s' for %s (expected a number >= 0)", arg, opt);
        return -1;
    }
    *k = (unsigned)v;
    return 0;
}

/* --pam / --pam5 SEQ. Returns 0, or -1 after a message. */
static int set_pam(dna_config *cfg, int five_prime, const char *seq)
{
    const char *option = five_prime ? "--pam5" : "--pam";
    if (cfg->pam.seq && cfg->pam.five_prime != five_prime) {
        errmsg("--pam and --pam5 exclude each other");
        return -1;
    }
    if (crispr_pam_check(option, seq) != 0)
        return -1;
    cfg->pam.seq = seq;
    cfg->pam.len = strlen(seq);
    cfg->pam.five_prime = five_prime;
    return 0;
}

/* auto, device or host into *out; -1 after a message naming `what`. */
static int parse_line_breaks(const char *what, const char *v, int *out)
{
    if (strcmp(v, "auto") == 0)
        *out = LINE_BREAKS_AUTO;
    else if (strcmp(v, "device") == 0)
        *out = LINE_BREAKS_DEVICE;
    else if (strcmp(v, "host") == 0)
        *out = LINE_BREAKS_HOST;
    else {
        errmsg("invalid %s '%s' (expected auto, device or host)", what, v);
        return -1;
    }
    return 0;
}

/* Returns -1 to go on, else the exit status. */
int dna_parse_args(int argc, char **argv, dna_config *cfg)
{
    int opt;
    memset(cfg, 0, sizeof *cfg);
    cfg->strands = STRAND_BOTH;
    cli_device_opts_init(&cfg->dev);
    cfg->dev.block_bytes = DNA_BLOCK_BYTES;
    if (!getenv("CLMATCH_SLAB_BYTES")) /* which, set, wins over the tuning's slab too */
        cfg->dev.slab_bytes = DNA_SLAB_BYTES;
    if (!getenv("CLMATCH_SLOTS"))
        cfg->dev.slots = DNA_SLOTS;
    cfg->pattern_args = malloc(sizeof *cfg->pattern_args * (size_t)(argc > 0 ? argc : 1));
    cfg->pattern_files = malloc(sizeof *cfg->pattern_files * (size_t)(argc > 0 ? argc : 1));
    if (!cfg->pattern_args || !cfg->pattern_files) {
        errmsg("out of memory");
        return EXIT_TROUBLE;
    }

    const char *env = getenv("CLMATCH_LINE_BREAKS");
    if (env && *env && parse_line_breaks("CLMATCH_LINE_BREAKS", env, &cfg->line_breaks) != 0)
        return EXIT_TROUBLE;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":e:f:ik:m:Pcp:d:a:", long_options, NULL)) != -1) {
        /* A quarter of the address space at most for a block. */
        int dst = cli_device_option(opt, optarg, &cfg->dev, 4, "; seqkit's -d is --degenerate");
        if (dst < 0)
            return EXIT_TROUBLE;
        if (dst == 0)
            continue;
        switch (opt) {
        case OPT_DNA: break;
        case OPT_FASTA: cfg->format = READS_FASTA; break;
        case OPT_FASTQ: cfg->format = READS_FASTQ; break;
        case 'e': cfg->pattern_args[cfg->n_pattern_args++] = optarg; break;
        case 'f': cfg->pattern_files[cfg->n_pattern_files++] = optarg; break;
        case 'i': cfg->caseless = 1; break;
        case OPT_DEGENERATE: cfg->degenerate = 1; break;
        case OPT_DEGENERATE_TEXT: cfg->degenerate_text = 1; break;
        case 'k':
            if (parse_errors("-k", optarg, &cfg->max_errors) != 0)
                return EXIT_TROUBLE;
            break;
        case OPT_MISMATCHES_ONLY: cfg->mismatches_only = 1; break;
        case 'm':
            if (parse_errors("-m", optarg, &cfg->max_errors) != 0)
                return EXIT_TROUBLE;
            cfg->mismatches_only = 1;
            break;
        case OPT_STRAND:
            if (strcmp(optarg, "both") == 0)
                cfg->strands = STRAND_BOTH;
            else if (strcmp(optarg, "+") == 0)
                cfg->strands = STRAND_PLUS;
            else if (strcmp(optarg, "-") == 0)
                cfg->strands = STRAND_MINUS;
            else {
                errmsg("invalid strand '%s' (expected both, + or -)", optarg);
                return EXIT_TROUBLE;
            }
            break;
        case 'P': cfg->strands = STRAND_PLUS; break;
        case OPT_BED: cfg->bed = 1; break;
        case 'c': cfg->count = 1; break;
        case OPT_STATS: cfg->stats = 1; break;
        case OPT_DEVICES: cfg->devices = optarg; break;
        case OPT_LINE_BREAKS:
            if (parse_line_breaks("--line-breaks", optarg, &cfg->line_breaks) != 0)
                return EXIT_TROUBLE;
            break;
        case OPT_PAM:
        case OPT_PAM5:
            if (set_pam(cfg, opt == OPT_PAM5, optarg) != 0)
                return EXIT_TROUBLE;
            break;
        case OPT_HELP:
            print_help();
            return EXIT_MATCH;
        default: /* ':' or '?' */
            return cli_option_error(opt, argv, "--dna ", " in DNA mode");
        }
    }
    if (cli_check_mismatches(cfg->mismatches_only, cfg->max_errors, "--dna ") != 0)
        return EXIT_TROUBLE;
    if (cfg->devices && (cfg->dev.platform >= 0 || cfg->dev.device >= 0)) {
        errmsg("--devices and -p/-d exclude each other");
        return EXIT_TROUBLE;
    }
    if (cfg->pam.seq && cfg->max_errors > 0 && !cfg->mismatches_only) {
        /* With insertions and deletions the PAM's bases in a match are not known. */
        errmsg("--pam%s counts mismatches only: use -m K, not -k K",
               cfg->pam.five_prime ? "5" : "");
        cli_usage_hint("--dna ");
        return EXIT_TROUBLE;
    }
    cfg->pam.caseless = cfg->caseless;
    cfg->pam.degenerate_text = cfg->degenerate_text;
    if (cfg->bed && cfg->count) {
        errmsg("--bed and -c exclude each other");
        cli_usage_hint("--dna ");
        return EXIT_TROUBLE;
    }
    if (cli_operands(argc, argv, cfg->n_pattern_args == 0 && cfg->n_pattern_files == 0,
                     cfg->pattern_args, &cfg->n_pattern_args, &cfg->files, &cfg->n_files,
                     "--dna ") != 0)
        return EXIT_TROUBLE;
    return -1;
}
