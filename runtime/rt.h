/* Internal: the state of cushim's CUDA runtime that every file of runtime/ shares. The current
 * device and the last error of each host thread, the primary context of each device (retained
 * on first use, made current for the calling thread), sticky errors, the mapping of driver codes,
 * and the registered kernels and variables with what they are loaded as on each device.
 *
 * Every runtime function follows one pattern:
 *
 *     cushim_context *ctx;
 *     cudaError_t e = cushim__rt_context(&ctx, __func__);   (the device's primary context,
 *     if (e != cudaSuccess) return e;                         current on this thread)
 *     CUresult r = cushim__table.cuSomething(...);
 *     if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuSomething");
 *     return cudaSuccess;
 *
 * and a refusal of its own is `return cushim__rt_fail(cudaErrorInvalidValue, "%s: ...", fn)`:
 * both record the thread's last error (what cudaGetLastError answers) and a sentence in cushim's
 * last error. */
#ifndef CUSHIM_RUNTIME_RT_H
#define CUSHIM_RUNTIME_RT_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "api/object.h"
#include "common/hints.h"
#include "cushim.h"
#include "loader/loader.h"

/* The driver's per-thread default-stream entries, for the _ptds and _ptsz functions (the legacy
 * ones are cushim__table). */
extern cushim_driver_table cushim__table_per_thread;

/* The driver's table of a default-stream mode: per-thread for the _ptds and _ptsz functions. */
static inline const cushim_driver_table *cushim__rt_table(bool per_thread) {
    return per_thread ? &cushim__table_per_thread : &cushim__table;
}

/* Devices the runtime keeps state for; a process with more sees the first this many. */
#define CUSHIM__RT_MAX_DEVICES 64

/* ------------------------------------------------------------------------------------------ */
/* Errors (rt_state.c)                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* Records e as the calling thread's last error (unless e is cudaSuccess) and the sentence as
 * cushim's last error; returns e. */
cudaError_t cushim__rt_fail(cudaError_t e, const char *fmt, ...) CUSHIM__PRINTF(2, 3);
/* A driver call `call` made by runtime function fn failed with r: maps r to its cudaError_t,
 * records it (and, for a code that corrupts the context, as the device's sticky error) with a
 * sentence naming fn and call, and returns it. */
cudaError_t cushim__rt_driver_failed(CUresult r, const char *fn, const char *call);
/* The same for a failed cushim function, whose own sentence (cushim_last_error()) is kept,
 * prefixed with fn. */
cudaError_t cushim__rt_cushim_failed(CUresult r, const char *fn);
/* Generated (cudart_errors.c): the cudaError_t of the same number as r, else cudaErrorUnknown. */
cudaError_t cushim__rt_from_cu(CUresult r);
/* What the generated stubs call: says once in cushim's log that `name` is not implemented, and
 * returns cudaErrorNotSupported, recorded as the thread's last error. */
cudaError_t cushim__rt_unimplemented(const char *name, atomic_bool *said);

/* ------------------------------------------------------------------------------------------ */
/* The thread and its device (rt_state.c)                                                     */
/* ------------------------------------------------------------------------------------------ */

/* The calling thread's current device (0 until cudaSetDevice). */
int cushim__rt_device(void);
/* Sets it, after checking the ordinal against the device count. */
cudaError_t cushim__rt_set_device(int device, const char *fn);
/* The driver loaded and initialised, and the number of devices (at most CUSHIM__RT_MAX_DEVICES):
 * cudaErrorInsufficientDriver without a driver, cudaErrorNoDevice with none, each recorded;
 * *count is left as it was on an error. */
cudaError_t cushim__rt_devices(int *count, const char *fn);
/* The driver's device of a runtime ordinal, checked against the device count. */
cudaError_t cushim__rt_device_handle(CUdevice *dev, int device, const char *fn);

/* The primary context of the calling thread's current device: retained on first use, made
 * current on this thread if it is not, and refused with the device's sticky error if a kernel
 * fault left one. *ctx is borrowed (the runtime holds it until cudaDeviceReset). */
cudaError_t cushim__rt_context(cushim_context **ctx, const char *fn);
/* The same for a given device, without changing the thread's current device or context. */
cudaError_t cushim__rt_context_of(cushim_context **ctx, int device, const char *fn);

/* The device flags of cudaSetDeviceFlags (cudaDeviceScheduleAuto ... | cudaDeviceMapHost ...),
 * applied to the primary context when it is next made active. */
unsigned cushim__rt_device_flags(int device);
void cushim__rt_set_device_flags(int device, unsigned flags);

/* Called with a device's primary context when the runtime has just retained it (NULL: nothing):
 * rt_register.c sets it to cushim__rt_modules_load_all under CUDA_MODULE_LOADING=EAGER. */
typedef void (*cushim__rt_retain_fn)(cushim_context *ctx, int device);
extern _Atomic(cushim__rt_retain_fn) cushim__rt_retain_hook;

/* For cudaDeviceReset: takes the runtime's reference to device's primary context (NULL when it
 * had none) and makes every thread bind the next one afresh; the caller releases it. */
cushim_context *cushim__rt_context_forget(int device);
/* Forgets device's sticky error, and the calling thread's last error when it is that one. */
void cushim__rt_sticky_clear(int device);

/* The calling thread's last error: read and reset (cudaGetLastError), or only read. A sticky
 * error of the current device, and the driver's failure to initialise, are answered and never
 * reset. */
cudaError_t cushim__rt_last_error(bool reset);

/* ------------------------------------------------------------------------------------------ */
/* Streams and copies (rt.h, rt_memory.c)                                                     */
/* ------------------------------------------------------------------------------------------ */

/* The driver stream a runtime stream names: NULL is the legacy default stream, or the
 * per-thread one for the _ptsz/_ptds functions (per_thread) and for a program compiled with
 * --default-stream per-thread; cudaStreamLegacy and cudaStreamPerThread are the driver's
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD; any other value is a CUstream. */
static inline CUstream cushim__rt_stream(cudaStream_t s, bool per_thread) {
    if (s == NULL) return per_thread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    return (CUstream)s;
}

/* A linear copy of count bytes in the calling thread's current context, by kind: the driver's
 * copy of that direction (cudaMemcpyDefault and host to host: cuMemcpy), synchronous or on
 * stream, in the per-thread mode (pt) or not; a kind that is none is
 * cudaErrorInvalidMemcpyDirection. Records the error, naming fn. */
cudaError_t cushim__rt_copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            bool async, cudaStream_t stream, bool pt, const char *fn);

/* ------------------------------------------------------------------------------------------ */
/* Registration and modules (rt_registry.c, rt_module.c)                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct cushim__rt_fatbin cushim__rt_fatbin;

/* A kernel registered by __cudaRegisterFunction. A cudaKernel_t of this runtime (from
 * __cudaGetKernel or cudaGetKernel) is a pointer to one. */
typedef struct cushim__rt_kernel {
    uint32_t tag; /* CUSHIM__RT_KERNEL_TAG while registered */
    cushim__rt_fatbin *fatbin;
    const void *host_fn;
    char *name; /* the device name (mangled), for the driver and for sentences */
    /* The kernel as loaded on each device, NULL until first used there. */
    _Atomic(cushim_function *) fn[CUSHIM__RT_MAX_DEVICES];
} cushim__rt_kernel;
#define CUSHIM__RT_KERNEL_TAG 0x6b726e31u

/* A variable registered by __cudaRegisterVar or __cudaRegisterManagedVar. */
typedef struct cushim__rt_var {
    cushim__rt_fatbin *fatbin;
    const void *host_var;
    char *name;
    size_t size;
    bool constant, managed;
    void **managed_ptr; /* __cudaRegisterManagedVar: where the host reads the managed address */
    _Atomic CUdeviceptr ptr[CUSHIM__RT_MAX_DEVICES];
} cushim__rt_var;

/* The kernel a host function (the address nvcc registered for it) or a cudaKernel_t names,
 * or NULL. */
cushim__rt_kernel *cushim__rt_kernel_of(const void *fn_or_kernel);
/* The registered variable whose host shadow is at `symbol`, or NULL. */
cushim__rt_var *cushim__rt_var_of(const void *symbol);

/* The kernel loaded on the current device (its module loaded into the primary context on first
 * use): cudaErrorInvalidDeviceFunction with a sentence for an unregistered function; the
 * driver's code, mapped, when its module does not load. The primary context is current. */
cudaError_t cushim__rt_function(cushim_function **out, const void *fn_or_kernel, const char *fn);
/* The same for a kernel already found: a cudaKernel_t that __cudaGetKernel handed out (a chevron
 * launch passes it back without a look-up); one that is not a live kernel is refused. */
cudaError_t cushim__rt_kernel_function(cushim_function **out, cushim__rt_kernel *k, const char *fn);
/* The device address (and size) of a registered variable on the current device:
 * cudaErrorInvalidSymbol for an unregistered symbol. */
cudaError_t cushim__rt_symbol(CUdeviceptr *ptr, size_t *size, const void *symbol, const char *fn);

/* Forgets what is loaded on device (cudaDeviceReset): the modules released, the kernels' and
 * variables' addresses on it cleared. */
void cushim__rt_modules_drop(int device);

#endif
