/* What programs ask the runtime for beside its own API: the driver's entry points (answered by
 * the driver's cuGetProcAddress through cushim's table) and interprocess handles (the
 * driver's).
 * cudaGetExportTable stays the generated stub: cushim's runtime serves documented interfaces
 * only, and an export table is the driver's private one. */
#include <string.h>

#include "cudart_ptds.h"
#include "runtime/rt_forward.h"

_Static_assert((int)cudaEnableLegacyStream == (int)CU_GET_PROC_ADDRESS_LEGACY_STREAM &&
                   (int)cudaEnablePerThreadDefaultStream ==
                       (int)CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
               "entry point flags");
_Static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle) &&
                   sizeof(cudaIpcEventHandle_t) == sizeof(CUipcEventHandle),
               "interprocess handles");

static cudaError_t entry_point(const char *symbol, void **fn_out, unsigned version,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status, bool pt,
                               const char *fn) {
    CUSHIM__RT_NONNULL(fn, symbol);
    CUSHIM__RT_NONNULL(fn, fn_out);
    *fn_out = NULL;
    const unsigned long long known = cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream;
    if ((flags & ~known) != 0) {
        return cushim__rt_fail(cudaErrorInvalidValue,
                               "%s: flags 0x%llx: the flags are cudaEnableDefault, "
                               "cudaEnableLegacyStream and cudaEnablePerThreadDefaultStream",
                               fn, flags);
    }
    /* cudaEnableDefault is the caller's default-stream mode. */
    if (flags == cudaEnableDefault) {
        flags =
            pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
    }
    cudaError_t e = cushim__rt_ready(fn);
    if (e != cudaSuccess) return e;
    CUdriverProcAddressQueryResult got = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = cushim__table.cuGetProcAddress(symbol, fn_out, (int)version, flags, &got);
    if (status != NULL) *status = (enum cudaDriverEntryPointQueryResult)got;
    /* A symbol the driver lacks is an answer in the status, with success, as NVIDIA's. */
    if (r == CUDA_ERROR_NOT_FOUND && status != NULL) return cudaSuccess;
    return cushim__rt_checked(r, fn, "cuGetProcAddress");
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus) {
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus, false, __func__);
}

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                         unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus) {
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus, true, __func__);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                             unsigned int cudaVersion, unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus) {
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus, false, __func__);
}

cudaError_t
cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                      unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult *driverStatus) {
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus, true, __func__);
}

/* ------------------------------------------------------------------------------------------ */
/* Interprocess handles                                                                       */
/* ------------------------------------------------------------------------------------------ */

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event) {
    CUSHIM__RT_NONNULL(__func__, handle);
    CUSHIM__RT_FORWARD(
        __func__, "cuIpcGetEventHandle",
        cushim__table.cuIpcGetEventHandle((CUipcEventHandle *)handle, (CUevent)event));
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle) {
    CUSHIM__RT_NONNULL(__func__, event);
    CUipcEventHandle h;
    memcpy(&h, &handle, sizeof h);
    CUSHIM__RT_FORWARD(__func__, "cuIpcOpenEventHandle",
                       cushim__table.cuIpcOpenEventHandle((CUevent *)event, h));
}

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr) {
    CUSHIM__RT_NONNULL(__func__, handle);
    CUSHIM__RT_FORWARD(
        __func__, "cuIpcGetMemHandle",
        cushim__table.cuIpcGetMemHandle((CUipcMemHandle *)handle, (CUdeviceptr)(uintptr_t)devPtr));
}

cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags) {
    CUSHIM__RT_NONNULL(__func__, devPtr);
    CUipcMemHandle h;
    memcpy(&h, &handle, sizeof h);
    /* cudaIpcMemLazyEnablePeerAccess is CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS. */
    CUSHIM__RT_FORWARD(__func__, "cuIpcOpenMemHandle",
                       cushim__table.cuIpcOpenMemHandle((CUdeviceptr *)devPtr, h, flags));
}

cudaError_t cudaIpcCloseMemHandle(void *devPtr) {
    CUSHIM__RT_FORWARD(__func__, "cuIpcCloseMemHandle",
                       cushim__table.cuIpcCloseMemHandle((CUdeviceptr)(uintptr_t)devPtr));
}
