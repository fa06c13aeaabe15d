// synccheck: named barrier 1 waited at with two thread counts: the first warp names 64 threads,
// the others 128.
extern "C" __global__ void sync_count(int *out) {
    unsigned t = threadIdx.x;
    if (t < 32)
        asm volatile("bar.sync 1, 64;"); // the bug: the others name 128
    else
        asm volatile("bar.sync 1, 128;");
    out[t] = (int)t;
}
