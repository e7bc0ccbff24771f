/*
 * clmatch --dna's device path reading a regular FASTA file straight into the stream's
 * staging (dna.c's search_file drives it): clm_stream_write_fd reads the file with the
 * library's pool of reading threads, a block ahead; its part hook indexes each part as it
 * lands (fasta_blocks.h), and its block hook overwrites the block's headers there (with
 * dna_direct_put as the sink) and gives the index's count of line breaks. A match's text is
 * read back from the file (fasta_file_window.h). A block with a header line shorter than its
 * separator is declined, copied and written instead (its separator needs bytes the file does
 * not have there).
 */
#ifndef CLMATCH_DNA_DIRECT_H
#define CLMATCH_DNA_DIRECT_H

#include "clmatch.h"
#include "cli_devices.h"
#include "fasta_blocks.h"
#include "fasta_device.h"
#include "fasta_file_window.h"
#include "gz.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A put of a block being fed: n bytes at offset `at` of the block, or (at SIZE_MAX) n
 * separator bytes. */
typedef struct {
    size_t at, n;
} direct_put;

/* What the block hook works with: the split of the file's records, their callbacks, and what
 * to do with the settled offset before each block (print what is complete). */
typedef struct {
    fblk_split *blocks;
    fblk_index *ix;
    const fblk_callbacks *cb;
    void *cb_ctx;
    void (*settle)(void *cb_ctx, uint64_t settled);
} direct_feed;

typedef struct {
    int on;
    cli_stream *stream;         /* one device's */
    clm_match_cb on_match;      /* the matches of its writes and commits, */
    void *ctx;                  /* with this */
    unsigned char *copy;        /* room for a block to be written instead (the slab) */
    size_t copy_cap;
    ffw_window fw;
    uint64_t text;              /* the stream's text offset after every byte handed to it */
    uint64_t file;              /* the file offset of the block being fed */
    const unsigned char *block; /* the block being fed (its puts recorded); NULL between */
    direct_put *puts;
    size_t n_puts, puts_cap;
    int separate;               /* a separator among the puts */
    int leading;                /* no byte but line breaks fed yet */
    size_t declined;            /* the block declined: copied, its puts kept, */
    uint64_t declined_end;      /* the text offset after it */
    direct_feed feed;
    int status;                 /* the block hook's failure (a CLM_* status) */
    /* --stats: the blocks, and the time in clm_stream_write_fd, in its block hook (headers,
     * records, marks) of it, and writing declined blocks */
    uint64_t blocks, bytes;
    double call_s, feed_s, write_s;
} dna_direct;

/* Plain input that is a regular file whose first byte other than a line break is '>'. */
int dna_direct_fasta(gz_input *gz, const struct stat *sb);
/* A new file, read through fd: off until dna_direct_start (the --stats totals go on). */
void dna_direct_reset(dna_direct *d, int fd);
/* Take the file through stream (one device's, CLM_STREAM_SKIP_LINE_BREAKS). */
void dna_direct_start(dna_direct *d, cli_stream *stream, clm_match_cb on_match, void *ctx);
void dna_direct_free(dna_direct *d);
/* fblk_sink's put (ctx: a dna_direct): a block's puts are recorded and its checkpoints
 * become the file window's marks; between blocks (fblk_finish_to) a separator is written. */
int dna_direct_put(void *ctx, const unsigned char *p, size_t n, const fdev_checkpoint *cp,
                   size_t n_cp);
/* The file's bytes from `from` to its end into the stream, fed through *feed, then
 * fblk_finish_to. *bytes: the file bytes taken. A CLM_* status (the stream's, or the
 * feed's: CLM_STOPPED when a record callback stopped, CLM_E_NOMEM). */
int dna_direct_file(dna_direct *d, uint64_t from, const direct_feed *feed, uint64_t *bytes);
/* --stats: where the path's time went. */
void dna_direct_stats(const dna_direct *d);

#endif
