/* What the harness knows is alive, and the invariants that follow from it.
 *
 * Streams, events, modules and libraries are held by the harness's slots alone, so one of them
 * is alive exactly while a slot holds it, or, for a stream or an event, while its context's
 * cache keeps it (cushim_context_recycling says how many; the driver must hold exactly
 * those more, and a context's death must take them along). A context is also held by every stream,
 * event and module made in it, and by every function a library made for it; the model follows those
 * references too, which is what lets it predict the driver's live counts after every
 * instruction, rather than only at the end, where a leak would no longer say where it began.
 */
#include <string.h>

#include "fuzz.h"

fz_model fz_m;

void fz_model_clear(void) { memset(&fz_m, 0, sizeof fz_m); }

static fz_ctx_rec *ctx_find(const cushim_context *p) {
    for (int i = 0; p != NULL && i < fz_m.nctxs; i++) {
        if (fz_m.ctxs[i].p == p) return &fz_m.ctxs[i];
    }
    return NULL;
}

void fz_ctx_add(cushim_context *p, int ordinal, bool primary) {
    /* A new object at the address of a live one would mean cushim handed out one twice. */
    if (ctx_find(p) != NULL) fz_fail("a new context %p is already in the model", (void *)p);
    if (fz_m.nctxs == FZ_MAX_CTX) fz_fail("the model's context records are full");
    fz_m.ctxs[fz_m.nctxs++] = (fz_ctx_rec){p, cushim_context_raw(p), ordinal, primary};
}

static fz_owner_rec *owner_find(fz_owner_rec *recs, int n, const void *p) {
    for (int i = 0; p != NULL && i < n; i++) {
        if (recs[i].p == p) return &recs[i];
    }
    return NULL;
}

fz_owner_rec *fz_module_find(const void *p) { return owner_find(fz_m.modules, fz_m.nmodules, p); }

fz_owner_rec *fz_library_find(const void *p) {
    return owner_find(fz_m.libraries, fz_m.nlibraries, p);
}

/* Whether p is among the first n handles of v, and how many distinct handles v holds: one
 * function per type, as the slot arrays have different element types. */
#define FZ_DEFINE_IN(suffix, type)                                                                 \
    static bool in_##suffix(type *const *v, int n, const void *p) {                                \
        for (int i = 0; i < n; i++) {                                                              \
            if ((const void *)v[i] == p) return true;                                              \
        }                                                                                          \
        return false;                                                                              \
    }
#define FZ_DEFINE_DISTINCT(suffix, type)                                                           \
    static int distinct_##suffix(type *const *v, int n) {                                          \
        int count = 0;                                                                             \
        for (int i = 0; i < n; i++) {                                                              \
            if (v[i] != NULL && !in_##suffix(v, i, v[i])) count++;                                 \
        }                                                                                          \
        return count;                                                                              \
    }
FZ_DEFINE_IN(ctx, cushim_context)
FZ_DEFINE_IN(stream, cushim_stream)
FZ_DEFINE_IN(event, cushim_event)
FZ_DEFINE_IN(module, cushim_module)
FZ_DEFINE_IN(library, cushim_library)
FZ_DEFINE_DISTINCT(stream, cushim_stream)
FZ_DEFINE_DISTINCT(event, cushim_event)

/* Drops module or library records no slot holds, and the function slots they owned. */
static void sweep_owners(fz_owner_rec *recs, int *n, bool (*held)(const void *p)) {
    for (int i = 0; i < *n;) {
        if (held(recs[i].p)) {
            i++;
            continue;
        }
        for (int f = 0; f < FZ_N_FUNC; f++) {
            if (fz_m.fn[f].owner == recs[i].p) memset(&fz_m.fn[f], 0, sizeof fz_m.fn[f]);
        }
        recs[i] = recs[--*n];
    }
}

static bool module_held(const void *p) { return in_module(fz_m.module, FZ_N_MODULE, p); }

static bool library_held(const void *p) { return in_library(fz_m.library, FZ_N_LIBRARY, p); }

static bool ctx_held(const cushim_context *c) {
    if (in_ctx(fz_m.ctx, FZ_N_CTX, c)) return true;
    for (int i = 0; i < FZ_N_STREAM; i++) {
        if (fz_m.stream[i] != NULL && fz_m.stream_ctx[i] == c) return true;
    }
    for (int i = 0; i < FZ_N_EVENT; i++) {
        if (fz_m.event[i] != NULL && fz_m.event_ctx[i] == c) return true;
    }
    for (int i = 0; i < fz_m.nmodules; i++) {
        if (fz_m.modules[i].ctx == c) return true;
    }
    for (int i = 0; i < fz_m.nlibraries; i++) {
        for (int f = 0; f < fz_m.libraries[i].nfns; f++) {
            if (fz_m.libraries[i].fns[f].ctx == c) return true;
        }
    }
    return false;
}

int fz_model_sweep(bool faulted, fz_ctx_rec *died) {
    sweep_owners(fz_m.modules, &fz_m.nmodules, module_held);
    sweep_owners(fz_m.libraries, &fz_m.nlibraries, library_held);
    int n = 0;
    for (int i = 0; i < fz_m.nctxs;) {
        if (ctx_held(fz_m.ctxs[i].p)) {
            i++;
            continue;
        }
        fz_ctx_rec rec = fz_m.ctxs[i];
        died[n++] = rec;
        /* A primary context's handle outlives its last release (the driver revives it on the
         * next retain); a created context's does not, unless the driver refused the destroy. */
        if (!rec.primary && !faulted && fz_m.ndead < FZ_MAX_DEAD) fz_m.dead[fz_m.ndead++] = rec.raw;
        fz_m.ctxs[i] = fz_m.ctxs[--fz_m.nctxs];
    }
    return n;
}

static void expect_live(cushim_mock_kind kind, const char *what, int expected) {
    int live = fz_mock.live(kind);
    if (live != expected) {
        fz_fail("the driver holds %d %s, the harness %d (a leak, or an object destroyed while "
                "still referenced)",
                live, what, expected);
    }
}

/* What the caches of the live contexts keep, each within its bounds. */
static void cached(int *streams, int *events) {
    *streams = *events = 0;
    for (int i = 0; i < fz_m.nctxs; i++) {
        cushim_recycling info;
        CUresult r = cushim_context_recycling(&info, fz_m.ctxs[i].p);
        if (r != CUDA_SUCCESS) {
            fz_fail("cushim_context_recycling on a live context: %s", cushim_error_name(r));
        }
        if (info.streams_held > info.streams_max || info.events_held > 4 * info.events_max ||
            (!info.streams && info.streams_held) || (!info.events && info.events_held)) {
            fz_fail("context %p keeps %u streams and %u events (recycling %s/%s)",
                    (void *)fz_m.ctxs[i].p, info.streams_held, info.events_held,
                    info.streams ? "on" : "off", info.events ? "on" : "off");
        }
        *streams += (int)info.streams_held;
        *events += (int)info.events_held;
    }
}

void fz_model_check_counts(void) {
    int streams = 0, events = 0;
    cached(&streams, &events);
    expect_live(CUSHIM_MOCK_STREAM, "streams", distinct_stream(fz_m.stream, FZ_N_STREAM) + streams);
    expect_live(CUSHIM_MOCK_EVENT, "events", distinct_event(fz_m.event, FZ_N_EVENT) + events);
    expect_live(CUSHIM_MOCK_MODULE, "modules", fz_m.nmodules);
    expect_live(CUSHIM_MOCK_LIBRARY, "libraries", fz_m.nlibraries);
    expect_live(CUSHIM_MOCK_MEMORY, "allocations", 0);
    /* The driver counts each created context, and each primary context while retained; cushim
     * retains a primary once per cushim_context_primary. */
    int created = 0, primaries[FZ_DEVICES] = {0};
    for (int i = 0; i < fz_m.nctxs; i++) {
        if (!fz_m.ctxs[i].primary) {
            created++;
        } else if (fz_m.ctxs[i].ordinal >= 0 && fz_m.ctxs[i].ordinal < FZ_DEVICES) {
            primaries[fz_m.ctxs[i].ordinal]++;
        } else {
            fz_fail("a primary context of device %d, which does not exist", fz_m.ctxs[i].ordinal);
        }
    }
    int active = 0;
    for (int d = 0; d < FZ_DEVICES; d++) {
        if (fz_mock.primary_refcount(d) != primaries[d]) {
            fz_fail("device %d's primary context is retained %d times; %d cushim contexts hold "
                    "it",
                    d, fz_mock.primary_refcount(d), primaries[d]);
        }
        active += primaries[d] > 0;
    }
    expect_live(CUSHIM_MOCK_CONTEXT, "contexts", created + active);
}

static void check_context(const fz_ctx_rec *c) {
    if (c->raw == NULL || cushim_context_raw(c->p) != c->raw) {
        fz_fail("context %p: cushim_context_raw says %p, it was %p", (void *)c->p,
                (void *)cushim_context_raw(c->p), (void *)c->raw);
    }
    if (cushim_context_device(c->p) != c->ordinal) {
        fz_fail("context %p: cushim_context_device says %d, it was made on %d", (void *)c->p,
                (int)cushim_context_device(c->p), c->ordinal);
    }
    if (fz_mock.is_primary(c->raw) != c->primary) {
        fz_fail("context %p: the driver's context %p is%s a primary context", (void *)c->p,
                (void *)c->raw, c->primary ? " not" : "");
    }
}

/* A create's new object must be held by no slot already: otherwise cushim handed one object,
 * from its cache or the allocator, to two owners. */
void fz_model_check_new(const void *p) {
    if (in_stream(fz_m.stream, FZ_N_STREAM, p) || in_event(fz_m.event, FZ_N_EVENT, p)) {
        fz_fail("a new object %p is already held by a slot: handed out twice", p);
    }
}

/* Only the odd slots are checked against the driver through their raw handles: asking for a
 * stream's handle keeps it from being recycled, and an event's makes cushim ask the driver about
 * it, so the even slots are left alone for the caches and the no-record answers to be fuzzed. */
#define FZ_RAW_CHECKED(slot) (((slot)&1) != 0)

void fz_model_check(void) {
    for (int i = 0; i < fz_m.nctxs; i++) check_context(&fz_m.ctxs[i]);
    for (int i = 0; i < FZ_N_STREAM; i++) {
        cushim_stream *s = fz_m.stream[i];
        if (s == NULL) continue;
        if (!FZ_RAW_CHECKED(i)) {
            if (cushim_stream_context(s) != fz_m.stream_ctx[i]) {
                fz_fail("stream %p: its context is %p, made in %p", (void *)s,
                        (void *)cushim_stream_context(s), (void *)fz_m.stream_ctx[i]);
            }
            continue;
        }
        CUstream raw = cushim_stream_raw(s);
        if (cushim_stream_context(s) != fz_m.stream_ctx[i] || raw == NULL ||
            fz_mock.stream_context(raw) != cushim_context_raw(fz_m.stream_ctx[i])) {
            fz_fail("stream %p: its context is %p (made in %p), the driver's stream %p is in %p",
                    (void *)s, (void *)cushim_stream_context(s), (void *)fz_m.stream_ctx[i],
                    (void *)raw, (void *)fz_mock.stream_context(raw));
        }
    }
    for (int i = 0; i < FZ_N_EVENT; i++) {
        cushim_event *e = fz_m.event[i];
        if (e == NULL) continue;
        if (!FZ_RAW_CHECKED(i)) {
            if (cushim_event_context(e) != fz_m.event_ctx[i]) {
                fz_fail("event %p: its context is %p, made in %p", (void *)e,
                        (void *)cushim_event_context(e), (void *)fz_m.event_ctx[i]);
            }
            continue;
        }
        CUevent raw = cushim_event_raw(e);
        if (cushim_event_context(e) != fz_m.event_ctx[i] || raw == NULL ||
            fz_mock.event_context(raw) != cushim_context_raw(fz_m.event_ctx[i])) {
            fz_fail("event %p: its context is %p (made in %p), the driver's event %p is in %p",
                    (void *)e, (void *)cushim_event_context(e), (void *)fz_m.event_ctx[i],
                    (void *)raw, (void *)fz_mock.event_context(raw));
        }
    }
    for (int i = 0; i < FZ_N_FUNC; i++) {
        if (fz_m.fn[i].f != NULL && cushim_function_raw(fz_m.fn[i].f) == NULL) {
            fz_fail("function %p ('%s') has no driver handle", (void *)fz_m.fn[i].f,
                    fz_m.fn[i].name);
        }
    }
    CUcontext current = fz_mock.current();
    for (int i = 0; current != NULL && i < fz_m.ndead; i++) {
        if (fz_m.dead[i] == current) {
            fz_fail("the thread's current context %p is a context destroyed earlier in this "
                    "input",
                    (void *)current);
        }
    }
    if (!fz_m.counts_unknown) fz_model_check_counts();
}
