/* cudart-bench's rows: each a batch of n calls through one runtime. */
#include "cudart-bench-ops.h"

static const dim3 grid = {1, 1, 1}, block = {32, 1, 1};
/* The empty kernel's argument array: it has none, nvcc passes a pointer all the same. */
static void *no_args[1];

/* What nvcc 13's stub does for kernel<<<1, 32, 0, stream>>>() (crt/host_runtime.h, without
 * __NV_LEGACY_LAUNCH): the configuration pushed at the call site, popped in the stub, and the
 * launch through the handle __cudaGetKernel gave once. */
cudaError_t bench_rt_chevron(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        if (s->push_config(grid, block, 0, s->stream) != 0) return cudaErrorInvalidConfiguration;
        dim3 g, b;
        size_t smem;
        cudaStream_t st;
        cudaError_t e = s->pop_config(&g, &b, &smem, &st);
        if (e == cudaSuccess) e = s->launch_handle(s->kernel, g, b, no_args, smem, st);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

const char cudart_bench_kernel_host = 0;

static cudaError_t launch_kernel(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        cudaError_t e =
            s->launch_kernel(&cudart_bench_kernel_host, grid, block, no_args, 0, s->stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

static cudaError_t event_record(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        cudaError_t e = s->event_record(s->event, s->stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

static cudaError_t stream_query(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        cudaError_t e = s->stream_query(s->idle);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

static cudaError_t memcpy_async(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        cudaError_t e = s->memcpy_async(s->dev, s->host, 4, cudaMemcpyHostToDevice, s->stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

static cudaError_t event_create_destroy(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        cudaEvent_t ev;
        cudaError_t e = s->event_create(&ev);
        if (e == cudaSuccess) e = s->event_destroy(ev);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

static cudaError_t stream_create_destroy(rt_side *s, int n) {
    for (int i = 0; i < n; i++) {
        cudaStream_t st;
        cudaError_t e = s->stream_create(&st);
        if (e == cudaSuccess) e = s->stream_destroy(st);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

const bench_rt_op bench_rt_ops[] = {
    {"chevron_launch", "chevron launch <<<1, 32>>>", bench_rt_chevron, true, 1.03, false},
    {"launch_kernel", "cudaLaunchKernel", launch_kernel, true, 1.03, false},
    {"event_record", "cudaEventRecord", event_record, true, 1.03, false},
    {"stream_query", "cudaStreamQuery (idle)", stream_query, false, 1.03, false},
    {"memcpy_async_4", "cudaMemcpyAsync 4 B HtoD", memcpy_async, true, 1.03, false},
    {"event_create_destroy", "cudaEventCreate + Destroy", event_create_destroy, false, 1.0, true},
    {"stream_create_destroy", "cudaStreamCreate + Destroy", stream_create_destroy, false, 1.0,
     true},
};
const size_t bench_rt_op_count = sizeof bench_rt_ops / sizeof bench_rt_ops[0];
