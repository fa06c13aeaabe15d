// initcheck: the input array was allocated but never copied to; the kernel reads it.
extern "C" __global__ void init_global(const int *in, int *out) {
    unsigned t = threadIdx.x;
    out[t] = in[t] + 1; // the bug: nothing wrote in[]
}
