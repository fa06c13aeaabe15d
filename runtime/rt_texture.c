/* Texture and surface objects: the runtime's resource, texture and resource view descriptions
 * as the driver's CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC and CUDA_RESOURCE_VIEW_DESC, and back
 * for the getters. Resource types, address, filter and view formats have the driver's numbers;
 * the texture description's read mode, sRGB, normalized coordinates, trilinear optimisation
 * and seamless cube maps become the driver's CU_TRSF_* flags. */
#include <string.h>

#include "runtime/rt_copy.h"
#include "runtime/rt_forward.h"

_Static_assert((int)cudaResourceTypePitch2D == (int)CU_RESOURCE_TYPE_PITCH2D &&
                   (int)cudaResourceTypeMipmappedArray == (int)CU_RESOURCE_TYPE_MIPMAPPED_ARRAY,
               "resource types");
_Static_assert((int)cudaAddressModeBorder == (int)CU_TR_ADDRESS_MODE_BORDER &&
                   (int)cudaFilterModeLinear == (int)CU_TR_FILTER_MODE_LINEAR,
               "texture modes");
_Static_assert((int)cudaResViewFormatUnsignedBlockCompressed7 ==
                   (int)CU_RES_VIEW_FORMAT_UNSIGNED_BC7,
               "view formats");

static cudaError_t resource_in(CUDA_RESOURCE_DESC *r, const struct cudaResourceDesc *d,
                               const char *fn) {
    CUSHIM__RT_NONNULL(fn, d);
    memset(r, 0, sizeof *r);
    r->resType = (CUresourcetype)d->resType;
    r->flags = d->flags;
    cudaError_t e = cudaSuccess;
    unsigned channels = 0;
    switch (d->resType) {
    case cudaResourceTypeArray: r->res.array.hArray = (CUarray)d->res.array.array; break;
    case cudaResourceTypeMipmappedArray:
        r->res.mipmap.hMipmappedArray = (CUmipmappedArray)d->res.mipmap.mipmap;
        break;
    case cudaResourceTypeLinear:
        r->res.linear.devPtr = (CUdeviceptr)(uintptr_t)d->res.linear.devPtr;
        r->res.linear.sizeInBytes = d->res.linear.sizeInBytes;
        e = cushim__rt_channel_to_format(&r->res.linear.format, &channels, &d->res.linear.desc, fn);
        r->res.linear.numChannels = channels;
        break;
    case cudaResourceTypePitch2D:
        r->res.pitch2D.devPtr = (CUdeviceptr)(uintptr_t)d->res.pitch2D.devPtr;
        r->res.pitch2D.width = d->res.pitch2D.width;
        r->res.pitch2D.height = d->res.pitch2D.height;
        r->res.pitch2D.pitchInBytes = d->res.pitch2D.pitchInBytes;
        e = cushim__rt_channel_to_format(&r->res.pitch2D.format, &channels, &d->res.pitch2D.desc,
                                         fn);
        r->res.pitch2D.numChannels = channels;
        break;
    default:
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: resType %d is not a cudaResourceType",
                               fn, (int)d->resType);
    }
    return e;
}

static void resource_out(struct cudaResourceDesc *d, const CUDA_RESOURCE_DESC *r) {
    memset(d, 0, sizeof *d);
    d->resType = (enum cudaResourceType)r->resType;
    d->flags = r->flags;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY: d->res.array.array = (cudaArray_t)r->res.array.hArray; break;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        d->res.mipmap.mipmap = (cudaMipmappedArray_t)r->res.mipmap.hMipmappedArray;
        break;
    case CU_RESOURCE_TYPE_LINEAR:
        d->res.linear.devPtr = (void *)(uintptr_t)r->res.linear.devPtr;
        d->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        d->res.linear.desc =
            cushim__rt_channel_of_format(r->res.linear.format, r->res.linear.numChannels);
        break;
    case CU_RESOURCE_TYPE_PITCH2D:
        d->res.pitch2D.devPtr = (void *)(uintptr_t)r->res.pitch2D.devPtr;
        d->res.pitch2D.width = r->res.pitch2D.width;
        d->res.pitch2D.height = r->res.pitch2D.height;
        d->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        d->res.pitch2D.desc =
            cushim__rt_channel_of_format(r->res.pitch2D.format, r->res.pitch2D.numChannels);
        break;
    default: break;
    }
}

static void texture_in(CUDA_TEXTURE_DESC *t, const struct cudaTextureDesc *d) {
    memset(t, 0, sizeof *t);
    for (int i = 0; i < 3; i++) t->addressMode[i] = (CUaddress_mode)d->addressMode[i];
    t->filterMode = (CUfilter_mode)d->filterMode;
    /* cudaReadModeElementType reads integers as integers; NormalizedFloat promotes them. */
    t->flags = (d->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
               (d->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
               (d->sRGB ? CU_TRSF_SRGB : 0) |
               (d->disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0) |
               (d->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
    t->maxAnisotropy = d->maxAnisotropy;
    t->mipmapFilterMode = (CUfilter_mode)d->mipmapFilterMode;
    t->mipmapLevelBias = d->mipmapLevelBias;
    t->minMipmapLevelClamp = d->minMipmapLevelClamp;
    t->maxMipmapLevelClamp = d->maxMipmapLevelClamp;
    memcpy(t->borderColor, d->borderColor, sizeof t->borderColor);
}

static void texture_out(struct cudaTextureDesc *d, const CUDA_TEXTURE_DESC *t) {
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 3; i++) d->addressMode[i] = (enum cudaTextureAddressMode)t->addressMode[i];
    d->filterMode = (enum cudaTextureFilterMode)t->filterMode;
    d->readMode = (t->flags & CU_TRSF_READ_AS_INTEGER) ? cudaReadModeElementType
                                                       : cudaReadModeNormalizedFloat;
    d->normalizedCoords = (t->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    d->sRGB = (t->flags & CU_TRSF_SRGB) != 0;
    d->disableTrilinearOptimization = (t->flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) != 0;
    d->seamlessCubemap = (t->flags & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
    d->maxAnisotropy = t->maxAnisotropy;
    d->mipmapFilterMode = (enum cudaTextureFilterMode)t->mipmapFilterMode;
    d->mipmapLevelBias = t->mipmapLevelBias;
    d->minMipmapLevelClamp = t->minMipmapLevelClamp;
    d->maxMipmapLevelClamp = t->maxMipmapLevelClamp;
    memcpy(d->borderColor, t->borderColor, sizeof d->borderColor);
}

static void view_in(CUDA_RESOURCE_VIEW_DESC *v, const struct cudaResourceViewDesc *d) {
    memset(v, 0, sizeof *v);
    v->format = (CUresourceViewFormat)d->format;
    v->width = d->width;
    v->height = d->height;
    v->depth = d->depth;
    v->firstMipmapLevel = d->firstMipmapLevel;
    v->lastMipmapLevel = d->lastMipmapLevel;
    v->firstLayer = d->firstLayer;
    v->lastLayer = d->lastLayer;
}

static void view_out(struct cudaResourceViewDesc *d, const CUDA_RESOURCE_VIEW_DESC *v) {
    memset(d, 0, sizeof *d);
    d->format = (enum cudaResourceViewFormat)v->format;
    d->width = v->width;
    d->height = v->height;
    d->depth = v->depth;
    d->firstMipmapLevel = v->firstMipmapLevel;
    d->lastMipmapLevel = v->lastMipmapLevel;
    d->firstLayer = v->firstLayer;
    d->lastLayer = v->lastLayer;
}

/* ------------------------------------------------------------------------------------------ */
/* Texture objects                                                                            */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc) {
    CUSHIM__RT_NONNULL(__func__, pTexObject);
    CUSHIM__RT_NONNULL(__func__, pTexDesc);
    CUDA_RESOURCE_DESC r;
    cudaError_t e = resource_in(&r, pResDesc, __func__);
    if (e != cudaSuccess) return e;
    CUDA_TEXTURE_DESC t;
    texture_in(&t, pTexDesc);
    CUDA_RESOURCE_VIEW_DESC v;
    if (pResViewDesc != NULL) view_in(&v, pResViewDesc);
    CUSHIM__RT_FORWARD(__func__, "cuTexObjectCreate",
                       cushim__table.cuTexObjectCreate((CUtexObject *)pTexObject, &r, &t,
                                                       pResViewDesc != NULL ? &v : NULL));
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
    /* 0 is no object: nothing to do, as NVIDIA's runtime answers. */
    if (texObject == 0) return cushim__rt_ready(__func__);
    CUSHIM__RT_FORWARD(__func__, "cuTexObjectDestroy",
                       cushim__table.cuTexObjectDestroy((CUtexObject)texObject));
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaTextureObject_t texObject) {
    CUSHIM__RT_NONNULL(__func__, pResDesc);
    CUDA_RESOURCE_DESC r;
    CUSHIM__RT_FORWARD_THEN(__func__, "cuTexObjectGetResourceDesc",
                            cushim__table.cuTexObjectGetResourceDesc(&r, (CUtexObject)texObject),
                            resource_out(pResDesc, &r));
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                            cudaTextureObject_t texObject) {
    CUSHIM__RT_NONNULL(__func__, pTexDesc);
    CUDA_TEXTURE_DESC t;
    CUSHIM__RT_FORWARD_THEN(__func__, "cuTexObjectGetTextureDesc",
                            cushim__table.cuTexObjectGetTextureDesc(&t, (CUtexObject)texObject),
                            texture_out(pTexDesc, &t));
}

cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                 cudaTextureObject_t texObject) {
    CUSHIM__RT_NONNULL(__func__, pResViewDesc);
    CUDA_RESOURCE_VIEW_DESC v;
    CUSHIM__RT_FORWARD_THEN(
        __func__, "cuTexObjectGetResourceViewDesc",
        cushim__table.cuTexObjectGetResourceViewDesc(&v, (CUtexObject)texObject),
        view_out(pResViewDesc, &v));
}

/* ------------------------------------------------------------------------------------------ */
/* Surface objects                                                                            */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                    const struct cudaResourceDesc *pResDesc) {
    CUSHIM__RT_NONNULL(__func__, pSurfObject);
    CUDA_RESOURCE_DESC r;
    cudaError_t e = resource_in(&r, pResDesc, __func__);
    if (e != cudaSuccess) return e;
    if (pResDesc->resType != cudaResourceTypeArray) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: a surface's resource must be a cudaResourceTypeArray (%d)",
                               __func__, (int)pResDesc->resType);
    }
    CUSHIM__RT_FORWARD(__func__, "cuSurfObjectCreate",
                       cushim__table.cuSurfObjectCreate((CUsurfObject *)pSurfObject, &r));
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
    if (surfObject == 0) return cushim__rt_ready(__func__);
    CUSHIM__RT_FORWARD(__func__, "cuSurfObjectDestroy",
                       cushim__table.cuSurfObjectDestroy((CUsurfObject)surfObject));
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaSurfaceObject_t surfObject) {
    CUSHIM__RT_NONNULL(__func__, pResDesc);
    CUDA_RESOURCE_DESC r;
    CUSHIM__RT_FORWARD_THEN(__func__, "cuSurfObjectGetResourceDesc",
                            cushim__table.cuSurfObjectGetResourceDesc(&r, (CUsurfObject)surfObject),
                            resource_out(pResDesc, &r));
}
