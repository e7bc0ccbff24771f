/*
 * libFuzzer target: the tuning profile parser (clm_tune_parse_profile, host/tune.c) on
 * arbitrary bytes, for a device named "Fuzz Device", driver "1.0" (the header of the valid
 * seeds in tests/fuzz/corpus/profile/). No device, no file I/O.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static clm_device_info d;
    static struct clm_tune t;
    if (!d.name[0]) {
        snprintf(d.name, sizeof d.name, "Fuzz Device");
        snprintf(d.driver_version, sizeof d.driver_version, "1.0");
        d.type = CLM_DEVICE_GPU;
        d.max_work_group_size = 1024;
        d.max_alloc_bytes = (uint64_t)4 << 30;
    }
    memset(&t, 0, sizeof t);
    snprintf(t.profile_path, sizeof t.profile_path, "/fuzz/Fuzz_Device_1.0.profile");
    int rc = clm_tune_parse_profile(&t, &d, (const char *)data, size);
    /* used: no warning; not used: a warning, one line of printable ASCII */
    if (rc == 0 && (!t.profile_used || t.warning[0]))
        abort();
    if (rc != 0) {
        if (t.profile_used || !t.warning[0])
            abort();
        for (const char *p = t.warning; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
                abort();
    }
    return 0;
}
