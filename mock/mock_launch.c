/* Launches (checked here; recorded and run in stream order by mock_kernels.c) and the
 * occupancy model of cushim_mock.h. */
#include <stdio.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Occupancy                                                                                  */
/* ------------------------------------------------------------------------------------------ */

void mock__occ_snapshot(int dev, const mock_fattrs *a, mock_occ *o) {
    o->override = mock__state.occupancy_override;
    o->max_threads = mock__func_attr(a, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    o->max_blocks_sm = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    o->max_threads_sm = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    o->smem_sm = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    o->smem_optin = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    o->static_smem = mock__state.kernel_static_smem;
    o->sms = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

/* min(max blocks per SM, max threads per SM / block, smem per SM / (static + dynamic smem)),
 * 0 for a block the function cannot run. */
int mock__occ_blocks(const mock_occ *o, int block, size_t dynamic_smem) {
    if (o->override >= 0) return o->override;
    if (block <= 0 || block > o->max_threads) return 0;
    int blocks = o->max_blocks_sm;
    if (o->max_threads_sm / block < blocks) blocks = o->max_threads_sm / block;
    unsigned long long smem = (unsigned long long)o->static_smem + dynamic_smem;
    if (smem > 0) {
        if (smem > (unsigned long long)o->smem_optin) return 0;
        unsigned long long by_smem = (unsigned long long)o->smem_sm / smem;
        if (by_smem < (unsigned long long)blocks) blocks = (int)by_smem;
    }
    return blocks > 0 ? blocks : 0;
}

static CUresult occ_setup(const char *entry, CUfunction f, mock_occ *o) {
    mock_kinfo k;
    int dev = 0;
    /* The real driver (580, H200) answers CUDA_ERROR_INVALID_CONTEXT to occupancy queries when
     * no context is current, even for a CUfunction that knows its own. */
    struct CUctx_st *cur = NULL;
    CUresult r = mock__need_current(entry, &cur);
    if (r == CUDA_SUCCESS) r = mock__function(f, entry, &k);
    if (r == CUDA_SUCCESS) r = mock__function_device(entry, &k, &dev);
    if (r == CUDA_SUCCESS) mock__occ_snapshot(dev, k.attrs, o);
    return r;
}

static CUresult active_blocks(const char *entry, int *n, CUfunction f, int block, size_t smem,
                              unsigned flags) {
    if (n == NULL || block <= 0 || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    mock_occ o;
    CUresult r = occ_setup(entry, f, &o);
    if (r == CUDA_SUCCESS) *n = mock__occ_blocks(&o, block, smem);
    return r;
}

CUresult CUDAAPI mock_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block,
                                                                  size_t smem) {
    MOCK_ENTER(cuOccupancyMaxActiveBlocksPerMultiprocessor);
    return mock__leave(
        active_blocks("cuOccupancyMaxActiveBlocksPerMultiprocessor", n, f, block, smem, 0));
}

CUresult CUDAAPI mock_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f,
                                                                           int block, size_t smem,
                                                                           unsigned int flags) {
    MOCK_ENTER(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    return mock__leave(active_blocks("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", n, f,
                                     block, smem, flags));
}

/* Called with the lock held; returns with it released, because the search calls back into the
 * caller (which may call the driver). Block sizes are tried from the largest down in steps of
 * a warp, and the one with the most active threads per SM wins (the larger on a tie), as in
 * the CUDA occupancy calculator. */
static CUresult potential(const char *entry, int *min_grid, int *block_size, CUfunction f,
                          CUoccupancyB2DSize smem_of, size_t smem, int limit, unsigned flags) {
    if (min_grid == NULL || block_size == NULL ||
        (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    mock_occ o;
    CUresult r = occ_setup(entry, f, &o);
    mock__unlock();
    if (r != CUDA_SUCCESS) return r;
    int top = o.max_threads;
    if (limit > 0 && limit < top) top = limit;
    int best_block = 0, best_blocks = 0;
    long long best_threads = 0;
    for (int aligned = (top + 31) / 32 * 32; aligned > 0; aligned -= 32) {
        int b = aligned < top ? aligned : top;
        size_t dyn = smem_of ? smem_of(b) : smem;
        int blocks = mock__occ_blocks(&o, b, dyn);
        if ((long long)blocks * b > best_threads) {
            best_threads = (long long)blocks * b;
            best_block = b;
            best_blocks = blocks;
        }
    }
    *block_size = best_block;
    *min_grid = best_blocks * o.sms;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, CUfunction f,
                                                       CUoccupancyB2DSize smem_of, size_t smem,
                                                       int limit) {
    MOCK_ENTER(cuOccupancyMaxPotentialBlockSize);
    return potential("cuOccupancyMaxPotentialBlockSize", min_grid, block_size, f, smem_of, smem,
                     limit, 0);
}

CUresult CUDAAPI mock_cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block_size,
                                                                CUfunction f,
                                                                CUoccupancyB2DSize smem_of,
                                                                size_t smem, int limit,
                                                                unsigned int flags) {
    MOCK_ENTER(cuOccupancyMaxPotentialBlockSizeWithFlags);
    return potential("cuOccupancyMaxPotentialBlockSizeWithFlags", min_grid, block_size, f, smem_of,
                     smem, limit, flags);
}

/* ------------------------------------------------------------------------------------------ */
/* Clusters                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* The portable cluster size, and the most a kernel that allows non-portable sizes gets (the
 * H200's answers); a cluster's blocks share one GPC, of this many SMs in the model. */
#define MOCK_CLUSTER_PORTABLE 8
#define MOCK_CLUSTER_NON_PORTABLE 16
#define MOCK_GPC_SMS 16

static bool has_clusters(int dev) {
    return mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 9 &&
           mock__attr(dev, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
}

/* The largest cluster of blocks of this shape: the portable (or non-portable) limit, or fewer
 * where the blocks that fit on one GPC's SMs are fewer; 0 for a block that cannot run. */
static int max_cluster(int dev, const mock_fattrs *a, const mock_occ *o, int threads, size_t smem) {
    int limit = mock__func_attr(a, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, dev)
                    ? MOCK_CLUSTER_NON_PORTABLE
                    : MOCK_CLUSTER_PORTABLE;
    long long fit = (long long)mock__occ_blocks(o, threads, smem) * MOCK_GPC_SMS;
    return fit < limit ? (int)fit : limit;
}

/* The cluster attribute of a launch configuration, NULL when it has none. */
static const CUlaunchAttribute *cluster_attr(const CUlaunchAttribute *attrs, unsigned n) {
    for (unsigned i = 0; attrs != NULL && i < n; i++) {
        if (attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) return &attrs[i];
    }
    return NULL;
}

/* A device without clusters answers CUDA_ERROR_NOT_SUPPORTED to both queries (the mock's
 * choice; cushim refuses before asking). */
static CUresult cluster_query(const char *entry, int *out, CUfunction f, const CUlaunchConfig *c,
                              bool active) {
    if (out == NULL || c == NULL || (c->numAttrs > 0 && c->attrs == NULL)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct CUctx_st *cur = NULL;
    mock_kinfo k;
    int dev = 0;
    CUresult r = mock__need_current(entry, &cur);
    if (r == CUDA_SUCCESS) r = mock__function(f, entry, &k);
    if (r == CUDA_SUCCESS) r = mock__function_device(entry, &k, &dev);
    if (r != CUDA_SUCCESS) return r;
    if (!has_clusters(dev)) return CUDA_ERROR_NOT_SUPPORTED;
    unsigned long long threads = (unsigned long long)c->blockDimX * c->blockDimY * c->blockDimZ;
    if (threads == 0 || threads > 0x7fffffff) return CUDA_ERROR_INVALID_VALUE;
    mock_occ o;
    mock__occ_snapshot(dev, k.attrs, &o);
    int max = max_cluster(dev, k.attrs, &o, (int)threads, c->sharedMemBytes);
    if (!active) {
        *out = max;
        return CUDA_SUCCESS;
    }
    const CUlaunchAttribute *a = cluster_attr(c->attrs, c->numAttrs);
    if (a == NULL) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    unsigned long long size =
        (unsigned long long)a->value.clusterDim.x * a->value.clusterDim.y * a->value.clusterDim.z;
    if (size == 0 || size > (unsigned long long)max) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    *out = (int)((unsigned long long)mock__occ_blocks(&o, (int)threads, c->sharedMemBytes) *
                 (unsigned)o.sms / size);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuOccupancyMaxPotentialClusterSize(int *size, CUfunction f,
                                                         const CUlaunchConfig *config) {
    MOCK_ENTER(cuOccupancyMaxPotentialClusterSize);
    return mock__leave(cluster_query("cuOccupancyMaxPotentialClusterSize", size, f, config, false));
}

CUresult CUDAAPI mock_cuOccupancyMaxActiveClusters(int *n, CUfunction f,
                                                   const CUlaunchConfig *config) {
    MOCK_ENTER(cuOccupancyMaxActiveClusters);
    return mock__leave(cluster_query("cuOccupancyMaxActiveClusters", n, f, config, true));
}

/* A launch's cluster, checked as the driver does: a device with clusters, a grid of whole
 * clusters, a cluster no larger than the kernel allows. */
static CUresult check_cluster(int dev, const mock_kinfo *k, const mock_launch_in *a,
                              unsigned long long threads) {
    const CUlaunchAttribute *c = cluster_attr(a->attrs, a->nattrs);
    if (c == NULL) return CUDA_SUCCESS;
    if (!has_clusters(dev)) return CUDA_ERROR_NOT_SUPPORTED;
    const unsigned d[3] = {c->value.clusterDim.x, c->value.clusterDim.y, c->value.clusterDim.z};
    for (int i = 0; i < 3; i++) {
        if (d[i] == 0 || a->grid[i] % d[i] != 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    mock_occ o;
    mock__occ_snapshot(dev, k->attrs, &o);
    unsigned long long size = (unsigned long long)d[0] * d[1] * d[2];
    if (size > (unsigned long long)max_cluster(dev, k->attrs, &o, (int)threads, a->smem)) {
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Launch                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef mock_launch_in launch_args;

/* Checks a launch as the driver does, then hands it to mock_kernels.c. */
static CUresult launch(const char *entry, CUfunction hf, const launch_args *a) {
    mock_kinfo k;
    CUresult r = mock__function(hf, entry, &k);
    if (r != CUDA_SUCCESS) return r;
    struct CUstream_st *s;
    r = mock__stream(a->stream, entry, &s);
    if (r != CUDA_SUCCESS) return r;
    struct CUctx_st *ctx = mock__stream_ctx(s);
    /* A module's function runs only in its own context. */
    if (k.ctx != NULL && k.ctx != ctx) return CUDA_ERROR_INVALID_HANDLE;
    int dev = ctx->device;

    static const CUdevice_attribute block_max[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                                    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
    static const CUdevice_attribute grid_max[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    unsigned long long threads = 1, blocks = 1;
    for (int i = 0; i < 3; i++) {
        if (a->grid[i] == 0 || a->block[i] == 0) return CUDA_ERROR_INVALID_VALUE;
        if (a->block[i] > (unsigned)mock__attr(dev, block_max[i])) return CUDA_ERROR_INVALID_VALUE;
        if (a->grid[i] > (unsigned)mock__attr(dev, grid_max[i])) return CUDA_ERROR_INVALID_VALUE;
        threads *= a->block[i];
        blocks *= a->grid[i];
    }
    int max_threads = mock__func_attr(k.attrs, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    if (threads > (unsigned long long)max_threads) return CUDA_ERROR_INVALID_VALUE;
    int max_dyn = mock__func_attr(k.attrs, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dev);
    if (a->smem > (unsigned)max_dyn) return CUDA_ERROR_INVALID_VALUE;
    r = check_cluster(dev, &k, a, threads);
    if (r != CUDA_SUCCESS) return r;
    if (a->cooperative) {
        if (!mock__attr(dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)) {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        mock_occ o;
        mock__occ_snapshot(dev, k.attrs, &o);
        unsigned long long fit =
            (unsigned long long)mock__occ_blocks(&o, (int)threads, a->smem) * (unsigned)o.sms;
        if (blocks > fit) return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }

    return mock__kernel_submit(k.kentry, k.img, s, a);
}

CUresult CUDAAPI mock_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                     unsigned int gz, unsigned int bx, unsigned int by,
                                     unsigned int bz, unsigned int smem, CUstream hs, void **params,
                                     void **extra) {
    MOCK_ENTER(cuLaunchKernel);
    if (params != NULL && extra != NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    launch_args a = {{gx, gy, gz}, {bx, by, bz}, smem, hs, false, NULL, 0, params, extra};
    return mock__leave(launch("cuLaunchKernel", f, &a));
}

CUresult CUDAAPI mock_cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                                unsigned int gz, unsigned int bx, unsigned int by,
                                                unsigned int bz, unsigned int smem, CUstream hs,
                                                void **params) {
    MOCK_ENTER(cuLaunchCooperativeKernel);
    launch_args a = {{gx, gy, gz}, {bx, by, bz}, smem, hs, true, NULL, 0, params, NULL};
    return mock__leave(launch("cuLaunchCooperativeKernel", f, &a));
}

CUresult CUDAAPI mock_cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
                                       void **extra) {
    MOCK_ENTER(cuLaunchKernelEx);
    if (config == NULL || (params != NULL && extra != NULL) ||
        (config->numAttrs > 0 && config->attrs == NULL)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    launch_args a = {{config->gridDimX, config->gridDimY, config->gridDimZ},
                     {config->blockDimX, config->blockDimY, config->blockDimZ},
                     config->sharedMemBytes,
                     config->hStream,
                     false,
                     config->attrs,
                     config->numAttrs,
                     params,
                     extra};
    for (unsigned i = 0; i < config->numAttrs; i++) {
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            a.cooperative = config->attrs[i].value.cooperative != 0;
        }
    }
    return mock__leave(launch("cuLaunchKernelEx", f, &a));
}
