/* Memory: the ranges the mock handed out, checks of device addresses against them, and the
 * allocation entries. A device pointer is the host address of the bytes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mock.h"

/* The table of ranges and the graves are changed under the mock's lock, and read by running
 * kernels without it (mock__kernel_access): changes take this lock to write, kernels to read. */
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static mock_range **ranges;
static size_t nranges, capranges;
static int live[MOCK_MEM_KIND_COUNT];
static unsigned long long next_buffer_id = 1;

/* Freed ranges, newest last, so that a stale pointer is named as such: a ring. */
#define GRAVE_CAP 4096
typedef struct grave {
    uintptr_t base;
    size_t size;
    const char *made_by, *freed_by;
} grave;
static grave graves[GRAVE_CAP];
static size_t ngraves, grave_next;

int mock__live_memory(int kind) { return kind >= 0 && kind < MOCK_MEM_KIND_COUNT ? live[kind] : 0; }
void mock__count_handle(int delta) { live[MOCK_MEM_VMM_HANDLE] += delta; }

CUresult mock__add_range(const mock_range *r) {
    mock_range *copy = malloc(sizeof *copy);
    if (copy == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_rwlock_wrlock(&table_lock);
    if (!mock__grow(&ranges, &capranges, nranges + 1, sizeof *ranges)) {
        pthread_rwlock_unlock(&table_lock);
        free(copy);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *copy = *r;
    copy->init = NULL;
    if (r->kind == MOCK_MEM_DEVICE && mock__check_keeps_init(r->ctx))
        copy->init = calloc((r->size + 7) / 8, 2); /* written, stored undefined; none: unchecked */
    copy->id = next_buffer_id++;
    ranges[nranges++] = copy;
    live[r->kind]++;
    if (r->kind == MOCK_MEM_DEVICE) mock__state.live[CUSHIM_MOCK_MEMORY]++;
    /* Addresses handed out again are no longer stale. */
    for (size_t i = 0; i < ngraves; i++) {
        grave *g = &graves[i];
        if (g->size && g->base < r->base + r->size && r->base < g->base + g->size) g->size = 0;
    }
    pthread_rwlock_unlock(&table_lock);
    return CUDA_SUCCESS;
}

typedef struct unmapping {
    void *p;
    size_t n;
} unmapping;

static void unmap(void *arg) {
    unmapping *u = arg;
    munmap(u->p, u->n);
    free(u);
}

/* A kernel running without the lock may still touch the storage: it is freed once none runs. */
static void free_storage(mock_range *r) {
    if (r->kind != MOCK_MEM_VMM_RESERVE && r->kind != MOCK_MEM_IPC) {
        mock__defer(free, r->storage);
        return;
    }
    unmapping *u = malloc(sizeof *u);
    if (u == NULL) {
        mock__wait_kernels();
        munmap(r->storage, r->size);
        return;
    }
    *u = (unmapping){r->storage, r->size};
    mock__defer(unmap, u);
}

void mock__drop_range(mock_range *r, const char *freed_by) {
    for (size_t i = 0; i < nranges; i++) {
        if (ranges[i] != r) continue;
        pthread_rwlock_wrlock(&table_lock);
        ranges[i] = ranges[--nranges];
        live[r->kind]--;
        if (r->kind == MOCK_MEM_DEVICE) mock__state.live[CUSHIM_MOCK_MEMORY]--;
        if (r->kind != MOCK_MEM_VMM_MAPPING) {
            graves[grave_next] = (grave){r->base, r->size, r->made_by, freed_by};
            grave_next = (grave_next + 1) % GRAVE_CAP;
            if (ngraves < GRAVE_CAP) ngraves++;
        }
        pthread_rwlock_unlock(&table_lock);
        mock__ipc_forget(r);
        free_storage(r);
        if (r->init != NULL) mock__defer(free, r->init); /* a running kernel may hold it */
        free(r);
        return;
    }
}

mock_range *mock__range_at(uintptr_t p, bool reservations) {
    mock_range *reserve = NULL;
    for (size_t i = 0; i < nranges; i++) {
        mock_range *r = ranges[i];
        if (p < r->base || p - r->base >= r->size) continue;
        if (r->kind != MOCK_MEM_VMM_RESERVE) return r; /* a mapping wins over its reservation */
        reserve = r;
    }
    return reservations ? reserve : NULL;
}

static const grave *grave_at(uintptr_t p) {
    for (size_t k = 0; k < ngraves; k++) {
        const grave *g = &graves[(grave_next + GRAVE_CAP - 1 - k) % GRAVE_CAP];
        if (g->size && p >= g->base && p - g->base < g->size) return g;
    }
    return NULL;
}

/* The storage of module variables: kept apart from the ranges, since the program neither
 * allocated nor frees it. Changed under both locks, read by kernels under table_lock. */
static struct {
    uintptr_t base;
    size_t size;
} * modvars;
static size_t nmodvars, capmodvars;

void mock__module_vars(uintptr_t base, size_t size, bool add) {
    pthread_rwlock_wrlock(&table_lock);
    for (size_t i = 0; !add && i < nmodvars; i++) {
        if (modvars[i].base == base) {
            modvars[i] = modvars[--nmodvars];
            break;
        }
    }
    if (add && size > 0 && mock__grow(&modvars, &capmodvars, nmodvars + 1, sizeof *modvars)) {
        modvars[nmodvars].base = base;
        modvars[nmodvars++].size = size;
        for (size_t i = 0; i < ngraves; i++) { /* storage made again is no longer stale */
            grave *g = &graves[i];
            if (g->size && g->base < base + size && base < g->base + g->size) g->size = 0;
        }
    }
    pthread_rwlock_unlock(&table_lock);
}

void mock__module_vars_dead(uintptr_t base, size_t size, const char *by) {
    bool found = false;
    for (size_t i = 0; i < nmodvars && !found; i++) found = modvars[i].base == base;
    if (!found) return;
    mock__module_vars(base, size, false);
    pthread_rwlock_wrlock(&table_lock);
    graves[grave_next] = (grave){base, size, "a module's load (its variables)", by};
    grave_next = (grave_next + 1) % GRAVE_CAP;
    if (ngraves < GRAVE_CAP) ngraves++;
    pthread_rwlock_unlock(&table_lock);
}

static bool in_module_vars(uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi) {
    for (size_t i = 0; i < nmodvars; i++) {
        if (p >= modvars[i].base && n <= modvars[i].size &&
            p - modvars[i].base <= modvars[i].size - n) {
            *lo = modvars[i].base;
            *hi = modvars[i].base + modvars[i].size;
            return true;
        }
    }
    return false;
}

bool mock__is_module_var(uintptr_t p, size_t n) {
    uintptr_t lo, hi;
    return in_module_vars(p, n, &lo, &hi);
}

CUresult mock__check_device(const char *what, uintptr_t p, size_t n) {
    uintptr_t lo, hi;
    if (n == 0 || in_module_vars(p, n, &lo, &hi)) return CUDA_SUCCESS;
    uintptr_t at = p;
    size_t left = n;
    while (left > 0) {
        mock_range *r = mock__range_at(at, false);
        if (r == NULL) break;
        if (r->kind == MOCK_MEM_VMM_MAPPING && r->access == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
            return mock__mem_error("the %s [0x%llx, +%zu) is mapped at 0x%llx but "
                                   "cuMemSetAccess has not granted access to it",
                                   what, (unsigned long long)p, n, (unsigned long long)r->base);
        }
        size_t room = r->size - (at - r->base);
        if (left <= room) return CUDA_SUCCESS;
        if (r->kind != MOCK_MEM_VMM_MAPPING) {
            return mock__mem_error("the %s [0x%llx, +%zu) runs %zu bytes past the end of the "
                                   "%zu-byte allocation at 0x%llx made by %s",
                                   what, (unsigned long long)p, n, left - room, r->size,
                                   (unsigned long long)r->base, r->made_by);
        }
        at += room; /* the next mapping of the reservation may go on */
        left -= room;
    }
    const grave *g = grave_at(at);
    if (g != NULL) {
        return mock__mem_error("the %s 0x%llx is in the %zu-byte allocation at 0x%llx (made by "
                               "%s) that %s freed: a use after free",
                               what, (unsigned long long)at, g->size, (unsigned long long)g->base,
                               g->made_by, g->freed_by);
    }
    mock_range *res = mock__range_at(at, true);
    if (res != NULL) {
        return mock__mem_error("the %s 0x%llx is in the reservation at 0x%llx but nothing is "
                               "mapped there",
                               what, (unsigned long long)at, (unsigned long long)res->base);
    }
    if (at != p) {
        return mock__mem_error("the %s [0x%llx, +%zu) runs past the mappings at 0x%llx", what,
                               (unsigned long long)p, n, (unsigned long long)at);
    }
    return mock__mem_error("the %s 0x%llx is not device memory the mock handed out", what,
                           (unsigned long long)p);
}

CUresult mock__check_any(const char *what, uintptr_t p, size_t n) {
    uintptr_t lo, hi;
    if (in_module_vars(p, 1, &lo, &hi) || mock__range_at(p, true) != NULL || grave_at(p) != NULL) {
        return mock__check_device(what, p, n);
    }
    return CUDA_SUCCESS; /* host memory of the program's own */
}

mock_range *mock__range_to_free(uintptr_t p, unsigned kinds, CUresult *err) {
    mock_range *r = mock__range_at(p, true);
    *err = CUDA_SUCCESS;
    if (r != NULL && r->base == p && (kinds & (1u << r->kind))) return r;
    if (r != NULL && r->base == p) {
        *err = mock__mem_error("0x%llx was made by %s, which this call does not free",
                               (unsigned long long)p, r->made_by);
    } else if (r != NULL) {
        *err = mock__mem_error("0x%llx is inside the allocation at 0x%llx, not its start",
                               (unsigned long long)p, (unsigned long long)r->base);
    } else if (grave_at(p) != NULL) {
        *err = mock__mem_error("0x%llx was already freed by %s: a double free",
                               (unsigned long long)p, grave_at(p)->freed_by);
    } else {
        *err = mock__mem_error("0x%llx is not an allocation the mock handed out",
                               (unsigned long long)p);
    }
    return NULL;
}

/* Frees the ranges of ctx, as the driver does when a context goes; NULL frees everything. */
void mock__free_allocs(struct CUctx_st *ctx) {
    void mock__vmm_forget(void);
    for (size_t i = nranges; i-- > 0;) {
        if (i < nranges && (ctx == NULL || (ranges[i]->ctx == ctx && ranges[i]->ctx != NULL))) {
            if (ctx != NULL) mock__check_leak(ranges[i], "the context was destroyed");
            mock__drop_range(ranges[i], "the context's destruction");
        }
    }
    if (ctx != NULL) return;
    mock__vmm_forget();
    mock__ipc_reset();
    free(ranges);
    ranges = NULL;
    nranges = capranges = 0;
    ngraves = grave_next = 0;
    memset(live, 0, sizeof live);
    next_buffer_id = 1;
}

unsigned char *mock__init_map(uintptr_t p, uintptr_t *lo, uintptr_t *hi) {
    pthread_rwlock_rdlock(&table_lock);
    mock_range *r = mock__range_at(p, false);
    unsigned char *map = r != NULL ? r->init : NULL;
    if (r != NULL) { /* the bounds even without bits: the caller remembers there are none */
        *lo = r->base;
        *hi = r->base + r->size;
    }
    pthread_rwlock_unlock(&table_lock);
    return map;
}

void mock__check_leaks_at_exit(void) {
    pthread_rwlock_rdlock(&table_lock);
    for (size_t i = 0; i < nranges; i++) mock__check_leak(ranges[i], "the program exited");
    pthread_rwlock_unlock(&table_lock);
}

unsigned long long mock__used(int device, int kind) {
    unsigned long long used = 0;
    for (size_t i = 0; i < nranges; i++) {
        const mock_range *r = ranges[i];
        bool on_device = r->kind == MOCK_MEM_DEVICE || r->kind == MOCK_MEM_MANAGED ||
                         r->kind == MOCK_MEM_ASYNC || r->kind == MOCK_MEM_VMM_MAPPING;
        if (r->device == device && on_device && (kind < 0 || (int)r->kind == kind)) {
            used += r->size;
        }
    }
    return used;
}

CUresult mock__alloc_ctx(struct CUctx_st **c) { return mock__need_current(mock__entry_name(), c); }

/* A new range of `kind` holding `size` bytes, aligned as the driver aligns it. */
static CUresult alloc(void **out, size_t size, mock_mem_kind kind, unsigned flags) {
    if (out == NULL || size == 0) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = mock__alloc_ctx(&c);
    if (r != CUDA_SUCCESS) return r;
    bool on_device = kind != MOCK_MEM_HOST;
    if (on_device && size > mock__devx[c->device].total_mem - mock__used(c->device, -1)) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    void *p = NULL;
    /* cuMemAlloc's memory has pages of its own, so that cuIpcGetMemHandle can share them. */
    bool own_pages = kind == MOCK_MEM_HOST || kind == MOCK_MEM_DEVICE;
    size_t room = own_pages && size <= SIZE_MAX - 4095 ? (size + 4095) / 4096 * 4096 : size;
    if (posix_memalign(&p, own_pages ? 4096 : 256, room) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    mock_range rg = {.base = (uintptr_t)p,
                     .size = size,
                     .kind = kind,
                     .ctx = c,
                     .device = c->device,
                     .storage = p,
                     .flags = flags,
                     .made_by = mock__entry_name()};
    r = mock__add_range(&rg);
    if (r != CUDA_SUCCESS) {
        free(p);
        return r;
    }
    *out = p;
    return CUDA_SUCCESS;
}

static CUresult alloc_dev(CUdeviceptr *dptr, size_t size, mock_mem_kind kind, unsigned flags) {
    if (dptr == NULL) return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    CUresult r = alloc(&p, size, kind, flags);
    if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult CUDAAPI mock_cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
    MOCK_ENTER(cuMemAlloc);
    return mock__leave(alloc_dev(dptr, bytesize, MOCK_MEM_DEVICE, 0));
}

CUresult CUDAAPI mock_cuMemAllocPitch(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                      unsigned int elem) {
    MOCK_ENTER(cuMemAllocPitch);
    if (pitch == NULL || width == 0 || height == 0 || (elem != 4 && elem != 8 && elem != 16)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    /* Rows start 512 bytes apart at least, as on the driver. */
    if (width > SIZE_MAX - 511) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    size_t p = (width + 511) / 512 * 512;
    if (height > SIZE_MAX / p) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    CUresult r = alloc_dev(dptr, p * height, MOCK_MEM_DEVICE, 0);
    if (r == CUDA_SUCCESS) *pitch = p;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
    MOCK_ENTER(cuMemAllocManaged);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    return mock__leave(alloc_dev(dptr, bytesize, MOCK_MEM_MANAGED, flags));
}

/* cuMemFree, cuMemFreeHost and cuMemHostUnregister wait for the work already queued, as the
 * driver's do: a kernel launched before the free still sees the memory (an alloc, launch, free
 * sequence with no synchronize in between is correct CUDA code). */
static void wait_for_queued_work(void) {
    struct CUctx_st *c = mock__current();
    if (c != NULL) mock__ctx_sync(c);
}

CUresult CUDAAPI mock_cuMemFree(CUdeviceptr dptr) {
    MOCK_ENTER(cuMemFree);
    if (dptr == 0) return mock__leave(CUDA_SUCCESS);
    wait_for_queued_work();
    const unsigned kinds = 1u << MOCK_MEM_DEVICE | 1u << MOCK_MEM_MANAGED | 1u << MOCK_MEM_ASYNC;
    CUresult r;
    mock_range *rg = mock__range_to_free((uintptr_t)dptr, kinds, &r);
    if (rg != NULL) mock__drop_range(rg, mock__entry_name());
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemAllocHost(void **pp, size_t bytesize) {
    MOCK_ENTER(cuMemAllocHost);
    return mock__leave(alloc(pp, bytesize, MOCK_MEM_HOST, 0));
}

CUresult CUDAAPI mock_cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags) {
    MOCK_ENTER(cuMemHostAlloc);
    const unsigned known =
        CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
    if (flags & ~known) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    return mock__leave(alloc(pp, bytesize, MOCK_MEM_HOST, flags));
}

CUresult CUDAAPI mock_cuMemFreeHost(void *p) {
    MOCK_ENTER(cuMemFreeHost);
    wait_for_queued_work();
    CUresult r;
    mock_range *rg = mock__range_to_free((uintptr_t)p, 1u << MOCK_MEM_HOST, &r);
    if (rg != NULL) mock__drop_range(rg, mock__entry_name());
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemHostRegister(void *p, size_t bytesize, unsigned int flags) {
    MOCK_ENTER(cuMemHostRegister);
    const unsigned known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                           CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
    if (p == NULL || bytesize == 0 || (flags & ~known)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (flags & CU_MEMHOSTREGISTER_IOMEMORY) return mock__leave(CUDA_ERROR_NOT_SUPPORTED);
    struct CUctx_st *c;
    CUresult r = mock__alloc_ctx(&c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    uintptr_t b = (uintptr_t)p;
    for (uintptr_t q = b; q - b < bytesize; q += 4096 - (q % 4096)) {
        if (mock__range_at(q, true) != NULL) {
            return mock__leave(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
    }
    mock_range rg = {.base = b,
                     .size = bytesize,
                     .kind = MOCK_MEM_REGISTERED,
                     .ctx = c,
                     .device = c->device,
                     .flags = flags,
                     .made_by = mock__entry_name()};
    return mock__leave(mock__add_range(&rg));
}

CUresult CUDAAPI mock_cuMemHostUnregister(void *p) {
    MOCK_ENTER(cuMemHostUnregister);
    wait_for_queued_work();
    mock_range *rg = mock__range_at((uintptr_t)p, false);
    if (p == NULL || rg == NULL || rg->kind != MOCK_MEM_REGISTERED || rg->base != (uintptr_t)p) {
        return mock__leave(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    }
    mock__drop_range(rg, mock__entry_name());
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int flags) {
    MOCK_ENTER(cuMemHostGetDevicePointer);
    if (pdptr == NULL || flags != 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    CUresult r = mock__alloc_ctx(&c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    mock_range *rg = mock__range_at((uintptr_t)p, false);
    if (rg == NULL || (rg->kind != MOCK_MEM_HOST && rg->kind != MOCK_MEM_REGISTERED)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    /* Unified addressing: the device sees page-locked memory at its host address. */
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemGetInfo(size_t *free_bytes, size_t *total) {
    MOCK_ENTER(cuMemGetInfo);
    if (free_bytes == NULL || total == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuMemGetInfo", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    unsigned long long all = mock__devx[c->device].total_mem, used = mock__used(c->device, -1);
    *total = (size_t)all;
    *free_bytes = (size_t)(used < all ? all - used : 0);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
    MOCK_ENTER(cuMemGetAddressRange);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuMemGetAddressRange", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    mock_range *rg = mock__range_at((uintptr_t)dptr, false);
    if (rg == NULL) return mock__leave(CUDA_ERROR_NOT_FOUND);
    if (pbase) *pbase = (CUdeviceptr)rg->base;
    if (psize) *psize = rg->size;
    return mock__leave(CUDA_SUCCESS);
}

/* For the PTX interpreter, from its host threads while the launching thread holds the lock
 * (nothing changes the ranges meanwhile): whether [p, p + n) lies in one live range. */
static bool kernel_access(uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi, char *why,
                          size_t len) {
    if (in_module_vars(p, n, lo, hi)) return true; /* any loaded module's variables */
    mock_range *r = mock__range_at(p, false);
    if (r != NULL && n <= r->size - (p - r->base) &&
        !(r->kind == MOCK_MEM_VMM_MAPPING && r->access == CU_MEM_ACCESS_FLAGS_PROT_NONE)) {
        *lo = r->base;
        *hi = r->base + r->size;
        return true;
    }
    if (r != NULL) {
        snprintf(why, len,
                 "it runs %zu bytes past the end of the %zu-byte allocation at 0x%llx "
                 "made by %s",
                 n - (r->size - (p - r->base)), r->size, (unsigned long long)r->base, r->made_by);
        return false;
    }
    const grave *g = grave_at(p);
    if (g != NULL) {
        snprintf(why, len,
                 "it is in the %zu-byte allocation at 0x%llx (made by %s) that %s "
                 "freed: a use after free",
                 g->size, (unsigned long long)g->base, g->made_by, g->freed_by);
        return false;
    }
    /* The allocation just below, which the access most likely ran past. */
    const mock_range *below = NULL;
    for (size_t i = 0; i < nranges; i++) {
        if (ranges[i]->base <= p && (below == NULL || ranges[i]->base > below->base))
            below = ranges[i];
    }
    if (below != NULL && p - (below->base + below->size) < (1u << 20)) {
        unsigned long long past = (unsigned long long)(p - (below->base + below->size));
        snprintf(why, len,
                 "it is %llu bytes past the end of the %zu-byte allocation at 0x%llx "
                 "made by %s",
                 past, below->size, (unsigned long long)below->base, below->made_by);
    } else if (mock__host_memory(p)) {
        snprintf(why, len,
                 "it is host memory of the process, not a device allocation: a host pointer "
                 "used as a device pointer");
    } else {
        snprintf(why, len, "it is not device memory the mock handed out");
    }
    return false;
}

bool mock__kernel_access(uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi, char *why,
                         size_t len) {
    pthread_rwlock_rdlock(&table_lock);
    bool ok = kernel_access(p, n, lo, hi, why, len);
    pthread_rwlock_unlock(&table_lock);
    return ok;
}
