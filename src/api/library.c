/* Libraries: loaded once for every context (cuLibraryLoadData), and their kernels, each looked
 * up for one context. A library belongs to no context. */
#include <stdio.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/module.h"
#include "loader/diag.h"
#include "loader/fork.h"
#include "loader/loader.h"

CUSHIM_API CUresult cushim_library_load_data(cushim_library **out, const void *image) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    if (image == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: image is NULL", __func__);
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) return r;
    cushim_library *lib = cushim__alloc(sizeof *lib, __func__);
    if (lib == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    cushim__jit_options(lib->jit_opts, lib->jit_vals, lib->error_log, lib->info_log);
    r = cushim__table.cuLibraryLoadData(&lib->raw, image, lib->jit_opts, lib->jit_vals,
                                        CUSHIM__JIT_OPTIONS, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) {
        cushim__jit_load_failed(r, __func__, NULL, lib->error_log, lib->info_log);
        cushim__free(lib);
        return r;
    }
    cushim__jit_log_info(__func__, lib->info_log);
    *out = cushim__root_born(&lib->obj, CUSHIM__LIBRARY, &lib->lock);
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_library *cushim_library_retain(cushim_library *lib) {
    return cushim__retain_checked(lib, CUSHIM__LIBRARY, "lib", __func__);
}

CUSHIM_API void cushim_library_release(cushim_library *lib) {
    if (!cushim__release_checked(lib, CUSHIM__LIBRARY, "lib", __func__)) return;
    /* A library belongs to no context: it is unloaded with none made current. */
    CUresult r = cushim__table.cuLibraryUnload(lib->raw);
    if (r != CUDA_SUCCESS) cushim__destroy_refused(__func__, "library", (void *)lib->raw, r);
    /* A forked child leaves a list that a thread of the parent was changing at the fork. */
    if (!cushim__forked || cushim__forked_lock_was_free(&lib->lock)) {
        cushim__functions_free(lib->functions, true);
        pthread_mutex_destroy(&lib->lock);
    }
    atomic_fetch_sub_explicit(&cushim__live_roots, 1, memory_order_relaxed);
    cushim__free(lib);
}

/* A library's PTX is compiled when a kernel is first asked for, so a failure there carries the
 * JIT's log when it wrote one. */
static CUresult library_failed(CUresult r, cushim_library *lib, const char *entry, const char *name,
                               CUcontext ctx, const char *fn) {
    const char *log = cushim__jit_tidy_log(lib->error_log);
    char where[64] = "";
    if (ctx != NULL) snprintf(where, sizeof where, " in context %p", (void *)ctx);
    return cushim__fail(r, "%s: %s of '%s'%s failed with %s: %s", fn, entry, name, where,
                        cushim_error_name(r), *log ? log : cushim_error_string(r));
}

/* Finds the kernel, then its CUfunction in ctx (made current for it), which answers attribute
 * and occupancy queries; the launch itself uses the CUkernel. */
static CUresult make_library_function(cushim_function **out, cushim_library *lib,
                                      cushim_context *ctx, const char *name, const char *fn) {
    const cushim__limits *limits = NULL;
    CUresult r = cushim__read_limits(ctx->device, ctx->ordinal, &limits, fn);
    if (r != CUDA_SUCCESS) return r;
    CUkernel kernel = NULL;
    r = cushim__table.cuLibraryGetKernel(&kernel, lib->raw, name);
    if (r == CUDA_ERROR_NOT_FOUND) {
        return cushim__fail(r, "%s: no kernel named '%s' in library %p", fn, name, (void *)lib);
    }
    if (r != CUDA_SUCCESS) return library_failed(r, lib, "cuLibraryGetKernel", name, NULL, fn);
    cushim_function *f = cushim__function_new(name, fn);
    if (f == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    f->raw = (CUfunction)kernel;
    f->limits = limits;
    f->ctx_raw = ctx->raw;
    f->check_stream_ctx = false;
    cushim__guard g;
    r = cushim__enter(ctx->raw, &g, fn);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuKernelGetFunction(&f->fn, kernel);
        if (r != CUDA_SUCCESS) library_failed(r, lib, "cuKernelGetFunction", name, ctx->raw, fn);
        CUresult l = cushim__leave(&g, fn);
        if (r == CUDA_SUCCESS) r = l;
    }
    if (r == CUDA_SUCCESS) r = cushim__function_read_attributes(f, fn);
    if (r != CUDA_SUCCESS) {
        cushim__free(f);
        return r;
    }
    cushim__object_init(&f->obj, CUSHIM__FUNCTION);
    f->ctx = cushim_context_retain(ctx);
    *out = f;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_library_function(cushim_function **out, cushim_library *lib,
                                            cushim_context *ctx, const char *name) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(lib, CUSHIM__LIBRARY, "lib", __func__);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (name == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: name is NULL", __func__);
    if (cushim__forked) return cushim__forked_refusal(__func__);
    /* As for a module's kernels (module.c): the lock guards the list, never a driver call. */
    cushim_function *f = cushim__function_listed(&lib->lock, &lib->functions, name, ctx->raw);
    if (f == NULL) {
        cushim_function *made = NULL;
        r = make_library_function(&made, lib, ctx, name, __func__);
        if (r != CUDA_SUCCESS) return r;
        f = cushim__function_list(&lib->lock, &lib->functions, made, true);
    }
    if (r == CUDA_SUCCESS) *out = f;
    return r;
}
