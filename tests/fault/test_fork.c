/* fork(): a child of a process that initialised the driver gets CUDA_ERROR_NOT_INITIALIZED
 * with a sentence from every call (cushim never calls into the parent's driver state there),
 * and never hangs or crashes; a child of a process that had not initialised uses the driver
 * normally. Each child runs under alarm(), so a hang fails the test instead of stalling it. */
#include "testutil.h"
#include "fork_util.h"

static const char ptx[] = ".version 6.0\n.target sm_70\n.address_size 64\n\n"
                          ".visible .entry cushim_empty(\n)\n{\n    ret;\n}\n";

/* The parent has not called cushim_init: the child loads the driver and works. */
static void child_fresh(void) {
    cushim_mock_api m;
    CHILD_CHECK(cushim_mock_open(&m, NULL));
    CHILD_CHECK(cushim_init() == CUDA_SUCCESS);
    cushim_context *ctx = NULL;
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    CHILD_CHECK(cushim_context_create(&ctx, 0, 0) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_stream_create(&s, ctx, 0, 0) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_event_create(&e, ctx, 0) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_event_record(e, s) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_stream_synchronize(s) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_event_query(e) == CUDA_SUCCESS);
    cushim_event_release(e);
    cushim_stream_release(s);
    cushim_context_release(ctx);
    CHILD_CHECK(m.live(CUSHIM_MOCK_CONTEXT) == 0 && m.live(CUSHIM_MOCK_STREAM) == 0 &&
                m.live(CUSHIM_MOCK_EVENT) == 0);
}

static void test_child_of_uninitialised_parent(void **state) {
    (void)state;
    assert_int_equal(run_child(child_fresh, 20), 0);
}

/* Objects the parent made before forking. */
static struct {
    cushim_context *ctx;
    cushim_stream *s;
    cushim_event *e;
    cushim_module *m;
    cushim_function *f;
    const cushim_driver_table *table;
} parent;

static void child_after_init(void) {
    cushim_mock_api m;
    CHILD_CHECK(cushim_mock_open(&m, NULL));
    int calls = m.calls("*");

    CUresult r = cushim_init();
    CHILD_CHECK(FORKED(r));
    CHILD_CHECK(cushim_driver() != NULL);
    CUdevice dev = -1;
    CHILD_CHECK(cushim_driver()->cuDeviceGet(&dev, 0) == CUDA_ERROR_NOT_INITIALIZED);
    CHILD_CHECK(strstr(cushim_last_error(), "forked") != NULL);
    const cushim_driver_info *info = cushim_driver_state();
    CHILD_CHECK(info->status == CUSHIM_DRIVER_INIT_FAILED);
    CHILD_CHECK(info->result == CUDA_ERROR_NOT_INITIALIZED);
    CHILD_CHECK(strstr(info->message, "forked") != NULL);
    CHILD_CHECK(!cushim_driver_has("cuInit"));

    cushim_context *ctx = (cushim_context *)&ctx; /* must be overwritten with NULL */
    CHILD_CHECK(FORKED(cushim_context_create(&ctx, 0, 0)) && ctx == NULL);
    CHILD_CHECK(FORKED(cushim_context_primary(&ctx, 0)) && ctx == NULL);
    cushim_stream *s = (cushim_stream *)&s;
    CHILD_CHECK(FORKED(cushim_stream_create(&s, parent.ctx, 0, 0)) && s == NULL);
    CHILD_CHECK(FORKED(cushim_stream_query(parent.s)));
    CHILD_CHECK(FORKED(cushim_stream_synchronize(parent.s)));
    CHILD_CHECK(FORKED(cushim_event_record(parent.e, parent.s)));
    CHILD_CHECK(FORKED(cushim_event_record(parent.e, NULL)));
    CHILD_CHECK(FORKED(cushim_event_query(parent.e)));
    CHILD_CHECK(FORKED(cushim_context_synchronize(parent.ctx)));
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                .block = CUSHIM_DIM3(32),
                                .shared_mem_bytes = 0,
                                .stream = parent.s};
    CHILD_CHECK(FORKED(cushim_launch(parent.f, &cfg, NULL)));
    int blocks = -1;
    CHILD_CHECK(FORKED(cushim_occupancy_max_active_blocks(&blocks, parent.f, 32, 0)));
    /* The raw table the parent was handed answers the same, with the entry's name. */
    CUcontext current;
    CHILD_CHECK(parent.table->cuCtxGetCurrent(&current) == CUDA_ERROR_NOT_INITIALIZED);
    CHILD_CHECK(strstr(cushim_last_error(), "cuCtxGetCurrent") != NULL);

    /* Dropping what it inherited is quiet and safe. */
    cushim_module_release(parent.m);
    cushim_event_release(parent.e);
    cushim_stream_release(parent.s);
    cushim_context_release(parent.ctx);

    /* Not one call reached the (parent's) driver. */
    CHILD_CHECK(m.calls("*") == calls);
}

static void test_child_after_init(void **state) {
    (void)state;
    assert_ok(cushim_context_create(&parent.ctx, 0, 0));
    assert_ok(cushim_stream_create(&parent.s, parent.ctx, 0, 0));
    assert_ok(cushim_event_create(&parent.e, parent.ctx, 0));
    assert_ok(cushim_module_load_data(&parent.m, parent.ctx, ptx));
    assert_ok(cushim_module_function(&parent.f, parent.m, "cushim_empty"));
    parent.table = cushim_driver();
    assert_non_null(parent.table);

    assert_int_equal(run_child(child_after_init, 20), 0);

    /* The parent goes on as before. */
    assert_ok(cushim_event_record(parent.e, parent.s));
    assert_ok(cushim_stream_synchronize(parent.s));
    assert_ok(cushim_event_query(parent.e));
    assert_ok(cushim_init());
    cushim_module_release(parent.m);
    cushim_event_release(parent.e);
    cushim_stream_release(parent.s);
    cushim_context_release(parent.ctx);
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) assert_int_equal(mock.live(k), 0);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], 0);
}

int main(void) {
    /* In this order: the first test must run before this process initialises. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_of_uninitialised_parent),
        cmocka_unit_test_setup_teardown(test_child_after_init, mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests_name("fork", tests, NULL, NULL);
}
