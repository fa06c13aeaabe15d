/* The texture kernels (cu/texture.cu) against a host reference written from the CUDA C++
 * Programming Guide's appendix "Texture Fetching": point sampling exact, linear filtering within
 * the 1/256 of its 8-bit weights, for every address mode with normalized coordinates and for
 * clamp and border without; an integer fetch from linear memory; a gather; a layered fetch; a
 * surface read and written; a cube map, seamless too; mipmap levels. The same program runs on the
 * mock and on a GPU, so that the reference, the mock and the hardware are compared. */
#include <math.h>

#include "kernel_util.h"
#include "array_copy.h"
#include "tex_address.h"

#define DRV cushim_driver()

enum { W = 7, H = 5, N = 256 };
static float img[H][W][4];

static const float border[4] = {-3.0f, -4.0f, -5.0f, -6.0f};

static float at(long x, long y, int c) { return x < 0 || y < 0 ? border[c] : img[y][x][c]; }

static float ref(float u, float v, int c, CUaddress_mode m, bool norm, bool linear) {
    if (!linear) {
        return at(tex_address(tex_point_index(u, W, norm), W, m, norm),
                  tex_address(tex_point_index(v, H, norm), H, m, norm), c);
    }
    float x = norm ? u * W : u, y = norm ? v * H : v;
    x -= 0.5f;
    y -= 0.5f;
    long i = (long)floorf(x), j = (long)floorf(y);
    float a = x - floorf(x), b = y - floorf(y);
    long i0 = tex_address(i, W, m, norm), i1 = tex_address(i + 1, W, m, norm);
    long j0 = tex_address(j, H, m, norm), j1 = tex_address(j + 1, H, m, norm);
    return (1 - a) * (1 - b) * at(i0, j0, c) + a * (1 - b) * at(i1, j0, c) +
           (1 - a) * b * at(i0, j1, c) + a * b * at(i1, j1, c);
}

/* Host memory to a whole 2D or 3D array, or back (array_copy.h says why not cuMemcpyHtoA). */
static void array_copy(CUarray a, void *host, size_t row_bytes, size_t rows, size_t depth,
                       bool to_array) {
    CUDA_MEMCPY3D c = array_copy_desc(a, host, row_bytes, rows, depth, to_array);
    assert_ok(DRV->cuMemcpy3D(&c));
}

static CUarray make_array(unsigned flags) {
    uint32_t seed = 7;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) img[y][x][c] = rng_float(&seed, -10, 10);
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = W, .Height = H, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 4, .Flags = flags};
    CUarray a;
    assert_ok(DRV->cuArray3DCreate(&a, &d));
    array_copy(a, img, sizeof img[0], H, 1, true);
    return a;
}

static CUtexObject make_texture(CUarray a, CUaddress_mode m, bool linear, bool norm) {
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = a;
    CUDA_TEXTURE_DESC t = {.addressMode = {m, m, m},
                           .filterMode =
                               linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT,
                           .flags = norm ? CU_TRSF_NORMALIZED_COORDINATES : 0};
    memcpy(t.borderColor, border, sizeof border);
    CUtexObject o;
    assert_ok(DRV->cuTexObjectCreate(&o, &r, &t, NULL));
    return o;
}

/* N coordinates over and around the texture, a quarter of them on texel edges in x. Normalized,
 * such an edge is the float nearest k / W, which point sampling on the H200 puts on the side
 * tex_point_index says (the guide's formula in float takes the other texel for most of them). */
static void coordinates(float *xy, bool norm) {
    uint32_t seed = 3;
    for (int i = 0; i < N; i++) {
        float x = rng_float(&seed, -1.5f * W, 2.5f * W), y = rng_float(&seed, -1.5f * H, 2.5f * H);
        if (i % 4 == 0) {
            x = floorf(x);
            y = floorf(y) + 0.5f;
        }
        xy[2 * i] = norm ? x / W : x;
        xy[2 * i + 1] = norm ? y / H : y;
    }
}

static void sampling(void) {
    const cushim_function *f = kernel_get("texture", "k_tex2d");
    CUarray a = make_array(0);
    static const CUaddress_mode modes[] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                           CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};
    float xy[2 * N], out[4 * N];
    /* Linear filtering's tolerance: the hardware's weights have 8 fraction bits, so each of the
     * two axes' weights may be off by 1/256, which moves a result by up to that much of the
     * spread between the texels it mixes (border colours included). */
    float lo = border[3], hi = border[0];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) lo = fminf(lo, img[y][x][c]), hi = fmaxf(hi, img[y][x][c]);
    float span = 2.0f * (hi - lo);
    int n = N;
    for (int norm = 0; norm < 2; norm++) {
        coordinates(xy, norm);
        for (int k = 0; k < 4; k++) {
            if (!norm && k != 1 && k != 3) continue; /* wrap, mirror: normalized only */
            for (int linear = 0; linear < 2; linear++) {
                CUtexObject t = make_texture(a, modes[k], linear, norm);
                CUdeviceptr dxy = dev_copy(xy, sizeof xy), dout = dev_zeroed(sizeof out);
                void *params[] = {&t, &dxy, &dout, &n};
                kernel_run(f, CUSHIM_DIM3(N / 64), CUSHIM_DIM3(64), 0, params);
                dev_take(out, dout, sizeof out);
                assert_ok(DRV->cuMemFree(dxy));
                assert_ok(DRV->cuTexObjectDestroy(t));
                char what[64];
                snprintf(what, sizeof what, "mode %d norm %d linear %d", k, norm, linear);
                mismatch m = {what, 0};
                for (int i = 0; i < N; i++) {
                    for (int c = 0; c < 4; c++) {
                        float want = ref(xy[2 * i], xy[2 * i + 1], c, modes[k], norm, linear);
                        mismatch_f32(&m, (size_t)(4 * i + c), out[4 * i + c], want,
                                     linear ? span / 256.0 : 0);
                    }
                }
                assert_int_equal(m.wrong, 0);
            }
        }
    }
    assert_ok(DRV->cuArrayDestroy(a));
}

static void fetch_gather_surface(void) {
    /* tex1Dfetch of ints in linear memory, indexes inside. */
    int vals[N], idx[N], got[N];
    for (int i = 0; i < N; i++) {
        vals[i] = i * 37 - 1000;
        idx[i] = (i * 101) % N;
    }
    CUdeviceptr dv = dev_copy(vals, sizeof vals), di = dev_copy(idx, sizeof idx);
    CUdeviceptr dg = dev_zeroed(sizeof got);
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_LINEAR};
    r.res.linear.devPtr = dv;
    r.res.linear.format = CU_AD_FORMAT_SIGNED_INT32;
    r.res.linear.numChannels = 1;
    r.res.linear.sizeInBytes = sizeof vals;
    CUDA_TEXTURE_DESC td = {.flags = CU_TRSF_READ_AS_INTEGER};
    CUtexObject t;
    assert_ok(DRV->cuTexObjectCreate(&t, &r, &td, NULL));
    int n = N;
    void *p1[] = {&t, &di, &dg, &n};
    kernel_run(kernel_get("texture", "k_tex1dfetch"), CUSHIM_DIM3(N / 64), CUSHIM_DIM3(64), 0, p1);
    dev_take(got, dg, sizeof got);
    for (int i = 0; i < N; i++) assert_int_equal(got[i], vals[idx[i]]);
    assert_ok(DRV->cuTexObjectDestroy(t));
    assert_ok(DRV->cuMemFree(dv));
    assert_ok(DRV->cuMemFree(di));
    /* A gather of channel 0 at texel corners and halfway, clamp, unnormalized. */
    CUarray a = make_array(CUDA_ARRAY3D_TEXTURE_GATHER);
    t = make_texture(a, CU_TR_ADDRESS_MODE_CLAMP, false, false);
    float xy[2 * 16], out[4 * 16];
    for (int i = 0; i < 16; i++) {
        xy[2 * i] = (float)(i % 8) + (i & 1 ? 0.5f : 0.0f);
        xy[2 * i + 1] = (float)(i / 3) + 0.25f;
    }
    CUdeviceptr dxy = dev_copy(xy, sizeof xy), dout = dev_zeroed(sizeof out);
    int n16 = 16;
    void *p2[] = {&t, &dxy, &dout, &n16};
    kernel_run(kernel_get("texture", "k_gather"), CUSHIM_DIM3(1), CUSHIM_DIM3(16), 0, p2);
    dev_take(out, dout, sizeof out);
    mismatch m = {"gather", 0};
    static const int pick[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (int i = 0; i < 16; i++) {
        long x0 = (long)floorf(xy[2 * i] - 0.5f), y0 = (long)floorf(xy[2 * i + 1] - 0.5f);
        for (int e = 0; e < 4; e++) {
            long x = tex_address(x0 + pick[e][0], W, CU_TR_ADDRESS_MODE_CLAMP, false);
            long y = tex_address(y0 + pick[e][1], H, CU_TR_ADDRESS_MODE_CLAMP, false);
            mismatch_f32(&m, (size_t)(4 * i + e), out[4 * i + e], img[y][x][0], 0);
        }
    }
    assert_int_equal(m.wrong, 0);
    assert_ok(DRV->cuTexObjectDestroy(t));
    assert_ok(DRV->cuArrayDestroy(a));
    assert_ok(DRV->cuMemFree(dxy));
    /* A surface: each element becomes 2 v + x + 100 y. */
    CUDA_ARRAY3D_DESCRIPTOR sd = {.Width = W,
                                  .Height = H,
                                  .Format = CU_AD_FORMAT_FLOAT,
                                  .NumChannels = 1,
                                  .Flags = CUDA_ARRAY3D_SURFACE_LDST};
    CUarray s;
    assert_ok(DRV->cuArray3DCreate(&s, &sd));
    float plane[H][W], back[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) plane[y][x] = (float)(x * y) - 3.5f;
    array_copy(s, plane, sizeof plane[0], H, 1, true);
    CUDA_RESOURCE_DESC sr = {.resType = CU_RESOURCE_TYPE_ARRAY};
    sr.res.array.hArray = s;
    CUsurfObject so;
    assert_ok(DRV->cuSurfObjectCreate(&so, &sr));
    int w = W, h = H;
    void *p3[] = {&so, &w, &h};
    kernel_run(kernel_get("texture", "k_surface"), CUSHIM_DIM3(1, H), CUSHIM_DIM3(32), 0, p3);
    array_copy(s, back, sizeof back[0], H, 1, false);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            assert_true(back[y][x] == plane[y][x] * 2.0f + (float)(x + 100 * y));
    assert_ok(DRV->cuSurfObjectDestroy(so));
    assert_ok(DRV->cuArrayDestroy(s));
}

/* A cube map read along random directions (none within 1/1000 of a tie between two axes),
 * point sampled: the face and texel the programming guide's cube map table gives. */
/* A cube map of float faces side x side, filled from faces[6][side][side]. */
static CUarray cube_array(void *faces, size_t side) {
    CUDA_ARRAY3D_DESCRIPTOR d = {.Width = side,
                                 .Height = side,
                                 .Depth = 6,
                                 .Format = CU_AD_FORMAT_FLOAT,
                                 .NumChannels = 1,
                                 .Flags = CUDA_ARRAY3D_CUBEMAP};
    CUarray a;
    assert_ok(DRV->cuArray3DCreate(&a, &d));
    array_copy(a, faces, side * sizeof(float), side, 6, true);
    return a;
}

static void cube_map(void) {
    enum { S = 8 };
    static float faces[6][S][S];
    for (int f = 0; f < 6; f++)
        for (int y = 0; y < S; y++)
            for (int x = 0; x < S; x++) faces[f][y][x] = (float)(100 * f + 10 * y + x);
    CUarray a = cube_array(faces, S);
    CUtexObject t = make_texture(a, CU_TR_ADDRESS_MODE_CLAMP, false, true);
    static float dir[4 * N], out[N];
    uint32_t seed = 11;
    for (int i = 0; i < N; i++) {
        float v[3], m[3];
        do {
            for (int k = 0; k < 3; k++) {
                v[k] = rng_float(&seed, -1, 1);
                m[k] = fabsf(v[k]);
            }
        } while (fabsf(m[0] - m[1]) < 1e-3f || fabsf(m[0] - m[2]) < 1e-3f ||
                 fabsf(m[1] - m[2]) < 1e-3f);
        for (int k = 0; k < 3; k++) dir[4 * i + k] = v[k];
        dir[4 * i + 3] = 0;
    }
    CUdeviceptr dd = dev_copy(dir, sizeof dir), dout = dev_zeroed(sizeof out);
    int n = N;
    void *params[] = {&t, &dd, &dout, &n};
    kernel_run(kernel_get("texture", "k_cube"), CUSHIM_DIM3(N / 64), CUSHIM_DIM3(64), 0, params);
    dev_take(out, dout, sizeof out);
    mismatch mm = {"cube", 0};
    for (int i = 0; i < N; i++) {
        float x = dir[4 * i], y = dir[4 * i + 1], z = dir[4 * i + 2];
        float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), s, tt, m;
        int f;
        if (ax > ay && ax > az) {
            f = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, tt = -y;
        } else if (ay > az) {
            f = y >= 0 ? 2 : 3, m = ay, s = x, tt = y >= 0 ? z : -z;
        } else {
            f = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, tt = -y;
        }
        long u = tex_address((long)floorf((s / m + 1) / 2 * S), S, CU_TR_ADDRESS_MODE_CLAMP, true);
        long v = tex_address((long)floorf((tt / m + 1) / 2 * S), S, CU_TR_ADDRESS_MODE_CLAMP, true);
        mismatch_f32(&mm, (size_t)i, out[i], faces[f][v][u], 0);
    }
    assert_int_equal(mm.wrong, 0);
    assert_ok(DRV->cuMemFree(dd));
    assert_ok(DRV->cuTexObjectDestroy(t));
    assert_ok(DRV->cuArrayDestroy(a));
}

/* Linear filtering with CU_TRSF_SEAMLESS_CUBEMAP on a cube map whose face f holds f + 1: on
 * each of the 12 edges (0.3 along it) the footprint is half on each face, the mean of the two
 * (within 1/256); the value at the corner (1, 1, 1), where faces meet three at a time, is only
 * printed (the mock takes the mean of the three corner texels). */
static void seamless_cube(void) {
    enum { S = 8 };
    static float faces[6][S][S];
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < S * S; k++) faces[f][k / S][k % S] = (float)(f + 1);
    CUarray a = cube_array(faces, S);
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = a;
    CUDA_TEXTURE_DESC td = {.filterMode = CU_TR_FILTER_MODE_LINEAR,
                            .flags = CU_TRSF_SEAMLESS_CUBEMAP | CU_TRSF_NORMALIZED_COORDINATES};
    CUtexObject t;
    assert_ok(DRV->cuTexObjectCreate(&t, &r, &td, NULL));
    enum { EDGES = 12 };
    static float dir[4 * (EDGES + 1)], out[EDGES + 1], want[EDGES];
    int n = 0;
    for (int free = 0; free < 3; free++) { /* the axis along the edge */
        for (int sa = 0; sa < 2; sa++)
            for (int sb = 0; sb < 2; sb++) {
                int a0 = (free + 1) % 3, b0 = (free + 2) % 3;
                float v[3];
                v[free] = 0.3f;
                v[a0] = sa ? -1.0f : 1.0f;
                v[b0] = sb ? -1.0f : 1.0f;
                for (int k = 0; k < 3; k++) dir[4 * n + k] = v[k];
                /* face of axis k and sign: 2k (+) or 2k + 1 (-), holding that + 1 */
                want[n] = ((float)(2 * a0 + sa + 1) + (float)(2 * b0 + sb + 1)) / 2.0f;
                n++;
            }
    }
    dir[4 * EDGES] = dir[4 * EDGES + 1] = dir[4 * EDGES + 2] = 1.0f;
    CUdeviceptr dd = dev_copy(dir, sizeof dir), dout = dev_zeroed(sizeof out);
    int count = EDGES + 1;
    void *params[] = {&t, &dd, &dout, &count};
    kernel_run(kernel_get("texture", "k_cube"), CUSHIM_DIM3(1), CUSHIM_DIM3(64), 0, params);
    dev_take(out, dout, sizeof out);
    mismatch mm = {"seamless cube edges", 0};
    for (int i = 0; i < EDGES; i++) mismatch_f32(&mm, (size_t)i, out[i], want[i], 1.0 / 256);
    printf("# seamless cube corner (1, 1, 1): %g (the mean of +x, +y, +z is 3)\n",
           (double)out[EDGES]);
    assert_int_equal(mm.wrong, 0);
    assert_ok(DRV->cuMemFree(dd));
    assert_ok(DRV->cuTexObjectDestroy(t));
    assert_ok(DRV->cuArrayDestroy(a));
}

/* tex2DLod, and tex2DGrad with gradients of 2^lod texels, on a mipmapped array whose level i
 * holds i + 1: the nearest level (mipmap filter point), or the two around the level of detail
 * mixed within 1/256 (linear; 2/256 by gradients, whose level of detail the hardware computes
 * to 8 fractional bits itself). */
static void mipmap_levels(void) {
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = 16, .Height = 16, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    CUmipmappedArray m;
    assert_ok(DRV->cuMipmappedArrayCreate(&m, &d, 5));
    static float v[256];
    for (unsigned i = 0; i < 5; i++) {
        CUarray l;
        assert_ok(DRV->cuMipmappedArrayGetLevel(&l, m, i));
        size_t side = 16u >> i;
        for (size_t k = 0; k < side * side; k++) v[k] = (float)(i + 1);
        array_copy(l, v, side * sizeof(float), side, 1, true);
    }
    static float lod[N], grad[N], out[N];
    for (int i = 0; i < N; i++) {
        lod[i] = -1.0f + 6.0f * (float)i / N;
        grad[i] = exp2f(lod[i]) / 16.0f; /* normalized: 16 texels of level 0 are 1 */
    }
    for (int run = 0; run < 4; run++) {
        int linear = run & 1, by_grad = run >> 1;
        CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY};
        r.res.mipmap.hMipmappedArray = m;
        CUDA_TEXTURE_DESC t = {.filterMode = CU_TR_FILTER_MODE_POINT,
                               .mipmapFilterMode =
                                   linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT,
                               .maxMipmapLevelClamp = 4,
                               .flags = CU_TRSF_NORMALIZED_COORDINATES};
        CUtexObject o;
        assert_ok(DRV->cuTexObjectCreate(&o, &r, &t, NULL));
        CUdeviceptr dl = dev_copy(by_grad ? grad : lod, sizeof lod), dout = dev_zeroed(sizeof out);
        int n = N;
        void *params[] = {&o, &dl, &dout, &n};
        kernel_run(kernel_get("texture", by_grad ? "k_grad" : "k_lod"), CUSHIM_DIM3(N / 64),
                   CUSHIM_DIM3(64), 0, params);
        dev_take(out, dout, sizeof out);
        static const char *const names[] = {"lod point", "lod linear", "grad point", "grad linear"};
        mismatch mm = {names[run], 0};
        for (int i = 0; i < N; i++) {
            float l = fminf(fmaxf(lod[i], 0.0f), 4.0f);
            float want = linear ? l + 1.0f : floorf(l + 0.5f) + 1.0f;
            /* Point: a level of detail within 1/256 of a half may round either way. */
            bool edge = !linear && fabsf(l - floorf(l) - 0.5f) < (by_grad ? 2.0f : 1.0f) / 256;
            double tol = linear ? (by_grad ? 2.0 : 1.0) / 256 : 0;
            if (!edge) mismatch_f32(&mm, (size_t)i, out[i], want, tol);
        }
        assert_int_equal(mm.wrong, 0);
        assert_ok(DRV->cuMemFree(dl));
        assert_ok(DRV->cuTexObjectDestroy(o));
    }
    assert_ok(DRV->cuMipmappedArrayDestroy(m));
}

void kernel_texture(void **state) {
    (void)state;
    sampling();
    fetch_gather_surface();
    cube_map();
    seamless_cube();
    mipmap_levels();
}
