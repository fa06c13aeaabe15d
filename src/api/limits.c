/* Device limits: read from the driver once per device, kept for the process. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "api/limits.h"
#include "loader/fork.h"
#include "loader/diag.h"
#include "loader/loader.h"

/* Devices past this ordinal get no cached limits, and so no launches through cushim. */
#define MAX_DEVICES 256

/* ready_generation is the loader's generation the limits were read in (0: never), so a driver
 * loaded again by cushim_testing_reinit() has its devices read again. */
typedef struct device_slot {
    atomic_uint ready_generation;
    cushim__limits limits;
} device_slot;

static device_slot slots[MAX_DEVICES];
static pthread_mutex_t limits_lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult read_device(cushim__limits *l, CUdevice dev, int ordinal, const char *fn) {
    static const struct {
        CUdevice_attribute attr;
        const char *name;
    } wanted[] = {
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z"},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
         "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT"},
        {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "COOPERATIVE_LAUNCH"},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR"},
        {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "CLUSTER_LAUNCH"},
    };
    int v[sizeof wanted / sizeof wanted[0]];
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        CUresult r = cushim__table.cuDeviceGetAttribute(&v[i], wanted[i].attr, dev);
        /* A driver older than CUDA 11.8 does not know the attribute, and has no clusters. */
        if (r == CUDA_ERROR_INVALID_VALUE && wanted[i].attr == CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) {
            v[i] = 0;
            r = CUDA_SUCCESS;
        }
        if (r != CUDA_SUCCESS) {
            return cushim__fail(r, "%s: device %d: reading CU_DEVICE_ATTRIBUTE_%s failed with %s",
                                fn, ordinal, wanted[i].name, cushim_error_name(r));
        }
    }
    l->max_threads_per_block = v[0];
    for (int i = 0; i < 3; i++) {
        l->max_block[i] = v[1 + i];
        l->max_grid[i] = v[4 + i];
    }
    l->max_smem_per_block = v[7];
    /* Devices without opt-in report less than the plain limit, or nothing: the plain one holds. */
    l->max_smem_per_block_optin = v[8] > v[7] ? v[8] : v[7];
    l->sm_count = v[9];
    l->cooperative = v[10];
    l->cc_major = v[11];
    l->cluster_launch = v[12];
    /* The library's own default-stream mode picks which of the two entries it calls. */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
    l->launch_ex = cushim_driver_has("cuLaunchKernelEx_ptsz");
#else
    l->launch_ex = cushim_driver_has("cuLaunchKernelEx");
#endif
    return CUDA_SUCCESS;
}

CUresult cushim__read_limits(CUdevice dev, int ordinal, const cushim__limits **out,
                             const char *fn) {
    if (ordinal < 0 || ordinal >= MAX_DEVICES) {
        return cushim__fail(CUDA_ERROR_INVALID_DEVICE,
                            "%s: device %d: cushim keeps the limits of devices 0 to %d only", fn,
                            ordinal, MAX_DEVICES - 1);
    }
    device_slot *slot = &slots[ordinal];
    /* Read once per device: the acquire pairs with the release below, so a thread that sees
     * ready sees the limits. A failed read leaves the slot empty for a later try. */
    unsigned generation = atomic_load_explicit(&cushim__load_generation, memory_order_relaxed);
    if (atomic_load_explicit(&slot->ready_generation, memory_order_acquire) != generation) {
        if (cushim__forked) return cushim__forked_refusal(fn);
        /* Read outside the lock (the driver is never called under it); the lock only makes one
         * writer store the slot. Two threads may both read: they read the same. */
        cushim__limits l;
        CUresult r = read_device(&l, dev, ordinal, fn);
        if (r != CUDA_SUCCESS) return r;
        pthread_mutex_lock(&limits_lock);
        if (atomic_load_explicit(&slot->ready_generation, memory_order_relaxed) != generation) {
            slot->limits = l;
            atomic_store_explicit(&slot->ready_generation, generation, memory_order_release);
        }
        pthread_mutex_unlock(&limits_lock);
    }
    *out = &slot->limits;
    return CUDA_SUCCESS;
}

unsigned cushim__dynamic_smem_limit(const cushim__limits *l, int static_smem,
                                    int attr_max_dynamic) {
    long long plain = (long long)l->max_smem_per_block - static_smem;
    long long dynamic = attr_max_dynamic > 0 ? attr_max_dynamic : plain;
    long long cap = (long long)l->max_smem_per_block_optin - static_smem;
    if (dynamic > cap) dynamic = cap;
    if (dynamic < 0) dynamic = 0;
    return dynamic > UINT_MAX ? UINT_MAX : (unsigned)dynamic;
}
