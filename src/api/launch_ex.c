/* The launch with attributes: clusters, priority, cooperative as an attribute, programmatic
 * stream serialization. Each is checked before the driver where a cached limit says enough,
 * then one CUlaunchAttribute per attribute goes to cuLaunchKernelEx. Configs without
 * attributes never come here: they keep the classic entry points (launch.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/context_rule.h"
#include "api/launch_checks.h"
#include "api/launch_ex.h"
#include "loader/loader.h"

/* At most one of each: cluster, priority, cooperative, programmatic serialization. */
#define MAX_ATTRS 4

static CUSHIM__COLD CUresult no_launch_ex(const char *fn) {
    return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                        "%s: this driver has no cuLaunchKernelEx (CUDA 11.8 or later), which "
                        "launch attributes (cluster, priority, cooperative, programmatic "
                        "serialization in the config) need",
                        fn);
}

static CUSHIM__COLD CUresult refuse_cluster_shape(const cushim_launch_config *c, const char *fn) {
    const cushim_dim3 k = c->cluster, g = c->grid;
    if (k.x == 0 || k.y == 0 || k.z == 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: cluster (%u, %u, %u) has a zero dimension; (0, 0, 0) means no "
                            "cluster",
                            fn, k.x, k.y, k.z);
    }
    const unsigned gv[3] = {g.x, g.y, g.z}, kv[3] = {k.x, k.y, k.z};
    int i = gv[0] % kv[0] ? 0 : gv[1] % kv[1] ? 1 : 2;
    return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                        "%s: grid (%u, %u, %u) is not a multiple of cluster (%u, %u, %u): %u "
                        "blocks in %c is not a multiple of %u (grid counts blocks, and each "
                        "dimension must hold whole clusters)",
                        fn, g.x, g.y, g.z, k.x, k.y, k.z, gv[i], "XYZ"[i], kv[i]);
}

static CUSHIM__COLD CUresult refuse_cluster_size(const cushim_function *f,
                                                 const cushim_launch_config *c,
                                                 unsigned long long size, int max, const char *fn) {
    return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                        "%s: cluster (%u, %u, %u) has %llu blocks; kernel '%s' with block (%u, "
                        "%u, %u) and %u bytes of dynamic shared memory allows %d per cluster on "
                        "this device (cuOccupancyMaxPotentialClusterSize; 8 is the portable "
                        "limit, more needs CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
                        fn, c->cluster.x, c->cluster.y, c->cluster.z, size, f->name, c->block.x,
                        c->block.y, c->block.z, c->shared_mem_bytes, max);
}

/* The cluster: a device that has them, a shape that tiles the grid, a size the kernel allows. */
static CUresult check_cluster(const cushim_function *f, const cushim_launch_config *c,
                              const char *fn) {
    CUresult r = cushim__cluster_supported(f, fn);
    if (r != CUDA_SUCCESS) return r;
    const cushim_dim3 k = c->cluster, g = c->grid;
    if (k.x == 0 || k.y == 0 || k.z == 0 || g.x % k.x || g.y % k.y || g.z % k.z) {
        return refuse_cluster_shape(c, fn);
    }
    /* Each dimension divides the grid's, which the pre-checks bounded: no overflow in 64 bits. */
    unsigned long long size = (unsigned long long)k.x * k.y * k.z;
    int max = 0;
    r = cushim__cluster_max_size(f, c->block, c->shared_mem_bytes, false, &max, fn);
    if (r != CUDA_SUCCESS || size <= (unsigned long long)(max > 0 ? max : 0)) return r;
    /* Before refusing, the driver is asked again: the caller may have allowed non-portable
     * sizes (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) since the answer was kept. */
    r = cushim__cluster_max_size(f, c->block, c->shared_mem_bytes, true, &max, fn);
    if (r != CUDA_SUCCESS || size <= (unsigned long long)(max > 0 ? max : 0)) return r;
    return refuse_cluster_size(f, c, size, max, fn);
}

/* The stream priority range of f's context: from f's cache, else asked of the driver with the
 * context current and kept (a range too wide to pack is asked each time). */
static CUresult priority_range(const cushim_function *f, int *least, int *greatest,
                               const char *fn) {
    uint64_t v = atomic_load_explicit(&f->priority_range, memory_order_relaxed);
    if (v != 0) {
        *least = (int16_t)(uint16_t)(v >> 16);
        *greatest = (int16_t)(uint16_t)v;
        return CUDA_SUCCESS;
    }
    cushim__guard g;
    CUresult r = cushim__enter(f->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuCtxGetStreamPriorityRange(least, greatest);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS) {
        return cushim__fail(
            r, "%s: reading the priority range of kernel '%s''s context failed with %s", fn,
            f->name, cushim_error_name(r));
    }
    if (l != CUDA_SUCCESS) return l;
    if (*least >= INT16_MIN && *least <= INT16_MAX && *greatest >= INT16_MIN &&
        *greatest <= INT16_MAX) {
        v = (uint64_t)1 << 32 | (uint64_t)(uint16_t)*least << 16 | (uint16_t)*greatest;
        /* The function is const to callers; its caches are the one thing a launch may change. */
        atomic_store_explicit(&((cushim_function *)f)->priority_range, v, memory_order_relaxed);
    }
    return CUDA_SUCCESS;
}

static CUresult check_priority(const cushim_function *f, int priority, const char *fn) {
    int least = 0, greatest = 0;
    CUresult r = priority_range(f, &least, &greatest, fn);
    if (r != CUDA_SUCCESS) return r;
    /* Lower numbers are higher priorities: greatest <= priority <= least. */
    if (priority < greatest || priority > least) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: priority %d is outside the range of kernel '%s''s context: "
                            "[%d (highest), %d (lowest)] (cuCtxGetStreamPriorityRange)",
                            fn, priority, f->name, greatest, least);
    }
    return CUDA_SUCCESS;
}

/* Fills a[] with c's attributes; returns how many. */
static unsigned attributes(const cushim_launch_config *c, bool cooperative, CUlaunchAttribute *a) {
    unsigned n = 0;
    memset(a, 0, MAX_ATTRS * sizeof *a);
    if (c->cluster.x | c->cluster.y | c->cluster.z) {
        a[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a[n].value.clusterDim.x = c->cluster.x;
        a[n].value.clusterDim.y = c->cluster.y;
        a[n].value.clusterDim.z = c->cluster.z;
        n++;
    }
    if (c->has_priority) {
        a[n].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        a[n].value.priority = c->priority;
        n++;
    }
    if (cooperative) {
        a[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        a[n].value.cooperative = 1;
        n++;
    }
    if (c->programmatic_serialization) {
        a[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        a[n].value.programmaticStreamSerializationAllowed = 1;
        n++;
    }
    return n;
}

static CUSHIM__COLD CUresult launch_failed(CUresult r, const cushim_function *f,
                                           const cushim_launch_config *c, bool cooperative,
                                           const char *fn) {
    char what[160] = "";
    size_t at = 0;
    if (c->cluster.x | c->cluster.y | c->cluster.z) {
        at += (size_t)snprintf(what + at, sizeof what - at, ", cluster (%u, %u, %u)", c->cluster.x,
                               c->cluster.y, c->cluster.z);
    }
    if (c->has_priority && at < sizeof what) {
        at += (size_t)snprintf(what + at, sizeof what - at, ", priority %d", c->priority);
    }
    if (cooperative && at < sizeof what) {
        at += (size_t)snprintf(what + at, sizeof what - at, ", cooperative");
    }
    if (c->programmatic_serialization && at < sizeof what) {
        snprintf(what + at, sizeof what - at, ", programmatic stream serialization");
    }
    return cushim__fail(r,
                        "%s: cuLaunchKernelEx of kernel '%s' with grid (%u, %u, %u), block (%u, "
                        "%u, %u), %u bytes of dynamic shared memory%s failed with %s",
                        fn, f->name, c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y,
                        c->block.z, c->shared_mem_bytes, what, cushim_error_name(r));
}

CUresult cushim__launch_ex(const cushim_function *f, const cushim_launch_config *c, void **params,
                           bool cooperative, const char *fn) {
    if (CUSHIM__UNLIKELY(!f->limits->launch_ex)) return no_launch_ex(fn);
    cooperative = cooperative || c->cooperative;
    CUresult r;
    if (c->cluster.x | c->cluster.y | c->cluster.z) {
        r = check_cluster(f, c, fn);
        if (r != CUDA_SUCCESS) return r;
    }
    if (c->has_priority) {
        r = check_priority(f, c->priority, fn);
        if (r != CUDA_SUCCESS) return r;
    }
    if (cooperative) {
        r = cushim__cooperative_fits(f, c, fn);
        if (r != CUDA_SUCCESS) return r;
    }
    CUlaunchAttribute a[MAX_ATTRS];
    CUlaunchConfig lc = cushim__ex_config(c);
    lc.attrs = a;
    lc.numAttrs = attributes(c, cooperative, a);
    if (c->stream != NULL) {
        lc.hStream = c->stream->raw;
        r = cushim__table.cuLaunchKernelEx(&lc, f->raw, params, NULL);
        if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS)) return launch_failed(r, f, c, cooperative, fn);
        return CUDA_SUCCESS;
    }
    /* A NULL stream: the default stream of f's context, which must be current to be named. */
    cushim__guard g;
    r = cushim__enter(f->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    lc.hStream = CUSHIM__DEFAULT_STREAM;
    r = cushim__table.cuLaunchKernelEx(&lc, f->raw, params, NULL);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS) return launch_failed(r, f, c, cooperative, fn);
    if (l != CUDA_SUCCESS) return cushim__launched_not_restored(l, f, fn);
    return CUDA_SUCCESS;
}
