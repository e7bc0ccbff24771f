/*
 * clmatch --like: records (lines, or NUL-terminated with -z) selected by SQL LIKE patterns
 * or holding a substring within K errors (--contains, clm_approx_compile), through the
 * library's string columns (clm_column_wrap, clm_like_select).
 *
 *     clmatch --like PATTERN [--like PATTERN | --ilike PATTERN]... [OPTIONS] [FILE...]
 *     clmatch --contains PATTERN [-k K [--mismatches-only]] [OPTIONS] [FILE...]
 *
 * A file is read whole; its records become a column (line_records.c: the bytes without the
 * terminators, and offsets) that the library sends to the device in slabs of whole records.
 */
#include "like.h"

#include "clmatch.h"
#include "cli_common.h"
#include "cli_devices.h"
#include "line_records.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_help(void)
{
    fputs("Usage: clmatch --like PATTERN [OPTIONS] [FILE...]\n"
          "  or:  clmatch --contains PATTERN [-k K [--mismatches-only]] [OPTIONS] [FILE...]\n"
          "Print the records (lines) that SQL LIKE patterns select: a pattern matches a\n"
          "whole record; '%' matches any run of bytes, '_' one byte, and a backslash makes\n"
          "the next byte literal (\\% \\_ \\\\). With no FILE, or when FILE is -, read\n"
          "standard input.\n"
          "\n"
          "  --like=PATTERN            select the records PATTERN matches (repeatable: a\n"
          "                            record any of them selects is selected)\n"
          "  --ilike=PATTERN           the same, ASCII case-insensitive (ILIKE)\n"
          "  --contains=PATTERN        select the records holding PATTERN (1 to 64 plain\n"
          "                            bytes) within K errors (repeatable; an OR with\n"
          "                            --like)\n"
          "  -k, --errors=K            --contains: up to K edits (insertions, deletions,\n"
          "                            substitutions; K < the pattern length, at most 8;\n"
          "                            default 0: exact)\n"
          "      --mismatches-only     with -k: substitutions only (Hamming distance)\n"
          "  -i, --ignore-case         every pattern is an ILIKE; --contains ASCII\n"
          "                            case-insensitive too\n"
          "  -v, --invert-match        select the records no pattern matches (NOT LIKE)\n"
          "  -z, --null-data           records end with a NUL byte, not a newline\n"
          "  -n, --line-number         prefix each record with its 1-based number\n"
          "  -c, --count               print the number of selected records per file\n"
          "  -q, --quiet, --silent     print nothing: the exit status says\n"
          "      --row-ids             print the 0-based index of each selected record, one\n"
          "                            per line, ascending\n"
          "      --resident            upload each file's column to the device first, then\n"
          "                            select (as a resident column; --stats times both)\n"
          "      --pivot=W             --resident in seed 004's pivoted layout, pieces of W\n"
          "                            bytes (4, 8 or 16)\n"
          "      --stats               print records, bytes, the select's time and rate, the\n"
          "                            kernel and data path to stderr\n"
          "  -H, --with-filename       prefix each output with the file name\n"
          "  -h, --no-filename         never prefix the file name\n"
          "  -p, --platform=N, -d, --device=N   the OpenCL device (clmatch --help)\n"
          "      --devices=LIST        select with several devices at once (P:D,P:D, gpus\n"
          "                            or all), each a share of the records by its measured\n"
          "                            speed (clmatch-tune), else equal\n"
          "      --help                show this help and exit\n"
          "\n"
          "Exit status: 0 if a record was selected, 1 if none was, 2 on an error.\n",
          stdout);
}

enum {
    OPT_LIKE = CLI_OPT_LOCAL,
    OPT_ILIKE,
    OPT_CONTAINS,
    OPT_MISMATCHES_ONLY,
    OPT_ROW_IDS,
    OPT_RESIDENT,
    OPT_PIVOT,
    OPT_STATS,
    OPT_DEVICES,
    OPT_HELP
};

static const struct option long_options[] = {
    {"like", required_argument, NULL, OPT_LIKE},
    {"ilike", required_argument, NULL, OPT_ILIKE},
    {"contains", required_argument, NULL, OPT_CONTAINS},
    {"errors", required_argument, NULL, 'k'},
    {"mismatches-only", no_argument, NULL, OPT_MISMATCHES_ONLY},
    {"invert-match", no_argument, NULL, 'v'},
    {"ignore-case", no_argument, NULL, 'i'},
    {"quiet", no_argument, NULL, 'q'},
    {"silent", no_argument, NULL, 'q'},
    {"null-data", no_argument, NULL, 'z'},
    {"line-number", no_argument, NULL, 'n'},
    {"count", no_argument, NULL, 'c'},
    {"row-ids", no_argument, NULL, OPT_ROW_IDS},
    {"resident", no_argument, NULL, OPT_RESIDENT},
    {"pivot", required_argument, NULL, OPT_PIVOT},
    {"stats", no_argument, NULL, OPT_STATS},
    {"with-filename", no_argument, NULL, 'H'},
    {"no-filename", no_argument, NULL, 'h'},
    CLI_DEVICE_LONG_OPTIONS,
    {"devices", required_argument, NULL, OPT_DEVICES},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0}};

/* The predicates a run ORs: its LIKE patterns and its --contains, one compiled each. */
enum { PRED_LIKE, PRED_CONTAINS, PREDS };

typedef struct {
    const char **pats[PREDS];
    unsigned *flags[PREDS];
    unsigned count[PREDS];
    unsigned max_errors;
    int mismatches_only, errors_given;
    int invert, nul, numbers, count_only, row_ids, with_filename, caseless, quiet;
    int resident, stats;
    unsigned pivot; /* --pivot W: the resident column pivoted (clm_column_pivot); 0: not */
    const char *devices; /* --devices LIST; NULL: one device */
    cli_device_opts dev;
} like_config;

/* The run's predicates, each on one device or (--devices) across the set. */
typedef struct {
    clm_like *one[PREDS];
    clm_set_like *set[PREDS];
} predicates;

/* The rows of col that any of the predicates (none: skipped) selects, ORed into bitmap; more
 * holds the bitmap of each after the first. sel: the last select's kernel and path. */
static int select_any(const predicates *P, const clm_column *col, uint64_t rows,
                      uint8_t *bitmap, uint8_t *more, clm_selection *sel)
{
    size_t bytes = (size_t)(rows + 7) / 8;
    int st = CLM_OK, first = 1;
    for (int p = 0; p < PREDS && st == CLM_OK; p++) {
        if (!P->one[p] && !P->set[p])
            continue;
        sel->bitmap = first ? bitmap : more;
        st = P->set[p] ? clm_set_like_select(P->set[p], col, sel)
                       : clm_like_select(P->one[p], col, sel);
        if (st == CLM_OK && !first)
            for (size_t i = 0; i < bytes; i++)
                bitmap[i] |= more[i];
        first = 0;
    }
    return st;
}

/* Select the records of one input and print what the options ask for. Returns the records
 * selected, or -1 after a message. */
static int64_t like_input(const like_config *c, clm_device *dev, const predicates *preds,
                          const char *name, int fd)
{
    line_records recs;
    int err = line_records_read(fd, c->nul ? '\0' : '\n', &recs);
    if (err) {
        errmsg("%s: %s", name, strerror(err));
        return -1;
    }
    uint64_t rows = recs.rows;
    uint8_t *bitmap = calloc((size_t)(rows + 7) / 8 + 1, 1);
    uint8_t *more = malloc((size_t)(rows + 7) / 8 + 1);
    int64_t result = -1;
    clm_column *col = NULL, *res = NULL;
    if (!bitmap || !more) {
        errmsg("out of memory");
        goto out;
    }
    clm_column_desc d;
    clm_column_desc_init(&d, sizeof d);
    d.rows = rows;
    d.offset_bits = recs.offset_bits;
    d.offsets = recs.offsets;
    d.data = recs.bytes;
    d.data_bytes = recs.data_bytes;
    int st = clm_column_wrap(&d, &col);
    clm_selection sel;
    clm_selection_init(&sel, sizeof sel);
    double t0 = now_seconds(), t_upload = 0.0;
    if (st == CLM_OK && c->resident) {
        st = c->pivot ? clm_column_pivot(dev, col, c->pivot, &res)
                      : clm_column_upload(dev, col, &res);
        t_upload = now_seconds() - t0;
    }
    double t1 = now_seconds();
    if (st == CLM_OK)
        st = select_any(preds, res ? res : col, rows, bitmap, more, &sel);
    double t_select = now_seconds() - t1;
    if (st != CLM_OK) {
        report_clm(name, st);
        goto out;
    }
    if (c->stats) {
        char upload[64] = "";
        if (res)
            snprintf(upload, sizeof upload, "upload %.6f s, ", t_upload);
        errmsg("stats: %s: %llu records, %llu bytes; %sselect %.6f s (%.2f GB/s); %s; %s",
               name, (unsigned long long)rows, (unsigned long long)d.data_bytes, upload,
               t_select, t_select > 0 ? (double)d.data_bytes / t_select / 1e9 : 0.0,
               sel.kernel_used == CLM_ROWS_FILTER      ? "filter and verify"
               : sel.kernel_used == CLM_ROWS_GROUP     ? "a work-group per record"
               : sel.kernel_used == CLM_ROWS_AUTOMATON ? "an automaton walk per record"
                                                       : "a work-item per record",
               res ? (c->pivot ? "resident column, pivoted" : "resident column")
                   : clm_data_path_name(sel.data_path_used));
    }
    uint64_t selected = 0;
    const char *prefix = c->with_filename ? name : NULL;
    for (uint64_t i = 0; i < rows; i++) {
        int bit = bitmap[i >> 3] >> (i & 7) & 1;
        if (bit == c->invert)
            continue;
        selected++;
        if (c->count_only || c->quiet)
            continue;
        if (prefix) {
            out_str(prefix);
            out_char(':');
        }
        if (c->row_ids) {
            out_u64(i);
            out_char('\n');
            continue;
        }
        if (c->numbers) {
            out_u64(i + 1);
            out_char(':');
        }
        uint64_t at = line_records_offset(&recs, i);
        out_bytes(recs.bytes + at, (size_t)(line_records_offset(&recs, i + 1) - at));
        out_char(c->nul ? '\0' : '\n');
    }
    if (c->count_only && !c->quiet) {
        if (prefix) {
            out_str(prefix);
            out_char(':');
        }
        out_u64(selected);
        out_char('\n');
    }
    result = (int64_t)selected;
out:
    clm_column_free(res);
    clm_column_free(col);
    free(bitmap);
    free(more);
    line_records_free(&recs);
    return result;
}

/* Compile the run's LIKE patterns and its --contains, each set that has a pattern, into
 * preds; both ORed into preds[PRED_LIKE] (one pass over the records) when both are there.
 * 0, or -1 after a message. */
static int compile_predicates(like_config *c, clm_device *dev, clm_like **preds)
{
    for (int p = 0; p < PREDS; p++)
        for (unsigned i = 0; i < c->count[p] && c->caseless; i++)
            c->flags[p][i] |= CLM_LIKE_CASELESS;
    int st = CLM_OK;
    if (c->count[PRED_LIKE])
        st = clm_like_compile(dev, c->pats[PRED_LIKE], NULL, c->flags[PRED_LIKE],
                              c->count[PRED_LIKE], '\\', &preds[PRED_LIKE]);
    if (st != CLM_OK) {
        report_clm("bad LIKE pattern", st);
        return -1;
    }
    if (c->count[PRED_CONTAINS])
        st = clm_approx_compile(dev, c->pats[PRED_CONTAINS], NULL, c->flags[PRED_CONTAINS],
                                c->count[PRED_CONTAINS], c->max_errors,
                                c->mismatches_only ? CLM_APPROX_MISMATCHES : CLM_APPROX_EDITS,
                                &preds[PRED_CONTAINS]);
    if (st != CLM_OK) {
        report_clm("bad --contains pattern", st);
        return -1;
    }
    if (preds[PRED_LIKE] && preds[PRED_CONTAINS]) {
        clm_like *both = NULL;
        st = clm_like_or((const clm_like *const *)preds, 2, &both);
        if (st != CLM_OK) {
            report_clm("--like with --contains", st);
            return -1;
        }
        clm_like_free(preds[PRED_LIKE]);
        clm_like_free(preds[PRED_CONTAINS]);
        preds[PRED_LIKE] = both;
        preds[PRED_CONTAINS] = NULL;
    }
    return 0;
}

/* --devices: the predicates compiled for each device of the set, then wrapped. 0, or -1
 * after a message. */
static int compile_on_set(like_config *c, clm_device_set *set, predicates *P)
{
    clm_like *per[CLM_MAX_SET_DEVICES][PREDS];
    unsigned n = clm_device_set_count(set), done = 0;
    int rc = 0;
    memset(per, 0, sizeof per);
    for (; done < n && rc == 0; done++)
        rc = compile_predicates(c, clm_device_set_device(set, done), per[done]);
    for (int p = 0; p < PREDS && rc == 0; p++) {
        clm_like *each[CLM_MAX_SET_DEVICES];
        if (!per[0][p])
            continue;
        for (unsigned i = 0; i < n; i++)
            each[i] = per[i][p];
        int st = clm_set_like_wrap(set, each, &P->set[p]);
        if (st != CLM_OK) {
            report_clm("--devices", st);
            rc = -1;
            break;
        }
        for (unsigned i = 0; i < n; i++) /* the set's now */
            per[i][p] = NULL;
    }
    for (unsigned i = 0; i < done; i++)
        for (int p = 0; p < PREDS; p++)
            clm_like_free(per[i][p]);
    return rc;
}

/* --devices against what it cannot go with. 0, or -1 after a message. */
static int check_devices(const like_config *c)
{
    if (!c->devices)
        return 0;
    const char *with = c->dev.platform >= 0 || c->dev.device >= 0 ? "-p/-d"
                       : c->resident                              ? "--resident"
                                                                  : NULL;
    if (with) {
        errmsg("--devices and %s exclude each other", with);
        return -1;
    }
    if (strcmp(c->devices, "auto") == 0 || strncmp(c->devices, "early:", 6) == 0) {
        errmsg("--devices %s: the LIKE mode takes P:D,P:D..., gpus or all", c->devices);
        return -1;
    }
    return 0;
}

/* Whether -k and --mismatches-only come with a --contains. 0, or -1 after a message. */
static int check_errors(const like_config *c)
{
    if ((c->errors_given || c->mismatches_only) && !c->count[PRED_CONTAINS]) {
        errmsg("%s applies to --contains only", c->errors_given ? "-k" : "--mismatches-only");
        cli_usage_hint("--like ");
        return -1;
    }
    return cli_check_mismatches(c->mismatches_only, c->max_errors, "--like ");
}

int like_main(int argc, char **argv)
{
    like_config c;
    int opt, status = EXIT_TROUBLE;
    clm_device *dev = NULL;
    cli_set *set = NULL;
    predicates preds;
    memset(&preds, 0, sizeof preds);
    memset(&c, 0, sizeof c);
    c.with_filename = -1;
    cli_device_opts_init(&c.dev);
    for (int p = 0; p < PREDS; p++) {
        c.pats[p] = malloc(sizeof *c.pats[p] * (size_t)argc);
        c.flags[p] = malloc(sizeof *c.flags[p] * (size_t)argc);
        if (!c.pats[p] || !c.flags[p]) {
            errmsg("out of memory");
            goto done;
        }
    }
    /* `clmatch --like --help` takes --help as a pattern: help wins wherever it is */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0) {
            print_help();
            status = EXIT_MATCH;
            goto done;
        }
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":vizncqHhk:p:d:a:", long_options, NULL)) != -1) {
        int dst = cli_device_option(opt, optarg, &c.dev, 2, "");
        if (dst < 0)
            goto done;
        if (dst == 0)
            continue;
        int p = opt == OPT_CONTAINS ? PRED_CONTAINS : PRED_LIKE, k;
        switch (opt) {
        case OPT_LIKE:
        case OPT_ILIKE:
        case OPT_CONTAINS:
            c.flags[p][c.count[p]] = opt == OPT_ILIKE ? CLM_LIKE_CASELESS : 0;
            c.pats[p][c.count[p]++] = optarg;
            break;
        case 'k':
            /* the range (at most CLM_APPROX_MAX_ERRORS, below the pattern length) is the
             * library's to check: its message names the limit */
            if (cli_parse_index(optarg, &k) != 0) {
                errmsg("invalid number of errors '%s' for -k (expected a number >= 0)", optarg);
                goto done;
            }
            c.max_errors = (unsigned)k;
            c.errors_given = 1;
            break;
        case OPT_MISMATCHES_ONLY: c.mismatches_only = 1; break;
        case 'v': c.invert = 1; break;
        case 'i': c.caseless = 1; break;
        case 'q': c.quiet = 1; break;
        case 'z': c.nul = 1; break;
        case 'n': c.numbers = 1; break;
        case 'c': c.count_only = 1; break;
        case 'H': c.with_filename = 1; break;
        case 'h': c.with_filename = 0; break;
        case OPT_ROW_IDS: c.row_ids = 1; break;
        case OPT_RESIDENT: c.resident = 1; break;
        case OPT_PIVOT: /* the width's range is the library's to check */
            if (cli_parse_index(optarg, &k) != 0 || k == 0 || k > 64) {
                errmsg("invalid --pivot '%s' (expected 4, 8 or 16)", optarg);
                goto done;
            }
            c.pivot = (unsigned)k;
            c.resident = 1;
            break;
        case OPT_STATS: c.stats = 1; break;
        case OPT_DEVICES: c.devices = optarg; break;
        case OPT_HELP:
            print_help();
            status = EXIT_MATCH;
            goto done;
        default:
            status = cli_option_error(opt, argv, "--like ", " in LIKE mode");
            goto done;
        }
    }
    if (check_errors(&c) != 0 || check_devices(&c) != 0)
        goto done;
    char **files = argv + optind;
    size_t n_files = (size_t)(argc - optind);
    static char *std_in[] = {"-"};
    if (n_files == 0) {
        files = std_in;
        n_files = 1;
    }
    if (c.with_filename < 0)
        c.with_filename = n_files > 1;
    if (cli_output_init() != 0)
        goto done;
    if (c.devices ? cli_set_open(c.devices, &c.dev, &set) != 0 ||
                        compile_on_set(&c, cli_set_devices(set), &preds) != 0
                  : cli_open_device(&c.dev, &dev) != 0 ||
                        compile_predicates(&c, dev, preds.one) != 0)
        goto done;
    int any = 0, trouble = 0;
    for (size_t i = 0; i < n_files && !cli_out.failed; i++) {
        int is_stdin = strcmp(files[i], "-") == 0;
        int fd = is_stdin ? 0 : open(files[i], O_RDONLY);
        if (fd < 0) {
            errmsg("%s: %s", files[i], strerror(errno));
            trouble = 1;
            continue;
        }
        int64_t got = like_input(&c, dev, &preds, is_stdin ? "(standard input)" : files[i], fd);
        if (!is_stdin)
            close(fd);
        trouble |= got < 0;
        any |= got > 0;
    }
    if (cli_out.failed) {
        errmsg("write error: %s", strerror(cli_out.failed));
        trouble = 1;
    }
    status = trouble ? EXIT_TROUBLE : any ? EXIT_MATCH : EXIT_NO_MATCH;
done:
    for (int p = 0; p < PREDS; p++) {
        clm_like_free(preds.one[p]);
        clm_set_like_free(preds.set[p]);
        free(c.pats[p]);
        free(c.flags[p]);
    }
    clm_device_close(dev);
    cli_set_close(set);
    return cli_output_finish(status);
}
