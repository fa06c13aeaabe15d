/* CUDA_MODULE_LOADING through cushim's runtime on the mock: with EAGER (argument "eager") the
 * program's registered device code is loaded into the primary context when the runtime makes
 * it, before any kernel is used, and again after cudaDeviceReset; otherwise (LAZY, NVIDIA's
 * default since CUDA 12.2) at the first launch. */
#include "rt_test.h"

#include "cushim_mock.h"

static cushim_mock_api mock;
static bool eager;

__global__ void bump(int *p) { p[threadIdx.x] += 1; }

static int modules(void) { return mock.live(CUSHIM_MOCK_MODULE); }

static void test_modules_load_when_asked(void **state) {
    (void)state;
    assert_true(cushim_mock_open(&mock, NULL));
    assert_int_equal(modules(), 0);
    int *d = NULL;
    assert_rt_ok(cudaMalloc((void **)&d, 32 * sizeof(int))); /* makes the primary context */
    assert_int_equal(modules(), eager ? 1 : 0);
    assert_rt_ok(cudaMemset(d, 0, 32 * sizeof(int)));
    bump<<<1, 32>>>(d);
    assert_rt_ok(cudaGetLastError());
    int host[32];
    assert_rt_ok(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    assert_int_equal(host[31], 1);
    assert_int_equal(modules(), 1); /* one module, however it was loaded */
    assert_rt_ok(cudaFree(d));

    assert_rt_ok(cudaDeviceReset());
    assert_int_equal(modules(), 0);
    assert_rt_ok(cudaFree(NULL)); /* the context again */
    assert_int_equal(modules(), eager ? 1 : 0);
    assert_rt_ok(cudaDeviceReset());
}

int main(int argc, char **argv) {
    eager = argc > 1 && strcmp(argv[1], "eager") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modules_load_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
