/* Recycling: the per-context caches of released events and streams, their switches (the
 * CUSHIM_RECYCLE environment variable and cushim_context_set_recycling), trimming, and the
 * destroys that need no context switch. */
#include <stdlib.h>
#include <string.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/recycle.h"
#include "loader/diag.h"
#include "loader/loader.h"

/* ------------------------------------------------------------------------------------------ */
/* The switches                                                                               */
/* ------------------------------------------------------------------------------------------ */

static bool default_events = true, default_streams = true;
static const char *bad_value; /* a CUSHIM_RECYCLE value not understood, said after the once */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* CUSHIM_RECYCLE: unset, "1", "on" or "all": events and streams; "0", "off" or "none":
 * neither; "events" or "streams": that kind only. Read once, at the first context. */
static void read_env(void) {
    const char *v = secure_getenv("CUSHIM_RECYCLE");
    if (v == NULL || v[0] == '\0' || strcmp(v, "1") == 0 || strcmp(v, "on") == 0 ||
        strcmp(v, "all") == 0) {
        return;
    }
    if (strcmp(v, "0") == 0 || strcmp(v, "off") == 0 || strcmp(v, "none") == 0) {
        default_events = default_streams = false;
    } else if (strcmp(v, "events") == 0) {
        default_streams = false;
    } else if (strcmp(v, "streams") == 0) {
        default_events = false;
    } else {
        bad_value = v;
    }
}

void cushim__recycler_init(cushim_context *ctx) {
    pthread_once(&env_once, read_env);
    /* Said outside the once: the log handler is the user's, and may make a context itself. */
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (bad_value != NULL && !atomic_flag_test_and_set(&said)) {
        cushim__log(CUSHIM_LOG_WARN,
                    "CUSHIM_RECYCLE='%s' is not one of 0, off, none, 1, on, all, events, "
                    "streams: events and streams are recycled",
                    bad_value);
    }
    cushim__recycler *c = &ctx->cache;
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->events_on, default_events);
    atomic_init(&c->streams_on, default_streams);
}

/* ------------------------------------------------------------------------------------------ */
/* Destroys                                                                                   */
/* ------------------------------------------------------------------------------------------ */

CUresult cushim__event_destroy(cushim_event *e, const char *fn) {
    CUresult r = cushim__table.cuEventDestroy(e->raw);
    if (r != CUDA_SUCCESS) cushim__destroy_refused(fn, "event", (void *)e->raw, r);
    cushim__free_block(e);
    return r;
}

CUresult cushim__stream_destroy(cushim_stream *s, const char *fn) {
    CUresult r = cushim__table.cuStreamDestroy(s->raw);
    if (r != CUDA_SUCCESS) cushim__destroy_refused(fn, "stream", (void *)s->raw, r);
    cushim__free_block(s);
    return r;
}

/* What a drain took out of the caches, destroyed after the lock is let go: the driver is never
 * called under it. */
typedef struct taken {
    cushim_event *events;
    cushim_stream *streams;
} taken;

/* Under the lock: empties the caches of the kinds asked for into t. */
static void take_all(cushim__recycler *c, bool events, bool streams, taken *t) {
    if (events) {
        for (unsigned k = 0; k < CUSHIM__EVENT_KEYS; k++) {
            while (c->events[k] != NULL) {
                cushim_event *e = c->events[k];
                c->events[k] = e->next;
                e->next = t->events;
                t->events = e;
            }
            c->nevents[k] = 0;
        }
    }
    if (streams) {
        t->streams = c->streams;
        c->streams = NULL;
        c->nstreams = 0;
    }
}

/* Destroys what take_all took; the first refusal's code, or CUDA_SUCCESS. */
static CUresult destroy_taken(taken *t, const char *fn) {
    CUresult first = CUDA_SUCCESS;
    while (t->events != NULL) {
        cushim_event *e = t->events;
        t->events = e->next;
        CUresult r = cushim__event_destroy(e, fn);
        if (first == CUDA_SUCCESS) first = r;
    }
    while (t->streams != NULL) {
        cushim_stream *s = t->streams;
        t->streams = s->next;
        CUresult r = cushim__stream_destroy(s, fn);
        if (first == CUDA_SUCCESS) first = r;
    }
    return first;
}

void cushim__recycler_fini(cushim_context *ctx, const char *fn) {
    cushim__recycler *c = &ctx->cache;
    taken t = {NULL, NULL};
    /* In a forked child, caches that a thread of the parent was changing at the fork are left
     * as they are (a few objects at most): their links may be half-written. */
    if (cushim__forked && !cushim__forked_lock_was_free(&c->lock)) return;
    /* The last reference is gone: no other thread can reach the caches now. */
    take_all(c, true, true, &t);
    destroy_taken(&t, fn);
    pthread_mutex_destroy(&c->lock);
}

/* ------------------------------------------------------------------------------------------ */
/* Keeping and handing out                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* A kept object starts its new life at a new address: it is moved into the block the create
 * allocated (as for a new object), and its old block, still tagged dead, goes back to the block
 * cache. A handle left from the previous life (a stream released twice, the second time after
 * its driver stream went to a new owner) then finds a dead object and is refused as a double
 * release, instead of releasing the new owner's object. */
static void move_to(void *into, void *kept, size_t size) {
    memcpy(into, kept, size);
    cushim__free_block(kept);
}

static unsigned event_key(unsigned flags) {
    return flags & (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
}

/* Whether a released object of ctx is worth offering: not when this release holds the
 * context's last reference, since the context empties its caches right after. A count of 1 is
 * exact here: the caller holds that reference, so no other thread can add one. */
static bool context_stays(const cushim_context *ctx) {
    return atomic_load_explicit(&ctx->obj.refs, memory_order_relaxed) != 1u;
}

bool cushim__keep_event(cushim_event *e) {
    cushim_context *ctx = e->ctx;
    cushim__recycler *c = &ctx->cache;
    /* An interprocess event may have been shared with another process by its handle. A forked
     * child never takes the cache's lock (loader/fork.h). */
    if ((e->flags & CU_EVENT_INTERPROCESS) ||
        !atomic_load_explicit(&c->events_on, memory_order_relaxed) || !context_stays(ctx) ||
        cushim__forked) {
        return false;
    }
    unsigned k = event_key(e->flags);
    pthread_mutex_lock(&c->lock);
    /* The switch again, under the lock: a drain that turned it off must find nothing after. */
    bool kept = atomic_load_explicit(&c->events_on, memory_order_relaxed) &&
                c->nevents[k] < CUSHIM__EVENT_CACHE_MAX;
    if (kept) {
        e->next = c->events[k];
        c->events[k] = e;
        c->nevents[k]++;
    }
    pthread_mutex_unlock(&c->lock);
    return kept;
}

bool cushim__recycled_event(cushim_context *ctx, unsigned flags, cushim_event *into) {
    cushim__recycler *c = &ctx->cache;
    if ((flags & CU_EVENT_INTERPROCESS) ||
        !atomic_load_explicit(&c->events_on, memory_order_relaxed) || cushim__forked) {
        return false;
    }
    unsigned k = event_key(flags);
    pthread_mutex_lock(&c->lock);
    cushim_event *e = c->events[k];
    if (e != NULL) {
        c->events[k] = e->next;
        c->nevents[k]--;
    }
    pthread_mutex_unlock(&c->lock);
    if (e == NULL) return false;
    move_to(into, e, sizeof *into);
    /* Its context, raw handles and flags are still those of this key and context. */
    into->next = NULL;
    atomic_store_explicit(&into->recorded, false, memory_order_relaxed);
    cushim__object_init(&into->obj, CUSHIM__EVENT);
    return true;
}

bool cushim__keep_stream(cushim_stream *s) {
    cushim_context *ctx = s->ctx;
    cushim__recycler *c = &ctx->cache;
    if (!atomic_load_explicit(&c->streams_on, memory_order_relaxed) ||
        atomic_load_explicit(&s->exported, memory_order_relaxed) || !context_stays(ctx) ||
        cushim__forked) {
        return false;
    }
    /* Only a stream whose work is done: a later owner's work must not wait for an earlier
     * owner's. Any other answer (work pending, a capture, an error) destroys it as before. */
    if (cushim__table.cuStreamQuery(s->raw) != CUDA_SUCCESS) return false;
    pthread_mutex_lock(&c->lock);
    bool kept = atomic_load_explicit(&c->streams_on, memory_order_relaxed) &&
                c->nstreams < CUSHIM__STREAM_CACHE_MAX;
    if (kept) {
        s->next = c->streams;
        c->streams = s;
        c->nstreams++;
    }
    pthread_mutex_unlock(&c->lock);
    return kept;
}

bool cushim__recycled_stream(cushim_context *ctx, unsigned flags, int priority,
                             cushim_stream *into) {
    cushim__recycler *c = &ctx->cache;
    if (!atomic_load_explicit(&c->streams_on, memory_order_relaxed) || cushim__forked) {
        return false;
    }
    pthread_mutex_lock(&c->lock);
    cushim_stream **link = &c->streams;
    while (*link != NULL && ((*link)->flags != flags || (*link)->priority != priority)) {
        link = &(*link)->next;
    }
    cushim_stream *s = *link;
    if (s != NULL) {
        *link = s->next;
        c->nstreams--;
    }
    pthread_mutex_unlock(&c->lock);
    if (s == NULL) return false;
    move_to(into, s, sizeof *into);
    into->next = NULL;
    cushim__object_init(&into->obj, CUSHIM__STREAM);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* The public switches                                                                        */
/* ------------------------------------------------------------------------------------------ */

static CUresult drain_failed(CUresult r, const char *fn) {
    return cushim__fail(r, "%s: the driver refused to destroy a cached object with %s (%s)", fn,
                        cushim_error_name(r), cushim_error_string(r));
}

CUSHIM_API CUresult cushim_context_trim(cushim_context *ctx) {
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (cushim__forked) return cushim__forked_refusal(__func__);
    taken t = {NULL, NULL};
    pthread_mutex_lock(&ctx->cache.lock);
    take_all(&ctx->cache, true, true, &t);
    pthread_mutex_unlock(&ctx->cache.lock);
    r = destroy_taken(&t, __func__);
    return r == CUDA_SUCCESS ? r : drain_failed(r, __func__);
}

CUSHIM_API CUresult cushim_context_set_recycling(cushim_context *ctx, bool events, bool streams) {
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (cushim__forked) return cushim__forked_refusal(__func__);
    taken t = {NULL, NULL};
    cushim__recycler *c = &ctx->cache;
    pthread_mutex_lock(&c->lock);
    atomic_store_explicit(&c->events_on, events, memory_order_relaxed);
    atomic_store_explicit(&c->streams_on, streams, memory_order_relaxed);
    take_all(c, !events, !streams, &t);
    pthread_mutex_unlock(&c->lock);
    r = destroy_taken(&t, __func__);
    return r == CUDA_SUCCESS ? r : drain_failed(r, __func__);
}

CUSHIM_API CUresult cushim_context_recycling(cushim_recycling *out, cushim_context *ctx) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    memset(out, 0, sizeof *out);
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (cushim__forked) return cushim__forked_refusal(__func__);
    cushim__recycler *c = &ctx->cache;
    pthread_mutex_lock(&c->lock);
    out->events = atomic_load_explicit(&c->events_on, memory_order_relaxed);
    out->streams = atomic_load_explicit(&c->streams_on, memory_order_relaxed);
    for (unsigned k = 0; k < CUSHIM__EVENT_KEYS; k++) out->events_held += c->nevents[k];
    out->streams_held = c->nstreams;
    pthread_mutex_unlock(&c->lock);
    out->events_max = CUSHIM__EVENT_CACHE_MAX;
    out->streams_max = CUSHIM__STREAM_CACHE_MAX;
    return CUDA_SUCCESS;
}
