/* Internal: the object layout shared by the object files, refcounts, type tags, and the
 * context rule (switch to a context for a create or destroy, then restore). */
#ifndef CUSHIM_API_OBJECT_H
#define CUSHIM_API_OBJECT_H

#include <stdatomic.h>
#include <stdint.h>

#include "cushim.h"
#include "loader/diag.h"
#include "loader/loader.h"

/* The driver's name for the current context's default stream, by the build's default-stream
 * mode (-Ddefault_stream). */
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

/* Limits of a device, read once per device and kept for the process: the launch pre-checks use
 * them without a driver call. Filled by cushim__device_limits(). */
typedef struct cushim__limits {
    int max_threads_per_block;
    int max_block[3];
    int max_grid[3];
    int max_smem_per_block;       /* without opt-in */
    int max_smem_per_block_optin; /* with cuFuncSetAttribute opt-in */
    int sm_count;
    int cooperative;
} cushim__limits;

struct cushim_context {
    cushim__object obj;
    CUcontext raw;
    CUdevice device;
    int ordinal;
    bool primary;
};

struct cushim_stream {
    cushim__object obj;
    cushim_context *ctx;
    CUstream raw;
};

struct cushim_event {
    cushim__object obj;
    cushim_context *ctx;
    CUevent raw;
    unsigned flags;
};

void *cushim__alloc(size_t size);
void cushim__free(void *p);

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
    if (__builtin_expect(cushim__is(p, tag), 1)) return CUDA_SUCCESS;
    return cushim__check_failed(p, tag, what, fn);
}

static inline void cushim__retain(cushim__object *o) {
    atomic_fetch_add_explicit(&o->refs, 1u, memory_order_relaxed);
}

/* Drops one reference; true when it was the last, and the caller must destroy the object. */
static inline bool cushim__release(cushim__object *o) {
    /* acq_rel: the last release sees every write other holders made before theirs. */
    if (atomic_fetch_sub_explicit(&o->refs, 1u, memory_order_acq_rel) != 1u) return false;
    atomic_store_explicit(&o->tag, (uint32_t)CUSHIM__DEAD, memory_order_relaxed);
    return true;
}

/* The context rule: cushim__enter makes ctx current on this thread if it is not already and
 * remembers what was; cushim__leave puts that back. No switch when ctx is already current. */
typedef struct cushim__guard {
    CUcontext prev;
    bool switched;
} cushim__guard;

CUresult cushim__enter(CUcontext ctx, cushim__guard *g);
CUresult cushim__leave(const cushim__guard *g);

/* Logs a destroy the driver refused, at warn, with its code and the handle. */
void cushim__destroy_refused(const char *what, const void *handle, CUresult r);

/* The destroy half of the context rule, shared by every object that belongs to a context:
 * `call` (the driver's destroy of `handle`) runs with `ctx` current, the previous context is put
 * back, and any refusal is logged at warn. A macro because each driver call has its own type. */
#define CUSHIM__DESTROY_IN(ctx, what, handle, call)                                               \
    do {                                                                                          \
        cushim__guard g_;                                                                         \
        CUresult r_ = cushim__enter((ctx), &g_);                                                  \
        if (r_ == CUDA_SUCCESS) {                                                                 \
            r_ = (call);                                                                          \
            CUresult l_ = cushim__leave(&g_);                                                     \
            if (r_ != CUDA_SUCCESS) cushim__destroy_refused((what), (void *)(handle), r_);        \
            if (l_ != CUDA_SUCCESS) cushim__log(CUSHIM_LOG_WARN, "%s", cushim_last_error());      \
        } else {                                                                                  \
            cushim__destroy_refused((what), (void *)(handle), r_);                                \
        }                                                                                         \
    } while (0)

/* Limits of the context's device, read on first use. NULL with the last error set when the
 * driver cannot say. */
const cushim__limits *cushim__device_limits(const cushim_context *ctx);

#endif
