/*
 * clmatch --list-devices (list_devices.h), moved out of tools/clmatch.c.
 */
#include "list_devices.h"
#include "cli_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *cli_device_type_name(clm_device_type t)
{
    switch (t) {
    case CLM_DEVICE_CPU: return "CPU";
    case CLM_DEVICE_GPU: return "GPU";
    case CLM_DEVICE_ACCELERATOR: return "ACCEL";
    default: return "OTHER";
    }
}

static void human_bytes(uint64_t v, char *buf, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    size_t u = 0;
    while (d >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        d /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", v);
    else
        snprintf(buf, n, "%.1f %s", d, units[u]);
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static void list_json(const clm_device_info *list, size_t n, int dflt_p, int dflt_d)
{
    size_t i;
    printf("[");
    for (i = 0; i < n; i++) {
        const clm_device_info *d = &list[i];
        printf("%s\n  {\"platform_index\": %d, \"device_index\": %d, \"default\": %s",
               i ? "," : "", d->platform_index, d->device_index,
               d->platform_index == dflt_p && d->device_index == dflt_d ? "true" : "false");
#define JSTR(field)                                                                          \
    do {                                                                                       \
        printf(", \"" #field "\": ");                                                          \
        json_string(d->field);                                                                 \
    } while (0)
        JSTR(platform_name);
        JSTR(platform_vendor);
        JSTR(platform_version);
        JSTR(name);
        JSTR(vendor);
        JSTR(version);
        JSTR(driver_version);
        JSTR(opencl_c_version);
#undef JSTR
        printf(", \"type\": \"%s\", \"compute_units\": %u, \"max_clock_mhz\": %u",
               cli_device_type_name(d->type), d->compute_units, d->max_clock_mhz);
        printf(", \"global_mem_bytes\": %" PRIu64 ", \"max_alloc_bytes\": %" PRIu64
               ", \"local_mem_bytes\": %" PRIu64 ", \"local_mem_dedicated\": %s"
               ", \"constant_mem_bytes\": %" PRIu64,
               d->global_mem_bytes, d->max_alloc_bytes, d->local_mem_bytes,
               d->local_mem_dedicated ? "true" : "false", d->constant_mem_bytes);
        printf(", \"max_work_group_size\": %zu, \"preferred_work_group_multiple\": %zu"
               ", \"host_unified_memory\": %s"
               ", \"svm_capabilities\": %" PRIu64 ", \"mem_base_align_bits\": %u"
               ", \"available\": %s, \"extensions\": ",
               d->max_work_group_size, d->preferred_work_group_multiple,
               d->host_unified_memory ? "true" : "false",
               d->svm_capabilities, d->mem_base_align_bits, d->available ? "true" : "false");
        json_string(d->extensions);
        printf("}");
    }
    printf("%s]\n", n ? "\n" : "");
}

/* "OpenCL 3.0 PoCL ..." -> "OpenCL 3.0" */
static void short_version(const char *v, char *buf, size_t n)
{
    const char *sp = strchr(v, ' ');
    size_t len = strlen(v);
    if (sp && (sp = strchr(sp + 1, ' ')) != NULL)
        len = (size_t)(sp - v);
    snprintf(buf, n, "%.*s", (int)(len < 64 ? len : 64), v);
}

static void list_table(const clm_device_info *list, size_t n, int dflt_p, int dflt_d)
{
    size_t i;
    int name_w = 4;
    for (i = 0; i < n; i++) {
        int w = (int)strlen(list[i].name);
        if (w > name_w)
            name_w = w;
    }
    printf("  %-5s %-5s %4s %9s %11s %16s %-11s %-*s %s\n", "P:D", "TYPE", "CUs", "CLOCK",
           "GLOBAL MEM", "LOCAL MEM", "OPENCL", name_w, "NAME", "PLATFORM");
    for (i = 0; i < n; i++) {
        const clm_device_info *d = &list[i];
        char idx[32], clock[32], gmem[32], lmem[48], lm[32], ver[80];
        snprintf(idx, sizeof idx, "%d:%d", d->platform_index, d->device_index);
        snprintf(clock, sizeof clock, "%u MHz", d->max_clock_mhz);
        human_bytes(d->global_mem_bytes, gmem, sizeof gmem);
        human_bytes(d->local_mem_bytes, lm, sizeof lm);
        snprintf(lmem, sizeof lmem, "%s%s", lm, d->local_mem_dedicated ? "" : " (emu)");
        short_version(d->version, ver, sizeof ver);
        printf("%c %-5s %-5s %4u %9s %11s %16s %-11s %-*s %s%s\n",
               d->platform_index == dflt_p && d->device_index == dflt_d ? '*' : ' ', idx,
               cli_device_type_name(d->type), d->compute_units, clock, gmem, lmem, ver, name_w, d->name,
               d->platform_name, d->available ? "" : " (unavailable)");
    }
    if (dflt_p >= 0)
        printf("* default device (CLMATCH_PLATFORM/CLMATCH_DEVICE, else the first GPU, "
               "else the first CPU)\n");
}

int cli_list_devices(int json)
{
    clm_device_info *list = NULL;
    size_t n = 0;
    int st = clm_list_devices(0, sizeof *list, &list, &n);
    int dflt_p = -1, dflt_d = -1;
    clm_device *dev = NULL;
    if (st != CLM_OK) {
        report_clm("listing OpenCL devices", st);
        return EXIT_TROUBLE;
    }
    /* Mark the device a search would use; if that cannot be opened, just mark none. */
    if (clm_device_open(-1, -1, &dev) == CLM_OK) {
        clm_device_info info;
        if (clm_device_get_info(dev, &info, sizeof info) == CLM_OK) {
            dflt_p = info.platform_index;
            dflt_d = info.device_index;
        }
        clm_device_close(dev);
    }
    if (json)
        list_json(list, n, dflt_p, dflt_d);
    else
        list_table(list, n, dflt_p, dflt_d);
    clm_free_device_list(list);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        errmsg("write error: %s", strerror(errno));
        return EXIT_TROUBLE;
    }
    return EXIT_MATCH;
}
