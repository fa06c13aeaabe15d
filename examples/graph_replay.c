/* graph_replay.c: a step of many small kernels, queued call by call and then captured once into
 * a graph and replayed, with the time per step of each, measured by events. Small kernels are
 * where graphs pay: the step's cost is the launches, and a graph launches them all at once.
 * Exits 0 when both ways give the right results, 77 (skip) where there is no GPU, 1 on any
 * error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cushim.h>

/* Stops at the first failed call, saying which and why. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *why_ = cushim_last_error();                                                \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cushim_error_name(r_), why_[0] ? why_ : cushim_error_string(r_));              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#ifndef PTX_DIR
#define PTX_DIR "ptx" /* the build passes the source tree's ptx/ folder */
#endif

/* STEPS steps are timed each way; a first argument asks for fewer (the mock, which interprets
 * every kernel, runs 20). */
enum { N = 4096, BLOCK = 256, KERNELS = 16, STEPS = 1000 };

typedef struct step {
    cushim_function *saxpy;
    cushim_stream *s;
    CUdeviceptr x, y0, y;
} step;

/* One step: y = y0, then y = x + y sixteen times. */
static void queue_step(const step *st) {
    CHECK(cushim_driver()->cuMemcpyDtoDAsync(st->y, st->y0, N * sizeof(float),
                                             cushim_stream_raw(st->s)));
    uint32_t n = N;
    float a = 1.0f;
    CUdeviceptr x = st->x, y = st->y;
    void *params[] = {&n, &a, &x, &y};
    cushim_launch_config cfg =
        cushim_launch_config_make(CUSHIM_DIM3(N / BLOCK), CUSHIM_DIM3(BLOCK));
    cfg.stream = st->s;
    for (int k = 0; k < KERNELS; k++) CHECK(cushim_launch(st->saxpy, &cfg, params));
}

/* Whether y holds y0 + KERNELS * x, exactly (small whole numbers). */
static int check(const step *st, const float *hx, const float *hy0, const char *how) {
    float *out = malloc(N * sizeof *out);
    if (out == NULL) return 1;
    CHECK(cushim_driver()->cuMemcpyDtoH(out, st->y, N * sizeof(float)));
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        float want = hy0[i] + (float)KERNELS * hx[i];
        if (out[i] != want && wrong++ == 0) {
            fprintf(stderr, "%s: y[%d] is %g, expected %g\n", how, i, (double)out[i], (double)want);
        }
    }
    free(out);
    return wrong != 0;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : STEPS;
    if (steps < 1 || steps > STEPS) steps = STEPS;
    if (cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "skip: %s\n", cushim_last_error());
        return 77;
    }
    int devices = 0;
    if (cushim_driver()->cuDeviceGetCount(&devices) != CUDA_SUCCESS || devices == 0) {
        fprintf(stderr, "skip: the CUDA driver sees no device\n");
        return 77;
    }
    /* Raw driver calls (memory, copies) act on the current context: make the primary one so. */
    cushim_context *ctx;
    CHECK(cushim_context_primary(&ctx, 0));
    CHECK(cushim_driver()->cuCtxSetCurrent(cushim_context_raw(ctx)));
    const char *dir = getenv("CUSHIM_PTX_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/saxpy.ptx", dir != NULL && dir[0] != '\0' ? dir : PTX_DIR);
    cushim_module *mod;
    step st;
    CHECK(cushim_module_load_file(&mod, ctx, path));
    CHECK(cushim_module_function(&st.saxpy, mod, "cushim_saxpy"));
    CHECK(cushim_stream_create(&st.s, ctx, CU_STREAM_NON_BLOCKING, 0));

    static float hx[N], hy0[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)(i % 4);
        hy0[i] = (float)(i % 32);
    }
    const cushim_driver_table *cu = cushim_driver();
    CHECK(cu->cuMemAlloc(&st.x, sizeof hx));
    CHECK(cu->cuMemAlloc(&st.y0, sizeof hy0));
    CHECK(cu->cuMemAlloc(&st.y, sizeof hy0));
    CHECK(cu->cuMemcpyHtoD(st.x, hx, sizeof hx));
    CHECK(cu->cuMemcpyHtoD(st.y0, hy0, sizeof hy0));
    cushim_event *start, *stop;
    CHECK(cushim_event_create(&start, ctx, CU_EVENT_DEFAULT));
    CHECK(cushim_event_create(&stop, ctx, CU_EVENT_DEFAULT));

    /* Call by call: one untimed step first (the first launch may load the kernel). */
    queue_step(&st);
    CHECK(cushim_event_record(start, st.s));
    for (int i = 0; i < steps; i++) queue_step(&st);
    CHECK(cushim_event_record(stop, st.s));
    CHECK(cushim_event_synchronize(stop));
    float direct_ms = 0;
    CHECK(cushim_event_elapsed_ms(&direct_ms, start, stop));
    int failed = check(&st, hx, hy0, "call by call");

    /* The same step captured once: the calls are recorded, not run, until the graph is. */
    cushim_graph *graph;
    cushim_graph_exec *exec;
    CHECK(cushim_stream_begin_capture(st.s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    queue_step(&st);
    CHECK(cushim_stream_end_capture(&graph, st.s));
    CHECK(cushim_graph_instantiate(&exec, graph, 0));
    cushim_graph_release(graph); /* the executable keeps what it needs */
    CHECK(cushim_graph_exec_upload(exec, st.s));
    CHECK(cushim_graph_exec_launch(exec, st.s)); /* untimed, as above */
    CHECK(cushim_event_record(start, st.s));
    for (int i = 0; i < steps; i++) CHECK(cushim_graph_exec_launch(exec, st.s));
    CHECK(cushim_event_record(stop, st.s));
    CHECK(cushim_event_synchronize(stop));
    float graph_ms = 0;
    CHECK(cushim_event_elapsed_ms(&graph_ms, start, stop));
    failed |= check(&st, hx, hy0, "as a graph");

    double direct_us = (double)direct_ms * 1000.0 / steps,
           graph_us = (double)graph_ms * 1000.0 / steps;
    printf("a step of %d kernels and a copy, %d steps:\n", KERNELS, steps);
    printf("  call by call: %8.2f us per step\n", direct_us);
    printf("  as a graph:   %8.2f us per step (%.2fx)\n", graph_us, direct_us / graph_us);

    cushim_graph_exec_release(exec);
    cushim_event_release(start);
    cushim_event_release(stop);
    CHECK(cu->cuMemFree(st.x));
    CHECK(cu->cuMemFree(st.y0));
    CHECK(cu->cuMemFree(st.y));
    cushim_stream_release(st.s);
    cushim_module_release(mod);
    CHECK(cu->cuCtxSetCurrent(NULL));
    cushim_context_release(ctx);
    return failed ? 1 : 0;
}
