/* What the classic launch (launch.c) and the launch with attributes (launch_ex.c) both check
 * before the driver, and the driver questions those checks ask: cooperative co-residency and
 * the cluster limits, each answer kept per launch shape in the function's caches. The
 * occupancy queries (occupancy.c) ask the driver through the same functions. Like every
 * occupancy question, these are asked with the function's context current. */
#include <string.h>

#include "api/context_rule.h"
#include "api/launch_checks.h"
#include "loader/loader.h"

CUSHIM__COLD CUresult cushim__launched_not_restored(CUresult l, const cushim_function *f,
                                                    const char *fn) {
    return cushim__fail(l,
                        "%s: kernel '%s' was launched, but restoring the previous current "
                        "context failed with %s, so it is still current",
                        fn, f->name, cushim_error_name(l));
}

CUresult cushim__active_blocks(const cushim_function *f, unsigned threads, size_t smem, int *blocks,
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

CUSHIM__COLD CUresult cushim__no_cooperative(const cushim_function *f, const char *fn) {
    return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                        "%s: device %d does not support cooperative launch "
                        "(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)",
                        fn, f->ctx->ordinal);
}

CUresult cushim__cooperative_blocks(const cushim_function *f, unsigned threads, unsigned smem,
                                    int *per_sm, const char *fn) {
    if (CUSHIM__UNLIKELY(!f->limits->cooperative)) return cushim__no_cooperative(f, fn);
    if (cushim__coop_cache_get(f, threads, smem, per_sm)) return CUDA_SUCCESS;
    return cushim__active_blocks(f, threads, smem, per_sm, fn);
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

CUresult cushim__cluster_supported(const cushim_function *f, const char *fn) {
    const cushim__limits *l = f->limits;
    if (CUSHIM__LIKELY(l->cc_major >= 9 && l->cluster_launch)) return CUDA_SUCCESS;
    if (l->cc_major < 9) {
        return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                            "%s: device %d has compute capability %d.x; thread-block clusters "
                            "need 9.0 or later (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)",
                            fn, f->ctx->ordinal, l->cc_major);
    }
    return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                        "%s: device %d does not support cluster launch "
                        "(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)",
                        fn, f->ctx->ordinal);
}

/* The driver's launch configuration for a query: cfg's shape, no stream (the function's
 * context is current), and the cluster attribute when cluster is not NULL. */
static void query_config(CUlaunchConfig *lc, CUlaunchAttribute *attr, const cushim_launch_config *c,
                         const cushim_dim3 *cluster) {
    *lc = cushim__ex_config(c);
    if (cluster != NULL) {
        memset(attr, 0, sizeof *attr);
        attr->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr->value.clusterDim.x = cluster->x;
        attr->value.clusterDim.y = cluster->y;
        attr->value.clusterDim.z = cluster->z;
        lc->attrs = attr;
        lc->numAttrs = 1;
    }
}

CUresult cushim__cluster_query(const cushim_function *f, const cushim_launch_config *c,
                               bool clusters, int *answer, const char *fn) {
    CUlaunchConfig lc;
    CUlaunchAttribute attr;
    query_config(&lc, &attr, c, clusters ? &c->cluster : NULL);
    cushim__guard g;
    CUresult r = cushim__enter(f->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    int n = 0;
    r = clusters ? cushim__table.cuOccupancyMaxActiveClusters(&n, f->fn, &lc)
                 : cushim__table.cuOccupancyMaxPotentialClusterSize(&n, f->fn, &lc);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(
            r,
            "%s: %s of kernel '%s' with block (%u, %u, %u) and %u bytes of "
            "dynamic shared memory failed with %s",
            fn, clusters ? "cuOccupancyMaxActiveClusters" : "cuOccupancyMaxPotentialClusterSize",
            f->name, c->block.x, c->block.y, c->block.z, c->shared_mem_bytes, cushim_error_name(r));
    }
    if (l != CUDA_SUCCESS) return l;
    *answer = n < 0 ? 0 : n;
    return CUDA_SUCCESS;
}

CUresult cushim__cluster_max_size(const cushim_function *f, cushim_dim3 block, unsigned smem,
                                  bool fresh, int *size, const char *fn) {
    unsigned threads = block.x * block.y * block.z;
    if (!fresh && cushim__shape_cache_get(&f->cluster_cache, threads, smem, size)) {
        return CUDA_SUCCESS;
    }
    /* The grid does not change the answer; one block is a valid grid for every kernel. */
    cushim_launch_config c = {.grid = {1, 1, 1}, .block = block, .shared_mem_bytes = smem};
    CUresult r = cushim__cluster_query(f, &c, false, size, fn);
    if (r == CUDA_SUCCESS) {
        cushim__shape_cache_put(&((cushim_function *)f)->cluster_cache, threads, smem, *size);
    }
    return r;
}
