/* cp.async and mbarrier on the interpreter alone: PTX ISA 9.7.9.25 "cp.async" (cp-size 4, 8, 16
 * with src-size and ignore-src zero fill; commit_group and wait_group), 9.7.9.25.4 "cp.async.bulk"
 * (completing transaction bytes on an mbarrier), 9.7.13.15 "mbarrier" (init, arrive with a state
 * and a count, arrive_drop, expect_tx, test_wait / try_wait with a state and with .parity,
 * pending_count, inval; cp.async.mbarrier.arrive.noinc). */
#include "ptx_util.h"

/* Thread t copies 16 bytes of in[t] to shared with cp.async.cg and a src-size of t % 17 bytes
 * (the rest zero), 8 bytes with .ca, 4 bytes with .ca, then reads them back to out. */
static const char copy_ptx[] = HEAD ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                                    ".shared .align 16 .b8 sm[2048];\n"
                                    ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p1;\n"
                                    "ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
                                    "mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 16;\n"
                                    "add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
                                    "shl.b32 %r2, %r1, 4; mov.u32 %r3, sm; add.s32 %r4, %r3, %r2;\n"
                                    "rem.u32 %r5, %r1, 17;\n"
                                    "cp.async.cg.shared.global [%r4], [%rd4], 16, %r5;\n"
                                    "cp.async.commit_group;\n"
                                    "cp.async.ca.shared.global [%r4+1024], [%rd4], 8;\n"
                                    "cp.async.ca.shared::cta.global [%r4+1032], [%rd4+8], 4;\n"
                                    "setp.lt.u32 %p1, %r1, 8;\n"
                                    "cp.async.ca.shared.global [%r4+1036], [%rd4+12], 4, %p1;\n"
                                    "cp.async.commit_group;\n"
                                    "cp.async.wait_group 1;\n"
                                    "cp.async.wait_all;\n"
                                    "ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];\n"
                                    "st.global.v4.u32 [%rd5], {%r6, %r7, %r8, %r9};\n"
                                    "ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4+1024];\n"
                                    "st.global.v4.u32 [%rd5+512], {%r6, %r7, %r8, %r9};\n"
                                    "ret;\n}\n";

static void test_cp_async_sizes_and_zero_fill(void **state) {
    (void)state;
    unsigned char *in = dev_alloc(512), *out = dev_alloc(1024);
    for (int i = 0; i < 512; i++) in[i] = (unsigned char)(i * 7 + 1);
    void *p[] = {&in, &out};
    CUresult r0 = run(copy_ptx, "k", 1, 32, p);
    if (r0 != CUDA_SUCCESS) fail_msg("%s", err);
    for (int t = 0; t < 32; t++) {
        for (int i = 0; i < 16; i++) {
            unsigned char want = i < t % 17 ? in[t * 16 + i] : 0;
            if (out[t * 16 + i] != want)
                fail_msg("t %d i %d: %d, not %d", t, i, out[t * 16 + i], want);
        }
        assert_memory_equal(out + 512 + t * 16, in + t * 16, 12);
        /* ignore-src true for threads 0-7: zeros */
        uint32_t last;
        memcpy(&last, out + 512 + t * 16 + 12, 4);
        uint32_t want;
        memcpy(&want, in + t * 16 + 12, 4);
        assert_int_equal(last, t < 8 ? 0 : want);
    }
    dev_free_all();
}

static const char misaligned_ptx[] = HEAD ".visible .entry k(.param .u64 in)\n{\n"
                                          ".shared .align 16 .b8 sm[64];\n"
                                          ".reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                                          "ld.param.u64 %rd1, [in]; mov.u32 %r1, sm;\n"
                                          "cp.async.cg.shared.global [%r1+8], [%rd1], 16;\n"
                                          "ret;\n}\n";

static const char toolong_ptx[] = HEAD ".visible .entry k(.param .u64 in)\n{\n"
                                       ".shared .align 16 .b8 sm[64];\n"
                                       ".reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                                       "ld.param.u64 %rd1, [in]; mov.u32 %r1, sm;\n"
                                       "cp.async.cg.shared.global [%r1], [%rd1], 16, 17;\n"
                                       "ret;\n}\n";

static const char badsize_ptx[] = HEAD ".visible .entry k(.param .u64 in)\n{\n"
                                       ".shared .align 16 .b8 sm[64];\n"
                                       ".reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                                       "ld.param.u64 %rd1, [in]; mov.u32 %r1, sm;\n"
                                       "cp.async.ca.shared.global [%r1], [%rd1], 12;\n"
                                       "ret;\n}\n";

static void test_cp_async_refusals(void **state) {
    (void)state;
    unsigned char *in = dev_alloc(64);
    void *p[] = {&in};
    assert_int_equal(run(misaligned_ptx, "k", 1, 1, p), CUDA_ERROR_MISALIGNED_ADDRESS);
    assert_has(err, "not aligned to 16 bytes");
    assert_int_equal(run(toolong_ptx, "k", 1, 1, p), CUDA_ERROR_ILLEGAL_INSTRUCTION);
    assert_has(err, "src-size of 17");
    assert_int_not_equal(run(badsize_ptx, "k", 1, 1, p), CUDA_SUCCESS);
    assert_has(err, "not 4, 8 or 16");
    dev_free_all();
}

/* Every thread of the block arrives on one mbarrier (count: the block) and spins in try_wait on
 * its state, ITER times; thread t adds t to a shared sum before it arrives, and after the wait
 * every thread must see the whole sum of the phase. Then the same with .parity. */
#define BARRIER(wait, token)                                                                       \
    HEAD ".visible .entry k(.param .u64 out)\n{\n"                                                 \
         ".shared .align 8 .b64 bar; .shared .align 4 .b32 sum[64];\n"                             \
         ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"                                 \
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n"                  \
         "mov.u32 %r3, bar; mov.u32 %r4, sum; mov.u32 %r10, 0;\n"                                  \
         "setp.ne.u32 %p1, %r1, 0;\n"                                                              \
         "@!%p1 mbarrier.init.shared::cta.b64 [%r3], %r2;\n"                                       \
         "bar.sync 0;\n"                                                                           \
         "mov.u32 %r5, 0; mov.u32 %r11, 0;\n"                                                      \
         "LOOP:\n"                                                                                 \
         "shl.b32 %r6, %r5, 2; add.s32 %r6, %r4, %r6;\n"                                           \
         "atom.shared.add.u32 %r7, [%r6], %r1;\n"                                                  \
         "mbarrier.arrive.shared.b64 %rd2, [%r3];\n"                                               \
         "WAIT:\n" wait "@!%p2 bra WAIT;\n"                                                        \
         "ld.shared.u32 %r8, [%r6]; add.s32 %r10, %r10, %r8;\n"                                    \
         "xor.b32 %r11, %r11, 1;\n"                                                                \
         "add.s32 %r5, %r5, 1; setp.lt.u32 %p3, %r5, 64; @%p3 bra LOOP;\n"                         \
         "mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; st.global.u32 [%rd4], %r10;\n"      \
         "mbarrier.pending_count.b64 %r9, %rd2; st.global.u32 [%rd4+512], %r9;\n"                  \
         "ret;\n}\n"

static const char state_ptx[] = BARRIER("mbarrier.try_wait.shared::cta.b64 %p2, [%r3], %rd2;\n", );
static const char parity_ptx[] =
    BARRIER("mbarrier.test_wait.parity.shared.b64 %p2, [%r3], %r11;\n", );

static void test_mbarrier_phases(void **state) {
    (void)state;
    const char *text[] = {state_ptx, parity_ptx};
    for (int i = 0; i < 2; i++) {
        uint32_t *out = dev_alloc(1024);
        void *p[] = {&out};
        assert_ok(run(text[i], "k", 1, 96, p));
        for (int t = 0; t < 96; t++) {
            assert_int_equal(out[t], 64 * (95 * 96 / 2));
            assert_true(out[128 + t] >= 1 && out[128 + t] <= 96); /* pending when it arrived */
        }
        dev_free_all();
    }
}

/* cp.async.bulk completes its bytes on the mbarrier before expect_tx announces them (the mock
 * copies at issue): the phase completes only when the arrivals and the bytes are both done. */
static const char bulk_ptx[] =
    HEAD ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
         ".shared .align 8 .b64 bar; .shared .align 16 .b8 sm[1024];\n"
         ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
         "ld.param.u64 %rd1, [in]; ld.param.u64 %rd5, [out];\n"
         "mov.u32 %r1, %tid.x; mov.u32 %r3, bar; mov.u32 %r4, sm;\n"
         "setp.ne.u32 %p1, %r1, 0;\n"
         "@!%p1 mbarrier.init.shared.b64 [%r3], 32;\n"
         "bar.sync 0;\n"
         "shl.b32 %r5, %r1, 5; add.s32 %r6, %r4, %r5; cvt.u64.u32 %rd2, %r5; add.s64 %rd3, "
         "%rd1, %rd2;\n"
         "mov.u32 %r7, 32;\n"
         "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd3], %r7, "
         "[%r3];\n"
         "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], %r7;\n"
         "mbarrier.arrive.expect_tx.shared.b64 %rd4, [%r3], 0;\n"
         "W: mbarrier.try_wait.shared.b64 %p2, [%r3], %rd4; @!%p2 bra W;\n"
         "xor.b32 %r8, %r1, 31; shl.b32 %r8, %r8, 5; add.s32 %r8, %r4, %r8;\n"
         "ld.shared.u32 %r9, [%r8]; mul.wide.u32 %rd6, %r1, 4; add.s64 %rd6, %rd5, %rd6;\n"
         "st.global.u32 [%rd6], %r9;\n"
         "@!%p1 mbarrier.inval.shared.b64 [%r3];\n"
         "ret;\n}\n";

static void test_bulk_copy_completes_tx(void **state) {
    (void)state;
    uint32_t *in = dev_alloc(1024), *out = dev_alloc(128);
    for (int i = 0; i < 256; i++) in[i] = (uint32_t)i * 3 + 5;
    void *p[] = {&in, &out};
    assert_ok(run(bulk_ptx, "k", 1, 32, p));
    for (int t = 0; t < 32; t++) assert_int_equal(out[t], in[(31 - t) * 8]);
    dev_free_all();
}

/* arrive_drop lowers the expected count of the next phases; cp.async.mbarrier.arrive.noinc is an
 * arrival, without .noinc it is none (its increment and its arrival cancel). 32 threads, count
 * 32: phase 0 completes by 16 threads' arrive_drop and the other 16 threads' noinc arrivals;
 * phase 1 by those 16 alone; then parity 1 (phase 1) reads complete and parity 0 (phase 2) not. */
static const char drop_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".shared .align 8 .b64 bar;\n"
         ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<6>;\n"
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r3, bar;\n"
         "setp.ne.u32 %p1, %r1, 0;\n"
         "@!%p1 mbarrier.init.shared.b64 [%r3], 32;\n"
         "bar.sync 0;\n"
         "setp.lt.u32 %p3, %r1, 16;\n"
         "@%p3 mbarrier.arrive_drop.shared.b64 %rd2, [%r3];\n"
         "@!%p3 cp.async.mbarrier.arrive.shared.b64 [%r3];\n"
         "@!%p3 cp.async.mbarrier.arrive.noinc.shared.b64 [%r3];\n"
         "bar.sync 0;\n"
         "@!%p3 mbarrier.arrive.shared.b64 %rd2, [%r3];\n"
         "bar.sync 0;\n"
         "mbarrier.test_wait.parity.shared.b64 %p2, [%r3], 1;\n"
         "mbarrier.test_wait.parity.shared.b64 %p4, [%r3], 0;\n"
         "selp.u32 %r4, 1, 0, %p2; selp.u32 %r5, 2, 0, %p4; or.b32 %r4, %r4, %r5;\n"
         "mul.wide.u32 %rd3, %r1, 4; add.s64 %rd3, %rd1, %rd3;\n"
         "st.global.u32 [%rd3], %r4;\n"
         "ret;\n}\n";

static const char zero_ptx[] = HEAD ".visible .entry k()\n{\n"
                                    ".shared .align 8 .b64 bar;\n"
                                    ".reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                                    "mov.u32 %r1, bar;\n"
                                    "mbarrier.init.shared.b64 [%r1], 4;\n"
                                    "mbarrier.arrive.shared.b64 %rd1, [%r1], 0;\n"
                                    "ret;\n}\n";

static void test_arrive_drop_and_noinc(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(128);
    void *p[] = {&out};
    assert_ok(run(drop_ptx, "k", 1, 32, p));
    for (int t = 0; t < 32; t++) assert_int_equal(out[t], 1);
    /* PTX ISA 9.7.13.15.13: a count of 0 is undefined; the mock says so */
    assert_int_equal(run(zero_ptx, "k", 1, 1, NULL), CUDA_ERROR_ILLEGAL_INSTRUCTION);
    assert_has(err, "arrival of 0");
    dev_free_all();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cp_async_sizes_and_zero_fill),
        cmocka_unit_test(test_cp_async_refusals),
        cmocka_unit_test(test_mbarrier_phases),
        cmocka_unit_test(test_bulk_copy_completes_tx),
        cmocka_unit_test(test_arrive_drop_and_noinc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
