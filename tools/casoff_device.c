/*
 * casoff_device.c - the device of the Cas-OFFinder front end: 2.4.1's device argument, a
 * type (C, G, A) and ids over all platforms.
 */
#include "casoff_device.h"

#include "cli_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Add the ids of one item of 2.4.1's list: "N", "A:B" (A to B-1) or "A:B:STEP". */
static int parse_id_item(const char *s, int *ids, size_t *n, size_t cap)
{
    long v[3];
    int k = 0;
    char *end;
    for (;;) {
        if (*s < '0' || *s > '9' || k == 3)
            return -1;
        errno = 0;
        v[k++] = strtol(s, &end, 10);
        if (errno || v[k - 1] > 100000)
            return -1;
        if (*end == '\0')
            break;
        if (*end != ':')
            return -1;
        s = end + 1;
    }
    if (k == 1) {
        v[1] = v[0] + 1;
        v[2] = 1;
    } else if (k == 2) {
        v[2] = 1;
    }
    if (v[2] <= 0)
        return -1;
    for (long i = v[0]; i < v[1]; i += v[2]) {
        if (*n == cap)
            return 0; /* more than there are devices: the rest cannot exist */
        ids[(*n)++] = (int)i;
    }
    return 0;
}

int casoff_open_device(const char *spec, clm_device **dev)
{
    static const char *const type_name[] = {"other", "CPU", "GPU", "accelerator"};
    clm_device_type type;
    clm_device_info *list = NULL;
    size_t count = 0, i, n_ids = 0;
    int ids[64], st, chosen = -1, seen = 0;
    char *items, *item, *save = NULL;
    switch (spec[0]) {
    case 'C': type = CLM_DEVICE_CPU; break;
    case 'G': type = CLM_DEVICE_GPU; break;
    case 'A': type = CLM_DEVICE_ACCELERATOR; break;
    default:
        errmsg("unknown device type '%s' (expected C, G or A, then device ids)", spec);
        return -1;
    }
    if (!(items = strdup(spec + 1))) {
        errmsg("out of memory");
        return -1;
    }
    for (item = strtok_r(items, ",", &save); item; item = strtok_r(NULL, ",", &save))
        if (parse_id_item(item, ids, &n_ids, sizeof ids / sizeof *ids) != 0) {
            errmsg("invalid device ids '%s' (expected N, N,M... or FROM:TO[:STEP])", spec + 1);
            free(items);
            return -1;
        }
    free(items);
    st = clm_list_devices(0u, sizeof *list, &list, &count);
    if (st != CLM_OK) {
        report_clm("cannot list the OpenCL devices", st);
        return -1;
    }
    for (i = 0; i < count && chosen < 0; i++) {
        size_t k;
        if (list[i].type != type)
            continue;
        for (k = 0; k < n_ids && ids[k] != seen; k++)
            ;
        if (n_ids == 0 || k < n_ids)
            chosen = (int)i;
        seen++;
    }
    if (chosen < 0) {
        errmsg("no %s device%s%s (%d of that type)", type_name[type], n_ids ? " with id " : "",
               n_ids ? spec + 1 : "", seen);
        clm_free_device_list(list);
        return -1;
    }
    if (n_ids > 1)
        fprintf(stderr, "clmatch: clmatch-cas-offinder runs on one device: %s\n",
                list[chosen].name);
    cli_time.opened = 1;
    st = clm_device_open(list[chosen].platform_index, list[chosen].device_index, dev);
    clm_free_device_list(list);
    if (st != CLM_OK) {
        *dev = NULL;
        report_clm("cannot open the OpenCL device", st);
        return -1;
    }
    return 0;
}

