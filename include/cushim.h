/* cushim: the CUDA driver API without linking to it.
 *
 * The one public header. It includes the toolkit's <cuda.h> (found at build time; cushim.pc and
 * the Meson dependency carry its directory) and the generated table of driver entry points.
 * Every function here returns a CUresult where it can fail, never aborts and never exits.
 */
#ifndef CUSHIM_H
#define CUSHIM_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

#include "cushim_table.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CUSHIM_STATIC)
#define CUSHIM_API
#elif defined(__GNUC__)
#define CUSHIM_API __attribute__((visibility("default")))
#else
#define CUSHIM_API
#endif

#define CUSHIM_VERSION_MAJOR 0
#define CUSHIM_VERSION_MINOR 1
#define CUSHIM_VERSION_PATCH 0

/* ------------------------------------------------------------------------------------------ */
/* Loader                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* What cushim_init() found. The CUresult that goes with each status (cushim_init()'s return
 * value and cushim_driver_info.result) is chosen so that its cuda.h sentence is true:
 *
 *   status                      result
 *   CUSHIM_DRIVER_LOADED        CUDA_SUCCESS
 *   CUSHIM_DRIVER_NOT_FOUND     CUDA_ERROR_NOT_INITIALIZED: no candidate library could be
 *                               opened ("initialization has failed"), or CUSHIM_DRIVER was
 *                               empty or relative;
 *                               CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: a library opened but
 *                               exports no cuInit, so it is not a driver
 *   CUSHIM_DRIVER_STUB          CUDA_ERROR_STUB_LIBRARY: NVIDIA's stub libcuda, which only
 *                               satisfies the linker
 *   CUSHIM_DRIVER_TOO_OLD       CUDA_ERROR_NOT_SUPPORTED: the driver has no cuGetProcAddress
 *   CUSHIM_DRIVER_INIT_FAILED   cuInit's own code (CUDA_ERROR_NO_DEVICE, ...), or
 *                               CUDA_ERROR_NOT_INITIALIZED in a child forked after init
 */
typedef enum cushim_driver_status {
    CUSHIM_DRIVER_LOADED,      /* a driver was loaded, cuInit succeeded, the table is resolved */
    CUSHIM_DRIVER_NOT_FOUND,   /* no candidate library could be opened, or none was a driver */
    CUSHIM_DRIVER_STUB,        /* the toolkit's stub libcuda: cuInit said CUDA_ERROR_STUB_LIBRARY */
    CUSHIM_DRIVER_TOO_OLD,     /* the driver has no cuGetProcAddress (older than CUDA 11.3) */
    CUSHIM_DRIVER_INIT_FAILED  /* cuInit failed with its own code: no device, forked child, ... */
} cushim_driver_status;

typedef struct cushim_driver_info {
    cushim_driver_status status;
    CUresult result;           /* what cushim_init() returns */
    const char *message;       /* why: every path tried, with the dlerror() text */
    const char *path;          /* the library loaded, or NULL */
    int driver_version;        /* cuDriverGetVersion(), 0 when none */
    int header_version;        /* CUDA_VERSION that cushim was built against */
    unsigned entries_total;    /* entries in the table */
    unsigned entries_resolved; /* of which this driver provides */
    bool per_thread_stream;    /* cushim's own functions use the per-thread default stream
                                  (built with -Ddefault_stream=per-thread); the raw table and the
                                  drop-in follow each translation unit's own mode instead */
} cushim_driver_info;

/* Loads the driver and calls cuInit(0), once per process; thread-safe. Returns CUDA_SUCCESS or
 * the result that goes with the status (see cushim_driver_status above), with the reason in
 * cushim_last_error() and cushim_driver_get_info()->message. Later calls return the cached
 * result. Every other function calls it, so callers never have to.
 * fork(): in a child forked after a successful cushim_init(), every cushim function and every
 * slot of the raw table answers CUDA_ERROR_NOT_INITIALIZED with a sentence saying why, without
 * touching the parent's driver state; a child of a process that never initialised is free to. */
CUSHIM_API CUresult cushim_init(void);

/* For tests: forgets the loaded driver and cushim_init()'s result, so that the next cushim
 * function loads again, with the environment (CUSHIM_DRIVER) and the mock's knobs as they are
 * then. One test program can so check its behaviour without a driver and with one. Returns
 * CUDA_SUCCESS; CUDA_ERROR_ILLEGAL_STATE while any cushim context or library is alive (every
 * other object holds a context: release them first); CUDA_ERROR_NOT_INITIALIZED in a forked
 * child. No other thread may be calling cushim meanwhile. Raw table pointers stay valid. */
CUSHIM_API CUresult cushim_testing_reinit(void);

/* The state of the loader after cushim_init() (which it calls). Never NULL; valid forever. */
CUSHIM_API const cushim_driver_info *cushim_driver_get_info(void);

/* The raw table, fields named as in cuda.h: cushim_driver()->cuMemAlloc(&p, n). Never NULL,
 * and no slot is ever NULL: it calls cushim_init(), and when that failed every slot returns its
 * result and sets cushim_last_error() to the entry's name and the reason (cuGetErrorName and
 * cuGetErrorString answer from cushim's own tables then). An entry the driver lacks returns
 * CUDA_ERROR_NOT_SUPPORTED with a sentence. Otherwise raw calls are the driver's own and do
 * not set cushim_last_error().
 * Like cuda.h, the table follows the including translation unit's default-stream mode: with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM defined, cushim_driver() is cushim_driver_per_thread()
 * and its slots hold the per-thread entries (cuLaunchKernel is cuLaunchKernel_ptsz). */
CUSHIM_API const cushim_driver_table *cushim_driver(void);

/* Whether the loaded driver provides an entry, by its cuda.h name ("cuLaunchKernelEx") or its
 * versioned symbol ("cuCtxCreate_v4"). False without a driver or for a name cuda.h lacks. */
CUSHIM_API bool cushim_driver_has(const char *entry);

/* ------------------------------------------------------------------------------------------ */
/* Errors and logging                                                                         */
/* ------------------------------------------------------------------------------------------ */

/* "CUDA_ERROR_INVALID_VALUE"; works without a driver; unknown codes read "unknown CUresult N". */
CUSHIM_API const char *cushim_error_name(CUresult r);
/* A sentence describing r, from cuda.h's documentation; works without a driver. */
CUSHIM_API const char *cushim_error_string(CUresult r);
/* A thread-local sentence about the last failure of a cushim function on this thread, starting
 * with that function's name; "" when there was none. Set by cushim_* functions that fail; raw
 * table and drop-in calls do not set it, except when they fail because no driver could be
 * loaded. Valid until this thread's next failing cushim call. */
CUSHIM_API const char *cushim_last_error(void);

typedef enum cushim_log_level {
    CUSHIM_LOG_DEBUG,
    CUSHIM_LOG_INFO,
    CUSHIM_LOG_WARN,
    CUSHIM_LOG_ERROR,
    CUSHIM_LOG_OFF
} cushim_log_level;

typedef void (*cushim_log_fn)(cushim_log_level level, const char *message, void *user);

/* Routes messages at or above min_level to fn. With fn NULL, messages at or above CUSHIM_LOG
 * (error|warn|info|debug|off, default warn) go to stderr. Thread-safe. */
CUSHIM_API void cushim_set_log_handler(cushim_log_fn fn, void *user, cushim_log_level min_level);

/* ------------------------------------------------------------------------------------------ */
/* Objects                                                                                    */
/* ------------------------------------------------------------------------------------------ */
/* Opaque and refcounted: *_retain returns its argument, the last *_release destroys exactly
 * once. Every object holds a reference to its context. NULL out-pointers and handles are
 * CUDA_ERROR_INVALID_VALUE; a handle of the wrong kind or one already released (while its memory
 * is still ours) is CUDA_ERROR_INVALID_HANDLE. On failure an out-pointer is set to NULL. */

typedef struct cushim_context cushim_context;
typedef struct cushim_stream cushim_stream;
typedef struct cushim_event cushim_event;
typedef struct cushim_module cushim_module;
typedef struct cushim_library cushim_library;
typedef struct cushim_function cushim_function;

/* Retains the primary context of device `ordinal` (the one the CUDA runtime uses). */
CUSHIM_API CUresult cushim_context_primary(cushim_context **out, int ordinal);
/* Creates a dedicated context on device `ordinal` with CU_CTX_* flags; the calling thread's
 * current context is left as it was. */
CUSHIM_API CUresult cushim_context_create(cushim_context **out, int ordinal, unsigned flags);
CUSHIM_API cushim_context *cushim_context_retain(cushim_context *ctx);
CUSHIM_API void cushim_context_release(cushim_context *ctx);
/* Waits for all work in ctx. */
CUSHIM_API CUresult cushim_context_synchronize(cushim_context *ctx);
/* Waits for all work in the calling thread's current context. */
CUSHIM_API CUresult cushim_device_synchronize(void);
/* The context's stream priorities: numerically least (lowest) and greatest (highest). */
CUSHIM_API CUresult cushim_context_stream_priority_range(cushim_context *ctx, int *least,
                                                         int *greatest);
CUSHIM_API CUcontext cushim_context_raw(const cushim_context *ctx);
CUSHIM_API CUdevice cushim_context_device(const cushim_context *ctx);

/* Creates a stream in ctx with CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING and a priority
 * within cushim_context_stream_priority_range (0 is the default). */
CUSHIM_API CUresult cushim_stream_create(cushim_stream **out, cushim_context *ctx, unsigned flags,
                                         int priority);
CUSHIM_API cushim_stream *cushim_stream_retain(cushim_stream *s);
CUSHIM_API void cushim_stream_release(cushim_stream *s);
CUSHIM_API CUresult cushim_stream_synchronize(cushim_stream *s);
/* CUDA_SUCCESS when all work is done, CUDA_ERROR_NOT_READY while some is pending. */
CUSHIM_API CUresult cushim_stream_query(cushim_stream *s);
/* Makes future work in s wait for the last record of e. s NULL: the default stream of e's
 * context. */
CUSHIM_API CUresult cushim_stream_wait_event(cushim_stream *s, cushim_event *e, unsigned flags);
/* True when a and b submit to the same queue (the same driver stream). */
CUSHIM_API bool cushim_stream_same_queue(const cushim_stream *a, const cushim_stream *b);
CUSHIM_API cushim_context *cushim_stream_context(const cushim_stream *s);
CUSHIM_API CUstream cushim_stream_raw(const cushim_stream *s);

/* Creates an event in ctx with CU_EVENT_DEFAULT, CU_EVENT_BLOCKING_SYNC,
 * CU_EVENT_DISABLE_TIMING and CU_EVENT_INTERPROCESS (which needs DISABLE_TIMING). */
CUSHIM_API CUresult cushim_event_create(cushim_event **out, cushim_context *ctx, unsigned flags);
CUSHIM_API cushim_event *cushim_event_retain(cushim_event *e);
CUSHIM_API void cushim_event_release(cushim_event *e);
/* Records e on s; s NULL: the default stream of e's context. */
CUSHIM_API CUresult cushim_event_record(cushim_event *e, cushim_stream *s);
CUSHIM_API CUresult cushim_event_synchronize(cushim_event *e);
CUSHIM_API CUresult cushim_event_query(cushim_event *e);
/* Milliseconds between two completed records. A timing-disabled event is refused with
 * CUDA_ERROR_INVALID_HANDLE and a sentence saying so. */
CUSHIM_API CUresult cushim_event_elapsed_ms(float *ms, cushim_event *start, cushim_event *end);
CUSHIM_API cushim_context *cushim_event_context(const cushim_event *e);
CUSHIM_API CUevent cushim_event_raw(const cushim_event *e);

/* ------------------------------------------------------------------------------------------ */
/* Modules, libraries and functions                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Loads PTX text (NUL-terminated), a cubin or a fatbin into ctx. A PTX that fails to compile
 * puts the JIT's error log into cushim_last_error(). */
CUSHIM_API CUresult cushim_module_load_data(cushim_module **out, cushim_context *ctx,
                                            const void *image);
CUSHIM_API CUresult cushim_module_load_file(cushim_module **out, cushim_context *ctx,
                                            const char *path);
CUSHIM_API cushim_module *cushim_module_retain(cushim_module *m);
CUSHIM_API void cushim_module_release(cushim_module *m);
/* The kernel `name` of m, owned by m and valid while m lives. A missing kernel is
 * CUDA_ERROR_NOT_FOUND with a sentence naming it. */
CUSHIM_API CUresult cushim_module_function(cushim_function **out, cushim_module *m,
                                           const char *name);

/* Context-less kernels (cuLibraryLoadData / CUkernel). A library's functions launch in the
 * context of the launch's stream, or in ctx's default stream (see cushim_library_function). */
CUSHIM_API CUresult cushim_library_load_data(cushim_library **out, const void *image);
CUSHIM_API cushim_library *cushim_library_retain(cushim_library *lib);
CUSHIM_API void cushim_library_release(cushim_library *lib);
/* The kernel `name` of lib, bound to ctx for launches on a NULL stream and for the pre-checks. */
CUSHIM_API CUresult cushim_library_function(cushim_function **out, cushim_library *lib,
                                            cushim_context *ctx, const char *name);

/* The driver handle to launch: a CUfunction, or a CUkernel cast to one. */
CUSHIM_API CUfunction cushim_function_raw(const cushim_function *f);

/* ------------------------------------------------------------------------------------------ */
/* Launch and occupancy                                                                       */
/* ------------------------------------------------------------------------------------------ */

typedef struct cushim_dim3 {
    unsigned x, y, z;
} cushim_dim3;

#if defined(__cplusplus)
/* C++ has no compound literals; list-initialisation is the same value, without extensions. */
#define CUSHIM__DIM3_1(x) (cushim_dim3{static_cast<unsigned>(x), 1u, 1u})
#define CUSHIM__DIM3_2(x, y) (cushim_dim3{static_cast<unsigned>(x), static_cast<unsigned>(y), 1u})
#define CUSHIM__DIM3_3(x, y, z)                                                                   \
    (cushim_dim3{static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(z)})
#else
#define CUSHIM__DIM3_1(x) ((cushim_dim3){(x), 1u, 1u})
#define CUSHIM__DIM3_2(x, y) ((cushim_dim3){(x), (y), 1u})
#define CUSHIM__DIM3_3(x, y, z) ((cushim_dim3){(x), (y), (z)})
#endif
#define CUSHIM__DIM3_PICK(a, b, c, name, ...) name
/* CUSHIM_DIM3(x), CUSHIM_DIM3(x, y) or CUSHIM_DIM3(x, y, z); missing sizes are 1. */
#define CUSHIM_DIM3(...)                                                                          \
    CUSHIM__DIM3_PICK(__VA_ARGS__, CUSHIM__DIM3_3, CUSHIM__DIM3_2, CUSHIM__DIM3_1, _)(__VA_ARGS__)

typedef struct cushim_launch_config {
    cushim_dim3 grid, block;
    unsigned shared_mem_bytes; /* dynamic shared memory per block */
    cushim_stream *stream;     /* NULL: the default stream of the function's context */
} cushim_launch_config;

/* Launches f. params is what cuLaunchKernel takes: an array of pointers to each argument.
 * Zero or oversized dimensions, too many threads per block and too much shared memory are
 * refused before the driver is called, with CUDA_ERROR_INVALID_VALUE and a sentence. */
CUSHIM_API CUresult cushim_launch(const cushim_function *f, const cushim_launch_config *cfg,
                                  void **params);
/* As cushim_launch, for a grid whose blocks run at once. Also refused before the driver:
 * a device without cooperative launch (CUDA_ERROR_NOT_SUPPORTED) and a grid larger than fits
 * at once (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), each with a sentence. */
CUSHIM_API CUresult cushim_launch_cooperative(const cushim_function *f,
                                              const cushim_launch_config *cfg, void **params);

CUSHIM_API CUresult cushim_occupancy_max_active_blocks(int *blocks, const cushim_function *f,
                                                       int block_size, size_t dynamic_smem);
CUSHIM_API CUresult cushim_occupancy_max_potential_block_size(int *min_grid, int *block_size,
                                                              const cushim_function *f,
                                                              size_t dynamic_smem,
                                                              int block_limit);
/* As above, with the dynamic shared memory given per block size by a callback. */
CUSHIM_API CUresult cushim_occupancy_max_potential_block_size_fn(
    int *min_grid, int *block_size, const cushim_function *f,
    CUoccupancyB2DSize smem_for_block_size, int block_limit);
/* The largest grid of block_size threads that a cooperative launch of f can have: max active
 * blocks per SM times the SM count. */
CUSHIM_API CUresult cushim_occupancy_max_cooperative_grid(int *blocks, const cushim_function *f,
                                                          int block_size, size_t dynamic_smem);

#ifdef __cplusplus
}
#endif

#endif /* CUSHIM_H */
