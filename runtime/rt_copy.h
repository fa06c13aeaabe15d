/* Internal: the runtime's copy descriptions (cudaMemcpy3DParms, the 2D copies to and from
 * arrays) as the driver's CUDA_MEMCPY3D, for memcpy nodes of graphs and the array copies; and
 * the channel formats of arrays, which the element size of a copy comes from. */
#ifndef CUSHIM_RUNTIME_RT_COPY_H
#define CUSHIM_RUNTIME_RT_COPY_H

#include "runtime/rt.h"
/* cushim__rt_check_kind and cushim__rt_memory_type, shared with the pitched copies. */
#include "runtime/rt_pitched.h"

/* The bytes of one element of a driver array format with n channels, or 0 for a format whose
 * elements are not whole bytes (block-compressed, planar video). */
size_t cushim__rt_format_bytes(CUarray_format format, unsigned channels);
/* A runtime channel description as the driver's format and channel count:
 * cudaErrorInvalidChannelDescriptor with a sentence for one the driver has no format for. */
cudaError_t cushim__rt_channel_to_format(CUarray_format *format, unsigned *channels,
                                         const struct cudaChannelFormatDesc *d, const char *fn);
/* The driver's format and channel count as a runtime channel description. */
struct cudaChannelFormatDesc cushim__rt_channel_of_format(CUarray_format format, unsigned channels);
/* The descriptor of array a and the bytes of one of its elements: the driver's code, mapped,
 * for an array it does not know. The context is current. */
cudaError_t cushim__rt_array_element(CUDA_ARRAY3D_DESCRIPTOR *desc, size_t *bytes, CUarray a,
                                     const char *fn);

/* One side of a copy: a pointer of pitch `pitch` and `height` rows per slice (where kind says,
 * host, device or, for cudaMemcpyDefault, unified), or an array; its offset in bytes, rows and
 * slices. */
void cushim__rt_copy_ptr(CUDA_MEMCPY3D *c, bool dst, const void *ptr, size_t pitch, size_t height,
                         enum cudaMemcpyKind kind);
void cushim__rt_copy_array(CUDA_MEMCPY3D *c, bool dst, CUarray a);
void cushim__rt_copy_offset(CUDA_MEMCPY3D *c, bool dst, size_t x_bytes, size_t y, size_t z);

/* p as the driver's copy: positions and widths in elements where an array is involved, in bytes
 * otherwise, as the runtime documents. cudaErrorInvalidValue for a side with both or neither of
 * an array and a pointer. The context is current. */
cudaError_t cushim__rt_copy3d_of(CUDA_MEMCPY3D *c, const struct cudaMemcpy3DParms *p,
                                 const char *fn);
/* The copy run: synchronous (cuMemcpy3D), or in stream order (cuMemcpy3DAsync) on stream in
 * the legacy or per-thread mode. */
cudaError_t cushim__rt_copy_run(const CUDA_MEMCPY3D *c, bool async, cudaStream_t stream, bool pt,
                                const char *fn);

#endif
