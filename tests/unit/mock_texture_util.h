/* Shared by the tests of the mock's arrays and texture objects (test_mock_arrays.c,
 * test_mock_texture.c, test_mock_texture_geom.c): a kernel of one instruction run over
 * threads, arrays and texture objects made in one call, and the sampling reference written
 * from the CUDA C++ Programming Guide's appendix "Texture Fetching" (the cube map table's in
 * test_mock_texture_geom.c). Each test runs with device 0's primary context current. */
#ifndef CUSHIM_TESTS_MOCK_TEXTURE_UTIL_H
#define CUSHIM_TESTS_MOCK_TEXTURE_UTIL_H

#include <math.h>
#include <stdbool.h>

#include "mock_primary.h"
#include "array_copy.h"
#include "tex_address.h"

#define assert_has(text, part)                                                                     \
    do {                                                                                           \
        if (strstr((text), (part)) == NULL) fail_msg("'%s' does not say '%s'", (text), (part));    \
    } while (0)

/* A kernel of one instruction: thread t reads four words of in[t] into %r8..%r11, runs the
 * instruction (the object's handle in %rd1, results in %r4..%r7), and writes %r4..%r7 to
 * out[t]. */
__attribute__((unused)) static const char kernel_fmt[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 obj, .param .u64 in, .param .u64 out)\n{\n"
    ".reg .b32 %%r<12>; .reg .b64 %%rd<8>;\n"
    "ld.param.u64 %%rd1, [obj]; ld.param.u64 %%rd2, [in]; ld.param.u64 %%rd3, [out];\n"
    "mov.u32 %%r1, %%tid.x; mul.wide.u32 %%rd4, %%r1, 16;\n"
    "add.s64 %%rd5, %%rd2, %%rd4; add.s64 %%rd6, %%rd3, %%rd4;\n"
    "ld.global.v4.b32 {%%r8, %%r9, %%r10, %%r11}, [%%rd5];\n"
    "mov.b32 %%r4, 0; mov.b32 %%r5, 0; mov.b32 %%r6, 0; mov.b32 %%r7, 0;\n"
    "%s\n"
    "st.global.v4.b32 [%%rd6], {%%r4, %%r5, %%r6, %%r7};\n"
    "ret;\n}\n";

typedef union word {
    float f;
    int32_t i;
    uint32_t u;
} word;

/* Runs `inst` over n threads: in and out are n * 4 words. */
__attribute__((unused)) static CUresult run_inst(const char *inst, unsigned long long obj,
                                                 const word *in, word *out, unsigned n) {
    char text[2048];
    snprintf(text, sizeof text, kernel_fmt, inst);
    CUmodule m;
    CUfunction f;
    CUresult r = D->cuModuleLoadData(&m, text);
    if (r != CUDA_SUCCESS) return r;
    assert_ok(D->cuModuleGetFunction(&f, m, "k"));
    CUdeviceptr din, dout;
    size_t bytes = (size_t)n * 16;
    assert_ok(D->cuMemAlloc(&din, bytes));
    assert_ok(D->cuMemAlloc(&dout, bytes));
    assert_ok(D->cuMemcpyHtoD(din, in, bytes));
    assert_ok(D->cuMemsetD8(dout, 0, bytes));
    void *params[] = {&obj, &din, &dout};
    r = D->cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = D->cuCtxSynchronize();
    if (r == CUDA_SUCCESS) assert_ok(D->cuMemcpyDtoH(out, dout, bytes));
    D->cuMemFree(din);
    D->cuMemFree(dout);
    D->cuModuleUnload(m);
    return r;
}

__attribute__((unused)) static CUarray array2d(CUarray_format f, unsigned ch, size_t w, size_t h,
                                               unsigned flags) {
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = w, .Height = h, .Format = f, .NumChannels = ch, .Flags = flags};
    CUarray a;
    assert_ok(D->cuArray3DCreate(&a, &d));
    return a;
}

/* A whole array from host memory, or back, by cuMemcpy3D (array_copy.h). */
__attribute__((unused)) static void array_whole(CUarray a, void *host, bool to_array) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    assert_ok(D->cuArray3DGetDescriptor(&d, a));
    size_t size = d.Format == CU_AD_FORMAT_UNSIGNED_INT8 || d.Format == CU_AD_FORMAT_SIGNED_INT8 ? 1
                  : d.Format == CU_AD_FORMAT_UNSIGNED_INT16 ||
                          d.Format == CU_AD_FORMAT_SIGNED_INT16 || d.Format == CU_AD_FORMAT_HALF
                      ? 2
                      : 4;
    size_t row = d.Width * size * d.NumChannels, rows = d.Height != 0 ? d.Height : 1;
    CUDA_MEMCPY3D c = array_copy_desc(a, host, row, rows, d.Depth != 0 ? d.Depth : 1, to_array);
    assert_ok(D->cuMemcpy3D(&c));
}

__attribute__((unused)) static unsigned long long texture(CUarray a, CUaddress_mode mode,
                                                          CUfilter_mode filter, unsigned flags) {
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = a;
    CUDA_TEXTURE_DESC t = {.addressMode = {mode, mode, mode}, .filterMode = filter, .flags = flags};
    t.borderColor[0] = -7.0f;
    t.borderColor[3] = 0.5f;
    CUtexObject o;
    assert_ok(D->cuTexObjectCreate(&o, &r, &t, NULL));
    return o;
}

/* ------------------------------------------------------------------------------------------ */
/* Sampling: the reference                                                                    */
/* ------------------------------------------------------------------------------------------ */

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

__attribute__((unused)) static CUarray float_array(void) {
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++) tdata[y][x] = (float)(x * x + 10 * y) + 0.25f;
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, TW, TH, 0);
    array_whole(a, tdata, true);
    return a;
}

enum { N = 96 };
__attribute__((unused)) static word cin[N * 4], cout[N * 4];

/* Coordinates from -1.3 to 2.5 (normalized) or -2 to 8 (unnormalized), some on texel edges. */
__attribute__((unused)) static void coords(bool norm) {
    for (int t = 0; t < N; t++) {
        float s = (float)t / (N - 1);
        cin[4 * t].f = norm ? -1.3f + 3.8f * s : -2.0f + 10.0f * s;
        cin[4 * t + 1].f = norm ? 2.5f - 3.6f * s * s : 5.0f - 8.0f * s;
        if (t % 8 == 0) cin[4 * t].f = norm ? (float)(t / 8) / TW : (float)(t / 8);
        if (t % 12 == 0) cin[4 * t + 1].f = norm ? (float)(t / 12) / TH : (float)(t / 12) + 0.5f;
    }
}

__attribute__((unused)) static const char tex2d[] =
    "tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}];";

#endif
