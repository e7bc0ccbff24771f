/*
 * The progress line of long searches (tools/progress.c): on a terminal's stderr, after a
 * second, "clmatch: 1.20 of 8.00 GB, 2.31 GB/s, 3 s left" redrawn twice a second (without
 * "of" and the time left when the total is unknown: -r, standard input). Off when stderr is
 * no terminal and with -q. The bytes are what the process has read (/proc/self/io), so that
 * every path counts (the library's I/O threads, the streams, the batches); no line where it
 * cannot be read. The line is cleared before the CLI writes anything (cli_write_hook).
 */
#ifndef CLMATCH_PROGRESS_H
#define CLMATCH_PROGRESS_H

#include "grep_args.h"

/* Start the line's thread for the search cfg describes, when it applies. */
void progress_start(const config *cfg);

/* Stop it and clear the line. */
void progress_stop(void);

#endif
