// Half and bfloat16 arithmetic: per element pair, the f16x2 and bf16x2 intrinsics (add, sub, mul,
// fma with .sat and .relu, min, max, neg, abs, a comparison), and conversions from float with
// each rounding mode. Every result is a 32-bit word of two halves.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

static __device__ unsigned bits(__half2 h) { return *reinterpret_cast<unsigned *>(&h); }
static __device__ unsigned bits(__nv_bfloat162 h) { return *reinterpret_cast<unsigned *>(&h); }

extern "C" __global__ void k_half(const unsigned *in, const float *f, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned ua = in[3 * i], ub = in[3 * i + 1], uc = in[3 * i + 2];
    __half2 a = *reinterpret_cast<__half2 *>(&ua), b = *reinterpret_cast<__half2 *>(&ub),
            c = *reinterpret_cast<__half2 *>(&uc);
    __nv_bfloat162 x = *reinterpret_cast<__nv_bfloat162 *>(&ua),
                   y = *reinterpret_cast<__nv_bfloat162 *>(&ub),
                   z = *reinterpret_cast<__nv_bfloat162 *>(&uc);
    unsigned *o = out + 24 * i;
    o[0] = bits(__hadd2(a, b));
    o[1] = bits(__hsub2(a, b));
    o[2] = bits(__hmul2(a, b));
    o[3] = bits(__hfma2(a, b, c));
    o[4] = bits(__hfma2_sat(a, b, c));
    o[5] = bits(__hfma2_relu(a, b, c));
    o[6] = bits(__hmin2(a, b));
    o[7] = bits(__hmax2(a, b));
    o[8] = bits(__hneg2(a));
    o[9] = bits(__habs2(a));
    o[10] = bits(__hlt2(a, b));
    o[11] = bits(__hadd2(x, y));
    o[12] = bits(__hsub2(x, y));
    o[13] = bits(__hmul2(x, y));
    o[14] = bits(__hfma2(x, y, z));
    o[15] = bits(__hfma2_relu(x, y, z));
    o[16] = bits(__hmin2(x, y));
    o[17] = bits(__hmax2(x, y));
    o[18] = bits(__hneg2(x));
    float v = f[i];
    o[19] = bits(__floats2half2_rn(v, -v));
    o[20] = (unsigned)__half_as_ushort(__float2half_rz(v)) |
            (unsigned)__half_as_ushort(__float2half_rd(v)) << 16;
    o[21] = (unsigned)__half_as_ushort(__float2half_ru(v)) |
            (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(v)) << 16;
    o[22] = (unsigned)__bfloat16_as_ushort(__float2bfloat16_rz(v)) |
            (unsigned)__bfloat16_as_ushort(__float2bfloat16_ru(v)) << 16;
    float back = __half2float(__low2half(a)) + __bfloat162float(__high2bfloat16(x));
    o[23] = __float_as_uint(back);
}
