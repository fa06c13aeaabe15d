/* Internal: recycling (issue 15). A released event or stream may be kept by its context and
 * handed out again by a later create with the same flags (and priority), instead of a destroy
 * and a create in the driver; and the destroys that need no context switch. */
#ifndef CUSHIM_API_RECYCLE_H
#define CUSHIM_API_RECYCLE_H

#include "api/object.h"
#include "loader/fork.h"

/* The bounds, per context. An event cache holds up to 64 events per flags value (256 in all):
 * enough for the patterns that create events per iteration (a timing pair per step, an event per
 * stream per step across a few dozen streams), while a program that once made thousands does
 * not keep them all; a driver event is small. Streams hold more in the driver (a queue each, and
 * a share of the device's hardware connections), and programs make them per task, rarely more
 * than a few dozen at once: 16 in all, whatever their flags and priorities. */
#define CUSHIM__EVENT_CACHE_MAX 64u
#define CUSHIM__STREAM_CACHE_MAX 16u

/* Whether e may have a record, as far as cushim knows (see the field's comment in object.h).
 * Every cushim function that has the driver record an event marks it after a successful call. */
static inline bool cushim__event_maybe_recorded(const cushim_event *e) {
    /* In a child forked after init the driver refuses everything, and so must these answers:
     * the flag is read first, so the common case pays nothing for that. */
    return atomic_load_explicit(&e->recorded, memory_order_relaxed) || cushim__forked;
}
static inline void cushim__event_mark_recorded(cushim_event *e) {
    atomic_store_explicit(&e->recorded, true, memory_order_relaxed);
}

/* Sets up ctx's caches, with the switches CUSHIM_RECYCLE gives (read once per process). */
void cushim__recycler_init(cushim_context *ctx);
/* Destroys what ctx's caches hold, and their lock: the last release of ctx, before the driver's
 * context goes. */
void cushim__recycler_fini(cushim_context *ctx, const char *fn);

/* Moves a kept event of ctx with exactly these flags into `into` (a block the create allocated)
 * and makes it live there (one reference, no record): true; false when there is none. The
 * caller retains ctx for it. */
bool cushim__recycled_event(cushim_context *ctx, unsigned flags, cushim_event *into);
/* The same for a stream with these flags and priority. */
bool cushim__recycled_stream(cushim_context *ctx, unsigned flags, int priority,
                             cushim_stream *into);

/* Offers an event (or stream) whose last reference is gone to its context's cache: true when it
 * was kept, false when the caller must destroy it. The caller still releases the context. */
bool cushim__keep_event(cushim_event *e);
bool cushim__keep_stream(cushim_stream *s);

/* The destroys: no context switch (on the H200 with driver 580 cuEventDestroy and
 * cuStreamDestroy succeed with no context or another one current; ARCHITECTURE.md, "Objects"). A
 * refusal is logged at warn, naming fn; the memory is freed either way. The driver's code. */
CUresult cushim__event_destroy(cushim_event *e, const char *fn);
CUresult cushim__stream_destroy(cushim_stream *s, const char *fn);

#endif
