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
 * Both paths share the match callbacks below, which see the text through a "window": the
 * bytes of absolute offsets [base, base + len), reached through text_at. For a file the
 * window is the whole file (from its offset), read a block at a time; for a stream it is the
 * unprocessed tail of the input, in memory, and text is dropped from its front only once no
 * later match can need it.
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
/* Scanning state shared by the mapped and the streamed path                                 */
/* ---------------------------------------------------------------------------------------- */

typedef struct {
    const config *cfg;
    const char *label; /* file name prefix, NULL for none */
    /* The window: absolute offsets [base, base + len). A stream's are at text[0, len); a
     * regular file's (fd >= 0) are read with pread, a block at a time, into blk, which holds
     * [blk_at, blk_at + blk_len): a file that shrinks meanwhile then gives a short read,
     * reported, where a mapping of it would kill the process with SIGBUS. */
    const unsigned char *text;
    uint64_t base;
    size_t len;
    int at_eof; /* no input follows the window */
    int fd;            /* the regular file, else -1 */
    uint64_t file_off; /* its offset of window offset 0 */
    const char *name;  /* its name, for messages */
    unsigned char *blk;
    uint64_t blk_at;
    size_t blk_len;
    uint64_t blk_reads; /* blocks read so far */
    /* Line selection (default and -c). */
    uint64_t skip_until; /* matches starting before this lie on a line already selected */
    int line_open;       /* a selected line goes on past the window (streams only) */
    uint64_t ls_scanned, ls_cur; /* line start of the hold-back point (streams, default) */
    /* Line numbers: nl_count newlines lie in [0, nl_pos). */
    int track_lines;
    uint64_t nl_pos, nl_count;
    /* --non-overlapping: the leftmost-longest candidate not yet final, and the end of the
     * last one taken. */
    int have_cand;
    clm_match cand;
    uint64_t taken_end;
    /* Host-side checks (cfg->host_side): the mode's own callback for the matches that pass;
     * the next line start the empty pattern has not been tried on (UINT64_MAX: none to try). */
    clm_match_cb inner;
    uint64_t empty_next;
    int empty_hit; /* -o, --positions, --count-matches: a line matched the empty pattern */
    /* Results. */
    uint64_t selected; /* lines (default, -c) or occurrences (-o, --positions, counts) */
    int error;         /* an internal error was reported: stop */
} scan_ctx;

static clm_match_cb mode_callback(const config *cfg);

static void scan_ctx_init(scan_ctx *c, const config *cfg, const char *label)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->label = label;
    c->fd = -1;
    c->inner = mode_callback(cfg);
    c->empty_next = cfg->has_empty ? 0 : UINT64_MAX;
    c->track_lines = cfg->line_numbers && (cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY);
}

static int stop_now(const scan_ctx *c)
{
    return c->error || cli_out.failed;
}

/* The library gave a match whose text we no longer (or never) had: a contract violation. */
static int match_outside(scan_ctx *c, const clm_match *m)
{
    errmsg("internal error: the library reported a match at [%" PRIu64 ", %" PRIu64
           ") outside the text window [%" PRIu64 ", %" PRIu64 ")",
           m->start, m->end, c->base, c->base + c->len);
    c->error = 1;
    return 1;
}

/* Bytes a file's text is read in (FILE_BLOCK-aligned blocks; the callbacks go forward). */
#define FILE_BLOCK ((size_t)1 << 20)

/* A file that shrank under us: its size no longer covers the range being searched. */
static void report_changed(const char *name)
{
    errmsg("%s: file changed size while being read", name);
}

/* Test hook, read by the CLI only: CLMATCH_TEST_SHRINK=BYTES truncates the file being
 * searched to BYTES before the first block of its text is read (at its first match), so that
 * tests/cli.sh can shrink a file at a known point of a run instead of racing it. */
static void test_shrink(scan_ctx *c)
{
    const char *v = getenv("CLMATCH_TEST_SHRINK");
    if (v && *v && c->name && truncate(c->name, (off_t)strtoull(v, NULL, 10)) != 0)
        errmsg("%s: CLMATCH_TEST_SHRINK: %s", c->name, strerror(errno));
}

/* Read the file's block holding window offset pos into blk. 0, or 1 after reporting a short
 * read (the file shrank) or a failed one. */
static int load_block(scan_ctx *c, uint64_t pos)
{
    const uint64_t at = pos - pos % FILE_BLOCK;
    const size_t n = c->base + c->len - at < FILE_BLOCK ? (size_t)(c->base + c->len - at)
                                                        : FILE_BLOCK;
    size_t got = 0;
    if (c->blk_reads++ == 0)
        test_shrink(c);
    c->blk_len = 0;
    while (got < n) {
        ssize_t k = pread(c->fd, c->blk + got, n - got, (off_t)(c->file_off + at + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                report_changed(c->name);
            else
                errmsg("%s: %s", c->name, strerror(errno));
            c->error = 1;
            return 1;
        }
        got += (size_t)k;
    }
    c->blk_at = at;
    c->blk_len = n;
    return 0;
}

/* The byte at window offset pos (base <= pos < base + len), with [*lo, *hi) the window
 * offsets readable around it; NULL after reporting a failed read. */
static const unsigned char *text_at(scan_ctx *c, uint64_t pos, uint64_t *lo, uint64_t *hi)
{
    if (c->fd < 0) { /* a stream: the window is in memory */
        *lo = c->base;
        *hi = c->base + c->len;
        return c->text + (pos - c->base);
    }
    if ((pos < c->blk_at || pos - c->blk_at >= c->blk_len) && load_block(c, pos))
        return NULL;
    *lo = c->blk_at;
    *hi = c->blk_at + c->blk_len;
    return c->blk + (pos - c->blk_at);
}

/* The offset of the first newline in [from, base + len), or base + len when there is none.
 * 0, or 1 after an error. */
static int find_newline(scan_ctx *c, uint64_t from, uint64_t *nl)
{
    const uint64_t end = c->base + c->len;
    while (from < end) {
        uint64_t lo, hi;
        const unsigned char *p = text_at(c, from, &lo, &hi), *q;
        if (!p)
            return 1;
        if ((q = memchr(p, '\n', (size_t)(hi - from))) != NULL) {
            *nl = from + (uint64_t)(q - p);
            return 0;
        }
        from = hi;
    }
    *nl = end;
    return 0;
}

/* The start of the line holding pos: after the last newline in [lo, pos), else lo. 0, or 1
 * after an error. */
static int line_start(scan_ctx *c, uint64_t pos, uint64_t lo, uint64_t *ls)
{
    while (pos > lo) {
        uint64_t blo, bhi;
        const unsigned char *p = text_at(c, pos - 1, &blo, &bhi);
        if (!p)
            return 1;
        const uint64_t stop = blo > lo ? blo : lo;
        size_t i = (size_t)(pos - stop); /* bytes [stop, pos) are p[1 - i .. 0] */
        const unsigned char *b = p + 1 - i;
        while (i > 0 && b[i - 1] != '\n')
            i--;
        if (i > 0) {
            *ls = stop + i;
            return 0;
        }
        pos = stop;
    }
    *ls = lo;
    return 0;
}

static void put_escaped(const unsigned char *p, size_t n);

/* Output the text [from, to) (newline and backslash escaped when `escaped`). 0, or 1 after
 * an error. */
static int put_text(scan_ctx *c, uint64_t from, uint64_t to, int escaped)
{
    while (from < to) {
        uint64_t lo, hi;
        const unsigned char *p = text_at(c, from, &lo, &hi);
        if (!p)
            return 1;
        const size_t n = (size_t)((hi < to ? hi : to) - from);
        if (escaped)
            put_escaped(p, n);
        else
            out_bytes(p, n);
        from += n;
    }
    return 0;
}

/* Count the newlines up to `upto` (incrementally: never rescans from the start). */
static int advance_lines(scan_ctx *c, uint64_t upto)
{
    if (upto <= c->nl_pos)
        return 0;
    if (c->nl_pos < c->base || upto > c->base + c->len) {
        errmsg("internal error: line count at %" PRIu64 " outside the window", c->nl_pos);
        c->error = 1;
        return 1;
    }
    while (c->nl_pos < upto) {
        uint64_t lo, hi;
        const unsigned char *p = text_at(c, c->nl_pos, &lo, &hi);
        if (!p)
            return 1;
        const size_t n = (size_t)((hi < upto ? hi : upto) - c->nl_pos);
        c->nl_count += count_newlines(p, n);
        c->nl_pos += n;
    }
    return 0;
}

/* The file name and ':' (-Z: NUL), when names are printed. */
static void put_label(const scan_ctx *c)
{
    if (c->label) {
        out_bytes(c->label, strlen(c->label));
        out_char(c->cfg->null_after_name ? '\0' : ':');
    }
}

static void put_prefix(const scan_ctx *c, uint64_t offset)
{
    put_label(c);
    if (c->cfg->line_numbers) {
        out_u64(c->nl_count + 1);
        out_char(':');
    }
    if (c->cfg->byte_offsets) {
        out_u64(offset);
        out_char(':');
    }
}

/* A match at m->start on a line not selected yet: select the line (print it for the default
 * mode) and skip the rest of it. */
static int select_line(scan_ctx *c, const clm_match *m)
{
    const int print = c->cfg->mode == MODE_LINES;
    const uint64_t lo = c->skip_until > c->base ? c->skip_until : c->base;
    const uint64_t end = c->base + c->len;
    uint64_t nl;

    if (m->start < lo || m->start >= end)
        return match_outside(c, m);
    if (find_newline(c, m->start, &nl))
        return 1;
    c->selected++;
    if (print) {
        /* The line starts after the last newline before the match; the window starts at a
         * line start, and so does skip_until, so the search never needs to go further. */
        uint64_t ls;
        if (line_start(c, m->start, lo, &ls) || (c->track_lines && advance_lines(c, ls)))
            return 1;
        put_prefix(c, ls);
        if (put_text(c, ls, nl < end ? nl + 1 : end, 0))
            return 1;
    }
    if (nl < end) {
        c->skip_until = nl + 1;
        if (c->track_lines) { /* the selected line holds exactly one newline, at its end */
            c->nl_pos = c->skip_until;
            c->nl_count++;
        }
    } else {
        c->skip_until = UINT64_MAX; /* the line goes on to the end of the window */
        if (c->at_eof) {
            if (print)
                out_char('\n'); /* as grep: the last line gets its newline */
        } else {
            c->line_open = 1;
        }
    }
    return stop_now(c);
}

static int cb_lines(const clm_match *m, void *vctx)
{
    scan_ctx *c = vctx;
    if (m->start < c->skip_until)
        return 0; /* on the line just selected: the common case, kept cheap */
    return select_line(c, m);
}

static int cb_quiet(const clm_match *m, void *vctx)
{
    scan_ctx *c = vctx;
    (void)m;
    c->selected++;
    return 1;
}

static int cb_ignore(const clm_match *m, void *vctx)
{
    (void)m;
    (void)vctx;
    return 0;
}

/* START<TAB>END<TAB>EDITS of an approximate match. */
static void put_fuzzy_fields(const clm_match *m)
{
    out_u64(m->start);
    out_char('\t');
    out_u64(m->end);
    out_char('\t');
    out_u64(m->edits);
}

/* Matched bytes of an approximate match on one line: newline as \n, backslash as \\. */
static void put_escaped(const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    while (p < end) {
        const unsigned char *q = p;
        while (q < end && *q != '\n' && *q != '\\')
            q++;
        out_bytes(p, (size_t)(q - p));
        if (q < end) {
            out_char('\\');
            out_char(*q == '\n' ? 'n' : '\\');
            q++;
        }
        p = q;
    }
}

/* One occurrence for -o, --positions or --count-matches (after --non-overlapping). */
static int deliver(scan_ctx *c, const clm_match *m)
{
    const int fuzzy = c->cfg->max_errors > 0;
    c->selected++;
    switch (c->cfg->mode) {
    case MODE_POSITIONS:
        put_label(c);
        if (fuzzy)
            put_fuzzy_fields(m);
        else
            out_u64(m->start);
        if (c->cfg->numbered) { /* the library reports the pattern's number as its id */
            out_char('\t');
            out_u64(m->id);
        }
        out_char('\n');
        break;
    case MODE_ONLY:
        if (m->start < c->base || m->end > c->base + c->len || m->end <= m->start)
            return match_outside(c, m);
        if (c->track_lines && advance_lines(c, m->start))
            return 1;
        put_prefix(c, m->start);
        if (fuzzy) {
            put_fuzzy_fields(m);
            out_char('\t');
        }
        if (put_text(c, m->start, m->end, fuzzy))
            return 1;
        out_char('\n');
        break;
    default:
        break;
    }
    return stop_now(c);
}

static int cb_each(const clm_match *m, void *vctx)
{
    return deliver(vctx, m);
}

static int flush_cand(scan_ctx *c)
{
    if (!c->have_cand)
        return 0;
    c->have_cand = 0;
    c->taken_end = c->cand.end;
    return deliver(c, &c->cand);
}

/* grep -o semantics: at the leftmost start take the longest pattern, then go on after its
 * end. Matches arrive by start, so a candidate becomes final when a later start arrives. */
static int cb_non_overlapping(const clm_match *m, void *vctx)
{
    scan_ctx *c = vctx;
    if (c->have_cand) {
        if (m->start == c->cand.start) {
            if (m->end > c->cand.end)
                c->cand = *m;
            return 0;
        }
        if (flush_cand(c))
            return 1;
    }
    if (m->start < c->taken_end)
        return 0;
    c->cand = *m;
    c->have_cand = 1;
    return 0;
}

/* Approximate search: leftmost non-overlapping by [start, end), greedily over the matches in
 * the library's order (start, id, end): the first one that starts at or after the end of the
 * last one taken is taken. */
static int cb_non_overlapping_fuzzy(const clm_match *m, void *vctx)
{
    scan_ctx *c = vctx;
    if (m->start < c->taken_end)
        return 0;
    c->taken_end = m->end;
    return deliver(c, m);
}

/* ---- host-side checks: -w, -x, the empty pattern, the placeholder ---- */

/* The byte at window offset pos, a newline past the end of the input; -1 after an error. A
 * stream gives the library one byte less than its window holds (scan_stream), so that the
 * byte after a delivered match is in hand. */
static int byte_at(scan_ctx *c, uint64_t pos)
{
    uint64_t lo, hi;
    const unsigned char *p;
    if (pos >= c->base && pos < c->base + c->len) {
        p = text_at(c, pos, &lo, &hi);
        return p ? *p : -1;
    }
    if (pos >= c->base + c->len && c->at_eof)
        return '\n';
    if (pos < c->base && c->cfg->mode == MODE_LINES)
        return '\n'; /* this mode's window starts at a line start (keep_from) */
    errmsg("internal error: byte %" PRIu64 " outside the text window [%" PRIu64 ", %" PRIu64
           ")", pos, c->base, c->base + c->len);
    c->error = 1;
    return -1;
}

/* Is there a newline in [s, e)? 1, 0, or -1 after an error. */
static int spans_lines(scan_ctx *c, uint64_t s, uint64_t e)
{
    while (s < e) {
        uint64_t lo, hi;
        const unsigned char *p = text_at(c, s, &lo, &hi);
        if (!p)
            return -1;
        const size_t n = (size_t)((hi < e ? hi : e) - s);
        if (memchr(p, '\n', n))
            return 1;
        s += n;
    }
    return 0;
}

/* -x: [s, e) is a whole line; -w: no word byte right before or after it. 1 if it passes,
 * 0 if not, -1 after an error. */
static int passes(scan_ctx *c, uint64_t s, uint64_t e)
{
    const int line = c->cfg->line_regexp;
    int b = s == 0 ? '\n' : byte_at(c, s - 1);
    if (b < 0)
        return -1;
    if (line ? b != '\n' : output_word_byte(b))
        return 0;
    if ((b = byte_at(c, e)) < 0)
        return -1;
    if (line ? b != '\n' : output_word_byte(b))
        return 0;
    if (!c->cfg->classes)
        return 1;
    /* only a class ('.', \n, \s) matches a newline: such a match is on no one line */
    b = spans_lines(c, s, e);
    return b < 0 ? -1 : !b;
}

/* Where the empty pattern occurs on the line [ls, nl) so that it passes -w/-x: *at, or
 * UINT64_MAX when nowhere. 0, or 1 after an error. */
static int empty_on_line(scan_ctx *c, uint64_t ls, uint64_t nl, uint64_t *at)
{
    uint64_t pos;
    int prev_word = 0; /* the line start is no word byte */
    *at = UINT64_MAX;
    if (!c->cfg->line_regexp && !c->cfg->word_regexp)
        *at = ls;
    else if (c->cfg->line_regexp)
        *at = ls == nl ? ls : UINT64_MAX;
    else /* -w: at a line end, or before a non-word byte, after a non-word byte */
        for (pos = ls; pos <= nl && *at == UINT64_MAX; pos++) {
            const int b = pos == nl ? '\n' : byte_at(c, pos);
            if (b < 0)
                return 1;
            if (!prev_word && !output_word_byte(b))
                *at = pos;
            prev_word = output_word_byte(b);
        }
    return 0;
}

/* Try the empty pattern on the lines that start before limit and end in the window (or the
 * input), in order, as if it were a match there: it selects the line (lines, -c), ends -q,
 * or, in the modes that print occurrences (it has none to print, as grep -o), only sets
 * empty_hit for the exit status. Returns non-zero to stop. */
static int empty_upto(scan_ctx *c, uint64_t limit)
{
    const uint64_t end = c->base + c->len;
    while (c->empty_next < limit && c->empty_next < end) {
        const uint64_t ls = c->empty_next;
        uint64_t nl, at;
        clm_match m;
        if (find_newline(c, ls, &nl))
            return 1;
        if (nl == end && !c->at_eof)
            return 0; /* the line goes on past the window: tried when it is whole */
        c->empty_next = nl + 1;
        if (ls < c->skip_until) /* selected already, by a match */
            continue;
        if (empty_on_line(c, ls, nl, &at))
            return 1;
        if (at == UINT64_MAX)
            continue;
        memset(&m, 0, sizeof m);
        m.start = m.end = at;
        m.id = NO_ID;
        switch (c->cfg->mode) {
        case MODE_LINES:
        case MODE_COUNT_LINES:
            if (select_line(c, &m))
                return 1;
            break;
        case MODE_QUIET: return cb_quiet(&m, c);
        default:
            c->empty_hit = 1;
            c->empty_next = UINT64_MAX; /* the status is settled */
            return 0;
        }
    }
    return stop_now(c);
}

/* grep -o -w goes on searching from the end of the occurrence it printed and takes that
 * place as a line start (`echo 'A}' | grep -F -o -w -e A -e '}'` prints both): with
 * --non-overlapping, a word occurrence right after the last one taken passes the check
 * before it, as long as the byte after it passes. */
static int word_after_taken(scan_ctx *c, const clm_match *m)
{
    if (!c->cfg->word_regexp || c->cfg->line_regexp || !c->cfg->non_overlapping ||
        c->cfg->max_errors > 0 || m->start == 0)
        return 0;
    if (c->taken_end != m->start && !(c->have_cand && c->cand.end == m->start))
        return 0;
    int b = byte_at(c, m->end);
    return b >= 0 && !output_word_byte(b);
}

/* The callback of cfg->host_side: the empty pattern on the lines before the match first
 * (order), then the match, unless it is the placeholder or fails -w/-x. */
static int cb_host(const clm_match *m, void *vctx)
{
    scan_ctx *c = vctx;
    int ok;
    if (c->empty_next <= m->start && empty_upto(c, m->start + 1))
        return 1;
    if (m->id == NO_ID || m->start < c->skip_until) /* skip_until: on a selected line */
        return 0;
    if (c->cfg->word_regexp || c->cfg->line_regexp) {
        if ((ok = passes(c, m->start, m->end)) < 0)
            return 1;
        if (!ok && !word_after_taken(c, m))
            return 0;
    }
    return c->inner(m, c);
}

static clm_match_cb pick_callback(const config *cfg)
{
    return cfg->host_side ? cb_host : mode_callback(cfg);
}

/* The mode's callback (behind cb_host's checks when there are some). */
static clm_match_cb mode_callback(const config *cfg)
{
    switch (cfg->mode) {
    case MODE_QUIET: return cb_quiet;
    case MODE_LINES:
    case MODE_COUNT_LINES: return cb_lines;
    default:
        if (!cfg->non_overlapping)
            return cb_each;
        return cfg->max_errors > 0 ? cb_non_overlapping_fuzzy : cb_non_overlapping;
    }
}

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
 * callbacks of modes that print text read it with pread (text_at), into the stream window's
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
        st = r->set ? cli_set_scan_fd_range(r->set, fd, off, len, pick_callback(&r->cfg), c)
                    : clm_scan_fd_range(r->db, r->scratch, fd, off, len, pick_callback(&r->cfg), c);
        if (st == CLM_OK && (empty_upto(c, UINT64_MAX) || flush_cand(c)))
            st = CLM_STOPPED;
    }
    if (st < 0) {
        /* a short read of the library (CLM_E_IO), or a range no longer in the file
         * (CLM_E_INVALID) when it shrank before the scan began */
        if (fstat(fd, &now) == 0 && (uintmax_t)now.st_size < size)
            report_changed(name);
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
            c->ls_cur = c->base; /* the window starts at a line start (see select_line) */
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
    const clm_match_cb cb = count_only ? NULL : pick_callback(cfg);
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
            eof = 1; /* still deliver what was read before the error */
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
            if ((c->have_cand && c->cand.start < F && flush_cand(c)) || empty_upto(c, F)) {
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
            if (c->track_lines && !c->line_open && advance_lines(c, D)) {
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
        int cst = cli_stream_close(stream, st == CLM_OK ? cb : (count_only ? NULL : cb_ignore),
                                   c, &total);
        if (st == CLM_OK)
            st = cst;
        if (st == CLM_OK && count_only)
            c->selected = total;
        if (st == CLM_OK && (empty_upto(c, UINT64_MAX) || flush_cand(c)))
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
            put_label(&c);
            out_u64(c.selected);
            out_char('\n');
        }
        if (c.selected > 0 || c.empty_hit)
            r->matched = 1;
        r->cfg.mode = mode;
        if (how == PATH_BINARY && rc == 0 && (c.selected > 0 || c.empty_hit))
            errmsg("%s: binary file matches", name); /* as grep 3.5 and later */
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
