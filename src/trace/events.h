/* Internal: what a call becomes, a line or a timeline event, and the mock's kernel spans. */
#ifndef CUSHIM_TRACE_EVENTS_H
#define CUSHIM_TRACE_EVENTS_H

#include <stdbool.h>

#include "cushim.h"
#include "trace/format.h"
#include "trace/kernels.h"

/* A new timeline from zero (CLOCK_MONOTONIC ns): no stream seen yet. Only while no hook of the
 * tracer runs. */
void cushim__events_reset(unsigned long long zero);

/* The call's line, with k its kernel (NULL: none): to stderr at once, or into the thread's
 * buffer. */
void cushim__event_line(const cushim_hook_call *c, const cushim__kernel *k, bool to_stderr);
/* The call's timeline event, and its step in its stream's flow, into the thread's buffer. */
void cushim__event_timeline(const cushim_hook_call *c, const cushim__kernel *k);
/* A kernel's execution on the mock, on its stream's track, into the thread's buffer. */
void cushim__event_kernel(const cushim__kernel *k, const unsigned grid[3], const unsigned block[3],
                          CUstream stream, unsigned long long start_ns, unsigned long long end_ns,
                          unsigned long long thread_instructions);

#endif
