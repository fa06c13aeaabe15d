// The fast intrinsics, each one PTX approximation instruction: ex2, sin, cos, lg2, div.approx
// and rsqrt (the test checks them against the ISA's error bounds).
extern "C" __global__ void k_fastmath(const float *x, const float *y, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    out[6 * i + 0] = __expf(a);
    out[6 * i + 1] = __sinf(a);
    out[6 * i + 2] = __cosf(a);
    out[6 * i + 3] = __logf(b);
    out[6 * i + 4] = __fdividef(a, b);
    out[6 * i + 5] = rsqrtf(b);
}
