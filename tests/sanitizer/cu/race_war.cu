// racecheck: each thread reads its right neighbour, then overwrites its own element, with no
// barrier between the read and the write (write after read across warps).
extern "C" __global__ void race_war(int *out) {
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    s[t] = (int)t;
    __syncthreads();
    int right = s[(t + 1) % 128];
    s[t] = right * 2; // the bug: thread 31's neighbour (warp 1) may not have read s[32] yet
    __syncthreads();
    out[t] = s[t];
}
