/* Shared by the texture tests on the mock (tests/unit/mock_texture_util.h and its users) and on
 * the GPU (tests/gpu/test_gpu_texref.c): 2D arrays made and filled through the raw table, and
 * the host reference of sampling a TW x TH float array, written from the CUDA C++ Programming
 * Guide's appendix "Texture Fetching" (a texel's edge as the H200 takes it: tex_address.h).
 * Include after <cmocka.h>, "cushim.h" and "assert_cu.h". */
#ifndef CUSHIM_TESTS_TEX_REFERENCE_H
#define CUSHIM_TESTS_TEX_REFERENCE_H

#include <math.h>
#include <stdbool.h>

#include "array_copy.h"
#include "tex_address.h"

__attribute__((unused)) static CUarray array2d(CUarray_format f, unsigned ch, size_t w, size_t h,
                                               unsigned flags) {
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = w, .Height = h, .Format = f, .NumChannels = ch, .Flags = flags};
    CUarray a;
    assert_ok(cushim_driver()->cuArray3DCreate(&a, &d));
    return a;
}

/* A whole array from host memory, or back, by cuMemcpy3D (array_copy.h). */
__attribute__((unused)) static void array_whole(CUarray a, void *host, bool to_array) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    assert_ok(cushim_driver()->cuArray3DGetDescriptor(&d, a));
    size_t size = d.Format == CU_AD_FORMAT_UNSIGNED_INT8 || d.Format == CU_AD_FORMAT_SIGNED_INT8 ? 1
                  : d.Format == CU_AD_FORMAT_UNSIGNED_INT16 ||
                          d.Format == CU_AD_FORMAT_SIGNED_INT16 || d.Format == CU_AD_FORMAT_HALF
                      ? 2
                      : 4;
    size_t row = d.Width * size * d.NumChannels, rows = d.Height != 0 ? d.Height : 1;
    CUDA_MEMCPY3D c = array_copy_desc(a, host, row, rows, d.Depth != 0 ? d.Depth : 1, to_array);
    assert_ok(cushim_driver()->cuMemcpy3D(&c));
}

/* The reference: tdata sampled, a texel outside it (border mode) -7. */
enum { TW = 5, TH = 3 };
__attribute__((unused)) static float tdata[TH][TW];

__attribute__((unused)) static float ref_texel(long x, long y) {
    return x < 0 || y < 0 ? -7.0f : tdata[y][x];
}

__attribute__((unused)) static float ref_point(float u, float v, CUaddress_mode m, bool norm) {
    return ref_texel(tex_address(tex_point_index(u, TW, norm), TW, m, norm),
                     tex_address(tex_point_index(v, TH, norm), TH, m, norm));
}

/* Bilinear, with the weights rounded to 1/256 (quantized) or exact. */
__attribute__((unused)) static float ref_linear(float u, float v, CUaddress_mode m, bool norm,
                                                bool quantized) {
    float x = (norm ? u * TW : u) - 0.5f, y = (norm ? v * TH : v) - 0.5f;
    long i = (long)floorf(x), j = (long)floorf(y);
    float a = x - floorf(x), b = y - floorf(y);
    if (quantized) {
        a = roundf(a * 256) / 256;
        b = roundf(b * 256) / 256;
    }
    long i0 = tex_address(i, TW, m, norm), i1 = tex_address(i + 1, TW, m, norm);
    long j0 = tex_address(j, TH, m, norm), j1 = tex_address(j + 1, TH, m, norm);
    return (1 - a) * (1 - b) * ref_texel(i0, j0) + a * (1 - b) * ref_texel(i1, j0) +
           (1 - a) * b * ref_texel(i0, j1) + a * b * ref_texel(i1, j1);
}

/* A TW x TH array of one float a texel, holding host. */
__attribute__((unused)) static CUarray float_array_of(float host[TH][TW]) {
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, TW, TH, 0);
    array_whole(a, host, true);
    return a;
}

/* tdata, texel (x, y) x * x + 10 * y + 0.25, in an array. */
__attribute__((unused)) static CUarray float_array(void) {
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++) tdata[y][x] = (float)(x * x + 10 * y) + 0.25f;
    return float_array_of(tdata);
}

/* A texture reference's address mode (both dimensions) and filtering. */
__attribute__((unused)) static void texref_modes(CUtexref t, CUaddress_mode m, bool linear) {
    assert_ok(cushim_driver()->cuTexRefSetAddressMode(t, 0, m));
    assert_ok(cushim_driver()->cuTexRefSetAddressMode(t, 1, m));
    assert_ok(cushim_driver()->cuTexRefSetFilterMode(t, linear ? CU_TR_FILTER_MODE_LINEAR
                                                               : CU_TR_FILTER_MODE_POINT));
}

#endif
