// Every thread of a 3D grid of 3D blocks writes where it is: the test checks each cell once.
extern "C" __global__ void k_grid3d(unsigned *out) {
    unsigned bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
    unsigned g = bx * per_block + tx;
    out[2 * g + 0] = (threadIdx.x) | (threadIdx.y << 8) | (threadIdx.z << 16) | (blockDim.z << 24);
    out[2 * g + 1] = (blockIdx.x) | (blockIdx.y << 8) | (blockIdx.z << 16) | (gridDim.y << 24);
}
