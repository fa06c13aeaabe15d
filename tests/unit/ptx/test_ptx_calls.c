/* Indirect calls and device-side malloc on the interpreter alone: PTX ISA "Control Flow
 * Instructions: call" (through a register holding a function's address, taken by mov, with a
 * .callprototype), and calls of the `.extern .func` malloc and free that nvcc declares (CUDA C++
 * Programming Guide, "Dynamic Global Memory Allocation and Operations") against the launch's
 * heap (lanes of a warp may call different functions: each group calls in turn, and they go
 * on together): allocations aligned, zeroed, kept across launches until freed, NULL when exhausted;
 * a free of what malloc did not return is a fault. */
#include "ptx_util.h"

#define FUNCS                                                                                      \
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"               \
    ".extern .func free(.param .b64 free_param_0);\n"                                              \
    ".func (.param .b32 func_retval0) add(.param .b32 a, .param .b32 b)\n{\n"                      \
    ".reg .b32 %r<4>; ld.param.u32 %r1, [a]; ld.param.u32 %r2, [b]; add.s32 %r3, %r1, %r2;\n"      \
    "st.param.b32 [func_retval0+0], %r3; ret;\n}\n"                                                \
    ".func (.param .b32 func_retval0) mul(.param .b32 a, .param .b32 b)\n{\n"                      \
    ".reg .b32 %r<4>; ld.param.u32 %r1, [a]; ld.param.u32 %r2, [b]; mul.lo.s32 %r3, %r1, %r2;\n"   \
    "st.param.b32 [func_retval0+0], %r3; ret;\n}\n"

/* Warp w calls add (even w) or mul (odd) of (tid, 3) through a register, as nvcc writes it. */
static const char indirect_ptx[] =
    HEAD FUNCS ".visible .entry k(.param .u64 out)\n{\n"
               ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p1;\n"
               "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 5;\n"
               "and.b32 %r2, %r2, 1; setp.eq.u32 %p1, %r2, 0;\n"
               "mov.u64 %rd2, add; mov.u64 %rd3, mul; selp.b64 %rd4, %rd2, %rd3, %p1;\n"
               "{ // callseq 0, 0\n"
               ".reg .b32 temp_param_reg;\n"
               ".param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
               ".param .b32 param1;\nst.param.b32 [param1+0], 3;\n"
               ".param .b32 retval0;\n"
               "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n"
               "call (retval0), \n%rd4, \n(\nparam0, \nparam1\n)\n, prototype_0;\n"
               "ld.param.b32 %r3, [retval0+0];\n"
               "} // callseq 0\n"
               "mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd1, %rd5; st.global.u32 [%rd6], %r3;\n"
               "ret;\n}\n";

static void test_indirect_call(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(128 * 4);
    void *p[] = {&out};
    if (run(indirect_ptx, "k", 1, 128, p) != CUDA_SUCCESS) fail_msg("%s", err);
    for (uint32_t t = 0; t < 128; t++) assert_int_equal(out[t], (t / 32) % 2 ? t * 3 : t + 3);
    dev_free_all();
}

/* The same with the target chosen per lane (three functions by tid % 3): the lanes of a warp
 * disagree, and each group calls its own. */
static const char divergent_ptx[] =
    HEAD FUNCS ".func (.param .b32 func_retval0) sub(.param .b32 a, .param .b32 b)\n{\n"
               ".reg .b32 %r<4>; ld.param.u32 %r1, [a]; ld.param.u32 %r2, [b];\n"
               "sub.s32 %r3, %r1, %r2; st.param.b32 [func_retval0+0], %r3; ret;\n}\n"
               ".visible .entry k(.param .u64 out)\n{\n"
               ".reg .b32 %r<8>; .reg .b64 %rd<9>; .reg .pred %p<3>;\n"
               "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; rem.u32 %r2, %r1, 3;\n"
               "setp.eq.u32 %p1, %r2, 0; setp.eq.u32 %p2, %r2, 1;\n"
               "mov.u64 %rd2, add; mov.u64 %rd3, mul; mov.u64 %rd7, sub;\n"
               "selp.b64 %rd4, %rd3, %rd7, %p2; selp.b64 %rd4, %rd2, %rd4, %p1;\n"
               "{ .param .b32 param0; st.param.b32 [param0+0], %r1;\n"
               ".param .b32 param1; st.param.b32 [param1+0], 3; .param .b32 retval0;\n"
               "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n"
               "call (retval0), %rd4, (param0, param1), prototype_0;\n"
               "ld.param.b32 %r3, [retval0+0];\n}\n"
               "mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd1, %rd5; st.global.u32 [%rd6], %r3;\n"
               "ret;\n}\n";

static void test_divergent_indirect_call(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(64 * 4);
    void *p[] = {&out};
    for (int threads = 0; threads <= 1; threads++) {
        if (run_ex(divergent_ptx, "k", 1, 64, p, threads, false, NULL) != CUDA_SUCCESS)
            fail_msg("%s", err);
        for (uint32_t t = 0; t < 64; t++) {
            uint32_t want = t % 3 == 0 ? t + 3 : t % 3 == 1 ? t * 3 : t - 3;
            assert_int_equal(out[t], want);
        }
    }
    dev_free_all();
}

/* A call through a register that holds no function's address. */
static const char wild_ptx[] =
    HEAD FUNCS ".visible .entry k()\n{\n"
               ".reg .b64 %rd<3>;\n"
               "mov.u64 %rd1, 4096;\n"
               "{ .param .b32 param0; st.param.b32 [param0+0], 1;\n"
               ".param .b32 param1; st.param.b32 [param1+0], 3; .param .b32 retval0;\n"
               "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n"
               "call (retval0), %rd1, (param0, param1), prototype_0;\n}\n"
               "ret;\n}\n";

static void test_indirect_call_refusals(void **state) {
    (void)state;
    assert_int_equal(run(wild_ptx, "k", 1, 1, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "not the address of a function");
}

/* Thread t mallocs 8 + t bytes, checks it zeroed and 16-byte aligned, writes t to it and keeps
 * the pointer in out[t]; `use` sums each thread's value back through the pointers and frees. */
static const char heap_ptx[] =
    HEAD FUNCS ".visible .entry keep(.param .u64 out)\n{\n"
               ".reg .b32 %r<8>; .reg .b64 %rd<12>; .reg .pred %p<3>;\n"
               "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; add.s32 %r2, %r1, 8;\n"
               "mov.u32 %r5, %ctaid.x; mov.u32 %r6, %ntid.x; mad.lo.u32 %r7, %r5, %r6, %r1;\n"
               "cvt.u64.u32 %rd2, %r2;\n"
               "{ .param .b64 param0; st.param.b64 [param0+0], %rd2; .param .b64 retval0;\n"
               "call.uni (retval0), malloc, (param0);\n"
               "ld.param.b64 %rd3, [retval0+0];\n}\n"
               "setp.eq.u64 %p1, %rd3, 0; @%p1 bra DONE;\n"
               "and.b64 %rd4, %rd3, 15; cvt.u32.u64 %r3, %rd4;\n"
               "ld.u32 %r4, [%rd3]; or.b32 %r3, %r3, %r4;\n"
               "st.u32 [%rd3], %r1; st.u32 [%rd3+4], %r3;\n"
               "DONE: mul.wide.u32 %rd5, %r7, 8; add.s64 %rd6, %rd1, %rd5; st.global.u64 [%rd6], "
               "%rd3;\n"
               "ret;\n}\n"
               ".visible .entry use(.param .u64 slots, .param .u64 out)\n{\n"
               ".reg .b32 %r<8>; .reg .b64 %rd<12>;\n"
               "ld.param.u64 %rd1, [slots]; ld.param.u64 %rd2, [out]; mov.u32 %r1, %tid.x;\n"
               "mul.wide.u32 %rd5, %r1, 8; add.s64 %rd6, %rd1, %rd5; ld.global.u64 %rd3, [%rd6];\n"
               "ld.u32 %r2, [%rd3]; ld.u32 %r3, [%rd3+4];\n"
               "mul.wide.u32 %rd7, %r1, 8; add.s64 %rd8, %rd2, %rd7; st.global.v2.u32 [%rd8], "
               "{%r2, %r3};\n"
               "{ .param .b64 param0; st.param.b64 [param0+0], %rd3;\n"
               "call.uni free, (param0);\n}\n"
               "ret;\n}\n";

static void test_malloc_free(void **state) {
    (void)state;
    /* 16 blocks on 4 host threads at once, each thread its own allocation: all distinct. */
    test_heap = mock__ptx_heap_new(1 << 20);
    uint64_t *many = dev_alloc(16 * 64 * 8);
    void *pm[] = {&many};
    if (run_ex(heap_ptx, "keep", 16, 64, pm, 4, false, NULL) != CUDA_SUCCESS) fail_msg("%s", err);
    for (int i = 0; i < 16 * 64; i++) {
        assert_true(many[i] != 0);
        for (int j = 0; j < i; j++) assert_true(many[i] != many[j]);
    }
    mock__ptx_heap_delete(test_heap);
    test_heap = mock__ptx_heap_new(1 << 16);
    assert_non_null(test_heap);
    uint64_t *slots = dev_alloc(64 * 8);
    uint32_t *out = dev_alloc(64 * 8);
    void *pk[] = {&slots}, *pu[] = {&slots, &out};
    for (int round = 0; round < 3; round++) { /* freed memory is used again */
        if (run(heap_ptx, "keep", 1, 64, pk) != CUDA_SUCCESS) fail_msg("%s", err);
        for (int t = 0; t < 64; t++) assert_true(slots[t] != 0);
        if (run(heap_ptx, "use", 1, 64, pu) != CUDA_SUCCESS) fail_msg("%s", err);
        for (uint32_t t = 0; t < 64; t++) {
            assert_int_equal(out[2 * t], t);
            assert_int_equal(out[2 * t + 1], 0); /* aligned, and zeroed before */
        }
    }
    /* A free of the same pointers again: not something malloc returned (and not freed since). */
    assert_int_equal(run(heap_ptx, "use", 1, 1, pu), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "not a pointer that device malloc returned");
    mock__ptx_heap_delete(test_heap);
    /* A heap too small for everyone: the last threads get NULL, as on the GPU. */
    test_heap = mock__ptx_heap_new(256);
    assert_int_equal(mock__ptx_heap_size(test_heap), 256);
    if (run(heap_ptx, "keep", 1, 64, pk) != CUDA_SUCCESS) fail_msg("%s", err);
    int nulls = 0;
    for (int t = 0; t < 64; t++) nulls += slots[t] == 0;
    assert_true(nulls > 50);
    mock__ptx_heap_delete(test_heap);
    /* No heap at all: malloc returns NULL. */
    test_heap = NULL;
    if (run(heap_ptx, "keep", 1, 4, pk) != CUDA_SUCCESS) fail_msg("%s", err);
    for (int t = 0; t < 4; t++) assert_true(slots[t] == 0);
    dev_free_all();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indirect_call),
        cmocka_unit_test(test_divergent_indirect_call),
        cmocka_unit_test(test_indirect_call_refusals),
        cmocka_unit_test(test_malloc_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
