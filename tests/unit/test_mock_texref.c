/* The mock's texture and surface references (cuModuleGetTexRef, cuTexRefSet*, cuSurfRef*) and the
 * hand-written PTX that names them (`.global .texref`, `.surfref`; PTX ISA 5.3 "Texture Sampler
 * and Surface Types", tex 9.7.10.3, suld 9.7.11.1, sust 9.7.11.2): a 2D array read through a
 * texref with point and linear filtering and normalized coordinates, compared with the reference
 * sampler of tex_reference.h; linear memory read by tex.1d; pitched memory and a mipmapped
 * array bound and read; a surfref read and written;
 * rebinding between two launches; and the refusals (handles, NULLs, formats, a reference bound
 * to nothing at the launch, a name that is no reference). */
#include "mock_texture_util.h"

/* The references that the kernels of mock_texture_util.h name. */
static const char ref_decls[] = ".global .texref t2;\n.global .texref lin;\n.global .surfref s2;\n";

static CUmodule mod;

static void load(const char *inst) { assert_ok(load_inst(&mod, ref_decls, inst)); }

/* One launch of n threads over cin into cout. */
static CUresult launch(unsigned n) { return launch_inst(mod, 0, cin, cout, n); }

static const char tex_t2[] = "tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [t2, {%r8, %r9}];";

static void test_a_2d_array_point_and_linear_normalized(void **state) {
    (void)state;
    load(tex_t2);
    CUtexref t;
    assert_ok(D->cuModuleGetTexRef(&t, mod, "t2"));
    CUtexref again;
    assert_ok(D->cuModuleGetTexRef(&again, mod, "t2"));
    assert_ptr_equal(t, again);
    CUarray a = float_array();
    assert_ok(D->cuTexRefSetArray(t, a, CU_TRSA_OVERRIDE_FORMAT));
    float border[4] = {-7.0f, 0, 0, 0.5f};
    assert_ok(D->cuTexRefSetBorderColor(t, border));
    static const CUaddress_mode modes[] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                           CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};
    for (int norm = 0; norm < 2; norm++) {
        coords(norm);
        assert_ok(D->cuTexRefSetFlags(t, norm ? CU_TRSF_NORMALIZED_COORDINATES : 0));
        for (int mi = 0; mi < 4; mi++) {
            for (int lf = 0; lf < 2; lf++) {
                texref_modes(t, modes[mi], lf);
                assert_ok(launch(N));
                /* Without normalized coordinates, wrap and mirror are clamp. */
                CUaddress_mode m = modes[mi];
                for (int i = 0; i < N; i++) {
                    float u = cin[4 * i].f, v = cin[4 * i + 1].f;
                    float want = lf ? ref_linear(u, v, m, norm, true) : ref_point(u, v, m, norm);
                    if (fabsf(cout[4 * i].f - want) > 1e-4f * (1 + fabsf(want))) {
                        fail_msg("norm %d mode %d linear %d thread %d (%g, %g): %g, not %g", norm,
                                 mi, lf, i, u, v, cout[4 * i].f, want);
                    }
                }
            }
        }
    }
    CUaddress_mode am;
    assert_ok(D->cuTexRefGetAddressMode(&am, t, 1));
    assert_int_equal(am, CU_TR_ADDRESS_MODE_BORDER);
    CUfilter_mode fm;
    assert_ok(D->cuTexRefGetFilterMode(&fm, t));
    assert_int_equal(fm, CU_TR_FILTER_MODE_LINEAR);
    unsigned flags;
    assert_ok(D->cuTexRefGetFlags(&flags, t));
    assert_int_equal(flags, CU_TRSF_NORMALIZED_COORDINATES);
    CUarray got;
    assert_ok(D->cuTexRefGetArray(&got, t));
    assert_ptr_equal(got, a);
    CUarray_format f;
    int ch;
    assert_ok(D->cuTexRefGetFormat(&f, &ch, t));
    assert_int_equal(f, CU_AD_FORMAT_FLOAT);
    assert_int_equal(ch, 1);
    float b[4];
    assert_ok(D->cuTexRefGetBorderColor(b, t));
    assert_true(b[0] == -7.0f && b[3] == 0.5f);
    CUdeviceptr p;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefGetAddress(&p, t));
    assert_ok(D->cuModuleUnload(mod));
    assert_ok(D->cuArrayDestroy(a));
}

static void test_linear_memory_tex_1d(void **state) {
    (void)state;
    load("tex.1d.v4.f32.s32 {%r4, %r5, %r6, %r7}, [lin, {%r8}];");
    CUtexref t;
    assert_ok(D->cuModuleGetTexRef(&t, mod, "lin"));
    float host[64];
    for (int i = 0; i < 64; i++) host[i] = (float)i * 1.5f;
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, sizeof host));
    assert_ok(D->cuMemcpyHtoD(d, host, sizeof host));
    assert_ok(D->cuTexRefSetFormat(t, CU_AD_FORMAT_FLOAT, 2));
    size_t off = 99;
    assert_ok(D->cuTexRefSetAddress(&off, t, d, sizeof host));
    assert_int_equal(off, 0);
    CUdeviceptr got;
    assert_ok(D->cuTexRefGetAddress(&got, t));
    assert_true(got == d);
    /* Elements of two floats: element i is {3i, 3i + 1.5} (out of range reads zeros:
     * gpu_texref, on the mock and the GPU). */
    for (int i = 0; i < N; i++) cin[4 * i].i = i;
    assert_ok(launch(32));
    for (int i = 0; i < 32; i++) {
        int e = i;
        assert_float_equal(cout[4 * i].f, host[2 * e], 0);
        assert_float_equal(cout[4 * i + 1].f, host[2 * e + 1], 0);
        assert_float_equal(cout[4 * i + 2].f, 0.0f, 0);
        assert_float_equal(cout[4 * i + 3].f, 0.0f, 0);
    }
    /* Refused: off the texture alignment, an unknown format, more bytes than the allocation. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetAddress(&off, t, d + 4, 64));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetFormat(t, CU_AD_FORMAT_FLOAT, 3));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetAddress(&off, t, d, 1 << 20));
    assert_ok(D->cuModuleUnload(mod));
    assert_ok(D->cuMemFree(d));
}

static void test_pitched_memory_and_a_mipmapped_array(void **state) {
    (void)state;
    load(tex_t2);
    CUtexref t;
    assert_ok(D->cuModuleGetTexRef(&t, mod, "t2"));
    /* 5x3 floats, rows 256 bytes apart: texel (x, y) at its centre reads back exactly. */
    float rows[3][64];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 64; x++) rows[y][x] = (float)(100 * y + x);
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, sizeof rows));
    assert_ok(D->cuMemcpyHtoD(d, rows, sizeof rows));
    CUDA_ARRAY_DESCRIPTOR ad = {
        .Width = 5, .Height = 3, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetAddress2D(t, NULL, d, 256));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetAddress2D(t, &ad, d + 4, 256));
    assert_ok(D->cuTexRefSetAddress2D(t, &ad, d, 256));
    for (int i = 0; i < 15; i++) {
        cin[4 * i].f = (float)(i % 5) + 0.5f;
        cin[4 * i + 1].f = (float)(i / 5) + 0.5f;
    }
    assert_ok(launch(15));
    for (int i = 0; i < 15; i++) assert_float_equal(cout[4 * i].f, rows[i / 5][i % 5], 0);
    CUdeviceptr got;
    assert_ok(D->cuTexRefGetAddress(&got, t));
    assert_true(got == d);
    /* A mipmapped array: bound, described back, and its level 0 read. */
    CUDA_ARRAY3D_DESCRIPTOR md = {
        .Width = 8, .Height = 4, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    CUmipmappedArray mm;
    assert_ok(D->cuMipmappedArrayCreate(&mm, &md, 2));
    CUarray level0;
    assert_ok(D->cuMipmappedArrayGetLevel(&level0, mm, 0));
    float l0[4][8];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) l0[y][x] = (float)(x - 10 * y);
    array_whole(level0, l0, true);
    assert_ok(D->cuTexRefSetMipmappedArray(t, mm, CU_TRSA_OVERRIDE_FORMAT));
    assert_ok(D->cuTexRefSetMipmapFilterMode(t, CU_TR_FILTER_MODE_POINT));
    assert_ok(D->cuTexRefSetMipmapLevelClamp(t, 0.0f, 1.0f));
    assert_ok(D->cuTexRefSetMipmapLevelBias(t, 0.0f));
    CUmipmappedArray gm;
    assert_ok(D->cuTexRefGetMipmappedArray(&gm, t));
    assert_ptr_equal(gm, mm);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefGetAddress(&got, t));
    float lo, hi;
    assert_ok(D->cuTexRefGetMipmapLevelClamp(&lo, &hi, t));
    assert_true(lo == 0.0f && hi == 1.0f);
    assert_ok(launch(15));
    for (int i = 0; i < 15; i++) assert_float_equal(cout[4 * i].f, l0[i / 5][i % 5], 0);
    assert_ok(D->cuModuleUnload(mod));
    assert_ok(D->cuMipmappedArrayDestroy(mm));
    assert_ok(D->cuMemFree(d));
}

static void test_a_surfref_read_and_written(void **state) {
    (void)state;
    /* Each thread reads (x, y) = (%r8 bytes, %r9) and stores %r10 at (%r11 bytes, %r9). */
    load("suld.b.2d.b32.trap {%r4}, [s2, {%r8, %r9}];\n"
         "sust.b.2d.b32.trap [s2, {%r11, %r9}], {%r10};");
    CUsurfref s;
    assert_ok(D->cuModuleGetSurfRef(&s, mod, "s2"));
    CUarray plain = array2d(CU_AD_FORMAT_UNSIGNED_INT32, 1, 4, 2, 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuSurfRefSetArray(s, plain, 0));
    CUarray a = array2d(CU_AD_FORMAT_UNSIGNED_INT32, 1, 4, 2, CUDA_ARRAY3D_SURFACE_LDST);
    uint32_t host[2][4] = {{10, 11, 12, 13}, {20, 21, 22, 23}};
    array_whole(a, host, true);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuSurfRefSetArray(s, a, 1));
    assert_ok(D->cuSurfRefSetArray(s, a, 0));
    CUarray got;
    assert_ok(D->cuSurfRefGetArray(&got, s));
    assert_ptr_equal(got, a);
    /* Thread i reads element (i % 4, i / 4) and writes 100 + i to element (3 - i % 4, i / 4):
     * reads and writes of different threads may interleave, so the first launch's writes are
     * compared, and its reads by a second launch that writes back what is there. */
    for (int i = 0; i < 8; i++) {
        cin[4 * i].i = 4 * (i % 4);
        cin[4 * i + 1].i = i / 4;
        cin[4 * i + 2].u = 100 + (unsigned)i;
        cin[4 * i + 3].i = 4 * (3 - i % 4);
    }
    assert_ok(launch(8));
    uint32_t after[2][4];
    array_whole(a, after, false);
    for (int i = 0; i < 8; i++) assert_int_equal(after[i / 4][3 - i % 4], 100 + i);
    /* A read of the first launch's result, by a second launch (stores to a scratch column). */
    for (int i = 0; i < 8; i++) cin[4 * i + 2].u = after[i / 4][3 - i % 4];
    assert_ok(launch(8));
    for (int i = 0; i < 8; i++) assert_int_equal(cout[4 * i].u, after[i / 4][i % 4]);
    assert_ok(D->cuModuleUnload(mod));
    assert_ok(D->cuArrayDestroy(a));
    assert_ok(D->cuArrayDestroy(plain));
}

static void test_rebinding_between_launches(void **state) {
    (void)state;
    load(tex_t2);
    CUtexref t;
    assert_ok(D->cuModuleGetTexRef(&t, mod, "t2"));
    CUarray a = float_array();
    float other[TH][TW];
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++) other[y][x] = -(float)(x + 100 * y);
    CUarray b = float_array_of(other);
    for (int i = 0; i < 4; i++) {
        cin[4 * i].f = (float)i + 0.5f;
        cin[4 * i + 1].f = 1.5f;
    }
    assert_ok(D->cuTexRefSetArray(t, a, CU_TRSA_OVERRIDE_FORMAT));
    assert_ok(launch(4));
    for (int i = 0; i < 4; i++) assert_float_equal(cout[4 * i].f, tdata[1][i], 0);
    assert_ok(D->cuTexRefSetArray(t, b, CU_TRSA_OVERRIDE_FORMAT));
    assert_ok(launch(4));
    for (int i = 0; i < 4; i++) assert_float_equal(cout[4 * i].f, other[1][i], 0);
    assert_ok(D->cuModuleUnload(mod));
    assert_ok(D->cuArrayDestroy(a));
    assert_ok(D->cuArrayDestroy(b));
}

static void test_refusals(void **state) {
    (void)state;
    load(tex_t2);
    CUtexref t;
    CUsurfref s;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuModuleGetTexRef(NULL, mod, "t2"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuModuleGetTexRef(&t, mod, NULL));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuModuleGetTexRef(&t, NULL, "t2"));
    assert_cu(CUDA_ERROR_NOT_FOUND, D->cuModuleGetTexRef(&t, mod, "nothing"));
    assert_cu(CUDA_ERROR_NOT_FOUND, D->cuModuleGetTexRef(&t, mod, "s2"));
    assert_cu(CUDA_ERROR_NOT_FOUND, D->cuModuleGetSurfRef(&s, mod, "t2"));
    assert_ok(D->cuModuleGetTexRef(&t, mod, "t2"));
    assert_ok(D->cuModuleGetSurfRef(&s, mod, "s2"));
    /* A surface reference is not a texture reference, nor a handle made up. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetFilterMode((CUtexref)(void *)s, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetFilterMode((CUtexref)(void *)&t, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetFilterMode(t, (CUfilter_mode)7));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetAddressMode(t, 3, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetFlags(t, 0x1000));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefGetFlags(NULL, t));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetBorderColor(t, NULL));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuTexRefSetArray(t, (CUarray)&t, 1));
    CUarray a = float_array();
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefSetArray(t, a, 0));
    CUarray got;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefGetArray(&got, t));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefDestroy(t));
    /* A standalone reference: made and destroyed, then no reference. */
    CUtexref own;
    assert_ok(D->cuTexRefCreate(&own));
    assert_ok(D->cuTexRefSetFilterMode(own, CU_TR_FILTER_MODE_LINEAR));
    assert_ok(D->cuTexRefDestroy(own));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexRefDestroy(own));
    /* Bound to nothing at the launch: the fetch faults, naming the reference. */
    assert_ok(D->cuArrayDestroy(a));
    for (int i = 0; i < 2; i++) cin[4 * i].f = cin[4 * i + 1].f = 0.5f;
    assert_cu(CUDA_ERROR_ILLEGAL_ADDRESS, launch(2));
    assert_has(mock.kernel_error(), "texture reference 't2' was not bound");
    D->cuModuleUnload(mod);
}

static void test_names_in_ptx(void **state) {
    (void)state;
    /* A name that is no reference is refused at load (CUDA_ERROR_INVALID_PTX), as is a name
     * declared twice; a surfref where tex wants a texref fails the launch with a sentence; an
     * initialised texref and a samplerref (the independent mode, which the driver loads) load. */
    CUmodule m;
    assert_cu(CUDA_ERROR_INVALID_PTX,
              load_inst(&m, ref_decls,
                        "L1: @%p1 tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [nothing, {%r8, %r9}];"));
    /* A register without '%' is one. */
    assert_ok(load_inst(&m, ref_decls,
                        ".reg .b64 plain; mov.b64 plain, 0; @%p1 suq.width.b32 %r4, [plain];"));
    assert_ok(D->cuModuleUnload(m));
    load("tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [s2, {%r8, %r9}];");
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, launch(1));
    assert_has(mock.kernel_error(), "'s2' is a .surfref");
    D->cuModuleUnload(mod);
    assert_ok(D->cuModuleLoadData(&m, ".version 8.0\n.target sm_90\n.address_size 64\n"
                                      ".global .texref a = { filter_mode = linear };\n"));
    assert_ok(D->cuModuleUnload(m));
    assert_ok(D->cuModuleLoadData(&m, ".version 8.0\n.target sm_90\n.address_size 64\n"
                                      ".global .samplerref smp;\n"));
    assert_ok(D->cuModuleUnload(m));
    assert_cu(CUDA_ERROR_INVALID_PTX,
              D->cuModuleLoadData(&m, ".version 8.0\n.target sm_90\n.address_size 64\n"
                                      ".global .texref a;\n.global .texref a;\n"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_2d_array_point_and_linear_normalized, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_linear_memory_tex_1d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pitched_memory_and_a_mipmapped_array, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_surfref_read_and_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rebinding_between_launches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_in_ptx, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
