/* Linkers: PTX, cubins and LTO IR joined by nvJitLink, or by the driver's cuLink* where
 * nvJitLink cannot be loaded, and the result loaded into the linker's context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/jit.h"
#include "api/program.h"
#include "cushim_nvjitlink_table.h"
#include "loader/attach.h"
#include "loader/dso.h"
#include "loader/loader.h"

struct cushim_linker {
    cushim__object obj;
    cushim_context *ctx;
    pthread_mutex_t lock; /* one add or complete at a time */
    bool done;            /* under lock: completed */
    nvJitLinkHandle jl;   /* with nvJitLink */
    CUlinkState cl;       /* else the driver's */
    /* cuLink* writes its logs into these for as long as the state lives. */
    CUjit_option jit_opts[CUSHIM__JIT_OPTIONS];
    void *jit_vals[CUSHIM__JIT_OPTIONS];
    char error_log[CUSHIM__JIT_LOG_BYTES];
    char info_log[CUSHIM__JIT_LOG_BYTES];
};

/* The CUresult whose sentence is true of an nvJitLink code. */
static CUresult jitlink_result(nvJitLinkResult r) {
    switch (r) {
    case NVJITLINK_SUCCESS: return CUDA_SUCCESS;
    case NVJITLINK_ERROR_UNRECOGNIZED_OPTION:
    case NVJITLINK_ERROR_MISSING_ARCH:
    case NVJITLINK_ERROR_INVALID_INPUT:
    case NVJITLINK_ERROR_NULL_INPUT:
    case NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS:
    case NVJITLINK_ERROR_UNRECOGNIZED_ARCH:
    case NVJITLINK_ERROR_UNSUPPORTED_ARCH: return CUDA_ERROR_INVALID_VALUE;
    case NVJITLINK_ERROR_PTX_COMPILE: return CUDA_ERROR_INVALID_PTX;
    case NVJITLINK_ERROR_INTERNAL:
    case NVJITLINK_ERROR_THREADPOOL: return CUDA_ERROR_UNKNOWN;
    default: return CUDA_ERROR_INVALID_IMAGE;
    }
}

/* nvJitLink's error log, copied into the linker's buffer (the one log cushim_linker_log
 * shows). */
static const char *jitlink_log(cushim_linker *l) {
    size_t n = 0;
    l->error_log[0] = '\0';
    if (cushim__nvjitlink.nvJitLinkGetErrorLogSize(l->jl, &n) == NVJITLINK_SUCCESS && n > 1) {
        char *buf = malloc(n);
        if (buf != NULL &&
            cushim__nvjitlink.nvJitLinkGetErrorLog(l->jl, buf) == NVJITLINK_SUCCESS) {
            snprintf(l->error_log, sizeof l->error_log, "%s", buf);
        }
        free(buf);
    }
    return cushim__jit_tidy_log(l->error_log);
}

static CUresult jitlink_failed(cushim_linker *l, nvJitLinkResult r, const char *fn,
                               const char *call) {
    const char *log = l->jl != NULL ? jitlink_log(l) : "";
    CUresult code = jitlink_result(r);
    /* nvJitLink answers an undefined symbol with NVJITLINK_ERROR_INTERNAL and says so in its
     * log: a failure it explains is the input's. */
    if (code == CUDA_ERROR_UNKNOWN && log[0] != '\0') code = CUDA_ERROR_INVALID_IMAGE;
    /* cushim's own keeping for the mock driver ran out of memory (loader/attach.h). */
    if (cushim__attach_oom_take()) {
        return cushim__fail(CUDA_ERROR_OUT_OF_MEMORY,
                            "%s: %s failed: out of memory while keeping the link's inputs for "
                            "the mock driver's PTX",
                            fn, call);
    }
    return cushim__fail(code, "%s: %s failed with %s%s%s", fn, call,
                        cushim__nvjitlink_error_name((int)r), log[0] ? ": " : "", log);
}

static CUresult create_jitlink(cushim_linker *l, int n, const char *const *options,
                               const char *fn) {
    bool has_arch = false;
    for (int i = 0; i < n; i++)
        has_arch |= options[i] != NULL && strncmp(options[i], "-arch", 5) == 0;
    int cc = 0;
    if (!has_arch) {
        CUresult r = cushim__device_cc(l->ctx, &cc, fn);
        if (r != CUDA_SUCCESS) return r;
    }
    const char **all = cushim__alloc(sizeof *all * ((size_t)n + 1), fn);
    if (all == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    char arch[32];
    for (int i = 0; i < n; i++) all[i] = options[i];
    snprintf(arch, sizeof arch, "-arch=sm_%d", cc);
    if (!has_arch) all[n] = arch;
    nvJitLinkResult r = cushim__nvjitlink.nvJitLinkCreate(&l->jl, (uint32_t)n + !has_arch, all);
    cushim__free(all);
    if (r != NVJITLINK_SUCCESS) {
        l->jl = NULL;
        return jitlink_failed(l, r, fn, "nvJitLinkCreate");
    }
    return CUDA_SUCCESS;
}

static CUresult create_culink(cushim_linker *l, int n, const char *fn) {
    if (n > 0) {
        return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                            "%s: nvJitLink is not loaded (%s), and the driver's cuLink* that "
                            "link instead take no nvJitLink options",
                            fn, cushim_lib_state(CUSHIM_LIB_NVJITLINK)->message);
    }
    cushim__jit_options(l->jit_opts, l->jit_vals, l->error_log, l->info_log);
    cushim__guard g;
    CUresult r = cushim__enter(l->ctx->raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuLinkCreate(CUSHIM__JIT_OPTIONS, l->jit_opts, l->jit_vals, &l->cl);
    if (r != CUDA_SUCCESS) {
        l->cl = NULL;
        cushim__fail(r,
                     "%s: cuLinkCreate failed with %s (nvJitLink is not loaded, so the "
                     "driver links)",
                     fn, cushim_error_name(r));
    }
    CUSHIM__LEAVE_OR_UNDO(&g, r, "link state", l->cl, cushim__table.cuLinkDestroy(l->cl));
    return r;
}

CUSHIM_API CUresult cushim_linker_create(cushim_linker **out, cushim_context *ctx, int num_options,
                                         const char *const *options) {
    static const char fn[] = "cushim_linker_create";
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", fn);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", fn);
    if (r != CUDA_SUCCESS) return r;
    if (num_options < 0 || (num_options > 0 && options == NULL)) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: num_options is %d with options %p", fn,
                            num_options, (const void *)options);
    }
    cushim_linker *l = cushim__alloc(sizeof *l, fn);
    if (l == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    l->ctx = ctx;
    if (cushim__dso_load(&cushim__nvjitlink_dso) == CUDA_SUCCESS) {
        r = create_jitlink(l, num_options, options, fn);
    } else {
        r = create_culink(l, num_options, fn);
    }
    if (r != CUDA_SUCCESS) {
        cushim__free(l);
        return r;
    }
    l->ctx = cushim_context_retain(ctx);
    *out = cushim__root_born(&l->obj, CUSHIM__LINKER, &l->lock);
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_linker *cushim_linker_retain(cushim_linker *l) {
    return cushim__retain_checked(l, CUSHIM__LINKER, "l", __func__);
}

CUSHIM_API void cushim_linker_release(cushim_linker *l) {
    if (!cushim__release_checked(l, CUSHIM__LINKER, "l", __func__)) return;
    if (l->jl != NULL) {
        nvJitLinkResult r = cushim__nvjitlink.nvJitLinkDestroy(&l->jl);
        if (r != NVJITLINK_SUCCESS) {
            cushim__log(CUSHIM_LOG_WARN, "%s: nvJitLinkDestroy failed with %s", __func__,
                        cushim__nvjitlink_error_name((int)r));
        }
    } else {
        CUSHIM__DESTROY("link state", l->cl, cushim__table.cuLinkDestroy(l->cl));
    }
    pthread_mutex_destroy(&l->lock);
    cushim_context *ctx = l->ctx;
    cushim__free(l);
    cushim_context_release(ctx);
    atomic_fetch_sub_explicit(&cushim__live_roots, 1, memory_order_relaxed);
}

static CUresult add_culink(cushim_linker *l, cushim_code_kind kind, const void *data, size_t size,
                           const char *name, const char *fn) {
    static const CUjitInputType types[] = {CU_JIT_INPUT_PTX, CU_JIT_INPUT_CUBIN, 0,
                                           CU_JIT_INPUT_FATBINARY};
    if (kind == CUSHIM_CODE_LTOIR) {
        return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                            "%s: LTO IR needs nvJitLink, which is not loaded: %s", fn,
                            cushim_lib_state(CUSHIM_LIB_NVJITLINK)->message);
    }
    cushim__guard g;
    CUresult r = cushim__enter(l->ctx->raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuLinkAddData(l->cl, types[kind], (void *)(uintptr_t)data, size, name, 0,
                                    NULL, NULL);
    if (r != CUDA_SUCCESS) cushim__jit_load_failed(r, fn, name, l->error_log, l->info_log);
    CUresult left = cushim__leave(&g, fn);
    return r != CUDA_SUCCESS ? r : left;
}

CUSHIM_API CUresult cushim_linker_add(cushim_linker *l, cushim_code_kind kind, const void *data,
                                      size_t size, const char *name) {
    static const nvJitLinkInputType types[] = {NVJITLINK_INPUT_PTX, NVJITLINK_INPUT_CUBIN,
                                               NVJITLINK_INPUT_LTOIR, NVJITLINK_INPUT_FATBIN};
    CUresult r = cushim__check(l, CUSHIM__LINKER, "l", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (data == NULL || size == 0 || (unsigned)kind > CUSHIM_CODE_FATBIN) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: data %p, size %zu, kind %d", __func__,
                            data, size, (int)kind);
    }
    if (name == NULL) name = "input";
    pthread_mutex_lock(&l->lock);
    if (l->done) {
        r = cushim__fail(CUDA_ERROR_ILLEGAL_STATE, "%s: the link is complete already", __func__);
    } else if (l->jl != NULL) {
        nvJitLinkResult jr =
            cushim__nvjitlink.nvJitLinkAddData(l->jl, types[kind], data, size, name);
        if (jr != NVJITLINK_SUCCESS) r = jitlink_failed(l, jr, __func__, "nvJitLinkAddData");
    } else {
        r = add_culink(l, kind, data, size, name, __func__);
    }
    pthread_mutex_unlock(&l->lock);
    return r;
}

static CUresult complete_jitlink(cushim_linker *l, cushim_module **out, const char *fn) {
    nvJitLinkResult jr = cushim__nvjitlink.nvJitLinkComplete(l->jl);
    if (jr != NVJITLINK_SUCCESS) return jitlink_failed(l, jr, fn, "nvJitLinkComplete");
    size_t n = 0;
    jr = cushim__nvjitlink.nvJitLinkGetLinkedCubinSize(l->jl, &n);
    if (jr != NVJITLINK_SUCCESS) return jitlink_failed(l, jr, fn, "nvJitLinkGetLinkedCubinSize");
    void *cubin = cushim__alloc(n, fn);
    if (cubin == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    jr = cushim__nvjitlink.nvJitLinkGetLinkedCubin(l->jl, cubin);
    CUresult r = jr == NVJITLINK_SUCCESS ? cushim_module_load_data(out, l->ctx, cubin)
                                         : jitlink_failed(l, jr, fn, "nvJitLinkGetLinkedCubin");
    cushim__free(cubin);
    return r;
}

static CUresult complete_culink(cushim_linker *l, cushim_module **out, const char *fn) {
    cushim__guard g;
    CUresult r = cushim__enter(l->ctx->raw, &g, fn);
    if (r != CUDA_SUCCESS) return r;
    void *cubin = NULL;
    size_t n = 0;
    r = cushim__table.cuLinkComplete(l->cl, &cubin, &n);
    if (r != CUDA_SUCCESS) cushim__jit_load_failed(r, fn, NULL, l->error_log, l->info_log);
    CUresult left = cushim__leave(&g, fn);
    if (r == CUDA_SUCCESS) r = left;
    /* The cubin belongs to the link state, which lives until the release. */
    return r == CUDA_SUCCESS ? cushim_module_load_data(out, l->ctx, cubin) : r;
}

CUSHIM_API CUresult cushim_linker_complete(cushim_module **out, cushim_linker *l) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(l, CUSHIM__LINKER, "l", __func__);
    if (r != CUDA_SUCCESS) return r;
    pthread_mutex_lock(&l->lock);
    if (l->done) {
        r = cushim__fail(CUDA_ERROR_ILLEGAL_STATE, "%s: the link is complete already", __func__);
    } else {
        l->done = true;
        r = l->jl != NULL ? complete_jitlink(l, out, __func__) : complete_culink(l, out, __func__);
    }
    pthread_mutex_unlock(&l->lock);
    return r;
}

CUSHIM_API const char *cushim_linker_log(const cushim_linker *l) {
    if (cushim__check(l, CUSHIM__LINKER, "l", __func__) != CUDA_SUCCESS) return NULL;
    return l->error_log;
}
