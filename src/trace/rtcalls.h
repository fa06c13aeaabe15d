/* Internal: calls of cushim's CUDA runtime in the trace. The runtime (runtime/) sits above the
 * tracer: its exported functions are generated wrappers (gen/gen-cudart-trace.py) that read
 * cushim__trace_runtime and, while the tracer runs, tell it each call here. A runtime call is a
 * line (its driver calls, made while it ran, follow it, indented), a timeline span (cat
 * "runtime", around its driver calls' spans) and a row of the summary's table of runtime calls. */
#ifndef CUSHIM_TRACE_RTCALLS_H
#define CUSHIM_TRACE_RTCALLS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "trace/entry_info.h"

/* 0: the tracer is off; 1: it runs; 2: not known yet (CUSHIM_TRACE not read: the first runtime
 * call reads it, which may come before any driver is loaded). */
extern _Atomic int cushim__trace_runtime;

/* One exported runtime function (or per-thread variant), with its counts for the summary. */
typedef struct cushim__trace_rt_entry {
    const char *name;
    unsigned short name_len;
    const cushim__trace_arg *args;
    unsigned count;
    int function; /* the argument that names a kernel (its name is printed after it), or -1 */
    const cushim__trace_enum *enums; /* what the args' enum_index counts in */
    /* Summary, counted with relaxed atomics; listed on its first count. */
    _Atomic unsigned long long calls, total, min, max, errors;
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

/* Before the call (the wrapper's slow path): false when the call is not traced after all (the
 * tracer is off, CUSHIM_TRACE now read). Starts the tracer that CUSHIM_TRACE asks for when it
 * was not known yet. */
bool cushim__trace_rt_begin(cushim__trace_rt_frame *f, cushim__trace_rt_entry *e,
                            void *const *args);
/* After it: the result's name (failed: it is not success) and the name of the kernel that the
 * entry's function argument names (NULL: none known). */
void cushim__trace_rt_end(cushim__trace_rt_frame *f, bool failed, const char *result,
                          const char *kernel);

/* The summary's table of runtime calls, most total time first, into buf; its length (0 when no
 * runtime call was counted). And forgetting the counts. */
size_t cushim__trace_rt_print(char *buf, size_t cap);
void cushim__trace_rt_reset(void);

#endif
