/* Hints on managed memory, its attachment to streams, and the flags of pinned host memory. The
 * mock's managed memory is host memory that the device reads in place, so a prefetch moves nothing
 * and advice changes nothing: each call checks its arguments as the driver does (a managed range, a
 * location that exists) and answers. */
#include "mock.h"

/* [p, p + n) inside one managed allocation; CUDA_ERROR_INVALID_VALUE otherwise. */
static CUresult managed_range(CUdeviceptr p, size_t n) {
    mock_range *r = mock__range_at((uintptr_t)p, false);
    if (r == NULL || r->kind != MOCK_MEM_MANAGED || n == 0) return CUDA_ERROR_INVALID_VALUE;
    if (n > r->size - ((uintptr_t)p - r->base)) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* A device that exists, or the host (any of its NUMA forms). */
static CUresult location(CUmemLocation l) {
    switch (l.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return mock__valid_device(l.id) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI mock_cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation l,
                                            unsigned int flags, CUstream hs) {
    MOCK_ENTER(cuMemPrefetchAsync_v2);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    if (r == CUDA_SUCCESS && flags != 0) r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) r = location(l);
    if (r == CUDA_SUCCESS) r = managed_range(p, n);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemAdvise_v2(CUdeviceptr p, size_t n, CUmem_advise advice,
                                     CUmemLocation l) {
    MOCK_ENTER(cuMemAdvise_v2);
    CUresult r = managed_range(p, n);
    switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY:
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: break; /* the location is not read */
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
    case CU_MEM_ADVISE_SET_ACCESSED_BY:
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
        if (r == CUDA_SUCCESS) r = location(l);
        break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
    }
    return mock__leave(r);
}

/* Which streams may touch a managed range: the mock's device reads managed memory in place from
 * any stream, so an attachment changes nothing once its stream, range and flags are checked. A
 * length of 0 is the whole allocation, which p must then start. */
CUresult CUDAAPI mock_cuStreamAttachMemAsync(CUstream hs, CUdeviceptr p, size_t n,
                                             unsigned int flags) {
    MOCK_ENTER(cuStreamAttachMemAsync);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
        flags != CU_MEM_ATTACH_SINGLE) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (n == 0) {
        mock_range *rg = mock__range_at((uintptr_t)p, false);
        bool whole = rg != NULL && rg->kind == MOCK_MEM_MANAGED && rg->base == (uintptr_t)p;
        return mock__leave(whole ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
    }
    return mock__leave(managed_range(p, n));
}

/* The flags cuMemHostAlloc was given (0 for cuMemAllocHost); other memory is refused, as the
 * driver documents. */
CUresult CUDAAPI mock_cuMemHostGetFlags(unsigned int *flags, void *p) {
    MOCK_ENTER(cuMemHostGetFlags);
    if (flags == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_range *r = mock__range_at((uintptr_t)p, false);
    if (r == NULL || r->kind != MOCK_MEM_HOST) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *flags = r->flags;
    return mock__leave(CUDA_SUCCESS);
}
