/* Registered device code, loaded into a device's primary context on first use there (or, with
 * CUDA_MODULE_LOADING=EAGER, when the runtime retains that context: rt_registry.c): the whole
 * fatbin goes to the driver, so a GPU picks its SASS and the mock runs its PTX. A kernel's
 * function and a variable's address are kept per device until cudaDeviceReset. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/module.h"
#include "runtime/rt_registry.h"

CUresult cushim__rt_fatbin_load(cushim_module **out, cushim__rt_fatbin *fb, cushim_context *ctx,
                                int device) {
    cushim_module *m = atomic_load_explicit(&fb->module[device], memory_order_acquire);
    if (CUSHIM__LIKELY(m != NULL)) {
        *out = m;
        return CUDA_SUCCESS;
    }
    /* No lock is held across the driver's load (it may JIT for seconds): two threads that race
     * here both load, and the one that loses the exchange unloads its copy. */
    CUresult r = cushim_module_load_data(&m, ctx, fb->image);
    if (r != CUDA_SUCCESS) return r;
    cushim_module *none = NULL;
    if (!atomic_compare_exchange_strong(&fb->module[device], &none, m)) {
        cushim_module_release(m);
        m = none;
    }
    *out = m;
    return CUDA_SUCCESS;
}

cudaError_t cushim__rt_fatbin_module(cushim_module **out, cushim__rt_fatbin *fb,
                                     cushim_context *ctx, int device, const char *fn) {
    CUresult r = cushim__rt_fatbin_load(out, fb, ctx, device);
    if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS)) {
        return cushim__rt_fail(cushim__rt_from_cu(r),
                               "%s: the device code registered by this program could not be "
                               "loaded on device %d: %s",
                               fn, device, cushim_last_error());
    }
    return cudaSuccess;
}

/* CUDA_MODULE_LOADING=EAGER, as NVIDIA documents it for the runtime: every registered fatbin is
 * loaded into a device's primary context when the runtime makes it, not at the first use of one
 * of its kernels or variables (LAZY, the default since CUDA 12.2, and anything else). */
bool cushim__rt_eager_loading(void) {
    const char *e = getenv("CUDA_MODULE_LOADING");
    return e != NULL && strcasecmp(e, "EAGER") == 0;
}

typedef struct eager_load {
    cushim_context *ctx;
    int device;
} eager_load;

static void load_one(cushim__rt_fatbin *fb, void *user) {
    const eager_load *l = user;
    cushim_module *m;
    (void)cushim__rt_fatbin_load(&m, fb, l->ctx, l->device);
}

/* The registry's read lock is held across the loads (a fatbin cannot be removed meanwhile): a
 * library registering its code in another thread waits for them. A load that fails is left for
 * the first use, which loads again and reports it. */
void cushim__rt_modules_load_all(cushim_context *ctx, int device) {
    eager_load l = {ctx, device};
    cushim__rt_registry_each_fatbin(load_one, &l);
}

static CUSHIM__COLD cudaError_t not_registered(const void *p, const char *fn) {
    return cushim__rt_fail(cudaErrorInvalidDeviceFunction,
                           "%s: %p is not a kernel registered with cushim's runtime (a __global__ "
                           "function of a program or library compiled by nvcc)",
                           fn, p);
}

cudaError_t cushim__rt_kernel_function(cushim_function **out, cushim__rt_kernel *k,
                                       const char *fn) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (CUSHIM__UNLIKELY(e != cudaSuccess)) return e;
    if (CUSHIM__UNLIKELY(k == NULL || k->tag != CUSHIM__RT_KERNEL_TAG)) {
        return not_registered(k, fn);
    }
    int device = cushim__rt_device();
    cushim_function *f = atomic_load_explicit(&k->fn[device], memory_order_acquire);
    if (CUSHIM__LIKELY(f != NULL)) {
        *out = f;
        return cudaSuccess;
    }
    cushim_module *m = NULL;
    e = cushim__rt_fatbin_module(&m, k->fatbin, ctx, device, fn);
    if (e != cudaSuccess) return e;
    /* cushim_module_function answers the same object for the same name: a race stores it
     * twice. */
    CUresult r = cushim_module_function(&f, m, k->name);
    if (r != CUDA_SUCCESS) {
        return cushim__rt_fail(r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction
                                                         : cushim__rt_from_cu(r),
                               "%s: kernel %s: %s", fn, k->name, cushim_last_error());
    }
    atomic_store_explicit(&k->fn[device], f, memory_order_release);
    *out = f;
    return cudaSuccess;
}

cudaError_t cushim__rt_function(cushim_function **out, const void *p, const char *fn) {
    cushim__rt_kernel *k = cushim__rt_kernel_of(p);
    if (CUSHIM__UNLIKELY(k == NULL)) {
        /* The context first: without a driver, that is the error to give. */
        cushim_context *ctx;
        cudaError_t e = cushim__rt_context(&ctx, fn);
        if (e != cudaSuccess) return e;
        return not_registered(p, fn);
    }
    return cushim__rt_kernel_function(out, k, fn);
}

static cudaError_t var_address(CUdeviceptr *ptr, size_t *size, cushim__rt_var *v,
                               cushim_context *ctx, int device, const char *fn) {
    CUdeviceptr p = atomic_load_explicit(&v->ptr[device], memory_order_acquire);
    if (p != 0) {
        *ptr = p;
        if (size) *size = v->size;
        return cudaSuccess;
    }
    cushim_module *m = NULL;
    cudaError_t e = cushim__rt_fatbin_module(&m, v->fatbin, ctx, device, fn);
    if (e != cudaSuccess) return e;
    size_t bytes = 0;
    CUresult r = cushim__table.cuModuleGetGlobal(&p, &bytes, m->raw, v->name);
    if (r != CUDA_SUCCESS) {
        return cushim__rt_fail(
            r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidSymbol : cushim__rt_from_cu(r),
            "%s: variable %s: cuModuleGetGlobal failed with %s", fn, v->name, cushim_error_name(r));
    }
    atomic_store_explicit(&v->ptr[device], p, memory_order_release);
    *ptr = p;
    if (size) *size = v->size ? v->size : bytes;
    return cudaSuccess;
}

cudaError_t cushim__rt_symbol(CUdeviceptr *ptr, size_t *size, const void *symbol, const char *fn) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    cushim__rt_var *v = cushim__rt_var_of(symbol);
    if (v == NULL) {
        return cushim__rt_fail(cudaErrorInvalidSymbol,
                               "%s: %p is not a __device__, __constant__ or __managed__ variable "
                               "registered with cushim's runtime",
                               fn, symbol);
    }
    return var_address(ptr, size, v, ctx, cushim__rt_device(), fn);
}

typedef struct managed_walk {
    cushim__rt_var *vars[256];
    int n;
} managed_walk;

static void collect_managed(cushim__rt_var *v, void *user) {
    managed_walk *w = user;
    if (v->managed && w->n < (int)(sizeof w->vars / sizeof w->vars[0])) w->vars[w->n++] = v;
}

cudaError_t cushim__rt_init_managed(cushim__rt_fatbin *fb, const char *fn) {
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    managed_walk w = {.n = 0};
    cushim__rt_registry_each_var(fb, collect_managed, &w);
    int device = cushim__rt_device();
    for (int i = 0; i < w.n; i++) {
        CUdeviceptr p = 0;
        e = var_address(&p, NULL, w.vars[i], ctx, device, fn);
        if (e != cudaSuccess) return e;
        *w.vars[i]->managed_ptr = (void *)(uintptr_t)p;
    }
    return cudaSuccess;
}
