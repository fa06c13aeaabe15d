/* streams_basic.c: two streams, each taking half of an array to the device, doubling it with a
 * kernel and bringing it back, all without the host waiting in between. Exits 0 when every
 * element came back doubled, 77 (skip) where there is no GPU, and 1 on any error. */
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

enum { STREAMS = 2, N = 1 << 22, BLOCK = 256 };

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
    cushim_module *mod;
    cushim_function *twice;
    CHECK(load_ptx(&mod, ctx, "double.ptx"));
    CHECK(cushim_module_function(&twice, mod, "cushim_double"));

    /* Page-locked host memory: the GPU copies it by DMA while the host goes on. From pageable
     * memory (malloc) an "asynchronous" copy is staged through the CPU and may block. */
    void *pinned;
    CHECK_RAW(cu->cuMemAllocHost(&pinned, N * sizeof(float)));
    float *host = pinned;
    for (uint32_t i = 0; i < N; i++) host[i] = (float)i;
    CUdeviceptr dev;
    CHECK_RAW(cu->cuMemAlloc(&dev, N * sizeof(float)));

    /* Each stream does its half in order: copy in, double, copy out. The two streams are
     * independent, so one's copies may overlap the other's kernel. Nothing here waits. */
    cushim_stream *streams[STREAMS];
    uint32_t count = N / STREAMS;
    for (int s = 0; s < STREAMS; s++) {
        CHECK(cushim_stream_create(&streams[s], ctx, CU_STREAM_NON_BLOCKING, 0));
        CUstream raw = cushim_stream_raw(streams[s]);
        float *part = host + (size_t)s * count;
        CUdeviceptr dev_part = dev + (size_t)s * count * sizeof(float);
        CHECK_RAW(cu->cuMemcpyHtoDAsync(dev_part, part, count * sizeof(float), raw));
        void *params[] = {&dev_part, &count}; /* copied by the launch, so locals will do */
        cushim_launch_config cfg =
            cushim_launch_config_make(CUSHIM_DIM3((count + BLOCK - 1) / BLOCK), CUSHIM_DIM3(BLOCK));
        cfg.stream = streams[s];
        CHECK(cushim_launch(twice, &cfg, params));
        CHECK_RAW(cu->cuMemcpyDtoHAsync(part, dev_part, count * sizeof(float), raw));
    }
    /* Only when a stream has finished may the host read what its last copy brought back. */
    for (int s = 0; s < STREAMS; s++) CHECK(cushim_stream_synchronize(streams[s]));

    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (host[i] != 2.0f * (float)i && wrong++ == 0) {
            fprintf(stderr, "element %u is %g, expected %g\n", i, (double)host[i], 2.0 * i);
        }
    }
    for (int s = 0; s < STREAMS; s++) cushim_stream_release(streams[s]);
    CHECK_RAW(cu->cuMemFree(dev));
    CHECK_RAW(cu->cuMemFreeHost(pinned));
    cushim_module_release(mod);
    CHECK_RAW(cu->cuCtxSetCurrent(NULL));
    cushim_context_release(ctx);
    if (wrong != 0) {
        fprintf(stderr, "%u of %d elements are wrong\n", wrong, N);
        return 1;
    }
    printf("%d streams doubled %d floats, copies and kernels all asynchronous\n", STREAMS, N);
    return 0;
}
