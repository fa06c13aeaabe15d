/* Internal: what each traced event puts in a record of the calling thread's ring (capture.c;
 * the ring and its writer are writer.c's). */
#ifndef CUSHIM_TRACE_CAPTURE_H
#define CUSHIM_TRACE_CAPTURE_H

#include "cushim.h"
#include "trace/events.h"
#include "trace/kernels.h"

/* Finds, once, which entries' records are a word per argument. */
void cushim__capture_prepare(void);

/* What a traced call, a runtime call, its beginning and a kernel on the mock append;
 * make: CUSHIM__REC_LINE, _SPAN, _NEST_END. The calling thread's ring; nothing when it is full. */
void cushim__writer_call(const cushim_hook_call *c, const cushim__kernel *k, unsigned make);
void cushim__writer_rt(const cushim__rt_event *ev, unsigned make);
void cushim__writer_nest_begin(void);
void cushim__writer_kernel(const cushim__kernel *k, const unsigned grid[3], const unsigned block[3],
                           CUstream stream, unsigned long long start_ns, unsigned long long end_ns,
                           unsigned long long thread_instructions);

#endif
