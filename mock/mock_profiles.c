/* Devices from profiles (an H200, a small Ada consumer GPU), CUSHIM_MOCK_DEVICES, and peer
 * access between contexts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

#define A(name) CU_DEVICE_ATTRIBUTE_##name

mock_device_extra mock__devx[MOCK_MAX_DEVICES];

typedef struct attr_value {
    CUdevice_attribute attr;
    int value;
} attr_value;

/* An H200 (SXM) as the real driver describes it: every attribute of CUdevice_attribute, by its
 * first name (the aliases share its value). A new attribute in cuda.h is missing here until it
 * is added, and the every-attribute test says so. */
static const attr_value h200[] = {
    {A(MAX_THREADS_PER_BLOCK), 1024},
    {A(MAX_BLOCK_DIM_X), 1024},
    {A(MAX_BLOCK_DIM_Y), 1024},
    {A(MAX_BLOCK_DIM_Z), 64},
    {A(MAX_GRID_DIM_X), 2147483647},
    {A(MAX_GRID_DIM_Y), 65535},
    {A(MAX_GRID_DIM_Z), 65535},
    {A(MAX_SHARED_MEMORY_PER_BLOCK), 49152},
    {A(TOTAL_CONSTANT_MEMORY), 65536},
    {A(WARP_SIZE), 32},
    {A(MAX_PITCH), 2147483647},
    {A(MAX_REGISTERS_PER_BLOCK), 65536},
    {A(CLOCK_RATE), 1980000},
    {A(TEXTURE_ALIGNMENT), 512},
    {A(GPU_OVERLAP), 1},
    {A(MULTIPROCESSOR_COUNT), 132},
    {A(KERNEL_EXEC_TIMEOUT), 0},
    {A(INTEGRATED), 0},
    {A(CAN_MAP_HOST_MEMORY), 1},
    {A(COMPUTE_MODE), 0},
    {A(MAXIMUM_TEXTURE1D_WIDTH), 131072},
    {A(MAXIMUM_TEXTURE2D_WIDTH), 131072},
    {A(MAXIMUM_TEXTURE2D_HEIGHT), 65536},
    {A(MAXIMUM_TEXTURE3D_WIDTH), 16384},
    {A(MAXIMUM_TEXTURE3D_HEIGHT), 16384},
    {A(MAXIMUM_TEXTURE3D_DEPTH), 16384},
    {A(MAXIMUM_TEXTURE2D_LAYERED_WIDTH), 32768},
    {A(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT), 32768},
    {A(MAXIMUM_TEXTURE2D_LAYERED_LAYERS), 2048},
    {A(SURFACE_ALIGNMENT), 512},
    {A(CONCURRENT_KERNELS), 1},
    {A(ECC_ENABLED), 1},
    {A(PCI_BUS_ID), 0},
    {A(PCI_DEVICE_ID), 0},
    {A(TCC_DRIVER), 0},
    {A(MEMORY_CLOCK_RATE), 3201000},
    {A(GLOBAL_MEMORY_BUS_WIDTH), 6016},
    {A(L2_CACHE_SIZE), 62914560},
    {A(MAX_THREADS_PER_MULTIPROCESSOR), 2048},
    {A(ASYNC_ENGINE_COUNT), 3},
    {A(UNIFIED_ADDRESSING), 1},
    {A(MAXIMUM_TEXTURE1D_LAYERED_WIDTH), 32768},
    {A(MAXIMUM_TEXTURE1D_LAYERED_LAYERS), 2048},
    {A(CAN_TEX2D_GATHER), 1},
    {A(MAXIMUM_TEXTURE2D_GATHER_WIDTH), 32768},
    {A(MAXIMUM_TEXTURE2D_GATHER_HEIGHT), 32768},
    {A(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE), 8192},
    {A(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE), 8192},
    {A(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE), 32768},
    {A(PCI_DOMAIN_ID), 0},
    {A(TEXTURE_PITCH_ALIGNMENT), 32},
    {A(MAXIMUM_TEXTURECUBEMAP_WIDTH), 32768},
    {A(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH), 32768},
    {A(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS), 2046},
    {A(MAXIMUM_SURFACE1D_WIDTH), 32768},
    {A(MAXIMUM_SURFACE2D_WIDTH), 131072},
    {A(MAXIMUM_SURFACE2D_HEIGHT), 65536},
    {A(MAXIMUM_SURFACE3D_WIDTH), 16384},
    {A(MAXIMUM_SURFACE3D_HEIGHT), 16384},
    {A(MAXIMUM_SURFACE3D_DEPTH), 16384},
    {A(MAXIMUM_SURFACE1D_LAYERED_WIDTH), 32768},
    {A(MAXIMUM_SURFACE1D_LAYERED_LAYERS), 2048},
    {A(MAXIMUM_SURFACE2D_LAYERED_WIDTH), 32768},
    {A(MAXIMUM_SURFACE2D_LAYERED_HEIGHT), 32768},
    {A(MAXIMUM_SURFACE2D_LAYERED_LAYERS), 2048},
    {A(MAXIMUM_SURFACECUBEMAP_WIDTH), 32768},
    {A(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH), 32768},
    {A(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS), 2046},
    {A(MAXIMUM_TEXTURE1D_LINEAR_WIDTH), 268435456},
    {A(MAXIMUM_TEXTURE2D_LINEAR_WIDTH), 131072},
    {A(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT), 65000},
    {A(MAXIMUM_TEXTURE2D_LINEAR_PITCH), 2097120},
    {A(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH), 32768},
    {A(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT), 32768},
    {A(COMPUTE_CAPABILITY_MAJOR), 9},
    {A(COMPUTE_CAPABILITY_MINOR), 0},
    {A(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH), 32768},
    {A(STREAM_PRIORITIES_SUPPORTED), 1},
    {A(GLOBAL_L1_CACHE_SUPPORTED), 1},
    {A(LOCAL_L1_CACHE_SUPPORTED), 1},
    {A(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 233472},
    {A(MAX_REGISTERS_PER_MULTIPROCESSOR), 65536},
    {A(MANAGED_MEMORY), 1},
    {A(MULTI_GPU_BOARD), 0},
    {A(MULTI_GPU_BOARD_GROUP_ID), 0},
    {A(HOST_NATIVE_ATOMIC_SUPPORTED), 0},
    {A(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO), 2},
    {A(PAGEABLE_MEMORY_ACCESS), 0},
    {A(CONCURRENT_MANAGED_ACCESS), 1},
    {A(COMPUTE_PREEMPTION_SUPPORTED), 1},
    {A(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM), 1},
    {A(CAN_USE_STREAM_MEM_OPS_V1), 1},
    {A(CAN_USE_64_BIT_STREAM_MEM_OPS_V1), 1},
    {A(CAN_USE_STREAM_WAIT_VALUE_NOR_V1), 1},
    {A(COOPERATIVE_LAUNCH), 1},
    {A(COOPERATIVE_MULTI_DEVICE_LAUNCH), 0},
    {A(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 232448},
    {A(CAN_FLUSH_REMOTE_WRITES), 0},
    {A(HOST_REGISTER_SUPPORTED), 1},
    {A(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES), 0},
    {A(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST), 0},
    {A(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), 1},
    {A(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED), 1},
    {A(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED), 0},
    {A(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED), 0},
    {A(MAX_BLOCKS_PER_MULTIPROCESSOR), 32},
    {A(GENERIC_COMPRESSION_SUPPORTED), 1},
    {A(MAX_PERSISTING_L2_CACHE_SIZE), 39321600},
    {A(MAX_ACCESS_POLICY_WINDOW_SIZE), 134217728},
    {A(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED), 1},
    {A(RESERVED_SHARED_MEMORY_PER_BLOCK), 1024},
    {A(SPARSE_CUDA_ARRAY_SUPPORTED), 1},
    {A(READ_ONLY_HOST_REGISTER_SUPPORTED), 1},
    {A(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED), 1},
    {A(MEMORY_POOLS_SUPPORTED), 1},
    {A(GPU_DIRECT_RDMA_SUPPORTED), 1},
    {A(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS), 1},
    {A(GPU_DIRECT_RDMA_WRITES_ORDERING), CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER},
    {A(MEMPOOL_SUPPORTED_HANDLE_TYPES), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR},
    {A(CLUSTER_LAUNCH), 1},
    {A(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED), 1},
    {A(CAN_USE_64_BIT_STREAM_MEM_OPS), 1},
    {A(CAN_USE_STREAM_WAIT_VALUE_NOR), 1},
    {A(DMA_BUF_SUPPORTED), 1},
    {A(IPC_EVENT_SUPPORTED), 1},
    {A(MEM_SYNC_DOMAIN_COUNT), 4},
    {A(TENSOR_MAP_ACCESS_SUPPORTED), 1},
    {A(HANDLE_TYPE_FABRIC_SUPPORTED), 0},
    {A(UNIFIED_FUNCTION_POINTERS), 1},
    {A(NUMA_CONFIG), 0},
    {A(NUMA_ID), -1},
    {A(MULTICAST_SUPPORTED), 0},
    {A(MPS_ENABLED), 0},
    {A(HOST_NUMA_ID), 0},
    {A(D3D12_CIG_SUPPORTED), 0},
    {A(MEM_DECOMPRESS_ALGORITHM_MASK), 0},
    {A(MEM_DECOMPRESS_MAXIMUM_LENGTH), 0},
    {A(VULKAN_CIG_SUPPORTED), 0},
    {A(GPU_PCI_DEVICE_ID), 0x233510de},
    {A(GPU_PCI_SUBSYSTEM_ID), 0x18a610de},
    {A(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), 1},
    {A(HOST_NUMA_MEMORY_POOLS_SUPPORTED), 1},
    {A(HOST_NUMA_MULTINODE_IPC_SUPPORTED), 0},
    {A(HOST_MEMORY_POOLS_SUPPORTED), 1},
    {A(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), 1},
    {A(HOST_ALLOC_DMA_BUF_SUPPORTED), 1},
    {A(ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED), 0},
};

/* A small Ada consumer card (an RTX 4060: AD107), as differences from the H200: fewer SMs,
 * smaller limits, no ECC, no clusters, no GPUDirect RDMA. */
static const attr_value ada[] = {
    {A(MULTIPROCESSOR_COUNT), 24},
    {A(COMPUTE_CAPABILITY_MAJOR), 8},
    {A(COMPUTE_CAPABILITY_MINOR), 9},
    {A(CLOCK_RATE), 2460000},
    {A(MEMORY_CLOCK_RATE), 8501000},
    {A(GLOBAL_MEMORY_BUS_WIDTH), 128},
    {A(L2_CACHE_SIZE), 25165824},
    {A(MAX_THREADS_PER_MULTIPROCESSOR), 1536},
    {A(MAX_BLOCKS_PER_MULTIPROCESSOR), 24},
    {A(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 102400},
    {A(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 101376},
    {A(ASYNC_ENGINE_COUNT), 2},
    {A(ECC_ENABLED), 0},
    {A(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO), 64},
    {A(MAX_PERSISTING_L2_CACHE_SIZE), 12582912},
    {A(CLUSTER_LAUNCH), 0},
    {A(MEM_SYNC_DOMAIN_COUNT), 1},
    {A(TENSOR_MAP_ACCESS_SUPPORTED), 0},
    {A(GENERIC_COMPRESSION_SUPPORTED), 0},
    {A(GPU_DIRECT_RDMA_SUPPORTED), 0},
    {A(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED), 0},
    {A(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS), 0},
    {A(GPU_DIRECT_RDMA_WRITES_ORDERING), 0},
    {A(GPU_PCI_DEVICE_ID), 0x288210de},
    {A(GPU_PCI_SUBSYSTEM_ID), 0x17fe10de},
};

typedef struct profile {
    const char *name, *device_name;
    unsigned long long total_mem;
    const attr_value *over;
    size_t nover;
} profile;

static const profile profiles[] = {
    {"h200", "cushim mock H200", 141ull << 30, NULL, 0},
    {"ada", "cushim mock RTX 4060 (Ada)", 8ull << 30, ada, sizeof ada / sizeof ada[0]},
};

static const profile *find_profile(const char *name, size_t len) {
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        if (strlen(profiles[i].name) == len && strncasecmp(profiles[i].name, name, len) == 0) {
            return &profiles[i];
        }
    }
    return NULL;
}

static void apply(int ordinal, const profile *p) {
    /* The bus ids of the eight GPUs of an HGX H200 board, then made up ones. */
    static const int bus[] = {0x19, 0x3b, 0x4c, 0x5d, 0x9b, 0xbb, 0xcb, 0xdb};
    int *a = mock__state.attrs[ordinal];
    mock_device_extra *x = &mock__devx[ordinal];
    memset(a, 0, sizeof mock__state.attrs[ordinal]);
    memset(x, 0, sizeof *x);
    for (size_t i = 0; i < sizeof h200 / sizeof h200[0]; i++) {
        a[h200[i].attr] = h200[i].value;
        x->known[h200[i].attr] = true;
    }
    for (size_t i = 0; i < p->nover; i++) a[p->over[i].attr] = p->over[i].value;
    a[A(PCI_BUS_ID)] = ordinal < 8 ? bus[ordinal] : 0xe0 + ordinal;
    a[A(MULTI_GPU_BOARD_GROUP_ID)] = ordinal;
    snprintf(x->name, sizeof x->name, "%s", p->device_name);
    x->total_mem = p->total_mem;
    x->profile = p->name;
}

bool mock__apply_profile(int ordinal, const char *name) {
    const profile *p = find_profile(name, strlen(name));
    if (p == NULL || ordinal < 0 || ordinal >= MOCK_MAX_DEVICES) return false;
    apply(ordinal, p);
    return true;
}

/* Parses "h200x2, ada" into profiles; false with the reason in why. */
static bool parse(const char *spec, const profile **out, int *n, char *why, size_t whysize) {
    *n = 0;
    const char *p = spec;
    while (*p) {
        while (isspace((unsigned char)*p) || *p == ',') p++;
        if (!*p) break;
        const char *name = p;
        while (isalnum((unsigned char)*p) &&
               !((*p == 'x' || *p == 'X') && p > name && isdigit((unsigned char)p[1]) &&
                 find_profile(name, (size_t)(p - name)))) {
            p++;
        }
        const profile *pr = find_profile(name, (size_t)(p - name));
        if (pr == NULL) {
            snprintf(why, whysize, "unknown profile \"%.*s\"", (int)(p - name), name);
            return false;
        }
        long count = 1;
        while (isspace((unsigned char)*p)) p++;
        if (*p == 'x' || *p == 'X') {
            char *end;
            count = strtol(p + 1, &end, 10);
            p = end;
        }
        while (isspace((unsigned char)*p)) p++;
        if (*p && *p != ',') {
            snprintf(why, whysize, "cannot read \"%s\"", p);
            return false;
        }
        if (count < 1 || count > MOCK_MAX_DEVICES - *n) {
            snprintf(why, whysize, "between 1 and %d devices", MOCK_MAX_DEVICES);
            return false;
        }
        while (count-- > 0) out[(*n)++] = pr;
    }
    if (*n == 0) snprintf(why, whysize, "no device named");
    return *n > 0;
}

static bool set_devices(const char *spec, char *why, size_t whysize) {
    const profile *list[MOCK_MAX_DEVICES];
    int n;
    if (spec == NULL) {
        snprintf(why, whysize, "no spec");
        return false;
    }
    if (!parse(spec, list, &n, why, whysize)) return false;
    for (int d = 0; d < n; d++) apply(d, list[d]);
    for (int d = n; d < MOCK_MAX_DEVICES; d++) apply(d, &profiles[0]);
    mock__state.device_count = n;
    return true;
}

bool mock__set_devices(const char *spec) {
    char why[160];
    if (set_devices(spec, why, sizeof why)) return true;
    fprintf(stderr, "cushim mock: devices \"%s\": %s (known: h200, ada)\n", spec ? spec : "(null)",
            why);
    return false;
}

/* Why CUSHIM_MOCK_DEVICES could not be used, or empty: a configuration error, which cuInit
 * reports (mock__devices_error), not a bug in the code under test. */
static char env_error[512];

void mock__default_devices(void) {
    const char *env = getenv("CUSHIM_MOCK_DEVICES");
    env_error[0] = '\0';
    char why[160];
    if (env != NULL && *env != '\0' && !set_devices(env, why, sizeof why)) {
        /* A test suite that asked for devices the mock cannot make must not run on others:
         * cuInit fails, saying why. */
        snprintf(env_error, sizeof env_error,
                 "CUSHIM_MOCK_DEVICES=\"%.100s\" cannot be used (%s): it takes a comma-separated "
                 "list of the profiles h200 and ada, each alone or as NAMExN for N from 1 to %d "
                 "devices, such as \"h200\", \"h200x2\" or \"h200, ada\"",
                 env, why, MOCK_MAX_DEVICES);
        set_devices("h200", why, sizeof why);
        return;
    }
    if (env == NULL || *env == '\0') set_devices("h200", why, sizeof why);
}

const char *mock__devices_error(void) { return env_error[0] ? env_error : NULL; }

/* ------------------------------------------------------------------------------------------ */
/* Peers                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct peer_link {
    struct CUctx_st *from, *to;
} peer_link;
static peer_link *links;
static size_t nlinks, caplinks;

void mock__peer_forget(struct CUctx_st *ctx) {
    for (size_t i = 0; i < nlinks;) {
        if (ctx == NULL || links[i].from == ctx || links[i].to == ctx) {
            links[i] = links[--nlinks];
        } else {
            i++;
        }
    }
    if (ctx == NULL) {
        free(links);
        links = NULL;
        caplinks = 0;
    }
}

static bool can_access(int dev, int peer) {
    return dev != peer && strcmp(mock__devx[dev].profile, mock__devx[peer].profile) == 0;
}

CUresult CUDAAPI mock_cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
    MOCK_ENTER(cuDeviceCanAccessPeer);
    if (can == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev) || !mock__valid_device(peer)) {
        return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    }
    *can = can_access(dev, peer);
    return mock__leave(CUDA_SUCCESS);
}

static long find_link(struct CUctx_st *from, struct CUctx_st *to) {
    for (size_t i = 0; i < nlinks; i++) {
        if (links[i].from == from && links[i].to == to) return (long)i;
    }
    return -1;
}

static CUresult peer_args(const char *entry, CUcontext peer, struct CUctx_st **c,
                          struct CUctx_st **p) {
    CUresult r = mock__need_current(entry, c);
    if (r != CUDA_SUCCESS) return r;
    if (peer == NULL) return CUDA_ERROR_INVALID_VALUE;
    *p = mock__expect(peer, CUSHIM_MOCK_CONTEXT, entry);
    if (*p == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    return (*p)->active ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

CUresult CUDAAPI mock_cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
    MOCK_ENTER(cuCtxEnablePeerAccess);
    struct CUctx_st *c, *p;
    CUresult r = peer_args("cuCtxEnablePeerAccess", peer, &c, &p);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (flags != 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (c->device == p->device) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    if (!can_access(c->device, p->device)) return mock__leave(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    if (find_link(c, p) >= 0) return mock__leave(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    if (!mock__grow(&links, &caplinks, nlinks + 1, sizeof *links)) {
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    links[nlinks++] = (peer_link){c, p};
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxDisablePeerAccess(CUcontext peer) {
    MOCK_ENTER(cuCtxDisablePeerAccess);
    struct CUctx_st *c, *p;
    CUresult r = peer_args("cuCtxDisablePeerAccess", peer, &c, &p);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    long i = find_link(c, p);
    if (i < 0) return mock__leave(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    links[i] = links[--nlinks];
    return mock__leave(CUDA_SUCCESS);
}
