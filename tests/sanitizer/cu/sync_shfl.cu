// synccheck: a shuffle whose mask names the whole warp after half of it has returned.
extern "C" __global__ void sync_shfl(int *out) {
    unsigned t = threadIdx.x;
    if (t % 32 >= 16) return;
    int v = __shfl_down_sync(0xffffffffu, (int)t, 1); // the bug: lanes 16..31 have exited
    out[t] = v;
}
