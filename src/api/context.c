/* Contexts: the device's primary context, or a dedicated one; refcounted. */
#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/object.h"
#include "api/recycle.h"
#include "loader/loader.h"

static CUresult get_device(CUdevice *dev, int ordinal, const char *fn) {
    CUresult r = cushim__table.cuDeviceGet(dev, ordinal);
    if (r == CUDA_SUCCESS) return r;
    int count = 0;
    CUresult cr = cushim__table.cuDeviceGetCount(&count);
    if (cr != CUDA_SUCCESS) {
        /* No count was given, so none is claimed. */
        return cushim__fail(r,
                            "%s: device %d: cuDeviceGet failed with %s (and cuDeviceGetCount "
                            "failed with %s)",
                            fn, ordinal, cushim_error_name(r), cushim_error_name(cr));
    }
    return cushim__fail(r,
                        "%s: device %d: cuDeviceGet failed with %s (this machine has %d "
                        "device%s)",
                        fn, ordinal, cushim_error_name(r), count, count == 1 ? "" : "s");
}

/* The start both creates share: out checked and cleared, the driver loaded, the device found,
 * and the object made, with its raw context still to come. */
static CUresult new_context(cushim_context **c, cushim_context **out, int ordinal, bool primary,
                            const char *fn) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", fn);
    *out = NULL;
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) return r;
    CUdevice dev;
    r = get_device(&dev, ordinal, fn);
    if (r != CUDA_SUCCESS) return r;
    *c = cushim__alloc(sizeof **c, fn);
    if (*c == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    cushim__object_init(&(*c)->obj, CUSHIM__CONTEXT);
    cushim__recycler_init(*c);
    (*c)->device = dev;
    (*c)->ordinal = ordinal;
    (*c)->primary = primary;
    return CUDA_SUCCESS;
}

/* A context that never became live: its caches are empty, only their lock goes. */
static void free_unborn(cushim_context *c, const char *fn) {
    cushim__recycler_fini(c, fn);
    cushim__free(c);
}

CUSHIM_API CUresult cushim_context_primary(cushim_context **out, int ordinal) {
    cushim_context *c = NULL;
    CUresult r = new_context(&c, out, ordinal, true, __func__);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuDevicePrimaryCtxRetain(&c->raw, c->device);
    if (r != CUDA_SUCCESS) {
        free_unborn(c, __func__);
        return cushim__fail(r, "%s: retaining the primary context of device %d failed with %s",
                            __func__, ordinal, cushim_error_name(r));
    }
    atomic_fetch_add_explicit(&cushim__live_roots, 1, memory_order_relaxed);
    *out = c;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_context_create(cushim_context **out, int ordinal, unsigned flags) {
    cushim_context *c = NULL;
    CUresult r = new_context(&c, out, ordinal, false, __func__);
    if (r != CUDA_SUCCESS) return r;
    /* cuCtxCreate pushes the new context on the thread's context stack; popping it puts back
     * exactly what was there. (Setting the old one current instead would replace the top and
     * leave the old context on the stack twice, so that destroying it later left a destroyed
     * context current: found by the fuzzer.) */
    CUctxCreateParams params = {0};
    r = cushim__table.cuCtxCreate(&c->raw, &params, flags, c->device);
    if (r != CUDA_SUCCESS) {
        free_unborn(c, __func__);
        return cushim__fail(r, "%s: cuCtxCreate on device %d with flags 0x%x failed with %s",
                            __func__, ordinal, flags, cushim_error_name(r));
    }
    CUcontext popped = NULL;
    r = cushim__table.cuCtxPopCurrent(&popped);
    if (r != CUDA_SUCCESS) {
        /* Destroying a context current to this thread pops it too. */
        CUresult d = cushim__table.cuCtxDestroy(c->raw);
        if (d != CUDA_SUCCESS) cushim__destroy_refused(__func__, "context", (void *)c->raw, d);
        free_unborn(c, __func__);
        return cushim__fail(r, "%s: restoring the previous current context failed with %s",
                            __func__, cushim_error_name(r));
    }
    atomic_fetch_add_explicit(&cushim__live_roots, 1, memory_order_relaxed);
    *out = c;
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_context *cushim_context_retain(cushim_context *ctx) {
    return cushim__retain_checked(ctx, CUSHIM__CONTEXT, "ctx", __func__);
}

CUSHIM_API void cushim_context_release(cushim_context *ctx) {
    if (!cushim__release_checked(ctx, CUSHIM__CONTEXT, "ctx", __func__)) return;
    /* What the caches keep goes first, while the driver's context still exists. */
    cushim__recycler_fini(ctx, __func__);
    CUresult r = CUDA_SUCCESS;
    if (!ctx->borrowed) {
        r = ctx->primary ? cushim__table.cuDevicePrimaryCtxRelease(ctx->device)
                         : cushim__table.cuCtxDestroy(ctx->raw);
    }
    if (r != CUDA_SUCCESS) {
        cushim__destroy_refused(__func__, ctx->primary ? "primary context" : "context",
                                (void *)ctx->raw, r);
    }
    atomic_fetch_sub_explicit(&cushim__live_roots, 1, memory_order_relaxed);
    cushim__free(ctx);
}

CUSHIM_API CUresult cushim_context_synchronize(cushim_context *ctx) {
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    cushim__guard g;
    r = cushim__enter(ctx->raw, &g, __func__);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuCtxSynchronize();
    CUresult l = cushim__leave(&g, __func__);
    if (r != CUDA_SUCCESS) return cushim__fail(r, "%s: %s", __func__, cushim_error_name(r));
    return l;
}

CUSHIM_API CUresult cushim_device_synchronize(void) {
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: cuCtxSynchronize failed with %s%s", __func__,
                            cushim_error_name(r),
                            r == CUDA_ERROR_INVALID_CONTEXT
                                ? " (no context is current; cushim_context_primary makes none "
                                  "current, and cushim_context_synchronize(ctx) needs none)"
                                : "");
    }
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_context_stream_priority_range(int *least, int *greatest,
                                                         cushim_context *ctx) {
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (least == NULL && greatest == NULL) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: least and greatest are NULL", __func__);
    }
    cushim__guard g;
    r = cushim__enter(ctx->raw, &g, __func__);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__table.cuCtxGetStreamPriorityRange(least, greatest);
    CUresult l = cushim__leave(&g, __func__);
    if (r != CUDA_SUCCESS) return cushim__fail(r, "%s: %s", __func__, cushim_error_name(r));
    return l;
}

CUSHIM_API CUcontext cushim_context_raw(const cushim_context *ctx) {
    return cushim__is(ctx, CUSHIM__CONTEXT) ? ctx->raw : NULL;
}

CUSHIM_API CUdevice cushim_context_device(const cushim_context *ctx) {
    return cushim__is(ctx, CUSHIM__CONTEXT) ? ctx->device : CU_DEVICE_INVALID;
}
