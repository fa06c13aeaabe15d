/* A launch with the block size cushim_occupancy_max_potential_block_size suggests computes
 * saxpy right, every element exactly as the host's fmaf. Skips (77) without a GPU. */
#include <math.h>

#include "gpu_launch.h"

#define ELEMENTS (1u << 20)

/* A small deterministic generator: the inputs are random, and the same on every run. */
static unsigned next_random(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static float random_float(unsigned *state) {
    return (float)next_random(state) / (float)(1u << 24) * 200.0f - 100.0f;
}

static void saxpy(bool on_stream) {
    char *ptx = read_ptx("saxpy.ptx");
    assert_non_null(ptx);
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_module_load_data(&m, ctx, ptx));
    free(ptx);
    assert_ok(cushim_module_function(&f, m, "cushim_saxpy"));
    int min_grid = 0, block = 0;
    assert_ok(cushim_occupancy_max_potential_block_size(&min_grid, &block, f, 0, 0));
    printf("# saxpy: block of %d threads, at least %d blocks to fill the device\n", block,
           min_grid);
    assert_true(block > 0 && min_grid > 0);

    float *x = malloc(ELEMENTS * sizeof *x), *y = malloc(ELEMENTS * sizeof *y),
          *out = malloc(ELEMENTS * sizeof *out);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(out);
    unsigned seed = on_stream ? 12345u : 54321u;
    for (unsigned i = 0; i < ELEMENTS; i++) {
        x[i] = random_float(&seed);
        y[i] = random_float(&seed);
    }
    float a = random_float(&seed);
    const cushim_driver_table *d = cushim_driver();
    CUdeviceptr dx = 0, dy = 0;
    with_ctx(true);
    assert_ok(d->cuMemAlloc(&dx, ELEMENTS * sizeof *x));
    assert_ok(d->cuMemAlloc(&dy, ELEMENTS * sizeof *y));
    assert_ok(d->cuMemcpyHtoD(dx, x, ELEMENTS * sizeof *x));
    assert_ok(d->cuMemcpyHtoD(dy, y, ELEMENTS * sizeof *y));
    gpu_settle();
    with_ctx(false);

    cushim_stream *s = NULL;
    if (on_stream) assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    unsigned n = ELEMENTS;
    void *params[] = {&n, &a, &dx, &dy};
    unsigned grid = (ELEMENTS + (unsigned)block - 1) / (unsigned)block;
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(grid),
                                .block = CUSHIM_DIM3((unsigned)block),
                                .shared_mem_bytes = 0,
                                .stream = s};
    assert_ok(cushim_launch(f, &cfg, params));
    if (s != NULL) {
        assert_ok(cushim_stream_synchronize(s));
    } else {
        assert_ok(cushim_context_synchronize(ctx));
    }
    with_ctx(true);
    assert_ok(d->cuMemcpyDtoH(out, dy, ELEMENTS * sizeof *out));
    assert_ok(d->cuMemFree(dx));
    assert_ok(d->cuMemFree(dy));
    with_ctx(false);

    unsigned wrong = 0;
    for (unsigned i = 0; i < ELEMENTS; i++) {
        float want = fmaf(a, x[i], y[i]);
        if (out[i] != want) {
            if (wrong++ < 5) {
                fprintf(stderr, "# y[%u] = %a, want %a (a %a, x %a, y %a)\n", i, (double)out[i],
                        (double)want, (double)a, (double)x[i], (double)y[i]);
            }
        }
    }
    assert_int_equal(wrong, 0);
    free(x);
    free(y);
    free(out);
    cushim_stream_release(s);
    cushim_module_release(m);
}

static void test_saxpy_on_a_stream(void **state) {
    (void)state;
    saxpy(true);
}

static void test_saxpy_on_the_default_stream(void **state) {
    (void)state;
    saxpy(false);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_saxpy_on_a_stream, gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_saxpy_on_the_default_stream, gpu_setup, gpu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
