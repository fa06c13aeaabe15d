/* Streams, events and the pending-work model. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

#define S mock__s

/* ------------------------------------------------------------------------------------------ */
/* Work                                                                                       */
/* ------------------------------------------------------------------------------------------ */

void mock__stream_init(struct CUstream_st *s, struct CUctx_st *ctx) {
    s->h.magic = MOCK_MAGIC;
    s->h.kind = CUSHIM_MOCK_STREAM;
    s->h.alive = true;
    s->h.ctx = ctx;
    s->id = S.next_id++;
}

/* One item of work (a launch, a record, an async copy) enters s; it stays pending until
 * something completes it, unless pending work is switched off. */
void mock__submit(struct CUstream_st *s) {
    if (S.pending) s->submitted++;
}

/* Completes the work of s up to `upto`, and the work that s waited for on the way. */
void mock__complete(struct CUstream_st *s, unsigned long long upto, int depth) {
    if (depth > 64) return; /* a cycle of waits: a deadlock on a real device */
    if (upto > s->submitted) upto = s->submitted;
    if (s->completed < upto) s->completed = upto;
    for (size_t i = 0; i < s->ndeps;) {
        if (s->deps[i].at <= s->completed) {
            mock_dep d = s->deps[i];
            s->deps[i] = s->deps[--s->ndeps];
            mock__complete(d.stream, d.seq, depth + 1);
            i = 0; /* the nested call may have changed this list */
            continue;
        }
        i++;
    }
}

void mock__ctx_sync(struct CUctx_st *c) {
    mock__complete(&c->default_stream, c->default_stream.submitted, 0);
    for (mock_obj *o = c->children.next; o != &c->children; o = o->next) {
        if (o->kind == CUSHIM_MOCK_STREAM) {
            struct CUstream_st *s = (struct CUstream_st *)o;
            mock__complete(s, s->submitted, 0);
        }
    }
}

static bool event_done(const struct CUevent_st *e) {
    return !e->recorded || e->stream->completed >= e->seq;
}

/* ------------------------------------------------------------------------------------------ */
/* Streams                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static CUresult create_stream(const char *entry, CUstream *ph, unsigned flags, int priority) {
    if (ph == NULL) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    if (r != CUDA_SUCCESS) return r;
    struct CUstream_st *s = mock__new(sizeof *s, CUSHIM_MOCK_STREAM, c);
    if (s == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    s->flags = flags;
    /* The driver clamps a priority outside the range to its nearest end. */
    if (priority < MOCK_PRIORITY_GREATEST) priority = MOCK_PRIORITY_GREATEST;
    if (priority > MOCK_PRIORITY_LEAST) priority = MOCK_PRIORITY_LEAST;
    s->priority = priority;
    s->id = S.next_id++;
    S.live[CUSHIM_MOCK_STREAM]++;
    *ph = s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuStreamCreate(CUstream *ph, unsigned int flags) {
    MOCK_ENTER(cuStreamCreate);
    return mock__leave(create_stream("cuStreamCreate", ph, flags, 0));
}

CUresult CUDAAPI mock_cuStreamCreateWithPriority(CUstream *ph, unsigned int flags, int priority) {
    MOCK_ENTER(cuStreamCreateWithPriority);
    return mock__leave(create_stream("cuStreamCreateWithPriority", ph, flags, priority));
}

static bool special(CUstream s) {
    return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

CUresult CUDAAPI mock_cuStreamDestroy(CUstream hs) {
    MOCK_ENTER(cuStreamDestroy);
    if (special(hs)) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUstream_st *s = mock__expect(hs, CUSHIM_MOCK_STREAM, "cuStreamDestroy");
    mock__kill(&s->h);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuStreamQuery(CUstream hs) {
    MOCK_ENTER(cuStreamQuery);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamQuery", &s);
    if (r == CUDA_SUCCESS && s->completed < s->submitted) r = CUDA_ERROR_NOT_READY;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamSynchronize(CUstream hs) {
    MOCK_ENTER(cuStreamSynchronize);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamSynchronize", &s);
    if (r == CUDA_SUCCESS) mock__complete(s, s->submitted, 0);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamWaitEvent(CUstream hs, CUevent he, unsigned int flags) {
    MOCK_ENTER(cuStreamWaitEvent);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *e = mock__expect(he, CUSHIM_MOCK_EVENT, "cuStreamWaitEvent");
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamWaitEvent", &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (event_done(e)) return mock__leave(CUDA_SUCCESS);
    /* The wait is an item of s that completes with the event's work. */
    if (!mock__grow(&s->deps, &s->capdeps, s->ndeps + 1, sizeof *s->deps)) {
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    s->submitted++;
    s->deps[s->ndeps++] = (mock_dep){e->stream, e->seq, s->submitted};
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuStreamGetCtx(CUstream hs, CUcontext *pctx) {
    MOCK_ENTER(cuStreamGetCtx);
    if (pctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetCtx", &s);
    if (r == CUDA_SUCCESS) *pctx = mock__stream_ctx(s);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetCtx_v2(CUstream hs, CUcontext *pctx, CUgreenCtx *pgreen) {
    MOCK_ENTER(cuStreamGetCtx_v2);
    if (pctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetCtx_v2", &s);
    if (r == CUDA_SUCCESS) {
        *pctx = mock__stream_ctx(s);
        if (pgreen) *pgreen = NULL;
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetPriority(CUstream hs, int *priority) {
    MOCK_ENTER(cuStreamGetPriority);
    if (priority == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetPriority", &s);
    if (r == CUDA_SUCCESS) *priority = s->priority;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetFlags(CUstream hs, unsigned int *flags) {
    MOCK_ENTER(cuStreamGetFlags);
    if (flags == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetFlags", &s);
    if (r == CUDA_SUCCESS) *flags = s->flags;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetId(CUstream hs, unsigned long long *id) {
    MOCK_ENTER(cuStreamGetId);
    if (id == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetId", &s);
    if (r == CUDA_SUCCESS) *id = s->id;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetDevice(CUstream hs, CUdevice *device) {
    MOCK_ENTER(cuStreamGetDevice);
    if (device == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetDevice", &s);
    if (r == CUDA_SUCCESS) *device = mock__stream_ctx(s)->device;
    return mock__leave(r);
}

/* ------------------------------------------------------------------------------------------ */
/* Events                                                                                     */
/* ------------------------------------------------------------------------------------------ */

CUresult CUDAAPI mock_cuEventCreate(CUevent *ph, unsigned int flags) {
    MOCK_ENTER(cuEventCreate);
    const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (ph == NULL || (flags & ~known)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuEventCreate", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    struct CUevent_st *e = mock__new(sizeof *e, CUSHIM_MOCK_EVENT, c);
    if (e == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    e->flags = flags;
    S.live[CUSHIM_MOCK_EVENT]++;
    *ph = e;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuEventDestroy(CUevent he) {
    MOCK_ENTER(cuEventDestroy);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    mock__kill(mock__expect(he, CUSHIM_MOCK_EVENT, "cuEventDestroy"));
    return mock__leave(CUDA_SUCCESS);
}

static CUresult record(const char *entry, CUevent he, CUstream hs, unsigned flags) {
    if (he == NULL) return CUDA_ERROR_INVALID_HANDLE;
    struct CUevent_st *e = mock__expect(he, CUSHIM_MOCK_EVENT, entry);
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, entry, &s);
    if (r != CUDA_SUCCESS) return r;
    /* The driver refuses an event and a stream of different contexts. */
    if (mock__stream_ctx(s) != e->h.ctx) return CUDA_ERROR_INVALID_HANDLE;
    mock__submit(s);
    e->recorded = true;
    e->stream = s;
    e->seq = s->submitted;
    e->stamp = S.clock_us;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuEventRecord(CUevent he, CUstream hs) {
    MOCK_ENTER(cuEventRecord);
    return mock__leave(record("cuEventRecord", he, hs, 0));
}

CUresult CUDAAPI mock_cuEventRecordWithFlags(CUevent he, CUstream hs, unsigned int flags) {
    MOCK_ENTER(cuEventRecordWithFlags);
    return mock__leave(record("cuEventRecordWithFlags", he, hs, flags));
}

CUresult CUDAAPI mock_cuEventQuery(CUevent he) {
    MOCK_ENTER(cuEventQuery);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *e = mock__expect(he, CUSHIM_MOCK_EVENT, "cuEventQuery");
    return mock__leave(event_done(e) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

CUresult CUDAAPI mock_cuEventSynchronize(CUevent he) {
    MOCK_ENTER(cuEventSynchronize);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *e = mock__expect(he, CUSHIM_MOCK_EVENT, "cuEventSynchronize");
    if (e->recorded) mock__complete(e->stream, e->seq, 0);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuEventElapsedTime(float *ms, CUevent hstart, CUevent hend) {
    MOCK_ENTER(cuEventElapsedTime);
    if (ms == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hstart == NULL || hend == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *a = mock__expect(hstart, CUSHIM_MOCK_EVENT, "cuEventElapsedTime");
    struct CUevent_st *b = mock__expect(hend, CUSHIM_MOCK_EVENT, "cuEventElapsedTime");
    /* As documented for the driver: timing disabled or never recorded is an invalid handle;
     * recorded but not complete is not ready. */
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) {
        return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    }
    if (!a->recorded || !b->recorded) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    if (!event_done(a) || !event_done(b)) return mock__leave(CUDA_ERROR_NOT_READY);
    *ms = (float)((double)((long long)b->stamp - (long long)a->stamp) / 1000.0);
    return mock__leave(CUDA_SUCCESS);
}
