/* Kernels through cushim's runtime on the mock: registration before main, a chevron launch and
 * cudaLaunchKernel with their results checked, symbols, the launch's refusals naming the kernel,
 * and the device's properties from the mock's H200. */
#include "rt_test.h"

__device__ int dev_counter;
__constant__ float scale;

__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] * scale;
}

__global__ void count(void) { atomicAdd(&dev_counter, 1); }

static const int N = 1000;

static void run_add(bool chevrons) {
    float ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = 2.0f * (float)i;
    }
    float *a, *b, *c;
    assert_rt_ok(cudaMalloc((void **)&a, sizeof ha));
    assert_rt_ok(cudaMalloc((void **)&b, sizeof hb));
    assert_rt_ok(cudaMalloc((void **)&c, sizeof hc));
    assert_rt_ok(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
    assert_rt_ok(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyDefault));
    assert_rt_ok(cudaMemset(c, 0, sizeof hc));
    float s = 0.5f;
    assert_rt_ok(cudaMemcpyToSymbol(scale, &s, sizeof s));
    int n = N;
    if (chevrons) {
        add<<<(N + 127) / 128, 128>>>(a, b, c, n);
        assert_rt_ok(cudaGetLastError());
    } else {
        void *args[] = {&a, &b, &c, &n};
        assert_rt_ok(
            cudaLaunchKernel((const void *)add, dim3((N + 127) / 128), dim3(128), args, 0, 0));
    }
    assert_rt_ok(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) assert_true(hc[i] == ha[i] + hb[i] * 0.5f);
    assert_rt_ok(cudaFree(a));
    assert_rt_ok(cudaFree(b));
    assert_rt_ok(cudaFree(c));
}

static void test_chevron_launch_adds(void **state) {
    (void)state;
    run_add(true);
}

static void test_cuda_launch_kernel_adds(void **state) {
    (void)state;
    run_add(false);
}

static void test_symbols_copy_both_ways(void **state) {
    (void)state;
    int zero = 0, got = -1;
    assert_rt_ok(cudaMemcpyToSymbol(dev_counter, &zero, sizeof zero));
    count<<<4, 32>>>();
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaMemcpyFromSymbol(&got, dev_counter, sizeof got));
    assert_int_equal(got, 128);
    void *p = NULL;
    size_t size = 0;
    assert_rt_ok(cudaGetSymbolAddress(&p, dev_counter));
    assert_non_null(p);
    assert_rt_ok(cudaGetSymbolSize(&size, dev_counter));
    assert_int_equal(size, sizeof(int));
    assert_rt_ok(cudaMemcpy(&got, p, sizeof got, cudaMemcpyDeviceToHost));
    assert_int_equal(got, 128);
    /* Past the variable's end, and a host address that is no symbol. */
    assert_rt(cudaErrorInvalidValue, cudaMemcpyToSymbol(dev_counter, &zero, sizeof zero, 4));
    static int not_a_symbol;
    assert_rt(cudaErrorInvalidSymbol, cudaGetSymbolAddress(&p, &not_a_symbol));
    assert_rt(cudaErrorInvalidSymbol, cudaGetLastError());
    assert_rt_ok(cudaGetLastError());
}

static void test_bad_launch_is_refused_naming_the_kernel(void **state) {
    (void)state;
    add<<<1, 4096>>>(NULL, NULL, NULL, 0);
    assert_rt(cudaErrorInvalidConfiguration, cudaPeekAtLastError());
    assert_rt(cudaErrorInvalidConfiguration, cudaGetLastError());
    assert_rt_ok(cudaGetLastError());
    static int not_a_kernel;
    assert_rt(cudaErrorInvalidDeviceFunction,
              cudaLaunchKernel((const void *)&not_a_kernel, dim3(1), dim3(1), NULL, 0, 0));
    assert_rt(cudaErrorInvalidDeviceFunction, cudaGetLastError());
}

static void test_attributes_and_occupancy(void **state) {
    (void)state;
    cudaFuncAttributes a;
    memset(&a, 0xab, sizeof a);
    assert_rt_ok(cudaFuncGetAttributes(&a, (const void *)add));
    assert_true(a.maxThreadsPerBlock > 0 && a.maxThreadsPerBlock <= 1024);
    assert_int_equal(a.reserved[0], 0);
    assert_rt_ok(cudaFuncSetCacheConfig((const void *)add, cudaFuncCachePreferL1));
    assert_rt_ok(cudaFuncSetAttribute((const void *)add,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    /* Raised: a launch with 64 KiB of dynamic shared memory is not refused. */
    add<<<1, 32, 64 * 1024>>>(NULL, NULL, NULL, 0);
    assert_rt_ok(cudaGetLastError());
    assert_rt_ok(cudaDeviceSynchronize());
    int blocks = 0;
    assert_rt_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 256, 0));
    assert_true(blocks > 0);
    /* The header's template, inline in cuda_runtime.h, over the functions above. */
    int min_grid = 0, block = 0;
    assert_rt_ok(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, add, 0, 0));
    assert_true(block > 0 && block <= 1024);
    assert_true(min_grid >= 132);
    const char *name = NULL;
    assert_rt_ok(cudaFuncGetName(&name, (const void *)add));
    assert_string_equal(name, "_Z3addPKfS0_Pfi");
}

static void test_cooperative_and_attribute_launches(void **state) {
    (void)state;
    int zero = 0, got = -1;
    assert_rt_ok(cudaMemcpyToSymbol(dev_counter, &zero, sizeof zero));
    assert_rt_ok(cudaLaunchCooperativeKernel((const void *)count, dim3(2), dim3(64), NULL, 0, 0));
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cudaLaunchAttribute attr[2];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    attr[1].id = cudaLaunchAttributePriority;
    attr[1].val.priority = 0;
    cfg.gridDim = dim3(4);
    cfg.blockDim = dim3(32);
    cfg.attrs = attr;
    cfg.numAttrs = 2;
    assert_rt_ok(cudaLaunchKernelExC(&cfg, (const void *)count, NULL));
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaMemcpyFromSymbol(&got, dev_counter, sizeof got));
    assert_int_equal(got, 2 * 64 + 4 * 32);
    /* A grid that is not a multiple of the cluster is refused before the driver. */
    cfg.gridDim = dim3(3);
    assert_rt(cudaErrorInvalidConfiguration, cudaLaunchKernelExC(&cfg, (const void *)count, NULL));
    assert_rt(cudaErrorInvalidConfiguration, cudaGetLastError());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chevron_launch_adds),
        cmocka_unit_test(test_cuda_launch_kernel_adds),
        cmocka_unit_test(test_symbols_copy_both_ways),
        cmocka_unit_test(test_bad_launch_is_refused_naming_the_kernel),
        cmocka_unit_test(test_attributes_and_occupancy),
        cmocka_unit_test(test_cooperative_and_attribute_launches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
