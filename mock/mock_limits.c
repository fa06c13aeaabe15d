/* A context's limits (cuCtxSetLimit, cuCtxGetLimit) and its heap for device-side malloc, whose
 * size is CU_LIMIT_MALLOC_HEAP_SIZE: made at the context's first PTX launch, kept (with what
 * kernels allocated in it) until the context ends. The other limits are kept and answered; the
 * interpreter's stack and printf do not depend on them. */
#include "mock.h"
#include "ptx.h"

/* The driver's defaults on a Hopper device. */
static const size_t defaults[] = {
    [CU_LIMIT_STACK_SIZE] = 1024,
    [CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20,
    [CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20,
    [CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2,
    [CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
    [CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64,
    [CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0,
};
#define SETTABLE (sizeof defaults / sizeof defaults[0])

static size_t limit_of(const struct CUctx_st *c, CUlimit l) {
    return c->limit_set[l] ? c->limit[l] : defaults[l];
}

mock_ptx_heap *mock__ctx_heap(struct CUctx_st *c) {
    if (c->heap == NULL) c->heap = mock__ptx_heap_new(limit_of(c, CU_LIMIT_MALLOC_HEAP_SIZE));
    return c->heap;
}

void mock__ctx_heap_free(struct CUctx_st *c) {
    mock__ptx_heap_delete(c->heap);
    c->heap = NULL;
}

CUresult CUDAAPI mock_cuCtxSetLimit(CUlimit limit, size_t value) {
    MOCK_ENTER(cuCtxSetLimit);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuCtxSetLimit", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if ((unsigned)limit >= SETTABLE) {
        mock__why("cuCtxSetLimit: limit %d cannot be set", (int)limit);
        return mock__leave((unsigned)limit < CU_LIMIT_MAX ? CUDA_ERROR_INVALID_VALUE
                                                          : CUDA_ERROR_UNSUPPORTED_LIMIT);
    }
    if (limit == CU_LIMIT_MAX_L2_FETCH_GRANULARITY && value > 128) {
        mock__why("cuCtxSetLimit: an L2 fetch granularity of %zu bytes, above 128", value);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (limit == CU_LIMIT_MALLOC_HEAP_SIZE && c->heap != NULL) {
        if (mock__ptx_heap_in_use(c->heap)) {
            mock__why("cuCtxSetLimit: the device malloc heap cannot change size while "
                      "allocations made in it by kernels are live");
            return mock__leave(CUDA_ERROR_INVALID_VALUE);
        }
        mock__ctx_heap_free(c); /* made again, of the new size, at the next launch */
    }
    c->limit[limit] = value;
    c->limit_set[limit] = true;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
    MOCK_ENTER(cuCtxGetLimit);
    if (pvalue == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuCtxGetLimit", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if ((unsigned)limit >= CU_LIMIT_MAX) return mock__leave(CUDA_ERROR_UNSUPPORTED_LIMIT);
    *pvalue = (unsigned)limit < SETTABLE ? limit_of(c, limit) : 0;
    return mock__leave(CUDA_SUCCESS);
}
