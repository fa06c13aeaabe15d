/* Reading and changing the parameters of a graph's nodes, and of an executable's copy of them
 * (cudaGraphExec*SetParams): kernel, copy, set, host, child graph, event record and wait nodes.
 * The parameters are converted in rt_graph_params.c. */
#include "runtime/rt_forward.h"
#include "runtime/rt_graph_params.h"

/* Returns from the enclosing function: `convert` (a cudaError_t expression that fills the
 * driver's parameters) after the context is made ready, then `call` checked as `name`. */
#define SET_AFTER(fn, convert, name, call)                                                         \
    do {                                                                                           \
        cudaError_t e_ = cushim__rt_ready(fn);                                                     \
        if (e_ == cudaSuccess) e_ = (convert);                                                     \
        if (e_ != cudaSuccess) return e_;                                                          \
        return cushim__rt_checked((call), fn, name);                                               \
    } while (0)

static cushim_context *current(void) {
    cushim_context *ctx = NULL;
    (void)cushim__rt_context(&ctx, __func__);
    return ctx;
}

/* ------------------------------------------------------------------------------------------ */
/* Kernel nodes                                                                               */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         struct cudaKernelNodeParams *pNodeParams) {
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    CUDA_KERNEL_NODE_PARAMS k;
    CUSHIM__RT_FORWARD_THEN(__func__, "cuGraphKernelNodeGetParams",
                            cushim__table.cuGraphKernelNodeGetParams((CUgraphNode)node, &k),
                            cushim__rt_kernel_node_out(pNodeParams, &k));
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams *pNodeParams) {
    CUDA_KERNEL_NODE_PARAMS k;
    SET_AFTER(__func__, cushim__rt_kernel_node_in(&k, pNodeParams, __func__),
              "cuGraphKernelNodeSetParams",
              cushim__table.cuGraphKernelNodeSetParams((CUgraphNode)node, &k));
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams) {
    CUDA_KERNEL_NODE_PARAMS k;
    SET_AFTER(__func__, cushim__rt_kernel_node_in(&k, pNodeParams, __func__),
              "cuGraphExecKernelNodeSetParams",
              cushim__table.cuGraphExecKernelNodeSetParams((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)node, &k));
}

/* ------------------------------------------------------------------------------------------ */
/* Copy nodes                                                                                 */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                         struct cudaMemcpy3DParms *pNodeParams) {
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    CUDA_MEMCPY3D c;
    CUSHIM__RT_FORWARD_THEN(__func__, "cuGraphMemcpyNodeGetParams",
                            cushim__table.cuGraphMemcpyNodeGetParams((CUgraphNode)node, &c),
                            cushim__rt_copy_node_out(pNodeParams, &c));
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemcpy3DParms *pNodeParams) {
    CUDA_MEMCPY3D c;
    SET_AFTER(__func__, cushim__rt_copy_node_in(&c, pNodeParams, __func__),
              "cuGraphMemcpyNodeSetParams",
              cushim__table.cuGraphMemcpyNodeSetParams((CUgraphNode)node, &c));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                           size_t count, enum cudaMemcpyKind kind) {
    CUDA_MEMCPY3D c;
    SET_AFTER(__func__, cushim__rt_copy_node_1d(&c, dst, src, count, kind, __func__),
              "cuGraphMemcpyNodeSetParams",
              cushim__table.cuGraphMemcpyNodeSetParams((CUgraphNode)node, &c));
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                 const void *src, size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind) {
    CUDA_MEMCPY3D c;
    SET_AFTER(
        __func__,
        cushim__rt_copy_node_symbol(&c, true, (void *)src, symbol, count, offset, kind, __func__),
        "cuGraphMemcpyNodeSetParams",
        cushim__table.cuGraphMemcpyNodeSetParams((CUgraphNode)node, &c));
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                   const void *symbol, size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind) {
    CUDA_MEMCPY3D c;
    SET_AFTER(__func__,
              cushim__rt_copy_node_symbol(&c, false, dst, symbol, count, offset, kind, __func__),
              "cuGraphMemcpyNodeSetParams",
              cushim__table.cuGraphMemcpyNodeSetParams((CUgraphNode)node, &c));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms *pNodeParams) {
    CUDA_MEMCPY3D c;
    SET_AFTER(__func__, cushim__rt_copy_node_in(&c, pNodeParams, __func__),
              "cuGraphExecMemcpyNodeSetParams",
              cushim__table.cuGraphExecMemcpyNodeSetParams((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)node, &c, current()->raw));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                               void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind) {
    CUDA_MEMCPY3D c;
    SET_AFTER(__func__, cushim__rt_copy_node_1d(&c, dst, src, count, kind, __func__),
              "cuGraphExecMemcpyNodeSetParams",
              cushim__table.cuGraphExecMemcpyNodeSetParams((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)node, &c, current()->raw));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node, const void *symbol,
                                                     const void *src, size_t count, size_t offset,
                                                     enum cudaMemcpyKind kind) {
    CUDA_MEMCPY3D c;
    SET_AFTER(
        __func__,
        cushim__rt_copy_node_symbol(&c, true, (void *)src, symbol, count, offset, kind, __func__),
        "cuGraphExecMemcpyNodeSetParams",
        cushim__table.cuGraphExecMemcpyNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node, &c,
                                                     current()->raw));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node, void *dst,
                                                       const void *symbol, size_t count,
                                                       size_t offset, enum cudaMemcpyKind kind) {
    CUDA_MEMCPY3D c;
    SET_AFTER(__func__,
              cushim__rt_copy_node_symbol(&c, false, dst, symbol, count, offset, kind, __func__),
              "cuGraphExecMemcpyNodeSetParams",
              cushim__table.cuGraphExecMemcpyNodeSetParams((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)node, &c, current()->raw));
}

/* ------------------------------------------------------------------------------------------ */
/* Set nodes                                                                                  */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                         struct cudaMemsetParams *pNodeParams) {
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    CUDA_MEMSET_NODE_PARAMS m;
    CUSHIM__RT_FORWARD_THEN(__func__, "cuGraphMemsetNodeGetParams",
                            cushim__table.cuGraphMemsetNodeGetParams((CUgraphNode)node, &m),
                            cushim__rt_memset_node_out(pNodeParams, &m));
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemsetParams *pNodeParams) {
    CUDA_MEMSET_NODE_PARAMS m;
    SET_AFTER(__func__, cushim__rt_memset_node_in(&m, pNodeParams, __func__),
              "cuGraphMemsetNodeSetParams",
              cushim__table.cuGraphMemsetNodeSetParams((CUgraphNode)node, &m));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams) {
    CUDA_MEMSET_NODE_PARAMS m;
    SET_AFTER(__func__, cushim__rt_memset_node_in(&m, pNodeParams, __func__),
              "cuGraphExecMemsetNodeSetParams",
              cushim__table.cuGraphExecMemsetNodeSetParams((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)node, &m, current()->raw));
}

/* ------------------------------------------------------------------------------------------ */
/* Host, child graph and event nodes: the runtime's parameters are the driver's                */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                       struct cudaHostNodeParams *pNodeParams) {
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    CUSHIM__RT_FORWARD(__func__, "cuGraphHostNodeGetParams",
                       cushim__table.cuGraphHostNodeGetParams(
                           (CUgraphNode)node, (CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                       const struct cudaHostNodeParams *pNodeParams) {
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    CUSHIM__RT_FORWARD(__func__, "cuGraphHostNodeSetParams",
                       cushim__table.cuGraphHostNodeSetParams(
                           (CUgraphNode)node, (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams) {
    CUSHIM__RT_NONNULL(__func__, pNodeParams);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphExecHostNodeSetParams",
        cushim__table.cuGraphExecHostNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node,
                                                   (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph) {
    CUSHIM__RT_NONNULL(__func__, pGraph);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphChildGraphNodeGetGraph",
        cushim__table.cuGraphChildGraphNodeGetGraph((CUgraphNode)node, (CUgraph *)pGraph));
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph) {
    CUSHIM__RT_FORWARD(__func__, "cuGraphExecChildGraphNodeSetParams",
                       cushim__table.cuGraphExecChildGraphNodeSetParams(
                           (CUgraphExec)hGraphExec, (CUgraphNode)node, (CUgraph)childGraph));
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
    CUSHIM__RT_NONNULL(__func__, event_out);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphEventRecordNodeGetEvent",
        cushim__table.cuGraphEventRecordNodeGetEvent((CUgraphNode)node, (CUevent *)event_out));
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphEventRecordNodeSetEvent",
        cushim__table.cuGraphEventRecordNodeSetEvent((CUgraphNode)node, (CUevent)event));
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
    CUSHIM__RT_NONNULL(__func__, event_out);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphEventWaitNodeGetEvent",
        cushim__table.cuGraphEventWaitNodeGetEvent((CUgraphNode)node, (CUevent *)event_out));
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphEventWaitNodeSetEvent",
        cushim__table.cuGraphEventWaitNodeSetEvent((CUgraphNode)node, (CUevent)event));
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                 cudaEvent_t event) {
    CUSHIM__RT_FORWARD(__func__, "cuGraphExecEventRecordNodeSetEvent",
                       cushim__table.cuGraphExecEventRecordNodeSetEvent(
                           (CUgraphExec)hGraphExec, (CUgraphNode)hNode, (CUevent)event));
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               cudaEvent_t event) {
    CUSHIM__RT_FORWARD(__func__, "cuGraphExecEventWaitNodeSetEvent",
                       cushim__table.cuGraphExecEventWaitNodeSetEvent(
                           (CUgraphExec)hGraphExec, (CUgraphNode)hNode, (CUevent)event));
}
