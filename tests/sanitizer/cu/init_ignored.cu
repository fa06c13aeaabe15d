// initcheck, no bug: a value read ahead from unwritten memory and then not used (as a scan reads
// the partial sums of warps that a block does not have) is no error until it reaches an
// address, a branch or a store that is read back: nothing is reported.
extern "C" __global__ void init_ignored(const int *in, int *out) {
    unsigned t = threadIdx.x;
    int ahead = in[t];             // in[32..63] were never written
    out[t] = t < 32 ? ahead : -1; // but only in[0..31] are used
}
