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

static void test_peers_pointers_and_bus_ids(void **state) {
    (void)state;
    int *d0 = NULL, *d1 = NULL, host[16], back[16];
    for (int i = 0; i < 16; i++) host[i] = 100 + i;
    assert_rt_ok(cudaSetDevice(1));
    assert_rt_ok(cudaMalloc((void **)&d1, sizeof host));
    assert_rt_ok(cudaSetDevice(0));
    assert_rt_ok(cudaMalloc((void **)&d0, sizeof host));
    int can = 0;
    assert_rt_ok(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (can) assert_rt_ok(cudaDeviceEnablePeerAccess(1, 0));
    assert_rt_ok(cudaMemcpy(d0, host, sizeof host, cudaMemcpyHostToDevice));
    assert_rt_ok(cudaMemcpyPeer(d1, 1, d0, 0, sizeof host));
    assert_rt_ok(cudaMemcpy(back, d1, sizeof back, cudaMemcpyDefault));
    assert_memory_equal(back, host, sizeof host);
    if (can) assert_rt_ok(cudaDeviceDisablePeerAccess(1));

    cudaPointerAttributes a;
    assert_rt_ok(cudaPointerGetAttributes(&a, d1));
    assert_int_equal(a.type, cudaMemoryTypeDevice);
    assert_int_equal(a.device, 1);
    assert_ptr_equal(a.devicePointer, d1);
    assert_rt_ok(cudaPointerGetAttributes(&a, host));
    assert_int_equal(a.type, cudaMemoryTypeUnregistered);
    assert_ptr_equal(a.hostPointer, host);
    void *pinned = NULL;
    assert_rt_ok(cudaMallocHost(&pinned, 64));
    assert_rt_ok(cudaPointerGetAttributes(&a, pinned));
    assert_int_equal(a.type, cudaMemoryTypeHost);
    assert_ptr_equal(a.hostPointer, pinned);
    assert_rt_ok(cudaFreeHost(pinned));

    char bus[32];
    int back_device = -1;
    assert_rt_ok(cudaDeviceGetPCIBusId(bus, sizeof bus, 1));
    assert_rt_ok(cudaDeviceGetByPCIBusId(&back_device, bus));
    assert_int_equal(back_device, 1);

    cudaStream_t s;
    int device = -1;
    unsigned long long id = 0;
    assert_rt_ok(cudaStreamCreate(&s));
    assert_rt_ok(cudaStreamGetDevice(s, &device));
    assert_int_equal(device, 0);
    assert_rt_ok(cudaStreamGetId(s, &id));
    assert_rt_ok(cudaStreamDestroy(s));
    assert_rt_ok(cudaFree(d0));
    assert_rt_ok(cudaSetDevice(1));
    assert_rt_ok(cudaFree(d1));
    assert_rt_ok(cudaSetDevice(0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocations_and_their_refusals),
        cmocka_unit_test(test_copies_of_every_kind),
        cmocka_unit_test(test_device_flags_peers_and_versions),
        cmocka_unit_test(test_peers_pointers_and_bus_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
