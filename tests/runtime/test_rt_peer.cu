/* Peer access, the device's configuration and identity, driver entry points and interprocess
 * handles through cushim's runtime, on the mock's two-device profile. */
#include "rt_test.h"

static void test_peer_access_and_copies(void **state) {
    (void)state;
    int n = 0;
    assert_rt_ok(cudaGetDeviceCount(&n));
    assert_int_equal(n, 2);
    int can = -1;
    assert_rt_ok(cudaDeviceCanAccessPeer(&can, 0, 1));
    assert_rt_ok(cudaSetDevice(0));
    if (can) {
        assert_rt_ok(cudaDeviceEnablePeerAccess(1, 0));
        assert_rt(cudaErrorPeerAccessAlreadyEnabled, cudaDeviceEnablePeerAccess(1, 0));
        assert_rt_ok(cudaDeviceDisablePeerAccess(1));
        assert_rt(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess(1));
    }
    assert_rt(cudaErrorInvalidValue, cudaDeviceEnablePeerAccess(1, 1));
    assert_rt(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess(0, 0));
    assert_rt(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess(5, 0));
    assert_rt(cudaErrorInvalidDevice, cudaDeviceDisablePeerAccess(-1));
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());

    /* A copy from device 1's memory to device 0's. */
    int *a = NULL, *b = NULL;
    assert_rt_ok(cudaMalloc((void **)&a, 64 * sizeof(int)));
    assert_rt_ok(cudaSetDevice(1));
    assert_rt_ok(cudaMalloc((void **)&b, 64 * sizeof(int)));
    assert_rt_ok(cudaMemset(b, 0x11, 64 * sizeof(int)));
    assert_rt_ok(cudaSetDevice(0));
    assert_rt_ok(cudaMemcpyPeer(a, 0, b, 1, 64 * sizeof(int)));
    int h[64];
    assert_rt_ok(cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++) assert_int_equal(h[i], 0x11111111);
    assert_rt_ok(cudaMemset(a, 0, 64 * sizeof(int)));
    assert_rt_ok(cudaMemcpyPeerAsync(b, 1, a, 0, 64 * sizeof(int), 0));
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaSetDevice(1));
    assert_rt_ok(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
    assert_int_equal(h[63], 0);
    assert_rt_ok(cudaMemcpyPeer(a, 0, b, 1, 0));
    assert_rt_ok(cudaFree(b));
    assert_rt_ok(cudaSetDevice(0));
    assert_rt_ok(cudaFree(a));
}

static void test_pci_bus_ids(void **state) {
    (void)state;
    char id[32] = {0};
    assert_rt_ok(cudaDeviceGetPCIBusId(id, sizeof id, 1));
    assert_true(strlen(id) > 0);
    int back = -1;
    assert_rt_ok(cudaDeviceGetByPCIBusId(&back, id));
    assert_int_equal(back, 1);
    assert_rt(cudaErrorInvalidDevice, cudaDeviceGetPCIBusId(id, sizeof id, 2));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetPCIBusId(id, 0, 0));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetPCIBusId(NULL, 8, 0));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetByPCIBusId(NULL, id));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetByPCIBusId(&back, NULL));
    assert_true(cudaDeviceGetByPCIBusId(&back, "not a bus id") != cudaSuccess);
}

static void test_limits_and_configuration(void **state) {
    (void)state;
    size_t v = 0;
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetLimit(NULL, cudaLimitStackSize));
    /* The mock keeps limits (the driver's defaults until set), not cache configurations. */
    assert_rt(cudaSuccess, cudaDeviceGetLimit(&v, cudaLimitStackSize));
    assert_int_equal(v, 1024);
    assert_rt(cudaSuccess, cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
    assert_rt(cudaSuccess, cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
    assert_int_equal(v, 1 << 20);
    assert_rt(cudaErrorInvalidValue, cudaDeviceSetCacheConfig((cudaFuncCache)7));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetCacheConfig(NULL));
    assert_rt(cudaErrorNotSupported, cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetSharedMemConfig(NULL));
}

static void test_driver_entry_points(void **state) {
    (void)state;
    void *fn = NULL;
    cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSymbolNotFound;
    assert_rt_ok(cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &st));
    assert_int_equal(st, cudaDriverEntryPointSuccess);
    assert_non_null(fn);
    fn = (void *)1;
    assert_rt_ok(
        cudaGetDriverEntryPointByVersion("cuNoSuchEntry", &fn, 12000, cudaEnableDefault, &st));
    assert_int_equal(st, cudaDriverEntryPointSymbolNotFound);
    assert_null(fn);
    assert_rt(cudaErrorInvalidValue, cudaGetDriverEntryPoint("cuMemAlloc", &fn, 8, &st));
    assert_rt(cudaErrorInvalidValue, cudaGetDriverEntryPoint(NULL, &fn, 0, &st));
    assert_rt(cudaErrorInvalidValue, cudaGetDriverEntryPoint("cuMemAlloc", NULL, 0, &st));
    /* Documented interfaces only: no export tables. */
    const void *table = NULL;
    cudaUUID_t uuid;
    memset(&uuid, 0, sizeof uuid);
    assert_rt(cudaErrorNotSupported, cudaGetExportTable(&table, &uuid));
    assert_null(table);
}

static void test_ipc_handles(void **state) {
    (void)state;
    cudaIpcMemHandle_t h;
    cudaIpcEventHandle_t eh;
    assert_rt(cudaErrorInvalidValue, cudaIpcGetMemHandle(NULL, NULL));
    assert_rt(cudaErrorInvalidValue, cudaIpcGetEventHandle(NULL, NULL));
    assert_rt(cudaErrorInvalidValue, cudaIpcOpenMemHandle(NULL, h, 0));
    cudaEvent_t e;
    assert_rt_ok(cudaEventCreateWithFlags(&e, cudaEventInterprocess | cudaEventDisableTiming));
    /* The mock shares nothing between processes: its answer comes back. */
    assert_rt(cudaErrorNotSupported, cudaIpcGetEventHandle(&eh, e));
    assert_rt_ok(cudaEventDestroy(e));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peer_access_and_copies),
        cmocka_unit_test(test_pci_bus_ids),
        cmocka_unit_test(test_limits_and_configuration),
        cmocka_unit_test(test_driver_entry_points),
        cmocka_unit_test(test_ipc_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
