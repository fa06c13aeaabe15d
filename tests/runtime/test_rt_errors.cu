/* The names and strings of cudaError_t, from the installed driver_types.h, and the stubs: every
 * function of cuda_runtime_api.h that cushim's runtime does not implement (the unticked rows of
 * cudart-entries.md, argv[1]) answers cudaErrorNotSupported, in both default-stream modes, and
 * leaves it as the thread's last error. */
#include <dlfcn.h>

#include "rt_test.h"

static const char *entries_md;

static void test_names_and_strings(void **state) {
    (void)state;
    assert_string_equal(cudaGetErrorName(cudaSuccess), "cudaSuccess");
    assert_string_equal(cudaGetErrorString(cudaSuccess), "no error");
    assert_string_equal(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation");
    assert_string_equal(cudaGetErrorName(cudaErrorInsufficientDriver),
                        "cudaErrorInsufficientDriver");
    assert_string_equal(cudaGetErrorName(cudaErrorUnknown), "cudaErrorUnknown");
    /* The first sentence of the header's documentation of the code. */
    assert_non_null(strstr(cudaGetErrorString(cudaErrorInvalidValue),
                           "one or more of the parameters passed to the API call"));
    /* Not a code: still a name and a string, both NVIDIA's 13.0's (observed). */
    assert_string_equal(cudaGetErrorName((cudaError_t)123456), "unrecognized error code");
    assert_string_equal(cudaGetErrorString((cudaError_t)123456), "unrecognized error code");
    /* Every code of the header has its own name. */
    for (int v = 0; v < 1000; v++) {
        const char *name = cudaGetErrorName((cudaError_t)v);
        assert_non_null(name);
        assert_non_null(cudaGetErrorString((cudaError_t)v));
        if (strcmp(name, "unrecognized error code") != 0) {
            assert_true(strncmp(name, "cudaError", 9) == 0 || v == 0);
        }
    }
}

typedef cudaError_t (*no_args)(void);

static int call_stub(const char *name) {
    no_args fn = (no_args)dlsym(RTLD_DEFAULT, name);
    if (fn == NULL) return 0;
    assert_rt_ok(cudaGetLastError());
    /* A stub reads none of its arguments, so it may be called with none. */
    cudaError_t e = fn();
    if (e != cudaErrorNotSupported) fail_msg("%s returned %s", name, cudaGetErrorName(e));
    assert_rt(cudaErrorNotSupported, cudaPeekAtLastError());
    assert_rt(cudaErrorNotSupported, cudaGetLastError());
    return 1;
}

static void test_every_stub_answers_not_supported(void **state) {
    (void)state;
    FILE *f = fopen(entries_md, "r");
    assert_non_null(f);
    char line[512], name[256], variant[300];
    int stubs = 0, implemented = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "- [x] `%255[^`]`", name) == 1) {
            implemented++;
            continue;
        }
        if (sscanf(line, "- [ ] `%255[^`]`", name) != 1) continue;
        int found = call_stub(name);
        if (!found) fail_msg("%s is listed but not exported", name);
        stubs++;
        snprintf(variant, sizeof variant, "%s_ptds", name);
        stubs += call_stub(variant);
        snprintf(variant, sizeof variant, "%s_ptsz", name);
        stubs += call_stub(variant);
    }
    fclose(f);
    printf("# %d stubs answered cudaErrorNotSupported; %d functions implemented\n", stubs,
           implemented);
    assert_true(stubs > 0); /* fewer as functions are implemented; the list says how many */
    assert_true(implemented > 30);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s cudart-entries.md\n", argv[0]);
        return 2;
    }
    entries_md = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_strings),
        cmocka_unit_test(test_every_stub_answers_not_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
