/* Graphs (what a capture made) and their instantiation into executables. Both are refcounted
 * and hold their context; instantiate and destroy run with that context current. */
#include <stdio.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/graph.h"
#include "api/graph_diag.h"
#include "loader/loader.h"

/* ------------------------------------------------------------------------------------------ */
/* Graphs                                                                                     */
/* ------------------------------------------------------------------------------------------ */

CUSHIM_API cushim_graph *cushim_graph_retain(cushim_graph *g) {
    return cushim__retain_checked(g, CUSHIM__GRAPH, "g", __func__);
}

CUSHIM_API void cushim_graph_release(cushim_graph *g) {
    if (!cushim__release_checked(g, CUSHIM__GRAPH, "g", __func__)) return;
    CUSHIM__DESTROY("graph", g->raw, cushim__table.cuGraphDestroy(g->raw));
    cushim_context_release(g->ctx);
    cushim__free(g);
}

CUSHIM_API CUgraph cushim_graph_raw(const cushim_graph *g) {
    return cushim__is(g, CUSHIM__GRAPH) ? g->raw : NULL;
}

CUSHIM_API cushim_context *cushim_graph_context(const cushim_graph *g) {
    return cushim__is(g, CUSHIM__GRAPH) ? g->ctx : NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Instantiate                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* The refusal in a sentence: the code, and where the driver said more (CUDA 12's
 * cuGraphInstantiateWithParams), its result and the node it blames. */
static CUSHIM__COLD CUresult instantiate_failed(CUresult r, const cushim_graph *g,
                                                unsigned long long flags,
                                                const CUDA_GRAPH_INSTANTIATE_PARAMS *p,
                                                const char *fn) {
    if (p == NULL || p->result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS) {
        return cushim__fail(r, "%s: instantiating graph %p with flags 0x%llx failed with %s", fn,
                            (void *)g->raw, flags, cushim_error_name(r));
    }
    char result[256], node[160];
    cushim__describe_instantiate_result(result, sizeof result, p->result_out);
    cushim__describe_node(node, sizeof node, ", at ", p->hErrNode_out, "");
    return cushim__fail(r, "%s: instantiating graph %p with flags 0x%llx failed with %s: %s%s", fn,
                        (void *)g->raw, flags, cushim_error_name(r), result, node);
}

/* The driver's instantiate, in the current context. */
static CUresult instantiate(CUgraphExec *raw, const cushim_graph *g, unsigned long long flags,
                            const char *fn) {
    /* Where the driver has it (CUDA 12.0 on), the entry that reports the result and the node
     * behind a refusal, in the same call: nothing is instantiated twice to learn why. */
    if (cushim_driver_has("cuGraphInstantiateWithParams")) {
        CUDA_GRAPH_INSTANTIATE_PARAMS p = {flags, NULL, NULL, CUDA_GRAPH_INSTANTIATE_SUCCESS};
        CUresult r = cushim__table.cuGraphInstantiateWithParams(raw, g->raw, &p);
        return r == CUDA_SUCCESS ? r : instantiate_failed(r, g, flags, &p, fn);
    }
    CUresult r = cushim__table.cuGraphInstantiateWithFlags(raw, g->raw, flags);
    return r == CUDA_SUCCESS ? r : instantiate_failed(r, g, flags, NULL, fn);
}

CUSHIM_API CUresult cushim_graph_instantiate(cushim_graph_exec **out, cushim_graph *g,
                                             unsigned long long flags) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(g, CUSHIM__GRAPH, "g", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: flags 0x%llx: CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD needs a stream; "
                            "upload with cushim_graph_exec_upload instead",
                            __func__, flags);
    }
    cushim_graph_exec *x = cushim__alloc(sizeof *x, __func__);
    if (x == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    cushim__guard guard;
    r = cushim__enter(g->ctx->raw, &guard, __func__);
    if (r == CUDA_SUCCESS) {
        r = instantiate(&x->raw, g, flags, __func__);
        CUSHIM__LEAVE_OR_UNDO(&guard, r, "graph executable", x->raw,
                              cushim__table.cuGraphExecDestroy(x->raw));
    }
    if (r != CUDA_SUCCESS) {
        cushim__free(x);
        return r;
    }
    cushim__object_init(&x->obj, CUSHIM__GRAPH_EXEC);
    x->ctx = cushim_context_retain(g->ctx);
    x->ctx_raw = g->ctx->raw;
    *out = x;
    return CUDA_SUCCESS;
}
