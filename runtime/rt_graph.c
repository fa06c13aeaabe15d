/* Graphs and their executables: create, clone, destroy, the shape of a graph (its nodes, roots,
 * edges, a node's neighbours and type), instantiate (with flags or with params), launch and
 * upload in both default-stream modes, update with its result info, and the DOT print.
 *
 * The runtime's graph, node and executable handles are the driver's; its node types, edge data,
 * update results and instantiate params have the driver's numbers and layouts, checked below.
 * The nodes themselves are added in rt_graph_nodes.c. */
#include <stddef.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"

_Static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData), "edge data layout");
_Static_assert(sizeof(cudaGraphExecUpdateResultInfo) == sizeof(CUgraphExecUpdateResultInfo),
               "update result info layout");
_Static_assert(offsetof(cudaGraphExecUpdateResultInfo, errorFromNode) ==
                   offsetof(CUgraphExecUpdateResultInfo, errorFromNode),
               "update result info layout");
_Static_assert(sizeof(cudaGraphInstantiateParams) == sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS),
               "instantiate params layout");
_Static_assert(offsetof(cudaGraphInstantiateParams, result_out) ==
                   offsetof(CUDA_GRAPH_INSTANTIATE_PARAMS, result_out),
               "instantiate params layout");
_Static_assert((int)cudaGraphNodeTypeKernel == (int)CU_GRAPH_NODE_TYPE_KERNEL &&
                   (int)cudaGraphNodeTypeHost == (int)CU_GRAPH_NODE_TYPE_HOST &&
                   (int)cudaGraphNodeTypeEventRecord == (int)CU_GRAPH_NODE_TYPE_EVENT_RECORD &&
                   (int)cudaGraphNodeTypeMemFree == (int)CU_GRAPH_NODE_TYPE_MEM_FREE,
               "node type numbers");
_Static_assert((int)cudaGraphExecUpdateErrorTopologyChanged ==
                       (int)CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED &&
                   (int)cudaGraphExecUpdateErrorNodeTypeChanged ==
                       (int)CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED,
               "update result numbers");

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, pGraph);
    if (flags != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: flags must be 0 (%u)", __func__, flags);
    }
    CUSHIM__RT_FORWARD(__func__, "cuGraphCreate",
                       cushim__table.cuGraphCreate((CUgraph *)pGraph, 0));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    CUSHIM__RT_NONNULL(__func__, graph);
    CUSHIM__RT_FORWARD(__func__, "cuGraphDestroy", cushim__table.cuGraphDestroy((CUgraph)graph));
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
    CUSHIM__RT_NONNULL(__func__, pGraphClone);
    CUSHIM__RT_NONNULL(__func__, originalGraph);
    CUSHIM__RT_FORWARD(__func__, "cuGraphClone",
                       cushim__table.cuGraphClone((CUgraph *)pGraphClone, (CUgraph)originalGraph));
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph) {
    CUSHIM__RT_NONNULL(__func__, pNode);
    CUSHIM__RT_FORWARD(__func__, "cuGraphNodeFindInClone",
                       cushim__table.cuGraphNodeFindInClone(
                           (CUgraphNode *)pNode, (CUgraphNode)originalNode, (CUgraph)clonedGraph));
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
    CUSHIM__RT_NONNULL(__func__, node);
    CUSHIM__RT_FORWARD(__func__, "cuGraphDestroyNode",
                       cushim__table.cuGraphDestroyNode((CUgraphNode)node));
}

/* ------------------------------------------------------------------------------------------ */
/* The shape of a graph                                                                       */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType) {
    CUSHIM__RT_NONNULL(__func__, pType);
    CUSHIM__RT_NONNULL(__func__, node);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphNodeGetType",
        cushim__table.cuGraphNodeGetType((CUgraphNode)node, (CUgraphNodeType *)pType));
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
    CUSHIM__RT_NONNULL(__func__, numNodes);
    CUSHIM__RT_NONNULL(__func__, graph);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphGetNodes",
        cushim__table.cuGraphGetNodes((CUgraph)graph, (CUgraphNode *)nodes, numNodes));
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes) {
    CUSHIM__RT_NONNULL(__func__, pNumRootNodes);
    CUSHIM__RT_NONNULL(__func__, graph);
    CUSHIM__RT_FORWARD(__func__, "cuGraphGetRootNodes",
                       cushim__table.cuGraphGetRootNodes((CUgraph)graph, (CUgraphNode *)pRootNodes,
                                                         pNumRootNodes));
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edgeData, size_t *numEdges) {
    CUSHIM__RT_NONNULL(__func__, numEdges);
    CUSHIM__RT_NONNULL(__func__, graph);
    CUSHIM__RT_FORWARD(__func__, "cuGraphGetEdges",
                       cushim__table.cuGraphGetEdges((CUgraph)graph, (CUgraphNode *)from,
                                                     (CUgraphNode *)to, (CUgraphEdgeData *)edgeData,
                                                     numEdges));
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         cudaGraphEdgeData *edgeData, size_t *pNumDependencies) {
    CUSHIM__RT_NONNULL(__func__, pNumDependencies);
    CUSHIM__RT_NONNULL(__func__, node);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphNodeGetDependencies",
        cushim__table.cuGraphNodeGetDependencies((CUgraphNode)node, (CUgraphNode *)pDependencies,
                                                 (CUgraphEdgeData *)edgeData, pNumDependencies));
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           cudaGraphEdgeData *edgeData,
                                           size_t *pNumDependentNodes) {
    CUSHIM__RT_NONNULL(__func__, pNumDependentNodes);
    CUSHIM__RT_NONNULL(__func__, node);
    CUSHIM__RT_FORWARD(__func__, "cuGraphNodeGetDependentNodes",
                       cushim__table.cuGraphNodeGetDependentNodes(
                           (CUgraphNode)node, (CUgraphNode *)pDependentNodes,
                           (CUgraphEdgeData *)edgeData, pNumDependentNodes));
}

static cudaError_t check_edges(const cudaGraphNode_t *from, const cudaGraphNode_t *to, size_t n,
                               const char *fn) {
    if (n > 0 && (from == NULL || to == NULL)) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: from or to is NULL with %zu edges", fn,
                               n);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies) {
    CUSHIM__RT_NONNULL(__func__, graph);
    cudaError_t e = check_edges(from, to, numDependencies, __func__);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(__func__, "cuGraphAddDependencies",
                       cushim__table.cuGraphAddDependencies(
                           (CUgraph)graph, (const CUgraphNode *)from, (const CUgraphNode *)to,
                           (const CUgraphEdgeData *)edgeData, numDependencies));
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edgeData, size_t numDependencies) {
    CUSHIM__RT_NONNULL(__func__, graph);
    cudaError_t e = check_edges(from, to, numDependencies, __func__);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(__func__, "cuGraphRemoveDependencies",
                       cushim__table.cuGraphRemoveDependencies(
                           (CUgraph)graph, (const CUgraphNode *)from, (const CUgraphNode *)to,
                           (const CUgraphEdgeData *)edgeData, numDependencies));
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, graph);
    CUSHIM__RT_NONNULL(__func__, path);
    /* The cudaGraphDebugDot* flags have the bits of CU_GRAPH_DEBUG_DOT_FLAGS_*. */
    CUSHIM__RT_FORWARD(__func__, "cuGraphDebugDotPrint",
                       cushim__table.cuGraphDebugDotPrint((CUgraph)graph, path, flags));
}

/* ------------------------------------------------------------------------------------------ */
/* Executables                                                                                */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags) {
    CUSHIM__RT_NONNULL(__func__, pGraphExec);
    CUSHIM__RT_NONNULL(__func__, graph);
    /* The cudaGraphInstantiateFlag* bits are CUDA_GRAPH_INSTANTIATE_FLAG_*'s. */
    CUSHIM__RT_FORWARD(__func__, "cuGraphInstantiateWithFlags",
                       cushim__table.cuGraphInstantiateWithFlags((CUgraphExec *)pGraphExec,
                                                                 (CUgraph)graph, flags));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
    return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

static cudaError_t instantiate_with_params(cudaGraphExec_t *exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *params, bool pt,
                                           const char *fn) {
    CUSHIM__RT_NONNULL(fn, exec);
    CUSHIM__RT_NONNULL(fn, params);
    CUSHIM__RT_NONNULL(fn, graph);
    /* The upload stream is the caller's; NULL is its default stream in this mode. */
    CUDA_GRAPH_INSTANTIATE_PARAMS p = {
        .flags = params->flags,
        .hUploadStream = cushim__rt_stream(params->uploadStream, pt),
    };
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    CUresult r =
        cushim__rt_table(pt)->cuGraphInstantiateWithParams((CUgraphExec *)exec, (CUgraph)graph, &p);
    params->errNode_out = (cudaGraphNode_t)p.hErrNode_out;
    params->result_out = (cudaGraphInstantiateResult)p.result_out;
    return cushim__rt_checked(r, fn, "cuGraphInstantiateWithParams");
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *instantiateParams) {
    return instantiate_with_params(pGraphExec, graph, instantiateParams, false, __func__);
}

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams *instantiateParams) {
    return instantiate_with_params(pGraphExec, graph, instantiateParams, true, __func__);
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags) {
    CUSHIM__RT_NONNULL(__func__, flags);
    CUSHIM__RT_NONNULL(__func__, graphExec);
    CUSHIM__RT_FORWARD(
        __func__, "cuGraphExecGetFlags",
        cushim__table.cuGraphExecGetFlags((CUgraphExec)graphExec, (cuuint64_t *)flags));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    CUSHIM__RT_NONNULL(__func__, graphExec);
    CUSHIM__RT_FORWARD(__func__, "cuGraphExecDestroy",
                       cushim__table.cuGraphExecDestroy((CUgraphExec)graphExec));
}

static cudaError_t launch(cudaGraphExec_t exec, cudaStream_t stream, bool upload, bool pt,
                          const char *fn) {
    CUSHIM__RT_NONNULL(fn, exec);
    const cushim_driver_table *t = cushim__rt_table(pt);
    CUstream s = cushim__rt_stream(stream, pt);
    if (upload) CUSHIM__RT_FORWARD(fn, "cuGraphUpload", t->cuGraphUpload((CUgraphExec)exec, s));
    CUSHIM__RT_FORWARD(fn, "cuGraphLaunch", t->cuGraphLaunch((CUgraphExec)exec, s));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    return launch(graphExec, stream, false, false, __func__);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
    return launch(graphExec, stream, false, true, __func__);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
    return launch(graphExec, stream, true, false, __func__);
}

cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
    return launch(graphExec, stream, true, true, __func__);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo) {
    CUSHIM__RT_NONNULL(__func__, resultInfo);
    CUSHIM__RT_NONNULL(__func__, hGraphExec);
    CUSHIM__RT_NONNULL(__func__, hGraph);
    CUSHIM__RT_FORWARD(__func__, "cuGraphExecUpdate",
                       cushim__table.cuGraphExecUpdate((CUgraphExec)hGraphExec, (CUgraph)hGraph,
                                                       (CUgraphExecUpdateResultInfo *)resultInfo));
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                    unsigned int isEnabled) {
    CUSHIM__RT_NONNULL(__func__, hGraphExec);
    CUSHIM__RT_FORWARD(__func__, "cuGraphNodeSetEnabled",
                       cushim__table.cuGraphNodeSetEnabled((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)hNode, isEnabled));
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                    unsigned int *isEnabled) {
    CUSHIM__RT_NONNULL(__func__, isEnabled);
    CUSHIM__RT_NONNULL(__func__, hGraphExec);
    CUSHIM__RT_FORWARD(__func__, "cuGraphNodeGetEnabled",
                       cushim__table.cuGraphNodeGetEnabled((CUgraphExec)hGraphExec,
                                                           (CUgraphNode)hNode, isEnabled));
}
