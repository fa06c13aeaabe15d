/* Thread-block clusters: whether a device has them, the largest cluster a kernel may launch
 * with (asked of the driver once per launch shape and kept, like the cooperative answer), and
 * the two cluster occupancy queries. Like the other occupancy queries, the driver answers only
 * with a context current, so each runs in the function's context by the context rule. */
#include <string.h>

#include "api/context_rule.h"
#include "api/function.h"
#include "api/launch_ex.h"
#include "loader/loader.h"

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

/* One of the two driver queries, with f's context current. */
static CUresult ask(const cushim_function *f, const cushim_launch_config *c, bool clusters,
                    int *answer, const char *fn) {
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
    CUresult r = ask(f, &c, false, size, fn);
    if (r == CUDA_SUCCESS) {
        cushim__shape_cache_put(&((cushim_function *)f)->cluster_cache, threads, smem, *size);
    }
    return r;
}

/* The checks both queries share: an output, a function, a config, a device with clusters. */
static CUresult check_query(int *out, const char *out_name, const cushim_function *f,
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
    CUresult r = check_query(clusters, "clusters", f, cfg, __func__);
    if (r != CUDA_SUCCESS) return r;
    const cushim_dim3 k = cfg->cluster;
    if (k.x == 0 || k.y == 0 || k.z == 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: cfg->cluster is (%u, %u, %u); the query needs a cluster with "
                            "no zero dimension",
                            __func__, k.x, k.y, k.z);
    }
    return ask(f, cfg, true, clusters, __func__);
}

CUSHIM_API CUresult cushim_occupancy_max_potential_cluster_size(int *cluster_size,
                                                                const cushim_function *f,
                                                                const cushim_launch_config *cfg) {
    CUresult r = check_query(cluster_size, "cluster_size", f, cfg, __func__);
    if (r != CUDA_SUCCESS) return r;
    return ask(f, cfg, false, cluster_size, __func__);
}
