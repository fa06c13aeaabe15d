/* Peer access between devices: enabling and disabling the current device's access to a peer's
 * memory (the driver's access between the two primary contexts), copies between devices, and
 * the links' attributes. cudaDeviceCanAccessPeer is in rt_device.c. */
#include <stdint.h>

#include "runtime/rt_forward.h"

/* The primary context of peer, for the current device's context to reach: cudaErrorInvalidDevice
 * for one that does not exist or is the current device itself. */
static cudaError_t peer_context(cushim_context **peer_ctx, int peer, const char *fn) {
    int n;
    cudaError_t e = cushim__rt_devices(&n, fn);
    if (e != cudaSuccess) return e;
    if (peer < 0 || peer >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: peer device %d does not exist (%d)", fn,
                               peer, n);
    }
    if (peer == cushim__rt_device()) {
        return cushim__rt_fail(cudaErrorInvalidDevice,
                               "%s: device %d is the current device, not a peer", fn, peer);
    }
    e = cushim__rt_context_of(peer_ctx, peer, fn);
    if (e != cudaSuccess) return e;
    return cushim__rt_ready(fn);
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    if (flags != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags must be 0 (%u)", __func__, flags);
    }
    cushim_context *peer;
    cudaError_t e = peer_context(&peer, peerDevice, __func__);
    if (e != cudaSuccess) return e;
    /* Already enabled is cudaErrorPeerAccessAlreadyEnabled, the driver's code by number. */
    return cushim__rt_checked(cushim__table.cuCtxEnablePeerAccess(peer->raw, 0), __func__,
                              "cuCtxEnablePeerAccess");
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
    cushim_context *peer;
    cudaError_t e = peer_context(&peer, peerDevice, __func__);
    if (e != cudaSuccess) return e;
    return cushim__rt_checked(cushim__table.cuCtxDisablePeerAccess(peer->raw), __func__,
                              "cuCtxDisablePeerAccess");
}

static cudaError_t copy_peer(void *dst, int dst_device, const void *src, int src_device,
                             size_t count, bool async, cudaStream_t stream, const char *fn) {
    cushim_context *d, *s;
    cudaError_t e = cushim__rt_context_of(&d, dst_device, fn);
    if (e == cudaSuccess) e = cushim__rt_context_of(&s, src_device, fn);
    if (e == cudaSuccess) e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    if (count == 0) return cudaSuccess;
    CUdeviceptr to = (CUdeviceptr)(uintptr_t)dst, from = (CUdeviceptr)(uintptr_t)src;
    if (async) {
        return cushim__rt_checked(cushim__table.cuMemcpyPeerAsync(to, d->raw, from, s->raw, count,
                                                                  cushim__rt_stream(stream, false)),
                                  fn, "cuMemcpyPeerAsync");
    }
    return cushim__rt_checked(cushim__table.cuMemcpyPeer(to, d->raw, from, s->raw, count), fn,
                              "cuMemcpyPeer");
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
