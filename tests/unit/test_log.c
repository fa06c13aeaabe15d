/* The log: a handler receives the library's messages at its level; with no handler, nothing is
 * printed at the default level when all goes well. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"

static void test_quiet_on_success_at_default_level(void **state) {
    (void)state;
    /* stderr goes to a file for the duration; it must stay empty. */
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    dup2(fileno(tmp), 2);
    CUresult r = cushim_init();
    cushim_context *ctx = NULL;
    CUresult c = cushim_context_primary(&ctx, 0);
    cushim_context_release(ctx);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long size = ftell(tmp) >= 0 ? (fseek(tmp, 0, SEEK_END), ftell(tmp)) : -1;
    fclose(tmp);
    assert_ok(r);
    assert_ok(c);
    assert_int_equal(size, 0);
}

static void test_handler_sees_messages_at_its_level(void **state) {
    (void)state;
    test_log log;
    memset(&log, 0, sizeof log);
    cushim_log_set_handler(capture_log, &log, CUSHIM_LOG_WARN);
    /* A refused destroy is a warning with its code. */
    cushim_context *ctx = NULL;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    mock.fail_call("cuCtxDestroy", 1, CUDA_ERROR_INVALID_CONTEXT);
    cushim_context_release(ctx);
    assert_int_equal(log.count[CUSHIM_LOG_WARN], 1);
    assert_non_null(strstr(log.text, "CUDA_ERROR_INVALID_CONTEXT"));
    /* Below the handler's level nothing arrives; at off, nothing at all. */
    memset(&log, 0, sizeof log);
    cushim_log_set_handler(capture_log, &log, CUSHIM_LOG_ERROR);
    assert_ok(cushim_context_create(&ctx, 0, 0));
    mock.fail_call("cuCtxDestroy", 1, CUDA_ERROR_INVALID_CONTEXT);
    cushim_context_release(ctx);
    assert_int_equal(log.count[CUSHIM_LOG_WARN], 0);
    cushim_log_set_handler(NULL, NULL, CUSHIM_LOG_OFF);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet_on_success_at_default_level),
        cmocka_unit_test(test_handler_sees_messages_at_its_level),
    };
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
