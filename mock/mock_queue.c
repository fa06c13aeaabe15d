/* Stream order: each stream's queue of operations, draining it, the enqueue hook, and host
 * functions (cuLaunchHostFunc, cuStreamAddCallback). See mock_queue.h. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Work                                                                                       */
/* ------------------------------------------------------------------------------------------ */

mock_work *mock__work_new(mock_node_kind kind, void (*run)(void *), void *arg,
                          void (*drop)(void *)) {
    mock_work *w = malloc(sizeof *w);
    if (w != NULL) *w = (mock_work){1, kind, run, arg, drop};
    return w;
}

void mock__work_unref(mock_work *w) {
    if (w == NULL || --w->refs > 0) return;
    if (w->drop) w->drop(w->arg);
    free(w);
}

/* ------------------------------------------------------------------------------------------ */
/* Queues                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Appends op as the next item of s. False when out of memory (nothing changed). */
static bool append(struct CUstream_st *s, mock_op op) {
    mock_queue *q = &s->q;
    if (q->head == q->n) q->head = q->n = 0;
    if (!mock__grow(&q->v, &q->cap, q->n + 1, sizeof *q->v)) return false;
    if (op.work) op.work->refs++;
    op.seq = ++s->submitted;
    q->v[q->n++] = op;
    return true;
}

/* s waits for the work `on` holds now, unless that is done; a wait that cannot be queued (out of
 * memory) is done at once instead, which orders the same. */
static void wait_pending(struct CUstream_st *s, struct CUstream_st *on) {
    if (on == s || on->completed >= on->submitted) return;
    if (!append(s, (mock_op){.type = MOCK_OP_WAIT, .stream = on, .upto = on->submitted})) {
        mock__complete(on, on->submitted, 0);
    }
}

/* CUDA's legacy default stream: what enters it waits for the earlier work of every blocking
 * stream of its context, and what enters a blocking stream (one made without
 * CU_STREAM_NON_BLOCKING, or a per-thread default stream) waits for the earlier work of the
 * legacy stream. The list of blocking streams is the context's (mock_default_stream.c). */
void mock__implicit_waits(struct CUstream_st *s) {
    struct CUctx_st *c = s->h.ctx;
    if (c == NULL) return;
    if (mock__is_legacy(s)) {
        for (size_t i = 0; i < c->nblocking; i++) wait_pending(s, c->blocking[i]);
    } else if (!(s->flags & CU_STREAM_NON_BLOCKING)) {
        wait_pending(s, &c->default_stream);
    }
}

/* Appends op to s after the waits of the legacy stream's implicit synchronisation. */
static bool push(struct CUstream_st *s, mock_op op) {
    mock__implicit_waits(s);
    return append(s, op);
}

/* With pending work off, what enters a stream runs at once; with it on, the progress thread
 * runs it when progress is on (mock_progress.c), else a synchronize does. */
static void settle(struct CUstream_st *s) {
    if (!mock__state.pending) {
        mock__complete(s, s->submitted, 0);
    } else {
        mock__progress_note(s);
    }
}

void mock__submit(struct CUstream_st *s) {
    if (!push(s, (mock_op){.type = MOCK_OP_WORK})) s->submitted++; /* a marker: no work lost */
    settle(s);
}

bool mock__push_wait(struct CUstream_st *s, struct CUstream_st *on, unsigned long long upto) {
    if (!push(s, (mock_op){.type = MOCK_OP_WAIT, .stream = on, .upto = upto})) return false;
    settle(s);
    return true;
}

void mock__queue_free(mock_queue *q) {
    for (size_t i = q->head; i < q->n; i++) mock__work_unref(q->v[i].work);
    free(q->v);
    memset(q, 0, sizeof *q);
}

/* Whether another thread runs an operation of s (a kernel, perhaps without the lock). */
static bool busy_elsewhere(const struct CUstream_st *s) {
    return s->busy && !pthread_equal(s->busy_owner, pthread_self());
}

/* Runs the operations of s up to item `upto`, in order. An operation leaves the queue before it
 * runs, so that work which calls back into the mock finds the queue consistent; the stream is
 * busy while it runs, so that another thread draining it waits for it rather than passing it. */
void mock__complete(struct CUstream_st *s, unsigned long long upto, int depth) {
    if (depth > 64) return; /* a cycle of waits: a deadlock on a real device */
    if (upto > s->submitted) upto = s->submitted;
    for (;;) {
        while (busy_elsewhere(s)) mock__wait();
        if (s->completed >= upto || s->q.head >= s->q.n) break;
        mock_op op = s->q.v[s->q.head];
        if (op.seq > upto) break;
        if (op.type == MOCK_OP_WAIT) {
            mock__complete(op.stream, op.upto, depth + 1);
            /* the drain of the other stream may have drained this one too */
            if (s->q.head >= s->q.n || s->q.v[s->q.head].seq != op.seq) continue;
        }
        s->q.head++;
        if (op.work != NULL) {
            bool outer = !s->busy; /* else this thread runs an operation of s already */
            s->busy = true;
            s->busy_owner = pthread_self();
            if (op.work->run) op.work->run(op.work->arg);
            mock__work_unref(op.work);
            if (outer) s->busy = false;
        }
        if (s->completed < op.seq) s->completed = op.seq;
        mock__wake();
    }
    if (s->completed < upto) s->completed = upto;
}

/* ------------------------------------------------------------------------------------------ */
/* Kernels without the lock                                                                   */
/* ------------------------------------------------------------------------------------------ */

void mock__defer(void (*fn)(void *), void *arg) {
    mock_state *m = &mock__state;
    while (m->kernels_running > 0) {
        if (mock__grow(&m->deferred, &m->capdeferred, m->ndeferred + 1, sizeof *m->deferred)) {
            m->deferred[m->ndeferred++] = (struct mock_deferred){fn, arg};
            return;
        }
        mock__wait(); /* out of memory for the list: wait for the kernels instead */
    }
    fn(arg);
}

void mock__run_unlocked(void (*fn)(void *), void *arg) {
    mock_state *m = &mock__state;
    m->kernels_running++;
    int holds = mock__release_all();
    fn(arg);
    mock__retake(holds);
    if (--m->kernels_running == 0) {
        for (size_t i = 0; i < m->ndeferred; i++) m->deferred[i].fn(m->deferred[i].arg);
        m->ndeferred = 0;
    }
    mock__wake();
}

void mock__wait_kernels(void) {
    while (mock__state.kernels_running > 0) mock__wait();
}

/* The streams and their work at the call, taken first: draining one may release the lock (a
 * kernel runs without it, a wait for another thread's), and the list of children may change
 * meanwhile. A stream destroyed meanwhile was drained by its destroy. */
void mock__ctx_sync(struct CUctx_st *c) {
    struct pending {
        struct CUstream_st *s;
        unsigned long long upto;
    } *v = NULL;
    size_t n = 0, cap = 0;
    bool whole = true; /* out of memory for the list: drain as before, one at a time */
    for (mock_obj *o = c->children.next; o != &c->children; o = o->next) {
        struct CUstream_st *s = (struct CUstream_st *)o;
        if (o->kind != CUSHIM_MOCK_STREAM || (s->completed >= s->submitted && !s->busy)) continue;
        if (!mock__grow(&v, &cap, n + 1, sizeof *v)) {
            whole = false;
            break;
        }
        v[n++] = (struct pending){s, s->submitted};
    }
    mock__complete(&c->default_stream, c->default_stream.submitted, 0);
    for (size_t i = 0; i < n; i++) {
        if (v[i].s->h.alive) mock__complete(v[i].s, v[i].upto, 0);
    }
    free(v);
    for (mock_obj *o = c->children.next; !whole && o != &c->children; o = o->next) {
        if (o->kind == CUSHIM_MOCK_STREAM) {
            struct CUstream_st *s = (struct CUstream_st *)o;
            mock__complete(s, s->submitted, 0);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Submitting                                                                                 */
/* ------------------------------------------------------------------------------------------ */

CUresult mock__submit_node(struct CUstream_st *s, mock_node_kind kind, mock_work *w,
                           struct CUevent_st *e) {
    if (s->cap != NULL) {
        if (s->cap->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        return mock__capture_append(s->cap, s, kind, w, e) ? CUDA_SUCCESS
                                                           : CUDA_ERROR_OUT_OF_MEMORY;
    }
    switch (kind) {
    case MOCK_NODE_EVENT_RECORD: mock__event_record_in(e, s); return CUDA_SUCCESS;
    case MOCK_NODE_WAIT_EVENT: return mock__event_wait_in(s, e);
    default: break;
    }
    if (!push(s, (mock_op){.type = MOCK_OP_WORK, .work = w})) return CUDA_ERROR_OUT_OF_MEMORY;
    settle(s);
    return CUDA_SUCCESS;
}

CUresult mock__enqueue(struct CUstream_st *s, mock_node_kind kind, void (*run)(void *arg),
                       void *arg, void (*drop)(void *arg)) {
    mock_work *w = mock__work_new(kind, run, arg, drop);
    if (w == NULL) {
        if (drop) drop(arg);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = mock__submit_node(s, kind, w, NULL);
    mock__work_unref(w); /* the queue or graph took its own reference */
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Host functions                                                                             */
/* ------------------------------------------------------------------------------------------ */

typedef struct host_call {
    CUhostFn fn;         /* cuLaunchHostFunc */
    CUstreamCallback cb; /* cuStreamAddCallback */
    CUstream stream;     /* as the program passed it, for the callback */
    void *user;
} host_call;

static void run_host(void *arg) {
    host_call *h = arg;
    if (h->fn) {
        h->fn(h->user);
    } else {
        h->cb(h->stream, CUDA_SUCCESS, h->user);
    }
}

static CUresult host_func(const char *entry, CUstream hs, const host_call *call) {
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, entry, &s);
    if (r != CUDA_SUCCESS) return r;
    host_call *h = malloc(sizeof *h);
    if (h == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    *h = *call;
    return mock__enqueue(s, MOCK_NODE_HOST, run_host, h, free);
}

CUresult CUDAAPI mock_cuLaunchHostFunc(CUstream hs, CUhostFn fn, void *user) {
    MOCK_ENTER(cuLaunchHostFunc);
    if (fn == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    host_call call = {.fn = fn, .stream = hs, .user = user};
    return mock__leave(host_func("cuLaunchHostFunc", hs, &call));
}

CUresult CUDAAPI mock_cuStreamAddCallback(CUstream hs, CUstreamCallback cb, void *user,
                                          unsigned int flags) {
    MOCK_ENTER(cuStreamAddCallback);
    if (cb == NULL || flags != 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamAddCallback", &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    /* Callbacks are not captured (cuLaunchHostFunc is): the call breaks the capture. */
    if (s->cap != NULL) {
        mock__capture_invalidate(s);
        return mock__leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    host_call call = {.cb = cb, .stream = hs, .user = user};
    return mock__leave(host_func("cuStreamAddCallback", hs, &call));
}
