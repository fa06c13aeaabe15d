// cudart-bench's kernel: nothing to do, so that a launch row times the runtime's path and the
// driver's, not the GPU. extern "C": registered and looked up by this name on both runtimes.
extern "C" __global__ void cudart_bench_empty(void) {}
