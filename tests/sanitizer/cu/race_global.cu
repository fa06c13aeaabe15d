// racecheck: one thread of warp 1 sets a flag in global memory that every thread reads, with no
// barrier between the write and the reads (threads of one block, so the rule of shared memory).
extern "C" __global__ void race_global(int *data) {
    unsigned t = threadIdx.x;
    if (t == 32) data[0] = 42; // the bug: warp 0 may read data[0] before or after this
    int v = data[0];
    data[1 + t] = v;
}
