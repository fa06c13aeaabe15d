/* fork() on the real driver: a child of a parent that never initialised CUDA loads the driver
 * and launches a kernel; a child forked after the parent initialised gets
 * CUDA_ERROR_NOT_INITIALIZED with a sentence from cushim (it never touches the driver state it
 * inherited), within a time limit, and the parent goes on launching. Skips (77) without a GPU. */
#include "gpu_util.h"
#include "fork_util.h"

/* Launches cushim_empty on a new stream of ctx and waits for it. */
static CUresult launch_once(cushim_context *ctx, cushim_function *f) {
    cushim_stream *s = NULL;
    CUresult r = cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0);
    if (r != CUDA_SUCCESS) return r;
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(8), .block = CUSHIM_DIM3(64), .shared_mem_bytes = 0, .stream = s};
    r = cushim_launch(f, &cfg, NULL);
    if (r == CUDA_SUCCESS) r = cushim_stream_synchronize(s);
    cushim_stream_release(s);
    return r;
}

static void child_fresh(void) {
    if (cushim_init() != CUDA_SUCCESS) _exit(GPU_SKIP);
    int n = 0;
    if (cushim_driver()->cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) _exit(GPU_SKIP);
    char *ptx = read_ptx("empty.ptx");
    CHILD_CHECK(ptx != NULL);
    cushim_context *ctx = NULL;
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    CHILD_CHECK(cushim_context_primary(&ctx, 0) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_module_load_data(&m, ctx, ptx) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_module_function(&f, m, "cushim_empty") == CUDA_SUCCESS);
    CHILD_CHECK(launch_once(ctx, f) == CUDA_SUCCESS);
    cushim_module_release(m);
    cushim_context_release(ctx);
    free(ptx);
}

static struct {
    cushim_context *ctx;
    cushim_module *m;
    cushim_function *f;
    cushim_stream *s;
} parent;

static void child_after_init(void) {
    CHILD_CHECK(FORKED(cushim_init()));
    CHILD_CHECK(FORKED(cushim_stream_query(parent.s)));
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                .block = CUSHIM_DIM3(32),
                                .shared_mem_bytes = 0,
                                .stream = parent.s};
    CHILD_CHECK(FORKED(cushim_launch(parent.f, &cfg, NULL)));
    cushim_context *ctx = NULL;
    CHILD_CHECK(FORKED(cushim_context_create(&ctx, 0, 0)) && ctx == NULL);
    cushim_stream_release(parent.s);
    cushim_module_release(parent.m);
    cushim_context_release(parent.ctx);
}

static void test_fork(void **state) {
    (void)state;
    /* First, before this process touches CUDA. */
    int fresh = run_child(child_fresh, 60);
    if (fresh == GPU_SKIP) {
        fprintf(stderr, "skip: no usable CUDA driver or device\n");
        exit(GPU_SKIP);
    }
    assert_int_equal(fresh, 0);
    printf("# a child of an uninitialised parent launched a kernel\n");

    gpu_require();
    char *ptx = read_ptx("empty.ptx");
    assert_non_null(ptx);
    assert_ok(cushim_context_primary(&parent.ctx, 0));
    assert_ok(cushim_module_load_data(&parent.m, parent.ctx, ptx));
    free(ptx);
    assert_ok(cushim_module_function(&parent.f, parent.m, "cushim_empty"));
    assert_ok(cushim_stream_create(&parent.s, parent.ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(launch_once(parent.ctx, parent.f));

    assert_int_equal(run_child(child_after_init, 60), 0);
    printf("# a child forked after init was refused with CUDA_ERROR_NOT_INITIALIZED\n");

    /* The parent is unaffected. */
    assert_ok(launch_once(parent.ctx, parent.f));
    assert_ok(cushim_stream_query(parent.s));
    cushim_stream_release(parent.s);
    cushim_module_release(parent.m);
    cushim_context_release(parent.ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fork)};
    return cmocka_run_group_tests_name("gpu fork", tests, NULL, NULL);
}
