/* vecscale: scales a vector of floats on the GPU through the CUDA driver API. This is the
 * downstream project's own code: it includes <cuda.h> and knows nothing of cushim or its mock.
 * Every function works in the calling thread's current context. */
#ifndef VECSCALE_H
#define VECSCALE_H

#include <cuda.h>

typedef struct vecscale_kernel {
    CUmodule module;
    CUfunction function;
} vecscale_kernel;

/* Loads the kernel (PTX embedded in the library) into the current context. */
CUresult vecscale_load(vecscale_kernel *k);
CUresult vecscale_unload(vecscale_kernel *k);

/* Queues data[i] *= factor, for the n floats at device address `data`, on `stream`. */
CUresult vecscale_enqueue(const vecscale_kernel *k, CUstream stream, CUdeviceptr data, unsigned n,
                          float factor);

/* The whole trip: copies n floats to the device, scales them, copies them back. Whatever the
 * result, nothing stays allocated or loaded. */
CUresult vecscale(float *data, unsigned n, float factor);

#endif
