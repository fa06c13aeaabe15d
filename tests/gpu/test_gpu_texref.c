/* Texture and surface references (the deprecated cuTexRef* API and hand-written PTX naming a
 * `.global .texref` / `.surfref`) on the driver at hand, against the host reference of the
 * mock's texture tests (tex_reference.h): point sampling bit for bit, linear
 * filtering within the 8-bit fraction of its weights, linear memory through tex.1d, a surfref
 * read and written. In the gpu suite on the GPU (skipped without one), and in the unit suite on
 * the mock (gpu_texref_on_mock): both runs pass only if the mock answers as the hardware. */
#include "gpu_util.h"
#include "tex_reference.h"

#define DRV cushim_driver()

static const char ptx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".global .texref t2;\n.global .texref lin;\n.global .surfref s2;\n"
    /* sample(in, out): thread i reads (u, v) from in[i] through t2 into out[i] (a .v4). */
    ".visible .entry sample(.param .u64 in, .param .u64 out)\n{\n"
    ".reg .b32 %r<8>; .reg .f32 %f<8>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;\n"
    "mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd1, %rd3;\n"
    "ld.global.v2.f32 {%f1, %f2}, [%rd4];\n"
    "tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [t2, {%f1, %f2}];\n"
    "mul.wide.u32 %rd3, %r1, 16; add.s64 %rd5, %rd2, %rd3;\n"
    "st.global.v4.f32 [%rd5], {%f3, %f4, %f5, %f6};\nret;\n}\n"
    /* fetch(out): thread i reads element i - 2 of lin (tex.1d with integer coordinates). */
    ".visible .entry fetch(.param .u64 out)\n{\n"
    ".reg .b32 %r<8>; .reg .f32 %f<8>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %tid.x; sub.s32 %r2, %r1, 2;\n"
    "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [lin, {%r2}];\n"
    "mul.wide.u32 %rd2, %r1, 16; add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.f32 [%rd3], {%f1, %f2, %f3, %f4};\nret;\n}\n"
    /* flip(): thread (x, y) writes 2 * element (3 - x, y) + y to element (x, y) of s2 after a
     * barrier (a 4x2 block: every read before any write). */
    ".visible .entry flip()\n{\n"
    ".reg .b32 %r<12>;\n"
    "mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; sub.s32 %r3, 3, %r1;\n"
    "shl.b32 %r4, %r3, 2; shl.b32 %r5, %r1, 2;\n"
    "suld.b.2d.b32.trap {%r6}, [s2, {%r4, %r2}];\n"
    "bar.sync 0;\n"
    "shl.b32 %r7, %r6, 1; add.s32 %r7, %r7, %r2;\n"
    "sust.b.2d.b32.trap [s2, {%r5, %r2}], {%r7};\nret;\n}\n";

enum { N = 64 };

static void test_a_2d_array_through_a_texref(void **state) {
    (void)state;
    CUmodule mod;
    assert_ok(DRV->cuModuleLoadData(&mod, ptx));
    CUfunction f;
    assert_ok(DRV->cuModuleGetFunction(&f, mod, "sample"));
    CUtexref t;
    assert_ok(DRV->cuModuleGetTexRef(&t, mod, "t2"));
    CUarray a = float_array();
    assert_ok(DRV->cuTexRefSetArray(t, a, CU_TRSA_OVERRIDE_FORMAT));
    /* The reference's format is what a fetch reads (CU_TRSA_OVERRIDE_FORMAT): one float. */
    assert_ok(DRV->cuTexRefSetFormat(t, CU_AD_FORMAT_FLOAT, 1));
    assert_ok(DRV->cuTexRefSetFlags(t, CU_TRSF_NORMALIZED_COORDINATES));
    float in[N][2], out[N][4];
    for (int i = 0; i < N; i++) {
        float s = (float)i / (N - 1);
        in[i][0] = -1.3f + 3.8f * s;
        in[i][1] = 2.5f - 3.6f * s * s;
        if (i % 8 == 0) in[i][0] = (float)(i / 8) / TW;
    }
    CUdeviceptr din, dout;
    assert_ok(DRV->cuMemAlloc(&din, sizeof in));
    assert_ok(DRV->cuMemAlloc(&dout, sizeof out));
    assert_ok(DRV->cuMemcpyHtoD(din, in, sizeof in));
    static const CUaddress_mode modes[] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                           CU_TR_ADDRESS_MODE_MIRROR};
    const float range = tdata[TH - 1][TW - 1] - tdata[0][0];
    for (int mi = 0; mi < 3; mi++) {
        for (int lf = 0; lf < 2; lf++) {
            texref_modes(t, modes[mi], lf);
            void *params[] = {&din, &dout};
            assert_ok(DRV->cuLaunchKernel(f, 1, 1, 1, N, 1, 1, 0, NULL, params, NULL));
            assert_ok(DRV->cuCtxSynchronize());
            assert_ok(DRV->cuMemcpyDtoH(out, dout, sizeof out));
            for (int i = 0; i < N; i++) {
                float u = in[i][0], v = in[i][1];
                float want = lf ? ref_linear(u, v, modes[mi], true, false)
                                : ref_point(u, v, modes[mi], true);
                /* Linear: the weights hold 8 fraction bits, so each is within 1/256. */
                float tol = lf ? 2 * range / 256 + 1e-4f : 0.0f;
                if (fabsf(out[i][0] - want) > tol || out[i][3] != 0.0f) {
                    fail_msg("mode %d linear %d thread %d (%g, %g): %.9g, not %.9g (within %g)", mi,
                             lf, i, in[i][0], in[i][1], out[i][0], want, tol);
                }
            }
        }
    }
    assert_ok(DRV->cuMemFree(din));
    assert_ok(DRV->cuMemFree(dout));
    assert_ok(DRV->cuModuleUnload(mod));
    assert_ok(DRV->cuArrayDestroy(a));
}

static void test_linear_memory_and_a_surfref(void **state) {
    (void)state;
    CUmodule mod;
    assert_ok(DRV->cuModuleLoadData(&mod, ptx));
    CUfunction fetch, flip;
    assert_ok(DRV->cuModuleGetFunction(&fetch, mod, "fetch"));
    assert_ok(DRV->cuModuleGetFunction(&flip, mod, "flip"));
    CUtexref t;
    assert_ok(DRV->cuModuleGetTexRef(&t, mod, "lin"));
    float host[32];
    for (int i = 0; i < 32; i++) host[i] = (float)i * 1.5f;
    CUdeviceptr d, dout;
    assert_ok(DRV->cuMemAlloc(&d, sizeof host));
    assert_ok(DRV->cuMemcpyHtoD(d, host, sizeof host));
    assert_ok(DRV->cuTexRefSetFormat(t, CU_AD_FORMAT_FLOAT, 2));
    size_t off = 1;
    assert_ok(DRV->cuTexRefSetAddress(&off, t, d, sizeof host));
    assert_int_equal(off, 0);
    float out[24][4];
    assert_ok(DRV->cuMemAlloc(&dout, sizeof out));
    void *params[] = {&dout};
    assert_ok(DRV->cuLaunchKernel(fetch, 1, 1, 1, 20, 1, 1, 0, NULL, params, NULL));
    assert_ok(DRV->cuCtxSynchronize());
    assert_ok(DRV->cuMemcpyDtoH(out, dout, sizeof out));
    /* tex1Dfetch of linear memory: no address mode applies, and out of range reads 0 (the H200
     * at -2, -1 and one past the end). */
    for (int i = 2; i < 18; i++) {
        assert_true(out[i][0] == host[2 * (i - 2)]);
        assert_true(out[i][1] == host[2 * (i - 2) + 1]);
    }
    assert_true(out[0][0] == 0.0f && out[1][0] == 0.0f && out[18][0] == 0.0f);
    print_message("# tex.1d of linear memory at -2, -1, 16: %g %g %g\n", out[0][0], out[1][0],
                  out[18][0]);
    CUsurfref s;
    assert_ok(DRV->cuModuleGetSurfRef(&s, mod, "s2"));
    CUarray a = array2d(CU_AD_FORMAT_UNSIGNED_INT32, 1, 4, 2, CUDA_ARRAY3D_SURFACE_LDST);
    uint32_t cells[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}}, back[2][4];
    array_whole(a, cells, true);
    assert_ok(DRV->cuSurfRefSetArray(s, a, 0));
    assert_ok(DRV->cuLaunchKernel(flip, 1, 1, 1, 4, 2, 1, 0, NULL, NULL, NULL));
    assert_ok(DRV->cuCtxSynchronize());
    array_whole(a, back, false);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++) assert_int_equal(back[y][x], 2 * cells[y][3 - x] + (unsigned)y);
    assert_ok(DRV->cuMemFree(d));
    assert_ok(DRV->cuMemFree(dout));
    assert_ok(DRV->cuModuleUnload(mod));
    assert_ok(DRV->cuArrayDestroy(a));
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_2d_array_through_a_texref, gpu_ctx_setup,
                                        gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_linear_memory_and_a_surfref, gpu_ctx_setup,
                                        gpu_ctx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
