/* Memory basics: device and pinned host allocations, linear copies and sets in both
 * default-stream modes.
 *
 * Copies go to the driver's copy of their direction (cuMemcpyHtoD, ...), and cudaMemcpyDefault
 * to cuMemcpy, which takes any two addresses under unified addressing. The
 * synchronisation rules NVIDIA documents for cudaMemcpy (pageable host memory staged and waited
 * for, a copy to the host complete on return, a device-to-device copy asynchronous) are the
 * driver's own for cuMemcpy: the runtime adds nothing to them. */
#include <stdint.h>

#include "cudart_ptds.h"
#include "runtime/rt.h"

static cudaError_t check_kind(enum cudaMemcpyKind kind, const char *fn) {
    if ((unsigned)kind > (unsigned)cudaMemcpyDefault) {
        return cushim__rt_fail(cudaErrorInvalidMemcpyDirection,
                               "%s: kind %d is not a cudaMemcpyKind", fn, (int)kind);
    }
    return cudaSuccess;
}

/* ------------------------------------------------------------------------------------------ */
/* Allocation                                                                                 */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    if (devPtr == NULL)
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: devPtr is NULL", __func__);
    /* On an error *devPtr is left as it was (NVIDIA's 13.0 without a driver, observed). */
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    if (size == 0) { /* NULL, and success, as NVIDIA's runtime */
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr p = 0;
    CUresult r = cushim__table.cuMemAlloc(&p, size);
    if (r != CUDA_SUCCESS) {
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            return cushim__rt_fail(cudaErrorMemoryAllocation,
                                   "%s: %zu bytes: the device is out of memory", __func__, size);
        }
        return cushim__rt_driver_failed(r, __func__, "cuMemAlloc");
    }
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr) {
    /* cudaFree(NULL) is the idiom that initialises the runtime: it makes the context. */
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess || devPtr == NULL) return e;
    CUresult r = cushim__table.cuMemFree((CUdeviceptr)(uintptr_t)devPtr);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemFree");
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
    if (ptr == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: ptr is NULL", __func__);
    *ptr = NULL;
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess || size == 0) return e;
    CUresult r = cushim__table.cuMemAllocHost(ptr, size);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemAllocHost");
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    if (pHost == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: pHost is NULL", __func__);
    *pHost = NULL;
    if ((flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                             cudaHostAllocWriteCombined)) != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags 0x%x are not cudaHostAlloc* flags",
                               __func__, flags);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess || size == 0) return e;
    /* The flags have the same bits as CU_MEMHOSTALLOC_*. */
    CUresult r = cushim__table.cuMemHostAlloc(pHost, size, flags);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemHostAlloc");
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess || ptr == NULL) return e;
    CUresult r = cushim__table.cuMemFreeHost(ptr);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemFreeHost");
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
    if (pDevice == NULL || pHost == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pDevice or pHost is NULL", __func__);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUdeviceptr p = 0;
    CUresult r = cushim__table.cuMemHostGetDevicePointer(&p, pHost, flags);
    if (r != CUDA_SUCCESS)
        return cushim__rt_driver_failed(r, __func__, "cuMemHostGetDevicePointer");
    *pDevice = (void *)(uintptr_t)p;
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    /* The flags have the same bits as CU_MEMHOSTREGISTER_*. */
    CUresult r = cushim__table.cuMemHostRegister(ptr, size, flags);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemHostRegister");
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuMemHostUnregister(ptr);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemHostUnregister");
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
    if (free == NULL || total == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: free or total is NULL", __func__);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuMemGetInfo(free, total);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuMemGetInfo");
    return cudaSuccess;
}

/* ------------------------------------------------------------------------------------------ */
/* Copies and sets                                                                            */
/* ------------------------------------------------------------------------------------------ */

/* The driver's copy for a kind: the direction when the caller names it (a driver then knows
 * which side is host memory without looking the addresses up), cuMemcpy for cudaMemcpyDefault
 * and host to host, which unified addressing resolves. */
static CUresult copy_sync(const cushim_driver_table *t, CUdeviceptr d, CUdeviceptr s, size_t n,
                          enum cudaMemcpyKind kind) {
    switch (kind) {
    case cudaMemcpyHostToDevice: return t->cuMemcpyHtoD(d, (const void *)(uintptr_t)s, n);
    case cudaMemcpyDeviceToHost: return t->cuMemcpyDtoH((void *)(uintptr_t)d, s, n);
    case cudaMemcpyDeviceToDevice: return t->cuMemcpyDtoD(d, s, n);
    default: return t->cuMemcpy(d, s, n);
    }
}

static CUresult copy_async(const cushim_driver_table *t, CUdeviceptr d, CUdeviceptr s, size_t n,
                           enum cudaMemcpyKind kind, CUstream stream) {
    switch (kind) {
    case cudaMemcpyHostToDevice:
        return t->cuMemcpyHtoDAsync(d, (const void *)(uintptr_t)s, n, stream);
    case cudaMemcpyDeviceToHost: return t->cuMemcpyDtoHAsync((void *)(uintptr_t)d, s, n, stream);
    case cudaMemcpyDeviceToDevice: return t->cuMemcpyDtoDAsync(d, s, n, stream);
    default: return t->cuMemcpyAsync(d, s, n, stream);
    }
}

cudaError_t cushim__rt_copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            bool async, cudaStream_t stream, bool pt, const char *fn) {
    cudaError_t e = check_kind(kind, fn);
    if (e != cudaSuccess) return e;
    cushim_context *ctx;
    e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess || count == 0) return e;
    const CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    CUresult r =
        async ? copy_async(cushim__rt_table(pt), d, s, count, kind, cushim__rt_stream(stream, pt))
              : copy_sync(cushim__rt_table(pt), d, s, count, kind);
    if (r != CUDA_SUCCESS) {
        return cushim__rt_driver_failed(r, fn, async ? "cuMemcpyAsync" : "cuMemcpy");
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cushim__rt_copy(dst, src, count, kind, false, NULL, false, __func__);
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cushim__rt_copy(dst, src, count, kind, false, NULL, true, __func__);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    return cushim__rt_copy(dst, src, count, kind, true, stream, false, __func__);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream) {
    return cushim__rt_copy(dst, src, count, kind, true, stream, true, __func__);
}

static cudaError_t set(void *devPtr, int value, size_t count, bool async, cudaStream_t stream,
                       bool pt, const char *fn) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess || count == 0) return e;
    const CUdeviceptr d = (CUdeviceptr)(uintptr_t)devPtr;
    CUresult r = async ? cushim__rt_table(pt)->cuMemsetD8Async(d, (unsigned char)value, count,
                                                               cushim__rt_stream(stream, pt))
                       : cushim__rt_table(pt)->cuMemsetD8(d, (unsigned char)value, count);
    if (r != CUDA_SUCCESS)
        return cushim__rt_driver_failed(r, fn, async ? "cuMemsetD8Async" : "cuMemsetD8");
    return cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    return set(devPtr, value, count, false, NULL, false, __func__);
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
    return set(devPtr, value, count, false, NULL, true, __func__);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    return set(devPtr, value, count, true, stream, false, __func__);
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream) {
    return set(devPtr, value, count, true, stream, true, __func__);
}
