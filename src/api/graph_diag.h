/* Internal: the words that turn the driver's graph results into sentences, for instantiate and
 * update (graph.c, graph_exec.c). Below the graph objects: it knows only the driver's types. */
#ifndef CUSHIM_API_GRAPH_DIAG_H
#define CUSHIM_API_GRAPH_DIAG_H

#include <stddef.h>

#include "cushim.h"

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
