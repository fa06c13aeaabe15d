/* Peers: access between the primary contexts of two devices, copies between them, and the
 * links' attributes. */
#include <stdint.h>

#include "runtime/rt.h"

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    if (flags != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags must be 0 (%u)", __func__, flags);
    }
    cushim_context *ctx, *peer;
    cudaError_t e = cushim__rt_context_of(&peer, peerDevice, __func__);
    if (e == cudaSuccess) e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuCtxEnablePeerAccess(peer->raw, 0);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxEnablePeerAccess");
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
    cushim_context *ctx, *peer;
    cudaError_t e = cushim__rt_context_of(&peer, peerDevice, __func__);
    if (e == cudaSuccess) e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuCtxDisablePeerAccess(peer->raw);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxDisablePeerAccess");
    return cudaSuccess;
}

static cudaError_t copy_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                             bool async, cudaStream_t stream, const char *fn) {
    cushim_context *ctx, *to, *from;
    cudaError_t e = cushim__rt_context_of(&to, dstDevice, fn);
    if (e == cudaSuccess) e = cushim__rt_context_of(&from, srcDevice, fn);
    if (e == cudaSuccess) e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess || count == 0) return e;
    const CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    CUresult r = async ? cushim__table.cuMemcpyPeerAsync(d, to->raw, s, from->raw, count,
                                                         cushim__rt_stream(stream, false))
                       : cushim__table.cuMemcpyPeer(d, to->raw, s, from->raw, count);
    if (r != CUDA_SUCCESS) {
        return cushim__rt_driver_failed(r, fn, async ? "cuMemcpyPeerAsync" : "cuMemcpyPeer");
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
    return copy_peer(dst, dstDevice, src, srcDevice, count, false, NULL, __func__);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream) {
    return copy_peer(dst, dstDevice, src, srcDevice, count, true, stream, __func__);
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice,
                                      int dstDevice) {
    if (value == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: value is NULL", __func__);
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    if (srcDevice < 0 || srcDevice >= n || dstDevice < 0 || dstDevice >= n ||
        srcDevice == dstDevice) {
        return cushim__rt_fail(cudaErrorInvalidDevice,
                               "%s: devices %d and %d are not two devices of the %d", __func__,
                               srcDevice, dstDevice, n);
    }
    CUdevice a, b;
    CUresult r = cushim__table.cuDeviceGet(&a, srcDevice);
    if (r == CUDA_SUCCESS) r = cushim__table.cuDeviceGet(&b, dstDevice);
    /* cudaDeviceP2PAttr has the numbers of CUdevice_P2PAttribute. */
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuDeviceGetP2PAttribute(value, (CUdevice_P2PAttribute)attr, a, b);
    }
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDeviceGetP2PAttribute");
    return cudaSuccess;
}
