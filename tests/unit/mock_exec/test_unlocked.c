/* A kernel runs without the mock's lock (issue 27): while one thread's synchronize interprets a
 * kernel, another thread's cuStreamQuery answers CUDA_ERROR_NOT_READY, and its cuMemAlloc,
 * cuCtxGetDevice and cuEventQuery answer too, as on a GPU. On main they waited for the kernel's
 * end. The kernel spins until the other thread releases it, for at most a bounded count: a
 * kernel that ran out its count (result 2) shows that the other thread's calls waited. Two
 * threads that launch kernels of one freshly loaded module at once (each kernel's own .shared
 * moves the module's layout when it is decoded) get the right results, under TSan too. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers, setenv */
#include <pthread.h>

#include "exec_util.h"

/* flags[0]: set by the kernel when it runs; flags[1]: set by the other thread to release it;
 * flags[2]: 1 when released, 2 when it gave up after `limit` rounds. Atomics on both sides. */
static const char ptx_spin[] =
    PTX_HEAD ".visible .entry spin(.param .u64 flags, .param .u64 limit)\n{\n"
             ".reg .b64 %rd<4>; .reg .b32 %r<4>; .reg .pred %p<3>;\n"
             "ld.param.u64 %rd1, [flags]; ld.param.u64 %rd2, [limit];\n"
             "atom.global.exch.b32 %r1, [%rd1], 1;\n"
             "mov.u64 %rd3, 0;\n"
             "LOOP:\n"
             "atom.global.add.u32 %r2, [%rd1+4], 0;\n"
             "setp.ne.u32 %p1, %r2, 0; @%p1 bra DONE;\n"
             "add.u64 %rd3, %rd3, 1; setp.lt.u64 %p2, %rd3, %rd2; @%p2 bra LOOP;\n"
             "atom.global.exch.b32 %r3, [%rd1+8], 2; ret;\n"
             "DONE:\n"
             "atom.global.exch.b32 %r3, [%rd1+8], 1; ret;\n}\n";

/* Waits until the kernel runs (flags[0]), for at most 60 s: whether it does. */
static bool wait_started(uint32_t *flags) {
    for (int i = 0; i < 60000 && !__atomic_load_n(&flags[0], __ATOMIC_SEQ_CST); i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return __atomic_load_n(&flags[0], __ATOMIC_SEQ_CST) != 0;
}

/* The spinning kernel, launched on a new stream s with its flags in new device memory d. */
typedef struct spin {
    CUmodule m;
    CUstream s;
    CUdeviceptr d;
    uint32_t *flags; /* the mock's device memory is the host's */
} spin;

static void launch_spin(spin *k) {
    CUfunction f;
    assert_ok(t->cuModuleLoadData(&k->m, ptx_spin));
    assert_ok(t->cuModuleGetFunction(&f, k->m, "spin"));
    assert_ok(t->cuStreamCreate(&k->s, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuMemAlloc(&k->d, 16));
    assert_ok(t->cuMemsetD8(k->d, 0, 16));
    k->flags = (uint32_t *)(uintptr_t)k->d;
    uint64_t limit = 1ull << 24;
    void *params[] = {&k->d, &limit};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, k->s, params, NULL));
}

static void end_spin(spin *k) {
    assert_ok(t->cuMemFree(k->d));
    assert_ok(t->cuStreamDestroy(k->s));
    assert_ok(t->cuModuleUnload(k->m));
}

typedef struct other {
    uint32_t *flags;
    CUstream stream;
    CUevent event;
    CUresult query, event_query, alloc, get_device, free;
    bool saw_start;
} other;

static void *other_thread(void *arg) {
    other *o = arg;
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    o->saw_start = wait_started(o->flags);
    o->query = t->cuStreamQuery(o->stream);
    o->event_query = t->cuEventQuery(o->event);
    CUdeviceptr d = 0;
    o->alloc = t->cuMemAlloc(&d, 4096);
    CUdevice dev;
    o->get_device = t->cuCtxGetDevice(&dev);
    __atomic_store_n(&o->flags[1], 1, __ATOMIC_SEQ_CST); /* release the kernel */
    o->free = d ? t->cuMemFree(d) : CUDA_ERROR_INVALID_VALUE;
    t->cuCtxSetCurrent(NULL);
    return NULL;
}

static void test_other_threads_calls_answer_while_a_kernel_runs(void **state) {
    (void)state;
    spin k;
    CUevent e;
    launch_spin(&k);
    CUstream s = k.s;
    uint32_t *flags = k.flags;
    assert_ok(t->cuEventCreate(&e, CU_EVENT_DEFAULT));
    assert_ok(t->cuEventRecord(e, s));

    other o = {.flags = flags, .stream = s, .event = e};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, other_thread, &o), 0);
    assert_ok(t->cuStreamSynchronize(s)); /* runs the kernel, here, without the lock */
    assert_int_equal(pthread_join(th, NULL), 0);

    assert_true(o.saw_start);
    assert_int_equal(__atomic_load_n(&flags[2], __ATOMIC_SEQ_CST), 1); /* released, not out */
    assert_int_equal(o.query, CUDA_ERROR_NOT_READY);
    assert_int_equal(o.event_query, CUDA_ERROR_NOT_READY);
    assert_ok(o.alloc);
    assert_ok(o.get_device);
    assert_ok(o.free);
    /* Once it ended, the stream and the event are done. */
    assert_ok(t->cuStreamQuery(s));
    assert_ok(t->cuEventQuery(e));
    assert_ok(t->cuEventDestroy(e));
    end_spin(&k);
}

/* A second thread's synchronize of the same stream waits for the running kernel rather than
 * passing it (the kernel has left the queue while it runs). */
typedef struct syncer {
    CUstream stream;
    uint32_t *flags;
    CUresult r;
    uint32_t result_seen;
} syncer;

static void *sync_thread(void *arg) {
    syncer *y = arg;
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    wait_started(y->flags);
    y->r = t->cuStreamSynchronize(y->stream);
    y->result_seen = __atomic_load_n(&y->flags[2], __ATOMIC_SEQ_CST);
    t->cuCtxSetCurrent(NULL);
    return NULL;
}

static void *release_thread(void *arg) {
    uint32_t *flags = arg;
    wait_started(flags);
    struct timespec pause = {0, 100000000}; /* the syncer is waiting by now */
    nanosleep(&pause, NULL);
    __atomic_store_n(&flags[1], 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void test_a_second_synchronize_waits_for_the_running_kernel(void **state) {
    (void)state;
    spin k;
    launch_spin(&k);
    syncer y = {.stream = k.s, .flags = k.flags};
    pthread_t ts, tr;
    assert_int_equal(pthread_create(&ts, NULL, sync_thread, &y), 0);
    assert_int_equal(pthread_create(&tr, NULL, release_thread, k.flags), 0);
    assert_ok(t->cuStreamSynchronize(k.s));
    assert_int_equal(pthread_join(ts, NULL), 0);
    assert_int_equal(pthread_join(tr, NULL), 0);
    assert_ok(y.r);
    assert_int_equal(y.result_seen, 1); /* it returned after the kernel ended */
    end_spin(&k);
}

/* Two kernels of one module, each with a .shared array of its own: each thread writes its index
 * there, waits at a barrier, reads it back and stores it plus the kernel's constant. */
#define SHARED_KERNEL(name, k)                                                                     \
    ".visible .entry " name "(.param .u64 out)\n{\n"                                               \
    ".reg .b64 %rd<6>; .reg .b32 %r<8>;\n"                                                         \
    ".shared .align 4 .b32 s_" name "[64];\n"                                                      \
    "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;\n"                      \
    "mul.wide.u32 %rd2, %r1, 4; mov.u64 %rd3, s_" name "; add.u64 %rd3, %rd3, %rd2;\n"             \
    "st.shared.u32 [%rd3], %r1; bar.sync 0; ld.shared.u32 %r3, [%rd3];\n"                          \
    "add.u32 %r3, %r3, " k "; mad.lo.u32 %r4, %r2, 64, %r1;\n"                                     \
    "mul.wide.u32 %rd4, %r4, 4; add.u64 %rd5, %rd1, %rd4; st.global.u32 [%rd5], %r3;\nret;\n}\n"
static const char ptx_pair[] = PTX_HEAD SHARED_KERNEL("ka", "1000") SHARED_KERNEL("kb", "2000");

enum { PAIR_BLOCKS = 8, PAIR_THREADS = 64 };

typedef struct launcher {
    CUmodule m;
    const char *name;
    uint32_t add;
    pthread_barrier_t *start;
    CUresult r;
    unsigned wrong;
} launcher;

static void *launch_thread(void *arg) {
    launcher *a = arg;
    CUfunction f;
    CUstream s;
    CUdeviceptr d;
    a->r = t->cuCtxSetCurrent(cushim_context_raw(ctx));
    if (a->r == CUDA_SUCCESS) a->r = t->cuModuleGetFunction(&f, a->m, a->name);
    if (a->r == CUDA_SUCCESS) a->r = t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    if (a->r == CUDA_SUCCESS) a->r = t->cuMemAlloc(&d, PAIR_BLOCKS * PAIR_THREADS * 4);
    pthread_barrier_wait(a->start); /* both launch at once */
    void *params[] = {&d};
    if (a->r == CUDA_SUCCESS)
        a->r = t->cuLaunchKernel(f, PAIR_BLOCKS, 1, 1, PAIR_THREADS, 1, 1, 0, s, params, NULL);
    if (a->r == CUDA_SUCCESS) a->r = t->cuStreamSynchronize(s);
    if (a->r == CUDA_SUCCESS) {
        const uint32_t *out = (const uint32_t *)(uintptr_t)d; /* the mock's memory is the host's */
        for (unsigned i = 0; i < PAIR_BLOCKS * PAIR_THREADS; i++)
            a->wrong += out[i] != i % PAIR_THREADS + a->add;
        t->cuMemFree(d);
        t->cuStreamDestroy(s);
    }
    t->cuCtxSetCurrent(NULL);
    return NULL;
}

static void test_two_threads_launch_kernels_of_a_fresh_module_at_once(void **state) {
    (void)state;
    for (int round = 0; round < 40; round++) {
        CUmodule m;
        assert_ok(t->cuModuleLoadData(&m, ptx_pair));
        pthread_barrier_t start;
        assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
        launcher a[2] = {{.m = m, .name = "ka", .add = 1000, .start = &start},
                         {.m = m, .name = "kb", .add = 2000, .start = &start}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&th[i], NULL, launch_thread, &a[i]), 0);
        for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
        pthread_barrier_destroy(&start);
        for (int i = 0; i < 2; i++) {
            assert_ok(a[i].r);
            assert_int_equal(a[i].wrong, 0);
        }
        assert_ok(t->cuModuleUnload(m));
    }
}

int main(void) {
    /* Each launch over two host threads of the pool, so that the two launches share it. */
    setenv("CUSHIM_MOCK_THREADS", "2", 1);
#define T(fn) cmocka_unit_test_setup_teardown(fn, exec_setup, exec_teardown)
    const struct CMUnitTest tests[] = {
        T(test_other_threads_calls_answer_while_a_kernel_runs),
        T(test_a_second_synchronize_waits_for_the_running_kernel),
        T(test_two_threads_launch_kernels_of_a_fresh_module_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
