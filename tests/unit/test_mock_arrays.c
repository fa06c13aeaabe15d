/* The mock's arrays (1D to 3D, layered, cube maps, mipmapped) and the copies to and from them:
 * descriptors checked and given back, 2D, 3D and 1D copies at offsets, and what is refused. */
#include "mock_texture_util.h"

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
    array_whole(a, out, false);
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
    /* 1D copies at byte offsets, of 1D arrays (as the driver documents them; a 2D array is
     * refused, as the H200 refused cuMemcpyHtoA into one): device to array, array to array,
     * array to device, async. */
    float v[3] = {1.5f, 2.5f, 3.5f};
    assert_ok(D->cuMemcpyHtoD(d, v, sizeof v));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyDtoA(a, 4 * sizeof(float), d, sizeof v));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyHtoA(a, 0, v, sizeof v));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemcpyAtoH(v, a, 0, sizeof v));
    CUarray a1 = array2d(CU_AD_FORMAT_FLOAT, 1, W * H, 0, 0);
    assert_ok(D->cuMemcpyDtoA(a1, 4 * sizeof(float), d, sizeof v));
    CUarray b = array2d(CU_AD_FORMAT_FLOAT, 1, W * H, 0, 0);
    assert_ok(D->cuMemcpyAtoA(b, 0, a1, 0, W * H * sizeof(float)));
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
    assert_ok(D->cuArrayDestroy(a1));
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_array_descriptors_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copies_to_and_from_arrays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mipmapped_arrays, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
