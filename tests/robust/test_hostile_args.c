/* Hostile input, table-driven: each public function that takes a handle or a pointer is
 * described by its parameters, and every bad value is tried in every position. */
#include "hostile.h"

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

static int scratch_int[MAX_PARAMS];
static float scratch_float;

/* Calls one function with a[i] as parameter i. An R_OUT slot says only whether to pass NULL;
 * *made gets what the function left in the out-pointer. */
typedef CUresult (*thunk)(void *const *a, void **made);

typedef struct api {
    const char *name;
    thunk call;
    param p[MAX_PARAMS];
} api;

#define OUT_THUNK(fname, type, call)                                                               \
    static CUresult t_##fname(void *const *a, void **made) {                                       \
        type *o = SENTINEL;                                                                        \
        type **out = a[0] ? &o : NULL;                                                             \
        CUresult r = call;                                                                         \
        *made = o;                                                                                 \
        return r;                                                                                  \
    }
#define THUNK(fname, call)                                                                         \
    static CUresult t_##fname(void *const *a, void **made) {                                       \
        (void)made;                                                                                \
        return call;                                                                               \
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
      cushim_occupancy_max_potential_block_size_fn(a[0], a[1], a[2], a[3] ? smem_per_block : NULL,
                                                   0))
THUNK(occupancy_max_cooperative_grid, cushim_occupancy_max_cooperative_grid(a[0], a[1], 128, 0))

#define OUT(k)                                                                                     \
    { R_OUT, k, V_NONE }
#define HANDLE(k)                                                                                  \
    { R_HANDLE, k, V_NONE }
#define HANDLE_OPT(k)                                                                              \
    { R_HANDLE_OPT, k, V_NONE }
#define PTR(v)                                                                                     \
    { R_PTR, K_COUNT, v }
#define PTR_OPT(v)                                                                                 \
    { R_PTR_OPT, K_COUNT, v }
#define API(fname, ...)                                                                            \
    {                                                                                              \
        "cushim_" #fname, t_##fname, { __VA_ARGS__ }                                               \
    }

static const api apis[] = {
    API(context_primary, OUT(K_CONTEXT)),
    API(context_create, OUT(K_CONTEXT)),
    API(context_synchronize, HANDLE(K_CONTEXT)),
    /* Either bound may be NULL alone; both NULL is a case of its own below. */
    API(context_stream_priority_range, PTR_OPT(V_INT), PTR_OPT(V_INT), HANDLE(K_CONTEXT)),
    API(stream_create, OUT(K_STREAM), HANDLE(K_CONTEXT)),
    API(stream_synchronize, HANDLE(K_STREAM)),
    API(stream_query, HANDLE(K_STREAM)),
    API(stream_wait_event, HANDLE_OPT(K_STREAM), HANDLE(K_EVENT)),
    API(event_create, OUT(K_EVENT), HANDLE(K_CONTEXT)),
    API(event_record, HANDLE(K_EVENT), HANDLE_OPT(K_STREAM)),
    API(event_synchronize, HANDLE(K_EVENT)),
    API(event_query, HANDLE(K_EVENT)),
    API(event_elapsed_ms, PTR(V_FLOAT), HANDLE(K_EVENT), HANDLE(K_EVENT)),
    API(module_load_data, OUT(K_MODULE), HANDLE(K_CONTEXT), PTR(V_IMAGE)),
    API(module_load_file, OUT(K_MODULE), HANDLE(K_CONTEXT), PTR(V_PATH)),
    API(module_function, OUT(K_FUNCTION), HANDLE(K_MODULE), PTR(V_NAME)),
    API(library_load_data, OUT(K_LIBRARY), PTR(V_IMAGE)),
    API(library_function, OUT(K_FUNCTION), HANDLE(K_LIBRARY), HANDLE(K_CONTEXT), PTR(V_NAME)),
    API(launch, HANDLE(K_FUNCTION), PTR(V_CFG)),
    API(launch_cooperative, HANDLE(K_FUNCTION), PTR(V_CFG)),
    API(occupancy_max_active_blocks, PTR(V_INT), HANDLE(K_FUNCTION)),
    API(occupancy_max_potential_block_size, PTR(V_INT), PTR(V_INT), HANDLE(K_FUNCTION)),
    API(occupancy_max_potential_block_size_fn, PTR(V_INT), PTR(V_INT), HANDLE(K_FUNCTION),
        PTR(V_CALLBACK)),
    API(occupancy_max_cooperative_grid, PTR(V_INT), HANDLE(K_FUNCTION)),
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
                  cushim_context_stream_priority_range(NULL, NULL, fx.ctx), &before, BEFORE_DRIVER);
    assert_ok(cushim_driver()->cuCtxSetCurrent(NULL));
    printf("# %d refusals checked\n", cases);
    assert_true(cases > 600);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_TEST(test_null_and_wrong_kind_for_every_parameter),
        HOSTILE_TEST(test_everything_works_after_the_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
