/* Internal: the layouts of graphs and graph executables, and the words that turn the driver's
 * graph results into sentences. */
#ifndef CUSHIM_API_GRAPH_H
#define CUSHIM_API_GRAPH_H

#include <stddef.h>

#include "api/object.h"

/* The driver's graphs belong to no context, but everything cushim does with one (instantiate,
 * destroy) runs with the context of the stream it was captured from current, so a graph holds
 * that context as every other object holds its own. */
struct cushim_graph {
    cushim__object obj;
    cushim_context *ctx;
    CUgraph raw;
};

/* The context's raw handle is kept beside the reference, as in streams and events, for the
 * launch's default-stream path. */
struct cushim_graph_exec {
    cushim__object obj;
    cushim_context *ctx;
    CUcontext ctx_raw;
    CUgraphExec raw;
};

/* Write the enumerator's name and what it means into buf, for a sentence:
 * "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED (nodes were added or removed, or their
 * dependencies changed)"; an unknown value as "result N". */
void cushim__describe_update_result(char *buf, size_t size, CUgraphExecUpdateResult r);
void cushim__describe_instantiate_result(char *buf, size_t size, CUgraphInstantiateResult r);

/* Writes before, "node 0x... (a kernel node)" and after into buf, asking the driver for the
 * node's type; nothing at all for a NULL node (the driver blamed none). */
void cushim__describe_node(char *buf, size_t size, const char *before, CUgraphNode node,
                           const char *after);

#endif
