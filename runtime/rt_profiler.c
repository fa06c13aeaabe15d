/* The profiler's start and stop (cuda_profiler_api.h). They bracket what an attached profiler
 * records; with none attached NVIDIA's runtime answers success and does nothing, and so does
 * this one, once the device's context exists (without a driver, the driver's reason). cushim's
 * own tracer (CUSHIM_TRACE) is not switched by them. */
#include <cuda_profiler_api.h>

#include "runtime/rt.h"

cudaError_t cudaProfilerStart(void) {
    cushim_context *ctx;
    return cushim__rt_context(&ctx, __func__);
}

cudaError_t cudaProfilerStop(void) {
    cushim_context *ctx;
    return cushim__rt_context(&ctx, __func__);
}
