/* Half, bfloat16 and directed rounding on the interpreter alone, bit for bit against an oracle
 * that rounds by searching the target format's values (not the interpreter's method):
 * PTX ISA "Half Precision Floating-Point Instructions" (add, sub, mul, fma with .rn, .sat, .relu,
 * neg, abs, min, max with .NaN; .f16, .f16x2, .bf16, .bf16x2), "Half Precision Comparison
 * Instructions" (setp with p|q, set), "Data Movement and Conversion Instructions: cvt" (f16,
 * f16x2, bf16, bf16x2 to and from f32 with .rn, .rz, .rm, .rp), and "Floating Point
 * Instructions" (add, sub, mul, fma, div, sqrt, rcp of f32 and f64 with .rz, .rm, .rp). */
#include <math.h>

#include "ptx_util.h"

enum { RN, RZ, RM, RP };

static double val16(uint32_t h, bool bf) {
    if (bf) {
        uint32_t x = (h & 0xffffu) << 16;
        float f;
        memcpy(&f, &x, 4);
        return f;
    }
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(1024 + m, (int)e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* The exact value v rounded to f16 (bf false) or bf16 in a mode, by binary search over the
 * format's positive finite encodings (monotonic in their bits). */
static uint32_t oracle16(double v, bool bf, int mode) {
    if (isnan(v)) return 0x7fffu;
    uint32_t s = signbit(v) ? 0x8000u : 0, maxf = bf ? 0x7f7fu : 0x7bffu, inf = maxf + 1;
    double a = fabs(v);
    uint32_t lo = 0, hi = maxf;
    if (a >= val16(maxf, bf)) {
        lo = maxf;
    } else {
        while (lo < hi) { /* the largest encoding <= a */
            uint32_t mid = (lo + hi + 1) / 2;
            if (val16(mid, bf) <= a)
                lo = mid;
            else
                hi = mid - 1;
        }
    }
    if (val16(lo, bf) == a || isinf(a)) return s | (isinf(a) ? inf : lo);
    uint32_t up = lo + 1;
    double vlo = val16(lo, bf),
           vup = lo == maxf ? 2 * val16(maxf, bf) - val16(maxf - 1, bf) : val16(up, bf);
    bool take_up;
    switch (mode) {
    case RZ: take_up = false; break;
    case RM: take_up = s != 0; break;
    case RP: take_up = s == 0; break;
    default: take_up = a - vlo > vup - a || (a - vlo == vup - a && (lo & 1)); break;
    }
    return s | (take_up ? up : lo);
}

static uint32_t rng(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A half of moderate size (2^-4 .. 2^4), so that sums and fused products are exact in double. */
static uint32_t moderate(uint32_t *s, bool bf) {
    uint32_t sign = (rng(s) & 1) << 15, e = (bf ? 123 : 11) + rng(s) % 9;
    return sign | e << (bf ? 7 : 10) | (rng(s) & (bf ? 0x7f : 0x3ff));
}

/* ------------------------------------------------------------------------------------------ */

#define N 64
/* Thread i: a, b, c (two halves each) from in[3i..3i+2]; 16 results to out[16i..]. */
#define HALF_PTX(T, SAT)                                                                           \
    HEAD ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"                               \
         ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .b16 %h<8>; .reg .pred %p<3>; .reg .f32 "       \
         "%f<4>;\n"                                                                                \
         "ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout]; mov.u32 %r1, %tid.x;\n"             \
         "mul.wide.u32 %rd3, %r1, 12; add.s64 %rd3, %rd1, %rd3;\n"                                 \
         "mul.wide.u32 %rd4, %r1, 64; add.s64 %rd4, %rd2, %rd4;\n"                                 \
         "ld.global.u32 %r2, [%rd3]; ld.global.u32 %r3, [%rd3+4]; ld.global.u32 %r4, [%rd3+8];\n"  \
         "add." T " %r5, %r2, %r3; st.global.u32 [%rd4], %r5;\n"                                   \
         "sub.rn." T " %r5, %r2, %r3; st.global.u32 [%rd4+4], %r5;\n"                              \
         "mul." T " %r5, %r2, %r3; st.global.u32 [%rd4+8], %r5;\n"                                 \
         "fma.rn." T " %r5, %r2, %r3, %r4; st.global.u32 [%rd4+12], %r5;\n"                        \
         "fma.rn" SAT "." T " %r5, %r2, %r3, %r4; st.global.u32 [%rd4+16], %r5;\n"                 \
         "fma.rn.relu." T " %r5, %r2, %r3, %r4; st.global.u32 [%rd4+20], %r5;\n"                   \
         "min." T " %r5, %r2, %r3; st.global.u32 [%rd4+24], %r5;\n"                                \
         "max.NaN." T " %r5, %r2, %r3; st.global.u32 [%rd4+28], %r5;\n"                            \
         "neg." T " %r5, %r2; st.global.u32 [%rd4+32], %r5;\n"                                     \
         "abs." T " %r5, %r2; st.global.u32 [%rd4+36], %r5;\n"                                     \
         "setp.lt." T " %p1|%p2, %r2, %r3; selp.u32 %r6, 1, 0, %p1; selp.u32 %r7, 2, 0, %p2;\n"    \
         "or.b32 %r5, %r6, %r7; st.global.u32 [%rd4+40], %r5;\n"                                   \
         "set.gtu.u32." T " %r5, %r2, %r3; st.global.u32 [%rd4+44], %r5;\n"                        \
         "mov.b32 {%h1, %h2}, %r2; cvt.f32." T1 " %f1, %h2; st.global.f32 [%rd4+48], %f1;\n"       \
         "cvt.f32." T1 " %f2, %h1; cvt.rn." T                                                      \
         ".f32 %r5, %f1, %f2; st.global.u32 [%rd4+52], %r5;\n"                                     \
         "mov.b32 %f3, %r4; cvt.rz." T1 ".f32 %h3, %f3; cvt.rm." T1 ".f32 %h4, %f3;\n"             \
         "mov.b32 %r5, {%h3, %h4}; st.global.u32 [%rd4+56], %r5;\n"                                \
         "cvt.rp." T1 ".f32 %h3, %f3; cvt.rn." T1 ".f32 %h4, %f3; mov.b32 %r5, {%h3, %h4};\n"      \
         "st.global.u32 [%rd4+60], %r5;\n"                                                         \
         "ret;\n}\n"

#define T1 "f16"
static const char f16_ptx[] = HALF_PTX("f16x2", ".sat");
#undef T1
#define T1 "bf16"
/* bf16 has no .sat (the ISA defines .relu only): the second fma repeats the first. */
static const char bf16_ptx[] = HALF_PTX("bf16x2", "");
#undef T1

static uint32_t half_of(uint32_t x, int i) { return (x >> (16 * i)) & 0xffffu; }

static uint32_t pick(double x, double y, uint32_t a, uint32_t b, bool min, bool nan) {
    if (isnan(x) || isnan(y)) return nan || (isnan(x) && isnan(y)) ? 0x7fffu : isnan(x) ? b : a;
    bool a_first = x < y || (x == y && (a & 0x8000u));
    return min == a_first ? a : b;
}

static bool lt(double x, double y) { return x < y; }

static void check_halves(const char *ptx, bool bf) {
    uint32_t *in = dev_alloc(N * 12), *out = dev_alloc(N * 64), seed = bf ? 7 : 3;
    static const uint16_t special[][2] = {{0x7c00, 0x3c00}, {0x7e00, 0x3c00}, {0x0001, 0x8001},
                                          {0x7bff, 0x7bff}, {0x8000, 0x0000}, {0x7e00, 0x7e01}};
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++) in[3 * i + k] = moderate(&seed, bf) | moderate(&seed, bf) << 16;
        if (i < 6 && !bf) { /* specials in the low halves of a and b (not c: fma stays exact) */
            in[3 * i] = (in[3 * i] & 0xffff0000u) | special[i][0];
            in[3 * i + 1] = (in[3 * i + 1] & 0xffff0000u) | special[i][1];
        }
        if (i == 7) in[3 * i + 2] = 0x33800001u; /* c as f32: just above 2^-24 */
        if (i == 8) in[3 * i + 2] = 0x477ff000u; /* past f16's largest */
    }
    void *p[] = {&in, &out};
    if (run(ptx, "k", 1, N, p) != CUDA_SUCCESS) fail_msg("%s", err);
    unsigned wrong = 0;
    for (int i = 0; i < N; i++) {
        uint32_t want[16] = {0};
        for (int h = 0; h < 2; h++) {
            uint32_t a = half_of(in[3 * i], h), b = half_of(in[3 * i + 1], h),
                     c = half_of(in[3 * i + 2], h);
            double x = val16(a, bf), y = val16(b, bf), z = val16(c, bf);
            double f = x * y + z; /* exact: moderate inputs */
            uint32_t r[10] = {oracle16(x + y, bf, RN),
                              oracle16(x - y, bf, RN),
                              oracle16(x * y, bf, RN),
                              oracle16(f, bf, RN),
                              bf ? oracle16(f, bf, RN)
                                 : oracle16(isnan(f) ? 0
                                            : f < 0  ? 0
                                            : f > 1  ? 1
                                                     : f,
                                            bf, RN),
                              oracle16(!isnan(f) && f < 0 ? 0 : f, bf, RN),
                              pick(x, y, a, b, true, false),
                              pick(x, y, a, b, false, true),
                              a ^ 0x8000u,
                              a & 0x7fffu};
            for (int k = 0; k < 10; k++) want[k] |= r[k] << (16 * h);
            want[11] |= (isnan(x) || isnan(y) || x > y ? 0xffffu : 0) << (16 * h);
        }
        double xl = val16(half_of(in[3 * i], 0), bf), yl = val16(half_of(in[3 * i + 1], 0), bf);
        double xh = val16(half_of(in[3 * i], 1), bf), yh = val16(half_of(in[3 * i + 1], 1), bf);
        want[10] = (uint32_t)lt(xl, yl) | (uint32_t)lt(xh, yh) << 1;
        float fh = (float)xh, fl = (float)xl;
        memcpy(&want[12], &fh, 4);
        if (isnan(fh)) want[12] = 0x7fffffffu;
        want[13] = oracle16(fh, bf, RN) << 16 | oracle16(fl, bf, RN);
        float cf;
        memcpy(&cf, &in[3 * i + 2], 4);
        want[14] = oracle16(cf, bf, RM) << 16 | oracle16(cf, bf, RZ);
        want[15] = oracle16(cf, bf, RN) << 16 | oracle16(cf, bf, RP);
        for (int k = 0; k < 16; k++) {
            if (out[16 * i + k] != want[k] && wrong++ < 8)
                printf("# %s thread %d result %d: 0x%08x, want 0x%08x (a 0x%08x b 0x%08x c "
                       "0x%08x)\n",
                       bf ? "bf16" : "f16", i, k, out[16 * i + k], want[k], in[3 * i],
                       in[3 * i + 1], in[3 * i + 2]);
        }
    }
    assert_int_equal(wrong, 0);
    dev_free_all();
}

static void test_f16x2(void **state) {
    (void)state;
    check_halves(f16_ptx, false);
}

static void test_bf16x2(void **state) {
    (void)state;
    check_halves(bf16_ptx, true);
}

/* Scalar halves: the same operations on .f16 and .bf16 registers, with .ftz on f16. */
static const char scalar_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .b16 %h<8>; .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .f32 %f<3>; .reg .pred %p1;\n"
         "ld.param.u64 %rd1, [out];\n"
         "mov.b16 %h1, 0x3c00; mov.b16 %h2, 0x0001;\n"         /* 1.0, the least subnormal */
         "add.f16 %h3, %h1, %h2; st.global.u16 [%rd1], %h3;\n" /* 1.0 (ties to even) */
         "add.rn.ftz.f16 %h3, %h2, %h2; st.global.u16 [%rd1+2], %h3;\n" /* 0 */
         "add.f16 %h3, %h2, %h2; st.global.u16 [%rd1+4], %h3;\n"        /* 0x0002 */
         "mov.b16 %h4, 0x3f80; mov.b16 %h5, 0x3b80;\n"                  /* bf16 1.0, 2^-8 */
         "add.rn.bf16 %h3, %h4, %h5; st.global.u16 [%rd1+6], %h3;\n"    /* 1.0 (tie, even) */
         "fma.rn.bf16 %h3, %h4, %h4, %h5; st.global.u16 [%rd1+8], %h3;\n"
         "mul.rn.bf16 %h3, %h4, %h5; st.global.u16 [%rd1+10], %h3;\n"
         "setp.gt.bf16 %p1, %h4, %h5; selp.u16 %h3, 1, 0, %p1; st.global.u16 [%rd1+12], %h3;\n"
         "cvt.f32.bf16 %f1, %h5; st.global.f32 [%rd1+16], %f1;\n"
         "cvt.rn.bf16.f32 %h3, 0f3F808000; st.global.u16 [%rd1+20], %h3;\n" /* tie: to even */
         "cvt.rn.bf16.f32 %h3, 0f3F818000; st.global.u16 [%rd1+22], %h3;\n" /* tie: up */
         "cvt.rn.f16.f32 %h3, 0f47800000; st.global.u16 [%rd1+24], %h3;\n"  /* 65536: inf */
         "cvt.rz.f16.f32 %h3, 0f47800000; st.global.u16 [%rd1+26], %h3;\n"  /* max */
         "cvt.rn.satfinite.f16.f32 %h3, 0f47800000; st.global.u16 [%rd1+28], %h3;\n"
         "cvt.rni.s32.f16 %r1, 0x3e00; st.global.u32 [%rd1+32], %r1;\n" /* 1.5: 2 */
         "cvt.rn.f16.s32 %h3, 2049; st.global.u16 [%rd1+36], %h3;\n"    /* 2048 */
         "cvt.rn.bf16.f16 %h3, 0x3555; st.global.u16 [%rd1+38], %h3;\n"
         "set.eq.f16.f16 %h3, %h1, %h1; st.global.u16 [%rd1+40], %h3;\n" /* 1.0 */
         "neg.bf16 %h3, %h4; st.global.u16 [%rd1+42], %h3;\n"
         "ret;\n}\n";

static void test_scalar_halves(void **state) {
    (void)state;
    uint16_t *out = dev_alloc(64);
    void *p[] = {&out};
    if (run(scalar_ptx, "k", 1, 1, p) != CUDA_SUCCESS) fail_msg("%s", err);
    assert_int_equal(out[0], 0x3c00);
    assert_int_equal(out[1], 0x0000);
    assert_int_equal(out[2], 0x0002);
    assert_int_equal(out[3], 0x3f80);
    assert_int_equal(out[4], oracle16(1.0 + 0x1p-8, true, RN)); /* 1 + 2^-8: tie, even: 1.0 */
    assert_int_equal(out[5], 0x3b80);
    assert_int_equal(out[6], 1);
    float f;
    memcpy(&f, &out[8], 4);
    assert_true(f == 0x1p-8f);
    assert_int_equal(out[10], 0x3f80);
    assert_int_equal(out[11], 0x3f82);
    assert_int_equal(out[12], 0x7c00);
    assert_int_equal(out[13], 0x7bff);
    assert_int_equal(out[14], 0x7bff);
    uint32_t i32;
    memcpy(&i32, &out[16], 4);
    assert_int_equal(i32, 2);
    assert_int_equal(out[18], 0x6800);
    assert_int_equal(out[19], oracle16(val16(0x3555, false), true, RN));
    assert_int_equal(out[20], 0x3c00);
    assert_int_equal(out[21], 0xbf80);
    dev_free_all();
}

/* ------------------------------------------------------------------------------------------ */
/* Directed rounding of f32 and f64                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Thread i: x, y, z from in[3i..]; 12 f32 results. */
static const char round_ptx[] =
    HEAD ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
         ".reg .f32 %f<8>; .reg .b32 %r<3>; .reg .b64 %rd<6>;\n"
         "ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout]; mov.u32 %r1, %tid.x;\n"
         "mul.wide.u32 %rd3, %r1, 12; add.s64 %rd3, %rd1, %rd3;\n"
         "mul.wide.u32 %rd4, %r1, 48; add.s64 %rd4, %rd2, %rd4;\n"
         "ld.global.f32 %f1, [%rd3]; ld.global.f32 %f2, [%rd3+4]; ld.global.f32 %f3, [%rd3+8];\n"
         "add.rz.f32 %f4, %f1, %f2; st.global.f32 [%rd4], %f4;\n"
         "add.rm.f32 %f4, %f1, %f2; st.global.f32 [%rd4+4], %f4;\n"
         "add.rp.f32 %f4, %f1, %f2; st.global.f32 [%rd4+8], %f4;\n"
         "sub.rz.f32 %f4, %f1, %f2; st.global.f32 [%rd4+12], %f4;\n"
         "mul.rm.f32 %f4, %f1, %f2; st.global.f32 [%rd4+16], %f4;\n"
         "mul.rp.f32 %f4, %f1, %f2; st.global.f32 [%rd4+20], %f4;\n"
         "fma.rz.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd4+24], %f4;\n"
         "fma.rp.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd4+28], %f4;\n"
         "div.rz.f32 %f4, %f1, %f2; st.global.f32 [%rd4+32], %f4;\n"
         "div.rp.f32 %f4, %f1, %f2; st.global.f32 [%rd4+36], %f4;\n"
         "sqrt.rm.f32 %f4, %f3; st.global.f32 [%rd4+40], %f4;\n"
         "rcp.rp.f32 %f4, %f2; st.global.f32 [%rd4+44], %f4;\n"
         "ret;\n}\n";

/* The exact value v rounded to float in a mode: the nearest, stepped once if on the wrong side. */
static float to_f32(double v, int mode) {
    float r = (float)v;
    if ((double)r == v) return r;
    bool above = (double)r > v;
    if (mode == RZ && fabs((double)r) > fabs(v)) r = nextafterf(r, 0.0f);
    if (mode == RM && above) r = nextafterf(r, -INFINITY);
    if (mode == RP && !above) r = nextafterf(r, INFINITY);
    return r;
}

/* How q compares with the exact a / b: -1 below, 0 equal, 1 above (q b - a is exact in double
 * for floats of [1, 2)). */
static int vs(float q, double a, double b) {
    double d = ((double)q * b - a) * (b < 0 ? -1 : 1);
    return d < 0 ? -1 : d > 0;
}

/* q is a / b rounded in a mode: on the mode's side of the exact value, its neighbour not. */
static bool quotient_ok(float q, double a, double b, int mode) {
    if (mode == RZ) {
        bool pos = (a < 0) == (b < 0);
        return pos ? vs(q, a, b) <= 0 && vs(nextafterf(q, INFINITY), a, b) > 0
                   : vs(q, a, b) >= 0 && vs(nextafterf(q, -INFINITY), a, b) < 0;
    }
    if (mode == RP) return vs(q, a, b) >= 0 && vs(nextafterf(q, -INFINITY), a, b) < 0;
    return vs(q, a, b) <= 0 && vs(nextafterf(q, INFINITY), a, b) > 0;
}

static void test_directed_f32(void **state) {
    (void)state;
    float *in = dev_alloc(N * 12), *out = dev_alloc(N * 48);
    uint32_t seed = 11;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++) {
            float m = 1.0f + (float)(rng(&seed) & 0x7fffff) * 0x1p-23f;
            in[3 * i + k] = (k < 2 && (rng(&seed) & 1)) ? -m : m;
        }
    }
    void *p[] = {&in, &out};
    if (run(round_ptx, "k", 1, N, p) != CUDA_SUCCESS) fail_msg("%s", err);
    unsigned wrong = 0;
    for (int i = 0; i < N; i++) {
        double x = in[3 * i], y = in[3 * i + 1], z = in[3 * i + 2];
        float want[8] = {to_f32(x + y, RZ),     to_f32(x + y, RM),    to_f32(x + y, RP),
                         to_f32(x - y, RZ),     to_f32(x * y, RM),    to_f32(x * y, RP),
                         to_f32(x * y + z, RZ), to_f32(x * y + z, RP)};
        const float *o = out + 12 * i;
        for (int k = 0; k < 8; k++) {
            if (memcmp(&o[k], &want[k], 4) != 0 && wrong++ < 8)
                printf("# thread %d result %d: %a, want %a\n", i, k, o[k], want[k]);
        }
        /* div, sqrt, rcp: the result brackets the exact value from the mode's side */
        bool ok = quotient_ok(o[8], x, y, RZ) && quotient_ok(o[9], x, y, RP) &&
                  quotient_ok(o[11], 1.0, y, RP);
        double s = (double)o[10] * o[10], s2 = (double)nextafterf(o[10], INFINITY);
        ok = ok && s <= z && s2 * s2 > z;
        if (!ok && wrong++ < 8)
            printf("# thread %d: div/sqrt/rcp %a %a %a %a\n", i, o[8], o[9], o[10], o[11]);
    }
    assert_int_equal(wrong, 0);
    dev_free_all();
}

static const char round64_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .f64 %fd<8>; .reg .b64 %rd<3>; .reg .f32 %f1;\n"
         "ld.param.u64 %rd1, [out];\n"
         "mov.f64 %fd1, 0d3FF0000000000000; mov.f64 %fd2, 0d3C30000000000000;\n" /* 1, 2^-60 */
         "add.rp.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd1], %fd3;\n"
         "add.rm.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd1+8], %fd3;\n"
         "sub.rz.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd1+16], %fd3;\n"
         "mul.rp.f64 %fd3, 0d3FF0000000000001, 0d3FF0000000000001; st.global.f64 [%rd1+24], %fd3;\n"
         "fma.rm.f64 %fd3, %fd2, %fd2, %fd1; st.global.f64 [%rd1+32], %fd3;\n"
         "div.rz.f64 %fd3, %fd1, 0d4008000000000000; st.global.f64 [%rd1+40], %fd3;\n"
         "div.rp.f64 %fd3, %fd1, 0d4008000000000000; st.global.f64 [%rd1+48], %fd3;\n"
         "sqrt.rp.f64 %fd3, 0d4000000000000000; st.global.f64 [%rd1+56], %fd3;\n"
         "rcp.rm.f64 %fd3, 0dC008000000000000; st.global.f64 [%rd1+64], %fd3;\n"
         "ret;\n}\n";

static void test_directed_f64(void **state) {
    (void)state;
    double *out = dev_alloc(128);
    void *p[] = {&out};
    if (run(round64_ptx, "k", 1, 1, p) != CUDA_SUCCESS) fail_msg("%s", err);
    const double one_up = nextafter(1.0, 2.0), third = 0x1.5555555555555p-2;
    assert_true(out[0] == one_up);
    assert_true(out[1] == 1.0);
    assert_true(out[2] == nextafter(1.0, 0.0));
    assert_true(out[3] == nextafter(1.0 + 0x1p-51, 2.0)); /* (1+u)^2 = 1 + 2u + u^2 */
    assert_true(out[4] == 1.0);
    assert_true(out[5] == third); /* 1/3 rounds down to nearest anyway */
    assert_true(out[6] == nextafter(third, 1.0));
    assert_true(out[7] == sqrt(2.0)); /* the nearest double to sqrt(2) is above it */
    assert_true(out[8] == -nextafter(third, 1.0));
    dev_free_all();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16x2),         cmocka_unit_test(test_bf16x2),
        cmocka_unit_test(test_scalar_halves), cmocka_unit_test(test_directed_f32),
        cmocka_unit_test(test_directed_f64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
