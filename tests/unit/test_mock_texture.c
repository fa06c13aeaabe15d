/* The mock's arrays, copies to and from them, texture and surface objects, and the PTX that
 * reads them: PTX ISA 9.7.10.3 "tex", 9.7.10.4 "tld4", 9.7.10.5 "txq", 9.7.11.1 "suld",
 * 9.7.11.2 "sust", 9.7.11.4 "suq" (and the guide's cube map table). Point sampling is compared
 * exactly with a reference written here from the CUDA C++ Programming Guide's appendix "Texture
 * Fetching"; linear filtering with that reference's 8-bit weights (to float rounding) and with
 * exact bilinear interpolation within the 1/256 those weights allow. */
#include <math.h>

#include "mock_primary.h"

#define assert_has(text, part)                                                                     \
    do {                                                                                           \
        if (strstr((text), (part)) == NULL) fail_msg("'%s' does not say '%s'", (text), (part));    \
    } while (0)

/* A kernel of one instruction: thread t reads four words of in[t] into %r8..%r11, runs the
 * instruction (the object's handle in %rd1, results in %r4..%r7), and writes %r4..%r7 to
 * out[t]. */
static const char kernel_fmt[] =
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
static CUresult run_inst(const char *inst, unsigned long long obj, const word *in, word *out,
                         unsigned n) {
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

static CUarray array2d(CUarray_format f, unsigned ch, size_t w, size_t h, unsigned flags) {
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = w, .Height = h, .Format = f, .NumChannels = ch, .Flags = flags};
    CUarray a;
    assert_ok(D->cuArray3DCreate(&a, &d));
    return a;
}

static unsigned long long texture(CUarray a, CUaddress_mode mode, CUfilter_mode filter,
                                  unsigned flags) {
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
/* Arrays and copies                                                                          */
/* ------------------------------------------------------------------------------------------ */

static void test_array_descriptors_and_errors(void **state) {
    (void)state;
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR d2 = {
        .Width = 8, .Height = 4, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 2};
    assert_ok(D->cuArrayCreate(&a, &d2));
    CUDA_ARRAY3D_DESCRIPTOR got;
    assert_ok(D->cuArray3DGetDescriptor(&got, a));
    assert_int_equal(got.Width, 8);
    assert_int_equal(got.Height, 4);
    assert_int_equal(got.Depth, 0);
    assert_int_equal(got.NumChannels, 2);
    assert_int_equal(got.Format, CU_AD_FORMAT_FLOAT);
    CUDA_ARRAY_DESCRIPTOR back;
    assert_ok(D->cuArrayGetDescriptor(&back, a));
    assert_memory_equal(&back, &d2, sizeof back);
    assert_ok(D->cuArrayDestroy(a));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuArrayDestroy(a));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuArray3DGetDescriptor(&got, a));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuArrayDestroy((CUarray)&got));
    /* Refused descriptors: no width, 3 channels, an unknown format, a depth without height,
     * a cube map that is not square, unknown flags, NULL. */
    CUDA_ARRAY3D_DESCRIPTOR bad[] = {
        {.Width = 0, .Height = 1, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1},
        {.Width = 4, .Height = 1, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 3},
        {.Width = 4, .Height = 1, .Format = (CUarray_format)0x77, .NumChannels = 1},
        {.Width = 4, .Depth = 2, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1},
        {.Width = 4,
         .Height = 5,
         .Depth = 6,
         .Format = CU_AD_FORMAT_FLOAT,
         .NumChannels = 1,
         .Flags = CUDA_ARRAY3D_CUBEMAP},
        {.Width = 4, .Height = 4, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1, .Flags = 0x4000},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuArray3DCreate(&a, &bad[i]));
    }
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuArray3DCreate(NULL, &bad[1]));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuArray3DCreate(&a, NULL));
    /* 1D, layered and 3D arrays. */
    CUDA_ARRAY3D_DESCRIPTOR ok[] = {
        {.Width = 100, .Format = CU_AD_FORMAT_UNSIGNED_INT8, .NumChannels = 4},
        {.Width = 16,
         .Height = 8,
         .Depth = 3,
         .Format = CU_AD_FORMAT_HALF,
         .NumChannels = 1,
         .Flags = CUDA_ARRAY3D_LAYERED},
        {.Width = 16,
         .Height = 8,
         .Depth = 5,
         .Format = CU_AD_FORMAT_SIGNED_INT16,
         .NumChannels = 2,
         .Flags = CUDA_ARRAY3D_SURFACE_LDST},
        {.Width = 8,
         .Height = 8,
         .Depth = 6,
         .Format = CU_AD_FORMAT_FLOAT,
         .NumChannels = 1,
         .Flags = CUDA_ARRAY3D_CUBEMAP},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_ok(D->cuArray3DCreate(&a, &ok[i]));
        assert_ok(D->cuArray3DGetDescriptor(&got, a));
        assert_memory_equal(&got, &ok[i], sizeof got);
        assert_ok(D->cuArrayDestroy(a));
    }
}

static void test_copies_to_and_from_arrays(void **state) {
    (void)state;
    enum { W = 6, H = 5 };
    float in[H][W + 3], out[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W + 3; x++) in[y][x] = (float)(y * 100 + x);
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, W, H, 0);
    /* Host rows of W + 3 floats into the array; the array's own pitch is ignored. */
    CUDA_MEMCPY2D up = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                        .srcHost = in,
                        .srcPitch = sizeof in[0],
                        .dstMemoryType = CU_MEMORYTYPE_ARRAY,
                        .dstArray = a,
                        .dstPitch = 12345,
                        .WidthInBytes = W * sizeof(float),
                        .Height = H};
    assert_ok(D->cuMemcpy2D(&up));
    memset(out, 0, sizeof out);
    assert_ok(D->cuMemcpyAtoH(out, a, 0, sizeof out));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) assert_true(out[y][x] == in[y][x]);
    /* A window: 2x2 at (3, 2) of the array to a device buffer and back. */
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, 64));
    CUDA_MEMCPY2D win = {.srcMemoryType = CU_MEMORYTYPE_ARRAY,
                         .srcArray = a,
                         .srcXInBytes = 3 * sizeof(float),
                         .srcY = 2,
                         .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                         .dstDevice = d,
                         .dstPitch = 2 * sizeof(float),
                         .WidthInBytes = 2 * sizeof(float),
                         .Height = 2};
    assert_ok(D->cuMemcpy2D(&win));
    float w4[4];
    assert_ok(D->cuMemcpyDtoH(w4, d, sizeof w4));
    assert_true(w4[0] == 203 && w4[1] == 204 && w4[2] == 303 && w4[3] == 304);
    /* Past the array's last row or column: refused. */
    win.srcY = 4;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy2D(&win));
    win.srcY = 0;
    win.srcXInBytes = 5 * sizeof(float);
    win.Height = 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy2D(&win));
    /* 1D copies at byte offsets: device to array, array to array, array to device, async. */
    float v[3] = {1.5f, 2.5f, 3.5f};
    assert_ok(D->cuMemcpyHtoD(d, v, sizeof v));
    assert_ok(D->cuMemcpyDtoA(a, 4 * sizeof(float), d, sizeof v));
    CUarray b = array2d(CU_AD_FORMAT_FLOAT, 1, W, H, 0);
    assert_ok(D->cuMemcpyAtoA(b, 0, a, 0, W * H * sizeof(float)));
    assert_ok(D->cuMemcpyAtoD(d, b, 5 * sizeof(float), sizeof(float)));
    float one = 0;
    assert_ok(D->cuMemcpyDtoH(&one, d, sizeof one));
    assert_true(one == 2.5f);
    CUstream s;
    assert_ok(D->cuStreamCreate(&s, 0));
    assert_ok(D->cuMemcpyHtoAAsync(b, 0, v, sizeof v, s));
    float three[3] = {0};
    assert_ok(D->cuMemcpyAtoHAsync(three, b, 0, sizeof three, s));
    assert_ok(D->cuStreamSynchronize(s));
    assert_memory_equal(three, v, sizeof v);
    assert_ok(D->cuStreamDestroy(s));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyHtoA(b, W * H * sizeof(float) - 4, v, 8));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuMemcpyHtoA((CUarray)v, 0, v, 4));
    /* A 3D copy into slice 1 of a 3D array, back through a 3D copy. */
    CUDA_ARRAY3D_DESCRIPTOR d3 = {.Width = 4,
                                  .Height = 2,
                                  .Depth = 3,
                                  .Format = CU_AD_FORMAT_UNSIGNED_INT8,
                                  .NumChannels = 1};
    CUarray c;
    assert_ok(D->cuArray3DCreate(&c, &d3));
    unsigned char slab[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}}, all[3][2][4];
    CUDA_MEMCPY3D c3 = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                        .srcHost = slab,
                        .srcPitch = 4,
                        .srcHeight = 2,
                        .dstMemoryType = CU_MEMORYTYPE_ARRAY,
                        .dstArray = c,
                        .dstZ = 1,
                        .WidthInBytes = 4,
                        .Height = 2,
                        .Depth = 1};
    assert_ok(D->cuMemcpy3D(&c3));
    CUDA_MEMCPY3D back = {.srcMemoryType = CU_MEMORYTYPE_ARRAY,
                          .srcArray = c,
                          .dstMemoryType = CU_MEMORYTYPE_HOST,
                          .dstHost = all,
                          .dstPitch = 4,
                          .dstHeight = 2,
                          .WidthInBytes = 4,
                          .Height = 2,
                          .Depth = 3};
    assert_ok(D->cuMemcpy3D(&back));
    assert_int_equal(all[0][1][2], 0);
    assert_int_equal(all[1][1][2], 7);
    assert_int_equal(all[2][0][0], 0);
    c3.dstZ = 3;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpy3D(&c3));
    assert_ok(D->cuArrayDestroy(c));
    assert_ok(D->cuArrayDestroy(b));
    assert_ok(D->cuArrayDestroy(a));
    assert_ok(D->cuMemFree(d));
}

static void test_mipmapped_arrays(void **state) {
    (void)state;
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = 16, .Height = 4, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    CUmipmappedArray m;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMipmappedArrayCreate(&m, &d, 6));
    assert_ok(D->cuMipmappedArrayCreate(&m, &d, 5));
    CUarray l;
    CUDA_ARRAY3D_DESCRIPTOR got;
    assert_ok(D->cuMipmappedArrayGetLevel(&l, m, 4));
    assert_ok(D->cuArray3DGetDescriptor(&got, l));
    assert_int_equal(got.Width, 1);
    assert_int_equal(got.Height, 1);
    assert_ok(D->cuMipmappedArrayGetLevel(&l, m, 2));
    assert_ok(D->cuArray3DGetDescriptor(&got, l));
    assert_int_equal(got.Width, 4);
    assert_int_equal(got.Height, 1);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMipmappedArrayGetLevel(&l, m, 5));
    /* A level belongs to its mipmapped array. */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuArrayDestroy(l));
    assert_ok(D->cuMipmappedArrayDestroy(m));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuMipmappedArrayDestroy(m));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuArray3DGetDescriptor(&got, l));
}

/* ------------------------------------------------------------------------------------------ */
/* Texture and surface objects                                                                */
/* ------------------------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------------------------ */
/* Sampling: the reference                                                                    */
/* ------------------------------------------------------------------------------------------ */

enum { TW = 5, TH = 3 };
static float tdata[TH][TW];

static long ref_address(long i, long n, CUaddress_mode m, bool norm) {
    if (!norm && (m == CU_TR_ADDRESS_MODE_WRAP || m == CU_TR_ADDRESS_MODE_MIRROR)) {
        m = CU_TR_ADDRESS_MODE_CLAMP;
    }
    if (m == CU_TR_ADDRESS_MODE_WRAP) return ((i % n) + n) % n;
    if (m == CU_TR_ADDRESS_MODE_MIRROR) {
        long k = ((i % (2 * n)) + 2 * n) % (2 * n);
        return k < n ? k : 2 * n - 1 - k;
    }
    if (m == CU_TR_ADDRESS_MODE_BORDER) return i < 0 || i >= n ? -1 : i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static float ref_texel(long x, long y) { return x < 0 || y < 0 ? -7.0f : tdata[y][x]; }

static float ref_point(float u, float v, CUaddress_mode m, bool norm) {
    float x = norm ? u * TW : u, y = norm ? v * TH : v;
    return ref_texel(ref_address((long)floorf(x), TW, m, norm),
                     ref_address((long)floorf(y), TH, m, norm));
}

/* Bilinear, with the weights rounded to 1/256 (quantized) or exact. */
static float ref_linear(float u, float v, CUaddress_mode m, bool norm, bool quantized) {
    float x = (norm ? u * TW : u) - 0.5f, y = (norm ? v * TH : v) - 0.5f;
    long i = (long)floorf(x), j = (long)floorf(y);
    float a = x - floorf(x), b = y - floorf(y);
    if (quantized) {
        a = roundf(a * 256) / 256;
        b = roundf(b * 256) / 256;
    }
    long i0 = ref_address(i, TW, m, norm), i1 = ref_address(i + 1, TW, m, norm);
    long j0 = ref_address(j, TH, m, norm), j1 = ref_address(j + 1, TH, m, norm);
    return (1 - a) * (1 - b) * ref_texel(i0, j0) + a * (1 - b) * ref_texel(i1, j0) +
           (1 - a) * b * ref_texel(i0, j1) + a * b * ref_texel(i1, j1);
}

static CUarray float_array(void) {
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++) tdata[y][x] = (float)(x * x + 10 * y) + 0.25f;
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, TW, TH, 0);
    assert_ok(D->cuMemcpyHtoA(a, 0, tdata, sizeof tdata));
    return a;
}

enum { N = 96 };
static word cin[N * 4], cout[N * 4];

/* Coordinates from -1.3 to 2.5 (normalized) or -2 to 8 (unnormalized), some on texel edges. */
static void coords(bool norm) {
    for (int t = 0; t < N; t++) {
        float s = (float)t / (N - 1);
        cin[4 * t].f = norm ? -1.3f + 3.8f * s : -2.0f + 10.0f * s;
        cin[4 * t + 1].f = norm ? 2.5f - 3.6f * s * s : 5.0f - 8.0f * s;
        if (t % 8 == 0) cin[4 * t].f = norm ? (float)(t / 8) / TW : (float)(t / 8);
        if (t % 12 == 0) cin[4 * t + 1].f = norm ? (float)(t / 12) / TH : (float)(t / 12) + 0.5f;
    }
}

static const char tex2d[] = "tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}];";

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
                /* One channel: y and z read 0, w reads 1 (the border colour's inside it). */
                bool border = modes[k] == CU_TR_ADDRESS_MODE_BORDER && want == -7.0f;
                assert_true(cout[4 * i + 1].f == 0.0f);
                assert_true(cout[4 * i + 3].f == (border ? 0.5f : 1.0f));
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
    assert_ok(D->cuMemcpyHtoA(a, 0, px, sizeof px));
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
    /* 2 x s16 normalized (-32768 reads -1, as -32767 does), the missing channels 0 and 1. */
    int16_t sv[2] = {-32768, 16384};
    a = array2d(CU_AD_FORMAT_SIGNED_INT16, 2, 1, 1, 0);
    assert_ok(D->cuMemcpyHtoA(a, 0, sv, sizeof sv));
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    assert_ok(run_inst(tex2d, t, cin, cout, 1));
    assert_true(cout[0].f == -1.0f);
    assert_true(cout[1].f == 16384.0f / 32767.0f);
    assert_true(cout[2].f == 0.0f && cout[3].f == 1.0f);
    assert_ok(D->cuTexObjectDestroy(t));
    /* Read as integers: -32768 and 16384 sign-extended; w is 1. */
    t = texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_READ_AS_INTEGER);
    assert_ok(
        run_inst("tex.2d.v4.s32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%r8, %r9}];", t, cin, cout, 1));
    assert_int_equal(cout[0].i, -32768);
    assert_int_equal(cout[1].i, 16384);
    assert_int_equal(cout[3].i, 1);
    assert_ok(D->cuTexObjectDestroy(t));
    assert_ok(D->cuArrayDestroy(a));
    /* Half: 0x3c00 is 1, 0xc500 is -5; linear filtering halfway. */
    uint16_t hv[2] = {0x3c00, 0xc500};
    a = array2d(CU_AD_FORMAT_HALF, 1, 2, 1, 0);
    assert_ok(D->cuMemcpyHtoA(a, 0, hv, sizeof hv));
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
    assert_ok(D->cuMemcpyHtoA(la, 0, lv, sizeof lv));
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
    assert_ok(D->cuMemcpyHtoA(va, 0, lv, sizeof lv));
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
    assert_ok(D->cuMemcpyHtoA(a, 0, faces, sizeof faces));
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

/* tex.level on a mipmapped array whose level i holds i + 1 everywhere: the nearest level, or
 * (mipmap filter linear) the two around the level of detail mixed; the bias and the clamps
 * applied first. */
static void test_mipmap_levels(void **state) {
    (void)state;
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = 8, .Height = 8, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    CUmipmappedArray m;
    assert_ok(D->cuMipmappedArrayCreate(&m, &d, 4));
    for (unsigned i = 0; i < 4; i++) {
        CUarray l;
        assert_ok(D->cuMipmappedArrayGetLevel(&l, m, i));
        float v[64];
        for (int k = 0; k < 64; k++) v[k] = (float)(i + 1);
        size_t side = 8u >> i;
        assert_ok(D->cuMemcpyHtoA(l, 0, v, side * side * sizeof(float)));
    }
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
        CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY};
        r.res.mipmap.hMipmappedArray = m;
        CUDA_TEXTURE_DESC t = {.filterMode = CU_TR_FILTER_MODE_POINT,
                               .mipmapFilterMode = c[i].mip,
                               .mipmapLevelBias = c[i].bias,
                               .minMipmapLevelClamp = c[i].lo,
                               .maxMipmapLevelClamp = c[i].hi,
                               .flags = CU_TRSF_NORMALIZED_COORDINATES};
        CUtexObject o;
        assert_ok(D->cuTexObjectCreate(&o, &r, &t, NULL));
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
    assert_ok(D->cuMemcpyAtoH(back, a, 0, sizeof back));
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
        cmocka_unit_test_setup_teardown(test_array_descriptors_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copies_to_and_from_arrays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mipmapped_arrays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_texture_objects_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_point_sampling_every_address_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linear_filtering_within_the_8_bit_fraction, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_formats_and_read_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linear_memory_pitched_layered_and_3d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cube_maps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mipmap_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gather_and_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_surface_loads_and_stores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_dead_object_faults_the_kernel, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
