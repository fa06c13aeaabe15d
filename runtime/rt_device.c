/* Device management: the device count, the current device of the calling thread, its flags,
 * synchronisation and reset, versions, peers. */
#include "runtime/rt_handles.h"

cudaError_t cudaGetDeviceCount(int *count) {
    if (count == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: count is NULL", __func__);
    /* As NVIDIA's runtime: the reason as the code when there is no driver or no device, and
     * *count left as it was (NVIDIA's 13.0 leaves a -1 there, observed). */
    return cushim__rt_devices(count, __func__);
}

cudaError_t cudaGetDevice(int *device) {
    if (device == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: device is NULL", __func__);
    }
    /* As NVIDIA's runtime: without a usable driver the reason, and *device left as it was. */
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    *device = cushim__rt_device();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    cudaError_t e = cushim__rt_set_device(device, __func__);
    if (e != cudaSuccess) return e;
    /* Since CUDA 12 cudaSetDevice initialises the device's primary context at once. */
    cushim_context *ctx;
    return cushim__rt_context(&ctx, __func__);
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
    if (flags != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags must be 0 (%u)", __func__, flags);
    }
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: device %d does not exist", __func__,
                               device);
    }
    if (deviceFlags != 0) cushim__rt_set_device_flags(device, deviceFlags);
    cushim_context *ctx;
    return cushim__rt_context_of(&ctx, device, __func__);
}

cudaError_t cudaDeviceSynchronize(void) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__table.cuCtxSynchronize();
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuCtxSynchronize");
    return cudaSuccess;
}

/* Destroys everything of the current device's primary context, as NVIDIA documents: the
 * runtime's streams and events, the loaded modules, the context's allocations; the sticky error
 * goes with it. The next call makes a fresh context. */
cudaError_t cudaDeviceReset(void) {
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    int device = cushim__rt_device();
    cushim_context *ctx = cushim__rt_context_forget(device);
    CUresult r = CUDA_SUCCESS;
    if (ctx != NULL) {
        CUdevice dev = ctx->device;
        cushim__rt_handles_drop(ctx);
        cushim__rt_modules_drop(device);
        cushim_context_release(ctx);
        r = cushim__table.cuDevicePrimaryCtxReset(dev);
    }
    cushim__rt_sticky_clear(device);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDevicePrimaryCtxReset");
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion) {
    if (driverVersion == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: driverVersion is NULL", __func__);
    }
    /* No driver is version 0 and success, as NVIDIA documents. */
    *driverVersion = 0;
    if (cushim_init() != CUDA_SUCCESS) return cudaSuccess;
    CUresult r = cushim__table.cuDriverGetVersion(driverVersion);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDriverGetVersion");
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    if (runtimeVersion == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: runtimeVersion is NULL", __func__);
    }
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    const unsigned known = cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax |
                           cudaDeviceSyncMemops;
    if ((flags & ~known) != 0 ||
        (flags & cudaDeviceScheduleMask) > cudaDeviceScheduleBlockingSync) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags 0x%x are not cudaDevice* flags",
                               __func__, flags);
    }
    int device = cushim__rt_device();
    cushim__rt_set_device_flags(device, flags);
    /* Since CUDA 12 the flags apply to a primary context already active too. */
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    unsigned sched = flags & (cudaDeviceScheduleMask | cudaDeviceLmemResizeToMax);
    CUresult r = cushim__table.cuDevicePrimaryCtxSetFlags(ctx->device, sched);
    if (r != CUDA_SUCCESS)
        return cushim__rt_driver_failed(r, __func__, "cuDevicePrimaryCtxSetFlags");
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    if (flags == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags is NULL", __func__);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    unsigned f = 0;
    int active = 0;
    CUresult r = cushim__table.cuDevicePrimaryCtxGetState(ctx->device, &f, &active);
    if (r != CUDA_SUCCESS)
        return cushim__rt_driver_failed(r, __func__, "cuDevicePrimaryCtxGetState");
    /* A primary context maps host memory always. */
    *flags = f | cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
    if (canAccessPeer == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: canAccessPeer is NULL", __func__);
    }
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= n || peerDevice < 0 || peerDevice >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: device %d or %d does not exist (%d)",
                               __func__, device, peerDevice, n);
    }
    *canAccessPeer = 0;
    if (device == peerDevice) return cudaSuccess;
    CUdevice a, b;
    CUresult r = cushim__table.cuDeviceGet(&a, device);
    if (r == CUDA_SUCCESS) r = cushim__table.cuDeviceGet(&b, peerDevice);
    if (r == CUDA_SUCCESS) r = cushim__table.cuDeviceCanAccessPeer(canAccessPeer, a, b);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDeviceCanAccessPeer");
    return cudaSuccess;
}
