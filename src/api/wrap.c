/* Borrowed objects: contexts, streams and events that another library made (the CUDA runtime,
 * cuBLAS, a framework), wrapped so that every cushim function takes them. They are refcounted
 * like cushim's own, and marked borrowed: their last release frees cushim's memory only, and the
 * driver handle is never destroyed, released or recycled by cushim. cuda.core's
 * Stream.from_handle is the model. What can be checked cheaply is checked at the wrap. */
#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/object.h"
#include "api/recycle.h"
#include "loader/loader.h"

/* The ordinal of a device handle. Every driver so far numbers its devices so that the handle is
 * the ordinal; the search is for one that does not. A failed driver call is the answer. */
static CUresult ordinal_of(CUdevice dev, int *ordinal, const char *fn) {
    CUdevice d = CU_DEVICE_INVALID;
    CUresult r = CUDA_SUCCESS;
    if (dev >= 0) {
        r = cushim__table.cuDeviceGet(&d, (int)dev);
        if (r == CUDA_SUCCESS && d == dev) {
            *ordinal = (int)dev;
            return CUDA_SUCCESS;
        }
        if (r == CUDA_ERROR_INVALID_DEVICE) r = CUDA_SUCCESS; /* no such ordinal: search */
    }
    int count = 0;
    if (r == CUDA_SUCCESS) r = cushim__table.cuDeviceGetCount(&count);
    for (int i = 0; r == CUDA_SUCCESS && i < count; i++) {
        r = cushim__table.cuDeviceGet(&d, i);
        if (r == CUDA_SUCCESS && d == dev) {
            *ordinal = i;
            return CUDA_SUCCESS;
        }
    }
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: finding the ordinal of device %d failed with %s", fn, (int)dev,
                            cushim_error_name(r));
    }
    return cushim__fail(CUDA_ERROR_INVALID_DEVICE,
                        "%s: the context's device %d is none of the %d the driver lists", fn,
                        (int)dev, count);
}

/* The device of a raw context, asked with it current (cuCtxGetDevice reads the current one);
 * a handle the driver does not know fails here. */
static CUresult device_of(CUcontext raw, CUdevice *dev, const char *fn) {
    cushim__guard g;
    CUresult r = cushim__enter(raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuCtxGetDevice(dev);
    if (r != CUDA_SUCCESS) {
        cushim__fail(r, "%s: cuCtxGetDevice with context %p current failed with %s", fn,
                     (void *)raw, cushim_error_name(r));
    }
    CUresult l = cushim__leave(&g, fn);
    return r != CUDA_SUCCESS ? r : l;
}

CUSHIM_API CUresult cushim_context_wrap(cushim_context **out, CUcontext raw) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) return r;
    if (raw == NULL) {
        r = cushim__table.cuCtxGetCurrent(&raw);
        if (r != CUDA_SUCCESS) {
            return cushim__fail(r, "%s: reading the current context failed with %s", __func__,
                                cushim_error_name(r));
        }
        if (raw == NULL) {
            return cushim__fail(CUDA_ERROR_INVALID_CONTEXT,
                                "%s: raw is NULL and no context is current on this thread, so "
                                "there is nothing to wrap",
                                __func__);
        }
    }
    CUdevice dev = CU_DEVICE_INVALID;
    int ordinal = -1;
    r = device_of(raw, &dev, __func__);
    if (r == CUDA_SUCCESS) r = ordinal_of(dev, &ordinal, __func__);
    if (r != CUDA_SUCCESS) return r;
    cushim_context *c = cushim__alloc(sizeof *c, __func__);
    if (c == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    cushim__object_init(&c->obj, CUSHIM__CONTEXT);
    c->raw = raw;
    c->device = dev;
    c->ordinal = ordinal;
    c->borrowed = true;
    /* Objects created in a borrowed context are cushim's own, and are recycled as in any. */
    cushim__recycler_init(c);
    atomic_fetch_add_explicit(&cushim__live_roots, 1, memory_order_relaxed);
    *out = c;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_stream_wrap(cushim_stream **out, cushim_context *ctx, CUstream raw) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (raw == NULL || raw == CU_STREAM_LEGACY || raw == CU_STREAM_PER_THREAD) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: raw %p is a default stream, which is not wrapped: cushim's "
                            "functions take a NULL stream for the default stream of a context",
                            __func__, (void *)raw);
    }
    CUcontext owner = NULL;
    r = cushim__table.cuStreamGetCtx(raw, &owner);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: cuStreamGetCtx of stream %p failed with %s", __func__,
                            (void *)raw, cushim_error_name(r));
    }
    if (owner != ctx->raw) {
        return cushim__fail(CUDA_ERROR_INVALID_CONTEXT,
                            "%s: stream %p belongs to context %p, not to ctx's context %p",
                            __func__, (void *)raw, (void *)owner, (void *)ctx->raw);
    }
    cushim_stream *s = cushim__alloc_block(__func__);
    if (s == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    cushim__object_init(&s->obj, CUSHIM__STREAM);
    s->ctx = cushim_context_retain(ctx);
    s->ctx_raw = ctx->raw;
    s->raw = raw;
    s->borrowed = true;
    atomic_store_explicit(&s->exported, true, memory_order_relaxed); /* its handle is not ours */
    *out = s;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_event_wrap(cushim_event **out, cushim_context *ctx, CUevent raw) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (raw == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: raw is NULL", __func__);
    /* The driver cannot say which context an event belongs to; a query at least tells a live
     * event from a destroyed one, without waiting for it. */
    r = cushim__table.cuEventQuery(raw);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY && r != CUDA_ERROR_CAPTURED_EVENT) {
        return cushim__fail(r, "%s: cuEventQuery of event %p failed with %s", __func__, (void *)raw,
                            cushim_error_name(r));
    }
    cushim_event *e = cushim__alloc_block(__func__);
    if (e == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    cushim__object_init(&e->obj, CUSHIM__EVENT);
    e->ctx = cushim_context_retain(ctx);
    e->ctx_raw = ctx->raw;
    e->raw = raw;
    e->borrowed = true;
    /* Its owner may have recorded it: every question about it goes to the driver. */
    atomic_store_explicit(&e->recorded, true, memory_order_relaxed);
    *out = e;
    return CUDA_SUCCESS;
}
