/* A cuMemcpy3D between host memory and a whole CUDA array (rows of row bytes, rows per slice,
 * depth slices), for the texture tests on the mock (tests/unit) and of the kernel suite on the
 * mock and the GPU (tests/kernels): the driver's 1D copies (cuMemcpyHtoA, cuMemcpyAtoH, ...)
 * take 1D arrays only (the H200 answers CUDA_ERROR_INVALID_VALUE for a 2D one). */
#ifndef CUSHIM_TESTS_ARRAY_COPY_H
#define CUSHIM_TESTS_ARRAY_COPY_H

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>

static inline CUDA_MEMCPY3D array_copy_desc(CUarray a, void *host, size_t row, size_t rows,
                                            size_t depth, bool to_array) {
    CUDA_MEMCPY3D c = {.WidthInBytes = row, .Height = rows, .Depth = depth};
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = row;
        c.srcHeight = rows;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = row;
        c.dstHeight = rows;
    }
    return c;
}

#endif
