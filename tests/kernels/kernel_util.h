/* Shared by the kernel suite's tests: one context for the process, the suite's kernels loaded from
 * PTX (or fatbins), device memory through the raw table, and the float comparisons that the CPU
 * references need. The same program runs on the mock (unit suite) and on a GPU (gpu suite). */
#ifndef CUSHIM_KERNEL_UTIL_H
#define CUSHIM_KERNEL_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cushim.h"
#include "assert_cu.h"

/* The function `entry` of the suite's module `name` (cu/NAME.cu), loaded once per test; the
 * module is released by kernel_unload(). */
const cushim_function *kernel_get(const char *name, const char *entry);
void kernel_unload(void);

/* Runs f on grid x block with `shared` bytes of dynamic shared memory, and waits for it. */
void kernel_run(const cushim_function *f, cushim_dim3 grid, cushim_dim3 block, unsigned shared,
                void **params);

/* Device memory: zeroed, or holding a copy of `bytes` of host data. */
CUdeviceptr dev_zeroed(size_t bytes);
CUdeviceptr dev_copy(const void *host, size_t bytes);
/* Copies device memory back into `host` and frees it. */
void dev_take(void *host, CUdeviceptr p, size_t bytes);
/* A host buffer of `bytes`, failing the test when there is none. */
void *host_alloc(size_t bytes);

/* A deterministic generator: the same inputs on every run and every machine. */
uint32_t rng_next(uint32_t *state);
float rng_float(uint32_t *state, float lo, float hi);

/* How far apart two floats are, in units in the last place (0 when equal, huge across signs). */
uint32_t ulp_distance(float a, float b);
uint64_t ulp_distance_d(double a, double b);

/* Counts wrong elements, printing the first few as a TAP comment; the test asserts the count. */
typedef struct mismatch {
    const char *what;
    unsigned wrong;
} mismatch;
void mismatch_u32(mismatch *m, size_t i, uint32_t got, uint32_t want);
void mismatch_f32(mismatch *m, size_t i, float got, float want, double tolerance);
void mismatch_ulp(mismatch *m, size_t i, float got, float want, uint32_t max_ulp);

/* The kernels' tests (kernels_int.c, kernels_sync.c, kernels_float.c). */
void kernel_saxpy(void **state);
void kernel_reduce(void **state);
void kernel_histogram(void **state);
void kernel_transpose(void **state);
void kernel_bits(void **state);
void kernel_dp(void **state);
void kernel_divergent(void **state);
void kernel_local_array(void **state);
void kernel_votes(void **state);
void kernel_shuffle(void **state);
void kernel_dynshared(void **state);
void kernel_atomic_cas(void **state);
void kernel_grid3d(void **state);
void kernel_struct_param(void **state);
void kernel_fastmath(void **state);
void kernel_printf(void **state);
void kernel_noinline(void **state);
void kernel_atomic64(void **state);
void kernel_gridstride(void **state);
void kernel_matmul(void **state);
void kernel_texture(void **state);
void kernel_half(void **state);
void kernel_rounding(void **state);
void kernel_tensor(void **state);
void kernel_calls(void **state);

#endif
