/* Internal: a function of cushim's CUDA runtime as the tracer knows it (the runtime's generated
 * wrappers describe each one, gen/gen-cudart-trace.py), and whether the tracer runs. */
#ifndef CUSHIM_TRACE_RT_ENTRY_H
#define CUSHIM_TRACE_RT_ENTRY_H

#include <stdatomic.h>
#include <stdbool.h>

#include "trace/entry_info.h"

/* A summary row's counts, added to with relaxed atomics (summary.c). */
typedef struct cushim__trace_stat {
    _Atomic unsigned long long calls, total, min, max, errors;
} cushim__trace_stat;

/* 0: the tracer is off; 1: it runs; 2: not known yet (CUSHIM_TRACE not read: the first runtime
 * call reads it, which may come before any driver is loaded). */
extern _Atomic int cushim__trace_runtime;

/* Runtime calls inside the tracer's formatting now: the tracer's stop sets cushim__trace_runtime
 * to 0, then waits for this to fall to 0 before it writes the buffers out (rtcalls.c). */
extern atomic_int cushim__trace_rt_busy;

/* One exported runtime function (or per-thread variant), with its counts for the summary. */
typedef struct cushim__trace_rt_entry {
    const char *name;
    unsigned short name_len;
    const cushim__trace_arg *args;
    unsigned count;
    int function; /* the argument that names a kernel (its name is printed after it), or -1 */
    const cushim__trace_enum *enums; /* what the args' enum_index counts in */
    /* Summary, counted with relaxed atomics; listed on its first count. */
    cushim__trace_stat stat;
    atomic_bool listed;
    struct cushim__trace_rt_entry *next;
} cushim__trace_rt_entry;

/* What a wrapper keeps on its stack between the two calls below. */
typedef struct cushim__trace_rt_frame {
    cushim__trace_rt_entry *entry;
    void *const *args;
    unsigned long long start_ns;
    bool outer; /* the thread's outermost runtime call: its driver lines wait for its line */
} cushim__trace_rt_frame;

#endif
