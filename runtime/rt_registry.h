/* Internal: what the registration ABI records (rt_register.c) and where it is kept
 * (rt_registry.c), and the loading of it into a device (rt_module.c). */
#ifndef CUSHIM_RUNTIME_RT_REGISTRY_H
#define CUSHIM_RUNTIME_RT_REGISTRY_H

#include "runtime/rt.h"

/* A registered fatbin. `self` comes first: its address is the handle nvcc keeps
 * (__cudaFatCubinHandle, a void **) and passes to every later registration call. */
struct cushim__rt_fatbin {
    void *self;
    uint32_t tag;           /* CUSHIM__RT_FATBIN_TAG while registered */
    const void *image;      /* the fatbin (header magic 0xBA55ED50) */
    int version;            /* of the wrapper: 2 for an -rdc binary linked by nvlink */
    void *const *prelinked; /* version 2: the objects' own fatbins, NULL-terminated */
    _Atomic(cushim_module *) module[CUSHIM__RT_MAX_DEVICES];
    struct cushim__rt_fatbin *next;
};
#define CUSHIM__RT_FATBIN_TAG 0x66627431u

/* The registry: fatbins in a list, kernels and variables by the host address nvcc registered
 * them under (and kernels by their own address too, which is their cudaKernel_t). Adding never
 * fails loudly: an entry that cannot be kept is logged and left out. */
void cushim__rt_registry_add_fatbin(cushim__rt_fatbin *fb);
void cushim__rt_registry_add_kernel(cushim__rt_kernel *k);
void cushim__rt_registry_add_var(cushim__rt_var *v);
/* Forgets fb with its kernels and variables and unloads its modules (the driver's refusal, at
 * exit after it has gone, is only logged). */
void cushim__rt_registry_remove_fatbin(cushim__rt_fatbin *fb);
/* The fatbin of a handle __cudaRegisterFatBinary returned, or NULL. */
cushim__rt_fatbin *cushim__rt_fatbin_of(void **handle);
/* Calls fn for each registered variable of fb (NULL: of every fatbin), under the registry's
 * lock: fn may not call back into the registry. */
void cushim__rt_registry_each_var(cushim__rt_fatbin *fb, void (*fn)(cushim__rt_var *, void *),
                                  void *user);

/* Calls fn for each registered fatbin, under the registry's read lock (fn may call the driver,
 * not back into the registry's writers). */
void cushim__rt_registry_each_fatbin(void (*fn)(cushim__rt_fatbin *, void *), void *user);

/* Whether CUDA_MODULE_LOADING asks for eager loading ("EAGER"); then every registered fatbin is
 * loaded into a primary context when the runtime retains it (failures are left to first use:
 * rt_module.c). */
bool cushim__rt_eager_loading(void);
void cushim__rt_modules_load_all(cushim_context *ctx, int device);
/* The module of fb in the current device's primary context (ctx, current), loaded on first
 * use; the driver's code (cushim_last_error() says why), or with the failure recorded for fn. */
CUresult cushim__rt_fatbin_load(cushim_module **out, cushim__rt_fatbin *fb, cushim_context *ctx,
                                int device);
cudaError_t cushim__rt_fatbin_module(cushim_module **out, cushim__rt_fatbin *fb,
                                     cushim_context *ctx, int device, const char *fn);
/* __cudaInitModule: fb's module loaded on the current device and each of its managed
 * variables' host pointers set to the variable's address. */
cudaError_t cushim__rt_init_managed(cushim__rt_fatbin *fb, const char *fn);

/* The registration ABI, as crt/host_runtime.h and crt/device_functions.h declare it for C++
 * (those headers are C++ only); the definitions are checked against these. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
char __cudaInitModule(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global);
void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName, char *hostVar,
                           size_t size);
struct textureReference;
struct surfaceReference;
void __cudaRegisterTexture(void **fatCubinHandle, const struct textureReference *hostVar,
                           const void **deviceAddress, const char *deviceName, int dim, int norm,
                           int ext);
void __cudaRegisterSurface(void **fatCubinHandle, const struct surfaceReference *hostVar,
                           const void **deviceAddress, const char *deviceName, int dim, int ext);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);

#endif
