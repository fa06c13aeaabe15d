/* A driver-API program for the tracer's tests, built against the drop-in cuda.h in both
 * default-stream modes: a fixed sequence of calls, one of which fails, on two streams. It prints
 * the handles it got as one JSON line on stdout, so that the checker can find them in the trace.
 *   trace_program PTX_FILE [fork|start]
 * With `fork`, a child runs the sequence first, then the parent does. With `start`, the program
 * initialises the driver, then starts a trace of calls to stderr itself (cushim_trace_start),
 * then runs the sequence. */
#include <cuda.h>
#include <cushim.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int sequence(const char *ptx) {
    CUdevice dev, bad;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUstream s1, s2;
    CUdeviceptr p;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    if (cuDeviceGet(&bad, 99) != CUDA_ERROR_INVALID_DEVICE) return 1;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoad(&mod, ptx));
    CHECK(cuModuleGetFunction(&fn, mod, "cushim_empty"));
    CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&s2, CU_STREAM_DEFAULT));
    CHECK(cuMemAlloc(&p, 4096));
    CHECK(cuMemsetD8Async(p, 7, 4096, s1));
    CHECK(cuLaunchKernel(fn, 2, 1, 1, 32, 1, 1, 0, s1, NULL, NULL));
    CHECK(cuMemsetD8Async(p, 1, 16, s2));
    CHECK(cuStreamSynchronize(s1));
    CHECK(cuStreamSynchronize(s2));
    CHECK(cuMemFree(p));
    CHECK(cuStreamDestroy(s1));
    CHECK(cuStreamDestroy(s2));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("{\"pid\": %ld, \"ctx\": \"%p\", \"module\": \"%p\", \"function\": \"%p\", "
           "\"s1\": \"%p\", \"s2\": \"%p\", \"dptr\": \"0x%llx\"}\n",
           (long)getpid(), (void *)ctx, (void *)mod, (void *)fn, (void *)s1, (void *)s2,
           (unsigned long long)p);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PTX_FILE [fork]\n", argv[0]);
        return 2;
    }
    if (argc > 2 && argv[2][0] == 's') {
        CHECK(cuInit(0));
        CHECK(cushim_trace_start("calls", NULL));
        int r = sequence(argv[1]);
        CHECK(cushim_trace_stop());
        return r;
    }
    if (argc > 2) {
        pid_t child = fork();
        if (child < 0) return 1;
        if (child == 0) exit(sequence(argv[1]));
        int status;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
            return 1;
        }
    }
    return sequence(argv[1]);
}
