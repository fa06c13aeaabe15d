// initcheck: a shared array filled for only half its length, then used whole as indexes.
extern "C" __global__ void init_shared(int *out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    if (t < 32) s[t] = (int)t;
    __syncthreads();
    out[t] = out[s[63 - t] & 255]; // the bug: s[32..63] were never written, and index out[]
}
