/* The host registration ABI that nvcc emits (crt/host_runtime.h, crt/device_functions.h): the
 * fatbins, kernels and variables a program registers from its constructors, and the launch
 * configuration of a chevron launch. Registration only records: it runs before main, in any
 * order with the program's own constructors, possibly with no driver at all, so it never loads
 * the driver and never fails loudly. What it records is loaded into a device's primary context
 * when first used there (rt_module.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_registry.h"

/* The fatbin wrapper nvcc places in .nvFatBinSegment (fatbinary_section.h): version 1 for a
 * whole-program binary, 2 for the -rdc image nvlink's link stub registers, whose fourth field
 * is then a NULL-terminated array of the objects' prelinked fatbins. */
#define FATBIN_WRAPPER_MAGIC 0x466243B1
typedef struct fatbin_wrapper {
    int magic;
    int version;
    const unsigned long long *data;
    void *filename_or_fatbins;
} fatbin_wrapper;

/* ------------------------------------------------------------------------------------------ */
/* Fatbins                                                                                    */
/* ------------------------------------------------------------------------------------------ */

void **__cudaRegisterFatBinary(void *fatCubin) {
    cushim__rt_fatbin *fb = calloc(1, sizeof *fb);
    if (fb == NULL) {
        cushim__log(CUSHIM_LOG_ERROR, "__cudaRegisterFatBinary: out of memory; the kernels of "
                                      "this binary will not be found");
        static void *nothing;
        return &nothing;
    }
    const fatbin_wrapper *w = fatCubin;
    if (w != NULL && w->magic == FATBIN_WRAPPER_MAGIC) {
        fb->image = w->data;
        fb->version = w->version;
        if (w->version == 2) fb->prelinked = (void *const *)w->filename_or_fatbins;
    } else {
        /* Not a wrapper: taken as the image itself, as a loader of raw fatbins would. */
        fb->image = fatCubin;
        cushim__log(CUSHIM_LOG_WARN,
                    "__cudaRegisterFatBinary: %p is not a fatbin wrapper "
                    "(magic 0x466243B1); loading it as an image",
                    fatCubin);
    }
    cushim__rt_registry_add_fatbin(fb);
    if (cushim__rt_eager_loading())
        atomic_store(&cushim__rt_retain_hook, cushim__rt_modules_load_all);
    /* The handle nvcc passes back to every later call: a pointer to our record's first field,
     * which is a pointer, as the ABI's void ** asks. */
    return &fb->self;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) {
    /* Modules load lazily, on first use in a device; nothing to do at the end. */
    (void)fatCubinHandle;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle) {
    cushim__rt_fatbin *fb = cushim__rt_fatbin_of(fatCubinHandle);
    if (fb != NULL) cushim__rt_registry_remove_fatbin(fb);
}

char __cudaInitModule(void **fatCubinHandle) {
    cushim__rt_fatbin *fb = cushim__rt_fatbin_of(fatCubinHandle);
    if (fb == NULL) return 0;
    return cushim__rt_init_managed(fb, __func__) == cudaSuccess;
}

/* ------------------------------------------------------------------------------------------ */
/* Kernels and variables                                                                      */
/* ------------------------------------------------------------------------------------------ */

static char *copy_name(const char *s) {
    if (s == NULL) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c != NULL) memcpy(c, s, n);
    return c;
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    cushim__rt_fatbin *fb = cushim__rt_fatbin_of(fatCubinHandle);
    cushim__rt_kernel *k = calloc(1, sizeof *k);
    /* deviceFun is the kernel's symbol in the image (mangled); deviceName is the same name. */
    char *name = copy_name(deviceFun != NULL ? deviceFun : deviceName);
    if (fb == NULL || k == NULL || name == NULL) {
        cushim__log(CUSHIM_LOG_ERROR, "__cudaRegisterFunction: %s could not be recorded",
                    name != NULL ? name : "a kernel");
        free(k);
        free(name);
        return;
    }
    k->tag = CUSHIM__RT_KERNEL_TAG;
    k->fatbin = fb;
    k->host_fn = hostFun;
    k->name = name;
    cushim__rt_registry_add_kernel(k);
}

static void register_var(void **handle, const void *host, void **managed, const char *name,
                         size_t size, int constant, const char *fn) {
    cushim__rt_fatbin *fb = cushim__rt_fatbin_of(handle);
    cushim__rt_var *v = calloc(1, sizeof *v);
    char *copy = copy_name(name);
    if (fb == NULL || v == NULL || copy == NULL) {
        cushim__log(CUSHIM_LOG_ERROR, "%s: %s could not be recorded", fn,
                    name != NULL ? name : "a variable");
        free(v);
        free(copy);
        return;
    }
    v->fatbin = fb;
    v->host_var = host;
    v->name = copy;
    v->size = size;
    v->constant = constant != 0;
    v->managed = managed != NULL;
    v->managed_ptr = managed;
    cushim__rt_registry_add_var(v);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global) {
    (void)ext, (void)global, (void)deviceName;
    /* deviceAddress is the variable's name in the image, as deviceFun is for a kernel. */
    register_var(fatCubinHandle, hostVar, NULL, deviceAddress != NULL ? deviceAddress : deviceName,
                 size, constant, __func__);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global) {
    (void)ext, (void)global, (void)deviceName;
    /* The host shadow is the pointer nvcc reads the managed address through: the symbol a
     * program passes to cudaMemcpyToSymbol is the variable, whose address is that pointer's
     * target once __cudaInitModule has run; both are recorded. */
    register_var(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress,
                 deviceAddress != NULL ? deviceAddress : deviceName, size, constant, __func__);
}

void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName, char *hostVar,
                           size_t size) {
    (void)fatCubinHandle;
    cushim__log(CUSHIM_LOG_DEBUG,
                "__cudaRegisterHostVar: %s (%zu bytes at %p) recorded only: cushim's runtime does "
                "not yet bind host variables to device code",
                deviceName ? deviceName : "?", size, (void *)hostVar);
}

/* Texture and surface references are gone from CUDA 12's device code; an older binary may still
 * register them, and is told once that they are recorded only. */
void __cudaRegisterTexture(void **fatCubinHandle, const struct textureReference *hostVar,
                           const void **deviceAddress, const char *deviceName, int dim, int norm,
                           int ext) {
    (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)dim, (void)norm, (void)ext;
    cushim__log(CUSHIM_LOG_DEBUG, "__cudaRegisterTexture: %s recorded only",
                deviceName ? deviceName : "?");
}

void __cudaRegisterSurface(void **fatCubinHandle, const struct surfaceReference *hostVar,
                           const void **deviceAddress, const char *deviceName, int dim, int ext) {
    (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)dim, (void)ext;
    cushim__log(CUSHIM_LOG_DEBUG, "__cudaRegisterSurface: %s recorded only",
                deviceName ? deviceName : "?");
}

/* ------------------------------------------------------------------------------------------ */
/* The chevron's configuration                                                                */
/* ------------------------------------------------------------------------------------------ */

/* A chevron pushes its configuration, evaluates the kernel's arguments (which may launch kernels
 * of their own) and calls the kernel's host stub, which pops it: a small stack per thread. */
typedef struct call_config {
    dim3 grid, block;
    size_t shared_mem;
    cudaStream_t stream;
} call_config;

#define CONFIG_DEPTH 16
static _Thread_local call_config configs[CONFIG_DEPTH];
static _Thread_local unsigned config_depth;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream) {
    if (config_depth >= CONFIG_DEPTH) {
        cushim__rt_fail(cudaErrorInvalidConfiguration,
                        "__cudaPushCallConfiguration: more than %d chevron launches nested in "
                        "the arguments of one another",
                        CONFIG_DEPTH);
        return 1; /* nonzero: the chevron skips the launch */
    }
    configs[config_depth++] = (call_config){gridDim, blockDim, sharedMem, (cudaStream_t)stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream) {
    if (config_depth == 0) {
        return cushim__rt_fail(cudaErrorMissingConfiguration,
                               "__cudaPopCallConfiguration: no launch configuration was pushed");
    }
    const call_config *c = &configs[--config_depth];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shared_mem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}
