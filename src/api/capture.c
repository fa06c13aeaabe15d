/* Stream capture: the work queued on a stream between begin and end becomes a graph instead of
 * running. A capture that fails is ended by the driver with no graph; the sentence says which
 * rule of capture was broken. */
#include "api/alloc.h"
#include "api/graph.h"
#include "loader/loader.h"

static bool valid_mode(CUstreamCaptureMode mode) {
    return mode == CU_STREAM_CAPTURE_MODE_GLOBAL || mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ||
           mode == CU_STREAM_CAPTURE_MODE_RELAXED;
}

static CUSHIM__COLD CUresult begin_failed(CUresult r, const cushim_stream *s, const char *fn) {
    if (r == CUDA_ERROR_ILLEGAL_STATE) {
        return cushim__fail(r, "%s: stream %p is capturing already (end that capture first)", fn,
                            (void *)s->raw);
    }
    return cushim__fail(r, "%s: cuStreamBeginCapture on stream %p failed with %s", fn,
                        (void *)s->raw, cushim_error_name(r));
}

CUSHIM_API CUresult cushim_stream_begin_capture(cushim_stream *s, CUstreamCaptureMode mode) {
    CUresult r = cushim__check(s, CUSHIM__STREAM, "s", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (!valid_mode(mode)) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: capture mode %d is none of CU_STREAM_CAPTURE_MODE_GLOBAL, "
                            "THREAD_LOCAL and RELAXED",
                            __func__, (int)mode);
    }
    /* A stream names its context, so the driver needs none current to capture it. */
    r = cushim__table.cuStreamBeginCapture(s->raw, mode);
    return r == CUDA_SUCCESS ? r : begin_failed(r, s, __func__);
}

/* What each of the driver's capture codes means for the caller. */
static CUSHIM__COLD CUresult end_failed(CUresult r, const cushim_stream *s, const char *fn) {
    const void *h = (const void *)s->raw;
    switch (r) {
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
        return cushim__fail(r,
                            "%s: the capture on stream %p was invalidated by a call the driver "
                            "does not allow during capture (a synchronize or query of a capturing "
                            "stream or of its context, for instance); no graph was made, and the "
                            "stream captures no more",
                            fn, h);
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
        return cushim__fail(r,
                            "%s: stream %p joined a capture that another stream began, and only "
                            "that stream can end it; the driver has invalidated the capture, so "
                            "end it on the stream that began it to discard it",
                            fn, h);
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
        return cushim__fail(r,
                            "%s: a stream that joined the capture of stream %p has work that %p "
                            "does not wait for (record an event on it and wait for that on %p "
                            "before the end); no graph was made",
                            fn, h, h, h);
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
        return cushim__fail(r,
                            "%s: the capture on stream %p began on another thread, in a mode "
                            "other than CU_STREAM_CAPTURE_MODE_RELAXED: end it on that thread",
                            fn, h);
    case CUDA_ERROR_ILLEGAL_STATE: return cushim__fail(r, "%s: stream %p is not capturing", fn, h);
    default:
        return cushim__fail(r, "%s: cuStreamEndCapture on stream %p failed with %s", fn, h,
                            cushim_error_name(r));
    }
}

CUSHIM_API CUresult cushim_stream_end_capture(cushim_graph **out, cushim_stream *s) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(s, CUSHIM__STREAM, "s", __func__);
    if (r != CUDA_SUCCESS) return r;
    /* cushim's memory first: running out of it then leaves the capture going, to be ended
     * again, rather than ended with its graph lost. */
    cushim_graph *g = cushim__alloc(sizeof *g, __func__);
    if (g == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    r = cushim__table.cuStreamEndCapture(s->raw, &g->raw);
    if (r != CUDA_SUCCESS) {
        cushim__free(g);
        return end_failed(r, s, __func__);
    }
    cushim__object_init(&g->obj, CUSHIM__GRAPH);
    g->ctx = cushim_context_retain(s->ctx);
    *out = g;
    return CUDA_SUCCESS;
}
