/* Internal: what a call becomes, a line or a timeline event, and the mock's kernel spans. */
#ifndef CUSHIM_TRACE_EVENTS_H
#define CUSHIM_TRACE_EVENTS_H

#include <stdbool.h>

#include "cushim.h"
#include "trace/format.h"
#include "trace/kernels.h"
#include "trace/rt_entry.h"
#include "trace/tbuf.h"

/* A new timeline from zero (CLOCK_MONOTONIC ns): no stream seen yet. Only while no hook of the
 * tracer runs. */
void cushim__events_reset(unsigned long long zero);

/* Each of these formats into b, the buffer of the thread that made the call, under b's fmt
 * lock, with room for one line or event (cushim__tbuf_room). */

/* The call's line, with k its kernel (NULL: none): to stderr at once, or into b. */
void cushim__event_line(cushim__tbuf *b, const cushim_hook_call *c, const cushim__kernel *k,
                        bool to_stderr);
/* The call's timeline event, and its step in its stream's flow when it has a stream s. */
void cushim__event_timeline(cushim__tbuf *b, const cushim_hook_call *c, const cushim__kernel *k,
                            bool has_stream, CUstream s);
/* A kernel's execution on the mock, on its stream's track. */
void cushim__event_kernel(cushim__tbuf *b, const cushim__kernel *k, const unsigned grid[3],
                          const unsigned block[3], CUstream stream, unsigned long long start_ns,
                          unsigned long long end_ns, unsigned long long thread_instructions);

/* A runtime call, as the runtime told it (rtcalls.c). */
typedef struct cushim__rt_event {
    const cushim__trace_rt_entry *entry;
    void *const *args;
    bool failed;
    const char *result;
    const cushim__kernel *kernel; /* NULL when none is named */
    unsigned long long start_ns, end_ns;
} cushim__rt_event;

/* A runtime call begins (the driver lines of this thread wait, in its buffer) or ends (they are
 * written, after its own line if that went first). */
void cushim__event_nest(cushim__tbuf *b, bool begin, bool to_stderr);
/* The calling thread's runtime call ended after the tracer stopped: the driver lines it held
 * are dropped, nothing is written (takes the thread's fmt lock). */
void cushim__event_nest_drop(void);
/* The runtime call's line; its timeline span (cat "runtime"). */
void cushim__event_rt_line(cushim__tbuf *b, const cushim__rt_event *e, bool to_stderr);
void cushim__event_rt_span(cushim__tbuf *b, const cushim__rt_event *e);

#endif
