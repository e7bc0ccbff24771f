/* The match side of clmatch's grep mode (tools/grep_match.c): the text window a search sees,
 * line selection and numbering, what each output mode prints for a match, and grep's -w, -x
 * and empty-pattern checks done on the host. tools/clmatch.c feeds it matches from regular
 * files (read with pread, a block at a time) and from streams (a window in memory). */
#ifndef CLMATCH_GREP_MATCH_H
#define CLMATCH_GREP_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "clmatch.h"
#include "grep_args.h"
#include "line_index.h"

/* Bytes a file's text is read in (FILE_BLOCK-aligned blocks; the callbacks go forward), or
 * SMALL_BLOCK-aligned ones where they jump ahead. */
#define FILE_BLOCK ((size_t)1 << 20)
#define SMALL_BLOCK ((size_t)LINE_INDEX_BLOCK)

/* The scanning state the mapped and the streamed path share. */
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
    line_index lines; /* a regular file's newlines by blocks, counted ahead */
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

void scan_ctx_init(scan_ctx *c, const config *cfg, const char *label);
/* Free what the scan allocated (the line index). */
void scan_ctx_done(scan_ctx *c);
/* Report that a file changed size during the search. */
void scan_report_changed(const char *name);
/* The byte at window offset pos, with [*lo, *hi) the offsets readable around it; NULL after
 * reporting a failed read. */
const unsigned char *scan_text_at(scan_ctx *c, uint64_t pos, uint64_t *lo, uint64_t *hi);
/* Count the newlines up to `upto` (incrementally). */
int scan_advance_lines(scan_ctx *c, uint64_t upto);
/* The file name and ':' (-Z: NUL), when names are printed. */
void scan_put_label(const scan_ctx *c);
/* Select the line of a match at m->start (print it in the default mode). */
int scan_select_line(scan_ctx *c, const clm_match *m);
/* A callback that drops every match. */
int scan_cb_ignore(const clm_match *m, void *vctx);
/* One occurrence for -o, --positions or --count-matches. */
int scan_deliver(scan_ctx *c, const clm_match *m);
/* --non-overlapping: deliver the candidate held back, if any. */
int scan_flush_cand(scan_ctx *c);
/* The empty pattern tried on the lines that start before limit. */
int scan_empty_upto(scan_ctx *c, uint64_t limit);
/* The callback of the configuration's mode (host-side checks first where they apply). */
clm_match_cb scan_pick_callback(const config *cfg);

#endif
