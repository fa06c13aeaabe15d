/* Hints on managed memory, its attachment to streams, and the flags of pinned host memory. The
 * mock's managed memory is host memory that the device reads in place, so a prefetch moves nothing
 * and advice changes nothing: each call checks its arguments as the driver does (a managed range, a
 * location that exists) and answers. */
#include <string.h>

#include "mock.h"

/* [p, p + n) inside one managed allocation (its range in *out), or inside a module's variables
 * (a __managed__ variable: *out NULL, nothing recorded); CUDA_ERROR_INVALID_VALUE otherwise. */
static CUresult managed_in(CUdeviceptr p, size_t n, mock_range **out) {
    *out = NULL;
    if (n == 0) return CUDA_ERROR_INVALID_VALUE;
    if (mock__is_module_var((uintptr_t)p, n)) return CUDA_SUCCESS;
    mock_range *r = mock__range_at((uintptr_t)p, false);
    if (r == NULL || r->kind != MOCK_MEM_MANAGED) return CUDA_ERROR_INVALID_VALUE;
    if (n > r->size - ((uintptr_t)p - r->base)) return CUDA_ERROR_INVALID_VALUE;
    *out = r;
    return CUDA_SUCCESS;
}

static CUresult managed_range(CUdeviceptr p, size_t n) {
    mock_range *r;
    return managed_in(p, n, &r);
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
    mock_range *rg = NULL;
    if (r == CUDA_SUCCESS) r = managed_in(p, n, &rg);
    if (rg != NULL) rg->prefetched = l;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemAdvise_v2(CUdeviceptr p, size_t n, CUmem_advise advice,
                                     CUmemLocation l) {
    MOCK_ENTER(cuMemAdvise_v2);
    mock_range *rg;
    CUresult r = managed_in(p, n, &rg);
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
    if (r != CUDA_SUCCESS || rg == NULL) return mock__leave(r);
    unsigned bit = l.type == CU_MEM_LOCATION_TYPE_DEVICE ? 1u << (l.id & 31) : 0;
    switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY: rg->read_mostly = true; break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY: rg->read_mostly = false; break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: rg->preferred = l; break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: rg->preferred = (CUmemLocation){0}; break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY: rg->accessed_by |= bit; break;
    default: rg->accessed_by &= ~bit; break;
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

/* A location as the older attributes give it: a device ordinal, CU_DEVICE_CPU for the host,
 * CU_DEVICE_INVALID for none. */
static int legacy_id(CUmemLocation l) {
    if (l.type == CU_MEM_LOCATION_TYPE_DEVICE) return l.id;
    return l.type == CU_MEM_LOCATION_TYPE_INVALID ? CU_DEVICE_INVALID : CU_DEVICE_CPU;
}

/* One attribute of the managed range rg (NULL: a __managed__ variable, never advised) into
 * data of `size` bytes, with the sizes the driver documents. */
static CUresult range_attribute(void *data, size_t size, CUmem_range_attribute a,
                                const mock_range *rg) {
    static const mock_range none; /* no advice, no prefetch */
    if (rg == NULL) rg = &none;
    if (data == NULL) return CUDA_ERROR_INVALID_VALUE;
    int32_t v;
    switch (a) {
    case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
        if (size == 0 || size % 4 != 0) return CUDA_ERROR_INVALID_VALUE;
        int32_t *out = data;
        size_t k = 0;
        for (int d = 0; d < mock__state.device_count && d < 32; d++) {
            if ((rg->accessed_by >> d & 1u) && k < size / 4) out[k++] = d;
        }
        while (k < size / 4) out[k++] = CU_DEVICE_INVALID;
        return CUDA_SUCCESS;
    }
    case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: v = rg->read_mostly; break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: v = legacy_id(rg->preferred); break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: v = legacy_id(rg->prefetched); break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: v = (int32_t)rg->preferred.type; break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: v = rg->preferred.id; break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
        v = (int32_t)rg->prefetched.type;
        break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: v = rg->prefetched.id; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    if (size != 4) return CUDA_ERROR_INVALID_VALUE;
    memcpy(data, &v, 4);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemRangeGetAttribute(void *data, size_t size, CUmem_range_attribute a,
                                             CUdeviceptr p, size_t n) {
    MOCK_ENTER(cuMemRangeGetAttribute);
    mock_range *rg;
    CUresult r = managed_in(p, n, &rg);
    if (r == CUDA_SUCCESS) r = range_attribute(data, size, a, rg);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemRangeGetAttributes(void **data, size_t *sizes,
                                              CUmem_range_attribute *attrs, size_t count,
                                              CUdeviceptr p, size_t n) {
    MOCK_ENTER(cuMemRangeGetAttributes);
    if (data == NULL || sizes == NULL || attrs == NULL || count == 0) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    mock_range *rg;
    CUresult r = managed_in(p, n, &rg);
    for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++) {
        r = range_attribute(data[i], sizes[i], attrs[i], rg);
    }
    return mock__leave(r);
}

/* The one attribute the driver lets a program set: synchronous memory operations on the
 * allocation, which the mock's copies always are, so it is kept and read back only. */
CUresult CUDAAPI mock_cuPointerSetAttribute(const void *value, CUpointer_attribute a,
                                            CUdeviceptr p) {
    MOCK_ENTER(cuPointerSetAttribute);
    if (value == NULL || a != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    mock_range *rg = mock__range_at((uintptr_t)p, false);
    if (rg == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    rg->sync_memops =
        *(const unsigned char *)value != 0; /* a bool, or an int read by its low byte */
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Batches of prefetches and discards (CUDA 13)                                               */
/* ------------------------------------------------------------------------------------------ */

/* The arguments every batch form takes: ranges of managed memory, zero flags, a stream that is
 * not the legacy NULL stream (as the batch forms document). */
static CUresult batch_ranges(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                             unsigned long long flags, CUstream hs) {
    if (dptrs == NULL || sizes == NULL || count == 0 || flags != 0 || hs == NULL ||
        hs == CU_STREAM_LEGACY) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++) r = managed_range(dptrs[i], sizes[i]);
    return r;
}

/* The locations of a batch of prefetches: the first index 0, each later one greater, the last
 * below count, no more locations than operations; each location one that exists. The location
 * of operation i is recorded on its allocation, as cuMemPrefetchAsync does. */
static CUresult batch_prefetch(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs,
                               size_t *idxs, size_t nlocs) {
    if (locs == NULL || idxs == NULL || nlocs == 0 || nlocs > count || idxs[0] != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t k = 0; k < nlocs; k++) {
        if ((k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count) return CUDA_ERROR_INVALID_VALUE;
        CUresult r = location(locs[k]);
        if (r != CUDA_SUCCESS) return r;
    }
    for (size_t k = 0; k < nlocs; k++) {
        size_t end = k + 1 < nlocs ? idxs[k + 1] : count;
        for (size_t i = idxs[k]; i < end; i++) {
            mock_range *rg;
            if (managed_in(dptrs[i], sizes[i], &rg) == CUDA_SUCCESS && rg != NULL) {
                rg->prefetched = locs[k];
            }
        }
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                              CUmemLocation *locs, size_t *idxs, size_t nlocs,
                                              unsigned long long flags, CUstream hs) {
    MOCK_ENTER(cuMemPrefetchBatchAsync);
    CUresult r = batch_ranges(dptrs, sizes, count, flags, hs);
    if (r == CUDA_SUCCESS) r = batch_prefetch(dptrs, sizes, count, locs, idxs, nlocs);
    return mock__leave(r);
}

/* A discard lets the driver drop the pages' contents; the mock keeps them, which a program may
 * not tell from new contents it never read. */
CUresult CUDAAPI mock_cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                             unsigned long long flags, CUstream hs) {
    MOCK_ENTER(cuMemDiscardBatchAsync);
    return mock__leave(batch_ranges(dptrs, sizes, count, flags, hs));
}

CUresult CUDAAPI mock_cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes,
                                                        size_t count, CUmemLocation *locs,
                                                        size_t *idxs, size_t nlocs,
                                                        unsigned long long flags, CUstream hs) {
    MOCK_ENTER(cuMemDiscardAndPrefetchBatchAsync);
    CUresult r = batch_ranges(dptrs, sizes, count, flags, hs);
    if (r == CUDA_SUCCESS) r = batch_prefetch(dptrs, sizes, count, locs, idxs, nlocs);
    return mock__leave(r);
}
