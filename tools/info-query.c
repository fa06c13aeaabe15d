/* cushim-info: the queries, each of which may fail on its own without hiding the others. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cushim_mock.h"
#include "info-query.h"

/* The plain device attributes, in print order. CU_DEVICE_ATTRIBUTE_CLOCK_RATE and
 * MEMORY_CLOCK_RATE are still in CUDA 13.0's cuda.h, but a driver may stop answering them;
 * that reads "unknown" like any other failed query. */
const attr_spec attr_specs[] = {
    {"multiprocessors (SMs)", "sm_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, KIND_COUNT},
    {"cooperative launch", "cooperative_launch", CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, KIND_BOOL},
    {"max threads per block", "max_threads_per_block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
     KIND_COUNT},
    {"shared memory per block", "shared_memory_per_block_bytes",
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, KIND_BYTES},
    {"shared memory per block (opt-in)", "shared_memory_per_block_optin_bytes",
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, KIND_BYTES},
    {"shared memory per SM", "shared_memory_per_sm_bytes",
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, KIND_BYTES},
    {"max threads per SM", "max_threads_per_sm", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
     KIND_COUNT},
    {"clock rate", "clock_rate_khz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE, KIND_KHZ},
    {"memory clock rate", "memory_clock_rate_khz", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, KIND_KHZ},
    {"L2 cache", "l2_cache_bytes", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, KIND_BYTES},
    {"warp size", "warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE, KIND_COUNT},
};

_Static_assert(sizeof attr_specs / sizeof attr_specs[0] == ATTR_COUNT,
               "ATTR_COUNT is the table's size");

static value query_attr(const cushim_driver_table *drv, CUdevice dev, CUdevice_attribute attr) {
    int v = 0;
    value out = {drv->cuDeviceGetAttribute(&v, attr, dev), 0};
    if (out.r == CUDA_SUCCESS) out.v = v;
    return out;
}

static value query_total_mem(const cushim_driver_table *drv, CUdevice dev) {
    size_t bytes = 0;
    value out = {drv->cuDeviceTotalMem(&bytes, dev), 0};
    if (out.r == CUDA_SUCCESS) out.v = (long long)bytes;
    return out;
}

/* Fills a string buffer from the driver. The buffer is cleared first and the driver is given one
 * byte less than its size, so that the text is terminated whatever the driver writes. */
static void query_strings(const cushim_driver_table *drv, CUdevice dev, device_report *d) {
    memset(d->name, 0, sizeof d->name);
    d->name_r = drv->cuDeviceGetName(d->name, (int)sizeof d->name - 1, dev);
    memset(d->pci_bus_id, 0, sizeof d->pci_bus_id);
    d->pci_r = drv->cuDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id - 1, dev);
}

void query_device(const cushim_driver_table *drv, int ordinal, device_report *d) {
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    CUdevice dev = 0;
    d->get_r = drv->cuDeviceGet(&dev, ordinal);
    if (d->get_r != CUDA_SUCCESS) return;
    query_strings(drv, dev, d);
    d->cc_major = query_attr(drv, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d->cc_minor = query_attr(drv, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d->total_mem = query_total_mem(drv, dev);
    for (size_t i = 0; i < ATTR_COUNT; i++) d->attrs[i] = query_attr(drv, dev, attr_specs[i].attr);
}

bool count_devices(const cushim_driver_table *drv, int *count, char *why, size_t n) {
    *count = 0;
    if (drv == NULL) {
        snprintf(why, n, "the driver table is not available: %s", cushim_last_error());
        return false;
    }
    CUresult r = drv->cuDeviceGetCount(count);
    if (r != CUDA_SUCCESS) {
        snprintf(why, n, "cuDeviceGetCount failed with %s (%s)", cushim_error_name(r),
                 cushim_error_string(r));
        *count = 0;
        return false;
    }
    if (*count <= 0) {
        /* A negative count is nonsense from a broken driver; it is reported, not looped over. */
        snprintf(why, n, "the driver reports %d CUDA devices", *count);
        *count = 0;
        return false;
    }
    return true;
}

bool format_version(char *buf, size_t n, int v) {
    if (v <= 0) return false;
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
    return true;
}

bool query_mock(const cushim_driver_info *info, int *implemented, int *total) {
    *implemented = *total = 0;
    if (info->status != CUSHIM_DRIVER_LOADED || info->path == NULL) return false;
    /* RTLD_NOLOAD: the library cushim loaded, never another one. */
    void *h = dlopen(info->path, RTLD_NOLOAD | RTLD_LAZY);
    if (h == NULL) return false;
    void *sym = dlsym(h, "cushim_mock_get_api");
    bool found = false;
    if (sym != NULL) {
        /* A mock of a newer cushim may fill a larger API: room to spare, zeroed, so that the
         * functions an older mock lacks read as NULL. */
        union {
            cushim_mock_api api;
            char room[4096];
        } u;
        memset(&u, 0, sizeof u);
        void (*fill)(cushim_mock_api *);
        memcpy(&fill, &sym, sizeof fill);
        fill(&u.api);
        if (u.api.implemented_count != NULL && u.api.entry_count != NULL) {
            *implemented = u.api.implemented_count();
            *total = u.api.entry_count();
            found = true;
        }
    }
    dlclose(h);
    return found;
}

const cushim_lib info_libs[INFO_LIB_COUNT] = {CUSHIM_LIB_NVRTC, CUSHIM_LIB_NVJITLINK};
const char *const info_lib_keys[INFO_LIB_COUNT] = {"nvrtc", "nvjitlink"};

bool info_devices_cut(int count, char *buf, size_t n) {
    if (count <= INFO_MAX_LISTED) return false;
    snprintf(buf, n,
             "the first %d of the %d devices the driver reports (cushim-info lists at most %d)",
             INFO_MAX_LISTED, count, INFO_MAX_LISTED);
    return true;
}
