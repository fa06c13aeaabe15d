// Directed rounding: the float and double intrinsics that round toward zero (_rz), down (_rd)
// and up (_ru), which nvcc writes as add/sub/mul/fma/div/sqrt/rcp with .rz, .rm and .rp.
extern "C" __global__ void k_rounding(const float *x, const float *y, const double *dx,
                                      const double *dy, float *out, double *dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float *o = out + 12 * i;
    o[0] = __fadd_rz(a, b);
    o[1] = __fadd_rd(a, b);
    o[2] = __fadd_ru(a, b);
    o[3] = __fsub_rz(a, b);
    o[4] = __fmul_rd(a, b);
    o[5] = __fmul_ru(a, b);
    o[6] = __fmaf_rz(a, b, 1.0f / 3.0f);
    o[7] = __fmaf_ru(a, b, 1.0f / 3.0f);
    o[8] = __fdiv_rz(a, b);
    o[9] = __fdiv_ru(a, b);
    o[10] = __fsqrt_rd(fabsf(a));
    o[11] = __frcp_ru(b);
    double c = dx[i], d = dy[i];
    double *q = dout + 8 * i;
    q[0] = __dadd_rz(c, d);
    q[1] = __dadd_rd(c, d);
    q[2] = __dmul_ru(c, d);
    q[3] = __fma_rz(c, d, 1.0 / 3.0);
    q[4] = __ddiv_rd(c, d);
    q[5] = __ddiv_ru(c, d);
    q[6] = __dsqrt_ru(fabs(c));
    q[7] = __drcp_rz(d);
}
