/* Internal to the mock driver: CUDA arrays, mipmapped arrays, texture and surface objects
 * (mock_array.c, mock_texobj.c). Included by mock.h, which adds MOCK_TEX_ENTRIES to its list.
 *
 * An array is a record (its handle) owning host memory laid out row after row, slice after
 * slice (layers are slices), with no padding: what the texture and surface instructions of the
 * interpreter read. A texture or surface object is a small integer (index + 1 in a table of its
 * own, under a read-write lock, so that a running kernel looks a handle up without the mock's
 * lock); it keeps the descriptions it was made from, for the getters, and the interpreter's
 * view of its resource (mock_ptx_texture, ptx.h). */
#ifndef CUSHIM_MOCK_TEX_H
#define CUSHIM_MOCK_TEX_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx.h"

#define MOCK_TEX_ENTRIES(X)                                                                        \
    X(cuArrayCreate, "cuArrayCreate", 3020, PFN_cuArrayCreate_v3020)                               \
    X(cuArray3DCreate, "cuArray3DCreate", 3020, PFN_cuArray3DCreate_v3020)                         \
    X(cuArrayDestroy, "cuArrayDestroy", 2000, PFN_cuArrayDestroy_v2000)                            \
    X(cuArrayGetDescriptor, "cuArrayGetDescriptor", 3020, PFN_cuArrayGetDescriptor_v3020)          \
    X(cuArray3DGetDescriptor, "cuArray3DGetDescriptor", 3020, PFN_cuArray3DGetDescriptor_v3020)    \
    X(cuMipmappedArrayCreate, "cuMipmappedArrayCreate", 5000, PFN_cuMipmappedArrayCreate_v5000)    \
    X(cuMipmappedArrayGetLevel, "cuMipmappedArrayGetLevel", 5000,                                  \
      PFN_cuMipmappedArrayGetLevel_v5000)                                                          \
    X(cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy", 5000, PFN_cuMipmappedArrayDestroy_v5000) \
    X(cuMemcpyHtoA, "cuMemcpyHtoA", 3020, PFN_cuMemcpyHtoA_v3020)                                  \
    X(cuMemcpyAtoH, "cuMemcpyAtoH", 3020, PFN_cuMemcpyAtoH_v3020)                                  \
    X(cuMemcpyAtoD, "cuMemcpyAtoD", 3020, PFN_cuMemcpyAtoD_v3020)                                  \
    X(cuMemcpyDtoA, "cuMemcpyDtoA", 3020, PFN_cuMemcpyDtoA_v3020)                                  \
    X(cuMemcpyAtoA, "cuMemcpyAtoA", 3020, PFN_cuMemcpyAtoA_v3020)                                  \
    X(cuMemcpyHtoAAsync, "cuMemcpyHtoAAsync", 3020, PFN_cuMemcpyHtoAAsync_v3020)                   \
    X(cuMemcpyAtoHAsync, "cuMemcpyAtoHAsync", 3020, PFN_cuMemcpyAtoHAsync_v3020)                   \
    X(cuTexObjectCreate, "cuTexObjectCreate", 5000, PFN_cuTexObjectCreate_v5000)                   \
    X(cuTexObjectDestroy, "cuTexObjectDestroy", 5000, PFN_cuTexObjectDestroy_v5000)                \
    X(cuTexObjectGetResourceDesc, "cuTexObjectGetResourceDesc", 5000,                              \
      PFN_cuTexObjectGetResourceDesc_v5000)                                                        \
    X(cuTexObjectGetTextureDesc, "cuTexObjectGetTextureDesc", 5000,                                \
      PFN_cuTexObjectGetTextureDesc_v5000)                                                         \
    X(cuTexObjectGetResourceViewDesc, "cuTexObjectGetResourceViewDesc", 5000,                      \
      PFN_cuTexObjectGetResourceViewDesc_v5000)                                                    \
    X(cuSurfObjectCreate, "cuSurfObjectCreate", 5000, PFN_cuSurfObjectCreate_v5000)                \
    X(cuSurfObjectDestroy, "cuSurfObjectDestroy", 5000, PFN_cuSurfObjectDestroy_v5000)             \
    X(cuSurfObjectGetResourceDesc, "cuSurfObjectGetResourceDesc", 5000,                            \
      PFN_cuSurfObjectGetResourceDesc_v5000)                                                       \
    MOCK_TEXREF_ENTRIES(X)

/* The deprecated texture and surface references (mock_texref.c). */
#define MOCK_TEXREF_ENTRIES(X)                                                                     \
    X(cuModuleGetTexRef, "cuModuleGetTexRef", 2000, PFN_cuModuleGetTexRef_v2000)                   \
    X(cuModuleGetSurfRef, "cuModuleGetSurfRef", 3000, PFN_cuModuleGetSurfRef_v3000)                \
    X(cuTexRefCreate, "cuTexRefCreate", 2000, PFN_cuTexRefCreate_v2000)                            \
    X(cuTexRefDestroy, "cuTexRefDestroy", 2000, PFN_cuTexRefDestroy_v2000)                         \
    X(cuTexRefSetArray, "cuTexRefSetArray", 2000, PFN_cuTexRefSetArray_v2000)                      \
    X(cuTexRefSetMipmappedArray, "cuTexRefSetMipmappedArray", 5000,                                \
      PFN_cuTexRefSetMipmappedArray_v5000)                                                         \
    X(cuTexRefSetAddress_v2, "cuTexRefSetAddress", 3020, PFN_cuTexRefSetAddress_v3020)             \
    X(cuTexRefSetAddress2D_v3, "cuTexRefSetAddress2D", 4010, PFN_cuTexRefSetAddress2D_v4010)       \
    X(cuTexRefSetFormat, "cuTexRefSetFormat", 2000, PFN_cuTexRefSetFormat_v2000)                   \
    X(cuTexRefSetAddressMode, "cuTexRefSetAddressMode", 2000, PFN_cuTexRefSetAddressMode_v2000)    \
    X(cuTexRefSetFilterMode, "cuTexRefSetFilterMode", 2000, PFN_cuTexRefSetFilterMode_v2000)       \
    X(cuTexRefSetMipmapFilterMode, "cuTexRefSetMipmapFilterMode", 5000,                            \
      PFN_cuTexRefSetMipmapFilterMode_v5000)                                                       \
    X(cuTexRefSetMipmapLevelBias, "cuTexRefSetMipmapLevelBias", 5000,                              \
      PFN_cuTexRefSetMipmapLevelBias_v5000)                                                        \
    X(cuTexRefSetMipmapLevelClamp, "cuTexRefSetMipmapLevelClamp", 5000,                            \
      PFN_cuTexRefSetMipmapLevelClamp_v5000)                                                       \
    X(cuTexRefSetMaxAnisotropy, "cuTexRefSetMaxAnisotropy", 5000,                                  \
      PFN_cuTexRefSetMaxAnisotropy_v5000)                                                          \
    X(cuTexRefSetBorderColor, "cuTexRefSetBorderColor", 8000, PFN_cuTexRefSetBorderColor_v8000)    \
    X(cuTexRefSetFlags, "cuTexRefSetFlags", 2000, PFN_cuTexRefSetFlags_v2000)                      \
    X(cuTexRefGetAddress_v2, "cuTexRefGetAddress", 3020, PFN_cuTexRefGetAddress_v3020)             \
    X(cuTexRefGetArray, "cuTexRefGetArray", 2000, PFN_cuTexRefGetArray_v2000)                      \
    X(cuTexRefGetMipmappedArray, "cuTexRefGetMipmappedArray", 5000,                                \
      PFN_cuTexRefGetMipmappedArray_v5000)                                                         \
    X(cuTexRefGetAddressMode, "cuTexRefGetAddressMode", 2000, PFN_cuTexRefGetAddressMode_v2000)    \
    X(cuTexRefGetFilterMode, "cuTexRefGetFilterMode", 2000, PFN_cuTexRefGetFilterMode_v2000)       \
    X(cuTexRefGetFormat, "cuTexRefGetFormat", 2000, PFN_cuTexRefGetFormat_v2000)                   \
    X(cuTexRefGetMipmapFilterMode, "cuTexRefGetMipmapFilterMode", 5000,                            \
      PFN_cuTexRefGetMipmapFilterMode_v5000)                                                       \
    X(cuTexRefGetMipmapLevelBias, "cuTexRefGetMipmapLevelBias", 5000,                              \
      PFN_cuTexRefGetMipmapLevelBias_v5000)                                                        \
    X(cuTexRefGetMipmapLevelClamp, "cuTexRefGetMipmapLevelClamp", 5000,                            \
      PFN_cuTexRefGetMipmapLevelClamp_v5000)                                                       \
    X(cuTexRefGetMaxAnisotropy, "cuTexRefGetMaxAnisotropy", 5000,                                  \
      PFN_cuTexRefGetMaxAnisotropy_v5000)                                                          \
    X(cuTexRefGetBorderColor, "cuTexRefGetBorderColor", 8000, PFN_cuTexRefGetBorderColor_v8000)    \
    X(cuTexRefGetFlags, "cuTexRefGetFlags", 2000, PFN_cuTexRefGetFlags_v2000)                      \
    X(cuSurfRefSetArray, "cuSurfRefSetArray", 3000, PFN_cuSurfRefSetArray_v3000)                   \
    X(cuSurfRefGetArray, "cuSurfRefGetArray", 3000, PFN_cuSurfRefGetArray_v3000)

struct CUarray_st;
struct CUmipmappedArray_st;

/* The live array whose handle is a, else NULL with a sentence for mock__why. */
struct CUarray_st *mock__array(CUarray a);
/* For copies (mock_memcpy.c): whether [p, p + n) lies in one live array's storage, else
 * CUDA_ERROR_INVALID_VALUE with a sentence naming `what`. */
CUresult mock__array_span(const char *what, uintptr_t p, size_t n);
/* The list of arrays forgotten (reset, after their records were freed). */
void mock__array_reset(void);
/* An array's storage freed with its record (reset, a context's end). */
void mock__array_free_record(struct CUarray_st *a);
/* Texture and surface objects whose resource is the array a become unusable (the array is
 * being destroyed): a kernel that uses one faults rather than read freed memory. */
void mock__texobj_orphan(const struct CUarray_st *a);
/* The table of texture and surface objects emptied, and the list of arrays (reset). */
void mock__texobj_reset(void);
/* For the interpreter (mock_ptx_launch.texture): a live object of the kind asked for. */
bool mock__texobj_lookup(void *ctx, uint64_t handle, bool surface, mock_ptx_texture *out, char *why,
                         size_t whylen);

/* Bytes of one channel of a format, 0 for one the mock does not implement (mock_array.c). */
size_t mock__format_bytes(CUarray_format f);
/* A texture (td non-NULL) or surface (td NULL) over the resource r, checked as
 * cuTexObjectCreate checks them, into t: CUDA_ERROR_INVALID_VALUE or
 * CUDA_ERROR_INVALID_HANDLE with a sentence. */
CUresult mock__tex_view(const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *td,
                        mock_ptx_texture *t);
/* Texture and surface references (mock_texref.c): those of the module m forgotten (its end;
 * NULL: all, the mock's reset), and the bindings of m's references for a launch (*out NULL
 * when it has none, else an array of *n the caller frees; CUDA_ERROR_OUT_OF_MEMORY). */
void mock__texref_forget(const struct mock_ptx_module *m);
CUresult mock__texref_snapshot(const struct mock_ptx_module *m, mock_ptx_ref **out, size_t *n);

#endif
