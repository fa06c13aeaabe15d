/* stream_dependencies.c: a compute stream and a copy stream, ordered by an event. The compute
 * stream doubles a buffer and records an event; the copy stream waits for the event and only
 * then copies the result back. Neither the host nor the copy stream waits for the compute
 * stream as a whole. Exits 0 when the copy saw the doubled buffer, 77 (skip) where there is no
 * GPU, and 1 on any error. */
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
/* Raw table calls are the driver's own and leave cushim_last_error() as it was, so their
 * failure is described by the code's own sentence. */
#define CHECK_RAW(call)                                                                            \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cushim_error_name(r_), cushim_error_string(r_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#ifndef PTX_DIR
#define PTX_DIR "ptx" /* the build passes the source tree's ptx/ folder */
#endif

/* Loads FILE from the folder CUSHIM_PTX_DIR names, or from PTX_DIR when it is unset. */
static CUresult load_ptx(cushim_module **mod, cushim_context *ctx, const char *file) {
    const char *dir = getenv("CUSHIM_PTX_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir != NULL && dir[0] != '\0' ? dir : PTX_DIR, file);
    return cushim_module_load_file(mod, ctx, path);
}

enum { N = 1 << 20, BLOCK = 256 };

int main(void) {
    /* Without a driver or a device there is nothing to run: skip, with the reason. */
    if (cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "skip: %s\n", cushim_last_error());
        return 77;
    }
    const cushim_driver_table *cu = cushim_driver();
    int devices = 0;
    CHECK_RAW(cu->cuDeviceGetCount(&devices));
    if (devices == 0) {
        fprintf(stderr, "skip: the CUDA driver sees no device\n");
        return 77;
    }
    /* Raw driver calls (memory, copies) act on the current context: make the primary one so. */
    cushim_context *ctx;
    CHECK(cushim_context_primary(&ctx, 0));
    CHECK_RAW(cu->cuCtxSetCurrent(cushim_context_raw(ctx)));
    cushim_module *dbl_mod, *spin_mod;
    cushim_function *twice, *spin;
    CHECK(load_ptx(&dbl_mod, ctx, "double.ptx"));
    CHECK(cushim_module_function(&twice, dbl_mod, "cushim_double"));
    CHECK(load_ptx(&spin_mod, ctx, "spin.ptx"));
    CHECK(cushim_module_function(&spin, spin_mod, "cushim_spin"));

    /* Page-locked host buffers, so that the copies are truly asynchronous. */
    void *in_mem, *out_mem;
    CHECK_RAW(cu->cuMemAllocHost(&in_mem, N * sizeof(float)));
    CHECK_RAW(cu->cuMemAllocHost(&out_mem, N * sizeof(float)));
    float *in = in_mem, *out = out_mem;
    for (uint32_t i = 0; i < N; i++) in[i] = (float)i + 0.5f;
    CUdeviceptr buf;
    CHECK_RAW(cu->cuMemAlloc(&buf, N * sizeof(float)));

    cushim_stream *compute, *copy;
    cushim_event *doubled;
    CHECK(cushim_stream_create(&compute, ctx, CU_STREAM_NON_BLOCKING, 0));
    CHECK(cushim_stream_create(&copy, ctx, CU_STREAM_NON_BLOCKING, 0));
    /* The event only orders work, so it needs no timestamps, which makes it cheaper. */
    CHECK(cushim_event_create(&doubled, ctx, CU_EVENT_DISABLE_TIMING));

    /* The compute stream: upload, spin for about 10 ms, double, record the event. The spin
     * makes the stream slow on purpose: without the wait below, the copy stream would run
     * ahead and bring back the buffer before it was doubled, and the check would fail. */
    CHECK_RAW(cu->cuMemcpyHtoDAsync(buf, in, N * sizeof(float), cushim_stream_raw(compute)));
    uint64_t cycles = 20000000;
    void *spin_params[] = {&cycles};
    cushim_launch_config one = cushim_launch_config_make(CUSHIM_DIM3(1), CUSHIM_DIM3(1));
    one.stream = compute;
    CHECK(cushim_launch(spin, &one, spin_params));
    uint32_t n = N;
    void *params[] = {&buf, &n};
    cushim_launch_config cfg =
        cushim_launch_config_make(CUSHIM_DIM3((N + BLOCK - 1) / BLOCK), CUSHIM_DIM3(BLOCK));
    cfg.stream = compute;
    CHECK(cushim_launch(twice, &cfg, params));
    CHECK(cushim_event_record(doubled, compute));

    /* The copy stream: wait for the event (on the GPU; the host goes on), then copy back. */
    CHECK(cushim_stream_wait_event(copy, doubled, 0));
    CHECK_RAW(cu->cuMemcpyDtoHAsync(out, buf, N * sizeof(float), cushim_stream_raw(copy)));
    /* Waiting for the copy stream alone is enough: its copy came after all of the compute
     * stream's work, through the event. */
    CHECK(cushim_stream_synchronize(copy));

    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (out[i] != 2.0f * in[i] && wrong++ == 0) {
            fprintf(stderr, "element %u is %g, expected %g\n", i, (double)out[i],
                    2.0 * (double)in[i]);
        }
    }
    cushim_event_release(doubled);
    cushim_stream_release(copy);
    cushim_stream_release(compute);
    CHECK_RAW(cu->cuMemFree(buf));
    CHECK_RAW(cu->cuMemFreeHost(in_mem));
    CHECK_RAW(cu->cuMemFreeHost(out_mem));
    cushim_module_release(spin_mod);
    cushim_module_release(dbl_mod);
    CHECK_RAW(cu->cuCtxSetCurrent(NULL));
    cushim_context_release(ctx);
    if (wrong != 0) {
        fprintf(stderr, "%u of %d elements are wrong\n", wrong, N);
        return 1;
    }
    printf("the copy stream waited for the compute stream: %d doubled floats came back\n", N);
    return 0;
}
