// Warp votes and block-wide counting barriers. Per thread: the warp's ballot, all and any of a
// predicate; per block: __syncthreads_count, _and and _or of other predicates.
extern "C" __global__ void k_votes(const unsigned *in, unsigned *warp_out, unsigned *block_out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1);
    int all = __all_sync(0xffffffffu, v != 0);
    int any = __any_sync(0xffffffffu, v % 97 == 0);
    warp_out[3 * i + 0] = ballot;
    warp_out[3 * i + 1] = (unsigned)all;
    warp_out[3 * i + 2] = (unsigned)any;
    int count = __syncthreads_count(v % 3 == 0);
    int land = __syncthreads_and(v % 1000 != 7);
    int lor = __syncthreads_or(v % 1000 == 7);
    if (threadIdx.x == 0) {
        block_out[3 * blockIdx.x + 0] = (unsigned)count;
        block_out[3 * blockIdx.x + 1] = (unsigned)land;
        block_out[3 * blockIdx.x + 2] = (unsigned)lor;
    }
}
