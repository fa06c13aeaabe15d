/* A kernel fault leaves a sticky error, as NVIDIA's runtime documents: every later call on the
 * device answers it, cudaGetLastError does not clear it, and cudaDeviceReset does. */
#include "rt_test.h"

__global__ void write_to(int *p) { p[threadIdx.x] = 1; }

static void test_fault_is_sticky_until_reset(void **state) {
    (void)state;
    int *good = NULL;
    assert_rt_ok(cudaMalloc((void **)&good, 64 * sizeof(int)));
    write_to<<<1, 64>>>(good);
    assert_rt_ok(cudaDeviceSynchronize());

    /* Far outside anything allocated. */
    write_to<<<1, 64>>>((int *)(uintptr_t)0x10);
    cudaError_t fault = cudaDeviceSynchronize();
    assert_true(fault == cudaErrorIllegalAddress || fault == cudaErrorLaunchFailure);
    /* Sticky: read again and again, and every call on the device answers it. */
    assert_rt(fault, cudaGetLastError());
    assert_rt(fault, cudaGetLastError());
    assert_rt(fault, cudaPeekAtLastError());
    void *p = NULL;
    assert_rt(fault, cudaMalloc(&p, 16));
    assert_rt(fault, cudaDeviceSynchronize());

    assert_rt_ok(cudaDeviceReset());
    assert_rt_ok(cudaGetLastError());
    assert_rt_ok(cudaMalloc(&p, 16));
    write_to<<<1, 4>>>((int *)p);
    assert_rt_ok(cudaDeviceSynchronize());
    int host[4] = {0, 0, 0, 0};
    assert_rt_ok(cudaMemcpy(host, p, sizeof host, cudaMemcpyDeviceToHost));
    assert_int_equal(host[0] + host[1] + host[2] + host[3], 4);
    assert_rt_ok(cudaFree(p));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_is_sticky_until_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
