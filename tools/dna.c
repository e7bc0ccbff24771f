/*
 * clmatch --dna: FASTA-aware search for IUPAC nucleotide patterns on both strands, with the
 * output of `seqkit locate` (README.md, "DNA mode", documents every choice made here).
 *
 *     clmatch --dna [OPTIONS] PATTERN [FILE...]
 *     clmatch --dna [OPTIONS] -e PATTERN... | -f PATTERN_FILE  [FILE...]
 *
 * How a file is searched. The FASTA or FASTQ reader (reads.c: fasta.c, fastq.c; gzip inflated
 * by gz.c) turns the input into the sequences of its records (a FASTQ read is a record),
 * which are fed through ONE library stream per file: record after record, with a separator of
 * k + 1 newline bytes between two records (k: the edits allowed): many short reads are
 * searched in slabs of many records by one compiled database. No IUPAC code matches a
 * newline, so an alignment that reaches from one record into the next would need at least
 * k + 1 edits: no match crosses a record. A queue of the records whose matches
 * may still arrive maps stream offsets back to records. Matches arrive in text order; those of
 * the record at the front of the queue are collected (with a copy of their text) and printed
 * in seqkit's order once the record is complete: when a match of a later record arrives, when
 * a flush has delivered everything up to past the record's end, or at the end of the input.
 * On the device path (--line-breaks, the default on GPUs) a FASTA file's sequence lines go to
 * a CLM_STREAM_SKIP_LINE_BREAKS stream as they are, the host finding only the headers, and
 * the stream's text offsets place the records (tools/fasta_device.c); a regular file on one
 * device is read straight into the stream's staging and indexed as it is read
 * (tools/fasta_blocks.c, tools/fasta_file_window.c).
 *
 * Memory: one read block (--block-size; two for a regular file: readahead.h), the stream text
 * not yet settled (about a block plus the longest pattern), the headers of the records of
 * about one block, and the matches of one record. Files of any size are streamed.
 */
#include "dna.h"
#include "dna_run.h"

#include "clmatch.h"
#include "cli_common.h"
#include "cli_devices.h"
#include "crispr.h"
#include "dna_patterns.h"
#include "fasta.h"
#include "fasta_blocks.h"
#include "fasta_device.h"
#include "gz.h"
#include "readahead.h"
#include "reads.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STDIN_NAME "stdin" /* the record name of a raw sequence read from standard input */

static int internal_error(dna_run *r, const clm_match *m, const char *why)
{
    errmsg("internal error: match [%" PRIu64 ", %" PRIu64 ") of pattern %u: %s", m->start,
           m->end, m->id, why);
    r->internal = 1;
    return 1;
}

/* The text of [start, end), which the window must hold; NULL if it does not. */
static const unsigned char *match_text(dna_run *r, uint64_t start, uint64_t end)
{
    if (r->direct.on)
        return ffw_text(&r->direct.fw, start, end);
    if (r->on_device)
        return fdev_text(&r->dw, start, end);
    if (start < r->base || end > r->base + r->win_len)
        return NULL;
    return r->win + (start - r->base);
}

/* The library's callback: matches in text order (start, id, strand, end). */
static int on_match(const clm_match *m, void *vctx)
{
    dna_run *r = vctx;
    record *rec;
    uint64_t start = m->start;

    if (cli_out.failed)
        return 1;
    /* Every match of a record starts before the record's end, and matches arrive by start:
     * the records that end at or before this start are complete. */
    dna_emit_settled(r, m->start);
    if (r->q_head == r->q_len)
        return internal_error(r, m, "no record is pending");
    if (m->id >= r->pats.n)
        return internal_error(r, m, "unknown pattern id");
    /* It can only belong to the front record: a match of a later record starts at most k
     * bytes before that record, i.e. after the k + 1 separator bytes that follow the front. */
    rec = &r->q[r->q_head];
    if ((rec->ended && m->end > rec->end) || m->end <= rec->start) {
        r->dropped++; /* reaches into a separator: crosses a record boundary */
        return 0;
    }
    if (start < rec->start) {
        /* Starts in the separator before the record: some separator bytes were counted as
         * substitutions or insertions. With insertions and deletions, the alignment of the
         * same end that starts at the record start has no more edits (each separator byte
         * cost one; the pattern bases it stood for become deletions), and since the library
         * preferred a longer one, it is the best alignment inside the record: clamp. With
         * substitutions only the pattern does not fit in the record: drop. */
        if (!r->edit_mode) {
            r->dropped++;
            return 0;
        }
        start = rec->start;
        r->clamped++;
    }
    const unsigned char *text = NULL;
    if ((r->cfg.pam.seq || !r->cfg.bed) && !(text = match_text(r, start, m->end)))
        return internal_error(r, m, "outside the text kept");
    if (r->cfg.pam.seq &&
        !crispr_pam_matches(&r->cfg.pam, text, (size_t)(m->end - start),
                            r->cfg.strands == STRAND_MINUS ? -1 : m->strand)) {
        r->pam_mismatched++;
        return 0;
    }
    return dna_keep_hit(r, start, m->end, m->id, m->edits, m->strand, text);
}

static int on_ignore(const clm_match *m, void *vctx)
{
    (void)m;
    (void)vctx;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* FASTA callbacks: records and sequence into the stream window                              */
/* ---------------------------------------------------------------------------------------- */

static int win_append(dna_run *r, const void *p, size_t n, int fill)
{
    if (dna_grow((void **)&r->win, &r->win_cap, r->win_len + n, 1) != 0) {
        errmsg("%s: out of memory for a %zu-byte stream window", r->name, r->win_len + n);
        return 1;
    }
    if (p)
        memcpy(r->win + r->win_len, p, n);
    else
        memset(r->win + r->win_len, fill, n);
    r->win_len += n;
    return 0;
}

/* fdev_write_fn of the device path: a stream write, then its text offset. */
static int device_write(void *vctx, const unsigned char *p, size_t n, uint64_t *text)
{
    dna_run *r = vctx;
    int st = cli_stream_write(r->stream, p, n, on_match, r);
    return st == CLM_OK ? cli_stream_text_offset(r->stream, text) : st;
}

/* A status st of the device path's window (fdev_put, fdev_flush, fblk_feed, fblk_finish):
 * CLM_OK, else 1 with r->stream_status set. CLM_E_INVALID (the stream counted other text
 * offsets than the host: an internal error) and CLM_E_NOMEM are reported here, as
 * CLM_STOPPED. */
static int device_status(dna_run *r, int st)
{
    if (st == CLM_E_INVALID) {
        errmsg("%s: internal error: the stream's text offset (%" PRIu64 " after the last "
               "write) is not the one the host counted", r->name, r->dw.written);
        r->internal = 1;
        st = CLM_STOPPED;
    } else if (st == CLM_E_NOMEM) {
        errmsg("%s: out of memory", r->name);
        st = CLM_STOPPED;
    }
    r->stream_status = st;
    return st != CLM_OK;
}

/* The device path: p[0, n) (NULL: n separator bytes) into the stream. */
static int device_put(dna_run *r, const unsigned char *p, size_t n)
{
    if (!p)
        p = fdev_separator;
    return device_status(r, fdev_put(&r->dw, p, n, device_write, r));
}

/* Stream text: into the window (host path), or raw to the stream (device path). */
static int put_text(dna_run *r, const unsigned char *p, size_t n)
{
    return r->on_device ? device_put(r, p, n) : win_append(r, p, n, '\n');
}

/* The text offset of the next byte put. */
static uint64_t text_end(const dna_run *r)
{
    return r->on_device ? r->dw.text_end : r->base + r->win_len;
}

/* A record whose sequence starts at text offset `start`, to the queue. */
static int queue_record(dna_run *r, const char *header, size_t len, uint64_t start)
{
    record *rec;
    size_t id = fasta_id_length(header, len);
    if (dna_grow((void **)&r->q, &r->q_cap, r->q_len + 1, sizeof *r->q) != 0) {
        errmsg("out of memory");
        return 1;
    }
    rec = &r->q[r->q_len];
    rec->start = rec->end = start;
    rec->ended = 0;
    rec->id = dna_dup_bytes(header, id);
    rec->id_len = id;
    if (!rec->id) {
        errmsg("out of memory");
        return 1;
    }
    r->q_len++;
    r->records_in_file++;
    return 0;
}

/* The last record queued ends at text offset `end`. */
static int end_record(dna_run *r, uint64_t end)
{
    record *rec = &r->q[r->q_len - 1];
    rec->end = end;
    rec->ended = 1;
    r->seq_bytes += rec->end - rec->start;
    return 0;
}

static int on_record_start(void *vctx, const char *header, size_t len, uint64_t line)
{
    dna_run *r = vctx;
    (void)line;
    /* The separator: k + 1 bytes that no IUPAC code matches. */
    if (r->records_in_file > 0 && put_text(r, NULL, r->cfg.max_errors + 1) != 0)
        return 1;
    return queue_record(r, header, len, text_end(r));
}

static int on_sequence(void *vctx, const unsigned char *seq, size_t n)
{
    return put_text(vctx, seq, n);
}

static int on_record_end(void *vctx)
{
    dna_run *r = vctx;
    return end_record(r, text_end(r));
}

/* fasta_blocks.h's callbacks: the offsets come from its index. */
static int block_record_start(void *vctx, const char *header, size_t len, uint64_t text)
{
    return queue_record(vctx, header, len, text);
}

static int block_record_end(void *vctx, uint64_t text)
{
    return end_record(vctx, text);
}

/* fblk_feed's or fblk_finish's status st as the FASTA readers' (device_status). */
static int block_status(dna_run *r, int st)
{
    return device_status(r, st) ? FASTA_ERR_CALLBACK : FASTA_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* One file                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* Hand the new window bytes to the stream, then deliver what is settled and drop the text no
 * later match needs. */
static int push_window(dna_run *r, cli_stream *s)
{
    const uint64_t total = text_end(r);
    /* After a flush every match starting before W - hold has been delivered (the longest
     * pattern minus one, plus k: an approximate match may start k bytes early). */
    const uint64_t hold = r->max_len + r->cfg.max_errors;
    uint64_t settled;
    int st;
    if (r->direct.on) { /* no flush: what the stream has delivered */
        if ((st = clm_stream_settled(cli_stream_one(s), &settled)) != CLM_OK)
            return st;
        dna_emit_settled(r, settled);
        ffw_forget(&r->direct.fw, settled);
        return CLM_OK;
    }
    if (r->on_device) { /* the batch written, flush, then keep what the read block held */
        if (device_status(r, fdev_flush(&r->dw, device_write, r)) != 0)
            return r->stream_status;
        if (total != r->written && (st = cli_stream_flush(s, on_match, r)) != CLM_OK)
            return st;
        r->written = total;
        settled = total > hold ? total - hold : 0;
        dna_emit_settled(r, settled);
        return fdev_keep(&r->dw, settled) != 0 ? CLM_E_NOMEM : CLM_OK;
    }
    if (total == r->written)
        return CLM_OK;
    st = cli_stream_write(s, r->win + (r->written - r->base), (size_t)(total - r->written),
                          on_match, r);
    r->written = total;
    if (st == CLM_OK)
        st = cli_stream_flush(s, on_match, r);
    if (st != CLM_OK)
        return st;
    settled = total > hold ? total - hold : 0;
    dna_emit_settled(r, settled);
    if (settled > r->base) {
        size_t drop = (size_t)(settled - r->base);
        memmove(r->win, r->win + drop, r->win_len - drop);
        r->win_len -= drop;
        r->base = settled;
    }
    return CLM_OK;
}

/* direct_feed's settle: the records complete before `settled` printed. */
static void settle_records(void *vctx, uint64_t settled)
{
    dna_emit_settled(vctx, settled);
}

/* The zero-copy path (dna_direct.h): the whole file read by the library into the stream.
 * Returns 0 or -1 as search_file's rc; *st the stream's status, *keep as search_file's. */
static int search_direct(dna_run *r, const char *label, gz_input *gz, fblk_split *blocks,
                         int *st, int *keep)
{
    static const fblk_callbacks bcb = {block_record_start, block_record_end};
    const direct_feed feed = {blocks, &r->fidx, &bcb, r, settle_records};
    uint64_t from = 0, bytes = 0;
    int s = gz_plain_offset(gz, &from) != 0 ? CLM_E_INVALID
                                            : dna_direct_file(&r->direct, from, &feed, &bytes);
    r->bytes_in += bytes;
    if (s == CLM_E_IO) { /* a read failed: the records complete before it are printed */
        errmsg("%s: %s", label, clm_last_error());
        *keep = 1;
        return -1;
    }
    if (s == CLM_OK) {
        *st = push_window(r, r->stream);
        return 0;
    }
    device_status(r, s);
    *st = r->stream_status;
    return -1;
}

static void search_file(dna_run *r, const char *path)
{
    static const fasta_callbacks cb = {on_record_start, on_sequence, on_record_end};
    static const fblk_callbacks bcb = {block_record_start, block_record_end};
    const int is_stdin = strcmp(path, "-") == 0;
    const char *label = is_stdin ? "(standard input)" : path;
    reads_reader fr;
    fasta_split split;
    fblk_split blocks;
    int by_block = 0; /* the device path a block at a time (fasta_blocks.h) */
    gz_input *gz = NULL;
    readahead *ra = NULL;
    cli_stream *stream = NULL;
    struct stat sb;
    int fd, st = CLM_OK, fst = FASTA_OK, eof = 0, rc = 0, err;
    int keep = 0; /* bad input: the records complete before it are still printed */

    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        errmsg("%s: %s", label, strerror(errno));
        r->failed = 1;
        return;
    }
    if (fstat(fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        errmsg("%s: %s", label, S_ISDIR(sb.st_mode) ? "Is a directory" : strerror(errno));
        if (!is_stdin)
            close(fd);
        r->failed = 1;
        return;
    }
    r->name = label;
    r->win_len = 0;
    r->base = r->written = 0;
    r->records_in_file = 0;
    r->on_device = 0;
    r->stream_status = CLM_OK;
    fdev_reset(&r->dw);
    dna_direct_reset(&r->direct, fd);
    reads_init(&fr, r->cfg.format, is_stdin ? STDIN_NAME : path);
    fasta_split_init(&split);
    fblk_init(&blocks, r->cfg.max_errors + 1);
    if ((err = gz_open(fd, &gz)) != 0) {
        errmsg("%s: %s", label, strerror(err));
        rc = -1;
    } else if (r->fasta_on_device && !r->set && r->read_threads > 1 &&
               r->cfg.format != READS_FASTQ && r->cfg.dev.block_bytes <= UINT32_MAX &&
               dna_direct_fasta(gz, &sb)) { /* one device: into its stream's staging */
        if ((st = cli_stream_open(NULL, r->db, r->scratch, CLM_STREAM_SKIP_LINE_BREAKS,
                                  &stream)) != CLM_OK) {
            stream = NULL;
            report_clm(label, st);
            rc = -1;
        } else {
            r->stream = stream;
            r->on_device = 1;
            dna_direct_start(&r->direct, stream, on_match, r);
            rc = search_direct(r, label, gz, &blocks, &st, &keep);
            eof = 1;
        }
    }
    if (rc == 0 && !r->direct.on && !ra && S_ISREG(sb.st_mode) &&
               (r->block2 || (r->block2 = malloc(r->cfg.dev.block_bytes)) != NULL)) {
        unsigned char *bufs[2] = {r->block, r->block2};
        readahead_opts ro = {0, fblk_index_piece, &r->fidx};
        if (r->fasta_on_device && r->cfg.dev.block_bytes <= UINT32_MAX)
            ro.threads = r->read_threads;
        if (readahead_start(gz, bufs, r->cfg.dev.block_bytes, &ro, &ra) != 0)
            ra = NULL; /* read on this thread, as from a pipe */
    }
    while (rc == 0 && !eof) {
        size_t got, skip = 0;
        unsigned char *block = r->block;
        int gst = ra ? readahead_next(ra, &block, &got, &eof)
                     : gz_read(gz, block, r->cfg.dev.block_bytes, &got, &eof);
        r->bytes_in += got;
        while (!stream && skip < got && (block[skip] == '\n' || block[skip] == '\r'))
            skip++;
        /* The path is chosen by the first byte other than a line break: until then both
         * readers would skip the same line breaks, so the host's takes them. */
        if (!stream && (skip < got || eof)) {
            r->on_device = r->fasta_on_device && skip < got && block[skip] == '>' &&
                           r->cfg.format != READS_FASTQ;
            st = cli_stream_open(r->set, r->db, r->scratch,
                                 r->on_device ? CLM_STREAM_SKIP_LINE_BREAKS : 0u, &stream);
            if (st != CLM_OK) {
                stream = NULL;
                report_clm(label, st);
                rc = -1;
                break;
            }
            r->stream = stream;
            by_block = r->on_device && ra && readahead_pieces(ra) > 0;
        }
        /* What was read before a read error or bad gzip data is input as any other. */
        if (by_block)
            fst = block_status(r, fblk_feed(&blocks, block, got, skip, &r->fidx,
                                            readahead_buffer(ra), readahead_pieces(ra), &r->dw,
                                            device_write, r, &bcb, r));
        else
            fst = r->on_device ? fasta_split_feed(&split, block + skip, got - skip, &cb, r)
                               : reads_feed(&fr, block, got, &cb, r);
        if (gst != 0 && fst == FASTA_OK) {
            errmsg("%s: %s", label, ra ? readahead_error(ra) : gz_error(gz));
            rc = -1;
            keep = 1;
            break;
        }
        if (fst == FASTA_OK && eof && by_block)
            fst = block_status(r, fblk_finish(&blocks, &r->dw, device_write, r, &bcb, r));
        else if (fst == FASTA_OK && eof)
            fst = r->on_device ? fasta_split_finish(&split, &cb, r) : reads_finish(&fr, &cb, r);
        if (fst != FASTA_OK) {
            rc = -1;
            keep = fst == FASTA_ERR_FORMAT;
            st = r->stream_status; /* a stream call in a callback failed (device path) */
            break;
        }
        if (stream && (st = push_window(r, stream)) != CLM_OK)
            break;
    }
    /* What is printed must not depend on where the read blocks end: the records before bad
     * input are searched to the end; the one it cut short never ends, so is not printed. */
    if (keep && stream && (st = push_window(r, stream)) != CLM_OK)
        keep = 0;
    if (fst == FASTA_ERR_FORMAT)
        errmsg("%s", reads_error(&fr));
    else if (fst == FASTA_ERR_NOMEM)
        errmsg("%s: out of memory", label);
    if (stream) {
        int cst = cli_stream_close(stream, (rc == 0 || keep) && st == CLM_OK ? on_match
                                                                             : on_ignore,
                                   r, NULL);
        if (st == CLM_OK)
            st = cst;
    }
    if (st < 0) {
        report_clm(label, st);
        rc = -1;
        keep = 0;
    } else if (st == CLM_STOPPED || r->internal) {
        rc = -1; /* reported where it stopped (or a write error, reported at the end) */
        keep = 0;
    }
    if (rc == 0 || keep) {
        dna_emit_settled(r, UINT64_MAX); /* every match has arrived */
    }
    dna_drop_records(r); /* whatever is left after an error is not printed */
    reads_free(&fr);
    fasta_split_free(&split);
    fblk_free(&blocks);
    r->stream = NULL;
    readahead_stop(ra);
    gz_close(gz);
    if (!is_stdin && close(fd) != 0) {
        errmsg("%s: %s", label, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        r->failed = 1;
}

/* ---------------------------------------------------------------------------------------- */
/* --devices auto: FASTA files searched by the host's threads (dna_host.h)                   */
/* ---------------------------------------------------------------------------------------- */

static int host_record_start(void *vctx, const char *id, size_t id_len)
{
    dna_run *r = vctx;
    if (dna_grow((void **)&r->q, &r->q_cap, 1, sizeof *r->q) != 0 ||
        !(r->q[0].id = dna_dup_bytes(id, id_len))) {
        errmsg("out of memory");
        return 1;
    }
    r->q[0].id_len = id_len;
    r->q[0].start = r->q[0].end = 0;
    r->q[0].ended = 0;
    r->q_head = 0;
    r->q_len = 1;
    return 0;
}

static int host_match(void *vctx, unsigned pat, int strand, uint64_t start, uint64_t end,
                      const unsigned char *text)
{
    return dna_keep_hit(vctx, start, end, pat, 0, strand, text);
}

static int host_count(void *vctx, uint64_t n)
{
    ((dna_run *)vctx)->n_hits += n;
    return 0;
}

static int host_record_end(void *vctx, uint64_t seq_len)
{
    dna_run *r = vctx;
    r->q[0].end = seq_len;
    r->q[0].ended = 1;
    r->seq_bytes += seq_len;
    dna_emit_front(r);
    return cli_out.failed != 0;
}

/* Ready the host search where it may serve: --devices auto, or no device chosen at all (no
 * -p, -d, --devices, CLMATCH_PLATFORM or CLMATCH_DEVICE); exact patterns of plain bases, no
 * PAM, FASTA, line breaks left to auto, no kernel asked for. 0 (r->host set or not), or -1
 * after a message. */
static int open_host_search(dna_run *r)
{
    const dna_config *c = &r->cfg;
    const int no_device = cli_no_device_chosen(c->devices, &c->dev);
    r->device_from = UINT64_MAX;
    /* No size limit by default, but a file of CLMATCH_DEVICE_FROM bytes goes to a GPU where
     * there is one: on the H200 machine 10 GB took 1.03-1.11 s here against 0.51-0.55 s
     * there, start-up included (docs/dna.md, "The host search"). */
    if (no_device) {
        int env_set;
        if (cli_host_max_env(&r->host_max, &env_set) != 0 ||
            cli_device_from_env(&r->device_from) != 0)
            return -1;
        if (env_set) /* its bound alone */
            r->device_from = UINT64_MAX;
        else
            r->host_max = UINT64_MAX;
    } else {
        r->host_max = cli_set_host_max(r->set, UINT64_MAX); /* 0: not --devices auto */
    }
    if (!r->host_max || c->max_errors > 0 ||
        c->pam.seq || c->degenerate_text || c->format == READS_FASTQ ||
        c->line_breaks != LINE_BREAKS_AUTO || c->dev.algorithm != CLM_ALGO_AUTO ||
        c->dev.variant != CLM_VARIANT_AUTO || c->dev.table_memory != CLM_TABLE_AUTO)
        return 0;
    const char **seqs = calloc(r->pats.n ? r->pats.n : 1, sizeof *seqs);
    size_t *lens = calloc(r->pats.n ? r->pats.n : 1, sizeof *lens);
    int rc = -1;
    if (!seqs || !lens) {
        errmsg("out of memory");
    } else {
        for (size_t i = 0; i < r->pats.n; i++) {
            seqs[i] = r->pats.v[i].seq;
            lens[i] = r->pats.v[i].len;
        }
        const dna_host_spec spec = {seqs, lens, r->pats.n, (c->strands & STRAND_PLUS) != 0,
                                    (c->strands & STRAND_MINUS) != 0, c->caseless, c->count,
                                    c->dev.block_bytes};
        rc = dna_host_open(&spec, &r->host) < 0 ? -1 : 0;
    }
    free(seqs);
    free(lens);
    return rc;
}

/* A regular file of at most CLMATCH_HOST_MAX bytes (and below CLMATCH_DEVICE_FROM where the
 * machine has a GPU), when the host search takes it. 0: done (or failed after a message), 1:
 * the file is search_file's. */
static int search_on_host(dna_run *r, const char *path)
{
    static const dna_host_callbacks cb = {host_record_start, host_match, host_count,
                                          host_record_end};
    struct stat sb;
    unsigned threads;
    int fd;
    if (!r->host || strcmp(path, "-") == 0 || (fd = open(path, O_RDONLY)) < 0)
        return 1; /* search_file reports what open says */
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > r->host_max ||
        ((uint64_t)sb.st_size >= r->device_from && cli_machine_has_gpu(1) == 1)) {
        close(fd);
        return 1;
    }
    const uint64_t size = (uint64_t)sb.st_size;
    int st = dna_host_search(r->host, fd, size, path, &cb, r, &threads);
    close(fd);
    dna_drop_records(r); /* a record a write error cut short */
    if (st == DNA_HOST_DECLINED) return 1;
    if (st == DNA_HOST_FAILED) r->failed = 1;
    r->bytes_in += size;
    r->host_bytes += size;
    r->host_files++;
    r->host_threads = threads;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Device, compile, stats                                                                     */
/* ---------------------------------------------------------------------------------------- */

static int setup_device(dna_run *r)
{
    const dna_config *cfg = &r->cfg;
    clm_compile_options opts;
    const char **ptrs;
    size_t *lens, i, j;
    unsigned *ids;
    char **rc_seqs = NULL;
    int st;

    r->devices_ready = 1;
    if (cfg->devices ? !r->set && cli_set_open(cfg->devices, &cfg->dev, &r->set) != 0
                     : cli_open_device(&cfg->dev, &r->dev) != 0)
        return -1;
    if (r->pats.n > UINT_MAX) {
        errmsg("too many patterns");
        return -1;
    }
    ptrs = calloc(r->pats.n, sizeof *ptrs);
    lens = calloc(r->pats.n, sizeof *lens);
    ids = calloc(r->pats.n, sizeof *ids);
    if (cfg->strands == STRAND_MINUS)
        rc_seqs = calloc(r->pats.n, sizeof *rc_seqs);
    if (!ptrs || !lens || !ids || (cfg->strands == STRAND_MINUS && !rc_seqs)) {
        errmsg("out of memory");
        st = CLM_E_NOMEM;
        goto done;
    }
    r->max_len = 0;
    for (i = 0; i < r->pats.n; i++) {
        const dna_pattern *pt = &r->pats.v[i];
        ptrs[i] = pt->seq;
        lens[i] = pt->len;
        ids[i] = (unsigned)i;
        if (pt->len > r->max_len)
            r->max_len = pt->len;
        if (rc_seqs) {
            /* The - strand alone: search the reverse complements on the + strand. */
            if (!(rc_seqs[i] = malloc(pt->len))) {
                errmsg("out of memory");
                st = CLM_E_NOMEM;
                goto done;
            }
            for (j = 0; j < pt->len; j++)
                rc_seqs[i][j] = (char)dna_complement((unsigned char)pt->seq[pt->len - 1 - j]);
            ptrs[i] = rc_seqs[i];
        }
    }
    clm_compile_options_init(&opts, sizeof opts);
    opts.algorithm = cfg->dev.algorithm;
    opts.variant = cfg->dev.variant;
    opts.table_memory = cfg->dev.table_memory;
    opts.max_errors = cfg->max_errors;
    opts.flags = CLM_DNA;
    if (cfg->caseless)
        opts.flags |= CLM_CASELESS;
    if (cfg->mismatches_only)
        opts.flags |= CLM_MISMATCHES_ONLY;
    if (cfg->degenerate_text)
        opts.flags |= CLM_DEGENERATE_TEXT;
    if (cfg->strands == STRAND_BOTH)
        opts.flags |= CLM_BOTH_STRANDS;
    if (cfg->pam.seq && cfg->max_errors > 0 && !r->set) {
        /* The PAM as the patterns' exact end: the kernel skips the starts where it does not
         * match before comparing any guide (hamming; on_match checks it in any case). -
         * alone searches reverse complements: the PAM is at their other end. Not for a
         * device set: cli_compile's fallback to no exact ends (another algorithm) is not
         * cli_set_compile's. */
        int pam_first = cfg->pam.five_prime != (cfg->strands == STRAND_MINUS);
        *(pam_first ? &opts.exact_head : &opts.exact_tail) = (unsigned)cfg->pam.len;
    }
    st = r->set ? cli_set_compile(r->set, ptrs, lens, ids, (unsigned)r->pats.n, &opts)
                : cli_compile(r->dev, ptrs, lens, ids, (unsigned)r->pats.n, &opts, &r->db);
    if (st != CLM_OK) {
        r->db = NULL;
        report_clm("cannot compile the patterns", st);
        goto done;
    }
    if (r->set ? cli_set_alloc(r->set, &cfg->dev) != 0
               : cli_alloc_scratch(r->db, &cfg->dev, &r->scratch) != 0)
        st = CLM_E_NOMEM; /* only "not CLM_OK" counts below: the failure is reported */
done:
    if (rc_seqs)
        for (i = 0; i < r->pats.n; i++)
            free(rc_seqs[i]);
    free(rc_seqs);
    free(ptrs);
    free(lens);
    free(ids);
    return st == CLM_OK ? 0 : -1;
}

/* --line-breaks: does FASTA input take the device path? On a device set (auto) too: the
 * set stream drops the line breaks on the library's threads, where the host path parses
 * every line on one. */
static int fasta_on_device(const dna_run *r)
{
    clm_device_info di;
    if (r->cfg.line_breaks == LINE_BREAKS_HOST)
        return 0;
    if (r->set || r->cfg.line_breaks == LINE_BREAKS_DEVICE)
        return 1;
    return clm_device_get_info(r->dev, &di, sizeof di) == CLM_OK && di.type != CLM_DEVICE_CPU;
}

static void print_stats(const dna_run *r, double setup_s, double search_s)
{
    clm_device_info di;
    clm_database_info dbi;
    clm_stats s;
    if (r->host_files) {
        const char *why = cli_machine_has_gpu(0) == 0
                              ? "no GPU listed for a file of CLMATCH_DEVICE_FROM bytes"
                              : "no OpenCL";
        fprintf(stderr, "clmatch: %u file(s), %" PRIu64 " bytes, searched by the host's threads "
                "(%u; %s): %" PRIu64 " record(s), %" PRIu64 " match(es)\n",
                r->host_files, r->host_bytes, r->host_threads, why, r->records,
                r->total_matches);
    }
    if (r->set && r->devices_ready) {
        cli_set_stats(r->set, setup_s, search_s, r->bytes_in);
        return;
    }
    if (!r->devices_ready) {
        fprintf(stderr, "clmatch: no OpenCL device opened\n");
        cli_stats_setup(setup_s, search_s);
        fputc('\n', stderr);
        return;
    }
    if (clm_device_get_info(r->dev, &di, sizeof di) == CLM_OK)
        fprintf(stderr, "clmatch: device %d:%d: %s (%s)\n", di.platform_index,
                di.device_index, di.name, di.platform_name);
    cli_stats_tuning(r->dev);
    if (clm_database_get_info(r->db, &dbi, sizeof dbi) == CLM_OK) {
        fprintf(stderr, "clmatch: algorithm %s (%s), table memory %s, k=%u%s%s%s%s",
                clm_algorithm_name(dbi.algorithm), clm_variant_name(dbi.variant),
                clm_table_memory_name(dbi.table_memory), dbi.max_errors,
                dbi.flags & CLM_MISMATCHES_ONLY ? " (mismatches only)" : "",
                dbi.flags & CLM_CASELESS ? ", caseless" : "",
                dbi.flags & CLM_DEGENERATE_TEXT ? ", degenerate text" : "",
                dbi.flags & CLM_BOTH_STRANDS ? ", both strands" : "");
        cli_stats_choice(&dbi);
        fprintf(stderr,
                "clmatch: %u pattern(s) of %zu..%zu bases, text %s, strands %s, kernels %s\n",
                dbi.pattern_count, dbi.min_length, dbi.max_length,
                dbi.packed ? "packed to 2 bits per base" : "unpacked (bytes)",
                r->cfg.strands == STRAND_BOTH
                    ? (dbi.strands_in_one_pass ? "both in one pass" : "both, one pass each")
                    : r->cfg.strands == STRAND_PLUS ? "+ only" : "- only",
                dbi.cache_hit ? "from cache" : "built");
    }
    fprintf(stderr,
            "clmatch: %" PRIu64 " record(s), %" PRIu64 " input bytes, %" PRIu64
            " sequence bytes, %" PRIu64 " match(es); at record boundaries %" PRIu64
            " dropped, %" PRIu64 " clamped to the record start\n",
            r->records, r->bytes_in, r->seq_bytes, r->total_matches, r->dropped, r->clamped);
    fprintf(stderr, "clmatch: FASTA line breaks dropped on the %s (--line-breaks=%s)\n",
            r->fasta_on_device ? "device, the file's bytes uploaded as they are" : "host",
            r->cfg.line_breaks == LINE_BREAKS_DEVICE ? "device"
            : r->cfg.line_breaks == LINE_BREAKS_HOST ? "host"
                                                     : "auto");
    dna_direct_stats(&r->direct);
    if (r->cfg.pam.seq)
        fprintf(stderr, "clmatch: %" PRIu64 " match(es) dropped for a mismatch in the PAM\n",
                r->pam_mismatched);
    if (clm_scratch_get_stats(r->scratch, &s, sizeof s) == CLM_OK) {
        fprintf(stderr,
                "clmatch: scanned %" PRIu64 " bytes in %" PRIu64 " slab(s), %" PRIu64
                " rescan(s); ",
                s.bytes, s.slabs, s.rescans);
        cli_stats_kernel(&s);
    }
    cli_stats_scratch(r->scratch);
    cli_stats_setup(setup_s, search_s);
    if (search_s > 0)
        fprintf(stderr, " (%.1f MB/s of input)", (double)r->bytes_in / search_s / 1e6);
    fputc('\n', stderr);
    cli_stats_breakdown(r->dev, r->db, r->scratch, setup_s, search_s);
}

/* ---------------------------------------------------------------------------------------- */

int dna_main(int argc, char **argv)
{
    const double t_start = now_seconds();
    static char default_file[] = "-";
    static char *default_files[] = {default_file};
    dna_run r;
    size_t i;
    int status, stats_printed = 0;
    double t_search = 0.0;

    cli_time.start = t_start;
    memset(&r, 0, sizeof r);
    status = dna_parse_args(argc, argv, &r.cfg);
    if (status >= 0)
        goto done;
    status = EXIT_TROUBLE;
    r.lowercase_out = r.cfg.caseless && !r.cfg.degenerate;
    r.edit_mode = r.cfg.max_errors > 0 && !r.cfg.mismatches_only;
    const dna_pattern_opts popts = {r.cfg.pattern_args, r.cfg.n_pattern_args, r.cfg.pattern_files,
                                    r.cfg.n_pattern_files, r.cfg.max_errors,
                                    r.cfg.mismatches_only, r.cfg.caseless, r.cfg.degenerate,
                                    r.cfg.pam.seq ? &r.cfg.pam : NULL};
    if (dna_build_patterns(&popts, &r.pats) != 0)
        goto done;

    if (cli_output_init() != 0)
        goto done;
    r.block = malloc(r.cfg.dev.block_bytes);
    if (!r.block) {
        errmsg("out of memory");
        goto done;
    }
    if (clm_host_threads(UINT64_MAX, &r.read_threads) != CLM_OK)
        r.read_threads = 1;
    if (r.cfg.devices && cli_set_open(r.cfg.devices, &r.cfg.dev, &r.set) != 0)
        goto done;
    if (open_host_search(&r) != 0)
        goto done;
    if (!r.host) {
        if (setup_device(&r) != 0)
            goto done;
        r.fasta_on_device = fasta_on_device(&r);
    }

    t_search = now_seconds();
    if (r.cfg.n_files == 0) {
        r.cfg.files = default_files;
        r.cfg.n_files = 1;
    }
    if (!r.cfg.bed && !r.cfg.count) {
        out_str("seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched");
        out_str(r.cfg.max_errors > 0 ? "\tedits\n" : "\n");
    }
    for (i = 0; i < r.cfg.n_files && !cli_out.failed; i++) {
        if (search_on_host(&r, r.cfg.files[i]) == 0)
            continue;
        if (!r.devices_ready) { /* the first input the host search does not take */
            if (setup_device(&r) != 0) {
                r.failed = 1;
                break;
            }
            r.fasta_on_device = fasta_on_device(&r);
        }
        search_file(&r, r.cfg.files[i]);
    }
    if (r.cfg.count && !cli_out.failed) {
        out_str("# total\t");
        out_u64(r.total_matches);
        out_char('\n');
    }
    out_flush();
    t_search = now_seconds() - t_search;

    if (cli_out.failed) {
        errmsg("write error: %s", strerror(cli_out.failed));
        status = EXIT_TROUBLE;
    } else {
        status = r.failed ? EXIT_TROUBLE : r.total_matches > 0 ? EXIT_MATCH : EXIT_NO_MATCH;
    }
    if (r.cfg.stats) {
        print_stats(&r, (now_seconds() - t_start) - t_search, t_search);
        stats_printed = 1;
    }

done:
    status = cli_output_finish(status);
    cli_exit_early(status, stats_printed);
    cli_teardown(r.scratch, r.db, r.dev, stats_printed);
    cli_set_close(r.set);
    dna_free_patterns(&r.pats);
    free(r.win);
    fdev_free(&r.dw);
    fblk_index_free(&r.fidx);
    dna_direct_free(&r.direct);
    free(r.q);
    free(r.hits);
    free(r.arena);
    free(r.block);
    free(r.block2);
    free(r.cfg.pattern_args);
    free(r.cfg.pattern_files);
    dna_host_close(r.host);
    return status;
}
