/* Occupancy, the six queries: the driver's answers, passed through. The driver answers only with a
 * context current, even for a CUfunction that knows its own (CUDA_ERROR_INVALID_CONTEXT otherwise,
 * seen with driver 580 on an H200), so each query is made in the function's context by the context
 * rule. A library kernel is asked about through its CUfunction in the bound context. */
#include <limits.h>

#include "api/context_rule.h"
#include "api/launch_checks.h"
#include "loader/loader.h"

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
    return cushim__active_blocks(f, (unsigned)block_size, dynamic_smem, blocks, __func__);
}

CUSHIM_API CUresult cushim_occupancy_max_cooperative_grid(int *blocks, const cushim_function *f,
                                                          int block_size, size_t dynamic_smem) {
    if (blocks != NULL) *blocks = 0;
    CUresult r = check_query(blocks, "blocks", f, block_size, __func__);
    if (r != CUDA_SUCCESS) return r;
    if (!f->limits->cooperative) return cushim__no_cooperative(f, __func__);
    int per_sm = 0;
    r = cushim__active_blocks(f, (unsigned)block_size, dynamic_smem, &per_sm, __func__);
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

/* The checks both cluster queries share: an output, a function, a config, a device with
 * clusters. */
static CUresult check_cluster_query(int *out, const char *out_name, const cushim_function *f,
                                    const cushim_launch_config *cfg, const char *fn) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, out_name);
    *out = 0;
    CUresult r = cushim__check(f, CUSHIM__FUNCTION, "f", fn);
    if (r != CUDA_SUCCESS) return r;
    if (cfg == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: cfg is NULL", fn);
    return cushim__cluster_supported(f, fn);
}

CUSHIM_API CUresult cushim_occupancy_max_active_clusters(int *clusters, const cushim_function *f,
                                                         const cushim_launch_config *cfg) {
    CUresult r = check_cluster_query(clusters, "clusters", f, cfg, __func__);
    if (r != CUDA_SUCCESS) return r;
    const cushim_dim3 k = cfg->cluster;
    if (k.x == 0 || k.y == 0 || k.z == 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: cfg->cluster is (%u, %u, %u); the query needs a cluster with "
                            "no zero dimension",
                            __func__, k.x, k.y, k.z);
    }
    return cushim__cluster_query(f, cfg, true, clusters, __func__);
}

CUSHIM_API CUresult cushim_occupancy_max_potential_cluster_size(int *cluster_size,
                                                                const cushim_function *f,
                                                                const cushim_launch_config *cfg) {
    CUresult r = check_cluster_query(cluster_size, "cluster_size", f, cfg, __func__);
    if (r != CUDA_SUCCESS) return r;
    return cushim__cluster_query(f, cfg, false, cluster_size, __func__);
}
