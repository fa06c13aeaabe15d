/* ptx-bench's native rows: the same computations as its kernels, compiled by the C compiler at
 * -O3 for this CPU, on one host thread (ptx-native.c). */
#ifndef CUSHIM_PTX_NATIVE_H
#define CUSHIM_PTX_NATIVE_H

/* y = a * x + y, one fused multiply-add an element (k_saxpy). */
void ptx_native_saxpy(int n, float a, const float *x, float *y);
/* C = A * B, row-major, A m x k and B k x n: each element one fused multiply-add after another
 * in order of k, as k_matmul sums. */
void ptx_native_matmul(const float *a, const float *b, float *c, int m, int n, int k);
/* The sum of n integers, block of 256 by block as k_reduce adds them to its total. */
int ptx_native_reduce(const int *in, int n);

#endif
