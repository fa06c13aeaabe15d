/* Stream capture: a stream's work recorded into a graph instead of run, in both default-stream
 * modes. The runtime's capture modes and statuses have the driver's numbers; the launches,
 * copies and records made during a capture go through the runtime's usual paths, and the
 * driver records them. */
#include "cudart_ptds.h"
#include "runtime/rt_forward.h"

static cudaError_t check_mode(enum cudaStreamCaptureMode mode, const char *fn) {
    if ((unsigned)mode > (unsigned)cudaStreamCaptureModeRelaxed) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: mode %d is not a cudaStreamCaptureMode (Global, ThreadLocal, "
                               "Relaxed)",
                               fn, (int)mode);
    }
    return cudaSuccess;
}

static cudaError_t begin(cudaStream_t stream, enum cudaStreamCaptureMode mode, bool pt,
                         const char *fn) {
    cudaError_t e = check_mode(mode, fn);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(fn, "cuStreamBeginCapture",
                       cushim__rt_table(pt)->cuStreamBeginCapture(cushim__rt_stream(stream, pt),
                                                                  (CUstreamCaptureMode)mode));
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    return begin(stream, mode, false, __func__);
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    return begin(stream, mode, true, __func__);
}

static cudaError_t begin_to_graph(cudaStream_t stream, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, const cudaGraphEdgeData *data,
                                  size_t n, enum cudaStreamCaptureMode mode, bool pt,
                                  const char *fn) {
    cudaError_t e = check_mode(mode, fn);
    if (e != cudaSuccess) return e;
    if (n > 0 && deps == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: dependencies is NULL with %zu of them",
                               fn, n);
    }
    CUSHIM__RT_FORWARD(fn, "cuStreamBeginCaptureToGraph",
                       cushim__rt_table(pt)->cuStreamBeginCaptureToGraph(
                           cushim__rt_stream(stream, pt), (CUgraph)graph, (const CUgraphNode *)deps,
                           (const CUgraphEdgeData *)data, n, (CUstreamCaptureMode)mode));
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t *dependencies,
                                          const cudaGraphEdgeData *dependencyData,
                                          size_t numDependencies, enum cudaStreamCaptureMode mode) {
    return begin_to_graph(stream, graph, dependencies, dependencyData, numDependencies, mode, false,
                          __func__);
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t *dependencies,
                                               const cudaGraphEdgeData *dependencyData,
                                               size_t numDependencies,
                                               enum cudaStreamCaptureMode mode) {
    return begin_to_graph(stream, graph, dependencies, dependencyData, numDependencies, mode, true,
                          __func__);
}

static cudaError_t end(cudaStream_t stream, cudaGraph_t *graph, bool pt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, graph);
    CUSHIM__RT_FORWARD(
        fn, "cuStreamEndCapture",
        cushim__rt_table(pt)->cuStreamEndCapture(cushim__rt_stream(stream, pt), (CUgraph *)graph));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    return end(stream, pGraph, false, __func__);
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) {
    return end(stream, pGraph, true, __func__);
}

static cudaError_t is_capturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status, bool pt,
                                const char *fn) {
    CUSHIM__RT_NONNULL(fn, status);
    CUSHIM__RT_FORWARD(fn, "cuStreamIsCapturing",
                       cushim__rt_table(pt)->cuStreamIsCapturing(cushim__rt_stream(stream, pt),
                                                                 (CUstreamCaptureStatus *)status));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pStatus) {
    return is_capturing(stream, pStatus, false, __func__);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pStatus) {
    return is_capturing(stream, pStatus, true, __func__);
}

static cudaError_t capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                unsigned long long *id, cudaGraph_t *graph,
                                const cudaGraphNode_t **deps, const cudaGraphEdgeData **data,
                                size_t *n, bool pt, const char *fn) {
    CUSHIM__RT_NONNULL(fn, status);
    CUSHIM__RT_FORWARD(fn, "cuStreamGetCaptureInfo",
                       cushim__rt_table(pt)->cuStreamGetCaptureInfo(
                           cushim__rt_stream(stream, pt), (CUstreamCaptureStatus *)status,
                           (cuuint64_t *)id, (CUgraph *)graph, (const CUgraphNode **)deps,
                           (const CUgraphEdgeData **)data, n));
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out) {
    return capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out, false, __func__);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                          enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out,
                                          size_t *numDependencies_out) {
    return capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out, true, __func__);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
    CUSHIM__RT_NONNULL(__func__, mode);
    cudaError_t e = check_mode(*mode, __func__);
    if (e != cudaSuccess) return e;
    CUSHIM__RT_FORWARD(
        __func__, "cuThreadExchangeStreamCaptureMode",
        cushim__table.cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
}

static cudaError_t update_deps(cudaStream_t stream, cudaGraphNode_t *deps,
                               const cudaGraphEdgeData *data, size_t n, unsigned flags, bool pt,
                               const char *fn) {
    if (n > 0 && deps == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: dependencies is NULL with %zu of them",
                               fn, n);
    }
    if (flags > cudaStreamSetCaptureDependencies) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: flags %u: cudaStreamAddCaptureDependencies or "
                               "cudaStreamSetCaptureDependencies",
                               fn, flags);
    }
    /* The flags have the numbers of CU_STREAM_ADD/SET_CAPTURE_DEPENDENCIES. */
    CUSHIM__RT_FORWARD(fn, "cuStreamUpdateCaptureDependencies",
                       cushim__rt_table(pt)->cuStreamUpdateCaptureDependencies(
                           cushim__rt_stream(stream, pt), (CUgraphNode *)deps,
                           (const CUgraphEdgeData *)data, n, flags));
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                const cudaGraphEdgeData *dependencyData,
                                                size_t numDependencies, unsigned int flags) {
    return update_deps(stream, dependencies, dependencyData, numDependencies, flags, false,
                       __func__);
}

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                     cudaGraphNode_t *dependencies,
                                                     const cudaGraphEdgeData *dependencyData,
                                                     size_t numDependencies, unsigned int flags) {
    return update_deps(stream, dependencies, dependencyData, numDependencies, flags, true,
                       __func__);
}
