/* Copies and sets: every one is checked against the mock's memory when called, and goes to its
 * stream through mock__enqueue, the one place that decides when it runs. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mock_array.h"

/* ------------------------------------------------------------------------------------------ */
/* The hook                                                                                   */
/* ------------------------------------------------------------------------------------------ */

void mock__run_op(const mock_mem_op *op) {
    switch (op->kind) {
    case MOCK_OP_COPY:
        for (size_t y = 0; y < op->height; y++) {
            memmove(op->dst + y * op->dpitch, op->src + y * op->spitch, op->width);
        }
        mock__check_written((uintptr_t)op->dst, op->width, op->height, op->dpitch);
        mock__check_copied(op);
        break;
    case MOCK_OP_SET:
        for (size_t y = 0; y < op->height; y++) {
            unsigned char *row = op->dst + y * op->dpitch;
            if (op->elem == 1) {
                memset(row, (int)(op->value & 0xff), op->width);
                continue;
            }
            for (size_t x = 0; x < op->width; x++) {
                if (op->elem == 2) {
                    unsigned short v = (unsigned short)op->value;
                    memcpy(row + 2 * x, &v, 2);
                } else {
                    unsigned int v = op->value;
                    memcpy(row + 4 * x, &v, 4);
                }
            }
        }
        mock__check_written((uintptr_t)op->dst, op->width * op->elem, op->height, op->dpitch);
        break;
    case MOCK_OP_FREE: {
        /* Still there unless something freed it meanwhile, which the call already refused. */
        mock_range *r = mock__range_at((uintptr_t)op->dst, false);
        if (r != NULL && r->base == (uintptr_t)op->dst) mock__drop_range(r, op->entry);
        break;
    }
    }
}

static void run_queued(void *arg) { mock__run_op(arg); }

/* Copies and sets take their place in the stream's queue (mock_queue.h), so they run in stream
 * order and are captured into graphs; the operation is copied, since the queue outlives the
 * call and a graph may run it again. A free takes its place too (a kernel queued before it still
 * sees the memory, as cudaMallocAsync, launch, cudaFreeAsync on one stream has it), except in a
 * capture, where it runs at the call: replaying it would free twice. */
CUresult mock__mem_enqueue(struct CUstream_st *s, const mock_mem_op *op, bool sync) {
    if (sync) {
        /* A synchronous call waits for the stream's earlier work (with what the legacy stream
         * synchronises with), then does its own. */
        mock__implicit_waits(s);
        mock__complete(s, s->submitted, 0);
        mock__run_op(op);
        return CUDA_SUCCESS;
    }
    if (op->kind == MOCK_OP_FREE && s->cap != NULL) {
        mock__run_op(op);
        mock__submit(s);
        return CUDA_SUCCESS;
    }
    mock_mem_op *copy = malloc(sizeof *copy);
    if (copy == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    *copy = *op;
    return mock__enqueue(s, op->kind == MOCK_OP_SET ? MOCK_NODE_MEMSET : MOCK_NODE_MEMCPY,
                         run_queued, copy, free);
}

/* The stream of a call: its own for an async call, the current context's default stream for a
 * synchronous one (which needs a current context as on the driver). */
static CUresult stream_of(CUstream hs, bool async, struct CUstream_st **s) {
    if (async) return mock__stream(hs, mock__entry_name(), s);
    return mock__stream(NULL, mock__entry_name(), s);
}

/* ------------------------------------------------------------------------------------------ */
/* 1D and 2D copies                                                                           */
/* ------------------------------------------------------------------------------------------ */

enum side { HOST, DEVICE, UNIFIED, ARRAY };

/* The first byte of one side of a 2D copy, checked over its whole extent. */
static CUresult side(const char *what, enum side kind, uintptr_t p, size_t x, size_t y,
                     size_t pitch, size_t width, size_t height, uintptr_t *start) {
    if (p == 0) return CUDA_ERROR_INVALID_VALUE;
    if (height > 1 && pitch < width) return CUDA_ERROR_INVALID_VALUE;
    if (kind == ARRAY && (x > pitch || width > pitch - x)) return CUDA_ERROR_INVALID_VALUE;
    if (height > 0 && y > (SIZE_MAX - x) / (pitch ? pitch : 1)) return CUDA_ERROR_INVALID_VALUE;
    *start = p + y * pitch + x;
    if (width == 0 || height == 0) return CUDA_SUCCESS;
    if (height - 1 > (SIZE_MAX - width) / (pitch ? pitch : 1)) return CUDA_ERROR_INVALID_VALUE;
    size_t extent = (height - 1) * pitch + width;
    if (kind == DEVICE) return mock__check_device(what, *start, extent);
    if (kind == UNIFIED) return mock__check_any(what, *start, extent);
    if (kind == ARRAY) return mock__array_span(what, *start, extent);
    return CUDA_SUCCESS;
}

static CUresult copy2d(CUstream hs, bool async, enum side dk, uintptr_t dst, size_t dx, size_t dy,
                       size_t dpitch, enum side sk, uintptr_t src, size_t sx, size_t sy,
                       size_t spitch, size_t width, size_t height) {
    struct CUstream_st *s;
    CUresult r = stream_of(hs, async, &s);
    if (r != CUDA_SUCCESS) return r;
    uintptr_t d0, s0;
    r = side("destination", dk, dst, dx, dy, dpitch, width, height, &d0);
    if (r == CUDA_SUCCESS) r = side("source", sk, src, sx, sy, spitch, width, height, &s0);
    if (r != CUDA_SUCCESS) return r;
    mock_mem_op op = {.kind = MOCK_OP_COPY,
                      .entry = mock__entry_name(),
                      .dst = (unsigned char *)d0,
                      .src = (const unsigned char *)s0,
                      .dpitch = dpitch,
                      .spitch = spitch,
                      .width = width,
                      .height = height};
    if (width > 0 && height > 0) r = mock__mem_enqueue(s, &op, !async);
    return r;
}

static CUresult copy1d(CUstream hs, bool async, enum side dk, uintptr_t dst, enum side sk,
                       uintptr_t src, size_t n) {
    if (n == 0 && (dst == 0 || src == 0)) {
        struct CUstream_st *s;
        return stream_of(hs, async, &s);
    }
    return copy2d(hs, async, dk, dst, 0, 0, n, sk, src, 0, 0, n, n, 1);
}

#define U(p) ((uintptr_t)(p))

CUresult CUDAAPI mock_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
    MOCK_ENTER(cuMemcpyHtoD);
    return mock__leave(copy1d(NULL, false, DEVICE, U(dst), HOST, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
    MOCK_ENTER(cuMemcpyDtoH);
    return mock__leave(copy1d(NULL, false, HOST, U(dst), DEVICE, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    MOCK_ENTER(cuMemcpyDtoD);
    return mock__leave(copy1d(NULL, false, DEVICE, U(dst), DEVICE, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    MOCK_ENTER(cuMemcpy);
    return mock__leave(copy1d(NULL, false, UNIFIED, U(dst), UNIFIED, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyHtoDAsync);
    return mock__leave(copy1d(hs, true, DEVICE, U(dst), HOST, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyDtoHAsync);
    return mock__leave(copy1d(hs, true, HOST, U(dst), DEVICE, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyDtoDAsync);
    return mock__leave(copy1d(hs, true, DEVICE, U(dst), DEVICE, U(src), n));
}
CUresult CUDAAPI mock_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyAsync);
    return mock__leave(copy1d(hs, true, UNIFIED, U(dst), UNIFIED, U(src), n));
}

/* Peer copies name both contexts, which must be live; the bytes move as in any copy. */
static CUresult peer(CUcontext dctx, CUcontext sctx, const char *entry) {
    if (dctx == NULL || sctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    struct CUctx_st *d = mock__expect(dctx, CUSHIM_MOCK_CONTEXT, entry);
    struct CUctx_st *s = mock__expect(sctx, CUSHIM_MOCK_CONTEXT, entry);
    if (d == NULL || s == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    return d->active && s->active ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

CUresult CUDAAPI mock_cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                                   size_t n) {
    MOCK_ENTER(cuMemcpyPeer);
    CUresult r = peer(dctx, sctx, mock__entry_name());
    if (r == CUDA_SUCCESS) r = copy1d(NULL, false, DEVICE, U(dst), DEVICE, U(src), n);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                                        CUcontext sctx, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyPeerAsync);
    CUresult r = peer(dctx, sctx, mock__entry_name());
    if (r == CUDA_SUCCESS) r = copy1d(hs, true, DEVICE, U(dst), DEVICE, U(src), n);
    return mock__leave(r);
}

/* One side of a CUDA_MEMCPY2D or CUDA_MEMCPY3D. An array's side is its storage (mock_array.c):
 * its pitch and rows per slice replace those of the description, which the driver ignores. */
static CUresult kind_of(CUmemorytype t, const void *host, CUdeviceptr dev, CUarray array,
                        enum side *k, uintptr_t *p, size_t *pitch, size_t *height) {
    switch (t) {
    case CU_MEMORYTYPE_HOST:
        *k = HOST;
        *p = U(host);
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE:
        *k = DEVICE;
        *p = U(dev);
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_UNIFIED:
        *k = UNIFIED;
        *p = U(dev);
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_ARRAY: {
        struct CUarray_st *a = mock__array(array);
        if (a == NULL) return CUDA_ERROR_INVALID_HANDLE;
        *k = ARRAY;
        *p = U(a->data);
        *pitch = a->desc.Width * a->elem;
        *height = a->rows;
        return CUDA_SUCCESS;
    }
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult copy_desc(const CUDA_MEMCPY2D *c, CUstream hs, bool async) {
    if (c == NULL) return CUDA_ERROR_INVALID_VALUE;
    enum side dk, sk;
    uintptr_t d, s;
    size_t dp = c->dstPitch, sp = c->srcPitch, dh = 0, sh = 0;
    CUresult r =
        kind_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, &dk, &d, &dp, &dh);
    if (r == CUDA_SUCCESS)
        r = kind_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, &sk, &s, &sp, &sh);
    if (r != CUDA_SUCCESS) return r;
    return copy2d(hs, async, dk, d, c->dstXInBytes, c->dstY, dp, sk, s, c->srcXInBytes, c->srcY, sp,
                  c->WidthInBytes, c->Height);
}

CUresult CUDAAPI mock_cuMemcpy2D(const CUDA_MEMCPY2D *c) {
    MOCK_ENTER(cuMemcpy2D);
    return mock__leave(copy_desc(c, NULL, false));
}
CUresult CUDAAPI mock_cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *c) {
    MOCK_ENTER(cuMemcpy2DUnaligned);
    return mock__leave(copy_desc(c, NULL, false));
}
CUresult CUDAAPI mock_cuMemcpy2DAsync(const CUDA_MEMCPY2D *c, CUstream hs) {
    MOCK_ENTER(cuMemcpy2DAsync);
    return mock__leave(copy_desc(c, hs, true));
}

/* A 3D copy: one 2D copy per slice, slice z of a side starting (its z + z) times its rows per
 * slice after its first row; every slice is checked before the first is copied. An array's rows
 * per slice are its height; no mipmap levels. */
static CUresult slice_row(size_t y, size_t z, size_t height, size_t *row) {
    if (height != 0 && z > (SIZE_MAX - y) / height) return CUDA_ERROR_INVALID_VALUE;
    *row = y + z * height;
    return CUDA_SUCCESS;
}

static CUresult copy_desc3d(const CUDA_MEMCPY3D *c, CUstream hs, bool async) {
    if (c == NULL || c->srcLOD != 0 || c->dstLOD != 0 || c->reserved0 != NULL ||
        c->reserved1 != NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct CUstream_st *st;
    CUresult r = stream_of(hs, async, &st);
    enum side dk, sk;
    uintptr_t d, s;
    size_t dp = c->dstPitch, sp = c->srcPitch, dh = c->dstHeight, sh = c->srcHeight;
    if (r == CUDA_SUCCESS)
        r = kind_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, &dk, &d, &dp, &dh);
    if (r == CUDA_SUCCESS)
        r = kind_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, &sk, &s, &sp, &sh);
    if (r != CUDA_SUCCESS) return r;
    if (c->Depth > 1 && (sh < c->Height || dh < c->Height)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (c->Depth > SIZE_MAX - c->srcZ || c->Depth > SIZE_MAX - c->dstZ) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t z = 0; z < c->Depth && r == CUDA_SUCCESS; z++) {
            size_t sy, dy;
            uintptr_t at;
            r = slice_row(c->srcY, c->srcZ + z, sh, &sy);
            if (r == CUDA_SUCCESS) r = slice_row(c->dstY, c->dstZ + z, dh, &dy);
            if (r != CUDA_SUCCESS) break;
            if (pass == 0) {
                r = side("destination", dk, d, c->dstXInBytes, dy, dp, c->WidthInBytes, c->Height,
                         &at);
                if (r == CUDA_SUCCESS) {
                    r = side("source", sk, s, c->srcXInBytes, sy, sp, c->WidthInBytes, c->Height,
                             &at);
                }
            } else {
                r = copy2d(hs, async, dk, d, c->dstXInBytes, dy, dp, sk, s, c->srcXInBytes, sy, sp,
                           c->WidthInBytes, c->Height);
            }
        }
    }
    return r;
}

CUresult CUDAAPI mock_cuMemcpy3D(const CUDA_MEMCPY3D *c) {
    MOCK_ENTER(cuMemcpy3D);
    return mock__leave(copy_desc3d(c, NULL, false));
}
CUresult CUDAAPI mock_cuMemcpy3DAsync(const CUDA_MEMCPY3D *c, CUstream hs) {
    MOCK_ENTER(cuMemcpy3DAsync);
    return mock__leave(copy_desc3d(c, hs, true));
}

/* Between contexts: both live, then the copy as any 3D copy (the contexts in the driver's
 * reserved fields of a CUDA_MEMCPY3D, which has the same layout, are taken out first). */
static CUresult copy_peer3d(const CUDA_MEMCPY3D_PEER *c, CUstream hs, bool async) {
    if (c == NULL) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = peer(c->dstContext, c->srcContext, mock__entry_name());
    if (r != CUDA_SUCCESS) return r;
    _Static_assert(
        sizeof(CUDA_MEMCPY3D) == sizeof(CUDA_MEMCPY3D_PEER) &&
            offsetof(CUDA_MEMCPY3D, reserved0) == offsetof(CUDA_MEMCPY3D_PEER, srcContext) &&
            offsetof(CUDA_MEMCPY3D, reserved1) == offsetof(CUDA_MEMCPY3D_PEER, dstContext),
        "a 3D peer copy is a 3D copy with contexts");
    CUDA_MEMCPY3D plain;
    memcpy(&plain, c, sizeof plain);
    plain.reserved0 = plain.reserved1 = NULL;
    return copy_desc3d(&plain, hs, async);
}

CUresult CUDAAPI mock_cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *c) {
    MOCK_ENTER(cuMemcpy3DPeer);
    return mock__leave(copy_peer3d(c, NULL, false));
}
CUresult CUDAAPI mock_cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *c, CUstream hs) {
    MOCK_ENTER(cuMemcpy3DPeerAsync);
    return mock__leave(copy_peer3d(c, hs, true));
}

/* ------------------------------------------------------------------------------------------ */
/* Sets (names without "cu": cuda.h renames cuMemsetD8 to cuMemsetD8_v2 where it is expanded) */
/* ------------------------------------------------------------------------------------------ */

static CUresult set2d(CUstream hs, bool async, CUdeviceptr dst, size_t pitch, unsigned value,
                      unsigned elem, size_t width, size_t height) {
    struct CUstream_st *s;
    CUresult r = stream_of(hs, async, &s);
    if (r != CUDA_SUCCESS) return r;
    if (width == 0 || height == 0) return CUDA_SUCCESS;
    /* The driver wants elements aligned to their size. */
    if (dst % elem != 0 || (height > 1 && pitch % elem != 0)) return CUDA_ERROR_INVALID_VALUE;
    if (width > SIZE_MAX / elem) return CUDA_ERROR_INVALID_VALUE;
    uintptr_t start;
    r = side("destination", DEVICE, U(dst), 0, 0, pitch, width * elem, height, &start);
    if (r != CUDA_SUCCESS) return r;
    mock_mem_op op = {.kind = MOCK_OP_SET,
                      .entry = mock__entry_name(),
                      .dst = (unsigned char *)start,
                      .dpitch = pitch,
                      .width = width,
                      .height = height,
                      .value = value,
                      .elem = elem};
    return mock__mem_enqueue(s, &op, !async);
}

#define SET_ENTRIES(X)                                                                             \
    X(MemsetD8, unsigned char, 1) X(MemsetD16, unsigned short, 2) X(MemsetD32, unsigned int, 4)

#define SET_FNS(name, T, size)                                                                     \
    CUresult CUDAAPI mock_cu##name(CUdeviceptr dst, T v, size_t n) {                               \
        MOCK_ENTER(cu##name);                                                                      \
        return mock__leave(set2d(NULL, false, dst, n * size, v, size, n, 1));                      \
    }                                                                                              \
    CUresult CUDAAPI mock_cu##name##Async(CUdeviceptr dst, T v, size_t n, CUstream hs) {           \
        MOCK_ENTER(cu##name##Async);                                                               \
        return mock__leave(set2d(hs, true, dst, n * size, v, size, n, 1));                         \
    }
SET_ENTRIES(SET_FNS)

#define SET2D_ENTRIES(X)                                                                           \
    X(MemsetD2D8, unsigned char, 1)                                                                \
    X(MemsetD2D16, unsigned short, 2) X(MemsetD2D32, unsigned int, 4)

#define SET2D_FNS(name, T, size)                                                                   \
    CUresult CUDAAPI mock_cu##name(CUdeviceptr dst, size_t pitch, T v, size_t w, size_t h) {       \
        MOCK_ENTER(cu##name);                                                                      \
        return mock__leave(set2d(NULL, false, dst, pitch, v, size, w, h));                         \
    }                                                                                              \
    CUresult CUDAAPI mock_cu##name##Async(CUdeviceptr dst, size_t pitch, T v, size_t w, size_t h,  \
                                          CUstream hs) {                                           \
        MOCK_ENTER(cu##name##Async);                                                               \
        return mock__leave(set2d(hs, true, dst, pitch, v, size, w, h));                            \
    }
SET2D_ENTRIES(SET2D_FNS)
