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
      PFN_cuSurfObjectGetResourceDesc_v5000)

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

#endif
