/* Control API of libcushim-mock.so, the fake CUDA driver.
 *
 * The mock is a real shared library that exports cuGetProcAddress_v2, cuInit and the driver
 * entry points cushim uses, and keeps real state: devices, a thread-local current context,
 * contexts, streams, events, modules, libraries, launches and a clock. A test (or a user's own
 * test) reaches this API by dlopen() of the same path that CUSHIM_DRIVER names: both handles
 * are one library, so they share the state. cushim_mock_open() does that and resolves every
 * function below.
 *
 * A handle the mock never made or one already destroyed is a misuse by the code under test:
 * the mock says so on stderr, naming the call, and the call returns CUDA_ERROR_INVALID_HANDLE
 * (CUDA_ERROR_INVALID_CONTEXT for a context); with CUSHIM_MOCK_FATAL=1 or
 * set_memory_errors_fatal(true) it aborts instead, for a test that wants the loudest failure. It
 * remembers the last 4096 destroyed streams and the last 4096 destroyed events; an older one's
 * record may be made again by a later create, so that memory stays flat over millions of
 * creates.
 */
#ifndef CUSHIM_MOCK_H
#define CUSHIM_MOCK_H

#include <cuda.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cushim_mock_kind {
    CUSHIM_MOCK_CONTEXT, /* created contexts and retained primary contexts */
    CUSHIM_MOCK_STREAM,
    CUSHIM_MOCK_EVENT,
    CUSHIM_MOCK_MODULE,
    CUSHIM_MOCK_LIBRARY,
    CUSHIM_MOCK_MEMORY,     /* cuMemAlloc allocations */
    CUSHIM_MOCK_GRAPH,      /* graphs: ended captures, until cuGraphDestroy */
    CUSHIM_MOCK_GRAPH_EXEC, /* graph executables */
    CUSHIM_MOCK_KIND_COUNT
} cushim_mock_kind;

/* Memory by what made it, for live_memory(). */
typedef enum cushim_mock_memory_kind {
    CUSHIM_MOCK_MEM_DEVICE,      /* cuMemAlloc, cuMemAllocPitch */
    CUSHIM_MOCK_MEM_HOST,        /* cuMemAllocHost, cuMemHostAlloc */
    CUSHIM_MOCK_MEM_MANAGED,     /* cuMemAllocManaged */
    CUSHIM_MOCK_MEM_REGISTERED,  /* cuMemHostRegister */
    CUSHIM_MOCK_MEM_ASYNC,       /* cuMemAllocAsync, cuMemAllocFromPoolAsync (the default pool) */
    CUSHIM_MOCK_MEM_VMM_HANDLE,  /* cuMemCreate handles not yet released */
    CUSHIM_MOCK_MEM_VMM_RESERVE, /* cuMemAddressReserve ranges */
    CUSHIM_MOCK_MEM_VMM_MAPPING, /* cuMemMap mappings */
    CUSHIM_MOCK_MEM_IPC,         /* cuIpcOpenMemHandle mappings not yet closed */
    CUSHIM_MOCK_MEM_KIND_COUNT
} cushim_mock_memory_kind;

/* One recorded launch (cuLaunchKernel, cuLaunchCooperativeKernel or cuLaunchKernelEx). */
typedef struct cushim_mock_launch {
    char kernel[64];
    unsigned grid[3], block[3];
    unsigned shared_mem_bytes;
    CUstream stream;   /* as passed: NULL for the default stream */
    CUcontext context; /* the context current at the launch */
    bool cooperative;
    /* Execution: cuLaunchKernelEx's attributes (the first 8, as passed), and the kernel's
     * parameter count from its image (-1 where the image does not say). */
    unsigned attr_count;
    CUlaunchAttribute attrs[8];
    int param_count;
} cushim_mock_launch;

/* A kernel's host implementation receives this (the README, "Testing your host code on the mock").
 * Device pointers are host addresses, so it reads and writes them directly. */
typedef struct cushim_mock_kernel_args {
    const char *kernel; /* the kernel's name */
    unsigned grid[3], block[3];
    unsigned shared_mem_bytes;
    CUstream stream;      /* as the program passed it */
    void **params;        /* as cuLaunchKernel's kernelParams: params[i] points to argument i */
    unsigned param_count; /* from the image; 0 where it does not say */
} cushim_mock_kernel_args;

typedef void (*cushim_mock_kernel_fn)(const cushim_mock_kernel_args *args);

/* Where the mock tells why a driver call failed: on the failing call's thread, before the call
 * returns, a sentence naming the entry, the code and what the mock printed on stderr or knows
 * ("cuLaunchKernel failed on the mock driver with CUDA_ERROR_NO_BINARY_FOR_GPU: kernel k has
 * ..."); the text lives until that thread's next call. The mock exports
 *   void cushim_mock_set_error_sink(cushim_mock_error_sink fn);   (NULL: none)
 * which cushim's loader finds with dlsym when the driver it loads is the mock, so that
 * cushim_last_error() holds the sentence after a failing call through the drop-in or the raw
 * table. A call that succeeds tells nothing. */
typedef void (*cushim_mock_error_sink)(const char *sentence);

/* Who is told of each kernel's execution: a kernel's name, its grid and block, the stream as
 * its launch passed it, when it started and ended (CLOCK_MONOTONIC, ns) and the
 * thread-instructions the PTX interpreter ran for it (0 for a host kernel). Called after the
 * kernel ran, on the thread that ran it, under the mock's lock: it must not call the driver.
 * The mock exports
 *   void cushim_mock_set_kernel_observer(cushim_mock_kernel_observer fn, void *user);
 * (NULL: none), which cushim's tracer finds with dlsym to draw each kernel on its stream's
 * track of the timeline and count it in the summary. Once it returned, the previous observer
 * is not called again. */
typedef void (*cushim_mock_kernel_observer)(void *user, const char *kernel, const unsigned grid[3],
                                            const unsigned block[3], CUstream stream,
                                            unsigned long long start_ns, unsigned long long end_ns,
                                            unsigned long long thread_instructions);

/* A cubin that NVRTC compiled for a real architecture carries SASS only, which the mock cannot
 * run. cushim's NVRTC layer hands the mock the program's PTX beside it; the mock exports
 *   void cushim_mock_attach_ptx(const void *cubin, size_t size, const char *ptx);
 * and reads a cubin of the same bytes, loaded later (alone or in a fatbin), with that PTX too,
 * so that its kernels are interpreted. The last 64 pairs are kept, until reset. */

/* The control functions, exported by the mock under these names. */
typedef struct cushim_mock_api {
    /* Back to the start: the devices of CUSHIM_MOCK_DEVICES (one H200 when unset), driver
     * 13000, no objects, no memory, no knobs, counts 0.
     * Objects still alive are forgotten (and later use of them aborts). */
    void (*reset)(void);

    /* Fail the nth next call (1: the very next) of entry `entry` (the base name, as given to
     * cuGetProcAddress: "cuStreamCreate") with `code`; the call does nothing else. */
    void (*fail_call)(const char *entry, int nth, CUresult code);
    /* Fail the nth next driver call of any entry (cuGetProcAddress and control calls not
     * counted). 0 disarms. */
    void (*fail_any)(int nth, CUresult code);
    /* cuGetProcAddress answers CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND for this entry. */
    void (*hide)(const char *entry);
    /* What cuDriverGetVersion reports; cuGetProcAddress refuses newer versions with
     * CUDA_ERROR_INVALID_VALUE, as the real driver does. */
    void (*set_driver_version)(int version);
    /* What cuInit returns from now on (CUDA_SUCCESS by default). */
    void (*set_init_result)(CUresult r);

    /* Calls of `entry` (base name) since the last reset; "*" counts every entry. */
    int (*calls)(const char *entry);
    /* The version cuGetProcAddress was last asked for `entry`, -1 if never; and its flags. */
    int (*asked_version)(const char *entry);
    unsigned long long (*asked_flags)(const char *entry);
    /* How many distinct entries cuGetProcAddress was asked for, and answered with a function
     * (the stubs of entries the mock does not implement included). Asked counts names; resolved
     * counts the functions handed out, so a name with two ABIs
     * (cuCtxSynchronize at 2000 and 13000) counts twice once both were resolved, like the two
     * slots of cushim's table. These records, and whether cuInit succeeded, survive reset: a
     * process resolves and initialises its driver once. */
    int (*asked_count)(void);
    int (*resolved_count)(void);
    /* The ordered log of driver calls since the last reset: the name of call i (0-based), or
     * NULL past the end. Only the last 65536 names are kept (older calls answer NULL), so that
     * a long run keeps its memory flat; calls() counts them all. */
    const char *(*call_name)(int i);

    /* Live objects of a kind, as the driver sees them. */
    int (*live)(cushim_mock_kind kind);
    /* The calling thread's current context. */
    CUcontext (*current)(void);
    /* The context a stream, event, module or function was created in (NULL if unknown). */
    CUcontext (*stream_context)(CUstream s);
    CUcontext (*event_context)(CUevent e);
    CUcontext (*module_context)(CUmodule m);
    /* Whether a context is a device's primary context; its device. */
    bool (*is_primary)(CUcontext ctx);
    /* Primary context retain count of a device (0: inactive). */
    int (*primary_refcount)(int ordinal);

    /* Devices. set_device_count(n) keeps n H200-shaped devices; set_attribute changes one. */
    void (*set_device_count)(int n);
    void (*set_attribute)(int ordinal, CUdevice_attribute attr, int value);

    /* Work: with pending on (the default), a launch or record leaves its stream busy, so
     * cuStreamQuery and cuEventQuery answer CUDA_ERROR_NOT_READY until a synchronize (of the
     * stream, its context or an event recorded after it). Off: work completes at once. */
    void (*set_pending)(bool on);
    /* Each kernel's execution moves the clock that events read by the time its
     * interpretation took; once this is called, by exactly this many microseconds instead, so
     * that cuEventElapsedTime between records gives fixed figures. Ends at reset. */
    void (*set_launch_us)(unsigned long long us);

    /* Occupancy model: active blocks per SM for a block size and dynamic shared memory are
     * min(max blocks per SM, max threads per SM / block, smem per SM / (static + dynamic smem))
     * from the device attributes; override forces a fixed answer (-1: use the model). */
    void (*set_occupancy_override)(int blocks_per_sm);
    /* Clusters, on a device of compute capability 9.0 or later with
     * CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH (the H200, not "ada"): cuOccupancyMaxPotentialClusterSize
     * answers 8 (16 for a kernel with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), or
     * active blocks per SM x 16 SMs where that is less (0: the block cannot run);
     * cuOccupancyMaxActiveClusters answers active blocks per SM x SMs / cluster size. A launch
     * whose grid is not a multiple of its cluster, or whose cluster is larger, fails with
     * CUDA_ERROR_INVALID_CLUSTER_SIZE. On a device without clusters, both queries and a launch
     * with a cluster answer CUDA_ERROR_NOT_SUPPORTED. Launch priorities are accepted as given. */
    /* Static shared memory and registers reported for every kernel (cuFuncGetAttribute). */
    void (*set_kernel_attributes)(int static_smem_bytes, int num_regs, int max_threads);

    /* Launches recorded since the last reset: their count and launch i. Only the last 4096
     * records are kept (older ones answer NULL; a pointer stays valid until reset or 4096 more
     * launches), so that a long run keeps its memory flat. */
    int (*launch_count)(void);
    const cushim_mock_launch *(*launch)(int i);

    /* Execution: order, graphs, modules, host kernels */

    /* The host implementation of kernel `name` from now on (NULL: none registered, and the
     * CUSHIM_MOCK_KERNELS library is asked again). Registrations end at reset. */
    void (*register_kernel)(const char *name, cushim_mock_kernel_fn fn);
    /* How many times the host implementation of `name` ran since the last reset ("*": all). */
    int (*host_kernel_runs)(const char *name);
    /* The next load of an image holding PTX (module or library) fails as a JIT error:
     * CUDA_ERROR_INVALID_PTX, with `log` in the JIT's error log (NULL: disarms). Fires once. */
    void (*fail_next_jit)(const char *log);
    /* Kernels the mock cannot run (no host kernel, no PTX it can interpret) run as no-ops
     * instead of failing their launch with CUDA_ERROR_NO_BINARY_FOR_GPU (as
     * CUSHIM_MOCK_NOOP_KERNELS=1 does). Ends at reset. */
    void (*set_noop_kernels)(bool on);
    /* The sentence of the last launch refused or kernel fault ("" for none): a fault of a
     * kernel run from its PTX (CUDA_ERROR_ILLEGAL_ADDRESS, _MISALIGNED_ADDRESS, _ASSERT,
     * _LAUNCH_FAILED for trap or deadlock, _LAUNCH_TIMEOUT for an endless spin) names the
     * kernel, block, thread and PTX line, and is sticky in the context, as the driver's. */
    const char *(*kernel_error)(void);
    /* Thread-instructions the PTX interpreter ran since the process started, every launch
     * summed (also exported as cushim_mock_ptx_instructions, for dlsym). */
    unsigned long long (*ptx_instructions)(void);

    /* Memory, devices and knobs */

    /* Names: wherever a control function takes an entry, any form of its name works: the base
     * name ("cuMemcpyHtoD"), a versioned one ("cuMemcpyHtoD_v2", "cuCtxSynchronize_v2") and
     * the per-thread ones ("cuMemcpyHtoD_v2_ptds", "cuLaunchKernel_ptsz"), and each covers all
     * the others. fail_call and calls take them too.
     *
     * Faults by entry: fail_once fails the next call of the entry and is then gone (as
     * fail_call(entry, 1, code)); fail_always fails every call until disarmed. armed counts the
     * faults still waiting for the entry ("*": all, fail_any included), so a test can see that
     * the call it expected never came; disarm removes them (NULL or "*": all, and fail_any). */
    void (*fail_once)(const char *entry, CUresult code);
    void (*fail_always)(const char *entry, CUresult code);
    int (*armed)(const char *entry);
    void (*disarm)(const char *entry);
    /* Calls of the entry that came through its per-thread entry (cuGetProcAddress asked with
     * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: a program built with
     * CUDA_API_PER_THREAD_DEFAULT_STREAM). The call log shows those calls under the driver's
     * per-thread symbol ("cuMemcpyHtoD_v2_ptds"); others under the base name. */
    int (*per_thread_calls)(const char *entry);

    /* Live memory of a kind: allocations, registrations, handles, reservations, mappings. */
    int (*live_memory)(cushim_mock_memory_kind kind);
    /* Misuse of device memory (out of bounds, use after free, double free, a pointer the mock
     * never handed out) and of handles (never made, already destroyed, of another kind): the
     * call returns an error code (CUDA_ERROR_INVALID_VALUE for memory, CUDA_ERROR_INVALID_HANDLE
     * or CUDA_ERROR_INVALID_CONTEXT for a handle), the message naming the call is printed on
     * stderr and kept: memory_error gives the last one (NULL when none since reset),
     * memory_error_count how many. With fatal on (CUSHIM_MOCK_FATAL=1 at load and reset sets
     * it) the mock aborts with the message instead. */
    void (*set_memory_errors_fatal)(bool fatal);
    const char *(*memory_error)(void);
    int (*memory_error_count)(void);

    /* Devices from profiles: "h200" (the default) and "ada" (compute capability 8.9, 24 SMs,
     * 8 GiB, no clusters), N of one as "h200x2", a list as "h200,ada". The same text in
     * CUSHIM_MOCK_DEVICES sets the devices at load and at reset. False (devices unchanged,
     * the reason on stderr) for a bad spec. Every attribute of cuda.h's CUdevice_attribute is
     * answered for every profile. */
    bool (*set_devices)(const char *spec);
    /* The profile of a device ("h200", "ada"), NULL past the devices. */
    const char *(*device_profile)(int ordinal);

    /* Coverage */

    /* Every entry of cuda.h resolves on the mock. What it does not implement answers
     * CUDA_ERROR_NOT_SUPPORTED (after any fault armed for it; before cuInit too), says so once
     * per process on stderr ("cushim mock: cuFoo is not implemented, ..."), and is logged and
     * counted like any call. hide() still makes an entry unresolved. The generated list of what
     * is implemented, by area of cuda.h, is mock-entries.md in the build's mock directory
     * (share/doc/cushim when installed). */
    /* Whether the mock implements an entry of cuda.h, named in any form; false for a name cuda.h
     * does not declare. */
    bool (*implemented)(const char *entry);
    /* How many entries of cuda.h it implements, of how many; implemented entry i (0-based, in
     * cuda.h's order, named as cuda.h writes it), NULL past the end. */
    int (*implemented_count)(void);
    int (*entry_count)(void);
    const char *(*implemented_name)(int i);

    /* Progress: with pending on, queued stream work (kernels, copies, host functions,
     * callbacks, records) runs by itself on a thread of the mock, as a GPU runs it, without a
     * synchronize; in stream order, under the mock's lock. Off: it waits for a synchronize, a
     * destroy or a query's poll limit, so that CUDA_ERROR_NOT_READY is certain. On by default;
     * CUSHIM_MOCK_ASYNC=0 turns it off, and reset goes back to what that says. */
    void (*set_async)(bool on);

    /* Checks (CUSHIM_MOCK_CHECK): what the interpreter checks as kernels run from their PTX.
     * `checks` is CUSHIM_MOCK_CHECK_* bits (0: none). A check that fires fails its launch with
     * CUDA_ERROR_LAUNCH_FAILED (memcheck's faults keep their codes: CUDA_ERROR_ILLEGAL_ADDRESS,
     * CUDA_ERROR_MISALIGNED_ADDRESS), sticky in the context as any fault, with a sentence naming
     * the check, kernel, block, thread, warp, PTX line and (from the PTX's .loc, nvcc -lineinfo)
     * the source line; with `report` true it writes the sentence on stderr and the kernel goes
     * on, as CUSHIM_MOCK_CHECK_MODE=report. set_check with ctx NULL sets the process's choice
     * (over the environment's); with a context, that context's (over the process's); a handle
     * that is not a live context changes nothing. set_next_launch_check sets the checks of the
     * next launch only (over both). Reset goes back to the environment. */
    void (*set_check)(CUcontext ctx, unsigned checks, bool report);
    void (*set_next_launch_check)(unsigned checks);
    /* Reports of a kind since the process started (0 memcheck, 1 racecheck, 2 initcheck,
     * 3 synccheck; 0 for another number): what the summary at exit prints. */
    unsigned long long (*check_reports)(int kind);
} cushim_mock_api;

/* The checks of set_check and CUSHIM_MOCK_CHECK (memcheck, racecheck, racecheck-strict,
 * initcheck, synccheck, all). */
enum {
    CUSHIM_MOCK_CHECK_MEMCHECK = 1,
    CUSHIM_MOCK_CHECK_RACECHECK = 2,
    CUSHIM_MOCK_CHECK_INITCHECK = 4,
    CUSHIM_MOCK_CHECK_SYNCCHECK = 8,
    CUSHIM_MOCK_CHECK_RACECHECK_STRICT = 16, /* racecheck also of stores that change nothing */
    CUSHIM_MOCK_CHECK_ALL = 15
};

/* Faults are by driver entry, so a fault reaches a cushim function only through the entries it
 * calls, which are not always the ones of the same name: cushim_stream_create calls
 * cuStreamCreateWithPriority, never cuStreamCreate, so fail_call("cuStreamCreate", ...) stays
 * armed through it. The entries cushim's own functions call (besides cuCtxGetCurrent and
 * cuCtxSetCurrent, which any function taking an object may call to make its context current):
 *
 *   cushim_context_primary                cuDeviceGetCount, cuDeviceGet, cuDevicePrimaryCtxRetain
 *   cushim_context_create                 cuDeviceGetCount, cuDeviceGet, cuCtxCreate,
 *                                         cuCtxPopCurrent (cuCtxDestroy when that fails)
 *   cushim_context_release                cuDevicePrimaryCtxRelease (primary) or cuCtxDestroy
 *   cushim_context_synchronize,
 *   cushim_device_synchronize             cuCtxSynchronize
 *   cushim_context_stream_priority_range  cuCtxGetStreamPriorityRange
 *   cushim_stream_create                  cuStreamCreateWithPriority (and, for a priority other
 *                                         than 0, cuCtxGetStreamPriorityRange)
 *   cushim_stream_release                 cuStreamQuery, then cuStreamDestroy or nothing (kept
 *                                         for recycling)
 *   cushim_stream_synchronize             cuStreamSynchronize
 *   cushim_stream_query                   cuStreamQuery
 *   cushim_stream_wait_event              cuStreamWaitEvent
 *   cushim_event_create                   cuEventCreate
 *   cushim_event_release                  cuEventDestroy, or nothing (kept for recycling)
 *   cushim_event_record                   cuEventRecord
 *   cushim_event_synchronize              cuEventSynchronize
 *   cushim_event_query                    cuEventQuery
 *   cushim_event_elapsed_ms               cuEventElapsedTime
 *   cushim_module_load_data,
 *   cushim_module_load_file               cuModuleLoadDataEx
 *   cushim_module_release                 cuModuleUnload
 *   cushim_module_function                cuModuleGetFunction, cuFuncGetAttribute (and, first
 *                                         on a device, cuDeviceGetAttribute)
 *   cushim_library_load_data              cuLibraryLoadData
 *   cushim_library_release                cuLibraryUnload
 *   cushim_library_function               cuLibraryGetKernel, cuKernelGetFunction,
 *                                         cuFuncGetAttribute (first on a device,
 *                                         cuDeviceGetAttribute)
 *   cushim_launch                         cuLaunchKernel (cuFuncGetAttribute for a large
 *                                         dynamic shared memory size)
 *   cushim_launch_cooperative             cuOccupancyMaxActiveBlocksPerMultiprocessor,
 *                                         cuLaunchCooperativeKernel
 *   cushim_occupancy_max_active_blocks,
 *   cushim_occupancy_max_cooperative_grid cuOccupancyMaxActiveBlocksPerMultiprocessor
 *   cushim_occupancy_max_potential_block_size(_fn)  cuOccupancyMaxPotentialBlockSize
 *   cushim_init                           cuInit, cuDriverGetVersion, cuGetProcAddress
 *
 * Recycling: cushim_stream_create and cushim_event_create may hand out an object a release kept,
 * with no driver call at all. A test that faults creates turns it off: CUSHIM_RECYCLE=0, or
 * cushim_context_set_recycling(ctx, false, false).
 */

/* Fills *api from the mock at `path` (NULL: $CUSHIM_DRIVER). Returns false, with the reason
 * on stderr, when the mock cannot be opened. Defined inline so that tests need no extra
 * library. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline bool cushim_mock_open(cushim_mock_api *api, const char *path) {
    if (path == NULL) path = getenv("CUSHIM_DRIVER");
    if (path == NULL) {
        fprintf(stderr, "cushim_mock_open: CUSHIM_DRIVER is not set\n");
        return false;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "cushim_mock_open: %s\n", dlerror());
        return false;
    }
    typedef void (*fill_fn)(cushim_mock_api *);
    fill_fn fill;
    void *sym = dlsym(h, "cushim_mock_get_api");
    if (sym == NULL) {
        fprintf(stderr, "cushim_mock_open: %s is not the cushim mock\n", path);
        return false;
    }
    memcpy(&fill, &sym, sizeof fill); /* dlsym gives an object pointer; this is a function */
    fill(api);
    return true;
}

#ifdef __cplusplus
}
#endif

#endif
