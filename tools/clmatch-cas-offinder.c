/* clmatch-cas-offinder: the Cas-OFFinder 2.4.1 front end (tools/casoff.c) as a program. */
#include "casoff.h"

int main(int argc, char **argv)
{
    return casoff_main(argc, argv);
}
