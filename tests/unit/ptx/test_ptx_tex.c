/* The texture and surface instructions on the interpreter alone, with a texture of the test's
 * own through the launch's texture callback: PTX ISA 9.7.10.3 "tex", 9.7.10.4 "tld4", 9.7.10.5
 * "txq", 9.7.11.1 "suld", 9.7.11.2 "sust", 9.7.11.4 "suq". What the decoder refuses, with the
 * instruction and its line; a launch without objects, and a handle that is none, fault. (The
 * sampling itself is tested through the mock driver: tests/unit/test_mock_texture.c.) */
#include "ptx_util.h"

static float texels[2][3] = {{1, 2, 3}, {4, 5, 6}};

/* Handle 7 is a 3 x 2 float texture, point sampled, clamped; handle 8 a surface over it. */
static bool lookup(void *ctx, uint64_t h, bool surface, mock_ptx_texture *t, char *why,
                   size_t len) {
    (void)ctx;
    if (h != (surface ? 8u : 7u)) {
        snprintf(why, len, "handle %llu is no object of the test", (unsigned long long)h);
        return false;
    }
    memset(t, 0, sizeof *t);
    t->data = (unsigned char *)texels;
    t->width = 3;
    t->height = 2;
    t->depth = 1;
    t->dims = 2;
    t->elem = 4;
    t->pitch = 12;
    t->slice = 24;
    t->format = CU_AD_FORMAT_FLOAT;
    t->channels = 1;
    t->address[0] = t->address[1] = CU_TR_ADDRESS_MODE_CLAMP;
    t->levels = 1;
    return true;
}

/* `body` between loads of the handle (%rd1) and of out (%rd2), which gets %f1..%f4 / %r1.. */
static CUresult run_tex(const char *body, uint64_t handle, uint32_t out[4], bool with_callback) {
    char text[2048];
    snprintf(text, sizeof text,
             HEAD ".visible .entry k(.param .u64 t, .param .u64 o)\n{\n"
                  ".reg .f32 %%f<9>; .reg .b32 %%r<9>; .reg .b64 %%rd<3>;\n"
                  "ld.param.u64 %%rd1, [t]; ld.param.u64 %%rd2, [o];\n"
                  "%s\n"
                  "st.global.v4.b32 [%%rd2], {%%r1, %%r2, %%r3, %%r4};\n"
                  "ret;\n}\n",
             body);
    uint32_t *dev = dev_alloc(16);
    void *p[] = {&handle, &dev};
    mock_ptx_module *m = NULL;
    CUresult r = mock__ptx_parse(&m, text, strlen(text), err, sizeof err);
    if (r != CUDA_SUCCESS) return r;
    const mock_ptx_kernel *k = mock__ptx_kernel(m, "k");
    assert_non_null(k);
    mock_ptx_launch l = {.grid = {1, 1, 1},
                         .block = {1, 1, 1},
                         .params = p,
                         .check = check,
                         .texture = with_callback ? lookup : NULL};
    r = mock__ptx_run(k, &l, err, sizeof err);
    mock__ptx_free(m);
    memcpy(out, dev, 16);
    dev_free_all();
    return r;
}

static void test_fetch_query_and_surface(void **state) {
    (void)state;
    uint32_t out[4];
    float f;
    /* (2.5, 1.5) is texel (2, 1); y, z and w read 0 for one channel (as on the H200). */
    assert_ok(run_tex("mov.f32 %f5, 0f40200000; mov.f32 %f6, 0f3FC00000;\n"
                      "tex.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6}];",
                      7, out, true));
    memcpy(&f, &out[0], 4);
    assert_true(f == 6.0f);
    assert_int_equal(out[3], 0);
    assert_int_equal(out[1], 0);
    assert_ok(run_tex("txq.width.b32 %r1, [%rd1]; txq.height.b32 %r2, [%rd1];", 7, out, true));
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 2);
    /* The surface: byte 4 of row 1 is texel (1, 1); a store there, read back. */
    assert_ok(run_tex("add.s64 %rd1, %rd1, 1; mov.b32 %r5, 4; mov.b32 %r6, 1;\n"
                      "mov.b32 %r7, 0f41200000;\n"
                      "sust.b.2d.b32.trap [%rd1, {%r5, %r6}], {%r7};\n"
                      "suld.b.2d.b32.trap {%r1}, [%rd1, {%r5, %r6}];\n"
                      "suq.height.b32 %r2, [%rd1];",
                      7, out, true));
    memcpy(&f, &out[0], 4);
    assert_true(f == 10.0f);
    assert_true(texels[1][1] == 10.0f);
    assert_int_equal(out[1], 2);
    texels[1][1] = 5;
}

static void test_faults(void **state) {
    (void)state;
    uint32_t out[4];
    const char *fetch = "mov.f32 %f5, 0f00000000;\n"
                        "tex.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f5}];";
    assert_int_equal(run_tex(fetch, 9, out, true), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "handle 9 is no object of the test");
    assert_has(err, "PTX line 9");
    assert_int_equal(run_tex(fetch, 7, out, false), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "no texture or surface objects");
    /* A texture handle is not a surface's: 7 as a surface. */
    assert_int_equal(run_tex("suq.width.b32 %r1, [%rd1];", 7, out, true),
                     CUDA_ERROR_ILLEGAL_ADDRESS);
    /* Misaligned: a 4-byte load at byte 2 of a row. */
    assert_int_equal(
        run_tex("mov.b32 %r5, 2; mov.b32 %r6, 1; suld.b.2d.b32.trap {%r1}, [%rd1, {%r5, %r6}];", 8,
                out, true),
        CUDA_ERROR_MISALIGNED_ADDRESS);
    assert_has(err, "at byte 2 of a row");
}

/* Each refused at decode (the launch answers CUDA_ERROR_NOT_SUPPORTED) with the instruction and
 * a sentence. */
static void test_refused_forms(void **state) {
    (void)state;
    static const struct {
        const char *body, *says;
    } c[] = {
        {"tex.grad.cube.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2, %f2, %f2}], {%f1, "
         "%f2, %f2, %f2}, {%f1, %f2, %f2, %f2};",
         "tex.grad of .3d, .cube or .acube"},
        {"tex.base.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}];", "tex.base"},
        {"tex.2dms.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %r6, %r7, %r8}];", "multisample"},
        {"tex.2d.v2.f16x2.f32 {%r1, %r2}, [%rd1, {%f1, %f2}];", ".v4"},
        {"tex.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, %rd2, {%f1, %f2}];", "unified mode"},
        {"txq.channel_order.b32 %r1, [%rd1];", "txq query"},
        {"suq.filter_mode.b32 %r1, [%rd1];", "suq query"},
        {"sust.p.2d.v4.b32.trap [%rd1, {%r1, %r2}], {%r1, %r2, %r3, %r4};", "formatted"},
        {"suld.b.cube.b32.trap {%r1}, [%rd1, {%r1, %r2, %r3, %r4}];", "geometry"},
        {"suld.b.2d.v2.b32.trap {%r1}, [%rd1, {%r1, %r2}];", "registers for a .v2"},
    };
    uint32_t out[4];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CUresult r = run_tex(c[i].body, 7, out, true);
        if (r != CUDA_ERROR_NOT_SUPPORTED) fail_msg("case %zu: %d (%s)", i, (int)r, err);
        if (strstr(err, c[i].says) == NULL || strstr(err, "PTX line 8") == NULL) {
            fail_msg("case %zu: '%s' does not say '%s' and its line", i, err, c[i].says);
        }
    }
}

int main(void) {
    (void)run; /* ptx_util.h's, for tests with no objects */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_query_and_surface),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_refused_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
