/* Occupancy: the driver's answers, passed through. The driver answers only with a context
 * current, even for a CUfunction that knows its own (CUDA_ERROR_INVALID_CONTEXT otherwise, seen
 * with driver 580 on an H200), so each query is made in the function's context by the context
 * rule. A library kernel is asked about through its CUfunction in the bound context. */
#include <limits.h>

#include "api/context_rule.h"
#include "api/function.h"
#include "loader/loader.h"

/* Active blocks per SM of f for this block size and dynamic shared memory, asked of the driver
 * every time (a query answers what the driver says now), with f's context current, and kept in
 * the cooperative launch's cache. */
static CUresult active_blocks(const cushim_function *f, unsigned threads, size_t smem, int *blocks,
                              const char *fn) {
    cushim__guard g;
    CUresult r = cushim__enter(f->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    int n = 0;
    r = cushim__table.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f->fn, (int)threads, smem);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r,
                            "%s: cuOccupancyMaxActiveBlocksPerMultiprocessor of kernel '%s' for "
                            "%u threads and %zu bytes of dynamic shared memory failed with %s",
                            fn, f->name, threads, smem, cushim_error_name(r));
    }
    if (l != CUDA_SUCCESS) return l;
    if (n < 0) n = 0;
    cushim__coop_cache_put(f, threads, smem, n);
    *blocks = n;
    return CUDA_SUCCESS;
}

/* The refusal of a cooperative launch or grid on a device without cooperative launch. */
static CUresult no_cooperative(const cushim_function *f, const char *fn) {
    return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                        "%s: device %d does not support cooperative launch "
                        "(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)",
                        fn, f->ctx->ordinal);
}

CUresult cushim__cooperative_blocks(const cushim_function *f, unsigned threads, unsigned smem,
                                    int *per_sm, const char *fn) {
    if (CUSHIM__UNLIKELY(!f->limits->cooperative)) return no_cooperative(f, fn);
    if (cushim__coop_cache_get(f, threads, smem, per_sm)) return CUDA_SUCCESS;
    return active_blocks(f, threads, smem, per_sm, fn);
}

static CUSHIM__COLD CUresult refuse_too_large(const cushim_function *f,
                                              const cushim_launch_config *c,
                                              unsigned long long blocks, int per_sm,
                                              const char *fn) {
    return cushim__fail(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                        "%s: cooperative launch of %llu blocks exceeds the %llu that fit at once "
                        "(%d per SM x %d SMs) for kernel '%s' with block (%u, %u, %u) and %u "
                        "bytes of dynamic shared memory",
                        fn, blocks, (unsigned long long)per_sm * (unsigned)f->limits->sm_count,
                        per_sm, f->limits->sm_count, f->name, c->block.x, c->block.y, c->block.z,
                        c->shared_mem_bytes);
}

CUresult cushim__cooperative_fits(const cushim_function *f, const cushim_launch_config *c,
                                  const char *fn) {
    /* The pre-checks bound the thread count by the device's limit. */
    unsigned threads = c->block.x * c->block.y * c->block.z;
    int per_sm = 0;
    CUresult r = cushim__cooperative_blocks(f, threads, c->shared_mem_bytes, &per_sm, fn);
    if (r != CUDA_SUCCESS) return r;
    unsigned long long blocks = (unsigned long long)c->grid.x * c->grid.y * c->grid.z;
    if (CUSHIM__UNLIKELY(blocks > (unsigned long long)per_sm * (unsigned)f->limits->sm_count)) {
        return refuse_too_large(f, c, blocks, per_sm, fn);
    }
    return CUDA_SUCCESS;
}

/* The checks the queries share: an output, a function, a block size. */
static CUresult check_query(const void *out, const char *out_name, const cushim_function *f,
                            int block_size, const char *fn) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, out_name);
    CUresult r = cushim__check(f, CUSHIM__FUNCTION, "f", fn);
    if (r != CUDA_SUCCESS) return r;
    if (block_size <= 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: block_size is %d; a block has at least one thread", fn,
                            block_size);
    }
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_occupancy_max_active_blocks(int *blocks, const cushim_function *f,
                                                       int block_size, size_t dynamic_smem) {
    if (blocks != NULL) *blocks = 0;
    CUresult r = check_query(blocks, "blocks", f, block_size, __func__);
    if (r != CUDA_SUCCESS) return r;
    return active_blocks(f, (unsigned)block_size, dynamic_smem, blocks, __func__);
}

CUSHIM_API CUresult cushim_occupancy_max_cooperative_grid(int *blocks, const cushim_function *f,
                                                          int block_size, size_t dynamic_smem) {
    if (blocks != NULL) *blocks = 0;
    CUresult r = check_query(blocks, "blocks", f, block_size, __func__);
    if (r != CUDA_SUCCESS) return r;
    if (!f->limits->cooperative) return no_cooperative(f, __func__);
    int per_sm = 0;
    r = active_blocks(f, (unsigned)block_size, dynamic_smem, &per_sm, __func__);
    if (r != CUDA_SUCCESS) return r;
    /* The same product the cooperative launch compares against, so that this grid launches. */
    long long grid = (long long)per_sm * f->limits->sm_count;
    *blocks = grid > INT_MAX ? INT_MAX : (int)grid;
    return CUDA_SUCCESS;
}

static CUresult potential_block_size(int *min_grid, int *block_size, const cushim_function *f,
                                     CUoccupancyB2DSize smem_for_block_size, size_t dynamic_smem,
                                     int block_limit, const char *fn) {
    if (min_grid != NULL) *min_grid = 0;
    if (block_size != NULL) *block_size = 0;
    if (min_grid == NULL || block_size == NULL) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn,
                            min_grid == NULL ? "min_grid" : "block_size");
    }
    CUresult r = cushim__check(f, CUSHIM__FUNCTION, "f", fn);
    if (r != CUDA_SUCCESS) return r;
    if (block_limit < 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: block_limit is %d; it is a thread count, or 0 for no limit", fn,
                            block_limit);
    }
    cushim__guard g;
    r = cushim__enter(f->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuOccupancyMaxPotentialBlockSize(
        min_grid, block_size, f->fn, smem_for_block_size, dynamic_smem, block_limit);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS || l != CUDA_SUCCESS) {
        *min_grid = 0;
        *block_size = 0;
    }
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: cuOccupancyMaxPotentialBlockSize of kernel '%s' failed with %s",
                            fn, f->name, cushim_error_name(r));
    }
    return l;
}

CUSHIM_API CUresult cushim_occupancy_max_potential_block_size(int *min_grid, int *block_size,
                                                              const cushim_function *f,
                                                              size_t dynamic_smem,
                                                              int block_limit) {
    return potential_block_size(min_grid, block_size, f, NULL, dynamic_smem, block_limit, __func__);
}

CUSHIM_API CUresult cushim_occupancy_max_potential_block_size_fn(
    int *min_grid, int *block_size, const cushim_function *f,
    CUoccupancyB2DSize smem_for_block_size, int block_limit) {
    if (smem_for_block_size == NULL) {
        if (min_grid != NULL) *min_grid = 0;
        if (block_size != NULL) *block_size = 0;
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: smem_for_block_size is NULL (for a fixed amount use "
                            "cushim_occupancy_max_potential_block_size)",
                            __func__);
    }
    return potential_block_size(min_grid, block_size, f, smem_for_block_size, 0, block_limit,
                                __func__);
}
