/* Stream capture: cuStreamBeginCapture to cuStreamEndCapture. While a stream captures, its work
 * becomes nodes of the capture's graph, in call order; a stream that waits on an event recorded
 * in a capture joins it, and must be joined back (its origin waits on an event recorded after
 * its last node) before the capture ends. Calls the driver refuses during capture are refused
 * with its codes, and invalidate the capture as they do on the driver. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

static _Thread_local CUstreamCaptureMode tl_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static mock_capture *find_capture(unsigned long long id) {
    for (size_t i = 0; id != 0 && i < mock__state.ncaptures; i++) {
        if (mock__state.captures[i]->id == id) return mock__state.captures[i];
    }
    return NULL;
}

bool mock__event_captured(const struct CUevent_st *e) {
    return e->cap_id != 0 && find_capture(e->cap_id) != NULL;
}

static bool add_member(mock_capture *c, struct CUstream_st *s) {
    if (!mock__grow(&c->members, &c->capmembers, c->nmembers + 1, sizeof *c->members)) {
        return false;
    }
    c->members[c->nmembers++] = s;
    s->cap = c;
    s->cap_unjoined = false;
    return true;
}

/* Every member leaves; the capture is forgotten (its graph is the caller's). */
static void end(mock_capture *c) {
    for (size_t i = 0; i < c->nmembers; i++) {
        c->members[i]->cap = NULL;
        c->members[i]->cap_tail = 0;
        c->members[i]->cap_unjoined = false;
    }
    for (size_t i = 0; i < mock__state.ncaptures; i++) {
        if (mock__state.captures[i] == c) {
            mock__state.captures[i] = mock__state.captures[--mock__state.ncaptures];
            break;
        }
    }
    free(c->members);
    free(c);
}

bool mock__capture_append(mock_capture *c, struct CUstream_st *s, mock_node_kind kind, mock_work *w,
                          struct CUevent_st *e) {
    if (!mock__nodes_add(&c->graph->nodes, kind, w, e)) return false;
    s->cap_tail = c->graph->nodes.n;
    if (s != c->origin) s->cap_unjoined = true;
    return true;
}

void mock__capture_invalidate(struct CUstream_st *s) {
    if (s->cap != NULL) s->cap->invalidated = true;
}

bool mock__capture_blocks_ctx_sync(struct CUctx_st *ctx) {
    bool blocked = false;
    for (size_t i = 0; i < mock__state.ncaptures; i++) {
        mock_capture *c = mock__state.captures[i];
        if (mock__stream_ctx(c->origin) != ctx || c->mode == CU_STREAM_CAPTURE_MODE_RELAXED) {
            continue;
        }
        if (c->mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
            !pthread_equal(c->thread, pthread_self())) {
            continue;
        }
        c->invalidated = true;
        blocked = true;
    }
    return blocked;
}

void mock__capture_leave(struct CUstream_st *s) {
    mock_capture *c = s->cap;
    if (c == NULL) return;
    c->invalidated = true;
    if (s == c->origin) { /* nothing can end it any more */
        struct CUgraph_st *g = c->graph;
        end(c);
        mock__kill(&g->h);
        return;
    }
    for (size_t i = 0; i < c->nmembers; i++) {
        if (c->members[i] == s) c->members[i] = c->members[--c->nmembers];
    }
    s->cap = NULL;
}

CUresult mock__capture_record(struct CUstream_st *s, struct CUevent_st *e, unsigned flags) {
    if (s->cap->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (flags & CU_EVENT_RECORD_EXTERNAL) {
        return mock__submit_node(s, MOCK_NODE_EVENT_RECORD, NULL, e);
    }
    /* A record inside a capture is an edge for later waits, not work. */
    e->cap_id = s->cap->id;
    e->cap_stream = s;
    e->cap_tail = s->cap_tail;
    return CUDA_SUCCESS;
}

CUresult mock__capture_wait(struct CUstream_st *s, struct CUevent_st *e, unsigned flags) {
    mock_capture *ec = e->cap_id ? find_capture(e->cap_id) : NULL;
    if (s->cap != NULL && s->cap->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (ec == NULL || (flags & CU_EVENT_WAIT_EXTERNAL)) {
        /* An event from outside the capture: the graph waits on its last record. */
        return mock__submit_node(s, MOCK_NODE_WAIT_EVENT, NULL, e);
    }
    if (s->cap == NULL) { /* the stream joins the capture */
        if (!add_member(ec, s)) return CUDA_ERROR_OUT_OF_MEMORY;
        s->cap_tail = e->cap_tail;
        return CUDA_SUCCESS;
    }
    if (s->cap != ec) {
        s->cap->invalidated = ec->invalidated = true;
        return CUDA_ERROR_STREAM_CAPTURE_MERGE;
    }
    struct CUstream_st *from = e->cap_stream;
    if (from != s && from->cap == ec && e->cap_tail >= from->cap_tail) from->cap_unjoined = false;
    if (e->cap_tail > s->cap_tail) s->cap_tail = e->cap_tail;
    return CUDA_SUCCESS;
}

void mock__exec_reset(void) {
    for (size_t i = 0; i < mock__state.ncaptures; i++) {
        free(mock__state.captures[i]->members); /* the streams were forgotten by the reset */
        free(mock__state.captures[i]);
    }
    free(mock__state.captures);
    mock__state.captures = NULL;
    mock__state.ncaptures = mock__state.capcaptures = 0;
    mock__state.jit_fail_armed = false;
    mock__state.noop_kernels = false;
    mock__state.kernel_error[0] = '\0';
    mock__kernels_reset();
}

/* ------------------------------------------------------------------------------------------ */
/* Entries                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static bool valid_mode(CUstreamCaptureMode m) {
    return m == CU_STREAM_CAPTURE_MODE_GLOBAL || m == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ||
           m == CU_STREAM_CAPTURE_MODE_RELAXED;
}

CUresult CUDAAPI mock_cuStreamBeginCapture(CUstream hs, CUstreamCaptureMode mode) {
    MOCK_ENTER(cuStreamBeginCapture);
    if (!valid_mode(mode)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamBeginCapture", &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    /* The legacy default stream cannot be captured. */
    if (mock__is_legacy(s)) {
        return mock__leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    if (s->cap != NULL) return mock__leave(CUDA_ERROR_ILLEGAL_STATE);
    mock_capture *c = calloc(1, sizeof *c);
    struct CUgraph_st *g = c ? mock__new(sizeof *g, CUSHIM_MOCK_GRAPH, mock__stream_ctx(s)) : NULL;
    if (g != NULL) mock__state.live[CUSHIM_MOCK_GRAPH]++;
    if (g == NULL ||
        !mock__grow(&mock__state.captures, &mock__state.capcaptures, mock__state.ncaptures + 1,
                    sizeof *mock__state.captures) ||
        !add_member(c, s)) {
        if (g != NULL) mock__kill(&g->h);
        if (c != NULL) free(c->members);
        free(c);
        s->cap = NULL;
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    c->id = ++mock__state.next_capture_id;
    c->graph = g;
    c->origin = s;
    c->mode = mode;
    c->thread = pthread_self();
    mock__state.captures[mock__state.ncaptures++] = c;
    s->cap_tail = 0;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
    MOCK_ENTER(cuThreadExchangeStreamCaptureMode);
    if (mode == NULL || !valid_mode(*mode)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUstreamCaptureMode old = tl_mode;
    tl_mode = *mode;
    *mode = old;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuStreamEndCapture(CUstream hs, CUgraph *pg) {
    MOCK_ENTER(cuStreamEndCapture);
    if (pg == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamEndCapture", &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    mock_capture *c = s->cap;
    if (c == NULL) return mock__leave(CUDA_ERROR_ILLEGAL_STATE);
    if (c->origin != s) { /* a joined stream cannot end its origin's capture */
        c->invalidated = true;
        return mock__leave(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    }
    if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
        return mock__leave(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    }
    bool unjoined = false;
    for (size_t i = 0; i < c->nmembers; i++) unjoined |= c->members[i]->cap_unjoined;
    bool invalidated = c->invalidated;
    struct CUgraph_st *g = c->graph;
    end(c);
    if (invalidated || unjoined) {
        mock__kill(&g->h);
        *pg = NULL;
        return mock__leave(invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
                                       : CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    }
    *pg = g;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuStreamIsCapturing(CUstream hs, CUstreamCaptureStatus *status) {
    MOCK_ENTER(cuStreamIsCapturing);
    if (status == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamIsCapturing", &s);
    if (r == CUDA_SUCCESS) {
        *status = s->cap == NULL        ? CU_STREAM_CAPTURE_STATUS_NONE
                  : s->cap->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                        : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    }
    return mock__leave(r);
}

static CUresult capture_info(const char *entry, CUstream hs, CUstreamCaptureStatus *status,
                             cuuint64_t *id, CUgraph *graph, const CUgraphNode **deps,
                             const CUgraphEdgeData **edges, size_t *ndeps) {
    if (status == NULL) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, entry, &s);
    if (r != CUDA_SUCCESS) return r;
    mock_capture *c = s->cap;
    *status = c == NULL        ? CU_STREAM_CAPTURE_STATUS_NONE
              : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                               : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    if (c == NULL) return CUDA_SUCCESS;
    if (id) *id = c->id;
    if (graph) *graph = c->graph;
    /* The stream's dependency: the node it added last (or the one it joined after). */
    size_t n = s->cap_tail > 0 ? 1 : 0;
    if (deps) *deps = n ? (const CUgraphNode *)&c->graph->nodes.v[s->cap_tail - 1] : NULL;
    if (edges) *edges = NULL; /* all edges are plain ones */
    if (ndeps) *ndeps = n;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuStreamGetCaptureInfo(CUstream hs, CUstreamCaptureStatus *status,
                                             cuuint64_t *id) {
    MOCK_ENTER(cuStreamGetCaptureInfo);
    return mock__leave(
        capture_info("cuStreamGetCaptureInfo", hs, status, id, NULL, NULL, NULL, NULL));
}

CUresult CUDAAPI mock_cuStreamGetCaptureInfo_v2(CUstream hs, CUstreamCaptureStatus *status,
                                                cuuint64_t *id, CUgraph *graph,
                                                const CUgraphNode **deps, size_t *ndeps) {
    MOCK_ENTER(cuStreamGetCaptureInfo_v2);
    return mock__leave(
        capture_info("cuStreamGetCaptureInfo", hs, status, id, graph, deps, NULL, ndeps));
}

CUresult CUDAAPI mock_cuStreamGetCaptureInfo_v3(CUstream hs, CUstreamCaptureStatus *status,
                                                cuuint64_t *id, CUgraph *graph,
                                                const CUgraphNode **deps,
                                                const CUgraphEdgeData **edges, size_t *ndeps) {
    MOCK_ENTER(cuStreamGetCaptureInfo_v3);
    return mock__leave(
        capture_info("cuStreamGetCaptureInfo", hs, status, id, graph, deps, edges, ndeps));
}
