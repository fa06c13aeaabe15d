/* The traced runtime call's end: its result by name (cudaGetErrorName's) and its kernel's
 * registered name, for the tracer (src/trace/rtcalls.c). */
#include "runtime/rt_trace.h"
#include "runtime/rt.h"

const char *cushim__rt_kernel_name(const void *fn_or_kernel) {
    const cushim__rt_kernel *k = cushim__rt_kernel_of(fn_or_kernel);
    return k != NULL ? k->name : NULL;
}

void cushim__rt_trace_end(cushim__trace_rt_frame *f, cudaError_t r, const char *kernel) {
    cushim__trace_rt_end(f, r != cudaSuccess,
                         r == cudaSuccess ? "cudaSuccess" : cudaGetErrorName(r), kernel);
}
