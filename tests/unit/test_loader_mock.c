/* The loader against the mock driver: every entry accounted for, each asked at the version of
 * the header's ABI, and the raw table callable. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#ifndef CUDA_INCLUDE_DIR
#error "CUDA_INCLUDE_DIR must name the directory of the cuda.h the library was built with"
#endif

/* The newest version N for which cudaTypedefs.h declares PFN_<base>_vN (not _ptds/_ptsz),
 * read from the header at run time, so the test does not hard-code what the generator found.
 * Only meaningful for entries whose newest typedef is the header's ABI. */
static int newest_typedef_version(const char *base) {
    FILE *f = fopen(CUDA_INCLUDE_DIR "/cudaTypedefs.h", "r");
    assert_non_null(f);
    char line[1024], pattern[128];
    snprintf(pattern, sizeof pattern, "*PFN_%s_v", base);
    int best = -1;
    bool internal = false;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "#if defined(__CUDA_API_VERSION_INTERNAL)")) internal = true;
        if (internal && strncmp(line, "#endif", 6) == 0) internal = false;
        const char *p = strstr(line, pattern);
        if (internal || p == NULL) continue;
        int v = 0;
        char after = 0;
        if (sscanf(p + strlen(pattern), "%d%c", &v, &after) == 2 && after == ')' && v > best) {
            best = v;
        }
    }
    fclose(f);
    return best;
}

static void test_every_entry_asked_and_accounted_for(void **state) {
    (void)state;
    const cushim_driver_info *info = cushim_driver_state();
    assert_int_equal(info->status, CUSHIM_DRIVER_LOADED);
    assert_int_equal(info->entries_total, CUSHIM_TABLE_ENTRIES);
    /* Entries that share a base name (cuCtxSynchronize and cuCtxSynchronize_v2) are asked under
     * one name, so the mock sees at most as many names as the table has entries, and every entry
     * the mock provides must have resolved. */
    assert_true(mock.asked_count() > 400);
    assert_true(mock.asked_count() <= (int)info->entries_total);
    assert_int_equal(info->entries_resolved, (unsigned)mock.resolved_count());
    /* Every entry of cuda.h resolves on the mock (what it does not implement, to a stub of its
     * own), except the one main() hid. */
    assert_int_equal(info->entries_resolved, info->entries_total - 1);
    assert_string_equal(info->path, getenv("CUSHIM_DRIVER"));
    assert_int_equal(info->driver_version, 13000);
    assert_non_null(strstr(info->message, "loaded"));
}

static void test_entries_asked_at_their_abi_version(void **state) {
    (void)state;
    static const char *const bases[] = {"cuCtxCreate", "cuMemAlloc", "cuStreamDestroy",
                                        "cuEventDestroy", "cuDevicePrimaryCtxRelease"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        int want = newest_typedef_version(bases[i]);
        assert_true(want > 0);
        if (mock.asked_version(bases[i]) != want) {
            fail_msg("%s asked at %d, header ABI %d", bases[i], mock.asked_version(bases[i]), want);
        }
    }
    /* Never at CUDA_VERSION: cuMemAlloc's ABI is far older than the header. */
    assert_true(mock.asked_version("cuMemAlloc") < CUDA_VERSION);
}

/* Both default-stream modes are resolved, whatever the build's own: an entry with a per-thread
 * variant is asked for in the legacy mode and then the per-thread one; one without is asked
 * once. */
static void test_both_modes_resolved(void **state) {
    (void)state;
    assert_int_equal(mock.asked_flags("cuStreamQuery"),
                     CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    assert_int_equal(mock.asked_flags("cuMemAlloc"), CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    assert_true(cushim_driver_has("cuStreamQuery"));
    assert_true(cushim_driver_has("cuStreamQuery_ptsz"));
    assert_true(cushim_driver_has("cuMemcpyHtoD_v2_ptds"));
    assert_false(cushim_driver_has("cuMemAlloc_v2_ptds"));
}

static void test_raw_table_calls_the_driver(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    assert_non_null(t);
    int count = -1;
    assert_ok(t->cuDeviceGetCount(&count));
    assert_int_equal(count, 1);
    assert_int_equal(mock.calls("cuDeviceGetCount"), 1);
    int v = 0;
    assert_ok(t->cuDriverGetVersion(&v));
    assert_int_equal(v, 13000);
}

static void test_driver_has(void **state) {
    (void)state;
    assert_true(cushim_driver_has("cuInit"));
    assert_true(cushim_driver_has("cuCtxCreate"));
    assert_true(cushim_driver_has("cuCtxCreate_v4")); /* the versioned symbol names it too */
    /* An entry the mock does not implement resolves all the same, to the mock's stub: whether
     * the driver has an entry and whether the mock implements it are two questions. */
    assert_true(cushim_driver_has("cuGraphAddChildGraphNode"));
    assert_false(mock.implemented("cuGraphAddChildGraphNode"));
    assert_true(mock.implemented("cuCtxCreate"));
    /* A name of cudaGL.h (not in cushim's table), one no header has, and bad input. */
    assert_false(cushim_driver_has("cuGraphicsGLRegisterBuffer"));
    assert_false(cushim_driver_has("cuNoSuchEntry"));
    assert_false(cushim_driver_has(""));
    assert_false(cushim_driver_has(NULL));
}

static void test_missing_entry_is_a_stub_not_a_crash(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    /* cuGraphCreate is in cuda.h; main() hid it, so the mock's cuGetProcAddress answered
     * SYMBOL_NOT_FOUND as an older driver would, and the slot holds cushim's own stub. */
    assert_false(cushim_driver_has("cuGraphCreate"));
    CUgraph g = NULL;
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, t->cuGraphCreate(&g, 0));
    assert_non_null(strstr(cushim_last_error(), "cuGraphCreate"));
    assert_null(g);
    /* cushim's stub answered: the call never reached the mock. */
    assert_int_equal(mock.calls("cuGraphCreate"), 0);
}

/* A device that is not there: the sentence gives the machine's count only when the driver
 * said it, and names cuDeviceGetCount's failure when it did not. */
static void test_missing_device_sentence_says_what_was_seen(void **state) {
    (void)state;
    cushim_context *ctx = NULL;
    assert_int_equal(cushim_context_primary(&ctx, 7), CUDA_ERROR_INVALID_DEVICE);
    assert_null(ctx);
    assert_non_null(strstr(cushim_last_error(), "this machine has 1 device)"));
    mock.fail_call("cuDeviceGetCount", 1, CUDA_ERROR_UNKNOWN);
    assert_int_equal(cushim_context_primary(&ctx, 7), CUDA_ERROR_INVALID_DEVICE);
    assert_null(ctx);
    assert_null(strstr(cushim_last_error(), "0 device"));
    assert_non_null(strstr(cushim_last_error(), "cuDeviceGetCount failed with CUDA_ERROR_UNKNOWN"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_asked_and_accounted_for),
        cmocka_unit_test(test_entries_asked_at_their_abi_version),
        cmocka_unit_test(test_both_modes_resolved),
        cmocka_unit_test(test_raw_table_calls_the_driver),
        cmocka_unit_test(test_driver_has),
        cmocka_unit_test(test_missing_entry_is_a_stub_not_a_crash),
        cmocka_unit_test(test_missing_device_sentence_says_what_was_seen),
    };
    /* The asks are recorded while cushim_init resolves the table, so the mock is not reset
     * between these tests. */
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    /* An entry the driver lacks, for the loader's "missing entry" path: every entry resolves on
     * the mock unless hidden. */
    mock.hide("cuGraphCreate");
    if (cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "cushim_init failed: %s\n", cushim_last_error());
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
