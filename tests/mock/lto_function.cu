// LTO IR for tests/mock/forward_jitlink.c (nvcc -dlto -dc): the device function lto_kernel.cu calls.
__device__ float twice_plus_one_of(float x) { return 2.0f * x + 1.0f; }
