/* Faults stay loud: an access past an allocation, a misaligned one, trap, a barrier that can
 * never complete, an endless spin, an unsupported instruction and text that is not PTX each
 * fail with their code and a sentence naming what and where. */
#include "ptx_util.h"

static const char oob_ptx[] = HEAD ".visible .entry k(.param .u64 out)\n{\n"
                                   ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
                                   "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
                                   "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
                                   "st.global.u32 [%rd3], %r1;\n" /* line 9 */
                                   "ret;\n}\n";

static void test_out_of_bounds_names_block_thread_line_allocation(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(10 * 4);
    void *p[] = {&out};
    assert_int_equal(run(oob_ptx, "k", 1, 32, p), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "kernel k");
    assert_has(err, "block (0,0,0)");
    assert_has(err, "thread (10,0,0)");
    assert_has(err, "PTX line 9");
    assert_has(err, "past the end of the 40-byte allocation");
    dev_free_all();
}

static void test_misaligned(void **state) {
    (void)state;
    unsigned char *out = dev_alloc(64);
    unsigned char *odd = out + 2;
    void *p[] = {&odd};
    assert_int_equal(run(oob_ptx, "k", 1, 1, p), CUDA_ERROR_MISALIGNED_ADDRESS);
    assert_has(err, "not aligned to 4 bytes");
    dev_free_all();
}

static const char trap_ptx[] = HEAD ".visible .entry k()\n{\n"
                                    ".reg .b32 %r1; .reg .pred %p1;\n"
                                    "mov.u32 %r1, %tid.x; setp.eq.u32 %p1, %r1, 5;\n"
                                    "@%p1 trap;\nret;\n}\n";

static void test_trap(void **state) {
    (void)state;
    assert_int_equal(run(trap_ptx, "k", 2, 8, NULL), CUDA_ERROR_LAUNCH_FAILED);
    assert_has(err, "thread (5,0,0)");
    assert_has(err, "trap");
    assert_has(err, "PTX line 8");
}

/* Half the block waits at barrier 0, half at barrier 1: neither can complete. */
static const char deadlock_ptx[] = HEAD ".visible .entry k()\n{\n"
                                        ".reg .b32 %r<3>; .reg .pred %p1;\n"
                                        "mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 1;\n"
                                        "setp.eq.u32 %p1, %r2, 0;\n"
                                        "@%p1 bar.sync 0, 64;\n"
                                        "@!%p1 bar.sync 1, 64;\n"
                                        "ret;\n}\n";

static void test_deadlock(void **state) {
    (void)state;
    assert_int_equal(run(deadlock_ptx, "k", 1, 64, NULL), CUDA_ERROR_LAUNCH_FAILED);
    assert_has(err, "deadlock");
}

static const char spin_ptx[] = HEAD ".visible .entry k()\n{\n"
                                    "L: bra L;\n}\n";

static void test_endless_spin_is_reported(void **state) {
    (void)state;
    setenv("CUSHIM_MOCK_PTX_STEPS", "1000000", 1);
    assert_int_equal(run(spin_ptx, "k", 1, 1, NULL), CUDA_ERROR_LAUNCH_TIMEOUT);
    unsetenv("CUSHIM_MOCK_PTX_STEPS");
    assert_has(err, "more than 1000000 instructions");
}

static const char unsupported_ptx[] =
    HEAD ".visible .entry k(.param .u64 t)\n{\n"
         ".reg .f32 %f<5>; .reg .b64 %rd1;\n"
         "ld.param.u64 %rd1, [t];\n"
         "tex.grad.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}], "
         "{%f1, %f2, %f3, %f4}, {%f1, %f2, %f3, %f4};\n"
         "ret;\n}\n";

static void test_unsupported_instruction_is_refused_with_its_line(void **state) {
    (void)state;
    mock_ptx_module *m = NULL;
    assert_ok(mock__ptx_parse(&m, unsupported_ptx, strlen(unsupported_ptx), err, sizeof err));
    const mock_ptx_kernel *k = mock__ptx_kernel(m, "k");
    assert_non_null(k);
    assert_false(mock__ptx_prepare(k, err, sizeof err));
    assert_has(err, "PTX line 8");
    assert_has(err, "instruction 'tex.grad.3d.v4.f32.f32'");
    assert_has(err, "tex.grad of .3d, .cube or .acube is not supported");
    uint64_t t = 0;
    void *p[] = {&t};
    mock_ptx_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .params = p, .check = check};
    assert_int_equal(mock__ptx_run(k, &l, err, sizeof err), CUDA_ERROR_NOT_SUPPORTED);
    assert_has(err, "PTX line 8");
    mock__ptx_free(m);
}

static void test_text_that_is_not_ptx_is_refused(void **state) {
    (void)state;
    static const char *const bad[] = {
        HEAD "garbage here",
        HEAD ".visible .entry k(\n",
        HEAD ".visible .entry k() {\n",
        HEAD ".global .u32 x[4] = {1, 2, 3, 4, 5};\n",
        HEAD ".bogus_directive 5;\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mock_ptx_module *m = NULL;
        err[0] = 0;
        assert_int_equal(mock__ptx_parse(&m, bad[i], strlen(bad[i]), err, sizeof err),
                         CUDA_ERROR_INVALID_PTX);
        assert_null(m);
        assert_has(err, "PTX line");
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_of_bounds_names_block_thread_line_allocation),
        cmocka_unit_test(test_misaligned),
        cmocka_unit_test(test_trap),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_endless_spin_is_reported),
        cmocka_unit_test(test_unsupported_instruction_is_refused_with_its_line),
        cmocka_unit_test(test_text_that_is_not_ptx_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
