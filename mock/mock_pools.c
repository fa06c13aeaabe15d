/* Stream-ordered allocation and memory pools: each device's default pool, pools made by
 * cuMemPoolCreate, the device's current pool (cuDeviceSetMemPool), their attributes and access.
 * An allocation from a pool is host memory as every allocation of the mock; the pool only counts
 * it and answers for it. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

struct CUmemPoolHandle_st {
    int device;
    cuuint64_t release_threshold, used_high, reserved_high;
    int reuse[3];                      /* the three CU_MEMPOOL_ATTR_REUSE_* switches */
    bool created, destroyed;           /* by cuMemPoolCreate; by cuMemPoolDestroy */
    unsigned access[MOCK_MAX_DEVICES]; /* CUmemAccess_flags of other devices (cuMemPoolSetAccess) */
    struct CUmemPoolHandle_st *next;   /* the list of created pools */
};
static struct CUmemPoolHandle_st pools[MOCK_MAX_DEVICES];
static struct CUmemPoolHandle_st *created_pools;
static struct CUmemPoolHandle_st *current_pool[MOCK_MAX_DEVICES]; /* NULL: the default */

static struct CUmemPoolHandle_st *default_pool(int device) {
    pools[device].device = device;
    return &pools[device];
}

CUmemoryPool mock__pool_of(const mock_range *r) {
    return r->handle != 0 ? (CUmemoryPool)(uintptr_t)r->handle : default_pool(r->device);
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
    for (struct CUmemPoolHandle_st *p = created_pools; p != NULL; p = p->next) {
        if (p != pool) continue;
        if (p->destroyed) {
            mock__misuse(mock__entry_name(), "memory pool %p was already destroyed", (void *)pool);
            return CUDA_ERROR_INVALID_HANDLE;
        }
        *out = p;
        return CUDA_SUCCESS;
    }
    mock__misuse(mock__entry_name(), "memory pool %p was never made by the mock", (void *)pool);
    return CUDA_ERROR_INVALID_HANDLE;
}

/* The pool an allocation of the stream's context comes from when none is named. */
static struct CUmemPoolHandle_st *pool_for(int device) {
    return current_pool[device] != NULL ? current_pool[device] : default_pool(device);
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream hs) {
    if (dptr == NULL || size == 0) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    if (r != CUDA_SUCCESS) return r;
    struct CUctx_st *c = mock__stream_ctx(s);
    struct CUmemPoolHandle_st *p = pool_for(c->device);
    if (pool != NULL && expect_pool(pool, &p) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_HANDLE;
    int device = p->device;
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
                     .handle = p->created ? (unsigned long long)(uintptr_t)p : 0,
                     .made_by = mock__entry_name()};
    r = mock__add_range(&rg);
    if (r != CUDA_SUCCESS) {
        free(mem);
        return r;
    }
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
    *pool = pool_for(dev);
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
void mock__pools_reset(void) {
    memset(pools, 0, sizeof pools);
    memset(current_pool, 0, sizeof current_pool);
    while (created_pools != NULL) {
        struct CUmemPoolHandle_st *next = created_pools->next;
        free(created_pools);
        created_pools = next;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Pools made by the program                                                                  */
/* ------------------------------------------------------------------------------------------ */

static CUresult check_location(const CUmemLocation *l) {
    if (l == NULL || l->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    return mock__valid_device(l->id) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI mock_cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
    MOCK_ENTER(cuMemPoolCreate);
    if (pool == NULL || props == NULL || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        (props->handleTypes & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUresult r = check_location(&props->location);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    if (p == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    p->device = props->location.id;
    p->created = true;
    p->next = created_pools;
    created_pools = p;
    *pool = p;
    return mock__leave(CUDA_SUCCESS);
}

/* A pool goes at once for the program; its record stays (allocations made from it still name
 * it) until the mock is reset. A device whose current pool it was gets its default back. */
CUresult CUDAAPI mock_cuMemPoolDestroy(CUmemoryPool pool) {
    MOCK_ENTER(cuMemPoolDestroy);
    struct CUmemPoolHandle_st *p;
    CUresult r = expect_pool(pool, &p);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (!p->created) return mock__leave(CUDA_ERROR_INVALID_VALUE); /* a default pool */
    p->destroyed = true;
    if (current_pool[p->device] == p) current_pool[p->device] = NULL;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *desc,
                                         size_t count) {
    MOCK_ENTER(cuMemPoolSetAccess);
    struct CUmemPoolHandle_st *p;
    CUresult r = expect_pool(pool, &p);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (desc == NULL || count == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < count; i++) {
        r = check_location(&desc[i].location);
        if (r != CUDA_SUCCESS) return mock__leave(r);
        if ((unsigned)desc[i].flags > CU_MEM_ACCESS_FLAGS_PROT_READWRITE ||
            (desc[i].location.id == p->device &&
             desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)) {
            return mock__leave(CUDA_ERROR_INVALID_VALUE); /* the owner keeps its access */
        }
    }
    for (size_t i = 0; i < count; i++) p->access[desc[i].location.id] = desc[i].flags;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool pool,
                                         CUmemLocation *location) {
    MOCK_ENTER(cuMemPoolGetAccess);
    struct CUmemPoolHandle_st *p;
    CUresult r = expect_pool(pool, &p);
    if (r == CUDA_SUCCESS && flags == NULL) r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) r = check_location(location);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    *flags = location->id == p->device ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                       : (CUmemAccess_flags)p->access[location->id];
    return mock__leave(CUDA_SUCCESS);
}

/* Makes pool the current pool of its own device (another device's pool is refused). */
static CUresult set_current(int dev, CUmemoryPool pool) {
    struct CUmemPoolHandle_st *p;
    CUresult r = expect_pool(pool, &p);
    if (r != CUDA_SUCCESS) return r;
    if (p->device != dev) return CUDA_ERROR_INVALID_VALUE;
    current_pool[dev] = p->created ? p : NULL;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
    MOCK_ENTER(cuDeviceSetMemPool);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    return mock__leave(set_current(dev, pool));
}

/* The forms of CUDA 13 that name a location and an allocation type: devices and pinned memory
 * only in the mock. */
static CUresult device_location(CUmemLocation *l, CUmemAllocationType type) {
    if (type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
    return check_location(l);
}

CUresult CUDAAPI mock_cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                             CUmemAllocationType type) {
    MOCK_ENTER(cuMemGetDefaultMemPool);
    CUresult r = pool == NULL ? CUDA_ERROR_INVALID_VALUE : device_location(location, type);
    if (r == CUDA_SUCCESS) *pool = default_pool(location->id);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                      CUmemAllocationType type) {
    MOCK_ENTER(cuMemGetMemPool);
    CUresult r = pool == NULL ? CUDA_ERROR_INVALID_VALUE : device_location(location, type);
    if (r == CUDA_SUCCESS) *pool = pool_for(location->id);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type,
                                      CUmemoryPool pool) {
    MOCK_ENTER(cuMemSetMemPool);
    CUresult r = device_location(location, type);
    if (r == CUDA_SUCCESS) r = set_current(location->id, pool);
    return mock__leave(r);
}
