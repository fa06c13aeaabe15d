/* ptx-bench's native rows: the same computations as its kernels, compiled by the C compiler at
 * -O3 for this CPU (ptx-native.c), on one host thread, and block by block over N host threads
 * (the physical limit on scaling: what the machine gives the same work split the same way). */
#ifndef CUSHIM_PTX_NATIVE_H
#define CUSHIM_PTX_NATIVE_H

#include <stddef.h>

/* y = a * x + y, one fused multiply-add an element (k_saxpy). */
void ptx_native_saxpy(int n, float a, const float *x, float *y);
/* C = A * B, row-major, A m x k and B k x n: each element one fused multiply-add after another
 * in order of k, as k_matmul sums. */
void ptx_native_matmul(const float *a, const float *b, float *c, int m, int n, int k);
/* The sum of n integers, block of 256 by block as k_reduce adds them to its total. */
int ptx_native_reduce(const int *in, int n);

/* n floats (or ints) of small ordinary values (no denormal slows a native run down); NULL when
 * out of memory. */
float *ptx_native_floats(size_t n);
int *ptx_native_ints(size_t n);

/* PTX_NATIVE_ALU and PTX_NATIVE_ROWS are no kernels of the bench. ALU: a block of 256 integer
 * hash chains of 64 steps, no memory (the compiler keeps it to vector multiplies, shifts and
 * xors): what the machine gives work bound by its arithmetic units alone, over N threads. ROWS:
 * a block's 256 lanes in 8 rows of 32-bit words in memory, 64 steps each reading two rows and
 * writing a third (vector loads, stores, shifts, xors and adds from the L1 cache): the traffic
 * of an interpreter's register rows, bound by the core's load and store ports as much as by
 * its arithmetic, as an interpreter is. */
enum { PTX_NATIVE_SAXPY, PTX_NATIVE_MATMUL, PTX_NATIVE_REDUCE, PTX_NATIVE_ALU, PTX_NATIVE_ROWS };

/* The host copies a grid works on: saxpy's n elements of x and y, matmul's dim x dim matrices,
 * reduce's n integers summed into total (and the ALU and ROWS blocks' sums, n / 256 blocks). */
typedef struct ptx_native_grid {
    int kernel; /* PTX_NATIVE_* */
    int n, dim;
    float a, *x, *y, *ma, *mb, *c;
    const int *in;
    unsigned total;
} ptx_native_grid;

/* Wall seconds of one whole grid of the kernel's blocks (saxpy and reduce: 256 elements a block;
 * matmul: a 16 x 16 tile of C) on `threads` host threads, each taking a contiguous share of the
 * blocks, the same share run after run, with no barrier between runs: a bound on the machine's
 * throughput for this work, without a launch's costs. Measured over about `seconds`; 0 when a
 * thread cannot be made. */
double ptx_native_grid_time(ptx_native_grid *g, int threads, double seconds);

/* Seconds on CLOCK_MONOTONIC. */
double ptx_native_wall(void);

#endif
