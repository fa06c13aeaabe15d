// A structure passed by value, with members of mixed sizes and padding, and a pointer inside it.
struct params {
    char tag;
    double offset;
    short small;
    float scale;
    int table[3];
    unsigned long long mask;
    int *out;
    int n;
};

extern "C" __global__ void k_struct_param(struct params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    double v = (double)i * p.scale + p.offset;
    p.out[i] = (int)v + p.table[i % 3] + p.tag * p.small + (int)((p.mask >> (i % 64)) & 1);
}
