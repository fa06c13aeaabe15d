// 64-bit atomics on global memory: add, min, max, and, or, xor, exchange, compare-and-swap, and a
// double add of values whose sum is exact in any order.
extern "C" __global__ void k_atomic64(const long long *in, int n, unsigned long long *acc,
                                      long long *minmax, double *dsum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = in[i];
    atomicAdd(&acc[0], (unsigned long long)v);
    atomicAnd(&acc[1], ~(1ull << (i % 64)));
    atomicOr(&acc[2], 1ull << ((unsigned)v % 64));
    atomicXor(&acc[3], (unsigned long long)v);
    atomicMin(&minmax[0], v);
    atomicMax(&minmax[1], v);
    if (i == n / 2) atomicExch(&acc[4], (unsigned long long)v);
    unsigned long long old = acc[5], seen;
    while ((seen = atomicCAS(&acc[5], old, old + (unsigned long long)(i & 7))) != old) old = seen;
    atomicAdd(dsum, (double)(v & 0xffff) * 0.25);
}
