// Integer bit tricks on pairs of words: 16 results per element (see the test's reference).
extern "C" __global__ void k_bits(const unsigned *a, const unsigned *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned long long wide = ((unsigned long long)x << 32) | y;
    unsigned *o = out + 16 * i;
    unsigned bfe_u, bfe_s, bfi;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(bfe_u) : "r"(x), "r"(y & 31), "r"((y >> 5) & 31));
    asm("bfe.s32 %0, %1, %2, %3;"
        : "=r"(bfe_s)
        : "r"(x), "r"((y >> 10) & 31), "r"(((y >> 15) & 31) + 1));
    asm("bfi.b32 %0, %1, %2, %3, %4;"
        : "=r"(bfi)
        : "r"(y), "r"(x), "r"((x >> 20) & 31), "r"((x >> 25) & 31));
    o[0] = __popc(x);
    o[1] = __clz(x);
    o[2] = __brev(x);
    o[3] = __byte_perm(x, y, y & 0x7777);
    o[4] = __funnelshift_l(x, y, y & 63);
    o[5] = __funnelshift_r(x, y, x & 63);
    o[6] = __funnelshift_lc(x, y, y & 63);
    o[7] = bfe_u;
    o[8] = bfe_s;
    o[9] = bfi;
    o[10] = __popcll(wide) + 64 * __clzll(wide);
    o[11] = (unsigned)(__brevll(wide) >> 16);
    o[12] = __ffs(x) + 64 * __ffsll((long long)wide);
    o[13] = __umulhi(x, y) ^ (unsigned)__mulhi((int)x, (int)y);
    o[14] = (unsigned)((int)x >> (y & 31)) ^ (x >> ((y >> 8) & 31));
    o[15] = __sad((int)x, (int)y, 7u) + __usad(x >> 4, y >> 4, 3u);
}
