/* Stream-ordered allocation and memory pools: cudaMallocAsync, cudaFreeAsync and the pool
 * functions, each one driver call. A cudaMemPool_t is the driver's CUmemoryPool, and the
 * runtime's pool properties, access descriptions, locations and attributes have the driver's
 * layouts and numbers (checked below), so they pass through as they are. */
#include <stddef.h>
#include <stdint.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"

_Static_assert(sizeof(struct cudaMemPoolProps) == sizeof(CUmemPoolProps), "pool properties");
_Static_assert(offsetof(struct cudaMemPoolProps, location) == offsetof(CUmemPoolProps, location),
               "pool properties' location");
_Static_assert(offsetof(struct cudaMemPoolProps, maxSize) == offsetof(CUmemPoolProps, maxSize),
               "pool properties' maxSize");
_Static_assert(offsetof(struct cudaMemPoolProps, usage) == offsetof(CUmemPoolProps, usage),
               "pool properties' usage");
_Static_assert(sizeof(struct cudaMemAccessDesc) == sizeof(CUmemAccessDesc), "access description");
_Static_assert(sizeof(struct cudaMemLocation) == sizeof(CUmemLocation), "memory location");
_Static_assert((int)cudaMemPoolReuseFollowEventDependencies ==
                       (int)CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
                   (int)cudaMemPoolAttrReleaseThreshold == (int)CU_MEMPOOL_ATTR_RELEASE_THRESHOLD &&
                   (int)cudaMemPoolAttrUsedMemHigh == (int)CU_MEMPOOL_ATTR_USED_MEM_HIGH,
               "pool attributes");
_Static_assert((int)cudaMemAccessFlagsProtReadWrite == (int)CU_MEM_ACCESS_FLAGS_PROT_READWRITE &&
                   (int)cudaMemLocationTypeDevice == (int)CU_MEM_LOCATION_TYPE_DEVICE &&
                   (int)cudaMemAllocationTypePinned == (int)CU_MEM_ALLOCATION_TYPE_PINNED,
               "access flags, location and allocation types");

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* ------------------------------------------------------------------------------------------ */
/* Allocation in stream order                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* cudaMallocAsync (pool NULL: the stream's device's current pool) and cudaMallocFromPoolAsync. */
static cudaError_t alloc_async(void **ptr, size_t size, cudaMemPool_t pool, bool from_pool,
                               cudaStream_t stream, bool pt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, ptr);
    *ptr = NULL;
    if (from_pool) CUSHIM__RT_NONNULL(fn, pool);
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    CUdeviceptr p = 0;
    CUstream s = cushim__rt_stream(stream, pt);
    CUresult r = from_pool ? cushim__rt_table(pt)->cuMemAllocFromPoolAsync(&p, size, pool, s)
                           : cushim__rt_table(pt)->cuMemAllocAsync(&p, size, s);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        return cushim__rt_fail(cudaErrorMemoryAllocation,
                               "%s: %zu bytes: the device is out of memory", fn, size);
    }
    e = cushim__rt_checked(r, fn, from_pool ? "cuMemAllocFromPoolAsync" : "cuMemAllocAsync");
    if (e == cudaSuccess) *ptr = (void *)(uintptr_t)p;
    return e;
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
    return alloc_async(devPtr, size, NULL, false, hStream, false, __func__);
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream) {
    return alloc_async(devPtr, size, NULL, false, hStream, true, __func__);
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream) {
    return alloc_async(ptr, size, memPool, true, stream, false, __func__);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                         cudaStream_t stream) {
    return alloc_async(ptr, size, memPool, true, stream, true, __func__);
}

static cudaError_t free_async(void *ptr, cudaStream_t stream, bool pt, const char *fn) {
    CUSHIM__RT_FORWARD(
        fn, "cuMemFreeAsync",
        cushim__rt_table(pt)->cuMemFreeAsync(DPTR(ptr), cushim__rt_stream(stream, pt)));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
    return free_async(devPtr, hStream, false, __func__);
}

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream) {
    return free_async(devPtr, hStream, true, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* Pools                                                                                      */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps) {
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_NONNULL(__func__, poolProps);
    CUSHIM__RT_FORWARD(__func__, "cuMemPoolCreate",
                       cushim__table.cuMemPoolCreate(memPool, (const CUmemPoolProps *)poolProps));
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_FORWARD(__func__, "cuMemPoolDestroy", cushim__table.cuMemPoolDestroy(memPool));
}

/* Both attribute functions: the pool and value checked, then attr read or set. */
static cudaError_t pool_attribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value,
                                  bool set, const char *fn) {
    CUSHIM__RT_NONNULL(fn, pool);
    CUSHIM__RT_NONNULL(fn, value);
    const CUmemPool_attribute a = (CUmemPool_attribute)attr;
    CUSHIM__RT_FORWARD(fn, set ? "cuMemPoolSetAttribute" : "cuMemPoolGetAttribute",
                       set ? cushim__table.cuMemPoolSetAttribute(pool, a, value)
                           : cushim__table.cuMemPoolGetAttribute(pool, a, value));
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value) {
    return pool_attribute(memPool, attr, value, true, __func__);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value) {
    return pool_attribute(memPool, attr, value, false, __func__);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_FORWARD(__func__, "cuMemPoolTrimTo",
                       cushim__table.cuMemPoolTrimTo(memPool, minBytesToKeep));
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList,
                                 size_t count) {
    CUSHIM__RT_NONNULL(__func__, memPool);
    if (count > 0) CUSHIM__RT_NONNULL(__func__, descList);
    CUSHIM__RT_FORWARD(
        __func__, "cuMemPoolSetAccess",
        cushim__table.cuMemPoolSetAccess(memPool, (const CUmemAccessDesc *)descList, count));
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                 struct cudaMemLocation *location) {
    CUSHIM__RT_NONNULL(__func__, flags);
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_NONNULL(__func__, location);
    CUSHIM__RT_FORWARD(__func__, "cuMemPoolGetAccess",
                       cushim__table.cuMemPoolGetAccess((CUmemAccess_flags *)flags, memPool,
                                                        (CUmemLocation *)location));
}

/* ------------------------------------------------------------------------------------------ */
/* A device's pools                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* A device's default pool (GET_DEFAULT) or current pool (GET) into *pool, or *pool made its
 * current pool (SET): the ordinal checked and the device's primary context made ready. */
typedef enum { GET_DEFAULT, GET, SET } pool_op;

static cudaError_t device_pool(cudaMemPool_t *pool, int device, pool_op op, const char *fn) {
    if (pool == NULL || (op == SET && *pool == NULL))
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: memPool is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context_of(&ctx, device, fn);
    if (e != cudaSuccess) return e;
    switch (op) {
    case GET_DEFAULT:
        return cushim__rt_checked(cushim__table.cuDeviceGetDefaultMemPool(pool, ctx->device), fn,
                                  "cuDeviceGetDefaultMemPool");
    case GET:
        return cushim__rt_checked(cushim__table.cuDeviceGetMemPool(pool, ctx->device), fn,
                                  "cuDeviceGetMemPool");
    default:
        return cushim__rt_checked(cushim__table.cuDeviceSetMemPool(ctx->device, *pool), fn,
                                  "cuDeviceSetMemPool");
    }
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
    return device_pool(memPool, device, GET_DEFAULT, __func__);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
    return device_pool(memPool, device, GET, __func__);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
    return device_pool(&memPool, device, SET, __func__);
}

/* The pools of a location (CUDA 13): a device, the host or a host NUMA node, for pinned or
 * managed allocations. */
static cudaError_t location_pool(cudaMemPool_t *pool, struct cudaMemLocation *location,
                                 enum cudaMemAllocationType type, bool dflt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, pool);
    CUSHIM__RT_NONNULL(fn, location);
    CUmemLocation *l = (CUmemLocation *)location;
    const CUmemAllocationType t = (CUmemAllocationType)type;
    CUSHIM__RT_FORWARD(fn, dflt ? "cuMemGetDefaultMemPool" : "cuMemGetMemPool",
                       dflt ? cushim__table.cuMemGetDefaultMemPool(pool, l, t)
                            : cushim__table.cuMemGetMemPool(pool, l, t));
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                     enum cudaMemAllocationType type) {
    return location_pool(memPool, location, type, true, __func__);
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                              enum cudaMemAllocationType type) {
    return location_pool(memPool, location, type, false, __func__);
}

cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location, enum cudaMemAllocationType type,
                              cudaMemPool_t memPool) {
    CUSHIM__RT_NONNULL(__func__, location);
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_FORWARD(__func__, "cuMemSetMemPool",
                       cushim__table.cuMemSetMemPool((CUmemLocation *)location,
                                                     (CUmemAllocationType)type, memPool));
}

/* ------------------------------------------------------------------------------------------ */
/* Sharing pools between processes                                                            */
/* ------------------------------------------------------------------------------------------ */

_Static_assert(sizeof(struct cudaMemPoolPtrExportData) == sizeof(CUmemPoolPtrExportData),
               "pool pointer export data");

cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
                                               enum cudaMemAllocationHandleType handleType,
                                               unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, shareableHandle);
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_FORWARD(__func__, "cuMemPoolExportToShareableHandle",
                       cushim__table.cuMemPoolExportToShareableHandle(
                           shareableHandle, memPool, (CUmemAllocationHandleType)handleType, flags));
}

cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle,
                                                 enum cudaMemAllocationHandleType handleType,
                                                 unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_FORWARD(__func__, "cuMemPoolImportFromShareableHandle",
                       cushim__table.cuMemPoolImportFromShareableHandle(
                           memPool, shareableHandle, (CUmemAllocationHandleType)handleType, flags));
}

cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr) {
    CUSHIM__RT_NONNULL(__func__, exportData);
    CUSHIM__RT_FORWARD(
        __func__, "cuMemPoolExportPointer",
        cushim__table.cuMemPoolExportPointer((CUmemPoolPtrExportData *)exportData, DPTR(ptr)));
}

cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool,
                                     struct cudaMemPoolPtrExportData *exportData) {
    CUSHIM__RT_NONNULL(__func__, ptr);
    CUSHIM__RT_NONNULL(__func__, memPool);
    CUSHIM__RT_NONNULL(__func__, exportData);
    CUdeviceptr p = 0;
    CUSHIM__RT_FORWARD_THEN(
        __func__, "cuMemPoolImportPointer",
        cushim__table.cuMemPoolImportPointer(&p, memPool, (CUmemPoolPtrExportData *)exportData),
        *ptr = (void *)(uintptr_t)p);
}
