/* Internal: the tracer's fast path. While the tracer's hook is the only one installed, the
 * generated wrapper of an entry whose arguments are all words (a stream query, a launch: no
 * output, string or struct) skips the hook registry: it reads the clock's ticks around the call
 * and copies the arguments, word by word as its generator wrote them, into a record of the
 * thread's ring, and formats nothing (gen/gen-trace.py). The writer turns the ticks into
 * nanoseconds, and leaves out the record of a call that outlived its run of the tracer. */
#ifndef CUSHIM_TRACE_FAST_H
#define CUSHIM_TRACE_FAST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/hints.h"
#include "trace/clock.h"
#include "trace/kernels.h"
#include "trace/record.h"
#include "trace/tbuf.h"

/* The cells one record may take: a record never runs past the ring's end. */
#define CUSHIM__FAST_MAX_CELLS (CUSHIM__REC_SIZE / CUSHIM__REC_CELL)
/* What a thread's records take before it wakes an idle writer: a power of two. */
#define CUSHIM__FAST_WAKE_CELLS 256

/* The word the wrappers read (hooks.h: cushim__hook_bypass) while the fast path is on: the
 * run of the tracer above the low byte, what to make (CUSHIM__REC_LINE, _SPAN) in it. */
#define CUSHIM__FAST_WORD(run, make) ((unsigned long long)(run) << 8 | (make))

static inline cushim__rec *cushim__fast_cell(cushim__tbuf *b, size_t i) {
    return (cushim__rec *)(void *)(b->ring + (i & (CUSHIM__RING - 1)) * CUSHIM__REC_CELL);
}

/* writer.c: a reservation that must wait for room or skip the ring's last cells; the writer
 * woken when the ring's head crossed a boundary that asks for it. */
cushim__rec *cushim__ring_reserve_slow(cushim__tbuf *b, size_t h);
void cushim__ring_crossed(size_t old, size_t h);

/* A record of b's ring to fill (b the calling thread's); NULL when it stayed full a second. */
static inline cushim__rec *cushim__fast_reserve(cushim__tbuf *b) {
    size_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
    if (CUSHIM__LIKELY((h & (CUSHIM__RING - 1)) <= CUSHIM__RING - CUSHIM__FAST_MAX_CELLS &&
                       h + CUSHIM__FAST_MAX_CELLS - b->tail_seen <= CUSHIM__RING)) {
        b->at = h;
        return cushim__fast_cell(b, h);
    }
    return cushim__ring_reserve_slow(b, h);
}

/* After the call: the record of entry `index`, its header filled, its argc words left to the
 * wrapper; NULL when there is none (no memory for the thread's ring, or the ring full). */
static inline cushim__rec *cushim__fast_begin(unsigned long long word, unsigned index,
                                              int per_thread, CUresult result,
                                              unsigned long long start, unsigned argc,
                                              cushim__tbuf **bp) {
    unsigned long long end = cushim__clock_ticks();
    cushim__tbuf *b = cushim__tbuf_tls;
    if (CUSHIM__UNLIKELY(b == NULL) && (b = cushim__tbuf_mine()) == NULL) return NULL;
    cushim__rec *r = cushim__fast_reserve(b);
    if (CUSHIM__UNLIKELY(r == NULL)) return NULL;
    r->kind = CUSHIM__REC_CALL;
    r->make = (unsigned char)word;
    r->per_thread = (unsigned char)per_thread;
    r->has_stream = 0;
    r->argc = (unsigned char)argc;
    r->failed = result != CUDA_SUCCESS;
    r->cut = 0;
    r->dense = 1;
    r->index = (unsigned short)index;
    r->result = result;
    r->run = (unsigned)(word >> 8);
    r->start_ns = start;
    r->end_ns = end;
    r->kernel = NULL;
    r->stream = 0;
    *bp = b;
    return r;
}

/* An argument as a dense record holds it: its bytes at the start of a zeroed word. */
#define CUSHIM__FAST_ARG(x) cushim__fast_arg(&(x), sizeof(x))
static inline unsigned long long cushim__fast_arg(const void *p, size_t n) {
    unsigned long long w = 0;
    memcpy(&w, p, n);
    return w;
}

/* The record r of b, `cells` cells long, is filled: the writer may format it. */
static inline void cushim__fast_commit(cushim__tbuf *b, cushim__rec *r, unsigned cells) {
    r->cells = (unsigned short)cells;
    size_t old = atomic_load_explicit(&b->head, memory_order_relaxed);
    size_t h = b->at + cells;
    atomic_store_explicit(&b->head, h, memory_order_release);
    if (CUSHIM__UNLIKELY(((old ^ h) & ~(size_t)(CUSHIM__FAST_WAKE_CELLS - 1)) != 0)) {
        cushim__ring_crossed(old, h);
    }
}

/* The cells of a dense record of n arguments. */
#define CUSHIM__FAST_CELLS(n) ((unsigned)((CUSHIM__REC_HEAD + 8 * (n) + 63) / 64))

#endif
