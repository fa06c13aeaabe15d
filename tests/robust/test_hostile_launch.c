/* Hostile input to the launch and occupancy: zero and huge sizes, streams of the wrong kind or
 * context, bad block sizes. */
#include "hostile.h"

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
    {"all UINT_MAX", {UINT_MAX, UINT_MAX, UINT_MAX}, {UINT_MAX, UINT_MAX, UINT_MAX}, 0, "threads"},
    /* Each axis within its limit, the product not. */
    {"block 1024 x 1024 x 64", {1, 1, 1}, {1024, 1024, 64}, 0, "threads"},
    /* 2^64 threads: a 64-bit product would wrap to 0; the count must be said to be too many. */
    {"block 2^22 x 2^21 x 2^21",
     {1, 1, 1},
     {1u << 22, 1u << 21, 1u << 21},
     0,
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
                cushim_launch_config cfg = {.grid = c->grid,
                                            .block = c->block,
                                            .shared_mem_bytes = c->smem,
                                            .stream = s ? fx.stream : NULL};
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
                cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                            .block = CUSHIM_DIM3(32),
                                            .shared_mem_bytes = smems[i],
                                            .stream = s ? fx.stream : NULL};
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
            cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                        .block = CUSHIM_DIM3(32),
                                        .shared_mem_bytes = 0,
                                        .stream = st};
            snapshot before = start();
            check_refusal(label, launchers[l].name, CUDA_ERROR_INVALID_HANDLE,
                          launchers[l].call(fx.fn, &cfg, NULL), &before, BEFORE_DRIVER);
        }
    }
    /* The largest grid the per-axis limits allow: about 2^63 blocks, which must not overflow
     * on the way to "does not fit at once". */
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(INT_MAX, 65535, 65535),
                                .block = CUSHIM_DIM3(32),
                                .shared_mem_bytes = 0,
                                .stream = NULL};
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
                      cushim_occupancy_max_potential_block_size(&grid, &block, fx.fn, 0, limits[i]),
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

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_TEST(test_launch_refuses_zero_and_huge_sizes),
        HOSTILE_TEST(test_occupancy_refuses_bad_block_sizes),
        HOSTILE_TEST(test_everything_works_after_the_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
