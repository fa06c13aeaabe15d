// Device functions that nvcc must call rather than inline: scalar and pointer parameters, a
// returned value, and one called from a loop.
__device__ __noinline__ int mix(int a, float b, const int *p, int k) {
    int s = a;
    for (int j = 0; j < k; j++) s = s * 33 + p[j];
    return s + (int)(b * 4.0f);
}

__device__ __noinline__ unsigned long long widen(unsigned x, unsigned y) {
    return ((unsigned long long)x << 32 | y) * 3ull;
}

extern "C" __global__ void k_noinline(const int *in, int *out, unsigned long long *wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0;
    for (int r = 0; r < 3; r++) acc ^= mix(in[i] + r, (float)r * 0.25f, in + (i % 8), i % 5);
    out[i] = acc;
    wide[i] = widen((unsigned)i, (unsigned)acc);
}
