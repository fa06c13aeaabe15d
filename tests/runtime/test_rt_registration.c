/* The registration ABI written out as nvcc emits it, in C and without nvcc: a constructor
 * registers a PTX image and one kernel before main, and the runtime loads it on first use. With
 * it: the current device and last error of each host thread, launches from several threads on
 * two devices at once (this test runs under ThreadSanitizer in CI), fork, and a quiet exit (the
 * fatbin unregistered at exit after cudaDeviceReset, or with a driver already torn down). The PTX
 * is ptx/double.ptx, read from PTX_PATH. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "cushim_mock.h"

/* What crt/host_runtime.h declares for C++; nvcc's generated code calls these. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);

#define assert_rt(want, call)                                                                      \
    do {                                                                                           \
        cudaError_t got_ = (call);                                                                 \
        if (got_ != (want)) {                                                                      \
            fail_msg("%s: got %s, want %s", #call, cudaGetErrorName(got_),                         \
                     cudaGetErrorName(want));                                                      \
        }                                                                                          \
    } while (0)

/* Exported as NVIDIA's library does, declared here by hand: cuda_gl_interop.h needs GL's
 * headers, and no header declares __cudaRegisterUnifiedTable. */
cudaError_t cudaGLSetGLDevice(int device);
cudaError_t cudaVDPAUGetDevice(int *device, unsigned vdp_device, void *get_proc_address);
cudaError_t __cudaRegisterUnifiedTable(void);

/* The kernel's host stub: only its address matters, as for nvcc's. */
static void cushim_double_stub(float *data, unsigned n) {
    (void)data;
    (void)n;
}

/* The stub's address as the runtime takes it (a data pointer: ISO C has no cast for it). */
static const void *stub_address(void) {
    void (*f)(float *, unsigned) = cushim_double_stub;
    const void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

static struct {
    int magic, version;
    const void *data;
    void *filename_or_fatbins;
} wrapper = {0x466243B1, 1, NULL, NULL};
static void **handle;
static char *ptx;

static void unregister(void) {
    __cudaUnregisterFatBinary(handle);
    free(ptx);
}

__attribute__((constructor)) static void register_before_main(void) {
    FILE *f = fopen(PTX_PATH, "rb");
    if (f == NULL) return;
    ptx = calloc(1, 1 << 16);
    if (ptx != NULL && fread(ptx, 1, (1 << 16) - 1, f) == 0) ptx[0] = '\0';
    fclose(f);
    wrapper.data = ptx;
    handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)stub_address(), "cushim_double", "cushim_double",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
    atexit(unregister);
}

/* Doubles n floats of value v on the current device; true when every result is 2v. */
static bool double_on_device(float v, int n) {
    float *d = NULL, *h = malloc(n * sizeof(float));
    bool ok = h != NULL && cudaMalloc((void **)&d, n * sizeof(float)) == cudaSuccess;
    for (int i = 0; ok && i < n; i++) h[i] = v;
    ok = ok && cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
    unsigned un = (unsigned)n;
    void *args[] = {&d, &un};
    dim3 grid = {(unsigned)(n + 255) / 256, 1, 1}, block = {256, 1, 1};
    ok = ok && cudaLaunchKernel(stub_address(), grid, block, args, 0, NULL) == cudaSuccess;
    ok = ok && cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int i = 0; ok && i < n; i++) ok = h[i] == 2 * v;
    if (d != NULL) cudaFree(d);
    free(h);
    return ok;
}

static void test_registered_kernel_runs(void **state) {
    (void)state;
    assert_non_null(ptx);
    assert_true(double_on_device(1.5f, 1000));
}

static pthread_barrier_t barrier;

static void *fresh_thread(void *arg) {
    (void)arg;
    int device = -1;
    cudaGetDevice(&device);
    cudaError_t last = cudaGetLastError();
    pthread_barrier_wait(&barrier);
    return (void *)(intptr_t)(device == 0 && last == cudaSuccess);
}

static void test_device_and_last_error_are_per_thread(void **state) {
    (void)state;
    assert_rt(cudaSuccess, cudaSetDevice(1));
    assert_rt(cudaErrorInvalidDevice, cudaSetDevice(9));
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fresh_thread, NULL), 0);
    pthread_barrier_wait(&barrier);
    void *ok = NULL;
    pthread_join(t, &ok);
    pthread_barrier_destroy(&barrier);
    assert_non_null(ok);
    int device = -1;
    assert_rt(cudaSuccess, cudaGetDevice(&device));
    assert_int_equal(device, 1);
    assert_rt(cudaErrorInvalidDevice, cudaPeekAtLastError());
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());
    assert_rt(cudaSuccess, cudaGetLastError());
    assert_rt(cudaSuccess, cudaSetDevice(0));
}

#define THREADS 6

static void *launcher(void *arg) {
    int me = (int)(intptr_t)arg;
    if (cudaSetDevice(me % 2) != cudaSuccess) return NULL;
    for (int round = 0; round < 3; round++) {
        if (!double_on_device((float)(me * 10 + round), 700)) return NULL;
    }
    return cudaGetLastError() == cudaSuccess ? (void *)1 : NULL;
}

static void test_threads_launch_on_two_devices(void **state) {
    (void)state;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, launcher, (void *)(intptr_t)i), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        void *ok = NULL;
        pthread_join(t[i], &ok);
        assert_non_null(ok);
    }
}

/* A child forked after the runtime used the driver cannot use it (the driver's rule): every call
 * answers, none crashes. */
static void test_fork_after_use(void **state) {
    (void)state;
    assert_true(double_on_device(2.0f, 10));
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, 16);
        int n = -1;
        cudaError_t c = cudaGetDeviceCount(&n);
        _exit(e != cudaSuccess && cudaGetLastError() == e && (c == cudaSuccess || n == 0) ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* The parent goes on. */
    assert_true(double_on_device(3.0f, 10));
}

/* The program run again as a child that uses the kernel, then ends with its fatbin still
 * registered: after cudaDeviceReset ("reset"), or with the mock answering
 * CUDA_ERROR_DEINITIALIZED to every unload, as a driver whose exit handlers ran first does
 * ("deinit"). __cudaUnregisterFatBinary then runs from atexit. */
static int exit_child(const char *how) {
    if (!double_on_device(1.0f, 64)) return 2;
    if (strcmp(how, "reset") == 0) return cudaDeviceReset() == cudaSuccess ? 0 : 3;
    cushim_mock_api mock;
    if (!cushim_mock_open(&mock, NULL)) return 4;
    mock.fail_always("cuModuleUnload", CUDA_ERROR_DEINITIALIZED);
    mock.fail_always("cuDevicePrimaryCtxRelease", CUDA_ERROR_DEINITIALIZED);
    return 0;
}

/* This program's path, as main was given it (under valgrind /proc/self/exe is valgrind's). */
static const char *self_path;

/* Runs this program as exit_child(how) and returns what it wrote on stderr (NULL when it did
 * not exit 0). */
static char *stderr_of_child(const char *how) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        /* What cushim prints of itself is the question, not what a tracer asked for prints (the
         * traced run of this test sets CUSHIM_TRACE, whose summary goes to stderr at exit). */
        unsetenv("CUSHIM_TRACE");
        execl(self_path, self_path, "--exit-child", how, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    static char text[4096];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof text - 1 && (got = read(fds[0], text + n, sizeof text - 1 - n)) > 0) {
        n += (size_t)got;
    }
    text[n] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        print_error("child %s: status %d, stderr: %s\n", how, status, text);
        return NULL;
    }
    return text;
}

static void test_exit_after_reset_is_quiet(void **state) {
    (void)state;
    char *err = stderr_of_child("reset");
    assert_non_null(err);
    assert_string_equal(err, "");
}

static void test_exit_with_driver_gone_is_quiet(void **state) {
    (void)state;
    char *err = stderr_of_child("deinit");
    assert_non_null(err);
    assert_string_equal(err, "");
}

/* The graphics interop functions and the undocumented exports are stubs: not supported, and
 * recorded as the thread's last error. */
static void test_interop_stubs_answer_not_supported(void **state) {
    (void)state;
    int device = -1;
    assert_rt(cudaErrorNotSupported, cudaGLSetGLDevice(0));
    assert_rt(cudaErrorNotSupported, cudaVDPAUGetDevice(&device, 1, NULL));
    assert_int_equal(device, -1);
    assert_rt(cudaErrorNotSupported, __cudaRegisterUnifiedTable());
    assert_rt(cudaErrorNotSupported, cudaGetLastError());
    assert_rt(cudaSuccess, cudaGetLastError());
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--exit-child") == 0) return exit_child(argv[2]);
    self_path = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_after_reset_is_quiet),
        cmocka_unit_test(test_exit_with_driver_gone_is_quiet),
        cmocka_unit_test(test_interop_stubs_answer_not_supported),
        cmocka_unit_test(test_registered_kernel_runs),
        cmocka_unit_test(test_device_and_last_error_are_per_thread),
        cmocka_unit_test(test_threads_launch_on_two_devices),
        cmocka_unit_test(test_fork_after_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
