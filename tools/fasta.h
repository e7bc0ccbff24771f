/*
 * A streaming FASTA reader for the clmatch CLI (DNA mode).
 *
 * The input arrives in blocks of any size (fasta_feed); the reader calls back for each record
 * start (its header line), for each piece of sequence (the bytes of sequence lines without
 * their line breaks) and for each record end. It holds no more than the current header line,
 * so files of any size are read in bounded memory.
 *
 * Format accepted:
 *  - A record is a header line starting with '>' followed by sequence lines. Lines end with
 *    "\n" or "\r\n"; every CR byte of a sequence line is dropped, a header's trailing CRs too.
 *  - Sequence lines may have any width, ragged included; empty lines are ignored. Bytes are
 *    passed through unchanged (lower case, N, IUPAC codes, anything else).
 *  - A header without sequence lines is an empty record (a record of length 0), also at the
 *    end of the input. The last line may lack its newline.
 *  - Empty lines before the first header are skipped. The first other line decides the
 *    format: '>' is FASTA. Otherwise, with FASTA_DETECT, a line starting with '@' (FASTQ) is
 *    an error, and any other line makes the whole input ONE raw sequence record named after
 *    the input (line breaks and CRs dropped, nothing else interpreted); with FASTA_FORCE it is
 *    an error naming the line.
 *  - An empty input has no record (not an error).
 */
#ifndef CLMATCH_FASTA_H
#define CLMATCH_FASTA_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FASTA_DETECT = 0, /* '>' first: FASTA; else raw sequence (FASTQ '@' is an error) */
    FASTA_FORCE = 1   /* FASTA or an error naming the first line that is not */
} fasta_mode;

typedef struct {
    /* A record starts. header: the header line without '>' and trailing CRs (for a raw
     * sequence: the input's name); line: its 1-based line number (0 for a raw sequence). */
    int (*record_start)(void *ctx, const char *header, size_t len, uint64_t line);
    /* The next n sequence bytes of the current record (n > 0). */
    int (*sequence)(void *ctx, const unsigned char *seq, size_t n);
    /* The current record is complete. */
    int (*record_end)(void *ctx);
} fasta_callbacks;

/* Headers longer than this are truncated (the identifier is their first word). */
#define FASTA_MAX_HEADER ((size_t)1 << 20)

/* A header line being collected, NUL-terminated; the FASTA and FASTQ readers share it. */
typedef struct {
    char *text;
    size_t len, cap;
    int truncated;
} fasta_header;

typedef struct {
    fasta_mode mode;
    const char *name;   /* the input's name: raw record name and error messages */
    /* State. */
    int decided;        /* the format is known */
    int raw;            /* raw sequence */
    int in_record;      /* a record has started and not ended */
    int at_line_start;
    int in_header;      /* inside a header line */
    uint64_t line;      /* 1-based number of the current line */
    fasta_header hdr;
    char error[512];    /* why fasta_feed/fasta_finish failed (FASTA_ERR_FORMAT) */
} fasta_reader;

enum {
    FASTA_OK = 0,
    FASTA_ERR_FORMAT = -1, /* the input is not what the mode accepts: reader->error says why */
    FASTA_ERR_NOMEM = -2,
    FASTA_ERR_CALLBACK = -3 /* a callback returned non-zero (its value is not kept) */
};

void fasta_init(fasta_reader *r, fasta_mode mode, const char *name);
/* Feed the next n bytes. */
int fasta_feed(fasta_reader *r, const void *data, size_t n, const fasta_callbacks *cb,
               void *ctx);
/* The input ended: finish the last line and record. */
int fasta_finish(fasta_reader *r, const fasta_callbacks *cb, void *ctx);
void fasta_free(fasta_reader *r);

/* Length of a header's identifier: the bytes before the first space or tab. */
size_t fasta_id_length(const char *header, size_t len);

/* Append p[0, n) to h, keeping at most FASTA_MAX_HEADER bytes (h->truncated set when bytes are
 * dropped). FASTA_OK or FASTA_ERR_NOMEM. */
int fasta_header_append(fasta_header *h, const unsigned char *p, size_t n);
void fasta_header_free(fasta_header *h);
/* The header line h is complete: call record_start with it, its trailing CRs left out. */
int fasta_header_start(const fasta_header *h, uint64_t line, const fasta_callbacks *cb,
                       void *ctx);

/* Up to 40 bytes of the line at p (for messages), printable ASCII only, "..." when cut. */
void fasta_quote_line(char *buf, size_t cap, const unsigned char *p, const unsigned char *end);

#endif
