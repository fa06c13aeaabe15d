/* Internal: calls of cushim's CUDA runtime in the trace. The runtime (runtime/) sits above the
 * tracer: its exported functions are generated wrappers (gen/gen-cudart-trace.py) that read
 * cushim__trace_runtime and, while the tracer runs, tell it each call here. A runtime call is a
 * line (its driver calls, made while it ran, follow it, indented), a timeline span (cat
 * "runtime", around its driver calls' spans) and a row of the summary's table of runtime calls. */
#ifndef CUSHIM_TRACE_RTCALLS_H
#define CUSHIM_TRACE_RTCALLS_H

#include <stdbool.h>

#include "trace/rt_entry.h"

/* Before the call (the wrapper's slow path): false when the call is not traced after all (the
 * tracer is off, CUSHIM_TRACE now read). Starts the tracer that CUSHIM_TRACE asks for when it
 * was not known yet. */
bool cushim__trace_rt_begin(cushim__trace_rt_frame *f, cushim__trace_rt_entry *e,
                            void *const *args);
/* After it: the result's name (failed: it is not success) and the name of the kernel that the
 * entry's function argument names (NULL: none known). */
void cushim__trace_rt_end(cushim__trace_rt_frame *f, bool failed, const char *result,
                          const char *kernel);

#endif
