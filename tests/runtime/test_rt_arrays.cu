/* Arrays, their copies, texture and surface objects through cushim's runtime on the mock: what
 * the runtime refuses itself, the channel descriptions, round trips through the mock's arrays,
 * and a kernel that reads a texture object and writes a surface object. */
#include "rt_test.h"

/* cudaMemcpyToArray and cudaMemcpyFromArray are deprecated by NVIDIA and still declared: they
 * are tested as long as they are. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void test_channel_descriptions(void **state) {
    (void)state;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    assert_int_equal(f.x, 32);
    assert_int_equal(f.y, 0);
    assert_int_equal(f.f, cudaChannelFormatKindFloat);
    cudaChannelFormatDesc u = cudaCreateChannelDesc<uchar4>();
    assert_int_equal(u.w, 8);
    assert_int_equal(u.f, cudaChannelFormatKindUnsigned);
    cudaChannelFormatDesc c = cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindSigned);
    assert_int_equal(c.y, 16);
    assert_int_equal(c.f, cudaChannelFormatKindSigned);
}

static void test_arrays(void **state) {
    (void)state;
    cudaArray_t a = (cudaArray_t)0x1;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    /* The runtime's own refusals. */
    assert_rt(cudaErrorInvalidValue, cudaMallocArray(NULL, &f, 4, 4, 0));
    assert_rt(cudaErrorInvalidValue, cudaMallocArray(&a, NULL, 4, 4, 0));
    assert_null(a);
    assert_rt(cudaErrorInvalidValue, cudaMallocArray(&a, &f, 0, 4, 0));
    cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    assert_rt(cudaErrorInvalidChannelDescriptor, cudaMallocArray(&a, &three, 4, 4, 0));
    cudaChannelFormatDesc mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
    assert_rt(cudaErrorInvalidChannelDescriptor,
              cudaMalloc3DArray(&a, &mixed, make_cudaExtent(4, 4, 4), 0));
    cudaChannelFormatDesc none = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindNone);
    assert_rt(cudaErrorInvalidChannelDescriptor, cudaMallocArray(&a, &none, 4, 4, 0));
    assert_rt(cudaErrorInvalidChannelDescriptor, cudaGetLastError());
    cudaMipmappedArray_t m = NULL;
    assert_rt(cudaErrorInvalidValue,
              cudaMallocMipmappedArray(&m, &f, make_cudaExtent(4, 4, 0), 0, 0));
    assert_rt(cudaErrorInvalidValue, cudaGetMipmappedArrayLevel(NULL, m, 0));
    assert_rt(cudaErrorInvalidValue, cudaArrayGetInfo(NULL, NULL, NULL, NULL));
    /* Freeing nothing is nothing. */
    assert_rt_ok(cudaFreeArray(NULL));
    assert_rt_ok(cudaFreeMipmappedArray(NULL));
    /* A well-formed array reaches the driver, which describes it back. */
    assert_rt_ok(cudaMallocArray(&a, &f, 64, 32, cudaArraySurfaceLoadStore));
    cudaChannelFormatDesc got;
    cudaExtent e;
    unsigned flags = 0;
    assert_rt_ok(cudaArrayGetInfo(&got, &e, &flags, a));
    assert_int_equal(got.x, 32);
    assert_int_equal(got.f, cudaChannelFormatKindFloat);
    assert_int_equal(e.width, 64);
    assert_int_equal(e.height, 32);
    assert_int_equal(e.depth, 0);
    assert_int_equal(flags, cudaArraySurfaceLoadStore);
    assert_rt_ok(cudaFreeArray(a));
    assert_rt(cudaErrorInvalidResourceHandle, cudaArrayGetInfo(&got, &e, &flags, a));
    assert_rt_ok(cudaMalloc3DArray(&a, &f, make_cudaExtent(8, 4, 3), cudaArrayLayered));
    assert_rt_ok(cudaArrayGetInfo(&got, &e, &flags, a));
    assert_int_equal(e.depth, 3);
    assert_int_equal(flags, cudaArrayLayered);
    assert_rt_ok(cudaFreeArray(a));
    /* Mipmapped: level 1 of 16 x 4 is 8 x 2. */
    assert_rt_ok(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(16, 4, 0), 3, 0));
    cudaArray_t l = NULL;
    assert_rt_ok(cudaGetMipmappedArrayLevel(&l, m, 1));
    assert_rt_ok(cudaArrayGetInfo(&got, &e, &flags, l));
    assert_int_equal(e.width, 8);
    assert_int_equal(e.height, 2);
    assert_rt_ok(cudaFreeMipmappedArray(m));
}

static void test_array_copies(void **state) {
    (void)state;
    float host[16] = {0};
    cudaArray_t none = NULL;
    assert_rt(cudaErrorInvalidValue,
              cudaMemcpy2DToArray(none, 0, 0, host, 16, 16, 1, cudaMemcpyHostToDevice));
    assert_rt(cudaErrorInvalidValue,
              cudaMemcpy2DFromArray(host, 16, none, 0, 0, 16, 1, cudaMemcpyDeviceToHost));
    assert_rt(cudaErrorInvalidMemcpyDirection,
              cudaMemcpy2DToArray((cudaArray_t)host, 0, 0, host, 16, 16, 1, (cudaMemcpyKind)8));
    assert_rt(cudaErrorInvalidValue, cudaMemcpy2DToArray((cudaArray_t)host, 0, 0, NULL, 16, 16, 1,
                                                         cudaMemcpyHostToDevice));
    assert_rt(cudaErrorInvalidValue,
              cudaMemcpyToArray(none, 0, 0, host, 16, cudaMemcpyHostToDevice));
    assert_rt(cudaErrorInvalidValue,
              cudaMemcpyFromArray(host, none, 0, 0, 16, cudaMemcpyDeviceToHost));
    assert_rt(cudaErrorInvalidValue,
              cudaMemcpy2DArrayToArray(none, 0, 0, none, 0, 0, 4, 1, cudaMemcpyDeviceToDevice));
    /* An array the driver does not know: its answer for the descriptor. */
    assert_rt(cudaErrorInvalidResourceHandle,
              cudaMemcpyToArray((cudaArray_t)host, 0, 0, host, 16, cudaMemcpyHostToDevice));
    /* Round trips: 2D into a 4 x 3 array from rows of 6 floats, back by cudaMemcpyFromArray,
     * and slice 1 of a 3D array by cudaMemcpy3D. */
    float rows[3][6], back[3][4];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 6; x++) rows[y][x] = (float)(10 * y + x);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a = NULL;
    assert_rt_ok(cudaMallocArray(&a, &f, 4, 3, 0));
    assert_rt_ok(cudaMemcpy2DToArray(a, 0, 0, rows, sizeof rows[0], 4 * sizeof(float), 3,
                                     cudaMemcpyHostToDevice));
    assert_rt_ok(cudaMemcpyFromArray(back, a, 0, 0, sizeof back, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) assert_true(back[y][x] == rows[y][x]);
    float two[2] = {0};
    assert_rt_ok(cudaMemcpy2DFromArray(two, 2 * sizeof(float), a, 2 * sizeof(float), 1,
                                       2 * sizeof(float), 1, cudaMemcpyDeviceToHost));
    assert_true(two[0] == 12.0f && two[1] == 13.0f);
    assert_rt(cudaErrorInvalidValue,
              cudaMemcpy2DToArray(a, 4, 0, rows, sizeof rows[0], 4 * sizeof(float), 3,
                                  cudaMemcpyHostToDevice));
    assert_rt_ok(cudaFreeArray(a));
    cudaArray_t v = NULL;
    assert_rt_ok(cudaMalloc3DArray(&v, &f, make_cudaExtent(6, 3, 2), 0));
    cudaMemcpy3DParms q;
    memset(&q, 0, sizeof q);
    q.srcPtr = make_cudaPitchedPtr(rows, sizeof rows[0], 6, 3);
    q.dstArray = v;
    q.dstPos = make_cudaPos(0, 0, 1);
    q.extent = make_cudaExtent(6, 3, 1);
    q.kind = cudaMemcpyHostToDevice;
    assert_rt_ok(cudaMemcpy3D(&q));
    float vol[2][3][6];
    memset(vol, 0xff, sizeof vol);
    memset(&q, 0, sizeof q);
    q.srcArray = v;
    q.dstPtr = make_cudaPitchedPtr(vol, sizeof vol[0][0], 6, 3);
    q.extent = make_cudaExtent(6, 3, 2);
    q.kind = cudaMemcpyDeviceToHost;
    assert_rt_ok(cudaMemcpy3D(&q));
    assert_true(vol[0][2][5] == 0.0f && vol[1][2][5] == 25.0f);
    assert_rt_ok(cudaFreeArray(v));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host, 16, 4, 1);
    p.dstArray = (cudaArray_t)host;
    p.extent = make_cudaExtent(4, 1, 1);
    p.kind = cudaMemcpyHostToDevice;
    cudaGraph_t g = NULL;
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    assert_rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    assert_rt_ok(cudaStreamEndCapture(s, &g));
    cudaGraphNode_t n = NULL;
    /* Both an array and a pointer on one side. */
    p.dstPtr = make_cudaPitchedPtr(host, 16, 4, 1);
    assert_rt(cudaErrorInvalidValue, cudaGraphAddMemcpyNode(&n, g, NULL, 0, &p));
    assert_rt_ok(cudaGraphDestroy(g));
    assert_rt_ok(cudaStreamDestroy(s));
}

static void test_texture_and_surface_objects(void **state) {
    (void)state;
    float *d = NULL;
    assert_rt_ok(cudaMalloc((void **)&d, 64 * sizeof(float)));
    cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = d;
    r.res.linear.desc = cudaCreateChannelDesc<float>();
    r.res.linear.sizeInBytes = 64 * sizeof(float);
    cudaTextureDesc t;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = cudaAddressModeClamp;
    t.filterMode = cudaFilterModePoint;
    t.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    assert_rt(cudaErrorInvalidValue, cudaCreateTextureObject(NULL, &r, &t, NULL));
    assert_rt(cudaErrorInvalidValue, cudaCreateTextureObject(&tex, NULL, &t, NULL));
    assert_rt(cudaErrorInvalidValue, cudaCreateTextureObject(&tex, &r, NULL, NULL));
    cudaResourceDesc bad = r;
    bad.resType = (cudaResourceType)9;
    assert_rt(cudaErrorInvalidValue, cudaCreateTextureObject(&tex, &bad, &t, NULL));
    bad = r;
    bad.res.linear.desc = cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindFloat);
    assert_rt(cudaErrorInvalidChannelDescriptor, cudaCreateTextureObject(&tex, &bad, &t, NULL));
    /* Well formed: the object the driver made, described back. */
    assert_rt_ok(cudaCreateTextureObject(&tex, &r, &t, NULL));
    assert_rt_ok(cudaDestroyTextureObject(0));
    cudaResourceDesc back;
    assert_rt(cudaErrorInvalidValue, cudaGetTextureObjectResourceDesc(NULL, tex));
    assert_rt_ok(cudaGetTextureObjectResourceDesc(&back, tex));
    assert_int_equal(back.resType, cudaResourceTypeLinear);
    assert_ptr_equal(back.res.linear.devPtr, d);
    assert_int_equal(back.res.linear.desc.x, 32);
    cudaTextureDesc tback;
    assert_rt_ok(cudaGetTextureObjectTextureDesc(&tback, tex));
    assert_int_equal(tback.readMode, cudaReadModeElementType);
    assert_int_equal(tback.addressMode[0], cudaAddressModeClamp);
    assert_rt_ok(cudaDestroyTextureObject(tex));
    assert_rt(cudaErrorInvalidResourceHandle, cudaGetTextureObjectTextureDesc(&tback, tex));

    /* A surface is over an array only. */
    cudaSurfaceObject_t surf = 0;
    assert_rt(cudaErrorInvalidValue, cudaCreateSurfaceObject(&surf, &r));
    assert_rt(cudaErrorInvalidValue, cudaCreateSurfaceObject(NULL, &r));
    assert_rt_ok(cudaDestroySurfaceObject(0));
    assert_rt(cudaErrorInvalidValue, cudaGetSurfaceObjectResourceDesc(NULL, surf));
    assert_rt_ok(cudaFree(d));
}

/* Each element of the surface becomes the texture's bilinear value at its centre plus 0.25
 * (wrap, normalized: the centres read the texels themselves). */
__global__ void k_tex_to_surf(cudaTextureObject_t t, cudaSurfaceObject_t s, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    float v = tex2D<float>(t, (x + 0.5f) / w, (y + 0.5f) / h);
    surf2Dwrite(v + 0.25f, s, x * (int)sizeof(float), y);
}

static void test_a_kernel_reads_a_texture_and_writes_a_surface(void **state) {
    (void)state;
    enum { W = 8, H = 4 };
    float in[H][W], out[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) in[y][x] = (float)(x * 3 - y);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t src = NULL, dst = NULL;
    assert_rt_ok(cudaMallocArray(&src, &f, W, H, 0));
    assert_rt_ok(cudaMallocArray(&dst, &f, W, H, cudaArraySurfaceLoadStore));
    assert_rt_ok(
        cudaMemcpy2DToArray(src, 0, 0, in, sizeof in[0], sizeof in[0], H, cudaMemcpyHostToDevice));
    cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = src;
    cudaTextureDesc t;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = t.addressMode[1] = cudaAddressModeWrap;
    t.filterMode = cudaFilterModeLinear;
    t.readMode = cudaReadModeElementType;
    t.normalizedCoords = 1;
    cudaTextureObject_t tex = 0;
    assert_rt_ok(cudaCreateTextureObject(&tex, &r, &t, NULL));
    r.res.array.array = dst;
    cudaSurfaceObject_t surf = 0;
    assert_rt_ok(cudaCreateSurfaceObject(&surf, &r));
    k_tex_to_surf<<<H, W>>>(tex, surf, W, H);
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaMemcpy2DFromArray(out, sizeof out[0], dst, 0, 0, sizeof out[0], H,
                                       cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) assert_true(out[y][x] == in[y][x] + 0.25f);
    assert_rt_ok(cudaDestroySurfaceObject(surf));
    assert_rt_ok(cudaDestroyTextureObject(tex));
    assert_rt_ok(cudaFreeArray(dst));
    assert_rt_ok(cudaFreeArray(src));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_channel_descriptions),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_array_copies),
        cmocka_unit_test(test_texture_and_surface_objects),
        cmocka_unit_test(test_a_kernel_reads_a_texture_and_writes_a_surface),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
