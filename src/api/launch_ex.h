/* Internal: the launch with attributes (cuLaunchKernelEx), which cushim_launch and
 * cushim_launch_cooperative hand a config to when it sets any. */
#ifndef CUSHIM_API_LAUNCH_EX_H
#define CUSHIM_API_LAUNCH_EX_H

#include "api/function.h"

/* Whether c sets any launch attribute. Written so that the compiler tests the three one-bit
 * flags with one instruction (cushim_launch's common path pays for this test). */
static inline bool cushim__has_attributes(const cushim_launch_config *c) {
    return (c->cluster.x | c->cluster.y | c->cluster.z) != 0 || c->has_priority || c->cooperative ||
           c->programmatic_serialization;
}

/* The dimensions and shared memory of c as a CUlaunchConfig, with no stream and no attributes:
 * what the launch and the cluster queries start from. */
static inline CUlaunchConfig cushim__ex_config(const cushim_launch_config *c) {
    return (CUlaunchConfig){
        .gridDimX = c->grid.x,
        .gridDimY = c->grid.y,
        .gridDimZ = c->grid.z,
        .blockDimX = c->block.x,
        .blockDimY = c->block.y,
        .blockDimZ = c->block.z,
        .sharedMemBytes = c->shared_mem_bytes,
    };
}

/* The sentence for a launch that happened after which the caller's current context could not be
 * put back (failed with l): the error stands, but a caller must not take it for a launch that
 * did not happen and launch again. Returns l. */
CUresult cushim__launched_not_restored(CUresult l, const cushim_function *f, const char *fn);

/* Checks c's attributes against the device's and f's limits, then launches through
 * cuLaunchKernelEx on c->stream, or on the default stream of f's context with that context
 * current. c has passed the dimension and stream checks. cooperative: a cooperative launch even
 * when c->cooperative is false (cushim_launch_cooperative). Every refusal and failure sets the
 * last error, naming fn. */
CUresult cushim__launch_ex(const cushim_function *f, const cushim_launch_config *c, void **params,
                           bool cooperative, const char *fn);

#endif
