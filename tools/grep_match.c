/* The match side of clmatch's grep mode (tools/grep_match.h). */
#include "grep_match.h"

#include "cli_common.h"
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static clm_match_cb mode_callback(const config *cfg);

void scan_ctx_done(scan_ctx *c)
{
    line_index_free(&c->lines);
}

void scan_ctx_init(scan_ctx *c, const config *cfg, const char *label)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->label = label;
    c->fd = -1;
    c->inner = mode_callback(cfg);
    c->empty_next = cfg->has_empty ? 0 : UINT64_MAX;
    c->track_lines = cfg->line_numbers && (cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY);
    line_index_init(&c->lines);
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


/* A file that shrank under us: its size no longer covers the range being searched. */
void scan_report_changed(const char *name)
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
    /* A whole FILE_BLOCK where the reads go on from the last block; a small one around a
     * match far ahead (-n counts the lines between from its index: only the match's lines
     * are read) */
    const uint64_t next = c->blk_at + c->blk_len;
    const size_t size = pos >= next && pos - next < FILE_BLOCK ? FILE_BLOCK : SMALL_BLOCK;
    const uint64_t at = pos - pos % size;
    const size_t n = c->base + c->len - at < size ? (size_t)(c->base + c->len - at) : size;
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
                scan_report_changed(c->name);
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
const unsigned char *scan_text_at(scan_ctx *c, uint64_t pos, uint64_t *lo, uint64_t *hi)
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
        const unsigned char *p = scan_text_at(c, from, &lo, &hi), *q;
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
        const unsigned char *p = scan_text_at(c, pos - 1, &blo, &bhi);
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
        const unsigned char *p = scan_text_at(c, from, &lo, &hi);
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
/* Count the newlines up to `upto` on this thread, reading the file's blocks. */
static int count_lines_here(scan_ctx *c, uint64_t upto)
{
    while (c->nl_pos < upto) {
        uint64_t lo, hi;
        const unsigned char *p = scan_text_at(c, c->nl_pos, &lo, &hi);
        if (!p)
            return 1;
        const size_t k = (size_t)((hi < upto ? hi : upto) - c->nl_pos);
        c->nl_count += count_newlines(p, k);
        c->nl_pos += k;
    }
    return 0;
}

/* The file's blocks counted ahead at a time (line_index.h). */
#define LINES_AHEAD ((uint64_t)256 << 20)

int scan_advance_lines(scan_ctx *c, uint64_t upto)
{
    if (upto <= c->nl_pos)
        return 0;
    if (c->nl_pos < c->base || upto > c->base + c->len) {
        errmsg("internal error: line count at %" PRIu64 " outside the window", c->nl_pos);
        c->error = 1;
        return 1;
    }
    const uint64_t B = LINE_INDEX_BLOCK, off = c->file_off;
    /* whole blocks of the file between: from the index, counted ahead by several threads */
    uint64_t b0 = (off + c->nl_pos + B - 1) / B * B, b1 = (off + upto) / B * B;
    if (c->fd >= 0 && b0 < b1) {
        if (count_lines_here(c, b0 - off))
            return 1;
        if (!line_index_covers(&c->lines, b0, b1)) {
            uint64_t end = (off + c->base + c->len) / B * B, to = b0 + LINES_AHEAD;
            unsigned threads = 1;
            clm_host_threads(UINT64_MAX, &threads); /* a bad CLMATCH_HOST_THREADS: 1 */
            if (line_index_build(&c->lines, c->fd, b0, to > b1 ? (to < end ? to : end) : b1,
                                 threads) != 0)
                return count_lines_here(c, upto); /* reports the short read, if any */
        }
        c->nl_count += line_index_sum(&c->lines, b0, b1);
        c->nl_pos = b1 - off;
    }
    return count_lines_here(c, upto);
}

/* The file name and ':' (-Z: NUL), when names are printed. */
void scan_put_label(const scan_ctx *c)
{
    if (c->label) {
        out_bytes(c->label, strlen(c->label));
        out_char(c->cfg->null_after_name ? '\0' : ':');
    }
}

static void put_prefix(const scan_ctx *c, uint64_t offset)
{
    scan_put_label(c);
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
int scan_select_line(scan_ctx *c, const clm_match *m)
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
        if (line_start(c, m->start, lo, &ls) || (c->track_lines && scan_advance_lines(c, ls)))
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
    return scan_select_line(c, m);
}

static int cb_quiet(const clm_match *m, void *vctx)
{
    scan_ctx *c = vctx;
    (void)m;
    c->selected++;
    return 1;
}

int scan_cb_ignore(const clm_match *m, void *vctx)
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
int scan_deliver(scan_ctx *c, const clm_match *m)
{
    const int fuzzy = c->cfg->max_errors > 0;
    c->selected++;
    switch (c->cfg->mode) {
    case MODE_POSITIONS:
        scan_put_label(c);
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
        if (c->track_lines && scan_advance_lines(c, m->start))
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
    return scan_deliver(vctx, m);
}

int scan_flush_cand(scan_ctx *c)
{
    if (!c->have_cand)
        return 0;
    c->have_cand = 0;
    c->taken_end = c->cand.end;
    return scan_deliver(c, &c->cand);
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
        if (scan_flush_cand(c))
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
    return scan_deliver(c, m);
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
        p = scan_text_at(c, pos, &lo, &hi);
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
        const unsigned char *p = scan_text_at(c, s, &lo, &hi);
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
int scan_empty_upto(scan_ctx *c, uint64_t limit)
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
            if (scan_select_line(c, &m))
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
    if (c->empty_next <= m->start && scan_empty_upto(c, m->start + 1))
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

clm_match_cb scan_pick_callback(const config *cfg)
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
