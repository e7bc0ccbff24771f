/* Streaming FASTQ reader: see fastq.h for the format accepted. */
#include "fastq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PART_HEADER, PART_SEQUENCE, PART_PLUS, PART_QUALITY };

void fastq_init(fastq_reader *r, const char *name)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->part = PART_HEADER;
    r->at_line_start = 1;
    r->line = 1;
}

void fastq_free(fastq_reader *r)
{
    fasta_header_free(&r->hdr);
}

/* The current read's identifier, for messages. */
static int id_len(const fastq_reader *r)
{
    size_t n = r->hdr.text ? fasta_id_length(r->hdr.text, r->hdr.len) : 0;
    return (int)(n > 60 ? 60 : n);
}

/* Bytes of [p, end) other than CR: the length a sequence or quality line counts. */
static uint64_t count_not_cr(const unsigned char *p, const unsigned char *end)
{
    uint64_t n = 0;
    for (; p < end; p++)
        n += *p != '\r';
    return n;
}

/* The current line should start with '@' (a header) or '+' and does not: bad_line holds its
 * start. */
static int bad_start(fastq_reader *r)
{
    char q[64];
    fasta_quote_line(q, sizeof q, r->bad_line, r->bad_line + r->bad_len);
    if (r->part == PART_HEADER)
        snprintf(r->error, sizeof r->error,
                 "%s: line %llu: not FASTQ: expected a read header starting with '@', got '%s'",
                 r->name, (unsigned long long)r->line, q);
    else
        snprintf(r->error, sizeof r->error,
                 "%s: line %llu: read '%.*s' (line %llu): expected its '+' line, got '%s'",
                 r->name, (unsigned long long)r->line, id_len(r), r->hdr.text,
                 (unsigned long long)r->rec_line, q);
    return FASTA_ERR_FORMAT;
}

/* The current line is complete: move to the next part of the record. */
static int end_line(fastq_reader *r, const fasta_callbacks *cb, void *ctx)
{
    size_t len;
    switch (r->part) {
    case PART_HEADER:
        len = r->hdr.len;
        while (len > 0 && r->hdr.text[len - 1] == '\r')
            len--;
        r->seq_len = 0;
        r->part = PART_SEQUENCE;
        return cb->record_start(ctx, r->hdr.text, len, r->rec_line) ? FASTA_ERR_CALLBACK
                                                               : FASTA_OK;
    case PART_SEQUENCE:
        r->part = PART_PLUS;
        return FASTA_OK;
    case PART_PLUS:
        r->qual_len = 0;
        r->part = PART_QUALITY;
        return FASTA_OK;
    default:
        if (r->qual_len != r->seq_len) {
            snprintf(r->error, sizeof r->error,
                     "%s: line %llu: read '%.*s' (line %llu) has %llu quality values for "
                     "%llu bases",
                     r->name, (unsigned long long)r->line, id_len(r), r->hdr.text,
                     (unsigned long long)r->rec_line, (unsigned long long)r->qual_len,
                     (unsigned long long)r->seq_len);
            return FASTA_ERR_FORMAT;
        }
        r->part = PART_HEADER;
        return cb->record_end(ctx) ? FASTA_ERR_CALLBACK : FASTA_OK;
    }
}

int fastq_feed(fastq_reader *r, const void *data, size_t n, const fasta_callbacks *cb,
               void *ctx)
{
    const unsigned char *p = data, *end = p + n;
    int st;

    while (p < end) {
        const unsigned char *nl, *stop;
        if (r->bad) {
            while (p < end && *p != '\n' && r->bad_len < sizeof r->bad_line)
                r->bad_line[r->bad_len++] = *p++;
            if (p == end && r->bad_len < sizeof r->bad_line)
                return FASTA_OK; /* the line goes on in the next block */
            return bad_start(r);
        }
        if (r->at_line_start) {
            if (r->part == PART_HEADER) {
                if (*p == '\n' || *p == '\r') { /* a blank line between records */
                    r->line += *p == '\n';
                    p++;
                    continue;
                }
                if (*p != '@') {
                    r->bad = 1;
                    continue;
                }
                r->hdr.len = 0;
                r->rec_line = r->line;
                p++;
            } else if (r->part == PART_PLUS) {
                if (*p != '+') {
                    r->bad = 1;
                    continue;
                }
                p++;
            }
            r->at_line_start = 0;
            continue;
        }
        nl = memchr(p, '\n', (size_t)(end - p));
        stop = nl ? nl : end;
        if (r->part == PART_HEADER) {
            if ((st = fasta_header_append(&r->hdr, p, (size_t)(stop - p))) != FASTA_OK)
                return st;
        } else if (r->part == PART_SEQUENCE) {
            /* Passed on in runs without CR bytes. */
            while (p < stop) {
                const unsigned char *cr = memchr(p, '\r', (size_t)(stop - p));
                const unsigned char *run = cr ? cr : stop;
                if (run > p && cb->sequence(ctx, p, (size_t)(run - p)))
                    return FASTA_ERR_CALLBACK;
                r->seq_len += (uint64_t)(run - p);
                p = cr ? cr + 1 : stop;
            }
        } else if (r->part == PART_QUALITY) {
            r->qual_len += count_not_cr(p, stop);
        }
        if (!nl)
            return FASTA_OK;
        if ((st = end_line(r, cb, ctx)) != FASTA_OK)
            return st;
        r->line++;
        r->at_line_start = 1;
        p = nl + 1;
    }
    return FASTA_OK;
}

int fastq_finish(fastq_reader *r, const fasta_callbacks *cb, void *ctx)
{
    static const char *const missing[] = {"", "sequence line", "'+' line", "quality line"};
    int part = r->part;
    if (r->bad)
        return bad_start(r);
    /* The last line lacks its newline, or is an empty read's empty quality line. */
    if (part == PART_QUALITY && (!r->at_line_start || r->seq_len == 0))
        return end_line(r, cb, ctx);
    if (part == PART_HEADER && r->at_line_start)
        return FASTA_OK;
    if (!r->at_line_start)
        part++; /* the unfinished line counts as complete: the next one is missing */
    snprintf(r->error, sizeof r->error,
             "%s: line %llu: truncated record: read '%.*s' (line %llu) has no %s",
             r->name, (unsigned long long)r->line, id_len(r), r->hdr.text ? r->hdr.text : "",
             (unsigned long long)r->rec_line, missing[part]);
    return FASTA_ERR_FORMAT;
}
