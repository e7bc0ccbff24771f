/* The main mode's --stats report on stderr (tools/grep_stats.c): device, algorithm and why,
 * patterns, slabs, data path, memory, timings and where they went. */
#ifndef CLMATCH_GREP_STATS_H
#define CLMATCH_GREP_STATS_H

#include <stdint.h>

#include "clmatch.h"

void grep_print_stats(const clm_device *dev, const clm_database *db, const clm_scratch *scratch,
                      uint64_t bytes_in, double setup_s, double search_s);

#endif
