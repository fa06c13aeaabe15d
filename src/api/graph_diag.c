/* The driver's graph results in words: what an instantiate or an update that the driver refused
 * says, and which node it names. The meanings are those of cuda.h's documentation. */
#include <stdio.h>

#include "api/graph_diag.h"
#include "loader/loader.h"

typedef struct named {
    int value;
    const char *name, *meaning;
} named;

static const named update_results[] = {
    {CU_GRAPH_EXEC_UPDATE_SUCCESS, "CU_GRAPH_EXEC_UPDATE_SUCCESS", "the update succeeded"},
    {CU_GRAPH_EXEC_UPDATE_ERROR, "CU_GRAPH_EXEC_UPDATE_ERROR",
     "an unexpected reason, which the returned code describes"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED",
     "the graph's topology changed: nodes were added or removed, or their dependencies changed"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED",
     "a node's type changed"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED, "CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED",
     "the function of a kernel node changed (drivers before CUDA 11.2)"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED, "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED",
     "a node's parameters changed in a way an update cannot take"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED, "CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED",
     "something about the node cannot be updated"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE,
     "CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE",
     "the function of a kernel node changed in a way an update cannot take"},
    {CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED, "CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED",
     "a node's attributes changed in a way an update cannot take"},
};

static const named instantiate_results[] = {
    {CUDA_GRAPH_INSTANTIATE_SUCCESS, "CUDA_GRAPH_INSTANTIATE_SUCCESS", "it succeeded"},
    {CUDA_GRAPH_INSTANTIATE_ERROR, "CUDA_GRAPH_INSTANTIATE_ERROR",
     "an invalid value or an unexpected reason, which the returned code describes"},
    {CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE, "CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE",
     "the graph's structure is invalid, a cycle for instance"},
    {CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED,
     "CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED",
     "a node does what a graph for device launch may not (a host node, dynamic parallelism)"},
    {CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED,
     "CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED",
     "the nodes belong to more than one context, which a graph for device launch may not"},
    {CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED,
     "CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED",
     "a conditional handle is not used by any conditional node"},
};

static const named node_types[] = {
    {CU_GRAPH_NODE_TYPE_KERNEL, "a kernel node", ""},
    {CU_GRAPH_NODE_TYPE_MEMCPY, "a copy node", ""},
    {CU_GRAPH_NODE_TYPE_MEMSET, "a memset node", ""},
    {CU_GRAPH_NODE_TYPE_HOST, "a host function node", ""},
    {CU_GRAPH_NODE_TYPE_GRAPH, "a child graph node", ""},
    {CU_GRAPH_NODE_TYPE_EMPTY, "an empty node", ""},
    {CU_GRAPH_NODE_TYPE_WAIT_EVENT, "an event wait node", ""},
    {CU_GRAPH_NODE_TYPE_EVENT_RECORD, "an event record node", ""},
    {CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL, "an external semaphore signal node", ""},
    {CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT, "an external semaphore wait node", ""},
    {CU_GRAPH_NODE_TYPE_MEM_ALLOC, "a memory allocation node", ""},
    {CU_GRAPH_NODE_TYPE_MEM_FREE, "a memory free node", ""},
    {CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, "a batch memory operation node", ""},
    {CU_GRAPH_NODE_TYPE_CONDITIONAL, "a conditional node", ""},
};

static const named *find(const named *table, size_t n, int value) {
    for (size_t i = 0; i < n; i++) {
        if (table[i].value == value) return &table[i];
    }
    return NULL;
}

static void describe(char *buf, size_t size, const named *table, size_t n, int value) {
    const named *it = find(table, n, value);
    if (it == NULL) {
        snprintf(buf, size, "result %d", value);
    } else {
        snprintf(buf, size, "%s (%s)", it->name, it->meaning);
    }
}

void cushim__describe_update_result(char *buf, size_t size, CUgraphExecUpdateResult r) {
    describe(buf, size, update_results, sizeof update_results / sizeof update_results[0], (int)r);
}

void cushim__describe_instantiate_result(char *buf, size_t size, CUgraphInstantiateResult r) {
    describe(buf, size, instantiate_results,
             sizeof instantiate_results / sizeof instantiate_results[0], (int)r);
}

void cushim__describe_node(char *buf, size_t size, const char *before, CUgraphNode node,
                           const char *after) {
    buf[0] = '\0';
    if (node == NULL) return;
    /* The type is a courtesy: a driver that cannot tell it still gets the node named. */
    CUgraphNodeType type;
    const named *it = NULL;
    if (cushim__table.cuGraphNodeGetType(node, &type) == CUDA_SUCCESS) {
        it = find(node_types, sizeof node_types / sizeof node_types[0], (int)type);
    }
    snprintf(buf, size, "%snode %p%s%s%s%s", before, (void *)node, it ? " (" : "",
             it ? it->name : "", it ? ")" : "", after);
}
