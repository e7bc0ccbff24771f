/* Platforms and devices: listing with capabilities, opening by index or automatically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define NO_PLATFORM_HELP                                                                      \
    "no OpenCL platform found. Install one: on Debian/Ubuntu `sudo apt-get install "          \
    "pocl-opencl-icd ocl-icd-libopencl1` (PoCL runs OpenCL on the CPU), or your GPU vendor's " \
    "OpenCL driver (NVIDIA: the driver's libnvidia-opencl.so.1 with an .icd file in "         \
    "/etc/OpenCL/vendors). `clinfo -l` lists what the ICD loader finds."

/* Some ICDs (PoCL 3.1) crash when two threads make their first OpenCL calls at once: the
 * first platform query of the process is serialised. */
static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER;

/* All platform ids; *count 0 is reported as CLM_E_NO_PLATFORM. Caller frees *out. */
static int get_platforms(cl_platform_id **out, cl_uint *count)
{
    cl_uint n = 0;
    pthread_mutex_lock(&discovery_lock);
    cl_int err = clGetPlatformIDs(0, NULL, &n);
    pthread_mutex_unlock(&discovery_lock);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && n == 0))
        return clm_fail(CLM_E_NO_PLATFORM, "%s", NO_PLATFORM_HELP);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clGetPlatformIDs");
    cl_platform_id *ids = calloc(n, sizeof *ids);
    if (!ids)
        return clm_fail(CLM_E_NOMEM, "out of memory listing platforms");
    err = clGetPlatformIDs(n, ids, NULL);
    if (err != CL_SUCCESS) {
        free(ids);
        return clm_fail_cl(err, "clGetPlatformIDs");
    }
    *out = ids;
    *count = n;
    return CLM_OK;
}

/* All device ids of a platform (possibly none). Caller frees *out. */
static int get_devices(cl_platform_id platform, cl_device_id **out, cl_uint *count)
{
    cl_uint n = 0;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    *out = NULL;
    *count = 0;
    if (err == CL_DEVICE_NOT_FOUND || n == 0)
        return CLM_OK;
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clGetDeviceIDs");
    cl_device_id *ids = calloc(n, sizeof *ids);
    if (!ids)
        return clm_fail(CLM_E_NOMEM, "out of memory listing devices");
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids, NULL);
    if (err != CL_SUCCESS) {
        free(ids);
        return clm_fail_cl(err, "clGetDeviceIDs");
    }
    *out = ids;
    *count = n;
    return CLM_OK;
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, what, cap, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[cap - 1] = '\0';
}

static void device_string(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
    /* Extensions can exceed the buffer: ask for the size and truncate ourselves. */
    size_t need = 0;
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, 0, NULL, &need) != CL_SUCCESS || need == 0)
        return;
    char *tmp = malloc(need);
    if (!tmp)
        return;
    if (clGetDeviceInfo(d, what, need, tmp, NULL) == CL_SUCCESS) {
        size_t n = strnlen(tmp, need);
        if (n >= cap)
            n = cap - 1;
        memcpy(buf, tmp, n);
        buf[n] = '\0';
    }
    free(tmp);
}

static uint64_t device_ulong(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    return clGetDeviceInfo(d, what, sizeof v, &v, NULL) == CL_SUCCESS ? (uint64_t)v : 0;
}

static unsigned device_uint(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    return clGetDeviceInfo(d, what, sizeof v, &v, NULL) == CL_SUCCESS ? (unsigned)v : 0;
}

/* "OpenCL 3.0 CUDA" -> 30 */
static int version_number(const char *version)
{
    int major = 0, minor = 0;
    if (sscanf(version, "OpenCL %d.%d", &major, &minor) != 2)
        return 0;
    return major * 10 + minor;
}

/* The preferred work-group multiple is a kernel property: build a trivial kernel to ask. */
static size_t probe_wg_multiple(cl_device_id d)
{
    static const char *src = "__kernel void probe(__global uint *a) { a[get_global_id(0)] = 1u; }";
    size_t multiple = 0;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return 0;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (err == CL_SUCCESS && clBuildProgram(prog, 1, &d, "", NULL, NULL) == CL_SUCCESS) {
        cl_kernel k = clCreateKernel(prog, "probe", &err);
        if (err == CL_SUCCESS) {
            clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                     sizeof multiple, &multiple, NULL);
            clReleaseKernel(k);
        }
    }
    if (prog)
        clReleaseProgram(prog);
    clReleaseContext(ctx);
    return multiple;
}

static void fill_info(cl_platform_id p, cl_device_id d, int pi, int di, unsigned flags,
                      clm_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->platform_index = pi;
    info->device_index = di;
    platform_string(p, CL_PLATFORM_NAME, info->platform_name, sizeof info->platform_name);
    platform_string(p, CL_PLATFORM_VENDOR, info->platform_vendor, sizeof info->platform_vendor);
    platform_string(p, CL_PLATFORM_VERSION, info->platform_version, sizeof info->platform_version);
    device_string(d, CL_DEVICE_NAME, info->name, sizeof info->name);
    device_string(d, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    device_string(d, CL_DEVICE_VERSION, info->version, sizeof info->version);
    device_string(d, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    device_string(d, CL_DEVICE_OPENCL_C_VERSION, info->opencl_c_version,
                  sizeof info->opencl_c_version);
    device_string(d, CL_DEVICE_EXTENSIONS, info->extensions, sizeof info->extensions);

    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->type = (type & CL_DEVICE_TYPE_GPU)           ? CLM_DEVICE_GPU
                 : (type & CL_DEVICE_TYPE_CPU)         ? CLM_DEVICE_CPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLM_DEVICE_ACCELERATOR
                                                       : CLM_DEVICE_OTHER;
    info->compute_units = device_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->max_clock_mhz = device_uint(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    info->global_mem_bytes = device_ulong(d, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->max_alloc_bytes = device_ulong(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    info->local_mem_bytes = device_ulong(d, CL_DEVICE_LOCAL_MEM_SIZE);
    info->constant_mem_bytes = device_ulong(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    cl_device_local_mem_type lt = CL_GLOBAL;
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL);
    info->local_mem_dedicated = lt == CL_LOCAL;
    size_t wg = 0;
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    info->max_work_group_size = wg;
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) ==
        CL_SUCCESS)
        info->host_unified_memory = unified == CL_TRUE;
    if (version_number(info->version) >= 20) {
        cl_device_svm_capabilities svm = 0;
        if (clGetDeviceInfo(d, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) ==
            CL_SUCCESS)
            info->svm_capabilities = svm;
    }
    info->mem_base_align_bits = device_uint(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    cl_bool avail = CL_FALSE;
    clGetDeviceInfo(d, CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
    info->available = avail == CL_TRUE;
    if (flags & CLM_LIST_PROBE)
        info->preferred_work_group_multiple = probe_wg_multiple(d);
}

int clm_list_devices(unsigned flags, size_t info_size, clm_device_info **out, size_t *count)
{
    if (!out || !count)
        return clm_fail(CLM_E_INVALID, "clm_list_devices: out and count must not be NULL");
    *out = NULL;
    *count = 0;
    if (info_size < CLM_DEVICE_INFO_V1)
        return clm_fail(CLM_E_INVALID,
                        "clm_list_devices: clm_device_info of %zu bytes: smaller than its first "
                        "version (%zu bytes); pass sizeof (clm_device_info)",
                        info_size, (size_t)CLM_DEVICE_INFO_V1);
    cl_platform_id *plats = NULL;
    cl_uint np = 0;
    int rc = get_platforms(&plats, &np);
    if (rc)
        return rc;
    clm_device_info *list = NULL;
    size_t n = 0;
    for (cl_uint p = 0; p < np && rc == CLM_OK; p++) {
        cl_device_id *devs;
        cl_uint nd;
        if (get_devices(plats[p], &devs, &nd) != CLM_OK)
            continue; /* a broken platform should not hide the others */
        clm_device_info *grown = nd ? realloc(list, (n + nd) * sizeof *list) : list;
        if (nd && !grown) {
            rc = clm_fail(CLM_E_NOMEM, "out of memory listing devices");
        } else {
            list = grown;
            for (cl_uint d = 0; d < nd; d++)
                fill_info(plats[p], devs[d], (int)p, (int)d, flags, &list[n++]);
        }
        free(devs);
    }
    free(plats);
    /* the caller's entries are info_size bytes apart */
    unsigned char *entries = rc == CLM_OK && n ? calloc(n, info_size) : NULL;
    if (rc == CLM_OK && n && !entries)
        rc = clm_fail(CLM_E_NOMEM, "out of memory listing devices");
    for (size_t i = 0; entries && i < n; i++)
        clm_copy_out(entries + i * info_size, info_size, &list[i], sizeof *list,
                     CLM_DEVICE_INFO_V1, "clm_device_info");
    free(list);
    if (rc)
        return rc;
    *out = (clm_device_info *)(void *)entries;
    *count = n;
    return CLM_OK;
}

void clm_free_device_list(clm_device_info *list)
{
    free(list);
}

/* "0: Portable Computing Language (1 device: cpu-haswell)" lines for error messages. */
static void describe_platforms(cl_platform_id *plats, cl_uint np)
{
    char line[640];
    for (cl_uint p = 0; p < np; p++) {
        char name[256];
        platform_string(plats[p], CL_PLATFORM_NAME, name, sizeof name);
        cl_device_id *devs;
        cl_uint nd;
        if (get_devices(plats[p], &devs, &nd) != CLM_OK)
            nd = 0, devs = NULL;
        snprintf(line, sizeof line, "\n  platform %u: %s (%u device%s)", p, name, nd,
                 nd == 1 ? "" : "s");
        clm_fail_append(line);
        for (cl_uint d = 0; d < nd; d++) {
            char dname[256];
            device_string(devs[d], CL_DEVICE_NAME, dname, sizeof dname);
            snprintf(line, sizeof line, "\n    device %u: %s", d, dname);
            clm_fail_append(line);
        }
        free(devs);
    }
}

/* Automatic choice: first GPU, else first CPU, else the first device of any platform. */
static int choose_auto(cl_platform_id *plats, cl_uint np, int *pi, int *di)
{
    static const cl_device_type order[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU,
                                           CL_DEVICE_TYPE_ALL};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
        for (cl_uint p = 0; p < np; p++) {
            cl_device_id *devs;
            cl_uint nd;
            if (get_devices(plats[p], &devs, &nd) != CLM_OK)
                continue;
            for (cl_uint d = 0; d < nd; d++) {
                cl_device_type t = 0;
                cl_bool avail = CL_TRUE;
                clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
                clGetDeviceInfo(devs[d], CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
                if ((t & order[o]) && avail) {
                    *pi = (int)p;
                    *di = (int)d;
                    free(devs);
                    return CLM_OK;
                }
            }
            free(devs);
        }
    }
    return clm_fail(CLM_E_NO_DEVICE, "no available OpenCL device on any platform");
}

static int env_index(enum clm_env_var var, int *out)
{
    const char *v = clm_env(var);
    if (!v || !*v)
        return 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 1000000)
        return clm_fail(CLM_E_INVALID, "%s=%s is not a device index", clm_env_name(var), v);
    *out = (int)x;
    return 1;
}

int clm_device_open(int platform_index, int device_index, clm_device **out)
{
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_device_open: out must not be NULL");
    *out = NULL;
    if (platform_index < -1 || device_index < -1)
        return clm_fail(CLM_E_INVALID, "device indices must be >= 0 (or -1 for automatic)");
    if (platform_index == -1 && device_index != -1)
        return clm_fail(CLM_E_INVALID, "a device index needs a platform index");

    /* where the time goes (clm_device_info.open_*_seconds): the first OpenCL call loads
     * every installed driver, a GPU driver's context takes a tenth of a second or more */
    double t_start = clm_now();
    cl_platform_id *plats = NULL;
    cl_uint np = 0;
    int rc = get_platforms(&plats, &np);
    if (rc)
        return rc;
    double t_platforms = clm_now();

    int pi = platform_index, di = device_index;
    if (pi == -1) {
        int got_p = env_index(CLM_ENV_PLATFORM, &pi);
        int got_d = env_index(CLM_ENV_DEVICE, &di);
        if (got_p < 0 || got_d < 0) {
            free(plats);
            return CLM_E_INVALID;
        }
        if (!got_p && got_d)
            pi = 0;
        if (!got_p && !got_d && (rc = choose_auto(plats, np, &pi, &di)) != CLM_OK) {
            free(plats);
            return rc;
        }
    }
    if (di == -1)
        di = 0;

    if ((cl_uint)pi >= np) {
        rc = clm_fail(CLM_E_PLATFORM_INDEX, "platform index %d out of range; %u platform%s:", pi,
                      np, np == 1 ? "" : "s");
        describe_platforms(plats, np);
        free(plats);
        return rc;
    }
    cl_device_id *devs;
    cl_uint nd;
    if ((rc = get_devices(plats[pi], &devs, &nd)) != CLM_OK) {
        free(plats);
        return rc;
    }
    if ((cl_uint)di >= nd) {
        rc = clm_fail(CLM_E_DEVICE_INDEX, "device index %d out of range for platform %d:", di, pi);
        describe_platforms(plats, np);
        free(devs);
        free(plats);
        return rc;
    }

    clm_device *dev = calloc(1, sizeof *dev);
    if (!dev) {
        free(devs);
        free(plats);
        return clm_fail(CLM_E_NOMEM, "out of memory opening a device");
    }
    dev->platform = plats[pi];
    dev->device = devs[di];
    free(devs);
    free(plats);
    fill_info(dev->platform, dev->device, pi, di, 0, &dev->info);
    cl_bool little = CL_TRUE;
    clGetDeviceInfo(dev->device, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, NULL);
    dev->little_endian = little == CL_TRUE;
    dev->hit_check = dev->info.type == CLM_DEVICE_CPU;
    dev->no_funnel_shift = strstr(dev->info.name, "Oclgrind") != NULL;
    /* llvmpipe's loop limiter (gallivm LP_MAX_TGSI_LOOP_ITERATIONS): its name gives the vector
     * width, "llvmpipe (LLVM 15.0.6, 256 bits)", in lanes of 32 bits (16 if it does not) */
    if (strncmp(dev->info.name, "llvmpipe", 8) == 0) {
        const char *comma = strrchr(dev->info.name, ',');
        unsigned bits = 0;
        dev->loop_budget = 65535;
        dev->loop_lanes =
            comma && sscanf(comma, ", %u bits", &bits) == 1 && bits >= 32 ? bits / 32 : 16;
    }
    if ((rc = clm_tune_init(dev)) != CLM_OK) {
        free(dev);
        return rc;
    }
    double t_devices = clm_now();

    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform,
                                     0};
    dev->context = clCreateContext(props, 1, &dev->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        free(dev);
        return clm_fail_cl(err, "clCreateContext");
    }
    dev->info.open_platforms_seconds = t_platforms - t_start;
    dev->info.open_devices_seconds = t_devices - t_platforms;
    dev->info.open_context_seconds = clm_now() - t_devices;
    pthread_mutex_init(&dev->lock, NULL);
    pthread_mutex_init(&dev->stage_lock, NULL);
    pthread_mutex_init(&dev->like_pool.lock, NULL);
    *out = dev;
    return CLM_OK;
}

int clm_device_model(const clm_device_info *info, int little_endian, clm_device **out)
{
    if (!info || !out)
        return clm_fail(CLM_E_INVALID, "clm_device_model: NULL argument");
    clm_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    dev->info = *info;
    dev->model = 1;
    dev->little_endian = little_endian;
    dev->hit_check = info->type == CLM_DEVICE_CPU;
    int rc = clm_tune_init(dev);
    if (rc != CLM_OK) {
        free(dev);
        return rc;
    }
    pthread_mutex_init(&dev->lock, NULL);
    pthread_mutex_init(&dev->stage_lock, NULL);
    pthread_mutex_init(&dev->like_pool.lock, NULL);
    *out = dev;
    return CLM_OK;
}

int clm_device_get_info(const clm_device *dev, clm_device_info *info, size_t size)
{
    if (!dev || !info)
        return clm_fail(CLM_E_INVALID, "clm_device_get_info: NULL argument");
    return clm_copy_out(info, size, &dev->info, sizeof dev->info, CLM_DEVICE_INFO_V1,
                        "clm_device_info");
}

void clm_device_close(clm_device *dev)
{
    if (!dev)
        return;
    clm_release_programs(dev);
    clm_like_stage_free(dev);
    clm_pool_free(dev);
    if (dev->context)
        clReleaseContext(dev->context);
    pthread_mutex_destroy(&dev->lock);
    pthread_mutex_destroy(&dev->stage_lock);
    pthread_mutex_destroy(&dev->like_pool.lock);
    free(dev);
}
