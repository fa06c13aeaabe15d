// Indirect calls and device-side malloc: each thread picks one of three __noinline__ functions
// through a function pointer (call through a register with a prototype; the lanes of a warp
// disagree); each thread mallocs a small array, fills it, sums it back and frees it, and thread 0
// of each block keeps a block-sized allocation across launches (k_keep, then k_use frees it).
typedef int (*binop)(int, int);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }

extern "C" __global__ void k_calls(const int *x, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    binop ops[3] = {op_add, op_mul, op_sub};
    volatile int which = i % 3;
    binop f = ops[which];
    int r = f(x[i], i);
    int len = 1 + i % 7;
    int *p = (int *)malloc(len * sizeof(int));
    int sum = -1;
    if (p != nullptr) {
        for (int k = 0; k < len; k++) p[k] = r + k;
        sum = 0;
        for (int k = 0; k < len; k++) sum += p[k];
        free(p);
    }
    out[2 * i] = r;
    out[2 * i + 1] = sum;
}

extern "C" __global__ void k_keep(unsigned long long *slots) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(64 * sizeof(int));
    if (p != nullptr)
        for (int k = 0; k < 64; k++) p[k] = blockIdx.x * 1000 + k;
    slots[blockIdx.x] = (unsigned long long)p;
}

extern "C" __global__ void k_use(const unsigned long long *slots, int *out) {
    if (threadIdx.x != 0) return;
    int *p = (int *)slots[blockIdx.x];
    int sum = -1;
    if (p != nullptr) {
        sum = 0;
        for (int k = 0; k < 64; k++) sum += p[k];
        free(p);
    }
    out[blockIdx.x] = sum;
}
