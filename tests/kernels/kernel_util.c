/* The kernel suite's shared helpers (see kernel_util.h) and its main: which kernels run, from
 * which files, on which driver. */
#include <math.h>

#include "kernel_util.h"

#ifndef PTX_DIR
#error "PTX_DIR must name the directory of the suite's committed PTX"
#endif

static cushim_context *ctx;
static cushim_module *module;
static const char *image_dir = PTX_DIR;
static const char *image_ext = ".ptx";

const cushim_function *kernel_get(const char *name, const char *entry) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", image_dir, name, image_ext);
    kernel_unload();
    assert_ok(cushim_module_load_file(&module, ctx, path));
    cushim_function *f = NULL;
    assert_ok(cushim_module_function(&f, module, entry));
    return f;
}

void kernel_unload(void) {
    cushim_module_release(module);
    module = NULL;
}

void kernel_run(const cushim_function *f, cushim_dim3 grid, cushim_dim3 block, unsigned shared,
                void **params) {
    cushim_launch_config cfg = {
        .grid = grid, .block = block, .shared_mem_bytes = shared, .stream = NULL};
    assert_ok(cushim_launch(f, &cfg, params));
    assert_ok(cushim_context_synchronize(ctx));
}

CUdeviceptr dev_zeroed(size_t bytes) {
    CUdeviceptr p = 0;
    assert_ok(cushim_driver()->cuMemAlloc(&p, bytes));
    assert_ok(cushim_driver()->cuMemsetD8(p, 0, bytes));
    return p;
}

CUdeviceptr dev_copy(const void *host, size_t bytes) {
    CUdeviceptr p = 0;
    assert_ok(cushim_driver()->cuMemAlloc(&p, bytes));
    assert_ok(cushim_driver()->cuMemcpyHtoD(p, host, bytes));
    return p;
}

void dev_take(void *host, CUdeviceptr p, size_t bytes) {
    assert_ok(cushim_driver()->cuMemcpyDtoH(host, p, bytes));
    assert_ok(cushim_driver()->cuMemFree(p));
}

void *host_alloc(size_t bytes) {
    void *p = calloc(1, bytes);
    assert_non_null(p);
    return p;
}

uint32_t rng_next(uint32_t *state) {
    /* xorshift32: full period over the non-zero words, and cheap. */
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

float rng_float(uint32_t *state, float lo, float hi) {
    return lo + (hi - lo) * (float)(rng_next(state) >> 8) / (float)(1u << 24);
}

/* Maps a float's bits onto a line where neighbouring floats are neighbouring integers. */
static int64_t float_line(float f) {
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}

uint32_t ulp_distance(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT32_MAX;
    int64_t d = float_line(a) - float_line(b);
    return (uint32_t)(d < 0 ? -d : d);
}

uint64_t ulp_distance_d(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    int64_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    /* Two's-complement lines, as for floats; the subtraction cannot overflow for finite values of
     * one sign, and across signs the distance saturates. */
    if ((ia < 0) != (ib < 0)) return a == b ? 0 : UINT64_MAX;
    uint64_t ua = (uint64_t)(ia < 0 ? -ia : ia), ub = (uint64_t)(ib < 0 ? -ib : ib);
    return ua > ub ? ua - ub : ub - ua;
}

void mismatch_u32(mismatch *m, size_t i, uint32_t got, uint32_t want) {
    if (got == want) return;
    if (m->wrong++ < 5) {
        printf("# %s[%zu] = %u (0x%08x), want %u (0x%08x)\n", m->what, i, got, got, want, want);
    }
}

void mismatch_f32(mismatch *m, size_t i, float got, float want, double tolerance) {
    if (fabs((double)got - (double)want) <= tolerance || (isnan(got) && isnan(want))) return;
    if (m->wrong++ < 5) {
        printf("# %s[%zu] = %a (%g), want %a (%g), tolerance %g\n", m->what, i, (double)got,
               (double)got, (double)want, (double)want, tolerance);
    }
}

void mismatch_ulp(mismatch *m, size_t i, float got, float want, uint32_t max_ulp) {
    uint32_t d = ulp_distance(got, want);
    if (d <= max_ulp) return;
    if (m->wrong++ < 5) {
        printf("# %s[%zu] = %a (%g), want %a (%g): %u ulp apart, at most %u\n", m->what, i,
               (double)got, (double)got, (double)want, (double)want, d, max_ulp);
    }
}

static int unload(void **state) {
    (void)state;
    kernel_unload();
    return 0;
}

#define KERNEL_TEST(name) cmocka_unit_test_teardown(kernel_##name, unload)

static const struct CMUnitTest tests[] = {
    KERNEL_TEST(saxpy),      KERNEL_TEST(reduce),       KERNEL_TEST(histogram),
    KERNEL_TEST(transpose),  KERNEL_TEST(bits),         KERNEL_TEST(dp),
    KERNEL_TEST(divergent),  KERNEL_TEST(local_array),  KERNEL_TEST(votes),
    KERNEL_TEST(shuffle),    KERNEL_TEST(dynshared),    KERNEL_TEST(atomic_cas),
    KERNEL_TEST(grid3d),     KERNEL_TEST(struct_param), KERNEL_TEST(fastmath),
    KERNEL_TEST(printf),     KERNEL_TEST(noinline),     KERNEL_TEST(atomic64),
    KERNEL_TEST(gridstride), KERNEL_TEST(matmul),       KERNEL_TEST(texture),
    KERNEL_TEST(half),       KERNEL_TEST(rounding),     KERNEL_TEST(tensor),
    KERNEL_TEST(calls),
};

/* Arguments: [--gpu] [--fatbin DIR] [KERNEL]. --gpu: exit 77 where there is no usable driver or
 * device (the gpu suite); without it the driver must load (the mock, in the unit suite).
 * --fatbin: load DIR/NAME.fatbin instead of the committed PTX. KERNEL: run only that test. */
int main(int argc, char **argv) {
    bool gpu = false;
    static char filter[128];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gpu") == 0) {
            gpu = true;
        } else if (strcmp(argv[i], "--fatbin") == 0 && i + 1 < argc) {
            image_dir = argv[++i];
            image_ext = ".fatbin";
        } else {
            snprintf(filter, sizeof filter, "kernel_%s", argv[i]);
            cmocka_set_test_filter(filter);
        }
    }
    CUresult r = cushim_init();
    int devices = 0;
    if (r == CUDA_SUCCESS) r = cushim_driver()->cuDeviceGetCount(&devices);
    if (r != CUDA_SUCCESS || devices == 0) {
        fprintf(stderr, "%s: no usable CUDA driver or device: %s\n", gpu ? "skip" : "error",
                r != CUDA_SUCCESS ? cushim_last_error() : "no device");
        return gpu ? 77 : 1;
    }
    if (cushim_context_primary(&ctx, 0) != CUDA_SUCCESS ||
        cushim_driver()->cuCtxSetCurrent(cushim_context_raw(ctx)) != CUDA_SUCCESS) {
        fprintf(stderr, "error: no context on device 0: %s\n", cushim_last_error());
        return 1;
    }
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    return failed;
}
