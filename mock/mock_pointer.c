/* Pointer attributes, stream-ordered allocation and the devices' default memory pools. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Pointer attributes                                                                         */
/* ------------------------------------------------------------------------------------------ */

struct CUmemPoolHandle_st {
    int device;
    cuuint64_t release_threshold, used_high, reserved_high;
    int reuse[3]; /* the three CU_MEMPOOL_ATTR_REUSE_* switches */
};
static struct CUmemPoolHandle_st pools[MOCK_MAX_DEVICES];

static struct CUmemPoolHandle_st *default_pool(int device) {
    pools[device].device = device;
    return &pools[device];
}

/* Writes one attribute of the range r (NULL: a pointer the mock does not know) to data. The
 * documented types: handles and addresses as such, booleans as bool, the rest as stated. */
static CUresult attribute(void *data, CUpointer_attribute a, const mock_range *r, uintptr_t p,
                          bool lenient) {
    if (r == NULL && !lenient) return CUDA_ERROR_INVALID_VALUE;
    bool host_side = r && (r->kind == MOCK_MEM_HOST || r->kind == MOCK_MEM_REGISTERED ||
                           r->kind == MOCK_MEM_MANAGED);
    switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = r ? r->ctx : NULL; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: {
        bool host = r && (r->kind == MOCK_MEM_HOST || r->kind == MOCK_MEM_REGISTERED);
        *(unsigned int *)data = r == NULL ? 0 : host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = r ? (CUdeviceptr)p : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!host_side && !lenient) return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = host_side ? (void *)p : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(bool *)data = r && (a == CU_POINTER_ATTRIBUTE_SYNC_MEMOPS ? r->sync_memops
                                                                    : r->kind == MOCK_MEM_DEVICE);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        *(unsigned long long *)data = r ? r->id : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(bool *)data = r && r->kind == MOCK_MEM_MANAGED;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = r ? r->device : -2;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(CUdeviceptr *)data = r ? (CUdeviceptr)r->base : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *(size_t *)data = r ? r->size : 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(bool *)data = r != NULL; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: *(bool *)data = false; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned int *)data = r == NULL ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE
                                : r->kind == MOCK_MEM_VMM_MAPPING
                                    ? r->access
                                    : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = r && r->kind == MOCK_MEM_ASYNC ? default_pool(r->device) : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI mock_cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr ptr) {
    MOCK_ENTER(cuPointerGetAttribute);
    if (data == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_range *r = mock__range_at((uintptr_t)ptr, false);
    return mock__leave(attribute(data, a, r, (uintptr_t)ptr, false));
}

CUresult CUDAAPI mock_cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs,
                                             void **data, CUdeviceptr ptr) {
    MOCK_ENTER(cuPointerGetAttributes);
    if (n == 0 || attrs == NULL || data == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    /* Unlike the singular form, an unknown pointer gets empty answers, not an error. */
    mock_range *r = mock__range_at((uintptr_t)ptr, false);
    for (unsigned i = 0; i < n; i++) {
        if (data[i] == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
        CUresult e = attribute(data[i], attrs[i], r, (uintptr_t)ptr, true);
        if (e != CUDA_SUCCESS) return mock__leave(e);
    }
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Stream-ordered allocation                                                                  */
/* ------------------------------------------------------------------------------------------ */

static CUresult expect_pool(CUmemoryPool pool, struct CUmemPoolHandle_st **out) {
    for (int d = 0; d < mock__state.device_count; d++) {
        if (pool == &pools[d]) {
            *out = default_pool(d);
            return CUDA_SUCCESS;
        }
    }
    mock__misuse(mock__entry_name(),
                 "memory pool %p is not a device's default pool (the mock has no other pools)",
                 (void *)pool);
    return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream hs) {
    if (dptr == NULL || size == 0) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    if (r != CUDA_SUCCESS) return r;
    struct CUctx_st *c = mock__stream_ctx(s);
    int device = c->device;
    if (pool != NULL) {
        struct CUmemPoolHandle_st *p;
        if (expect_pool(pool, &p) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_HANDLE;
        device = p->device;
    }
    if (size > mock__devx[device].total_mem - mock__used(device, -1)) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    void *mem = NULL;
    if (posix_memalign(&mem, 256, size) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    mock_range rg = {.base = (uintptr_t)mem,
                     .size = size,
                     .kind = MOCK_MEM_ASYNC,
                     .ctx = c,
                     .device = device,
                     .storage = mem,
                     .made_by = mock__entry_name()};
    r = mock__add_range(&rg);
    if (r != CUDA_SUCCESS) {
        free(mem);
        return r;
    }
    struct CUmemPoolHandle_st *p = default_pool(device);
    cuuint64_t used = mock__used(device, MOCK_MEM_ASYNC);
    if (used > p->used_high) p->used_high = used;
    if (used > p->reserved_high) p->reserved_high = used;
    *dptr = (CUdeviceptr)(uintptr_t)mem;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream hs) {
    MOCK_ENTER(cuMemAllocAsync);
    return mock__leave(alloc_async(dptr, size, NULL, hs));
}

CUresult CUDAAPI mock_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                              CUstream hs) {
    MOCK_ENTER(cuMemAllocFromPoolAsync);
    if (pool == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    return mock__leave(alloc_async(dptr, size, pool, hs));
}

CUresult CUDAAPI mock_cuMemFreeAsync(CUdeviceptr dptr, CUstream hs) {
    MOCK_ENTER(cuMemFreeAsync);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    const unsigned kinds = 1u << MOCK_MEM_ASYNC | 1u << MOCK_MEM_DEVICE;
    if (mock__range_to_free((uintptr_t)dptr, kinds, &r) == NULL) return mock__leave(r);
    mock_mem_op op = {
        .kind = MOCK_OP_FREE, .entry = mock__entry_name(), .dst = (unsigned char *)(uintptr_t)dptr};
    (void)mock__mem_enqueue(s, &op, false);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetDefaultMemPool);
    if (pool == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *pool = default_pool(dev);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetMemPool);
    if (pool == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *pool = default_pool(dev); /* cuDeviceSetMemPool is not modelled: always the default */
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
    MOCK_ENTER(cuMemPoolTrimTo);
    (void)keep; /* the mock frees at once, so the pool keeps nothing to trim */
    struct CUmemPoolHandle_st *p;
    return mock__leave(expect_pool(pool, &p));
}

/* Both attribute entries: the pool checked, then attribute a read into v or set from it. */
static CUresult pool_attr(CUmemoryPool pool, CUmemPool_attribute a, void *v, bool set) {
    struct CUmemPoolHandle_st *p;
    if (expect_pool(pool, &p) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_HANDLE;
    if (v == NULL) return CUDA_ERROR_INVALID_VALUE;
    cuuint64_t *slot = NULL, now = 0;
    switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: {
        int *flag = &p->reuse[a - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES];
        if (set) {
            *flag = *(int *)v != 0;
        } else {
            *(int *)v = *flag;
        }
        return CUDA_SUCCESS;
    }
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        if (set) {
            p->release_threshold = *(cuuint64_t *)v;
        } else {
            *(cuuint64_t *)v = p->release_threshold;
        }
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
        if (set) return CUDA_ERROR_INVALID_VALUE;
        *(cuuint64_t *)v = mock__used(p->device, MOCK_MEM_ASYNC);
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: slot = &p->reserved_high; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: slot = &p->used_high; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    /* A high-water mark can only be reset (to 0), which brings it to what is in use now. */
    if (!set) {
        *(cuuint64_t *)v = *slot;
        return CUDA_SUCCESS;
    }
    if (*(cuuint64_t *)v != 0) return CUDA_ERROR_INVALID_VALUE;
    now = mock__used(p->device, MOCK_MEM_ASYNC);
    *slot = now;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void *v) {
    MOCK_ENTER(cuMemPoolGetAttribute);
    return mock__leave(pool_attr(pool, a, v, false));
}

CUresult CUDAAPI mock_cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void *v) {
    MOCK_ENTER(cuMemPoolSetAttribute);
    return mock__leave(pool_attr(pool, a, v, true));
}

/* Called by reset: the pools forget their settings. */
void mock__pools_reset(void);
void mock__pools_reset(void) { memset(pools, 0, sizeof pools); }
