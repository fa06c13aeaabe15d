/* cudaGetDeviceProperties and cudaDeviceGetAttribute: the installed header's cudaDeviceProp,
 * filled field by field from the driver's device attributes. */
#include <stddef.h>
#include <string.h>

#include "runtime/rt.h"

/* The caller's struct is the layout of the header it was compiled with, which is the header this
 * runtime was built with (a different CUDA major is a different libcudart.so.N). The fields
 * filled below end where `reserved` starts; a header that moved them must be read again before
 * this file is trusted, hence the check against CUDA 13.0's layout. */
#if CUDART_VERSION >= 13000 && CUDART_VERSION < 14000
_Static_assert(sizeof(struct cudaDeviceProp) == 1008,
               "cudaDeviceProp is not CUDA 13's 1008 bytes: check the fields filled here against "
               "the installed driver_types.h");
_Static_assert(offsetof(struct cudaDeviceProp, reserved) == 784,
               "cudaDeviceProp's fields moved: check rt_props.c against driver_types.h");
#endif

typedef struct prop_field {
    size_t offset;
    CUdevice_attribute attr;
    bool wide; /* a size_t field */
} prop_field;

#define INT(field, attr)                                                                           \
    { offsetof(struct cudaDeviceProp, field), CU_DEVICE_ATTRIBUTE_##attr, false }
#define SIZE(field, attr)                                                                          \
    { offsetof(struct cudaDeviceProp, field), CU_DEVICE_ATTRIBUTE_##attr, true }

static const prop_field fields[] = {
    SIZE(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK),
    INT(regsPerBlock, MAX_REGISTERS_PER_BLOCK),
    INT(warpSize, WARP_SIZE),
    SIZE(memPitch, MAX_PITCH),
    INT(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK),
    INT(maxThreadsDim[0], MAX_BLOCK_DIM_X),
    INT(maxThreadsDim[1], MAX_BLOCK_DIM_Y),
    INT(maxThreadsDim[2], MAX_BLOCK_DIM_Z),
    INT(maxGridSize[0], MAX_GRID_DIM_X),
    INT(maxGridSize[1], MAX_GRID_DIM_Y),
    INT(maxGridSize[2], MAX_GRID_DIM_Z),
    SIZE(totalConstMem, TOTAL_CONSTANT_MEMORY),
    INT(major, COMPUTE_CAPABILITY_MAJOR),
    INT(minor, COMPUTE_CAPABILITY_MINOR),
    SIZE(textureAlignment, TEXTURE_ALIGNMENT),
    SIZE(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT),
    INT(multiProcessorCount, MULTIPROCESSOR_COUNT),
    INT(integrated, INTEGRATED),
    INT(canMapHostMemory, CAN_MAP_HOST_MEMORY),
    INT(maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH),
    INT(maxTexture1DMipmap, MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH),
    INT(maxTexture2D[0], MAXIMUM_TEXTURE2D_WIDTH),
    INT(maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT),
    INT(maxTexture2DMipmap[0], MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH),
    INT(maxTexture2DMipmap[1], MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT),
    INT(maxTexture2DLinear[0], MAXIMUM_TEXTURE2D_LINEAR_WIDTH),
    INT(maxTexture2DLinear[1], MAXIMUM_TEXTURE2D_LINEAR_HEIGHT),
    INT(maxTexture2DLinear[2], MAXIMUM_TEXTURE2D_LINEAR_PITCH),
    INT(maxTexture2DGather[0], MAXIMUM_TEXTURE2D_GATHER_WIDTH),
    INT(maxTexture2DGather[1], MAXIMUM_TEXTURE2D_GATHER_HEIGHT),
    INT(maxTexture3D[0], MAXIMUM_TEXTURE3D_WIDTH),
    INT(maxTexture3D[1], MAXIMUM_TEXTURE3D_HEIGHT),
    INT(maxTexture3D[2], MAXIMUM_TEXTURE3D_DEPTH),
    INT(maxTexture3DAlt[0], MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE),
    INT(maxTexture3DAlt[1], MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE),
    INT(maxTexture3DAlt[2], MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE),
    INT(maxTextureCubemap, MAXIMUM_TEXTURECUBEMAP_WIDTH),
    INT(maxTexture1DLayered[0], MAXIMUM_TEXTURE1D_LAYERED_WIDTH),
    INT(maxTexture1DLayered[1], MAXIMUM_TEXTURE1D_LAYERED_LAYERS),
    INT(maxTexture2DLayered[0], MAXIMUM_TEXTURE2D_LAYERED_WIDTH),
    INT(maxTexture2DLayered[1], MAXIMUM_TEXTURE2D_LAYERED_HEIGHT),
    INT(maxTexture2DLayered[2], MAXIMUM_TEXTURE2D_LAYERED_LAYERS),
    INT(maxTextureCubemapLayered[0], MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH),
    INT(maxTextureCubemapLayered[1], MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS),
    INT(maxSurface1D, MAXIMUM_SURFACE1D_WIDTH),
    INT(maxSurface2D[0], MAXIMUM_SURFACE2D_WIDTH),
    INT(maxSurface2D[1], MAXIMUM_SURFACE2D_HEIGHT),
    INT(maxSurface3D[0], MAXIMUM_SURFACE3D_WIDTH),
    INT(maxSurface3D[1], MAXIMUM_SURFACE3D_HEIGHT),
    INT(maxSurface3D[2], MAXIMUM_SURFACE3D_DEPTH),
    INT(maxSurface1DLayered[0], MAXIMUM_SURFACE1D_LAYERED_WIDTH),
    INT(maxSurface1DLayered[1], MAXIMUM_SURFACE1D_LAYERED_LAYERS),
    INT(maxSurface2DLayered[0], MAXIMUM_SURFACE2D_LAYERED_WIDTH),
    INT(maxSurface2DLayered[1], MAXIMUM_SURFACE2D_LAYERED_HEIGHT),
    INT(maxSurface2DLayered[2], MAXIMUM_SURFACE2D_LAYERED_LAYERS),
    INT(maxSurfaceCubemap, MAXIMUM_SURFACECUBEMAP_WIDTH),
    INT(maxSurfaceCubemapLayered[0], MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH),
    INT(maxSurfaceCubemapLayered[1], MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS),
    SIZE(surfaceAlignment, SURFACE_ALIGNMENT),
    INT(concurrentKernels, CONCURRENT_KERNELS),
    INT(ECCEnabled, ECC_ENABLED),
    INT(pciBusID, PCI_BUS_ID),
    INT(pciDeviceID, PCI_DEVICE_ID),
    INT(pciDomainID, PCI_DOMAIN_ID),
    INT(tccDriver, TCC_DRIVER),
    INT(asyncEngineCount, ASYNC_ENGINE_COUNT),
    INT(unifiedAddressing, UNIFIED_ADDRESSING),
    INT(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH),
    INT(l2CacheSize, L2_CACHE_SIZE),
    INT(persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE),
    INT(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR),
    INT(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED),
    INT(globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED),
    INT(localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED),
    SIZE(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    INT(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR),
    INT(managedMemory, MANAGED_MEMORY),
    INT(isMultiGpuBoard, MULTI_GPU_BOARD),
    INT(multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID),
    INT(hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED),
    INT(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS),
    INT(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS),
    INT(computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED),
    INT(canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
    INT(cooperativeLaunch, COOPERATIVE_LAUNCH),
    SIZE(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    INT(pageableMemoryAccessUsesHostPageTables, PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
    INT(directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
    INT(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR),
    INT(accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE),
    SIZE(reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK),
    INT(hostRegisterSupported, HOST_REGISTER_SUPPORTED),
    INT(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED),
    INT(hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED),
    INT(timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED),
    INT(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED),
    INT(gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED),
    INT(gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS),
    INT(gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING),
    INT(memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES),
    INT(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED),
    INT(ipcEventSupported, IPC_EVENT_SUPPORTED),
    INT(clusterLaunch, CLUSTER_LAUNCH),
    INT(unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS),
    INT(deviceNumaConfig, NUMA_CONFIG),
    INT(deviceNumaId, NUMA_ID),
    INT(mpsEnabled, MPS_ENABLED),
    INT(hostNumaId, HOST_NUMA_ID),
    INT(gpuPciDeviceID, GPU_PCI_DEVICE_ID),
    INT(gpuPciSubsystemID, GPU_PCI_SUBSYSTEM_ID),
    INT(hostNumaMultinodeIpcSupported, HOST_NUMA_MULTINODE_IPC_SUPPORTED),
};

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    if (prop == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: prop is NULL", __func__);
    CUdevice dev;
    cudaError_t e = cushim__rt_device_handle(&dev, device, __func__);
    if (e != cudaSuccess) return e;
    memset(prop, 0, sizeof *prop);
    const cushim_driver_table *t = &cushim__table;
    CUresult r = t->cuDeviceGetName(prop->name, (int)sizeof prop->name, dev);
    if (r == CUDA_SUCCESS) r = t->cuDeviceTotalMem(&prop->totalGlobalMem, dev);
    if (r == CUDA_SUCCESS) r = t->cuDeviceGetUuid((CUuuid *)&prop->uuid, dev);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDeviceGetName");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int v = 0;
        /* An attribute the driver does not know (an older driver: CUDA_ERROR_INVALID_VALUE)
         * reads as 0, as it does for NVIDIA's runtime on such a driver; any other failure is
         * the answer (the fault sweep, rt_faults, fails each of these calls). */
        r = t->cuDeviceGetAttribute(&v, fields[i].attr, dev);
        if (r == CUDA_ERROR_INVALID_VALUE) {
            v = 0;
        } else if (r != CUDA_SUCCESS) {
            return cushim__rt_driver_failed(r, __func__, "cuDeviceGetAttribute");
        }
        char *at = (char *)prop + fields[i].offset;
        if (fields[i].wide) {
            size_t w = (size_t)(unsigned)v;
            memcpy(at, &w, sizeof w);
        } else {
            memcpy(at, &v, sizeof v);
        }
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    if (value == NULL) return cushim__rt_fail(cudaErrorInvalidValue, "%s: value is NULL", __func__);
    CUdevice dev;
    cudaError_t e = cushim__rt_device_handle(&dev, device, __func__);
    if (e != cudaSuccess) return e;
    /* cudaDeviceAttr has the numbers of CUdevice_attribute. */
    CUresult r = cushim__table.cuDeviceGetAttribute(value, (CUdevice_attribute)attr, dev);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuDeviceGetAttribute");
    return cudaSuccess;
}

/* The device that best matches prop: the first whose compute capability is at least the one
 * asked for, else device 0, as the documentation says (the closest match). */
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    if (device == NULL || prop == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: device or prop is NULL", __func__);
    }
    int n;
    cudaError_t e = cushim__rt_devices(&n, __func__);
    if (e != cudaSuccess) return e;
    int best = 0, best_score = -1;
    for (int d = 0; d < n; d++) {
        int major = 0, minor = 0;
        CUdevice dev;
        if (cushim__rt_device_handle(&dev, d, __func__) != cudaSuccess) continue;
        cushim__table.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                           dev);
        cushim__table.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                           dev);
        int score = (major * 10 + minor >= prop->major * 10 + prop->minor) ? 1 : 0;
        if (score > best_score) {
            best = d;
            best_score = score;
        }
    }
    *device = best;
    return cudaSuccess;
}
