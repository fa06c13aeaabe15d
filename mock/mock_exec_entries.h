/* Internal to the mock driver: the rows of the entry table for execution (stream order, host
 * functions, capture, graphs, module variables). Same columns as MOCK_ENTRIES in mock.h, which
 * appends this list to its own. */
#ifndef CUSHIM_MOCK_EXEC_ENTRIES_H
#define CUSHIM_MOCK_EXEC_ENTRIES_H

#define MOCK_EXEC_ENTRIES(X)                                                                       \
    X(cuStreamAddCallback, "cuStreamAddCallback", 5000, PFN_cuStreamAddCallback_v5000)             \
    X(cuLaunchHostFunc, "cuLaunchHostFunc", 10000, PFN_cuLaunchHostFunc_v10000)                    \
    X(cuStreamBeginCapture, "cuStreamBeginCapture", 10010, PFN_cuStreamBeginCapture_v10010)        \
    X(cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode", 10010,               \
      PFN_cuThreadExchangeStreamCaptureMode_v10010)                                                \
    X(cuStreamIsCapturing, "cuStreamIsCapturing", 10000, PFN_cuStreamIsCapturing_v10000)           \
    X(cuStreamGetCaptureInfo, "cuStreamGetCaptureInfo", 10010, PFN_cuStreamGetCaptureInfo_v10010)  \
    X(cuStreamGetCaptureInfo_v2, "cuStreamGetCaptureInfo", 11030,                                  \
      PFN_cuStreamGetCaptureInfo_v11030)                                                           \
    X(cuStreamGetCaptureInfo_v3, "cuStreamGetCaptureInfo", 12030,                                  \
      PFN_cuStreamGetCaptureInfo_v12030)                                                           \
    X(cuStreamEndCapture, "cuStreamEndCapture", 10000, PFN_cuStreamEndCapture_v10000)              \
    X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", 11040,                           \
      PFN_cuGraphInstantiateWithFlags_v11040)                                                      \
    X(cuGraphInstantiateWithParams, "cuGraphInstantiateWithParams", 12000,                         \
      PFN_cuGraphInstantiateWithParams_v12000)                                                     \
    X(cuGraphLaunch, "cuGraphLaunch", 10000, PFN_cuGraphLaunch_v10000)                             \
    X(cuGraphUpload, "cuGraphUpload", 11010, PFN_cuGraphUpload_v11010)                             \
    X(cuGraphExecUpdate, "cuGraphExecUpdate", 10020, PFN_cuGraphExecUpdate_v10020)                 \
    X(cuGraphExecUpdate_v2, "cuGraphExecUpdate", 12000, PFN_cuGraphExecUpdate_v12000)              \
    X(cuGraphDestroy, "cuGraphDestroy", 10000, PFN_cuGraphDestroy_v10000)                          \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", 10000, PFN_cuGraphExecDestroy_v10000)              \
    X(cuGraphNodeGetType, "cuGraphNodeGetType", 10000, PFN_cuGraphNodeGetType_v10000)              \
    X(cuModuleGetGlobal, "cuModuleGetGlobal", 3020, PFN_cuModuleGetGlobal_v3020)                   \
    X(cuModuleGetFunctionCount, "cuModuleGetFunctionCount", 12040,                                 \
      PFN_cuModuleGetFunctionCount_v12040)

#endif
