// A per-thread array indexed by values read at run time, so it must live in local memory.
extern "C" __global__ void k_local_array(const unsigned *idx, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a[24];
    for (int k = 0; k < 24; k++) a[k] = (unsigned)(i * 31 + k * k);
    unsigned s = 0;
    for (int k = 0; k < 8; k++) {
        unsigned j = idx[(i + k) % n] % 24;
        a[j] += s;
        s += a[(j * 5 + 3) % 24];
    }
    out[i] = s;
}
