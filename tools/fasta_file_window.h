/*
 * The FASTA device path's match text read back from the file (clmatch --dna, zero-copy):
 * the blocks went from the file straight into the stream's staging, which is refilled once
 * sent, so a match's text is read again from the file, around where it lies. Marks map text
 * offsets to file offsets at places from which the file holds sequence lines alone (bases
 * and line breaks) up to the record's end: each record's first sequence byte and the 16 KiB
 * checkpoints of the block index (fasta_blocks.h). A match lies inside one record, so the
 * walk from the last mark before it crosses no header, whose bytes in the file are the
 * original ones (the stream got them overwritten).
 */
#ifndef CLMATCH_FASTA_FILE_WINDOW_H
#define CLMATCH_FASTA_FILE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t text, file;
} ffw_mark;

typedef struct {
    int fd;
    ffw_mark *v; /* v[head, n), by text offset */
    size_t head, n, cap;
    unsigned char *buf; /* file bytes [buf_off, buf_off + buf_len) */
    size_t buf_len;
    uint64_t buf_off;
    uint64_t ctext, cfile; /* where the last lookup started, */
    size_t cmark;          /* from mark cmark (cvalid) */
    int cvalid;
    unsigned char *out;
    size_t out_cap;
    int err; /* errno of a failed read (EIO: the file ended early) */
} ffw_window;

void ffw_init(ffw_window *w, int fd);
void ffw_free(ffw_window *w);
/* A mark, text offsets never decreasing. 0, or -1 out of memory. */
int ffw_mark_add(ffw_window *w, uint64_t text, uint64_t file);
/* No lookup will start before `text`: the marks before the last one at or before it go. */
void ffw_forget(ffw_window *w, uint64_t text);
/* The text [start, end) (line breaks dropped), valid until the next call; NULL when no mark
 * precedes it, out of memory, or a read failed (err). */
const unsigned char *ffw_text(ffw_window *w, uint64_t start, uint64_t end);

#endif
