/* The mock's 3D copies between pointers, its hints on managed memory and their attachment to
 * streams, the flags of pinned host memory, and a stream-ordered free that waits for the work
 * queued before it. */
#include "mock_primary.h"

static void test_3d_copy_slices_and_positions(void **state) {
    (void)state;
    enum { W = 12, H = 3, Z = 4 };
    unsigned char in[Z][H][W], out[Z][H + 1][W + 2];
    for (int z = 0; z < Z; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) in[z][y][x] = (unsigned char)(z * 50 + y * 13 + x);
    CUdeviceptr d;
    size_t pitch = 0;
    assert_ok(D->cuMemAllocPitch(&d, &pitch, W, H * Z, 4));
    CUDA_MEMCPY3D up = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                        .srcHost = in,
                        .srcPitch = W,
                        .srcHeight = H,
                        .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                        .dstDevice = d,
                        .dstPitch = pitch,
                        .dstHeight = H,
                        .WidthInBytes = W,
                        .Height = H,
                        .Depth = Z};
    assert_ok(D->cuMemcpy3D(&up));
    /* Slice 2, row 1 sits 2 slices and 1 row of pitched rows in. */
    assert_int_equal(((unsigned char *)(uintptr_t)d)[(2 * H + 1) * pitch + 5], in[2][1][5]);
    /* Slices 1 and 2 back, at (2, 1) of a host array with rows of W + 2 and 4 rows a slice. */
    memset(out, 0, sizeof out);
    CUDA_MEMCPY3D down = {.srcZ = 1,
                          .srcMemoryType = CU_MEMORYTYPE_UNIFIED,
                          .srcDevice = d,
                          .srcPitch = pitch,
                          .srcHeight = H,
                          .dstXInBytes = 2,
                          .dstY = 1,
                          .dstMemoryType = CU_MEMORYTYPE_HOST,
                          .dstHost = out,
                          .dstPitch = W + 2,
                          .dstHeight = H + 1,
                          .WidthInBytes = W,
                          .Height = H,
                          .Depth = 2};
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, 0));
    assert_ok(D->cuMemcpy3DAsync(&down, s));
    assert_ok(D->cuStreamSynchronize(s));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) assert_int_equal(out[z][y + 1][x + 2], in[z + 1][y][x]);
    assert_int_equal(out[0][0][2], 0);
    assert_int_equal(out[2][1][2], 0);
    /* Refused: a mipmap level, fewer rows per slice than copied, an array that is none. */
    down.srcLOD = 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy3D(&down));
    down.srcLOD = 0;
    down.dstHeight = H - 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy3D(&down));
    down.dstHeight = H + 1;
    down.srcMemoryType = CU_MEMORYTYPE_ARRAY; /* and no array named */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuMemcpy3D(&down));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy3D(NULL));
    /* A slice past the allocation is refused before any slice is copied. */
    mock.set_memory_errors_fatal(false);
    memset(out, 0, sizeof out);
    down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    down.srcZ = 3;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy3D(&down));
    assert_int_equal(out[0][1][2], 0);
    /* Between contexts: the same copy with both named, which must be live. */
    CUDA_MEMCPY3D_PEER peer;
    memcpy(&peer, &up, sizeof peer);
    peer.srcContext = ctx;
    peer.dstContext = ctx;
    assert_ok(D->cuMemcpy3DPeer(&peer));
    assert_ok(D->cuMemcpy3DPeerAsync(&peer, s));
    peer.srcContext = NULL;
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, D->cuMemcpy3DPeer(&peer));
    assert_ok(D->cuStreamDestroy(s));
    assert_ok(D->cuMemFree(d));
}

static void test_hints_on_managed_memory(void **state) {
    (void)state;
    CUdeviceptr m, d;
    assert_ok(D->cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
    assert_ok(D->cuMemAlloc(&d, 64));
    CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, dev9 = {CU_MEM_LOCATION_TYPE_DEVICE, 9};
    CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
    assert_ok(D->cuMemPrefetchAsync(m, 4096, dev0, 0, NULL));
    assert_ok(D->cuMemPrefetchAsync(m + 100, 100, host, 0, NULL));
    assert_cu(CUDA_ERROR_INVALID_DEVICE, D->cuMemPrefetchAsync(m, 4096, dev9, 0, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPrefetchAsync(m, 4096, dev0, 1, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPrefetchAsync(m + 8, 4096, dev0, 0, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPrefetchAsync(d, 64, dev0, 0, NULL));
    assert_ok(D->cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, dev9)); /* not read */
    assert_ok(D->cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
    assert_ok(D->cuMemAdvise(m, 64, CU_MEM_ADVISE_UNSET_ACCESSED_BY, dev0));
    assert_cu(CUDA_ERROR_INVALID_DEVICE,
              D->cuMemAdvise(m, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, dev9));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemAdvise(m, 64, (CUmem_advise)42, dev0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemAdvise(d, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, 0));
    assert_ok(D->cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_SINGLE));
    assert_ok(D->cuStreamAttachMemAsync(s, m + 64, 64, CU_MEM_ATTACH_HOST));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuStreamAttachMemAsync(s, m + 64, 0, CU_MEM_ATTACH_HOST));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuStreamAttachMemAsync(s, m, 0, 8));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_GLOBAL));
    assert_ok(D->cuStreamDestroy(s));
    assert_ok(D->cuMemFree(d));
    assert_ok(D->cuMemFree(m));
}

/* Range attributes answer what advice and prefetch were given (the mock moves nothing). */
static void test_range_attributes_follow_advice(void **state) {
    (void)state;
    CUdeviceptr m;
    assert_ok(D->cuMemAllocManaged(&m, 8192, CU_MEM_ATTACH_GLOBAL));
    int32_t v = 7, by[3];
    assert_ok(D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 8192));
    assert_int_equal(v, 0);
    assert_ok(D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 8192));
    assert_int_equal(v, CU_DEVICE_INVALID);
    CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, host = {CU_MEM_LOCATION_TYPE_HOST, 0};
    assert_ok(D->cuMemAdvise(m, 8192, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    assert_ok(D->cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
    assert_ok(D->cuMemAdvise(m, 8192, CU_MEM_ADVISE_SET_ACCESSED_BY, dev0));
    assert_ok(D->cuMemPrefetchAsync(m, 8192, dev0, 0, NULL));
    assert_ok(D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 8192));
    assert_int_equal(v, 1);
    assert_ok(D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 64));
    assert_int_equal(v, CU_DEVICE_CPU);
    assert_ok(D->cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 64));
    assert_int_equal(by[0], 0);
    assert_int_equal(by[1], CU_DEVICE_INVALID);
    assert_int_equal(by[2], CU_DEVICE_INVALID);
    /* Several at once. */
    int32_t type = -1, id = -1;
    void *data[] = {&type, &id};
    size_t sizes[] = {4, 4};
    CUmem_range_attribute which[] = {CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
                                     CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID};
    assert_ok(D->cuMemRangeGetAttributes(data, sizes, which, 2, m, 8192));
    assert_int_equal(type, CU_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(id, 0);
    /* Refused: a wrong size, an unknown attribute, memory that is not managed, past the end. */
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemRangeGetAttribute(&v, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 8192));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemRangeGetAttribute(&v, 4, (CUmem_range_attribute)99, m, 8192));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 8193));
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 64));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 64));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemRangeGetAttributes(NULL, sizes, which, 2, m, 64));
    /* The pointer attribute a program may set. */
    bool sync = false;
    int on = 1;
    assert_ok(D->cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
    assert_ok(D->cuPointerGetAttribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
    assert_true(sync);
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 16));
    bool managed = false;
    assert_ok(D->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 100));
    assert_true(managed);
    assert_ok(D->cuMemFree(d));
    assert_ok(D->cuMemFree(m));
}

/* The batch forms of CUDA 13: every range checked, the locations' indices checked, each
 * operation's location recorded as a single prefetch records it. */
static void test_batches_of_prefetches_and_discards(void **state) {
    (void)state;
    CUdeviceptr m[3];
    for (int i = 0; i < 3; i++) assert_ok(D->cuMemAllocManaged(&m[i], 4096, CU_MEM_ATTACH_GLOBAL));
    size_t sizes[3] = {4096, 4096, 100};
    CUmemLocation locs[2] = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, {CU_MEM_LOCATION_TYPE_HOST, 0}};
    size_t idxs[2] = {0, 2};
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    assert_ok(D->cuMemPrefetchBatchAsync(m, sizes, 3, locs, idxs, 2, 0, s));
    int32_t v = 7;
    assert_ok(
        D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m[1], 64));
    assert_int_equal(v, 0);
    assert_ok(
        D->cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m[2], 64));
    assert_int_equal(v, CU_DEVICE_CPU);
    assert_ok(D->cuMemDiscardBatchAsync(m, sizes, 3, 0, s));
    assert_ok(D->cuMemDiscardAndPrefetchBatchAsync(m, sizes, 3, locs, idxs, 1, 0, s));
    /* Refused: the legacy stream, flags, a first index not 0, indices not rising, a range
     * that is not managed. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemDiscardBatchAsync(m, sizes, 3, 0, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemDiscardBatchAsync(m, sizes, 3, 1, s));
    size_t bad[2] = {1, 2};
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemPrefetchBatchAsync(m, sizes, 3, locs, bad, 2, 0, s));
    size_t flat[2] = {0, 0};
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemPrefetchBatchAsync(m, sizes, 3, locs, flat, 2, 0, s));
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 64));
    CUdeviceptr mixed[2] = {m[0], d};
    size_t two[2] = {64, 64};
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemDiscardBatchAsync(mixed, two, 2, 0, s));
    assert_ok(D->cuMemFree(d));
    assert_ok(D->cuStreamDestroy(s));
    for (int i = 0; i < 3; i++) assert_ok(D->cuMemFree(m[i]));
}

static void test_host_flags(void **state) {
    (void)state;
    void *a, *b;
    const unsigned f = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
    assert_ok(D->cuMemHostAlloc(&a, 64, f));
    assert_ok(D->cuMemAllocHost(&b, 64));
    unsigned got = 99;
    assert_ok(D->cuMemHostGetFlags(&got, a));
    assert_int_equal(got, f);
    assert_ok(D->cuMemHostGetFlags(&got, (char *)b + 10));
    assert_int_equal(got, 0);
    int local;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemHostGetFlags(&got, &local));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemHostGetFlags(NULL, a));
    assert_ok(D->cuMemFreeHost(a));
    assert_ok(D->cuMemFreeHost(b));
}

/* cudaMallocAsync, a launch, cudaFreeAsync on one stream: the memory lives until the work queued
 * before the free has run. */
static void test_free_async_waits_for_earlier_work(void **state) {
    (void)state;
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr p;
    unsigned out = 0;
    assert_ok(D->cuMemAllocAsync(&p, 64, s));
    assert_ok(D->cuMemsetD32Async(p, 0x01020304, 16, s));
    assert_ok(D->cuMemcpyDtoHAsync(&out, p + 8, sizeof out, s));
    assert_ok(D->cuMemFreeAsync(p, s));
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_ASYNC), 1); /* queued, not yet run */
    assert_ok(D->cuStreamSynchronize(s));
    assert_int_equal(mock.live_memory(CUSHIM_MOCK_MEM_ASYNC), 0);
    assert_int_equal(out, 0x01020304u);
    assert_ok(D->cuStreamDestroy(s));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_3d_copy_slices_and_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hints_on_managed_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_range_attributes_follow_advice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batches_of_prefetches_and_discards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_async_waits_for_earlier_work, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
