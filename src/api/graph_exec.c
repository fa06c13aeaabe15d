/* Graph executables: launched and uploaded on a stream, updated from a new graph, refcounted.
 * A launch is the hot path (it is benchmarked against a direct cuGraphLaunch), so its common
 * case is one check and the call, as in cushim_event_record. */
#include <stdio.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/graph.h"
#include "api/graph_diag.h"
#include "loader/loader.h"

CUSHIM_API cushim_graph_exec *cushim_graph_exec_retain(cushim_graph_exec *x) {
    return cushim__retain_checked(x, CUSHIM__GRAPH_EXEC, "x", __func__);
}

CUSHIM_API void cushim_graph_exec_release(cushim_graph_exec *x) {
    if (!cushim__release_checked(x, CUSHIM__GRAPH_EXEC, "x", __func__)) return;
    CUSHIM__DESTROY("graph executable", x->raw, cushim__table.cuGraphExecDestroy(x->raw));
    cushim_context_release(x->ctx);
    cushim__free(x);
}

CUSHIM_API CUgraphExec cushim_graph_exec_raw(const cushim_graph_exec *x) {
    return cushim__is(x, CUSHIM__GRAPH_EXEC) ? x->raw : NULL;
}

CUSHIM_API cushim_context *cushim_graph_exec_context(const cushim_graph_exec *x) {
    return cushim__is(x, CUSHIM__GRAPH_EXEC) ? x->ctx : NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Launch and upload                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef CUresult (*on_stream_fn)(CUgraphExec, CUstream);

static CUSHIM__COLD CUresult on_stream_failed(CUresult r, const cushim_graph_exec *x,
                                              const cushim_stream *s, const char *entry,
                                              const char *fn) {
    if (s != NULL && s->ctx_raw != x->ctx_raw) {
        return cushim__fail(r,
                            "%s: %s failed with %s; the executable belongs to context %p and the "
                            "stream to context %p",
                            fn, entry, cushim_error_name(r), (void *)x->ctx_raw,
                            (void *)s->ctx_raw);
    }
    return cushim__fail(r, "%s: %s of graph executable %p failed with %s", fn, entry,
                        (void *)x->raw, cushim_error_name(r));
}

/* Everything but the common case: the default stream, and the argument errors. */
static CUSHIM__NOINLINE CUresult on_stream_slow(cushim_graph_exec *x, cushim_stream *s,
                                                on_stream_fn call, const char *entry,
                                                const char *fn) {
    CUresult r = cushim__check(x, CUSHIM__GRAPH_EXEC, "x", fn);
    if (r != CUDA_SUCCESS) return r;
    if (s != NULL) {
        r = cushim__check(s, CUSHIM__STREAM, "s", fn);
        if (r != CUDA_SUCCESS) return r;
        r = call(x->raw, s->raw);
        return r == CUDA_SUCCESS ? r : on_stream_failed(r, x, s, entry, fn);
    }
    /* The default stream of the executable's context: it must be current to be named. */
    cushim__guard g;
    r = cushim__enter(x->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = call(x->raw, CUSHIM__DEFAULT_STREAM);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS) return on_stream_failed(r, x, NULL, entry, fn);
    if (l != CUDA_SUCCESS) {
        /* The work is queued; only the thread's state is wrong. */
        return cushim__fail(l,
                            "%s: %s was queued, but restoring the previous current context "
                            "failed with %s, so the executable's context is still current",
                            fn, entry, cushim_error_name(l));
    }
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_graph_exec_launch(cushim_graph_exec *x, cushim_stream *s) {
    if (CUSHIM__LIKELY(cushim__is(x, CUSHIM__GRAPH_EXEC) && cushim__is(s, CUSHIM__STREAM))) {
        CUresult r = cushim__table.cuGraphLaunch(x->raw, s->raw);
        return CUSHIM__LIKELY(r == CUDA_SUCCESS)
                   ? r
                   : on_stream_failed(r, x, s, "cuGraphLaunch", __func__);
    }
    return on_stream_slow(x, s, cushim__table.cuGraphLaunch, "cuGraphLaunch", __func__);
}

CUSHIM_API CUresult cushim_graph_exec_upload(cushim_graph_exec *x, cushim_stream *s) {
    return on_stream_slow(x, s, cushim__table.cuGraphUpload, "cuGraphUpload", __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* Update                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static CUSHIM__COLD CUresult update_failed(CUresult r, const cushim_graph_exec *x,
                                           const cushim_graph *g,
                                           const CUgraphExecUpdateResultInfo *info,
                                           const char *fn) {
    if (r != CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) {
        return cushim__fail(r, "%s: updating graph executable %p from graph %p failed with %s", fn,
                            (void *)x->raw, (void *)g->raw, cushim_error_name(r));
    }
    char result[256], node[160];
    cushim__describe_update_result(result, sizeof result, info->result);
    cushim__describe_node(node, sizeof node, ", at ", info->errorNode, " of the graph");
    return cushim__fail(r,
                        "%s: the driver refused to update graph executable %p from graph %p: "
                        "%s%s; the executable is as it was",
                        fn, (void *)x->raw, (void *)g->raw, result, node);
}

CUSHIM_API CUresult cushim_graph_exec_update(cushim_graph_exec *x, cushim_graph *g) {
    CUresult r = cushim__check(x, CUSHIM__GRAPH_EXEC, "x", __func__);
    if (r == CUDA_SUCCESS) r = cushim__check(g, CUSHIM__GRAPH, "g", __func__);
    if (r != CUDA_SUCCESS) return r;
    cushim__guard guard;
    r = cushim__enter(x->ctx_raw, &guard, __func__);
    if (r != CUDA_SUCCESS) return r;
    CUgraphExecUpdateResultInfo info = {CU_GRAPH_EXEC_UPDATE_ERROR, NULL, NULL};
    r = cushim__table.cuGraphExecUpdate(x->raw, g->raw, &info);
    if (r != CUDA_SUCCESS) update_failed(r, x, g, &info, __func__);
    CUresult l = cushim__leave(&guard, __func__);
    if (r == CUDA_SUCCESS && l != CUDA_SUCCESS) {
        return cushim__fail(l,
                            "%s: the executable was updated, but restoring the previous current "
                            "context failed with %s, so its context is still current",
                            __func__, cushim_error_name(l));
    }
    return r;
}
