/* Pitched memory: cudaMallocPitch and cudaMalloc3D, the 2D copies between pointers, and the 2D
 * and 3D sets, in both default-stream modes.
 *
 * A 2D copy is the driver's CUDA_MEMCPY2D, its sides' memory types from the cudaMemcpyKind
 * (host or device; unified for cudaMemcpyDefault). A 3D set is one 2D set when its slices'
 * rows follow one another (the extent's height is the allocation's), else one per slice, in
 * stream order. */
#include <stdint.h>
#include <string.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"
#include "runtime/rt_pitched.h"

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* The widest element the kernels read from a pitched allocation: the driver pads rows for it. */
#define PITCH_ELEMENT 16u

/* ------------------------------------------------------------------------------------------ */
/* Allocation                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* width bytes by rows rows; nothing (and success, as cudaMalloc of 0 bytes) when either is 0. */
static cudaError_t alloc_pitch(void **ptr, size_t *pitch, size_t width, size_t rows,
                               const char *fn) {
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess || width == 0 || rows == 0) return e;
    CUdeviceptr p = 0;
    size_t got = 0;
    CUresult r = cushim__table.cuMemAllocPitch(&p, &got, width, rows, PITCH_ELEMENT);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        return cushim__rt_fail(cudaErrorMemoryAllocation,
                               "%s: %zu rows of %zu bytes: the device is out of memory", fn, rows,
                               width);
    }
    e = cushim__rt_checked(r, fn, "cuMemAllocPitch");
    if (e != cudaSuccess) return e;
    *ptr = (void *)(uintptr_t)p;
    *pitch = got;
    return cudaSuccess;
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
    CUSHIM__RT_NONNULL(__func__, devPtr);
    CUSHIM__RT_NONNULL(__func__, pitch);
    *devPtr = NULL;
    *pitch = 0;
    return alloc_pitch(devPtr, pitch, width, height, __func__);
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent) {
    CUSHIM__RT_NONNULL(__func__, pitchedDevPtr);
    *pitchedDevPtr = (struct cudaPitchedPtr){NULL, 0, extent.width, extent.height};
    /* Slices are height rows each, one after another: one pitched allocation of all rows. */
    if (extent.depth != 0 && extent.height > SIZE_MAX / extent.depth) {
        return cushim__rt_fail(cudaErrorMemoryAllocation,
                               "%s: %zu by %zu rows do not fit in a size_t", __func__,
                               extent.height, extent.depth);
    }
    return alloc_pitch(&pitchedDevPtr->ptr, &pitchedDevPtr->pitch, extent.width,
                       extent.height * extent.depth, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* 2D copies                                                                                  */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cushim__rt_check_kind(enum cudaMemcpyKind kind, const char *fn) {
    if ((unsigned)kind > (unsigned)cudaMemcpyDefault) {
        return cushim__rt_fail(cudaErrorInvalidMemcpyDirection,
                               "%s: kind %d is not a cudaMemcpyKind", fn, (int)kind);
    }
    return cudaSuccess;
}

CUmemorytype cushim__rt_memory_type(enum cudaMemcpyKind kind, bool dst) {
    if (kind == cudaMemcpyDefault) return CU_MEMORYTYPE_UNIFIED;
    bool host = kind == cudaMemcpyHostToHost ||
                (dst ? kind == cudaMemcpyDeviceToHost : kind == cudaMemcpyHostToDevice);
    return host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
}

static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, enum cudaMemcpyKind kind, bool async, cudaStream_t stream,
                          bool pt, const char *fn) {
    cudaError_t e = cushim__rt_check_kind(kind, fn);
    if (e != cudaSuccess) return e;
    if (width > dpitch || width > spitch) {
        return cushim__rt_fail(cudaErrorInvalidPitchValue,
                               "%s: a row of %zu bytes is wider than a pitch (dpitch %zu, spitch "
                               "%zu)",
                               fn, width, dpitch, spitch);
    }
    e = cushim__rt_ready(fn);
    if (e != cudaSuccess || width == 0 || height == 0) return e;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = cushim__rt_memory_type(kind, false);
    c.srcHost = src;
    c.srcDevice = DPTR(src);
    c.srcPitch = spitch;
    c.dstMemoryType = cushim__rt_memory_type(kind, true);
    c.dstHost = dst;
    c.dstDevice = DPTR(dst);
    c.dstPitch = dpitch;
    c.WidthInBytes = width;
    c.Height = height;
    const cushim_driver_table *t = cushim__rt_table(pt);
    if (async) {
        return cushim__rt_checked(t->cuMemcpy2DAsync(&c, cushim__rt_stream(stream, pt)), fn,
                                  "cuMemcpy2DAsync");
    }
    return cushim__rt_checked(t->cuMemcpy2D(&c), fn, "cuMemcpy2D");
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
    return copy2d(dst, dpitch, src, spitch, width, height, kind, false, NULL, false, __func__);
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind) {
    return copy2d(dst, dpitch, src, spitch, width, height, kind, false, NULL, true, __func__);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream) {
    return copy2d(dst, dpitch, src, spitch, width, height, kind, true, stream, false, __func__);
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind,
                                   cudaStream_t stream) {
    return copy2d(dst, dpitch, src, spitch, width, height, kind, true, stream, true, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* 2D and 3D sets                                                                             */
/* ------------------------------------------------------------------------------------------ */

/* depth slices of height rows of width bytes, slices `slice` bytes apart. */
static cudaError_t set3d(void *ptr, size_t pitch, size_t slice, int value, size_t width,
                         size_t height, size_t depth, bool async, cudaStream_t stream, bool pt,
                         const char *fn) {
    if (width > pitch && height > 1) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: a row of %zu bytes is wider than the pitch (%zu)", fn, width,
                               pitch);
    }
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess || width == 0 || height == 0 || depth == 0) return e;
    if (height == 1 && pitch < width) pitch = width; /* one row: the pitch is not used */
    /* Rows of consecutive slices follow one another: one set of all the rows. */
    if (depth > 1 && slice == pitch * height) {
        height *= depth;
        depth = 1;
    }
    const cushim_driver_table *t = cushim__rt_table(pt);
    CUstream s = cushim__rt_stream(stream, pt);
    for (size_t z = 0; z < depth; z++) {
        CUdeviceptr at = DPTR(ptr) + z * slice;
        CUresult r = async ? t->cuMemsetD2D8Async(at, pitch, (unsigned char)value, width, height, s)
                           : t->cuMemsetD2D8(at, pitch, (unsigned char)value, width, height);
        if (r != CUDA_SUCCESS) {
            return cushim__rt_driver_failed(r, fn, async ? "cuMemsetD2D8Async" : "cuMemsetD2D8");
        }
    }
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
    return set3d(devPtr, pitch, 0, value, width, height, 1, false, NULL, false, __func__);
}

cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
    return set3d(devPtr, pitch, 0, value, width, height, 1, false, NULL, true, __func__);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
    return set3d(devPtr, pitch, 0, value, width, height, 1, true, stream, false, __func__);
}

cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height, cudaStream_t stream) {
    return set3d(devPtr, pitch, 0, value, width, height, 1, true, stream, true, __func__);
}

/* The extent's width is in bytes; its slices are the allocation's (ysize rows) apart. */
static cudaError_t memset3d(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                            bool async, cudaStream_t stream, bool pt, const char *fn) {
    if (extent.depth > 1 && extent.height > p.ysize) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: %zu rows per slice do not fit the allocation's %zu", fn,
                               extent.height, p.ysize);
    }
    if (p.ysize != 0 && p.pitch > SIZE_MAX / p.ysize) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pitch %zu by %zu rows overflows", fn,
                               p.pitch, p.ysize);
    }
    return set3d(p.ptr, p.pitch, p.pitch * p.ysize, value, extent.width, extent.height,
                 extent.depth, async, stream, pt, fn);
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent) {
    return memset3d(pitchedDevPtr, value, extent, false, NULL, false, __func__);
}

cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent) {
    return memset3d(pitchedDevPtr, value, extent, false, NULL, true, __func__);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent, cudaStream_t stream) {
    return memset3d(pitchedDevPtr, value, extent, true, stream, false, __func__);
}

cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                   struct cudaExtent extent, cudaStream_t stream) {
    return memset3d(pitchedDevPtr, value, extent, true, stream, true, __func__);
}
