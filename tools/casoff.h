/*
 * A drop-in front end for Cas-OFFinder 2.4.1 (clmatch-cas-offinder INPUT {C|G|A}[ids] OUTPUT):
 * its input file, its output rows, searched with libclmatch. docs/dna.md documents it.
 */
#ifndef CLMATCH_CASOFF_H
#define CLMATCH_CASOFF_H

/* argv[1] INPUT, argv[2] the device type and ids, argv[3] OUTPUT. Returns the exit status: 0
 * done (rows or none, as Cas-OFFinder), 2 an error. */
int casoff_main(int argc, char **argv);

#endif
