/* Arrays, their copies, texture and surface objects through cushim's runtime on the mock. The
 * mock keeps no arrays or texture objects (it answers cudaErrorNotSupported for
 * cuArray3DCreate and cuTexObjectCreate): what is checked is what the runtime refuses itself,
 * the channel descriptions, and that a well-formed call reaches the driver and brings its
 * answer back. */
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
    /* A well-formed array reaches the driver: the mock has none to give. */
    assert_rt(cudaErrorNotSupported, cudaMallocArray(&a, &f, 64, 64, cudaArraySurfaceLoadStore));
    assert_null(a);
    assert_rt(cudaErrorNotSupported,
              cudaMallocMipmappedArray(&m, &f, make_cudaExtent(4, 4, 0), 2, 0));
    assert_rt(cudaErrorNotSupported, cudaGetLastError());
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
    /* An array the driver does not know: its answer for the descriptor (the mock has none). */
    assert_rt(cudaErrorNotSupported,
              cudaMemcpyToArray((cudaArray_t)host, 0, 0, host, 16, cudaMemcpyHostToDevice));
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
    /* Well formed: the driver's answer (the mock keeps no texture objects). */
    assert_rt(cudaErrorNotSupported, cudaCreateTextureObject(&tex, &r, &t, NULL));
    assert_rt_ok(cudaDestroyTextureObject(0));
    cudaResourceDesc back;
    assert_rt(cudaErrorInvalidValue, cudaGetTextureObjectResourceDesc(NULL, tex));
    assert_rt(cudaErrorNotSupported, cudaGetTextureObjectResourceDesc(&back, 1));
    cudaTextureDesc tback;
    assert_rt(cudaErrorNotSupported, cudaGetTextureObjectTextureDesc(&tback, 1));

    /* A surface is over an array only. */
    cudaSurfaceObject_t surf = 0;
    assert_rt(cudaErrorInvalidValue, cudaCreateSurfaceObject(&surf, &r));
    assert_rt(cudaErrorInvalidValue, cudaCreateSurfaceObject(NULL, &r));
    assert_rt_ok(cudaDestroySurfaceObject(0));
    assert_rt(cudaErrorInvalidValue, cudaGetSurfaceObjectResourceDesc(NULL, surf));
    assert_rt_ok(cudaFree(d));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_channel_descriptions),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_array_copies),
        cmocka_unit_test(test_texture_and_surface_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
