/* Memory and device functions through cushim's runtime on the mock, with their error paths:
 * allocations (device, pinned, mapped, registered), copies of every kind, sets, memory info, the
 * device flags, peers and versions. */
#include <stdlib.h>

#include <cuda_profiler_api.h>

#include "rt_test.h"

static void test_allocations_and_their_refusals(void **state) {
    (void)state;
    void *p = (void *)1;
    assert_rt(cudaErrorInvalidValue, cudaMalloc(NULL, 16));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt_ok(cudaMalloc(&p, 0));
    assert_null(p);
    assert_rt(cudaErrorMemoryAllocation, cudaMalloc(&p, (size_t)1 << 52));
    assert_rt(cudaErrorMemoryAllocation, cudaGetLastError());
    assert_rt_ok(cudaFree(NULL));

    size_t free_before = 0, total = 0;
    assert_rt_ok(cudaMemGetInfo(&free_before, &total));
    assert_true(total >= free_before && total > 0);
    assert_rt(cudaErrorInvalidValue, cudaMemGetInfo(NULL, &total));

    void *h = NULL;
    assert_rt(cudaErrorInvalidValue, cudaHostAlloc(&h, 64, 0x80));
    assert_rt_ok(cudaHostAlloc(&h, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    void *dh = NULL;
    assert_rt_ok(cudaHostGetDevicePointer(&dh, h, 0));
    assert_non_null(dh);
    assert_rt_ok(cudaFreeHost(h));
    assert_rt_ok(cudaMallocHost(&h, 0));
    assert_null(h);

    size_t n = 1 << 16;
    char *mem = (char *)aligned_alloc(4096, n);
    assert_non_null(mem);
    assert_rt_ok(cudaHostRegister(mem, n, cudaHostRegisterDefault));
    assert_rt_ok(cudaHostUnregister(mem));
    free(mem);
}

static void test_copies_of_every_kind(void **state) {
    (void)state;
    int host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = i * 7;
    int *a = NULL, *b = NULL;
    assert_rt_ok(cudaMalloc((void **)&a, sizeof host));
    assert_rt_ok(cudaMalloc((void **)&b, sizeof host));
    assert_rt_ok(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    assert_rt_ok(cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice));
    assert_rt_ok(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost));
    assert_memory_equal(back, host, sizeof host);
    memset(back, 0, sizeof back);
    assert_rt_ok(cudaMemcpy(back, host, sizeof back, cudaMemcpyHostToHost));
    assert_memory_equal(back, host, sizeof host);
    assert_rt_ok(cudaMemcpyAsync(back, a, sizeof back, cudaMemcpyDefault, cudaStreamPerThread));
    assert_rt_ok(cudaStreamSynchronize(cudaStreamPerThread));
    assert_memory_equal(back, host, sizeof host);
    assert_rt_ok(cudaMemsetAsync(a, 0xff, sizeof host, 0));
    assert_rt_ok(cudaMemcpy(back, a, sizeof back, cudaMemcpyDeviceToHost));
    assert_int_equal(back[5], -1);
    assert_rt(cudaErrorInvalidMemcpyDirection, cudaMemcpy(back, a, sizeof back, (cudaMemcpyKind)9));
    assert_rt(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
    assert_rt_ok(cudaFree(a));
    assert_rt_ok(cudaFree(b));
}

static void test_device_flags_peers_and_versions(void **state) {
    (void)state;
    assert_rt(cudaErrorInvalidValue, cudaSetDeviceFlags(0x1000));
    assert_rt_ok(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    unsigned flags = 0;
    assert_rt_ok(cudaGetDeviceFlags(&flags));
    assert_int_equal(flags & cudaDeviceScheduleMask, cudaDeviceScheduleBlockingSync);
    assert_true(flags & cudaDeviceMapHost);
    int can = -1;
    assert_rt_ok(cudaDeviceCanAccessPeer(&can, 0, 1));
    assert_true(can == 0 || can == 1);
    assert_rt_ok(cudaDeviceCanAccessPeer(&can, 1, 1));
    assert_int_equal(can, 0);
    assert_rt(cudaErrorInvalidDevice, cudaDeviceCanAccessPeer(&can, 0, 2));
    assert_rt_ok(cudaInitDevice(1, 0, 0));
    assert_rt(cudaErrorInvalidValue, cudaInitDevice(1, 0, 1));
    int v = 0;
    assert_rt_ok(cudaDriverGetVersion(&v));
    assert_int_equal(v, 13000);
    assert_rt_ok(cudaProfilerStart());
    assert_rt_ok(cudaProfilerStop());
    /* The driver's own entry point, from the driver cushim loaded (the mock here). */
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    assert_rt_ok(cudaGetDriverEntryPointByVersion("cuDriverGetVersion", &fn, 12000,
                                                  cudaEnableDefault, &found));
    assert_int_equal(found, cudaDriverEntryPointSuccess);
    int driver = 0;
    assert_int_equal(((int (*)(int *))fn)(&driver), 0);
    assert_int_equal(driver, 13000);
    /* The refused cudaInitDevice is still this thread's last error. */
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocations_and_their_refusals),
        cmocka_unit_test(test_copies_of_every_kind),
        cmocka_unit_test(test_device_flags_peers_and_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
