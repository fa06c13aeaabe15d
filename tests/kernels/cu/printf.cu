#include <cstdio>

// Device-side printf with integers, a float, a string and a pointer-sized value.
extern "C" __global__ void k_printf(int base) {
    unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
    printf("kernel says: thread %u of block %d, value %d, half %.2f, %s, %llx\n", t, blockIdx.x,
           base + (int)t, 0.5f * (float)t, t % 2 ? "odd" : "even",
           (unsigned long long)t * 0x100000001ull);
}
