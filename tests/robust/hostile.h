/* Shared by the hostile-input tests (test_hostile_*.c): the fixture, one live object of each
 * kind and the driver's raw handles, and the checks every refusal gets.
 *
 * Every public function with NULL, a live handle of the wrong kind, a raw driver handle where a
 * cushim one is expected, and zero or huge sizes gets an error, with a sentence naming the
 * function, and the library keeps working afterwards. After each refusal made before the
 * driver, the mock must have seen no driver call at all; after every refusal, the current
 * context, the live objects and the recorded launches are as they were. Freed pointers are
 * never passed: that is undefined behaviour, not an input.
 *
 * Each test program includes this once; its functions are static inline so that a program need
 * not use them all. */
#ifndef CUSHIM_TEST_HOSTILE_H
#define CUSHIM_TEST_HOSTILE_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* PTX the mock reads: it takes the kernels from the `.entry` lines. */
static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                          ".visible .entry cushim_empty()\n{\n    ret;\n}\n";
#define KERNEL "cushim_empty"

/* ------------------------------------------------------------------------------------------ */
/* Fixture                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef enum kind { K_CONTEXT, K_STREAM, K_EVENT, K_MODULE, K_LIBRARY, K_FUNCTION, K_COUNT } kind;

static const char *const kind_words[K_COUNT] = {"a context", "a stream",  "an event",
                                                "a module",  "a library", "a function"};
static const char *const raw_words[K_COUNT] = {"a raw CUcontext", "a raw CUstream",
                                               "a raw CUevent",   "a raw CUmodule",
                                               "a raw CUlibrary", "a raw CUfunction"};

static struct {
    cushim_context *ctx, *other_ctx, *primary;
    cushim_stream *stream, *other_stream;
    cushim_event *event, *untimed;
    cushim_module *module;
    cushim_library *library;
    cushim_function *fn, *lib_fn;
    void *handle[K_COUNT]; /* one live object of each kind */
    void *raw[K_COUNT];    /* the driver's handles, which a caller may pass by mistake */
    char ptx_path[64], empty_path[64], dir_path[64];
} fx;

/* An out-pointer's value before the call: a refusal must overwrite it with NULL. Aligned for
 * any object type, so that converting its address to any handle type is defined. */
static max_align_t sentinel;
#define SENTINEL ((void *)&sentinel)

static inline int write_file(char *path, const char *text) {
    strcpy(path, "/tmp/cushim-hostile-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

static inline int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    memset(&fx, 0, sizeof fx);
    if (cushim_context_create(&fx.ctx, 0, 0) != CUDA_SUCCESS ||
        cushim_context_create(&fx.other_ctx, 0, 0) != CUDA_SUCCESS ||
        cushim_context_primary(&fx.primary, 0) != CUDA_SUCCESS ||
        cushim_stream_create(&fx.stream, fx.ctx, CU_STREAM_NON_BLOCKING, 0) != CUDA_SUCCESS ||
        cushim_stream_create(&fx.other_stream, fx.other_ctx, 0, 0) != CUDA_SUCCESS ||
        cushim_event_create(&fx.event, fx.ctx, 0) != CUDA_SUCCESS ||
        cushim_event_create(&fx.untimed, fx.ctx, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
        cushim_module_load_data(&fx.module, fx.ctx, ptx) != CUDA_SUCCESS ||
        cushim_module_function(&fx.fn, fx.module, KERNEL) != CUDA_SUCCESS ||
        cushim_library_load_data(&fx.library, ptx) != CUDA_SUCCESS ||
        cushim_library_function(&fx.lib_fn, fx.library, fx.ctx, KERNEL) != CUDA_SUCCESS) {
        fprintf(stderr, "# fixture: %s\n", cushim_last_error());
        return -1;
    }
    /* A recorded and completed event, so that the valid elapsed-time call succeeds. */
    if (cushim_event_record(fx.event, fx.stream) != CUDA_SUCCESS ||
        cushim_event_synchronize(fx.event) != CUDA_SUCCESS) {
        return -1;
    }
    fx.handle[K_CONTEXT] = fx.ctx;
    fx.handle[K_STREAM] = fx.stream;
    fx.handle[K_EVENT] = fx.event;
    fx.handle[K_MODULE] = fx.module;
    fx.handle[K_LIBRARY] = fx.library;
    fx.handle[K_FUNCTION] = fx.fn;
    const cushim_driver_table *cu = cushim_driver();
    CUmodule raw_module = NULL;
    CUlibrary raw_library = NULL;
    if (cu->cuFuncGetModule(&raw_module, cushim_function_raw(fx.fn)) != CUDA_SUCCESS ||
        cu->cuKernelGetLibrary(&raw_library, (CUkernel)cushim_function_raw(fx.lib_fn)) !=
            CUDA_SUCCESS) {
        return -1;
    }
    fx.raw[K_CONTEXT] = cushim_context_raw(fx.ctx);
    fx.raw[K_STREAM] = cushim_stream_raw(fx.stream);
    fx.raw[K_EVENT] = cushim_event_raw(fx.event);
    fx.raw[K_MODULE] = raw_module;
    fx.raw[K_LIBRARY] = raw_library;
    fx.raw[K_FUNCTION] = cushim_function_raw(fx.fn);
    if (write_file(fx.ptx_path, ptx) != 0 || write_file(fx.empty_path, "") != 0) return -1;
    strcpy(fx.dir_path, "/tmp/cushim-hostile-dir-XXXXXX");
    if (mkdtemp(fx.dir_path) == NULL) return -1;
    memset(&captured, 0, sizeof captured);
    return 0;
}

/* Releases the fixture and fails when the driver still holds anything: a refused call that had
 * retained or released something would show here. */
static inline int teardown(void **state) {
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_library_release(fx.library);
    cushim_module_release(fx.module);
    cushim_event_release(fx.event);
    cushim_event_release(fx.untimed);
    cushim_stream_release(fx.stream);
    cushim_stream_release(fx.other_stream);
    cushim_context_release(fx.primary);
    cushim_context_release(fx.other_ctx);
    cushim_context_release(fx.ctx);
    unlink(fx.ptx_path);
    unlink(fx.empty_path);
    rmdir(fx.dir_path);
    int leaked = mock_report_leaks();
    mock_teardown(state);
    return leaked ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Checks                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* What a refusal must leave as it was. */
typedef struct snapshot {
    int calls;
    int live[CUSHIM_MOCK_KIND_COUNT];
    CUcontext current;
    int launches;
} snapshot;

static inline snapshot snap(void) {
    snapshot s;
    s.calls = mock.calls("*");
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) s.live[k] = mock.live((cushim_mock_kind)k);
    s.current = mock.current();
    s.launches = mock.launch_count();
    return s;
}

/* Failures are counted and printed as TAP comments, so that one run lists every case that is
 * wrong; each test asserts the count at its end. */
static int failures;
static int cases;

#define FAILED(label, ...)                                                                         \
    do {                                                                                           \
        printf("# FAIL %s: ", (label));                                                            \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        failures++;                                                                                \
    } while (0)

typedef enum where {
    BEFORE_DRIVER, /* the refusal is cushim's own: no driver call at all */
    BY_DRIVER,     /* cushim asks the driver, which refuses */
} where;

/* The checks every refusal gets: the code, a sentence that names the function, and nothing
 * changed (no driver call where cushim should refuse on its own). */
static inline void check_refusal(const char *label, const char *fn, CUresult want, CUresult got,
                                 const snapshot *before, where w) {
    cases++;
    const char *err = cushim_last_error();
    if (got != want) {
        FAILED(label, "expected %s, got %s (%s)", cushim_error_name(want), cushim_error_name(got),
               err);
    }
    if (got == CUDA_SUCCESS) return;
    if (err[0] == '\0') {
        FAILED(label, "no sentence in cushim_last_error()");
    } else if (strstr(err, fn) == NULL) {
        FAILED(label, "the sentence does not name %s: %s", fn, err);
    }
    snapshot after = snap();
    if (w == BEFORE_DRIVER && after.calls != before->calls) {
        FAILED(label, "%d driver calls before the refusal (the first: %s)",
               after.calls - before->calls, mock.call_name(before->calls));
    }
    if (after.current != before->current) {
        FAILED(label, "the current context changed from %p to %p", (void *)before->current,
               (void *)after.current);
    }
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) {
        if (after.live[k] != before->live[k]) {
            FAILED(label, "live objects of mock kind %d went from %d to %d", k, before->live[k],
                   after.live[k]);
        }
    }
    if (after.launches != before->launches) FAILED(label, "a launch reached the driver");
}

/* Leaves a sentence in cushim_last_error() that does not name fn, so that a stale sentence from
 * an earlier call cannot pass for the refusal's own. Neither call reaches the driver. */
static inline void scrub_error(const char *fn) {
    if (strstr(fn, "cushim_library_retain") == NULL) {
        (void)cushim_library_retain(NULL);
    } else {
        (void)cushim_module_retain(NULL);
    }
}

/* The state before a call that must be refused, with the sentence scrubbed (see above). */
static inline snapshot start(void) {
    scrub_error("");
    return snap();
}

/* Releases what an unexpected success made, so that one wrong case does not spoil the rest. */
static inline void release_made(kind k, void *made) {
    if (made == NULL || made == SENTINEL) return;
    switch (k) {
    case K_CONTEXT: cushim_context_release(made); break;
    case K_STREAM: cushim_stream_release(made); break;
    case K_EVENT: cushim_event_release(made); break;
    case K_MODULE: cushim_module_release(made); break;
    case K_LIBRARY: cushim_library_release(made); break;
    case K_FUNCTION: break; /* owned by its module or library */
    case K_COUNT: break;
    }
}

static inline size_t CUDA_CB smem_per_block(int block_size) { return (size_t)block_size * 4; }

static inline const cushim_launch_config *good_config(void) {
    static cushim_launch_config cfg;
    cfg = (cushim_launch_config){.grid = CUSHIM_DIM3(1),
                                 .block = CUSHIM_DIM3(32),
                                 .shared_mem_bytes = 0,
                                 .stream = fx.stream};
    return &cfg;
}

/* The values that are not a live handle of kind k: NULL, the other kinds, every raw handle. */
static inline int bad_values(kind k, void *v[], const char *w[]) {
    int n = 0;
    v[n] = NULL;
    w[n++] = "NULL";
    for (int j = 0; j < K_COUNT; j++) {
        if (j != (int)k) {
            v[n] = fx.handle[j];
            w[n++] = kind_words[j];
        }
        v[n] = fx.raw[j];
        w[n++] = raw_words[j];
    }
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Afterwards                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Run last in each test program: after every refusal before it, in this process, the whole API
 * still works. */
static inline void test_everything_works_after_the_refusals(void **state) {
    (void)state;
    cushim_context *c = NULL;
    cushim_stream *s = NULL;
    cushim_event *a = NULL, *b = NULL;
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_context_create(&c, 0, 0));
    assert_ok(cushim_stream_create(&s, c, CU_STREAM_NON_BLOCKING, -1));
    assert_ok(cushim_event_create(&a, c, 0));
    assert_ok(cushim_event_create(&b, c, CU_EVENT_BLOCKING_SYNC));
    assert_ok(cushim_module_load_file(&m, c, fx.ptx_path));
    assert_ok(cushim_module_function(&f, m, KERNEL));
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(2, 2),
                                .block = CUSHIM_DIM3(32, 2),
                                .shared_mem_bytes = 1024,
                                .stream = s};
    assert_ok(cushim_event_record(a, s));
    assert_ok(cushim_launch(f, &cfg, NULL));
    assert_ok(cushim_event_record(b, s));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(b));
    assert_ok(cushim_stream_synchronize(s));
    float ms = 0;
    assert_ok(cushim_event_elapsed_ms(&ms, a, b));
    assert_true(ms > 0.0f);
    int blocks = 0;
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, f, 256, 0));
    assert_true(blocks > 0);
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, f, 256, 0));
    assert_true(blocks > 0);
    cushim_module_release(m);
    cushim_event_release(a);
    cushim_event_release(b);
    cushim_stream_release(s);
    cushim_context_release(c);
    assert_null(mock.current());
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 2); /* the fixture's */
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 1);
}

/* A test of this file's programs, with the fixture around it. */
#define HOSTILE_TEST(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

#endif
