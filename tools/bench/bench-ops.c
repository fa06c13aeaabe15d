/* The operations cushim-bench compares, each as a batch of n direct driver calls and a batch of
 * n cushim calls (bench-measure.c times them).
 *
 * Each batch is its own out-of-line function with the loop inside, so that a batch costs one
 * indirect call and the loop's own few instructions on either side. Both sides check every
 * result, as a careful program would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-nvrtc.h"
#include "bench-ops.h"

#define CHECK(r)                                                                                   \
    do {                                                                                           \
        CUresult check_ = (r);                                                                     \
        if (CUSHIM__UNLIKELY(check_ != CUDA_SUCCESS)) return check_;                               \
    } while (0)

/* In bench-dropin.c, which is compiled against the drop-in cuda.h. */
CUresult bench_dropin_launch(bench_env *e, int n);
CUresult bench_dropin_query(bench_env *e, int n);
/* In bench-trace.c: the tracer started and stopped around a batch. */
CUresult bench_trace_calls_start(bench_env *e);
CUresult bench_trace_timeline_start(bench_env *e);
CUresult bench_trace_stop(bench_env *e);

/* ------------------------------------------------------------------------------------------ */
/* Launches                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static CUSHIM__NOINLINE CUresult direct_launch_empty(bench_env *e, int n) {
    PFN_cuLaunchKernel_v4000 launch = e->d.launch_kernel;
    for (int i = 0; i < n; i++) {
        CHECK(launch(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_launch_empty(bench_env *e, int n) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                      .block = CUSHIM_DIM3(32),
                                      .shared_mem_bytes = 0,
                                      .stream = e->stream};
    for (int i = 0; i < n; i++) {
        CHECK(cushim_launch(e->empty, &cfg, NULL));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult direct_launch_params(bench_env *e, int n) {
    PFN_cuLaunchKernel_v4000 launch = e->d.launch_kernel;
    bench_params p;
    bench_params_init(&p);
    for (int i = 0; i < n; i++) {
        CHECK(launch(e->raw_empty2, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, p.ptrs, NULL));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_launch_params(bench_env *e, int n) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                      .block = CUSHIM_DIM3(32),
                                      .shared_mem_bytes = 0,
                                      .stream = e->stream};
    bench_params p;
    bench_params_init(&p);
    for (int i = 0; i < n; i++) {
        CHECK(cushim_launch(e->empty2, &cfg, p.ptrs));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult direct_launch_coop(bench_env *e, int n) {
    PFN_cuLaunchCooperativeKernel_v9000 launch = e->d.launch_cooperative_kernel;
    const unsigned grid = (unsigned)e->coop_grid;
    for (int i = 0; i < n; i++) {
        CHECK(launch(e->raw_empty, grid, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_launch_coop(bench_env *e, int n) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3((unsigned)e->coop_grid),
                                      .block = CUSHIM_DIM3(32),
                                      .shared_mem_bytes = 0,
                                      .stream = e->stream};
    for (int i = 0; i < n; i++) {
        CHECK(cushim_launch_cooperative(e->empty, &cfg, NULL));
    }
    return CUDA_SUCCESS;
}

/* A cluster of 2 and a grid of 2: the same CUlaunchAttribute and CUlaunchConfig a careful
 * program builds once and passes on each call, against cushim_launch with the config's cluster
 * field set. */
static CUSHIM__NOINLINE CUresult direct_launch_cluster(bench_env *e, int n) {
    PFN_cuLaunchKernelEx_v11060 launch = e->d.launch_kernel_ex;
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = 2;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    const CUlaunchConfig cfg = {.gridDimX = 2,
                                .gridDimY = 1,
                                .gridDimZ = 1,
                                .blockDimX = 32,
                                .blockDimY = 1,
                                .blockDimZ = 1,
                                .hStream = e->raw_stream,
                                .attrs = &attr,
                                .numAttrs = 1};
    for (int i = 0; i < n; i++) {
        CHECK(launch(&cfg, e->raw_empty, NULL, NULL));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_launch_cluster(bench_env *e, int n) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3(2),
                                      .block = CUSHIM_DIM3(32),
                                      .stream = e->stream,
                                      .cluster = CUSHIM_DIM3(2)};
    for (int i = 0; i < n; i++) {
        CHECK(cushim_launch(e->empty, &cfg, NULL));
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Event record and stream query                                                              */
/* ------------------------------------------------------------------------------------------ */

static CUSHIM__NOINLINE CUresult direct_event_record(bench_env *e, int n) {
    PFN_cuEventRecord_v2000 record = e->d.event_record;
    for (int i = 0; i < n; i++) {
        CHECK(record(e->raw_event, e->raw_stream));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_event_record(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        CHECK(cushim_event_record(e->event, e->stream));
    }
    return CUDA_SUCCESS;
}

/* The idle stream never gets work, so every query answers CUDA_SUCCESS; NOT_READY here would
 * mean the measurement is not what it claims, and is reported as a failure. */
static CUSHIM__NOINLINE CUresult direct_stream_query(bench_env *e, int n) {
    PFN_cuStreamQuery_v2000 query = e->d.stream_query;
    for (int i = 0; i < n; i++) {
        CHECK(query(e->raw_idle));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_stream_query(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        CHECK(cushim_stream_query(e->idle));
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Create and destroy                                                                         */
/* ------------------------------------------------------------------------------------------ */

static CUSHIM__NOINLINE CUresult direct_stream_create(bench_env *e, int n) {
    const bench_driver *d = &e->d;
    for (int i = 0; i < n; i++) {
        CUstream s;
        CHECK(d->stream_create(&s, CU_STREAM_NON_BLOCKING));
        CHECK(d->stream_destroy(s));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_stream_create(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        cushim_stream *s;
        CHECK(cushim_stream_create(&s, e->ctx, CU_STREAM_NON_BLOCKING, 0));
        cushim_stream_release(s);
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_stream_create_off(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        cushim_stream *s;
        CHECK(cushim_stream_create(&s, e->unrecycled, CU_STREAM_NON_BLOCKING, 0));
        cushim_stream_release(s);
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult direct_event_create(bench_env *e, int n) {
    const bench_driver *d = &e->d;
    for (int i = 0; i < n; i++) {
        CUevent ev;
        CHECK(d->event_create(&ev, CU_EVENT_DISABLE_TIMING));
        CHECK(d->event_destroy(ev));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_event_create(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        cushim_event *ev;
        CHECK(cushim_event_create(&ev, e->ctx, CU_EVENT_DISABLE_TIMING));
        cushim_event_release(ev);
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_event_create_off(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        cushim_event *ev;
        CHECK(cushim_event_create(&ev, e->unrecycled, CU_EVENT_DISABLE_TIMING));
        cushim_event_release(ev);
    }
    return CUDA_SUCCESS;
}

/* What a careful program does to create or destroy in a context that is not current: read the
 * current one, switch, act, switch back; on failure, switch back all the same. */
static CUresult direct_in_other(const bench_driver *d, CUcontext target, CUstream *s, bool create) {
    CUcontext prev;
    CHECK(d->ctx_get_current(&prev));
    CHECK(d->ctx_set_current(target));
    CUresult r = create ? d->stream_create(s, CU_STREAM_NON_BLOCKING) : d->stream_destroy(*s);
    CUresult back = d->ctx_set_current(prev);
    return r != CUDA_SUCCESS ? r : back;
}

static CUSHIM__NOINLINE CUresult direct_stream_other(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        CUstream s;
        CHECK(direct_in_other(&e->d, e->raw_other, &s, true));
        CHECK(direct_in_other(&e->d, e->raw_other, &s, false));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_stream_other(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        cushim_stream *s;
        CHECK(cushim_stream_create(&s, e->other, CU_STREAM_NON_BLOCKING, 0));
        cushim_stream_release(s);
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Graphs                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static CUSHIM__NOINLINE CUresult direct_graph_launch(bench_env *e, int n) {
    PFN_cuGraphLaunch_v10000 launch = e->d.graph_launch;
    for (int i = 0; i < n; i++) {
        CHECK(launch(e->raw_graph, e->raw_stream));
    }
    return CUDA_SUCCESS;
}

static CUSHIM__NOINLINE CUresult shim_graph_launch(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        CHECK(cushim_graph_exec_launch(e->graph, e->stream));
    }
    return CUDA_SUCCESS;
}

/* The graph's kernels launched one by one, directly: what the graph replaces. */
static CUSHIM__NOINLINE CUresult direct_graph_kernels(bench_env *e, int n) {
    PFN_cuLaunchKernel_v4000 launch = e->d.launch_kernel;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < BENCH_GRAPH_KERNELS; k++) {
            CHECK(launch(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL));
        }
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* The table                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* Fields: id, label, direct, shim, settle, needs_coop, needs_clusters, needs_graph, max_ops,
 * per, shim_setup, shim_teardown, available, min_ops. */
const bench_op bench_ops[] = {
    {"launch_empty", "launch, no parameters", direct_launch_empty, shim_launch_empty, true, false,
     false, false, 0, 0, NULL, NULL, NULL, 0},
    {"launch_dropin", "launch through the drop-in cuda.h", direct_launch_empty, bench_dropin_launch,
     true, false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"launch_params", "launch, two parameters", direct_launch_params, shim_launch_params, true,
     false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"launch_cooperative", "cooperative launch, largest grid", direct_launch_coop, shim_launch_coop,
     true, true, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"launch_cluster", "launch, cluster of 2", direct_launch_cluster, shim_launch_cluster, true,
     false, true, false, 0, 0, NULL, NULL, NULL, 0},
    {"event_record", "event record", direct_event_record, shim_event_record, true, false, false,
     false, 0, 0, NULL, NULL, NULL, 0},
    {"stream_query", "stream query, idle stream", direct_stream_query, shim_stream_query, false,
     false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"stream_create_destroy", "stream create+destroy, recycled", direct_stream_create,
     shim_stream_create, false, false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"stream_create_destroy_off", "stream create+destroy, no recycling", direct_stream_create,
     shim_stream_create_off, false, false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"event_create_destroy", "event create+destroy, recycled", direct_event_create,
     shim_event_create, false, false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"event_create_destroy_off", "event create+destroy, no recycling", direct_event_create,
     shim_event_create_off, false, false, false, false, 0, 0, NULL, NULL, NULL, 0},
    {"stream_create_other_context", "stream create + destroy, other ctx", direct_stream_other,
     shim_stream_other, false, false, false, false, 0, 0, NULL, NULL, NULL, 0},
    /* A batch of graph launches is kept short, so that it measures the submission and not a
     * launch queue that the GPU drains (64 kernels a launch). */
    {"graph_launch", "graph launch, 64 kernels", direct_graph_launch, shim_graph_launch, true,
     false, false, true, 16, 1, NULL, NULL, NULL, 0},
    {"graph_vs_launches", "graph vs 64 launches, per kernel", direct_graph_kernels,
     shim_graph_launch, true, false, false, true, 16, BENCH_GRAPH_KERNELS, NULL, NULL, NULL, 0},
    /* What the tracer adds to a call: the same drop-in launch, untraced against traced. */
    {"trace_calls", "drop-in launch, trace calls to a file", bench_dropin_launch,
     bench_dropin_launch, true, false, false, false, 0, 0, bench_trace_calls_start,
     bench_trace_stop, NULL, 0},
    {"trace_timeline", "drop-in launch, trace timeline", bench_dropin_launch, bench_dropin_launch,
     true, false, false, false, 0, 0, bench_trace_timeline_start, bench_trace_stop, NULL, 0},
    /* A query takes less than a trace writer's pass: batches of BENCH_TRACE_QUERY_OPS, five
     * times what a thread's ring holds, so that the writer formats nearly all of a batch while
     * it runs rather than at the stop, outside the timed region. */
    {"trace_calls_query", "drop-in stream query, trace calls", bench_dropin_query,
     bench_dropin_query, false, false, false, false, 0, 0, bench_trace_calls_start,
     bench_trace_stop, NULL, BENCH_TRACE_QUERY_OPS},
    {"trace_timeline_query", "drop-in stream query, trace timeline", bench_dropin_query,
     bench_dropin_query, false, false, false, false, 0, 0, bench_trace_timeline_start,
     bench_trace_stop, NULL, BENCH_TRACE_QUERY_OPS},
    /* A compile takes milliseconds: one per batch. */
    {"nvrtc_compile", "nvrtcCompileProgram, small kernel", bench_direct_nvrtc_compile,
     bench_dropin_nvrtc_compile, false, false, false, false, 1, 0, NULL, NULL,
     bench_nvrtc_available, 0},
};
const size_t bench_op_count = sizeof bench_ops / sizeof bench_ops[0];
