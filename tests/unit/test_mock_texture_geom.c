/* The mock's texture objects over linear and pitched memory, layered, 3D, cube map and
 * mipmapped arrays, and surface objects, with the PTX that reads them: PTX ISA 9.7.10.3 "tex"
 * (.1d .a2d .3d .acube, tex.level, tex.grad), 9.7.10.4 "tld4", 9.7.10.5 "txq", 9.7.11.1
 * "suld", 9.7.11.2 "sust", 9.7.11.4 "suq", and the programming guide's cube map table. */
#include "mock_texture_util.h"

static void test_linear_memory_pitched_layered_and_3d(void **state) {
    (void)state;
    /* tex1Dfetch: integer coordinates into linear memory; outside reads 0 under border. */
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 8192));
    int32_t lin[64];
    for (int i = 0; i < 64; i++) lin[i] = i * 3 - 50;
    assert_ok(D->cuMemcpyHtoD(d, lin, sizeof lin));
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_LINEAR};
    r.res.linear.devPtr = d;
    r.res.linear.format = CU_AD_FORMAT_SIGNED_INT32;
    r.res.linear.numChannels = 1;
    r.res.linear.sizeInBytes = sizeof lin;
    CUDA_TEXTURE_DESC td = {.flags = CU_TRSF_READ_AS_INTEGER};
    CUtexObject t;
    assert_ok(D->cuTexObjectCreate(&t, &r, &td, NULL));
    for (int i = 0; i < 8; i++) cin[4 * i].i = i * 9 - 3;
    assert_ok(run_inst("tex.1d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8}];", t, cin, cout, 8));
    for (int i = 0; i < 8; i++) {
        int at = i * 9 - 3;
        assert_int_equal(cout[4 * i].i, lin[at < 0 ? 0 : at > 63 ? 63 : at]);
    }
    assert_ok(D->cuTexObjectDestroy(t));
    /* Pitch2D: 3 x 2 floats in rows of 128 bytes. */
    float *rows = (float *)(uintptr_t)d;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) rows[y * 32 + x] = (float)(10 * y + x);
    r = (CUDA_RESOURCE_DESC){.resType = CU_RESOURCE_TYPE_PITCH2D};
    r.res.pitch2D.devPtr = d;
    r.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    r.res.pitch2D.numChannels = 1;
    r.res.pitch2D.width = 3;
    r.res.pitch2D.height = 2;
    r.res.pitch2D.pitchInBytes = 128;
    td = (CUDA_TEXTURE_DESC){.filterMode = CU_TR_FILTER_MODE_POINT};
    assert_ok(D->cuTexObjectCreate(&t, &r, &td, NULL));
    cin[0].f = 2.5f;
    cin[1].f = 1.5f;
    assert_ok(run_inst(tex2d, t, cin, cout, 1));
    assert_true(cout[0].f == 12.0f);
    r.res.pitch2D.pitchInBytes = 100;
    CUtexObject bad;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuTexObjectCreate(&bad, &r, &td, NULL));
    assert_ok(D->cuTexObjectDestroy(t));
    /* A layered 2D array: layer 2 of 3 (the layer index clamped), and a 3D array. */
    CUDA_ARRAY3D_DESCRIPTOR ld = {.Width = 2,
                                  .Height = 2,
                                  .Depth = 3,
                                  .Format = CU_AD_FORMAT_FLOAT,
                                  .NumChannels = 1,
                                  .Flags = CUDA_ARRAY3D_LAYERED};
    float lv[3][2][2];
    for (int l = 0; l < 3; l++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++) lv[l][y][x] = (float)(100 * l + 10 * y + x);
    CUarray la;
    assert_ok(D->cuArray3DCreate(&la, &ld));
    array_whole(la, lv, true);
    t = texture(la, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    cin[0].u = 2;
    cin[1].f = 1.5f;
    cin[2].f = 0.5f;
    cin[4].u = 7;
    cin[5].f = 0.5f;
    cin[6].f = 1.5f;
    assert_ok(run_inst("tex.a2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9, %r10, %r11}];",
                       t, cin, cout, 2));
    assert_true(cout[0].f == 201.0f);
    assert_true(cout[4].f == 210.0f);
    assert_ok(D->cuTexObjectDestroy(t));
    ld.Flags = 0;
    CUarray va;
    assert_ok(D->cuArray3DCreate(&va, &ld));
    array_whole(va, lv, true);
    t = texture(va, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR, 0);
    cin[0].f = 1.0f; /* halfway in x, texel 1 of y, halfway between slices 1 and 2 */
    cin[1].f = 1.5f;
    cin[2].f = 2.0f;
    assert_ok(run_inst("tex.3d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9, %r10, %r11}];", t,
                       cin, cout, 1));
    assert_true(cout[0].f == 160.5f);
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(va));
    assert_ok(D->cuArrayDestroy(la));
    assert_ok(D->cuMemFree(d));
}

/* The programming guide's cube map table: the face of (x, y, z) and its (u, v) in [0, 1]. */
static int ref_face(float x, float y, float z, float *u, float *v) {
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
    if (ax >= ay && ax >= az) {
        *u = ((x >= 0 ? -z : z) / ax + 1) / 2;
        *v = (-y / ax + 1) / 2;
        return x >= 0 ? 0 : 1;
    }
    if (ay >= az) {
        *u = (x / ay + 1) / 2;
        *v = ((y >= 0 ? z : -z) / ay + 1) / 2;
        return y >= 0 ? 2 : 3;
    }
    *u = ((z >= 0 ? x : -x) / az + 1) / 2;
    *v = (-y / az + 1) / 2;
    return z >= 0 ? 4 : 5;
}

static void test_cube_maps(void **state) {
    (void)state;
    enum { S = 4 };
    float faces[12][S][S]; /* a cube map array of 2 cubes */
    for (int f = 0; f < 12; f++)
        for (int y = 0; y < S; y++)
            for (int x = 0; x < S; x++) faces[f][y][x] = (float)(100 * f + 10 * y + x);
    CUDA_ARRAY3D_DESCRIPTOR d = {.Width = S,
                                 .Height = S,
                                 .Depth = 12,
                                 .Format = CU_AD_FORMAT_FLOAT,
                                 .NumChannels = 1,
                                 .Flags = CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED};
    CUarray a;
    assert_ok(D->cuArray3DCreate(&a, &d));
    array_whole(a, faces, true);
    unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_WRAP, CU_TR_FILTER_MODE_POINT, 0);
    uint32_t seed = 5;
    for (int i = 0; i < N; i++) {
        cin[4 * i].u = (uint32_t)(i % 2);
        for (int k = 1; k < 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            cin[4 * i + k].f = (float)(seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        }
    }
    assert_ok(run_inst("tex.acube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9, %r10, "
                       "%r11}];",
                       t, cin, cout, N));
    for (int i = 0; i < N; i++) {
        float u, v;
        int f = ref_face(cin[4 * i + 1].f, cin[4 * i + 2].f, cin[4 * i + 3].f, &u, &v);
        int x = (int)floorf(u * S), y = (int)floorf(v * S);
        x = x > S - 1 ? S - 1 : x;
        y = y > S - 1 ? S - 1 : y;
        float want = faces[6 * (int)cin[4 * i].u + f][y][x];
        if (cout[4 * i].f != want) {
            fail_msg("cube %u (%g, %g, %g): %g, not %g", cin[4 * i].u, cin[4 * i + 1].f,
                     cin[4 * i + 2].f, cin[4 * i + 3].f, cout[4 * i].f, want);
        }
    }
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
}

/* An 8 x 8 float mipmapped array of 4 levels whose level i holds i + 1 everywhere. */
static CUmipmappedArray levels_8x8(void) {
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = 8, .Height = 8, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    CUmipmappedArray m;
    assert_ok(D->cuMipmappedArrayCreate(&m, &d, 4));
    for (unsigned i = 0; i < 4; i++) {
        CUarray l;
        assert_ok(D->cuMipmappedArrayGetLevel(&l, m, i));
        float v[64];
        for (int k = 0; k < 64; k++) v[k] = (float)(i + 1);
        array_whole(l, v, true);
    }
    return m;
}

/* A texture of m (normalized coordinates, point filtering within a level). */
static CUtexObject levels_texture(CUmipmappedArray m, CUfilter_mode mip, float bias, float lo,
                                  float hi) {
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY};
    r.res.mipmap.hMipmappedArray = m;
    CUDA_TEXTURE_DESC t = {.filterMode = CU_TR_FILTER_MODE_POINT,
                           .mipmapFilterMode = mip,
                           .mipmapLevelBias = bias,
                           .minMipmapLevelClamp = lo,
                           .maxMipmapLevelClamp = hi,
                           .flags = CU_TRSF_NORMALIZED_COORDINATES};
    CUtexObject o;
    assert_ok(D->cuTexObjectCreate(&o, &r, &t, NULL));
    return o;
}

/* Linear filtering of a cube map with CU_TRSF_SEAMLESS_CUBEMAP: a footprint past a face's edge
 * takes the texels of the face across it (at a corner, the mean of the three faces' texels);
 * without the flag the face is clamped. Face f holds f + 1 everywhere. */
static void test_seamless_cube(void **state) {
    (void)state;
    enum { S = 4 };
    float faces[6][S][S];
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < S * S; k++) faces[f][k / S][k % S] = (float)(f + 1);
    CUDA_ARRAY3D_DESCRIPTOR d = {.Width = S,
                                 .Height = S,
                                 .Depth = 6,
                                 .Format = CU_AD_FORMAT_FLOAT,
                                 .NumChannels = 1,
                                 .Flags = CUDA_ARRAY3D_CUBEMAP};
    CUarray a;
    assert_ok(D->cuArray3DCreate(&a, &d));
    array_whole(a, faces, true);
    static const struct {
        float x, y, z, seamless, clamped;
    } c[] = {
        {1, 0.1f, 1, 3.0f, 1.0f},      /* the edge of +x (1) and +z (5): half of each */
        {1, 1, 1, 3.0f, 1.0f},         /* the corner of +x, +y, +z: (1 + 3 + 5 + mean) / 4 */
        {1, 0.1f, 0.2f, 1.0f, 1.0f},   /* inside +x */
        {-0.1f, -1, 0.1f, 4.0f, 4.0f}, /* inside -y */
    };
    for (int seam = 0; seam < 2; seam++) {
        unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR,
                                       seam ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
            cin[0].f = c[i].x;
            cin[1].f = c[i].y;
            cin[2].f = c[i].z;
            assert_ok(run_inst("tex.cube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9, "
                               "%r10, %r10}];",
                               t, cin, cout, 1));
            float want = seam ? c[i].seamless : c[i].clamped;
            if (fabsf(cout[0].f - want) > 1e-5f) {
                fail_msg("%s case %zu: %g, not %g", seam ? "seamless" : "clamped", i, cout[0].f,
                         want);
            }
        }
        assert_ok(D->cuTexObjectDestroy(t));
    }
    assert_ok(D->cuArrayDestroy(a));
}

/* tex.level on a mipmapped array whose level i holds i + 1 everywhere: the nearest level, or
 * (mipmap filter linear) the two around the level of detail mixed; the bias and the clamps
 * applied first. */
static void test_mipmap_levels(void **state) {
    (void)state;
    CUmipmappedArray m = levels_8x8();
    static const struct {
        CUfilter_mode mip;
        float bias, lo, hi, lod, want;
    } c[] = {
        {CU_TR_FILTER_MODE_POINT, 0, 0, 3, 0.0f, 1.0f},
        {CU_TR_FILTER_MODE_POINT, 0, 0, 3, 1.4f, 2.0f},
        {CU_TR_FILTER_MODE_POINT, 0, 0, 3, 1.6f, 3.0f},
        {CU_TR_FILTER_MODE_POINT, 0, 0, 3, 9.0f, 4.0f},
        {CU_TR_FILTER_MODE_POINT, 0, 0, 1, 2.0f, 2.0f}, /* the max clamp */
        {CU_TR_FILTER_MODE_POINT, 1, 0, 3, 0.2f, 2.0f}, /* the bias */
        {CU_TR_FILTER_MODE_LINEAR, 0, 0, 3, 1.5f, 2.5f},
        {CU_TR_FILTER_MODE_LINEAR, 0, 0, 3, 2.25f, 3.25f},
        {CU_TR_FILTER_MODE_LINEAR, 0, 1, 3, -4.0f, 2.0f}, /* the min clamp */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CUtexObject o = levels_texture(m, c[i].mip, c[i].bias, c[i].lo, c[i].hi);
        cin[0].f = 0.3f;
        cin[1].f = 0.6f;
        cin[2].f = c[i].lod;
        assert_ok(run_inst("tex.level.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}], "
                           "%r10;",
                           o, cin, cout, 1));
        if (cout[0].f != c[i].want) fail_msg("case %zu: %g, not %g", i, cout[0].f, c[i].want);
        assert_ok(D->cuTexObjectDestroy(o));
    }
    assert_ok(D->cuMipmappedArrayDestroy(m));
}

/* tex.grad (PTX ISA 9.7.10.3): the level of detail is log2 of the longer gradient in texels of
 * level 0 (dPdx = (%r10, 0), dPdy = (0, %r11) in normalized coordinates on 8 x 8), then as
 * tex.level; a .3d gradient is refused with a sentence at launch. */
static void test_gradients(void **state) {
    (void)state;
    CUmipmappedArray m = levels_8x8();
    static const struct {
        CUfilter_mode mip;
        float dx, dy, want;
    } c[] = {
        {CU_TR_FILTER_MODE_POINT, 0.125f, 0.0f, 1.0f},       /* one texel: level 0 */
        {CU_TR_FILTER_MODE_POINT, 0.25f, 0.125f, 2.0f},      /* two: level 1 */
        {CU_TR_FILTER_MODE_POINT, 0.125f, 0.5f, 3.0f},       /* dPdy's four: level 2 */
        {CU_TR_FILTER_MODE_POINT, 0.0f, 0.0f, 1.0f},         /* none: level 0 */
        {CU_TR_FILTER_MODE_POINT, 4.0f, 0.0f, 4.0f},         /* beyond the last level */
        {CU_TR_FILTER_MODE_LINEAR, 0.35355339f, 0.0f, 2.5f}, /* 2^1.5 texels */
    };
    const char *grad = "tex.grad.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}], "
                       "{%r10, 0f00000000}, {0f00000000, %r11};";
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CUtexObject o = levels_texture(m, c[i].mip, 0, 0, 3);
        cin[0].f = 0.3f;
        cin[1].f = 0.6f;
        cin[2].f = c[i].dx;
        cin[3].f = c[i].dy;
        assert_ok(run_inst(grad, o, cin, cout, 1));
        if (cout[0].f != c[i].want) fail_msg("case %zu: %g, not %g", i, cout[0].f, c[i].want);
        assert_ok(D->cuTexObjectDestroy(o));
    }
    assert_ok(D->cuMipmappedArrayDestroy(m));
    /* Without mipmaps the gradients change nothing: level 0 of the plain array. */
    CUarray a = float_array();
    unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT,
                                   CU_TRSF_NORMALIZED_COORDINATES);
    cin[0].f = 2.5f / TW;
    cin[1].f = 1.5f / TH;
    cin[2].f = cin[3].f = 3.0f;
    assert_ok(run_inst(grad, t, cin, cout, 1));
    assert_true(cout[0].f == tdata[1][2]);
    assert_cu(CUDA_ERROR_NOT_SUPPORTED,
              run_inst("tex.grad.3d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9, %r10, "
                       "%r10}], {%r11, %r11, %r11, %r11}, {%r11, %r11, %r11, %r11};",
                       t, cin, cout, 1));
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
}

static void test_gather_and_queries(void **state) {
    (void)state;
    CUarray a = float_array();
    unsigned long long t = texture(a, CU_TR_ADDRESS_MODE_BORDER, CU_TR_FILTER_MODE_POINT,
                                   CU_TRSF_NORMALIZED_COORDINATES);
    /* tld4.r at texel corner (2, 1) in texels: {(1,1), (2,1), (2,0), (1,0)}; at (0, 0) the
     * footprint leaves the texture: border colour. */
    cin[0].f = 2.0f / TW;
    cin[1].f = 1.0f / TH;
    cin[4].f = 0.0f;
    cin[5].f = 0.0f;
    assert_ok(run_inst("tld4.r.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}];", t, cin,
                       cout, 2));
    assert_true(cout[0].f == tdata[1][1] && cout[1].f == tdata[1][2]);
    assert_true(cout[2].f == tdata[0][2] && cout[3].f == tdata[0][1]);
    assert_true(cout[4].f == -7.0f && cout[5].f == tdata[0][0]);
    assert_true(cout[6].f == -7.0f && cout[7].f == -7.0f);
    static const struct {
        const char *q;
        uint32_t want;
    } q[] = {{"width", TW},      {"height", TH},           {"depth", 1},
             {"array_size", 0},  {"normalized_coords", 1}, {"filter_mode", 0},
             {"addr_mode_0", 4}, {"num_mipmap_levels", 1}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        char inst[128];
        snprintf(inst, sizeof inst, "txq.%s.b32 %%r4, [%%rd1];", q[i].q);
        assert_ok(run_inst(inst, t, cin, cout, 1));
        if (cout[0].u != q[i].want) fail_msg("txq.%s: %u, not %u", q[i].q, cout[0].u, q[i].want);
    }
    /* A query the interpreter does not answer is refused with a sentence at launch. */
    assert_cu(CUDA_ERROR_NOT_SUPPORTED,
              run_inst("txq.channel_order.b32 %r4, [%rd1];", t, cin, cout, 1));
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
}

static void test_surface_loads_and_stores(void **state) {
    (void)state;
    CUarray a = array2d(CU_AD_FORMAT_UNSIGNED_INT32, 2, 4, 3, CUDA_ARRAY3D_SURFACE_LDST);
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = a;
    CUsurfObject s;
    assert_ok(D->cuSurfObjectCreate(&s, &r));
    /* Thread t stores {t, 100 + t} at element (t % 4, t / 4): x in bytes. */
    for (int t = 0; t < 12; t++) {
        cin[4 * t].i = (t % 4) * 8;
        cin[4 * t + 1].i = t / 4;
        cin[4 * t + 2].u = (uint32_t)t;
        cin[4 * t + 3].u = 100u + (uint32_t)t;
    }
    assert_ok(
        run_inst("sust.b.2d.v2.b32.trap [%rd1, {%r8, %r9}], {%r10, %r11};", s, cin, cout, 12));
    uint32_t back[3][4][2];
    array_whole(a, back, false);
    for (int t = 0; t < 12; t++) {
        assert_int_equal(back[t / 4][t % 4][0], t);
        assert_int_equal(back[t / 4][t % 4][1], 100 + t);
    }
    /* Loads: the second word of element (1, 1) alone (x 12 bytes, b32), then out of range with
     * .zero and .clamp. */
    assert_ok(run_inst("suld.b.2d.b32.trap {%r4}, [%rd1, {%r10, %r9}];", s,
                       (word[]){{.i = 0}, {.i = 1}, {.i = 12}, {0}}, cout, 1));
    assert_int_equal(cout[0].u, 105);
    word far[4] = {{.i = 40}, {.i = 9}, {0}, {0}};
    assert_ok(run_inst("suld.b.2d.v2.b32.zero {%r4, %r5}, [%rd1, {%r8, %r9}];", s, far, cout, 1));
    assert_int_equal(cout[0].u, 0);
    assert_ok(run_inst("suld.b.2d.v2.b32.clamp {%r4, %r5}, [%rd1, {%r8, %r9}];", s, far, cout, 1));
    assert_int_equal(cout[0].u, 11);
    assert_int_equal(cout[1].u, 111);
    static const struct {
        const char *q;
        uint32_t want;
    } q[] = {{"width", 4}, {"height", 3}, {"depth", 1}, {"array_size", 0}, {"memory_layout", 1}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        char inst[128];
        snprintf(inst, sizeof inst, "suq.%s.b32 %%r4, [%%rd1];", q[i].q);
        assert_ok(run_inst(inst, s, cin, cout, 1));
        if (cout[0].u != q[i].want) fail_msg("suq.%s: %u, not %u", q[i].q, cout[0].u, q[i].want);
    }
    /* .trap out of range: the kernel faults (and its context is unusable after). */
    assert_cu(CUDA_ERROR_ILLEGAL_ADDRESS,
              run_inst("suld.b.2d.v2.b32.trap {%r4, %r5}, [%rd1, {%r8, %r9}];", s, far, cout, 1));
    assert_has(mock.kernel_error(), "outside the surface");
    D->cuSurfObjectDestroy(s);
    D->cuArrayDestroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_linear_memory_pitched_layered_and_3d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cube_maps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seamless_cube, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mipmap_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gradients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gather_and_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_surface_loads_and_stores, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
