/* Events: created as cushim events (recycled where cushim keeps them), handed out as their
 * driver handles. cushim knows whether an event has had a record since its create, so that a
 * recycled one answers query, synchronize, elapsed time and waits exactly as a new one: every
 * record goes through here and marks it. */
#include "api/recycle.h"
#include "cudart_ptds.h"
#include "runtime/rt_handles.h"

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    if (event == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: event is NULL", __func__);
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if ((flags & ~known) != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: flags 0x%x: the event flags are cudaEventDefault, "
                               "cudaEventBlockingSync, cudaEventDisableTiming and "
                               "cudaEventInterprocess",
                               __func__, flags);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    /* The flags have the bits of CU_EVENT_*. */
    cushim_event *ev;
    CUresult r = cushim_event_create(&ev, ctx, flags);
    if (r != CUDA_SUCCESS) return cushim__rt_cushim_failed(r, __func__);
    if (!cushim__rt_event_add(ev, __func__)) {
        cushim_event_release(ev);
        return cudaErrorMemoryAllocation;
    }
    *event = (cudaEvent_t)ev->raw;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (event == NULL) {
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: event is NULL", __func__);
    }
    cushim_event *ev = cushim__rt_event_take(event);
    if (ev != NULL) {
        cushim_event_release(ev);
        return cudaSuccess;
    }
    CUresult r = cushim__table.cuEventDestroy((CUevent)event);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuEventDestroy");
    return cudaSuccess;
}

static cudaError_t record(cudaEvent_t event, cudaStream_t stream, unsigned flags, bool with_flags,
                          bool pt, const char *fn) {
    if (event == NULL)
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: event is NULL", fn);
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (CUSHIM__UNLIKELY(e != cudaSuccess)) return e;
    CUstream s = cushim__rt_stream(stream, pt);
    CUresult r = with_flags ? cushim__rt_table(pt)->cuEventRecordWithFlags((CUevent)event, s, flags)
                            : cushim__rt_table(pt)->cuEventRecord((CUevent)event, s);
    if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS)) {
        return cushim__rt_driver_failed(r, fn,
                                        with_flags ? "cuEventRecordWithFlags" : "cuEventRecord");
    }
    cushim_event *ev = cushim__rt_event_of(event);
    if (ev != NULL) cushim__event_mark_recorded(ev);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    return record(event, stream, 0, false, false, __func__);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
    return record(event, stream, 0, false, true, __func__);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
    return record(event, stream, flags, true, false, __func__);
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                          unsigned int flags) {
    return record(event, stream, flags, true, true, __func__);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (event == NULL) {
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: event is NULL", __func__);
    }
    cushim_event *ev = cushim__rt_event_of(event);
    CUresult r = ev != NULL ? cushim_event_query(ev) : cushim__table.cuEventQuery((CUevent)event);
    /* Not ready is an answer: it is not the thread's last error. */
    if (CUSHIM__LIKELY(r == CUDA_SUCCESS)) return cudaSuccess;
    if (r == CUDA_ERROR_NOT_READY) return cudaErrorNotReady;
    return cushim__rt_driver_failed(r, __func__, "cuEventQuery");
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (event == NULL) {
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: event is NULL", __func__);
    }
    cushim_event *ev = cushim__rt_event_of(event);
    CUresult r = ev != NULL ? cushim_event_synchronize(ev)
                            : cushim__table.cuEventSynchronize((CUevent)event);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuEventSynchronize");
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    if (ms == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: ms is NULL", __func__);
    if (start == NULL || end == NULL) {
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: start or end is NULL",
                               __func__);
    }
    cushim_event *a = cushim__rt_event_of(start), *b = cushim__rt_event_of(end);
    CUresult r;
    if (a != NULL && b != NULL) {
        r = cushim_event_elapsed_ms(ms, a, b);
        if (r == CUDA_ERROR_NOT_READY) return cudaErrorNotReady;
        if (r != CUDA_SUCCESS) return cushim__rt_cushim_failed(r, __func__);
        return cudaSuccess;
    }
    r = cushim__table.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end);
    if (r == CUDA_ERROR_NOT_READY) return cudaErrorNotReady;
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuEventElapsedTime");
    return cudaSuccess;
}
