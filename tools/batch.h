/*
 * Many files, one scan (tools/batch.c): files are read whole into one buffer, each followed
 * by a line end (so that no occurrence of a pattern without one straddles two files; one of
 * a class pattern that does is dropped), searched with one clm_scan, and each file's
 * occurrences are handed to tools/output.c. Thousands of small files then cost one device
 * round trip instead of one each.
 */
#ifndef CLMATCH_BATCH_H
#define CLMATCH_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "clmatch.h"
#include "cli_devices.h"
#include "output.h"

/* Files up to this size join a batch; a batch is searched when it holds this much. */
#define BATCH_BYTES ((size_t)16 << 20)

typedef struct {
    char *name; /* owned */
    int show_name;
    int binary; /* a NUL byte in it (and no --text, no -z): NUL bytes end lines */
    size_t off, len;
    size_t m_first, m_count; /* its occurrences in the batch's list */
} batch_file;

typedef struct {
    const config *cfg;
    const clm_database *db;
    clm_scratch *scratch;
    cli_set *set; /* --devices: the scan runs on it */
    out_state out;
    unsigned char *buf;
    size_t len, cap;
    batch_file *files;
    size_t n, files_cap;
    rec_match *m;
    size_t nm, m_cap;
    /* the scan's callback */
    size_t cur;          /* the file the last occurrence was in */
    uint64_t skip_until; /* occurrences before this lie on a line already matching */
    int error;           /* out of memory in the callback */
    uint64_t bytes_in;   /* bytes searched, for --stats */
} batch;

void batch_init(batch *b, const config *cfg, const clm_database *db, clm_scratch *scratch,
                cli_set *set);

/* Read fd to its end and queue it as `name`; the batch is searched when full. 0, or -1
 * after a message (a read error: -s silences it; or a failed search). */
int batch_add(batch *b, int fd, const char *name, int show_name);

/* Search what is queued and print it. 0, or -1 after a message. */
int batch_flush(batch *b);

void batch_free(batch *b);

#endif
