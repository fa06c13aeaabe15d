/* Managed memory and what the runtime tells of pointers: cudaMallocManaged, prefetches, advice
 * and range attributes (accepted and forwarded: where the driver has no use for advice it still
 * answers), stream attachment and cudaHostGetFlags. Locations, advice
 * and range attributes have the driver's layouts and numbers (checked below). */
#include <stdint.h>
#include <string.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"

_Static_assert((int)cudaMemAdviseSetReadMostly == (int)CU_MEM_ADVISE_SET_READ_MOSTLY &&
                   (int)cudaMemAdviseUnsetAccessedBy == (int)CU_MEM_ADVISE_UNSET_ACCESSED_BY,
               "advice");
_Static_assert((int)cudaMemRangeAttributeReadMostly == (int)CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
                   (int)cudaMemRangeAttributeLastPrefetchLocationId ==
                       (int)CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
               "range attributes");
_Static_assert((int)cudaMemAttachGlobal == (int)CU_MEM_ATTACH_GLOBAL &&
                   (int)cudaMemAttachHost == (int)CU_MEM_ATTACH_HOST &&
                   (int)cudaMemAttachSingle == (int)CU_MEM_ATTACH_SINGLE,
               "attach flags");

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* A location of the runtime as the driver's (the same two fields). */
static CUmemLocation location_of(struct cudaMemLocation l) {
    return (CUmemLocation){.type = (CUmemLocationType)l.type, .id = l.id};
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, devPtr);
    *devPtr = NULL;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: flags 0x%x: cudaMemAttachGlobal or cudaMemAttachHost", __func__,
                               flags);
    }
    /* As NVIDIA documents: unlike cudaMalloc, a size of 0 is refused. */
    if (size == 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: size is 0", __func__);
    }
    cudaError_t e = cushim__rt_ready(__func__);
    if (e != cudaSuccess) return e;
    CUdeviceptr p = 0;
    CUresult r = cushim__table.cuMemAllocManaged(&p, size, flags);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        return cushim__rt_fail(cudaErrorMemoryAllocation, "%s: %zu bytes: out of memory", __func__,
                               size);
    }
    e = cushim__rt_checked(r, __func__, "cuMemAllocManaged");
    if (e == cudaSuccess) *devPtr = (void *)(uintptr_t)p;
    return e;
}

static cudaError_t prefetch(const void *ptr, size_t count, struct cudaMemLocation location,
                            unsigned flags, cudaStream_t stream, bool pt, const char *fn) {
    CUSHIM__RT_FORWARD(fn, "cuMemPrefetchAsync",
                       cushim__rt_table(pt)->cuMemPrefetchAsync(DPTR(ptr), count,
                                                                location_of(location), flags,
                                                                cushim__rt_stream(stream, pt)));
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
    return prefetch(devPtr, count, location, flags, stream, false, __func__);
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                      struct cudaMemLocation location, unsigned int flags,
                                      cudaStream_t stream) {
    return prefetch(devPtr, count, location, flags, stream, true, __func__);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location) {
    CUSHIM__RT_FORWARD(__func__, "cuMemAdvise",
                       cushim__table.cuMemAdvise(DPTR(devPtr), count, (CUmem_advise)advice,
                                                 location_of(location)));
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                     enum cudaMemRangeAttribute attribute, const void *devPtr,
                                     size_t count) {
    CUSHIM__RT_NONNULL(__func__, data);
    CUSHIM__RT_FORWARD(__func__, "cuMemRangeGetAttribute",
                       cushim__table.cuMemRangeGetAttribute(
                           data, dataSize, (CUmem_range_attribute)attribute, DPTR(devPtr), count));
}

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                      enum cudaMemRangeAttribute *attributes, size_t numAttributes,
                                      const void *devPtr, size_t count) {
    if (numAttributes > 0 && (data == NULL || dataSizes == NULL || attributes == NULL)) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: data, dataSizes or attributes is NULL",
                               __func__);
    }
    CUSHIM__RT_FORWARD(__func__, "cuMemRangeGetAttributes",
                       cushim__table.cuMemRangeGetAttributes(data, dataSizes,
                                                             (CUmem_range_attribute *)attributes,
                                                             numAttributes, DPTR(devPtr), count));
}

static cudaError_t attach(cudaStream_t stream, void *ptr, size_t length, unsigned flags, bool pt,
                          const char *fn) {
    CUSHIM__RT_FORWARD(fn, "cuStreamAttachMemAsync",
                       cushim__rt_table(pt)->cuStreamAttachMemAsync(cushim__rt_stream(stream, pt),
                                                                    DPTR(ptr), length, flags));
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags) {
    return attach(stream, devPtr, length, flags, false, __func__);
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                          unsigned int flags) {
    return attach(stream, devPtr, length, flags, true, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* Pointers                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* cudaPointerGetAttributes is rt_pointer.c's (both branches wrote one; the merge kept one). */

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
    CUSHIM__RT_NONNULL(__func__, pFlags);
    CUSHIM__RT_NONNULL(__func__, pHost);
    CUSHIM__RT_FORWARD(__func__, "cuMemHostGetFlags",
                       cushim__table.cuMemHostGetFlags(pFlags, pHost));
}
