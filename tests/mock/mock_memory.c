/* Memory: device allocations are host memory, so a CUdeviceptr is the host address. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

#define S mock__s

static CUresult add_alloc(void *p, size_t size, struct CUctx_st *ctx, bool host) {
    if (!mock__grow(&S.allocs, &S.capallocs, S.nallocs + 1, sizeof *S.allocs)) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    S.allocs[S.nallocs++] = (mock_alloc){(uintptr_t)p, size, ctx, host};
    if (!host) S.live[CUSHIM_MOCK_MEMORY]++;
    return CUDA_SUCCESS;
}

static void drop_alloc(size_t i) {
    free((void *)S.allocs[i].base);
    if (!S.allocs[i].host) S.live[CUSHIM_MOCK_MEMORY]--;
    S.allocs[i] = S.allocs[--S.nallocs];
}

/* Frees the allocations of ctx (all of them for NULL), as the driver does on destroy. */
void mock__free_allocs(struct CUctx_st *ctx) {
    for (size_t i = 0; i < S.nallocs;) {
        if (ctx == NULL || S.allocs[i].ctx == ctx) {
            drop_alloc(i);
        } else {
            i++;
        }
    }
    if (ctx == NULL) {
        free(S.allocs);
        S.allocs = NULL;
        S.capallocs = 0;
    }
}

/* The index of the allocation whose base is p, -1 for none. */
static long find_base(uintptr_t p, bool host) {
    for (size_t i = 0; i < S.nallocs; i++) {
        if (S.allocs[i].base == p && S.allocs[i].host == host) return (long)i;
    }
    return -1;
}

/* Whether [p, p + n) lies inside one device allocation. */
static bool inside(uintptr_t p, size_t n) {
    for (size_t i = 0; i < S.nallocs; i++) {
        const mock_alloc *a = &S.allocs[i];
        if (!a->host && p >= a->base && p - a->base <= a->size && n <= a->size - (p - a->base)) {
            return true;
        }
    }
    return false;
}

static CUresult alloc(const char *entry, void **out, size_t size, bool host) {
    if (out == NULL || size == 0) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    if (r != CUDA_SUCCESS) return r;
    void *p = malloc(size);
    if (p == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    r = add_alloc(p, size, c, host);
    if (r != CUDA_SUCCESS) {
        free(p);
        return r;
    }
    *out = p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
    MOCK_ENTER(cuMemAlloc);
    if (dptr == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    void *p = NULL;
    CUresult r = alloc("cuMemAlloc", &p, bytesize, false);
    if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemFree(CUdeviceptr dptr) {
    MOCK_ENTER(cuMemFree);
    if (dptr == 0) return mock__leave(CUDA_SUCCESS);
    long i = find_base((uintptr_t)dptr, false);
    if (i < 0) {
        mock__die("cuMemFree", "0x%llx is not the start of a live allocation (double free?)",
                  (unsigned long long)dptr);
    }
    drop_alloc((size_t)i);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemAllocHost(void **pp, size_t bytesize) {
    MOCK_ENTER(cuMemAllocHost);
    return mock__leave(alloc("cuMemAllocHost", pp, bytesize, true));
}

CUresult CUDAAPI mock_cuMemFreeHost(void *p) {
    MOCK_ENTER(cuMemFreeHost);
    long i = find_base((uintptr_t)p, true);
    if (i < 0) mock__die("cuMemFreeHost", "%p is not a live cuMemAllocHost allocation", p);
    drop_alloc((size_t)i);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMemGetInfo(size_t *free_bytes, size_t *total) {
    MOCK_ENTER(cuMemGetInfo);
    if (free_bytes == NULL || total == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuMemGetInfo", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    unsigned long long used = 0;
    for (size_t i = 0; i < S.nallocs; i++) {
        if (!S.allocs[i].host && S.allocs[i].ctx->device == c->device) used += S.allocs[i].size;
    }
    *total = (size_t)MOCK_TOTAL_MEM;
    *free_bytes = (size_t)(used < MOCK_TOTAL_MEM ? MOCK_TOTAL_MEM - used : 0);
    return mock__leave(CUDA_SUCCESS);
}

/* Copies and sets: checked against the allocations; `s` (when given) gets an item of work. */
static CUresult copy(const char *entry, void *dst, const void *src, size_t n, uintptr_t dev,
                     CUstream hs, bool async) {
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    if (r != CUDA_SUCCESS) return r;
    struct CUstream_st *s = NULL;
    if (async) {
        r = mock__stream(hs, entry, &s);
        if (r != CUDA_SUCCESS) return r;
    } else {
        /* A synchronous copy or set waits for the legacy default stream first. */
        mock__complete(&c->default_stream, c->default_stream.submitted, 0);
    }
    if (n == 0) return CUDA_SUCCESS;
    if ((dst == NULL && src == NULL) || !inside(dev, n)) return CUDA_ERROR_INVALID_VALUE;
    memcpy(dst, src, n);
    if (s) mock__submit(s);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
    MOCK_ENTER(cuMemcpyHtoD);
    if (src == NULL && n) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    return mock__leave(
        copy("cuMemcpyHtoD", (void *)(uintptr_t)dst, src, n, (uintptr_t)dst, NULL, false));
}

CUresult CUDAAPI mock_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
    MOCK_ENTER(cuMemcpyDtoH);
    if (dst == NULL && n) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    return mock__leave(
        copy("cuMemcpyDtoH", dst, (const void *)(uintptr_t)src, n, (uintptr_t)src, NULL, false));
}

CUresult CUDAAPI mock_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyHtoDAsync);
    if (src == NULL && n) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    return mock__leave(
        copy("cuMemcpyHtoDAsync", (void *)(uintptr_t)dst, src, n, (uintptr_t)dst, hs, true));
}

CUresult CUDAAPI mock_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyDtoHAsync);
    if (dst == NULL && n) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    return mock__leave(copy("cuMemcpyDtoHAsync", dst, (const void *)(uintptr_t)src, n,
                            (uintptr_t)src, hs, true));
}

static CUresult set32(const char *entry, CUdeviceptr dst, unsigned value, size_t count,
                      CUstream hs, bool async) {
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    if (r != CUDA_SUCCESS) return r;
    struct CUstream_st *s = NULL;
    if (async) {
        r = mock__stream(hs, entry, &s);
        if (r != CUDA_SUCCESS) return r;
    } else {
        /* A synchronous copy or set waits for the legacy default stream first. */
        mock__complete(&c->default_stream, c->default_stream.submitted, 0);
    }
    if (count == 0) return CUDA_SUCCESS;
    if ((uintptr_t)dst % 4 != 0 || count > SIZE_MAX / 4 || !inside((uintptr_t)dst, count * 4)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    unsigned char *p = (unsigned char *)(uintptr_t)dst;
    for (size_t i = 0; i < count; i++) memcpy(p + 4 * i, &value, 4);
    if (s) mock__submit(s);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count) {
    MOCK_ENTER(cuMemsetD32);
    return mock__leave(set32("cuMemsetD32", dst, value, count, NULL, false));
}

CUresult CUDAAPI mock_cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                                       CUstream hs) {
    MOCK_ENTER(cuMemsetD32Async);
    return mock__leave(set32("cuMemsetD32Async", dst, value, count, hs, true));
}
