/* Error names and texts work with no driver at all, for every enumerator cuda.h declares. */
#include <pthread.h>
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

/* What another thread sees: its own last error and its own unknown-code text. */
typedef struct other_thread {
    char first_error[64]; /* cushim_last_error() before it failed */
    char own_error[256];  /* after its own failure */
    const char *name;     /* cushim_error_name(CUDA_ERROR_INVALID_VALUE) there */
} other_thread;

static void *other(void *arg) {
    other_thread *t = arg;
    snprintf(t->first_error, sizeof t->first_error, "%s", cushim_last_error());
    (void)cushim_stream_query(NULL);
    snprintf(t->own_error, sizeof t->own_error, "%s", cushim_last_error());
    t->name = cushim_error_name(CUDA_ERROR_INVALID_VALUE);
    (void)cushim_error_name((CUresult)777); /* its own unknown-code buffer */
    return NULL;
}

/* cushim.h: the last error is per thread and starts as ""; a known code's name is one static
 * string for every thread; an unknown code's text lives in a per-thread buffer. */
static void test_strings_live_as_the_header_says(void **state) {
    (void)state;
    assert_cu(CUDA_ERROR_NOT_INITIALIZED, cushim_init());
    char mine[256];
    snprintf(mine, sizeof mine, "%s", cushim_last_error());
    const char *unknown = cushim_error_name((CUresult)12345);
    const char *known = cushim_error_name(CUDA_ERROR_INVALID_VALUE);
    other_thread t = {0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, other, &t), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_string_equal(t.first_error, "");
    assert_non_null(strstr(t.own_error, "cushim_stream_query"));
    assert_string_equal(cushim_last_error(), mine);
    assert_ptr_equal(t.name, known);
    assert_ptr_equal(cushim_error_name(CUDA_ERROR_INVALID_VALUE), known);
    assert_string_equal(unknown, "unknown CUresult 12345");
    /* The loader's strings are the library's own and stay put. */
    const cushim_driver_info *info = cushim_driver_state();
    assert_ptr_equal(cushim_driver_state(), info);
    assert_non_null(info->message);
    assert_non_null(strstr(info->message, "/nonexistent"));
    assert_null(info->path);
    assert_false(cushim_driver_has("cuInit"));
    assert_false(cushim_driver_has(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_enumerator_has_its_name),
        cmocka_unit_test(test_unknown_code),
        cmocka_unit_test(test_last_error_is_per_thread),
        cmocka_unit_test(test_strings_live_as_the_header_says),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
