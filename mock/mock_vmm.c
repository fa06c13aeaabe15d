/* Virtual memory management: a reservation is an inaccessible range of the process's address
 * space; a handle from cuMemCreate is a memory file; cuMemMap maps the file into the
 * reservation, so that the bytes of one handle are the same wherever it is mapped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock.h"

#define GRANULARITY ((size_t)2 << 20) /* the driver's for device memory */

typedef struct vmm_handle {
    unsigned long long id;
    size_t size;
    int fd; /* -1 once released: mappings keep the memory alive, as on the driver */
    int device;
    int refs;                 /* cuMemCreate, import, cuMemRetainAllocationHandle; less releases */
    unsigned long long types; /* CUmemAllocationHandleType bits the handle may be exported as */
} vmm_handle;

static vmm_handle *handles;
static size_t nhandles, caphandles;

void mock__count_handle(int delta); /* mock_memory.c */

void mock__vmm_forget(void);
void mock__vmm_forget(void) {
    for (size_t i = 0; i < nhandles; i++) {
        if (handles[i].fd >= 0) close(handles[i].fd);
    }
    free(handles);
    handles = NULL;
    nhandles = caphandles = 0;
}

/* The live handle with this id; a misuse (mock__misuse) and NULL for one never made or already
 * released. */
static vmm_handle *expect_handle(unsigned long long id) {
    for (size_t i = 0; i < nhandles; i++) {
        if (handles[i].id != id) continue;
        if (handles[i].fd < 0) {
            mock__misuse(mock__entry_name(), "allocation handle 0x%llx was already released", id);
            return NULL;
        }
        return &handles[i];
    }
    mock__misuse(mock__entry_name(), "allocation handle 0x%llx was never made by the mock", id);
    return NULL;
}

static CUresult check_prop(const CUmemAllocationProp *prop) {
    if (prop == NULL || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    return mock__valid_device(prop->location.id) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI mock_cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                                    CUmemAllocationGranularity_flags option) {
    MOCK_ENTER(cuMemGetAllocationGranularity);
    if (g == NULL || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
                      option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUresult r = check_prop(prop);
    if (r == CUDA_SUCCESS) *g = GRANULARITY;
    return mock__leave(r);
}

/* A new handle for the memory file fd (which it then owns), or CUDA_ERROR_OUT_OF_MEMORY with fd
 * closed. */
static CUresult add_handle(CUmemGenericAllocationHandle *out, int fd, size_t size, int dev,
                           unsigned long long types) {
    if (!mock__grow(&handles, &caphandles, nhandles + 1, sizeof *handles)) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* Ids that are no address and no small number, so that a mix-up is seen. */
    unsigned long long id = 0xc0de000000000000ull + mock__state.next_id++;
    handles[nhandles++] = (vmm_handle){id, size, fd, dev, 1, types};
    mock__count_handle(1);
    *out = id;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                  const CUmemAllocationProp *prop, unsigned long long flags) {
    MOCK_ENTER(cuMemCreate);
    if (handle == NULL || flags != 0 || size == 0 || size % GRANULARITY != 0) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUresult r = check_prop(prop);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    int dev = prop->location.id;
    if (size > mock__devx[dev].total_mem - mock__used(dev, -1)) {
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    if (prop->requestedHandleTypes &
        ~(unsigned long long)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        mock__why("the mock shares memory as POSIX file descriptors only");
        return mock__leave(CUDA_ERROR_NOT_SUPPORTED);
    }
    int fd = memfd_create("cushim-mock-vmm", MFD_CLOEXEC);
    if (fd < 0) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    return mock__leave(add_handle(handle, fd, size, dev, prop->requestedHandleTypes));
}

CUresult CUDAAPI mock_cuMemRelease(CUmemGenericAllocationHandle handle) {
    MOCK_ENTER(cuMemRelease);
    vmm_handle *h = expect_handle(handle);
    if (h == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (--h->refs > 0) return mock__leave(CUDA_SUCCESS);
    close(h->fd);
    h->fd = -1;
    mock__count_handle(-1);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                          CUdeviceptr addr, unsigned long long flags) {
    MOCK_ENTER(cuMemAddressReserve);
    (void)addr; /* a hint the driver may ignore; so does the mock */
    if (ptr == NULL || size == 0 || size % GRANULARITY != 0 || flags != 0 ||
        (alignment & (alignment - 1)) != 0) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (alignment < GRANULARITY) alignment = GRANULARITY;
    if (size > SIZE_MAX - alignment) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    /* Over-reserve, then trim to the alignment. */
    size_t span = size + alignment;
    void *m = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    uintptr_t lo = (uintptr_t)m, base = (lo + alignment - 1) & ~(uintptr_t)(alignment - 1);
    if (base > lo) munmap(m, base - lo);
    if (lo + span > base + size) munmap((void *)(base + size), lo + span - (base + size));
    mock_range rg = {.base = base,
                     .size = size,
                     .kind = MOCK_MEM_VMM_RESERVE,
                     .device = -1,
                     .storage = (void *)base,
                     .made_by = mock__entry_name()};
    CUresult r = mock__add_range(&rg);
    if (r != CUDA_SUCCESS) {
        munmap((void *)base, size);
        return mock__leave(r);
    }
    *ptr = (CUdeviceptr)base;
    return mock__leave(CUDA_SUCCESS);
}

/* The mappings inside [p, p + n), in no order; whether any only partly is. */
static size_t mappings_in(uintptr_t p, size_t n, mock_range **out, size_t cap, bool *partial) {
    size_t k = 0;
    *partial = false;
    for (uintptr_t at = p; at - p < n;) {
        mock_range *r = mock__range_at(at, false);
        if (r == NULL || r->kind != MOCK_MEM_VMM_MAPPING) {
            at += GRANULARITY - (at % GRANULARITY);
            continue;
        }
        if (r->base < p || r->size > n - (r->base - p)) *partial = true;
        if (k < cap) out[k++] = r;
        at = r->base + r->size;
    }
    return k;
}

CUresult CUDAAPI mock_cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    MOCK_ENTER(cuMemAddressFree);
    CUresult r;
    mock_range *rg = mock__range_to_free((uintptr_t)ptr, 1u << MOCK_MEM_VMM_RESERVE, &r);
    if (rg == NULL) return mock__leave(r);
    if (rg->size != size) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_range *m;
    bool partial;
    if (mappings_in(rg->base, rg->size, &m, 1, &partial) > 0) {
        return mock__leave(mock__mem_error("the reservation at 0x%llx still has mappings: "
                                           "cuMemUnmap them first",
                                           (unsigned long long)ptr));
    }
    mock__drop_range(rg, mock__entry_name());
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                               CUmemGenericAllocationHandle handle, unsigned long long flags) {
    MOCK_ENTER(cuMemMap);
    vmm_handle *h = expect_handle(handle);
    if (h == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (flags != 0 || size == 0 || size % GRANULARITY != 0 || offset % GRANULARITY != 0 ||
        offset > h->size || size > h->size - offset || ptr % GRANULARITY != 0) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    uintptr_t p = (uintptr_t)ptr;
    mock_range *res = mock__range_at(p, true);
    if (res == NULL || res->kind != MOCK_MEM_VMM_RESERVE || size > res->size - (p - res->base)) {
        return mock__leave(mock__mem_error("[0x%llx, +%zu) is not inside one reservation",
                                           (unsigned long long)ptr, size));
    }
    mock_range *m;
    bool partial;
    if (mappings_in(p, size, &m, 1, &partial) > 0) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE); /* already mapped there */
    }
    void *at =
        mmap((void *)p, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, h->fd, (off_t)offset);
    if (at == MAP_FAILED) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    mock_range rg = {.base = p,
                     .size = size,
                     .kind = MOCK_MEM_VMM_MAPPING,
                     .device = h->device,
                     .handle = handle,
                     .access = CU_MEM_ACCESS_FLAGS_PROT_NONE,
                     .made_by = mock__entry_name()};
    return mock__leave(mock__add_range(&rg));
}

CUresult CUDAAPI mock_cuMemUnmap(CUdeviceptr ptr, size_t size) {
    MOCK_ENTER(cuMemUnmap);
    mock_range *m[64];
    bool partial;
    size_t k = mappings_in((uintptr_t)ptr, size, m, 64, &partial);
    if (k == 0) {
        return mock__leave(
            mock__mem_error("nothing is mapped in [0x%llx, +%zu)", (unsigned long long)ptr, size));
    }
    if (partial) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < k; i++) {
        /* Back to an inaccessible part of the reservation. */
        mmap((void *)m[i]->base, m[i]->size, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        mock__drop_range(m[i], mock__entry_name());
    }
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                     size_t count) {
    MOCK_ENTER(cuMemSetAccess);
    if (desc == NULL || count == 0 || size == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < count; i++) {
        CUmemAccess_flags f = desc[i].flags;
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
            (f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ &&
             f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)) {
            return mock__leave(CUDA_ERROR_INVALID_VALUE);
        }
        if (!mock__valid_device(desc[i].location.id)) {
            return mock__leave(CUDA_ERROR_INVALID_DEVICE);
        }
    }
    /* The whole range must be mapped: count the mapped bytes. */
    mock_range *m[64];
    bool partial;
    size_t k = mappings_in((uintptr_t)ptr, size, m, 64, &partial), mapped = 0;
    for (size_t i = 0; i < k; i++) mapped += m[i]->size;
    if (k == 0 || partial || mapped != size) {
        return mock__leave(
            mock__mem_error("[0x%llx, +%zu) is not wholly mapped", (unsigned long long)ptr, size));
    }
    /* The mock keeps one access per mapping: the one given for the mapping's own device. */
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < count; j++) {
            if (desc[j].location.id == m[i]->device) m[i]->access = desc[j].flags;
        }
    }
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
                                     CUdeviceptr ptr) {
    MOCK_ENTER(cuMemGetAccess);
    if (flags == NULL || location == NULL || location->type != CU_MEM_LOCATION_TYPE_DEVICE) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    mock_range *r = mock__range_at((uintptr_t)ptr, false);
    if (r == NULL || r->kind != MOCK_MEM_VMM_MAPPING) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *flags = location->id == r->device ? r->access : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Sharing handles between processes                                                          */
/* ------------------------------------------------------------------------------------------ */

/* A new descriptor of the handle's memory file, which the caller owns (and may pass to another
 * process, over a UNIX socket or by fork). */
CUresult CUDAAPI mock_cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle handle,
                                                   CUmemAllocationHandleType type,
                                                   unsigned long long flags) {
    MOCK_ENTER(cuMemExportToShareableHandle);
    if (out == NULL || flags != 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    vmm_handle *h = expect_handle(handle);
    if (h == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !(h->types & type)) {
        mock__why("the handle was not made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
                  "requestedHandleTypes, or another type was asked for");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    int fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    *(int *)out = fd;
    return mock__leave(CUDA_SUCCESS);
}

/* A handle for a descriptor another process exported: the same memory file, checked to be one
 * (the mock's, of a whole number of granules); the caller keeps its descriptor. */
CUresult CUDAAPI mock_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                                     void *os_handle,
                                                     CUmemAllocationHandleType type) {
    MOCK_ENTER(cuMemImportFromShareableHandle);
    if (handle == NULL || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuMemImportFromShareableHandle", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    int given = (int)(intptr_t)os_handle;
    char path[64], target[128] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", given);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0) target[n] = '\0';
    struct stat st;
    if (given < 0 || fstat(given, &st) != 0 || strncmp(target, "/memfd:cushim-mock-", 19) != 0 ||
        st.st_size <= 0 || (size_t)st.st_size % GRANULARITY != 0) {
        mock__why("descriptor %d is not one cuMemExportToShareableHandle of the mock made", given);
        return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    }
    int fd = fcntl(given, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    return mock__leave(add_handle(handle, fd, (size_t)st.st_size, c->device,
                                  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
}

CUresult CUDAAPI mock_cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                             CUmemGenericAllocationHandle handle) {
    MOCK_ENTER(cuMemGetAllocationPropertiesFromHandle);
    if (prop == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    vmm_handle *h = expect_handle(handle);
    if (h == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *prop = (CUmemAllocationProp){.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                  .requestedHandleTypes = (CUmemAllocationHandleType)h->types,
                                  .location = {CU_MEM_LOCATION_TYPE_DEVICE, h->device}};
    return mock__leave(CUDA_SUCCESS);
}

/* The handle mapped at addr, with one more reference that cuMemRelease gives back. */
CUresult CUDAAPI mock_cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
                                                  void *addr) {
    MOCK_ENTER(cuMemRetainAllocationHandle);
    if (handle == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_range *r = mock__range_at((uintptr_t)addr, false);
    if (r == NULL || r->kind != MOCK_MEM_VMM_MAPPING) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < nhandles; i++) {
        if (handles[i].id != r->handle) continue;
        if (handles[i].fd < 0) break; /* released: only the mapping holds it */
        handles[i].refs++;
        *handle = r->handle;
        return mock__leave(CUDA_SUCCESS);
    }
    mock__why("the handle mapped at %p was released; the mock cannot retain it again", addr);
    return mock__leave(CUDA_ERROR_NOT_SUPPORTED);
}
