/* Internal to the mock driver: memory, devices from profiles, per-thread entries and the knobs
 * that go with them. Included by mock.h, which adds MOCK_MEMORY_ENTRIES to its list of entries.
 */
#ifndef CUSHIM_MOCK_MEM_H
#define CUSHIM_MOCK_MEM_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The memory, peer and pool entries: rows as in MOCK_ENTRIES (mock.h). */
#define MOCK_MEMORY_ENTRIES(X)                                                                     \
    X(cuMemAlloc, "cuMemAlloc", 3020, PFN_cuMemAlloc_v3020)                                        \
    X(cuMemAllocPitch, "cuMemAllocPitch", 3020, PFN_cuMemAllocPitch_v3020)                         \
    X(cuMemAllocManaged, "cuMemAllocManaged", 6000, PFN_cuMemAllocManaged_v6000)                   \
    X(cuMemFree, "cuMemFree", 3020, PFN_cuMemFree_v3020)                                           \
    X(cuMemGetInfo, "cuMemGetInfo", 3020, PFN_cuMemGetInfo_v3020)                                  \
    X(cuMemGetAddressRange, "cuMemGetAddressRange", 3020, PFN_cuMemGetAddressRange_v3020)          \
    X(cuMemAllocHost, "cuMemAllocHost", 3020, PFN_cuMemAllocHost_v3020)                            \
    X(cuMemHostAlloc, "cuMemHostAlloc", 2020, PFN_cuMemHostAlloc_v2020)                            \
    X(cuMemFreeHost, "cuMemFreeHost", 2000, PFN_cuMemFreeHost_v2000)                               \
    X(cuMemHostRegister, "cuMemHostRegister", 6050, PFN_cuMemHostRegister_v6050)                   \
    X(cuMemHostUnregister, "cuMemHostUnregister", 4000, PFN_cuMemHostUnregister_v4000)             \
    X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer", 3020,                                \
      PFN_cuMemHostGetDevicePointer_v3020)                                                         \
    X(cuMemcpyHtoD, "cuMemcpyHtoD", 3020, PFN_cuMemcpyHtoD_v3020)                                  \
    X(cuMemcpyDtoH, "cuMemcpyDtoH", 3020, PFN_cuMemcpyDtoH_v3020)                                  \
    X(cuMemcpyDtoD, "cuMemcpyDtoD", 3020, PFN_cuMemcpyDtoD_v3020)                                  \
    X(cuMemcpy, "cuMemcpy", 4000, PFN_cuMemcpy_v4000)                                              \
    X(cuMemcpyPeer, "cuMemcpyPeer", 4000, PFN_cuMemcpyPeer_v4000)                                  \
    X(cuMemcpy2D, "cuMemcpy2D", 3020, PFN_cuMemcpy2D_v3020)                                        \
    X(cuMemcpy2DUnaligned, "cuMemcpy2DUnaligned", 3020, PFN_cuMemcpy2DUnaligned_v3020)             \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync", 3020, PFN_cuMemcpyHtoDAsync_v3020)                   \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync", 3020, PFN_cuMemcpyDtoHAsync_v3020)                   \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync", 3020, PFN_cuMemcpyDtoDAsync_v3020)                   \
    X(cuMemcpyAsync, "cuMemcpyAsync", 4000, PFN_cuMemcpyAsync_v4000)                               \
    X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", 4000, PFN_cuMemcpyPeerAsync_v4000)                   \
    X(cuMemcpy2DAsync, "cuMemcpy2DAsync", 3020, PFN_cuMemcpy2DAsync_v3020)                         \
    X(cuMemcpy3D, "cuMemcpy3D", 3020, PFN_cuMemcpy3D_v3020)                                        \
    X(cuMemcpy3DAsync, "cuMemcpy3DAsync", 3020, PFN_cuMemcpy3DAsync_v3020)                         \
    X(cuMemcpy3DPeer, "cuMemcpy3DPeer", 4000, PFN_cuMemcpy3DPeer_v4000)                            \
    X(cuMemcpy3DPeerAsync, "cuMemcpy3DPeerAsync", 4000, PFN_cuMemcpy3DPeerAsync_v4000)             \
    X(cuMemHostGetFlags, "cuMemHostGetFlags", 2030, PFN_cuMemHostGetFlags_v2030)                   \
    X(cuMemPrefetchAsync_v2, "cuMemPrefetchAsync", 12020, PFN_cuMemPrefetchAsync_v12020)           \
    X(cuMemAdvise_v2, "cuMemAdvise", 12020, PFN_cuMemAdvise_v12020)                                \
    X(cuMemRangeGetAttribute, "cuMemRangeGetAttribute", 8000, PFN_cuMemRangeGetAttribute_v8000)    \
    X(cuMemRangeGetAttributes, "cuMemRangeGetAttributes", 8000, PFN_cuMemRangeGetAttributes_v8000) \
    X(cuPointerSetAttribute, "cuPointerSetAttribute", 6000, PFN_cuPointerSetAttribute_v6000)       \
    X(cuMemPrefetchBatchAsync, "cuMemPrefetchBatchAsync", 13000,                                   \
      PFN_cuMemPrefetchBatchAsync_v13000)                                                          \
    X(cuMemDiscardBatchAsync, "cuMemDiscardBatchAsync", 13000, PFN_cuMemDiscardBatchAsync_v13000)  \
    X(cuMemDiscardAndPrefetchBatchAsync, "cuMemDiscardAndPrefetchBatchAsync", 13000,               \
      PFN_cuMemDiscardAndPrefetchBatchAsync_v13000)                                                \
    X(cuStreamAttachMemAsync, "cuStreamAttachMemAsync", 6000, PFN_cuStreamAttachMemAsync_v6000)    \
    X(cuMemsetD8, "cuMemsetD8", 3020, PFN_cuMemsetD8_v3020)                                        \
    X(cuMemsetD16, "cuMemsetD16", 3020, PFN_cuMemsetD16_v3020)                                     \
    X(cuMemsetD32, "cuMemsetD32", 3020, PFN_cuMemsetD32_v3020)                                     \
    X(cuMemsetD2D8, "cuMemsetD2D8", 3020, PFN_cuMemsetD2D8_v3020)                                  \
    X(cuMemsetD2D16, "cuMemsetD2D16", 3020, PFN_cuMemsetD2D16_v3020)                               \
    X(cuMemsetD2D32, "cuMemsetD2D32", 3020, PFN_cuMemsetD2D32_v3020)                               \
    X(cuMemsetD8Async, "cuMemsetD8Async", 3020, PFN_cuMemsetD8Async_v3020)                         \
    X(cuMemsetD16Async, "cuMemsetD16Async", 3020, PFN_cuMemsetD16Async_v3020)                      \
    X(cuMemsetD32Async, "cuMemsetD32Async", 3020, PFN_cuMemsetD32Async_v3020)                      \
    X(cuMemsetD2D8Async, "cuMemsetD2D8Async", 3020, PFN_cuMemsetD2D8Async_v3020)                   \
    X(cuMemsetD2D16Async, "cuMemsetD2D16Async", 3020, PFN_cuMemsetD2D16Async_v3020)                \
    X(cuMemsetD2D32Async, "cuMemsetD2D32Async", 3020, PFN_cuMemsetD2D32Async_v3020)                \
    X(cuPointerGetAttribute, "cuPointerGetAttribute", 4000, PFN_cuPointerGetAttribute_v4000)       \
    X(cuPointerGetAttributes, "cuPointerGetAttributes", 7000, PFN_cuPointerGetAttributes_v7000)    \
    X(cuMemAllocAsync, "cuMemAllocAsync", 11020, PFN_cuMemAllocAsync_v11020)                       \
    X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020,                                   \
      PFN_cuMemAllocFromPoolAsync_v11020)                                                          \
    X(cuMemFreeAsync, "cuMemFreeAsync", 11020, PFN_cuMemFreeAsync_v11020)                          \
    X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 11020,                               \
      PFN_cuDeviceGetDefaultMemPool_v11020)                                                        \
    X(cuDeviceGetMemPool, "cuDeviceGetMemPool", 11020, PFN_cuDeviceGetMemPool_v11020)              \
    X(cuMemPoolTrimTo, "cuMemPoolTrimTo", 11020, PFN_cuMemPoolTrimTo_v11020)                       \
    X(cuMemPoolGetAttribute, "cuMemPoolGetAttribute", 11020, PFN_cuMemPoolGetAttribute_v11020)     \
    X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 11020, PFN_cuMemPoolSetAttribute_v11020)     \
    X(cuMemPoolCreate, "cuMemPoolCreate", 11020, PFN_cuMemPoolCreate_v11020)                       \
    X(cuMemPoolDestroy, "cuMemPoolDestroy", 11020, PFN_cuMemPoolDestroy_v11020)                    \
    X(cuMemPoolSetAccess, "cuMemPoolSetAccess", 11020, PFN_cuMemPoolSetAccess_v11020)              \
    X(cuMemPoolGetAccess, "cuMemPoolGetAccess", 11020, PFN_cuMemPoolGetAccess_v11020)              \
    X(cuDeviceSetMemPool, "cuDeviceSetMemPool", 11020, PFN_cuDeviceSetMemPool_v11020)              \
    X(cuMemGetDefaultMemPool, "cuMemGetDefaultMemPool", 13000, PFN_cuMemGetDefaultMemPool_v13000)  \
    X(cuMemGetMemPool, "cuMemGetMemPool", 13000, PFN_cuMemGetMemPool_v13000)                       \
    X(cuMemSetMemPool, "cuMemSetMemPool", 13000, PFN_cuMemSetMemPool_v13000)                       \
    X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", 10020,                       \
      PFN_cuMemGetAllocationGranularity_v10020)                                                    \
    X(cuMemAddressReserve, "cuMemAddressReserve", 10020, PFN_cuMemAddressReserve_v10020)           \
    X(cuMemAddressFree, "cuMemAddressFree", 10020, PFN_cuMemAddressFree_v10020)                    \
    X(cuMemCreate, "cuMemCreate", 10020, PFN_cuMemCreate_v10020)                                   \
    X(cuMemRelease, "cuMemRelease", 10020, PFN_cuMemRelease_v10020)                                \
    X(cuMemMap, "cuMemMap", 10020, PFN_cuMemMap_v10020)                                            \
    X(cuMemUnmap, "cuMemUnmap", 10020, PFN_cuMemUnmap_v10020)                                      \
    X(cuMemSetAccess, "cuMemSetAccess", 10020, PFN_cuMemSetAccess_v10020)                          \
    X(cuMemGetAccess, "cuMemGetAccess", 10020, PFN_cuMemGetAccess_v10020)                          \
    X(cuMemExportToShareableHandle, "cuMemExportToShareableHandle", 10020,                         \
      PFN_cuMemExportToShareableHandle_v10020)                                                     \
    X(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle", 10020,                     \
      PFN_cuMemImportFromShareableHandle_v10020)                                                   \
    X(cuMemGetAllocationPropertiesFromHandle, "cuMemGetAllocationPropertiesFromHandle", 10020,     \
      PFN_cuMemGetAllocationPropertiesFromHandle_v10020)                                           \
    X(cuMemRetainAllocationHandle, "cuMemRetainAllocationHandle", 11000,                           \
      PFN_cuMemRetainAllocationHandle_v11000)                                                      \
    X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", 4000, PFN_cuDeviceCanAccessPeer_v4000)       \
    X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", 4000, PFN_cuCtxEnablePeerAccess_v4000)       \
    X(cuCtxDisablePeerAccess, "cuCtxDisablePeerAccess", 4000, PFN_cuCtxDisablePeerAccess_v4000)    \
    X(cuIpcGetMemHandle, "cuIpcGetMemHandle", 4010, PFN_cuIpcGetMemHandle_v4010)                   \
    X(cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", 11000, PFN_cuIpcOpenMemHandle_v11000)           \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", 4010, PFN_cuIpcCloseMemHandle_v4010)             \
    X(cuIpcGetEventHandle, "cuIpcGetEventHandle", 4010, PFN_cuIpcGetEventHandle_v4010)             \
    X(cuIpcOpenEventHandle, "cuIpcOpenEventHandle", 4010, PFN_cuIpcOpenEventHandle_v4010)

struct CUstream_st;
struct CUctx_st;

/* ------------------------------------------------------------------------------------------ */
/* Ranges of memory                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* What made a range. The order is the one of cushim_mock_memory_kind (cushim_mock.h). */
typedef enum mock_mem_kind {
    MOCK_MEM_DEVICE,      /* cuMemAlloc, cuMemAllocPitch */
    MOCK_MEM_HOST,        /* cuMemAllocHost, cuMemHostAlloc */
    MOCK_MEM_MANAGED,     /* cuMemAllocManaged */
    MOCK_MEM_REGISTERED,  /* cuMemHostRegister: the user's bytes */
    MOCK_MEM_ASYNC,       /* cuMemAllocAsync, cuMemAllocFromPoolAsync */
    MOCK_MEM_VMM_HANDLE,  /* cuMemCreate (counted only: a handle is not an address) */
    MOCK_MEM_VMM_RESERVE, /* cuMemAddressReserve */
    MOCK_MEM_VMM_MAPPING, /* cuMemMap */
    MOCK_MEM_IPC,         /* cuIpcOpenMemHandle: another process's allocation, mapped here */
    MOCK_MEM_KIND_COUNT
} mock_mem_kind;

/* A live range of addresses the mock handed out. */
typedef struct mock_range {
    uintptr_t base;
    size_t size;
    mock_mem_kind kind;
    struct CUctx_st *ctx; /* NULL for VMM ranges, which belong to no context */
    int device;
    void *storage; /* what free() takes; NULL when the mock does not own the bytes */
    unsigned flags;
    unsigned long long id;     /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
    unsigned long long handle; /* a mapping: the cuMemCreate handle behind it */
    unsigned access;           /* a mapping: CUmemAccess_flags granted by cuMemSetAccess */
    const char *made_by;
    /* Managed memory: the last advice and prefetch given for any part of it (mock_managed.c). */
    bool read_mostly;
    CUmemLocation preferred, prefetched; /* type CU_MEM_LOCATION_TYPE_INVALID: none */
    unsigned accessed_by;                /* a bit per device */
    bool sync_memops;                    /* cuPointerSetAttribute */
    unsigned char *init; /* initcheck: a bit per byte written (mock_check.c), NULL: not kept */
} mock_range;

/* CUSHIM_MOCK_CHECK's memcheck (mock_check.c): a device allocation still live when its context
 * goes or the program ends is reported as a leak; mock_memory.c walks its ranges for the second. */
void mock__check_leak(const mock_range *r, const char *when);
void mock__check_leaks_at_exit(void);
/* initcheck of device allocations: whether a new one in ctx keeps a bit per byte written; the
 * bits of the allocation holding p (NULL: none kept) with its bounds (set whenever p lies in
 * one); bytes [dst, dst + width)
 * of `height` rows `pitch` apart marked written (a copy or set: mock__run_op). */
bool mock__check_keeps_init(struct CUctx_st *ctx);
unsigned char *mock__init_map(uintptr_t p, uintptr_t *lo, uintptr_t *hi);
void mock__check_written(uintptr_t dst, size_t width, size_t height, size_t pitch);
/* After a copy: bytes of its source that a kernel stored undefined (initcheck) stay so in a
 * device destination, and copied to the host are reported there, with the kernel that stored
 * them. */
struct mock_mem_op;
void mock__check_copied(const struct mock_mem_op *op);
/* Whether p lies in memory the process has mapped (/proc/self/maps): a host address. */
bool mock__host_memory(uintptr_t p);
/* The live range holding p (VMM reservations only where asked for), NULL for none. */
mock_range *mock__range_at(uintptr_t p, bool reservations);
/* Whether [p, p + n) is memory the device may touch: inside one range, or adjacent mappings
 * of a reservation that grant access. Otherwise reports a memory error naming the call in
 * progress through mock__mem_error (which aborts by default) and returns its code. `what`
 * names the argument ("destination", ...). */
CUresult mock__check_device(const char *what, uintptr_t p, size_t n);
/* For a pointer that may be host memory (cuMemcpy, 2D unified): checked as device memory when
 * it starts inside a range or a freed one, accepted as host memory otherwise. */
CUresult mock__check_any(const char *what, uintptr_t p, size_t n);
/* Module variables of interpreted PTX (the storage cuModuleGetGlobal hands out): device memory
 * for the checks of copies, not allocations (not counted, not freed by the program). */
void mock__module_vars(uintptr_t base, size_t size, bool add);
/* A module's variables at unload: no longer device memory, and named as a dead module's when a
 * copy or a kernel touches them (`by` names the call that unloaded it). */
void mock__module_vars_dead(uintptr_t base, size_t size, const char *by);
/* Whether [p, p + n) lies in one module's variables. */
bool mock__is_module_var(uintptr_t p, size_t n);
/* For the PTX interpreter: whether [p, p + n) lies in one live allocation (its bounds in *lo,
 * *hi), else a sentence in why. Called by running kernels without the mock's lock: it reads the
 * ranges under their own read-write lock, which every change of them takes to write. */
bool mock__kernel_access(uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi, char *why,
                         size_t len);
/* IPC (mock_ipc.c): what mock__drop_range calls for a range that may be exported or opened
 * (its shared pages go back to private ones, or are unmapped), and the reset of it all. */
void mock__ipc_forget(mock_range *r);
void mock__ipc_reset(void);
/* Adds a range (its id and counts are set here); frees a live one. */
CUresult mock__add_range(const mock_range *r);
void mock__drop_range(mock_range *r, const char *freed_by);
/* The live range whose base is p, of one of the kinds in the mask (1 << kind); a misuse when
 * none: double free, an interior pointer, one never handed out. NULL then, with *err set. */
mock_range *mock__range_to_free(uintptr_t p, unsigned kinds, CUresult *err);
/* The context an allocation lands in: the current one (CUDA_ERROR_INVALID_CONTEXT without). */
CUresult mock__alloc_ctx(struct CUctx_st **c);
/* The pool an allocation of cuMemAllocAsync or cuMemAllocFromPoolAsync came from. */
CUmemoryPool mock__pool_of(const mock_range *r);
/* Device memory in use on a device (for cuMemGetInfo and the pools). */
unsigned long long mock__used(int device, int kind);
/* A misuse of memory by the call in progress: aborts with the message (the default), or, when
 * the tests asked for it, records the message and returns CUDA_ERROR_INVALID_VALUE. */
CUresult mock__mem_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The name of the call in progress on this thread, as logged ("cuMemcpyHtoD_v2_ptds"). */
const char *mock__entry_name(void);
void mock__note_entry(const char *name);

/* ------------------------------------------------------------------------------------------ */
/* The stream-ordering hook                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* One operation on memory that runs in stream order. Copies and sets are 2D: a 1D one has
 * height 1. Every address was checked when the call was made. */
typedef enum mock_mem_op_kind { MOCK_OP_COPY, MOCK_OP_SET, MOCK_OP_FREE } mock_mem_op_kind;

typedef struct mock_mem_op {
    mock_mem_op_kind kind;
    const char *entry;  /* the call that made it, as logged */
    unsigned char *dst; /* COPY, SET; FREE: the base to free */
    const unsigned char *src;
    size_t dpitch, spitch; /* bytes between rows */
    size_t width;          /* COPY: bytes per row; SET: elements per row */
    size_t height;
    unsigned value; /* SET */
    unsigned elem;  /* SET: 1, 2 or 4 bytes */
} mock_mem_op;

/* THE hook: every copy, set and stream-ordered free goes through here, with the lock held.
 * `s` is the resolved stream (a context's default stream for synchronous calls). `sync` is
 * true for a synchronous call: it waits for s's earlier work, runs op, and returns when op is
 * done. For an async call today the op runs at once and s gets one item of pending work (as a
 * launch does); the execution side may instead queue a copy of *op and run it later with
 * mock__run_op, or record it into a graph under capture. */
CUresult mock__mem_enqueue(struct CUstream_st *s, const mock_mem_op *op, bool sync);
/* Performs op now (with the lock held). */
void mock__run_op(const mock_mem_op *op);

/* ------------------------------------------------------------------------------------------ */
/* Devices, peers, per-thread entries                                                         */
/* ------------------------------------------------------------------------------------------ */

typedef struct mock_device_extra {
    char name[64];
    unsigned long long total_mem;
    bool known[CU_DEVICE_ATTRIBUTE_MAX]; /* attributes the profile answers */
    const char *profile;
} mock_device_extra;
extern mock_device_extra mock__devx[];

/* Gives device `ordinal` the profile named `name` ("h200", "ada"); false for an unknown name. */
bool mock__apply_profile(int ordinal, const char *name);
/* Sets the devices from a spec ("h200x2", "ada", "h200,ada"); false, with the reason on stderr,
 * for a bad one (and the devices stay as they were). */
bool mock__set_devices(const char *spec);
/* The devices at boot and reset: $CUSHIM_MOCK_DEVICES, else one H200. A value that cannot be
 * used leaves one H200 and a reason for cuInit to fail with (mock__devices_error). */
void mock__default_devices(void);
/* Why $CUSHIM_MOCK_DEVICES could not be used (a sentence naming the accepted profiles), or
 * NULL. */
const char *mock__devices_error(void);

/* Memory and peer state: everything freed (NULL) or the state of one dying context. */
void mock__mem_reset(void);
void mock__peer_forget(struct CUctx_st *ctx);

/* One per-thread entry of cudaTypedefs.h (generated into mock_ptds.c). */
typedef struct mock_pt_row {
    const char *base;   /* as cuGetProcAddress takes it */
    const char *symbol; /* the driver's symbol: "cuMemcpyHtoD_v2_ptds" */
    int abi_version;    /* the legacy ABI it shares: the mock row with this version */
    int pt_version;     /* the release that has the per-thread entry */
    void (*fn)(void);   /* the wrapper */
} mock_pt_row;
extern const mock_pt_row mock__pt_rows[];
extern const int mock__pt_count;
/* Called by a wrapper: notes the per-thread entry for the call about to be made, and returns
 * the mock row's function that the wrapper calls. */
void (*mock__pt_begin(int i))(void);
/* Called by mock__enter for row `id`: the per-thread symbol when the call came through a
 * per-thread wrapper of that row (and counts it), else NULL. */
const char *mock__pt_consume(int id);
/* The wrapper of a row for cuGetProcAddress with the per-thread flag, NULL for none. */
void (*mock__pt_for_row(int row, int version))(void);

/* Name forms: the base name of "cuMemcpyHtoD_v2_ptds", "cuCtxSynchronize_v2", ... into out. */
void mock__base_of(const char *name, char *out, size_t len);

/* Knob state of this part, kept out of mock_state so that the two halves merge cleanly. */
typedef struct mock_knobs {
    bool mem_errors_fatal;
    char mem_error[512];
    int mem_error_count;
    int pt_calls[128]; /* per per-thread row */
    int sticky_fails;  /* fail_always faults armed */
} mock_knobs;
extern mock_knobs mock__k;

#endif
