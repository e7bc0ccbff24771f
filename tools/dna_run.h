/*
 * The DNA mode's search state (tools/dna.c) and its output: the records whose matches may
 * still arrive, the matches of the front one, and how a complete record is printed in
 * seqkit's order (tools/dna_run.c). The stream path and the host search both fill it.
 */
#ifndef CLMATCH_DNA_RUN_H
#define CLMATCH_DNA_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "clmatch.h"
#include "cli_devices.h"
#include "dna_args.h"
#include "dna_host.h"
#include "dna_patterns.h"
#include "fasta_blocks.h"
#include "fasta_device.h"
#include "dna_direct.h"

/* A record whose matches may still arrive (stream offsets of its sequence). */
typedef struct {
    uint64_t start, end; /* end valid once ended */
    int ended;
    char *id;
    size_t id_len;
} record;

/* A match of the record at the front of the queue. */
typedef struct {
    uint64_t start, end; /* stream offsets */
    unsigned pat, edits;
    int strand;
    size_t text; /* offset of its text in the arena */
} hit;

typedef struct {
    dna_config cfg;
    pattern_list pats;
    size_t max_len;
    clm_device *dev;
    clm_database *db;
    clm_scratch *scratch;
    cli_set *set;      /* --devices: the search runs on it, not on dev */
    int lowercase_out; /* -i without --degenerate */
    int edit_mode;     /* -k without --mismatches-only: insertions and deletions */
    unsigned char *block;
    unsigned char *block2; /* a regular file's second block (readahead.h), made on first use */
    int fasta_on_device; /* FASTA files take the device path (--line-breaks) */
    int devices_ready;   /* setup_device has run (--devices auto: when a file first needs it) */
    dna_host *host;      /* --devices auto: FASTA files searched by the host (dna_host.h) */
    uint64_t host_max, host_bytes;
    uint64_t device_from; /* no device chosen: a file this large goes to a GPU if there is one */
    unsigned host_files, host_threads;
    /* Per file (reset by search_file). */
    const char *name;
    /* The device path: the sequence lines go raw to a CLM_STREAM_SKIP_LINE_BREAKS stream as
     * they are read; dw maps its text offsets back to the bytes (fasta_device.h). */
    int on_device;
    cli_stream *stream;
    fdev_window dw;
    fblk_index fidx;       /* the read blocks' index (fasta_blocks.h) */
    dna_direct direct;
    unsigned read_threads; /* threads that read a regular file's blocks (readahead.h) */
    int stream_status; /* a stream call's failure inside a reader callback */
    unsigned char *win; /* stream bytes [base, base + win_len) */
    size_t win_len, win_cap;
    uint64_t base;
    uint64_t written; /* bytes handed to the stream (device path: text flushed) */
    uint64_t records_in_file;
    record *q;        /* queue of records q[q_head .. q_len) */
    size_t q_head, q_len, q_cap;
    hit *hits;        /* matches of q[q_head] */
    size_t n_hits, hits_cap;
    char *arena;      /* their text */
    size_t arena_len, arena_cap;
    /* Totals. */
    uint64_t total_matches, records, bytes_in, seq_bytes, dropped, clamped;
    uint64_t pam_mismatched; /* --pam: matches dropped for a mismatch in the PAM */
    int failed;   /* an error was reported */
    int internal; /* an internal error stopped the scan */
} dna_run;


/* Print the front record (its matches sorted in seqkit's order, or its count) and drop it. */
void dna_emit_front(dna_run *r);
/* Drop the records still queued and the front one's matches, unprinted. */
void dna_drop_records(dna_run *r);
/* Emit the records whose every match has arrived: those ending at or before `settled`. */
void dna_emit_settled(dna_run *r, uint64_t settled);
/* Keep a match of the front record (counted only with -c); its text is at `text`. 0, or 1
 * after a message (out of memory). */
int dna_keep_hit(dna_run *r, uint64_t start, uint64_t end, unsigned pat, unsigned edits,
                 int strand, const unsigned char *text);

#endif
