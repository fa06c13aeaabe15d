/* A driver whose cuInit calls back into cushim on the same thread (an interposer, an injection
 * library): the inner calls return at once with CUDA_ERROR_NOT_INITIALIZED and a sentence, and
 * the outer load completes. The mock calls reenter() from its cuInit
 * (CUSHIM_MOCK_INIT_CALLBACK=reenter, set by meson.build); this executable exports it. A hang
 * here is the test's timeout. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cushim.h"

static struct {
    int calls;
    CUresult init;
    char init_error[512];
    const cushim_driver_info *info;
    char info_error[512];
    bool has;
    const cushim_driver_table *table;
    CUresult reinit;
} inner;

void reenter(void);
void reenter(void) {
    inner.calls++;
    inner.init = cushim_init();
    snprintf(inner.init_error, sizeof inner.init_error, "%s", cushim_last_error());
    inner.info = cushim_driver_state();
    snprintf(inner.info_error, sizeof inner.info_error, "%s", cushim_last_error());
    inner.has = cushim_driver_has("cuInit");
    inner.table = cushim_driver();
    inner.reinit = cushim_testing_reinit();
}

static void test_init_from_inside_cuinit(void **state) {
    (void)state;
    assert_int_equal(cushim_init(), CUDA_SUCCESS);
    assert_int_equal(inner.calls, 1);
    /* The inner calls: at once, a defined code, a sentence saying what happened. */
    assert_int_equal(inner.init, CUDA_ERROR_NOT_INITIALIZED);
    assert_non_null(strstr(inner.init_error, "cushim_init"));
    assert_non_null(strstr(inner.init_error, "initialisation is in progress on this thread"));
    assert_non_null(inner.info);
    assert_non_null(strstr(inner.info_error, "initialisation is in progress on this thread"));
    assert_false(inner.has);
    assert_non_null(inner.table);
    assert_int_equal(inner.reinit, CUDA_ERROR_ILLEGAL_STATE); /* not in the middle of a load */
    /* The outer load completed. */
    const cushim_driver_info *info = cushim_driver_state();
    assert_int_equal(info->status, CUSHIM_DRIVER_LOADED);
    assert_true(info->entries_resolved > 0);
    assert_true(cushim_driver_has("cuInit"));
    cushim_context *ctx = NULL;
    assert_int_equal(cushim_context_primary(&ctx, 0), CUDA_SUCCESS);
    cushim_context_release(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_init_from_inside_cuinit)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
