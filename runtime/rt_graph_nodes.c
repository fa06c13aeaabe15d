/* Adding nodes to a graph by hand: kernel, copy (3D, linear, to and from symbols), set, host,
 * empty, event record and wait, and child graph nodes. The parameters are converted in
 * rt_graph_params.c; copy and set nodes run in the current device's primary context. */
#include "runtime/rt_forward.h"
#include "runtime/rt_graph_params.h"

_Static_assert(sizeof(struct cudaHostNodeParams) == sizeof(CUDA_HOST_NODE_PARAMS),
               "host node params layout");

/* What every add checks: the out-pointer, the graph, the dependencies; then the context. */
static cudaError_t add_start(cushim_context **ctx, cudaGraphNode_t *node, cudaGraph_t graph,
                             const cudaGraphNode_t *deps, size_t n, const char *fn) {
    CUSHIM__RT_NONNULL(fn, node);
    CUSHIM__RT_NONNULL(fn, graph);
    if (n > 0 && deps == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: pDependencies is NULL with %zu dependencies", fn, n);
    }
    return cushim__rt_context(ctx, fn);
}

/* ------------------------------------------------------------------------------------------ */
/* Adding nodes                                                                               */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    CUDA_KERNEL_NODE_PARAMS k;
    if (e == cudaSuccess) e = cushim__rt_kernel_node_in(&k, pNodeParams, __func__);
    if (e != cudaSuccess) return e;
    return cushim__rt_checked(
        cushim__table.cuGraphAddKernelNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                           (const CUgraphNode *)pDependencies, numDependencies, &k),
        __func__, "cuGraphAddKernelNode");
}

static cudaError_t add_copy(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                            size_t n, const CUDA_MEMCPY3D *c, cushim_context *ctx, const char *fn) {
    return cushim__rt_checked(
        cushim__table.cuGraphAddMemcpyNode((CUgraphNode *)node, (CUgraph)graph,
                                           (const CUgraphNode *)deps, n, c, ctx->raw),
        fn, "cuGraphAddMemcpyNode");
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemcpy3DParms *pCopyParams) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    CUDA_MEMCPY3D c;
    if (e == cudaSuccess) e = cushim__rt_copy_node_in(&c, pCopyParams, __func__);
    if (e != cudaSuccess) return e;
    return add_copy(pGraphNode, graph, pDependencies, numDependencies, &c, ctx, __func__);
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind) {
    cushim_context *ctx;
    CUDA_MEMCPY3D c;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    if (e == cudaSuccess) e = cushim__rt_copy_node_1d(&c, dst, src, count, kind, __func__);
    if (e != cudaSuccess) return e;
    return add_copy(pGraphNode, graph, pDependencies, numDependencies, &c, ctx, __func__);
}

static cudaError_t add_symbol(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                              size_t n, bool to, void *ptr, const void *symbol, size_t count,
                              size_t offset, enum cudaMemcpyKind kind, const char *fn) {
    cushim_context *ctx;
    CUDA_MEMCPY3D c;
    cudaError_t e = add_start(&ctx, node, graph, deps, n, fn);
    if (e == cudaSuccess)
        e = cushim__rt_copy_node_symbol(&c, to, ptr, symbol, count, offset, kind, fn);
    if (e != cudaSuccess) return e;
    return add_copy(node, graph, deps, n, &c, ctx, fn);
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, const void *symbol,
                                           const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind) {
    return add_symbol(pGraphNode, graph, pDependencies, numDependencies, true, (void *)src, symbol,
                      count, offset, kind, __func__);
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst, const void *symbol,
                                             size_t count, size_t offset,
                                             enum cudaMemcpyKind kind) {
    return add_symbol(pGraphNode, graph, pDependencies, numDependencies, false, dst, symbol, count,
                      offset, kind, __func__);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    CUDA_MEMSET_NODE_PARAMS m;
    if (e == cudaSuccess) e = cushim__rt_memset_node_in(&m, pMemsetParams, __func__);
    if (e != cudaSuccess) return e;
    return cushim__rt_checked(cushim__table.cuGraphAddMemsetNode((CUgraphNode *)pGraphNode,
                                                                 (CUgraph)graph,
                                                                 (const CUgraphNode *)pDependencies,
                                                                 numDependencies, &m, ctx->raw),
                              __func__, "cuGraphAddMemsetNode");
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    if (pNodeParams->fn == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: pNodeParams->fn is NULL", __func__);
    }
    return cushim__rt_checked(
        cushim__table.cuGraphAddHostNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                         (const CUgraphNode *)pDependencies, numDependencies,
                                         (const CUDA_HOST_NODE_PARAMS *)pNodeParams),
        __func__, "cuGraphAddHostNode");
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    if (e != cudaSuccess) return e;
    return cushim__rt_checked(
        cushim__table.cuGraphAddEmptyNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                          (const CUgraphNode *)pDependencies, numDependencies),
        __func__, "cuGraphAddEmptyNode");
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, pGraphNode, graph, pDependencies, numDependencies, __func__);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_NONNULL(__func__, childGraph);
    return cushim__rt_checked(
        cushim__table.cuGraphAddChildGraphNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                               (const CUgraphNode *)pDependencies, numDependencies,
                                               (CUgraph)childGraph),
        __func__, "cuGraphAddChildGraphNode");
}

static cudaError_t add_event(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                             size_t n, cudaEvent_t event, bool wait, const char *fn) {
    cushim_context *ctx;
    cudaError_t e = add_start(&ctx, node, graph, deps, n, fn);
    if (e != cudaSuccess) return e;
    if (event == NULL)
        return cushim__rt_fail(cudaErrorInvalidResourceHandle, "%s: event is NULL", fn);
    CUgraphNode *out = (CUgraphNode *)node;
    const CUgraphNode *d = (const CUgraphNode *)deps;
    if (wait) {
        return cushim__rt_checked(
            cushim__table.cuGraphAddEventWaitNode(out, (CUgraph)graph, d, n, (CUevent)event), fn,
            "cuGraphAddEventWaitNode");
    }
    return cushim__rt_checked(
        cushim__table.cuGraphAddEventRecordNode(out, (CUgraph)graph, d, n, (CUevent)event), fn,
        "cuGraphAddEventRecordNode");
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies, cudaEvent_t event) {
    return add_event(pGraphNode, graph, pDependencies, numDependencies, event, false, __func__);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                      cudaEvent_t event) {
    return add_event(pGraphNode, graph, pDependencies, numDependencies, event, true, __func__);
}
