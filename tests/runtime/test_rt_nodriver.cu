/* Without a usable driver (CUSHIM_DRIVER naming nothing, or a driver without devices), a program
 * built on cushim's runtime starts: its kernels were registered before main without loading a
 * driver, cudaGetDeviceCount answers NVIDIA's code for the case (argv[1]), and
 * every call that needs a device returns that code, with a name and a string, never a crash. */
#include <stdlib.h>

#include "rt_test.h"

__global__ void nothing(int *p) {
    if (p) *p = 1;
}

static cudaError_t expected;

/* As NVIDIA's runtime 13.0 without a driver (observed on a machine with the toolkit only): the
 * count is left as it was, and the reason stays the last error (cudaGetLastError does not reset
 * it: the driver cannot come later). */
static void test_device_count_is_left_with_the_reason(void **state) {
    (void)state;
    int n = -1;
    assert_rt(expected, cudaGetDeviceCount(&n));
    assert_int_equal(n, -1);
    n = 5;
    assert_rt(expected, cudaGetDeviceCount(&n));
    assert_int_equal(n, 5);
    assert_rt(expected, cudaGetLastError());
    assert_rt(expected, cudaGetLastError());
    assert_rt(expected, cudaPeekAtLastError());
    assert_true(strlen(cudaGetErrorString(expected)) > 10);
}

static void test_calls_fail_without_crashing(void **state) {
    (void)state;
    void *p = (void *)0x1234;
    assert_rt(expected, cudaMalloc(&p, 64));
    assert_ptr_equal(p, (void *)0x1234);
    int device = -7;
    assert_rt(expected, cudaGetDevice(&device));
    assert_int_equal(device, -7);
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
    cudaStream_t s = (cudaStream_t)0x99;
    assert_rt(expected, cudaStreamCreate(&s));
    assert_ptr_equal(s, (cudaStream_t)0x99);
}

/* The strings NVIDIA's runtime 13.0 gives for the codes of a missing driver (observed), and
 * its answer for a value that is no cudaError_t. */
static void test_error_strings_are_nvidias(void **state) {
    (void)state;
    assert_string_equal(cudaGetErrorString(cudaErrorInsufficientDriver),
                        "CUDA driver version is insufficient for CUDA runtime version");
    assert_string_equal(cudaGetErrorString(cudaErrorNoDevice), "no CUDA-capable device is detected");
    assert_string_equal(cudaGetErrorString(cudaErrorStubLibrary), "CUDA driver is a stub library");
    assert_string_equal(cudaGetErrorName((cudaError_t)9999), "unrecognized error code");
    assert_string_equal(cudaGetErrorString((cudaError_t)9999), "unrecognized error code");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s EXPECTED_CODE_NUMBER\n", argv[0]);
        return 2;
    }
    expected = (cudaError_t)atoi(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_count_is_left_with_the_reason),
        cmocka_unit_test(test_calls_fail_without_crashing),
        cmocka_unit_test(test_error_strings_are_nvidias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
