/* What every object shares: the argument checks' sentences, and the birth of a root. */
#include <string.h>

#include "api/alloc.h"
#include "api/object.h"
#include "loader/loader.h"

_Static_assert(sizeof(cushim_stream) <= CUSHIM__BLOCK_SIZE, "a stream fits a cached block");
_Static_assert(sizeof(cushim_event) <= CUSHIM__BLOCK_SIZE, "an event fits a cached block");

static const char *kind_name(uint32_t tag) {
    switch (tag) {
    case CUSHIM__CONTEXT: return "a context";
    case CUSHIM__STREAM: return "a stream";
    case CUSHIM__EVENT: return "an event";
    case CUSHIM__MODULE: return "a module";
    case CUSHIM__LIBRARY: return "a library";
    case CUSHIM__FUNCTION: return "a function";
    case CUSHIM__GRAPH: return "a graph";
    case CUSHIM__GRAPH_EXEC: return "a graph executable";
    case CUSHIM__PROGRAM: return "a program";
    case CUSHIM__LINKER: return "a linker";
    case CUSHIM__DEAD: return "an object already destroyed";
    default: return "not a cushim object";
    }
}

CUresult cushim__check_failed(const void *p, cushim__tag tag, const char *what, const char *fn) {
    if (p == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, what);
    uint32_t got = atomic_load_explicit(&((const cushim__object *)p)->tag, memory_order_relaxed);
    /* A release of a dead object is a second release of a reference already dropped. */
    if (got == CUSHIM__DEAD && strstr(fn, "_release") != NULL) {
        return cushim__fail(CUDA_ERROR_INVALID_HANDLE,
                            "%s: %s %p was already released: a double release (one reference "
                            "dropped twice), or a release of a handle kept after its last release",
                            fn, what, p);
    }
    return cushim__fail(CUDA_ERROR_INVALID_HANDLE, "%s: %s %p is %s, not %s", fn, what, p,
                        kind_name(got), kind_name(tag));
}

void *cushim__root_born(cushim__object *o, cushim__tag tag, pthread_mutex_t *lock) {
    pthread_mutex_init(lock, NULL);
    cushim__object_init(o, tag);
    atomic_fetch_add_explicit(&cushim__live_roots, 1, memory_order_relaxed);
    return o;
}
