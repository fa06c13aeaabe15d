/* ptx-bench's native rows (ptx-native.h): what the interpreter's kernels compute, as a C compiler
 * writes it for this CPU, the limit an interpreter on it can approach. */
#include "ptx-native.h"

#include <math.h>

void ptx_native_saxpy(int n, float a, const float *x, float *y) {
    for (int i = 0; i < n; i++) y[i] = fmaf(a, x[i], y[i]);
}

void ptx_native_matmul(const float *a, const float *b, float *c, int m, int n, int k) {
    for (int row = 0; row < m; row++) {
        for (int col = 0; col < n; col++) {
            float sum = 0.0f;
            for (int j = 0; j < k; j++) sum = fmaf(a[row * k + j], b[j * n + col], sum);
            c[row * n + col] = sum;
        }
    }
}

int ptx_native_reduce(const int *in, int n) {
    unsigned total = 0; /* wraps as the kernel's atomicAdd does */
    for (int base = 0; base < n; base += 256) {
        unsigned block = 0;
        for (int i = base; i < base + 256 && i < n; i++) block += (unsigned)in[i];
        total += block;
    }
    return (int)total;
}
