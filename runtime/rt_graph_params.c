/* The parameters of graph nodes, the runtime's structs as the driver's and back. A kernel
 * node's function is, for the runtime, the host function nvcc registered (or a cudaKernel_t):
 * it becomes the kernel loaded on the current device, and reading the node gives the host
 * function back, from the map below. Copies are converted as cudaMemcpy3D converts them
 * (rt_copy.c). */
#include <pthread.h>
#include <string.h>

#include "api/function.h"
#include "runtime/rt_copy.h"
#include "runtime/rt_forward.h"
#include "runtime/rt_graph_params.h"
#include "runtime/rt_map.h"

/* The host function (or cudaKernel_t) each kernel node's CUfunction was made from. A
 * CUfunction stays one kernel until its module is unloaded, and a module's functions are
 * only ever the kernels registered with it. */
static cushim__rt_map kernel_hosts;
static pthread_mutex_t kernel_hosts_lock = PTHREAD_MUTEX_INITIALIZER;
enum { KERNEL_HOST = 1 };

static void remember_host(CUfunction f, const void *host) {
    pthread_mutex_lock(&kernel_hosts_lock);
    /* Out of memory: the node still works, and reading it gives the CUfunction. */
    (void)cushim__rt_map_put(&kernel_hosts, f, (void *)host, KERNEL_HOST);
    pthread_mutex_unlock(&kernel_hosts_lock);
}

static void *host_of(CUfunction f) {
    pthread_mutex_lock(&kernel_hosts_lock);
    cushim__rt_map_slot *s = cushim__rt_map_find(&kernel_hosts, f);
    void *host = s != NULL && s->kind == KERNEL_HOST ? s->value : (void *)f;
    pthread_mutex_unlock(&kernel_hosts_lock);
    return host;
}

cudaError_t cushim__rt_kernel_node_in(CUDA_KERNEL_NODE_PARAMS *k,
                                      const struct cudaKernelNodeParams *p, const char *fn) {
    CUSHIM__RT_NONNULL(fn, p);
    cushim_function *f;
    cudaError_t e = cushim__rt_function(&f, p->func, fn);
    if (e != cudaSuccess) return e;
    memset(k, 0, sizeof *k);
    k->func = f->raw;
    k->gridDimX = p->gridDim.x;
    k->gridDimY = p->gridDim.y;
    k->gridDimZ = p->gridDim.z;
    k->blockDimX = p->blockDim.x;
    k->blockDimY = p->blockDim.y;
    k->blockDimZ = p->blockDim.z;
    k->sharedMemBytes = p->sharedMemBytes;
    k->kernelParams = p->kernelParams;
    k->extra = p->extra;
    remember_host(f->raw, p->func);
    return cudaSuccess;
}

void cushim__rt_kernel_node_out(struct cudaKernelNodeParams *p, const CUDA_KERNEL_NODE_PARAMS *k) {
    memset(p, 0, sizeof *p);
    p->func = host_of(k->func);
    p->gridDim = (dim3){k->gridDimX, k->gridDimY, k->gridDimZ};
    p->blockDim = (dim3){k->blockDimX, k->blockDimY, k->blockDimZ};
    p->sharedMemBytes = k->sharedMemBytes;
    p->kernelParams = k->kernelParams;
    p->extra = k->extra;
}

cudaError_t cushim__rt_memset_node_in(CUDA_MEMSET_NODE_PARAMS *m, const struct cudaMemsetParams *p,
                                      const char *fn) {
    CUSHIM__RT_NONNULL(fn, p);
    if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: elementSize %u is not 1, 2 or 4", fn,
                               p->elementSize);
    }
    *m = (CUDA_MEMSET_NODE_PARAMS){
        .dst = (CUdeviceptr)(uintptr_t)p->dst,
        .pitch = p->pitch,
        .value = p->value,
        .elementSize = p->elementSize,
        .width = p->width,
        .height = p->height,
    };
    return cudaSuccess;
}

void cushim__rt_memset_node_out(struct cudaMemsetParams *p, const CUDA_MEMSET_NODE_PARAMS *m) {
    *p = (struct cudaMemsetParams){
        .dst = (void *)(uintptr_t)m->dst,
        .pitch = m->pitch,
        .value = m->value,
        .elementSize = m->elementSize,
        .width = m->width,
        .height = m->height,
    };
}

cudaError_t cushim__rt_copy_node_in(CUDA_MEMCPY3D *c, const struct cudaMemcpy3DParms *p,
                                    const char *fn) {
    CUSHIM__RT_NONNULL(fn, p);
    return cushim__rt_copy3d_of(c, p, fn);
}

/* One side of c as the runtime's: its array, or its pointer with pitch and rows; the position
 * in elements of elem bytes. */
static void side_out(cudaArray_t *a, struct cudaPos *pos, struct cudaPitchedPtr *ptr,
                     CUmemorytype t, CUarray array, const void *host, CUdeviceptr dev, size_t pitch,
                     size_t height, size_t x, size_t y, size_t z, size_t width, size_t elem) {
    if (t == CU_MEMORYTYPE_ARRAY) {
        *a = (cudaArray_t)array;
        *pos = (struct cudaPos){x / elem, y, z};
        return;
    }
    void *p = t == CU_MEMORYTYPE_HOST ? (void *)host : (void *)(uintptr_t)dev;
    *ptr = (struct cudaPitchedPtr){p, pitch, width, height};
    *pos = (struct cudaPos){x, y, z};
}

void cushim__rt_copy_node_out(struct cudaMemcpy3DParms *p, const CUDA_MEMCPY3D *c) {
    memset(p, 0, sizeof *p);
    size_t elem = 1;
    CUarray a = c->srcMemoryType == CU_MEMORYTYPE_ARRAY   ? c->srcArray
                : c->dstMemoryType == CU_MEMORYTYPE_ARRAY ? c->dstArray
                                                          : NULL;
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (a != NULL && cushim__table.cuArray3DGetDescriptor(&d, a) == CUDA_SUCCESS) {
        size_t b = cushim__rt_format_bytes(d.Format, d.NumChannels);
        if (b != 0) elem = b;
    }
    side_out(&p->srcArray, &p->srcPos, &p->srcPtr, c->srcMemoryType, c->srcArray, c->srcHost,
             c->srcDevice, c->srcPitch, c->srcHeight, c->srcXInBytes, c->srcY, c->srcZ,
             c->WidthInBytes, elem);
    side_out(&p->dstArray, &p->dstPos, &p->dstPtr, c->dstMemoryType, c->dstArray, c->dstHost,
             c->dstDevice, c->dstPitch, c->dstHeight, c->dstXInBytes, c->dstY, c->dstZ,
             c->WidthInBytes, elem);
    p->extent = (struct cudaExtent){c->WidthInBytes / elem, c->Height, c->Depth};
    p->kind = cudaMemcpyDefault;
}

cudaError_t cushim__rt_copy_node_1d(CUDA_MEMCPY3D *c, void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind, const char *fn) {
    cudaError_t e = cushim__rt_check_kind(kind, fn);
    if (e != cudaSuccess) return e;
    memset(c, 0, sizeof *c);
    cushim__rt_copy_ptr(c, false, src, count, 1, kind);
    cushim__rt_copy_ptr(c, true, dst, count, 1, kind);
    c->WidthInBytes = count;
    c->Height = 1;
    c->Depth = 1;
    return cudaSuccess;
}

cudaError_t cushim__rt_copy_node_symbol(CUDA_MEMCPY3D *c, bool to_symbol, void *ptr,
                                        const void *symbol, size_t count, size_t offset,
                                        enum cudaMemcpyKind kind, const char *fn) {
    enum cudaMemcpyKind across = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != across && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
        return cushim__rt_fail(cudaErrorInvalidMemcpyDirection,
                               "%s: kind %d does not copy %s the device", fn, (int)kind,
                               to_symbol ? "to" : "from");
    }
    CUdeviceptr at;
    size_t size;
    cudaError_t e = cushim__rt_symbol(&at, &size, symbol, fn);
    if (e != cudaSuccess) return e;
    if (offset > size || count > size - offset) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: %zu bytes at offset %zu do not fit the symbol's %zu", fn, count,
                               offset, size);
    }
    void *var = (void *)(uintptr_t)(at + offset);
    return to_symbol ? cushim__rt_copy_node_1d(c, var, ptr, count, kind, fn)
                     : cushim__rt_copy_node_1d(c, ptr, var, count, kind, fn);
}
