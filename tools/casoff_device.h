/*
 * casoff_device.h - the device of the Cas-OFFinder front end (casoff.c): 2.4.1's device
 * argument, a type and ids.
 */
#ifndef CLMATCH_CASOFF_DEVICE_H
#define CLMATCH_CASOFF_DEVICE_H

#include "clmatch.h"

/* Open the device that "C", "G1", "G0,2" or "G0:2" names (2.4.1 numbers the devices of a
 * type over all platforms). Returns 0 or -1 after a message. */
int casoff_open_device(const char *spec, clm_device **dev);

#endif
