/*
 * clmatch --list-devices (the main mode's; tools/clmatch-devices.c says more of each device).
 */
#ifndef CLMATCH_LIST_DEVICES_H
#define CLMATCH_LIST_DEVICES_H

#include "clmatch.h"

/* "CPU", "GPU", "ACCEL" or "OTHER". */
const char *cli_device_type_name(clm_device_type t);

/* List the OpenCL devices on stdout, the default one marked (json: as JSON). Returns the
 * exit status. */
int cli_list_devices(int json);

#endif
