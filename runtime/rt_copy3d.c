/* 3D copies, also between devices: cudaMemcpy3D and cudaMemcpy3DPeer (and their Async forms)
 * as the driver's CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER.
 *
 * The runtime's description differs from the driver's in units: where an array takes part, the
 * extent's width and the array's x position are in the array's elements, which the driver wants
 * in bytes, so the element size comes from the array's descriptor; a pointer's position and
 * (without arrays) the width are in bytes. A pointer's pitched description gives the driver's
 * pitch and its rows per slice (ysize). A copy of one slice between pointers goes to the
 * driver's 2D copy, which every driver has (the mock has no 3D one). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"
#include "runtime/rt_pitched.h"

_Static_assert(sizeof(CUDA_MEMCPY3D) == sizeof(CUDA_MEMCPY3D_PEER) &&
                   offsetof(CUDA_MEMCPY3D, reserved0) == offsetof(CUDA_MEMCPY3D_PEER, srcContext) &&
                   offsetof(CUDA_MEMCPY3D, reserved1) == offsetof(CUDA_MEMCPY3D_PEER, dstContext) &&
                   offsetof(CUDA_MEMCPY3D, Depth) == offsetof(CUDA_MEMCPY3D_PEER, Depth),
               "a 3D copy and a 3D peer copy differ only in their contexts");

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* The bytes of one element of array a. */
static cudaError_t element_size(size_t *bytes, cudaArray_const_t a, const char *fn) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    CUresult r = cushim__table.cuArray3DGetDescriptor(&d, (CUarray)a);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuArray3DGetDescriptor");
    size_t size;
    switch (d.Format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: size = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: size = 2; break;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: size = 4; break;
    default:
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: the array's format 0x%x is not one cushim's runtime copies "
                               "with cudaMemcpy3D (8, 16 or 32-bit integers, half or float)",
                               fn, (unsigned)d.Format);
    }
    *bytes = size * d.NumChannels;
    return cudaSuccess;
}

/* One side of a copy, in the driver's terms. */
typedef struct side {
    CUmemorytype type;
    const void *host;
    CUarray array;
    size_t x, y, z, pitch, height;
} side;

static cudaError_t side_of(side *s, bool dst, cudaArray_const_t a, struct cudaPos pos,
                           struct cudaPitchedPtr p, enum cudaMemcpyKind kind, size_t elem,
                           const char *fn) {
    if ((a == NULL) == (p.ptr == NULL)) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: the %s needs exactly one of an array and a pointer", fn,
                               dst ? "destination" : "source");
    }
    if (a != NULL) {
        *s = (side){.type = CU_MEMORYTYPE_ARRAY, .array = (CUarray)a, .x = pos.x * elem};
    } else {
        *s = (side){.type = cushim__rt_memory_type(kind, dst),
                    .host = p.ptr,
                    .x = pos.x,
                    .pitch = p.pitch,
                    .height = p.ysize};
    }
    s->y = pos.y;
    s->z = pos.z;
    return cudaSuccess;
}

/* The driver's copy of a runtime description (its fields, without the peer's devices). */
static cudaError_t describe(CUDA_MEMCPY3D *c, cudaArray_const_t src_array, struct cudaPos src_pos,
                            struct cudaPitchedPtr src_ptr, cudaArray_const_t dst_array,
                            struct cudaPos dst_pos, struct cudaPitchedPtr dst_ptr,
                            struct cudaExtent extent, enum cudaMemcpyKind kind, const char *fn) {
    cudaError_t e = cushim__rt_check_kind(kind, fn);
    if (e != cudaSuccess) return e;
    size_t elem = 1;
    cudaArray_const_t a = src_array != NULL ? src_array : dst_array;
    if (a != NULL) {
        e = element_size(&elem, a, fn);
        if (e != cudaSuccess) return e;
    }
    side s = {0}, d = {0};
    e = side_of(&s, false, src_array, src_pos, src_ptr, kind, elem, fn);
    if (e == cudaSuccess) e = side_of(&d, true, dst_array, dst_pos, dst_ptr, kind, elem, fn);
    if (e != cudaSuccess) return e;
    memset(c, 0, sizeof *c);
    c->srcXInBytes = s.x, c->srcY = s.y, c->srcZ = s.z;
    c->srcMemoryType = s.type;
    c->srcHost = s.host, c->srcDevice = DPTR(s.host), c->srcArray = s.array;
    c->srcPitch = s.pitch, c->srcHeight = s.height;
    c->dstXInBytes = d.x, c->dstY = d.y, c->dstZ = d.z;
    c->dstMemoryType = d.type;
    c->dstHost = (void *)d.host, c->dstDevice = DPTR(d.host), c->dstArray = d.array;
    c->dstPitch = d.pitch, c->dstHeight = d.height;
    c->WidthInBytes = extent.width * elem;
    c->Height = extent.height;
    c->Depth = extent.depth;
    return cudaSuccess;
}

/* One slice between pointers, as the driver's 2D copy. */
static bool as_2d(CUDA_MEMCPY2D *t, const CUDA_MEMCPY3D *c) {
    if (c->Depth != 1 || c->srcZ != 0 || c->dstZ != 0 || c->srcMemoryType == CU_MEMORYTYPE_ARRAY ||
        c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
        return false;
    }
    *t = (CUDA_MEMCPY2D){.srcXInBytes = c->srcXInBytes,
                         .srcY = c->srcY,
                         .srcMemoryType = c->srcMemoryType,
                         .srcHost = c->srcHost,
                         .srcDevice = c->srcDevice,
                         .srcPitch = c->srcPitch,
                         .dstXInBytes = c->dstXInBytes,
                         .dstY = c->dstY,
                         .dstMemoryType = c->dstMemoryType,
                         .dstHost = c->dstHost,
                         .dstDevice = c->dstDevice,
                         .dstPitch = c->dstPitch,
                         .WidthInBytes = c->WidthInBytes,
                         .Height = c->Height};
    return true;
}

static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, bool async, cudaStream_t stream,
                          bool pt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, p);
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    CUDA_MEMCPY3D c;
    e = describe(&c, p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos, p->dstPtr,
                 p->extent, p->kind, fn);
    if (e != cudaSuccess || c.WidthInBytes == 0 || c.Height == 0 || c.Depth == 0) return e;
    const cushim_driver_table *t = cushim__rt_table(pt);
    CUstream s = cushim__rt_stream(stream, pt);
    CUDA_MEMCPY2D flat;
    if (as_2d(&flat, &c)) {
        return async ? cushim__rt_checked(t->cuMemcpy2DAsync(&flat, s), fn, "cuMemcpy2DAsync")
                     : cushim__rt_checked(t->cuMemcpy2D(&flat), fn, "cuMemcpy2D");
    }
    return async ? cushim__rt_checked(t->cuMemcpy3DAsync(&c, s), fn, "cuMemcpy3DAsync")
                 : cushim__rt_checked(t->cuMemcpy3D(&c), fn, "cuMemcpy3D");
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
    return copy3d(p, false, NULL, false, __func__);
}

cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p) {
    return copy3d(p, false, NULL, true, __func__);
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    return copy3d(p, true, stream, false, __func__);
}

cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    return copy3d(p, true, stream, true, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* Between devices                                                                            */
/* ------------------------------------------------------------------------------------------ */

/* The primary contexts of two devices (made ready, neither made current). */
static cudaError_t contexts(CUcontext *dst, int dst_device, CUcontext *src, int src_device,
                            const char *fn) {
    cushim_context *d, *s;
    cudaError_t e = cushim__rt_context_of(&d, dst_device, fn);
    if (e == cudaSuccess) e = cushim__rt_context_of(&s, src_device, fn);
    if (e != cudaSuccess) return e;
    *dst = d->raw;
    *src = s->raw;
    return cudaSuccess;
}

static cudaError_t copy3d_peer(const struct cudaMemcpy3DPeerParms *p, bool async,
                               cudaStream_t stream, bool pt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, p);
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    CUDA_MEMCPY3D_PEER c;
    CUcontext dctx, sctx;
    e = contexts(&dctx, p->dstDevice, &sctx, p->srcDevice, fn);
    if (e != cudaSuccess) return e;
    CUDA_MEMCPY3D plain;
    e = describe(&plain, p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos, p->dstPtr,
                 p->extent, cudaMemcpyDeviceToDevice, fn);
    if (e != cudaSuccess || plain.WidthInBytes == 0 || plain.Height == 0 || plain.Depth == 0) {
        return e;
    }
    memcpy(&c, &plain, sizeof c);
    c.srcContext = sctx;
    c.dstContext = dctx;
    const cushim_driver_table *t = cushim__rt_table(pt);
    return async ? cushim__rt_checked(t->cuMemcpy3DPeerAsync(&c, cushim__rt_stream(stream, pt)), fn,
                                      "cuMemcpy3DPeerAsync")
                 : cushim__rt_checked(t->cuMemcpy3DPeer(&c), fn, "cuMemcpy3DPeer");
}

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p) {
    return copy3d_peer(p, false, NULL, false, __func__);
}

cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p) {
    return copy3d_peer(p, false, NULL, true, __func__);
}

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream) {
    return copy3d_peer(p, true, stream, false, __func__);
}

cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream) {
    return copy3d_peer(p, true, stream, true, __func__);
}
