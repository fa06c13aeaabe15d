/* Streams: created with their context current, destroyed without a switch; refcounted, and
 * recycled through their context's cache (api/recycle.c). */
#include <stdio.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/object.h"
#include "api/recycle.h"
#include "loader/loader.h"

static CUresult check_priority(int priority, const char *fn) {
    int least = 0, greatest = 0;
    CUresult r = cushim__table.cuCtxGetStreamPriorityRange(&least, &greatest);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: reading the priority range failed with %s", fn,
                            cushim_error_name(r));
    }
    /* Lower numbers are higher priorities: greatest <= priority <= least. */
    if (priority < greatest || priority > least) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: priority %d is outside this context's range "
                            "[%d (highest), %d (lowest)]",
                            fn, priority, greatest, least);
    }
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_stream_create(cushim_stream **out, cushim_context *ctx, unsigned flags,
                                         int priority) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if ((flags & ~(unsigned)CU_STREAM_NON_BLOCKING) != 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: flags 0x%x: only CU_STREAM_DEFAULT and "
                            "CU_STREAM_NON_BLOCKING are stream flags",
                            __func__, flags);
    }
    cushim_stream *s = cushim__alloc_block(__func__);
    if (s == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    /* A kept stream with this priority was made in this context, so the priority is in its
     * range: no need to ask the driver again. */
    if (cushim__recycled_stream(ctx, flags, priority, s)) {
        cushim__retain(&ctx->obj);
        *out = s;
        return CUDA_SUCCESS;
    }
    cushim__guard g;
    r = cushim__enter(ctx->raw, &g, __func__);
    if (r != CUDA_SUCCESS) {
        cushim__free_block(s);
        return r;
    }
    if (priority != 0) r = check_priority(priority, __func__);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuStreamCreateWithPriority(&s->raw, flags, priority);
        if (r != CUDA_SUCCESS) {
            cushim__fail(r, "%s: cuStreamCreateWithPriority failed with %s", __func__,
                         cushim_error_name(r));
        }
    }
    CUSHIM__LEAVE_OR_UNDO(&g, r, "stream", s->raw, cushim__table.cuStreamDestroy(s->raw));
    if (r != CUDA_SUCCESS) {
        cushim__free_block(s);
        return r;
    }
    cushim__object_init(&s->obj, CUSHIM__STREAM);
    cushim__retain(&ctx->obj); /* ctx was checked above */
    s->ctx = ctx;
    s->ctx_raw = ctx->raw;
    s->flags = flags;
    s->priority = priority;
    *out = s;
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_stream *cushim_stream_retain(cushim_stream *s) {
    return cushim__retain_checked(s, CUSHIM__STREAM, "s", __func__);
}

CUSHIM_API void cushim_stream_release(cushim_stream *s) {
    if (!cushim__release_checked(s, CUSHIM__STREAM, "s", __func__)) return;
    cushim_context *ctx = s->ctx;
    /* A borrowed stream is its owner's: cushim frees only its own object. */
    if (s->borrowed) {
        cushim__free_block(s);
    } else if (!cushim__keep_stream(s)) {
        cushim__stream_destroy(s, __func__);
    }
    cushim_context_release(ctx);
}

/* A function whose only object is the stream has no context to take a default stream from
 * (cushim.h, "A NULL stream"): the sentence says so and what to call instead. */
static CUSHIM__COLD CUresult bad_stream(CUresult r, const cushim_stream *s, const char *instead,
                                        const char *fn) {
    if (s != NULL) return r; /* cushim__check's sentence says what the handle is */
    return cushim__fail(r,
                        "%s: s is NULL, and a NULL stream names a default stream only beside an "
                        "object that gives its context (a function, an event, a graph "
                        "executable); %s",
                        fn, instead);
}

/* cushim__check's refusal and bad_stream's sentence in one cold call. */
static CUSHIM__COLD CUresult not_a_stream(const cushim_stream *s, const char *instead,
                                          const char *fn) {
    return bad_stream(cushim__check_failed(s, CUSHIM__STREAM, "s", fn), s, instead, fn);
}

/* A wait on a stream that captures: the driver's code alone does not say why. `raw` is the
 * stream's handle, or NULL where the caller does not keep it across the driver call (the query,
 * whose answered call would otherwise save a register for it). */
static CUSHIM__COLD CUresult wait_failed(CUresult r, CUstream raw, const char *entry,
                                         const char *fn) {
    char which[48] = "the stream";
    if (raw != NULL) snprintf(which, sizeof which, "stream %p", (void *)raw);
    if (r == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) {
        return cushim__fail(r,
                            "%s: %s is capturing (cushim_stream_begin_capture): its work "
                            "is being recorded into a graph, not run, so there is nothing to wait "
                            "for. The driver refuses %s during a capture and has invalidated it: "
                            "cushim_stream_end_capture will end it with no graph "
                            "(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED). Wait after the end of the "
                            "capture, on a launch of its graph",
                            fn, which, entry);
    }
    return cushim__fail(r, "%s: %s on %s failed with %s", fn, entry, which, cushim_error_name(r));
}

CUSHIM_API CUresult cushim_stream_synchronize(cushim_stream *s) {
    CUresult r = cushim__check(s, CUSHIM__STREAM, "s", __func__);
    if (r != CUDA_SUCCESS) {
        return bad_stream(r, s,
                          "to wait for a context's default stream, use "
                          "cushim_context_synchronize(ctx)",
                          __func__);
    }
    r = cushim__table.cuStreamSynchronize(s->raw);
    if (r != CUDA_SUCCESS) return wait_failed(r, s->raw, "cuStreamSynchronize", __func__);
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_stream_query(cushim_stream *s) {
    /* The refusals are one cold call and the driver's failure needs no handle: nothing of `s`
     * lives across a call, so the answered query saves and restores no register. */
    if (CUSHIM__UNLIKELY(!cushim__is(s, CUSHIM__STREAM))) {
        return not_a_stream(s,
                            "to ask about a default stream's work, record an event on it "
                            "(cushim_event_record(e, NULL)) and query that",
                            __func__);
    }
    CUresult r = cushim__table.cuStreamQuery(s->raw);
    /* NOT_READY is an answer, not a failure: no sentence for it. */
    if (CUSHIM__LIKELY(r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)) return r;
    return wait_failed(r, NULL, "cuStreamQuery", __func__);
}

/* A wait for an event with no record is a no-op, as the driver makes it (and a recycled event's
 * handle may carry an earlier owner's record, which must not be waited for). The arguments are
 * still checked as the driver would. */
static CUresult wait_no_record(cushim_stream *s, unsigned flags, const char *fn) {
    if (s != NULL) {
        CUresult r = cushim__check(s, CUSHIM__STREAM, "s", fn);
        if (r != CUDA_SUCCESS) return r;
    }
    if ((flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) != 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: flags 0x%x: the wait flags are CU_EVENT_WAIT_DEFAULT and "
                            "CU_EVENT_WAIT_EXTERNAL",
                            fn, flags);
    }
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_stream_wait_event(cushim_stream *s, cushim_event *e, unsigned flags) {
    CUresult r = cushim__check(e, CUSHIM__EVENT, "e", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (!cushim__event_maybe_recorded(e)) return wait_no_record(s, flags, __func__);
    if (s == NULL) {
        /* The default stream of the event's context: it must be current to be named. */
        cushim__guard g;
        r = cushim__enter(e->ctx_raw, &g, __func__);
        if (r != CUDA_SUCCESS) return r;
        r = cushim__table.cuStreamWaitEvent(CUSHIM__DEFAULT_STREAM, e->raw, flags);
        CUresult l = cushim__leave(&g, __func__);
        if (r == CUDA_SUCCESS && l != CUDA_SUCCESS) {
            /* The wait is queued; only the thread's state is wrong. */
            return cushim__fail(l,
                                "%s: the wait was queued, but restoring the previous current "
                                "context failed with %s, so the event's context is still "
                                "current",
                                __func__, cushim_error_name(l));
        }
    } else {
        r = cushim__check(s, CUSHIM__STREAM, "s", __func__);
        if (r != CUDA_SUCCESS) return r;
        r = cushim__table.cuStreamWaitEvent(s->raw, e->raw, flags);
    }
    if (r != CUDA_SUCCESS) return cushim__fail(r, "%s: %s", __func__, cushim_error_name(r));
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_stream_launch_host_func(cushim_stream *s, CUhostFn fn, void *user) {
    CUresult r = cushim__check(s, CUSHIM__STREAM, "s", __func__);
    if (r != CUDA_SUCCESS) {
        return bad_stream(r, s,
                          "a host function needs a stream: cushim_stream_create, or "
                          "cushim_stream_wrap of another library's",
                          __func__);
    }
    if (fn == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: fn is NULL", __func__);
    r = cushim__table.cuLaunchHostFunc(s->raw, fn, user);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: cuLaunchHostFunc on stream %p failed with %s", __func__,
                            (void *)s->raw, cushim_error_name(r));
    }
    return CUDA_SUCCESS;
}

CUSHIM_API bool cushim_stream_same_queue(const cushim_stream *a, const cushim_stream *b) {
    return cushim__is(a, CUSHIM__STREAM) && cushim__is(b, CUSHIM__STREAM) && a->raw == b->raw;
}

CUSHIM_API cushim_context *cushim_stream_context(const cushim_stream *s) {
    return cushim__is(s, CUSHIM__STREAM) ? s->ctx : NULL;
}

CUSHIM_API CUstream cushim_stream_raw(const cushim_stream *s) {
    if (!cushim__is(s, CUSHIM__STREAM)) return NULL;
    /* The caller may set attributes through the handle, which a later owner would inherit: the
     * stream is destroyed at release, not kept. cushim made the object, so it is not const
     * underneath; the load first spares the cache line a write. */
    if (!atomic_load_explicit(&s->exported, memory_order_relaxed)) {
        atomic_store_explicit(&((cushim_stream *)s)->exported, true, memory_order_relaxed);
    }
    return s->raw;
}
