// Double precision, every operation correctly rounded in IEEE 754 (so the host gets the same bits):
// fma, products, quotients, square roots, and conversions to float and to integers.
extern "C" __global__ void k_dp(const double *x, const double *y, double *out, long long *iout,
                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    out[6 * i + 0] = fma(a, b, 1.0 / 3.0);
    out[6 * i + 1] = __dmul_rn(a, b) + a;
    out[6 * i + 2] = a / b;
    out[6 * i + 3] = sqrt(fabs(a));
    out[6 * i + 4] = (double)(float)a + (double)__double2float_rz(b);
    out[6 * i + 5] = fmin(a, b) - fmax(a, b);
    iout[2 * i + 0] = (long long)(a * 1e6);
    iout[2 * i + 1] = __double2ll_rd(b * 1e3) + (long long)__double2int_rn(a);
}
