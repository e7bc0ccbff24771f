/* The DNA mode's command line (tools/dna_args.c): its options, help and configuration. */
#ifndef CLMATCH_DNA_ARGS_H
#define CLMATCH_DNA_ARGS_H

#include <stddef.h>

#include "cli_common.h"
#include "crispr.h"
#include "reads.h"

/* Where FASTA's line breaks are dropped (--line-breaks, CLMATCH_LINE_BREAKS). */
enum { LINE_BREAKS_AUTO, LINE_BREAKS_DEVICE, LINE_BREAKS_HOST };

/* Strand selection (bits). */
enum { STRAND_PLUS = 1, STRAND_MINUS = 2, STRAND_BOTH = 3 };

/* The read block. A FASTA file on the device path is written a block at a time with a flush
 * (a wait for the device) after each: fewer flushes than 16 MiB blocks, and larger blocks were
 * no faster (bench/experiments/README.md, "FASTA a block at a time"). */
#define DNA_BLOCK_BYTES ((size_t)64 << 20)
/* The stream's slab and slots: a larger slab (the H200's tuning has 256 MiB) only pins more
 * staging; a FASTA file the library reads into the stream went faster with 32 MiB than with
 * 64, and with three slots of 24 MiB than with two of 32 or four of 16 or 24, its reading
 * threads running further ahead of the transfers (bench/experiments/README.md, "Sent as it
 * fills", "Slots and reading threads"). */
#define DNA_SLAB_BYTES ((size_t)24 << 20)
#define DNA_SLOTS 3

typedef struct {
    reads_format format; /* --fasta, --fastq: forced; else detected */
    int caseless;
    int degenerate;      /* --degenerate: seqkit -d's output with -i (case kept) */
    int degenerate_text; /* --degenerate-text */
    unsigned max_errors; /* -k */
    int mismatches_only;
    int strands;
    int bed, count, stats;
    crispr_pam pam;      /* --pam / --pam5 (pam.seq NULL: none) */
    cli_device_opts dev; /* -p -d -a --variant --table-memory --block-size */
    const char *devices; /* --devices LIST (tools/cli_devices.c); NULL: one device */
    int line_breaks;     /* LINE_BREAKS_*: --line-breaks, else CLMATCH_LINE_BREAKS */
    const char **pattern_args; /* -e values, or the PATTERN operand */
    size_t n_pattern_args;
    const char **pattern_files; /* -f values */
    size_t n_pattern_files;
    char **files;
    size_t n_files;
} dna_config;

/* Parse the DNA mode's arguments into *cfg (which it initialises). Returns -1 to go on,
 * else the exit status (--help, or a usage error after its message). */
int dna_parse_args(int argc, char **argv, dna_config *cfg);

#endif
