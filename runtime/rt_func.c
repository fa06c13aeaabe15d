/* A kernel's attributes, its cache and shared memory configuration, and the occupancy queries
 * the header's cudaOccupancyMaxPotentialBlockSize templates are built on. The kernel is found by
 * its host function (or its cudaKernel_t) and loaded on the current device first. */
#include <stddef.h>
#include <string.h>

#include "api/function.h"
#include "runtime/rt.h"

typedef struct func_attr {
    size_t offset;
    CUfunction_attribute attr;
    bool wide;
} func_attr;

#define INT(field, attr)                                                                           \
    { offsetof(struct cudaFuncAttributes, field), CU_FUNC_ATTRIBUTE_##attr, false }
#define SIZE(field, attr)                                                                          \
    { offsetof(struct cudaFuncAttributes, field), CU_FUNC_ATTRIBUTE_##attr, true }

static const func_attr attrs[] = {
    SIZE(sharedSizeBytes, SHARED_SIZE_BYTES),
    SIZE(constSizeBytes, CONST_SIZE_BYTES),
    SIZE(localSizeBytes, LOCAL_SIZE_BYTES),
    INT(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK),
    INT(numRegs, NUM_REGS),
    INT(ptxVersion, PTX_VERSION),
    INT(binaryVersion, BINARY_VERSION),
    INT(cacheModeCA, CACHE_MODE_CA),
    INT(maxDynamicSharedSizeBytes, MAX_DYNAMIC_SHARED_SIZE_BYTES),
    INT(preferredShmemCarveout, PREFERRED_SHARED_MEMORY_CARVEOUT),
    INT(clusterDimMustBeSet, CLUSTER_SIZE_MUST_BE_SET),
    INT(requiredClusterWidth, REQUIRED_CLUSTER_WIDTH),
    INT(requiredClusterHeight, REQUIRED_CLUSTER_HEIGHT),
    INT(requiredClusterDepth, REQUIRED_CLUSTER_DEPTH),
    INT(clusterSchedulingPolicyPreference, CLUSTER_SCHEDULING_POLICY_PREFERENCE),
    INT(nonPortableClusterSizeAllowed, NON_PORTABLE_CLUSTER_SIZE_ALLOWED),
};

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    if (attr == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: attr is NULL", __func__);
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, func, __func__);
    if (e != cudaSuccess) return e;
    memset(attr, 0, sizeof *attr);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int v = 0;
        /* An attribute the driver does not know reads as 0. */
        if (cushim__table.cuFuncGetAttribute(&v, attrs[i].attr, f->fn) != CUDA_SUCCESS) v = 0;
        char *at = (char *)attr + attrs[i].offset;
        if (attrs[i].wide) {
            size_t w = (size_t)(unsigned)v;
            memcpy(at, &w, sizeof w);
        } else {
            memcpy(at, &v, sizeof v);
        }
    }
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, func, __func__);
    if (e != cudaSuccess) return e;
    /* cudaFuncAttribute has the numbers of CUfunction_attribute. The launch reads the kernel's
     * dynamic shared memory limit again before it refuses, so a raised one is seen. */
    CUresult r = cushim__table.cuFuncSetAttribute(f->fn, (CUfunction_attribute)attr, value);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuFuncSetAttribute");
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, func, __func__);
    if (e != cudaSuccess) return e;
    /* cudaFuncCache has the numbers of CUfunc_cache. */
    CUresult r = cushim__table.cuFuncSetCacheConfig(f->fn, (CUfunc_cache)cacheConfig);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuFuncSetCacheConfig");
    return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char **name, const void *func) {
    if (name == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: name is NULL", __func__);
    cushim__rt_kernel *k = cushim__rt_kernel_of(func);
    if (k == NULL) {
        return cushim__rt_fail(cudaErrorInvalidDeviceFunction, "%s: %p is not a registered kernel",
                               __func__, func);
    }
    *name = k->name;
    return cudaSuccess;
}

static cudaError_t active_blocks(int *numBlocks, const void *func, int blockSize, size_t smem,
                                 unsigned flags, const char *fn) {
    if (numBlocks == NULL)
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: numBlocks is NULL", fn);
    *numBlocks = 0;
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, func, fn);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, f->fn, blockSize, smem, flags);
    if (r != CUDA_SUCCESS) {
        return cushim__rt_driver_failed(r, fn, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    }
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize) {
    return active_blocks(numBlocks, func, blockSize, dynamicSMemSize, 0, __func__);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags) {
    /* cudaOccupancyDefault and cudaOccupancyDisableCachingOverride are CU_OCCUPANCY_*. */
    return active_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags, __func__);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                      int numBlocks, int blockSize) {
    if (dynamicSmemSize == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: dynamicSmemSize is NULL", __func__);
    }
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, func, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, f->fn,
                                                                       numBlocks, blockSize);
    if (r != CUDA_SUCCESS) {
        return cushim__rt_driver_failed(r, __func__, "cuOccupancyAvailableDynamicSMemPerBlock");
    }
    return cudaSuccess;
}
