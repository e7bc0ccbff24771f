/*
 * The files an operand names (tools/walk.c): itself, or with -r/-R the files under it, in
 * directory order and named as grep names them ("dir/sub/file"; no "./" when -r has no
 * operand), filtered by --include, --exclude and --exclude-dir.
 */
#ifndef CLMATCH_WALK_H
#define CLMATCH_WALK_H

#include "grep_args.h"

/* Search one file: path to open, in_dir when -r found it in a directory. Returns non-zero
 * to stop the walk (-q has its answer, output failed). */
typedef int (*walk_visit)(const char *path, int in_dir, void *ctx);

/* Called before a message, so that what the visits queued is printed first. Returns
 * non-zero to stop the walk instead (-q has its answer). */
typedef int (*walk_before_message)(void *ctx);

/* Visit the files of operand (NULL: -r without operand, the working directory). Directory
 * errors are reported as grep does (unless -s) and set *failed; a directory loop under -R
 * is a warning. Returns non-zero when visit or before_message asked to stop. */
int walk_operand(const config *cfg, const char *operand, walk_visit visit,
                 walk_before_message before_message, void *ctx, int *failed);

#endif
