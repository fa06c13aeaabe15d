/* The kernels of the instruction families that samples and libraries use beyond plain float and
 * integer code: half and bfloat16 (cu/half.cu), directed rounding (cu/rounding.cu), tensor cores
 * and named barriers (cu/tensor.cu). References are bit for bit: half results against a search
 * over the format's values of the exact (or, by the double-rounding theorem, the double)
 * result; directed rounding against the host's own IEEE operations in the same mode; matrix
 * products of small integers, exact in any order. NaN results are compared as NaN only (their
 * bits are the implementation's). */
#include <fenv.h>
#include <math.h>

#include "kernel_util.h"

enum { RN, RZ, RM, RP };

static double half_value(uint32_t h, bool bf) {
    h &= 0xffffu;
    if (bf) {
        uint32_t x = h << 16;
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

/* v rounded to f16 or bf16 in a mode: the largest encoding not above |v| found by bisection
 * (positive encodings are ordered as their values), then the mode's choice of it and the next. */
static uint32_t to_half(long double v, bool bf, int mode) {
    if (isnan(v)) return 0x7fffu;
    uint32_t s = signbit(v) ? 0x8000u : 0, maxf = bf ? 0x7f7fu : 0x7bffu;
    long double a = fabsl(v);
    if (isinf(a)) return s | (maxf + 1);
    uint32_t lo = 0, hi = maxf;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (half_value(mid, bf) <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    long double vlo = half_value(lo, bf);
    if (vlo == a) return s | lo;
    long double vup = lo == maxf ? 2 * vlo - half_value(lo - 1, bf) : half_value(lo + 1, bf);
    bool up = mode == RP   ? !s
              : mode == RM ? s != 0
              : mode == RZ ? false
                           : a - vlo > vup - a || (a - vlo == vup - a && (lo & 1));
    return s | (up ? lo + 1 : lo);
}

static bool half_nan(uint32_t h, bool bf) { return isnan(half_value(h, bf)); }

/* x y + z, exact as a half sees it: the double sum, or, where the sum lost its error term (found
 * by the two-sum), a long double a quarter of a double's unit past it on the error's side. No
 * half's value or midpoint lies strictly between two neighbouring doubles, so it rounds as the
 * exact value does. */
static long double exact_fma(double x, double y, double z) {
    double p = x * y; /* exact: 22 bits at most */
    double sum = p + z;
    if (!isfinite(sum)) return sum;
    double bb = sum - p, e = (p - (sum - bb)) + (z - bb);
    if (e == 0) return sum;
    return (long double)sum + (long double)(nextafter(sum, e > 0 ? INFINITY : -INFINITY) - sum) / 4;
}

/* Two halves compared: equal bits, or both NaN. */
static bool same_pair(uint32_t got, uint32_t want, bool bf) {
    for (int i = 0; i < 2; i++) {
        uint32_t g = (got >> (16 * i)) & 0xffffu, w = (want >> (16 * i)) & 0xffffu;
        if (g != w && !(half_nan(g, bf) && half_nan(w, bf))) return false;
    }
    return true;
}

static uint32_t pick(uint32_t a, uint32_t b, bool bf, bool min) {
    double x = half_value(a, bf), y = half_value(b, bf);
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y) ? 0x7fffu : isnan(x) ? b : a;
    bool a_first = x < y || (x == y && (a & 0x8000u));
    return min == a_first ? a : b;
}

/* The 19 pair results of k_half for halves a, b, c of format bf, as pairs. */
static void half_ref(uint32_t ua, uint32_t ub, uint32_t uc, uint32_t *want) {
    memset(want, 0, 19 * sizeof *want);
    for (int h = 0; h < 2; h++) {
        uint32_t a = (ua >> (16 * h)) & 0xffffu, b = (ub >> (16 * h)) & 0xffffu,
                 c = (uc >> (16 * h)) & 0xffffu;
        for (int bf = 0; bf <= 1; bf++) {
            double x = half_value(a, bf), y = half_value(b, bf), z = half_value(c, bf);
            long double f = exact_fma(x, y, z);
            uint32_t r[9] = {to_half(x + y, bf, RN),
                             to_half(x - y, bf, RN),
                             to_half(x * y, bf, RN),
                             to_half(f, bf, RN),
                             to_half(isnan(f) ? 0
                                     : f < 0  ? 0
                                     : f > 1  ? 1
                                              : f,
                                     bf, RN),
                             to_half(!isnan(f) && f < 0 ? 0 : f, bf, RN),
                             pick(a, b, bf, true),
                             pick(a, b, bf, false),
                             a ^ 0x8000u};
            if (!bf) {
                for (int k = 0; k < 9; k++) want[k] |= r[k] << (16 * h);
                want[9] |= (a & 0x7fffu) << (16 * h);
                want[10] |= (x < y ? 0x3c00u : 0) << (16 * h);
            } else {
                int map[8] = {11, 12, 13, 14, 15, 16, 17, 18};
                int from[8] = {0, 1, 2, 3, 5, 6, 7, 8};
                for (int k = 0; k < 8; k++) want[map[k]] |= r[from[k]] << (16 * h);
            }
        }
    }
}

void kernel_half(void **state) {
    (void)state;
    enum { N = 512 };
    const cushim_function *f = kernel_get("half", "k_half");
    uint32_t *in = host_alloc(3 * N * sizeof *in), seed = 17;
    float *v = host_alloc(N * sizeof *v);
    static const uint32_t special[] = {0x7c00, 0x7e00, 0x0001, 0x7bff, 0x8000, 0xfc00, 0x03ff};
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++) in[3 * i + k] = rng_next(&seed);
        if (i < 7) in[3 * i] = (in[3 * i] & 0xffff0000u) | special[i];
        float m = 1.0f + (float)(rng_next(&seed) & 0x7fffff) * 0x1p-23f;
        v[i] = ldexpf((rng_next(&seed) & 1) ? -m : m, (int)(rng_next(&seed) % 56) - 30);
    }
    v[0] = 65520.0f; /* f16's rounding boundary to infinity */
    v[1] = 0x1p-25f; /* half of f16's least subnormal */
    int n = N;
    CUdeviceptr din = dev_copy(in, 3 * N * sizeof *in), dv = dev_copy(v, N * sizeof *v),
                dout = dev_zeroed(24 * N * sizeof(uint32_t));
    void *params[] = {&din, &dv, &dout, &n};
    kernel_run(f, CUSHIM_DIM3(N / 128), CUSHIM_DIM3(128), 0, params);
    uint32_t *out = host_alloc(24 * N * sizeof *out);
    dev_take(out, dout, 24 * N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(din));
    assert_ok(cushim_driver()->cuMemFree(dv));
    unsigned wrong = 0;
    for (int i = 0; i < N; i++) {
        uint32_t want[24];
        half_ref(in[3 * i], in[3 * i + 1], in[3 * i + 2], want);
        double x = v[i];
        want[19] = to_half(-x, false, RN) << 16 | to_half(x, false, RN);
        want[20] = to_half(x, false, RZ) | to_half(x, false, RM) << 16;
        want[21] = to_half(x, false, RP) | to_half(x, true, RN) << 16;
        want[22] = to_half(x, true, RZ) | to_half(x, true, RP) << 16;
        float back = (float)half_value(in[3 * i], false) + (float)half_value(in[3 * i] >> 16, true);
        memcpy(&want[23], &back, 4);
        for (int k = 0; k < 24; k++) {
            bool ok = k == 23 ? (out[24 * i + k] == want[k] ||
                                 (isnan(back) && (out[24 * i + k] & 0x7fffffffu) > 0x7f800000u))
                              : same_pair(out[24 * i + k], want[k], k >= 11 && k <= 18);
            if (!ok && wrong++ < 8)
                printf("# element %d result %d: 0x%08x, want 0x%08x (a 0x%08x b 0x%08x c 0x%08x "
                       "v %a)\n",
                       i, k, out[24 * i + k], want[k], in[3 * i], in[3 * i + 1], in[3 * i + 2], x);
        }
    }
    assert_int_equal(wrong, 0);
    free(in);
    free(v);
    free(out);
}

/* ------------------------------------------------------------------------------------------ */

static int host_mode(int m) {
    return m == RZ ? FE_TOWARDZERO : m == RM ? FE_DOWNWARD : m == RP ? FE_UPWARD : FE_TONEAREST;
}

enum { F_ADD, F_SUB, F_MUL, F_FMA, F_DIV, F_SQRT, F_RCP };

/* The host's IEEE operation in a mode (the environment put back after). */
static float f32_in(int op, int mode, float a, float b, float c) {
    int old = fegetround();
    fesetround(host_mode(mode));
    volatile float x = a, y = b, z = c, r;
    switch (op) {
    case F_ADD: r = x + y; break;
    case F_SUB: r = x - y; break;
    case F_MUL: r = x * y; break;
    case F_FMA: r = fmaf(x, y, z); break;
    case F_DIV: r = x / y; break;
    case F_SQRT: r = sqrtf(x); break;
    default: r = 1.0f / x; break;
    }
    float v = r;
    fesetround(old);
    return v;
}

static double f64_in(int op, int mode, double a, double b, double c) {
    int old = fegetround();
    fesetround(host_mode(mode));
    volatile double x = a, y = b, z = c, r;
    switch (op) {
    case F_ADD: r = x + y; break;
    case F_MUL: r = x * y; break;
    case F_FMA: r = fma(x, y, z); break;
    case F_DIV: r = x / y; break;
    case F_SQRT: r = sqrt(x); break;
    default: r = 1.0 / x; break;
    }
    double v = r;
    fesetround(old);
    return v;
}

void kernel_rounding(void **state) {
    (void)state;
    enum { N = 1024 };
    const cushim_function *f = kernel_get("rounding", "k_rounding");
    float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
    double *dx = host_alloc(N * sizeof *dx), *dy = host_alloc(N * sizeof *dy);
    uint32_t seed = 23;
    for (int i = 0; i < N; i++) {
        x[i] = ldexpf(rng_float(&seed, -2, 2), (int)(rng_next(&seed) % 40) - 20);
        y[i] = ldexpf(rng_float(&seed, 0.5f, 2), (int)(rng_next(&seed) % 40) - 20);
        if (rng_next(&seed) & 1) y[i] = -y[i];
        dx[i] = (double)x[i] * (1.0 + (double)rng_next(&seed) * 0x1p-40);
        dy[i] = (double)y[i] / 3.0;
    }
    int n = N;
    CUdeviceptr px = dev_copy(x, N * sizeof *x), py = dev_copy(y, N * sizeof *y),
                pdx = dev_copy(dx, N * sizeof *dx), pdy = dev_copy(dy, N * sizeof *dy),
                pout = dev_zeroed(12 * N * sizeof(float)),
                pdout = dev_zeroed(8 * N * sizeof(double));
    void *params[] = {&px, &py, &pdx, &pdy, &pout, &pdout, &n};
    kernel_run(f, CUSHIM_DIM3(N / 256), CUSHIM_DIM3(256), 0, params);
    float *out = host_alloc(12 * N * sizeof *out);
    double *dout = host_alloc(8 * N * sizeof *dout);
    dev_take(out, pout, 12 * N * sizeof *out);
    dev_take(dout, pdout, 8 * N * sizeof *dout);
    assert_ok(cushim_driver()->cuMemFree(px));
    assert_ok(cushim_driver()->cuMemFree(py));
    assert_ok(cushim_driver()->cuMemFree(pdx));
    assert_ok(cushim_driver()->cuMemFree(pdy));
    unsigned wrong = 0;
    const float third = 1.0f / 3.0f;
    for (int i = 0; i < N; i++) {
        float a = x[i], b = y[i];
        float want[12] = {f32_in(F_ADD, RZ, a, b, 0),         f32_in(F_ADD, RM, a, b, 0),
                          f32_in(F_ADD, RP, a, b, 0),         f32_in(F_SUB, RZ, a, b, 0),
                          f32_in(F_MUL, RM, a, b, 0),         f32_in(F_MUL, RP, a, b, 0),
                          f32_in(F_FMA, RZ, a, b, third),     f32_in(F_FMA, RP, a, b, third),
                          f32_in(F_DIV, RZ, a, b, 0),         f32_in(F_DIV, RP, a, b, 0),
                          f32_in(F_SQRT, RM, fabsf(a), 0, 0), f32_in(F_RCP, RP, b, 0, 0)};
        for (int k = 0; k < 12; k++) {
            if (memcmp(&out[12 * i + k], &want[k], 4) != 0 && wrong++ < 8)
                printf("# element %d f32 result %d: %a, want %a\n", i, k, out[12 * i + k], want[k]);
        }
        double c = dx[i], d = dy[i];
        double dwant[8] = {f64_in(F_ADD, RZ, c, d, 0),        f64_in(F_ADD, RM, c, d, 0),
                           f64_in(F_MUL, RP, c, d, 0),        f64_in(F_FMA, RZ, c, d, 1.0 / 3.0),
                           f64_in(F_DIV, RM, c, d, 0),        f64_in(F_DIV, RP, c, d, 0),
                           f64_in(F_SQRT, RP, fabs(c), 0, 0), f64_in(F_RCP, RZ, d, 0, 0)};
        for (int k = 0; k < 8; k++) {
            if (memcmp(&dout[8 * i + k], &dwant[k], 8) != 0 && wrong++ < 8)
                printf("# element %d f64 result %d: %a, want %a\n", i, k, dout[8 * i + k],
                       dwant[k]);
        }
    }
    assert_int_equal(wrong, 0);
    free(x);
    free(y);
    free(dx);
    free(dy);
    free(out);
    free(dout);
}

/* ------------------------------------------------------------------------------------------ */

static uint16_t small_half(int v) {
    if (v == 0) return 0;
    int e;
    double m = frexp(fabs((double)v), &e);
    uint16_t bits = (uint16_t)((e + 14) << 10 | (uint16_t)((m * 2 - 1) * 1024));
    return v < 0 ? (uint16_t)(bits | 0x8000u) : bits;
}

static int small_int(uint32_t *s) { return (int)(rng_next(s) % 9) - 4; }

void kernel_tensor(void **state) {
    (void)state;
    int A[16][16], B[16][16], C[16][16];
    uint16_t ha[256], hb_col[256], hb_row[256];
    float fc[256];
    uint32_t seed = 29;
    for (int r = 0; r < 16; r++) {
        for (int c = 0; c < 16; c++) {
            A[r][c] = small_int(&seed);
            B[r][c] = small_int(&seed);
            C[r][c] = small_int(&seed);
            ha[r * 16 + c] = small_half(A[r][c]);
            hb_col[c * 16 + r] = small_half(B[r][c]);
            hb_row[r * 16 + c] = small_half(B[r][c]);
            fc[r * 16 + c] = (float)C[r][c];
        }
    }
    /* wmma: D = A B + 2 C */
    const cushim_function *fw = kernel_get("tensor", "k_wmma");
    CUdeviceptr da = dev_copy(ha, sizeof ha), db = dev_copy(hb_col, sizeof hb_col),
                dc = dev_copy(fc, sizeof fc), dd = dev_zeroed(sizeof fc);
    void *pw[] = {&da, &db, &dc, &dd};
    kernel_run(fw, CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, pw);
    float d[256];
    dev_take(d, dd, sizeof d);
    mismatch m = {"wmma", 0};
    for (int r = 0; r < 16; r++) {
        for (int c = 0; c < 16; c++) {
            int want = 2 * C[r][c];
            for (int k = 0; k < 16; k++) want += A[r][k] * B[k][c];
            mismatch_f32(&m, (size_t)(r * 16 + c), d[r * 16 + c], (float)want, 0);
        }
    }
    assert_ok(cushim_driver()->cuMemFree(db));
    /* mma.sync with ldmatrix: lane l's d_i of tile nt at out[nt * 128 + l * 4 + i], row
     * groupID + 8 (i >= 2), column nt * 8 + threadID_in_group * 2 + (i & 1). */
    const cushim_function *fm = kernel_get("tensor", "k_mma");
    CUdeviceptr db2 = dev_copy(hb_row, sizeof hb_row), dd2 = dev_zeroed(sizeof d);
    void *pm[] = {&da, &db2, &dd2};
    kernel_run(fm, CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, pm);
    dev_take(d, dd2, sizeof d);
    m.what = "mma";
    for (int nt = 0; nt < 2; nt++) {
        for (int l = 0; l < 32; l++) {
            for (int i = 0; i < 4; i++) {
                int r = l / 4 + (i >= 2 ? 8 : 0), c = nt * 8 + (l % 4) * 2 + (i & 1), want = 0;
                for (int k = 0; k < 16; k++) want += A[r][k] * B[k][c];
                mismatch_f32(&m, (size_t)(nt * 128 + l * 4 + i), d[nt * 128 + l * 4 + i],
                             (float)want, 0);
            }
        }
    }
    assert_ok(cushim_driver()->cuMemFree(da));
    assert_ok(cushim_driver()->cuMemFree(db2));
    assert_ok(cushim_driver()->cuMemFree(dc));
    /* bar.arrive: 10 rounds of a producer warp and a consumer warp */
    const cushim_function *fa = kernel_get("tensor", "k_arrive");
    CUdeviceptr dout = dev_zeroed(64 * sizeof(uint32_t));
    int rounds = 10;
    void *pa[] = {&dout, &rounds};
    kernel_run(fa, CUSHIM_DIM3(1), CUSHIM_DIM3(64), 0, pa);
    uint32_t sums[64];
    dev_take(sums, dout, sizeof sums);
    for (int t = 0; t < 64; t++)
        mismatch_u32(&m, (size_t)t, sums[t], t < 32 ? 4500u + 10u * (uint32_t)t : 0);
    assert_int_equal(m.wrong, 0);
}

/* ------------------------------------------------------------------------------------------ */

static int op_of(int i, int a, int b) {
    switch (i % 3) {
    case 0: return a + b;
    case 1: return a * b;
    default: return a - b;
    }
}

void kernel_calls(void **state) {
    (void)state;
    enum { N = 300, BLOCKS = 4 };
    /* A 16 MiB heap for device malloc, set before the module that uses it is loaded. */
    assert_ok(cushim_driver()->cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 16 << 20));
    size_t heap = 0;
    assert_ok(cushim_driver()->cuCtxGetLimit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_true(heap == 16 << 20);
    const cushim_function *f = kernel_get("calls", "k_calls");
    int *x = host_alloc(N * sizeof *x), *out = host_alloc(2 * N * sizeof *out);
    uint32_t seed = 31;
    for (int i = 0; i < N; i++) x[i] = (int)(rng_next(&seed) % 2001) - 1000;
    int n = N;
    CUdeviceptr dx = dev_copy(x, N * sizeof *x), dout = dev_zeroed(2 * N * sizeof *out);
    void *params[] = {&dx, &dout, &n};
    kernel_run(f, CUSHIM_DIM3((N + 127) / 128), CUSHIM_DIM3(128), 0, params);
    dev_take(out, dout, 2 * N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(dx));
    mismatch m = {"calls", 0};
    for (int i = 0; i < N; i++) {
        int r = op_of(i, x[i], i), len = 1 + i % 7;
        mismatch_u32(&m, (size_t)(2 * i), (uint32_t)out[2 * i], (uint32_t)r);
        mismatch_u32(&m, (size_t)(2 * i + 1), (uint32_t)out[2 * i + 1],
                     (uint32_t)(len * r + len * (len - 1) / 2));
    }
    /* A block's allocation kept from one launch to the next, then freed. */
    const cushim_function *keep = kernel_get("calls", "k_keep");
    CUdeviceptr slots = dev_zeroed(BLOCKS * sizeof(unsigned long long)),
                sums = dev_zeroed(BLOCKS * sizeof(int));
    void *pk[] = {&slots};
    kernel_run(keep, CUSHIM_DIM3(BLOCKS), CUSHIM_DIM3(32), 0, pk);
    /* Unloading the module keeps the context's heap and what is allocated in it. */
    const cushim_function *use = kernel_get("calls", "k_use");
    void *pu[] = {&slots, &sums};
    kernel_run(use, CUSHIM_DIM3(BLOCKS), CUSHIM_DIM3(32), 0, pu);
    int got[BLOCKS];
    dev_take(got, sums, sizeof got);
    assert_ok(cushim_driver()->cuMemFree(slots));
    for (int b = 0; b < BLOCKS; b++)
        mismatch_u32(&m, (size_t)b, (uint32_t)got[b], (uint32_t)(64 * 1000 * b + 63 * 64 / 2));
    free(x);
    free(out);
    assert_int_equal(m.wrong, 0);
}
