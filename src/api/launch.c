/* The launch: pre-checks against the device's and the kernel's limits, then the driver. The
 * launch is benchmarked against a direct cuLaunchKernel, so its common path
 * does tag checks, compares with cached numbers and the call; every sentence is written off
 * that path, in functions kept out of line. */
#include <limits.h>

#include "api/context_rule.h"
#include "api/launch_checks.h"
#include "api/launch_ex.h"
#include "loader/loader.h"

/* ------------------------------------------------------------------------------------------ */
/* Pre-checks                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Whether cfg passes every limit, branch-free. Subtracting 1 makes a zero wrap around to
 * UINT_MAX, so one unsigned compare refuses both a zero and an oversized dimension; the thread
 * count cannot overflow 64 bits where the dimensions passed. */
static inline bool within_limits(const cushim_function *f, const cushim_launch_config *c) {
    const cushim__limits *l = f->limits;
    unsigned bad = (c->block.x - 1u >= (unsigned)l->max_block[0]) |
                   (c->block.y - 1u >= (unsigned)l->max_block[1]) |
                   (c->block.z - 1u >= (unsigned)l->max_block[2]) |
                   (c->grid.x - 1u >= (unsigned)l->max_grid[0]) |
                   (c->grid.y - 1u >= (unsigned)l->max_grid[1]) |
                   (c->grid.z - 1u >= (unsigned)l->max_grid[2]);
    uint64_t threads = (uint64_t)c->block.x * c->block.y * c->block.z;
    bad |= threads > f->max_threads;
    bad |= c->shared_mem_bytes > atomic_load_explicit(&f->max_dynamic_smem, memory_order_relaxed);
    return bad == 0;
}

/* A kernel that takes parameters launched with params NULL: one compare (function.h). */
static inline bool missing_params(const cushim_function *f, void **params) {
    return (uintptr_t)params < f->params_floor;
}

static const char axis[3] = {'X', 'Y', 'Z'};

static CUresult refuse_dims(const char *fn, const char *what, cushim_dim3 d, const int max[3]) {
    const unsigned v[3] = {d.x, d.y, d.z};
    if (v[0] == 0 || v[1] == 0 || v[2] == 0) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: %s (%u, %u, %u) has a zero dimension",
                            fn, what, v[0], v[1], v[2]);
    }
    for (int i = 0; i < 3; i++) {
        if (v[i] > (unsigned)max[i]) {
            return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                                "%s: %s (%u, %u, %u) is %u in %c; this device allows %d "
                                "(CU_DEVICE_ATTRIBUTE_MAX_%s_DIM_%c)",
                                fn, what, v[0], v[1], v[2], v[i], axis[i], max[i],
                                what[0] == 'b' ? "BLOCK" : "GRID", axis[i]);
        }
    }
    return CUDA_SUCCESS;
}

/* The shared memory refusal. The kernel's limit is read again first: the caller may have
 * raised CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES since we cached it, and then the
 * launch goes on (CUDA_SUCCESS). */
static CUresult refuse_smem(const cushim_function *f, const cushim_launch_config *c,
                            const char *fn) {
    const cushim__limits *l = f->limits;
    int attr = 0;
    if (cushim__table.cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         f->fn) == CUDA_SUCCESS) {
        unsigned now = cushim__dynamic_smem_limit(l, f->static_smem, attr);
        atomic_store_explicit(&((cushim_function *)f)->max_dynamic_smem, now, memory_order_relaxed);
        if (c->shared_mem_bytes <= now) return CUDA_SUCCESS;
    }
    unsigned limit = atomic_load_explicit(&f->max_dynamic_smem, memory_order_relaxed);
    unsigned long long total = (unsigned long long)f->static_smem + c->shared_mem_bytes;
    if (total > (unsigned long long)l->max_smem_per_block_optin) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: kernel '%s' would use %llu bytes of shared memory per block "
                            "(%d static + %u dynamic); this device allows %d per block",
                            fn, f->name, total, f->static_smem, c->shared_mem_bytes,
                            l->max_smem_per_block_optin);
    }
    return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                        "%s: kernel '%s' asks for %u bytes of dynamic shared memory (beside %d "
                        "static); it may use %u, as the plain limit is %d bytes per block "
                        "(raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to opt in to up "
                        "to %d)",
                        fn, f->name, c->shared_mem_bytes, f->static_smem, limit,
                        l->max_smem_per_block, l->max_smem_per_block_optin);
}

/* Says why within_limits() refused, in the order a reader would look: arguments, zero
 * dimensions, threads per block, each dimension, shared memory, missing parameters. CUDA_SUCCESS
 * when nothing is wrong after all (a raised shared memory limit). */
static CUSHIM__COLD CUresult refuse_config(const cushim_function *f, const cushim_launch_config *c,
                                           void **params, const char *fn) {
    CUresult r = cushim__check(f, CUSHIM__FUNCTION, "f", fn);
    if (r != CUDA_SUCCESS) return r;
    if (c == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: cfg is NULL", fn);
    const cushim__limits *l = f->limits;
    const cushim_dim3 b = c->block, g = c->grid;
    if (b.x == 0 || b.y == 0 || b.z == 0) return refuse_dims(fn, "block", b, l->max_block);
    if (g.x == 0 || g.y == 0 || g.z == 0) return refuse_dims(fn, "grid", g, l->max_grid);
    /* Three 32-bit sizes can overflow 64 bits; such a block is said to have more than the
     * most a 64-bit count holds. */
    unsigned long long threads;
    bool huge =
        __builtin_mul_overflow((unsigned long long)b.x * b.y, (unsigned long long)b.z, &threads);
    if (huge) threads = ULLONG_MAX;
    if (threads > (unsigned long long)l->max_threads_per_block) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: block (%u, %u, %u) has %s%llu threads; this device allows %d "
                            "per block",
                            fn, b.x, b.y, b.z, huge ? "more than " : "", threads,
                            l->max_threads_per_block);
    }
    if (threads > f->max_threads) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: block (%u, %u, %u) has %llu threads; kernel '%s' allows %u per "
                            "block (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: its registers and "
                            "other resources limit it)",
                            fn, b.x, b.y, b.z, threads, f->name, f->max_threads);
    }
    r = refuse_dims(fn, "block", b, l->max_block);
    if (r != CUDA_SUCCESS) return r;
    r = refuse_dims(fn, "grid", g, l->max_grid);
    if (r != CUDA_SUCCESS) return r;
    r = refuse_smem(f, c, fn);
    if (r != CUDA_SUCCESS) return r;
    if ((uintptr_t)params < f->params_floor) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: kernel '%s' takes %d parameter%s, and params is NULL: pass an "
                            "array of %d pointer%s, one to each argument",
                            fn, f->name, f->param_count, f->param_count == 1 ? "" : "s",
                            f->param_count, f->param_count == 1 ? "" : "s");
    }
    return CUDA_SUCCESS;
}

static CUSHIM__COLD CUresult refuse_stream(const cushim_function *f, const cushim_stream *s,
                                           const char *fn) {
    CUresult r = cushim__check(s, CUSHIM__STREAM, "cfg->stream", fn);
    if (r != CUDA_SUCCESS) return r;
    return cushim__fail(CUDA_ERROR_INVALID_HANDLE,
                        "%s: stream %p belongs to context %p, but kernel '%s' was loaded in "
                        "context %p; launch it on a stream of that context",
                        fn, (const void *)s, (void *)s->ctx_raw, f->name, (void *)f->ctx_raw);
}

static CUSHIM__COLD CUresult launch_failed(CUresult r, const cushim_function *f,
                                           const cushim_launch_config *c, const char *entry,
                                           const char *fn) {
    return cushim__fail(r,
                        "%s: %s of kernel '%s' with grid (%u, %u, %u), block (%u, %u, %u) and "
                        "%u bytes of dynamic shared memory failed with %s",
                        fn, entry, f->name, c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y,
                        c->block.z, c->shared_mem_bytes, cushim_error_name(r));
}

/* ------------------------------------------------------------------------------------------ */
/* Launch                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static inline bool stream_ok(const cushim_function *f, const cushim_stream *s) {
    return cushim__is(s, CUSHIM__STREAM) && (!f->check_stream_ctx || s->ctx_raw == f->ctx_raw);
}

static inline CUresult driver_launch(const cushim_function *f, const cushim_launch_config *c,
                                     CUstream stream, void **params, bool cooperative) {
    if (cooperative) {
        return cushim__table.cuLaunchCooperativeKernel(f->raw, c->grid.x, c->grid.y, c->grid.z,
                                                       c->block.x, c->block.y, c->block.z,
                                                       c->shared_mem_bytes, stream, params);
    }
    return cushim__table.cuLaunchKernel(f->raw, c->grid.x, c->grid.y, c->grid.z, c->block.x,
                                        c->block.y, c->block.z, c->shared_mem_bytes, stream, params,
                                        NULL);
}

/* A NULL stream: the default stream of the function's context, which must be current to be
 * named; the caller's current context is back afterwards. */
static CUSHIM__NOINLINE CUresult launch_default(const cushim_function *f,
                                                const cushim_launch_config *c, void **params,
                                                bool cooperative, const char *fn) {
    cushim__guard g;
    CUresult r = cushim__enter(f->ctx_raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = driver_launch(f, c, CUSHIM__DEFAULT_STREAM, params, cooperative);
    CUresult l = cushim__leave(&g, fn);
    if (r != CUDA_SUCCESS) {
        return launch_failed(r, f, c, cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel",
                             fn);
    }
    if (l != CUDA_SUCCESS) return cushim__launched_not_restored(l, f, fn);
    return CUDA_SUCCESS;
}

/* Everything off the common path: a refusal, a raised shared memory limit, launch attributes.
 * The checks in full, then the launch. */
static CUSHIM__NOINLINE CUresult launch_checked(const cushim_function *f,
                                                const cushim_launch_config *cfg, void **params,
                                                bool cooperative, const char *fn) {
    if (!cushim__is(f, CUSHIM__FUNCTION) || cfg == NULL || !within_limits(f, cfg) ||
        missing_params(f, params)) {
        CUresult r = refuse_config(f, cfg, params, fn);
        if (r != CUDA_SUCCESS) return r;
    }
    const cushim_stream *s = cfg->stream;
    if (s != NULL && !stream_ok(f, s)) return refuse_stream(f, s, fn);
    if (cushim__has_attributes(cfg)) return cushim__launch_ex(f, cfg, params, cooperative, fn);
    if (cooperative) {
        CUresult r = cushim__cooperative_fits(f, cfg, fn);
        if (r != CUDA_SUCCESS) return r;
    }
    if (s == NULL) return launch_default(f, cfg, params, cooperative, fn);
    CUresult r = driver_launch(f, cfg, s->raw, params, cooperative);
    if (r != CUDA_SUCCESS) {
        return launch_failed(r, f, cfg,
                             cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", fn);
    }
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_launch(const cushim_function *f, const cushim_launch_config *cfg,
                                  void **params) {
    /* A config with launch attributes leaves the common path for launch_checked(), at the cost
     * of a few ORs and a branch here. */
    if (CUSHIM__UNLIKELY(!cushim__is(f, CUSHIM__FUNCTION) || cfg == NULL ||
                         cushim__has_attributes(cfg) || missing_params(f, params) ||
                         !within_limits(f, cfg))) {
        return launch_checked(f, cfg, params, false, __func__);
    }
    const cushim_stream *s = cfg->stream;
    if (s == NULL) return launch_default(f, cfg, params, false, __func__);
    if (CUSHIM__UNLIKELY(!stream_ok(f, s))) return refuse_stream(f, s, __func__);
    CUresult r = cushim__table.cuLaunchKernel(f->raw, cfg->grid.x, cfg->grid.y, cfg->grid.z,
                                              cfg->block.x, cfg->block.y, cfg->block.z,
                                              cfg->shared_mem_bytes, s->raw, params, NULL);
    if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS))
        return launch_failed(r, f, cfg, "cuLaunchKernel", __func__);
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_launch_cooperative(const cushim_function *f,
                                              const cushim_launch_config *cfg, void **params) {
    if (CUSHIM__UNLIKELY(!cushim__is(f, CUSHIM__FUNCTION) || cfg == NULL ||
                         cushim__has_attributes(cfg) || missing_params(f, params) ||
                         !within_limits(f, cfg))) {
        return launch_checked(f, cfg, params, true, __func__);
    }
    const cushim_stream *s = cfg->stream;
    if (CUSHIM__UNLIKELY(s != NULL && !stream_ok(f, s))) return refuse_stream(f, s, __func__);
    /* The grid must fit at once. */
    CUresult r = cushim__cooperative_fits(f, cfg, __func__);
    if (r != CUDA_SUCCESS) return r;
    if (s == NULL) return launch_default(f, cfg, params, true, __func__);
    r = cushim__table.cuLaunchCooperativeKernel(f->raw, cfg->grid.x, cfg->grid.y, cfg->grid.z,
                                                cfg->block.x, cfg->block.y, cfg->block.z,
                                                cfg->shared_mem_bytes, s->raw, params);
    if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS)) {
        return launch_failed(r, f, cfg, "cuLaunchCooperativeKernel", __func__);
    }
    return CUDA_SUCCESS;
}
