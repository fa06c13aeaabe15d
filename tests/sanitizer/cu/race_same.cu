// racecheck-strict: every thread stores the same flag into one shared word with no barrier; the
// store changes nothing after the first, so only the strict level reports it.
extern "C" __global__ void race_same(int *out) {
    volatile __shared__ int flag; // volatile: nvcc keeps every store
    flag = 1; // every warp writes 1: a write-after-write race that leaves the bytes as they were
    __syncthreads();
    out[threadIdx.x] = flag;
}
