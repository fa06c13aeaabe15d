/* Internal to the mock driver: the rows of the entry table for graphs built by hand
 * (mock_graph_build.c). Same columns as MOCK_ENTRIES in mock.h, which appends this list. */
#ifndef CUSHIM_MOCK_GRAPH_BUILD_H
#define CUSHIM_MOCK_GRAPH_BUILD_H

#define MOCK_GRAPH_BUILD_ENTRIES(X)                                                                \
    X(cuGraphCreate, "cuGraphCreate", 10000, PFN_cuGraphCreate_v10000)                             \
    X(cuGraphAddKernelNode_v2, "cuGraphAddKernelNode", 12000, PFN_cuGraphAddKernelNode_v12000)     \
    X(cuGraphAddMemcpyNode, "cuGraphAddMemcpyNode", 10000, PFN_cuGraphAddMemcpyNode_v10000)        \
    X(cuGraphAddMemsetNode, "cuGraphAddMemsetNode", 10000, PFN_cuGraphAddMemsetNode_v10000)        \
    X(cuGraphAddHostNode, "cuGraphAddHostNode", 10000, PFN_cuGraphAddHostNode_v10000)              \
    X(cuGraphAddEmptyNode, "cuGraphAddEmptyNode", 10000, PFN_cuGraphAddEmptyNode_v10000)           \
    X(cuGraphGetNodes, "cuGraphGetNodes", 10000, PFN_cuGraphGetNodes_v10000)                       \
    X(cuGraphClone, "cuGraphClone", 10000, PFN_cuGraphClone_v10000)                                \
    X(cuGraphKernelNodeGetParams_v2, "cuGraphKernelNodeGetParams", 12000,                          \
      PFN_cuGraphKernelNodeGetParams_v12000)                                                       \
    X(cuGraphKernelNodeSetParams_v2, "cuGraphKernelNodeSetParams", 12000,                          \
      PFN_cuGraphKernelNodeSetParams_v12000)

#endif
