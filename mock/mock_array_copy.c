/* The 1D copies to and from 1D CUDA arrays (cuMemcpyHtoA, AtoH, DtoA, AtoD, AtoA and the async
 * forms): byte offsets into the array's storage (mock_array.c), in stream order. */
#include "mock_array.h"

/* [offset, offset + n) of a live array, as a host address. */
static CUresult array_bytes(CUarray h, size_t offset, size_t n, unsigned char **p) {
    struct CUarray_st *a = mock__array(h);
    if (a == NULL) return CUDA_ERROR_INVALID_HANDLE;
    if (a->desc.Height != 0 || a->desc.Depth != 0) {
        /* The driver's documentation: these copies take a 1D CUDA array; the H200 answers
         * CUDA_ERROR_INVALID_VALUE to cuMemcpyHtoA into a 2D one. */
        mock__why("%s copies to or from a 1D array, and this one is %zux%zux%zu: copy with "
                  "cuMemcpy2D or cuMemcpy3D",
                  mock__entry_name(), a->desc.Width, a->desc.Height, a->desc.Depth);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (offset > a->bytes || n > a->bytes - offset) {
        mock__why("%zu bytes at offset %zu of an array of %zu bytes", n, offset, a->bytes);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *p = a->data + offset;
    return CUDA_SUCCESS;
}

/* One end of a 1D copy: host memory, device memory, or a byte offset into a 1D array. */
typedef enum { END_HOST, END_DEVICE, END_ARRAY } end_kind;
typedef struct copy_end {
    end_kind kind;
    uintptr_t p; /* the host or device address */
    CUarray array;
    size_t offset;
} copy_end;

static copy_end host_end(const void *p) { return (copy_end){.kind = END_HOST, .p = (uintptr_t)p}; }
static copy_end device_end(CUdeviceptr d) { return (copy_end){.kind = END_DEVICE, .p = d}; }
static copy_end array_end(CUarray a, size_t offset) {
    return (copy_end){.kind = END_ARRAY, .array = a, .offset = offset};
}

/* An end as a host address: an array's bytes as array_bytes checks them, a device pointer
 * refused when 0 or outside a live allocation, host memory as given. */
static CUresult end_bytes(const copy_end *e, size_t n, unsigned char **p) {
    if (e->kind == END_ARRAY) return array_bytes(e->array, e->offset, n, p);
    *p = (unsigned char *)e->p;
    if (e->kind == END_HOST) return CUDA_SUCCESS;
    if (e->p == 0) return CUDA_ERROR_INVALID_VALUE;
    return mock__check_device("device pointer", e->p, n);
}

/* The copy in stream order: a synchronous one on the current context's default stream. */
static CUresult copy(CUstream hs, bool async, unsigned char *dst, const unsigned char *src,
                     size_t n) {
    struct CUstream_st *s;
    struct CUctx_st *c;
    CUresult r = async ? mock__stream(hs, mock__entry_name(), &s)
                       : mock__need_current(mock__entry_name(), &c);
    if (r != CUDA_SUCCESS) return r;
    if (!async) s = &c->default_stream;
    if (n == 0) return CUDA_SUCCESS;
    if (dst == NULL || src == NULL) return CUDA_ERROR_INVALID_VALUE;
    mock_mem_op op = {.kind = MOCK_OP_COPY,
                      .entry = mock__entry_name(),
                      .dst = dst,
                      .src = src,
                      .dpitch = n,
                      .spitch = n,
                      .width = n,
                      .height = 1};
    return mock__mem_enqueue(s, &op, !async);
}

/* What every 1D copy entry does: the ends checked, arrays first (the destination's, then the
 * source's), then a device pointer; then the stream or the current context, then the copy. */
static CUresult copy_1d(CUstream hs, bool async, copy_end dst, copy_end src, size_t n) {
    const copy_end *ends[2] = {&dst, &src};
    unsigned char *p[2] = {NULL, NULL}; /* every kind is in order[]: each end is set */
    static const end_kind order[] = {END_ARRAY, END_DEVICE, END_HOST};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        for (int i = 0; i < 2; i++) {
            if (ends[i]->kind != order[k]) continue;
            CUresult r = end_bytes(ends[i], n, &p[i]);
            if (r != CUDA_SUCCESS) return r;
        }
    }
    return copy(hs, async, p[0], p[1], n);
}

CUresult CUDAAPI mock_cuMemcpyHtoA(CUarray dst, size_t off, const void *src, size_t n) {
    MOCK_ENTER(cuMemcpyHtoA);
    return mock__leave(copy_1d(NULL, false, array_end(dst, off), host_end(src), n));
}

CUresult CUDAAPI mock_cuMemcpyHtoAAsync(CUarray dst, size_t off, const void *src, size_t n,
                                        CUstream hs) {
    MOCK_ENTER(cuMemcpyHtoAAsync);
    return mock__leave(copy_1d(hs, true, array_end(dst, off), host_end(src), n));
}

CUresult CUDAAPI mock_cuMemcpyAtoH(void *dst, CUarray src, size_t off, size_t n) {
    MOCK_ENTER(cuMemcpyAtoH);
    return mock__leave(copy_1d(NULL, false, host_end(dst), array_end(src, off), n));
}

CUresult CUDAAPI mock_cuMemcpyAtoHAsync(void *dst, CUarray src, size_t off, size_t n, CUstream hs) {
    MOCK_ENTER(cuMemcpyAtoHAsync);
    return mock__leave(copy_1d(hs, true, host_end(dst), array_end(src, off), n));
}

CUresult CUDAAPI mock_cuMemcpyAtoD(CUdeviceptr dst, CUarray src, size_t off, size_t n) {
    MOCK_ENTER(cuMemcpyAtoD);
    return mock__leave(copy_1d(NULL, false, device_end(dst), array_end(src, off), n));
}

CUresult CUDAAPI mock_cuMemcpyDtoA(CUarray dst, size_t off, CUdeviceptr src, size_t n) {
    MOCK_ENTER(cuMemcpyDtoA);
    return mock__leave(copy_1d(NULL, false, array_end(dst, off), device_end(src), n));
}

CUresult CUDAAPI mock_cuMemcpyAtoA(CUarray dst, size_t doff, CUarray src, size_t soff, size_t n) {
    MOCK_ENTER(cuMemcpyAtoA);
    return mock__leave(copy_1d(NULL, false, array_end(dst, doff), array_end(src, soff), n));
}
