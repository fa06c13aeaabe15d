/* Managed, mapped and registered host memory, and pointer attributes, through cushim's runtime on
 * the mock: cudaMallocManaged used from the host and a kernel, a __managed__ variable read by the
 * host before any other runtime call, zero-copy through cudaHostAlloc and cudaHostRegister with
 * cudaHostGetDevicePointer and cudaHostGetFlags, what cudaPointerGetAttributes says of each kind
 * of pointer, and the hints: prefetches, advice and stream attachment (checked by the mock), range
 * attributes and batches (which reach the driver and are answered cudaErrorNotSupported by the
 * mock, which has none of them). */
#include <stdlib.h>

#include "rt_test.h"

extern "C" cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                                     size_t length, unsigned int flags);

__managed__ int counter = 5;
__managed__ float scale_by[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__global__ void bump(int by) { atomicAdd(&counter, by); }

__global__ void scale(float *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= scale_by[i % 4];
}

__global__ void add_one(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

static void test_managed_variables_before_any_call(void **state) {
    (void)state;
    /* The first thing the program does: the host reads the variables' initial values. */
    assert_int_equal(counter, 5);
    assert_true(scale_by[3] == 4.0f);
    counter = 10;
    bump<<<2, 32>>>(1);
    assert_rt_ok(cudaDeviceSynchronize());
    assert_int_equal(counter, 74);
    /* The symbol is the managed allocation. */
    void *addr = NULL;
    assert_rt_ok(cudaGetSymbolAddress(&addr, counter));
    assert_ptr_equal(addr, (void *)&counter);
    int v = 0;
    assert_rt_ok(cudaMemcpyFromSymbol(&v, counter, sizeof v));
    assert_int_equal(v, 74);
    v = 1;
    assert_rt_ok(cudaMemcpyToSymbol(counter, &v, sizeof v));
    assert_int_equal(counter, 1);
}

static void test_malloc_managed(void **state) {
    (void)state;
    const int n = 1000;
    float *p = NULL;
    assert_rt_ok(cudaMallocManaged((void **)&p, n * sizeof(float), cudaMemAttachGlobal));
    assert_non_null(p);
    for (int i = 0; i < n; i++) p[i] = (float)i;
    scale<<<(n + 255) / 256, 256>>>(p, n);
    assert_rt_ok(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++) assert_true(p[i] == (float)i * (float)(i % 4 + 1));
    cudaPointerAttributes a;
    memset(&a, 0x5a, sizeof a);
    assert_rt_ok(cudaPointerGetAttributes(&a, p + 10));
    assert_int_equal(a.type, cudaMemoryTypeManaged);
    assert_int_equal(a.device, 0);
    assert_ptr_equal(a.devicePointer, p + 10);
    assert_ptr_equal(a.hostPointer, p + 10);
    assert_rt_ok(cudaFree(p));

    float *q = NULL;
    assert_rt_ok(cudaMallocManaged((void **)&q, 64, cudaMemAttachHost));
    assert_rt_ok(cudaFree(q));
    q = (float *)1;
    assert_rt(cudaErrorInvalidValue, cudaMallocManaged((void **)&q, 0, cudaMemAttachGlobal));
    assert_null(q);
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt(cudaErrorInvalidValue, cudaMallocManaged((void **)&q, 64, 0));
    assert_rt(cudaErrorInvalidValue, cudaMallocManaged((void **)&q, 64, cudaMemAttachSingle));
    assert_rt(cudaErrorInvalidValue, cudaMallocManaged(NULL, 64, cudaMemAttachGlobal));
    assert_rt(cudaErrorMemoryAllocation,
              cudaMallocManaged((void **)&q, (size_t)1 << 62, cudaMemAttachGlobal));
    assert_rt(cudaErrorMemoryAllocation, cudaGetLastError());
}

static void test_pointer_attributes(void **state) {
    (void)state;
    void *d = NULL, *h = NULL;
    assert_rt_ok(cudaMalloc(&d, 256));
    assert_rt_ok(cudaMallocHost(&h, 256));
    cudaPointerAttributes a;
    assert_rt_ok(cudaPointerGetAttributes(&a, d));
    assert_int_equal(a.type, cudaMemoryTypeDevice);
    assert_int_equal(a.device, 0);
    assert_ptr_equal(a.devicePointer, d);
    assert_null(a.hostPointer);
    assert_rt_ok(cudaPointerGetAttributes(&a, (char *)h + 8));
    assert_int_equal(a.type, cudaMemoryTypeHost);
    assert_ptr_equal(a.hostPointer, (char *)h + 8);
    /* Memory the driver never saw: unregistered, and success (CUDA 11 and later). */
    int local = 0;
    assert_rt_ok(cudaPointerGetAttributes(&a, &local));
    assert_int_equal(a.type, cudaMemoryTypeUnregistered);
    assert_null(a.devicePointer);
    assert_rt(cudaErrorInvalidValue, cudaPointerGetAttributes(NULL, d));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt_ok(cudaFree(d));
    assert_rt_ok(cudaFreeHost(h));
}

static void test_zero_copy(void **state) {
    (void)state;
    const int n = 512;
    int *mapped = NULL, *dev = NULL;
    assert_rt_ok(cudaSetDeviceFlags(cudaDeviceMapHost));
    assert_rt_ok(
        cudaHostAlloc((void **)&mapped, n * sizeof(int),
                      cudaHostAllocMapped | cudaHostAllocPortable | cudaHostAllocWriteCombined));
    for (int i = 0; i < n; i++) mapped[i] = i;
    assert_rt_ok(cudaHostGetDevicePointer((void **)&dev, mapped, 0));
    assert_non_null(dev);
    add_one<<<n / 128, 128>>>(dev, n);
    assert_rt_ok(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++) assert_int_equal(mapped[i], i + 1);
    unsigned flags = 0;
    assert_rt_ok(cudaHostGetFlags(&flags, mapped));
    assert_int_equal(flags,
                     cudaHostAllocMapped | cudaHostAllocPortable | cudaHostAllocWriteCombined);
    /* Memory the runtime did not allocate: the driver's refusal. */
    int local = 0;
    assert_rt(cudaErrorInvalidValue, cudaHostGetFlags(&flags, &local));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt(cudaErrorInvalidValue, cudaHostGetFlags(NULL, mapped));
    assert_rt(cudaErrorInvalidValue, cudaHostGetFlags(&flags, NULL));
    assert_rt_ok(cudaFreeHost(mapped));

    /* The user's own memory, registered and mapped. */
    int *mine = (int *)aligned_alloc(4096, 4096);
    assert_non_null(mine);
    for (int i = 0; i < 1024; i++) mine[i] = 100;
    assert_rt_ok(cudaHostRegister(mine, 4096, cudaHostRegisterMapped | cudaHostRegisterPortable));
    assert_rt_ok(cudaHostGetDevicePointer((void **)&dev, mine, 0));
    add_one<<<8, 128>>>(dev, 1024);
    assert_rt_ok(cudaDeviceSynchronize());
    assert_int_equal(mine[1023], 101);
    assert_rt_ok(cudaHostUnregister(mine));
    free(mine);
    assert_rt(cudaErrorInvalidValue, cudaHostAlloc((void **)&mapped, 64, 0x80));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
}

static void test_hints_are_forwarded(void **state) {
    (void)state;
    int *p = NULL;
    assert_rt_ok(cudaMallocManaged((void **)&p, 4096, cudaMemAttachGlobal));
    cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0}, dev5 = {cudaMemLocationTypeDevice, 5};
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    assert_rt_ok(cudaMemPrefetchAsync(p, 4096, dev0, 0, 0));
    assert_rt_ok(cudaMemPrefetchAsync(p + 16, 64, host, 0, cudaStreamPerThread));
    assert_rt_ok(cudaMemAdvise(p, 4096, cudaMemAdviseSetReadMostly, dev0));
    assert_rt_ok(cudaMemAdvise(p, 4096, cudaMemAdviseSetPreferredLocation, host));
    assert_rt_ok(cudaMemAdvise(p, 4096, cudaMemAdviseSetAccessedBy, dev0));
    /* The driver's refusals: no device 5, past the allocation, device memory, unknown advice. */
    assert_rt(cudaErrorInvalidDevice, cudaMemPrefetchAsync(p, 4096, dev5, 0, 0));
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());
    assert_rt(cudaErrorInvalidValue, cudaMemPrefetchAsync(p, 8192, dev0, 0, 0));
    void *d = NULL;
    assert_rt_ok(cudaMalloc(&d, 64));
    assert_rt(cudaErrorInvalidValue, cudaMemAdvise(d, 64, cudaMemAdviseSetReadMostly, dev0));
    assert_rt_ok(cudaFree(d));
    assert_rt(cudaErrorInvalidValue, cudaMemAdvise(p, 64, (cudaMemoryAdvise)99, dev0));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    int mostly = -1;
    assert_rt_ok(
        cudaMemRangeGetAttribute(&mostly, sizeof mostly, cudaMemRangeAttributeReadMostly, p, 4096));
    assert_int_equal(mostly, 1); /* the advice given above, recorded */
    assert_rt(cudaErrorInvalidValue,
              cudaMemRangeGetAttribute(NULL, 4, cudaMemRangeAttributeReadMostly, p, 4096));
    assert_rt(cudaErrorInvalidValue, cudaMemRangeGetAttributes(NULL, NULL, NULL, 1, p, 4096));
    /* Batches: in a stream of the program's (the legacy NULL stream is refused); empty arrays
     * for a count are refused first. */
    void *ranges[2] = {p, p + 512};
    size_t sizes[2] = {256, 256}, loc_at[1] = {0};
    cudaStream_t bs;
    assert_rt_ok(cudaStreamCreate(&bs));
    assert_rt_ok(cudaMemPrefetchBatchAsync(ranges, sizes, 2, &dev0, loc_at, 1, 0, bs));
    assert_rt_ok(cudaMemDiscardBatchAsync(ranges, sizes, 2, 0, bs));
    assert_rt_ok(cudaMemDiscardAndPrefetchBatchAsync(ranges, sizes, 2, &host, loc_at, 1, 0, bs));
    assert_rt(cudaErrorInvalidValue,
              cudaMemDiscardBatchAsync(ranges, sizes, 2, 0, cudaStreamLegacy));
    assert_rt_ok(cudaStreamDestroy(bs));
    assert_rt(cudaErrorInvalidValue,
              cudaMemPrefetchBatchAsync(ranges, NULL, 2, &dev0, loc_at, 1, 0, 0));
    assert_rt(cudaErrorInvalidValue,
              cudaMemDiscardAndPrefetchBatchAsync(ranges, sizes, 2, NULL, loc_at, 1, 0, 0));
    assert_rt(cudaErrorInvalidValue, cudaMemDiscardBatchAsync(NULL, sizes, 1, 0, 0));
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    assert_rt_ok(cudaStreamAttachMemAsync(s, p, 0, cudaMemAttachSingle));
    assert_rt_ok(cudaStreamAttachMemAsync_ptsz(0, p, 0, cudaMemAttachGlobal));
    assert_rt(cudaErrorInvalidValue, cudaStreamAttachMemAsync(s, p + 1, 0, cudaMemAttachHost));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt_ok(cudaStreamDestroy(s));
    assert_rt_ok(cudaGetLastError());
    assert_rt_ok(cudaFree(p));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_managed_variables_before_any_call),
        cmocka_unit_test(test_malloc_managed),
        cmocka_unit_test(test_pointer_attributes),
        cmocka_unit_test(test_zero_copy),
        cmocka_unit_test(test_hints_are_forwarded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
