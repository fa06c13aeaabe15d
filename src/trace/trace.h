/* Internal: what the tracer (trace.c) offers the rest of its layer. */
#ifndef CUSHIM_TRACE_TRACE_H
#define CUSHIM_TRACE_TRACE_H

#include <stdbool.h>

/* Starts the tracer that CUSHIM_TRACE asks for, once per process; called when the driver's
 * tables are first filled (listen.c), with no lock held. */
void cushim__trace_from_env(void);

/* The driver's tables were filled: a tracer started before has the mock's kernels told to it
 * from now on (when the driver is the mock). */
void cushim__trace_driver_loaded(void);

/* What the running tracer writes: calls (and whether to stderr), a timeline, a summary. Read
 * while a call is traced, set while none is. */
bool cushim__trace_calls(bool *to_stderr);
bool cushim__trace_timeline(void);
bool cushim__trace_summary(void);
/* Before a traced call's event: a forked child's own file opened, a pending warning said. */
void cushim__trace_settle(void);

#endif
