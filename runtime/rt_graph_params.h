/* Internal: the parameters of graph nodes, the runtime's structs as the driver's and back, for
 * adding nodes (rt_graph_nodes.c) and reading and changing them (rt_graph_set.c). Each refusal
 * is recorded with a sentence naming fn. */
#ifndef CUSHIM_RUNTIME_RT_GRAPH_PARAMS_H
#define CUSHIM_RUNTIME_RT_GRAPH_PARAMS_H

#include "runtime/rt.h"

/* p's host function (or cudaKernel_t) as the kernel loaded on the current device; the context
 * is current after it. cudaErrorInvalidDeviceFunction for a function nvcc did not register. */
cudaError_t cushim__rt_kernel_node_in(CUDA_KERNEL_NODE_PARAMS *k,
                                      const struct cudaKernelNodeParams *p, const char *fn);
/* k as the runtime gives it: the function is the host function the node was made from. */
void cushim__rt_kernel_node_out(struct cudaKernelNodeParams *p, const CUDA_KERNEL_NODE_PARAMS *k);

cudaError_t cushim__rt_memset_node_in(CUDA_MEMSET_NODE_PARAMS *m, const struct cudaMemsetParams *p,
                                      const char *fn);
void cushim__rt_memset_node_out(struct cudaMemsetParams *p, const CUDA_MEMSET_NODE_PARAMS *m);

/* A cudaMemcpy3DParms as cudaMemcpy3D reads it (the context current). */
cudaError_t cushim__rt_copy_node_in(CUDA_MEMCPY3D *c, const struct cudaMemcpy3DParms *p,
                                    const char *fn);
/* c as a cudaMemcpy3DParms of kind cudaMemcpyDefault, positions in elements of its array. */
void cushim__rt_copy_node_out(struct cudaMemcpy3DParms *p, const CUDA_MEMCPY3D *c);
/* A linear copy of count bytes. */
cudaError_t cushim__rt_copy_node_1d(CUDA_MEMCPY3D *c, void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind, const char *fn);
/* A copy to (to_symbol) or from a registered variable at offset, on the current device:
 * cudaErrorInvalidSymbol for an unregistered one, cudaErrorInvalidMemcpyDirection for a kind
 * that does not reach the device on the variable's side. */
cudaError_t cushim__rt_copy_node_symbol(CUDA_MEMCPY3D *c, bool to_symbol, void *ptr,
                                        const void *symbol, size_t count, size_t offset,
                                        enum cudaMemcpyKind kind, const char *fn);

#endif
