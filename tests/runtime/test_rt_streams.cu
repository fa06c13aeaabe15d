/* Streams, events and device properties through cushim's runtime on the mock: work in stream
 * order, events with elapsed time, callbacks and host functions, the default streams, priorities,
 * and cudaDeviceProp from the mock's H200 profile. */
#include "rt_test.h"

__global__ void scale(float *p, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= k;
}

static void test_properties_of_the_mock_h200(void **state) {
    (void)state;
    cudaDeviceProp p;
    memset(&p, 0xab, sizeof p);
    assert_rt_ok(cudaGetDeviceProperties(&p, 0));
    assert_string_equal(p.name, "cushim mock H200");
    assert_int_equal(p.major, 9);
    assert_int_equal(p.minor, 0);
    assert_int_equal(p.multiProcessorCount, 132);
    assert_int_equal(p.warpSize, 32);
    assert_int_equal(p.maxThreadsPerBlock, 1024);
    assert_int_equal(p.maxThreadsDim[2], 64);
    assert_int_equal(p.maxGridSize[0], 2147483647);
    assert_int_equal(p.sharedMemPerBlock, 49152);
    assert_int_equal(p.l2CacheSize, 62914560);
    assert_int_equal(p.maxThreadsPerMultiProcessor, 2048);
    assert_int_equal(p.totalGlobalMem, 141ull << 30);
    assert_int_equal(p.unifiedAddressing, 1);
    /* Nothing of the reserved tail is left as it was. */
    for (int i = 0; i < 56; i++) assert_int_equal(p.reserved[i], 0);
    int v = 0;
    assert_rt_ok(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    assert_int_equal(v, 132);
    assert_rt(cudaErrorInvalidDevice, cudaGetDeviceProperties(&p, 5));
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());
    int chosen = -1;
    assert_rt_ok(cudaChooseDevice(&chosen, &p));
    assert_int_equal(chosen, 0);
}

static void test_work_runs_in_stream_order(void **state) {
    (void)state;
    const int n = 4096;
    static float host[4096];
    for (int i = 0; i < n; i++) host[i] = (float)i;
    float *pinned = NULL, *d = NULL;
    assert_rt_ok(cudaMallocHost((void **)&pinned, n * sizeof(float)));
    memcpy(pinned, host, n * sizeof(float));
    assert_rt_ok(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned flags = 99;
    assert_rt_ok(cudaStreamGetFlags(s, &flags));
    assert_int_equal(flags, cudaStreamNonBlocking);
    cudaEvent_t start, stop;
    assert_rt_ok(cudaEventCreate(&start));
    assert_rt_ok(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    /* Never recorded: done, and no elapsed time. */
    assert_rt_ok(cudaEventQuery(start));
    float ms = -1;
    assert_rt(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, start, stop));
    assert_rt(cudaErrorInvalidResourceHandle, cudaGetLastError());

    assert_rt_ok(cudaEventRecord(start, s));
    assert_rt_ok(cudaMemcpyAsync(d, pinned, n * sizeof(float), cudaMemcpyHostToDevice, s));
    scale<<<n / 256, 256, 0, s>>>(d, 3.0f, n);
    assert_rt_ok(cudaMemcpyAsync(pinned, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    assert_rt_ok(cudaEventRecord(stop, s));
    assert_rt_ok(cudaEventSynchronize(stop));
    assert_rt_ok(cudaEventQuery(stop));
    assert_rt_ok(cudaStreamQuery(s));
    assert_rt_ok(cudaEventElapsedTime(&ms, start, stop));
    assert_true(ms >= 0.0f);
    for (int i = 0; i < n; i++) assert_true(pinned[i] == 3.0f * (float)i);

    /* Another stream waits for this one's event. */
    cudaStream_t t;
    assert_rt_ok(cudaStreamCreate(&t));
    assert_rt_ok(cudaStreamWaitEvent(t, stop, 0));
    assert_rt_ok(cudaMemsetAsync(d, 0, n * sizeof(float), t));
    assert_rt_ok(cudaStreamSynchronize(t));
    assert_rt_ok(cudaMemcpy(pinned, d, sizeof(float) * 4, cudaMemcpyDeviceToHost));
    assert_true(pinned[3] == 0.0f);

    assert_rt_ok(cudaEventDestroy(start));
    assert_rt_ok(cudaEventDestroy(stop));
    assert_rt_ok(cudaStreamDestroy(s));
    assert_rt_ok(cudaStreamDestroy(t));
    assert_rt(cudaErrorInvalidResourceHandle, cudaStreamDestroy(0));
    assert_rt(cudaErrorInvalidResourceHandle, cudaGetLastError());
    assert_rt_ok(cudaFree(d));
    assert_rt_ok(cudaFreeHost(pinned));
}

static int callback_calls, host_calls;
static cudaError_t callback_status = cudaErrorUnknown;
static cudaStream_t callback_stream;

static void CUDART_CB on_callback(cudaStream_t stream, cudaError_t status, void *user) {
    callback_calls += *(int *)user;
    callback_status = status;
    callback_stream = stream;
}

static void CUDART_CB on_host(void *user) { host_calls += *(int *)user; }

static void test_callbacks_and_host_functions(void **state) {
    (void)state;
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    int one = 1;
    assert_rt_ok(cudaStreamAddCallback(s, on_callback, &one, 0));
    assert_rt_ok(cudaLaunchHostFunc(s, on_host, &one));
    assert_rt_ok(cudaLaunchHostFunc(cudaStreamPerThread, on_host, &one));
    assert_rt_ok(cudaLaunchHostFunc(0, on_host, &one));
    assert_rt_ok(cudaStreamSynchronize(s));
    assert_rt_ok(cudaStreamSynchronize(cudaStreamPerThread));
    assert_rt_ok(cudaDeviceSynchronize());
    assert_int_equal(callback_calls, 1);
    assert_rt_ok(callback_status);
    assert_ptr_equal(callback_stream, s);
    assert_int_equal(host_calls, 3);
    assert_rt_ok(cudaStreamDestroy(s));
}

static void test_priorities_are_clamped(void **state) {
    (void)state;
    int least = 99, greatest = 99;
    assert_rt_ok(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    assert_true(greatest <= least);
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreateWithPriority(&s, cudaStreamDefault, greatest - 100));
    int p = 99;
    assert_rt_ok(cudaStreamGetPriority(s, &p));
    assert_int_equal(p, greatest);
    assert_rt_ok(cudaStreamDestroy(s));
}

static void test_reset_destroys_streams_and_events(void **state) {
    (void)state;
    cudaStream_t s;
    cudaEvent_t e;
    assert_rt_ok(cudaStreamCreate(&s));
    assert_rt_ok(cudaEventCreate(&e));
    assert_rt_ok(cudaEventRecord(e, s));
    assert_rt_ok(cudaDeviceReset());
    /* A fresh context: everything works again. */
    assert_rt_ok(cudaStreamCreate(&s));
    assert_rt_ok(cudaStreamSynchronize(s));
    assert_rt_ok(cudaStreamDestroy(s));
}

/* The legacy default stream's implicit synchronisation (CUDA's "Default stream" rules): work on
 * cudaStreamLegacy waits for the earlier work of the blocking streams, the per-thread default
 * stream included, and blocking streams wait for it; a cudaStreamNonBlocking stream takes no
 * part. The progress thread is off in the suites, so work runs only when something drains it. */
static int tags[8], ntags;
static void CUDART_CB tag(void *user) {
    if (ntags < 8) tags[ntags++] = (int)(intptr_t)user;
}

static void test_legacy_stream_synchronises_with_blocking_streams(void **state) {
    (void)state;
    cudaStream_t blocking, nb;
    ntags = 0;
    assert_rt_ok(cudaStreamCreate(&blocking));
    assert_rt_ok(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    assert_rt_ok(cudaLaunchHostFunc(nb, tag, (void *)1));
    assert_rt_ok(cudaLaunchHostFunc(blocking, tag, (void *)2));
    assert_rt_ok(cudaLaunchHostFunc(cudaStreamPerThread, tag, (void *)3));
    assert_rt_ok(cudaLaunchHostFunc(cudaStreamLegacy, tag, (void *)4));
    assert_rt_ok(cudaLaunchHostFunc(blocking, tag, (void *)5));
    assert_rt_ok(cudaStreamSynchronize(blocking));
    assert_int_equal(ntags, 4);
    assert_int_equal(tags[0], 2);
    assert_int_equal(tags[1], 3);
    assert_int_equal(tags[2], 4);
    assert_int_equal(tags[3], 5);
    assert_rt(cudaErrorNotReady, cudaStreamQuery(nb));
    assert_rt_ok(cudaStreamSynchronize(nb));
    assert_int_equal(ntags, 5);
    assert_rt_ok(cudaStreamDestroy(blocking));
    assert_rt_ok(cudaStreamDestroy(nb));
}

/* NVIDIA's simpleStreams: kernels and copies on blocking streams, an event recorded on the legacy
 * stream and synchronised; the data is there when the event is. */
static void test_event_on_legacy_stream_waits_for_blocking_streams(void **state) {
    (void)state;
    const int n = 1024;
    float *pinned = NULL, *d = NULL;
    assert_rt_ok(cudaMallocHost((void **)&pinned, n * sizeof(float)));
    assert_rt_ok(cudaMalloc((void **)&d, n * sizeof(float)));
    for (int i = 0; i < n; i++) pinned[i] = 1.0f;
    assert_rt_ok(cudaMemcpy(d, pinned, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s[2];
    cudaEvent_t stop;
    assert_rt_ok(cudaEventCreate(&stop));
    for (int k = 0; k < 2; k++) assert_rt_ok(cudaStreamCreate(&s[k]));
    for (int k = 0; k < 2; k++) {
        float *part = d + k * n / 2;
        scale<<<n / 2 / 128, 128, 0, s[k]>>>(part, 5.0f, n / 2);
        assert_rt_ok(cudaMemcpyAsync(pinned + k * n / 2, part, n / 2 * sizeof(float),
                                     cudaMemcpyDeviceToHost, s[k]));
    }
    assert_rt_ok(cudaEventRecord(stop, cudaStreamLegacy));
    assert_rt_ok(cudaEventSynchronize(stop));
    for (int i = 0; i < n; i++) assert_true(pinned[i] == 5.0f);
    assert_rt_ok(cudaStreamQuery(s[0]));
    assert_rt_ok(cudaStreamQuery(s[1]));
    for (int k = 0; k < 2; k++) assert_rt_ok(cudaStreamDestroy(s[k]));
    assert_rt_ok(cudaEventDestroy(stop));
    assert_rt_ok(cudaFree(d));
    assert_rt_ok(cudaFreeHost(pinned));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_properties_of_the_mock_h200),
        cmocka_unit_test(test_work_runs_in_stream_order),
        cmocka_unit_test(test_callbacks_and_host_functions),
        cmocka_unit_test(test_priorities_are_clamped),
        cmocka_unit_test(test_reset_destroys_streams_and_events),
        cmocka_unit_test(test_legacy_stream_synchronises_with_blocking_streams),
        cmocka_unit_test(test_event_on_legacy_stream_waits_for_blocking_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
