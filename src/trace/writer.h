/* Internal: the trace writer. A traced call appends a record to its thread's ring (no lock, no
 * formatting); a background thread formats the records into lines and events and writes them.
 * Lines to stderr are formatted by the calling thread at once instead, so that they interleave
 * with the program's own output. */
#ifndef CUSHIM_TRACE_WRITER_H
#define CUSHIM_TRACE_WRITER_H

#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>

#include "trace/events.h"
#include "trace/record.h"
#include "common/hints.h"
#include "trace/tbuf.h"

/* A record to fill in b's ring (b the calling thread's); NULL when the ring stayed full for a
 * second (the record is then counted as dropped, and the trace says how many were). */
cushim__rec *cushim__ring_reserve(cushim__tbuf *b);
/* The record r (the one reserved last) is filled, and takes `bytes` of the ring: the writer may
 * format it. Then, where lines go to stderr, the thread formats its ring itself. */
void cushim__ring_commit(cushim__tbuf *b, cushim__rec *r, size_t bytes);

/* The run of the tracer whose fast-path records are formatted (fast.h); 0: none is. Set while
 * no record is formatted. */
extern _Atomic unsigned cushim__writer_run;

/* The cells one record may take: a record never runs past the ring's end. */
#define CUSHIM__RING_MAX_CELLS (CUSHIM__REC_SIZE / CUSHIM__REC_CELL)
/* What a thread's records take before it wakes an idle writer: a power of two. */
#define CUSHIM__RING_WAKE_CELLS 256

static inline cushim__rec *cushim__ring_cell(cushim__tbuf *b, size_t i) {
    return (cushim__rec *)(void *)(b->ring + (i & (CUSHIM__RING - 1)) * CUSHIM__REC_CELL);
}

/* writer.c: a reservation that must wait for room or skip the ring's last cells; the writer
 * woken when the ring's head crossed a boundary that asks for it. */
cushim__rec *cushim__ring_reserve_slow(cushim__tbuf *b, size_t h);
void cushim__ring_crossed(size_t old, size_t h);

/* A record of b's ring to fill (b the calling thread's); NULL when it stayed full a second. */
static inline cushim__rec *cushim__ring_reserve_fast(cushim__tbuf *b) {
    size_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
    if (CUSHIM__LIKELY((h & (CUSHIM__RING - 1)) <= CUSHIM__RING - CUSHIM__RING_MAX_CELLS &&
                       h + CUSHIM__RING_MAX_CELLS - b->tail_seen <= CUSHIM__RING)) {
        b->at = h;
        return cushim__ring_cell(b, h);
    }
    return cushim__ring_reserve_slow(b, h);
}

/* The record r of b, `cells` cells long, is filled: the writer may format it (where no
 * formatting on the calling thread is asked for: cushim__ring_commit otherwise). */
static inline void cushim__ring_commit_fast(cushim__tbuf *b, cushim__rec *r, unsigned cells) {
    r->cells = (unsigned short)cells;
    size_t old = atomic_load_explicit(&b->head, memory_order_relaxed);
    size_t h = b->at + cells;
    atomic_store_explicit(&b->head, h, memory_order_release);
    if (CUSHIM__UNLIKELY(((old ^ h) & ~(size_t)(CUSHIM__RING_WAKE_CELLS - 1)) != 0)) {
        cushim__ring_crossed(old, h);
    }
}

/* What the records become while the tracer runs: lines (calls), to stderr (formatted by the
 * thread that made them) or to the file, and timeline events; a background thread formats what
 * goes to the file. Only while no record is made. */
void cushim__writer_config(bool calls, bool calls_to_stderr, bool timeline);
/* Starts the background thread, if configured and not running (false: it could not be made;
 * the records are then formatted at the stop, or when a ring is full). */
bool cushim__writer_start(void);
/* Stops the background thread and formats every thread's records; only once no more records
 * are made. Returns how many records were dropped since the configuration. */
unsigned long cushim__writer_drain(void);

#endif
