/* CUDA arrays and mipmapped arrays: allocated with a channel format (the runtime's
 * cudaChannelFormatDesc as the driver's format and channel count, rt_copy.c), freed, described
 * (cudaArrayGetInfo), and a mipmapped array's levels. The runtime's cudaArray* flags have the
 * bits of CUDA_ARRAY3D_*; an array of height 0 is one-dimensional, of depth 0 two-dimensional,
 * as for the driver. */
#include "runtime/rt_copy.h"
#include "runtime/rt_forward.h"

_Static_assert(cudaArrayLayered == CUDA_ARRAY3D_LAYERED &&
                   cudaArraySurfaceLoadStore == CUDA_ARRAY3D_SURFACE_LDST &&
                   cudaArrayCubemap == CUDA_ARRAY3D_CUBEMAP &&
                   cudaArrayTextureGather == CUDA_ARRAY3D_TEXTURE_GATHER,
               "array flags");

/* desc and extent as the driver's descriptor. */
static cudaError_t descriptor(CUDA_ARRAY3D_DESCRIPTOR *d, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned flags, const char *fn) {
    CUSHIM__RT_NONNULL(fn, desc);
    CUarray_format format;
    unsigned channels;
    cudaError_t e = cushim__rt_channel_to_format(&format, &channels, desc, fn);
    if (e != cudaSuccess) return e;
    if (extent.width == 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: the array's width is 0", fn);
    }
    *d = (CUDA_ARRAY3D_DESCRIPTOR){
        .Width = extent.width,
        .Height = extent.height,
        .Depth = extent.depth,
        .Format = format,
        .NumChannels = channels,
        .Flags = flags,
    };
    return cudaSuccess;
}

static cudaError_t array_3d(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            struct cudaExtent extent, unsigned flags, const char *fn) {
    CUSHIM__RT_NONNULL(fn, array);
    *array = NULL;
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = descriptor(&d, desc, extent, flags, fn);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(fn, "cuArray3DCreate", cushim__table.cuArray3DCreate((CUarray *)array, &d));
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height, unsigned int flags) {
    return array_3d(array, desc, (struct cudaExtent){width, height, 0}, flags, __func__);
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags) {
    return array_3d(array, desc, extent, flags, __func__);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    /* NULL is no operation, as NVIDIA documents, once the runtime is up. */
    if (array == NULL) return cushim__rt_ready(__func__);
    CUSHIM__RT_FORWARD(__func__, "cuArrayDestroy", cushim__table.cuArrayDestroy((CUarray)array));
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array) {
    CUSHIM__RT_NONNULL(__func__, array);
    cudaError_t e = cushim__rt_ready(__func__);
    if (e != cudaSuccess) return e;
    CUDA_ARRAY3D_DESCRIPTOR d;
    CUresult r = cushim__table.cuArray3DGetDescriptor(&d, (CUarray)array);
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, __func__, "cuArray3DGetDescriptor");
    if (desc != NULL) *desc = cushim__rt_channel_of_format(d.Format, d.NumChannels);
    if (extent != NULL) *extent = (struct cudaExtent){d.Width, d.Height, d.Depth};
    if (flags != NULL) *flags = d.Flags;
    return cudaSuccess;
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                     const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int numLevels,
                                     unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, mipmappedArray);
    *mipmappedArray = NULL;
    if (numLevels == 0) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: numLevels is 0", __func__);
    }
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = descriptor(&d, desc, extent, flags, __func__);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(
        __func__, "cuMipmappedArrayCreate",
        cushim__table.cuMipmappedArrayCreate((CUmipmappedArray *)mipmappedArray, &d, numLevels));
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                       cudaMipmappedArray_const_t mipmappedArray,
                                       unsigned int level) {
    CUSHIM__RT_NONNULL(__func__, levelArray);
    CUSHIM__RT_NONNULL(__func__, mipmappedArray);
    CUSHIM__RT_FORWARD(__func__, "cuMipmappedArrayGetLevel",
                       cushim__table.cuMipmappedArrayGetLevel(
                           (CUarray *)levelArray, (CUmipmappedArray)mipmappedArray, level));
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
    if (mipmappedArray == NULL) return cushim__rt_ready(__func__);
    CUSHIM__RT_FORWARD(__func__, "cuMipmappedArrayDestroy",
                       cushim__table.cuMipmappedArrayDestroy((CUmipmappedArray)mipmappedArray));
}
