/* What the forward_* programs share (forward_run.c). */
#ifndef FORWARD_RUN_H
#define FORWARD_RUN_H

#include <stddef.h>

/* 0 when the function `symbol` the program calls lies in a file under folder, else 1 and a
 * sentence on stderr. */
int forward_from(const char *symbol, const char *folder);

/* Loads cubin (size bytes) on the device's primary context, launches its `kernel`(float *p) on
 * 32 threads over p[i] = i, and checks p[i] == want(i); with sass set, checks instead that the
 * first failing call is CUDA_ERROR_NO_BINARY_FOR_GPU. 0 when so, else 1 and a sentence. */
int forward_run(const void *cubin, size_t size, const char *kernel, int sass, float (*want)(float));

#endif
