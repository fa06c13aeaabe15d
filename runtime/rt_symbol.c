/* Registered variables (symbols): copies to and from them at an offset, their address and size
 * on the current device, where their module is loaded on first use. */
#include <stdint.h>

#include "cudart_ptds.h"
#include "runtime/rt.h"

/* The device address of symbol + offset, with count bytes checked against its size. */
static cudaError_t symbol_at(CUdeviceptr *at, const void *symbol, size_t count, size_t offset,
                             const char *fn) {
    CUdeviceptr p;
    size_t size;
    cudaError_t e = cushim__rt_symbol(&p, &size, symbol, fn);
    if (e != cudaSuccess) return e;
    if (offset > size || count > size - offset) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: %zu bytes at offset %zu do not fit the %zu-byte variable", fn,
                               count, offset, size);
    }
    *at = p + offset;
    return cudaSuccess;
}

static cudaError_t to_symbol(const void *symbol, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, bool async, cudaStream_t stream, bool pt,
                             const char *fn) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault) {
        return cushim__rt_fail(cudaErrorInvalidMemcpyDirection,
                               "%s: kind %d: a copy to a symbol is from the host or the device", fn,
                               (int)kind);
    }
    CUdeviceptr at = 0;
    cudaError_t e = symbol_at(&at, symbol, count, offset, fn);
    if (e != cudaSuccess) return e;
    return cushim__rt_copy((void *)(uintptr_t)at, src, count, kind, async, stream, pt, fn);
}

static cudaError_t from_symbol(void *dst, const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, bool async, cudaStream_t stream, bool pt,
                               const char *fn) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault) {
        return cushim__rt_fail(cudaErrorInvalidMemcpyDirection,
                               "%s: kind %d: a copy from a symbol is to the host or the device", fn,
                               (int)kind);
    }
    CUdeviceptr at = 0;
    cudaError_t e = symbol_at(&at, symbol, count, offset, fn);
    if (e != cudaSuccess) return e;
    return cushim__rt_copy(dst, (const void *)(uintptr_t)at, count, kind, async, stream, pt, fn);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
    return to_symbol(symbol, src, count, offset, kind, false, NULL, false, __func__);
}

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind) {
    return to_symbol(symbol, src, count, offset, kind, false, NULL, true, __func__);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
    return from_symbol(dst, symbol, count, offset, kind, false, NULL, false, __func__);
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind) {
    return from_symbol(dst, symbol, count, offset, kind, false, NULL, true, __func__);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return to_symbol(symbol, src, count, offset, kind, true, stream, false, __func__);
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind,
                                         cudaStream_t stream) {
    return to_symbol(symbol, src, count, offset, kind, true, stream, true, __func__);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
    return from_symbol(dst, symbol, count, offset, kind, true, stream, false, __func__);
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream) {
    return from_symbol(dst, symbol, count, offset, kind, true, stream, true, __func__);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    if (devPtr == NULL)
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: devPtr is NULL", __func__);
    CUdeviceptr p;
    cudaError_t e = cushim__rt_symbol(&p, NULL, symbol, __func__);
    if (e != cudaSuccess) return e;
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    if (size == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: size is NULL", __func__);
    CUdeviceptr p;
    return cushim__rt_symbol(&p, size, symbol, __func__);
}
