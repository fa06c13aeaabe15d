/* Streams and events. Their work is queued and run by mock_queue.c; capture by mock_capture.c. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Work                                                                                       */
/* ------------------------------------------------------------------------------------------ */

void mock__stream_init(struct CUstream_st *s, struct CUctx_st *ctx) {
    s->h.magic = MOCK_MAGIC;
    s->h.kind = CUSHIM_MOCK_STREAM;
    s->h.alive = true;
    s->h.ctx = ctx;
    s->id = mock__state.next_id++;
}

static bool event_done(const struct CUevent_st *e) {
    return !e->recorded || e->stream->completed >= e->seq;
}

/* Pending work waits for a synchronize, so that a test sees NOT_READY; but a program that polls
 * a query in a loop (NVIDIA's asyncAPI sample counts its polls) would spin for ever, where on a
 * GPU the work ends by itself. So the queries of a stream that answer NOT_READY this many times
 * in a row run its work up to what was asked about, as a GPU that finished meanwhile. */
#define POLLS_TO_FINISH 1000u

static CUresult polled(struct CUstream_st *s, unsigned long long upto) {
    if (s->completed >= upto) {
        s->polls = 0;
        return CUDA_SUCCESS;
    }
    if (++s->polls < POLLS_TO_FINISH) return CUDA_ERROR_NOT_READY;
    s->polls = 0;
    mock__complete(s, upto, 0);
    return CUDA_SUCCESS;
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
    s->id = mock__state.next_id++;
    mock__state.live[CUSHIM_MOCK_STREAM]++;
    if (!(flags & CU_STREAM_NON_BLOCKING) && !mock__blocking_add(s)) {
        mock__kill(&s->h);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
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
    struct CUstream_st *s;
    MOCK_EXPECT(s, hs, CUSHIM_MOCK_STREAM, "cuStreamDestroy");
    mock__capture_leave(s);
    mock__kill(&s->h);
    return mock__leave(CUDA_SUCCESS);
}

/* The start every stream getter shares: where it writes is not NULL, then the stream. */
static CUresult getter_stream(CUstream hs, const void *dst, const char *entry,
                              struct CUstream_st **s) {
    if (dst == NULL) return CUDA_ERROR_INVALID_VALUE;
    return mock__stream(hs, entry, s);
}

/* The stream that a query or synchronize waits on: one that is capturing refuses them, and the
 * capture can no longer be used. */
static CUresult stream_to_wait(CUstream hs, const char *entry, struct CUstream_st **s) {
    CUresult r = mock__stream(hs, entry, s);
    if (r == CUDA_SUCCESS && (*s)->cap != NULL) {
        mock__capture_invalidate(*s); /* as the driver: an illegal call ends the capture's use */
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    return r;
}

CUresult CUDAAPI mock_cuStreamQuery(CUstream hs) {
    MOCK_ENTER(cuStreamQuery);
    struct CUstream_st *s;
    CUresult r = stream_to_wait(hs, "cuStreamQuery", &s);
    if (r == CUDA_SUCCESS) r = polled(s, s->submitted);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamSynchronize(CUstream hs) {
    MOCK_ENTER(cuStreamSynchronize);
    struct CUstream_st *s;
    CUresult r = stream_to_wait(hs, "cuStreamSynchronize", &s);
    if (r == CUDA_SUCCESS) mock__complete(s, s->submitted, 0);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamWaitEvent(CUstream hs, CUevent he, unsigned int flags) {
    MOCK_ENTER(cuStreamWaitEvent);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *e;
    MOCK_EXPECT(e, he, CUSHIM_MOCK_EVENT, "cuStreamWaitEvent");
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamWaitEvent", &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (s->cap != NULL || mock__event_captured(e)) {
        return mock__leave(mock__capture_wait(s, e, flags));
    }
    return mock__leave(mock__event_wait_in(s, e));
}

/* A wait is an item of s that completes with the event's work. */
CUresult mock__event_wait_in(struct CUstream_st *s, struct CUevent_st *e) {
    if (!e->h.alive || event_done(e)) return CUDA_SUCCESS;
    return mock__push_wait(s, e->stream, e->seq) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI mock_cuStreamGetCtx(CUstream hs, CUcontext *pctx) {
    MOCK_ENTER(cuStreamGetCtx);
    struct CUstream_st *s;
    CUresult r = getter_stream(hs, pctx, "cuStreamGetCtx", &s);
    if (r == CUDA_SUCCESS) *pctx = mock__stream_ctx(s);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetCtx_v2(CUstream hs, CUcontext *pctx, CUgreenCtx *pgreen) {
    MOCK_ENTER(cuStreamGetCtx_v2);
    struct CUstream_st *s;
    CUresult r = getter_stream(hs, pctx, "cuStreamGetCtx_v2", &s);
    if (r == CUDA_SUCCESS) {
        *pctx = mock__stream_ctx(s);
        if (pgreen) *pgreen = NULL;
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetPriority(CUstream hs, int *priority) {
    MOCK_ENTER(cuStreamGetPriority);
    struct CUstream_st *s;
    CUresult r = getter_stream(hs, priority, "cuStreamGetPriority", &s);
    if (r == CUDA_SUCCESS) *priority = s->priority;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetFlags(CUstream hs, unsigned int *flags) {
    MOCK_ENTER(cuStreamGetFlags);
    struct CUstream_st *s;
    CUresult r = getter_stream(hs, flags, "cuStreamGetFlags", &s);
    if (r == CUDA_SUCCESS) *flags = s->flags;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetId(CUstream hs, unsigned long long *id) {
    MOCK_ENTER(cuStreamGetId);
    struct CUstream_st *s;
    CUresult r = getter_stream(hs, id, "cuStreamGetId", &s);
    if (r == CUDA_SUCCESS) *id = s->id;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamGetDevice(CUstream hs, CUdevice *device) {
    MOCK_ENTER(cuStreamGetDevice);
    struct CUstream_st *s;
    CUresult r = getter_stream(hs, device, "cuStreamGetDevice", &s);
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
    mock__state.live[CUSHIM_MOCK_EVENT]++;
    *ph = e;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuEventDestroy(CUevent he) {
    MOCK_ENTER(cuEventDestroy);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *e;
    MOCK_EXPECT(e, he, CUSHIM_MOCK_EVENT, "cuEventDestroy");
    mock__kill(&e->h);
    return mock__leave(CUDA_SUCCESS);
}

static CUresult record(const char *entry, CUevent he, CUstream hs, unsigned flags) {
    if (he == NULL) return CUDA_ERROR_INVALID_HANDLE;
    struct CUevent_st *e = mock__expect(he, CUSHIM_MOCK_EVENT, entry);
    if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, entry, &s);
    if (r != CUDA_SUCCESS) return r;
    /* The driver refuses an event and a stream of different contexts. */
    if (mock__stream_ctx(s) != e->h.ctx) return CUDA_ERROR_INVALID_HANDLE;
    if (s->cap != NULL) return mock__capture_record(s, e, flags);
    mock__event_record_in(e, s);
    return CUDA_SUCCESS;
}

/* A record's stamp, taken when its stream reaches it; a later record of the event, or one of
 * another event that reuses a dead record's memory, has another id and is left alone. */
typedef struct stamp_at {
    struct CUevent_st *e;
    unsigned long long id;
} stamp_at;

static void take_stamp(void *arg) {
    const stamp_at *a = arg;
    if (a->e->record_id == a->id) a->e->stamp = mock__state.clock_ns;
}

/* The event completes with the work before it, and takes the mock's clock then: after the
 * kernels before it ran (mock_observe.c moves the clock as each runs). */
void mock__event_record_in(struct CUevent_st *e, struct CUstream_st *s) {
    if (!e->h.alive) return;
    e->record_id = ++mock__state.records;
    e->stamp = mock__state.clock_ns; /* until the stream reaches the record */
    stamp_at *a = malloc(sizeof *a);
    if (a != NULL) *a = (stamp_at){e, e->record_id};
    if (a == NULL || mock__enqueue(s, MOCK_NODE_EMPTY, take_stamp, a, free) != CUDA_SUCCESS) {
        mock__submit(s);
    }
    e->recorded = true;
    e->stream = s;
    e->seq = s->submitted;
    e->cap_id = 0;
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
    struct CUevent_st *e;
    MOCK_EXPECT(e, he, CUSHIM_MOCK_EVENT, "cuEventQuery");
    if (mock__event_captured(e)) return mock__leave(CUDA_ERROR_CAPTURED_EVENT);
    return mock__leave(event_done(e) ? CUDA_SUCCESS : polled(e->stream, e->seq));
}

CUresult CUDAAPI mock_cuEventSynchronize(CUevent he) {
    MOCK_ENTER(cuEventSynchronize);
    if (he == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *e;
    MOCK_EXPECT(e, he, CUSHIM_MOCK_EVENT, "cuEventSynchronize");
    if (mock__event_captured(e)) return mock__leave(CUDA_ERROR_CAPTURED_EVENT);
    if (e->recorded) mock__complete(e->stream, e->seq, 0);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuEventElapsedTime(float *ms, CUevent hstart, CUevent hend) {
    MOCK_ENTER(cuEventElapsedTime);
    if (ms == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hstart == NULL || hend == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUevent_st *a, *b;
    MOCK_EXPECT(a, hstart, CUSHIM_MOCK_EVENT, "cuEventElapsedTime");
    MOCK_EXPECT(b, hend, CUSHIM_MOCK_EVENT, "cuEventElapsedTime");
    /* As documented for the driver: timing disabled or never recorded is an invalid handle;
     * recorded but not complete is not ready. */
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) {
        return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    }
    if (mock__event_captured(a) || mock__event_captured(b)) {
        return mock__leave(CUDA_ERROR_CAPTURED_EVENT);
    }
    if (!a->recorded || !b->recorded) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    if (!event_done(a) || !event_done(b)) return mock__leave(CUDA_ERROR_NOT_READY);
    *ms = (float)((double)((long long)b->stamp - (long long)a->stamp) / 1e6);
    return mock__leave(CUDA_SUCCESS);
}
