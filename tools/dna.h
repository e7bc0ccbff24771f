/*
 * DNA mode of the clmatch CLI (clmatch --dna): FASTA-aware search for IUPAC patterns on
 * both strands, with seqkit-locate-style output. See README.md, "DNA mode".
 */
#ifndef CLMATCH_DNA_H
#define CLMATCH_DNA_H

/* Run the DNA mode. argv is the whole command line (--dna included, anywhere before "--").
 * Returns the exit status: 0 something matched, 1 nothing did, 2 an error. */
int dna_main(int argc, char **argv);

#endif
