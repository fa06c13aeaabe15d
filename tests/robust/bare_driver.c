/* A hand-written driver library with only the loader's entry points, for the statuses the mock
 * cannot play because a symbol is missing:
 *   -DBARE_NO_VERSION  cuInit and cuGetProcAddress_v2, no cuDriverGetVersion
 *   -DBARE_NO_PROC     cuInit and cuDriverGetVersion (13000), no cuGetProcAddress
 * cuInit returns CUSHIM_BARE_INIT_RESULT (a number) when set, else CUDA_SUCCESS. */
#include <cuda.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult CUDAAPI cuInit(unsigned int flags) {
    (void)flags;
    const char *r = getenv("CUSHIM_BARE_INIT_RESULT");
    return r ? (CUresult)atoi(r) : CUDA_SUCCESS;
}

#ifndef BARE_NO_VERSION
EXPORT CUresult CUDAAPI cuDriverGetVersion(int *version) {
    *version = 13000;
    return CUDA_SUCCESS;
}
#endif

#ifndef BARE_NO_PROC
EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult *status) {
    (void)symbol, (void)version, (void)flags;
    *pfn = NULL;
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}
#endif
