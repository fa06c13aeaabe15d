/* Stream-ordered allocation and memory pools through cushim's runtime on the mock: cudaMallocAsync
 * and cudaFreeAsync in stream order with a kernel between them, the default pool's attributes,
 * allocation from a pool, refusals of bad arguments, and the pool functions the mock does not
 * model (they reach the driver, which answers cudaErrorNotSupported). */
#include "rt_test.h"

extern "C" {
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                         cudaStream_t stream);
}

__global__ void fill(int *p, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v + i;
}

static void test_alloc_use_free_in_stream_order(void **state) {
    (void)state;
    const int n = 1000;
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *d = NULL;
    assert_rt_ok(cudaMallocAsync((void **)&d, n * sizeof(int), s));
    assert_non_null(d);
    fill<<<(n + 127) / 128, 128, 0, s>>>(d, 7, n);
    static int host[1000];
    assert_rt_ok(cudaMemcpyAsync(host, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    assert_rt_ok(cudaFreeAsync(d, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) assert_int_equal(host[i], 7 + i);

    /* The per-thread default stream's forms. */
    int *e = NULL;
    assert_rt_ok(cudaMallocAsync_ptsz((void **)&e, 64, NULL));
    assert_non_null(e);
    assert_rt_ok(cudaMemsetAsync(e, 0, 64, cudaStreamPerThread));
    assert_rt_ok(cudaFreeAsync_ptsz(e, NULL));
    assert_rt_ok(cudaStreamSynchronize(cudaStreamPerThread));
    assert_rt_ok(cudaStreamDestroy(s));
}

static void test_default_pool_and_its_attributes(void **state) {
    (void)state;
    cudaMemPool_t pool = NULL, current = NULL;
    assert_rt_ok(cudaDeviceGetDefaultMemPool(&pool, 0));
    assert_non_null(pool);
    assert_rt_ok(cudaDeviceGetMemPool(&current, 0));
    assert_ptr_equal(current, pool);

    /* As streamOrderedAllocation sets it: keep everything. */
    uint64_t threshold = UINT64_MAX, got = 0;
    assert_rt_ok(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    assert_rt_ok(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
    assert_true(got == UINT64_MAX);

    void *p = NULL, *q = NULL;
    assert_rt_ok(cudaMallocFromPoolAsync(&p, 4096, pool, 0));
    assert_rt_ok(cudaMallocFromPoolAsync_ptsz(&q, 4096, pool, 0));
    assert_non_null(p);
    assert_non_null(q);
    uint64_t used = 0;
    assert_rt_ok(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    assert_true(used >= 8192);
    assert_rt_ok(cudaFreeAsync(p, 0));
    assert_rt_ok(cudaFreeAsync(q, 0));
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaMemPoolTrimTo(pool, 0));
    threshold = 0;
    assert_rt_ok(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    /* A current-usage attribute cannot be set: the driver's refusal, mapped. */
    assert_rt(cudaErrorInvalidValue,
              cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &threshold));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
}

static void test_bad_arguments_are_refused(void **state) {
    (void)state;
    cudaMemPool_t pool;
    assert_rt_ok(cudaDeviceGetDefaultMemPool(&pool, 0));
    void *p = (void *)1;
    assert_rt(cudaErrorInvalidValue, cudaMallocAsync(NULL, 16, 0));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt(cudaErrorInvalidValue, cudaMallocFromPoolAsync(&p, 16, NULL, 0));
    assert_null(p);
    assert_rt(cudaErrorInvalidValue,
              cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, NULL));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolSetAttribute(NULL, cudaMemPoolAttrUsedMemHigh, &p));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolTrimTo(NULL, 0));
    assert_rt(cudaErrorInvalidValue, cudaDeviceGetDefaultMemPool(NULL, 0));
    assert_rt(cudaErrorInvalidDevice, cudaDeviceGetDefaultMemPool(&pool, 7));
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());
    assert_rt(cudaErrorInvalidDevice, cudaDeviceGetMemPool(&pool, -1));
    assert_rt(cudaErrorInvalidValue, cudaDeviceSetMemPool(0, NULL));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolCreate(&pool, NULL));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolDestroy(NULL));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolSetAccess(pool, NULL, 1));
    cudaMemLocation where = {cudaMemLocationTypeDevice, 0};
    assert_rt(cudaErrorInvalidValue, cudaMemPoolGetAccess(NULL, pool, &where));
    assert_rt(cudaErrorInvalidValue,
              cudaMemGetDefaultMemPool(&pool, NULL, cudaMemAllocationTypePinned));
    /* A size the device cannot hold. */
    assert_rt(cudaErrorMemoryAllocation, cudaMallocAsync(&p, (size_t)1 << 62, 0));
    assert_null(p);
    assert_rt(cudaErrorMemoryAllocation, cudaGetLastError());
    assert_rt_ok(cudaGetLastError());
}

/* Pools made by the program and a device's current pool (the mock models them); sharing pools
 * between processes, which it does not model, reaches it and is answered cudaErrorNotSupported,
 * recorded as the thread's last error: never a silent success. */
static void test_pool_functions_the_mock_lacks_are_forwarded(void **state) {
    (void)state;
    cudaMemPool_t pool = NULL, dflt;
    assert_rt_ok(cudaDeviceGetDefaultMemPool(&dflt, 0));
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    assert_rt_ok(cudaMemPoolCreate(&pool, &props));
    assert_rt_ok(cudaDeviceSetMemPool(0, pool));
    cudaMemPool_t cur = NULL;
    assert_rt_ok(cudaDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(cur, pool);
    assert_rt_ok(cudaDeviceSetMemPool(0, dflt));
    assert_rt_ok(cudaMemPoolDestroy(pool));
    cudaMemAccessDesc desc = {{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
    assert_rt_ok(cudaMemPoolSetAccess(dflt, &desc, 1));
    cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
    assert_rt_ok(cudaMemPoolGetAccess(&flags, dflt, &desc.location));
    assert_int_equal(flags, cudaMemAccessFlagsProtReadWrite);
    cudaMemLocation where = {cudaMemLocationTypeDevice, 0};
    assert_rt_ok(cudaMemGetMemPool(&pool, &where, cudaMemAllocationTypePinned));
    assert_ptr_equal(pool, dflt);
    assert_rt_ok(cudaGetLastError());
    /* Sharing between processes. */
    int fd = -1;
    assert_rt(cudaErrorNotSupported, cudaMemPoolExportToShareableHandle(
                                         &fd, dflt, cudaMemHandleTypePosixFileDescriptor, 0));
    assert_rt(cudaErrorNotSupported, cudaMemPoolImportFromShareableHandle(
                                         &pool, &fd, cudaMemHandleTypePosixFileDescriptor, 0));
    void *p = NULL;
    assert_rt_ok(cudaMallocAsync(&p, 64, 0));
    cudaMemPoolPtrExportData data;
    assert_rt(cudaErrorNotSupported, cudaMemPoolExportPointer(&data, p));
    void *q = (void *)1;
    assert_rt(cudaErrorNotSupported, cudaMemPoolImportPointer(&q, dflt, &data));
    assert_ptr_equal(q, (void *)1); /* untouched when the driver refuses */
    assert_rt(cudaErrorInvalidValue, cudaMemPoolImportPointer(NULL, dflt, &data));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolExportPointer(NULL, p));
    assert_rt(cudaErrorInvalidValue, cudaMemPoolExportToShareableHandle(
                                         NULL, dflt, cudaMemHandleTypePosixFileDescriptor, 0));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt_ok(cudaFreeAsync(p, 0));
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaGetLastError());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_use_free_in_stream_order),
        cmocka_unit_test(test_default_pool_and_its_attributes),
        cmocka_unit_test(test_bad_arguments_are_refused),
        cmocka_unit_test(test_pool_functions_the_mock_lacks_are_forwarded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
