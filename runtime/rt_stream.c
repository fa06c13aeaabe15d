/* Streams: created as cushim streams (recycled where cushim keeps them), handed out as their
 * driver handles; the legacy and per-thread default streams by NULL, cudaStreamLegacy and
 * cudaStreamPerThread; synchronize, query, waits, callbacks and host functions in stream order. */
#include <stdlib.h>

#include "api/recycle.h"
#include "cudart_ptds.h"
#include "runtime/rt_handles.h"

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
    if (pStream == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pStream is NULL", __func__);
    }
    if ((flags & ~(unsigned)cudaStreamNonBlocking) != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: flags 0x%x: the stream flags are cudaStreamDefault and "
                               "cudaStreamNonBlocking",
                               __func__, flags);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    /* As NVIDIA documents, a priority outside the device's range is clamped to it. */
    int least = 0, greatest = 0;
    if (priority != 0 &&
        cushim_context_stream_priority_range(&least, &greatest, ctx) == CUDA_SUCCESS) {
        if (priority > least) priority = least;
        if (priority < greatest) priority = greatest;
    }
    cushim_stream *s;
    CUresult r = cushim_stream_create(&s, ctx, flags, priority);
    if (r != CUDA_SUCCESS) return cushim__rt_cushim_failed(r, __func__);
    if (!cushim__rt_stream_add(s, __func__)) {
        cushim_stream_release(s);
        return cudaErrorMemoryAllocation;
    }
    *pStream = (cudaStream_t)s->raw;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

static bool is_default(cudaStream_t s) {
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (is_default(stream)) {
        return cushim__rt_fail(cudaErrorInvalidResourceHandle,
                               "%s: a default stream (%p) cannot be destroyed", __func__,
                               (void *)stream);
    }
    cushim_stream *s = cushim__rt_stream_take(stream);
    if (s != NULL) {
        cushim_stream_release(s);
        return cudaSuccess;
    }
    /* Made outside the runtime (the driver API): destroyed as it is. */
    CUresult r = cushim__table.cuStreamDestroy((CUstream)stream);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuStreamDestroy");
    return cudaSuccess;
}

static cudaError_t stream_sync(cudaStream_t stream, bool pt, const char *fn) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__rt_table(pt)->cuStreamSynchronize(cushim__rt_stream(stream, pt));
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuStreamSynchronize");
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    return stream_sync(stream, false, __func__);
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
    return stream_sync(stream, true, __func__);
}

static cudaError_t stream_query(cudaStream_t stream, bool pt, const char *fn) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__rt_table(pt)->cuStreamQuery(cushim__rt_stream(stream, pt));
    /* Not ready is an answer: it is not the thread's last error. */
    if (CUSHIM__LIKELY(r == CUDA_SUCCESS)) return cudaSuccess;
    if (r == CUDA_ERROR_NOT_READY) return cudaErrorNotReady;
    return cushim__rt_driver_failed(r, fn, "cuStreamQuery");
}

cudaError_t cudaStreamQuery(cudaStream_t stream) { return stream_query(stream, false, __func__); }

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
    return stream_query(stream, true, __func__);
}

static cudaError_t stream_wait(cudaStream_t stream, cudaEvent_t event, unsigned flags, bool pt,
                               const char *fn) {
    if (event == NULL)
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: event is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    /* An event with no record since its create makes the wait a no-op, as the driver does; a
     * recycled event's handle may carry an earlier owner's record, so that is decided here. */
    cushim_event *ev = cushim__rt_event_of(event);
    if (ev != NULL && !cushim__event_maybe_recorded(ev)) return cudaSuccess;
    CUresult r = cushim__rt_table(pt)->cuStreamWaitEvent(cushim__rt_stream(stream, pt),
                                                         (CUevent)event, flags);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuStreamWaitEvent");
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    return stream_wait(stream, event, flags, false, __func__);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    return stream_wait(stream, event, flags, true, __func__);
}

/* A stream callback gets the runtime's code and the stream as the caller named it. */
typedef struct callback {
    cudaStreamCallback_t fn;
    void *user;
    cudaStream_t stream;
} callback;

static void CUDA_CB run_callback(CUstream hStream, CUresult status, void *userData) {
    (void)hStream;
    callback *c = userData;
    cudaStreamCallback_t fn = c->fn;
    void *user = c->user;
    cudaStream_t stream = c->stream;
    free(c);
    fn(stream, cushim__rt_from_cu(status), user);
}

static cudaError_t add_callback(cudaStream_t stream, cudaStreamCallback_t fn, void *user,
                                unsigned flags, bool pt, const char *fn_name) {
    if (fn == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: callback is NULL", fn_name);
    if (flags != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags must be 0 (%u)", fn_name, flags);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn_name);
    if (e != cudaSuccess) return e;
    callback *c = malloc(sizeof *c);
    if (c == NULL) return cushim__rt_fail(cudaErrorMemoryAllocation, "%s: out of memory", fn_name);
    *c = (callback){fn, user, stream};
    CUresult r = cushim__rt_table(pt)->cuStreamAddCallback(cushim__rt_stream(stream, pt),
                                                           run_callback, c, 0);
    if (r != CUDA_SUCCESS) {
        free(c);
        return cushim__rt_driver_failed(r, fn_name, "cuStreamAddCallback");
    }
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags) {
    return add_callback(stream, callback, userData, flags, false, __func__);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags) {
    return add_callback(stream, callback, userData, flags, true, __func__);
}

static cudaError_t host_func(cudaStream_t stream, cudaHostFn_t fn, void *user, bool pt,
                             const char *fn_name) {
    if (fn == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: fn is NULL", fn_name);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn_name);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__rt_table(pt)->cuLaunchHostFunc(cushim__rt_stream(stream, pt), fn, user);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn_name, "cuLaunchHostFunc");
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    return host_func(stream, fn, userData, false, __func__);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    return host_func(stream, fn, userData, true, __func__);
}

static cudaError_t get_flags(cudaStream_t stream, unsigned *flags, bool pt, const char *fn) {
    if (flags == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__rt_table(pt)->cuStreamGetFlags(cushim__rt_stream(stream, pt), flags);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuStreamGetFlags");
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
    return get_flags(hStream, flags, false, __func__);
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags) {
    return get_flags(hStream, flags, true, __func__);
}

static cudaError_t get_priority(cudaStream_t stream, int *priority, bool pt, const char *fn) {
    if (priority == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: priority is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__rt_table(pt)->cuStreamGetPriority(cushim__rt_stream(stream, pt), priority);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuStreamGetPriority");
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
    return get_priority(hStream, priority, false, __func__);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority) {
    return get_priority(hStream, priority, true, __func__);
}

static cudaError_t get_device(cudaStream_t stream, int *device, bool pt, const char *fn) {
    if (device == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: device is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUdevice dev;
    CUresult r = cushim__rt_table(pt)->cuStreamGetDevice(cushim__rt_stream(stream, pt), &dev);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuStreamGetDevice");
    *device = (int)dev;
    return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) {
    return get_device(hStream, device, false, __func__);
}

cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device) {
    return get_device(hStream, device, true, __func__);
}

static cudaError_t get_id(cudaStream_t stream, unsigned long long *id, bool pt, const char *fn) {
    if (id == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: streamId is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUresult r = cushim__rt_table(pt)->cuStreamGetId(cushim__rt_stream(stream, pt), id);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuStreamGetId");
    return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId) {
    return get_id(hStream, streamId, false, __func__);
}

cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId) {
    return get_id(hStream, streamId, true, __func__);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    int least = 0, greatest = 0;
    CUresult r = cushim_context_stream_priority_range(&least, &greatest, ctx);
    if (r != CUDA_SUCCESS) return cushim__rt_cushim_failed(r, __func__);
    if (leastPriority) *leastPriority = least;
    if (greatestPriority) *greatestPriority = greatest;
    return cudaSuccess;
}
