/* Without a usable driver (CUSHIM_DRIVER naming nothing, or a driver without devices), a program
 * built on cushim's runtime starts: its kernels were registered before main without loading a
 * driver, cudaGetDeviceCount answers 0 devices and NVIDIA's code for the case (argv[1]), and
 * every call that needs a device returns that code, with a name and a string, never a crash. */
#include <stdlib.h>

#include "rt_test.h"

__global__ void nothing(int *p) {
    if (p) *p = 1;
}

static cudaError_t expected;

static void test_device_count_is_zero_with_the_reason(void **state) {
    (void)state;
    int n = -1;
    assert_rt(expected, cudaGetDeviceCount(&n));
    assert_int_equal(n, 0);
    assert_rt(expected, cudaGetLastError());
    assert_rt_ok(cudaGetLastError());
    assert_true(strlen(cudaGetErrorString(expected)) > 10);
}

static void test_calls_fail_without_crashing(void **state) {
    (void)state;
    void *p = NULL;
    assert_rt(expected, cudaMalloc(&p, 64));
    assert_null(p);
    assert_rt(expected, cudaFree(NULL));
    assert_rt(expected, cudaDeviceSynchronize());
    nothing<<<1, 1>>>(NULL);
    assert_rt(expected, cudaGetLastError());
    assert_rt(expected, cudaSetDevice(0));
    int version = -1;
    assert_rt_ok(cudaDriverGetVersion(&version));
    assert_int_equal(version, 0);
    assert_rt_ok(cudaRuntimeGetVersion(&version));
    assert_int_equal(version, CUDART_VERSION);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s EXPECTED_CODE_NUMBER\n", argv[0]);
        return 2;
    }
    expected = (cudaError_t)atoi(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_count_is_zero_with_the_reason),
        cmocka_unit_test(test_calls_fail_without_crashing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
