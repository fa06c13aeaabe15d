/* A device's settings in its primary context (limits, cache preference) and its PCI bus id. */
#include "runtime/rt.h"

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    /* cudaLimit has the numbers of CUlimit. */
    CUresult r = cushim__table.cuCtxSetLimit((CUlimit)limit, value);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxSetLimit");
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
    if (pValue == NULL)
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pValue is NULL", __func__);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuCtxGetLimit(pValue, (CUlimit)limit);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxGetLimit");
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuCtxSetCacheConfig((CUfunc_cache)cacheConfig);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxSetCacheConfig");
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
    if (pCacheConfig == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pCacheConfig is NULL", __func__);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUfunc_cache c = CU_FUNC_CACHE_PREFER_NONE;
    CUresult r = cushim__table.cuCtxGetCacheConfig(&c);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxGetCacheConfig");
    *pCacheConfig = (enum cudaFuncCache)c;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    if (pciBusId == NULL || len <= 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pciBusId is NULL or len %d", __func__,
                               len);
    }
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: device %d does not exist (%d)",
                               __func__, device, n);
    }
    CUdevice dev;
    CUresult r = cushim__table.cuDeviceGet(&dev, device);
    if (r == CUDA_SUCCESS) r = cushim__table.cuDeviceGetPCIBusId(pciBusId, len, dev);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDeviceGetPCIBusId");
    return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
    if (device == NULL || pciBusId == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: device or pciBusId is NULL", __func__);
    }
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    CUdevice dev;
    CUresult r = cushim__table.cuDeviceGetByPCIBusId(&dev, pciBusId);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDeviceGetByPCIBusId");
    /* Ordinals and CUdevice values are the same numbers. */
    *device = (int)dev;
    return cudaSuccess;
}
