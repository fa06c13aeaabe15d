/* The context rule's switches, and the warning for a destroy the driver refused. */
#include "api/context_rule.h"
#include "loader/fork.h"
#include "loader/loader.h"

CUresult cushim__enter(CUcontext ctx, cushim__guard *g, const char *fn) {
    g->switched = false;
    g->prev = NULL;
    CUresult r = cushim__table.cuCtxGetCurrent(&g->prev);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: reading the current context failed with %s", fn,
                            cushim_error_name(r));
    }
    if (g->prev == ctx) return CUDA_SUCCESS;
    r = cushim__table.cuCtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: making context %p current failed with %s", fn, (void *)ctx,
                            cushim_error_name(r));
    }
    g->switched = true;
    return CUDA_SUCCESS;
}

CUresult cushim__leave_switched(const cushim__guard *g, const char *fn) {
    CUresult r = cushim__table.cuCtxSetCurrent(g->prev);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: restoring the previous current context %p failed with %s", fn,
                            (void *)g->prev, cushim_error_name(r));
    }
    return CUDA_SUCCESS;
}

void cushim__destroy_refused(const char *fn, const char *what, const void *handle, CUresult r) {
    /* A forked child releasing what it inherited is expected to be refused (the driver is not
     * usable there); so is a release after the driver tore itself down (CUDA_ERROR_DEINITIALIZED:
     * at process exit, its own exit handlers ran before the runtime's __cudaUnregisterFatBinary,
     * and it freed everything). Each is worth a debug line, not a warning per object. */
    bool expected = cushim__forked || r == CUDA_ERROR_DEINITIALIZED;
    cushim__log(expected ? CUSHIM_LOG_DEBUG : CUSHIM_LOG_WARN,
                "%s: destroying %s %p: the driver refused with %s (%d): %s", fn, what, handle,
                cushim_error_name(r), (int)r, cushim_error_string(r));
}
