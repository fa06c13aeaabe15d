/* The runtime's state: the current device and the last error of each host thread, the primary
 * context of each device (retained on first use, as NVIDIA's runtime does, and made current for
 * the thread that uses it), and the sticky error a kernel fault leaves on a device until
 * cudaDeviceReset. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt.h"

/* What one host thread holds. `bound` is the context this thread last made current, with the
 * reset epoch it was made current in: after a cudaDeviceReset (in any thread) the epoch moves
 * and each thread binds its device's new primary context on its next call. */
typedef struct rt_thread {
    int device;
    cudaError_t last;
    CUcontext bound;
    unsigned bound_epoch;
} rt_thread;

static _Thread_local rt_thread self;

typedef struct rt_device {
    _Atomic(cushim_context *) ctx;
    atomic_int sticky; /* a cudaError_t; cudaSuccess when none */
    atomic_uint flags; /* cudaSetDeviceFlags, 0 when never set */
} rt_device;

static rt_device devices[CUSHIM__RT_MAX_DEVICES];
static atomic_uint reset_epoch;
/* -1 until the driver said how many devices there are. */
static atomic_int device_count = -1;

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cushim__rt_fail(cudaError_t e, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cushim__set_error("%s", text);
    if (e != cudaSuccess) self.last = e;
    if (cushim__log_enabled(CUSHIM_LOG_DEBUG)) {
        cushim__log(CUSHIM_LOG_DEBUG, "%s (%s)", text, cudaGetErrorName(e));
    }
    return e;
}

/* The codes after which the context is unusable: the CUDA runtime's documentation calls them
 * sticky, and every later call in the process answers them until cudaDeviceReset. */
static bool is_sticky(CUresult r) {
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK: return true;
    default: return false;
    }
}

static void note_sticky(CUresult r) {
    if (!is_sticky(r)) return;
    int d = self.device;
    if (d >= 0 && d < CUSHIM__RT_MAX_DEVICES) {
        int none = cudaSuccess;
        atomic_compare_exchange_strong(&devices[d].sticky, &none, (int)cushim__rt_from_cu(r));
    }
}

cudaError_t cushim__rt_driver_failed(CUresult r, const char *fn, const char *call) {
    note_sticky(r);
    return cushim__rt_fail(cushim__rt_from_cu(r), "%s: %s failed with %s", fn, call,
                           cushim_error_name(r));
}

cudaError_t cushim__rt_cushim_failed(CUresult r, const char *fn) {
    note_sticky(r);
    return cushim__rt_fail(cushim__rt_from_cu(r), "%s: %s", fn, cushim_last_error());
}

cudaError_t cushim__rt_unimplemented(const char *name, atomic_bool *said) {
    if (!atomic_exchange_explicit(said, true, memory_order_relaxed)) {
        cushim__log(CUSHIM_LOG_WARN, "%s is not implemented by cushim's runtime", name);
    }
    return cushim__rt_fail(cudaErrorNotSupported, "%s is not implemented by cushim's runtime",
                           name);
}

/* Set once cuInit failed: the driver cannot come later in this process (cushim_init answers the
 * same from then on), and as NVIDIA's runtime 13.0 does without a driver (observed),
 * cudaGetLastError answers it on every thread and never resets it. */
static _Atomic int init_failure;

cudaError_t cushim__rt_last_error(bool reset) {
    int failed = atomic_load_explicit(&init_failure, memory_order_relaxed);
    if (CUSHIM__UNLIKELY(failed != cudaSuccess)) return (cudaError_t)failed;
    cudaError_t e = self.last;
    if (reset) self.last = cudaSuccess;
    int d = self.device;
    int sticky = atomic_load_explicit(&devices[d].sticky, memory_order_relaxed);
    return sticky != cudaSuccess ? (cudaError_t)sticky : e;
}

cudaError_t cudaGetLastError(void) { return cushim__rt_last_error(true); }

cudaError_t cudaPeekAtLastError(void) { return cushim__rt_last_error(false); }

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* The driver's loading failure as NVIDIA's runtime reports it: no driver (or one too old) is
 * cudaErrorInsufficientDriver, the toolkit's stub cudaErrorStubLibrary, a driver without
 * devices cudaErrorNoDevice; anything else the code cuInit gave. */
static CUSHIM__COLD cudaError_t no_driver(CUresult r, const char *fn) {
    const cushim_driver_info *info = cushim_driver_state();
    cudaError_t e;
    switch (info->status) {
    case CUSHIM_DRIVER_NOT_FOUND:
    case CUSHIM_DRIVER_TOO_OLD:
    case CUSHIM_DRIVER_UNUSABLE: e = cudaErrorInsufficientDriver; break;
    case CUSHIM_DRIVER_STUB: e = cudaErrorStubLibrary; break;
    default: e = cushim__rt_from_cu(r); break;
    }
    atomic_store_explicit(&init_failure, (int)e, memory_order_relaxed);
    return cushim__rt_fail(e, "%s: no CUDA driver can be used: %s", fn,
                           info->message ? info->message : cushim_last_error());
}

cudaError_t cushim__rt_devices(int *count, const char *fn) {
    int n = atomic_load_explicit(&device_count, memory_order_acquire);
    if (CUSHIM__LIKELY(n > 0)) {
        *count = n;
        return cudaSuccess;
    }
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) return no_driver(r, fn);
    int got = 0;
    r = cushim__table.cuDeviceGetCount(&got);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuDeviceGetCount");
    if (got <= 0) {
        return cushim__rt_fail(cudaErrorNoDevice, "%s: the driver (%s) has no CUDA device", fn,
                               cushim_driver_state()->path ? cushim_driver_state()->path : "?");
    }
    if (got > CUSHIM__RT_MAX_DEVICES) got = CUSHIM__RT_MAX_DEVICES;
    atomic_store_explicit(&device_count, got, memory_order_release);
    *count = got;
    return cudaSuccess;
}

int cushim__rt_device(void) { return self.device; }

cudaError_t cushim__rt_set_device(int device, const char *fn) {
    int n = 0;
    cudaError_t e = cushim__rt_devices(&n, fn);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice,
                               "%s: device %d does not exist (%d device%s, ordinals 0 to %d)", fn,
                               device, n, n == 1 ? "" : "s", n - 1);
    }
    self.device = device;
    return cudaSuccess;
}

unsigned cushim__rt_device_flags(int device) {
    return atomic_load_explicit(&devices[device].flags, memory_order_relaxed);
}

void cushim__rt_set_device_flags(int device, unsigned flags) {
    atomic_store_explicit(&devices[device].flags, flags, memory_order_relaxed);
}

/* Retains device's primary context for the runtime, once: the flags of cudaSetDeviceFlags are
 * given to the driver first (cudaDeviceMapHost is always on for a primary context, so only the
 * scheduling bits and cudaDeviceLmemResizeToMax go through). */
_Atomic(cushim__rt_retain_fn) cushim__rt_retain_hook;

static CUSHIM__NOINLINE cudaError_t retain_primary(cushim_context **out, int device,
                                                   const char *fn) {
    int n = 0;
    cudaError_t e = cushim__rt_devices(&n, fn);
    if (e != cudaSuccess) return e;
    if (device >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: device %d does not exist (%d)", fn,
                               device, n);
    }
    /* No lock is held across the driver's calls: two threads that race here both retain, and
     * the one that loses the exchange releases its reference again. */
    unsigned flags = atomic_load(&devices[device].flags) & ~(unsigned)cudaDeviceMapHost;
    if (flags != 0) {
        CUdevice dev;
        if (cushim__table.cuDeviceGet(&dev, device) == CUDA_SUCCESS) {
            cushim__table.cuDevicePrimaryCtxSetFlags(dev, flags);
        }
    }
    cushim_context *ctx = NULL;
    CUresult r = cushim_context_primary(&ctx, device);
    if (r == CUDA_SUCCESS) {
        cushim_context *none = NULL;
        if (!atomic_compare_exchange_strong(&devices[device].ctx, &none, ctx)) {
            cushim_context_release(ctx);
            ctx = none;
        } else {
            cushim__rt_retain_fn hook = atomic_load(&cushim__rt_retain_hook);
            if (hook != NULL) hook(ctx, device);
        }
    }
    if (r != CUDA_SUCCESS) return cushim__rt_cushim_failed(r, fn);
    *out = ctx;
    return cudaSuccess;
}

cudaError_t cushim__rt_context_of(cushim_context **out, int device, const char *fn) {
    if (CUSHIM__UNLIKELY(device < 0 || device >= CUSHIM__RT_MAX_DEVICES)) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: device %d does not exist", fn, device);
    }
    cushim_context *ctx = atomic_load_explicit(&devices[device].ctx, memory_order_acquire);
    if (CUSHIM__UNLIKELY(ctx == NULL)) {
        cudaError_t e = retain_primary(&ctx, device, fn);
        if (e != cudaSuccess) return e;
    }
    int sticky = atomic_load_explicit(&devices[device].sticky, memory_order_relaxed);
    if (CUSHIM__UNLIKELY(sticky != cudaSuccess)) {
        return cushim__rt_fail((cudaError_t)sticky,
                               "%s: device %d has a sticky error from an earlier kernel fault "
                               "(%s); only cudaDeviceReset clears it",
                               fn, device, cudaGetErrorName((cudaError_t)sticky));
    }
    *out = ctx;
    return cudaSuccess;
}

cudaError_t cushim__rt_context(cushim_context **out, const char *fn) {
    cushim_context *ctx = NULL;
    cudaError_t e = cushim__rt_context_of(&ctx, self.device, fn);
    if (CUSHIM__UNLIKELY(e != cudaSuccess)) return e;
    unsigned epoch = atomic_load_explicit(&reset_epoch, memory_order_relaxed);
    if (CUSHIM__UNLIKELY(self.bound != ctx->raw || self.bound_epoch != epoch)) {
        CUresult r = cushim__table.cuCtxSetCurrent(ctx->raw);
        if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuCtxSetCurrent");
        self.bound = ctx->raw;
        self.bound_epoch = epoch;
    }
    *out = ctx;
    return cudaSuccess;
}

cushim_context *cushim__rt_context_forget(int device) {
    cushim_context *ctx = atomic_exchange(&devices[device].ctx, NULL);
    atomic_fetch_add(&reset_epoch, 1u);
    if (ctx != NULL && self.bound == ctx->raw) {
        cushim__table.cuCtxSetCurrent(NULL);
        self.bound = NULL;
    }
    return ctx;
}

void cushim__rt_sticky_clear(int device) {
    /* The fault is forgotten with the context, also as this thread's last error. */
    int sticky = atomic_exchange(&devices[device].sticky, cudaSuccess);
    if (sticky != cudaSuccess && self.last == (cudaError_t)sticky) self.last = cudaSuccess;
}

cudaError_t cushim__rt_device_handle(CUdevice *dev, int device, const char *fn) {
    int n = 0;
    cudaError_t e = cushim__rt_devices(&n, fn);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= n) {
        return cushim__rt_fail(cudaErrorInvalidDevice, "%s: device %d does not exist (%d)", fn,
                               device, n);
    }
    CUresult r = cushim__table.cuDeviceGet(dev, device);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuDeviceGet");
    return cudaSuccess;
}
