/* The interpreter's instruction families, each checked against C on the host: integer and
 * floating-point arithmetic, bit operations, comparisons, conversions, moves, calls and local
 * memory. Each kernel stores its results to out[], one thread. */
#include <math.h>

#include "ptx_util.h"

/* PTX ISA, "Integer Arithmetic Instructions" and "Logic and Shift Instructions". */
static const char int_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<3>;\n"
         "ld.param.u64 %rd1, [out];\n"
         "mov.u32 %r1, -7; mov.u32 %r2, 3;\n"
         "div.s32 %r3, %r1, %r2; st.global.u32 [%rd1], %r3;\n"                  /* 0: -2 */
         "rem.s32 %r3, %r1, %r2; st.global.u32 [%rd1+4], %r3;\n"                /* 1: -1 */
         "div.u32 %r3, %r1, %r2; st.global.u32 [%rd1+8], %r3;\n"                /* 2 */
         "mul.hi.s32 %r3, %r1, 1000000000; st.global.u32 [%rd1+12], %r3;\n"     /* 3 */
         "mul.hi.u32 %r3, %r1, %r1; st.global.u32 [%rd1+16], %r3;\n"            /* 4 */
         "min.s32 %r3, %r1, %r2; st.global.u32 [%rd1+20], %r3;\n"               /* 5: -7 */
         "max.u32 %r3, %r1, %r2; st.global.u32 [%rd1+24], %r3;\n"               /* 6 */
         "abs.s32 %r3, %r1; st.global.u32 [%rd1+28], %r3;\n"                    /* 7: 7 */
         "bfe.u32 %r3, 0xabcd1234, 8, 12; st.global.u32 [%rd1+32], %r3;\n"      /* 8 */
         "bfe.s32 %r3, 0xabcd1234, 16, 12; st.global.u32 [%rd1+36], %r3;\n"     /* 9 */
         "bfi.b32 %r3, 0xff, 0x12345678, 4, 8; st.global.u32 [%rd1+40], %r3;\n" /* 10 */
         "brev.b32 %r3, 0x1; st.global.u32 [%rd1+44], %r3;\n"                   /* 11 */
         "clz.b32 %r3, 0x00f00000; st.global.u32 [%rd1+48], %r3;\n"             /* 12: 8 */
         "popc.b32 %r3, 0xf0f0f0f1; st.global.u32 [%rd1+52], %r3;\n"            /* 13: 17 */
         "prmt.b32 %r3, 0x33221100, 0x77665544, 0x5140; st.global.u32 [%rd1+56], %r3;\n" /* 14 */
         "bfind.u32 %r3, 0x00f00000; st.global.u32 [%rd1+60], %r3;\n" /* 15: 23 */
         "shr.s32 %r3, %r1, 40; st.global.u32 [%rd1+64], %r3;\n"      /* 16: -1 */
         "shl.b32 %r3, %r2, 33; st.global.u32 [%rd1+68], %r3;\n"      /* 17: 0 */
         "lop3.b32 %r3, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa, 0xe8; st.global.u32 [%rd1+72], %r3;\n"
         "shf.l.wrap.b32 %r3, 0x80000000, 0x1, 4; st.global.u32 [%rd1+76], %r3;\n" /* 19: 0x18 */
         "setp.lt.s32 %p1, %r1, %r2; selp.u32 %r3, 11, 22, %p1; st.global.u32 [%rd1+80], %r3;\n"
         "setp.lt.u32 %p1, %r1, %r2; selp.u32 %r3, 11, 22, %p1; st.global.u32 [%rd1+84], %r3;\n"
         "mul.wide.s32 %rd2, %r1, 1000000; st.global.u64 [%rd1+88], %rd2;\n" /* 22,23 */
         "add.cc.u32 %r3, 0xffffffff, 2; addc.u32 %r4, 0, 0; st.global.u32 [%rd1+96], %r4;\n"
         "sad.u32 %r3, 3, 10, 100; st.global.u32 [%rd1+100], %r3;\n"        /* 25: 107 */
         "mov.b64 %rd3, {%r2, %r1}; st.global.u64 [%rd1+104], %rd3;\n"      /* 26,27 */
         "add.sat.s32 %r3, 0x7fffffff, 5; st.global.u32 [%rd1+112], %r3;\n" /* 28 */
         "mov.u32 %r3, WARP_SZ; st.global.u32 [%rd1+116], %r3;\n"           /* 29: 32 */
         "ret;\n}\n";

static void test_integer(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(32 * 4);
    void *p[] = {&out};
    assert_ok(run(int_ptx, "k", 1, 1, p));
    int32_t a = -7, b = 3;
    assert_int_equal((int32_t)out[0], a / b);
    assert_int_equal((int32_t)out[1], a % b);
    assert_int_equal(out[2], (uint32_t)a / (uint32_t)b);
    assert_int_equal((int32_t)out[3], (int32_t)(((int64_t)a * 1000000000) >> 32));
    assert_int_equal(out[4], (uint32_t)(((uint64_t)(uint32_t)a * (uint32_t)a) >> 32));
    assert_int_equal((int32_t)out[5], -7);
    assert_int_equal(out[6], (uint32_t)a);
    assert_int_equal(out[7], 7);
    assert_int_equal(out[8], (0xabcd1234u >> 8) & 0xfff);
    assert_int_equal(out[9], 0xfffffbcdu);
    assert_int_equal(out[10], (0x12345678u & ~0xff0u) | 0xff0u);
    assert_int_equal(out[11], 0x80000000u);
    assert_int_equal(out[12], 8);
    assert_int_equal(out[13], 17);
    assert_int_equal(out[14], 0x55114400u | 0x00);
    assert_int_equal(out[15], 23);
    assert_int_equal((int32_t)out[16], -1);
    assert_int_equal(out[17], 0);
    assert_int_equal(out[18], (0xf0f0f0f0u & 0xccccccccu) | (0xf0f0f0f0u & 0xaaaaaaaau) |
                                  (0xccccccccu & 0xaaaaaaaau));
    assert_int_equal(out[19], 0x18);
    assert_int_equal(out[20], 11);
    assert_int_equal(out[21], 22);
    int64_t wide;
    memcpy(&wide, &out[22], 8);
    assert_int_equal(wide, -7000000);
    assert_int_equal(out[24], 1);
    assert_int_equal(out[25], 107);
    assert_int_equal(out[26], 3);
    assert_int_equal((int32_t)out[27], -7);
    assert_int_equal(out[28], 0x7fffffff);
    assert_int_equal(out[29], 32); /* WARP_SZ */
    dev_free_all();
}

/* PTX ISA, "Floating-Point Instructions" and "cvt": fused fma, rounding to integers, saturation,
 * half precision, double precision. */
static const char float_ptx[] =
    HEAD ".visible .entry k(.param .u64 out, .param .f32 x, .param .f64 y)\n{\n"
         ".reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .b16 %h<2>;\n"
         ".reg .pred %p<2>;\n"
         "ld.param.u64 %rd1, [out]; ld.param.f32 %f1, [x]; ld.param.f64 %fd1, [y];\n"
         "fma.rn.f32 %f2, %f1, %f1, 0fBF800000; st.global.f32 [%rd1], %f2;\n"
         "cvt.rni.s32.f32 %r1, 0f40200000; st.global.u32 [%rd1+4], %r1;\n"   /* 2.5 -> 2 */
         "cvt.rmi.s32.f32 %r1, 0fC0200000; st.global.u32 [%rd1+8], %r1;\n"   /* -2.5 -> -3 */
         "cvt.rpi.s32.f32 %r1, 0f40200000; st.global.u32 [%rd1+12], %r1;\n"  /* 3 */
         "cvt.rzi.s32.f32 %r1, 0f4F800000; st.global.u32 [%rd1+16], %r1;\n"  /* 2^32 -> INT_MAX */
         "cvt.rzi.u32.f32 %r1, 0fC0200000; st.global.u32 [%rd1+20], %r1;\n"  /* -2.5 -> 0 */
         "add.sat.f32 %f2, %f1, 0f3F800000; st.global.f32 [%rd1+24], %f2;\n" /* clamped to 1 */
         "cvt.rn.f16.f32 %h1, 0f3FC00000; cvt.f32.f16 %f3, %h1; st.global.f32 [%rd1+28], %f3;\n"
         "div.rn.f64 %fd2, %fd1, 0d4008000000000000; st.global.f64 [%rd1+32], %fd2;\n"
         "sqrt.rn.f64 %fd3, %fd1; st.global.f64 [%rd1+40], %fd3;\n"
         "cvt.rn.f32.f64 %f4, %fd2; st.global.f32 [%rd1+48], %f4;\n"
         "setp.nan.f32 %p1, %f1, %f1; selp.u32 %r2, 1, 0, %p1; st.global.u32 [%rd1+52], %r2;\n"
         "min.f32 %f5, %f1, 0f7FC00000; st.global.f32 [%rd1+56], %f5;\n"   /* NaN ignored */
         "ex2.approx.f32 %f6, 0f40400000; st.global.f32 [%rd1+60], %f6;\n" /* 8 */
         "cvt.rn.f64.s32 %fd4, -3; st.global.f64 [%rd1+64], %fd4;\n"
         "neg.f64 %fd5, %fd1; abs.f64 %fd5, %fd5; st.global.f64 [%rd1+72], %fd5;\n"
         "fma.rn.f16 %h1, %h1, %h1, %h1; cvt.f32.f16 %f7, %h1; st.global.f32 [%rd1+80], %f7;\n"
         "ret;\n}\n";

static void test_float(void **state) {
    (void)state;
    unsigned char *out = dev_alloc(128);
    float x = 1.0f + 0x1p-12f;
    double y = 2.0;
    void *p[] = {&out, &x, &y};
    assert_ok(run(float_ptx, "k", 1, 1, p));
    float f;
    double d;
    int32_t i;
    memcpy(&f, out, 4);
    assert_true(f == fmaf(x, x, -1.0f)); /* fused: a separate multiply would lose 2^-24 */
    memcpy(&i, out + 4, 4);
    assert_int_equal(i, 2);
    memcpy(&i, out + 8, 4);
    assert_int_equal(i, -3);
    memcpy(&i, out + 12, 4);
    assert_int_equal(i, 3);
    memcpy(&i, out + 16, 4);
    assert_int_equal(i, 2147483647);
    memcpy(&i, out + 20, 4);
    assert_int_equal(i, 0);
    memcpy(&f, out + 24, 4);
    assert_true(f == 1.0f);
    memcpy(&f, out + 28, 4);
    assert_true(f == 1.5f);
    memcpy(&d, out + 32, 8);
    assert_true(d == 2.0 / 3.0);
    memcpy(&d, out + 40, 8);
    assert_true(d == sqrt(2.0));
    memcpy(&f, out + 48, 4);
    assert_true(f == (float)(2.0 / 3.0));
    memcpy(&i, out + 52, 4);
    assert_int_equal(i, 0);
    memcpy(&f, out + 56, 4);
    assert_true(f == x);
    memcpy(&f, out + 60, 4);
    assert_true(f == 8.0f);
    memcpy(&d, out + 64, 8);
    assert_true(d == -3.0);
    memcpy(&d, out + 72, 8);
    assert_true(d == 2.0);
    memcpy(&f, out + 80, 4);
    assert_true(f == 1.5f * 1.5f + 1.5f); /* f16 arithmetic, rounded to f16 (3.75 is exact) */
    dev_free_all();
}

/* PTX ISA, "call" and "Parameter State Space": a .func with parameters and a return value,
 * and a local array indexed at run time ("Local State Space"). */
static const char call_ptx[] =
    HEAD ".func (.param .b32 ret) twice(.param .b32 a, .param .b32 b)\n{\n"
         ".reg .b32 %r<4>;\n"
         "ld.param.b32 %r1, [a]; ld.param.b32 %r2, [b]; mad.lo.s32 %r3, %r1, 2, %r2;\n"
         "st.param.b32 [ret], %r3; ret;\n}\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         ".local .align 4 .b8 depot[64];\n"
         ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .b64 %SP, %SPL;\n"
         "mov.u64 %SPL, depot; cvta.local.u64 %SP, %SPL;\n"
         "mov.u32 %r1, %tid.x;\n"
         "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %SP, %rd2;\n"
         "st.u32 [%rd3], %r1;\n" /* generic store into local memory */
         "add.s64 %rd4, %SPL, %rd2; ld.local.u32 %r2, [%rd4];\n"
         "{\n.param .b32 p0; .param .b32 p1; .param .b32 r0;\n"
         "st.param.b32 [p0], %r2; st.param.b32 [p1], 5;\n"
         "call.uni (r0), twice, (p0, p1);\n"
         "ld.param.b32 %r3, [r0];\n}\n"
         "ld.param.u64 %rd1, [out]; add.s64 %rd1, %rd1, %rd2; st.global.u32 [%rd1], %r3;\n"
         "ret;\n}\n";

static void test_call_and_local(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(16 * 4);
    void *p[] = {&out};
    assert_ok(run(call_ptx, "k", 1, 16, p));
    for (uint32_t i = 0; i < 16; i++) assert_int_equal(out[i], 2 * i + 5);
    dev_free_all();
}

/* Device printf: vprintf with a format in .global and an argument buffer in local memory. */
static const char printf_ptx[] = HEAD
    ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);\n"
    ".global .align 1 .b8 fmt[16] = {116, 61, 37, 100, 32, 37, 46, 49, 102, 32, 37, 115, 10};\n"
    ".global .align 1 .b8 word[3] = {111, 107};\n"
    ".visible .entry k()\n{\n"
    ".local .align 8 .b8 depot[24];\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f64 %fd1;\n"
    "mov.u64 %rd1, depot; cvta.local.u64 %rd2, %rd1;\n"
    "mov.u32 %r1, %tid.x; st.local.u32 [%rd1], %r1;\n"
    "cvt.rn.f64.u32 %fd1, %r1; st.local.f64 [%rd1+8], %fd1;\n"
    "mov.u64 %rd3, word; cvta.global.u64 %rd3, %rd3; st.local.u64 [%rd1+16], %rd3;\n"
    "mov.u64 %rd4, fmt; cvta.global.u64 %rd4, %rd4;\n"
    "{\n.param .b64 p0; .param .b64 p1; .param .b32 r;\n"
    "st.param.b64 [p0], %rd4; st.param.b64 [p1], %rd2;\n"
    "call.uni (r), vprintf, (p0, p1);\n}\n"
    "ret;\n}\n";

/* What kernel k of ptx printed with `threads` threads, into text (cap bytes, cap > 1). */
static void printed(const char *ptx, unsigned threads, char *text, size_t cap) {
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_ok(run_ex(ptx, "k", 1, threads, NULL, 0, false, f));
    rewind(f);
    memset(text, 0, cap);
    size_t n = fread(text, 1, cap - 1, f);
    fclose(f);
    assert_true(n > 0);
}

static void test_printf(void **state) {
    (void)state;
    char text[256];
    printed(printf_ptx, 2, text, sizeof text);
    assert_has(text, "t=0 0.0 ok\n");
    assert_has(text, "t=1 1.0 ok\n");
}

/* Device printf with '*' widths and precisions taken from the arguments: a negative width
 * justifies left, a negative precision is as if none were given. */
static const char printf_star_ptx[] = HEAD
    ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);\n"
    ".global .align 1 .b8 fmt[19] = {37, 42, 100, 124, 37, 46, 42, 102, 124, 37, 42, 100, 124, "
    "37, 46, 42, 100, 10, 0};\n"
    ".visible .entry k()\n{\n"
    ".local .align 8 .b8 depot[40];\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f64 %fd1;\n"
    "mov.u64 %rd1, depot; cvta.local.u64 %rd2, %rd1;\n"
    "mov.s32 %r2, 5; st.local.u32 [%rd1], %r2;\n"
    "mov.u32 %r1, %tid.x; st.local.u32 [%rd1+4], %r1;\n"
    "mov.s32 %r2, 2; st.local.u32 [%rd1+8], %r2;\n"
    "cvt.rn.f64.u32 %fd1, %r1; st.local.f64 [%rd1+16], %fd1;\n"
    "mov.s32 %r2, -4; st.local.u32 [%rd1+24], %r2;\n"
    "mov.s32 %r2, 9; st.local.u32 [%rd1+28], %r2;\n"
    "mov.s32 %r2, -1; st.local.u32 [%rd1+32], %r2;\n"
    "mov.s32 %r2, 3; st.local.u32 [%rd1+36], %r2;\n"
    "mov.u64 %rd4, fmt; cvta.global.u64 %rd4, %rd4;\n"
    "{\n.param .b64 p0; .param .b64 p1; .param .b32 r;\n"
    "st.param.b64 [p0], %rd4; st.param.b64 [p1], %rd2;\n"
    "call.uni (r), vprintf, (p0, p1);\n}\n"
    "ret;\n}\n";

static void test_printf_star(void **state) {
    (void)state;
    char text[256];
    printed(printf_star_ptx, 1, text, sizeof text);
    assert_string_equal(text, "    0|0.00|9   |3\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer),        cmocka_unit_test(test_float),
        cmocka_unit_test(test_call_and_local), cmocka_unit_test(test_printf),
        cmocka_unit_test(test_printf_star),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
