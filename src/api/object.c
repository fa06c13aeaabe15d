/* What every object shares: allocation, argument checks, the context rule. */
#include <pthread.h>
#include <stdlib.h>

#include "api/object.h"

_Static_assert(sizeof(cushim_stream) <= CUSHIM__BLOCK_SIZE, "a stream fits a cached block");
_Static_assert(sizeof(cushim_event) <= CUSHIM__BLOCK_SIZE, "an event fits a cached block");

_Thread_local cushim__block_cache cushim__blocks;

static pthread_key_t exit_key;
static bool exit_key_made;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

void cushim__block_cache_drain(void) {
    cushim__block_cache *c = &cushim__blocks;
    while (c->count > 0) free(c->blocks[--c->count]);
}

/* At thread exit: free the cache, and from then on free blocks straight away (other exit-time
 * destructors may still release objects on this thread). */
static void thread_exit(void *unused) {
    (void)unused;
    cushim__blocks.state = 2;
    cushim__block_cache_drain();
}

static void make_exit_key(void) {
    exit_key_made = pthread_key_create(&exit_key, thread_exit) == 0;
}

/* The first free on a thread: register the exit drain, then cache. A thread where that cannot
 * be done (no key, or exiting) frees at once. */
void cushim__block_cache_put_slow(void *p) {
    cushim__block_cache *c = &cushim__blocks;
    if (c->state == 0) {
        pthread_once(&exit_key_once, make_exit_key);
        /* Any non-NULL value makes the key's destructor run at this thread's exit. */
        if (exit_key_made && pthread_setspecific(exit_key, c) == 0) c->state = 1;
    }
    if (c->state == 1 && c->count < CUSHIM__CACHE_BLOCKS) {
        c->blocks[c->count++] = p;
    } else {
        free(p);
    }
}

/* The thread that unloads the library (or exits the process) gives its blocks back too, so
 * that leak checkers see nothing held. The key goes: a thread exiting after a dlclose must not
 * call into unloaded code (its few cached blocks are then lost, 512 bytes at most). */
static CUSHIM__DESTRUCTOR void unload_drain(void) {
    cushim__block_cache_drain();
    cushim__blocks.state = 2;
    if (exit_key_made) pthread_key_delete(exit_key);
}

void *cushim__alloc_failed(size_t size, const char *fn) {
    cushim__set_error("%s: out of host memory allocating %zu bytes", fn, size);
    return NULL;
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
     * usable there); that is worth a debug line, not a warning per object. */
    cushim__log(cushim__forked ? CUSHIM_LOG_DEBUG : CUSHIM_LOG_WARN,
                "%s: destroying %s %p: the driver refused with %s (%d): %s", fn, what, handle,
                cushim_error_name(r), (int)r, cushim_error_string(r));
}
