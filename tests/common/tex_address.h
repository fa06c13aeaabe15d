/* The texture address modes as the CUDA C++ Programming Guide's appendix "Texture Fetching"
 * describes them, for the references of the texture tests on the mock (tests/unit) and of the
 * kernel suite on the mock and the GPU (tests/kernels). */
#ifndef CUSHIM_TESTS_TEX_ADDRESS_H
#define CUSHIM_TESTS_TEX_ADDRESS_H

#include <cuda.h>
#include <math.h>
#include <stdbool.h>

/* Texel index i of an extent of n under mode m: wrap and mirror only with normalized
 * coordinates (clamp otherwise); -1 for the border colour. */
static inline long tex_address(long i, long n, CUaddress_mode m, bool norm) {
    if (!norm && (m == CU_TR_ADDRESS_MODE_WRAP || m == CU_TR_ADDRESS_MODE_MIRROR)) {
        m = CU_TR_ADDRESS_MODE_CLAMP;
    }
    if (m == CU_TR_ADDRESS_MODE_WRAP) return ((i % n) + n) % n;
    if (m == CU_TR_ADDRESS_MODE_MIRROR) {
        long k = ((i % (2 * n)) + 2 * n) % (2 * n);
        return k < n ? k : 2 * n - 1 - k;
    }
    if (m == CU_TR_ADDRESS_MODE_BORDER) return i < 0 || i >= n ? -1 : i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Point sampling's texel index for coordinate c over an extent of n. Normalized, as the H200
 * picks it (measured; the guide's floor(c * n) in float differs where c, the float nearest an
 * edge k / n, lies just above it): c in fixed point with 21 fraction bits, rounded down, times n,
 * floor. For the test's coordinates, within a few extents of the texture. */
static inline long tex_point_index(float c, long n, bool norm) {
    if (!norm) return (long)floorf(c);
    return (long)floor(floor((double)c * 2097152.0) / 2097152.0 * (double)n);
}

#endif
