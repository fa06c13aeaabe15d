/* The runtime's copy descriptions as the driver's CUDA_MEMCPY3D, and channel formats as the
 * driver's array formats. A cudaMemcpy3DParms gives positions and the width in elements when an
 * array is involved (bytes otherwise); the driver takes bytes, so the element size comes from the
 * array's descriptor. */
#include <string.h>

#include "cudart_ptds.h"
#include "runtime/rt_copy.h"
#include "runtime/rt_forward.h"

size_t cushim__rt_format_bytes(CUarray_format format, unsigned channels) {
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return channels;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2u * channels;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4u * channels;
    default: return 0;
    }
}

cudaError_t cushim__rt_channel_to_format(CUarray_format *format, unsigned *channels,
                                         const struct cudaChannelFormatDesc *d, const char *fn) {
    const int bits[4] = {d->x, d->y, d->z, d->w};
    unsigned n = 0;
    while (n < 4 && bits[n] != 0) n++;
    bool same = n > 0;
    for (unsigned i = 0; i < 4; i++) {
        if (i < n ? bits[i] != bits[0] : bits[i] != 0) same = false;
    }
    CUarray_format f = (CUarray_format)0;
    if (same && n != 3) {
        switch (d->f) {
        case cudaChannelFormatKindSigned:
            f = bits[0] == 8    ? CU_AD_FORMAT_SIGNED_INT8
                : bits[0] == 16 ? CU_AD_FORMAT_SIGNED_INT16
                : bits[0] == 32 ? CU_AD_FORMAT_SIGNED_INT32
                                : f;
            break;
        case cudaChannelFormatKindUnsigned:
            f = bits[0] == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
                : bits[0] == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
                : bits[0] == 32 ? CU_AD_FORMAT_UNSIGNED_INT32
                                : f;
            break;
        case cudaChannelFormatKindFloat:
            f = bits[0] == 16 ? CU_AD_FORMAT_HALF : bits[0] == 32 ? CU_AD_FORMAT_FLOAT : f;
            break;
        default: break;
        }
    }
    if (f == 0) {
        return cushim__rt_fail(cudaErrorInvalidChannelDescriptor,
                               "%s: the channel description {%d, %d, %d, %d, kind %d} is not one "
                               "cushim's runtime has a driver format for (1, 2 or 4 channels of 8, "
                               "16 or 32 bits, signed, unsigned or float)",
                               fn, d->x, d->y, d->z, d->w, (int)d->f);
    }
    *format = f;
    *channels = n;
    return cudaSuccess;
}

struct cudaChannelFormatDesc cushim__rt_channel_of_format(CUarray_format format,
                                                          unsigned channels) {
    struct cudaChannelFormatDesc d = {0, 0, 0, 0, cudaChannelFormatKindNone};
    size_t bytes = cushim__rt_format_bytes(format, 1);
    if (bytes == 0 || channels == 0 || channels > 4) return d;
    int bits = (int)bytes * 8;
    d.x = bits;
    d.y = channels > 1 ? bits : 0;
    d.z = channels > 2 ? bits : 0;
    d.w = channels > 3 ? bits : 0;
    switch (format) {
    case CU_AD_FORMAT_SIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT32: d.f = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_HALF:
    case CU_AD_FORMAT_FLOAT: d.f = cudaChannelFormatKindFloat; break;
    default: d.f = cudaChannelFormatKindUnsigned; break;
    }
    return d;
}

cudaError_t cushim__rt_array_element(CUDA_ARRAY3D_DESCRIPTOR *desc, size_t *bytes, CUarray a,
                                     const char *fn) {
    CUresult r = cushim__table.cuArray3DGetDescriptor(desc, a);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuArray3DGetDescriptor");
    *bytes = cushim__rt_format_bytes(desc->Format, desc->NumChannels);
    if (*bytes == 0) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: the array's format (0x%x) has no whole-byte elements", fn,
                               (unsigned)desc->Format);
    }
    return cudaSuccess;
}

/* ------------------------------------------------------------------------------------------ */
/* Copies                                                                                     */
/* ------------------------------------------------------------------------------------------ */

void cushim__rt_copy_ptr(CUDA_MEMCPY3D *c, bool dst, const void *ptr, size_t pitch, size_t height,
                         enum cudaMemcpyKind kind) {
    CUmemorytype t = cushim__rt_memory_type(kind, dst);
    CUdeviceptr dev = (CUdeviceptr)(uintptr_t)ptr;
    if (dst) {
        c->dstMemoryType = t;
        c->dstHost = (void *)ptr;
        c->dstDevice = dev;
        c->dstPitch = pitch;
        c->dstHeight = height;
    } else {
        c->srcMemoryType = t;
        c->srcHost = ptr;
        c->srcDevice = dev;
        c->srcPitch = pitch;
        c->srcHeight = height;
    }
}

void cushim__rt_copy_array(CUDA_MEMCPY3D *c, bool dst, CUarray a) {
    if (dst) {
        c->dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c->dstArray = a;
    } else {
        c->srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c->srcArray = a;
    }
}

void cushim__rt_copy_offset(CUDA_MEMCPY3D *c, bool dst, size_t x_bytes, size_t y, size_t z) {
    if (dst) {
        c->dstXInBytes = x_bytes;
        c->dstY = y;
        c->dstZ = z;
    } else {
        c->srcXInBytes = x_bytes;
        c->srcY = y;
        c->srcZ = z;
    }
}

/* A side names exactly one of an array and a pointer. */
static cudaError_t check_side(cudaArray_t a, struct cudaPitchedPtr ptr, bool dst, const char *fn) {
    if ((a == NULL) == (ptr.ptr == NULL)) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: the %s of the copy needs exactly one of %sArray and %sPtr.ptr",
                               fn, dst ? "destination" : "source", dst ? "dst" : "src",
                               dst ? "dst" : "src");
    }
    return cudaSuccess;
}

/* One side of p: its array or pointer, and its position scaled by elem (1 without an array). */
static void side(CUDA_MEMCPY3D *c, bool dst, cudaArray_t a, struct cudaPos pos,
                 struct cudaPitchedPtr ptr, enum cudaMemcpyKind kind, size_t elem) {
    if (a != NULL) {
        cushim__rt_copy_array(c, dst, (CUarray)a);
        cushim__rt_copy_offset(c, dst, pos.x * elem, pos.y, pos.z);
    } else {
        cushim__rt_copy_ptr(c, dst, ptr.ptr, ptr.pitch, ptr.ysize, kind);
        cushim__rt_copy_offset(c, dst, pos.x, pos.y, pos.z);
    }
}

cudaError_t cushim__rt_copy3d_of(CUDA_MEMCPY3D *c, const struct cudaMemcpy3DParms *p,
                                 const char *fn) {
    cudaError_t e = cushim__rt_check_kind(p->kind, fn);
    if (e == cudaSuccess) e = check_side(p->srcArray, p->srcPtr, false, fn);
    if (e == cudaSuccess) e = check_side(p->dstArray, p->dstPtr, true, fn);
    if (e != cudaSuccess) return e;
    memset(c, 0, sizeof *c);
    size_t elem = 1;
    cudaArray_t a = p->srcArray != NULL ? p->srcArray : p->dstArray;
    if (a != NULL) {
        CUDA_ARRAY3D_DESCRIPTOR d;
        e = cushim__rt_array_element(&d, &elem, (CUarray)a, fn);
        if (e != cudaSuccess) return e;
    }
    side(c, false, p->srcArray, p->srcPos, p->srcPtr, p->kind, elem);
    side(c, true, p->dstArray, p->dstPos, p->dstPtr, p->kind, elem);
    c->WidthInBytes = p->extent.width * elem;
    c->Height = p->extent.height;
    c->Depth = p->extent.depth;
    return cudaSuccess;
}

cudaError_t cushim__rt_copy_run(const CUDA_MEMCPY3D *c, bool async, cudaStream_t stream, bool pt,
                                const char *fn) {
    const cushim_driver_table *t = cushim__rt_table(pt);
    if (async) {
        return cushim__rt_checked(t->cuMemcpy3DAsync(c, cushim__rt_stream(stream, pt)), fn,
                                  "cuMemcpy3DAsync");
    }
    return cushim__rt_checked(t->cuMemcpy3D(c), fn, "cuMemcpy3D");
}
