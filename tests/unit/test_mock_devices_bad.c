/* A CUSHIM_MOCK_DEVICES the mock cannot use is a configuration error: cuInit fails with a
 * sentence on stderr naming the value and the accepted profiles, and nothing aborts or blames
 * the code under test. Run with CUSHIM_MOCK_DEVICES=bogus from the start. */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"
#include "stderr_of.h"

typedef CUresult (*init_fn)(unsigned);

static void check_sentence(const char *text, const char *value) {
    char want[96];
    snprintf(want, sizeof want, "CUSHIM_MOCK_DEVICES=\"%s\"", value);
    if (strstr(text, want) == NULL || strstr(text, "h200") == NULL || strstr(text, "ada") == NULL ||
        strstr(text, "code under test") != NULL) {
        fail_msg("the sentence for %s is wrong: %s", value, text);
    }
}

static init_fn mock_init;
static CUresult result;
static void init_through_cushim(void) { result = cushim_init(); }
static void init_the_mock(void) {
    mock.reset(); /* reads CUSHIM_MOCK_DEVICES again */
    result = mock_init(0);
}

static void test_bad_devices_fail_init(void **state) {
    (void)state;
    assert_true(cushim_mock_open(&mock, NULL));
    /* Through cushim: a failed init with its status, and the mock's sentence. */
    const char *text = stderr_of(init_through_cushim);
    assert_int_equal(result, CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cushim_driver_state()->status, CUSHIM_DRIVER_INIT_FAILED);
    check_sentence(text, getenv("CUSHIM_MOCK_DEVICES"));

    void *h = dlopen(getenv("CUSHIM_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    void *sym = dlsym(h, "cuInit");
    assert_non_null(sym);
    memcpy(&mock_init, &sym, sizeof mock_init);
    static const char *const bad[] = {"none", "0", "h200x0", "bogus", "h200x99", "h200;ada"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("CUSHIM_MOCK_DEVICES", bad[i], 1);
        text = stderr_of(init_the_mock);
        assert_int_equal(result, CUDA_ERROR_INVALID_VALUE);
        check_sentence(text, bad[i]);
    }
    /* Fixed, the next reset takes it. */
    setenv("CUSHIM_MOCK_DEVICES", "h200x2", 1);
    text = stderr_of(init_the_mock);
    assert_int_equal(result, CUDA_SUCCESS);
    assert_int_equal(text[0], '\0');
    dlclose(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_devices_fail_init),
    };
    return cmocka_run_group_tests_name("mock_devices_bad", tests, NULL, NULL);
}
