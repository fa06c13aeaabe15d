/* Copies to, from and between CUDA arrays, in both default-stream modes: the 2D ones (an
 * offset of wOffset bytes and hOffset rows in the array, width in bytes), the deprecated
 * linear ones (count bytes from an offset, whole rows when more than one), and array to array.
 * Each is one CUDA_MEMCPY3D of depth 1 for cuMemcpy3D or, in stream order, cuMemcpy3DAsync. */
#include "cudart_ptds.h"
#include "runtime/rt_copy.h"
#include "runtime/rt_forward.h"

/* One side of a copy: an array at (x bytes, y rows), or a pointer of pitch bytes. */
typedef struct side {
    cudaArray_const_t array;
    const void *ptr;
    size_t pitch, x, y;
} side;

#define ARRAY_AT(a, x, y) ((side){(a), NULL, 0, (x), (y)})
#define POINTER(p, pitch) ((side){NULL, (p), (pitch), 0, 0})

static void put(CUDA_MEMCPY3D *c, bool dst, side s, size_t height, enum cudaMemcpyKind kind) {
    if (s.array != NULL) {
        cushim__rt_copy_array(c, dst, (CUarray)s.array);
        cushim__rt_copy_offset(c, dst, s.x, s.y, 0);
    } else {
        cushim__rt_copy_ptr(c, dst, s.ptr, s.pitch, height, kind);
    }
}

static cudaError_t copy_2d(side dst, side src, size_t width, size_t height,
                           enum cudaMemcpyKind kind, bool async, cudaStream_t stream, bool pt,
                           const char *fn) {
    cudaError_t e = cushim__rt_check_kind(kind, fn);
    if (e != cudaSuccess) return e;
    if ((dst.array == NULL && dst.ptr == NULL) || (src.array == NULL && src.ptr == NULL)) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: the source or destination is NULL", fn);
    }
    e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    if (width == 0 || height == 0) return cudaSuccess;
    CUDA_MEMCPY3D c = {0};
    put(&c, false, src, height, kind);
    put(&c, true, dst, height, kind);
    c.WidthInBytes = width;
    c.Height = height;
    c.Depth = 1;
    return cushim__rt_copy_run(&c, async, stream, pt, fn);
}

/* The deprecated linear copies: count bytes from (x, y) of array a, as rows of the array's
 * width; a copy that starts inside a row and runs past it is refused. */
static cudaError_t copy_linear(cudaArray_const_t a, size_t x, size_t y, const void *ptr,
                               size_t count, bool to_array, enum cudaMemcpyKind kind, bool async,
                               cudaStream_t stream, bool pt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, a);
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    CUDA_ARRAY3D_DESCRIPTOR d;
    size_t elem;
    e = cushim__rt_array_element(&d, &elem, (CUarray)a, fn);
    if (e != cudaSuccess) return e;
    size_t row = d.Width * elem, width = count, height = 1;
    if (x + count > row) {
        if (x != 0 || count % row != 0) {
            return cushim__rt_fail(cudaErrorInvalidValue,
                                   "%s: %zu bytes from byte %zu of a row of %zu bytes: a copy of "
                                   "more than one row must start at a row and cover whole rows",
                                   fn, count, x, row);
        }
        width = row;
        height = count / row;
    }
    side arr = ARRAY_AT(a, x, y), mem = POINTER(ptr, width);
    return to_array ? copy_2d(arr, mem, width, height, kind, async, stream, pt, fn)
                    : copy_2d(mem, arr, width, height, kind, async, stream, pt, fn);
}

/* ------------------------------------------------------------------------------------------ */
/* 2D                                                                                         */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind) {
    return copy_2d(ARRAY_AT(dst, wOffset, hOffset), POINTER(src, spitch), width, height, kind,
                   false, NULL, false, __func__);
}

cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     enum cudaMemcpyKind kind) {
    return copy_2d(ARRAY_AT(dst, wOffset, hOffset), POINTER(src, spitch), width, height, kind,
                   false, NULL, true, __func__);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     enum cudaMemcpyKind kind, cudaStream_t stream) {
    return copy_2d(ARRAY_AT(dst, wOffset, hOffset), POINTER(src, spitch), width, height, kind, true,
                   stream, false, __func__);
}

cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                          const void *src, size_t spitch, size_t width,
                                          size_t height, enum cudaMemcpyKind kind,
                                          cudaStream_t stream) {
    return copy_2d(ARRAY_AT(dst, wOffset, hOffset), POINTER(src, spitch), width, height, kind, true,
                   stream, true, __func__);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind) {
    return copy_2d(POINTER(dst, dpitch), ARRAY_AT(src, wOffset, hOffset), width, height, kind,
                   false, NULL, false, __func__);
}

cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       enum cudaMemcpyKind kind) {
    return copy_2d(POINTER(dst, dpitch), ARRAY_AT(src, wOffset, hOffset), width, height, kind,
                   false, NULL, true, __func__);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       enum cudaMemcpyKind kind, cudaStream_t stream) {
    return copy_2d(POINTER(dst, dpitch), ARRAY_AT(src, wOffset, hOffset), width, height, kind, true,
                   stream, false, __func__);
}

cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                            size_t wOffset, size_t hOffset, size_t width,
                                            size_t height, enum cudaMemcpyKind kind,
                                            cudaStream_t stream) {
    return copy_2d(POINTER(dst, dpitch), ARRAY_AT(src, wOffset, hOffset), width, height, kind, true,
                   stream, true, __func__);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, enum cudaMemcpyKind kind) {
    return copy_2d(ARRAY_AT(dst, wOffsetDst, hOffsetDst), ARRAY_AT(src, wOffsetSrc, hOffsetSrc),
                   width, height, kind, false, NULL, false, __func__);
}

cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                          cudaArray_const_t src, size_t wOffsetSrc,
                                          size_t hOffsetSrc, size_t width, size_t height,
                                          enum cudaMemcpyKind kind) {
    return copy_2d(ARRAY_AT(dst, wOffsetDst, hOffsetDst), ARRAY_AT(src, wOffsetSrc, hOffsetSrc),
                   width, height, kind, false, NULL, true, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* Linear (deprecated by NVIDIA, still declared)                                              */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind) {
    return copy_linear(dst, wOffset, hOffset, src, count, true, kind, false, NULL, false, __func__);
}

cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t count, enum cudaMemcpyKind kind) {
    return copy_linear(dst, wOffset, hOffset, src, count, true, kind, false, NULL, true, __func__);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return copy_linear(dst, wOffset, hOffset, src, count, true, kind, true, stream, false,
                       __func__);
}

cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                        const void *src, size_t count, enum cudaMemcpyKind kind,
                                        cudaStream_t stream) {
    return copy_linear(dst, wOffset, hOffset, src, count, true, kind, true, stream, true, __func__);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, enum cudaMemcpyKind kind) {
    return copy_linear(src, wOffset, hOffset, dst, count, false, kind, false, NULL, false,
                       __func__);
}

cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind) {
    return copy_linear(src, wOffset, hOffset, dst, count, false, kind, false, NULL, true, __func__);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream) {
    return copy_linear(src, wOffset, hOffset, dst, count, false, kind, true, stream, false,
                       __func__);
}

cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                          size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                          cudaStream_t stream) {
    return copy_linear(src, wOffset, hOffset, dst, count, false, kind, true, stream, true,
                       __func__);
}
