/* Internal: the layouts of graphs and graph executables. The words that turn the driver's graph
 * results into sentences are in graph_diag.h. */
#ifndef CUSHIM_API_GRAPH_H
#define CUSHIM_API_GRAPH_H

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

#endif
