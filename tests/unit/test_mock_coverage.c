/* Coverage as data: every entry of cuda.h resolves on the mock, what it does not implement
 * answers CUDA_ERROR_NOT_SUPPORTED through a stub that behaves like any entry for the knobs, and
 * the generated list (mock-entries.md, the first argument) agrees with what the mock answers.
 *
 * Usage: test_mock_coverage MOCK_ENTRIES_MD, with CUSHIM_DRIVER naming the mock. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cudaTypedefs.h>

#include "cushim.h"
#include "assert_cu.h"
#include "cushim_mock.h"
#include "stderr_of.h"

static cushim_mock_api mock;
static const char *list_path;

/* ------------------------------------------------------------------------------------------ */
/* The generated list                                                                         */
/* ------------------------------------------------------------------------------------------ */

typedef struct entry_list {
    char names[1024][96];
    int count;         /* "- `name`" lines */
    int stated, total; /* from "**N of M entries implemented**" */
    int area_done_sum; /* sums of the table's "| area | N of M |" rows */
    int area_total_sum;
    int areas;
} entry_list;

static entry_list list;

static void read_list(entry_list *l) {
    FILE *f = fopen(list_path, "r");
    if (f == NULL) fail_msg("cannot open %s", list_path);
    memset(l, 0, sizeof *l);
    l->stated = l->total = -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        int n = 0, m = 0;
        char name[96];
        if (sscanf(line, "- `%95[^`]`", name) == 1) {
            assert_true(l->count < 1024);
            snprintf(l->names[l->count++], sizeof l->names[0], "%s", name);
        } else if (sscanf(line, "**%d of %d entries implemented**", &n, &m) == 2) {
            l->stated = n;
            l->total = m;
        } else if (line[0] == '|' && strstr(line, " of ") != NULL) {
            const char *cell = strrchr(line, '|');
            while (cell > line && cell[-1] != '|') cell--; /* the last cell */
            if (sscanf(cell, " %d of %d", &n, &m) == 2) {
                l->area_done_sum += n;
                l->area_total_sum += m;
                l->areas++;
            }
        }
    }
    fclose(f);
}

static bool listed(const char *name) {
    for (int i = 0; i < list.count; i++) {
        if (strcmp(list.names[i], name) == 0) return true;
    }
    return false;
}

static void test_list_agrees_with_the_mock(void **state) {
    (void)state;
    read_list(&list);
    assert_true(list.areas > 10);
    assert_int_equal(list.stated, list.count);
    assert_int_equal(list.area_done_sum, list.count);
    assert_int_equal(list.total, list.area_total_sum);
    assert_int_equal(mock.entry_count(), list.total);
    assert_int_equal(mock.entry_count(), (int)CUSHIM_TABLE_ENTRIES);
    assert_int_equal(mock.implemented_count(), list.count);
    /* Both ways: what the list names, the mock implements; what the mock implements, the list
     * names. */
    for (int i = 0; i < list.count; i++) {
        if (!mock.implemented(list.names[i])) {
            fail_msg("the list names %s, the mock does not implement it", list.names[i]);
        }
    }
    for (int i = 0; i < mock.implemented_count(); i++) {
        const char *name = mock.implemented_name(i);
        assert_non_null(name);
        if (!listed(name)) fail_msg("the mock implements %s, the list lacks it", name);
    }
    assert_null(mock.implemented_name(mock.implemented_count()));
    assert_null(mock.implemented_name(-1));
}

static void test_implemented_takes_any_name_form(void **state) {
    (void)state;
    assert_true(mock.implemented("cuMemcpyHtoD"));
    assert_true(mock.implemented("cuMemcpyHtoD_v2"));
    assert_true(mock.implemented("cuMemcpyHtoD_v2_ptds"));
    assert_true(mock.implemented("cuLaunchKernel_ptsz"));
    assert_true(mock.implemented("cuCtxSynchronize_v2"));
    assert_true(mock.implemented("cuArrayDestroy"));
    assert_true(mock.implemented("cuMemcpyDtoA_v2_ptds"));
    assert_false(mock.implemented("cuGraphicsUnregisterResource"));
    assert_false(mock.implemented("cuGraphicsMapResources_ptsz"));
    assert_false(mock.implemented("cuNoSuchEntry"));
    assert_false(mock.implemented(""));
    assert_false(mock.implemented(NULL));
}

/* ------------------------------------------------------------------------------------------ */
/* Every entry resolves; stubs answer                                                         */
/* ------------------------------------------------------------------------------------------ */

static void test_every_entry_resolves(void **state) {
    (void)state;
    const cushim_driver_info *info = cushim_driver_state();
    assert_int_equal(info->status, CUSHIM_DRIVER_LOADED);
    /* cushim asks for every entry at its ABI version: none is left to cushim's own stubs. */
    assert_int_equal(info->entries_resolved, info->entries_total);
    assert_int_equal(mock.resolved_count(), (int)info->entries_resolved);
    assert_true(cushim_driver_has("cuArrayDestroy"));
    assert_true(cushim_driver_has("cuMemcpyDtoA_v2_ptds"));
    assert_true(cushim_driver_has("cuGraphicsUnregisterResource"));
}

static void call_unregister_twice(void) {
    for (int i = 0; i < 2; i++) {
        assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_driver()->cuGraphicsUnregisterResource(NULL));
    }
}

static void test_stub_answers_not_supported_and_says_so_once(void **state) {
    (void)state;
    const char *said = stderr_of(call_unregister_twice);
    const char *line = "cushim mock: cuGraphicsUnregisterResource is not implemented, answering "
                       "CUDA_ERROR_NOT_SUPPORTED\n";
    if (strcmp(said, line) != 0) fail_msg("stderr was \"%s\"", said);
    /* Logged and counted like any call. */
    assert_int_equal(mock.calls("cuGraphicsUnregisterResource"), 2);
    assert_int_equal(mock.calls("*"), 2);
    assert_string_equal(mock.call_name(0), "cuGraphicsUnregisterResource");
    assert_string_equal(mock.call_name(1), "cuGraphicsUnregisterResource");
    assert_null(mock.call_name(2));
    /* Said once per process, not once per reset. */
    mock.reset();
    assert_string_equal(stderr_of(call_unregister_twice), "");
    assert_int_equal(mock.calls("cuGraphicsUnregisterResource"), 2);
}

static void test_faults_reach_stubs(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    mock.fail_once("cuGraphicsUnregisterResource", CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(mock.armed("cuGraphicsUnregisterResource"), 1);
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, t->cuGraphicsUnregisterResource(NULL));
    assert_int_equal(mock.armed("*"), 0);
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, t->cuGraphicsUnregisterResource(NULL));
    mock.fail_call("cuGraphicsUnregisterResource", 2, CUDA_ERROR_UNKNOWN);
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, t->cuGraphicsUnregisterResource(NULL));
    assert_cu(CUDA_ERROR_UNKNOWN, t->cuGraphicsUnregisterResource(NULL));
    mock.fail_always("cuGraphicsUnregisterResource", CUDA_ERROR_INVALID_VALUE);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphicsUnregisterResource(NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphicsUnregisterResource(NULL));
    mock.disarm("cuGraphicsUnregisterResource");
    /* fail_any counts calls of stubs like any call. */
    mock.fail_any(2, CUDA_ERROR_LAUNCH_FAILED);
    int n = 0;
    assert_ok(t->cuDeviceGetCount(&n));
    assert_cu(CUDA_ERROR_LAUNCH_FAILED, t->cuGraphicsUnregisterResource(NULL));
    assert_int_equal(mock.calls("cuGraphicsUnregisterResource"), 7);
}

/* cuGetProcAddress_v2 of the mock itself, as the driver's ABI has it. */
typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t,
                           CUdriverProcAddressQueryResult *);
static gpa_fn mock_gpa(void) {
    void *h = dlopen(getenv("CUSHIM_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    void *sym = dlsym(h, "cuGetProcAddress_v2");
    dlclose(h);
    assert_non_null(sym);
    gpa_fn f;
    memcpy(&f, &sym, sizeof f);
    return f;
}

static void test_stub_lookup(void **state) {
    (void)state;
    gpa_fn gpa = mock_gpa();
    void *legacy = NULL, *pt = NULL, *fn = NULL;
    CUdriverProcAddressQueryResult st;
    assert_ok(gpa("cuGraphicsMapResources", &legacy, 3000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st));
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SUCCESS);
    assert_ok(gpa("cuGraphicsMapResources", &pt, 7000,
                  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    assert_non_null(legacy);
    assert_non_null(pt);
    assert_ptr_not_equal(legacy, pt);
    /* A call through the per-thread stub is logged under the per-thread symbol. */
    PFN_cuGraphicsMapResources_v7000_ptsz map;
    memcpy(&map, &pt, sizeof map);
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, map(0, NULL, NULL));
    assert_string_equal(mock.call_name(0), "cuGraphicsMapResources_ptsz");
    assert_int_equal(mock.per_thread_calls("cuGraphicsMapResources"), 1);
    assert_int_equal(mock.calls("cuGraphicsMapResources_ptsz"), 1);
    /* Older than the entry's ABI: not sufficient. Newer than the driver: refused. Unknown. */
    assert_cu(CUDA_ERROR_NOT_FOUND, gpa("cuGraphCreate", &fn, 9020, 0, &st));
    assert_int_equal(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    assert_null(fn);
    assert_cu(CUDA_ERROR_INVALID_VALUE, gpa("cuGraphCreate", &fn, 13010, 0, &st));
    assert_cu(CUDA_ERROR_NOT_FOUND, gpa("cuNoSuchEntry", &fn, 13000, 0, &st));
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* hide still makes an entry unresolved, stubbed or not. */
    mock.hide("cuGraphCreate");
    assert_cu(CUDA_ERROR_NOT_FOUND, gpa("cuGraphCreate", &fn, 13000, 0, &st));
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    assert_null(fn);
}

/* ------------------------------------------------------------------------------------------ */
/* Faults by the entry cushim calls (cushim_mock.h's table)                                   */
/* ------------------------------------------------------------------------------------------ */

static void test_stream_create_faults_by_its_entry(void **state) {
    (void)state;
    cushim_context *ctx = NULL;
    cushim_stream *s = NULL;
    assert_ok(cushim_context_primary(&ctx, 0));
    /* With recycling, the second create would come from the context's cache: no driver call. */
    assert_ok(cushim_context_set_recycling(ctx, false, false));
    /* cushim_stream_create calls cuStreamCreateWithPriority: a fault on cuStreamCreate, another
     * entry, stays armed. */
    mock.fail_call("cuStreamCreate", 1, CUDA_ERROR_OUT_OF_MEMORY);
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_DEFAULT, 0));
    cushim_stream_release(s);
    assert_int_equal(mock.armed("cuStreamCreate"), 1);
    mock.disarm("*");
    mock.fail_call("cuStreamCreateWithPriority", 1, CUDA_ERROR_OUT_OF_MEMORY);
    s = NULL;
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, cushim_stream_create(&s, ctx, CU_STREAM_DEFAULT, 0));
    assert_null(s);
    assert_int_equal(mock.armed("*"), 0);
    cushim_context_release(ctx);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 0);
}

static int setup(void **state) {
    (void)state;
    mock.reset();
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MOCK_ENTRIES_MD\n", argv[0]);
        return 2;
    }
    list_path = argv[1];
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    if (cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "cushim_init failed: %s\n", cushim_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_resolves),
        cmocka_unit_test(test_list_agrees_with_the_mock),
        cmocka_unit_test(test_implemented_takes_any_name_form),
        cmocka_unit_test_setup(test_stub_answers_not_supported_and_says_so_once, setup),
        cmocka_unit_test_setup(test_faults_reach_stubs, setup),
        cmocka_unit_test_setup(test_stub_lookup, setup),
        cmocka_unit_test_setup(test_stream_create_faults_by_its_entry, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
