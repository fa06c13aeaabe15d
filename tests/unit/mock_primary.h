/* Shared by the tests of the mock's memory: each test runs on the mock with device 0's primary
 * context current, and must leave no memory of any kind behind. */
#ifndef CUSHIM_TESTS_MOCK_PRIMARY_H
#define CUSHIM_TESTS_MOCK_PRIMARY_H

#include "testutil.h"

static CUcontext ctx;
#define D cushim_driver()

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    if (D->cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS) return -1;
    return D->cuCtxSetCurrent(ctx) == CUDA_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
    D->cuCtxSetCurrent(NULL);
    D->cuDevicePrimaryCtxRelease(0);
    for (int k = 0; k < CUSHIM_MOCK_MEM_KIND_COUNT; k++) {
        if (mock.live_memory((cushim_mock_memory_kind)k) != 0) {
            fprintf(stderr, "# %d left of memory kind %d\n", mock.live_memory(k), k);
            return -1;
        }
    }
    return mock_teardown(state);
}

#endif
