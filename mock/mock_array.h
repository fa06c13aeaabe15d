/* Internal to the mock driver: the records of arrays and mipmapped arrays (mock_array.c), which
 * the texture and surface objects (mock_texobj.c) read. */
#ifndef CUSHIM_MOCK_ARRAY_H
#define CUSHIM_MOCK_ARRAY_H

#include "mock.h"

/* The most levels of a mipmapped array (a 2^31-wide level 0 has 32). */
#define MOCK_MAX_LEVELS 32

/* A CUDA array (CUarray); its record kind is MOCK_K_ARRAY. */
struct CUarray_st {
    mock_obj h;
    CUDA_ARRAY3D_DESCRIPTOR desc;
    unsigned char *data; /* width * height * depth elements, rows of width * elem bytes */
    size_t elem;         /* bytes of one element: channels times the format's size */
    size_t rows;         /* rows per slice: the height, 1 for a 1D array */
    size_t slices;       /* the depth (or the layers), 1 for none */
    size_t bytes;
    struct CUmipmappedArray_st *owner; /* the mipmapped array whose level it is, NULL for none */
};

/* A mipmapped array (CUmipmappedArray): its levels are arrays; kind MOCK_K_MIPMAP. */
struct CUmipmappedArray_st {
    mock_obj h;
    unsigned levels;
    struct CUarray_st *level[MOCK_MAX_LEVELS];
};

#endif
