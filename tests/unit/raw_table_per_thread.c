/* Compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM, as a user's per-thread file would be: its
 * cushim_driver() is the per-thread table, and its names are cuda.h's per-thread ones. */
#include "raw_table_modes.h"

#if !defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "this file is compiled in the per-thread default-stream mode"
#endif

CUresult per_thread_htod(CUdeviceptr dst, const void *src, size_t n) {
    return cushim_driver()->cuMemcpyHtoD(dst, src, n); /* cuMemcpyHtoD_v2_ptds here */
}

CUresult per_thread_stream_sync(CUstream s) {
    return cushim_driver()->cuStreamSynchronize(s); /* cuStreamSynchronize_ptsz here */
}

const void *per_thread_table(void) { return cushim_driver(); }
