// racecheck within a warp: even and odd lanes take different sides of a branch; the even side
// writes what the odd side reads, with no __syncwarp() between them. Independent thread
// scheduling runs the two sides in any order (a GPU since Volta may interleave them), so an odd
// lane may read its even neighbour's value before or after it changed. One warp: no other rule
// of racecheck sees it.
extern "C" __global__ void race_warp(int *out) {
    __shared__ int s[32];
    unsigned t = threadIdx.x;
    s[t] = (int)t;
    __syncwarp();
    if (t % 2 == 0)
        s[t] = s[t] * 3;     // even lanes: change their own
    else
        out[t] = s[t - 1];   // the bug: the odd lanes read it, unordered with the write
    __syncwarp();
    if (t % 2 == 0) out[t] = s[t];
}
