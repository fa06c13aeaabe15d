/* Graphs and graph executables: what a capture recorded, instantiated, launched (its nodes'
 * work enters the launch stream's queue in capture order), uploaded and updated.
 *
 * Update rules: an executable takes a graph's parameters when the graph has as many nodes as
 * it, of the same kinds in the same order; otherwise the update fails with
 * CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED (another count) or _NODE_TYPE_CHANGED (another
 * kind, naming the graph's node), and the executable is left as it was.
 *
 * Instantiate rules: a graph for device launch (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) may
 * hold only kernel, copy and set nodes, and at least one, as cuda.h documents: another node is
 * refused with CUDA_ERROR_INVALID_VALUE and CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED,
 * naming it; the flag with AUTO_FREE_ON_LAUNCH, or an empty graph, with
 * CUDA_GRAPH_INSTANTIATE_ERROR. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Nodes                                                                                      */
/* ------------------------------------------------------------------------------------------ */

bool mock__nodes_add(mock_nodes *n, mock_node_kind kind, mock_work *w, struct CUevent_st *e) {
    if (!mock__grow(&n->v, &n->cap, n->n + 1, sizeof *n->v)) return false;
    struct CUgraphNode_st *node = malloc(sizeof *node);
    if (node == NULL) return false;
    *node = (struct CUgraphNode_st){.kind = kind, .work = w, .event = e};
    if (w) w->refs++;
    n->v[n->n++] = node;
    return true;
}

void mock__nodes_free(mock_nodes *n) {
    for (size_t i = 0; i < n->n; i++) {
        mock__work_unref(n->v[i]->work);
        free(n->v[i]->kernel);
        free(n->v[i]);
    }
    free(n->v);
    memset(n, 0, sizeof *n);
}

static bool capturing_into(const struct CUgraph_st *g) {
    for (size_t i = 0; i < mock__state.ncaptures; i++) {
        if (mock__state.captures[i]->graph == g) return true;
    }
    return false;
}

/* A graph argument: NULL is CUDA_ERROR_INVALID_VALUE; one still being captured into cannot be
 * used yet. */
static CUresult graph_arg(CUgraph hg, const char *entry, struct CUgraph_st **out) {
    if (hg == NULL) return CUDA_ERROR_INVALID_VALUE;
    *out = mock__expect(hg, CUSHIM_MOCK_GRAPH, entry);
    if (*out == NULL) return CUDA_ERROR_INVALID_HANDLE;
    return capturing_into(*out) ? CUDA_ERROR_ILLEGAL_STATE : CUDA_SUCCESS;
}

/* The live executable he, else the code its entry answers. */
static CUresult exec_arg(CUgraphExec he, const char *entry, struct CUgraphExec_st **out) {
    if (he == NULL) return CUDA_ERROR_INVALID_VALUE;
    *out = mock__expect(he, CUSHIM_MOCK_GRAPH_EXEC, entry);
    return *out != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* For a launch or an upload: the executable he, and the stream hs, of the same context. */
static CUresult exec_on_stream(CUgraphExec he, CUstream hs, const char *entry,
                               struct CUgraphExec_st **x, struct CUstream_st **s) {
    CUresult r = exec_arg(he, entry, x);
    if (r == CUDA_SUCCESS) r = mock__stream(hs, entry, s);
    if (r == CUDA_SUCCESS && mock__stream_ctx(*s) != (*x)->h.ctx) r = CUDA_ERROR_INVALID_VALUE;
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Instantiate, destroy                                                                       */
/* ------------------------------------------------------------------------------------------ */

/* Why a graph cannot be launched from the device: CUDA_SUCCESS, or the refusal with the result
 * and the node to blame. */
static CUresult device_launch_refusal(const struct CUgraph_st *g, unsigned long long flags,
                                      CUgraphInstantiateResult *result, CUgraphNode *node) {
    if (!(flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)) return CUDA_SUCCESS;
    if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) || g->nodes.n == 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < g->nodes.n; i++) {
        mock_node_kind k = g->nodes.v[i]->kind;
        if (k != MOCK_NODE_KERNEL && k != MOCK_NODE_MEMCPY && k != MOCK_NODE_MEMSET) {
            *result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
            *node = g->nodes.v[i];
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

static CUresult instantiate(const char *entry, CUgraphExec *pe, CUgraph hg,
                            unsigned long long flags, CUgraphInstantiateResult *result,
                            CUgraphNode *node) {
    const unsigned long long known =
        CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
        CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    *node = NULL;
    if (pe == NULL || (flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
    struct CUgraph_st *g;
    CUresult r = graph_arg(hg, entry, &g);
    if (r == CUDA_SUCCESS) r = device_launch_refusal(g, flags, result, node);
    if (r != CUDA_SUCCESS) return r;
    struct CUgraphExec_st *x = mock__new(sizeof *x, CUSHIM_MOCK_GRAPH_EXEC, g->h.ctx);
    if (x == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    mock__state.live[CUSHIM_MOCK_GRAPH_EXEC]++;
    x->flags = flags;
    for (size_t i = 0; i < g->nodes.n; i++) {
        const struct CUgraphNode_st *n = g->nodes.v[i];
        if (!mock__nodes_add(&x->nodes, n->kind, n->work, n->event)) {
            mock__kill(&x->h);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    *pe = x;
    *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuGraphInstantiateWithFlags(CUgraphExec *pe, CUgraph hg,
                                                  unsigned long long flags) {
    MOCK_ENTER(cuGraphInstantiateWithFlags);
    CUgraphInstantiateResult result;
    CUgraphNode node;
    return mock__leave(instantiate("cuGraphInstantiateWithFlags", pe, hg, flags, &result, &node));
}

CUresult CUDAAPI mock_cuGraphInstantiateWithParams(CUgraphExec *pe, CUgraph hg,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
    MOCK_ENTER(cuGraphInstantiateWithParams);
    if (p == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUgraphInstantiateResult result;
    CUgraphNode node;
    CUresult r = instantiate("cuGraphInstantiateWithParams", pe, hg, p->flags, &result, &node);
    if (r == CUDA_SUCCESS && (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)) {
        struct CUstream_st *s; /* the upload itself is free: only the stream is checked */
        r = mock__stream(p->hUploadStream, "cuGraphInstantiateWithParams", &s);
        if (r != CUDA_SUCCESS) {
            mock__kill(&(*pe)->h);
            *pe = NULL;
        }
    }
    p->hErrNode_out = r == CUDA_SUCCESS ? NULL : node;
    p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : result;
    return mock__leave(r);
}

/* Nodes carry no handle header, so a node handle is taken on trust: the ones the mock hands out
 * (capture info, update and instantiate results) live as long as their graph. */
CUresult CUDAAPI mock_cuGraphNodeGetType(CUgraphNode hn, CUgraphNodeType *type) {
    MOCK_ENTER(cuGraphNodeGetType);
    if (hn == NULL || type == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    static const CUgraphNodeType types[] = {
        [MOCK_NODE_KERNEL] = CU_GRAPH_NODE_TYPE_KERNEL,
        [MOCK_NODE_MEMCPY] = CU_GRAPH_NODE_TYPE_MEMCPY,
        [MOCK_NODE_MEMSET] = CU_GRAPH_NODE_TYPE_MEMSET,
        [MOCK_NODE_HOST] = CU_GRAPH_NODE_TYPE_HOST,
        [MOCK_NODE_EVENT_RECORD] = CU_GRAPH_NODE_TYPE_EVENT_RECORD,
        [MOCK_NODE_WAIT_EVENT] = CU_GRAPH_NODE_TYPE_WAIT_EVENT,
        [MOCK_NODE_EMPTY] = CU_GRAPH_NODE_TYPE_EMPTY,
    };
    *type = types[hn->kind];
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuGraphDestroy(CUgraph hg) {
    MOCK_ENTER(cuGraphDestroy);
    struct CUgraph_st *g;
    CUresult r = graph_arg(hg, "cuGraphDestroy", &g);
    if (r == CUDA_SUCCESS) mock__kill(&g->h);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuGraphExecDestroy(CUgraphExec he) {
    MOCK_ENTER(cuGraphExecDestroy);
    struct CUgraphExec_st *x;
    CUresult r = exec_arg(he, "cuGraphExecDestroy", &x);
    if (r == CUDA_SUCCESS) mock__kill(&x->h);
    return mock__leave(r);
}

/* ------------------------------------------------------------------------------------------ */
/* Launch, upload                                                                             */
/* ------------------------------------------------------------------------------------------ */

CUresult CUDAAPI mock_cuGraphLaunch(CUgraphExec he, CUstream hs) {
    MOCK_ENTER(cuGraphLaunch);
    struct CUgraphExec_st *x = NULL;
    struct CUstream_st *s = NULL;
    CUresult r = exec_on_stream(he, hs, "cuGraphLaunch", &x, &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    /* Launched into a capture, the nodes join that capture's graph. */
    for (size_t i = 0; i < x->nodes.n && r == CUDA_SUCCESS; i++) {
        const struct CUgraphNode_st *n = x->nodes.v[i];
        if (n->kind == MOCK_NODE_KERNEL && n->work != NULL && s->cap == NULL) {
            mock__kernel_record_replay(n->work->arg, s);
        }
        r = mock__submit_node(s, n->kind, n->work, n->event);
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuGraphUpload(CUgraphExec he, CUstream hs) {
    MOCK_ENTER(cuGraphUpload);
    struct CUgraphExec_st *x;
    struct CUstream_st *s;
    return mock__leave(exec_on_stream(he, hs, "cuGraphUpload", &x, &s));
}

/* ------------------------------------------------------------------------------------------ */
/* Update                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static CUresult update(const char *entry, CUgraphExec he, CUgraph hg,
                       CUgraphExecUpdateResultInfo *info) {
    struct CUgraphExec_st *x;
    CUresult r = exec_arg(he, entry, &x);
    if (r != CUDA_SUCCESS) return r;
    struct CUgraph_st *g;
    r = graph_arg(hg, entry, &g);
    if (r != CUDA_SUCCESS) return r;
    *info = (CUgraphExecUpdateResultInfo){CU_GRAPH_EXEC_UPDATE_SUCCESS, NULL, NULL};
    if (g->nodes.n != x->nodes.n) {
        info->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    for (size_t i = 0; i < g->nodes.n; i++) {
        if (g->nodes.v[i]->kind != x->nodes.v[i]->kind) {
            info->result = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
            info->errorNode = g->nodes.v[i];
            return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        }
    }
    for (size_t i = 0; i < g->nodes.n; i++) {
        struct CUgraphNode_st *to = x->nodes.v[i];
        const struct CUgraphNode_st *from = g->nodes.v[i];
        if (from->work) from->work->refs++;
        mock__work_unref(to->work);
        to->work = from->work;
        to->event = from->event;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuGraphExecUpdate(CUgraphExec he, CUgraph hg, CUgraphNode *err_node,
                                        CUgraphExecUpdateResult *result) {
    MOCK_ENTER(cuGraphExecUpdate);
    if (err_node == NULL || result == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUgraphExecUpdateResultInfo info;
    CUresult r = update("cuGraphExecUpdate", he, hg, &info);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) {
        *err_node = info.errorNode;
        *result = info.result;
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuGraphExecUpdate_v2(CUgraphExec he, CUgraph hg,
                                           CUgraphExecUpdateResultInfo *info) {
    MOCK_ENTER(cuGraphExecUpdate_v2);
    if (info == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUgraphExecUpdateResultInfo got;
    CUresult r = update("cuGraphExecUpdate", he, hg, &got);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) *info = got;
    return mock__leave(r);
}
