/*
 * clmatch --dna's device path reading a regular file straight into the stream's staging
 * (dna.c's search_file drives it): each block is a room of the stream (clm_stream_reserve),
 * read by the reading threads (readahead_read), its headers overwritten there
 * (fasta_blocks.h, with dna_direct_put as the sink) and committed with the index's count of
 * line breaks; a match's text is read back from the file (fasta_file_window.h). A block with
 * a header line shorter than its separator is copied and written instead (its separator
 * needs bytes the file does not have there).
 */
#ifndef CLMATCH_DNA_DIRECT_H
#define CLMATCH_DNA_DIRECT_H

#include "clmatch.h"
#include "cli_devices.h"
#include "fasta_device.h"
#include "fasta_file_window.h"
#include "gz.h"
#include "readahead.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A put of a block being fed: n bytes at offset `at` of the block, or (at SIZE_MAX) n
 * separator bytes. */
typedef struct {
    size_t at, n;
} direct_put;

typedef struct {
    int on;
    cli_stream *stream;         /* one device's */
    clm_match_cb on_match;      /* the matches of its writes and commits, */
    void *ctx;                  /* with this */
    unsigned char *copy;        /* room for a block to be written instead (block_bytes) */
    size_t block_bytes;         /* the rooms asked for */
    ffw_window fw;
    uint64_t text;              /* the stream's text offset after every byte handed to it */
    uint64_t file;              /* the file offset of the block being fed */
    const unsigned char *block; /* the block being fed (its puts recorded); NULL between */
    direct_put *puts;
    size_t n_puts, puts_cap;
    int separate;               /* a separator among the puts */
    /* --stats: the blocks, and the time spent reading them into staging (the index made
     * on the way), feeding them (headers, records, marks) and committing them */
    uint64_t blocks, bytes;
    double read_s, feed_s, commit_s;
} dna_direct;

/* Plain input that is a regular file whose first byte other than a line break is '>'. */
int dna_direct_fasta(gz_input *gz, const struct stat *sb);
/* A new file, read through fd: off until dna_direct_start (the --stats totals go on). */
void dna_direct_reset(dna_direct *d, int fd);
/* Take the file through stream (one device's, CLM_STREAM_SKIP_LINE_BREAKS). */
void dna_direct_start(dna_direct *d, cli_stream *stream, clm_match_cb on_match, void *ctx,
                      unsigned char *copy, size_t block_bytes);
void dna_direct_free(dna_direct *d);
/* Reserve the stream's next room and read the file's next block into it. A CLM_* status
 * (*gst: the read's, as readahead_read's). */
int dna_direct_read(dna_direct *d, readahead *ra, unsigned char **block, size_t *got, int *eof,
                    int *gst);
/* fblk_sink's put (ctx: a dna_direct): a block's puts are recorded and its checkpoints
 * become the file window's marks; between blocks (fblk_finish_to) a separator is written. */
int dna_direct_put(void *ctx, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                   size_t n_cp);
/* The fed block p[0, n) (the stream's room), whose text ends at t_end by the index, into the
 * stream: committed as it is, or copied and written put by put when a separator needs bytes
 * of its own. A CLM_* status (CLM_E_INVALID: the stream counted other text). */
int dna_direct_commit(dna_direct *d, unsigned char *p, size_t n, uint64_t t_end);
/* --stats: where the path's time went (threads: the reading threads). */
void dna_direct_stats(const dna_direct *d, unsigned threads);

#endif
