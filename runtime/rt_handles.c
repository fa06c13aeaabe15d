/* The map from driver handle to the runtime's cushim stream or event, under one lock. */
#include <stdlib.h>

#include "runtime/rt_handles.h"
#include "runtime/rt_map.h"

enum { KIND_STREAM = 1, KIND_EVENT = 2 };

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

/* As the registry's: taken around fork() so that no child inherits it held. */
static void fork_prepare(void) { pthread_rwlock_wrlock(&lock); }
static void fork_done(void) { pthread_rwlock_unlock(&lock); }
CUSHIM__CONSTRUCTOR static void fork_handlers(void) {
    pthread_atfork(fork_prepare, fork_done, fork_done);
}
static cushim__rt_map map;

static bool add(const void *raw, void *obj, int kind, const char *fn) {
    pthread_rwlock_wrlock(&lock);
    bool ok = cushim__rt_map_put(&map, raw, obj, kind);
    pthread_rwlock_unlock(&lock);
    if (!ok) cushim__rt_fail(cudaErrorMemoryAllocation, "%s: out of memory", fn);
    return ok;
}

static void *get(const void *raw, int kind, bool take) {
    if (take) {
        pthread_rwlock_wrlock(&lock);
    } else {
        pthread_rwlock_rdlock(&lock);
    }
    cushim__rt_map_slot *s = cushim__rt_map_find(&map, raw);
    void *obj = NULL;
    if (s != NULL && s->kind == kind) {
        obj = s->value;
        if (take) cushim__rt_map_remove(s);
    }
    pthread_rwlock_unlock(&lock);
    return obj;
}

bool cushim__rt_stream_add(cushim_stream *s, const char *fn) {
    return add(s->raw, s, KIND_STREAM, fn);
}

bool cushim__rt_event_add(cushim_event *e, const char *fn) {
    return add(e->raw, e, KIND_EVENT, fn);
}

cushim_stream *cushim__rt_stream_of(cudaStream_t raw) { return get(raw, KIND_STREAM, false); }

cushim_event *cushim__rt_event_of(cudaEvent_t raw) { return get(raw, KIND_EVENT, false); }

cushim_stream *cushim__rt_stream_take(cudaStream_t raw) { return get(raw, KIND_STREAM, true); }

cushim_event *cushim__rt_event_take(cudaEvent_t raw) { return get(raw, KIND_EVENT, true); }

void cushim__rt_handles_drop(cushim_context *ctx) {
    pthread_rwlock_wrlock(&lock);
    size_t n = 0;
    void **objs = calloc(map.capacity ? map.capacity : 1, sizeof *objs);
    int *kinds = calloc(map.capacity ? map.capacity : 1, sizeof *kinds);
    for (size_t i = 0; objs != NULL && kinds != NULL && i < map.capacity; i++) {
        cushim__rt_map_slot *s = &map.slots[i];
        if (s->kind <= 0) continue;
        cushim_context *owner = s->kind == KIND_STREAM ? ((cushim_stream *)s->value)->ctx
                                                       : ((cushim_event *)s->value)->ctx;
        if (owner != ctx) continue;
        objs[n] = s->value;
        kinds[n++] = s->kind;
        cushim__rt_map_remove(s);
    }
    pthread_rwlock_unlock(&lock);
    /* Released outside the lock: a release may call the driver. */
    for (size_t i = 0; i < n; i++) {
        if (kinds[i] == KIND_STREAM) {
            cushim_stream_release(objs[i]);
        } else {
            cushim_event_release(objs[i]);
        }
    }
    free(objs);
    free(kinds);
}
