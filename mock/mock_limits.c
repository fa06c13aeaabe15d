/* A context's heap for device-side malloc, whose size is CU_LIMIT_MALLOC_HEAP_SIZE (kept with
 * the other limits by cuCtxSetLimit in mock_ctx_extra.c): made at the context's first PTX
 * launch, kept (with what kernels allocated in it) until the context ends. */
#include "mock.h"
#include "ptx.h"

mock_ptx_heap *mock__ctx_heap(struct CUctx_st *c) {
    if (c->heap == NULL) {
        size_t size = 0;
        mock__ctx_limit(c, CU_LIMIT_MALLOC_HEAP_SIZE, &size);
        c->heap = mock__ptx_heap_new(size);
    }
    return c->heap;
}

void mock__ctx_heap_free(struct CUctx_st *c) {
    mock__ptx_heap_delete(c->heap);
    c->heap = NULL;
}

bool mock__ctx_heap_resizable(struct CUctx_st *c) {
    if (c->heap == NULL) return true;
    if (mock__ptx_heap_in_use(c->heap)) return false;
    mock__ctx_heap_free(c); /* made again, of the new size, at the next launch */
    return true;
}
