/* ptx-bench's native rows (ptx-native.h): what the interpreter's kernels compute, as a C compiler
 * writes it for this CPU, the limit an interpreter on it can approach; and the same blocks over
 * host threads, the limit of its scaling on this machine. */
#include "ptx-native.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

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

float *ptx_native_floats(size_t n) {
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; p != NULL && i < n; i++) p[i] = (float)(i % 7) * 0.25f;
    return p;
}

int *ptx_native_ints(size_t n) {
    int *p = malloc(n * sizeof *p);
    for (size_t i = 0; p != NULL && i < n; i++) p[i] = (int)(i % 7);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* The grid over host threads                                                                 */
/* ------------------------------------------------------------------------------------------ */

static long blocks_of(const ptx_native_grid *g) {
    return g->kernel == PTX_NATIVE_MATMUL ? (long)(g->dim / 16) * (g->dim / 16) : g->n / 256;
}

/* Block i of the grid, as the kernel's block i computes it. */
static void run_block(ptx_native_grid *g, long i) {
    if (g->kernel == PTX_NATIVE_SAXPY) {
        ptx_native_saxpy(256, g->a, g->x + i * 256, g->y + i * 256);
    } else if (g->kernel == PTX_NATIVE_ALU) {
        unsigned sum = 0;
        for (unsigned j = 0; j < 256; j++) {
            unsigned v = (unsigned)i * 256u + j;
            for (unsigned s = 0; s < 64; s++) v = (v ^ (v >> 15)) * 0x2c1b3c6du + s;
            sum += v;
        }
        __atomic_fetch_add(&g->total, sum, __ATOMIC_RELAXED);
    } else if (g->kernel == PTX_NATIVE_ROWS) {
        unsigned r[8][256], sum = 0;
        for (unsigned k = 0; k < 8; k++)
            for (unsigned j = 0; j < 256; j++) r[k][j] = (unsigned)i * 256u + j + k;
        for (unsigned s = 0; s < 64; s++) {
            const unsigned *a = r[s & 7], *b = r[(s + 1) & 7];
            unsigned *d = r[(s + 2) & 7];
            for (unsigned j = 0; j < 256; j++) d[j] = (a[j] ^ (b[j] >> 3)) + s;
        }
        for (unsigned j = 0; j < 256; j++) sum += r[1][j];
        __atomic_fetch_add(&g->total, sum, __ATOMIC_RELAXED);
    } else if (g->kernel == PTX_NATIVE_REDUCE) {
        unsigned sum = 0;
        for (int j = 0; j < 256; j++) sum += (unsigned)g->in[i * 256 + j];
        __atomic_fetch_add(&g->total, sum, __ATOMIC_RELAXED); /* the kernel's atomicAdd */
    } else {
        int tiles = g->dim / 16, row0 = (int)(i / tiles) * 16, col0 = (int)(i % tiles) * 16;
        for (int row = row0; row < row0 + 16; row++) {
            for (int col = col0; col < col0 + 16; col++) {
                float sum = 0.0f;
                for (int j = 0; j < g->dim; j++)
                    sum = fmaf(g->ma[row * g->dim + j], g->mb[j * g->dim + col], sum);
                g->c[row * g->dim + col] = sum;
            }
        }
    }
}

typedef struct share {
    ptx_native_grid *g;
    long first, end; /* its blocks */
    const int *stop;
    long runs; /* whole shares run */
    pthread_t th;
} share;

static void *run_share(void *arg) {
    share *s = arg;
    do {
        for (long i = s->first; i < s->end; i++) run_block(s->g, i);
        s->runs++;
    } while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED));
    return NULL;
}

double ptx_native_wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double ptx_native_grid_time(ptx_native_grid *g, int threads, double seconds) {
    long nblocks = blocks_of(g);
    if (threads < 1 || nblocks < 1) return 0;
    if (threads > nblocks) threads = (int)nblocks;
    share *s = calloc((size_t)threads, sizeof *s);
    if (s == NULL) return 0;
    int stop = 0, made = 0;
    double start = ptx_native_wall();
    for (; made < threads; made++) {
        s[made] = (share){.g = g,
                          .first = nblocks * made / threads,
                          .end = nblocks * (made + 1) / threads,
                          .stop = &stop};
        if (pthread_create(&s[made].th, NULL, run_share, &s[made]) != 0) break;
    }
    struct timespec nap = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&nap, NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    double blocks = 0;
    for (int t = 0; t < made; t++) {
        pthread_join(s[t].th, NULL);
        blocks += (double)s[t].runs * (double)(s[t].end - s[t].first);
    }
    double elapsed = ptx_native_wall() - start;
    free(s);
    return made == threads && blocks > 0 ? elapsed / (blocks / (double)nblocks) : 0;
}
