/* What every object shares: allocation, argument checks, the context rule. */
#include <stdlib.h>

#include "api/object.h"

void *cushim__alloc(size_t size) {
    void *p = calloc(1, size);
    if (p == NULL) cushim__set_error("out of host memory allocating %zu bytes", size);
    return p;
}

void cushim__free(void *p) {
    free(p);
}

static const char *kind_name(uint32_t tag) {
    switch (tag) {
    case CUSHIM__CONTEXT: return "a context";
    case CUSHIM__STREAM: return "a stream";
    case CUSHIM__EVENT: return "an event";
    case CUSHIM__MODULE: return "a module";
    case CUSHIM__LIBRARY: return "a library";
    case CUSHIM__FUNCTION: return "a function";
    case CUSHIM__DEAD: return "an object already destroyed";
    default: return "not a cushim object";
    }
}

CUresult cushim__check_failed(const void *p, cushim__tag tag, const char *what, const char *fn) {
    if (p == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, what);
    uint32_t got = atomic_load_explicit(&((const cushim__object *)p)->tag, memory_order_relaxed);
    return cushim__fail(CUDA_ERROR_INVALID_HANDLE, "%s: %s %p is %s, not %s", fn, what, p,
                        kind_name(got), kind_name(tag));
}

CUresult cushim__enter(CUcontext ctx, cushim__guard *g) {
    g->switched = false;
    g->prev = NULL;
    CUresult r = cushim__table.cuCtxGetCurrent(&g->prev);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "reading the current context failed with %s",
                            cushim_error_name(r));
    }
    if (g->prev == ctx) return CUDA_SUCCESS;
    r = cushim__table.cuCtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "making context %p current failed with %s", (void *)ctx,
                            cushim_error_name(r));
    }
    g->switched = true;
    return CUDA_SUCCESS;
}

CUresult cushim__leave(const cushim__guard *g) {
    if (!g->switched) return CUDA_SUCCESS;
    CUresult r = cushim__table.cuCtxSetCurrent(g->prev);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "restoring the previous current context %p failed with %s",
                            (void *)g->prev, cushim_error_name(r));
    }
    return CUDA_SUCCESS;
}

void cushim__destroy_refused(const char *what, const void *handle, CUresult r) {
    cushim__log(CUSHIM_LOG_WARN, "destroying %s %p: the driver refused with %s (%d): %s", what,
                handle, cushim_error_name(r), (int)r, cushim_error_string(r));
}
