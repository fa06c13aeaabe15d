/* Graphs built by hand (the explicit node API): create, add kernel, copy, set, host and empty
 * nodes, list the nodes, clone.
 *
 * A node is made by what makes one in a capture: the entry captures a scratch stream, makes the
 * one call that does the work there (cuLaunchKernel, cuMemcpy2DAsync, cuMemsetD2D*Async,
 * cuLaunchHostFunc), ends the capture and moves the node into the graph. So a node runs exactly
 * as the captured work does, and the scratch calls appear in the mock's log and counts.
 *
 * Order: the nodes of a graph run in the order they were added. A node's dependencies exist
 * before it, so that order respects every edge given at add time; edges are not kept
 * otherwise (cuGraphAddDependencies, root nodes and edge queries are not implemented), and
 * nodes without an edge between them do not run concurrently. Copies are of depth 1 and
 * without arrays (the mock keeps no arrays). */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* The graph and dependency arguments: NULL and a NULL list with a count are
 * CUDA_ERROR_INVALID_VALUE; a handle of another kind is a bug of the caller's (mock__expect). */
static CUresult check_args(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t n,
                           const char *entry) {
    if (out == NULL || hg == NULL || (n > 0 && deps == NULL)) return CUDA_ERROR_INVALID_VALUE;
    mock__lock();
    bool ok = mock__expect(hg, CUSHIM_MOCK_GRAPH, entry) != NULL;
    mock__unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

typedef CUresult (*submit_fn)(CUstream s, const void *arg);

/* A scratch graph of the one node that submit's work on a scratch stream makes. Called without
 * the lock (it makes its calls through the mock's entries). */
static CUresult scratch_node(CUgraph *scratch, submit_fn submit, const void *arg) {
    CUstream s = NULL;
    *scratch = NULL;
    CUresult r = mock_cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) return r;
    r = mock_cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (r == CUDA_SUCCESS) {
        CUresult made = submit(s, arg);
        r = mock_cuStreamEndCapture(s, scratch);
        if (made != CUDA_SUCCESS) r = made;
    }
    (void)mock_cuStreamDestroy(s);
    if (r == CUDA_SUCCESS && (*scratch)->nodes.n != 1) r = CUDA_ERROR_UNKNOWN;
    if (r != CUDA_SUCCESS && *scratch != NULL) {
        (void)mock_cuGraphDestroy(*scratch);
        *scratch = NULL;
    }
    return r;
}

/* A copy of a kernel node's parameters, kept with the node for cuGraphKernelNodeGetParams. */
static CUDA_KERNEL_NODE_PARAMS *keep_params(const CUDA_KERNEL_NODE_PARAMS *p) {
    if (p == NULL) return NULL;
    CUDA_KERNEL_NODE_PARAMS *k = malloc(sizeof *k);
    if (k != NULL) *k = *p;
    return k;
}

/* One node of the work submit makes on a scratch stream, appended to hg; a kernel node keeps
 * its parameters (kernel, else NULL). */
static CUresult build(mock_entry id, CUgraphNode *out, CUgraph hg, const CUgraphNode *deps,
                      size_t n, submit_fn submit, const void *arg,
                      const CUDA_KERNEL_NODE_PARAMS *kernel) {
    const char *entry = mock__rows[id].base;
    CUresult r = check_args(out, hg, deps, n, entry);
    CUgraph scratch = NULL;
    if (r == CUDA_SUCCESS) r = scratch_node(&scratch, submit, arg);
    if (r != CUDA_SUCCESS) return r;
    r = mock__enter(id, false);
    if (r != CUDA_SUCCESS) {
        (void)mock_cuGraphDestroy(scratch);
        return r;
    }
    struct CUgraph_st *g = mock__expect(hg, CUSHIM_MOCK_GRAPH, entry);
    if (g == NULL) { /* destroyed meanwhile by another thread */
        (void)mock_cuGraphDestroy(scratch);
        return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    }
    mock_nodes *from = &scratch->nodes, *to = &g->nodes;
    CUDA_KERNEL_NODE_PARAMS *kept = keep_params(kernel);
    if ((kernel != NULL && kept == NULL) ||
        !mock__grow(&to->v, &to->cap, to->n + 1, sizeof *to->v)) {
        free(kept);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        from->v[0]->kernel = kept;
        to->v[to->n++] = from->v[0];
        *out = from->v[0];
        from->n = 0; /* the node is the graph's now */
    }
    mock__kill(&scratch->h);
    return mock__leave(r);
}

/* ------------------------------------------------------------------------------------------ */
/* The work of each kind of node                                                              */
/* ------------------------------------------------------------------------------------------ */

static CUresult submit_kernel(CUstream s, const void *arg) {
    const CUDA_KERNEL_NODE_PARAMS *p = arg;
    if (p->func == NULL) return CUDA_ERROR_INVALID_VALUE;
    return mock_cuLaunchKernel(p->func, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
                               p->blockDimY, p->blockDimZ, p->sharedMemBytes, s, p->kernelParams,
                               p->extra);
}

static CUresult submit_copy(CUstream s, const void *arg) {
    const CUDA_MEMCPY3D *c = arg;
    /* A node is one queued copy: one slice, of an array's too (by the 3D copy's own checks and
     * layout). */
    if (c->Depth > 1) return CUDA_ERROR_NOT_SUPPORTED;
    if (c->srcZ != 0 || c->dstZ != 0 || c->srcMemoryType == CU_MEMORYTYPE_ARRAY ||
        c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
        return mock_cuMemcpy3DAsync(c, s);
    }
    CUDA_MEMCPY2D d = {
        .srcXInBytes = c->srcXInBytes,
        .srcY = c->srcY,
        .srcMemoryType = c->srcMemoryType,
        .srcHost = c->srcHost,
        .srcDevice = c->srcDevice,
        .srcPitch = c->srcPitch,
        .dstXInBytes = c->dstXInBytes,
        .dstY = c->dstY,
        .dstMemoryType = c->dstMemoryType,
        .dstHost = c->dstHost,
        .dstDevice = c->dstDevice,
        .dstPitch = c->dstPitch,
        .WidthInBytes = c->WidthInBytes,
        .Height = c->Height,
    };
    /* One row needs no pitch: the runtime's linear copies give the width as their pitch. */
    if (d.Height <= 1) {
        if (d.srcPitch < d.WidthInBytes) d.srcPitch = d.WidthInBytes;
        if (d.dstPitch < d.WidthInBytes) d.dstPitch = d.WidthInBytes;
    }
    return mock_cuMemcpy2DAsync(&d, s);
}

static CUresult submit_memset(CUstream s, const void *arg) {
    const CUDA_MEMSET_NODE_PARAMS *m = arg;
    size_t pitch = m->height <= 1 ? m->width * m->elementSize : m->pitch;
    switch (m->elementSize) {
    case 1:
        return mock_cuMemsetD2D8Async(m->dst, pitch, (unsigned char)m->value, m->width, m->height,
                                      s);
    case 2:
        return mock_cuMemsetD2D16Async(m->dst, pitch, (unsigned short)m->value, m->width, m->height,
                                       s);
    case 4: return mock_cuMemsetD2D32Async(m->dst, pitch, m->value, m->width, m->height, s);
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult submit_host(CUstream s, const void *arg) {
    const CUDA_HOST_NODE_PARAMS *h = arg;
    if (h->fn == NULL) return CUDA_ERROR_INVALID_VALUE;
    return mock_cuLaunchHostFunc(s, h->fn, h->userData);
}

/* ------------------------------------------------------------------------------------------ */
/* Entries                                                                                    */
/* ------------------------------------------------------------------------------------------ */

CUresult CUDAAPI mock_cuGraphCreate(CUgraph *pg, unsigned int flags) {
    MOCK_ENTER(cuGraphCreate);
    if (pg == NULL || flags != 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *ctx = mock__current();
    if (ctx == NULL) return mock__leave(CUDA_ERROR_INVALID_CONTEXT);
    struct CUgraph_st *g = mock__new(sizeof *g, CUSHIM_MOCK_GRAPH, ctx);
    if (g == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    mock__state.live[CUSHIM_MOCK_GRAPH]++;
    *pg = g;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps,
                                              size_t n, const CUDA_KERNEL_NODE_PARAMS *p) {
    if (p == NULL) return CUDA_ERROR_INVALID_VALUE;
    return build(MOCK_E_cuGraphAddKernelNode_v2, out, hg, deps, n, submit_kernel, p, p);
}

CUresult CUDAAPI mock_cuGraphAddMemcpyNode(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps,
                                           size_t n, const CUDA_MEMCPY3D *c, CUcontext ctx) {
    (void)ctx; /* the scratch stream is in the current context */
    if (c == NULL) return CUDA_ERROR_INVALID_VALUE;
    return build(MOCK_E_cuGraphAddMemcpyNode, out, hg, deps, n, submit_copy, c, NULL);
}

CUresult CUDAAPI mock_cuGraphAddMemsetNode(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps,
                                           size_t n, const CUDA_MEMSET_NODE_PARAMS *m,
                                           CUcontext ctx) {
    (void)ctx;
    if (m == NULL) return CUDA_ERROR_INVALID_VALUE;
    return build(MOCK_E_cuGraphAddMemsetNode, out, hg, deps, n, submit_memset, m, NULL);
}

CUresult CUDAAPI mock_cuGraphAddHostNode(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps,
                                         size_t n, const CUDA_HOST_NODE_PARAMS *h) {
    if (h == NULL) return CUDA_ERROR_INVALID_VALUE;
    return build(MOCK_E_cuGraphAddHostNode, out, hg, deps, n, submit_host, h, NULL);
}

CUresult CUDAAPI mock_cuGraphAddEmptyNode(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps,
                                          size_t n) {
    CUresult r = check_args(out, hg, deps, n, "cuGraphAddEmptyNode");
    if (r != CUDA_SUCCESS) return r;
    MOCK_ENTER(cuGraphAddEmptyNode);
    struct CUgraph_st *g;
    MOCK_EXPECT(g, hg, CUSHIM_MOCK_GRAPH, "cuGraphAddEmptyNode");
    if (!mock__nodes_add(&g->nodes, MOCK_NODE_EMPTY, NULL, NULL)) {
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *out = g->nodes.v[g->nodes.n - 1];
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuGraphGetNodes(CUgraph hg, CUgraphNode *nodes, size_t *count) {
    MOCK_ENTER(cuGraphGetNodes);
    if (hg == NULL || count == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUgraph_st *g;
    MOCK_EXPECT(g, hg, CUSHIM_MOCK_GRAPH, "cuGraphGetNodes");
    /* With a list: at most *count of them, and *count set to how many were written. */
    if (nodes != NULL) {
        size_t k = *count < g->nodes.n ? *count : g->nodes.n;
        for (size_t i = 0; i < k; i++) nodes[i] = g->nodes.v[i];
        for (size_t i = k; i < *count; i++) nodes[i] = NULL;
        *count = k;
    } else {
        *count = g->nodes.n;
    }
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuGraphClone(CUgraph *pclone, CUgraph hg) {
    MOCK_ENTER(cuGraphClone);
    if (pclone == NULL || hg == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUgraph_st *g;
    MOCK_EXPECT(g, hg, CUSHIM_MOCK_GRAPH, "cuGraphClone");
    struct CUgraph_st *c = mock__new(sizeof *c, CUSHIM_MOCK_GRAPH, g->h.ctx);
    if (c == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    mock__state.live[CUSHIM_MOCK_GRAPH]++;
    c->cloned_from = g;
    /* The clone's nodes share the original's work, as an executable's do. */
    for (size_t i = 0; i < g->nodes.n; i++) {
        const struct CUgraphNode_st *n = g->nodes.v[i];
        if (!mock__nodes_add(&c->nodes, n->kind, n->work, n->event) ||
            (n->kernel != NULL && (c->nodes.v[i]->kernel = keep_params(n->kernel)) == NULL)) {
            mock__kill(&c->h);
            return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
        }
    }
    *pclone = c;
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* A kernel node's parameters                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* A kernel node added by hand: CUDA_ERROR_INVALID_VALUE for NULL or another kind of node,
 * CUDA_ERROR_NOT_SUPPORTED for a captured kernel (its parameters are not kept). */
static CUresult kernel_node(CUgraphNode hn) {
    if (hn == NULL || hn->kind != MOCK_NODE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    return hn->kernel != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI mock_cuGraphKernelNodeGetParams_v2(CUgraphNode hn, CUDA_KERNEL_NODE_PARAMS *p) {
    MOCK_ENTER(cuGraphKernelNodeGetParams_v2);
    if (p == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUresult r = kernel_node(hn);
    if (r == CUDA_SUCCESS) *p = *hn->kernel;
    return mock__leave(r);
}

/* The node's work is replaced by that of a node made with the new parameters; executables
 * already made keep the work they had, as the driver's do. */
CUresult CUDAAPI mock_cuGraphKernelNodeSetParams_v2(CUgraphNode hn,
                                                    const CUDA_KERNEL_NODE_PARAMS *p) {
    if (p == NULL) return CUDA_ERROR_INVALID_VALUE;
    mock__lock();
    CUresult r = kernel_node(hn);
    mock__unlock();
    CUgraph scratch = NULL;
    if (r == CUDA_SUCCESS) r = scratch_node(&scratch, submit_kernel, p);
    if (r != CUDA_SUCCESS) return r;
    r = mock__enter(MOCK_E_cuGraphKernelNodeSetParams_v2, false);
    if (r != CUDA_SUCCESS) {
        (void)mock_cuGraphDestroy(scratch);
        return r;
    }
    struct CUgraphNode_st *made = scratch->nodes.v[0];
    mock_work *old = hn->work;
    hn->work = made->work;
    made->work = old; /* released with the scratch graph */
    *hn->kernel = *p;
    mock__kill(&scratch->h);
    return mock__leave(CUDA_SUCCESS);
}
