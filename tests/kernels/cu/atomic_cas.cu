// A float maximum by a compare-and-swap loop on the value's bits, the classic use of atomicCAS.
__device__ float atomic_max_float(float *addr, float value) {
    int *word = (int *)addr;
    int old = *word;
    while (__int_as_float(old) < value) {
        int seen = atomicCAS(word, old, __float_as_int(value));
        if (seen == old) break;
        old = seen;
    }
    return __int_as_float(old);
}

extern "C" __global__ void k_atomic_cas(const float *in, int n, float *max_out, unsigned *ticket) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomic_max_float(max_out, in[i]);
    atomicInc(ticket, 0xffffffffu);
}
