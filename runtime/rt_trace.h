/* Internal: what the generated exported functions of the runtime (cudart_trace.c, from
 * gen/gen-cudart-trace.py) call while the tracer runs: the end of a traced call, with its
 * result's name and its kernel's. */
#ifndef CUSHIM_RUNTIME_RT_TRACE_H
#define CUSHIM_RUNTIME_RT_TRACE_H

#include <cuda_runtime_api.h>

#include "trace/rtcalls.h"

/* The registered name (mangled) of the kernel that a host function or a cudaKernel_t names,
 * or NULL. */
const char *cushim__rt_kernel_name(const void *fn_or_kernel);

/* Tells the tracer that the call of f ended with r. */
void cushim__rt_trace_end(cushim__trace_rt_frame *f, cudaError_t r, const char *kernel);

#endif
