/* The mock's memory: real bytes through every kind of copy and set, host memory seen by the
 * device, pointer attributes, misuse caught with the call named, and virtual memory. */
#include <stdlib.h>

#include "mock_primary.h"

#include "fork_util.h" /* after cmocka, which testutil.h brings */

static void test_round_trip_moves_real_bytes(void **state) {
    (void)state;
    unsigned char in[256], out[256];
    for (int i = 0; i < 256; i++) in[i] = (unsigned char)(i * 7 + 1);
    CUdeviceptr a, b;
    assert_ok(D->cuMemAlloc(&a, sizeof in));
    assert_ok(D->cuMemAlloc(&b, sizeof in));
    assert_ok(D->cuMemcpyHtoD(a, in, sizeof in));
    assert_ok(D->cuMemcpyDtoD(b, a, sizeof in));
    assert_ok(D->cuMemsetD8(b + 8, 0xab, 8));
    assert_ok(D->cuMemsetD16(b + 16, 0x1234, 4));
    assert_ok(D->cuMemsetD32(b + 32, 0xdeadbeef, 2));
    assert_ok(D->cuMemcpy(b + 64, a, 16)); /* unified: both device */
    assert_ok(D->cuMemcpyDtoH(out, b, sizeof out));
    unsigned char want[256];
    memcpy(want, in, sizeof want);
    memset(want + 8, 0xab, 8);
    for (int i = 0; i < 4; i++) memcpy(want + 16 + 2 * i, &(unsigned short){0x1234}, 2);
    for (int i = 0; i < 2; i++) memcpy(want + 32 + 4 * i, &(unsigned){0xdeadbeef}, 4);
    memcpy(want + 64, in, 16);
    assert_memory_equal(out, want, sizeof want);
    /* A device pointer is the host address of the bytes. */
    assert_int_equal(((unsigned char *)(uintptr_t)a)[5], in[5]);
    assert_int_equal(mock.live(CUSHIM_MOCK_MEMORY), 2);
    assert_ok(D->cuMemFree(a));
    assert_ok(D->cuMemFree(b));
    assert_int_equal(mock.live(CUSHIM_MOCK_MEMORY), 0);
}

static void test_2d_copy_with_pitch(void **state) {
    (void)state;
    enum { W = 100, H = 8 };
    unsigned char host[H][W], back[H][W];
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) host[y][x] = (unsigned char)(y * 31 + x);
    }
    CUdeviceptr d;
    size_t pitch = 0;
    assert_ok(D->cuMemAllocPitch(&d, &pitch, W, H, 4));
    assert_true(pitch >= W && pitch % 512 == 0);
    CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                       .srcHost = host,
                       .srcPitch = W,
                       .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                       .dstDevice = d,
                       .dstPitch = pitch,
                       .WidthInBytes = W,
                       .Height = H};
    assert_ok(D->cuMemcpy2D(&c));
    /* Row 3 starts one pitch later on the device. */
    assert_int_equal(((unsigned char *)(uintptr_t)d)[3 * pitch + 5], host[3][5]);
    assert_ok(D->cuMemsetD2D8(d + pitch + 10, pitch, 0xee, 4, 2)); /* rows 1-2, bytes 10-13 */
    CUDA_MEMCPY2D b = {.srcMemoryType = CU_MEMORYTYPE_DEVICE,
                       .srcDevice = d,
                       .srcPitch = pitch,
                       .dstMemoryType = CU_MEMORYTYPE_HOST,
                       .dstHost = back,
                       .dstPitch = W,
                       .WidthInBytes = W,
                       .Height = H};
    assert_ok(D->cuMemcpy2DUnaligned(&b));
    for (int y = 1; y <= 2; y++) memset(&host[y][10], 0xee, 4);
    assert_memory_equal(back, host, sizeof host);
    /* A copy whose last row runs past the allocation is refused. */
    mock.set_memory_errors_fatal(false);
    b.Height = H + 1;
    b.dstHost = malloc((H + 1) * W);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy2D(&b));
    free(b.dstHost);
    assert_non_null(strstr(mock.memory_error(), "past the end"));
    assert_ok(D->cuMemFree(d));
}

static void test_async_forms_and_stream_ordered_allocation(void **state) {
    (void)state;
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    unsigned in[64], out[64] = {0};
    for (int i = 0; i < 64; i++) in[i] = (unsigned)i * 3u;
    CUdeviceptr a, b;
    assert_ok(D->cuMemAllocAsync(&a, sizeof in, s));
    assert_ok(D->cuMemAllocAsync(&b, sizeof in, s));
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_ASYNC), 2);
    assert_ok(D->cuMemcpyHtoDAsync(a, in, sizeof in, s));
    assert_ok(D->cuMemcpyDtoDAsync(b, a, sizeof in, s));
    assert_ok(D->cuMemsetD32Async(b, 7, 4, s));
    assert_ok(D->cuMemsetD8Async(b + 16, 0, 4, s));
    assert_ok(D->cuMemcpyAsync(b + 32, a, 4, s));
    assert_ok(D->cuMemcpyDtoHAsync(out, b, sizeof out, s));
    assert_cu(CUDA_ERROR_NOT_READY, D->cuStreamQuery(s)); /* work is pending until a sync */
    assert_ok(D->cuStreamSynchronize(s));
    in[0] = in[1] = in[2] = in[3] = 7;
    in[4] = 0;
    in[8] = 0;
    assert_memory_equal(out, in, sizeof in);
    CUmemoryPool pool;
    assert_ok(D->cuDeviceGetDefaultMemPool(&pool, 0));
    cuuint64_t used = 0;
    assert_ok(D->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_int_equal(used, 2 * sizeof in);
    CUmemoryPool owner = NULL;
    assert_ok(D->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a));
    assert_ptr_equal(owner, pool);
    assert_ok(D->cuMemFreeAsync(a, s));
    assert_ok(D->cuMemFreeAsync(b, s));
    assert_ok(D->cuStreamSynchronize(s));
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_ASYNC), 0);
    assert_ok(D->cuStreamDestroy(s));
}

static void test_host_memory_is_seen_by_the_device(void **state) {
    (void)state;
    static unsigned char user[8192];
    assert_ok(D->cuMemHostRegister(user, sizeof user, CU_MEMHOSTREGISTER_DEVICEMAP));
    assert_cu(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, D->cuMemHostRegister(user + 4096, 16, 0));
    CUdeviceptr d;
    assert_ok(D->cuMemHostGetDevicePointer(&d, user + 100, 0));
    assert_ok(D->cuMemsetD8(d, 0x5a, 10));
    assert_int_equal(user[100], 0x5a);
    assert_int_equal(user[109], 0x5a);
    assert_int_equal(user[110], 0);
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_REGISTERED), 1);
    assert_ok(D->cuMemHostUnregister(user));
    assert_cu(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, D->cuMemHostUnregister(user));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemHostGetDevicePointer(&d, user, 0));

    void *pinned = NULL, *mapped = NULL;
    assert_ok(D->cuMemAllocHost(&pinned, 64));
    assert_ok(D->cuMemHostAlloc(&mapped, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_HOST), 2);
    assert_ok(D->cuMemHostGetDevicePointer(&d, mapped, 0));
    assert_ok(D->cuMemcpyHtoD(d, "mapped", 7));
    assert_string_equal(mapped, "mapped");
    assert_ok(D->cuMemFreeHost(pinned));
    assert_ok(D->cuMemFreeHost(mapped));
}

static void test_pointer_attributes(void **state) {
    (void)state;
    CUdeviceptr dev, man;
    void *host;
    assert_ok(D->cuMemAlloc(&dev, 1000));
    assert_ok(D->cuMemAllocManaged(&man, 64, CU_MEM_ATTACH_GLOBAL));
    assert_ok(D->cuMemAllocHost(&host, 64));
    CUcontext c = NULL;
    unsigned type = 0;
    int ordinal = -1;
    bool managed = true;
    CUdeviceptr start = 0;
    size_t size = 0;
    assert_ok(D->cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, dev + 10));
    assert_ptr_equal(c, ctx);
    assert_ok(D->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dev));
    assert_int_equal(type, CU_MEMORYTYPE_DEVICE);
    assert_ok(D->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dev));
    assert_int_equal(ordinal, 0);
    assert_ok(D->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, dev));
    assert_false(managed);
    assert_ok(D->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, man));
    assert_true(managed);
    assert_ok(D->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dev + 99));
    assert_ok(D->cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dev + 99));
    assert_int_equal(start, dev);
    assert_int_equal(size, 1000);
    void *hp = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, dev));
    assert_ok(D->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       (CUdeviceptr)(uintptr_t)host));
    assert_int_equal(type, CU_MEMORYTYPE_HOST);
    CUdeviceptr base = 0;
    assert_ok(D->cuMemGetAddressRange(&base, &size, dev + 500));
    assert_int_equal(base, dev);
    /* Unknown memory: an error from the singular form, empty answers from the plural. */
    int local = 0;
    CUdeviceptr unknown = (CUdeviceptr)(uintptr_t)&local;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, unknown));
    CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE};
    c = ctx;
    type = 99;
    void *data[2] = {&c, &type};
    assert_ok(D->cuPointerGetAttributes(2, which, data, unknown));
    assert_null(c);
    assert_int_equal(type, 0);
    assert_ok(D->cuMemFree(dev));
    assert_ok(D->cuMemFree(man));
    assert_ok(D->cuMemFreeHost(host));
}

static void test_out_of_bounds_and_use_after_free_are_named(void **state) {
    (void)state;
    mock.set_memory_errors_fatal(false);
    CUdeviceptr d;
    unsigned char buf[65] = {0};
    assert_ok(D->cuMemAlloc(&d, 64));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyHtoD(d, buf, 65));
    assert_non_null(strstr(mock.memory_error(), "cuMemcpyHtoD"));
    assert_non_null(strstr(mock.memory_error(), "1 bytes past the end"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemsetD32(d + 4, 0, 16));
    assert_int_equal(mock.memory_error_count(), 2);
    assert_ok(D->cuMemFree(d));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyDtoH(buf, d + 8, 4));
    assert_non_null(strstr(mock.memory_error(), "use after free"));
    assert_non_null(strstr(mock.memory_error(), "cuMemcpyDtoH"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemFree(d));
    assert_non_null(strstr(mock.memory_error(), "double free"));
    assert_int_equal(mock.memory_error_count(), 4);
}

/* Asked for (set_memory_errors_fatal(true), or CUSHIM_MOCK_FATAL=1), a misuse aborts the
 * program under test, with the call named on stderr. The child calls the mock straight, as cushim
 * answers nothing in a forked child. */
static void oob_child(void) {
    /* cmocka catches signals in the parent's handlers; the child dies of its abort. */
    signal(SIGABRT, SIG_DFL);
    void *h = dlopen(getenv("CUSHIM_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    CHILD_CHECK(h != NULL);
    void *sym = dlsym(h, "cuGetProcAddress_v2");
    CHILD_CHECK(sym != NULL);
    CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
    memcpy(&gpa, &sym, sizeof gpa);
    void *fa = NULL, *fc = NULL;
    CHILD_CHECK(gpa("cuMemAlloc", &fa, 12000, 0, NULL) == CUDA_SUCCESS);
    CHILD_CHECK(gpa("cuMemcpyHtoD", &fc, 12000, 0, NULL) == CUDA_SUCCESS);
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*htod)(CUdeviceptr, const void *, size_t);
    memcpy(&alloc, &fa, sizeof alloc);
    memcpy(&htod, &fc, sizeof htod);
    CUdeviceptr d;
    char buf[32] = {0};
    CHILD_CHECK(alloc(&d, 16) == CUDA_SUCCESS);
    CHILD_CHECK(freopen("/dev/null", "w", stderr) != NULL);
    htod(d, buf, sizeof buf);
    _exit(0); /* not reached: the mock aborted */
}

static void test_misuse_aborts_when_asked(void **state) {
    (void)state;
    mock.set_memory_errors_fatal(true);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) oob_child();
    mock.set_memory_errors_fatal(false);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* By default a misuse is said, named after the call, and answered with an error code: the
 * process goes on. */
static void test_misuse_returns_a_code_by_default(void **state) {
    (void)state;
    CUdeviceptr d;
    char buf[32] = {0};
    assert_ok(D->cuMemAlloc(&d, 16));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyHtoD(d, buf, sizeof buf));
    assert_non_null(strstr(mock.memory_error(), "cuMemcpyHtoD"));
    assert_non_null(strstr(mock.memory_error(), "past the end"));
    assert_ok(D->cuMemFree(d));
    /* Handles: a destroyed stream, event, module and context, each named. */
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, 0));
    assert_ok(D->cuStreamDestroy(s));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuStreamQuery(s));
    assert_non_null(strstr(mock.memory_error(), "cuStreamQuery"));
    assert_non_null(strstr(mock.memory_error(), "already destroyed"));
    CUevent e;
    assert_ok(D->cuEventCreate(&e, 0));
    assert_ok(D->cuEventDestroy(e));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuEventDestroy(e));
    assert_non_null(strstr(mock.memory_error(), "cuEventDestroy"));
    CUcontext other;
    assert_ok(D->cuCtxCreate(&other, NULL, 0, 0));
    assert_ok(D->cuCtxDestroy(other));
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, D->cuCtxPushCurrent(other));
    assert_non_null(strstr(mock.memory_error(), "cuCtxPushCurrent"));
    assert_ok(D->cuCtxSetCurrent(ctx));
    /* A handle of another kind. */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuEventQuery((CUevent)ctx));
    assert_non_null(strstr(mock.memory_error(), "not a event"));
    assert_int_equal(mock.memory_error_count(), 5);
}

static void test_vmm_reserve_create_map_access(void **state) {
    (void)state;
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    size_t g = 0;
    assert_ok(D->cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    assert_true(g > 0);
    CUdeviceptr va;
    CUmemGenericAllocationHandle h;
    assert_ok(D->cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
    assert_int_equal(va % g, 0);
    assert_ok(D->cuMemCreate(&h, g, &prop, 0));
    /* One handle mapped twice: the two halves are the same bytes. */
    assert_ok(D->cuMemMap(va, g, 0, h, 0));
    assert_ok(D->cuMemMap(va + g, g, 0, h, 0));
    assert_ok(D->cuMemRelease(h)); /* the mappings keep it */
    mock.set_memory_errors_fatal(false);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemsetD8(va, 1, 1));
    assert_non_null(strstr(mock.memory_error(), "cuMemSetAccess"));
    CUmemAccessDesc acc = {.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0},
                           .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    assert_ok(D->cuMemSetAccess(va, 2 * g, &acc, 1));
    unsigned long long flags = 0;
    assert_ok(D->cuMemGetAccess(&flags, &acc.location, va + g));
    assert_int_equal(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    assert_ok(D->cuMemcpyHtoD(va + 10, "alias", 6));
    char out[6];
    assert_ok(D->cuMemcpyDtoH(out, va + g + 10, 6));
    assert_string_equal(out, "alias");
    /* A copy across the two mappings is one range of the reservation. */
    assert_ok(D->cuMemsetD8(va + g - 2, 'x', 4));
    assert_int_equal(((char *)(uintptr_t)va)[0], 'x'); /* byte g of the handle is byte 0 */
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_VMM_MAPPING), 2);
    assert_ok(D->cuMemUnmap(va, 2 * g));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyHtoD(va, "x", 1));
    assert_non_null(strstr(mock.memory_error(), "nothing is mapped"));
    assert_ok(D->cuMemAddressFree(va, 2 * g));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_moves_real_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_2d_copy_with_pitch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_async_forms_and_stream_ordered_allocation, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_host_memory_is_seen_by_the_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pointer_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_bounds_and_use_after_free_are_named, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_misuse_aborts_when_asked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_misuse_returns_a_code_by_default, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vmm_reserve_create_map_access, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
