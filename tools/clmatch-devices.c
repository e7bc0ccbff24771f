/*
 * clmatch-devices — list the OpenCL platforms and devices clmatch can use, with the
 * properties that matter for string matching (memory sizes, local memory kind, work-group
 * sizes, SVM). Like clinfo, but focused.
 *
 * Every property is one row of the `rows` table: a label, a JSON key, a formatter that turns
 * the device's clm_device_info into a typed value, and an optional check that says whether
 * the property exists on this device. The human output and --json walk the same table, so
 * they can never disagree. Each device is also opened to show its tuning (clm_tuning: the
 * values, their sources, the profile file and why it was ignored, if it was).
 *
 * Usage: clmatch-devices [--json] [-p N [-d N]]
 * Exit status: 0 success, 1 internal failure, 2 bad arguments or no OpenCL platform/device.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmatch.h"

#define PROG "clmatch-devices"

/* ---- values ---------------------------------------------------------------------------- */

typedef enum {
    VAL_TEXT,   /* a string */
    VAL_UINT,   /* a count; `unit` (if any) is appended in human output */
    VAL_BYTES,  /* a size in bytes: human output adds KiB/MiB/GiB */
    VAL_BOOL,
    VAL_LIST    /* space-separated items: a JSON array of strings */
} value_kind;

typedef struct value {
    value_kind kind;
    uint64_t num;       /* VAL_UINT, VAL_BYTES, VAL_BOOL */
    const char *unit;   /* VAL_UINT: "MHz", "bits", ... or NULL */
    char text[sizeof(((clm_device_info *)0)->extensions) + 64]; /* VAL_TEXT, VAL_LIST */
} value;

static void set_text(value *v, const char *s)
{
    v->kind = VAL_TEXT;
    snprintf(v->text, sizeof v->text, "%s", s);
}

static void set_uint(value *v, uint64_t n, const char *unit)
{
    v->kind = VAL_UINT;
    v->num = n;
    v->unit = unit;
}

static void set_bytes(value *v, uint64_t n)
{
    v->kind = VAL_BYTES;
    v->num = n;
}

static void set_bool(value *v, int b)
{
    v->kind = VAL_BOOL;
    v->num = b != 0;
}

/* ---- formatters: one per row ----------------------------------------------------------- */

static const char *type_name(clm_device_type t)
{
    switch (t) {
    case CLM_DEVICE_CPU: return "CPU";
    case CLM_DEVICE_GPU: return "GPU";
    case CLM_DEVICE_ACCELERATOR: return "Accelerator";
    default: return "Other";
    }
}

static void f_platform_index(const clm_device_info *d, value *v) { set_uint(v, (uint64_t)d->platform_index, NULL); }
static void f_device_index(const clm_device_info *d, value *v) { set_uint(v, (uint64_t)d->device_index, NULL); }
static void f_type(const clm_device_info *d, value *v) { set_text(v, type_name(d->type)); }
static void f_name(const clm_device_info *d, value *v) { set_text(v, d->name); }
static void f_vendor(const clm_device_info *d, value *v) { set_text(v, d->vendor); }
static void f_available(const clm_device_info *d, value *v) { set_bool(v, d->available); }
static void f_platform_name(const clm_device_info *d, value *v) { set_text(v, d->platform_name); }
static void f_platform_vendor(const clm_device_info *d, value *v) { set_text(v, d->platform_vendor); }
static void f_platform_version(const clm_device_info *d, value *v) { set_text(v, d->platform_version); }
static void f_version(const clm_device_info *d, value *v) { set_text(v, d->version); }
static void f_driver_version(const clm_device_info *d, value *v) { set_text(v, d->driver_version); }
static void f_opencl_c_version(const clm_device_info *d, value *v) { set_text(v, d->opencl_c_version); }
static void f_compute_units(const clm_device_info *d, value *v) { set_uint(v, d->compute_units, NULL); }
static void f_max_clock(const clm_device_info *d, value *v) { set_uint(v, d->max_clock_mhz, "MHz"); }
static void f_global_mem(const clm_device_info *d, value *v) { set_bytes(v, d->global_mem_bytes); }
static void f_max_alloc(const clm_device_info *d, value *v) { set_bytes(v, d->max_alloc_bytes); }
static void f_local_mem(const clm_device_info *d, value *v) { set_bytes(v, d->local_mem_bytes); }
static void f_constant_mem(const clm_device_info *d, value *v) { set_bytes(v, d->constant_mem_bytes); }
static void f_host_unified(const clm_device_info *d, value *v) { set_bool(v, d->host_unified_memory); }
static void f_extensions(const clm_device_info *d, value *v)
{
    v->kind = VAL_LIST;
    snprintf(v->text, sizeof v->text, "%s", d->extensions);
}

static void f_local_mem_kind(const clm_device_info *d, value *v)
{
    /* Emulated local memory is ordinary global memory: copying tables there buys nothing. */
    set_text(v, d->local_mem_dedicated ? "dedicated" : "emulated");
}

static void f_max_wg(const clm_device_info *d, value *v)
{
    set_uint(v, (uint64_t)d->max_work_group_size, NULL);
}

static void f_pref_wg_multiple(const clm_device_info *d, value *v)
{
    set_uint(v, (uint64_t)d->preferred_work_group_multiple, NULL);
}

static void f_mem_base_align(const clm_device_info *d, value *v)
{
    set_uint(v, d->mem_base_align_bits, "bits");
}

/* Bit values of CL_DEVICE_SVM_* (OpenCL 2.0), kept here so the tool needs no CL header. */
static const struct {
    uint64_t bit;
    const char *name;
} svm_bits[] = {
    {1u << 0, "coarse-grain-buffer"},
    {1u << 1, "fine-grain-buffer"},
    {1u << 2, "fine-grain-system"},
    {1u << 3, "atomics"},
};

static void f_svm(const clm_device_info *d, value *v)
{
    uint64_t rest = d->svm_capabilities;
    size_t used = 0;
    v->kind = VAL_LIST;
    v->text[0] = '\0';
    for (size_t i = 0; i < sizeof svm_bits / sizeof svm_bits[0]; i++) {
        if (!(rest & svm_bits[i].bit))
            continue;
        rest &= ~svm_bits[i].bit;
        used += (size_t)snprintf(v->text + used, sizeof v->text - used, "%s%s",
                                 used ? " " : "", svm_bits[i].name);
    }
    if (rest) /* bits newer than this tool: show them rather than hide them */
        snprintf(v->text + used, sizeof v->text - used, "%s0x%" PRIx64, used ? " " : "", rest);
}

/* ---- "is it supported here" checks ----------------------------------------------------- */

/* Major version from "OpenCL X.Y ..."; 0 if the string is malformed. */
static int opencl_major(const char *version)
{
    int major = 0, minor = 0;
    if (sscanf(version, "OpenCL %d.%d", &major, &minor) != 2)
        return 0;
    return major;
}

/* SVM exists from OpenCL 2.0 on; before that the query itself is invalid. */
static int has_svm_query(const clm_device_info *d) { return opencl_major(d->version) >= 2; }

/* 0 means the library did not build the probe kernel, not "no preference". */
static int has_wg_multiple(const clm_device_info *d) { return d->preferred_work_group_multiple != 0; }

/* The query was removed in OpenCL 2.0 and the library reports 0 when it is unknown, so a
 * 0 from a 2.0+ device says nothing. */
static int has_host_unified(const clm_device_info *d)
{
    return d->host_unified_memory || opencl_major(d->version) < 2;
}

/* ---- the table ------------------------------------------------------------------------- */

typedef struct row {
    const char *label;                                     /* human output */
    const char *key;                                       /* JSON key */
    void (*format)(const clm_device_info *d, value *v);
    int (*supported)(const clm_device_info *d);            /* NULL: always */
} row;

static const row rows[] = {
    {"Platform index",               "platform_index",               f_platform_index, NULL},
    {"Device index",                 "device_index",                 f_device_index, NULL},
    {"Type",                         "type",                         f_type, NULL},
    {"Name",                         "name",                         f_name, NULL},
    {"Vendor",                       "vendor",                       f_vendor, NULL},
    {"Available",                    "available",                    f_available, NULL},
    {"Platform name",                "platform_name",                f_platform_name, NULL},
    {"Platform vendor",              "platform_vendor",              f_platform_vendor, NULL},
    {"Platform version",             "platform_version",             f_platform_version, NULL},
    {"Device version",               "version",                      f_version, NULL},
    {"Driver version",               "driver_version",               f_driver_version, NULL},
    {"OpenCL C version",             "opencl_c_version",             f_opencl_c_version, NULL},
    {"Compute units",                "compute_units",                f_compute_units, NULL},
    {"Max clock",                    "max_clock_mhz",                f_max_clock, NULL},
    {"Global memory",                "global_mem_bytes",             f_global_mem, NULL},
    {"Max allocation",               "max_alloc_bytes",              f_max_alloc, NULL},
    {"Local memory",                 "local_mem_bytes",              f_local_mem, NULL},
    {"Local memory kind",            "local_mem_kind",               f_local_mem_kind, NULL},
    {"Constant memory",              "constant_mem_bytes",           f_constant_mem, NULL},
    {"Max work-group size",          "max_work_group_size",          f_max_wg, NULL},
    {"Preferred work-group multiple","preferred_work_group_multiple",f_pref_wg_multiple, has_wg_multiple},
    {"Host-unified memory",          "host_unified_memory",          f_host_unified, has_host_unified},
    {"SVM capabilities",             "svm_capabilities",             f_svm, has_svm_query},
    {"Memory base alignment",        "mem_base_align_bits",          f_mem_base_align, NULL},
    {"Extensions",                   "extensions",                   f_extensions, NULL},
};
enum { ROW_COUNT = sizeof rows / sizeof rows[0] };

/* ---- human output ---------------------------------------------------------------------- */

enum { LABEL_WIDTH = 30, WRAP_COLUMN = 100 };

static void print_bytes_human(uint64_t n)
{
    static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)n;
    int u = 0;
    while (x >= 1024.0 && u < 4) {
        x /= 1024.0;
        u++;
    }
    if (u == 0)
        printf("%" PRIu64 " bytes", n);
    else
        printf("%.4g %s (%" PRIu64 " bytes)", x, units[u], n);
}

/* Items one after another, wrapped under the value column. */
static void print_list_human(const char *text)
{
    const int indent = 4 + LABEL_WIDTH + 1;
    int col = indent, first = 1;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        if (!first && col + 1 + (int)n > WRAP_COLUMN) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)n, p);
        col += (int)n;
        first = 0;
        p += n;
    }
    if (first)
        fputs("none", stdout);
}

static void print_device_human(const clm_device_info *d)
{
    value v;
    printf("Device %d:%d  %s  %s\n", d->platform_index, d->device_index, type_name(d->type),
           d->name);
    for (size_t r = 0; r < ROW_COUNT; r++) {
        printf("    %-*s ", LABEL_WIDTH, rows[r].label);
        if (rows[r].supported && !rows[r].supported(d)) {
            puts("n/a");
            continue;
        }
        memset(&v, 0, sizeof v);
        rows[r].format(d, &v);
        switch (v.kind) {
        case VAL_TEXT: fputs(v.text, stdout); break;
        case VAL_UINT:
            printf("%" PRIu64, v.num);
            if (v.unit)
                printf(" %s", v.unit);
            break;
        case VAL_BYTES: print_bytes_human(v.num); break;
        case VAL_BOOL: fputs(v.num ? "yes" : "no", stdout); break;
        case VAL_LIST: print_list_human(v.text); break;
        }
        putchar('\n');
    }
}

/* ---- tuning: what clm_device_open resolves (built-in row, profile, CLMATCH_TUNE) --------- */

typedef struct tuning_result {
    int status;           /* of clm_device_open; CLM_OK: t is filled */
    char error[1024];     /* its detail otherwise */
    clm_tuning t;
} tuning_result;

/* Open the device only to read its tuning; a failure (a bad CLMATCH_TUNE, an unavailable
 * device) is shown in place of the values. */
static void get_tuning(const clm_device_info *d, tuning_result *r)
{
    clm_device *dev = NULL;
    memset(r, 0, sizeof *r);
    r->status = clm_device_open(d->platform_index, d->device_index, &dev);
    if (r->status != CLM_OK) {
        snprintf(r->error, sizeof r->error, "%s: %s", clm_strerror(r->status), clm_last_error());
        return;
    }
    clm_device_get_tuning(dev, &r->t, sizeof r->t);
    clm_device_close(dev);
}

static void print_tuning_human(const tuning_result *r)
{
    printf("    %-*s ", LABEL_WIDTH, "Tuning");
    if (r->status != CLM_OK) {
        printf("error: %s\n", r->error);
        return;
    }
    printf("%s\n", r->t.values);
    printf("    %-*s %s\n", LABEL_WIDTH, "Tuning source", r->t.source);
    printf("    %-*s %s%s\n", LABEL_WIDTH, "Tuning profile",
           r->t.profile_path[0] ? r->t.profile_path : "none (no HOME or CLMATCH_PROFILE_DIR)",
           r->t.profile_used           ? " (used)"
           : r->t.profile_warning[0] ? " (ignored)"
                                     : " (none there)");
    if (r->t.profile_warning[0])
        printf("    %-*s %s\n", LABEL_WIDTH, "Tuning warning", r->t.profile_warning);
}

/* ---- JSON output ----------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_sequence(const unsigned char *s)
{
    size_t n;
    if (s[0] < 0x80)
        return 1;
    else if ((s[0] & 0xE0) == 0xC0 && s[0] >= 0xC2)
        n = 2;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3;
    else if ((s[0] & 0xF8) == 0xF0 && s[0] <= 0xF4)
        n = 4;
    else
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* A JSON string of the first len bytes of s. Driver strings are not guaranteed UTF-8: an
 * invalid byte becomes U+FFFD so the output always parses. */
static void json_string_n(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    putchar('"');
    while (p < end) {
        if (*p == '"' || *p == '\\') {
            printf("\\%c", *p++);
        } else if (*p < 0x20) {
            printf("\\u%04x", *p++);
        } else {
            size_t n = utf8_sequence(p);
            if (n == 0 || p + n > end) {
                fputs("\\ufffd", stdout);
                p++;
            } else {
                fwrite(p, 1, n, stdout);
                p += n;
            }
        }
    }
    putchar('"');
}

static void json_string(const char *s) { json_string_n(s, strlen(s)); }

static void json_list(const char *text)
{
    int first = 1;
    const char *p = text;
    putchar('[');
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        if (!first)
            fputs(", ", stdout);
        json_string_n(p, n);
        first = 0;
        p += n;
    }
    putchar(']');
}

/* "wg=16,chunk=4096,slab=64M,stage=off,dfa.chunk=1024" as a JSON object of numbers (K, M,
 * G expanded) and strings (a value that is no number: "on", "off"), so every knob the library
 * has appears without this tool knowing it. */
static void json_tuning_values(const char *values)
{
    const char *p = values;
    int first = 1;
    putchar('{');
    while (*p) {
        size_t n = strcspn(p, ","), k = strcspn(p, "=");
        if (k < n) {
            char *end;
            unsigned long long x = strtoull(p + k + 1, &end, 10);
            int number = end > p + k + 1;
            switch (*end) {
            case 'K': x <<= 10, end++; break;
            case 'M': x <<= 20, end++; break;
            case 'G': x <<= 30, end++; break;
            default: break;
            }
            number &= end == p + n;
            printf("%s", first ? "" : ", ");
            json_string_n(p, k);
            fputs(": ", stdout);
            if (number)
                printf("%llu", x);
            else
                json_string_n(p + k + 1, n - k - 1);
            first = 0;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    putchar('}');
}

static void print_tuning_json(const tuning_result *r)
{
    fputs(",\n      \"tuning\": {", stdout);
    if (r->status != CLM_OK) {
        fputs("\"error\": ", stdout);
        json_string(r->error);
        putchar('}');
        return;
    }
    fputs("\"values\": ", stdout);
    json_tuning_values(r->t.values);
    fputs(", \"source\": ", stdout);
    json_string(r->t.source);
    fputs(", \"builtin\": ", stdout);
    json_string(r->t.builtin);
    fputs(", \"profile_path\": ", stdout);
    if (r->t.profile_path[0])
        json_string(r->t.profile_path);
    else
        fputs("null", stdout);
    printf(", \"profile_used\": %s, \"profile_warning\": ", r->t.profile_used ? "true" : "false");
    if (r->t.profile_warning[0])
        json_string(r->t.profile_warning);
    else
        fputs("null", stdout);
    putchar('}');
}

static void print_device_json(const clm_device_info *d, const tuning_result *tr)
{
    value v;
    fputs("    {", stdout);
    for (size_t r = 0; r < ROW_COUNT; r++) {
        printf("%s\n      \"%s\": ", r ? "," : "", rows[r].key);
        if (rows[r].supported && !rows[r].supported(d)) {
            fputs("null", stdout);
            continue;
        }
        memset(&v, 0, sizeof v);
        rows[r].format(d, &v);
        switch (v.kind) {
        case VAL_TEXT: json_string(v.text); break;
        case VAL_UINT:
        case VAL_BYTES: printf("%" PRIu64, v.num); break;
        case VAL_BOOL: fputs(v.num ? "true" : "false", stdout); break;
        case VAL_LIST: json_list(v.text); break;
        }
    }
    print_tuning_json(tr);
    fputs("\n    }", stdout);
}

/* ---- main ------------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: " PROG " [--json] [-p N [-d N]]\n"
            "List the OpenCL platforms and devices clmatch can use.\n"
            "\n"
            "  --json          print JSON instead of text\n"
            "  -p, --platform N  only platform N\n"
            "  -d, --device N    only device N (of platform -p, or of platform 0)\n"
            "  -h, --help      show this help\n"
            "\n"
            "Indices are those clmatch -p/-d and CLMATCH_PLATFORM/CLMATCH_DEVICE take.\n"
            "Exit status: 0 success, 2 bad arguments or no OpenCL platform/device.\n");
}

/* A non-negative decimal index; -1 when s is not one. */
static int parse_index(const char *s)
{
    char *end;
    long n;
    if (!s || !*s)
        return -1;
    errno = 0;
    n = strtol(s, &end, 10);
    if (errno || *end || n < 0 || n > 1000000)
        return -1;
    return (int)n;
}

int main(int argc, char **argv)
{
    int json = 0, want_platform = -1, want_device = -1;
    clm_device_info *list = NULL;
    size_t count = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-p") || !strcmp(a, "--platform") || !strcmp(a, "-d")
                   || !strcmp(a, "--device")) {
            int is_platform = a[1] == 'p' || !strcmp(a, "--platform");
            int n = parse_index(i + 1 < argc ? argv[i + 1] : NULL);
            if (n < 0) {
                fprintf(stderr, PROG ": %s needs a non-negative index, got '%s'\n", a,
                        i + 1 < argc ? argv[i + 1] : "");
                return 2;
            }
            i++;
            if (is_platform)
                want_platform = n;
            else
                want_device = n;
        } else {
            fprintf(stderr, PROG ": unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (want_device >= 0 && want_platform < 0)
        want_platform = 0;

    int st = clm_list_devices(CLM_LIST_PROBE, sizeof *list, &list, &count);
    if (st != CLM_OK) {
        const char *detail = clm_last_error();
        fprintf(stderr, PROG ": %s%s%s\n", clm_strerror(st), *detail ? ": " : "", detail);
        return st == CLM_E_NO_PLATFORM || st == CLM_E_NO_DEVICE ? 2 : 1;
    }
    if (count == 0) {
        fprintf(stderr, PROG ": OpenCL platforms exist but they have no device\n");
        clm_free_device_list(list);
        return 2;
    }

    /* Check the requested indices against what exists, and say what does. */
    int platforms = 0, platform_seen = 0, device_seen = 0, devices_in_platform = 0;
    for (size_t i = 0; i < count; i++) {
        if (list[i].platform_index + 1 > platforms)
            platforms = list[i].platform_index + 1;
        if (list[i].platform_index == want_platform) {
            platform_seen = 1;
            devices_in_platform++;
            if (list[i].device_index == want_device)
                device_seen = 1;
        }
    }
    if (want_platform >= 0 && !platform_seen) {
        fprintf(stderr, PROG ": no platform %d (platforms with devices: 0..%d; run without -p "
                "to list them)\n", want_platform, platforms - 1);
        clm_free_device_list(list);
        return 2;
    }
    if (want_device >= 0 && !device_seen) {
        fprintf(stderr, PROG ": platform %d has no device %d (it has %d: 0..%d)\n",
                want_platform, want_device, devices_in_platform, devices_in_platform - 1);
        clm_free_device_list(list);
        return 2;
    }

    if (json) {
        fputs("{\n  \"clmatch_version\": ", stdout);
        json_string(clm_version());
        fputs(",\n  \"devices\": [\n", stdout);
    }
    int printed = 0, last_platform = -1;
    for (size_t i = 0; i < count; i++) {
        const clm_device_info *d = &list[i];
        if (want_platform >= 0 && d->platform_index != want_platform)
            continue;
        if (want_device >= 0 && d->device_index != want_device)
            continue;
        tuning_result tr;
        get_tuning(d, &tr);
        if (json) {
            if (printed)
                fputs(",\n", stdout);
            print_device_json(d, &tr);
        } else {
            if (d->platform_index != last_platform)
                printf("%sPlatform %d: %s (%s)\n", printed ? "\n" : "", d->platform_index,
                       d->platform_name, d->platform_version);
            else
                putchar('\n');
            last_platform = d->platform_index;
            print_device_human(d);
            print_tuning_human(&tr);
        }
        printed++;
    }
    if (json)
        fputs("\n  ]\n}\n", stdout);

    clm_free_device_list(list);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": writing the output failed\n");
        return 1;
    }
    return 0;
}
