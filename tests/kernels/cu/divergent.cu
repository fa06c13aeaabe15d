// Control flow that splits the warp: a loop whose trip count differs per thread and that leaves by
// break, a switch on the data, and an early return for some lanes.
extern "C" __global__ void k_divergent(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    if (v % 13 == 0) {
        out[i] = 0xdead0000u | (v & 0xffff);
        return;
    }
    unsigned steps = 0;
    while (true) {
        if (v == 1) break;
        v = (v & 1) ? 3 * v + 1 : v / 2;
        if (++steps == 200) break;
    }
    unsigned r;
    switch (in[i] % 7) {
    case 0: r = steps; break;
    case 1: r = steps * 3 + 1; break;
    case 2: r = steps ^ 0x55; break;
    case 3:
        r = 0;
        for (unsigned k = 0; k < (in[i] & 15); k++) {
            r += k * k;
            if (r > 100) break;
        }
        break;
    case 4: r = ~steps; break;
    default: r = steps << 4; break;
    }
    out[i] = r;
}
