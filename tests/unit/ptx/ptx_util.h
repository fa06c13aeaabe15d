/* Shared by the interpreter's tests: PTX run straight through mock/ptx/ptx.h (no driver), over
 * buffers a small table says are allocations. */
#ifndef CUSHIM_PTX_UTIL_H
#define CUSHIM_PTX_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptx.h"

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

static struct { uintptr_t lo, hi; } allocs[16];
static int nallocs;

static void *dev_alloc(size_t n) {
    void *p = calloc(1, n);
    assert_non_null(p);
    allocs[nallocs].lo = (uintptr_t)p;
    allocs[nallocs++].hi = (uintptr_t)p + n;
    return p;
}

static void dev_free_all(void) {
    for (int i = 0; i < nallocs; i++) free((void *)allocs[i].lo);
    nallocs = 0;
}

static bool check(void *ctx, uintptr_t a, size_t n, uintptr_t *lo, uintptr_t *hi, char *why,
                  size_t len) {
    (void)ctx;
    for (int i = 0; i < nallocs; i++) {
        if (a >= allocs[i].lo && a + n <= allocs[i].hi) {
            *lo = allocs[i].lo;
            *hi = allocs[i].hi;
            return true;
        }
    }
    for (int i = 0; i < nallocs; i++) {
        if (a >= allocs[i].lo && a < allocs[i].hi + 4096) {
            snprintf(why, len, "past the end of the %zu-byte allocation",
                     (size_t)(allocs[i].hi - allocs[i].lo));
            return false;
        }
    }
    snprintf(why, len, "no allocation");
    return false;
}

static char err[1024];
/* Device malloc's heap for the launches, NULL for none (malloc returns NULL). */
static mock_ptx_heap *test_heap;

/* Parses `text` and runs `kernel` over grid x block (x only) with the given parameters. */
static CUresult run_ex(const char *text, const char *kernel, unsigned grid, unsigned block,
                       void **params, int host_threads, bool coop, FILE *out) {
    mock_ptx_module *m = NULL;
    CUresult r = mock__ptx_parse(&m, text, strlen(text), err, sizeof err);
    if (r != CUDA_SUCCESS) return r;
    const mock_ptx_kernel *k = mock__ptx_kernel(m, kernel);
    assert_non_null(k);
    mock_ptx_launch l = {.grid = {grid, 1, 1},
                         .block = {block, 1, 1},
                         .params = params,
                         .host_threads = host_threads,
                         .cooperative = coop,
                         .sm_count = 132,
                         .check = check,
                         .out = out,
                         .heap = test_heap};
    r = mock__ptx_run(k, &l, err, sizeof err);
    mock__ptx_free(m);
    return r;
}

static CUresult run(const char *text, const char *kernel, unsigned grid, unsigned block,
                    void **params) {
    return run_ex(text, kernel, grid, block, params, 0, false, NULL);
}

#define assert_ok(x) assert_int_equal((x), CUDA_SUCCESS)
#define assert_has(text, part)                                                                     \
    do {                                                                                           \
        if (strstr((text), (part)) == NULL) fail_msg("'%s' does not say '%s'", (text), (part));    \
    } while (0)

#endif
