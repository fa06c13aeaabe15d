/* Pointer attributes: what cuPointerGetAttribute(s) answer for an address the mock handed out. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Pointer attributes                                                                         */
/* ------------------------------------------------------------------------------------------ */

/* Writes one attribute of the range r (NULL: a pointer the mock does not know) to data. The
 * documented types: handles and addresses as such, booleans as bool, the rest as stated. */
static CUresult attribute(void *data, CUpointer_attribute a, const mock_range *r, uintptr_t p,
                          bool lenient) {
    if (r == NULL && !lenient) return CUDA_ERROR_INVALID_VALUE;
    bool host_side = r && (r->kind == MOCK_MEM_HOST || r->kind == MOCK_MEM_REGISTERED ||
                           r->kind == MOCK_MEM_MANAGED);
    switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = r ? r->ctx : NULL; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: {
        bool host = r && (r->kind == MOCK_MEM_HOST || r->kind == MOCK_MEM_REGISTERED);
        *(unsigned int *)data = r == NULL ? 0 : host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = r ? (CUdeviceptr)p : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!host_side && !lenient) return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = host_side ? (void *)p : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(bool *)data = r && (a == CU_POINTER_ATTRIBUTE_SYNC_MEMOPS ? r->sync_memops
                                                                    : r->kind == MOCK_MEM_DEVICE);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        *(unsigned long long *)data = r ? r->id : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(bool *)data = r && r->kind == MOCK_MEM_MANAGED;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = r ? r->device : -2;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(CUdeviceptr *)data = r ? (CUdeviceptr)r->base : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *(size_t *)data = r ? r->size : 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(bool *)data = r != NULL; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: *(bool *)data = false; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned int *)data = r == NULL ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE
                                : r->kind == MOCK_MEM_VMM_MAPPING
                                    ? r->access
                                    : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = r && r->kind == MOCK_MEM_ASYNC ? mock__pool_of(r) : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI mock_cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr ptr) {
    MOCK_ENTER(cuPointerGetAttribute);
    if (data == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_range *r = mock__range_at((uintptr_t)ptr, false);
    return mock__leave(attribute(data, a, r, (uintptr_t)ptr, false));
}

CUresult CUDAAPI mock_cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs,
                                             void **data, CUdeviceptr ptr) {
    MOCK_ENTER(cuPointerGetAttributes);
    if (n == 0 || attrs == NULL || data == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    /* Unlike the singular form, an unknown pointer gets empty answers, not an error. */
    mock_range *r = mock__range_at((uintptr_t)ptr, false);
    for (unsigned i = 0; i < n; i++) {
        if (data[i] == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
        CUresult e = attribute(data[i], attrs[i], r, (uintptr_t)ptr, true);
        if (e != CUDA_SUCCESS) return mock__leave(e);
    }
    return mock__leave(CUDA_SUCCESS);
}
