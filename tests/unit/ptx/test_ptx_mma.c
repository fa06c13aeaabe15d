/* Tensor-core instructions and bar.arrive on the interpreter alone, against CPU references:
 * PTX ISA "Warp Level Matrix Multiply-Accumulate Instructions": mma (m16n8k16 .f16 and .bf16 to
 * .f32, fragments placed as "Matrix Fragments for mma.m16n8k16 with floating point type" says,
 * computed here from the ISA's formulas), ldmatrix (.x1, .x2, .x4, .trans), wmma.load / mma /
 * store (m16n16k16, row and column major); "Parallel Synchronization and Communication
 * Instructions: bar, barrier" (bar.arrive with a thread count, against bar.sync, and bar.red
 * with a count). Matrix values are small integers, so every order of summation is exact. */
#include <math.h>

#include "ptx_util.h"

static uint16_t h16(int v, bool bf) {
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    if (bf) return (uint16_t)(x >> 16);
    if (v == 0) return 0;
    int e;
    double m = frexp(fabs((double)v), &e); /* |v| = m 2^e, m in [0.5, 1) */
    uint16_t bits = (uint16_t)((e - 1 + 15) << 10 | (uint16_t)((m * 2 - 1) * 1024));
    return v < 0 ? (uint16_t)(bits | 0x8000u) : bits;
}

static int small(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (int)((*s >> 16) % 9) - 4;
}

/* The ISA's placement for m16n8k16: groupID = lane >> 2, threadID_in_group = lane % 4. */
static void a_place(int lane, int i, int *r, int *c) {
    int g = lane >> 2, t = lane % 4;
    *r = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
    *c = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
}
static void b_place(int lane, int i, int *r, int *c) {
    int g = lane >> 2, t = lane % 4;
    *r = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
    *c = g;
}
static void c_place(int lane, int i, int *r, int *c) {
    int g = lane >> 2, t = lane % 4;
    *r = i < 2 ? g : g + 8;
    *c = t * 2 + (i & 1);
}

#define MMA_PTX(T)                                                                                 \
    HEAD ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"  \
         ".reg .b32 %r<10>; .reg .f32 %f<10>; .reg .b64 %rd<12>;\n"                                \
         "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];\n"            \
         "ld.param.u64 %rd4, [pd]; mov.u32 %r1, %laneid;\n"                                        \
         "mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd1, %rd5;\n"                                 \
         "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd6];\n"                                        \
         "mul.wide.u32 %rd7, %r1, 8; add.s64 %rd8, %rd2, %rd7; ld.global.v2.u32 {%r6, %r7}, "      \
         "[%rd8];\n"                                                                               \
         "add.s64 %rd9, %rd3, %rd5; ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd9];\n"              \
         "mma.sync.aligned.m16n8k16.row.col.f32." T "." T ".f32 {%f5, %f6, %f7, %f8}, "            \
         "{%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};\n"                               \
         "add.s64 %rd10, %rd4, %rd5; st.global.v4.f32 [%rd10], {%f5, %f6, %f7, %f8};\n"            \
         "ret;\n}\n"

static const char mma_f16_ptx[] = MMA_PTX("f16");
static const char mma_bf16_ptx[] = MMA_PTX("bf16");

/* Random small matrices A (16 x 16), B (16 x 8), C (16 x 8, times cscale), and each lane's A and
 * B fragment registers placed as the ISA says (fa: 4 a lane, fb: 2 a lane). */
static void make_mma_inputs(uint32_t seed, bool bf, int cscale, int A[16][16], int B[16][8],
                            int C[16][8], uint32_t *fa, uint32_t *fb) {
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) A[r][c] = small(&seed);
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) B[r][c] = small(&seed), C[r][c] = small(&seed) * cscale;
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < 8; i++) {
            int r, c;
            a_place(l, i, &r, &c);
            fa[l * 4 + i / 2] |= (uint32_t)h16(A[r][c], bf) << (16 * (i & 1));
        }
        for (int i = 0; i < 4; i++) {
            int r, c;
            b_place(l, i, &r, &c);
            fb[l * 2 + i / 2] |= (uint32_t)h16(B[r][c], bf) << (16 * (i & 1));
        }
    }
}

static void check_mma(const char *ptx, bool bf) {
    int A[16][16], B[16][8], C[16][8];
    uint32_t *fa = dev_alloc(32 * 16), *fb = dev_alloc(32 * 8);
    float *fc = dev_alloc(32 * 16), *fd = dev_alloc(32 * 16);
    make_mma_inputs(bf ? 5 : 9, bf, 10, A, B, C, fa, fb);
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < 4; i++) {
            int r, c;
            c_place(l, i, &r, &c);
            fc[l * 4 + i] = (float)C[r][c];
        }
    }
    void *p[] = {&fa, &fb, &fc, &fd};
    if (run(ptx, "k", 1, 32, p) != CUDA_SUCCESS) fail_msg("%s", err);
    unsigned wrong = 0;
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < 4; i++) {
            int r, c;
            c_place(l, i, &r, &c);
            int want = C[r][c];
            for (int k = 0; k < 16; k++) want += A[r][k] * B[k][c];
            if (fd[l * 4 + i] != (float)want && wrong++ < 5)
                printf("# lane %d d%d (row %d col %d): %g, want %d\n", l, i, r, c, fd[l * 4 + i],
                       want);
        }
    }
    assert_int_equal(wrong, 0);
    dev_free_all();
}

static void test_mma_f16(void **state) {
    (void)state;
    check_mma(mma_f16_ptx, false);
}

static void test_mma_bf16(void **state) {
    (void)state;
    check_mma(mma_bf16_ptx, true);
}

/* f16 accumulators: C and D as two .f16x2 registers a lane (elements as in the f32 case). */
static const char mma_f16acc_ptx[] = HEAD
    ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
    ".reg .b32 %r<14>; .reg .b64 %rd<12>;\n"
    "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];\n"
    "ld.param.u64 %rd4, [pd]; mov.u32 %r1, %laneid;\n"
    "mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd1, %rd5;\n"
    "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd6];\n"
    "mul.wide.u32 %rd7, %r1, 8; add.s64 %rd8, %rd2, %rd7; ld.global.v2.u32 {%r6, %r7}, [%rd8];\n"
    "add.s64 %rd9, %rd3, %rd7; ld.global.v2.u32 {%r8, %r9}, [%rd9];\n"
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r10, %r11}, {%r2, %r3, %r4, %r5}, "
    "{%r6, %r7}, {%r8, %r9};\n"
    "add.s64 %rd10, %rd4, %rd7; st.global.v2.u32 [%rd10], {%r10, %r11};\n"
    "ret;\n}\n";

static void test_mma_f16_accumulators(void **state) {
    (void)state;
    int A[16][16], B[16][8], C[16][8];
    uint32_t *fa = dev_alloc(32 * 16), *fb = dev_alloc(32 * 8), *fc = dev_alloc(32 * 8),
             *fd = dev_alloc(32 * 8);
    make_mma_inputs(13, false, 1, A, B, C, fa, fb);
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < 4; i++) {
            int r, c;
            c_place(l, i, &r, &c);
            fc[l * 2 + i / 2] |= (uint32_t)h16(C[r][c], false) << (16 * (i & 1));
        }
    }
    void *p[] = {&fa, &fb, &fc, &fd};
    if (run(mma_f16acc_ptx, "k", 1, 32, p) != CUDA_SUCCESS) fail_msg("%s", err);
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < 4; i++) {
            int r, c;
            c_place(l, i, &r, &c);
            int want = C[r][c];
            for (int k = 0; k < 16; k++) want += A[r][k] * B[k][c];
            uint32_t got = (fd[l * 2 + i / 2] >> (16 * (i & 1))) & 0xffffu;
            if (got != h16(want, false))
                fail_msg("lane %d d%d: 0x%04x, want 0x%04x (%d)", l, i, got, h16(want, false),
                         want);
        }
    }
    dev_free_all();
}

/* ldmatrix: four 8 x 8 matrices of 16-bit values (value = matrix * 64 + row * 8 + column) in
 * shared memory, lane l giving the address of row l % 8 of matrix l / 8. */
#define LDM_PTX(NUM, REGS, TRANS, STORE)                                                           \
    HEAD ".visible .entry k(.param .u64 pout)\n{\n"                                                \
         ".shared .align 16 .b16 sm[256];\n"                                                       \
         ".reg .b32 %r<12>; .reg .b64 %rd<6>; .reg .pred %p1;\n"                                   \
         "ld.param.u64 %rd1, [pout]; mov.u32 %r1, %laneid; mov.u32 %r2, sm;\n"                     \
         "mov.u32 %r3, %r1;\n"                                                                     \
         "FILL: shl.b32 %r4, %r3, 1; add.s32 %r4, %r2, %r4; st.shared.u16 [%r4], %r3;\n"           \
         "add.s32 %r3, %r3, 32; setp.lt.u32 %p1, %r3, 256; @%p1 bra FILL;\n"                       \
         "bar.sync 0;\n"                                                                           \
         "shl.b32 %r5, %r1, 4; add.s32 %r5, %r2, %r5;\n"                                           \
         "ldmatrix.sync.aligned.m8n8." NUM TRANS ".shared.b16 " REGS ", [%r5];\n"                  \
         "mul.wide.u32 %rd2, %r1, 16; add.s64 %rd3, %rd1, %rd2;\n" STORE "ret;\n}\n"

static const char ldm_x4_ptx[] =
    LDM_PTX("x4", "{%r6, %r7, %r8, %r9}", "", "st.global.v4.u32 [%rd3], {%r6, %r7, %r8, %r9};\n");
static const char ldm_x2t_ptx[] =
    LDM_PTX("x2", "{%r6, %r7}", ".trans", "st.global.v2.u32 [%rd3], {%r6, %r7};\n");
static const char ldm_x1_ptx[] = LDM_PTX("x1", "{%r6}", "", "st.global.u32 [%rd3], %r6;\n");

static void check_ldmatrix(const char *ptx, int nm, bool trans) {
    uint32_t *out = dev_alloc(32 * 16);
    void *p[] = {&out};
    if (run(ptx, "k", 1, 32, p) != CUDA_SUCCESS) fail_msg("%s", err);
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < nm; i++) {
            int r = l / 4, c = 2 * (l % 4);
            uint32_t lo = (uint32_t)(trans ? i * 64 + c * 8 + r : i * 64 + r * 8 + c);
            uint32_t hi = trans ? (uint32_t)(i * 64 + (c + 1) * 8 + r) : lo + 1;
            uint32_t want = hi << 16 | lo;
            if (out[l * 4 + i] != want)
                fail_msg("lane %d register %d: 0x%08x, want 0x%08x", l, i, out[l * 4 + i], want);
        }
    }
    dev_free_all();
}

static void test_ldmatrix(void **state) {
    (void)state;
    check_ldmatrix(ldm_x4_ptx, 4, false);
    check_ldmatrix(ldm_x2t_ptx, 2, true);
    check_ldmatrix(ldm_x1_ptx, 1, false);
}

/* wmma m16n16k16: A (16 x 16) and B (16 x 16) halves, C float, D = A B + C stored row major. */
#define WMMA_PTX(AL, BL, T, DT)                                                                    \
    HEAD ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"  \
         ".reg .b32 %r<20>; .reg .f32 %f<20>; .reg .b64 %rd<6>;\n"                                 \
         "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];\n"            \
         "ld.param.u64 %rd4, [pd];\n"                                                              \
         "wmma.load.a.sync.aligned." AL ".m16n16k16.global." T " " A_REGS ", [%rd1], 16;\n"        \
         "wmma.load.b.sync.aligned." BL ".m16n16k16.global." T " " B_REGS ", [%rd2], 16;\n"        \
         "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "  \
         "%f8}, [%rd3], 16;\n"                                                                     \
         "wmma.mma.sync.aligned." AL "." BL ".m16n16k16." DT                                       \
         " {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, " A_REGS ", " B_REGS                   \
         ", {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};\n"                                           \
         "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd4], {%f9, %f10, %f11, %f12, "     \
         "%f13, %f14, %f15, %f16}, 16;\n"                                                          \
         "ret;\n}\n"

#define A_REGS "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}"
#define B_REGS "{%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}"
static const char wmma_rc_ptx[] = WMMA_PTX("row", "col", "f16", "f32.f32");
static const char wmma_cr_ptx[] = WMMA_PTX("col", "row", "f16", "f32.f32");
#undef A_REGS
#undef B_REGS
#define A_REGS "{%r1, %r2, %r3, %r4}"
#define B_REGS "{%r9, %r10, %r11, %r12}"
static const char wmma_bf16_ptx[] = WMMA_PTX("row", "col", "bf16", "f32.bf16.bf16.f32");

static void check_wmma(const char *ptx, bool a_col, bool b_row, bool bf) {
    int A[16][16], B[16][16], C[16][16];
    uint32_t seed = 21;
    uint16_t *ma = dev_alloc(512), *mb = dev_alloc(512);
    float *mc = dev_alloc(1024), *md = dev_alloc(1024);
    for (int r = 0; r < 16; r++) {
        for (int c = 0; c < 16; c++) {
            A[r][c] = small(&seed);
            B[r][c] = small(&seed);
            C[r][c] = small(&seed);
            ma[a_col ? c * 16 + r : r * 16 + c] = h16(A[r][c], bf);
            mb[b_row ? r * 16 + c : c * 16 + r] = h16(B[r][c], bf);
            mc[r * 16 + c] = (float)C[r][c];
        }
    }
    void *p[] = {&ma, &mb, &mc, &md};
    if (run(ptx, "k", 1, 32, p) != CUDA_SUCCESS) fail_msg("%s", err);
    for (int r = 0; r < 16; r++) {
        for (int c = 0; c < 16; c++) {
            int want = C[r][c];
            for (int k = 0; k < 16; k++) want += A[r][k] * B[k][c];
            if (md[r * 16 + c] != (float)want)
                fail_msg("D[%d][%d] = %g, want %d", r, c, md[r * 16 + c], want);
        }
    }
    dev_free_all();
}

static void test_wmma(void **state) {
    (void)state;
    check_wmma(wmma_rc_ptx, false, false, false);
    check_wmma(wmma_cr_ptx, true, true, false);
    check_wmma(wmma_bf16_ptx, false, false, true);
}

/* A matrix instruction in part of a warp is refused at run time, naming the rule. */
static const char mma_diverged_ptx[] =
    HEAD ".visible .entry k()\n{\n"
         ".reg .b32 %r<10>; .reg .f32 %f<10>; .reg .pred %p1;\n"
         "mov.u32 %r1, %laneid; setp.lt.u32 %p1, %r1, 16;\n"
         "@%p1 mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, "
         "{%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};\n"
         "ret;\n}\n";

static void test_mma_needs_the_whole_warp(void **state) {
    (void)state;
    assert_int_equal(run(mma_diverged_ptx, "k", 1, 32, NULL), CUDA_ERROR_ILLEGAL_INSTRUCTION);
    assert_has(err, "not all 32 together");
}

/* Producer and consumer warps: warp 1 writes a shared slot and arrives at barrier 1 (64 threads),
 * warp 0 waits there with bar.sync, reads, and arrives at barrier 2, where warp 1 waits before
 * the next round. Then bar.red.popc with a count of 64 over both warps. */
static const char arrive_ptx[] =
    HEAD ".visible .entry k(.param .u64 pout)\n{\n"
         ".shared .align 4 .b32 slot[32];\n"
         ".reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .pred %p<4>;\n"
         "ld.param.u64 %rd1, [pout]; mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 31;\n"
         "mov.u32 %r3, slot; shl.b32 %r4, %r2, 2; add.s32 %r4, %r3, %r4;\n"
         "setp.ge.u32 %p1, %r1, 32; mov.u32 %r5, 0; mov.u32 %r6, 0;\n"
         "LOOP:\n"
         "@!%p1 bra CONSUME;\n"
         "mad.lo.u32 %r7, %r5, 100, %r2; st.shared.u32 [%r4], %r7;\n"
         "bar.arrive 1, 64;\n"
         "bar.sync 2, 64;\n"
         "bra NEXT;\n"
         "CONSUME:\n"
         "bar.sync 1, 64;\n"
         "ld.shared.u32 %r7, [%r4]; add.s32 %r6, %r6, %r7;\n"
         "barrier.arrive 2, 64;\n"
         "NEXT:\n"
         "add.s32 %r5, %r5, 1; setp.lt.u32 %p2, %r5, 10; @%p2 bra LOOP;\n"
         "setp.lt.u32 %p3, %r1, 5;\n"
         "bar.red.popc.u32 %r8, 3, 64, %p3;\n"
         "mul.wide.u32 %rd2, %r1, 8; add.s64 %rd3, %rd1, %rd2;\n"
         "st.global.v2.u32 [%rd3], {%r6, %r8};\n"
         "ret;\n}\n";

static void test_bar_arrive(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(64 * 8);
    void *p[] = {&out};
    for (int threads = 0; threads <= 1; threads++) {
        memset(out, 0, 64 * 8);
        if (run_ex(arrive_ptx, "k", 1, 64, p, threads, false, NULL) != CUDA_SUCCESS)
            fail_msg("%s", err);
        for (int t = 0; t < 64; t++) {
            uint32_t want = t < 32 ? (uint32_t)(100 * 45 + 10 * t) : 0;
            if (out[2 * t] != want) fail_msg("thread %d summed %u, want %u", t, out[2 * t], want);
            assert_int_equal(out[2 * t + 1], 5);
        }
    }
    dev_free_all();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mma_f16),
        cmocka_unit_test(test_mma_bf16),
        cmocka_unit_test(test_mma_f16_accumulators),
        cmocka_unit_test(test_ldmatrix),
        cmocka_unit_test(test_wmma),
        cmocka_unit_test(test_mma_needs_the_whole_warp),
        cmocka_unit_test(test_bar_arrive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
