/* grep's output of one file held in memory (tools/output.h). The file is walked a line at a
 * time: a line is matching when an occurrence starts in it (or the empty pattern fits it),
 * selected when that differs from -v; what is printed around it follows grep's prtext. */
#include "output.h"

#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

#define SEP_SELECTED ':'
#define SEP_CONTEXT '-'

/* ---- colors ---- */

static void set_cap(char *cap, const char *v, size_t n)
{
    if (n >= 32)
        n = 31; /* longer SGR sequences are not real ones */
    memcpy(cap, v, n);
    cap[n] = '\0';
}

/* GREP_COLORS: "name=value:name=value:bool", grep's capabilities (mt sets ms and mc). */
static void parse_grep_colors(grep_colors *c, const char *s)
{
    while (s && *s) {
        const char *end = strchr(s, ':'), *eq;
        const size_t n = end ? (size_t)(end - s) : strlen(s);
        eq = memchr(s, '=', n);
        if (eq && eq - s == 2) {
            const char *v = eq + 1;
            const size_t vn = n - 3;
            static const char *const names[] = {"ms", "mc", "sl", "cx", "fn", "ln", "bn", "se"};
            char *caps[] = {c->ms, c->mc, c->sl, c->cx, c->fn, c->ln, c->bn, c->se};
            size_t i;
            if (!strncmp(s, "mt", 2)) {
                set_cap(c->ms, v, vn);
                set_cap(c->mc, v, vn);
            }
            for (i = 0; i < sizeof names / sizeof names[0]; i++)
                if (!strncmp(s, names[i], 2))
                    set_cap(caps[i], v, vn);
        } else if (n == 2 && !strncmp(s, "ne", 2)) {
            c->ne = 1;
        }
        s = end ? end + 1 : NULL;
    }
}

void output_init(out_state *st, const config *cfg)
{
    memset(st, 0, sizeof *st);
    st->cfg = cfg;
    st->eol = cfg->null_data ? '\0' : '\n';
    parse_grep_colors(&st->colors, "ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36");
    if (cfg->color)
        parse_grep_colors(&st->colors, getenv("GREP_COLORS"));
}

static void sgr_start(const out_state *st, const char *cap)
{
    if (!st->cfg->color || !*cap)
        return;
    out_str("\33[");
    out_str(cap);
    out_str(st->colors.ne ? "m" : "m\33[K");
}

static void sgr_end(const out_state *st, const char *cap)
{
    if (st->cfg->color && *cap)
        out_str(st->colors.ne ? "\33[m" : "\33[m\33[K");
}

static void put_colored_u64(const out_state *st, const char *cap, uint64_t v)
{
    sgr_start(st, cap);
    out_u64(v);
    sgr_end(st, cap);
}

static void put_sep(const out_state *st, char sep)
{
    sgr_start(st, st->colors.se);
    out_char(sep);
    sgr_end(st, st->colors.se);
}

/* The file name, then sep (-Z: a NUL instead). */
static void put_name(const out_state *st, const char *name, char sep)
{
    sgr_start(st, st->colors.fn);
    out_str(name);
    sgr_end(st, st->colors.fn);
    if (st->cfg->null_after_name)
        out_char('\0');
    else
        put_sep(st, sep);
}

static void put_head(const out_state *st, const char *name, uint64_t lineno, uint64_t off,
                     char sep)
{
    if (name)
        put_name(st, name, sep);
    if (st->cfg->line_numbers) {
        put_colored_u64(st, st->colors.ln, lineno);
        put_sep(st, sep);
    }
    if (st->cfg->byte_offsets) {
        put_colored_u64(st, st->colors.bn, off);
        put_sep(st, sep);
    }
}

/* ---- occurrences ---- */

int output_word_byte(int b)
{
    return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
           b == '_';
}

int output_passes(const config *cfg, unsigned char eol, int nul_ends, const unsigned char *text,
                  size_t len, uint64_t s, uint64_t e, int *before_ok)
{
    const int before = s == 0 ? eol : text[s - 1], after = e >= len ? eol : text[e];
    *before_ok = 1;
    if (nul_ends && e > s && memchr(text + s, '\0', (size_t)(e - s)))
        return 0; /* grep has turned the NUL into a line end: nothing matches it */
    if (!cfg->line_regexp && !cfg->word_regexp)
        return 1; /* (a class match over a line end selects the line it starts on) */
    if (e > s && memchr(text + s, eol, (size_t)(e - s)))
        return 0; /* a class ('.', \n, \s) took a line end: the match is on no one line */
    if (cfg->line_regexp)
        return (before == eol || (nul_ends && before == '\0')) &&
               (after == eol || (nul_ends && after == '\0'));
    *before_ok = !output_word_byte(before);
    return !output_word_byte(after);
}

/* The occurrences starting on the line [ls, le]: m[*first, *last). */
static void line_matches(const rec_match *m, size_t n, uint64_t ls, uint64_t le, size_t *first,
                         size_t *last)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (m[mid].start < ls)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    while (lo < n && m[lo].start <= le)
        lo++;
    *last = lo;
}

/* Does the empty pattern occur on the line [ls, le) so that it passes -w and -x? */
static int empty_fits(const config *cfg, const unsigned char *t, uint64_t ls, uint64_t le)
{
    uint64_t pos;
    int prev_word = 0; /* the line start is no word byte */
    if (cfg->line_regexp)
        return ls == le;
    if (!cfg->word_regexp)
        return 1;
    for (pos = ls; pos <= le; pos++) { /* -w: between two non-word bytes */
        const int word = pos < le && output_word_byte(t[pos]);
        if (!prev_word && !word)
            return 1;
        prev_word = word;
    }
    return 0;
}

static int line_is_matching(const out_state *st, const unsigned char *t, uint64_t ls,
                            uint64_t le, const rec_match *m, size_t first, size_t last)
{
    size_t i;
    for (i = first; i < last; i++)
        if (m[i].before_ok)
            return 1;
    return st->cfg->has_empty && empty_fits(st->cfg, t, ls, le);
}

/* The next occurrence a line shows (-o, --color) at or after *i, with *cur the end of the
 * last one shown (ls at first): -o without --non-overlapping shows every one; otherwise
 * grep's walk, the longest of those starting leftmost at or after *cur. grep searches on from
 * the end of what it showed as if a line started there, so -w's test of the byte before
 * passes at *cur once something was shown. 0 when there is none. */
static int next_shown(const out_state *st, const rec_match *m, size_t *i, size_t last,
                      uint64_t *cur, int shown, uint64_t *b, uint64_t *e)
{
    const int all = st->cfg->mode == MODE_ONLY && !st->cfg->non_overlapping;
    const rec_match *best = NULL;
    size_t j;
    while (*i < last && (m[*i].start < *cur || (all && !m[*i].before_ok)))
        (*i)++;
    if (all) {
        if (*i == last)
            return 0;
        *b = m[*i].start;
        *e = m[*i].end;
        (*i)++;
        return 1;
    }
    for (j = *i; j < last && (!best || m[j].start == best->start); j++)
        if ((m[j].before_ok || (shown && m[j].start == *cur)) && m[j].end > m[j].start &&
            (!best || m[j].end > best->end))
            best = &m[j];
    if (!best)
        return 0;
    *b = best->start;
    *e = *cur = best->end;
    return 1;
}

/* One line [ls, le) (line number lineno) with sep ':' (selected) or '-' (context), as grep's
 * prline: matching lines show their occurrences (-o) or get them colored. */
static void emit_line(const out_state *st, const char *name, const unsigned char *t,
                      uint64_t ls, uint64_t le, uint64_t lineno, char sep, const rec_match *m,
                      size_t n)
{
    const config *cfg = st->cfg;
    const int matching = (sep == SEP_SELECTED) != (cfg->invert != 0);
    const char *line_color = sep == SEP_SELECTED ? st->colors.sl : st->colors.cx;
    const char *match_color = sep == SEP_SELECTED ? st->colors.ms : st->colors.mc;
    uint64_t cur = ls, b, e;
    size_t i, last;
    int shown = 0;

    line_matches(m, n, ls, le, &i, &last);
    if (cfg->mode == MODE_ONLY) {
        while (matching && next_shown(st, m, &i, last, &cur, shown, &b, &e)) {
            shown = 1;
            put_head(st, name, lineno, b, sep);
            sgr_start(st, match_color);
            out_bytes(t + b, (size_t)(e - b));
            sgr_end(st, match_color);
            out_char((char)st->eol);
        }
        return;
    }
    put_head(st, name, lineno, ls, sep);
    if (cfg->color && matching && *match_color) {
        uint64_t at = ls;
        while (next_shown(st, m, &i, last, &at, shown, &b, &e) && b < le) {
            shown = 1;
            e = e < le ? e : le; /* a class match may take the line end */
            sgr_start(st, line_color);
            out_bytes(t + cur, (size_t)(b - cur));
            sgr_start(st, match_color);
            out_bytes(t + b, (size_t)(e - b));
            sgr_end(st, match_color);
            cur = e;
        }
    }
    if (cfg->color && *line_color) {
        uint64_t tail = le > cur && t[le - 1] == '\r' ? le - 1 : le; /* as grep: CR uncolored */
        if (tail > cur) {
            sgr_start(st, line_color);
            out_bytes(t + cur, (size_t)(tail - cur));
            sgr_end(st, line_color);
            cur = tail;
        }
    }
    out_bytes(t + cur, (size_t)(le - cur));
    out_char((char)st->eol); /* a last line without one gets it, as in grep */
}

/* ---- the file ---- */

typedef struct {
    out_state *st;
    const char *name; /* prefix, or NULL */
    const unsigned char *t;
    size_t len;
    const rec_match *m;
    size_t n;
    int have_lastout;
    uint64_t lastout; /* the end of the last line printed (after its line end) */
    int nul_ends;     /* a binary file: NUL bytes end lines */
} file_walk;

uint64_t output_line_end(const unsigned char *t, size_t len, uint64_t from, unsigned char eol,
                         int nul_ends)
{
    const unsigned char *q = memchr(t + from, eol, len - (size_t)from), *z;
    if (nul_ends && (z = memchr(t + from, '\0', (size_t)((q ? q : t + len) - (t + from)))))
        q = z;
    return q ? (uint64_t)(q - t) : len;
}

static uint64_t line_end(const file_walk *w, uint64_t ls)
{
    return output_line_end(w->t, w->len, ls, w->st->eol, w->nul_ends);
}

static void emit(file_walk *w, uint64_t ls, uint64_t lineno, char sep)
{
    const uint64_t le = line_end(w, ls);
    emit_line(w->st, w->name, w->t, ls, le, lineno, sep, w->m, w->n);
    w->have_lastout = 1;
    w->lastout = le < w->len ? le + 1 : w->len;
}

/* Before a selected line [ls, ...) numbered lineno: the -B lines before it not printed yet,
 * after "--" when they do not follow what was printed last. */
static void emit_before(file_walk *w, uint64_t ls, uint64_t lineno)
{
    const config *cfg = w->st->cfg;
    const uint64_t floor = w->have_lastout ? w->lastout : 0;
    uint64_t from = ls, k = 0;
    while (cfg->before > 0 && k < (uint64_t)cfg->before && from > floor) {
        const unsigned char *p = w->t + from - 1; /* the line end of the line before */
        while (p > w->t + floor && p[-1] != w->st->eol)
            p--;
        from = (uint64_t)(p - w->t);
        k++;
    }
    if ((cfg->before >= 0 || cfg->after >= 0) && w->st->used && cfg->group_separator &&
        (!w->have_lastout || from != w->lastout)) {
        sgr_start(w->st, w->st->colors.se);
        out_str(cfg->group_separator);
        sgr_end(w->st, w->st->colors.se);
        out_char('\n');
    }
    while (k > 0) {
        emit(w, from, lineno - k, SEP_CONTEXT);
        from = w->lastout;
        k--;
    }
}

uint64_t output_file(out_state *st, const char *name, int show_name, const unsigned char *text,
                     size_t len, const rec_match *m, size_t n, int binary)
{
    const config *cfg = st->cfg;
    const int suppressed = binary && cfg->binary_files != BINARY_TEXT;
    const int printing = (cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY) &&
                         !cfg->list_files && !suppressed;
    uint64_t outleft = cfg->max_count, selected = 0, lineno = 1, ls = 0, pending = 0;
    int binary_hit = 0;
    file_walk w = {st, show_name ? name : NULL, text, len, m, n, 0, 0, suppressed};
    size_t first = 0;

    if (suppressed && cfg->binary_files == BINARY_WITHOUT_MATCH)
        len = 0; /* as grep: a binary file matches nothing, even with -v */
    while (ls < len && (outleft > 0 || pending > 0) && !st->stop) {
        const uint64_t le = line_end(&w, ls);
        size_t last;
        while (first < n && m[first].start < ls)
            first++;
        last = first;
        while (last < n && m[last].start <= le)
            last++;
        const int sel =
            line_is_matching(st, text, ls, le, m, first, last) != (cfg->invert != 0);
        if (outleft == 0) { /* -m reached: its trailing context, selected lines or not */
            emit(&w, ls, lineno, SEP_CONTEXT);
            pending--;
        } else if (sel) {
            selected++;
            outleft--;
            if (cfg->mode == MODE_QUIET) {
                st->stop = 1;
                break;
            }
            if (cfg->list_files)
                break; /* decided */
            if ((cfg->mode == MODE_LINES || cfg->mode == MODE_ONLY) && suppressed) {
                st->used = 1; /* as grep: a "--" goes before the next group all the same */
                binary_hit = 1;
                break;
            }
            if (printing) {
                emit_before(&w, ls, lineno);
                emit(&w, ls, lineno, SEP_SELECTED);
                pending = cfg->after > 0 ? (uint64_t)cfg->after : 0;
            }
            st->used = 1;
        } else if (pending > 0) {
            emit(&w, ls, lineno, SEP_CONTEXT);
            pending--;
        }
        first = last;
        lineno++;
        ls = le < len ? le + 1 : len;
    }

    if (selected > 0)
        st->matched = 1;
    if (cfg->mode == MODE_QUIET) {
        /* nothing to print */
    } else if (cfg->list_files) {
        if ((selected > 0) == (cfg->list_files == LIST_MATCHING)) {
            sgr_start(st, st->colors.fn);
            out_str(name);
            sgr_end(st, st->colors.fn);
            out_char(cfg->null_after_name ? '\0' : '\n');
        }
    } else if (cfg->mode == MODE_COUNT_LINES || cfg->mode == MODE_COUNT_MATCHES) {
        if (show_name)
            put_name(st, name, SEP_SELECTED);
        out_u64(selected);
        out_char('\n');
    } else if (binary_hit) {
        errmsg("%s: binary file matches", name); /* as grep 3.5 and later: on stderr */
    }
    if (cli_out.failed)
        st->stop = 1;
    return selected;
}
