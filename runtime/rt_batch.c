/* Batches (CUDA 12.8 and later): copies, 3D copies, prefetches and discards of many ranges in
 * one call, each one driver call. The runtime's descriptions have the driver's layouts (checked
 * below; an array of a 3D operand is the driver's CUarray, as everywhere in this runtime), and a
 * pointer of an array of pointers is a CUdeviceptr of the same size. */
#include <stddef.h>
#include <stdint.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"

_Static_assert(sizeof(void *) == sizeof(CUdeviceptr), "a pointer is a CUdeviceptr");
_Static_assert(sizeof(struct cudaMemcpyAttributes) == sizeof(CUmemcpyAttributes) &&
                   offsetof(struct cudaMemcpyAttributes, flags) ==
                       offsetof(CUmemcpyAttributes, flags),
               "copy attributes");
_Static_assert(
    sizeof(struct cudaMemcpy3DBatchOp) == sizeof(CUDA_MEMCPY3D_BATCH_OP) &&
        offsetof(struct cudaMemcpy3DBatchOp, dst) == offsetof(CUDA_MEMCPY3D_BATCH_OP, dst) &&
        offsetof(struct cudaMemcpy3DBatchOp, extent) == offsetof(CUDA_MEMCPY3D_BATCH_OP, extent) &&
        offsetof(struct cudaMemcpy3DBatchOp, flags) == offsetof(CUDA_MEMCPY3D_BATCH_OP, flags),
    "3D batch operations");
_Static_assert(sizeof(struct cudaMemcpy3DOperand) == sizeof(CUmemcpy3DOperand) &&
                   offsetof(struct cudaMemcpy3DOperand, op.ptr.locHint) ==
                       offsetof(CUmemcpy3DOperand, op.ptr.locHint) &&
                   offsetof(struct cudaMemcpy3DOperand, op.array.offset) ==
                       offsetof(CUmemcpy3DOperand, op.array.offset),
               "3D operands");
_Static_assert((int)cudaMemcpyOperandTypeArray == (int)CU_MEMCPY_OPERAND_TYPE_ARRAY &&
                   (int)cudaMemcpySrcAccessOrderAny == (int)CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
               "operand types and access orders");

/* The arrays of a batch: present when count says there are elements. */
static cudaError_t arrays(size_t count, const void *a, const void *b, const char *fn) {
    if (count > 0 && (a == NULL || b == NULL)) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: %zu ranges but no array of them", fn,
                               count);
    }
    return cudaSuccess;
}

static cudaError_t copy_batch(void *const *dsts, const void *const *srcs, const size_t *sizes,
                              size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                              size_t numAttrs, cudaStream_t stream, bool pt, const char *fn) {
    cudaError_t e = arrays(count, dsts, srcs, fn);
    if (e == cudaSuccess) e = arrays(count, sizes, sizes, fn);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(fn, "cuMemcpyBatchAsync",
                       cushim__rt_table(pt)->cuMemcpyBatchAsync(
                           (CUdeviceptr *)dsts, (CUdeviceptr *)srcs, (size_t *)sizes, count,
                           (CUmemcpyAttributes *)attrs, attrsIdxs, numAttrs,
                           cushim__rt_stream(stream, pt)));
}

cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                 size_t count, struct cudaMemcpyAttributes *attrs,
                                 size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream) {
    return copy_batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, false,
                      __func__);
}

cudaError_t cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs,
                                      const size_t *sizes, size_t count,
                                      struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                      size_t numAttrs, cudaStream_t stream) {
    return copy_batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, true, __func__);
}

static cudaError_t copy3d_batch(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                unsigned long long flags, cudaStream_t stream, bool pt,
                                const char *fn) {
    cudaError_t e = arrays(numOps, opList, opList, fn);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(
        fn, "cuMemcpy3DBatchAsync",
        cushim__rt_table(pt)->cuMemcpy3DBatchAsync(numOps, (CUDA_MEMCPY3D_BATCH_OP *)opList, flags,
                                                   cushim__rt_stream(stream, pt)));
}

cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                   unsigned long long flags, cudaStream_t stream) {
    return copy3d_batch(numOps, opList, flags, stream, false, __func__);
}

cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                        unsigned long long flags, cudaStream_t stream) {
    return copy3d_batch(numOps, opList, flags, stream, true, __func__);
}

/* Prefetches (with locations), discards (without), or both, of count ranges. */
typedef enum { PREFETCH, DISCARD, DISCARD_PREFETCH } batch_op;

static cudaError_t hint_batch(batch_op op, void **dptrs, size_t *sizes, size_t count,
                              struct cudaMemLocation *locs, size_t *locIdxs, size_t numLocs,
                              unsigned long long flags, cudaStream_t stream, bool pt,
                              const char *fn) {
    cudaError_t e = arrays(count, dptrs, sizes, fn);
    if (e == cudaSuccess && op != DISCARD) e = arrays(numLocs, locs, locIdxs, fn);
    if (e != cudaSuccess) return e;
    e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    const cushim_driver_table *t = cushim__rt_table(pt);
    CUdeviceptr *p = (CUdeviceptr *)dptrs;
    CUmemLocation *l = (CUmemLocation *)locs;
    CUstream s = cushim__rt_stream(stream, pt);
    switch (op) {
    case PREFETCH:
        return cushim__rt_checked(
            t->cuMemPrefetchBatchAsync(p, sizes, count, l, locIdxs, numLocs, flags, s), fn,
            "cuMemPrefetchBatchAsync");
    case DISCARD:
        return cushim__rt_checked(t->cuMemDiscardBatchAsync(p, sizes, count, flags, s), fn,
                                  "cuMemDiscardBatchAsync");
    default:
        return cushim__rt_checked(
            t->cuMemDiscardAndPrefetchBatchAsync(p, sizes, count, l, locIdxs, numLocs, flags, s),
            fn, "cuMemDiscardAndPrefetchBatchAsync");
    }
}

cudaError_t cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                      struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                      size_t numPrefetchLocs, unsigned long long flags,
                                      cudaStream_t stream) {
    return hint_batch(PREFETCH, dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs,
                      flags, stream, false, __func__);
}

cudaError_t cudaMemPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
                                           struct cudaMemLocation *prefetchLocs,
                                           size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                           unsigned long long flags, cudaStream_t stream) {
    return hint_batch(PREFETCH, dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs,
                      flags, stream, true, __func__);
}

cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                     unsigned long long flags, cudaStream_t stream) {
    return hint_batch(DISCARD, dptrs, sizes, count, NULL, NULL, 0, flags, stream, false, __func__);
}

cudaError_t cudaMemDiscardBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
                                          unsigned long long flags, cudaStream_t stream) {
    return hint_batch(DISCARD, dptrs, sizes, count, NULL, NULL, 0, flags, stream, true, __func__);
}

cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                struct cudaMemLocation *prefetchLocs,
                                                size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                                unsigned long long flags, cudaStream_t stream) {
    return hint_batch(DISCARD_PREFETCH, dptrs, sizes, count, prefetchLocs, prefetchLocIdxs,
                      numPrefetchLocs, flags, stream, false, __func__);
}

cudaError_t cudaMemDiscardAndPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
                                                     struct cudaMemLocation *prefetchLocs,
                                                     size_t *prefetchLocIdxs,
                                                     size_t numPrefetchLocs,
                                                     unsigned long long flags,
                                                     cudaStream_t stream) {
    return hint_batch(DISCARD_PREFETCH, dptrs, sizes, count, prefetchLocs, prefetchLocIdxs,
                      numPrefetchLocs, flags, stream, true, __func__);
}
