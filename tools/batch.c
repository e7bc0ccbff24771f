/* Many files, one scan (tools/batch.h). */
#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "patterns.h"

void batch_init(batch *b, const config *cfg, const clm_database *db, clm_scratch *scratch,
                cli_set *set)
{
    memset(b, 0, sizeof *b);
    b->cfg = cfg;
    b->db = db;
    b->scratch = scratch;
    b->set = set;
    output_init(&b->out, cfg);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 64;
    void *q;
    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    if (!(q = realloc(*p, n * size)))
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Read fd to its end at b->buf + b->len. 0 or an errno. */
static int read_all(batch *b, int fd, size_t *got)
{
    struct stat sb;
    size_t want = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0
                      ? (size_t)sb.st_size + 1 /* + 1: the end is seen without another grow */
                      : 65536;
    int eof = 0;
    *got = 0;
    while (!eof) {
        size_t n;
        int err;
        /* + 1: the separator */
        if (grow((void **)&b->buf, &b->cap, b->len + *got + want + 1, 1) != 0)
            return ENOMEM;
        if ((err = read_block(fd, b->buf + b->len + *got, want, &n, &eof)) != 0)
            return err;
        *got += n;
        want = *got; /* a stream: double */
    }
    return 0;
}

int batch_add(batch *b, int fd, const char *name, int show_name)
{
    batch_file *f;
    size_t got;
    int err;
    if (grow((void **)&b->files, &b->files_cap, b->n + 1, sizeof *b->files) != 0) {
        errmsg("out of memory");
        return -1;
    }
    if ((err = read_all(b, fd, &got)) != 0) {
        /* what is queued goes first; -q may have its answer then */
        if (batch_flush(b) != 0 || b->out.stop)
            return b->out.stop ? 0 : -1;
        if (!b->cfg->no_messages)
            errmsg("%s: %s", name, strerror(err));
        return -1;
    }
    f = &b->files[b->n];
    memset(f, 0, sizeof *f);
    if (!(f->name = strdup(name))) {
        errmsg("out of memory");
        return -1;
    }
    f->show_name = show_name;
    f->off = b->len;
    f->len = got;
    f->binary = b->cfg->binary_files != BINARY_TEXT && !b->cfg->null_data &&
                memchr(b->buf + f->off, '\0', got) != NULL;
    b->len += got;
    b->buf[b->len++] = b->out.eol; /* no occurrence without a line end straddles it */
    b->n++;
    return b->len >= BATCH_BYTES ? batch_flush(b) : 0;
}

/* The scan's callback: keep the occurrences inside one file that pass -w/-x (and, for line
 * selection alone, only the first of each line). */
static int collect(const clm_match *mt, void *ctx)
{
    batch *b = ctx;
    const config *cfg = b->cfg;
    batch_file *f;
    uint64_t s, e;
    int before_ok;
    if (mt->id == NO_ID)
        return 0;
    while (b->cur < b->n && mt->start >= b->files[b->cur].off + b->files[b->cur].len + 1) {
        b->cur++;
        b->skip_until = 0;
    }
    if (b->cur == b->n || mt->start < b->skip_until)
        return 0;
    f = &b->files[b->cur];
    if (mt->end > f->off + f->len)
        return 0; /* it takes the separator */
    s = mt->start - f->off;
    e = mt->end - f->off;
    if (!output_passes(cfg, b->out.eol, f->binary, b->buf + f->off, f->len, s, e, &before_ok))
        return 0;
    /* one failing only the byte before may still be shown by grep's -o -w walk */
    if (!before_ok && !(cfg->mode == MODE_ONLY || cfg->color))
        return 0;
    if (grow((void **)&b->m, &b->m_cap, b->nm + 1, sizeof *b->m) != 0) {
        b->error = 1;
        return 1;
    }
    if (f->m_count++ == 0)
        f->m_first = b->nm;
    b->m[b->nm].start = s;
    b->m[b->nm].end = e;
    b->m[b->nm].before_ok = before_ok;
    b->nm++;
    if (before_ok && cfg->mode != MODE_ONLY && !cfg->color) {
        /* the line matches: its other occurrences change nothing */
        b->skip_until = f->off + 1 + output_line_end(b->buf + f->off, f->len, s, b->out.eol,
                                                      f->binary);
    }
    return 0;
}

static void clear(batch *b)
{
    size_t i;
    for (i = 0; i < b->n; i++)
        free(b->files[i].name);
    b->n = b->len = b->nm = 0;
}

int batch_flush(batch *b)
{
    size_t i;
    int st = CLM_OK, rc = 0;
    if (b->n == 0)
        return 0;
    b->cur = 0;
    b->skip_until = 0;
    b->error = 0;
    b->bytes_in += b->len - b->n;
    if (b->set) { /* --stats: --devices auto names the host's inputs */
        char label[512];
        if (b->n == 1)
            snprintf(label, sizeof label, "%s", b->files[0].name);
        else
            snprintf(label, sizeof label, "%zu files (%s ... %s)", b->n, b->files[0].name,
                     b->files[b->n - 1].name);
        cli_set_input(b->set, label);
    }
    if (b->len > b->n) /* not only separators */
        st = b->set ? cli_set_scan(b->set, b->buf, b->len, collect, b)
                    : clm_scan(b->db, b->scratch, b->buf, b->len, collect, b);
    if (b->error) {
        errmsg("out of memory");
        rc = -1;
    } else if (st < 0) {
        report_clm("cannot search the files", st);
        rc = -1;
    }
    for (i = 0; rc == 0 && i < b->n && !b->out.stop; i++) {
        const batch_file *f = &b->files[i];
        output_file(&b->out, f->name, f->show_name, b->buf + f->off, f->len,
                    f->m_count ? b->m + f->m_first : NULL, f->m_count, f->binary);
    }
    clear(b);
    return rc;
}

void batch_free(batch *b)
{
    clear(b);
    free(b->buf);
    free(b->files);
    free(b->m);
}
