/* Streaming FASTA reader: see fasta.h for the format accepted. */
#include "fasta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fasta_init(fasta_reader *r, fasta_mode mode, const char *name)
{
    memset(r, 0, sizeof *r);
    r->mode = mode;
    r->name = name;
    r->at_line_start = 1;
    r->line = 1;
}

void fasta_free(fasta_reader *r)
{
    fasta_header_free(&r->hdr);
}

size_t fasta_id_length(const char *header, size_t len)
{
    size_t i = 0;
    while (i < len && header[i] != ' ' && header[i] != '\t')
        i++;
    return i;
}

void fasta_quote_line(char *buf, size_t cap, const unsigned char *p, const unsigned char *end)
{
    size_t i = 0;
    while (p < end && *p != '\n' && *p != '\r' && i + 4 < cap && i < 40) {
        buf[i++] = (*p >= 0x20 && *p < 0x7f) ? (char)*p : '?';
        p++;
    }
    if (p < end && *p != '\n' && *p != '\r' && i + 4 < cap) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[i] = '\0';
}

int fasta_header_append(fasta_header *h, const unsigned char *p, size_t n)
{
    if (h->len + n > FASTA_MAX_HEADER) {
        n = FASTA_MAX_HEADER - h->len;
        h->truncated = 1;
    }
    if (h->len + n + 1 > h->cap) {
        size_t cap = h->cap ? h->cap : 256;
        char *q;
        while (cap < h->len + n + 1)
            cap *= 2;
        q = realloc(h->text, cap);
        if (!q)
            return FASTA_ERR_NOMEM;
        h->text = q;
        h->cap = cap;
    }
    memcpy(h->text + h->len, p, n);
    h->len += n;
    h->text[h->len] = '\0';
    return FASTA_OK;
}

void fasta_header_free(fasta_header *h)
{
    free(h->text);
    memset(h, 0, sizeof *h);
}

int fasta_header_start(const fasta_header *h, uint64_t line, const fasta_callbacks *cb,
                       void *ctx)
{
    size_t len = h->len;
    while (len > 0 && h->text[len - 1] == '\r')
        len--;
    return cb->record_start(ctx, h->text ? h->text : "", len, line) ? FASTA_ERR_CALLBACK
                                                                    : FASTA_OK;
}

/* The header line is complete: start its record. */
static int end_header(fasta_reader *r, const fasta_callbacks *cb, void *ctx)
{
    r->in_header = 0;
    r->in_record = 1;
    return fasta_header_start(&r->hdr, r->line, cb, ctx);
}

/* Pass [p, end) on as sequence, without its CR bytes. */
static int emit_sequence(const unsigned char *p, const unsigned char *end,
                         const fasta_callbacks *cb, void *ctx)
{
    while (p < end) {
        const unsigned char *cr = memchr(p, '\r', (size_t)(end - p));
        const unsigned char *stop = cr ? cr : end;
        if (stop > p && cb->sequence(ctx, p, (size_t)(stop - p)))
            return FASTA_ERR_CALLBACK;
        p = cr ? cr + 1 : end;
    }
    return FASTA_OK;
}

/* The first non-empty line starts at p with a byte other than '>'. */
static int decide_not_fasta(fasta_reader *r, const unsigned char *p, const unsigned char *end,
                            const fasta_callbacks *cb, void *ctx)
{
    char q[64];
    if (r->mode == FASTA_FORCE || *p == '@') {
        fasta_quote_line(q, sizeof q, p, end);
        if (*p == '@')
            snprintf(r->error, sizeof r->error,
                     "%s: line %llu: looks like FASTQ ('%s'), not FASTA "
                     "(convert with 'seqkit fq2fa')",
                     r->name, (unsigned long long)r->line, q);
        else
            snprintf(r->error, sizeof r->error,
                     "%s: line %llu: not FASTA: expected a header line starting with '>', "
                     "got '%s'",
                     r->name, (unsigned long long)r->line, q);
        return FASTA_ERR_FORMAT;
    }
    r->decided = 1;
    r->raw = 1;
    r->in_record = 1;
    return cb->record_start(ctx, r->name, strlen(r->name), 0) ? FASTA_ERR_CALLBACK : FASTA_OK;
}

int fasta_feed(fasta_reader *r, const void *data, size_t n, const fasta_callbacks *cb,
               void *ctx)
{
    const unsigned char *p = data, *end = p + n;
    int st;

    while (p < end) {
        const unsigned char *nl;
        if (r->raw) {
            /* Every byte but line breaks is sequence. */
            while (p < end) {
                nl = memchr(p, '\n', (size_t)(end - p));
                if ((st = emit_sequence(p, nl ? nl : end, cb, ctx)) != FASTA_OK)
                    return st;
                if (!nl)
                    return FASTA_OK;
                r->line++;
                p = nl + 1;
            }
            return FASTA_OK;
        }
        if (r->in_header) {
            nl = memchr(p, '\n', (size_t)(end - p));
            if (!r->hdr.truncated &&
                (st = fasta_header_append(&r->hdr, p, (size_t)((nl ? nl : end) - p))) != FASTA_OK)
                return st;
            if (!nl)
                return FASTA_OK;
            if ((st = end_header(r, cb, ctx)) != FASTA_OK)
                return st;
            r->line++;
            r->at_line_start = 1;
            p = nl + 1;
            continue;
        }
        if (r->at_line_start) {
            if (*p == '\n') { /* empty line */
                r->line++;
                p++;
                continue;
            }
            if (!r->decided) {
                if (*p == '\r') { /* CR of an empty CRLF line before the first header */
                    p++;
                    continue;
                }
                if (*p != '>') {
                    if ((st = decide_not_fasta(r, p, end, cb, ctx)) != FASTA_OK)
                        return st;
                    continue; /* raw from here on */
                }
                r->decided = 1;
            }
            if (*p == '>') {
                if (r->in_record) {
                    r->in_record = 0;
                    if (cb->record_end(ctx))
                        return FASTA_ERR_CALLBACK;
                }
                r->in_header = 1;
                r->hdr.len = 0;
                r->hdr.truncated = 0;
                r->at_line_start = 0;
                p++;
                continue;
            }
        }
        /* (Part of) a sequence line. */
        nl = memchr(p, '\n', (size_t)(end - p));
        if ((st = emit_sequence(p, nl ? nl : end, cb, ctx)) != FASTA_OK)
            return st;
        if (!nl) {
            r->at_line_start = 0;
            return FASTA_OK;
        }
        r->line++;
        r->at_line_start = 1;
        p = nl + 1;
    }
    return FASTA_OK;
}

int fasta_finish(fasta_reader *r, const fasta_callbacks *cb, void *ctx)
{
    int st;
    if (r->in_header && (st = end_header(r, cb, ctx)) != FASTA_OK) /* no final newline */
        return st;
    if (r->in_record) {
        r->in_record = 0;
        if (cb->record_end(ctx))
            return FASTA_ERR_CALLBACK;
    }
    return FASTA_OK;
}
