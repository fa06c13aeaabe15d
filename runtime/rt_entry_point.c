/* Driver entry points for the program (cudaGetDriverEntryPoint): the driver's own function for a
 * symbol, asked of the driver cushim loaded, at the runtime's version or the one given. */
#include "cudart_ptds.h"
#include "runtime/rt.h"

static cudaError_t entry_point(const char *symbol, void **funcPtr, int version,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status, bool pt,
                               const char *fn) {
    if (symbol == NULL || funcPtr == NULL) {
        return cushim__rt_fail(cudaErrorInvalidValue, "%s: symbol or funcPtr is NULL", fn);
    }
    *funcPtr = NULL;
    /* cudaEnableDefault, cudaEnableLegacyStream and cudaEnablePerThreadDefaultStream are the
     * bits of CU_GET_PROC_ADDRESS_*; the default of a _ptsz caller is its own mode. */
    if (flags == cudaEnableDefault)
        flags = pt ? cudaEnablePerThreadDefaultStream : cudaEnableLegacyStream;
    cushim_context *ctx;
    cudaError_t e = cushim__rt_context(&ctx, fn);
    if (e != cudaSuccess) return e;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = cushim__table.cuGetProcAddress(symbol, funcPtr, version, flags, &found);
    if (status != NULL) *status = (enum cudaDriverEntryPointQueryResult)found;
    /* A symbol the driver lacks, or lacks at this version, is success with funcPtr NULL, as
     * cuda_runtime_api.h documents; the status says which. */
    if (r == CUDA_ERROR_NOT_FOUND) return cudaSuccess;
    if (r != CUDA_SUCCESS) return cushim__rt_driver_failed(r, fn, "cuGetProcAddress");
    return cudaSuccess;
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
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus, false, __func__);
}

cudaError_t
cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                      unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult *driverStatus) {
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus, true, __func__);
}
