/* Internal: the shape of a runtime function that is one driver call in the current device's
 * primary context, for the files of graphs, arrays, textures, peers and the rest that forward to
 * the driver. The refusals a function makes of its own come before it. */
#ifndef CUSHIM_RUNTIME_RT_FORWARD_H
#define CUSHIM_RUNTIME_RT_FORWARD_H

#include "runtime/rt.h"

/* The primary context of the current device made current (the sticky error, no driver and no
 * device refused as everywhere in the runtime). */
static inline cudaError_t cushim__rt_ready(const char *fn) {
    cushim_context *ctx;
    return cushim__rt_context(&ctx, fn);
}

/* cudaSuccess, or the driver's code r of the call named `call`, recorded as fn's failure. */
static inline cudaError_t cushim__rt_checked(CUresult r, const char *fn, const char *call) {
    return CUSHIM__LIKELY(r == CUDA_SUCCESS) ? cudaSuccess : cushim__rt_driver_failed(r, fn, call);
}

/* Returns from the enclosing function: the context made ready, then `call` (an expression of
 * the driver table, evaluated only when the context is ready) checked under the name `name`. */
#define CUSHIM__RT_FORWARD(fn, name, call)                                                         \
    do {                                                                                           \
        cudaError_t ready_ = cushim__rt_ready(fn);                                                 \
        if (ready_ != cudaSuccess) return ready_;                                                  \
        return cushim__rt_checked((call), fn, name);                                               \
    } while (0)

/* The same, then `convert` (a statement that gives the driver's answer to the caller in the
 * runtime's form) once the call succeeded. */
#define CUSHIM__RT_FORWARD_THEN(fn, name, call, convert)                                           \
    do {                                                                                           \
        cudaError_t ready_ = cushim__rt_ready(fn);                                                 \
        if (ready_ != cudaSuccess) return ready_;                                                  \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) return cushim__rt_driver_failed(r_, fn, name);                     \
        convert;                                                                                   \
        return cudaSuccess;                                                                        \
    } while (0)

/* Refuses a NULL argument (an out-pointer, a handle) with cudaErrorInvalidValue and a sentence
 * naming it. */
#define CUSHIM__RT_NONNULL(fn, ptr)                                                                \
    do {                                                                                           \
        if ((ptr) == NULL)                                                                         \
            return cushim__rt_fail(cudaErrorInvalidValue, "%s: %s is NULL", fn, #ptr);             \
    } while (0)

#endif
