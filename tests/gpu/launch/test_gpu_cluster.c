/* Launch attributes on a real GPU: thread-block clusters of 2, 4 and 2x2 with each block's
 * %cluster_ctarank and %cluster_nctarank checked; a grid not a multiple of the cluster refused
 * before the driver; the largest cluster the driver allows for the kernel launches and one
 * larger is refused; launch priorities at both ends of the context's range, and programmatic
 * stream serialization, accepted. Skips (77) without a GPU; the cluster tests skip on a device
 * without clusters (before compute capability 9.0). */
#include "gpu_launch.h"

#define THREADS 32
#define UNWRITTEN 0xffffffffu

static bool device_has_clusters(void) {
    int major = 0, cluster = 0;
    CUdevice dev = cushim_context_device(ctx);
    assert_ok(cushim_driver()->cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    assert_ok(
        cushim_driver()->cuDeviceGetAttribute(&cluster, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev));
    return major >= 9 && cluster != 0;
}

typedef struct kernel {
    cushim_module *m;
    cushim_function *f;
    cushim_stream *s;
} kernel;

static void kernel_open(kernel *k) {
    char *ptx = read_ptx("cluster_rank.ptx");
    assert_non_null(ptx);
    assert_ok(cushim_module_load_data(&k->m, ctx, ptx));
    free(ptx);
    assert_ok(cushim_module_function(&k->f, k->m, "cushim_cluster_rank"));
    assert_ok(cushim_stream_create(&k->s, ctx, CU_STREAM_NON_BLOCKING, 0));
}

static void kernel_close(kernel *k) {
    cushim_stream_release(k->s);
    cushim_module_release(k->m);
}

/* Launches cushim_cluster_rank on grid with this cluster and returns the launch's code; the
 * blocks' {rank, nrank} pairs are in out[0 .. 2 * blocks), UNWRITTEN where no block wrote. */
static CUresult run(const kernel *k, cushim_dim3 grid, cushim_dim3 cluster, unsigned *out) {
    size_t blocks = (size_t)grid.x * grid.y * grid.z;
    size_t bytes = blocks * 2 * sizeof(unsigned);
    CUdeviceptr d = 0;
    with_ctx(true);
    assert_ok(cushim_driver()->cuMemAlloc(&d, bytes));
    assert_ok(cushim_driver()->cuMemsetD8(d, 0xff, bytes));
    gpu_settle();
    with_ctx(false);
    void *params[] = {&d};
    cushim_launch_config cfg = {
        .grid = grid, .block = CUSHIM_DIM3(THREADS), .stream = k->s, .cluster = cluster};
    CUresult r = cushim_launch(k->f, &cfg, params);
    if (r != CUDA_SUCCESS) fprintf(stderr, "# %s\n", cushim_last_error());
    assert_ok(cushim_stream_synchronize(k->s));
    with_ctx(true);
    assert_ok(cushim_driver()->cuMemcpyDtoH(out, d, bytes));
    assert_ok(cushim_driver()->cuMemFree(d));
    with_ctx(false);
    return r;
}

/* Checks every block of a launch on grid with a cluster of (cx, cy, 1): each cluster's blocks
 * say the cluster's size, and their ranks are 0 .. size-1, each once; for a cluster along X
 * alone, a block's rank is its place in the cluster. */
static void check_ranks(const unsigned *out, cushim_dim3 grid, unsigned cx, unsigned cy) {
    unsigned size = cx * cy;
    for (unsigned by = 0; by < grid.y; by += cy) {
        for (unsigned bx = 0; bx < grid.x; bx += cx) {
            uint64_t seen = 0;
            for (unsigned y = by; y < by + cy; y++) {
                for (unsigned x = bx; x < bx + cx; x++) {
                    size_t b = (size_t)y * grid.x + x;
                    unsigned rank = out[2 * b], nrank = out[2 * b + 1];
                    if (nrank != size || rank >= size || (seen & (1ull << rank))) {
                        fail_msg("block (%u, %u): rank %u of %u in a cluster of %u (%u x %u)", x, y,
                                 rank, nrank, size, cx, cy);
                    }
                    if (cy == 1 && rank != x - bx) {
                        fail_msg("block %u: rank %u, not %u", x, rank, x - bx);
                    }
                    seen |= 1ull << rank;
                }
            }
            assert_int_equal(seen, (1ull << size) - 1);
        }
    }
}

static void test_clusters_of_2_and_4_and_2x2(void **state) {
    (void)state;
    if (!device_has_clusters()) skip();
    kernel k;
    kernel_open(&k);
    unsigned out[2 * 64];
    const struct {
        cushim_dim3 grid;
        unsigned cx, cy;
    } cases[] = {
        {CUSHIM_DIM3(16), 2, 1},
        {CUSHIM_DIM3(16), 4, 1},
        {CUSHIM_DIM3(8, 4), 2, 2},
        {CUSHIM_DIM3(64), 4, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cushim_dim3 g = cases[i].grid;
        assert_ok(run(&k, g, CUSHIM_DIM3(cases[i].cx, cases[i].cy), out));
        check_ranks(out, g, cases[i].cx, cases[i].cy);
        printf("# grid (%u, %u, %u) in clusters of (%u, %u, 1): every block's rank checked\n", g.x,
               g.y, g.z, cases[i].cx, cases[i].cy);
    }
    kernel_close(&k);
}

static void test_grid_not_a_multiple_is_refused_before_the_driver(void **state) {
    (void)state;
    if (!device_has_clusters()) skip();
    kernel k;
    kernel_open(&k);
    unsigned out[2 * 8];
    assert_cu(CUDA_ERROR_INVALID_VALUE, run(&k, CUSHIM_DIM3(5), CUSHIM_DIM3(2), out));
    if (strstr(cushim_last_error(), "grid (5, 1, 1) is not a multiple of cluster (2, 1, 1)") ==
        NULL) {
        fail_msg("%s", cushim_last_error());
    }
    /* No block ran. */
    for (int i = 0; i < 2 * 5; i++) assert_int_equal(out[i], UNWRITTEN);
    kernel_close(&k);
}

static void test_largest_cluster_launches_and_one_more_is_refused(void **state) {
    (void)state;
    if (!device_has_clusters()) skip();
    kernel k;
    kernel_open(&k);
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(THREADS)};
    int max = 0, active = 0;
    assert_ok(cushim_occupancy_max_potential_cluster_size(&max, k.f, &cfg));
    cfg.cluster = CUSHIM_DIM3((unsigned)max);
    cfg.grid = CUSHIM_DIM3((unsigned)max);
    assert_ok(cushim_occupancy_max_active_clusters(&active, k.f, &cfg));
    printf("# largest cluster of %d-thread blocks: %d (portable); %d such clusters at once\n",
           THREADS, max, active);
    assert_true(max >= 2 && max <= 32);
    assert_true(active > 0);

    /* Two clusters of up to 33 blocks, each block two words. */
    static unsigned out[2 * 2 * 33];
    assert_ok(run(&k, CUSHIM_DIM3(2 * (unsigned)max), CUSHIM_DIM3((unsigned)max), out));
    check_ranks(out, CUSHIM_DIM3(2 * (unsigned)max), (unsigned)max, 1);

    unsigned more = (unsigned)max + 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, run(&k, CUSHIM_DIM3(2 * more), CUSHIM_DIM3(more), out));
    char says[128];
    snprintf(says, sizeof says, "has %u blocks; kernel 'cushim_cluster_rank'", more);
    if (strstr(cushim_last_error(), says) == NULL) fail_msg("%s", cushim_last_error());
    for (unsigned i = 0; i < 2 * 2 * more; i++) assert_int_equal(out[i], UNWRITTEN);

    /* With non-portable sizes allowed, the driver may allow more; whatever it says launches. */
    with_ctx(true);
    assert_ok(cushim_driver()->cuFuncSetAttribute(
        cushim_function_raw(k.f), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    with_ctx(false);
    int nonportable = 0;
    cfg.cluster = CUSHIM_DIM3(1);
    assert_ok(cushim_occupancy_max_potential_cluster_size(&nonportable, k.f, &cfg));
    printf("# largest cluster with non-portable sizes allowed: %d\n", nonportable);
    assert_true(nonportable >= max && nonportable <= 32);
    unsigned n = (unsigned)nonportable;
    assert_ok(run(&k, CUSHIM_DIM3(2 * n), CUSHIM_DIM3(n), out));
    check_ranks(out, CUSHIM_DIM3(2 * n), n, 1);
    kernel_close(&k);
}

/* Priorities need no cluster: cushim_empty (empty.ptx) runs on any device. */
static void test_priorities_at_both_ends_of_the_range(void **state) {
    (void)state;
    char *ptx = read_ptx("empty.ptx");
    assert_non_null(ptx);
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    cushim_stream *s = NULL;
    assert_ok(cushim_module_load_data(&m, ctx, ptx));
    free(ptx);
    assert_ok(cushim_module_function(&f, m, "cushim_empty"));
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    int least = 0, greatest = 0;
    assert_ok(cushim_context_stream_priority_range(&least, &greatest, ctx));
    printf("# priority range: %d (highest) to %d (lowest)\n", greatest, least);

    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(4), .block = CUSHIM_DIM3(THREADS), .stream = s, .has_priority = true};
    const int ends[] = {greatest, least};
    for (int i = 0; i < 2; i++) {
        cfg.priority = ends[i];
        assert_ok(cushim_launch(f, &cfg, NULL));
        cfg.stream = NULL;
        assert_ok(cushim_launch(f, &cfg, NULL));
        cfg.stream = s;
    }
    /* Past either end: refused by cushim. */
    cfg.priority = least + 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(f, &cfg, NULL));
    fprintf(stderr, "# %s\n", cushim_last_error());
    cfg.priority = greatest - 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(f, &cfg, NULL));

    /* Programmatic stream serialization: two kernels in a row, both allowed to overlap. */
    cfg.has_priority = false;
    cfg.programmatic_serialization = true;
    assert_ok(cushim_launch(f, &cfg, NULL));
    assert_ok(cushim_launch(f, &cfg, NULL));
    assert_ok(cushim_stream_synchronize(s));
    assert_ok(cushim_context_synchronize(ctx));
    cushim_stream_release(s);
    cushim_module_release(m);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_clusters_of_2_and_4_and_2x2, gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_grid_not_a_multiple_is_refused_before_the_driver,
                                        gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_largest_cluster_launches_and_one_more_is_refused,
                                        gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_priorities_at_both_ends_of_the_range, gpu_setup,
                                        gpu_teardown),
    };
    return cmocka_run_group_tests_name("gpu clusters and priorities", tests, NULL, NULL);
}
