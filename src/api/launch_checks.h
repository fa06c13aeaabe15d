/* Internal: what the classic launch and the launch with attributes share, below both: the
 * test for attributes, the driver's config from a cushim one, the sentence of a launch whose
 * context could not be put back, and the pre-checks that ask the driver once per launch shape
 * (cooperative co-residency, clusters). The occupancy queries ask the driver through the same
 * functions. */
#ifndef CUSHIM_API_LAUNCH_CHECKS_H
#define CUSHIM_API_LAUNCH_CHECKS_H

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

/* For a cooperative launch of f with this block size and dynamic shared memory: the active
 * blocks per SM, from the cache when it holds them, else asked of the driver and kept in the
 * cache. CUDA_ERROR_NOT_SUPPORTED on a device without cooperative launch. Sets the last error
 * (naming fn) on failure. */
CUresult cushim__cooperative_blocks(const cushim_function *f, unsigned threads, unsigned smem,
                                    int *per_sm, const char *fn);

/* Whether a cooperative launch of c fits at once: CUDA_SUCCESS, or
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (or cushim__cooperative_blocks' refusal) with the last
 * error set, naming fn. c has passed the launch's dimension checks. */
CUresult cushim__cooperative_fits(const cushim_function *f, const cushim_launch_config *c,
                                  const char *fn);

/* Whether f's device has thread-block clusters: CUDA_SUCCESS, or CUDA_ERROR_NOT_SUPPORTED with
 * a sentence naming the compute capability or the attribute (naming fn). */
CUresult cushim__cluster_supported(const cushim_function *f, const char *fn);

/* The most blocks a cluster of f may have with this block size and dynamic shared memory: from
 * the cache (unless fresh), else asked of the driver (cuOccupancyMaxPotentialClusterSize, f's
 * context current) and kept. Sets the last error (naming fn) on failure. */
CUresult cushim__cluster_max_size(const cushim_function *f, cushim_dim3 block, unsigned smem,
                                  bool fresh, int *size, const char *fn);

/* Active blocks per SM of f for this block size and dynamic shared memory, asked of the driver
 * every time (a query answers what the driver says now), with f's context current, and kept in
 * the cooperative launch's cache. Sets the last error (naming fn) on failure. */
CUresult cushim__active_blocks(const cushim_function *f, unsigned threads, size_t smem, int *blocks,
                               const char *fn);

/* The refusal of a cooperative launch or grid on a device without cooperative launch. */
CUresult cushim__no_cooperative(const cushim_function *f, const char *fn);

/* cuOccupancyMaxActiveClusters (clusters) or cuOccupancyMaxPotentialClusterSize of f for c's
 * shape and, for the first, its cluster, with f's context current; a negative answer is 0. Sets
 * the last error (naming fn) on failure. */
CUresult cushim__cluster_query(const cushim_function *f, const cushim_launch_config *c,
                               bool clusters, int *answer, const char *fn);

#endif
