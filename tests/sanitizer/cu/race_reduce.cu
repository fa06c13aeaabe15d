// racecheck: a block reduction whose loop lacks the __syncthreads() between its steps.
/* README: begin */
extern "C" __global__ void race_reduce(const int *in, int *out) {
    __shared__ int s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) s[t] += s[t + half]; // the bug: no barrier after this step
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
/* README: end */
