/* Kernel launches: the chevron's path (__cudaGetKernel, __cudaLaunchKernel), cudaLaunchKernel,
 * cooperative launches and cudaLaunchKernelExC with attributes. Each goes through cushim_launch,
 * so the launch checks of the object API (dimensions, threads, shared memory, clusters,
 * co-residency) refuse a bad launch before the driver, naming the kernel. */
#include "api/function.h"
#include "cudart_ptds.h"
#include "runtime/rt_registry.h"

/* cushim_launch takes a cushim stream; a runtime stream is a driver handle. This view of one
 * lives for the call only: the launch reads its tag, its context (set to the kernel's, so the
 * driver, not cushim, judges a stream of another context) and its handle, and keeps nothing. */
static inline void stream_view(cushim_stream *view, const cushim_function *f, cudaStream_t s,
                               bool per_thread) {
    cushim__object_init(&view->obj, CUSHIM__STREAM);
    view->ctx = NULL;
    view->ctx_raw = f->ctx_raw;
    view->raw = cushim__rt_stream(s, per_thread);
}

/* The launch's refusal or failure as the runtime names it: a configuration cushim's checks
 * refused (CUDA_ERROR_INVALID_VALUE) is cudaErrorInvalidConfiguration, as NVIDIA's runtime
 * answers for dimensions, threads and shared memory out of range. */
static CUSHIM__COLD cudaError_t launch_failed(CUresult r, const char *fn) {
    if (r == CUDA_ERROR_INVALID_VALUE) {
        return cushim__rt_fail(cudaErrorInvalidConfiguration, "%s: %s", fn, cushim_last_error());
    }
    return cushim__rt_cushim_failed(r, fn);
}

static inline cushim_launch_config config_of(dim3 grid, dim3 block, size_t smem) {
    cushim_launch_config c = cushim_launch_config_make(CUSHIM_DIM3(grid.x, grid.y, grid.z),
                                                       CUSHIM_DIM3(block.x, block.y, block.z));
    /* More than 4 GiB of shared memory is refused by the checks as it is, not truncated. */
    c.shared_mem_bytes = smem > 0xffffffffu ? 0xffffffffu : (unsigned)smem;
    return c;
}

static inline cudaError_t launch_function(cushim_function *f, const cushim_launch_config *base,
                                          cudaStream_t stream, void **args, bool per_thread,
                                          bool cooperative, const char *fn) {
    cushim_stream view;
    stream_view(&view, f, stream, per_thread);
    cushim_launch_config cfg = *base;
    cfg.stream = &view;
    CUresult r =
        cooperative ? cushim_launch_cooperative(f, &cfg, args) : cushim_launch(f, &cfg, args);
    if (CUSHIM__UNLIKELY(r != CUDA_SUCCESS)) return launch_failed(r, fn);
    return cudaSuccess;
}

static cudaError_t launch(const void *func, const cushim_launch_config *base, cudaStream_t stream,
                          void **args, bool per_thread, bool cooperative, const char *fn) {
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, func, fn);
    if (CUSHIM__UNLIKELY(e != cudaSuccess)) return e;
    return launch_function(f, base, stream, args, per_thread, cooperative, fn);
}

/* The chevron's launch: the handle is what __cudaGetKernel gave the stub, no look-up needed. */
static cudaError_t launch_handle(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                 size_t smem, cudaStream_t stream, bool per_thread) {
    cushim_function *f;
    cudaError_t e = cushim__rt_kernel_function(&f, (cushim__rt_kernel *)kernel, "cudaLaunchKernel");
    if (CUSHIM__UNLIKELY(e != cudaSuccess)) return e;
    cushim_launch_config c = config_of(grid, block, smem);
    return launch_function(f, &c, stream, args, per_thread, false, "cudaLaunchKernel");
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream) {
    cushim_launch_config c = config_of(gridDim, blockDim, sharedMem);
    return launch(func, &c, stream, args, false, false, __func__);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream) {
    cushim_launch_config c = config_of(gridDim, blockDim, sharedMem);
    return launch(func, &c, stream, args, true, false, __func__);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream) {
    cushim_launch_config c = config_of(gridDim, blockDim, sharedMem);
    return launch(func, &c, stream, args, false, true, __func__);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream) {
    cushim_launch_config c = config_of(gridDim, blockDim, sharedMem);
    return launch(func, &c, stream, args, true, true, __func__);
}

/* The chevron: nvcc's stub asks once for the kernel's handle, then launches through it. */
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn) {
    cushim__rt_kernel *k = cushim__rt_kernel_of(fn);
    if (k == NULL) {
        *kernel = NULL;
        return cushim__rt_fail(cudaErrorInvalidDeviceFunction,
                               "__cudaGetKernel: %p is not a registered kernel", fn);
    }
    *kernel = (cudaKernel_t)k;
    return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
    if (kernelPtr == NULL)
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: kernelPtr is NULL", __func__);
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream) {
    return launch_handle(kernel, gridDim, blockDim, args, sharedMem, stream, false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream) {
    return launch_handle(kernel, gridDim, blockDim, args, sharedMem, stream, true);
}

/* ------------------------------------------------------------------------------------------ */
/* cudaLaunchKernelExC                                                                        */
/* ------------------------------------------------------------------------------------------ */

static cudaError_t attributes(cushim_launch_config *c, const cudaLaunchConfig_t *config,
                              const char *fn) {
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        switch (a->id) {
        case cudaLaunchAttributeIgnore: break;
        case cudaLaunchAttributeClusterDimension:
            c->cluster = CUSHIM_DIM3(a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z);
            break;
        case cudaLaunchAttributeCooperative: c->cooperative = a->val.cooperative != 0; break;
        case cudaLaunchAttributePriority:
            c->has_priority = true;
            c->priority = a->val.priority;
            break;
        case cudaLaunchAttributeProgrammaticStreamSerialization:
            c->programmatic_serialization = a->val.programmaticStreamSerializationAllowed != 0;
            break;
        default:
            return cushim__rt_fail(cudaErrorNotSupported,
                                   "%s: launch attribute %d (attrs[%u]) is not implemented by "
                                   "cushim's runtime (it has the cluster dimension, cooperative, "
                                   "priority and programmatic stream serialization)",
                                   fn, (int)a->id, i);
        }
    }
    return cudaSuccess;
}

static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, void **args,
                             bool per_thread, const char *fn) {
    if (config == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: config is NULL", fn);
    if (config->numAttrs > 0 && config->attrs == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: config->attrs is NULL with %u "
                               "attributes",
                               fn, config->numAttrs);
    }
    cushim_launch_config c = config_of(config->gridDim, config->blockDim, config->dynamicSmemBytes);
    cudaError_t e = attributes(&c, config, fn);
    if (e != cudaSuccess) return e;
    return launch(func, &c, config->stream, args, per_thread, false, fn);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
    return launch_ex(config, func, args, false, __func__);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args) {
    return launch_ex(config, func, args, true, __func__);
}
