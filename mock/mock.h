/* Internal to the mock driver: its state, the handle records and the list of entries.
 *
 * The mock never includes cushim.h: it is a driver, built from <cuda.h> and <cudaTypedefs.h>
 * alone, and each entry is declared from its PFN_ typedef so that the compiler checks the
 * mock's ABI against the header. Everything below runs under one mutex (mock__lock); only the
 * calling thread's context stack is thread-local. A kernel's interpretation is the exception:
 * it runs with the mutex released (mock__run_unlocked), as a GPU runs a kernel while the host
 * makes other calls; its stream is marked busy meanwhile, the allocation table it reads is
 * guarded by its own read-write lock (mock_memory.c), and what it may read is freed only after
 * it ends (mock__defer).
 */
#ifndef CUSHIM_MOCK_INTERNAL_H
#define CUSHIM_MOCK_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cushim_mock.h"
#include "mock_coverage.h"
#include "mock_ctx_entries.h"
#include "mock_exec_entries.h"
#include "mock_graph_build.h"
#include "mock_image.h"
#include "mock_queue.h"
#include "mock_mem.h"
#include "mock_tex.h"

#define MOCK_EXPORT __attribute__((visibility("default")))
#define MOCK_NORETURN __attribute__((noreturn))
#define MOCK_PRINTF(f, a) __attribute__((format(printf, f, a)))

#define MOCK_MAX_DEVICES 16
#define MOCK_STACK_DEPTH (1u << 20) /* contexts on one thread's stack */
/* What the mock remembers is bounded, so that a process making millions of calls keeps its
 * memory flat: the names of the last MOCK_LOG_KEEP calls, the records of the last
 * MOCK_LAUNCH_KEEP launches, and the last MOCK_DEAD_KEEP destroyed streams, events, modules,
 * libraries, functions and kernels of each kind (older ones are made again by later creates; an
 * unloaded module or library frees its image at once). Counts are never bounded. */
#define MOCK_LOG_KEEP (1u << 16)
#define MOCK_LAUNCH_KEEP 4096u
#define MOCK_DEAD_KEEP 4096u
#define MOCK_DEAD_RINGS 6 /* streams, events, modules, libraries, functions, kernels */
#define MOCK_DEFAULT_VERSION 13000
#define MOCK_PRIORITY_LEAST 0
#define MOCK_PRIORITY_GREATEST (-5)

#ifndef MOCK_INIT_RESULT
#define MOCK_INIT_RESULT CUDA_SUCCESS
#endif

/* Every entry the mock implements: the C name's suffix (mock_<fn>), the base name that
 * cuGetProcAddress takes, the release whose ABI the mock implements (the lowest version that
 * gets it), and the cudaTypedefs.h type of that ABI. A base name with two ABIs has two rows. */
#define MOCK_ENTRIES(X)                                                                            \
    X(cuInit, "cuInit", 2000, PFN_cuInit_v2000)                                                    \
    X(cuDriverGetVersion, "cuDriverGetVersion", 2020, PFN_cuDriverGetVersion_v2020)                \
    X(cuGetProcAddress, "cuGetProcAddress", 12000, PFN_cuGetProcAddress_v12000)                    \
    X(cuGetErrorName, "cuGetErrorName", 6000, PFN_cuGetErrorName_v6000)                            \
    X(cuGetErrorString, "cuGetErrorString", 6000, PFN_cuGetErrorString_v6000)                      \
    X(cuDeviceGet, "cuDeviceGet", 2000, PFN_cuDeviceGet_v2000)                                     \
    X(cuDeviceGetCount, "cuDeviceGetCount", 2000, PFN_cuDeviceGetCount_v2000)                      \
    X(cuDeviceGetName, "cuDeviceGetName", 2000, PFN_cuDeviceGetName_v2000)                         \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", 2000, PFN_cuDeviceGetAttribute_v2000)          \
    X(cuDeviceTotalMem, "cuDeviceTotalMem", 3020, PFN_cuDeviceTotalMem_v3020)                      \
    X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", 4010, PFN_cuDeviceGetPCIBusId_v4010)             \
    X(cuDeviceGetByPCIBusId, "cuDeviceGetByPCIBusId", 4010, PFN_cuDeviceGetByPCIBusId_v4010)       \
    X(cuDeviceGetUuid, "cuDeviceGetUuid", 11040, PFN_cuDeviceGetUuid_v11040)                       \
    X(cuDeviceComputeCapability, "cuDeviceComputeCapability", 2000,                                \
      PFN_cuDeviceComputeCapability_v2000)                                                         \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000,                                  \
      PFN_cuDevicePrimaryCtxRetain_v7000)                                                          \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000,                               \
      PFN_cuDevicePrimaryCtxRelease_v11000)                                                        \
    X(cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState", 7000,                              \
      PFN_cuDevicePrimaryCtxGetState_v7000)                                                        \
    X(cuDevicePrimaryCtxSetFlags, "cuDevicePrimaryCtxSetFlags", 11000,                             \
      PFN_cuDevicePrimaryCtxSetFlags_v11000)                                                       \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset", 11000,                                   \
      PFN_cuDevicePrimaryCtxReset_v11000)                                                          \
    X(cuCtxCreate, "cuCtxCreate", 12050, PFN_cuCtxCreate_v12050)                                   \
    X(cuCtxDestroy, "cuCtxDestroy", 4000, PFN_cuCtxDestroy_v4000)                                  \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", 4000, PFN_cuCtxGetCurrent_v4000)                         \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", 4000, PFN_cuCtxSetCurrent_v4000)                         \
    X(cuCtxPushCurrent, "cuCtxPushCurrent", 4000, PFN_cuCtxPushCurrent_v4000)                      \
    X(cuCtxPopCurrent, "cuCtxPopCurrent", 4000, PFN_cuCtxPopCurrent_v4000)                         \
    X(cuCtxGetDevice, "cuCtxGetDevice", 2000, PFN_cuCtxGetDevice_v2000)                            \
    X(cuCtxGetDevice_v2, "cuCtxGetDevice", 13000, PFN_cuCtxGetDevice_v13000)                       \
    X(cuCtxSynchronize, "cuCtxSynchronize", 2000, PFN_cuCtxSynchronize_v2000)                      \
    X(cuCtxSynchronize_v2, "cuCtxSynchronize", 13000, PFN_cuCtxSynchronize_v13000)                 \
    X(cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", 5050,                            \
      PFN_cuCtxGetStreamPriorityRange_v5050)                                                       \
    X(cuCtxGetApiVersion, "cuCtxGetApiVersion", 3020, PFN_cuCtxGetApiVersion_v3020)                \
    X(cuCtxGetId, "cuCtxGetId", 12000, PFN_cuCtxGetId_v12000)                                      \
    X(cuCtxGetFlags, "cuCtxGetFlags", 7000, PFN_cuCtxGetFlags_v7000)                               \
    X(cuStreamCreate, "cuStreamCreate", 2000, PFN_cuStreamCreate_v2000)                            \
    X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority", 5050,                              \
      PFN_cuStreamCreateWithPriority_v5050)                                                        \
    X(cuStreamDestroy, "cuStreamDestroy", 4000, PFN_cuStreamDestroy_v4000)                         \
    X(cuStreamQuery, "cuStreamQuery", 2000, PFN_cuStreamQuery_v2000)                               \
    X(cuStreamSynchronize, "cuStreamSynchronize", 2000, PFN_cuStreamSynchronize_v2000)             \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", 3020, PFN_cuStreamWaitEvent_v3020)                   \
    X(cuStreamGetCtx, "cuStreamGetCtx", 9020, PFN_cuStreamGetCtx_v9020)                            \
    X(cuStreamGetCtx_v2, "cuStreamGetCtx", 12050, PFN_cuStreamGetCtx_v12050)                       \
    X(cuStreamGetPriority, "cuStreamGetPriority", 5050, PFN_cuStreamGetPriority_v5050)             \
    X(cuStreamGetFlags, "cuStreamGetFlags", 5050, PFN_cuStreamGetFlags_v5050)                      \
    X(cuStreamGetId, "cuStreamGetId", 12000, PFN_cuStreamGetId_v12000)                             \
    X(cuStreamGetDevice, "cuStreamGetDevice", 12080, PFN_cuStreamGetDevice_v12080)                 \
    X(cuEventCreate, "cuEventCreate", 2000, PFN_cuEventCreate_v2000)                               \
    X(cuEventDestroy, "cuEventDestroy", 4000, PFN_cuEventDestroy_v4000)                            \
    X(cuEventRecord, "cuEventRecord", 2000, PFN_cuEventRecord_v2000)                               \
    X(cuEventRecordWithFlags, "cuEventRecordWithFlags", 11010, PFN_cuEventRecordWithFlags_v11010)  \
    X(cuEventQuery, "cuEventQuery", 2000, PFN_cuEventQuery_v2000)                                  \
    X(cuEventSynchronize, "cuEventSynchronize", 2000, PFN_cuEventSynchronize_v2000)                \
    X(cuEventElapsedTime, "cuEventElapsedTime", 12080, PFN_cuEventElapsedTime_v12080)              \
    X(cuModuleLoad, "cuModuleLoad", 2000, PFN_cuModuleLoad_v2000)                                  \
    X(cuModuleLoadData, "cuModuleLoadData", 2000, PFN_cuModuleLoadData_v2000)                      \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx", 2010, PFN_cuModuleLoadDataEx_v2010)                \
    X(cuModuleUnload, "cuModuleUnload", 2000, PFN_cuModuleUnload_v2000)                            \
    X(cuModuleGetFunction, "cuModuleGetFunction", 2000, PFN_cuModuleGetFunction_v2000)             \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", 2020, PFN_cuFuncGetAttribute_v2020)                \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", 9000, PFN_cuFuncSetAttribute_v9000)                \
    X(cuFuncSetCacheConfig, "cuFuncSetCacheConfig", 3000, PFN_cuFuncSetCacheConfig_v3000)          \
    X(cuFuncGetName, "cuFuncGetName", 12030, PFN_cuFuncGetName_v12030)                             \
    X(cuFuncGetParamInfo, "cuFuncGetParamInfo", 12040, PFN_cuFuncGetParamInfo_v12040)              \
    X(cuFuncGetModule, "cuFuncGetModule", 11000, PFN_cuFuncGetModule_v11000)                       \
    X(cuLibraryLoadData, "cuLibraryLoadData", 12000, PFN_cuLibraryLoadData_v12000)                 \
    X(cuLibraryLoadFromFile, "cuLibraryLoadFromFile", 12000, PFN_cuLibraryLoadFromFile_v12000)     \
    X(cuLibraryUnload, "cuLibraryUnload", 12000, PFN_cuLibraryUnload_v12000)                       \
    X(cuLibraryGetKernel, "cuLibraryGetKernel", 12000, PFN_cuLibraryGetKernel_v12000)              \
    X(cuKernelGetFunction, "cuKernelGetFunction", 12000, PFN_cuKernelGetFunction_v12000)           \
    X(cuKernelGetAttribute, "cuKernelGetAttribute", 12000, PFN_cuKernelGetAttribute_v12000)        \
    X(cuKernelSetAttribute, "cuKernelSetAttribute", 12000, PFN_cuKernelSetAttribute_v12000)        \
    X(cuKernelGetName, "cuKernelGetName", 12030, PFN_cuKernelGetName_v12030)                       \
    X(cuKernelGetLibrary, "cuKernelGetLibrary", 12050, PFN_cuKernelGetLibrary_v12050)              \
    X(cuLinkCreate_v2, "cuLinkCreate", 6050, PFN_cuLinkCreate_v6050)                               \
    X(cuLinkAddData_v2, "cuLinkAddData", 6050, PFN_cuLinkAddData_v6050)                            \
    X(cuLinkAddFile_v2, "cuLinkAddFile", 6050, PFN_cuLinkAddFile_v6050)                            \
    X(cuLinkComplete, "cuLinkComplete", 5050, PFN_cuLinkComplete_v5050)                            \
    X(cuLinkDestroy, "cuLinkDestroy", 5050, PFN_cuLinkDestroy_v5050)                               \
    X(cuLaunchKernel, "cuLaunchKernel", 4000, PFN_cuLaunchKernel_v4000)                            \
    X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", 9000,                                \
      PFN_cuLaunchCooperativeKernel_v9000)                                                         \
    X(cuLaunchKernelEx, "cuLaunchKernelEx", 11060, PFN_cuLaunchKernelEx_v11060)                    \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",  \
      6050, PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050)                                 \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,                                        \
      "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000,                                \
      PFN_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000)                              \
    X(cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", 6050,                  \
      PFN_cuOccupancyMaxPotentialBlockSize_v6050)                                                  \
    X(cuOccupancyMaxPotentialBlockSizeWithFlags, "cuOccupancyMaxPotentialBlockSizeWithFlags",      \
      7000, PFN_cuOccupancyMaxPotentialBlockSizeWithFlags_v7000)                                   \
    X(cuOccupancyMaxPotentialClusterSize, "cuOccupancyMaxPotentialClusterSize", 11070,             \
      PFN_cuOccupancyMaxPotentialClusterSize_v11070)                                               \
    X(cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters", 11070,                         \
      PFN_cuOccupancyMaxActiveClusters_v11070)                                                     \
    MOCK_EXEC_ENTRIES(X)                                                                           \
    MOCK_GRAPH_BUILD_ENTRIES(X)                                                                    \
    MOCK_MEMORY_ENTRIES(X)                                                                         \
    MOCK_TEX_ENTRIES(X)                                                                            \
    MOCK_CTX_ENTRIES(X)

#define MOCK_ENUM_(fn, base, ver, pfn) MOCK_E_##fn,
typedef enum mock_entry { MOCK_ENTRIES(MOCK_ENUM_) MOCK_ENTRY_COUNT } mock_entry;

/* Each entry is declared with the function type of its PFN_ typedef: a definition whose
 * prototype differs from the header's ABI is a compile error. */
#define MOCK_DECLARE_(fn, base, ver, pfn) extern __typeof__(*(pfn)0) mock_##fn;
MOCK_ENTRIES(MOCK_DECLARE_)

typedef struct mock_row {
    const char *base;
    int version;
    void (*fn)(void); /* the entry, as the generic function pointer type */
} mock_row;
extern const mock_row mock__rows[MOCK_ENTRY_COUNT];

/* ------------------------------------------------------------------------------------------ */
/* Handles                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* Kinds of handle records: the counted kinds of cushim_mock.h, then two more. */
typedef struct mock_host_kernel mock_host_kernel;
enum {
    MOCK_K_FUNCTION = CUSHIM_MOCK_KIND_COUNT,
    MOCK_K_KERNEL,
    MOCK_K_ARRAY,
    MOCK_K_MIPMAP,
    MOCK_K_COUNT
};

#define MOCK_MAGIC 0x6d6f636bu /* "mock" */

/* The head of every handle record. Records stay allocated (dead) until reset, so a stale handle
 * is recognised rather than read through freed memory; dead streams and events past the last
 * MOCK_DEAD_KEEP of their kind are made again by later creates. */
typedef struct mock_obj {
    uint32_t magic;
    int kind;
    bool alive;
    struct CUctx_st *ctx;         /* the owning context, NULL for libraries and kernels */
    struct mock_obj *prev, *next; /* in the owning context's list of live children */
} mock_obj;

/* Work is counted (submitted items, completed items: pending while completed < submitted) and
 * queued (mock_queue.h): item i of the count is the op whose seq is i. */
struct CUstream_st {
    mock_obj h;
    unsigned flags;
    int priority;
    unsigned long long id;
    unsigned long long submitted, completed;
    unsigned polls; /* queries answered NOT_READY in a row (mock_stream.c: a poll loop ends) */
    mock_queue q;
    /* An operation of the queue is running (a kernel, perhaps without the lock) on busy_owner:
     * other threads that drain the stream wait for it. */
    bool busy;
    pthread_t busy_owner;
    mock_capture *cap; /* the capture this stream takes part in, NULL for none */
    size_t cap_tail;   /* nodes of the capture's graph when this stream last added one */
    bool cap_unjoined; /* a joined stream with nodes its origin has not waited for */
    /* A context's per-thread default stream (CU_STREAM_PER_THREAD) for thread `owner`. */
    bool per_thread;
    pthread_t owner;
};

struct CUctx_st {
    mock_obj h;
    int device;
    unsigned flags;
    bool primary;
    bool active; /* a created context while alive; a primary while its refcount is > 0 */
    int refcount;
    unsigned long long id;
    CUresult sticky;   /* a kernel's fault: every later call in the context answers it */
    mock_obj children; /* sentinel of the list of live children */
    struct CUstream_st default_stream; /* the legacy default stream: NULL, CU_STREAM_LEGACY */
    /* The live blocking streams (created without CU_STREAM_NON_BLOCKING, and the per-thread
     * default streams), which synchronise with the legacy one (mock_queue.c). */
    struct CUstream_st **blocking;
    size_t nblocking, capblocking;
    unsigned check;               /* set_check for this context (mock_check.c), */
    bool check_set, check_report; /* when check_set */
    mock_ctx_extra extra;         /* limits and preferences (mock_ctx_extra.c) */
    struct mock_ptx_heap *heap;   /* device malloc's (mock_limits.c), NULL until a launch */
};

/* CUSHIM_MOCK_CHECK (mock_check.c): a launch's checks and mode (under the lock; the next
 * launch's setting is used up), memcheck's count of a kernel's fault, the control API. */
void mock__check_choose(struct CUctx_st *ctx, unsigned *checks, bool *report);
void mock__check_fault(unsigned checks, CUresult r);
void mock__check_reset(void);
void mock__check_api(cushim_mock_api *api);

struct CUevent_st {
    mock_obj h;
    unsigned flags;
    bool recorded;
    unsigned long long stamp;     /* the mock clock (ns) when its stream reached the last record */
    unsigned long long record_id; /* which record that was (mock__state.records) */
    struct CUstream_st *stream;   /* where it was last recorded */
    unsigned long long seq;       /* the work of that stream it waits for */
    unsigned long long cap_id;    /* the capture it was last recorded in, 0 for none */
    struct CUstream_st *cap_stream; /* the stream of that record */
    size_t cap_tail;                /* the capture's node count at that record */
};

struct CUgraph_st {
    mock_obj h;
    mock_nodes nodes;
    struct CUgraph_st *cloned_from; /* cuGraphClone's original (records of graphs stay) */
};

struct CUgraphExec_st {
    mock_obj h;
    mock_nodes nodes;         /* copies of the graph's nodes, sharing their work */
    unsigned long long flags; /* as instantiated */
};

/* Function attributes that cuFuncSetAttribute / cuKernelSetAttribute changed. */
typedef struct mock_fattrs {
    int value[CU_FUNC_ATTRIBUTE_MAX];
    bool set[CU_FUNC_ATTRIBUTE_MAX];
} mock_fattrs;

struct CUmod_st {
    mock_obj h;
    mock_image img;
    struct CUfunc_st **funcs; /* per entry of img, made on first cuModuleGetFunction */
    size_t capfuncs;
};

struct CUfunc_st {
    mock_obj h;
    const char *name;         /* owned by the module or library */
    struct CUmod_st *module;  /* NULL for a function of a kernel */
    struct CUkern_st *kernel; /* NULL for a module's function */
    long entry;               /* its entry in the module's image */
    mock_fattrs own;
    mock_fattrs *attrs; /* own, or the kernel's */
};

struct CUlib_st {
    mock_obj h;
    mock_image img;
    struct CUkern_st **kernels;
    size_t capkernels;
};

struct CUkern_st {
    mock_obj h;
    const char *name;
    struct CUlib_st *library;
    long entry; /* its entry in the library's image */
    mock_fattrs attrs;
    struct CUfunc_st **funcs; /* one per context, made by cuKernelGetFunction */
    size_t nfuncs, capfuncs;
};

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct mock_fail {
    int row_base; /* index of the first row with the entry's base name */
    int remaining;
    CUresult code;
} mock_fail;

typedef struct mock_lookup {
    char *name;
    int version;
    unsigned long long flags;
} mock_lookup;

#define MOCK_MAX_FAILS 64
#define MOCK_LAUNCH_CHUNK 1024

typedef struct mock_state {
    bool booted;
    /* kept across reset: a process resolves its entries and initialises its driver once */
    bool initialized;
    mock_lookup *lookups;
    size_t nlookups, caplookups;
    bool handed_out[MOCK_ENTRY_COUNT]; /* rows cuGetProcAddress answered with */

    CUresult init_result;
    int driver_version;
    int device_count;
    int attrs[MOCK_MAX_DEVICES][CU_DEVICE_ATTRIBUTE_MAX];
    struct CUctx_st *primary[MOCK_MAX_DEVICES];

    /* every record made since the last reset, and a hash set of them by address */
    mock_obj **objs;
    size_t nobjs, capobjs;
    mock_obj **set;
    size_t setcap, setcount;
    int live[CUSHIM_MOCK_KIND_COUNT];
    unsigned generation; /* bumped by reset: thread-local context stacks older than it are void */
    unsigned long long next_id;

    const char **log; /* a ring of MOCK_LOG_KEEP names: call i is at i % MOCK_LOG_KEEP */
    size_t nlog;
    int total_calls;
    int counts[MOCK_ENTRY_COUNT];
    mock_fail fails[MOCK_MAX_FAILS];
    int nfails;
    int fail_any_remaining;
    CUresult fail_any_code;
    char **hidden;
    size_t nhidden;

    bool pending;
    /* The clock events read, in ns: each kernel's execution moves it by the time it took, or
     * by launch_us microseconds once a test set it. */
    unsigned long long launch_us, clock_ns;
    bool launch_us_set;
    unsigned long long records; /* event records made, for their stamps' identity */
    int occupancy_override;
    int kernel_static_smem, kernel_regs, kernel_max_threads;

    cushim_mock_launch **launch_chunks; /* a ring: launch i is in chunk i / CHUNK % KEEP/CHUNK */
    size_t nlaunches, capchunks;
    /* Dead streams (0), events (1), modules (2), libraries (3), functions (4) and kernels (5): a
     * ring of the last MOCK_DEAD_KEEP of each, which stay dead so that a stale handle is named, and
     * the older ones, which the next create of their kind makes again (the same record, address and
     * set entry). */
    mock_obj **dead[MOCK_DEAD_RINGS];
    size_t dead_first[MOCK_DEAD_RINGS], ndead[MOCK_DEAD_RINGS];
    mock_obj *reusable[MOCK_DEAD_RINGS];

    /* Execution (mock_queue.c, mock_capture.c, mock_kernels.c) */
    bool jit_fail_armed;
    char jit_fail_log[256];
    unsigned long long next_capture_id;
    mock_capture **captures; /* those going on */
    size_t ncaptures, capcaptures;
    struct mock_host_kernel *host_kernels;
    size_t nhost_kernels, caphost_kernels;
    int sticky_count;    /* contexts with a sticky fault */
    bool noop_kernels;   /* a kernel with no code runs as a no-op instead of failing */
    int kernels_running; /* kernels interpreted with the lock released, now */
    struct mock_deferred {
        void (*fn)(void *);
        void *arg;
    } * deferred; /* frees that wait for kernels_running to be 0 */
    size_t ndeferred, capdeferred;
    char kernel_error[1024]; /* the last launch refused or kernel fault, "" for none */
} mock_state;

/* The one driver state of the process (defined in mock_core.c). */
extern mock_state mock__state;

/* ------------------------------------------------------------------------------------------ */
/* Helpers (mock_core.c), all called with the lock held unless said otherwise                 */
/* ------------------------------------------------------------------------------------------ */

void mock__lock(void);
void mock__unlock(void);
/* A kernel runs with the lock released (mock_queue.c): mock__release_all drops every hold the
 * calling thread has and returns how many, mock__retake takes them again. mock__wait waits, with
 * every hold released, until another thread calls mock__wake (after any change of state that a
 * waiter may wait for: a stream's work finished, the last running kernel ended). */
int mock__release_all(void);
void mock__retake(int holds);
void mock__wait(void);
void mock__wake(void);
/* Calls fn(arg) now, or once no kernel runs without the lock (memory and modules a running
 * kernel may still read are freed then). */
void mock__defer(void (*fn)(void *), void *arg);
/* Runs a kernel's interpretation, fn(arg), with the lock released; returns with it held again. */
void mock__run_unlocked(void (*fn)(void *), void *arg);
/* Waits until no kernel runs without the lock (reset). */
void mock__wait_kernels(void);
/* Grows the array whose pointer is at v to hold `need` elements of `size` bytes. */
bool mock__grow(void *v, size_t *cap, size_t need, size_t size);
/* The first row with this base name, -1 for none. */
int mock__base_row(const char *name);
/* The fault and count key of an entry named in any form ("cuMemcpyHtoD", "cuMemcpyHtoD_v2",
 * "cuMemcpyHtoD_v2_ptds"): its first row, or for an entry answered by a stub the stub's key;
 * -1 for none (mock_knobs.c). */
int mock__row_of(const char *name);
/* Reset helpers: free every record; free the launch records. */
void mock__forget_all(void);
void mock__forget_launches(void);
/* A zeroed launch record to fill, NULL past the cap; launch i, NULL past the end. */
cushim_mock_launch *mock__new_launch(void);
/* The call log: appends a call's name; the name of call i, NULL past the end or for a call
 * older than the last MOCK_LOG_KEEP. */
void mock__log_call(const char *name);
const char *mock__logged_call(size_t i);
const cushim_mock_launch *mock__launch_at(size_t i);

/* The bookkeeping every entry starts with: takes the lock, logs and counts the call, applies
 * injected failures, and refuses calls before a successful cuInit (unless `anytime`). Returns
 * CUDA_SUCCESS with the lock held, or the code to return with the lock released. */
CUresult mock__enter(mock_entry id, bool anytime);
/* Releases the lock and returns r; a failure's sentence goes to the loader's sink first. */
CUresult mock__leave(CUresult r);

/* Why this thread's current call fails (mock_why.c): cleared as each entry starts, set where a
 * failure has more to say than its code, handed to the sink by mock__leave. */
void mock__why_clear(void);
void mock__why(const char *fmt, ...) MOCK_PRINTF(1, 2);
void mock__why_tell(CUresult r);
/* The sentence set so far (for a caller that passes it on), "" for none. */
const char *mock__why_text(void);
/* One kernel's execution (mock_observe.c), around its run: timed, told to the observer,
 * and the clock moved by it. */
typedef struct mock_kernel_run {
    const char *name;
    const unsigned *grid, *block;
    CUstream stream;
    unsigned long long start_ns, instructions;
} mock_kernel_run;
void mock__observe_begin(mock_kernel_run *run);
void mock__observe_end(mock_kernel_run *run);

/* A code's name (name true) or text; NULL for a code the mock does not know. */
const char *mock__error_name(CUresult r, bool name);
/* Every CUresult of cuda.h, its name and the first sentence of its doc comment, generated with
 * the stubs (gen/gen-mock-stubs.py, from the parse that gives cushim's loader its table). */
typedef struct mock_error_text {
    int code;
    const char *name, *text;
} mock_error_text;
extern const mock_error_text mock__errors[];
extern const unsigned mock__error_count;

#define MOCK_ENTER(id)                                                                             \
    do {                                                                                           \
        CUresult mock_enter_r_ = mock__enter(MOCK_E_##id, false);                                  \
        if (mock_enter_r_ != CUDA_SUCCESS) return mock_enter_r_;                                   \
    } while (0)
#define MOCK_ENTER_ANYTIME(id)                                                                     \
    do {                                                                                           \
        CUresult mock_enter_r_ = mock__enter(MOCK_E_##id, true);                                   \
        if (mock_enter_r_ != CUDA_SUCCESS) return mock_enter_r_;                                   \
    } while (0)

/* The loader's knobs (mock_loader_knobs.c): cuInit's delay and callback, a version that
 * cuDriverGetVersion reports, a cuGetProcAddress that resolves nothing, a device count. The last
 * two return true when the knob decided the answer. */
const char *mock__init_knobs(void); /* a sentence for cuInit to fail with, or NULL */
bool mock__version_knob(int *version, CUresult *r);
bool mock__proc_knob(void **pfn, CUdriverProcAddressQueryResult *status, CUresult *r);
/* True, with *count set, when CUSHIM_MOCK_DEVICE_COUNT overrides cuDeviceGetCount. */
bool mock__count_knob(int *count);

/* Prints "cushim mock: <entry>: <message>" on stderr and aborts: only for mock__misuse under
 * the fatal knob. */
MOCK_NORETURN void mock__die(const char *entry, const char *fmt, ...) MOCK_PRINTF(2, 3);

/* Allocates, registers and (for ctx non-NULL) links a record into ctx's children. NULL when out
 * of memory. Live counts are the caller's. */
void *mock__new(size_t size, int kind, struct CUctx_st *ctx);
/* The record at p, or NULL when the mock never made one there. */
mock_obj *mock__find(const void *p);
/* The live record of `kind` at p; on anything else a misuse (mock__misuse) named after `entry`,
 * and NULL, for which the caller answers MOCK_BAD_HANDLE(kind). */
void *mock__expect(const void *p, int kind, const char *entry);
/* The code of an entry given a handle mock__expect refused: CUDA_ERROR_INVALID_CONTEXT for a
 * context, as the driver answers, CUDA_ERROR_INVALID_HANDLE for anything else. */
#define MOCK_BAD_HANDLE(kind)                                                                      \
    ((int)(kind) == (int)CUSHIM_MOCK_CONTEXT ? CUDA_ERROR_INVALID_CONTEXT                          \
                                             : CUDA_ERROR_INVALID_HANDLE)
/* In an entry: var = the live record of `kind` at h, or the entry returns MOCK_BAD_HANDLE. */
#define MOCK_EXPECT(var, h, kind, entry)                                                           \
    do {                                                                                           \
        (var) = mock__expect((h), (kind), (entry));                                                \
        if ((var) == NULL) return mock__leave(MOCK_BAD_HANDLE(kind));                              \
    } while (0)
/* A lifetime or memory misuse by the code under test (a handle never made or already destroyed,
 * memory out of bounds or freed): said on stderr and kept (memory_error()), naming the call;
 * then the call returns an error code, unless a test asked for an abort (CUSHIM_MOCK_FATAL=1 or
 * set_memory_errors_fatal(true)), when the process aborts here. */
void mock__misuse(const char *entry, const char *fmt, ...) MOCK_PRINTF(2, 3);
/* Marks a record dead, unlinks it from its context, and kills what it owns. */
void mock__kill(mock_obj *o);
const char *mock__kind_name(int kind);

/* The calling thread's context stack. */
struct CUctx_st *mock__current(void);
bool mock__push(struct CUctx_st *ctx);
struct CUctx_st *mock__pop(void);
bool mock__replace_top(struct CUctx_st *ctx);

/* The current context, usable for work: CUDA_ERROR_INVALID_CONTEXT when there is none,
 * CUDA_ERROR_CONTEXT_IS_DESTROYED for a released primary; aborts for a destroyed context. */
CUresult mock__need_current(const char *entry, struct CUctx_st **out);
/* The context's heap for device malloc, made at the first call (NULL when out of memory), and
 * its end (mock_limits.c). */
struct mock_ptx_heap *mock__ctx_heap(struct CUctx_st *c);
void mock__ctx_heap_free(struct CUctx_st *c);
/* false while kernels' allocations are live in the heap; else the heap goes, to be made again of
 * the new size (cuCtxSetLimit). */
bool mock__ctx_heap_resizable(struct CUctx_st *c);
/* A limit of the context as cuCtxGetLimit answers it (mock_ctx_extra.c). */
void mock__ctx_limit(const struct CUctx_st *c, CUlimit limit, size_t *value);
/* A stream argument (mock_default_stream.c): NULL and CU_STREAM_LEGACY are the current
 * context's legacy default stream, CU_STREAM_PER_THREAD (and NULL in a call through a
 * per-thread entry) the calling thread's per-thread default stream of that context. */
CUresult mock__stream(CUstream s, const char *entry, struct CUstream_st **out);
/* Whether s is its context's legacy default stream. */
bool mock__is_legacy(const struct CUstream_st *s);
/* A blocking stream joins or leaves its context's list (false: out of memory). */
bool mock__blocking_add(struct CUstream_st *s);
void mock__blocking_remove(struct CUstream_st *s);
/* Queues on s the waits of the legacy default stream's implicit synchronisation (mock_queue.c):
 * called before work enters s, and before a synchronous call on s runs. */
void mock__implicit_waits(struct CUstream_st *s);
struct CUctx_st *mock__stream_ctx(const struct CUstream_st *s);

/* Work on streams (mock_stream.c, mock_queue.c). mock__submit adds a marker item (no work) to
 * s; mock__complete runs s's queue up to item `upto`. */
void mock__submit(struct CUstream_st *s);
void mock__complete(struct CUstream_st *s, unsigned long long upto, int depth);
void mock__stream_init(struct CUstream_st *s, struct CUctx_st *ctx);
void mock__ctx_sync(struct CUctx_st *ctx);
/* The progress thread (mock_progress.c): s has new work; progress on or off (set_async); at
 * reset (waits for the thread to be idle, forgets the list, takes CUSHIM_MOCK_ASYNC again); at
 * boot (the environment, the fork handlers). */
void mock__progress_note(struct CUstream_st *s);
void mock__progress_set(bool on);
void mock__progress_reset(void);
void mock__progress_boot(void);
void mock__progress_forked(void);
/* Execution state at reset (mock_capture.c); its control functions (mock_exec_control.c). */
void mock__exec_reset(void);
void mock__exec_api(cushim_mock_api *api);

/* Devices (mock_device.c). */
bool mock__valid_device(CUdevice dev);
int mock__attr(int dev, CUdevice_attribute a);
/* Destroys a context's children and allocations (mock_device.c). */
void mock__ctx_clear(struct CUctx_st *ctx);
/* Frees the allocations of ctx, or all of them (mock_memory.c). */
void mock__free_allocs(struct CUctx_st *ctx);

/* Functions and kernels (mock_module.c). */
typedef struct mock_kinfo {
    const char *name;
    struct CUctx_st *ctx; /* a function's context; NULL for a kernel */
    mock_fattrs *attrs;
    const mock_kentry *kentry; /* the image's record: its name and parameters */
    mock_image *img;           /* the module's or library's image (its PTX) */
} mock_kinfo;
/* A CUfunction argument, which may be a CUkernel cast to one. */
CUresult mock__function(CUfunction f, const char *entry, mock_kinfo *out);
int mock__func_attr(const mock_fattrs *a, CUfunction_attribute attr, int dev);
void mock__free_record(mock_obj *o);
/* A module image file (mock_file.c): a regular file of at most 1 GiB, read whole and
 * NUL-terminated, its length in *len; NULL with *r set (and the reason told) when refused. */
char *mock__read_image_file(const char *entry, const char *path, size_t *len, CUresult *r);

/* The device whose attributes apply to a function: its context's, or for a kernel the current
 * context's. */
CUresult mock__function_device(const char *entry, const mock_kinfo *k, int *dev);

/* The occupancy model (mock_launch.c): what it needs, copied under the lock, so that the block
 * size search can call the user's callback without it. */
typedef struct mock_occ {
    int override;
    int max_threads; /* of the function on the device */
    int max_blocks_sm, max_threads_sm, smem_sm, smem_optin, static_smem, sms;
} mock_occ;
void mock__occ_snapshot(int dev, const mock_fattrs *a, mock_occ *o);
int mock__occ_blocks(const mock_occ *o, int block, size_t dynamic_smem);

#endif
