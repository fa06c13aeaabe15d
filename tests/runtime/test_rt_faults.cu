/* The fault sweep of cushim's runtime on the mock: each runtime function on the main paths
 * (device selection and properties, memory and copies, streams, events, a chevron launch,
 * symbols, pools, managed memory) runs once cleanly, recording how many driver calls it makes;
 * then each of those calls in turn fails (the mock's fail_any, with
 * CUDA_ERROR_OUT_OF_MEMORY). Each time the function must answer the mapped code
 * (cudaErrorMemoryAllocation, never success), record it as the thread's last error, and the
 * library must keep working: the same function succeeds on a second attempt, and after cleanup
 * the mock's live objects and memory are what they were at the start. The count of (function,
 * driver call) pairs swept is printed as a TAP comment. */
#include "rt_test.h"

#include "cushim_mock.h"

static cushim_mock_api mock;

__device__ int symbol_var[4];

__global__ void touch(int *p) {
    if (p != NULL) p[threadIdx.x] += 1;
}

/* What every scenario may use, made once; and what a scenario makes, for its cleanup. */
static struct {
    int *dev;
    int host[64];
    int *pinned;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *made;      /* memory a scenario allocated, freed by its cleanup */
    cudaStream_t s2; /* a stream a scenario made */
    cudaEvent_t e2;  /* an event a scenario made */
} fx;

typedef struct scenario {
    const char *name;
    /* The driver's destroy of the object (cudaStreamDestroy, cudaEventDestroy): cushim's release
     * of a stream or event answers nothing, so when the driver refuses the destroy the runtime
     * answers success, cushim's log says so at warn, and the object stays the driver's (one more
     * live in the mock, for good). NULL for the others. */
    const char *destroy;
    void (*setup)(void); /* may be NULL */
    cudaError_t (*op)(void);
    void (*cleanup)(void); /* may be NULL; runs after a success and after a failure */
} scenario;

/* A scenario's release of what slot holds (fx.made, fx.s2, fx.e2): as the operation swept, fn's
 * answer, the slot forgotten once fn released it; as a cleanup, only when the slot holds
 * something, and forgotten whatever fn answered. */
template <typename T> static cudaError_t release_op(cudaError_t (*fn)(T), T &slot) {
    cudaError_t e = fn(slot);
    if (e == cudaSuccess) slot = NULL;
    return e;
}
template <typename T> static void release_cleanup(cudaError_t (*fn)(T), T &slot) {
    if (slot != NULL) fn(slot);
    slot = NULL;
}

static void free_made(void) { release_cleanup(cudaFree, fx.made); }
static void free_made_host(void) { release_cleanup(cudaFreeHost, fx.made); }
static void alloc_made(void) { cudaMalloc(&fx.made, 256); }
static void alloc_made_host(void) { cudaMallocHost(&fx.made, 256); }
static void destroy_s2(void) { release_cleanup(cudaStreamDestroy, fx.s2); }
static void make_s2(void) { cudaStreamCreate(&fx.s2); }
static void destroy_e2(void) { release_cleanup(cudaEventDestroy, fx.e2); }
static void make_e2(void) { cudaEventCreate(&fx.e2); }
static void record_both(void) {
    cudaEventRecord(fx.start, fx.stream);
    cudaEventRecord(fx.stop, fx.stream);
    cudaStreamSynchronize(fx.stream);
}

static cudaError_t set_device(void) { return cudaSetDevice(0); }
static cudaError_t get_properties(void) {
    cudaDeviceProp p;
    return cudaGetDeviceProperties(&p, 0);
}
static cudaError_t get_attribute(void) {
    int v;
    return cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
}
static cudaError_t mem_get_info(void) {
    size_t f, t;
    return cudaMemGetInfo(&f, &t);
}
static cudaError_t device_synchronize(void) { return cudaDeviceSynchronize(); }
static cudaError_t malloc_op(void) { return cudaMalloc(&fx.made, 256); }
static cudaError_t free_op(void) { return release_op(cudaFree, fx.made); }
static cudaError_t malloc_host_op(void) { return cudaMallocHost(&fx.made, 256); }
static cudaError_t free_host_op(void) { return release_op(cudaFreeHost, fx.made); }
static cudaError_t managed_op(void) { return cudaMallocManaged(&fx.made, 256); }
static cudaError_t memcpy_h2d(void) {
    return cudaMemcpy(fx.dev, fx.host, sizeof fx.host, cudaMemcpyHostToDevice);
}
static cudaError_t memcpy_d2h(void) {
    return cudaMemcpy(fx.host, fx.dev, sizeof fx.host, cudaMemcpyDeviceToHost);
}
static cudaError_t memcpy_async(void) {
    return cudaMemcpyAsync(fx.pinned, fx.dev, sizeof fx.host, cudaMemcpyDeviceToHost, fx.stream);
}
static cudaError_t memset_op(void) { return cudaMemset(fx.dev, 0, sizeof fx.host); }
static cudaError_t memset_async(void) { return cudaMemsetAsync(fx.dev, 1, 16, fx.stream); }
static cudaError_t stream_create(void) { return cudaStreamCreate(&fx.s2); }
static cudaError_t stream_create_flags(void) {
    return cudaStreamCreateWithPriority(&fx.s2, cudaStreamNonBlocking, 0);
}
static cudaError_t stream_destroy(void) { return release_op(cudaStreamDestroy, fx.s2); }
static cudaError_t stream_synchronize(void) { return cudaStreamSynchronize(fx.stream); }
static cudaError_t stream_query(void) { return cudaStreamQuery(fx.stream); }
static cudaError_t stream_wait(void) { return cudaStreamWaitEvent(fx.stream, fx.start, 0); }
static cudaError_t event_create(void) { return cudaEventCreate(&fx.e2); }
static cudaError_t event_create_flags(void) {
    return cudaEventCreateWithFlags(&fx.e2, cudaEventDisableTiming);
}
static cudaError_t event_destroy(void) { return release_op(cudaEventDestroy, fx.e2); }
static cudaError_t event_record(void) { return cudaEventRecord(fx.start, fx.stream); }
static cudaError_t event_synchronize(void) { return cudaEventSynchronize(fx.stop); }
static cudaError_t event_elapsed(void) {
    float ms;
    return cudaEventElapsedTime(&ms, fx.start, fx.stop);
}
static cudaError_t chevron_launch(void) {
    touch<<<1, 32, 0, fx.stream>>>(fx.dev);
    return cudaPeekAtLastError();
}
static cudaError_t launch_kernel(void) {
    void *args[] = {&fx.dev};
    return cudaLaunchKernel((const void *)touch, dim3(1), dim3(32), args, 0, fx.stream);
}
static cudaError_t to_symbol(void) {
    return cudaMemcpyToSymbol(symbol_var, fx.host, sizeof symbol_var);
}
static cudaError_t from_symbol(void) {
    return cudaMemcpyFromSymbol(fx.host, symbol_var, sizeof symbol_var);
}
static cudaError_t symbol_address(void) {
    void *p;
    return cudaGetSymbolAddress(&p, symbol_var);
}
static cudaError_t malloc_async(void) { return cudaMallocAsync(&fx.made, 256, fx.stream); }
static cudaError_t free_async(void) {
    cudaError_t e = cudaFreeAsync(fx.made, fx.stream);
    if (e == cudaSuccess) fx.made = NULL;
    return e;
}
static void alloc_async_made(void) { cudaMallocAsync(&fx.made, 256, fx.stream); }
static void free_async_made(void) {
    if (fx.made != NULL) cudaFreeAsync(fx.made, fx.stream);
    fx.made = NULL;
    cudaStreamSynchronize(fx.stream);
}
static cudaError_t default_pool(void) {
    cudaMemPool_t pool;
    return cudaDeviceGetDefaultMemPool(&pool, 0);
}
static cudaError_t pool_attribute(void) {
    cudaMemPool_t pool;
    cudaError_t e = cudaDeviceGetDefaultMemPool(&pool, 0);
    if (e != cudaSuccess) return e;
    unsigned long long v;
    return cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &v);
}
static cudaError_t prefetch(void) {
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    return cudaMemPrefetchAsync(fx.made, 256, loc, 0, fx.stream);
}
static void alloc_managed_made(void) { cudaMallocManaged(&fx.made, 256); }

static const scenario scenarios[] = {
    {"cudaSetDevice", NULL, NULL, set_device, NULL},
    {"cudaGetDeviceProperties", NULL, NULL, get_properties, NULL},
    {"cudaDeviceGetAttribute", NULL, NULL, get_attribute, NULL},
    {"cudaMemGetInfo", NULL, NULL, mem_get_info, NULL},
    {"cudaDeviceSynchronize", NULL, NULL, device_synchronize, NULL},
    {"cudaMalloc", NULL, NULL, malloc_op, free_made},
    {"cudaFree", NULL, alloc_made, free_op, free_made},
    {"cudaMallocHost", NULL, NULL, malloc_host_op, free_made_host},
    {"cudaFreeHost", NULL, alloc_made_host, free_host_op, free_made_host},
    {"cudaMallocManaged", NULL, NULL, managed_op, free_made},
    {"cudaMemcpy (to the device)", NULL, NULL, memcpy_h2d, NULL},
    {"cudaMemcpy (to the host)", NULL, NULL, memcpy_d2h, NULL},
    {"cudaMemcpyAsync", NULL, NULL, memcpy_async, NULL},
    {"cudaMemset", NULL, NULL, memset_op, NULL},
    {"cudaMemsetAsync", NULL, NULL, memset_async, NULL},
    {"cudaStreamCreate", NULL, NULL, stream_create, destroy_s2},
    {"cudaStreamCreateWithPriority", NULL, NULL, stream_create_flags, destroy_s2},
    {"cudaStreamDestroy", "cuStreamDestroy", make_s2, stream_destroy, destroy_s2},
    {"cudaStreamSynchronize", NULL, NULL, stream_synchronize, NULL},
    {"cudaStreamQuery", NULL, NULL, stream_query, NULL},
    {"cudaStreamWaitEvent", NULL, NULL, stream_wait, NULL},
    {"cudaEventCreate", NULL, NULL, event_create, destroy_e2},
    {"cudaEventCreateWithFlags", NULL, NULL, event_create_flags, destroy_e2},
    {"cudaEventDestroy", "cuEventDestroy", make_e2, event_destroy, destroy_e2},
    {"cudaEventRecord", NULL, NULL, event_record, NULL},
    {"cudaEventSynchronize", NULL, record_both, event_synchronize, NULL},
    {"cudaEventElapsedTime", NULL, record_both, event_elapsed, NULL},
    {"<<<...>>>", NULL, NULL, chevron_launch, NULL},
    {"cudaLaunchKernel", NULL, NULL, launch_kernel, NULL},
    {"cudaMemcpyToSymbol", NULL, NULL, to_symbol, NULL},
    {"cudaMemcpyFromSymbol", NULL, NULL, from_symbol, NULL},
    {"cudaGetSymbolAddress", NULL, NULL, symbol_address, NULL},
    {"cudaMallocAsync", NULL, NULL, malloc_async, free_async_made},
    {"cudaFreeAsync", NULL, alloc_async_made, free_async, free_async_made},
    {"cudaDeviceGetDefaultMemPool", NULL, NULL, default_pool, NULL},
    {"cudaMemPoolGetAttribute", NULL, NULL, pool_attribute, NULL},
    {"cudaMemPrefetchAsync", NULL, alloc_managed_made, prefetch, free_made},
};

static int live[CUSHIM_MOCK_KIND_COUNT], memory[CUSHIM_MOCK_MEM_KIND_COUNT];

static void snapshot(void) {
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) live[k] = mock.live((cushim_mock_kind)k);
    for (int k = 0; k < CUSHIM_MOCK_MEM_KIND_COUNT; k++) {
        memory[k] = mock.live_memory((cushim_mock_memory_kind)k);
    }
}

/* Whether the mock's objects and memory are what snapshot() saw; says what differs. */
static bool same_as_snapshot(const char *name, const char *when) {
    if (fx.stream != NULL) cudaStreamSynchronize(fx.stream);
    bool same = true;
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) {
        int now = mock.live((cushim_mock_kind)k);
        if (now != live[k]) {
            print_error("%s %s: %d live objects of kind %d, %d before\n", name, when, now, k,
                        live[k]);
            same = false;
        }
    }
    for (int k = 0; k < CUSHIM_MOCK_MEM_KIND_COUNT; k++) {
        int now = mock.live_memory((cushim_mock_memory_kind)k);
        if (now != memory[k]) {
            print_error("%s %s: %d live memory of kind %d, %d before\n", name, when, now, k,
                        memory[k]);
            same = false;
        }
    }
    return same;
}

/* The driver calls of the last clean run, by name. */
#define MAX_CALLS 256
static const char *call_names[MAX_CALLS];

/* One run of a scenario: setup, the call (with driver call k failing when k > 0), cleanup.
 * Returns the call's answer; *calls is the number of driver calls the call made. */
static cudaError_t run(const scenario *sc, int k, int *calls) {
    if (sc->setup != NULL) sc->setup();
    cudaGetLastError();
    int before = mock.calls("*");
    if (k > 0) mock.fail_any(k, CUDA_ERROR_OUT_OF_MEMORY);
    cudaError_t e = sc->op();
    mock.fail_any(0, CUDA_SUCCESS);
    *calls = mock.calls("*") - before;
    for (int i = 0; k == 0 && i < *calls && i < MAX_CALLS; i++) {
        call_names[i] = mock.call_name(before + i);
    }
    cudaError_t last = cudaGetLastError();
    if (e != cudaSuccess && last != e) {
        print_error("%s, driver call %d failing: answered %s, the last error is %s\n", sc->name, k,
                    cudaGetErrorName(e), cudaGetErrorName(last));
        e = cudaErrorUnknown;
    }
    if (sc->cleanup != NULL) sc->cleanup();
    if (fx.stream != NULL) cudaStreamSynchronize(fx.stream);
    cudaGetLastError();
    return e;
}

/* The (function, driver call) pairs swept so far, over how many functions. */
static int pairs, functions;

/* Sweeps each scenario of the table; same_context: the calling thread's current context must be
 * the one it was after each faulted run. Returns the number of faults found (each said). */
static int sweep(const scenario *table, size_t count, bool same_context) {
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        const scenario *sc = &table[i];
        snapshot();
        int n = 0, ignored = 0;
        cudaError_t e = run(sc, 0, &n);
        if (e != cudaSuccess || !same_as_snapshot(sc->name, "after a clean run")) {
            print_error("%s: the clean run answered %s\n", sc->name, cudaGetErrorName(e));
            bad++;
            continue;
        }
        for (int k = 1; k <= n; k++) {
            CUcontext current = mock.current();
            e = run(sc, k, &ignored);
            pairs++;
            if (same_context && mock.current() != current) {
                print_error("%s, driver call %d failing: the current context is %p, was %p\n",
                            sc->name, k, (void *)mock.current(), (void *)current);
                bad++;
            }
            bool refused_destroy = sc->destroy != NULL && k <= MAX_CALLS &&
                                   strcmp(call_names[k - 1], sc->destroy) == 0;
            if (e != cudaErrorMemoryAllocation && !(refused_destroy && e == cudaSuccess)) {
                print_error("%s, driver call %d of %d (%s) failing: answered %s, not "
                            "cudaErrorMemoryAllocation\n",
                            sc->name, k, n, k <= MAX_CALLS ? call_names[k - 1] : "?",
                            cudaGetErrorName(e));
                bad++;
            }
            if (run(sc, 0, &ignored) != cudaSuccess) {
                print_error("%s, after driver call %d failed: the next attempt fails\n", sc->name,
                            k);
                bad++;
            }
            if (refused_destroy) {
                /* The refused object stays in the mock: the baseline from now on. */
                cushim_mock_kind kind = strcmp(sc->destroy, "cuStreamDestroy") == 0
                                            ? CUSHIM_MOCK_STREAM
                                            : CUSHIM_MOCK_EVENT;
                live[kind]++;
            }
            if (!same_as_snapshot(sc->name, "after a fault")) bad++;
        }
    }
    functions += (int)count;
    return bad;
}

static void test_each_driver_call_of_each_function_fails_cleanly(void **state) {
    (void)state;
    assert_true(cushim_mock_open(&mock, NULL));
    /* What every scenario uses, and each kernel and symbol loaded once (first use loads the
     * module: that is the launch's and the symbol's business, not swept here). */
    assert_rt_ok(cudaMalloc((void **)&fx.dev, sizeof fx.host));
    assert_rt_ok(cudaMallocHost((void **)&fx.pinned, sizeof fx.host));
    assert_rt_ok(cudaStreamCreate(&fx.stream));
    assert_rt_ok(cudaEventCreate(&fx.start));
    assert_rt_ok(cudaEventCreate(&fx.stop));
    touch<<<1, 32>>>(fx.dev);
    assert_rt_ok(cudaGetLastError());
    assert_rt_ok(cudaMemcpyToSymbol(symbol_var, fx.host, sizeof symbol_var));
    assert_rt_ok(cudaDeviceSynchronize());

    int bad = sweep(scenarios, sizeof scenarios / sizeof scenarios[0], true);
    assert_int_equal(bad, 0);

    assert_rt_ok(cudaEventDestroy(fx.start));
    assert_rt_ok(cudaEventDestroy(fx.stop));
    assert_rt_ok(cudaStreamDestroy(fx.stream));
    assert_rt_ok(cudaFreeHost(fx.pinned));
    assert_rt_ok(cudaFree(fx.dev));
    fx.stream = NULL;
}

/* The first use of a device after cudaDeviceReset: the primary context retained again and the
 * module loaded again. Each run starts and ends with a reset. */
static void reset_device(void) { cudaDeviceReset(); }
static void free_and_reset(void) {
    free_made();
    cudaDeviceReset();
}
static cudaError_t init_op(void) { return cudaFree(NULL); }
static cudaError_t first_launch(void) {
    touch<<<1, 32>>>(NULL);
    cudaError_t e = cudaPeekAtLastError();
    return e != cudaSuccess ? e : cudaDeviceSynchronize();
}

static const scenario after_reset[] = {
    {"cudaFree(NULL) after cudaDeviceReset", NULL, reset_device, init_op, reset_device},
    {"cudaMalloc after cudaDeviceReset", NULL, reset_device, malloc_op, free_and_reset},
    {"<<<...>>> after cudaDeviceReset", NULL, reset_device, first_launch, reset_device},
    {"cudaMemcpyToSymbol after cudaDeviceReset", NULL, reset_device, to_symbol, reset_device},
    {"cudaGetSymbolAddress after cudaDeviceReset", NULL, reset_device, symbol_address,
     reset_device},
};

static void test_first_use_after_reset_fails_cleanly(void **state) {
    (void)state;
    assert_rt_ok(cudaDeviceReset());
    assert_int_equal(sweep(after_reset, sizeof after_reset / sizeof after_reset[0], false), 0);
    printf("# %d (runtime function, driver call) pairs swept over %d functions\n", pairs,
           functions);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_driver_call_of_each_function_fails_cleanly),
        cmocka_unit_test(test_first_use_after_reset_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
