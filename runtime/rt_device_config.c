/* The current device's configuration and identity: its limits (stack, printf FIFO, heap, ...),
 * preferred cache and shared memory configurations, and its PCI bus id both ways. The
 * runtime's cudaLimit, cudaFuncCache and cudaSharedMemConfig have the driver's numbers. */
#include <string.h>

#include "runtime/rt_forward.h"

_Static_assert((int)cudaLimitStackSize == (int)CU_LIMIT_STACK_SIZE &&
                   (int)cudaLimitMallocHeapSize == (int)CU_LIMIT_MALLOC_HEAP_SIZE &&
                   (int)cudaLimitPersistingL2CacheSize == (int)CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
               "limit numbers");
_Static_assert((int)cudaFuncCachePreferEqual == (int)CU_FUNC_CACHE_PREFER_EQUAL,
               "cache config numbers");
_Static_assert((int)cudaSharedMemBankSizeEightByte ==
                   (int)CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE,
               "shared memory config numbers");

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
    CUSHIM__RT_NONNULL(__func__, pValue);
    CUSHIM__RT_FORWARD(__func__, "cuCtxGetLimit",
                       cushim__table.cuCtxGetLimit(pValue, (CUlimit)limit));
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    CUSHIM__RT_FORWARD(__func__, "cuCtxSetLimit",
                       cushim__table.cuCtxSetLimit((CUlimit)limit, value));
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
    CUSHIM__RT_NONNULL(__func__, pCacheConfig);
    CUSHIM__RT_FORWARD(__func__, "cuCtxGetCacheConfig",
                       cushim__table.cuCtxGetCacheConfig((CUfunc_cache *)pCacheConfig));
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
    if ((unsigned)cacheConfig > (unsigned)cudaFuncCachePreferEqual) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: %d is not a cudaFuncCache", __func__,
                               (int)cacheConfig);
    }
    CUSHIM__RT_FORWARD(__func__, "cuCtxSetCacheConfig",
                       cushim__table.cuCtxSetCacheConfig((CUfunc_cache)cacheConfig));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig) {
    CUSHIM__RT_NONNULL(__func__, pConfig);
    CUSHIM__RT_FORWARD(__func__, "cuCtxGetSharedMemConfig",
                       cushim__table.cuCtxGetSharedMemConfig((CUsharedconfig *)pConfig));
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    if ((unsigned)config > (unsigned)cudaSharedMemBankSizeEightByte) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: %d is not a cudaSharedMemConfig",
                               __func__, (int)config);
    }
    CUSHIM__RT_FORWARD(__func__, "cuCtxSetSharedMemConfig",
                       cushim__table.cuCtxSetSharedMemConfig((CUsharedconfig)config));
}
#pragma GCC diagnostic pop

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    CUSHIM__RT_NONNULL(__func__, pciBusId);
    if (len <= 0) return cushim__rt_fail(cudaErrorInvalidValue, "%s: len is %d", __func__, len);
    CUdevice dev;
    cudaError_t e = cushim__rt_device_handle(&dev, device, __func__);
    if (e != cudaSuccess) return e;
    return cushim__rt_checked(cushim__table.cuDeviceGetPCIBusId(pciBusId, len, dev), __func__,
                              "cuDeviceGetPCIBusId");
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
    CUSHIM__RT_NONNULL(__func__, device);
    CUSHIM__RT_NONNULL(__func__, pciBusId);
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    CUdevice found;
    e = cushim__rt_checked(cushim__table.cuDeviceGetByPCIBusId(&found, pciBusId), __func__,
                           "cuDeviceGetByPCIBusId");
    if (e != cudaSuccess) return e;
    /* The runtime's ordinal is the one whose CUdevice the driver named. */
    for (int i = 0; i < n; i++) {
        CUdevice d;
        if (cushim__table.cuDeviceGet(&d, i) == CUDA_SUCCESS && d == found) {
            *device = i;
            return cudaSuccess;
        }
    }
    return cushim__rt_fail(cudaErrorInvalidDevice,
                           "%s: the driver's device for %s is none of the runtime's %d", __func__,
                           pciBusId, n);
}
