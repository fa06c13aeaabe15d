/* Internal: what every object shares: the type tags, the reference count, the argument checks,
 * and the layouts of contexts, streams and events. The allocation is api/alloc.h, the context
 * rule api/context_rule.h. */
#ifndef CUSHIM_API_OBJECT_H
#define CUSHIM_API_OBJECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/hints.h"
#include "cushim.h"
#include "loader/diag.h"

/* The driver's name for the current context's default stream, by the build's default-stream
 * mode (-Ddefault-stream). */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
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
    CUSHIM__GRAPH = 0x67726631,
    CUSHIM__GRAPH_EXEC = 0x67657831,
    CUSHIM__PROGRAM = 0x70726731,
    CUSHIM__LINKER = 0x6c6e6b31,
} cushim__tag;

typedef struct cushim__object {
    _Atomic uint32_t tag;
    atomic_uint refs;
} cushim__object;

/* A borrowed object (cushim_*_wrap) holds a driver handle that another library made and keeps
 * alive: its last release frees only cushim's memory and never destroys, recycles or releases
 * the handle. */

/* The events a context keeps are sorted by their flags: BLOCKING_SYNC and DISABLE_TIMING make
 * four values (INTERPROCESS events are never kept). */
#define CUSHIM__EVENT_KEYS 4

/* A context's caches of released events and streams (api/recycle.c). The objects are linked
 * through their `next` fields; they hold no reference to the context, which empties the caches
 * when its last reference goes. The switches are read without the lock on the create paths, and
 * written and read again under it. */
typedef struct cushim__recycler {
    pthread_mutex_t lock;
    atomic_bool events_on, streams_on;
    cushim_event *events[CUSHIM__EVENT_KEYS];
    unsigned nevents[CUSHIM__EVENT_KEYS];
    cushim_stream *streams;
    unsigned nstreams;
} cushim__recycler;

struct cushim_context {
    cushim__object obj;
    CUcontext raw;
    CUdevice device;
    int ordinal;
    bool primary;
    bool borrowed;
    cushim__recycler cache;
};

/* Streams and events keep their context's raw handle beside the reference to it, so the
 * same-context checks on the hot paths read one field instead of chasing two pointers. */
struct cushim_stream {
    cushim__object obj;
    cushim_context *ctx;
    CUcontext ctx_raw;
    CUstream raw;
    bool borrowed;
    unsigned flags; /* as created: with priority, what a recycled stream must match */
    int priority;
    /* The raw handle was handed out (cushim_stream_raw): someone outside cushim may have set
     * attributes on the stream, so it is destroyed at release rather than kept. */
    atomic_bool exported;
    cushim_stream *next; /* in its context's cache */
};

struct cushim_event {
    cushim__object obj;
    cushim_context *ctx;
    CUcontext ctx_raw;
    CUevent raw;
    unsigned flags; /* 0 for a borrowed event, whose flags cushim cannot read */
    bool borrowed;
    /* False while the event has had no record since its create, as far as cushim knows: then
     * query, synchronize, elapsed time and a wait answer as the driver does for an event never
     * recorded, without asking it, so that a recycled event (whose driver handle may carry an
     * earlier owner's record) answers exactly as a new one. Set by a successful record, and by
     * cushim_event_raw (a record through the raw handle is out of cushim's sight). */
    atomic_bool recorded;
    cushim_event *next; /* in its context's cache */
};

static inline void cushim__object_init(cushim__object *o, cushim__tag tag) {
    atomic_init(&o->refs, 1u);
    atomic_init(&o->tag, (uint32_t)tag);
}

/* The birth of a root (a library, program or linker: an object of its own, with a lock, that
 * keeps the loader's count of live roots up while it lives): its lock and reference set up and
 * the count raised. Returns the object, ready to be handed out. */
void *cushim__root_born(cushim__object *o, cushim__tag tag, pthread_mutex_t *lock);

/* Whether p is a live object of this kind. NULL is not. */
static inline bool cushim__is(const void *p, cushim__tag tag) {
    return p != NULL && atomic_load_explicit(&((const cushim__object *)p)->tag,
                                             memory_order_relaxed) == (uint32_t)tag;
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

#endif
