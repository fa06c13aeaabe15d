/* The floating-point kernels against host references. Where the device rounds like IEEE 754
 * (fma, add, mul, div.rn, sqrt.rn, cvt.rn), the host computes the same operations in the same order
 * and the results must be the same bits; the approximations are checked against their error bounds
 * (the CUDA C Programming Guide's table of intrinsics, which are the PTX .approx instructions). */
#include <math.h>

#include "kernel_util.h"

void kernel_saxpy(void **state) {
    (void)state;
    enum { N = 10000 };
    const cushim_function *f = kernel_get("saxpy", "k_saxpy");
    float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
    uint32_t seed = 1;
    for (int i = 0; i < N; i++) {
        x[i] = rng_float(&seed, -100, 100);
        y[i] = rng_float(&seed, -100, 100);
    }
    float a = 1.75f;
    int n = N;
    CUdeviceptr dx = dev_copy(x, N * sizeof *x), dy = dev_copy(y, N * sizeof *y);
    void *params[] = {&n, &a, &dx, &dy};
    kernel_run(f, CUSHIM_DIM3((N + 255) / 256), CUSHIM_DIM3(256), 0, params);
    float *out = host_alloc(N * sizeof *out);
    dev_take(out, dy, N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(dx));
    mismatch m = {"y", 0};
    for (int i = 0; i < N; i++) mismatch_f32(&m, (size_t)i, out[i], fmaf(a, x[i], y[i]), 0);
    assert_int_equal(m.wrong, 0);
    free(x);
    free(y);
    free(out);
}

void kernel_transpose(void **state) {
    (void)state;
    enum { W = 100, H = 70 };
    const cushim_function *f = kernel_get("transpose", "k_transpose");
    float *in = host_alloc(W * H * sizeof *in), *out = host_alloc(W * H * sizeof *out);
    for (int i = 0; i < W * H; i++) in[i] = (float)i * 0.5f;
    CUdeviceptr din = dev_copy(in, W * H * sizeof *in), dout = dev_zeroed(W * H * sizeof *out);
    int w = W, h = H;
    void *params[] = {&din, &dout, &w, &h};
    kernel_run(f, CUSHIM_DIM3((W + 31) / 32, (H + 31) / 32), CUSHIM_DIM3(32, 8), 0, params);
    dev_take(out, dout, W * H * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(din));
    mismatch m = {"out", 0};
    for (int y = 0; y < W; y++) {
        for (int x = 0; x < H; x++) {
            mismatch_f32(&m, (size_t)(y * H + x), out[y * H + x], in[x * W + y], 0);
        }
    }
    assert_int_equal(m.wrong, 0);
    free(in);
    free(out);
}

/* Rounds a double to float toward zero, as cvt.rz.f32.f64. */
static float to_float_rz(double d) {
    float f = (float)d;
    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
    return f;
}

void kernel_dp(void **state) {
    (void)state;
    enum { N = 1000 };
    const cushim_function *f = kernel_get("dp", "k_dp");
    double *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
    uint32_t seed = 2;
    for (int i = 0; i < N; i++) {
        x[i] = (double)rng_float(&seed, -1000, 1000) + (double)rng_next(&seed) * 1e-12;
        y[i] = (double)rng_float(&seed, 0.5f, 100) * (rng_next(&seed) & 1 ? 1 : -1) / 3.0;
    }
    int n = N;
    CUdeviceptr dx = dev_copy(x, N * sizeof *x), dy = dev_copy(y, N * sizeof *y),
                dout = dev_zeroed(6 * N * sizeof(double)),
                diout = dev_zeroed(2 * N * sizeof(long long));
    void *params[] = {&dx, &dy, &dout, &diout, &n};
    kernel_run(f, CUSHIM_DIM3((N + 127) / 128), CUSHIM_DIM3(128), 0, params);
    double *out = host_alloc(6 * N * sizeof *out);
    long long *iout = host_alloc(2 * N * sizeof *iout);
    dev_take(out, dout, 6 * N * sizeof *out);
    dev_take(iout, diout, 2 * N * sizeof *iout);
    assert_ok(cushim_driver()->cuMemFree(dx));
    assert_ok(cushim_driver()->cuMemFree(dy));
    unsigned wrong = 0;
    for (int i = 0; i < N; i++) {
        double a = x[i], b = y[i];
        volatile double product = a * b; /* rounded on its own, never fused with the add */
        double want[6] = {fma(a, b, 1.0 / 3.0),
                          product + a,
                          a / b,
                          sqrt(fabs(a)),
                          (double)(float)a + (double)to_float_rz(b),
                          fmin(a, b) - fmax(a, b)};
        long long iwant[2] = {(long long)(a * 1e6),
                              (long long)floor(b * 1e3) + (long long)(int)nearbyint(a)};
        for (int k = 0; k < 6; k++) {
            if (memcmp(&out[6 * i + k], &want[k], sizeof want[k]) != 0 && wrong++ < 5) {
                printf("# out[%d][%d] = %a, want %a\n", i, k, out[6 * i + k], want[k]);
            }
        }
        for (int k = 0; k < 2; k++) {
            if (iout[2 * i + k] != iwant[k] && wrong++ < 5) {
                printf("# iout[%d][%d] = %lld, want %lld\n", i, k, iout[2 * i + k], iwant[k]);
            }
        }
    }
    assert_int_equal(wrong, 0);
    free(x);
    free(y);
    free(out);
    free(iout);
}

void kernel_fastmath(void **state) {
    (void)state;
    enum { N = 1000 };
    const cushim_function *f = kernel_get("fastmath", "k_fastmath");
    float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
    uint32_t seed = 3;
    const float pi = 3.14159265f;
    for (int i = 0; i < N; i++) {
        x[i] = rng_float(&seed, -pi, pi);
        y[i] = rng_float(&seed, 0.1f, 100.0f);
    }
    int n = N;
    CUdeviceptr dx = dev_copy(x, N * sizeof *x), dy = dev_copy(y, N * sizeof *y),
                dout = dev_zeroed(6 * N * sizeof(float));
    void *params[] = {&dx, &dy, &dout, &n};
    kernel_run(f, CUSHIM_DIM3((N + 127) / 128), CUSHIM_DIM3(128), 0, params);
    float *out = host_alloc(6 * N * sizeof *out);
    dev_take(out, dout, 6 * N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(dx));
    assert_ok(cushim_driver()->cuMemFree(dy));
    /* The bounds hold against the exact value; the reference is that value rounded to float, up
     * to half an ulp away, hence the extra ulp and the extra 2^-24 below. */
    mismatch m = {"fastmath", 0};
    for (int i = 0; i < N; i++) {
        double a = x[i], b = y[i];
        const float *o = out + 6 * i;
        /* __expf: 2 + floor(|1.173 x|) ulp. */
        mismatch_ulp(&m, (size_t)(6 * i), o[0], (float)exp(a), 3 + (uint32_t)fabs(1.173 * a));
        /* __sinf, __cosf in [-pi, pi]: absolute 2^-21.41 and 2^-21.19. */
        mismatch_f32(&m, (size_t)(6 * i + 1), o[1], (float)sin(a), pow(2, -21.41) + 0x1p-24);
        mismatch_f32(&m, (size_t)(6 * i + 2), o[2], (float)cos(a), pow(2, -21.19) + 0x1p-24);
        /* __logf: absolute 2^-21.41 in [0.5, 2], else 3 ulp. */
        if (b >= 0.5 && b <= 2.0) {
            mismatch_f32(&m, (size_t)(6 * i + 3), o[3], (float)log(b), pow(2, -21.41) + 0x1p-24);
        } else {
            mismatch_ulp(&m, (size_t)(6 * i + 3), o[3], (float)log(b), 4);
        }
        /* __fdividef for |y| in [2^-126, 2^126]: 2 ulp; rsqrtf: 2 ulp. */
        mismatch_ulp(&m, (size_t)(6 * i + 4), o[4], (float)(a / b), 3);
        mismatch_ulp(&m, (size_t)(6 * i + 5), o[5], (float)(1.0 / sqrt(b)), 3);
    }
    assert_int_equal(m.wrong, 0);
    free(x);
    free(y);
    free(out);
}

void kernel_matmul(void **state) {
    (void)state;
    enum { M = 50, N = 40, K = 70 };
    const cushim_function *f = kernel_get("matmul", "k_matmul");
    float *a = host_alloc(M * K * sizeof *a), *b = host_alloc(K * N * sizeof *b),
          *c = host_alloc(M * N * sizeof *c);
    uint32_t seed = 4;
    for (int i = 0; i < M * K; i++) a[i] = rng_float(&seed, -1, 1);
    for (int i = 0; i < K * N; i++) b[i] = rng_float(&seed, -1, 1);
    CUdeviceptr da = dev_copy(a, M * K * sizeof *a), db = dev_copy(b, K * N * sizeof *b),
                dc = dev_zeroed(M * N * sizeof *c);
    int m = M, n = N, k = K;
    void *params[] = {&da, &db, &dc, &m, &n, &k};
    kernel_run(f, CUSHIM_DIM3((N + 15) / 16, (M + 15) / 16), CUSHIM_DIM3(16, 16), 0, params);
    dev_take(c, dc, M * N * sizeof *c);
    assert_ok(cushim_driver()->cuMemFree(da));
    assert_ok(cushim_driver()->cuMemFree(db));
    mismatch mm = {"c", 0};
    for (int r = 0; r < M; r++) {
        for (int col = 0; col < N; col++) {
            float sum = 0.0f;
            for (int j = 0; j < K; j++) sum = fmaf(a[r * K + j], b[j * N + col], sum);
            mismatch_f32(&mm, (size_t)(r * N + col), c[r * N + col], sum, 0);
        }
    }
    assert_int_equal(mm.wrong, 0);
    free(a);
    free(b);
    free(c);
}
