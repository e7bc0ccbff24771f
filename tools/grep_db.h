/* The main mode's patterns and their database (tools/grep_db.c): -e, -f and PATTERN gathered
 * in order and readied (tools/patterns.c), then compiled on the device the options name. */
#ifndef CLMATCH_GREP_DB_H
#define CLMATCH_GREP_DB_H

#include <stddef.h>

#include "clmatch.h"
#include "cli_devices.h"
#include "grep_args.h"
#include "patterns.h"

/* Gather the patterns in order, then ready them for clm_compile. 0, or -1 after a message.
 * Sets cfg's classes, numbered, has_empty, no_patterns and host_side. */
int grep_build_patterns(config *cfg, pattern_list *pl);

/* Open the device, compile the patterns (the placeholder NO_ID when none is left) and
 * allocate a scratch; *max_len: the longest pattern's bytes. 0, or -1 after a message. */
int grep_setup_device(const config *cfg, const pattern_list *pl, clm_device **dev,
                      clm_database **db, clm_scratch **scratch, cli_set **set, size_t *max_len);

#endif
