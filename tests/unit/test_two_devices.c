/* Two devices (CUSHIM_MOCK_DEVICES="h200, ada": an H200 as device 0, a smaller Ada GPU as
 * device 1): the object API's paths that take a device ordinal, primary contexts, streams,
 * events, modules and launches on device 1, each device's limits kept apart, and an event
 * recorded on one device's stream and waited on by the other's. */
#include <stdlib.h>

#include "testutil.h"

static const char ptx[] = ".version 8.0\n.target sm_89\n.address_size 64\n\n"
                          ".visible .entry two_devices()\n{\n\tret;\n}\n";

/* The kernel runs no code: registered, so that its launches run (a kernel the mock has no code
 * for may be refused). */
static void run_nothing(const cushim_mock_kernel_args *a) { (void)a; }

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    mock.register_kernel("two_devices", run_nothing);
    int n = 0;
    if (cushim_driver()->cuDeviceGetCount(&n) != CUDA_SUCCESS || n != 2) {
        fprintf(stderr, "# these tests need CUSHIM_MOCK_DEVICES=\"h200, ada\" (found %d devices)\n",
                n);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    cushim_driver()->cuCtxSetCurrent(NULL);
    int leaked = mock_report_leaks();
    mock_teardown(state);
    return leaked ? -1 : 0;
}

static CUdevice device(int ordinal) {
    CUdevice d = -1;
    assert_ok(cushim_driver()->cuDeviceGet(&d, ordinal));
    return d;
}

static void test_primary_contexts_of_each_device(void **state) {
    (void)state;
    cushim_context *p0 = NULL, *p1 = NULL, *again = NULL;
    assert_ok(cushim_context_primary(&p0, 0));
    assert_ok(cushim_context_primary(&p1, 1));
    assert_ptr_not_equal(cushim_context_raw(p0), cushim_context_raw(p1));
    assert_true(mock.is_primary(cushim_context_raw(p1)));
    assert_int_equal(cushim_context_device(p0), device(0));
    assert_int_equal(cushim_context_device(p1), device(1));
    assert_int_equal(mock.primary_refcount(1), 1);
    assert_ok(cushim_context_primary(&again, 1));
    assert_ptr_equal(cushim_context_raw(again), cushim_context_raw(p1));
    cushim_context_release(again);
    cushim_context_release(p1);
    assert_int_equal(mock.primary_refcount(1), 0);
    assert_int_equal(mock.primary_refcount(0), 1);
    cushim_context_release(p0);
    /* Past the last device: the driver's code, and the object left NULL. */
    cushim_context *none = (cushim_context *)&none;
    assert_cu(CUDA_ERROR_INVALID_DEVICE, cushim_context_primary(&none, 2));
    assert_null(none);
    none = (cushim_context *)&none;
    assert_cu(CUDA_ERROR_INVALID_DEVICE, cushim_context_create(&none, 2, 0));
    assert_null(none);
}

/* Streams, events, a module and launches in a context of device 1, with device 1's limits. */
static void test_objects_on_device_1(void **state) {
    (void)state;
    cushim_context *c0 = NULL, *c1 = NULL;
    assert_ok(cushim_context_create(&c0, 0, 0));
    assert_ok(cushim_context_create(&c1, 1, 0));
    assert_int_equal(cushim_context_device(c1), device(1));
    assert_null(mock.current()); /* made with none current, none left current */
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&s, c1, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&e, c1, 0));
    assert_ptr_equal(mock.stream_context(cushim_stream_raw(s)), cushim_context_raw(c1));
    int least = 0, greatest = 0;
    assert_ok(cushim_context_stream_priority_range(&least, &greatest, c1));

    cushim_module *m0 = NULL, *m1 = NULL;
    cushim_function *f0 = NULL, *f1 = NULL;
    assert_ok(cushim_module_load_data(&m0, c0, ptx));
    assert_ok(cushim_module_load_data(&m1, c1, ptx));
    assert_ok(cushim_module_function(&f0, m0, "two_devices"));
    assert_ok(cushim_module_function(&f1, m1, "two_devices"));
    /* Each device's limits: 1024-thread blocks, two at once per H200 SM (2048 threads), one
     * per Ada SM (1536); and a cooperative grid as large as the device holds at once. */
    int blocks = 0;
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, f0, 1024, 0));
    assert_int_equal(blocks, 2);
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, f1, 1024, 0));
    assert_int_equal(blocks, 1);
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(24), .block = CUSHIM_DIM3(1024), .shared_mem_bytes = 0, .stream = s};
    assert_ok(cushim_launch_cooperative(f1, &cfg, NULL));
    cfg.grid.x = 25;
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, cushim_launch_cooperative(f1, &cfg, NULL));
    cfg.stream = NULL; /* the default stream of device 1's context */
    assert_ok(cushim_launch(f1, &cfg, NULL));
    assert_ptr_equal(mock.launch(mock.launch_count() - 1)->context, cushim_context_raw(c1));

    assert_ok(cushim_event_record(e, s));
    assert_ok(cushim_event_synchronize(e));
    assert_ok(cushim_stream_synchronize(s));
    assert_ok(cushim_context_synchronize(c1));
    assert_null(mock.current());
    cushim_module_release(m0);
    cushim_module_release(m1);
    cushim_event_release(e);
    cushim_stream_release(s);
    cushim_context_release(c0);
    cushim_context_release(c1);
}

/* An event recorded on a stream of device 0 and waited on by a stream of device 1, and the
 * other way round: the waiting stream's later work waits for the record's. */
static void test_event_waited_on_by_the_other_device(void **state) {
    (void)state;
    cushim_context *c[2] = {NULL, NULL};
    cushim_stream *s[2] = {NULL, NULL};
    cushim_event *e[2] = {NULL, NULL};
    for (int d = 0; d < 2; d++) {
        assert_ok(cushim_context_create(&c[d], d, 0));
        assert_ok(cushim_stream_create(&s[d], c[d], CU_STREAM_NON_BLOCKING, 0));
        assert_ok(cushim_event_create(&e[d], c[d], 0));
    }
    for (int from = 0; from < 2; from++) {
        int to = 1 - from;
        /* Work pending on `from` (the mock keeps it pending until a synchronize), then its
         * record, waited on by `to`. */
        cushim_event *busy = NULL;
        assert_ok(cushim_event_create(&busy, c[from], 0));
        assert_ok(cushim_event_record(busy, s[from]));
        assert_ok(cushim_event_record(e[from], s[from]));
        assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(e[from]));
        assert_ok(cushim_stream_wait_event(s[to], e[from], 0));
        assert_ok(cushim_event_record(e[to], s[to]));
        assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(e[to]));
        /* Waiting on the other device's stream drains the first one's work too. */
        assert_ok(cushim_stream_synchronize(s[to]));
        assert_ok(cushim_event_query(e[from]));
        assert_ok(cushim_event_query(e[to]));
        cushim_event_release(busy);
    }
    float ms = -1.0f;
    assert_ok(cushim_event_elapsed_ms(&ms, e[0], e[0]));
    assert_null(mock.current());
    for (int d = 0; d < 2; d++) {
        cushim_event_release(e[d]);
        cushim_stream_release(s[d]);
        cushim_context_release(c[d]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_primary_contexts_of_each_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_objects_on_device_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_waited_on_by_the_other_device, setup, teardown),
    };
    return cmocka_run_group_tests_name("two_devices", tests, NULL, NULL);
}
