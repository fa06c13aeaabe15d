// memcheck: the bounds test is off by one; the last thread writes past the array.
extern "C" __global__ void mem_oob(int *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = (int)i; // the bug: i == n is one past the end
}
