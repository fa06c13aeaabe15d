/* What an address is (cudaPointerGetAttributes): device, host (pinned or registered), managed,
 * or memory the CUDA runtime does not know, which is no error since CUDA 11. */
#include <stdint.h>
#include <string.h>

#include "runtime/rt.h"

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
    if (attributes == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: attributes is NULL", __func__);
    }
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, __func__);
    if (e != cudaSuccess) return e;
    CUmemorytype type = 0;
    int ordinal = -2;
    CUdeviceptr device = 0;
    void *host = NULL;
    unsigned managed = 0;
    CUpointer_attribute which[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
        CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void *into[] = {&type, &ordinal, &device, &host, &managed};
    /* The plural query answers an unknown address with empty values and success. */
    CUresult r = cushim__table.cuPointerGetAttributes(5, which, into, (CUdeviceptr)(uintptr_t)ptr);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuPointerGetAttributes");
    memset(attributes, 0, sizeof *attributes);
    if (managed) {
        attributes->type = cudaMemoryTypeManaged;
    } else if (type == CU_MEMORYTYPE_DEVICE) {
        attributes->type = cudaMemoryTypeDevice;
    } else if (type == CU_MEMORYTYPE_HOST) {
        attributes->type = cudaMemoryTypeHost;
    } else {
        /* Not the runtime's: as NVIDIA's runtime, the address is its own host pointer. */
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = (void *)ptr;
        return cudaSuccess;
    }
    attributes->device = ordinal;
    attributes->devicePointer = (void *)(uintptr_t)device;
    attributes->hostPointer = host;
    return cudaSuccess;
}
