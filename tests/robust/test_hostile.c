/* Hostile input: every public function with NULL, a live handle of the wrong kind, a raw driver
 * handle where a cushim one is expected, and zero or huge sizes gets an error, with a sentence
 * naming the function, and the library keeps working afterwards.
 *
 * The argument checks are table-driven: each public function that takes a handle or a pointer is
 * described by its parameters, and every bad value is tried in every position. After each refusal
 * made before the driver, the mock must have seen no driver call at all; after every refusal, the
 * current context, the live objects and the recorded launches are as they were. Freed pointers
 * are never passed: that is undefined behaviour, not an input. */
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

static int write_file(char *path, const char *text) {
    strcpy(path, "/tmp/cushim-hostile-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

static int setup(void **state) {
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
static int teardown(void **state) {
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

static snapshot snap(void) {
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

#define FAILED(label, ...)                                                                        \
    do {                                                                                          \
        printf("# FAIL %s: ", (label));                                                           \
        printf(__VA_ARGS__);                                                                      \
        printf("\n");                                                                             \
        failures++;                                                                               \
    } while (0)

typedef enum where {
    BEFORE_DRIVER, /* the refusal is cushim's own: no driver call at all */
    BY_DRIVER,     /* cushim asks the driver, which refuses */
} where;

/* The checks every refusal gets: the code, a sentence that names the function, and nothing
 * changed (no driver call where cushim should refuse on its own). */
static void check_refusal(const char *label, const char *fn, CUresult want, CUresult got,
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
static void scrub_error(const char *fn) {
    if (strstr(fn, "cushim_library_retain") == NULL) {
        (void)cushim_library_retain(NULL);
    } else {
        (void)cushim_module_retain(NULL);
    }
}

/* The state before a call that must be refused, with the sentence scrubbed (see above). */
static snapshot start(void) {
    scrub_error("");
    return snap();
}

/* Releases what an unexpected success made, so that one wrong case does not spoil the rest. */
static void release_made(kind k, void *made) {
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

/* ------------------------------------------------------------------------------------------ */
/* The table of functions that take a handle or a pointer                                     */
/* ------------------------------------------------------------------------------------------ */

typedef enum role {
    R_END,        /* past the last parameter */
    R_OUT,        /* an out-pointer: NULL is refused */
    R_HANDLE,     /* a handle: NULL and every other kind are refused */
    R_HANDLE_OPT, /* a handle where NULL means a default: other kinds are refused */
    R_PTR,        /* a pointer read or written: NULL is refused */
    R_PTR_OPT,    /* a pointer that may be NULL on its own */
} role;

typedef enum value { V_NONE, V_INT, V_FLOAT, V_IMAGE, V_PATH, V_NAME, V_CFG, V_CALLBACK } value;

typedef struct param {
    role role;
    kind kind;   /* R_OUT and the handles: the object's kind */
    value value; /* R_PTR: what it points to */
} param;

#define MAX_PARAMS 4

/* Calls one function with a[i] as parameter i. An R_OUT slot says only whether to pass NULL;
 * *made gets what the function left in the out-pointer. */
typedef CUresult (*thunk)(void *const *a, void **made);

typedef struct api {
    const char *name;
    thunk call;
    param p[MAX_PARAMS];
} api;

static int scratch_int[MAX_PARAMS];
static float scratch_float;

static size_t CUDA_CB smem_per_block(int block_size) {
    return (size_t)block_size * 4;
}

static const cushim_launch_config *good_config(void) {
    static cushim_launch_config cfg;
    cfg = (cushim_launch_config){CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, fx.stream};
    return &cfg;
}

#define OUT_THUNK(fname, type, call)                                                              \
    static CUresult t_##fname(void *const *a, void **made) {                                      \
        type *o = SENTINEL;                                                                       \
        type **out = a[0] ? &o : NULL;                                                            \
        CUresult r = call;                                                                        \
        *made = o;                                                                                \
        return r;                                                                                 \
    }
#define THUNK(fname, call)                                                                        \
    static CUresult t_##fname(void *const *a, void **made) {                                      \
        (void)made;                                                                               \
        return call;                                                                              \
    }

OUT_THUNK(context_primary, cushim_context, cushim_context_primary(out, 0))
OUT_THUNK(context_create, cushim_context, cushim_context_create(out, 0, 0))
THUNK(context_synchronize, cushim_context_synchronize(a[0]))
THUNK(context_stream_priority_range, cushim_context_stream_priority_range(a[0], a[1], a[2]))
OUT_THUNK(stream_create, cushim_stream, cushim_stream_create(out, a[1], 0, 0))
THUNK(stream_synchronize, cushim_stream_synchronize(a[0]))
THUNK(stream_query, cushim_stream_query(a[0]))
THUNK(stream_wait_event, cushim_stream_wait_event(a[0], a[1], 0))
OUT_THUNK(event_create, cushim_event, cushim_event_create(out, a[1], 0))
THUNK(event_record, cushim_event_record(a[0], a[1]))
THUNK(event_synchronize, cushim_event_synchronize(a[0]))
THUNK(event_query, cushim_event_query(a[0]))
THUNK(event_elapsed_ms, cushim_event_elapsed_ms(a[0], a[1], a[2]))
OUT_THUNK(module_load_data, cushim_module, cushim_module_load_data(out, a[1], a[2]))
OUT_THUNK(module_load_file, cushim_module, cushim_module_load_file(out, a[1], a[2]))
OUT_THUNK(module_function, cushim_function, cushim_module_function(out, a[1], a[2]))
OUT_THUNK(library_load_data, cushim_library, cushim_library_load_data(out, a[1]))
OUT_THUNK(library_function, cushim_function, cushim_library_function(out, a[1], a[2], a[3]))
THUNK(launch, cushim_launch(a[0], a[1], NULL))
THUNK(launch_cooperative, cushim_launch_cooperative(a[0], a[1], NULL))
THUNK(occupancy_max_active_blocks, cushim_occupancy_max_active_blocks(a[0], a[1], 128, 0))
THUNK(occupancy_max_potential_block_size,
      cushim_occupancy_max_potential_block_size(a[0], a[1], a[2], 0, 0))
THUNK(occupancy_max_potential_block_size_fn,
      cushim_occupancy_max_potential_block_size_fn(a[0], a[1], a[2],
                                                   a[3] ? smem_per_block : NULL, 0))
THUNK(occupancy_max_cooperative_grid, cushim_occupancy_max_cooperative_grid(a[0], a[1], 128, 0))

#define OUT(k) {R_OUT, k, V_NONE}
#define H(k) {R_HANDLE, k, V_NONE}
#define H_OPT(k) {R_HANDLE_OPT, k, V_NONE}
#define PTR(v) {R_PTR, K_COUNT, v}
#define PTR_OPT(v) {R_PTR_OPT, K_COUNT, v}
#define API(fname, ...) {"cushim_" #fname, t_##fname, {__VA_ARGS__}}

static const api apis[] = {
    API(context_primary, OUT(K_CONTEXT)),
    API(context_create, OUT(K_CONTEXT)),
    API(context_synchronize, H(K_CONTEXT)),
    /* Either bound may be NULL alone; both NULL is a case of its own below. */
    API(context_stream_priority_range, H(K_CONTEXT), PTR_OPT(V_INT), PTR_OPT(V_INT)),
    API(stream_create, OUT(K_STREAM), H(K_CONTEXT)),
    API(stream_synchronize, H(K_STREAM)),
    API(stream_query, H(K_STREAM)),
    API(stream_wait_event, H_OPT(K_STREAM), H(K_EVENT)),
    API(event_create, OUT(K_EVENT), H(K_CONTEXT)),
    API(event_record, H(K_EVENT), H_OPT(K_STREAM)),
    API(event_synchronize, H(K_EVENT)),
    API(event_query, H(K_EVENT)),
    API(event_elapsed_ms, PTR(V_FLOAT), H(K_EVENT), H(K_EVENT)),
    API(module_load_data, OUT(K_MODULE), H(K_CONTEXT), PTR(V_IMAGE)),
    API(module_load_file, OUT(K_MODULE), H(K_CONTEXT), PTR(V_PATH)),
    API(module_function, OUT(K_FUNCTION), H(K_MODULE), PTR(V_NAME)),
    API(library_load_data, OUT(K_LIBRARY), PTR(V_IMAGE)),
    API(library_function, OUT(K_FUNCTION), H(K_LIBRARY), H(K_CONTEXT), PTR(V_NAME)),
    API(launch, H(K_FUNCTION), PTR(V_CFG)),
    API(launch_cooperative, H(K_FUNCTION), PTR(V_CFG)),
    API(occupancy_max_active_blocks, PTR(V_INT), H(K_FUNCTION)),
    API(occupancy_max_potential_block_size, PTR(V_INT), PTR(V_INT), H(K_FUNCTION)),
    API(occupancy_max_potential_block_size_fn, PTR(V_INT), PTR(V_INT), H(K_FUNCTION),
        PTR(V_CALLBACK)),
    API(occupancy_max_cooperative_grid, PTR(V_INT), H(K_FUNCTION)),
};

static void *valid_value(const param *p, int i) {
    switch (p->role) {
    case R_OUT: return SENTINEL; /* any non-NULL: the thunk passes its own out-pointer */
    case R_HANDLE:
    case R_HANDLE_OPT: return fx.handle[p->kind];
    case R_PTR:
    case R_PTR_OPT:
        switch (p->value) {
        case V_INT: return &scratch_int[i];
        case V_FLOAT: return &scratch_float;
        case V_IMAGE: return (void *)ptx;
        case V_PATH: return fx.ptx_path;
        case V_NAME: return (void *)KERNEL;
        case V_CFG: return (void *)good_config();
        case V_CALLBACK: return SENTINEL; /* any non-NULL: the thunk passes the callback */
        case V_NONE: return NULL;
        }
        return NULL;
    case R_END: return NULL;
    }
    return NULL;
}

static kind out_kind(const api *f) {
    for (int i = 0; i < MAX_PARAMS; i++) {
        if (f->p[i].role == R_OUT) return f->p[i].kind;
    }
    return K_COUNT;
}

/* One bad argument in position i, the others valid. */
static void try_bad(const api *f, void **args, int i, void *bad, const char *what, CUresult want) {
    char label[160];
    snprintf(label, sizeof label, "%s with %s as parameter %d", f->name, what, i + 1);
    void *saved = args[i];
    args[i] = bad;
    scrub_error(f->name);
    snapshot before = snap();
    void *made = SENTINEL;
    CUresult r = f->call(args, &made);
    check_refusal(label, f->name, want, r, &before, BEFORE_DRIVER);
    kind k = out_kind(f);
    /* A refusal leaves NULL in an out-pointer that was passed. */
    if (k != K_COUNT && f->p[0].role == R_OUT && args[0] != NULL && made != NULL) {
        FAILED(label, "the out-pointer holds %p, not NULL", made);
    }
    if (r == CUDA_SUCCESS) release_made(k, made);
    args[i] = saved;
}

static void run_api(const api *f) {
    void *args[MAX_PARAMS] = {NULL};
    int n = 0;
    while (n < MAX_PARAMS && f->p[n].role != R_END) {
        args[n] = valid_value(&f->p[n], n);
        n++;
    }
    /* The valid call first: each bad argument below is then the only reason for a refusal. */
    snapshot before = snap();
    void *made = SENTINEL;
    CUresult r = f->call(args, &made);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) {
        FAILED(f->name, "the valid call failed: %s (%s)", cushim_error_name(r),
               cushim_last_error());
    }
    if (mock.current() != before.current) FAILED(f->name, "the valid call changed the context");
    release_made(out_kind(f), made);

    for (int i = 0; i < n; i++) {
        const param *p = &f->p[i];
        if (p->role == R_OUT || p->role == R_HANDLE || p->role == R_PTR) {
            try_bad(f, args, i, NULL, "NULL", CUDA_ERROR_INVALID_VALUE);
        }
        if (p->role != R_HANDLE && p->role != R_HANDLE_OPT) continue;
        for (int k = 0; k < K_COUNT; k++) {
            if (k != (int)p->kind) {
                try_bad(f, args, i, fx.handle[k], kind_words[k], CUDA_ERROR_INVALID_HANDLE);
            }
            /* Every raw driver handle, the same kind's too: passing cushim_stream_raw(s) where
             * s is wanted is the likeliest mix-up. */
            try_bad(f, args, i, fx.raw[k], raw_words[k], CUDA_ERROR_INVALID_HANDLE);
        }
    }
}

static void test_null_and_wrong_kind_for_every_parameter(void **state) {
    (void)state;
    failures = cases = 0;
    /* Once with no context current and once with an unrelated one: neither may change. */
    CUcontext currents[2] = {NULL, cushim_context_raw(fx.primary)};
    for (int c = 0; c < 2; c++) {
        assert_ok(cushim_driver()->cuCtxSetCurrent(currents[c]));
        for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++) run_api(&apis[i]);
    }
    /* Either stream priority bound may be NULL, not both. */
    snapshot before = start();
    check_refusal("cushim_context_stream_priority_range with both bounds NULL",
                  "cushim_context_stream_priority_range", CUDA_ERROR_INVALID_VALUE,
                  cushim_context_stream_priority_range(fx.ctx, NULL, NULL), &before,
                  BEFORE_DRIVER);
    assert_ok(cushim_driver()->cuCtxSetCurrent(NULL));
    printf("# %d refusals checked\n", cases);
    assert_true(cases > 600);
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Retain, release and the accessors                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct refops {
    const char *retain_name, *release_name;
    void *(*retain)(void *);
    void (*release)(void *);
} refops;

static void *retain_context(void *p) { return cushim_context_retain(p); }
static void *retain_stream(void *p) { return cushim_stream_retain(p); }
static void *retain_event(void *p) { return cushim_event_retain(p); }
static void *retain_module(void *p) { return cushim_module_retain(p); }
static void *retain_library(void *p) { return cushim_library_retain(p); }
static void release_context(void *p) { cushim_context_release(p); }
static void release_stream(void *p) { cushim_stream_release(p); }
static void release_event(void *p) { cushim_event_release(p); }
static void release_module(void *p) { cushim_module_release(p); }
static void release_library(void *p) { cushim_library_release(p); }

/* Indexed by kind; a function has neither (its module or library owns it). */
static const refops refs[K_FUNCTION] = {
    {"cushim_context_retain", "cushim_context_release", retain_context, release_context},
    {"cushim_stream_retain", "cushim_stream_release", retain_stream, release_stream},
    {"cushim_event_retain", "cushim_event_release", retain_event, release_event},
    {"cushim_module_retain", "cushim_module_release", retain_module, release_module},
    {"cushim_library_retain", "cushim_library_release", retain_library, release_library},
};

/* The values that are not a live handle of kind k: NULL, the other kinds, every raw handle. */
static int bad_values(kind k, void *v[], const char *w[]) {
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

static void test_retain_and_release_refuse_bad_handles(void **state) {
    (void)state;
    failures = cases = 0;
    void *bad[2 * K_COUNT + 1];
    const char *what[2 * K_COUNT + 1];
    for (int k = 0; k < K_FUNCTION; k++) {
        int n = bad_values((kind)k, bad, what);
        for (int i = 0; i < n; i++) {
            char label[160];
            snprintf(label, sizeof label, "%s(%s)", refs[k].retain_name, what[i]);
            scrub_error(refs[k].retain_name);
            snapshot before = snap();
            void *got = refs[k].retain(bad[i]);
            cases++;
            if (got != NULL) FAILED(label, "returned %p, not NULL", got);
            /* The retain says why it returned NULL, like every other refusal. */
            check_refusal(label, refs[k].retain_name,
                          bad[i] ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE,
                          bad[i] ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE, &before,
                          BEFORE_DRIVER);

            snprintf(label, sizeof label, "%s(%s)", refs[k].release_name, what[i]);
            memset(&captured, 0, sizeof captured);
            before = start();
            refs[k].release(bad[i]);
            cases++;
            snapshot after = snap();
            if (after.calls != before.calls) FAILED(label, "reached the driver");
            for (int m = 0; m < CUSHIM_MOCK_KIND_COUNT; m++) {
                if (after.live[m] != before.live[m]) FAILED(label, "destroyed something");
            }
            if (captured.count[CUSHIM_LOG_ERROR] != 0) FAILED(label, "logged an error");
            /* NULL is a no-op, as with free(); anything else is a mistake worth a warning. */
            if (bad[i] != NULL) {
                if (captured.count[CUSHIM_LOG_WARN] != 1) {
                    FAILED(label, "%d warnings, expected 1", captured.count[CUSHIM_LOG_WARN]);
                } else if (strstr(captured.text, refs[k].release_name) == NULL) {
                    FAILED(label, "the warning does not name the function: %s", captured.text);
                }
            }
        }
    }
    printf("# %d calls checked\n", cases);
    /* The objects passed as the wrong kind are unharmed: each still works, and the teardown's
     * single release of each destroys it (a stray retain would leak it, a stray release would
     * make the mock abort). */
    assert_ok(cushim_stream_query(fx.stream));
    assert_ok(cushim_event_query(fx.event));
    assert_ok(cushim_context_synchronize(fx.ctx));
    assert_int_equal(failures, 0);
}

static void test_accessors_answer_nothing_for_bad_handles(void **state) {
    (void)state;
    failures = cases = 0;
    void *bad[2 * K_COUNT + 1];
    const char *what[2 * K_COUNT + 1];
    snapshot before = start();
    for (int k = 0; k < K_COUNT; k++) {
        int n = bad_values((kind)k, bad, what);
        for (int i = 0; i < n; i++) {
            const char *w = what[i];
            void *p = bad[i];
            cases++;
            switch ((kind)k) {
            case K_CONTEXT:
                if (cushim_context_raw(p) != NULL) FAILED(w, "cushim_context_raw is not NULL");
                if (cushim_context_device(p) != CU_DEVICE_INVALID) {
                    FAILED(w, "cushim_context_device is not CU_DEVICE_INVALID");
                }
                break;
            case K_STREAM:
                if (cushim_stream_raw(p) != NULL) FAILED(w, "cushim_stream_raw is not NULL");
                if (cushim_stream_context(p) != NULL) FAILED(w, "cushim_stream_context");
                if (cushim_stream_same_queue(p, fx.stream) ||
                    cushim_stream_same_queue(fx.stream, p) || cushim_stream_same_queue(p, p)) {
                    FAILED(w, "cushim_stream_same_queue is true");
                }
                break;
            case K_EVENT:
                if (cushim_event_raw(p) != NULL) FAILED(w, "cushim_event_raw is not NULL");
                if (cushim_event_context(p) != NULL) FAILED(w, "cushim_event_context");
                break;
            case K_FUNCTION:
                if (cushim_function_raw(p) != NULL) FAILED(w, "cushim_function_raw is not NULL");
                break;
            case K_MODULE:
            case K_LIBRARY:
            case K_COUNT:
                break; /* no accessors */
            }
        }
    }
    snapshot after = snap();
    assert_int_equal(after.calls, before.calls);
    assert_true(cases > 40);
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Launch: zero and huge sizes, streams of the wrong kind or context                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct launch_case {
    const char *what;
    cushim_dim3 grid, block;
    unsigned smem;
    const char *text; /* the sentence says this */
} launch_case;

static const launch_case launch_cases[] = {
    {"grid x 0", {0, 1, 1}, {32, 1, 1}, 0, "zero dimension"},
    {"grid y 0", {1, 0, 1}, {32, 1, 1}, 0, "zero dimension"},
    {"grid z 0", {1, 1, 0}, {32, 1, 1}, 0, "zero dimension"},
    {"block x 0", {1, 1, 1}, {0, 1, 1}, 0, "zero dimension"},
    {"block y 0", {1, 1, 1}, {32, 0, 1}, 0, "zero dimension"},
    {"block z 0", {1, 1, 1}, {32, 1, 0}, 0, "zero dimension"},
    {"all zero", {0, 0, 0}, {0, 0, 0}, 0, "zero dimension"},
    {"grid x UINT_MAX", {UINT_MAX, 1, 1}, {32, 1, 1}, 0, "MAX_GRID_DIM_X"},
    {"grid y UINT_MAX", {1, UINT_MAX, 1}, {32, 1, 1}, 0, "MAX_GRID_DIM_Y"},
    {"grid z UINT_MAX", {1, 1, UINT_MAX}, {32, 1, 1}, 0, "MAX_GRID_DIM_Z"},
    {"block x UINT_MAX", {1, 1, 1}, {UINT_MAX, 1, 1}, 0, "threads"},
    {"block y UINT_MAX", {1, 1, 1}, {1, UINT_MAX, 1}, 0, "threads"},
    {"block z UINT_MAX", {1, 1, 1}, {1, 1, UINT_MAX}, 0, "threads"},
    {"all UINT_MAX", {UINT_MAX, UINT_MAX, UINT_MAX}, {UINT_MAX, UINT_MAX, UINT_MAX}, 0,
     "threads"},
    /* Each axis within its limit, the product not. */
    {"block 1024 x 1024 x 64", {1, 1, 1}, {1024, 1024, 64}, 0, "threads"},
    /* 2^64 threads: a 64-bit product would wrap to 0; the count must be said to be too many. */
    {"block 2^22 x 2^21 x 2^21", {1, 1, 1}, {1u << 22, 1u << 21, 1u << 21}, 0,
     "more than 18446744073709551615 threads"},
    {"grid 2^31 in x", {1u << 31, 1, 1}, {32, 1, 1}, 0, "MAX_GRID_DIM_X"},
    {"block 1025 in x", {1, 1, 1}, {1025, 1, 1}, 0, "threads"},
};

typedef CUresult (*launch_fn)(const cushim_function *, const cushim_launch_config *, void **);

static const struct {
    const char *name;
    launch_fn call;
} launchers[] = {{"cushim_launch", cushim_launch},
                 {"cushim_launch_cooperative", cushim_launch_cooperative}};

static void test_launch_refuses_zero_and_huge_sizes(void **state) {
    (void)state;
    failures = cases = 0;
    for (size_t l = 0; l < 2; l++) {
        for (int s = 0; s < 2; s++) {
            for (size_t i = 0; i < sizeof launch_cases / sizeof launch_cases[0]; i++) {
                const launch_case *c = &launch_cases[i];
                char label[160];
                snprintf(label, sizeof label, "%s, %s, %s", launchers[l].name, c->what,
                         s ? "on a stream" : "on the default stream");
                cushim_launch_config cfg = {c->grid, c->block, c->smem, s ? fx.stream : NULL};
                snapshot before = start();
                CUresult r = launchers[l].call(fx.fn, &cfg, NULL);
                check_refusal(label, launchers[l].name, CUDA_ERROR_INVALID_VALUE, r, &before,
                              BEFORE_DRIVER);
                if (r != CUDA_SUCCESS && strstr(cushim_last_error(), c->text) == NULL) {
                    FAILED(label, "the sentence lacks \"%s\": %s", c->text, cushim_last_error());
                }
            }
            /* Too much shared memory: refused too, after one look at the kernel's attribute
             * (the caller may have raised it since it was cached) and nothing else. */
            static const unsigned smems[] = {UINT_MAX, 1u << 31, 1u << 20};
            for (size_t i = 0; i < sizeof smems / sizeof smems[0]; i++) {
                char label[160];
                snprintf(label, sizeof label, "%s with %u bytes of shared memory%s",
                         launchers[l].name, smems[i], s ? " on a stream" : "");
                cushim_launch_config cfg = {CUSHIM_DIM3(1), CUSHIM_DIM3(32), smems[i],
                                            s ? fx.stream : NULL};
                snapshot before = start();
                int attr_calls = mock.calls("cuFuncGetAttribute");
                CUresult r = launchers[l].call(fx.fn, &cfg, NULL);
                check_refusal(label, launchers[l].name, CUDA_ERROR_INVALID_VALUE, r, &before,
                              BY_DRIVER);
                int calls = mock.calls("*") - before.calls;
                if (calls != mock.calls("cuFuncGetAttribute") - attr_calls || calls > 1) {
                    FAILED(label, "%d driver calls, expected cuFuncGetAttribute at most", calls);
                }
                if (strstr(cushim_last_error(), "shared memory") == NULL) {
                    FAILED(label, "the sentence does not say shared memory: %s",
                           cushim_last_error());
                }
            }
        }
        /* A stream that is not a stream, or one of another context than the kernel's. */
        void *bad[2 * K_COUNT + 1];
        const char *what[2 * K_COUNT + 1];
        int n = bad_values(K_STREAM, bad, what);
        for (int i = 0; i < n + 1; i++) {
            void *st = i < n ? bad[i] : fx.other_stream;
            if (st == NULL) continue; /* NULL is the default stream */
            char label[160];
            snprintf(label, sizeof label, "%s with %s as cfg->stream", launchers[l].name,
                     i < n ? what[i] : "a stream of another context");
            cushim_launch_config cfg = {CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, st};
            snapshot before = start();
            check_refusal(label, launchers[l].name, CUDA_ERROR_INVALID_HANDLE,
                          launchers[l].call(fx.fn, &cfg, NULL), &before, BEFORE_DRIVER);
        }
    }
    /* The largest grid the per-axis limits allow: about 2^63 blocks, which must not overflow
     * on the way to "does not fit at once". */
    cushim_launch_config cfg = {CUSHIM_DIM3(INT_MAX, 65535, 65535), CUSHIM_DIM3(32), 0, NULL};
    snapshot before = start();
    check_refusal("cushim_launch_cooperative of the largest grid", "cushim_launch_cooperative",
                  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                  cushim_launch_cooperative(fx.fn, &cfg, NULL), &before, BY_DRIVER);
    assert_true(cases > 100);
    assert_int_equal(failures, 0);
    /* And the kernel launches fine afterwards. */
    int launches = mock.launch_count();
    assert_ok(cushim_launch(fx.fn, good_config(), NULL));
    assert_ok(cushim_launch_cooperative(fx.fn, good_config(), NULL));
    assert_int_equal(mock.launch_count(), launches + 2);
}

/* ------------------------------------------------------------------------------------------ */
/* Occupancy: block sizes zero, negative and huge                                             */
/* ------------------------------------------------------------------------------------------ */

typedef CUresult (*blocks_fn)(int *, const cushim_function *, int, size_t);

static size_t CUDA_CB smem_huge(int block_size) {
    (void)block_size;
    return SIZE_MAX;
}

static void test_occupancy_refuses_bad_block_sizes(void **state) {
    (void)state;
    failures = cases = 0;
    static const struct {
        const char *name;
        blocks_fn call;
    } queries[] = {
        {"cushim_occupancy_max_active_blocks", cushim_occupancy_max_active_blocks},
        {"cushim_occupancy_max_cooperative_grid", cushim_occupancy_max_cooperative_grid},
    };
    static const int refused[] = {0, -1, -1024, INT_MIN};
    static const int huge[] = {1025, 1 << 20, INT_MAX};
    for (size_t q = 0; q < 2; q++) {
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
            char label[160];
            snprintf(label, sizeof label, "%s with block size %d", queries[q].name, refused[i]);
            int blocks = 7;
            snapshot before = start();
            check_refusal(label, queries[q].name, CUDA_ERROR_INVALID_VALUE,
                          queries[q].call(&blocks, fx.fn, refused[i], 0), &before, BEFORE_DRIVER);
            if (blocks != 0) FAILED(label, "*blocks is %d, not 0", blocks);
        }
        /* A block larger than the kernel can run is no block at all: the answer may be an
         * error or a success, but never a positive count, and nothing else changes. */
        for (size_t i = 0; i < sizeof huge / sizeof huge[0] + 1; i++) {
            bool smem = i == sizeof huge / sizeof huge[0];
            int bs = smem ? 128 : huge[i];
            char label[160];
            snprintf(label, sizeof label, "%s with block size %d%s", queries[q].name, bs,
                     smem ? " and SIZE_MAX bytes of shared memory" : "");
            int blocks = 7;
            snapshot before = start();
            CUresult r = queries[q].call(&blocks, fx.fn, bs, smem ? SIZE_MAX : 0);
            cases++;
            if (blocks != 0) FAILED(label, "*blocks is %d (%s)", blocks, cushim_error_name(r));
            if (r != CUDA_SUCCESS) check_refusal(label, queries[q].name, r, r, &before, BY_DRIVER);
            if (mock.current() != before.current) FAILED(label, "the current context changed");
        }
    }
    /* The potential block size: a negative limit is refused; a huge one means no limit. */
    static const int limits[] = {-1, INT_MIN};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "potential block size with limit %d", limits[i]);
        int grid = 7, block = 7;
        snapshot before = start();
        check_refusal(label, "cushim_occupancy_max_potential_block_size", CUDA_ERROR_INVALID_VALUE,
                      cushim_occupancy_max_potential_block_size(&grid, &block, fx.fn, 0,
                                                                limits[i]),
                      &before, BEFORE_DRIVER);
        if (grid != 0 || block != 0) FAILED(label, "outputs %d, %d not cleared", grid, block);
        grid = block = 7;
        before = start();
        check_refusal(label, "cushim_occupancy_max_potential_block_size_fn",
                      CUDA_ERROR_INVALID_VALUE,
                      cushim_occupancy_max_potential_block_size_fn(&grid, &block, fx.fn,
                                                                   smem_per_block, limits[i]),
                      &before, BEFORE_DRIVER);
        if (grid != 0 || block != 0) FAILED(label, "outputs %d, %d not cleared", grid, block);
    }
    int grid = 0, block = 0;
    assert_ok(cushim_occupancy_max_potential_block_size(&grid, &block, fx.fn, 0, INT_MAX));
    assert_in_range(block, 1, 1024);
    assert_true(grid > 0);
    /* Shared memory no block can have: whatever the answer, the outputs agree with it. */
    CUresult r = cushim_occupancy_max_potential_block_size(&grid, &block, fx.fn, SIZE_MAX, 0);
    if (r != CUDA_SUCCESS) {
        assert_int_equal(grid, 0);
        assert_int_equal(block, 0);
    }
    assert_in_range(block, 0, 1024);
    r = cushim_occupancy_max_potential_block_size_fn(&grid, &block, fx.fn, smem_huge, 0);
    if (r != CUDA_SUCCESS) assert_int_equal(block, 0);
    assert_in_range(block, 0, 1024);
    assert_null(mock.current());
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Module images and files, kernel names                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_module_load_refuses_bad_images(void **state) {
    (void)state;
    failures = cases = 0;
    /* Images the driver refuses: nothing is left behind and the sentence names the call. */
    static const struct {
        const char *what;
        const char *image;
        CUresult want;
    } images[] = {
        {"an empty string", "", CUDA_ERROR_INVALID_IMAGE},
        {"a truncated ELF header", "\x7f" "ELF\x02\x01\x01", CUDA_ERROR_INVALID_IMAGE},
        {"a fatbin magic and nothing else", "\x50\xed\x55\xba", CUDA_ERROR_INVALID_IMAGE},
        {"PTX that does not compile", ".version 8.0\n// MOCK_JIT_ERROR\n", CUDA_ERROR_INVALID_PTX},
    };
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "cushim_module_load_data of %s", images[i].what);
        cushim_module *m = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_module_load_data", images[i].want,
                      cushim_module_load_data(&m, fx.ctx, images[i].image), &before, BY_DRIVER);
        if (m != NULL) FAILED(label, "the out-pointer is not NULL");
        snprintf(label, sizeof label, "cushim_library_load_data of %s", images[i].what);
        cushim_library *lib = SENTINEL;
        before = start();
        CUresult r = cushim_library_load_data(&lib, images[i].image);
        /* A library may compile lazily, so a PTX error may wait for the first kernel. */
        if (r == CUDA_SUCCESS && images[i].want == CUDA_ERROR_INVALID_PTX) {
            cushim_library_release(lib);
            continue;
        }
        check_refusal(label, "cushim_library_load_data", images[i].want, r, &before, BY_DRIVER);
        if (lib != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    /* Text that is not PTX at all. The mock takes any text as PTX with no kernels, a real
     * driver refuses it; either way nothing may come of it but an error or an empty module. */
    cushim_module *m = NULL;
    CUresult r = cushim_module_load_data(&m, fx.ctx, "this is not PTX \x01\x02\x03\xff");
    if (r == CUDA_SUCCESS) {
        cushim_function *f = SENTINEL;
        assert_cu(CUDA_ERROR_NOT_FOUND, cushim_module_function(&f, m, KERNEL));
        assert_null(f);
        cushim_module_release(m);
    } else {
        assert_null(m);
        assert_non_null(strstr(cushim_last_error(), "cushim_module_load_data"));
    }
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 1);
    assert_int_equal(failures, 0);
}

static void test_module_load_file_refuses_bad_paths(void **state) {
    (void)state;
    failures = cases = 0;
    char long_path[8192];
    memset(long_path, 'a', sizeof long_path - 1);
    long_path[0] = '/';
    long_path[sizeof long_path - 1] = '\0';
    static const char fn[] = "cushim_module_load_file";
    /* Files that cannot be read are refused before the driver: a missing one, a directory, a
     * device that never ends (reading it whole would exhaust memory), a path too long. */
    const struct {
        const char *path, *text;
    } unreadable[] = {
        {"/nonexistent/cushim/kernels.ptx", "No such file"},
        {"relative/kernels.ptx", "relative/kernels.ptx"},
        {fx.dir_path, fx.dir_path},
        {"/dev/zero", "/dev/zero"},
        {"/dev/null/x", "/dev/null/x"},
        {long_path, "cannot open"}, /* the reason itself is past the sentence's length */
    };
    for (size_t i = 0; i < sizeof unreadable / sizeof unreadable[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "%s of '%.40s'", fn, unreadable[i].path);
        cushim_module *m = SENTINEL;
        snapshot before = start();
        CUresult r = cushim_module_load_file(&m, fx.ctx, unreadable[i].path);
        check_refusal(label, fn, CUDA_ERROR_FILE_NOT_FOUND, r, &before, BEFORE_DRIVER);
        if (m != NULL) FAILED(label, "the out-pointer is not NULL");
        if (r != CUDA_SUCCESS && strstr(cushim_last_error(), unreadable[i].text) == NULL) {
            FAILED(label, "the sentence lacks \"%s\": %s", unreadable[i].text,
                   cushim_last_error());
        }
    }
    /* An empty file reads fine and is an empty image, which the driver refuses. */
    cushim_module *m = SENTINEL;
    snapshot before = start();
    check_refusal("an empty file", fn, CUDA_ERROR_INVALID_IMAGE,
                  cushim_module_load_file(&m, fx.ctx, fx.empty_path), &before, BY_DRIVER);
    assert_null(m);
    assert_non_null(strstr(cushim_last_error(), fx.empty_path));
    assert_int_equal(failures, 0);
}

static void test_kernel_names_empty_and_very_long(void **state) {
    (void)state;
    failures = cases = 0;
    size_t long_len = 1 << 16;
    char *long_name = malloc(long_len + 1);
    assert_non_null(long_name);
    memset(long_name, 'k', long_len);
    long_name[long_len] = '\0';
    const char *names[] = {"", " ", long_name, KERNEL "\n", "cushim_empt"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "kernel name %zu (%zu characters)", i, strlen(names[i]));
        cushim_function *f = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_module_function", CUDA_ERROR_NOT_FOUND,
                      cushim_module_function(&f, fx.module, names[i]), &before, BY_DRIVER);
        if (f != NULL) FAILED(label, "the out-pointer is not NULL");
        f = SENTINEL;
        before = start();
        check_refusal(label, "cushim_library_function", CUDA_ERROR_NOT_FOUND,
                      cushim_library_function(&f, fx.library, fx.ctx, names[i]), &before,
                      BY_DRIVER);
        if (f != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    free(long_name);
    /* The failed names left the kernels as they were: the same objects come back. */
    cushim_function *f = NULL;
    assert_ok(cushim_module_function(&f, fx.module, KERNEL));
    assert_ptr_equal(f, fx.fn);
    assert_ok(cushim_library_function(&f, fx.library, fx.ctx, KERNEL));
    assert_ptr_equal(f, fx.lib_fn);
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Flags, priorities, ordinals, pairs of objects that do not belong together                  */
/* ------------------------------------------------------------------------------------------ */

static void test_unknown_flags_and_priorities_out_of_range(void **state) {
    (void)state;
    failures = cases = 0;
    static const unsigned stream_flags[] = {0x2, 0x4, 0x80000000u, UINT_MAX};
    for (size_t i = 0; i < sizeof stream_flags / sizeof stream_flags[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "stream flags 0x%x", stream_flags[i]);
        cushim_stream *s = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_stream_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_stream_create(&s, fx.ctx, stream_flags[i], 0), &before,
                      BEFORE_DRIVER);
        if (s != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    static const unsigned event_flags[] = {0x10, 0x80000000u, UINT_MAX, CU_EVENT_INTERPROCESS,
                                           CU_EVENT_INTERPROCESS | CU_EVENT_BLOCKING_SYNC};
    for (size_t i = 0; i < sizeof event_flags / sizeof event_flags[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "event flags 0x%x", event_flags[i]);
        cushim_event *e = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_event_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_event_create(&e, fx.ctx, event_flags[i]), &before, BEFORE_DRIVER);
        if (e != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    int least = 0, greatest = 0;
    assert_ok(cushim_context_stream_priority_range(fx.ctx, &least, &greatest));
    const int priorities[] = {INT_MIN, INT_MAX, greatest - 1, least + 1};
    for (size_t i = 0; i < sizeof priorities / sizeof priorities[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "stream priority %d", priorities[i]);
        cushim_stream *s = SENTINEL;
        int creates = mock.calls("cuStreamCreateWithPriority");
        snapshot before = start();
        /* The range is the driver's, so it is asked; the stream is not made. */
        check_refusal(label, "cushim_stream_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_stream_create(&s, fx.ctx, 0, priorities[i]), &before, BY_DRIVER);
        if (s != NULL) FAILED(label, "the out-pointer is not NULL");
        if (mock.calls("cuStreamCreateWithPriority") != creates) FAILED(label, "created");
        if (strstr(cushim_last_error(), "priority") == NULL) FAILED(label, "no word of priority");
    }
    /* The driver judges context and wait flags; its refusal comes back with a sentence. */
    static const unsigned ctx_flags[] = {0x80000000u, UINT_MAX};
    for (size_t i = 0; i < sizeof ctx_flags / sizeof ctx_flags[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "context flags 0x%x", ctx_flags[i]);
        cushim_context *c = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_context_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_context_create(&c, 0, ctx_flags[i]), &before, BY_DRIVER);
        if (c != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    snapshot before = start();
    check_refusal("wait flags UINT_MAX", "cushim_stream_wait_event", CUDA_ERROR_INVALID_VALUE,
                  cushim_stream_wait_event(fx.stream, fx.event, UINT_MAX), &before, BY_DRIVER);
    before = start();
    check_refusal("wait flags UINT_MAX on the default stream", "cushim_stream_wait_event",
                  CUDA_ERROR_INVALID_VALUE, cushim_stream_wait_event(NULL, fx.event, UINT_MAX),
                  &before, BY_DRIVER);
    assert_int_equal(failures, 0);
}

static void test_ordinals_out_of_range(void **state) {
    (void)state;
    failures = cases = 0;
    static const int ordinals[] = {-1, 1, 16, 256, 1 << 30, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof ordinals / sizeof ordinals[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "ordinal %d", ordinals[i]);
        cushim_context *c = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_context_primary", CUDA_ERROR_INVALID_DEVICE,
                      cushim_context_primary(&c, ordinals[i]), &before, BY_DRIVER);
        if (c != NULL) FAILED(label, "the out-pointer is not NULL");
        c = SENTINEL;
        before = start();
        check_refusal(label, "cushim_context_create", CUDA_ERROR_INVALID_DEVICE,
                      cushim_context_create(&c, ordinals[i], 0), &before, BY_DRIVER);
        if (c != NULL) FAILED(label, "the out-pointer is not NULL");
        if (strstr(cushim_last_error(), "device") == NULL) FAILED(label, "no word of device");
    }
    assert_int_equal(mock.primary_refcount(0), 1);
    assert_int_equal(failures, 0);
}

static void test_objects_that_do_not_belong_together(void **state) {
    (void)state;
    failures = cases = 0;
    /* An event records only in its own context. */
    snapshot before = start();
    check_refusal("event and stream of different contexts", "cushim_event_record",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_record(fx.event, fx.other_stream),
                  &before, BEFORE_DRIVER);
    /* A timing-disabled event has no time. */
    float ms = -1.0f;
    before = start();
    check_refusal("elapsed time of an untimed event", "cushim_event_elapsed_ms",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, fx.untimed, fx.event),
                  &before, BEFORE_DRIVER);
    before = start();
    check_refusal("elapsed time to an untimed event", "cushim_event_elapsed_ms",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, fx.event, fx.untimed),
                  &before, BEFORE_DRIVER);
    /* An event never recorded: the driver says so. */
    cushim_event *fresh = NULL;
    assert_ok(cushim_event_create(&fresh, fx.ctx, 0));
    before = start();
    check_refusal("elapsed time of an event never recorded", "cushim_event_elapsed_ms",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, fresh, fx.event),
                  &before, BY_DRIVER);
    cushim_event_release(fresh);
    /* A device-wide synchronize with no context current. */
    before = start();
    check_refusal("device synchronize with no context current", "cushim_device_synchronize",
                  CUDA_ERROR_INVALID_CONTEXT, cushim_device_synchronize(), &before, BY_DRIVER);
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Loader, error text, logging                                                                */
/* ------------------------------------------------------------------------------------------ */

static void test_loader_and_error_text_take_anything(void **state) {
    (void)state;
    int calls = mock.calls("*");
    char long_name[10000];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_false(cushim_driver_has(NULL));
    assert_false(cushim_driver_has(""));
    assert_false(cushim_driver_has(long_name));
    assert_false(cushim_driver_has("cuInit\n"));
    assert_true(cushim_driver_has("cuInit"));
    static const CUresult codes[] = {(CUresult)-1, (CUresult)INT_MAX, (CUresult)INT_MIN,
                                     (CUresult)12345};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *name = cushim_error_name(codes[i]);
        const char *text = cushim_error_string(codes[i]);
        assert_non_null(name);
        assert_non_null(text);
        assert_non_null(strstr(name, "unknown CUresult"));
        assert_true(text[0] != '\0');
    }
    assert_int_equal(mock.calls("*"), calls);
    /* A log level past CUSHIM_LOG_OFF silences the handler, as OFF does. */
    cushim_set_log_handler(capture_log, &captured, (cushim_log_level)1000);
    memset(&captured, 0, sizeof captured);
    cushim_stream_release((cushim_stream *)(void *)fx.event);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], 0);
    cushim_set_log_handler(capture_log, &captured, CUSHIM_LOG_DEBUG);
    cushim_stream_release((cushim_stream *)(void *)fx.event);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], 1);
    assert_ok(cushim_event_query(fx.event));
}

/* ------------------------------------------------------------------------------------------ */
/* Afterwards                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Run last: after every refusal above, in this process, the whole API still works. */
static void test_everything_works_after_the_refusals(void **state) {
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
    cushim_launch_config cfg = {CUSHIM_DIM3(2, 2), CUSHIM_DIM3(32, 2), 1024, s};
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

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_null_and_wrong_kind_for_every_parameter),
        T(test_retain_and_release_refuse_bad_handles),
        T(test_accessors_answer_nothing_for_bad_handles),
        T(test_launch_refuses_zero_and_huge_sizes),
        T(test_occupancy_refuses_bad_block_sizes),
        T(test_module_load_refuses_bad_images),
        T(test_module_load_file_refuses_bad_paths),
        T(test_kernel_names_empty_and_very_long),
        T(test_unknown_flags_and_priorities_out_of_range),
        T(test_ordinals_out_of_range),
        T(test_objects_that_do_not_belong_together),
        T(test_loader_and_error_text_take_anything),
        T(test_everything_works_after_the_refusals),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
