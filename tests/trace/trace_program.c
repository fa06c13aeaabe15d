/* A driver-API program for the tracer's tests, built against the drop-in cuda.h in both
 * default-stream modes: a fixed sequence of calls, one of which fails, on two streams. It prints
 * the handles it got as one JSON line on stdout, so that the checker can find them in the trace.
 *   trace_program PTX_FILE [fork|start|after|inhook|many]
 * With `fork`, a child runs the sequence first, then the parent does. With `start`, the program
 * initialises the driver, then starts a trace of calls to stderr itself (cushim_trace_start),
 * then runs the sequence. With `after`, the parent initialises the driver, then forks a child
 * that makes two calls (both refused in a child of an initialised process). With `inhook`, the
 * parent forks while another thread is blocked inside the tracer's hook (its line to stderr
 * waits on a full pipe); the child makes the two calls and exits, and must not hang. A child
 * prints its pid on a line of its own, before the parent's line. With `many`, two threads each
 * make MANY calls, far more than the tracer's ring of a thread holds. */
#include <cuda.h>
#include <cushim.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int sequence(const char *ptx) {
    CUdevice dev, bad;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUstream s1, s2;
    CUdeviceptr p;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    if (cuDeviceGet(&bad, 99) != CUDA_ERROR_INVALID_DEVICE) return 1;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoad(&mod, ptx));
    CHECK(cuModuleGetFunction(&fn, mod, "cushim_empty"));
    CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&s2, CU_STREAM_DEFAULT));
    CHECK(cuMemAlloc(&p, 4096));
    CHECK(cuMemsetD8Async(p, 7, 4096, s1));
    CHECK(cuLaunchKernel(fn, 2, 1, 1, 32, 1, 1, 0, s1, NULL, NULL));
    CHECK(cuMemsetD8Async(p, 1, 16, s2));
    CHECK(cuStreamSynchronize(s1));
    CHECK(cuStreamSynchronize(s2));
    CHECK(cuMemFree(p));
    CHECK(cuStreamDestroy(s1));
    CHECK(cuStreamDestroy(s2));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("{\"pid\": %ld, \"ctx\": \"%p\", \"module\": \"%p\", \"function\": \"%p\", "
           "\"s1\": \"%p\", \"s2\": \"%p\", \"dptr\": \"0x%llx\"}\n",
           (long)getpid(), (void *)ctx, (void *)mod, (void *)fn, (void *)s1, (void *)s2,
           (unsigned long long)p);
    fflush(stdout);
    return 0;
}

/* A child of an initialised process: its calls are refused, and traced. */
static void child_of_initialised(void) {
    CUdevice dev;
    if (cuInit(0) != CUDA_ERROR_NOT_INITIALIZED) exit(1);
    if (cuDeviceGet(&dev, 0) != CUDA_ERROR_NOT_INITIALIZED) exit(1);
    printf("{\"pid\": %ld}\n", (long)getpid());
    fflush(stdout);
    exit(0); /* the tracer's stop runs at exit */
}

/* Waits up to 20 s for the child; 3 when it hangs (then it is killed), 1 when it failed. */
static int wait_child(pid_t child) {
    for (int k = 0; k < 2000; k++) {
        int status;
        pid_t w = waitpid(child, &status, WNOHANG);
        if (w == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
        if (w < 0) return 1;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    kill(child, SIGKILL);
    (void)waitpid(child, NULL, 0);
    fprintf(stderr, "the child %ld hangs\n", (long)child);
    return 3;
}

static void *one_call(void *arg) {
    int v;
    atomic_store((atomic_int *)arg, 1);
    (void)cuDriverGetVersion(&v); /* its trace line waits on the full pipe */
    return NULL;
}

/* Forks while another thread is inside the tracer's hook, writing its line to stderr, which is
 * a pipe that nobody reads and that is full. */
static int fork_in_hook(void) {
    CHECK(cuInit(0));
    int p[2], saved = dup(STDERR_FILENO);
    if (saved < 0 || pipe(p) != 0) return 1;
    (void)fcntl(p[1], F_SETFL, O_NONBLOCK);
    static char junk[4096];
    memset(junk, '.', sizeof junk);
    while (write(p[1], junk, sizeof junk) > 0) continue;
    (void)fcntl(p[1], F_SETFL, 0);
    dup2(p[1], STDERR_FILENO);
    atomic_int started = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, one_call, (void *)&started) != 0) return 1;
    while (!atomic_load(&started)) sched_yield();
    nanosleep(&(struct timespec){0, 200000000}, NULL); /* it is in write() by now */
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDERR_FILENO);
        child_of_initialised();
    }
    int r = wait_child(child);
    dup2(saved, STDERR_FILENO);
    (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
    for (;;) { /* drains the pipe until the thread's line is through */
        ssize_t n = read(p[0], junk, sizeof junk);
        if (n > 0) continue;
        if (pthread_tryjoin_np(t, NULL) == 0) break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return r;
}

/* MANY calls on each of two threads: far more records than a thread's ring holds. Every third
 * is followed by a cuInit, whose record is shorter (one cell of the ring, against two), so that
 * records of both sizes meet the ring's end at every offset. */
enum { MANY = 20000 };
static void *many_calls(void *unused) {
    (void)unused;
    int v;
    for (int k = 0; k < MANY; k++) {
        if (cuDriverGetVersion(&v) != CUDA_SUCCESS) return (void *)1;
        if (k % 3 == 0 && cuInit(0) != CUDA_SUCCESS) return (void *)1;
    }
    return NULL;
}

static int many(void) {
    CHECK(cuInit(0));
    pthread_t t;
    void *r1, *r2;
    if (pthread_create(&t, NULL, many_calls, NULL) != 0) return 1;
    r1 = many_calls(NULL);
    if (pthread_join(t, &r2) != 0 || r1 != NULL || r2 != NULL) return 1;
    printf("{\"pid\": %ld, \"many\": %d, \"many_init\": %d}\n", (long)getpid(), MANY,
           (MANY + 2) / 3);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PTX_FILE [fork|start|after|inhook|many]\n", argv[0]);
        return 2;
    }
    if (argc > 2 && argv[2][0] == 's') {
        CHECK(cuInit(0));
        CHECK(cushim_trace_start("calls", NULL));
        int r = sequence(argv[1]);
        CHECK(cushim_trace_stop());
        return r;
    }
    if (argc > 2 && argv[2][0] == 'm') return many();
    if (argc > 2 && argv[2][0] == 'i') {
        int r = fork_in_hook();
        return r != 0 ? r : sequence(argv[1]);
    }
    if (argc > 2 && argv[2][0] == 'a') {
        CHECK(cuInit(0));
        pid_t child = fork();
        if (child < 0) return 1;
        if (child == 0) child_of_initialised();
        int r = wait_child(child);
        return r != 0 ? r : sequence(argv[1]);
    }
    if (argc > 2) {
        pid_t child = fork();
        if (child < 0) return 1;
        if (child == 0) exit(sequence(argv[1]));
        int status;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
            return 1;
        }
    }
    return sequence(argv[1]);
}
