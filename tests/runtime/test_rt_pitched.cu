/* Pitched memory, 2D and 3D copies and sets, and copies between devices through cushim's runtime
 * on the mock (two H200s): a pitched allocation written by a kernel, copies with every pitch,
 * sets of a window of rows, 3D sets of some slices, cudaMemcpy3D of one slice (the driver's 2D
 * copy) and of several (the driver's 3D copy), 3D copies between the devices, and the refusals
 * of bad pitches, kinds and devices. */
#include "rt_test.h"

extern "C" {
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind,
                                   cudaStream_t stream);
cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                                   cudaStream_t stream);
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);
}

/* Each element of a pitched 2D array is its row * 1000 + column. */
__global__ void number(float *p, size_t pitch, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < width && y < height) ((float *)((char *)p + y * pitch))[x] = y * 1000.0f + x;
}

static void test_malloc_pitch_kernel_and_2d_copies(void **state) {
    (void)state;
    const int w = 100, h = 7;
    float *d = NULL;
    size_t pitch = 0;
    assert_rt_ok(cudaMallocPitch((void **)&d, &pitch, w * sizeof(float), h));
    assert_non_null(d);
    assert_true(pitch >= w * sizeof(float));
    assert_int_equal(pitch % 512, 0); /* the mock pads rows as the driver does */
    number<<<dim3(1, h), 128>>>(d, pitch, w, h);
    assert_rt_ok(cudaGetLastError());

    /* Back to a host array with rows of 120 floats, of which 100 are written. */
    static float host[7][120];
    memset(host, 0xff, sizeof host);
    assert_rt_ok(
        cudaMemcpy2D(host, sizeof host[0], d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) assert_true(host[y][x] == y * 1000.0f + x);
        uint32_t bits;
        memcpy(&bits, &host[y][w], sizeof bits);
        assert_int_equal(bits, 0xffffffffu); /* past the width: untouched */
    }

    /* A window (rows 2 to 4, columns 10 to 29) to a packed buffer, through the device, in both
     * default-stream modes and with cudaMemcpyDefault. */
    float *packed = NULL;
    assert_rt_ok(cudaMalloc((void **)&packed, 3 * 20 * sizeof(float)));
    assert_rt_ok(cudaMemcpy2D_ptds(packed, 20 * sizeof(float), (char *)d + 2 * pitch + 40, pitch,
                                   20 * sizeof(float), 3, cudaMemcpyDeviceToDevice));
    static float window[3][20];
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    assert_rt_ok(cudaMemcpy2DAsync(window, sizeof window[0], packed, 20 * sizeof(float),
                                   20 * sizeof(float), 3, cudaMemcpyDefault, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 20; x++) assert_true(window[y][x] == (y + 2) * 1000.0f + x + 10);
    }
    /* Host to device, per-thread stream. */
    memset(window, 0, sizeof window);
    assert_rt_ok(cudaMemcpy2DAsync_ptsz(packed, 20 * sizeof(float), window, sizeof window[0],
                                        20 * sizeof(float), 3, cudaMemcpyHostToDevice, 0));
    assert_rt_ok(cudaStreamSynchronize(cudaStreamPerThread));
    float one = -1;
    assert_rt_ok(cudaMemcpy(&one, packed + 45, sizeof one, cudaMemcpyDeviceToHost));
    assert_true(one == 0.0f);

    /* Nothing to copy, nothing done. */
    assert_rt_ok(cudaMemcpy2D(host, 4, d, pitch, 0, h, cudaMemcpyDeviceToHost));
    assert_rt_ok(cudaStreamDestroy(s));
    assert_rt_ok(cudaFree(packed));
    assert_rt_ok(cudaFree(d));
}

static void test_2d_refusals(void **state) {
    (void)state;
    void *d = (void *)1;
    size_t pitch = 1;
    assert_rt(cudaErrorInvalidValue, cudaMallocPitch(NULL, &pitch, 16, 16));
    assert_rt(cudaErrorInvalidValue, cudaMallocPitch(&d, NULL, 16, 16));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    /* Nothing asked, nothing allocated, as cudaMalloc(0). */
    assert_rt_ok(cudaMallocPitch(&d, &pitch, 0, 16));
    assert_null(d);
    assert_int_equal(pitch, 0);
    assert_rt(cudaErrorMemoryAllocation, cudaMallocPitch(&d, &pitch, (size_t)1 << 40, 1 << 20));
    assert_rt(cudaErrorMemoryAllocation, cudaGetLastError());

    char buf[64];
    assert_rt(cudaErrorInvalidPitchValue,
              cudaMemcpy2D(buf, 8, buf + 32, 16, 12, 2, cudaMemcpyHostToHost));
    assert_rt(cudaErrorInvalidPitchValue, cudaGetLastError());
    assert_rt(cudaErrorInvalidMemcpyDirection,
              cudaMemcpy2D(buf, 16, buf + 32, 16, 8, 2, (cudaMemcpyKind)9));
    assert_rt(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
    assert_rt_ok(cudaGetLastError());
}

static void test_2d_and_3d_sets(void **state) {
    (void)state;
    /* 4 slices of 5 rows of 40 bytes. */
    cudaPitchedPtr p;
    cudaExtent ext = make_cudaExtent(40, 5, 4);
    assert_rt_ok(cudaMalloc3D(&p, ext));
    assert_non_null(p.ptr);
    assert_true(p.pitch >= 40);
    assert_int_equal(p.xsize, 40);
    assert_int_equal(p.ysize, 5);
    const size_t slice = p.pitch * p.ysize, total = slice * 4;
    assert_rt_ok(cudaMemset3D(p, 0x11, ext)); /* every row of every slice: one set */
    /* Rows 1 to 3 of slices 1 and 2, bytes 0 to 9: one set per slice. */
    cudaPitchedPtr inner = p;
    inner.ptr = (char *)p.ptr + slice + p.pitch;
    assert_rt_ok(cudaMemset3DAsync(inner, 0x22, make_cudaExtent(10, 3, 2), 0));
    /* Row 4 of slice 3, bytes 20 to 39, through the per-thread forms. */
    assert_rt_ok(
        cudaMemset2D_ptds((char *)p.ptr + 3 * slice + 4 * p.pitch + 20, p.pitch, 0x33, 20, 1));
    assert_rt_ok(cudaMemset3DAsync_ptsz(p, 0x44, make_cudaExtent(0, 5, 4), 0));
    assert_rt_ok(cudaDeviceSynchronize());
    assert_rt_ok(cudaStreamSynchronize(cudaStreamPerThread));
    unsigned char *host = (unsigned char *)malloc(total);
    assert_non_null(host);
    assert_rt_ok(cudaMemcpy(host, p.ptr, total, cudaMemcpyDeviceToHost));
    for (size_t z = 0; z < 4; z++) {
        for (size_t y = 0; y < 5; y++) {
            for (size_t x = 0; x < 40; x++) {
                unsigned char want = 0x11;
                if (z >= 1 && z <= 2 && y >= 1 && y <= 3 && x < 10) want = 0x22;
                if (z == 3 && y == 4 && x >= 20) want = 0x33;
                assert_int_equal(host[z * slice + y * p.pitch + x], want);
            }
        }
    }
    free(host);
    /* More rows per slice than the allocation has. */
    assert_rt(cudaErrorInvalidValue, cudaMemset3D(p, 0, make_cudaExtent(40, 6, 2)));
    assert_rt(cudaErrorInvalidValue, cudaMemset2D(p.ptr, p.pitch, 0, p.pitch + 1, 2));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt(cudaErrorInvalidValue, cudaMalloc3D(NULL, ext));
    assert_rt_ok(cudaFree(p.ptr));
}

static void test_3d_copies(void **state) {
    (void)state;
    cudaPitchedPtr d;
    cudaExtent ext = make_cudaExtent(16, 4, 3);
    assert_rt_ok(cudaMalloc3D(&d, ext));
    static unsigned char src[3][4][16], back[4][16];
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 16; x++) src[z][y][x] = (unsigned char)(z * 64 + y * 16 + x);

    /* One slice (slice 2 of the host array to slice 0 of the device's): the driver's 2D copy. */
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(src, 16, 16, 4);
    p.srcPos = make_cudaPos(0, 0, 2);
    p.dstPtr = d;
    p.extent = make_cudaExtent(16, 4, 1);
    p.kind = cudaMemcpyHostToDevice;
    assert_rt_ok(cudaMemcpy3D(&p)); /* a position in z: the driver's 3D copy */
    p.srcPtr = make_cudaPitchedPtr(src[2], 16, 16, 4);
    p.srcPos = make_cudaPos(0, 0, 0);
    assert_rt_ok(cudaMemcpy3D(&p)); /* the same slice, as a 2D copy */
    /* Rows 1 to 2, bytes 4 to 11, back to the host, at (4, 1) too. */
    memset(&p, 0, sizeof p);
    p.srcPtr = d;
    p.srcPos = make_cudaPos(4, 1, 0);
    p.dstPtr = make_cudaPitchedPtr(back, 16, 16, 4);
    p.dstPos = make_cudaPos(4, 1, 0);
    p.extent = make_cudaExtent(8, 2, 1);
    p.kind = cudaMemcpyDefault;
    memset(back, 0, sizeof back);
    assert_rt_ok(cudaMemcpy3D_ptds(&p));
    assert_rt_ok(cudaMemcpy3DAsync(&p, 0));
    assert_rt_ok(cudaDeviceSynchronize());
    for (int y = 0; y < 4; y++) {
        for (int x = 0; x < 16; x++) {
            bool in = y >= 1 && y <= 2 && x >= 4 && x < 12;
            assert_int_equal(back[y][x], in ? src[2][y][x] : 0);
        }
    }
    /* Every slice back, into a host array of 3 slices of 5 rows of 20 bytes, at (2, 1, 0). */
    cudaPitchedPtr whole = d;
    static unsigned char all[3][5][20];
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(src, 16, 16, 4);
    p.dstPtr = whole;
    p.extent = ext;
    p.kind = cudaMemcpyHostToDevice;
    assert_rt_ok(cudaMemcpy3D(&p));
    memset(&p, 0, sizeof p);
    p.srcPtr = whole;
    p.dstPtr = make_cudaPitchedPtr(all, 20, 20, 5);
    p.dstPos = make_cudaPos(2, 1, 0);
    p.extent = ext;
    p.kind = cudaMemcpyDeviceToHost;
    memset(all, 0, sizeof all);
    assert_rt_ok(cudaMemcpy3DAsync(&p, 0));
    assert_rt_ok(cudaDeviceSynchronize());
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 16; x++) assert_int_equal(all[z][y + 1][x + 2], src[z][y][x]);
    assert_int_equal(all[1][0][2], 0);
    assert_int_equal(all[2][1][0], 0);
    /* More rows per slice than a side has. */
    p.dstPtr.ysize = 3;
    assert_rt(cudaErrorInvalidValue, cudaMemcpy3D(&p));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    p.dstPtr.ysize = 5;
    p.srcPos = make_cudaPos(0, 0, 0);
    p.dstPos = make_cudaPos(0, 0, 0);
    /* Both or neither of an array and a pointer on one side. */
    p.extent = make_cudaExtent(8, 2, 1);
    p.srcPtr.ptr = NULL;
    assert_rt(cudaErrorInvalidValue, cudaMemcpy3D(&p));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    p.srcPtr = d;
    p.kind = (cudaMemcpyKind)17;
    assert_rt(cudaErrorInvalidMemcpyDirection, cudaMemcpy3D(&p));
    assert_rt(cudaErrorInvalidValue, cudaMemcpy3D(NULL));
    /* An array side asks the driver for the array's format: device memory is no array. */
    p.kind = cudaMemcpyDeviceToDevice;
    p.srcPtr.ptr = NULL;
    p.srcArray = (cudaArray_t)d.ptr;
    assert_rt(cudaErrorInvalidResourceHandle, cudaMemcpy3D(&p));
    assert_rt(cudaErrorInvalidResourceHandle, cudaGetLastError());

    /* Batches: the mock has neither; a count without arrays is refused first. */
    void *dsts[1] = {back}, *srcs[1] = {d.ptr};
    size_t sizes[1] = {16}, at[1] = {0};
    cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    assert_rt(cudaErrorNotSupported,
              cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, at, 1, (cudaStream_t)0x0));
    assert_rt(cudaErrorInvalidValue, cudaMemcpyBatchAsync(dsts, NULL, sizes, 1, &attr, at, 1, 0));
    cudaMemcpy3DBatchOp op;
    memset(&op, 0, sizeof op);
    op.src.type = cudaMemcpyOperandTypePointer;
    op.src.op.ptr.ptr = d.ptr;
    op.dst.type = cudaMemcpyOperandTypePointer;
    op.dst.op.ptr.ptr = back;
    op.extent = make_cudaExtent(16, 1, 1);
    op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    assert_rt(cudaErrorNotSupported, cudaMemcpy3DBatchAsync(1, &op, 0, 0));
    assert_rt(cudaErrorInvalidValue, cudaMemcpy3DBatchAsync(1, NULL, 0, 0));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    assert_rt_ok(cudaFree(d.ptr));
}

/* A 3D copy between devices: rows of device 1's pitched allocation into device 0's, then back
 * to the host; the devices are checked first. */
static void test_3d_copies_between_devices(void **state) {
    (void)state;
    int n = 0;
    assert_rt_ok(cudaGetDeviceCount(&n));
    assert_int_equal(n, 2);
    cudaPitchedPtr a, b;
    cudaExtent ext = make_cudaExtent(32, 4, 2);
    assert_rt_ok(cudaMalloc3D(&a, ext));
    assert_rt_ok(cudaSetDevice(1));
    assert_rt_ok(cudaMalloc3D(&b, ext));
    static unsigned char host[2][4][32], back[2][4][32];
    for (int i = 0; i < 256; i++) (&host[0][0][0])[i] = (unsigned char)(i * 5 + 3);
    cudaMemcpy3DParms up;
    memset(&up, 0, sizeof up);
    up.srcPtr = make_cudaPitchedPtr(host, 32, 32, 4);
    up.dstPtr = b;
    up.extent = ext;
    up.kind = cudaMemcpyHostToDevice;
    assert_rt_ok(cudaMemcpy3D(&up));
    assert_rt_ok(cudaSetDevice(0));
    cudaMemcpy3DPeerParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = b;
    p.srcDevice = 1;
    p.dstPtr = a;
    p.dstDevice = 0;
    p.extent = ext;
    assert_rt_ok(cudaMemcpy3DPeer(&p));
    assert_rt_ok(cudaMemcpy3DPeerAsync(&p, 0));
    assert_rt_ok(cudaDeviceSynchronize());
    cudaMemcpy3DParms down;
    memset(&down, 0, sizeof down);
    down.srcPtr = a;
    down.dstPtr = make_cudaPitchedPtr(back, 32, 32, 4);
    down.extent = ext;
    down.kind = cudaMemcpyDeviceToHost;
    assert_rt_ok(cudaMemcpy3D(&down));
    assert_memory_equal(back, host, sizeof host);
    /* Nothing to copy, nothing asked of the driver. */
    p.extent = make_cudaExtent(0, 1, 1);
    assert_rt_ok(cudaMemcpy3DPeer(&p));
    p.dstDevice = 9;
    assert_rt(cudaErrorInvalidDevice, cudaMemcpy3DPeer(&p));
    assert_rt(cudaErrorInvalidDevice, cudaGetLastError());
    p.dstDevice = -1;
    assert_rt(cudaErrorInvalidDevice, cudaMemcpy3DPeerAsync(&p, 0));
    assert_rt(cudaErrorInvalidValue, cudaMemcpy3DPeer(NULL));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    /* The current device is left as it was. */
    int cur = -1;
    assert_rt_ok(cudaGetDevice(&cur));
    assert_int_equal(cur, 0);
    assert_rt_ok(cudaFree(a.ptr));
    assert_rt_ok(cudaSetDevice(1));
    assert_rt_ok(cudaFree(b.ptr));
    assert_rt_ok(cudaSetDevice(0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malloc_pitch_kernel_and_2d_copies),
        cmocka_unit_test(test_2d_refusals),
        cmocka_unit_test(test_2d_and_3d_sets),
        cmocka_unit_test(test_3d_copies),
        cmocka_unit_test(test_3d_copies_between_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
