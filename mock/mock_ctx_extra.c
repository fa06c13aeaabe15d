/* A context's limits and cache preferences, device queries that need no model, function
 * loading, and the graph memory attributes. Nothing here changes how the mock runs a kernel: a
 * limit or a preference is kept and read back as the driver does, with the driver's defaults and
 * the driver's checks of its arguments. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* The current context, ready for use, or the entry's error. */
#define CURRENT(c, entry)                                                                          \
    struct CUctx_st *c;                                                                            \
    do {                                                                                           \
        CUresult r_ = mock__need_current(entry, &c);                                               \
        if (r_ != CUDA_SUCCESS) return mock__leave(r_);                                            \
    } while (0)

/* A limit as a new context has it on the driver (CUDA 13, an H200); the sizes the driver
 * documents or reports. */
static unsigned long long limit_default(CUlimit l) {
    switch (l) {
    case CU_LIMIT_STACK_SIZE: return 1024;
    case CU_LIMIT_PRINTF_FIFO_SIZE: return 1 << 20;
    case CU_LIMIT_MALLOC_HEAP_SIZE: return 8 << 20;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: return 2;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: return 2048;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: return 64;
    default: return 0; /* persisting L2, the CIG limits: none in a plain context */
    }
}

CUresult CUDAAPI mock_cuCtxSetLimit(CUlimit limit, size_t value) {
    MOCK_ENTER(cuCtxSetLimit);
    CURRENT(c, "cuCtxSetLimit");
    switch (limit) {
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
        if (value > 128) return mock__leave(CUDA_ERROR_INVALID_VALUE);
        break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
        if (value > (size_t)mock__attr(c->device, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE))
            return mock__leave(CUDA_ERROR_INVALID_VALUE);
        break;
    case CU_LIMIT_SHMEM_SIZE:
    case CU_LIMIT_CIG_ENABLED: return mock__leave(CUDA_ERROR_UNSUPPORTED_LIMIT); /* query only */
    default:
        if ((unsigned)limit >= CU_LIMIT_MAX) return mock__leave(CUDA_ERROR_UNSUPPORTED_LIMIT);
        break;
    }
    if (limit == CU_LIMIT_MALLOC_HEAP_SIZE && !mock__ctx_heap_resizable(c)) {
        mock__why("cuCtxSetLimit: the device malloc heap cannot change size while "
                  "allocations made in it by kernels are live");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    c->extra.limit[limit] = value;
    c->extra.limit_set[limit] = true;
    return mock__leave(CUDA_SUCCESS);
}

void mock__ctx_limit(const struct CUctx_st *c, CUlimit limit, size_t *value) {
    *value = (size_t)(c->extra.limit_set[limit] ? c->extra.limit[limit] : limit_default(limit));
}

CUresult CUDAAPI mock_cuCtxGetLimit(size_t *value, CUlimit limit) {
    MOCK_ENTER(cuCtxGetLimit);
    if (value == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CURRENT(c, "cuCtxGetLimit");
    if ((unsigned)limit >= CU_LIMIT_MAX) return mock__leave(CUDA_ERROR_UNSUPPORTED_LIMIT);
    mock__ctx_limit(c, limit, value);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxGetCacheConfig(CUfunc_cache *config) {
    MOCK_ENTER(cuCtxGetCacheConfig);
    if (config == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CURRENT(c, "cuCtxGetCacheConfig");
    *config = (CUfunc_cache)c->extra.cache_config; /* 0 is CU_FUNC_CACHE_PREFER_NONE */
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxSetCacheConfig(CUfunc_cache config) {
    MOCK_ENTER(cuCtxSetCacheConfig);
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CURRENT(c, "cuCtxSetCacheConfig");
    c->extra.cache_config = (int)config;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxGetSharedMemConfig(CUsharedconfig *config) {
    MOCK_ENTER(cuCtxGetSharedMemConfig);
    if (config == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CURRENT(c, "cuCtxGetSharedMemConfig");
    /* Banks of four bytes unless set otherwise: what devices since Maxwell report. */
    *config = c->extra.shmem_config ? (CUsharedconfig)c->extra.shmem_config
                                    : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxSetSharedMemConfig(CUsharedconfig config) {
    MOCK_ENTER(cuCtxSetSharedMemConfig);
    if ((unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CURRENT(c, "cuCtxSetSharedMemConfig");
    c->extra.shmem_config = (int)config;
    return mock__leave(CUDA_SUCCESS);
}

/* The flags a live context may change: scheduling, host mapping, local memory and the
 * core dump switches, as cuCtxCreate takes them. */
CUresult CUDAAPI mock_cuCtxSetFlags(unsigned int flags) {
    MOCK_ENTER(cuCtxSetFlags);
    const unsigned known = CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX |
                           CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE |
                           CU_CTX_SYNC_MEMOPS;
    if (flags & ~known) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CURRENT(c, "cuCtxSetFlags");
    c->flags = flags;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxResetPersistingL2Cache(void) {
    MOCK_ENTER(cuCtxResetPersistingL2Cache);
    CURRENT(c, "cuCtxResetPersistingL2Cache");
    (void)c; /* the mock has no cache to reset */
    return mock__leave(CUDA_SUCCESS);
}

/* A context of the mock uses its whole device: its SM affinity is every SM. */
CUresult CUDAAPI mock_cuCtxGetExecAffinity(CUexecAffinityParam *p, CUexecAffinityType type) {
    MOCK_ENTER(cuCtxGetExecAffinity);
    if (p == NULL || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CURRENT(c, "cuCtxGetExecAffinity");
    p->type = type;
    p->param.smCount.val =
        (unsigned)mock__attr(c->device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    return mock__leave(CUDA_SUCCESS);
}

/* Contexts limited to part of the SMs need MPS on the driver: not supported, answered 0. */
CUresult CUDAAPI mock_cuDeviceGetExecAffinitySupport(int *pi, CUexecAffinityType type,
                                                     CUdevice dev) {
    MOCK_ENTER(cuDeviceGetExecAffinitySupport);
    if (pi == NULL || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *pi = 0;
    return mock__leave(CUDA_SUCCESS);
}

/* Writes from other devices land in host memory at once in the mock: nothing to flush. */
CUresult CUDAAPI mock_cuFlushGPUDirectRDMAWrites(CUflushGPUDirectRDMAWritesTarget target,
                                                 CUflushGPUDirectRDMAWritesScope scope) {
    MOCK_ENTER(cuFlushGPUDirectRDMAWrites);
    if (target != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX ||
        (scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER &&
         scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CURRENT(c, "cuFlushGPUDirectRDMAWrites");
    (void)c;
    return mock__leave(CUDA_SUCCESS);
}

/* The deprecated summary of a device, from its attributes. */
CUresult CUDAAPI mock_cuDeviceGetProperties(CUdevprop *prop, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetProperties);
    if (prop == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *prop = (CUdevprop){
        .maxThreadsPerBlock = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        .maxThreadsDim = {mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                          mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                          mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)},
        .maxGridSize = {mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                        mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                        mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)},
        .sharedMemPerBlock = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        .totalConstantMemory = mock__attr(dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
        .SIMDWidth = mock__attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE),
        .memPitch = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_PITCH),
        .regsPerBlock = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
        .clockRate = mock__attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
        .textureAlign = mock__attr(dev, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT),
    };
    return mock__leave(CUDA_SUCCESS);
}

/* Between two devices of the mock: access as cuDeviceCanAccessPeer answers it (devices of one
 * profile), with atomics and arrays where there is access. */
CUresult CUDAAPI mock_cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                              CUdevice src, CUdevice dst) {
    MOCK_ENTER(cuDeviceGetP2PAttribute);
    if (value == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(src) || !mock__valid_device(dst) || src == dst) {
        return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    }
    bool access = strcmp(mock__devx[src].profile, mock__devx[dst].profile) == 0;
    switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = access; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; break;
    default: return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    return mock__leave(CUDA_SUCCESS);
}

/* Lazy by default since CUDA 12.2, as CUDA_MODULE_LOADING says otherwise. The mock loads every
 * module whole either way. */
CUresult CUDAAPI mock_cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
    MOCK_ENTER(cuModuleGetLoadingMode);
    if (mode == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    const char *e = getenv("CUDA_MODULE_LOADING");
    *mode = e != NULL && strcmp(e, "EAGER") == 0 ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    return mock__leave(CUDA_SUCCESS);
}

/* Every function of a loaded module is loaded in the mock. */
CUresult CUDAAPI mock_cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction f) {
    MOCK_ENTER(cuFuncIsLoaded);
    if (state == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_kinfo k;
    CUresult r = mock__function(f, "cuFuncIsLoaded", &k);
    if (r == CUDA_SUCCESS) *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuFuncLoad(CUfunction f) {
    MOCK_ENTER(cuFuncLoad);
    mock_kinfo k;
    return mock__leave(mock__function(f, "cuFuncLoad", &k));
}

/* The dynamic shared memory a block may still ask for with numBlocks blocks of blockSize
 * threads on an SM: the SM's shared memory shared among the blocks, less each one's static
 * shared memory, within the per-block opt-in limit. */
CUresult CUDAAPI mock_cuOccupancyAvailableDynamicSMemPerBlock(size_t *size, CUfunction f,
                                                              int blocks, int threads) {
    MOCK_ENTER(cuOccupancyAvailableDynamicSMemPerBlock);
    if (size == NULL || blocks <= 0 || threads <= 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_kinfo k;
    CUresult r = mock__function(f, "cuOccupancyAvailableDynamicSMemPerBlock", &k);
    int dev = 0;
    if (r == CUDA_SUCCESS)
        r = mock__function_device("cuOccupancyAvailableDynamicSMemPerBlock", &k, &dev);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (threads > mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    long long sm = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    long long optin = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    long long stat = mock__func_attr(k.attrs, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, dev);
    long long each = sm / blocks - stat;
    if (each > optin - stat) each = optin - stat;
    *size = each > 0 ? (size_t)each : 0;
    return mock__leave(CUDA_SUCCESS);
}

/* Graph memory: the mock's graphs allocate none, so there is nothing to trim, and the use
 * counters read 0; only the high-water marks may be set, and only to 0. */
CUresult CUDAAPI mock_cuDeviceGraphMemTrim(CUdevice dev) {
    MOCK_ENTER(cuDeviceGraphMemTrim);
    return mock__leave(mock__valid_device(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

CUresult CUDAAPI mock_cuDeviceGetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr,
                                                   void *value) {
    MOCK_ENTER(cuDeviceGetGraphMemAttribute);
    if (value == NULL || (unsigned)attr > CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *(cuuint64_t *)value = 0;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceSetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr,
                                                   void *value) {
    MOCK_ENTER(cuDeviceSetGraphMemAttribute);
    if (value == NULL || *(cuuint64_t *)value != 0 ||
        (attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH && attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    return mock__leave(mock__valid_device(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}
