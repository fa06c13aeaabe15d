/* Shared by the tests of the mock's arrays, texture objects and references (test_mock_arrays.c,
 * test_mock_texture.c, test_mock_texture_geom.c, test_mock_texref.c): a kernel of one
 * instruction run over threads, texture objects made in one call; the arrays and the sampling
 * reference are tex_reference.h's, shared with the GPU (the cube map table's is in
 * test_mock_texture_geom.c). Each test runs with device 0's primary context current. */
#ifndef CUSHIM_TESTS_MOCK_TEXTURE_UTIL_H
#define CUSHIM_TESTS_MOCK_TEXTURE_UTIL_H

#include <math.h>
#include <stdbool.h>

#include "mock_primary.h"
#include "tex_reference.h"

#define assert_has(text, part)                                                                     \
    do {                                                                                           \
        if (strstr((text), (part)) == NULL) fail_msg("'%s' does not say '%s'", (text), (part));    \
    } while (0)

/* A kernel of one instruction: thread t reads four words of in[t] into %r8..%r11, runs the
 * instruction (the object's handle in %rd1, results in %r4..%r7), and writes %r4..%r7 to
 * out[t]. The first %s: declarations at module scope (texture references), the second: the
 * instruction. */
__attribute__((unused)) static const char kernel_fmt[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n%s"
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

/* The kernel of `inst`, after the module-scope declarations `decls`, loaded as *m. */
__attribute__((unused)) static CUresult load_inst(CUmodule *m, const char *decls,
                                                  const char *inst) {
    char text[2048];
    snprintf(text, sizeof text, kernel_fmt, decls, inst);
    return D->cuModuleLoadData(m, text);
}

/* The kernel of module m run over n threads: in and out are n * 4 words. */
__attribute__((unused)) static CUresult launch_inst(CUmodule m, unsigned long long obj,
                                                    const word *in, word *out, unsigned n) {
    CUfunction f;
    assert_ok(D->cuModuleGetFunction(&f, m, "k"));
    CUdeviceptr din, dout;
    size_t bytes = (size_t)n * 16;
    assert_ok(D->cuMemAlloc(&din, bytes));
    assert_ok(D->cuMemAlloc(&dout, bytes));
    assert_ok(D->cuMemcpyHtoD(din, in, bytes));
    assert_ok(D->cuMemsetD8(dout, 0, bytes));
    void *params[] = {&obj, &din, &dout};
    CUresult r = D->cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = D->cuCtxSynchronize();
    if (r == CUDA_SUCCESS) assert_ok(D->cuMemcpyDtoH(out, dout, bytes));
    D->cuMemFree(din);
    D->cuMemFree(dout);
    return r;
}

/* Runs `inst` over n threads: in and out are n * 4 words. */
__attribute__((unused)) static CUresult run_inst(const char *inst, unsigned long long obj,
                                                 const word *in, word *out, unsigned n) {
    CUmodule m;
    CUresult r = load_inst(&m, "", inst);
    if (r != CUDA_SUCCESS) return r;
    r = launch_inst(m, obj, in, out, n);
    D->cuModuleUnload(m);
    return r;
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

/* The threads' inputs and outputs (run_inst's in and out). */
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
