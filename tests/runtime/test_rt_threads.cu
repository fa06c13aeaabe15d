/* Per host thread: the current device and the last error, as NVIDIA's runtime keeps them; and
 * launches from several threads at once, each checked. Run under ThreadSanitizer in CI. */
#include <pthread.h>

#include "rt_test.h"

__global__ void fill(int *p, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

static pthread_barrier_t barrier;

static void *other_thread(void *arg) {
    (void)arg;
    /* This thread starts on device 0 with no error, whatever the first thread did. */
    int device = -1;
    cudaGetDevice(&device);
    cudaError_t last = cudaGetLastError();
    pthread_barrier_wait(&barrier);
    return (void *)(intptr_t)(device == 0 && last == cudaSuccess);
}

static void test_device_and_error_are_per_thread(void **state) {
    (void)state;
    int n = 0;
    assert_rt_ok(cudaGetDeviceCount(&n));
    assert_int_equal(n, 2);
    assert_rt_ok(cudaSetDevice(1));
    assert_rt(cudaErrorInvalidDevice, cudaSetDevice(7));
    pthread_t t;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
    assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
    pthread_barrier_wait(&barrier);
    void *ok = NULL;
    pthread_join(t, &ok);
    pthread_barrier_destroy(&barrier);
    assert_true(ok != NULL);
    /* This thread's own state is as it left it. */
    int device = -1;
    assert_rt_ok(cudaGetDevice(&device));
    assert_int_equal(device, 1);
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());
    assert_rt_ok(cudaGetLastError());
    assert_rt_ok(cudaSetDevice(0));
}

#define THREADS 4
#define N 4096

static void *launcher(void *arg) {
    int me = (int)(intptr_t)arg;
    /* Half the threads on each device. */
    if (cudaSetDevice(me % 2) != cudaSuccess) return NULL;
    int *d = NULL;
    static int host[THREADS][N];
    if (cudaMalloc((void **)&d, N * sizeof(int)) != cudaSuccess) return NULL;
    for (int round = 0; round < 3; round++) {
        fill<<<N / 256, 256>>>(d, me * 100 + round, N);
        if (cudaGetLastError() != cudaSuccess) return NULL;
    }
    if (cudaMemcpy(host[me], d, sizeof host[me], cudaMemcpyDeviceToHost) != cudaSuccess) {
        return NULL;
    }
    cudaFree(d);
    for (int i = 0; i < N; i++) {
        if (host[me][i] != me * 100 + 2) return NULL;
    }
    return (void *)1;
}

static void test_threads_launch_at_once(void **state) {
    (void)state;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, launcher, (void *)(intptr_t)i), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        void *ok = NULL;
        pthread_join(t[i], &ok);
        assert_true(ok != NULL);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_and_error_are_per_thread),
        cmocka_unit_test(test_threads_launch_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
