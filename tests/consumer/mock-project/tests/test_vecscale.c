/* vecscale's tests, on cushim's mock driver: no GPU, no libcuda, no test framework. Each test
 * prints one TAP line ("ok N - name"); a failed check prints why, as a "#" line, first.
 *
 * Run with CUSHIM_DRIVER naming the installed mock (pkg-config: the variable `driver` of
 * cushim-mock; CMake: ${cushim_MOCK_DRIVER}) and CUSHIM_MOCK_KERNELS naming the library built
 * from vecscale_host.c. The build files of this project set both for `meson test` and `ctest`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cushim_mock.h>

#include "vecscale.h"

/* vecscale_host.c: the kernel's host implementation. */
void cushim_mock_kernel_vecscale(const cushim_mock_kernel_args *a);

static cushim_mock_api mock;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                      \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* A driver call that must succeed. */
#define CHECK_CU(call)                                                                             \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *name_ = "?";                                                               \
            cuGetErrorName(r_, &name_);                                                            \
            printf("# %s:%d: %s: %s\n", __FILE__, __LINE__, #call, name_);                         \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* The kernel as the tests register it: counted, to tell its runs from the library's. */
static int registered_runs;
static void registered_vecscale(const cushim_mock_kernel_args *a) {
    registered_runs++;
    cushim_mock_kernel_vecscale(a);
}

enum { N = 1000 }; /* not a multiple of the block: the last block is partly idle */

/* (1) HtoD, DtoD, memset and DtoH move real bytes. */
static bool memory_round_trip(void) {
    enum { BYTES = 256 };
    unsigned char in[BYTES], out[BYTES];
    for (int i = 0; i < BYTES; i++) in[i] = (unsigned char)(i * 7 + 1);
    CUdeviceptr a, b;
    CHECK_CU(cuMemAlloc(&a, BYTES));
    CHECK_CU(cuMemAlloc(&b, BYTES));
    CHECK(mock.live_memory(CUSHIM_MOCK_MEM_DEVICE) == 2);
    CHECK_CU(cuMemcpyHtoD(a, in, BYTES));
    CHECK_CU(cuMemcpyDtoD(b, a, BYTES));
    CHECK_CU(cuMemsetD8(b + 64, 0xA5, 32));
    CHECK_CU(cuMemcpyDtoH(out, b, BYTES));
    for (int i = 0; i < BYTES; i++) CHECK(out[i] == (i >= 64 && i < 96 ? 0xA5 : in[i]));
    CHECK_CU(cuMemFree(a));
    CHECK_CU(cuMemFree(b));
    return true;
}

/* (2) vecscale computes its result, with the kernel's host implementation registered. */
static bool host_kernel_result(void) {
    mock.register_kernel("vecscale", registered_vecscale);
    float data[N];
    for (int i = 0; i < N; i++) data[i] = (float)(i - 100);
    CHECK_CU(vecscale(data, N, 2.5f));
    for (int i = 0; i < N; i++) CHECK(data[i] == (float)(i - 100) * 2.5f);
    CHECK(registered_runs == 1 && mock.host_kernel_runs("vecscale") == 1);
    CHECK(mock.launch_count() == 1);
    CHECK(mock.launch(0)->grid[0] == (N + 255) / 256 && mock.launch(0)->block[0] == 256);
    return true;
}

/* (3) A failing driver call, by its name: vecscale returns its code and leaves nothing. */
static bool faults_by_name(void) {
    static const struct {
        const char *entry;
        CUresult code;
    } faults[] = {
        {"cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY},
        {"cuModuleLoadData", CUDA_ERROR_INVALID_PTX},
        {"cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES},
        {"cuMemcpyHtoD", CUDA_ERROR_UNKNOWN},
    };
    mock.register_kernel("vecscale", registered_vecscale);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        float data[N] = {0};
        mock.fail_once(faults[i].entry, faults[i].code);
        CUresult r = vecscale(data, N, 2.0f);
        if (r != faults[i].code) printf("# with %s failing\n", faults[i].entry);
        CHECK(r == faults[i].code);
        CHECK(mock.armed(faults[i].entry) == 0); /* the fault fired */
        CHECK(mock.live(CUSHIM_MOCK_MODULE) == 0);
        CHECK(mock.live_memory(CUSHIM_MOCK_MEM_DEVICE) == 0);
    }
    return true;
}

/* (4) A stream's work (kernel, copy back) captured into a graph, replayed twice. */
static bool graph_replay(void) {
    mock.register_kernel("vecscale", registered_vecscale);
    vecscale_kernel k;
    CUstream s;
    CUdeviceptr d;
    void *pinned; /* page-locked host memory, as asynchronous copies want */
    CHECK_CU(vecscale_load(&k));
    CHECK_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK_CU(cuMemAlloc(&d, N * sizeof(float)));
    CHECK_CU(cuMemAllocHost(&pinned, N * sizeof(float)));
    float *host = pinned;
    for (int i = 0; i < N; i++) host[i] = (float)(i + 1);
    CHECK_CU(cuMemcpyHtoD(d, host, N * sizeof *host));

    CUgraph g;
    CHECK_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK_CU(vecscale_enqueue(&k, s, d, N, 3.0f));
    CHECK_CU(cuMemcpyDtoHAsync(host, d, N * sizeof *host, s));
    CHECK_CU(cuStreamEndCapture(s, &g));
    CHECK(registered_runs == 0 && host[N - 1] == (float)N); /* captured, not run */

    CUgraphExec x;
    CHECK_CU(cuGraphInstantiate(&x, g, 0));
    CHECK_CU(cuGraphLaunch(x, s));
    CHECK_CU(cuGraphLaunch(x, s));
    CHECK_CU(cuStreamSynchronize(s));
    CHECK(registered_runs == 2);
    for (int i = 0; i < N; i++) CHECK(host[i] == (float)(i + 1) * 9.0f); /* scaled twice */

    CHECK_CU(cuGraphExecDestroy(x));
    CHECK_CU(cuGraphDestroy(g));
    CHECK_CU(cuMemFreeHost(host));
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU(vecscale_unload(&k));
    return true;
}

/* (5) Nothing registered: the mock finds the kernel in the library CUSHIM_MOCK_KERNELS names. */
static bool kernel_from_library(void) {
    if (getenv("CUSHIM_MOCK_KERNELS") == NULL) {
        printf("# CUSHIM_MOCK_KERNELS is not set: run me through meson test or ctest\n");
        return false;
    }
    float data[N];
    for (int i = 0; i < N; i++) data[i] = (float)i;
    CHECK_CU(vecscale(data, N, -0.5f));
    for (int i = 0; i < N; i++) CHECK(data[i] == (float)i * -0.5f);
    CHECK(registered_runs == 0 && mock.host_kernel_runs("vecscale") == 1);
    return true;
}

/* Each test starts from a fresh mock with device 0's primary context current, and must end
 * with that context released and nothing else alive. */
static bool run(bool (*test)(void)) {
    mock.reset();
    registered_runs = 0;
    CUdevice dev;
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));
    bool ok = test();
    CHECK_CU(cuCtxSetCurrent(NULL));
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    if (!ok) return false;
    for (int kind = 0; kind < CUSHIM_MOCK_KIND_COUNT; kind++) {
        CHECK(mock.live((cushim_mock_kind)kind) == 0);
    }
    for (int kind = 0; kind < CUSHIM_MOCK_MEM_KIND_COUNT; kind++) {
        CHECK(mock.live_memory((cushim_mock_memory_kind)kind) == 0);
    }
    return true;
}

int main(void) {
    static const struct {
        const char *name;
        bool (*fn)(void);
    } tests[] = {
        {"memory round trip", memory_round_trip},
        {"vecscale with a registered host kernel", host_kernel_result},
        {"faults by name return their code and leak nothing", faults_by_name},
        {"captured graph replayed twice", graph_replay},
        {"host kernel from CUSHIM_MOCK_KERNELS", kernel_from_library},
    };
    int count = (int)(sizeof tests / sizeof tests[0]), failed = 0;
    printf("1..%d\n", count);
    printf("# mock driver: %s\n", getenv("CUSHIM_DRIVER") ? getenv("CUSHIM_DRIVER") : "(unset)");
    if (!cushim_mock_open(&mock, NULL)) {
        printf("Bail out! CUSHIM_DRIVER must name cushim's mock driver\n");
        return 1;
    }
    for (int i = 0; i < count; i++) {
        bool ok = run(tests[i].fn);
        failed += !ok;
        printf("%s %d - %s\n", ok ? "ok" : "not ok", i + 1, tests[i].name);
    }
    return failed == 0 ? 0 : 1;
}
