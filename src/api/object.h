/* Internal: the object layout shared by the object files, refcounts, type tags, and the
 * context rule (switch to a context for a create or destroy, then restore). */
#ifndef CUSHIM_API_OBJECT_H
#define CUSHIM_API_OBJECT_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hints.h"
#include "cushim.h"
#include "loader/diag.h"
#include "loader/loader.h"

/* The driver's name for the current context's default stream, by the build's default-stream
 * mode (-Ddefault-stream). */
#if defined(CUSHIM_PER_THREAD_STREAM) && CUSHIM_PER_THREAD_STREAM
#define CUSHIM__DEFAULT_STREAM CU_STREAM_PER_THREAD
#else
#define CUSHIM__DEFAULT_STREAM ((CUstream)0)
#endif

/* Tags tell the kinds apart, so a handle of the wrong kind is an error, not a crash. A destroyed
 * object has its tag cleared before its memory is freed. */
typedef enum cushim__tag {
    CUSHIM__DEAD = 0,
    CUSHIM__CONTEXT = 0x63747831, /* "ctx1" */
    CUSHIM__STREAM = 0x73747231,
    CUSHIM__EVENT = 0x65767431,
    CUSHIM__MODULE = 0x6d6f6431,
    CUSHIM__LIBRARY = 0x6c696231,
    CUSHIM__FUNCTION = 0x666e6331,
} cushim__tag;

typedef struct cushim__object {
    _Atomic uint32_t tag;
    atomic_uint refs;
} cushim__object;

struct cushim_context {
    cushim__object obj;
    CUcontext raw;
    CUdevice device;
    int ordinal;
    bool primary;
};

/* Streams and events keep their context's raw handle beside the reference to it, so the
 * same-context checks on the hot paths read one field instead of chasing two pointers. */
struct cushim_stream {
    cushim__object obj;
    cushim_context *ctx;
    CUcontext ctx_raw;
    CUstream raw;
};

struct cushim_event {
    cushim__object obj;
    cushim_context *ctx;
    CUcontext ctx_raw;
    CUevent raw;
    unsigned flags;
};

/* Zeroed memory for an object, or NULL with the last error set (naming fn). malloc and memset, not calloc:
 * glibc's calloc skips the per-thread cache that malloc uses, and on the H200 machine calloc +
 * free cost 48 ns against malloc + free's 7, a fifth of an event create + destroy. Inline, so
 * that the memset of a constant size is a few stores. */
void *cushim__alloc_failed(size_t size, const char *fn);
static inline void *cushim__alloc(size_t size, const char *fn) {
    void *p = malloc(size);
    if (CUSHIM__UNLIKELY(p == NULL)) return cushim__alloc_failed(size, fn);
    return memset(p, 0, size);
}
static inline void cushim__free(void *p) {
    free(p);
}

/* Streams and events, made and dropped at a high rate, come from a small per-thread cache of
 * fixed-size blocks: on the H200 machine a malloc + free between cuEventCreate and
 * cuEventDestroy added 25 to 100 ns to the pair (any size, 16 bytes to 1 KiB), more than
 * everything else cushim does there. A thread keeps at most CUSHIM__CACHE_BLOCKS freed blocks;
 * they go back to malloc when the thread exits or the library is unloaded. Builds with
 * AddressSanitizer skip the cache, so that it sees every object freed. */
#define CUSHIM__BLOCK_SIZE 64
#define CUSHIM__CACHE_BLOCKS 8
#if defined(__SANITIZE_ADDRESS__)
#define CUSHIM__CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUSHIM__CACHE 0
#endif
#endif
#ifndef CUSHIM__CACHE
#define CUSHIM__CACHE 1
#endif

typedef struct cushim__block_cache {
    void *blocks[CUSHIM__CACHE_BLOCKS];
    unsigned count;
    unsigned state; /* 0: new thread, 1: registered for the exit drain, 2: thread exiting */
} cushim__block_cache;

/* The default TLS model, not initial-exec: the library must stay loadable by dlopen (an
 * initial-exec variable needs room in the static TLS block, which a process such as Python has
 * often used up). The build asks for TLS descriptors where the compiler has them, which make the
 * access nearly as cheap. */
extern _Thread_local cushim__block_cache cushim__blocks;
void cushim__block_cache_put_slow(void *p);
/* Empties the calling thread's cache (the fault sweep calls it so that every run allocates). */
void cushim__block_cache_drain(void);

/* A zeroed block of CUSHIM__BLOCK_SIZE bytes, or NULL with the last error set (naming fn). */
static inline void *cushim__alloc_block(const char *fn) {
#if CUSHIM__CACHE
    cushim__block_cache *c = &cushim__blocks;
    if (c->count > 0) return memset(c->blocks[--c->count], 0, CUSHIM__BLOCK_SIZE);
#endif
    return cushim__alloc(CUSHIM__BLOCK_SIZE, fn);
}

static inline void cushim__free_block(void *p) {
#if CUSHIM__CACHE
    cushim__block_cache *c = &cushim__blocks;
    if (c->state == 1 && c->count < CUSHIM__CACHE_BLOCKS) {
        c->blocks[c->count++] = p;
        return;
    }
    cushim__block_cache_put_slow(p);
#else
    free(p);
#endif
}

static inline void cushim__object_init(cushim__object *o, cushim__tag tag) {
    atomic_init(&o->refs, 1u);
    atomic_init(&o->tag, (uint32_t)tag);
}

/* Whether p is a live object of this kind. NULL is not. */
static inline bool cushim__is(const void *p, cushim__tag tag) {
    return p != NULL &&
           atomic_load_explicit(&((const cushim__object *)p)->tag, memory_order_relaxed) ==
               (uint32_t)tag;
}

/* The argument check every entry point starts with: NULL is CUDA_ERROR_INVALID_VALUE, a handle
 * of another kind (or a destroyed one) is CUDA_ERROR_INVALID_HANDLE. */
CUresult cushim__check_failed(const void *p, cushim__tag tag, const char *what, const char *fn);
static inline CUresult cushim__check(const void *p, cushim__tag tag, const char *what,
                                     const char *fn) {
    /* Inline, so that the good case (every call on a hot path) is one load and a compare. */
    if (CUSHIM__LIKELY(cushim__is(p, tag))) return CUDA_SUCCESS;
    return cushim__check_failed(p, tag, what, fn);
}

static inline void cushim__retain(cushim__object *o) {
    atomic_fetch_add_explicit(&o->refs, 1u, memory_order_relaxed);
}

/* Drops one reference; true when it was the last, and the caller must destroy the object. */
static inline bool cushim__release(cushim__object *o) {
    /* A count of 1 seen by a holder means it is the only holder: no one else can retain (that
     * needs a reference), so the object is ours without a read-modify-write, which saves a
     * locked instruction on the common create-use-release path. The acquire load, like the
     * acq_rel decrement otherwise, makes every other holder's writes before its release visible
     * before the destroy. */
    if (atomic_load_explicit(&o->refs, memory_order_acquire) != 1u &&
        atomic_fetch_sub_explicit(&o->refs, 1u, memory_order_acq_rel) != 1u) {
        return false;
    }
    atomic_store_explicit(&o->tag, (uint32_t)CUSHIM__DEAD, memory_order_relaxed);
    return true;
}

/* The start every *_retain shares: p retained, or NULL (with the last error set) when p is not a
 * live object of this kind. */
static inline void *cushim__retain_checked(void *p, cushim__tag tag, const char *what,
                                           const char *fn) {
    if (cushim__check(p, tag, what, fn) != CUDA_SUCCESS) return NULL;
    cushim__retain((cushim__object *)p);
    return p;
}

/* The start every *_release shares: true when this dropped the last reference and the caller
 * must destroy p. NULL is a no-op, as for free(); a handle of the wrong kind is logged at warn. */
static inline bool cushim__release_checked(void *p, cushim__tag tag, const char *what,
                                           const char *fn) {
    if (p == NULL) return false;
    if (cushim__check(p, tag, what, fn) != CUDA_SUCCESS) {
        cushim__log(CUSHIM_LOG_WARN, "%s", cushim_last_error());
        return false;
    }
    return cushim__release((cushim__object *)p);
}

/* The context rule: cushim__enter makes ctx current on this thread if it is not already and
 * remembers what was; cushim__leave puts that back. No switch when ctx is already current. A
 * failure's sentence starts with fn, the public function that asked. */
typedef struct cushim__guard {
    CUcontext prev;
    bool switched;
} cushim__guard;

CUresult cushim__enter(CUcontext ctx, cushim__guard *g, const char *fn);
CUresult cushim__leave_switched(const cushim__guard *g, const char *fn);
static inline CUresult cushim__leave(const cushim__guard *g, const char *fn) {
    /* Inline: most calls are made with the context already current, and then there is nothing
     * to put back. */
    return g->switched ? cushim__leave_switched(g, fn) : CUDA_SUCCESS;
}

/* Logs a destroy the driver refused, at warn, with fn, its code and the handle. */
void cushim__destroy_refused(const char *fn, const char *what, const void *handle, CUresult r);

/* The destroy half of the context rule, shared by every object that belongs to a context:
 * `call` (the driver's destroy of `handle`) runs with `ctx` current, the previous context is put
 * back, and any refusal is logged at warn, naming the calling function. A macro because each
 * driver call has its own type. */
#define CUSHIM__DESTROY_IN(ctx, what, handle, call)                                               \
    do {                                                                                          \
        cushim__guard g_;                                                                         \
        CUresult r_ = cushim__enter((ctx), &g_, __func__);                                        \
        if (r_ == CUDA_SUCCESS) {                                                                 \
            r_ = (call);                                                                          \
            CUresult l_ = cushim__leave(&g_, __func__);                                           \
            if (r_ != CUDA_SUCCESS) {                                                             \
                cushim__destroy_refused(__func__, (what), (void *)(handle), r_);                  \
            }                                                                                     \
            if (l_ != CUDA_SUCCESS) cushim__log(CUSHIM_LOG_WARN, "%s", cushim_last_error());      \
        } else {                                                                                  \
            cushim__destroy_refused(__func__, (what), (void *)(handle), r_);                      \
        }                                                                                         \
    } while (0)

/* The create half of the context rule: leaves the context entered with `g`, putting the
 * previous one back. When the create succeeded (`r`, an lvalue) but the switch back failed, the
 * new object is destroyed again by `undo`, so that a failure leaves nothing behind, and `r`
 * becomes the switch's error. Sentences name the calling function. */
#define CUSHIM__LEAVE_OR_UNDO(g, r, what, handle, undo)                                           \
    do {                                                                                          \
        CUresult l_ = cushim__leave((g), __func__);                                               \
        if ((r) == CUDA_SUCCESS && l_ != CUDA_SUCCESS) {                                          \
            CUresult d_ = (undo);                                                                 \
            if (d_ != CUDA_SUCCESS) {                                                             \
                cushim__destroy_refused(__func__, (what), (void *)(handle), d_);                  \
            }                                                                                     \
            (r) = l_;                                                                             \
        }                                                                                         \
    } while (0)

#endif
