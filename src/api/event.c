/* Events: created with their context current, destroyed without a switch; refcounted, and
 * recycled through their context's cache (api/recycle.c). */
#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/object.h"
#include "api/recycle.h"
#include "loader/loader.h"

static const unsigned event_flags =
    CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;

CUSHIM_API CUresult cushim_event_create(cushim_event **out, cushim_context *ctx, unsigned flags) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if ((flags & ~event_flags) != 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: flags 0x%x: the event flags are "
                            "CU_EVENT_DEFAULT, BLOCKING_SYNC, DISABLE_TIMING and INTERPROCESS",
                            __func__, flags);
    }
    if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING too",
                            __func__);
    }
    cushim_event *e = cushim__alloc_block(__func__);
    if (e == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    if (cushim__recycled_event(ctx, flags, e)) {
        cushim__retain(&ctx->obj);
        *out = e;
        return CUDA_SUCCESS;
    }
    cushim__guard g;
    r = cushim__enter(ctx->raw, &g, __func__);
    if (r != CUDA_SUCCESS) {
        cushim__free_block(e);
        return r;
    }
    r = cushim__table.cuEventCreate(&e->raw, flags);
    if (r != CUDA_SUCCESS) {
        cushim__fail(r, "%s: cuEventCreate with flags 0x%x failed with %s", __func__, flags,
                     cushim_error_name(r));
    }
    CUSHIM__LEAVE_OR_UNDO(&g, r, "event", e->raw, cushim__table.cuEventDestroy(e->raw));
    if (r != CUDA_SUCCESS) {
        cushim__free_block(e);
        return r;
    }
    cushim__object_init(&e->obj, CUSHIM__EVENT);
    cushim__retain(&ctx->obj); /* ctx was checked above */
    e->ctx = ctx;
    e->ctx_raw = ctx->raw;
    e->flags = flags;
    *out = e;
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_event *cushim_event_retain(cushim_event *e) {
    return cushim__retain_checked(e, CUSHIM__EVENT, "e", __func__);
}

CUSHIM_API void cushim_event_release(cushim_event *e) {
    if (!cushim__release_checked(e, CUSHIM__EVENT, "e", __func__)) return;
    cushim_context *ctx = e->ctx;
    /* A borrowed event is its owner's: cushim frees only its own object. */
    if (e->borrowed) {
        cushim__free_block(e);
    } else if (!cushim__keep_event(e)) {
        cushim__event_destroy(e, __func__);
    }
    cushim_context_release(ctx);
}

static CUSHIM__COLD CUresult record_failed(CUresult r, const char *fn) {
    return cushim__fail(r, "%s: %s", fn, cushim_error_name(r));
}

/* Everything but the common case: the default stream, and the argument errors. */
static CUSHIM__NOINLINE CUresult record_slow(cushim_event *e, cushim_stream *s, const char *fn) {
    CUresult r = cushim__check(e, CUSHIM__EVENT, "e", fn);
    if (r != CUDA_SUCCESS) return r;
    if (s != NULL) {
        r = cushim__check(s, CUSHIM__STREAM, "s", fn);
        if (r != CUDA_SUCCESS) return r;
        if (s->ctx_raw != e->ctx_raw) {
            return cushim__fail(CUDA_ERROR_INVALID_HANDLE,
                                "%s: the event belongs to context %p and the stream to context "
                                "%p; an event records only in its own context",
                                fn, (void *)e->ctx_raw, (void *)s->ctx_raw);
        }
        r = cushim__table.cuEventRecord(e->raw, s->raw);
    } else {
        cushim__guard g;
        r = cushim__enter(e->ctx_raw, &g, fn);
        if (r != CUDA_SUCCESS) return r;
        r = cushim__table.cuEventRecord(e->raw, CUSHIM__DEFAULT_STREAM);
        CUresult l = cushim__leave(&g, fn);
        if (r == CUDA_SUCCESS) cushim__event_mark_recorded(e);
        if (r == CUDA_SUCCESS && l != CUDA_SUCCESS) {
            /* Not a record that failed: one that happened, in a thread left in another state. */
            return cushim__fail(l,
                                "%s: the event was recorded, but restoring the previous "
                                "current context failed with %s, so the event's context is "
                                "still current",
                                fn, cushim_error_name(l));
        }
    }
    if (r != CUDA_SUCCESS) return record_failed(r, fn);
    cushim__event_mark_recorded(e);
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_event_record(cushim_event *e, cushim_stream *s) {
    /* The common case, a live event and a live stream of its context, checked in one test so
     * that this path makes one call and keeps only e across it: it runs once per recorded
     * event. */
    if (CUSHIM__LIKELY(cushim__is(e, CUSHIM__EVENT) && cushim__is(s, CUSHIM__STREAM) &&
                       s->ctx_raw == e->ctx_raw)) {
        CUresult r = cushim__table.cuEventRecord(e->raw, s->raw);
        if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS)) return record_failed(r, __func__);
        /* After the call, not before: a record the driver refused leaves the event as it was. */
        cushim__event_mark_recorded(e);
        return CUDA_SUCCESS;
    }
    return record_slow(e, s, __func__);
}

CUSHIM_API CUresult cushim_event_synchronize(cushim_event *e) {
    CUresult r = cushim__check(e, CUSHIM__EVENT, "e", __func__);
    if (r != CUDA_SUCCESS) return r;
    /* No record: nothing to wait for, as the driver answers for an event never recorded. */
    if (!cushim__event_maybe_recorded(e)) return CUDA_SUCCESS;
    r = cushim__table.cuEventSynchronize(e->raw);
    if (r != CUDA_SUCCESS) return cushim__fail(r, "%s: %s", __func__, cushim_error_name(r));
    return CUDA_SUCCESS;
}

static CUSHIM__COLD CUresult query_failed(CUresult r, const char *fn) {
    return cushim__fail(r, "%s: cuEventQuery failed with %s", fn, cushim_error_name(r));
}

CUSHIM_API CUresult cushim_event_query(cushim_event *e) {
    CUresult r = cushim__check(e, CUSHIM__EVENT, "e", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (!cushim__event_maybe_recorded(e)) return CUDA_SUCCESS; /* as for an event never recorded */
    r = cushim__table.cuEventQuery(e->raw);
    /* NOT_READY is an answer, not a failure: no sentence for it. */
    if (CUSHIM__LIKELY(r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)) return r;
    return query_failed(r, __func__);
}

CUSHIM_API CUresult cushim_event_elapsed_ms(float *ms, cushim_event *start, cushim_event *end) {
    if (ms == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: ms is NULL", __func__);
    CUresult r = cushim__check(start, CUSHIM__EVENT, "start", __func__);
    if (r == CUDA_SUCCESS) r = cushim__check(end, CUSHIM__EVENT, "end", __func__);
    if (r != CUDA_SUCCESS) return r;
    if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) {
        return cushim__fail(CUDA_ERROR_INVALID_HANDLE,
                            "%s: the %s event was created with "
                            "CU_EVENT_DISABLE_TIMING, so it records no time",
                            __func__, (start->flags & CU_EVENT_DISABLE_TIMING) ? "start" : "end");
    }
    /* The driver's answer for an event never recorded, given here, where a recycled event's
     * handle may still carry an earlier owner's record. */
    if (!cushim__event_maybe_recorded(start) || !cushim__event_maybe_recorded(end)) {
        return cushim__fail(CUDA_ERROR_INVALID_HANDLE,
                            "%s: the %s event has not been recorded since it was created", __func__,
                            !cushim__event_maybe_recorded(start) ? "start" : "end");
    }
    r = cushim__table.cuEventElapsedTime(ms, start->raw, end->raw);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) {
        return cushim__fail(r, "%s: %s", __func__, cushim_error_name(r));
    }
    return r;
}

CUSHIM_API cushim_context *cushim_event_context(const cushim_event *e) {
    return cushim__is(e, CUSHIM__EVENT) ? e->ctx : NULL;
}

CUSHIM_API CUevent cushim_event_raw(const cushim_event *e) {
    if (!cushim__is(e, CUSHIM__EVENT)) return NULL;
    /* The caller may record the handle itself, out of cushim's sight: from now on cushim asks
     * the driver about this event. The object is never const (cushim made it), so writing the
     * flag through the cast is sound; the load first spares the cache line a write. */
    if (!cushim__event_maybe_recorded(e)) cushim__event_mark_recorded((cushim_event *)e);
    return e->raw;
}
