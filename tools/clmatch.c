/*
 * clmatch — string search on an OpenCL device, with grep's habits: fixed strings, character
 * classes (the library's CLM_CLASSES syntax) and approximate search with up to k edits.
 *
 *     clmatch [OPTIONS] PATTERN [FILE...]
 *
 * Regular files are scanned with one clm_scan_fd_range (or clm_count_fd_range) call: the
 * library reads them with several threads straight into its pinned (or zero-copy) staging.
 * Modes that print text (lines, -c, -o) read the bytes they print with pread as well; stdin,
 * pipes and other non-regular inputs are read in blocks and fed through the stream API.
 * Both paths share the match callbacks of tools/grep_match.c, which see the text through a
 * "window": the bytes of absolute offsets [base, base + len), reached through scan_text_at.
 * For a file the window is the whole file (from its offset), read a block at a time; for a
 * stream it is the unprocessed tail of the input, in memory, and text is dropped from its
 * front only once no later match can need it.
 */
#include "clmatch.h"
#include "cli_common.h"
#include "casoff.h"
#include "dna.h"
#include "like.h"
#include "list_devices.h"
#include "cli_devices.h"
#include "grep_args.h"
#include "patterns.h"
#include "batch.h"
#include "output.h"
#include "walk.h"
#include "grep_stats.h"
#include "progress.h"
#include "grep_db.h"
#include "grep_match.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STDIN_LABEL "(standard input)"

/* ---------------------------------------------------------------------------------------- */
/* The search                                                                                 */
/* ---------------------------------------------------------------------------------------- */

typedef struct {
    config cfg;
    clm_device *dev;
    clm_database *db;
    clm_scratch *scratch;
    cli_set *set;         /* --devices: the search runs on it, not on dev */
    size_t max_len;       /* longest pattern */
    unsigned char *win;   /* stream window buffer, reused for every streamed input */
    size_t win_cap;
    batch batch;          /* files for tools/output.c, searched together */
    uint64_t bytes_in;    /* input bytes searched, for --stats */
    int matched, failed;
} run_state;

static int count_fast_path(const config *cfg)
{
    return cfg->mode == MODE_COUNT_MATCHES && !cfg->non_overlapping && !cfg->host_side;
}

/* The modes whose callbacks read the text (to print lines or matches, or find line ends). */
static int needs_text(const config *cfg)
{
    return cfg->mode == MODE_LINES || cfg->mode == MODE_COUNT_LINES || cfg->mode == MODE_ONLY ||
           cfg->host_side;
}

static int ensure_window(run_state *r, size_t need);

/* Search bytes [off, off + len) of a regular file, as grep reads it from its offset, through
 * the library's file path (clm_scan_fd_range: threaded reads into its staging buffers). The
 * callbacks of modes that print text read it with pread (scan_text_at), into the stream window's
 * buffer; no mapping, which a file that shrinks during the run would turn into SIGBUS. A file
 * that shrinks is reported, by the library or by the callbacks' reads, as having changed
 * size. Returns 0, or -1 after reporting an error. */
static int scan_regular(run_state *r, scan_ctx *c, int fd, size_t off, size_t len,
                        const char *name)
{
    const size_t size = off + len;
    struct stat now;
    int st, rc = 0;
    if (needs_text(&r->cfg) && ensure_window(r, FILE_BLOCK) != 0) {
        errmsg("%s: out of memory for a %zu-byte read block", name, FILE_BLOCK);
        return -1;
    }

    c->fd = fd;
    c->file_off = off;
    c->name = name;
    c->blk = r->win;
    c->text = NULL;
    c->base = 0;
    c->len = len;
    c->at_eof = 1;
    r->bytes_in += len;
    if (r->set)
        cli_set_input(r->set, name); /* --stats: --devices auto names the host's inputs */
    if (count_fast_path(&r->cfg)) {
        uint64_t n = 0;
        st = r->set ? cli_set_count_fd_range(r->set, fd, off, len, &n)
                    : clm_count_fd_range(r->db, r->scratch, fd, off, len, &n);
        if (st == CLM_OK)
            c->selected = n;
    } else {
        st = r->set ? cli_set_scan_fd_range(r->set, fd, off, len, scan_pick_callback(&r->cfg), c)
                    : clm_scan_fd_range(r->db, r->scratch, fd, off, len, scan_pick_callback(&r->cfg), c);
        if (st == CLM_OK && (scan_empty_upto(c, UINT64_MAX) || scan_flush_cand(c)))
            st = CLM_STOPPED;
    }
    if (st < 0) {
        /* a short read of the library (CLM_E_IO), or a range no longer in the file
         * (CLM_E_INVALID) when it shrank before the scan began */
        if (fstat(fd, &now) == 0 && (uintmax_t)now.st_size < size)
            scan_report_changed(name);
        else
            report_clm(name, st);
        rc = -1;
    } else if (c->error) {
        rc = -1;
    }
    /* as grep leaves it: at the end of what was read, so that a second "-" reads nothing */
    if (lseek(fd, (off_t)size, SEEK_SET) < 0) {
        errmsg("%s: %s", name, strerror(errno));
        rc = -1;
    }
    return rc;
}

static int ensure_window(run_state *r, size_t need)
{
    unsigned char *p;
    size_t cap;
    if (need <= r->win_cap)
        return 0;
    cap = need + need / 4 > need ? need + need / 4 : need;
    p = realloc(r->win, cap);
    if (!p)
        return -1;
    r->win = p;
    r->win_cap = cap;
    return 0;
}

/* Where the window may start once every match before F = W - (max_len - 1) has been
 * delivered: no later match needs text before the returned offset. */
static uint64_t keep_from(scan_ctx *c, uint64_t W, uint64_t F)
{
    switch (c->cfg->mode) {
    case MODE_LINES: {
        /* A later match needs its whole line: keep from the start of the line holding F,
         * unless F lies on a line already selected (then from the end of that line). */
        size_t lo, i;
        if (c->line_open)
            return W; /* its text has been printed; its remaining matches are skipped */
        if (c->skip_until >= F)
            return c->skip_until < W ? c->skip_until : W;
        /* Search only the text not searched before, so long lines cost O(n) in all. */
        lo = (size_t)((c->ls_scanned > c->base ? c->ls_scanned : c->base) - c->base);
        i = (size_t)(F - c->base);
        while (i > lo && c->text[i - 1] != '\n')
            i--;
        if (i > lo)
            c->ls_cur = c->base + i;
        else if (c->ls_cur < c->base)
            c->ls_cur = c->base; /* the window starts at a line start (see scan_select_line) */
        c->ls_scanned = F;
        return c->ls_cur;
    }
    case MODE_COUNT_LINES:
        return c->line_open ? W : F; /* a later match needs the text from its start on */
    case MODE_ONLY:
        return F;
    default:
        return W; /* positions and counts need no text */
    }
}

/* A selected line went on past the previous window: new text from rel on continues it. */
static void continue_open_line(scan_ctx *c, size_t rel)
{
    const unsigned char *p = c->text + rel;
    const unsigned char *nl = memchr(p, '\n', c->len - rel);
    size_t n = nl ? (size_t)(nl - p) + 1 : c->len - rel;
    if (c->cfg->mode == MODE_LINES)
        out_bytes(p, n);
    if (nl) {
        c->line_open = 0;
        c->skip_until = c->base + rel + n;
        if (c->track_lines) {
            c->nl_pos = c->skip_until;
            c->nl_count++;
        }
    }
}

/* Search an input that is read in blocks (stdin, pipes, unmappable files), the first pre
 * bytes already in r->win (pre_eof: the input ended there). Returns 0 or -1 after reporting
 * an error. */
static int scan_stream(run_state *r, scan_ctx *c, int fd, const char *name, size_t pre,
                       int pre_eof)
{
    const config *cfg = &r->cfg;
    const int count_only = count_fast_path(cfg);
    const clm_match_cb cb = count_only ? NULL : scan_pick_callback(cfg);
    /* Text kept behind the end of the input read so far: a match not delivered yet starts
     * after it. An approximate match may be k bytes longer than the pattern (one byte of slack
     * on top); max_len counts bytes, which is at least the symbols of a class pattern. */
    const uint64_t hold =
        r->max_len - 1 + (cfg->max_errors > 0 ? (uint64_t)cfg->max_errors + 1 : 0);
    /* Modes that read the text around a match (and -q, to stop early) flush the stream after
     * each block, so that the text before the hold-back point can be dropped. */
    const int needs_text = cfg->mode == MODE_LINES || cfg->mode == MODE_COUNT_LINES ||
                           cfg->mode == MODE_ONLY || cfg->mode == MODE_QUIET || cfg->host_side;
    /* -w and -x look at the byte after a match: the library is given the window less its
     * last byte until the input ends, so that byte is in hand for every match it delivers. */
    const size_t lag = cfg->word_regexp || cfg->line_regexp ? 1 : 0;
    cli_stream *stream = NULL;
    uint64_t base = 0;
    size_t wlen = 0, unwritten = 0; /* bytes at the end of the window the library lacks */
    int st = CLM_OK, rc = 0, eof = 0;

    while (!eof) {
        size_t got, old;
        int err;
        if (ensure_window(r, wlen + cfg->dev.block_bytes) != 0) {
            errmsg("%s: out of memory for a %zu-byte read window", name, wlen + cfg->dev.block_bytes);
            rc = -1;
            break;
        }
        if (pre || pre_eof) { /* the bytes stream_is_binary read ahead, at r->win */
            got = pre;
            eof = pre_eof;
            pre = 0;
            pre_eof = err = 0;
        } else {
            err = read_block(fd, r->win + wlen, cfg->dev.block_bytes, &got, &eof);
        }
        if (err) {
            errmsg("%s: %s", name, strerror(err));
            rc = -1;
            eof = 1; /* still scan_deliver what was read before the error */
        }
        if (got == 0)
            continue;
        if (!stream) {
            st = cli_stream_open(r->set, r->db, r->scratch,
                                 count_only ? CLM_STREAM_COUNT_ONLY : 0u, &stream);
            if (st != CLM_OK) {
                stream = NULL;
                break;
            }
        }
        old = wlen;
        wlen += got;
        r->bytes_in += got;
        c->text = r->win;
        c->base = base;
        c->len = wlen;
        c->at_eof = eof; /* the checks of -w and -x look past the end of the input */
        if (c->line_open)
            continue_open_line(c, old);
        {
            const size_t from = old - unwritten;
            unwritten = eof ? 0 : lag;
            if (wlen - unwritten > from)
                st = cli_stream_write(stream, r->win + from, wlen - unwritten - from, cb, c);
        }
        if (st == CLM_OK && needs_text)
            st = cli_stream_flush(stream, cb, c); /* one device round trip per block */
        if (st != CLM_OK)
            break;
        if (!needs_text) {
            base += wlen; /* matches arrive whenever the library likes; no text needed */
            wlen = 0;
        } else {
            /* After the flush every match starting before F has been delivered. */
            const uint64_t W = base + wlen, F = W - unwritten > hold ? W - unwritten - hold : 0;
            uint64_t D;
            if ((c->have_cand && c->cand.start < F && scan_flush_cand(c)) || scan_empty_upto(c, F)) {
                st = CLM_STOPPED;
                break;
            }
            D = keep_from(c, W, F);
            /* -w, -x: the byte before a later match (this mode's window starts at a line
             * start instead) and the byte the library lacks; the empty pattern: its next
             * line */
            if (lag && cfg->mode != MODE_LINES && D + 1 > F)
                D = F > 0 ? F - 1 : 0;
            if (D > W - unwritten)
                D = W - unwritten;
            if (D > c->empty_next)
                D = c->empty_next;
            if (c->track_lines && !c->line_open && scan_advance_lines(c, D)) {
                st = CLM_STOPPED;
                break;
            }
            if (D > base) {
                size_t drop = (size_t)(D - base);
                memmove(r->win, r->win + drop, wlen - drop);
                wlen -= drop;
                base = D;
            }
        }
    }

    c->text = r->win;
    c->base = base;
    c->len = wlen;
    c->at_eof = 1;
    if (stream && unwritten && st == CLM_OK) /* the input ended after a lagging byte */
        st = cli_stream_write(stream, r->win + wlen - unwritten, unwritten, cb, c);
    if (c->line_open && st == CLM_OK) {
        if (cfg->mode == MODE_LINES)
            out_char('\n'); /* the input ended inside the selected line */
        c->line_open = 0;
    }
    if (stream) {
        uint64_t total = 0;
        /* After an error or a stop the remaining matches are not wanted, but the stream must
         * still be closed to be freed. */
        int cst = cli_stream_close(stream, st == CLM_OK ? cb : (count_only ? NULL : scan_cb_ignore),
                                   c, &total);
        if (st == CLM_OK)
            st = cst;
        if (st == CLM_OK && count_only)
            c->selected = total;
        if (st == CLM_OK && (scan_empty_upto(c, UINT64_MAX) || scan_flush_cand(c)))
            st = CLM_STOPPED;
    }
    if (st < 0) {
        report_clm(name, st);
        rc = -1;
    } else if (c->error) {
        rc = -1;
    }
    return rc;
}

/* How a file is searched: the threaded file path or the stream (below), a batch of
 * tools/output.c (options only it has, several files), or, a binary file too big for a
 * batch, the threaded path as -q (grep prints only whether it matches). */
enum { PATH_THREADED, PATH_BATCH, PATH_BINARY };

static int pick_path(const config *cfg, int fd, const struct stat *sb)
{
    unsigned char head[32768];
    ssize_t n;
    off_t off;
    const int small = sb->st_size <= (off_t)BATCH_BYTES;
    if (cfg->records != RECORDS_MAY)
        return cfg->records == RECORDS_ALWAYS ? PATH_BATCH : PATH_THREADED;
    if (!S_ISREG(sb->st_mode))
        return PATH_THREADED;
    if ((cfg->n_files > 1 || cfg->recursive) && small)
        return PATH_BATCH;
    /* grep's binary file rule: a NUL byte in the first 32 KiB */
    if (cfg->binary_files == BINARY_TEXT || (off = lseek(fd, 0, SEEK_CUR)) < 0 ||
        (n = pread(fd, head, sizeof head, off)) <= 0 || !memchr(head, '\0', (size_t)n))
        return PATH_THREADED;
    if (small || cfg->binary_files == BINARY_WITHOUT_MATCH)
        return PATH_BATCH;
    return cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY ? PATH_BINARY : PATH_THREADED;
}

/* grep's binary file rule for a stream: a NUL byte in its first 32 KiB (or block), read
 * ahead into r->win for scan_stream. */
static int stream_is_binary(run_state *r, int fd, size_t *pre, int *pre_eof)
{
    const config *cfg = &r->cfg;
    const size_t n = cfg->dev.block_bytes < 32768 ? cfg->dev.block_bytes : 32768;
    if (cfg->records != RECORDS_MAY || cfg->binary_files == BINARY_TEXT ||
        (cfg->mode != MODE_LINES && cfg->mode != MODE_ONLY) || ensure_window(r, n) != 0)
        return 0;
    (void)read_block(fd, r->win, n, pre, pre_eof); /* an error: read again, then reported */
    return memchr(r->win, '\0', *pre) != NULL;
}

/* grep's guard: a file that receives the output, read while it grows, may never end. */
static int is_the_output(const config *cfg, const struct stat *sb)
{
    static int known; /* 1: out holds stdout's stat; -1: stdout is no regular file */
    static struct stat out;
    if (!known)
        known = fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode) ? 1 : -1;
    return known > 0 && S_ISREG(sb->st_mode) && sb->st_dev == out.st_dev &&
           sb->st_ino == out.st_ino && (cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY) &&
           !cfg->list_files && cfg->max_count > 1;
}

/* Before a message about a file: what is queued is printed first, as the files come in
 * order, and -q may have its answer then (grep would not have opened this file). Returns
 * non-zero to stop, with no message. */
static int flush_queued(void *ctx)
{
    run_state *r = ctx;
    if (batch_flush(&r->batch) != 0)
        r->failed = 1;
    r->matched |= r->batch.out.matched;
    return cli_out.failed || r->batch.out.stop || (r->cfg.mode == MODE_QUIET && r->matched);
}

/* A file error (unless -s) after what is queued; none once -q has its answer. */
static void file_error(run_state *r, const char *name, const char *what)
{
    if (flush_queued(r))
        return;
    if (!r->cfg.no_messages)
        errmsg("%s: %s", name, what);
    r->failed = 1;
}

static void search_file(run_state *r, const char *path, int show_name)
{
    const config *cfg = &r->cfg;
    const int is_stdin = strcmp(path, "-") == 0;
    const char *name = !is_stdin ? path : cfg->label ? cfg->label : STDIN_LABEL;
    struct stat sb;
    scan_ctx c;
    off_t off = 0;
    int fd, rc = 1, how;

    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        file_error(r, name, strerror(errno));
        return;
    }
    if (fstat(fd, &sb) != 0) {
        file_error(r, name, strerror(errno));
        rc = 0;
    } else if (S_ISDIR(sb.st_mode)) {
        /* as grep, it is a file that cannot be read: -c counts 0 lines in it, -L lists it */
        file_error(r, name, "Is a directory");
        if (!r->batch.out.stop && (cfg->mode == MODE_COUNT_LINES ||
                                   cfg->mode == MODE_COUNT_MATCHES || cfg->list_files))
            output_file(&r->batch.out, name, show_name, (const unsigned char *)"", 0, NULL, 0, 0);
        rc = 0;
    } else if (is_the_output(cfg, &sb)) {
        file_error(r, name, "input file is also the output");
        rc = 0;
    } else if ((how = pick_path(cfg, fd, &sb)) == PATH_BATCH) {
        rc = batch_add(&r->batch, fd, name, show_name);
    } else if (flush_queued(r)) { /* what is queued is printed first; -q may be answered */
        rc = 0;
    } else {
        const out_mode mode = r->cfg.mode;
        /* From the offset, as grep (a standard input may have been read from). Size 0 may
         * still have content (/proc files): streamed, as is an offset at the end (read()
         * then finds what is there). */
        const int regular = S_ISREG(sb.st_mode) && (off = lseek(fd, 0, SEEK_CUR)) >= 0 &&
                            sb.st_size > off && (uintmax_t)sb.st_size <= SIZE_MAX;
        size_t pre = 0;
        int pre_eof = 0;
        if (!regular && stream_is_binary(r, fd, &pre, &pre_eof))
            how = PATH_BINARY;
        if (how == PATH_BINARY)
            r->cfg.mode = MODE_QUIET;
        scan_ctx_init(&c, cfg, show_name ? name : NULL);
        if (regular)
            rc = scan_regular(r, &c, fd, (size_t)off, (size_t)(sb.st_size - off), name);
        if (rc == 1)
            rc = scan_stream(r, &c, fd, name, pre, pre_eof);
        if (rc == 0 && (cfg->mode == MODE_COUNT_LINES || cfg->mode == MODE_COUNT_MATCHES)) {
            scan_put_label(&c);
            out_u64(c.selected);
            out_char('\n');
        }
        if (c.selected > 0 || c.empty_hit)
            r->matched = 1;
        r->cfg.mode = mode;
        if (how == PATH_BINARY && rc == 0 && (c.selected > 0 || c.empty_hit))
            errmsg("%s: binary file matches", name); /* as grep 3.5 and later */
        scan_ctx_done(&c);
    }
    if (!is_stdin && close(fd) != 0)
        file_error(r, name, strerror(errno));
    if (rc != 0)
        r->failed = 1;
}

/* walk_operand's visit: search the file; stop once -q has its answer or output failed. */
static int visit_file(const char *path, int in_dir, void *ctx)
{
    run_state *r = ctx;
    const int with = r->cfg.with_filename;
    search_file(r, path, with == 1 || (with == NAME_IN_DIRS && in_dir));
    r->matched |= r->batch.out.matched;
    return cli_out.failed || r->batch.out.stop || (r->cfg.mode == MODE_QUIET && r->matched);
}

/* ---------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const double t_start = now_seconds();
    static char default_file[] = "-";
    static char *default_files[] = {default_file};
    run_state r;
    pattern_list pl;
    size_t i;
    int status, stats_printed = 0;
    double t_search = 0.0;

    cli_time.start = t_start;
    /* `clmatch cas-offinder INPUT DEVICE OUTPUT`: the Cas-OFFinder front end (tools/casoff.c) */
    if (argc > 1 && strcmp(argv[1], "cas-offinder") == 0)
        return casoff_main(argc - 1, argv + 1);
    /* --dna anywhere before "--" selects the DNA mode (tools/dna.c), with its own options. */
    for (i = 1; i < (size_t)argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--dna") == 0)
            return dna_main(argc, argv);
    /* --like / --ilike / --contains select whole records, SQL-style (tools/like.c) */
    for (i = 1; i < (size_t)argc && strcmp(argv[i], "--") != 0; i++)
        if (strncmp(argv[i], "--like", 6) == 0 || strncmp(argv[i], "--ilike", 7) == 0 ||
            strncmp(argv[i], "--contains", 10) == 0)
            return like_main(argc, argv);

    memset(&r, 0, sizeof r);
    memset(&pl, 0, sizeof pl);
    status = grep_parse_args(argc, argv, &r.cfg);
    if (status >= 0)
        goto done;
    if (r.cfg.list_devices) {
        status = cli_list_devices(r.cfg.json);
        goto done;
    }
    status = EXIT_TROUBLE;
    if (grep_build_patterns(&r.cfg, &pl) != 0)
        goto done;
    if ((r.cfg.max_count == 0 ||
         (r.cfg.no_patterns && (r.cfg.has_empty ? r.cfg.invert && !r.cfg.word_regexp &&
                                                      !r.cfg.line_regexp
                                                : !r.cfg.invert))) &&
        r.cfg.list_files != LIST_NON_MATCHING) {
        /* -m 0, no pattern at all (an empty -f FILE), or -v with only empty patterns: nothing
         * can be selected; as GNU grep, exit 1 without reading the files (unless -L) */
        status = EXIT_NO_MATCH;
        goto done;
    }

    if (cli_output_init() != 0 ||
        grep_setup_device(&r.cfg, &pl, &r.dev, &r.db, &r.scratch, &r.set, &r.max_len) != 0)
        goto done;

    t_search = now_seconds();
    progress_start(&r.cfg);
    batch_init(&r.batch, &r.cfg, r.db, r.scratch, r.set);
    if (r.cfg.n_files == 0 && !r.cfg.recursive) {
        r.cfg.files = default_files;
        r.cfg.n_files = 1;
    }
    /* like grep -q, the first match decides; -r without FILE searches the working directory */
    if (r.cfg.n_files == 0)
        walk_operand(&r.cfg, NULL, visit_file, flush_queued, &r, &r.failed);
    for (i = 0; i < r.cfg.n_files; i++)
        if (walk_operand(&r.cfg, r.cfg.files[i], visit_file, flush_queued, &r, &r.failed))
            break;
    if (batch_flush(&r.batch) != 0)
        r.failed = 1;
    r.matched |= r.batch.out.matched;
    r.bytes_in += r.batch.bytes_in;
    progress_stop();
    out_flush();
    t_search = now_seconds() - t_search;

    if (cli_out.failed) {
        errmsg("write error: %s", strerror(cli_out.failed));
        status = EXIT_TROUBLE;
    } else if (r.cfg.mode == MODE_QUIET && r.matched) {
        status = EXIT_MATCH;
    } else {
        status = r.failed ? EXIT_TROUBLE : r.matched ? EXIT_MATCH : EXIT_NO_MATCH;
    }
    if (r.cfg.stats) {
        const double setup_s = t_search > 0 ? (now_seconds() - t_start) - t_search : 0.0;
        if (r.set)
            cli_set_stats(r.set, setup_s, t_search, r.bytes_in);
        else
            grep_print_stats(r.dev, r.db, r.scratch, r.bytes_in, setup_s, t_search);
        stats_printed = 1;
    }

done:
    status = cli_output_finish(status);
    cli_exit_early(status, stats_printed);
    cli_teardown(r.scratch, r.db, r.dev, stats_printed);
    cli_set_close(r.set);
    free(r.win);
    batch_free(&r.batch);
    patterns_free(&pl);
    free(r.cfg.pattern_args);
    free(r.cfg.pattern_is_file);
    free(r.cfg.file_globs);
    free(r.cfg.glob_includes);
    return status;
}
