/* Internal: the clock of the tracer's fast path (clock.c). A traced call reads its start and end
 * as ticks, which the trace writer turns into CLOCK_MONOTONIC nanoseconds when it formats the
 * record: the time stamp counter where the kernel says it is invariant (x86-64 with the cpuinfo
 * flags constant_tsc and nonstop_tsc), CLOCK_MONOTONIC itself elsewhere. Reading the counter
 * costs the calling thread about half of what clock_gettime does. */
#ifndef CUSHIM_TRACE_CLOCK_H
#define CUSHIM_TRACE_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

#include "trace/hooks.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
#define CUSHIM__TRACE_HAVE_TSC 1
#endif

/* Whether ticks are the counter's: decided once per process by cushim__clock_start. */
extern atomic_bool cushim__clock_tsc;

static inline unsigned long long cushim__clock_ticks(void) {
#if defined(CUSHIM__TRACE_HAVE_TSC)
    if (__builtin_expect(atomic_load_explicit(&cushim__clock_tsc, memory_order_relaxed), 1))
        return __rdtsc();
#endif
    return cushim__now_ns();
}

/* At the tracer's start, with no formatter running: chooses the clock once (CUSHIM_TRACE_CLOCK=
 * monotonic asks for CLOCK_MONOTONIC) and takes the first of the points that convert ticks. */
void cushim__clock_start(void);

/* A formatter's copy of the line it last converted on, valid for ticks in [lo, hi] while the
 * clock's epoch (a tracer's start) is the same: most records need no lock. */
typedef struct cushim__clock_line {
    unsigned long long lo, hi, tsc, ns;
    double slope;
    unsigned epoch; /* 0: nothing copied */
} cushim__clock_line;

/* The ticks of one record, start and end, as CLOCK_MONOTONIC nanoseconds: on `line` when both
 * are on it, else under the clock's lock (which copies the line used into `line`). Any thread;
 * `line` is the caller's. */
void cushim__clock_to_ns(cushim__clock_line *line, unsigned long long *start,
                         unsigned long long *end);

#endif
