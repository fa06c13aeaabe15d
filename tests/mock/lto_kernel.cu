// LTO IR for tests/mock/forward_jitlink.c (nvcc -dlto -dc): a kernel calling a device function
// that lto_function.cu defines, so that the link has something to join.
__device__ float twice_plus_one_of(float x);
extern "C" __global__ void twice_plus_one(float *p) { p[threadIdx.x] = twice_plus_one_of(p[threadIdx.x]); }
