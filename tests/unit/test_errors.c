/* Error names and texts work with no driver at all, for every enumerator cuda.h declares. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#ifndef CUDA_INCLUDE_DIR
#error "CUDA_INCLUDE_DIR must name the directory of cuda.h"
#endif

/* Reads the CUresult enumerators straight from cuda.h, independently of the generator. */
static void test_every_enumerator_has_its_name(void **state) {
    (void)state;
    FILE *f = fopen(CUDA_INCLUDE_DIR "/cuda.h", "r");
    assert_non_null(f);
    char line[1024];
    bool in_enum = false;
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "typedef enum cudaError_enum")) in_enum = true;
        if (!in_enum) continue;
        if (strstr(line, "} CUresult;")) break;
        char name[128];
        int value;
        if (sscanf(line, " %127[A-Z0-9_] = %d", name, &value) != 2) continue;
        if (strncmp(name, "CUDA_", 5) != 0) continue;
        seen++;
        if (strcmp(cushim_error_name((CUresult)value), name) != 0) {
            fail_msg("%d: name %s, cuda.h says %s", value, cushim_error_name((CUresult)value),
                     name);
        }
        const char *text = cushim_error_string((CUresult)value);
        assert_true(strlen(text) > 10);
        assert_null(strstr(text, "unknown CUresult"));
    }
    fclose(f);
    assert_true(seen > 90);
}

static void test_unknown_code(void **state) {
    (void)state;
    assert_string_equal(cushim_error_name((CUresult)12345), "unknown CUresult 12345");
    assert_string_equal(cushim_error_string((CUresult)-7), "unknown CUresult -7");
    assert_string_equal(cushim_error_name(CUDA_ERROR_INVALID_VALUE), "CUDA_ERROR_INVALID_VALUE");
}

static void test_last_error_is_per_thread(void **state) {
    (void)state;
    /* No driver here: the failure sentence is set on this thread only. */
    assert_int_equal(cushim_init(), CUDA_ERROR_NOT_INITIALIZED);
    assert_non_null(strstr(cushim_last_error(), "/nonexistent"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_enumerator_has_its_name),
        cmocka_unit_test(test_unknown_code),
        cmocka_unit_test(test_last_error_is_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
