/* The mock's devices from profiles, every attribute of cuda.h answered, peers, faults by the
 * name the user knows, and the per-thread entries. */
#include <stdlib.h>

#include "device_attrs.h"
#include "testutil.h"

#include <cudaTypedefs.h>

#define D cushim_driver()

static int setup(void **state) { return mock_setup(state); }
static int teardown(void **state) { return mock_teardown(state); }

static int attr(CUdevice_attribute a, int dev) {
    int v = -12345;
    assert_ok(D->cuDeviceGetAttribute(&v, a, dev));
    return v;
}

static void test_profiles(void **state) {
    (void)state;
    int n = 0, at_start = 0;
    assert_ok(D->cuDeviceGetCount(&at_start));
    assert_true(mock.set_devices("h200x2"));
    assert_ok(D->cuDeviceGetCount(&n));
    assert_int_equal(n, 2);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d), 9);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d), 0);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d), 132);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, d), 1);
    }
    assert_true(mock.set_devices("ada"));
    assert_ok(D->cuDeviceGetCount(&n));
    assert_int_equal(n, 1);
    int major = 0, minor = 0;
    assert_ok(D->cuDeviceComputeCapability(&major, &minor, 0));
    assert_int_equal(major * 10 + minor, 89);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), 24);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0), 0);
    size_t total = 0;
    assert_ok(D->cuDeviceTotalMem(&total, 0));
    assert_true(total < (16ull << 30));
    char name[64];
    assert_ok(D->cuDeviceGetName(name, sizeof name, 0));
    assert_non_null(strstr(name, "Ada"));
    assert_true(mock.set_devices(" h200 , ada x1"));
    assert_string_equal(mock.device_profile(0), "h200");
    assert_string_equal(mock.device_profile(1), "ada");
    assert_null(mock.device_profile(2));
    /* A bad spec changes nothing. */
    assert_false(mock.set_devices("h100"));
    assert_false(mock.set_devices("h200x0"));
    assert_false(mock.set_devices("h200x17"));
    assert_false(mock.set_devices(""));
    assert_ok(D->cuDeviceGetCount(&n));
    assert_int_equal(n, 2);
    mock.reset(); /* back to the devices of the start */
    assert_ok(D->cuDeviceGetCount(&n));
    assert_int_equal(n, at_start);
}

/* The devices at reset: those of CUSHIM_MOCK_DEVICES (meson sets it for one run of this test,
 * with the profiles to expect), else one H200. */
static void test_devices_from_environment(void **state) {
    (void)state;
    const char *want = getenv("TEST_EXPECT_PROFILES");
    if (want == NULL) want = "h200";
    int n = 0;
    assert_ok(D->cuDeviceGetCount(&n));
    char got[256] = "";
    for (int d = 0; d < n; d++) {
        if (d) strcat(got, ",");
        strcat(got, mock.device_profile(d));
    }
    assert_string_equal(got, want);
}

static void test_every_attribute_is_answered(void **state) {
    (void)state;
    device_attr attrs[512];
    int n = header_device_attributes(attrs, 512);
    assert_true(n > 140);
    assert_true(mock.set_devices("h200,ada"));
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < n; i++) {
            int v = 0;
            CUresult r = D->cuDeviceGetAttribute(&v, (CUdevice_attribute)attrs[i].value, d);
            if (r != CUDA_SUCCESS) {
                fail_msg("device %d does not answer attribute %d (%s)", d, attrs[i].value,
                         attrs[i].name);
            }
        }
    }
    int v = 0;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0));
}

static void test_peers(void **state) {
    (void)state;
    assert_true(mock.set_devices("h200x2,ada"));
    int can = -1;
    assert_ok(D->cuDeviceCanAccessPeer(&can, 0, 1));
    assert_int_equal(can, 1);
    assert_ok(D->cuDeviceCanAccessPeer(&can, 0, 2));
    assert_int_equal(can, 0);
    assert_cu(CUDA_ERROR_INVALID_DEVICE, D->cuDeviceCanAccessPeer(&can, 0, 3));
    CUcontext c[3];
    for (int d = 0; d < 3; d++) assert_ok(D->cuDevicePrimaryCtxRetain(&c[d], d));
    assert_ok(D->cuCtxSetCurrent(c[0]));
    assert_ok(D->cuCtxEnablePeerAccess(c[1], 0));
    assert_cu(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, D->cuCtxEnablePeerAccess(c[1], 0));
    assert_cu(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, D->cuCtxEnablePeerAccess(c[2], 0));
    assert_ok(D->cuCtxDisablePeerAccess(c[1]));
    assert_cu(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, D->cuCtxDisablePeerAccess(c[1]));
    /* Bytes move between the devices' memory. */
    CUdeviceptr a, b;
    assert_ok(D->cuMemAlloc(&a, 8));
    assert_ok(D->cuCtxSetCurrent(c[1]));
    assert_ok(D->cuMemAlloc(&b, 8));
    assert_ok(D->cuMemcpyHtoD(a, "peer-go", 8));
    assert_ok(D->cuMemcpyPeer(b, c[1], a, c[0], 8));
    char out[8];
    assert_ok(D->cuMemcpyDtoH(out, b, 8));
    assert_string_equal(out, "peer-go");
    assert_ok(D->cuCtxSetCurrent(NULL));
    for (int d = 0; d < 3; d++) assert_ok(D->cuDevicePrimaryCtxRelease(d));
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_DEVICE), 0); /* freed with the contexts */
}

static void test_fail_by_any_name_once(void **state) {
    (void)state;
    CUcontext c;
    assert_ok(D->cuDevicePrimaryCtxRetain(&c, 0));
    assert_ok(D->cuCtxSetCurrent(c));
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 4));
    mock.fail_once("cuMemcpyHtoD", CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(mock.armed("cuMemcpyHtoD_v2"), 1);
    assert_cu(CUDA_ERROR_ILLEGAL_ADDRESS, D->cuMemcpyHtoD(d, "abc", 4));
    assert_int_equal(mock.armed("cuMemcpyHtoD"), 0);
    assert_ok(D->cuMemcpyHtoD(d, "abc", 4)); /* disarmed after firing once */
    /* A per-thread or versioned name covers the base entry too. */
    mock.fail_once("cuMemcpyHtoD_v2_ptds", CUDA_ERROR_UNKNOWN);
    assert_cu(CUDA_ERROR_UNKNOWN, D->cuMemcpyHtoD(d, "abc", 4));
    mock.fail_call("cuCtxSynchronize_v2", 2, CUDA_ERROR_UNKNOWN);
    assert_ok(D->cuCtxSynchronize());
    assert_cu(CUDA_ERROR_UNKNOWN, D->cuCtxSynchronize());
    assert_int_equal(mock.calls("cuMemcpyHtoD_v2"), mock.calls("cuMemcpyHtoD"));
    assert_int_equal(mock.calls("cuMemcpyHtoD"), 3);
    /* A fault that never fired is visible, and can be removed. */
    mock.fail_always("cuMemsetD8", CUDA_ERROR_OUT_OF_MEMORY);
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, D->cuMemsetD8(d, 0, 1));
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, D->cuMemsetD8(d, 0, 1));
    mock.fail_once("cuStreamCreate", CUDA_ERROR_UNKNOWN);
    assert_int_equal(mock.armed("*"), 2);
    mock.disarm("cuMemsetD8");
    assert_ok(D->cuMemsetD8(d, 0, 1));
    mock.disarm(NULL);
    assert_int_equal(mock.armed("*"), 0);
    assert_ok(D->cuMemFree(d));
    assert_ok(D->cuCtxSetCurrent(NULL));
    assert_ok(D->cuDevicePrimaryCtxRelease(0));
}

/* What a program built with CUDA_API_PER_THREAD_DEFAULT_STREAM gets from cuGetProcAddress. */
static void *resolve(const char *name, int version, cuuint64_t flags) {
    void *h = dlopen(getenv("CUSHIM_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    PFN_cuGetProcAddress_v12000 gpa;
    void *sym = dlsym(h, "cuGetProcAddress_v2");
    assert_non_null(sym);
    memcpy(&gpa, &sym, sizeof gpa);
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    assert_ok(gpa(name, &fn, version, flags, &st));
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SUCCESS);
    dlclose(h);
    return fn;
}

static const char *last_call(void) {
    int n = mock.calls("*");
    return n > 0 ? mock.call_name(n - 1) : "";
}

static void test_per_thread_entries_are_seen(void **state) {
    (void)state;
    CUcontext c;
    assert_ok(D->cuDevicePrimaryCtxRetain(&c, 0));
    assert_ok(D->cuCtxSetCurrent(c));
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 16));
    const cuuint64_t pt = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    void *legacy = resolve("cuMemcpyHtoD", 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    void *per_thread = resolve("cuMemcpyHtoD", 12000, pt);
    assert_ptr_not_equal(legacy, per_thread);
    PFN_cuMemcpyHtoD_v7000_ptds htod;
    memcpy(&htod, &per_thread, sizeof htod);
    assert_ok(htod(d, "ptds", 5));
    assert_string_equal(last_call(), "cuMemcpyHtoD_v2_ptds");
    assert_int_equal(mock.per_thread_calls("cuMemcpyHtoD"), 1);
    memcpy(&htod, &legacy, sizeof htod);
    assert_ok(htod(d, "lgcy", 5));
    assert_string_equal(last_call(), "cuMemcpyHtoD");
    assert_int_equal(mock.per_thread_calls("cuMemcpyHtoD"), 1);
    assert_int_equal(mock.calls("cuMemcpyHtoD_v2_ptds"), 2); /* every form counts every call */

    void *fn = resolve("cuMemsetD8", 12000, pt);
    PFN_cuMemsetD8_v7000_ptds set;
    memcpy(&set, &fn, sizeof set);
    assert_ok(set(d, 'z', 2));
    assert_string_equal(last_call(), "cuMemsetD8_v2_ptds");
    fn = resolve("cuStreamSynchronize", 12000, pt);
    PFN_cuStreamSynchronize_v7000_ptsz sync;
    memcpy(&sync, &fn, sizeof sync);
    assert_ok(sync(NULL));
    assert_string_equal(last_call(), "cuStreamSynchronize_ptsz");
    /* cushim's raw table follows this file's own mode (legacy), whatever the build's default
     * stream; test_raw_table_modes checks a per-thread file. */
    assert_ok(D->cuMemcpyHtoD(d, "cush", 5));
    assert_string_equal(last_call(), "cuMemcpyHtoD");
    /* Entries without a per-thread form are the same either way. */
    assert_ptr_equal(resolve("cuMemAlloc", 12000, pt),
                     resolve("cuMemAlloc", 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM));
    /* A fault by the base name reaches the per-thread entry. */
    mock.fail_once("cuMemsetD8", CUDA_ERROR_UNKNOWN);
    assert_cu(CUDA_ERROR_UNKNOWN, set(d, 'z', 2));
    assert_ok(D->cuMemFree(d));
    assert_ok(D->cuCtxSetCurrent(NULL));
    assert_ok(D->cuDevicePrimaryCtxRelease(0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_profiles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_devices_from_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_attribute_is_answered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fail_by_any_name_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_per_thread_entries_are_seen, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
