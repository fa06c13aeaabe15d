/* Shared by the launch GPU tests: the primary context of device 0, device memory through the
 * raw table, and the grid barrier kernel's run. */
#ifndef CUSHIM_GPU_LAUNCH_H
#define CUSHIM_GPU_LAUNCH_H

#include "gpu_util.h"

static cushim_context *ctx;

static inline int gpu_setup(void **state) {
    (void)state;
    return cushim_context_primary(&ctx, 0) == CUDA_SUCCESS ? 0 : -1;
}

static inline int gpu_teardown(void **state) {
    (void)state;
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    return 0;
}

/* Memory needs a current context; the tests make ctx current around it and leave none current
 * otherwise, so that cushim's own calls are seen to need none. */
static inline void with_ctx(bool on) {
    assert_ok(cushim_driver()->cuCtxSetCurrent(on ? cushim_context_raw(ctx) : NULL));
}

static inline CUdeviceptr gpu_alloc_zeroed(size_t bytes) {
    CUdeviceptr p = 0;
    with_ctx(true);
    assert_ok(cushim_driver()->cuMemAlloc(&p, bytes));
    assert_ok(cushim_driver()->cuMemsetD8(p, 0, bytes));
    gpu_settle();
    with_ctx(false);
    return p;
}

static inline void gpu_free(CUdeviceptr p) {
    with_ctx(true);
    assert_ok(cushim_driver()->cuMemFree(p));
    with_ctx(false);
}

/* Runs cushim_grid_barrier cooperatively on `blocks` blocks of `threads` and returns its result
 * word: 0 when every block was resident at once and saw every other. */
static inline unsigned run_grid_barrier(const cushim_function *f, unsigned blocks, unsigned threads,
                                        cushim_stream *s) {
    CUdeviceptr slots = gpu_alloc_zeroed((size_t)blocks * sizeof(unsigned));
    CUdeviceptr counter = gpu_alloc_zeroed(sizeof(unsigned));
    CUdeviceptr result = gpu_alloc_zeroed(sizeof(unsigned));
    unsigned long long spin_limit = 10000000ull;
    void *params[] = {&slots, &counter, &result, &spin_limit};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(blocks),
                                .block = CUSHIM_DIM3(threads),
                                .shared_mem_bytes = 0,
                                .stream = s};
    assert_ok(cushim_launch_cooperative(f, &cfg, params));
    if (s != NULL) {
        assert_ok(cushim_stream_synchronize(s));
    } else {
        assert_ok(cushim_context_synchronize(ctx));
    }
    unsigned out = 0xdeadbeefu;
    with_ctx(true);
    assert_ok(cushim_driver()->cuMemcpyDtoH(&out, result, sizeof out));
    with_ctx(false);
    gpu_free(slots);
    gpu_free(counter);
    gpu_free(result);
    return out;
}

#endif
