// The other warp shuffles, on full warps and on sub-warp widths: broadcast from a lane, up, and
// the butterfly (xor) that sums a warp without shared memory.
extern "C" __global__ void k_shuffle(const int *in, int *out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int sum = v;
    for (int m = 16; m > 0; m /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, m);
    out[4 * i + 0] = sum;
    out[4 * i + 1] = __shfl_sync(0xffffffffu, v, (v & 31));
    out[4 * i + 2] = __shfl_up_sync(0xffffffffu, v, 3, 8);
    out[4 * i + 3] = __shfl_down_sync(0xffffffffu, v, 5, 16) + (int)(__activemask() & 0xff);
}
