/* The mock's texture objects and the PTX tex that reads them (PTX ISA 9.7.10.3 "tex"): objects
 * made, described back and refused; point sampling compared exactly with the reference of
 * mock_texture_util.h under every address mode, normalized or not; linear filtering with that
 * reference's 8-bit weights (to float rounding) and with exact bilinear interpolation within the
 * 1/256 those weights allow; formats and read modes; a dead object faults the kernel. */
#include "mock_texture_util.h"

static void test_texture_objects_and_errors(void **state) {
    (void)state;
    CUarray a = array2d(CU_AD_FORMAT_UNSIGNED_INT8, 4, 8, 8, 0);
    unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_MIRROR, CU_TR_FILTER_MODE_LINEAR,
                                   CU_TRSF_NORMALIZED_COORDINATES);
    assert_true(t != 0);
    CUDA_RESOURCE_DESC r;
    assert_ok(D->cuTexObjectGetResourceDesc(&r, t));
    assert_int_equal(r.resType, CU_RESOURCE_TYPE_ARRAY);
    assert_ptr_equal(r.res.array.hArray, a);
    CUDA_TEXTURE_DESC td;
    assert_ok(D->cuTexObjectGetTextureDesc(&td, t));
    assert_int_equal(td.addressMode[1], CU_TR_ADDRESS_MODE_MIRROR);
    assert_int_equal(td.filterMode, CU_TR_FILTER_MODE_LINEAR);
    assert_int_equal(td.flags, CU_TRSF_NORMALIZED_COORDINATES);
    assert_true(td.borderColor[0] == -7.0f);
    CUDA_RESOURCE_VIEW_DESC v;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectGetResourceViewDesc(&v, t));
    assert_ok(D->cuTexObjectDestroy(t));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuTexObjectDestroy(t));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuTexObjectGetResourceDesc(&r, t));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuTexObjectDestroy(0));
    /* Refused: linear filtering of integers read as integers, an unknown address mode, an
     * array that is none, linear memory off the texture alignment, NULLs. */
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    CUDA_TEXTURE_DESC bad = {.filterMode = CU_TR_FILTER_MODE_LINEAR,
                             .flags = CU_TRSF_READ_AS_INTEGER};
    CUtexObject o;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectCreate(&o, &r, &bad, NULL));
    bad = (CUDA_TEXTURE_DESC){.addressMode = {(CUaddress_mode)9}};
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectCreate(&o, &r, &bad, NULL));
    bad = (CUDA_TEXTURE_DESC){.addressMode = {0}};
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectCreate(NULL, &r, &bad, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectCreate(&o, &r, NULL, NULL));
    r.res.array.hArray = (CUarray)&r;
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuTexObjectCreate(&o, &r, &bad, NULL));
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 4096));
    CUDA_RESOURCE_DESC lin = {.resType = CU_RESOURCE_TYPE_LINEAR};
    lin.res.linear.devPtr = d + 4;
    lin.res.linear.format = CU_AD_FORMAT_FLOAT;
    lin.res.linear.numChannels = 1;
    lin.res.linear.sizeInBytes = 1024;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectCreate(&o, &lin, &bad, NULL));
    lin.res.linear.devPtr = d;
    assert_ok(D->cuTexObjectCreate(&o, &lin, &bad, NULL));
    assert_ok(D->cuTexObjectDestroy(o));
    /* A surface needs an array made for surface loads and stores. */
    CUsurfObject so;
    r.res.array.hArray = a;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuSurfObjectCreate(&so, &r));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuSurfObjectCreate(&so, &lin));
    CUarray s = array2d(CU_AD_FORMAT_FLOAT, 1, 4, 4, CUDA_ARRAY3D_SURFACE_LDST);
    r.res.array.hArray = s;
    assert_ok(D->cuSurfObjectCreate(&so, &r));
    CUDA_RESOURCE_DESC sr;
    assert_ok(D->cuSurfObjectGetResourceDesc(&sr, so));
    assert_ptr_equal(sr.res.array.hArray, s);
    /* A surface handle is not a texture's. */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuTexObjectDestroy(so));
    assert_ok(D->cuSurfObjectDestroy(so));
    assert_ok(D->cuArrayDestroy(s));
    assert_ok(D->cuArrayDestroy(a));
    assert_ok(D->cuMemFree(d));
}

static void test_point_sampling_every_address_mode(void **state) {
    (void)state;
    CUarray a = float_array();
    static const CUaddress_mode modes[] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                           CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};
    for (int norm = 0; norm < 2; norm++) {
        coords(norm);
        for (int k = 0; k < 4; k++) {
            unsigned long long t = texture(a, modes[k], CU_TR_FILTER_MODE_POINT,
                                           norm ? CU_TRSF_NORMALIZED_COORDINATES : 0);
            assert_ok(run_inst(tex2d, t, cin, cout, N));
            for (int i = 0; i < N; i++) {
                float want = ref_point(cin[4 * i].f, cin[4 * i + 1].f, modes[k], norm);
                if (cout[4 * i].f != want) {
                    fail_msg("mode %d norm %d (%g, %g): %g, not %g", k, norm, cin[4 * i].f,
                             cin[4 * i + 1].f, cout[4 * i].f, want);
                }
                /* One channel: y, z and w read 0 (the border colour's inside it). */
                bool border = modes[k] == CU_TR_ADDRESS_MODE_BORDER && want == -7.0f;
                assert_true(cout[4 * i + 1].f == 0.0f);
                assert_true(cout[4 * i + 3].f == (border ? 0.5f : 0.0f));
            }
            assert_ok(D->cuTexObjectDestroy(t));
        }
    }
    assert_ok(D->cuArrayDestroy(a));
}

static void test_linear_filtering_within_the_8_bit_fraction(void **state) {
    (void)state;
    CUarray a = float_array();
    static const CUaddress_mode modes[] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                           CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};
    float span = 0; /* the largest difference of neighbouring values, the border's included */
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++) span = fmaxf(span, fabsf(tdata[y][x] + 7.0f));
    for (int norm = 0; norm < 2; norm++) {
        coords(norm);
        for (int k = 0; k < 4; k++) {
            unsigned long long t = texture(a, modes[k], CU_TR_FILTER_MODE_LINEAR,
                                           norm ? CU_TRSF_NORMALIZED_COORDINATES : 0);
            assert_ok(run_inst(tex2d, t, cin, cout, N));
            for (int i = 0; i < N; i++) {
                float u = cin[4 * i].f, v = cin[4 * i + 1].f, got = cout[4 * i].f;
                float q = ref_linear(u, v, modes[k], norm, true);
                float e = ref_linear(u, v, modes[k], norm, false);
                if (fabsf(got - q) > 1e-4f * fmaxf(1.0f, fabsf(q)) ||
                    fabsf(got - e) > span / 256.0f + 1e-4f) {
                    fail_msg("mode %d norm %d (%g, %g): %.7g; 8-bit weights %.7g, exact %.7g", k,
                             norm, u, v, got, q, e);
                }
            }
            assert_ok(D->cuTexObjectDestroy(t));
        }
    }
    assert_ok(D->cuArrayDestroy(a));
}

static void test_formats_and_read_modes(void **state) {
    (void)state;
    /* 4 x u8 read as normalized floats, and as integers. */
    unsigned char px[2][2][4] = {{{0, 51, 255, 128}, {1, 2, 3, 4}},
                                 {{9, 8, 7, 6}, {200, 100, 50, 25}}};
    CUarray a = array2d(CU_AD_FORMAT_UNSIGNED_INT8, 4, 2, 2, 0);
    array_whole(a, px, true);
    for (int t = 0; t < 4; t++) {
        cin[4 * t].f = (float)(t % 2) + 0.5f;
        cin[4 * t + 1].f = (float)(t / 2) + 0.5f;
    }
    unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    assert_ok(run_inst(tex2d, t, cin, cout, 4));
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 4; c++)
            assert_true(cout[4 * i + c].f == (float)px[i / 2][i % 2][c] / 255.0f);
    assert_ok(D->cuTexObjectDestroy(t));
    /* sRGB: red, green and blue decoded to linear light, alpha as stored. */
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_SRGB);
    assert_ok(run_inst(tex2d, t, cin, cout, 1));
    assert_true(cout[0].f == 0.0f);
    assert_true(fabsf(cout[1].f - 0.0331048f) < 1e-6f); /* 51: ((0.2 + 0.055) / 1.055)^2.4 */
    assert_true(cout[2].f == 1.0f);
    assert_true(cout[3].f == 128.0f / 255.0f);
    assert_ok(D->cuTexObjectDestroy(t));
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_READ_AS_INTEGER);
    assert_ok(
        run_inst("tex.2d.v4.u32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}];", t, cin, cout, 4));
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 4; c++) assert_int_equal(cout[4 * i + c].u, px[i / 2][i % 2][c]);
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
    /* 2 x s16 normalized (-32768 reads -1, as -32767 does), the missing channels 0. */
    int16_t sv[2] = {-32768, 16384};
    a = array2d(CU_AD_FORMAT_SIGNED_INT16, 2, 1, 1, 0);
    array_whole(a, sv, true);
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    assert_ok(run_inst(tex2d, t, cin, cout, 1));
    assert_true(cout[0].f == -1.0f);
    assert_true(cout[1].f == 16384.0f / 32767.0f);
    assert_true(cout[2].f == 0.0f && cout[3].f == 0.0f);
    assert_ok(D->cuTexObjectDestroy(t));
    /* Read as integers: -32768 and 16384 sign-extended; w is 0. */
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_READ_AS_INTEGER);
    assert_ok(
        run_inst("tex.2d.v4.s32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}];", t, cin, cout, 1));
    assert_int_equal(cout[0].i, -32768);
    assert_int_equal(cout[1].i, 16384);
    assert_int_equal(cout[3].i, 0);
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
    /* Half: 0x3c00 is 1, 0xc500 is -5; linear filtering halfway. */
    uint16_t hv[2] = {0x3c00, 0xc500};
    a = array2d(CU_AD_FORMAT_HALF, 1, 2, 1, 0);
    array_whole(a, hv, true);
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR, 0);
    cin[0].f = 1.0f;
    cin[1].f = 0.5f;
    cin[4].f = 1.25f;
    cin[5].f = 0.5f;
    assert_ok(run_inst(tex2d, t, cin, cout, 2));
    assert_true(cout[0].f == -2.0f);
    assert_true(cout[4].f == 1.0f * 0.25f + -5.0f * 0.75f);
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
}

static void test_a_dead_object_faults_the_kernel(void **state) {
    (void)state;
    CUarray a = float_array();
    unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    assert_ok(D->cuArrayDestroy(a));
    assert_cu(CUDA_ERROR_ILLEGAL_ADDRESS, run_inst(tex2d, t, cin, cout, 1));
    assert_has(mock.kernel_error(), "was destroyed");
    D->cuTexObjectDestroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_texture_objects_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_point_sampling_every_address_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linear_filtering_within_the_8_bit_fraction, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_formats_and_read_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_dead_object_faults_the_kernel, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
