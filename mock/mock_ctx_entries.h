/* Internal to the mock driver: the rows of the entry table for context limits and caches, device
 * queries, function loading, the deprecated launch by parameter setters, graph memory and stream
 * attributes. Same columns as MOCK_ENTRIES in mock.h, which appends this list to its own. */
#ifndef CUSHIM_MOCK_CTX_ENTRIES_H
#define CUSHIM_MOCK_CTX_ENTRIES_H

#define MOCK_CTX_ENTRIES(X)                                                                        \
    X(cuCtxSetLimit, "cuCtxSetLimit", 3010, PFN_cuCtxSetLimit_v3010)                               \
    X(cuCtxGetLimit, "cuCtxGetLimit", 3010, PFN_cuCtxGetLimit_v3010)                               \
    X(cuCtxGetCacheConfig, "cuCtxGetCacheConfig", 3020, PFN_cuCtxGetCacheConfig_v3020)             \
    X(cuCtxSetCacheConfig, "cuCtxSetCacheConfig", 3020, PFN_cuCtxSetCacheConfig_v3020)             \
    X(cuCtxGetSharedMemConfig, "cuCtxGetSharedMemConfig", 4020, PFN_cuCtxGetSharedMemConfig_v4020) \
    X(cuCtxSetSharedMemConfig, "cuCtxSetSharedMemConfig", 4020, PFN_cuCtxSetSharedMemConfig_v4020) \
    X(cuCtxSetFlags, "cuCtxSetFlags", 12010, PFN_cuCtxSetFlags_v12010)                             \
    X(cuCtxResetPersistingL2Cache, "cuCtxResetPersistingL2Cache", 11000,                           \
      PFN_cuCtxResetPersistingL2Cache_v11000)                                                      \
    X(cuCtxGetExecAffinity, "cuCtxGetExecAffinity", 11040, PFN_cuCtxGetExecAffinity_v11040)        \
    X(cuDeviceGetExecAffinitySupport, "cuDeviceGetExecAffinitySupport", 11040,                     \
      PFN_cuDeviceGetExecAffinitySupport_v11040)                                                   \
    X(cuFlushGPUDirectRDMAWrites, "cuFlushGPUDirectRDMAWrites", 11030,                             \
      PFN_cuFlushGPUDirectRDMAWrites_v11030)                                                       \
    X(cuDeviceGetProperties, "cuDeviceGetProperties", 2000, PFN_cuDeviceGetProperties_v2000)       \
    X(cuDeviceGetP2PAttribute, "cuDeviceGetP2PAttribute", 8000, PFN_cuDeviceGetP2PAttribute_v8000) \
    X(cuModuleGetLoadingMode, "cuModuleGetLoadingMode", 11070, PFN_cuModuleGetLoadingMode_v11070)  \
    X(cuFuncIsLoaded, "cuFuncIsLoaded", 12040, PFN_cuFuncIsLoaded_v12040)                          \
    X(cuFuncLoad, "cuFuncLoad", 12040, PFN_cuFuncLoad_v12040)                                      \
    X(cuOccupancyAvailableDynamicSMemPerBlock, "cuOccupancyAvailableDynamicSMemPerBlock", 10020,   \
      PFN_cuOccupancyAvailableDynamicSMemPerBlock_v10020)                                          \
    X(cuDeviceGraphMemTrim, "cuDeviceGraphMemTrim", 11040, PFN_cuDeviceGraphMemTrim_v11040)        \
    X(cuDeviceGetGraphMemAttribute, "cuDeviceGetGraphMemAttribute", 11040,                         \
      PFN_cuDeviceGetGraphMemAttribute_v11040)                                                     \
    X(cuDeviceSetGraphMemAttribute, "cuDeviceSetGraphMemAttribute", 11040,                         \
      PFN_cuDeviceSetGraphMemAttribute_v11040)                                                     \
    X(cuStreamGetAttribute, "cuStreamGetAttribute", 11000, PFN_cuStreamGetAttribute_v11000)        \
    X(cuStreamSetAttribute, "cuStreamSetAttribute", 11000, PFN_cuStreamSetAttribute_v11000)        \
    X(cuStreamCopyAttributes, "cuStreamCopyAttributes", 11000, PFN_cuStreamCopyAttributes_v11000)  \
    X(cuStreamWriteValue32_v2, "cuStreamWriteValue32", 11070, PFN_cuStreamWriteValue32_v11070)     \
    X(cuStreamWriteValue64_v2, "cuStreamWriteValue64", 11070, PFN_cuStreamWriteValue64_v11070)     \
    X(cuCtxRecordEvent, "cuCtxRecordEvent", 12050, PFN_cuCtxRecordEvent_v12050)                    \
    X(cuCtxWaitEvent, "cuCtxWaitEvent", 12050, PFN_cuCtxWaitEvent_v12050)                          \
    X(cuLibraryGetGlobal, "cuLibraryGetGlobal", 12000, PFN_cuLibraryGetGlobal_v12000)              \
    X(cuLibraryGetManaged, "cuLibraryGetManaged", 12000, PFN_cuLibraryGetManaged_v12000)           \
    X(cuLibraryGetKernelCount, "cuLibraryGetKernelCount", 12040,                                   \
      PFN_cuLibraryGetKernelCount_v12040)                                                          \
    X(cuLibraryEnumerateKernels, "cuLibraryEnumerateKernels", 12040,                               \
      PFN_cuLibraryEnumerateKernels_v12040)                                                        \
    X(cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions", 12040,                             \
      PFN_cuModuleEnumerateFunctions_v12040)                                                       \
    X(cuKernelSetCacheConfig, "cuKernelSetCacheConfig", 12000, PFN_cuKernelSetCacheConfig_v12000)  \
    X(cuKernelGetParamInfo, "cuKernelGetParamInfo", 12040, PFN_cuKernelGetParamInfo_v12040)        \
    X(cuUserObjectCreate, "cuUserObjectCreate", 11030, PFN_cuUserObjectCreate_v11030)              \
    X(cuUserObjectRetain, "cuUserObjectRetain", 11030, PFN_cuUserObjectRetain_v11030)              \
    X(cuUserObjectRelease, "cuUserObjectRelease", 11030, PFN_cuUserObjectRelease_v11030)           \
    X(cuGraphRetainUserObject, "cuGraphRetainUserObject", 11030,                                   \
      PFN_cuGraphRetainUserObject_v11030)                                                          \
    X(cuGraphReleaseUserObject, "cuGraphReleaseUserObject", 11030,                                 \
      PFN_cuGraphReleaseUserObject_v11030)                                                         \
    X(cuGraphDebugDotPrint, "cuGraphDebugDotPrint", 11030, PFN_cuGraphDebugDotPrint_v11030)        \
    X(cuGraphExecGetFlags, "cuGraphExecGetFlags", 12000, PFN_cuGraphExecGetFlags_v12000)           \
    X(cuGraphNodeFindInClone, "cuGraphNodeFindInClone", 10000, PFN_cuGraphNodeFindInClone_v10000)  \
    MOCK_LEGACY_LAUNCH_ENTRIES(X)

/* The launch of CUDA 2 (mock_legacy_launch.c): a function's block shape, shared size and
 * parameter bytes set one call at a time, then cuLaunch or cuLaunchGrid. */
#define MOCK_LEGACY_LAUNCH_ENTRIES(X)                                                              \
    X(cuFuncSetBlockShape, "cuFuncSetBlockShape", 2000, PFN_cuFuncSetBlockShape_v2000)             \
    X(cuFuncSetSharedSize, "cuFuncSetSharedSize", 2000, PFN_cuFuncSetSharedSize_v2000)             \
    X(cuFuncSetSharedMemConfig, "cuFuncSetSharedMemConfig", 4020,                                  \
      PFN_cuFuncSetSharedMemConfig_v4020)                                                          \
    X(cuParamSetSize, "cuParamSetSize", 2000, PFN_cuParamSetSize_v2000)                            \
    X(cuParamSeti, "cuParamSeti", 2000, PFN_cuParamSeti_v2000)                                     \
    X(cuParamSetf, "cuParamSetf", 2000, PFN_cuParamSetf_v2000)                                     \
    X(cuParamSetv, "cuParamSetv", 2000, PFN_cuParamSetv_v2000)                                     \
    X(cuLaunch, "cuLaunch", 2000, PFN_cuLaunch_v2000)                                              \
    X(cuLaunchGrid, "cuLaunchGrid", 2000, PFN_cuLaunchGrid_v2000)                                  \
    X(cuLaunchGridAsync, "cuLaunchGridAsync", 2000, PFN_cuLaunchGridAsync_v2000)

/* What a context keeps beyond mock.h's fields: its limits as set (0: the default) and its
 * cache and shared memory preferences. */
/* A graph's references to user objects go when it does (mock_user_objects.c). */
struct CUgraph_st;
void mock__graph_user_objects_drop(struct CUgraph_st *g);
void mock__user_objects_reset(void);

typedef struct mock_ctx_extra {
    unsigned long long limit[16];
    bool limit_set[16];
    int cache_config;
    int shmem_config;
} mock_ctx_extra;

#endif
