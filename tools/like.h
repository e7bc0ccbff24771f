/* clmatch --like (tools/like.c): records selected by SQL LIKE patterns. */
#ifndef CLMATCH_LIKE_H
#define CLMATCH_LIKE_H

/* main() of the LIKE mode: argv as clmatch got it. Returns the exit status. */
int like_main(int argc, char **argv);

#endif
