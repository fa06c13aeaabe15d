/* Interprocess handles: the driver's, for events and memory; the runtime's handle types have
 * the driver's layout. (cudaGetExportTable stays the generated stub: cushim's runtime serves
 * documented interfaces only, and an export table is the driver's private one.) */
#include <string.h>

#include "runtime/rt_forward.h"

_Static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle) &&
                   sizeof(cudaIpcEventHandle_t) == sizeof(CUipcEventHandle),
               "interprocess handles");

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
