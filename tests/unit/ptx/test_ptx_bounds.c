/* What a buggy kernel does to the test process: never a crash or a hang. Addresses whose range
 * wraps past 2^64 (nvcc's p[n - 1] with p == NULL and n == 0) in every state space and a
 * negative parameter offset fault with CUDA_ERROR_ILLEGAL_ADDRESS; endless recursion runs out of
 * stack with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES; an endless loop or an endless run of barriers
 * in a block of 1024 threads ends in seconds with CUDA_ERROR_LAUNCH_TIMEOUT naming its kernel,
 * block, thread and line; a cooperative deadlock names the block that waits; one host thread
 * gives the same results and messages on every run, and a seeded random schedule changes the
 * order of warps the same way each time (the kernel suite's reduction too: its sum, and the
 * message of its fault when it reads past its input, the same twice in turn and twice with one
 * seed); lanes of one warp that wait on each other across a
 * branch (a spin in one, the store it waits for in the other) finish; a whole warp's consecutive
 * words are read and written to the last byte of their space, and past it fault (the message
 * says "an 8-byte read"). */
#include <time.h>

#include "ptx_util.h"

/* p[n - 1] for p = NULL, n = 0, as nvcc computes it: the address 2^64 - 4. */
#define WRAP(space)                                                                                \
    HEAD ".visible .entry k()\n{\n"                                                                \
         ".reg .b32 %r<3>; .reg .b64 %rd<4>;\n"                                                    \
         "mov.u64 %rd1, 0; mov.u32 %r1, 0; add.s32 %r2, %r1, -1;\n"                                \
         "mul.wide.s32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;\n"                                  \
         "ld" space ".u32 %r1, [%rd3];\n"                                                          \
         "ret;\n}\n"

static void test_wrapping_addresses_fault(void **state) {
    (void)state;
    static const char *const text[] = {WRAP(""), WRAP(".global"), WRAP(".shared"), WRAP(".local"),
                                       WRAP(".param")};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        assert_int_equal(run(text[i], "k", 1, 32, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
        assert_has(err, "PTX line 9");
        assert_has(err, "a 4-byte read");
        assert_has(err, i == 4 ? "parameter offset -4" : "0xfffffffffffffffc");
    }
}

static const char wrap_atom_ptx[] = HEAD ".visible .entry k()\n{\n"
                                         ".reg .b32 %r1; .reg .b64 %rd1;\n"
                                         "mov.u64 %rd1, -4;\n"
                                         "atom.global.add.u32 %r1, [%rd1], 1;\n"
                                         "st.global.u32 [%rd1], %r1;\n"
                                         "ret;\n}\n";

static void test_wrapping_atomic_faults(void **state) {
    (void)state;
    assert_int_equal(run(wrap_atom_ptx, "k", 1, 1, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "PTX line 8");
}

/* The 16 bytes before the parameter buffer, as an aligned 16-byte vector at offset -16: a range
 * whose end, computed as offset + size, wraps to 0. */
static const char param_neg_ptx[] = HEAD ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n"
                                         ".reg .b64 %rd<6>;\n"
                                         "mov.u64 %rd1, -16;\n"
                                         "ld.param.v2.u64 {%rd2, %rd3}, [%rd1];\n"
                                         "ld.param.u64 %rd4, [out];\n"
                                         "st.global.u64 [%rd4], %rd2;\n"
                                         "ret;\n}\n";

static void test_negative_param_offset_faults(void **state) {
    (void)state;
    uint64_t *out = dev_alloc(8), a = 1;
    void *p[] = {&a, &out};
    assert_int_equal(run(param_neg_ptx, "k", 1, 1, p), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "parameter offset -16");
    dev_free_all();
}

static const char recurse_ptx[] = HEAD ".func f()\n{\ncall f, ();\nret;\n}\n"
                                       ".visible .entry k()\n{\ncall f, ();\nret;\n}\n";

static void test_endless_recursion_runs_out_of_stack(void **state) {
    (void)state;
    assert_int_equal(run(recurse_ptx, "k", 1, 32, NULL), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    assert_has(err, "overflows the thread's");
}

static const char spin_ptx[] = HEAD ".visible .entry spin()\n{\n"
                                    "L: bra L;\n}\n";
static const char bars_ptx[] = HEAD ".visible .entry bars()\n{\n"
                                    "L: bar.sync 0;\n"
                                    "bra L;\n}\n";

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_endless_block_times_out(void **state) {
    (void)state;
    setenv("CUSHIM_MOCK_TIMEOUT_S", "1", 1);
    double t0 = seconds();
    assert_int_equal(run(spin_ptx, "spin", 2, 1024, NULL), CUDA_ERROR_LAUNCH_TIMEOUT);
    assert_has(err, "kernel spin, block (");
    assert_has(err, "thread (");
    assert_has(err, "PTX line 6");
    assert_has(err, "CUSHIM_MOCK_TIMEOUT_S");
    assert_int_equal(run(bars_ptx, "bars", 1, 1024, NULL), CUDA_ERROR_LAUNCH_TIMEOUT);
    assert_has(err, "kernel bars, block (0,0,0), thread (");
    double t = seconds() - t0;
    unsetenv("CUSHIM_MOCK_TIMEOUT_S");
    assert_true(t < 10.0);
}

/* Block 1 of 2 waits at a barrier for 64 threads that never come: it is the block named. */
static const char coop_dead_ptx[] = HEAD ".visible .entry k()\n{\n"
                                         ".reg .b32 %r<3>; .reg .pred %p1;\n"
                                         "mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;\n"
                                         "setp.eq.u32 %p1, %r1, 1;\n"
                                         "@%p1 bar.sync 1, 128;\n"
                                         "ret;\n}\n";

static void test_cooperative_deadlock_names_its_block(void **state) {
    (void)state;
    assert_int_equal(run_ex(coop_dead_ptx, "k", 2, 64, NULL, 1, true, NULL),
                     CUDA_ERROR_LAUNCH_FAILED);
    assert_has(err, "block (1,0,0), thread (0,0,0), PTX line 9");
    assert_has(err, "deadlock");
}

/* Each warp's lane 0 takes a ticket: the order the warps ran in. Then thread 37 faults. */
static const char ticket_ptx[] =
    HEAD ".visible .entry k(.param .u64 c, .param .u64 out, .param .u32 bad)\n{\n"
         ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<3>;\n"
         "ld.param.u64 %rd1, [c]; ld.param.u64 %rd2, [out]; ld.param.u32 %r7, [bad];\n"
         "mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 31; setp.ne.u32 %p1, %r2, 0;\n"
         "@%p1 bra SKIP;\n"
         "atom.global.add.u32 %r3, [%rd1], 1;\n"
         "shr.u32 %r4, %r1, 5; mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3;\n"
         "st.global.u32 [%rd4], %r3;\n"
         "SKIP: setp.eq.u32 %p2, %r1, %r7; @!%p2 bra END;\n"
         "mov.u64 %rd5, 16; ld.global.u32 %r5, [%rd5];\n"
         "END: ret;\n}\n";

static void tickets(const char *schedule, uint32_t bad, uint32_t out[8], char msg[1024]) {
    if (schedule != NULL)
        setenv("CUSHIM_MOCK_SCHEDULE", schedule, 1);
    else
        unsetenv("CUSHIM_MOCK_SCHEDULE");
    uint32_t *c = dev_alloc(4), *o = dev_alloc(32);
    void *p[] = {&c, &o, &bad};
    CUresult r = run_ex(ticket_ptx, "k", 1, 256, p, 1, false, NULL);
    assert_int_equal(r, bad < 256 ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS);
    memcpy(out, o, 32);
    snprintf(msg, 1024, "%s", r == CUDA_SUCCESS ? "" : err);
    dev_free_all();
    unsetenv("CUSHIM_MOCK_SCHEDULE");
}

static void test_one_host_thread_is_deterministic(void **state) {
    (void)state;
    uint32_t a[8], b[8];
    char ma[1024], mb[1024];
    tickets(NULL, 37, a, ma);
    tickets(NULL, 37, b, mb);
    assert_memory_equal(a, b, sizeof a);
    assert_string_equal(ma, mb);
    assert_has(ma, "thread (37,0,0), PTX line 14");
    /* Warps in turn: the fault in warp 1 ends the launch before warp 2 runs. */
    for (uint32_t w = 0; w < 8; w++) assert_int_equal(a[w], w < 2 ? w : 0);
    /* A device printf, twice: the same bytes. */
    static const char print_ptx[] =
        HEAD ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
             ".global .align 1 .b8 fmt[7] = {37, 117, 32, 37, 117, 10, 0};\n"
             ".visible .entry k()\n{\n"
             ".local .align 8 .b8 buf[8]; .reg .b32 %r<4>; .reg .b64 %rd<5>;\n"
             "mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;\n"
             "mov.u64 %rd1, buf; cvta.local.u64 %rd2, %rd1; st.local.v2.u32 [%rd1], {%r2, %r1};\n"
             "mov.u64 %rd3, fmt;\n"
             "{ .param .b64 p0; st.param.b64 [p0], %rd3; .param .b64 p1; st.param.b64 [p1], %rd2;\n"
             ".param .b32 r; call (r), vprintf, (p0, p1); }\n"
             "ret;\n}\n";
    char *text[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        size_t len = 0;
        FILE *f = open_memstream(&text[i], &len);
        assert_non_null(f);
        assert_ok(run_ex(print_ptx, "k", 4, 64, NULL, 1, false, f));
        fclose(f);
    }
    assert_string_equal(text[0], text[1]);
    assert_has(text[0], "3 63\n");
    free(text[0]);
    free(text[1]);
}

static void test_random_schedule_is_seeded(void **state) {
    (void)state;
    uint32_t a[8], b[8], c[8];
    char ma[1024], mb[1024];
    tickets("random:7", 300, a, ma);
    tickets("random:7", 300, b, mb);
    assert_memory_equal(a, b, sizeof a);
    bool differs = false;
    for (uint32_t seed = 1; seed < 4 && !differs; seed++) {
        char s[32];
        snprintf(s, sizeof s, "random:%u", seed);
        tickets(s, 300, c, mb);
        for (uint32_t w = 0; w < 8; w++) differs |= c[w] != w;
    }
    assert_true(differs);
    uint32_t seen = 0; /* still a permutation: every warp got one ticket */
    for (uint32_t w = 0; w < 8; w++) seen |= 1u << a[w];
    assert_int_equal(seen, 0xff);
}

/* Lane 0 spins on a shared flag that the other lanes of its warp set in the other branch, which
 * comes later in the code: the spinning path must hand over (independent thread scheduling). */
static const char its_ptx[] = HEAD ".shared .align 4 .u32 flag;\n"
                                   ".visible .entry k(.param .u64 out)\n{\n"
                                   ".reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<3>;\n"
                                   "mov.u32 %r1, %tid.x; setp.ne.u32 %p1, %r1, 0;\n"
                                   "@%p1 bra SETTER;\n"
                                   "SPIN: ld.volatile.shared.u32 %r2, [flag];\n"
                                   "setp.eq.u32 %p2, %r2, 0; @%p2 bra SPIN;\n"
                                   "bra DONE;\n"
                                   "SETTER: st.volatile.shared.u32 [flag], 7;\n"
                                   "ld.volatile.shared.u32 %r2, [flag];\n"
                                   "DONE: ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 4;\n"
                                   "add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2;\n"
                                   "ret;\n}\n";

static void test_lanes_waiting_across_a_branch_finish(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(32 * 4);
    void *p[] = {&out};
    assert_ok(run_ex(its_ptx, "k", 1, 32, p, 1, false, NULL));
    for (int i = 0; i < 32; i++) assert_int_equal(out[i], 7);
    dev_free_all();
}

/* The kernel suite's reduction (ptx/kernels/reduce.ptx): k_reduce(in, n, total). */
static char *reduce_ptx(void) {
    FILE *f = fopen(PTX_DIR "/../../../ptx/kernels/reduce.ptx", "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(n > 0 && n < sizeof text - 1);
    text[n] = 0;
    return text;
}

/* The reduction of the 5000 ints at in over one host thread, with `schedule`; n past the
 * input's end makes it fault. The total (or -1) and the message (or ""); the same memory each
 * time, since the message names the address. */
static int reduce_once(const char *schedule, int *in, int *total, int n, char msg[1024]) {
    *total = 0;
    if (schedule != NULL) setenv("CUSHIM_MOCK_SCHEDULE", schedule, 1);
    void *p[] = {&in, &n, &total};
    CUresult r =
        run_ex(reduce_ptx(), "k_reduce", (unsigned)(n + 255) / 256, 256, p, 1, false, NULL);
    unsetenv("CUSHIM_MOCK_SCHEDULE");
    assert_int_equal(r, n > 5000 ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS);
    snprintf(msg, 1024, "%s", r == CUDA_SUCCESS ? "" : err);
    return r == CUDA_SUCCESS ? *total : -1;
}

static void test_kernel_suite_reduction_is_deterministic(void **state) {
    (void)state;
    int want = 0, *in = dev_alloc(5000 * sizeof *in), *total = dev_alloc(sizeof *total);
    for (int i = 0; i < 5000; i++) want += in[i] = (i * 7919) % 2001 - 1000;
    const char *const schedules[] = {NULL, "random:5"};
    for (int s = 0; s < 2; s++) {
        char a[1024], b[1024];
        assert_int_equal(reduce_once(schedules[s], in, total, 5000, a), want);
        assert_int_equal(reduce_once(schedules[s], in, total, 5000, b), want);
        /* Past the end of the input's allocation: the same fault, named the same way. */
        assert_int_equal(reduce_once(schedules[s], in, total, 5000 + 600, a), -1);
        assert_int_equal(reduce_once(schedules[s], in, total, 5000 + 600, b), -1);
        assert_string_equal(a, b);
        assert_has(a, "k_reduce");
        assert_has(a, "PTX line");
    }
    dev_free_all();
}

/* A whole warp's consecutive words (a coalesced access, which the interpreter copies as a
 * block): 32-bit and 64-bit, global and shared, up to the last byte of their space. */
#define COALESCED(shared_bytes)                                                                    \
    HEAD ".visible .entry k(.param .u64 in, .param .u64 out, .param .u64 win, .param .u64 wout)\n" \
         "{\n"                                                                                     \
         ".reg .b32 %r<8>; .reg .b64 %rd<12>;\n"                                                   \
         ".shared .align 8 .b8 sh[" shared_bytes "];\n"                                            \
         "ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"                                    \
         "ld.param.u64 %rd3, [win]; ld.param.u64 %rd4, [wout];\n"                                  \
         "mov.u32 %r1, %tid.x;\n"                                                                  \
         "mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5;\n"        \
         "ld.global.s32 %r2, [%rd6];\n"                                                            \
         "mov.u32 %r3, sh; shl.b32 %r4, %r1, 2; add.s32 %r5, %r3, %r4;\n"                          \
         "st.shared.u32 [%r5], %r2;\n" /* line 14 */                                               \
         "bar.sync 0;\n"                                                                           \
         "ld.shared.u32 %r6, [%r5]; add.s32 %r7, %r6, 1;\n"                                        \
         "st.global.u32 [%rd7], %r7;\n"                                                            \
         "mul.wide.u32 %rd8, %r1, 8; add.s64 %rd9, %rd3, %rd8; add.s64 %rd10, %rd4, %rd8;\n"       \
         "ld.global.u64 %rd11, [%rd9];\n" /* line 19 */                                            \
         "st.global.u64 [%rd10], %rd11;\n"                                                         \
         "ret;\n}\n"

static void test_coalesced_warp_access_to_the_last_byte(void **state) {
    (void)state;
    int32_t *in = dev_alloc(32 * 4), *out = dev_alloc(32 * 4);
    uint64_t *win = dev_alloc(32 * 8), *wout = dev_alloc(32 * 8);
    for (int i = 0; i < 32; i++) {
        in[i] = -1000 * (i + 1);
        win[i] = (uint64_t)(i + 1) << 40 | (uint64_t)i;
    }
    void *p[] = {&in, &out, &win, &wout};
    assert_ok(run(COALESCED("128"), "k", 1, 32, p));
    for (int i = 0; i < 32; i++) {
        assert_int_equal(out[i], -1000 * (i + 1) + 1);
        assert_true(wout[i] == win[i]);
    }
    /* Half the shared array (the first lane past it faults), one word short of the 64-bit
     * input (the last lane faults). */
    assert_int_equal(run(COALESCED("64"), "k", 1, 32, p), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "thread (16,0,0)");
    assert_has(err, "PTX line 14");
    uint64_t *short_win = dev_alloc(31 * 8);
    void *q[] = {&in, &out, &short_win, &wout};
    assert_int_equal(run(COALESCED("128"), "k", 1, 32, q), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "thread (31,0,0)");
    assert_has(err, "PTX line 19");
    assert_has(err, "an 8-byte read");
    dev_free_all();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrapping_addresses_fault),
        cmocka_unit_test(test_wrapping_atomic_faults),
        cmocka_unit_test(test_negative_param_offset_faults),
        cmocka_unit_test(test_endless_recursion_runs_out_of_stack),
        cmocka_unit_test(test_endless_block_times_out),
        cmocka_unit_test(test_cooperative_deadlock_names_its_block),
        cmocka_unit_test(test_one_host_thread_is_deterministic),
        cmocka_unit_test(test_random_schedule_is_seeded),
        cmocka_unit_test(test_kernel_suite_reduction_is_deterministic),
        cmocka_unit_test(test_lanes_waiting_across_a_branch_finish),
        cmocka_unit_test(test_coalesced_warp_access_to_the_last_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
