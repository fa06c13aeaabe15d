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
/* The functions of this section are thread-safe, may be called at any time, and work without a
 * driver: they report its absence rather than fail on it. Those that load the driver set
 * cushim_last_error() to the loader's message (see cushim_driver_info.message) whenever
 * cushim_init() fails, on each call. */

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
 *                               and reports a version older than CUDA 11.3
 *   CUSHIM_DRIVER_INIT_FAILED   cuInit's own code (CUDA_ERROR_NO_DEVICE, ...), whatever else
 *                               the driver lacks; cuDriverGetVersion's code when it failed; or
 *                               CUDA_ERROR_NOT_INITIALIZED in a child forked after init, or
 *                               forked while another thread was initialising the driver
 *   CUSHIM_DRIVER_UNUSABLE      CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: cuInit succeeded but the
 *                               driver cannot be used: it has no cuDriverGetVersion, reports
 *                               a version of 0 or less, or succeeds without writing one; it has
 *                               no cuGetProcAddress though it reports CUDA 11.3 or newer; or its
 *                               cuGetProcAddress resolves no entry at all
 */
typedef enum cushim_driver_status {
    CUSHIM_DRIVER_LOADED,      /* a driver was loaded, cuInit succeeded, the table is resolved */
    CUSHIM_DRIVER_NOT_FOUND,   /* no candidate library could be opened, or none was a driver */
    CUSHIM_DRIVER_STUB,        /* the toolkit's stub libcuda: cuInit said CUDA_ERROR_STUB_LIBRARY */
    CUSHIM_DRIVER_TOO_OLD,     /* no cuGetProcAddress, and a version older than CUDA 11.3 */
    CUSHIM_DRIVER_INIT_FAILED, /* cuInit failed with its own code: no device, forked child, ... */
    CUSHIM_DRIVER_UNUSABLE     /* initialised, but no usable version, or no entry resolves */
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
 * cushim_last_error() and cushim_driver_state()->message. Later calls return the cached
 * result; a failure is not retried. The functions that need the driver and take no cushim object
 * call it (objects exist only once it has succeeded), so callers never have to.
 * fork(): in a child forked after a successful cushim_init(), or while another thread was inside
 * the first one, every cushim function and every slot of the raw table answers
 * CUDA_ERROR_NOT_INITIALIZED with a sentence saying why, without touching the parent's driver
 * state; a child of a process that never initialised is free to.
 * Re-entry: called on the thread that is loading the driver, from inside the driver's own
 * initialisation (an interposer's cuInit calling back into cushim), it returns
 * CUDA_ERROR_NOT_INITIALIZED at once, with a sentence saying initialisation is in progress on
 * this thread; the outer load goes on. No lock of cushim's is held while the driver's code
 * runs. */
CUSHIM_API CUresult cushim_init(void);

/* For tests: forgets the loaded driver and cushim_init()'s result, so that the next cushim
 * function loads again, with the environment (CUSHIM_DRIVER) and the mock's knobs as they are
 * then. NVRTC and nvJitLink are forgotten too, and looked for again (CUSHIM_NVRTC,
 * CUSHIM_NVJITLINK). One test program can so check its behaviour without a driver and with one.
 * Returns CUDA_SUCCESS; CUDA_ERROR_ILLEGAL_STATE while any cushim context, library, program or
 * linker is alive (every other object holds a context: release them first), or while the
 * driver is being loaded;
 * CUDA_ERROR_NOT_INITIALIZED in a forked child. No other thread may be calling cushim meanwhile.
 * Raw table pointers stay valid. */
CUSHIM_API CUresult cushim_testing_reinit(void);

/* The state of the loader after cushim_init(), which it calls (so a failure sets
 * cushim_last_error()). Never NULL. The struct and its strings are the library's own, valid for
 * the life of the process and unchanged after the first call, except in a child forked after
 * init, where status, result and message say so, and after cushim_testing_reinit(). Do not
 * free or write them. */
CUSHIM_API const cushim_driver_info *cushim_driver_state(void);

/* The raw table, fields named as in cuda.h: cushim_driver()->cuMemAlloc(&p, n). Never NULL,
 * valid for the life of the process, and safe to call through from any thread; no slot is
 * ever NULL. It calls cushim_init(), and when that failed every slot returns its
 * result and sets cushim_last_error() to the entry's name and the reason (cuGetErrorName and
 * cuGetErrorString answer from cushim's own tables then). An entry the driver lacks returns
 * CUDA_ERROR_NOT_SUPPORTED with a sentence. Otherwise raw calls are the driver's own and do
 * not set cushim_last_error().
 * Like cuda.h, the table follows the including translation unit's default-stream mode: with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM defined, cushim_driver() is cushim_driver_per_thread()
 * and its slots hold the per-thread entries (cuLaunchKernel is cuLaunchKernel_ptsz). */
CUSHIM_API const cushim_driver_table *cushim_driver(void);

/* Whether the loaded driver provides an entry, by its cuda.h name ("cuLaunchKernelEx"), its
 * versioned symbol ("cuCtxCreate_v4") or its per-thread symbol ("cuLaunchKernel_ptsz"). False
 * without a driver, for NULL, and for a name cuda.h lacks (which sets no error). */
CUSHIM_API bool cushim_driver_has(const char *entry);

/* The toolkit's run-time compiler and linker, loaded like the driver: found when first used,
 * each function resolved once with dlsym, never a link-time dependency. Each has its own
 * environment variable (an absolute path, then the only candidate, read with secure_getenv);
 * otherwise the search is the soname of the headers' major version (libnvrtc.so.13), the
 * unversioned name, the toolkit found when cushim was built, $CUDA_HOME and $CUDA_PATH, and
 * /usr/local/cuda. A library of another major version than the headers' is refused (their ABI
 * changes with it). Through the drop-in nvrtc.h and nvJitLink.h, a call into a library that
 * cannot be loaded returns NVRTC_ERROR_INTERNAL_ERROR or NVJITLINK_ERROR_INTERNAL, sets
 * cushim_last_error() to the reason, and logs it once at warn. */
typedef enum cushim_lib {
    CUSHIM_LIB_NVRTC = 1,    /* libnvrtc, CUSHIM_NVRTC */
    CUSHIM_LIB_NVJITLINK = 2 /* libnvJitLink, CUSHIM_NVJITLINK */
} cushim_lib;

/* What loading one of them found, and the CUresult that goes with it:
 *   CUSHIM_LIB_LOADED          CUDA_SUCCESS
 *   CUSHIM_LIB_NOT_FOUND       CUDA_ERROR_FILE_NOT_FOUND: no candidate could be opened, or none
 *                              was the library (the message names every path tried and why)
 *   CUSHIM_LIB_WRONG_VERSION   CUDA_ERROR_NOT_SUPPORTED: only a library of another major
 *                              version than the headers' was found */
typedef enum cushim_lib_status {
    CUSHIM_LIB_LOADED,
    CUSHIM_LIB_NOT_FOUND,
    CUSHIM_LIB_WRONG_VERSION
} cushim_lib_status;

typedef struct cushim_lib_info {
    cushim_lib_status status;
    CUresult result;           /* the code that goes with status */
    const char *name;          /* "NVRTC", "nvJitLink" */
    const char *env;           /* "CUSHIM_NVRTC", "CUSHIM_NVJITLINK" */
    const char *message;       /* why: the library loaded, or every path tried */
    const char *path;          /* the library loaded, or NULL */
    int version_major;         /* the loaded library's version, 0 when none */
    int version_minor;         /* (nvrtcVersion, nvJitLinkVersion) */
    int header_major;          /* the version of the headers cushim was built against */
    int header_minor;          /* */
    unsigned entries_total;    /* functions the header declares */
    unsigned entries_resolved; /* of which the library has */
} cushim_lib_info;

/* Loads the library `which` if that was not tried yet (thread-safe, once; it does not need the
 * driver) and returns what was found. Never NULL: an unknown `which` gets an info whose status
 * is CUSHIM_LIB_NOT_FOUND, result CUDA_ERROR_INVALID_VALUE and message says so. When the
 * library cannot be loaded, cushim_last_error() is set to the message. The struct and strings
 * are the library's own, unchanged until cushim_testing_reinit(); do not free or write them. */
CUSHIM_API const cushim_lib_info *cushim_lib_state(cushim_lib which);

/* ------------------------------------------------------------------------------------------ */
/* Errors and logging                                                                         */
/* ------------------------------------------------------------------------------------------ */
/* These never call cushim_init() or the driver, so they work without one; all are thread-safe.
 * Never free a string they return. */

/* The enumerator's name of r: "CUDA_ERROR_INVALID_VALUE". For a code cuda.h declares, a static
 * string valid forever. An unknown code reads "unknown CUresult N", from a thread-local buffer
 * that this function and cushim_error_string share: it is valid until this thread's next call of
 * either with an unknown code. */
CUSHIM_API const char *cushim_error_name(CUresult r);
/* A sentence describing r, from cuda.h's documentation. Lifetime as for cushim_error_name. */
CUSHIM_API const char *cushim_error_string(CUresult r);
/* A thread-local sentence about the last failure of a cushim function on this thread, starting
 * with that function's name; "" when there was none. A success does not clear it.
 * Set by: every cushim_* function that returns a code other than CUDA_SUCCESS (except
 * CUDA_ERROR_NOT_READY from the queries, an answer rather than a failure); *_retain and
 * *_release given a bad handle; cushim_init() and the loader functions above whenever
 * cushim_init() fails. Not set by the accessors (*_raw, *_context, *_device, same_queue) or by this
 * section. Raw table and drop-in calls do not set it, except when they fail because no driver
 * could be loaded or the driver lacks the entry.
 * The pointer is to this thread's own buffer, good until the thread exits; its text is replaced
 * by this thread's next failure, and text longer than 4095 bytes is cut. */
CUSHIM_API const char *cushim_last_error(void);

typedef enum cushim_log_level {
    CUSHIM_LOG_DEBUG,
    CUSHIM_LOG_INFO,
    CUSHIM_LOG_WARN,
    CUSHIM_LOG_ERROR,
    CUSHIM_LOG_OFF
} cushim_log_level;

typedef void (*cushim_log_fn)(cushim_log_level level, const char *message, void *user);

/* Routes messages at or above min_level to fn (CUSHIM_LOG_OFF: none). With fn NULL, min_level
 * is ignored and messages at or above CUSHIM_LOG (error|warn|info|debug|off, default warn) go
 * to stderr. Thread-safe. fn is called on whichever thread logs, perhaps on several at once,
 * and message is valid only during the call. A message that another thread was already
 * logging may still reach the previous handler after this returns, so do not free that
 * handler's `user` while other threads may be logging. */
CUSHIM_API void cushim_log_set_handler(cushim_log_fn fn, void *user, cushim_log_level min_level);

/* ------------------------------------------------------------------------------------------ */
/* Objects                                                                                    */
/* ------------------------------------------------------------------------------------------ */
/* The rules for this section and the ones below, said once:
 *
 * Ownership. Objects are opaque and refcounted. A create or load returns a new reference in *out,
 * which the caller releases. *_retain returns its argument, with one more reference; the last
 * *_release destroys the object exactly once (or, for an event or stream, may hand it to its
 * context's cache for a later create: see "Recycling" below). Every object holds a reference to its
 * context, so a context is destroyed last. The accessors (*_raw, *_context, *_device) return
 * borrowed values, valid while the object lives: a context from *_context is retained to be kept
 * longer, and a driver handle from *_raw belongs to its cushim object and must not be destroyed by
 * the caller.
 *
 * Threads. Every function is thread-safe: a handle may be used from any thread, and by several
 * at once; retain and release are atomic. As with free(), releasing the last reference while
 * another thread still uses the handle is the caller's bug.
 *
 * Codes. CUDA_SUCCESS on success. A NULL handle or out-pointer is CUDA_ERROR_INVALID_VALUE; a
 * handle of the wrong kind is CUDA_ERROR_INVALID_HANDLE. A released handle is a use after free:
 * it is caught as CUDA_ERROR_INVALID_HANDLE only while its memory has not been reused, which is
 * not to be relied on. cushim itself returns CUDA_ERROR_OUT_OF_MEMORY when host memory runs
 * out. A code the driver returns is passed through as it is. Without a driver no object can
 * exist, so the functions that create one from nothing return cushim_init()'s result. Every
 * failure sets cushim_last_error(). On failure an out-pointer is set to NULL.
 *
 * Bad handles elsewhere. *_retain returns NULL for a bad handle; *_release ignores NULL (as
 * free() does) and logs a handle of the wrong kind at warn; the accessors return NULL
 * (CU_DEVICE_INVALID, false) and set no error. A destroy the driver refuses is logged at warn,
 * and cushim's memory is freed anyway.
 *
 * Contexts. A function that needs a context current makes the object's context current for the
 * call and puts the thread's previous one (or none) back afterwards, on success and on failure.
 * Releases make no switch: the driver destroys events, streams, modules, libraries, graphs and
 * graph executables with any context current or none (checked on an H200, driver 580).
 *
 * A NULL stream, the one rule: it means the default stream of a context, and so is taken only
 * where another argument gives that context. cushim_launch (the function's), cushim_event_record
 * and cushim_stream_wait_event (the event's), cushim_graph_exec_launch and _upload (the
 * executable's) take NULL for that default stream, as the runtime's 0 stream. A function whose
 * only object is the stream has no context to take it from, so there a NULL stream is
 * CUDA_ERROR_INVALID_VALUE, with a sentence saying what to call instead:
 * cushim_stream_synchronize (use cushim_context_synchronize), cushim_stream_query (record an
 * event on the default stream and query that), cushim_stream_begin_capture and _end_capture (the
 * legacy default stream cannot be captured), cushim_stream_launch_host_func. */

typedef struct cushim_context cushim_context;
typedef struct cushim_stream cushim_stream;
typedef struct cushim_event cushim_event;
typedef struct cushim_module cushim_module;
typedef struct cushim_library cushim_library;
typedef struct cushim_function cushim_function;

/* Retains the primary context of device `ordinal` (the one the CUDA runtime uses) into a new
 * cushim object; the current context is not changed. Returns cushim_init()'s result without a
 * driver, the driver's code from cuDeviceGet (CUDA_ERROR_INVALID_DEVICE for an ordinal past the
 * last device) or cuDevicePrimaryCtxRetain, or CUDA_ERROR_INVALID_VALUE for out NULL. */
CUSHIM_API CUresult cushim_context_primary(cushim_context **out, int ordinal);
/* Creates a dedicated context on device `ordinal` with CU_CTX_* flags; the calling thread's
 * current context is left as it was. CUDA_SUCCESS; cushim_init()'s result without a driver;
 * the driver's code from cuDeviceGet, cuCtxCreate or cuCtxPopCurrent; CUDA_ERROR_INVALID_VALUE
 * for out NULL. */
CUSHIM_API CUresult cushim_context_create(cushim_context **out, int ordinal, unsigned flags);
/* Returns ctx with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_context *cushim_context_retain(cushim_context *ctx);
/* Drops a reference; the last destroys the context (a primary one is released to the driver,
 * a wrapped one is left to its owner). */
CUSHIM_API void cushim_context_release(cushim_context *ctx);
/* Waits for all work in ctx. CUDA_SUCCESS, or the driver's code, such as an earlier
 * asynchronous error (CUDA_ERROR_LAUNCH_FAILED, ...). */
CUSHIM_API CUresult cushim_context_synchronize(cushim_context *ctx);
/* Waits for all work in the calling thread's current context. Returns cushim_init()'s result
 * without a driver, and CUDA_ERROR_INVALID_CONTEXT from the driver when no context is current
 * (as right after cushim_context_primary, which makes none current: for the runtime's
 * cudaDeviceSynchronize, call cushim_context_synchronize(ctx)); CUDA_SUCCESS when the work is
 * done. */
CUSHIM_API CUresult cushim_device_synchronize(void);
/* The context's range of stream priorities. Lower numbers are higher priorities: *least is the
 * lowest priority (numerically the greatest) and *greatest the highest (numerically the
 * least). Either pointer may be NULL; both NULL is CUDA_ERROR_INVALID_VALUE. CUDA_SUCCESS or
 * the driver's code. */
CUSHIM_API CUresult cushim_context_stream_priority_range(int *least, int *greatest,
                                                         cushim_context *ctx);
/* The driver's context, owned by ctx; NULL for a bad handle. */
CUSHIM_API CUcontext cushim_context_raw(const cushim_context *ctx);
/* The context's device; CU_DEVICE_INVALID for a bad handle. */
CUSHIM_API CUdevice cushim_context_device(const cushim_context *ctx);

/* Recycling. A released event or stream may be kept by its context and handed out again by a
 * later cushim_event_create with the same flags, or cushim_stream_create with the same flags
 * and priority, instead of a destroy and a create in the driver (on an H200 a driver event
 * create + destroy costs 160-390 ns, a stream's 6-9 us; a kept one costs a lock). Through every
 * cushim function a recycled object is indistinguishable from a new one: an event that has had
 * no record since its create answers cushim_event_query and cushim_event_synchronize with
 * CUDA_SUCCESS, cushim_event_elapsed_ms with CUDA_ERROR_INVALID_HANDLE and makes
 * cushim_stream_wait_event a no-op, as the driver does for an event never recorded, whether it
 * is new or recycled.
 *
 * What is kept: an event not created with CU_EVENT_INTERPROCESS; a stream whose work is all done
 * at its last release (cuStreamQuery answers CUDA_SUCCESS; otherwise it is destroyed at once, as
 * without recycling) and whose raw handle was never asked for (cushim_stream_raw), since
 * attributes set through that handle (cuStreamSetAttribute) would pass to the next owner. At
 * most 64 events per flags value and 16 streams per context are kept; more are destroyed.
 *
 * Default: on for both, in every context. CUSHIM_RECYCLE, read once at the first context,
 * changes that for the whole process: 0, off or none: neither; events or streams: that kind only;
 * 1, on or all: both. cushim_context_set_recycling changes it for one context.
 *
 * What a raw handle shows. Streams are on by default because a recycled stream's handle was never
 * handed out, so nothing was set on it outside cushim; its work is done; and its flags and
 * priority are those asked for. What still differs, only through the handle: cuStreamGetId
 * gives the id an earlier cushim stream had, and tools that show streams by id (profilers) show
 * the two as one. For events, the handle from cushim_event_raw may carry an earlier owner's
 * record: cuEventQuery, cuEventSynchronize and cuEventElapsedTime on it answer for that record
 * until the event is recorded again. Since a record made through the raw handle is out of
 * cushim's sight, after cushim_event_raw cushim asks the driver about that event, so it too sees
 * the earlier record.
 *
 * The caches are emptied when the context's last reference is released (before the context is
 * destroyed), by cushim_context_trim, and for a kind turned off. Cached objects hold no
 * reference to their context. All of this is thread-safe (a lock per context). In a child
 * forked after cushim_init nothing is kept or handed out, and the three functions below answer
 * CUDA_ERROR_NOT_INITIALIZED: the child never waits on a lock another thread held at the fork. */

typedef struct cushim_recycling {
    bool events, streams;  /* whether released events / streams are kept */
    unsigned events_held;  /* events kept now, all flags together */
    unsigned streams_held; /* streams kept now */
    unsigned events_max;   /* the bound on kept events, per flags value */
    unsigned streams_max;  /* the bound on kept streams, per context */
} cushim_recycling;

/* Turns recycling of events and of streams on or off for ctx; what the cache of a kind turned
 * off holds is destroyed now. Objects already handed out are not affected. CUDA_SUCCESS, or the
 * driver's code when it refused to destroy a cached object (the rest are destroyed all the same,
 * and each refusal is logged at warn). Thread-safe. */
CUSHIM_API CUresult cushim_context_set_recycling(cushim_context *ctx, bool events, bool streams);
/* Destroys every event and stream ctx's caches hold, keeping the switches as they are (a program
 * about to need the memory, or a test counting the driver's objects). CUDA_SUCCESS, or the
 * driver's code when it refused a destroy (as for cushim_context_set_recycling). Thread-safe. */
CUSHIM_API CUresult cushim_context_trim(cushim_context *ctx);
/* The switches and counts of ctx's caches, into *out (zeroed on failure). out NULL is
 * CUDA_ERROR_INVALID_VALUE; CUDA_SUCCESS otherwise. Makes no driver call; thread-safe, and a
 * count may be out of date as soon as it is read when other threads create and release. */
CUSHIM_API CUresult cushim_context_recycling(cushim_recycling *out, cushim_context *ctx);

/* Creates a stream in ctx with CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING and a priority
 * within cushim_context_stream_priority_range (0 is the default), or hands out a recycled one
 * with the same flags and priority (see "Recycling"). Other flags, and a priority outside the
 * range, are CUDA_ERROR_INVALID_VALUE; otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_stream_create(cushim_stream **out, cushim_context *ctx, unsigned flags,
                                         int priority);
/* Returns s with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_stream *cushim_stream_retain(cushim_stream *s);
/* Drops a reference; the last destroys the stream (no context switch is needed) or keeps it for
 * recycling (a wrapped one is left to its owner), and releases its context. */
CUSHIM_API void cushim_stream_release(cushim_stream *s);
/* Waits for all work queued in s. s NULL is CUDA_ERROR_INVALID_VALUE (see "A NULL stream":
 * cushim_context_synchronize waits for a context's default stream). CUDA_SUCCESS, or the
 * driver's code: an earlier asynchronous error of that work, or
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED while s captures, with a sentence saying that s is
 * capturing, that its work is recorded rather than run, and that the driver has invalidated the
 * capture (cushim_stream_end_capture then ends it with no graph). */
CUSHIM_API CUresult cushim_stream_synchronize(cushim_stream *s);
/* CUDA_SUCCESS when all work is done, CUDA_ERROR_NOT_READY while some is pending (which sets no
 * error), or the driver's code (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED while s captures, as for
 * cushim_stream_synchronize). s NULL is CUDA_ERROR_INVALID_VALUE (see "A NULL stream"). */
CUSHIM_API CUresult cushim_stream_query(cushim_stream *s);
/* Makes future work in s wait for the last record of e; flags are cuStreamWaitEvent's. s NULL:
 * the default stream of e's context; s and e may belong to different contexts. An event with no
 * record since its create makes this a no-op, as the driver does (flags other than
 * CU_EVENT_WAIT_DEFAULT and CU_EVENT_WAIT_EXTERNAL are still CUDA_ERROR_INVALID_VALUE). e NULL is
 * CUDA_ERROR_INVALID_VALUE; otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_stream_wait_event(cushim_stream *s, cushim_event *e, unsigned flags);
/* True when a and b submit to the same queue (the same driver stream); false when either is a
 * bad handle. */
CUSHIM_API bool cushim_stream_same_queue(const cushim_stream *a, const cushim_stream *b);
/* The stream's context: a borrowed reference, valid while s lives; NULL for a bad handle. */
CUSHIM_API cushim_context *cushim_stream_context(const cushim_stream *s);
/* The driver's stream, owned by s; NULL for a bad handle. A stream whose raw handle was asked
 * for is never recycled (see "Recycling"). */
CUSHIM_API CUstream cushim_stream_raw(const cushim_stream *s);

/* Creates an event in ctx with CU_EVENT_DEFAULT, CU_EVENT_BLOCKING_SYNC,
 * CU_EVENT_DISABLE_TIMING and CU_EVENT_INTERPROCESS (which needs DISABLE_TIMING), or hands out
 * a recycled one with exactly the same flags (see "Recycling"). Other flags, and INTERPROCESS
 * alone, are CUDA_ERROR_INVALID_VALUE; otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_event_create(cushim_event **out, cushim_context *ctx, unsigned flags);
/* Returns e with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_event *cushim_event_retain(cushim_event *e);
/* Drops a reference; the last destroys the event (no context switch is needed) or keeps it for
 * recycling (a wrapped one is left to its owner), and releases its context. */
CUSHIM_API void cushim_event_release(cushim_event *e);
/* Records e on s; s NULL: the default stream of e's context. An event records only on a stream
 * of its own context: another is CUDA_ERROR_INVALID_HANDLE. Otherwise CUDA_SUCCESS or the
 * driver's code. */
CUSHIM_API CUresult cushim_event_record(cushim_event *e, cushim_stream *s);
/* Waits until the work before e's last record is done; with no record since e's create, returns
 * at once. CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_event_synchronize(cushim_event *e);
/* CUDA_SUCCESS when the work before e's last record is done (or e has had no record since its
 * create), CUDA_ERROR_NOT_READY while some is pending (which sets no error), or the driver's
 * code. */
CUSHIM_API CUresult cushim_event_query(cushim_event *e);
/* Milliseconds between two completed records, into *ms (written only on CUDA_SUCCESS). A
 * timing-disabled event is refused with CUDA_ERROR_INVALID_HANDLE and a sentence saying so; ms
 * NULL is CUDA_ERROR_INVALID_VALUE. The driver's codes pass through: CUDA_ERROR_NOT_READY while
 * a record is pending (which sets no error). An event with no record since its create is
 * CUDA_ERROR_INVALID_HANDLE, the driver's code for an event never recorded, with a sentence. */
CUSHIM_API CUresult cushim_event_elapsed_ms(float *ms, cushim_event *start, cushim_event *end);
/* The event's context: a borrowed reference, valid while e lives; NULL for a bad handle. */
CUSHIM_API cushim_context *cushim_event_context(const cushim_event *e);
/* The driver's event, owned by e; NULL for a bad handle. The handle of a recycled event may
 * carry an earlier owner's record, and from this call on cushim asks the driver about e (see
 * "Recycling"). */
CUSHIM_API CUevent cushim_event_raw(const cushim_event *e);

/* Borrowed objects. A program that uses cushim beside the CUDA runtime, cuBLAS or a framework
 * has contexts, streams and events that cushim did not make. A wrap makes a cushim object of
 * one, refcounted like the others and taken by every cushim function, that never destroys,
 * releases or reuses the driver handle: its last release frees only cushim's object. The owner
 * (the runtime, cuBLAS, ...) keeps the handle alive until the last release of every cushim
 * object that uses it, which includes the streams, events, modules and graphs made in a wrapped
 * context. The accessors return the wrapped handle, which stays the owner's. */

/* Wraps a context that another library made: raw, or with raw NULL the calling thread's current
 * context (the one the CUDA runtime made current, for instance). The current context is left as
 * it was. The driver must name the context's device (cuCtxGetDevice, with raw current for the
 * call), so a destroyed context fails here. CUDA_SUCCESS; cushim_init()'s result without a
 * driver; CUDA_ERROR_INVALID_CONTEXT for raw NULL with no context current; the driver's code from
 * cuCtxGetCurrent, cuCtxSetCurrent, cuCtxGetDevice or cuDeviceGet; CUDA_ERROR_INVALID_VALUE for
 * out NULL. */
CUSHIM_API CUresult cushim_context_wrap(cushim_context **out, CUcontext raw);
/* Wraps a stream that another library made in ctx (the runtime's cudaStream_t is a CUstream).
 * The driver must say that raw belongs to ctx (cuStreamGetCtx): another context is
 * CUDA_ERROR_INVALID_CONTEXT. A NULL raw, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are
 * CUDA_ERROR_INVALID_VALUE: cushim's functions take a NULL stream for a default stream.
 * Otherwise CUDA_SUCCESS or the driver's code from cuStreamGetCtx. */
CUSHIM_API CUresult cushim_stream_wrap(cushim_stream **out, cushim_context *ctx, CUstream raw);
/* Wraps an event that another library made in ctx. The driver cannot say which context an event
 * belongs to, so that is the caller's word; a query, which does not wait, must accept the
 * handle, or its code is returned (CUDA_ERROR_INVALID_HANDLE, ...). raw NULL is
 * CUDA_ERROR_INVALID_VALUE. cushim cannot read a wrapped event's flags, so
 * cushim_event_elapsed_ms leaves it to the driver to refuse a timing-disabled one. CUDA_SUCCESS
 * otherwise. */
CUSHIM_API CUresult cushim_event_wrap(cushim_event **out, cushim_context *ctx, CUevent raw);

/* ------------------------------------------------------------------------------------------ */
/* Modules, libraries and functions                                                           */
/* ------------------------------------------------------------------------------------------ */
/* A cushim_function has no retain or release: it belongs to its module or library, which frees
 * it, and asking for the same kernel again (in the same context, for a library) returns the
 * same object. */

/* Loads PTX text (NUL-terminated), a cubin or a fatbin into ctx. A PTX that fails to compile
 * puts the JIT's error log into cushim_last_error(). image NULL is CUDA_ERROR_INVALID_VALUE;
 * otherwise CUDA_SUCCESS or the driver's code (CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_IMAGE,
 * CUDA_ERROR_NO_BINARY_FOR_GPU, ...). */
CUSHIM_API CUresult cushim_module_load_data(cushim_module **out, cushim_context *ctx,
                                            const void *image);
/* As cushim_module_load_data, for the contents of the file at path (read by cushim, so a PTX
 * file gets the JIT log too). A file that cannot be opened or read, or is neither a regular file
 * nor a pipe, is CUDA_ERROR_FILE_NOT_FOUND; path NULL is CUDA_ERROR_INVALID_VALUE. */
CUSHIM_API CUresult cushim_module_load_file(cushim_module **out, cushim_context *ctx,
                                            const char *path);
/* Returns m with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_module *cushim_module_retain(cushim_module *m);
/* Drops a reference; the last unloads the module, frees its functions and releases its
 * context. */
CUSHIM_API void cushim_module_release(cushim_module *m);
/* The kernel `name` of m, owned by m and valid while m lives. A missing kernel is
 * CUDA_ERROR_NOT_FOUND with a sentence naming it; name NULL is CUDA_ERROR_INVALID_VALUE;
 * otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_module_function(cushim_function **out, cushim_module *m,
                                           const char *name);

/* Context-less kernels (cuLibraryLoadData / CUkernel). A library's functions launch in the
 * context of the launch's stream, or in ctx's default stream (see cushim_library_function). */

/* Loads PTX text (NUL-terminated), a cubin or a fatbin as a library, in no context. Returns
 * cushim_init()'s result without a driver; image NULL is CUDA_ERROR_INVALID_VALUE; otherwise
 * CUDA_SUCCESS or the driver's code, with the JIT log. The driver may compile a PTX only when a
 * kernel is first asked for, so a broken one can load and fail in cushim_library_function. */
CUSHIM_API CUresult cushim_library_load_data(cushim_library **out, const void *image);
/* Returns lib with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_library *cushim_library_retain(cushim_library *lib);
/* Drops a reference; the last unloads the library and frees its functions, which release the
 * contexts they were bound to. */
CUSHIM_API void cushim_library_release(cushim_library *lib);
/* The kernel `name` of lib, bound to ctx for launches on a NULL stream, for the pre-checks and
 * for occupancy; one object per (name, ctx), owned by lib and valid while lib lives (it holds a
 * reference to ctx). A missing kernel is CUDA_ERROR_NOT_FOUND; name NULL is
 * CUDA_ERROR_INVALID_VALUE; otherwise CUDA_SUCCESS or the driver's code, with the JIT log when a
 * PTX fails to compile here. */
CUSHIM_API CUresult cushim_library_function(cushim_function **out, cushim_library *lib,
                                            cushim_context *ctx, const char *name);

/* The driver handle to launch: a CUfunction, or a CUkernel cast to one, owned by f's module or
 * library; NULL for a bad handle. */
CUSHIM_API CUfunction cushim_function_raw(const cushim_function *f);

/* ------------------------------------------------------------------------------------------ */
/* Programs and linkers: compiling and linking at run time                                    */
/* ------------------------------------------------------------------------------------------ */
/* A program is CUDA C++ compiled by NVRTC; a linker joins PTX, cubins and LTO IR with nvJitLink,
 * or with the driver's cuLink* where nvJitLink cannot be loaded. Both libraries are loaded at run
 * time (see cushim_lib_state); a program needs no driver until it is loaded into a context.
 * Both objects are refcounted like the others; a program holds no context, a linker holds its
 * own. Where NVRTC or nvJitLink says no, the code is mapped to the CUresult whose sentence is
 * true of it, and cushim_last_error() has the library's name for it and its log. */
typedef struct cushim_program cushim_program;
typedef struct cushim_linker cushim_linker;

/* The kinds of device code a program yields and a linker takes. */
typedef enum cushim_code_kind {
    CUSHIM_CODE_PTX,   /* PTX text (a compile for a virtual arch: -arch=compute_90) */
    CUSHIM_CODE_CUBIN, /* a cubin (a compile for a real arch: -arch=sm_90) */
    CUSHIM_CODE_LTOIR, /* LTO IR (a compile with -dlto), for a linker */
    CUSHIM_CODE_FATBIN /* a fatbin: a linker input only */
} cushim_code_kind;

/* Creates a program of CUDA C++ `source` (NUL-terminated), named `name` in messages (NULL:
 * "default_program"), with num_headers headers given as their contents and the names they are
 * included by. Nothing is compiled yet. source NULL, num_headers < 0, or headers or
 * include_names NULL with num_headers > 0 is CUDA_ERROR_INVALID_VALUE; NVRTC not loadable is
 * its cushim_lib_state result (CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_NOT_SUPPORTED) with the
 * paths tried; CUDA_ERROR_OUT_OF_MEMORY; otherwise CUDA_SUCCESS. */
CUSHIM_API CUresult cushim_program_create(cushim_program **out, const char *source,
                                          const char *name, int num_headers,
                                          const char *const *headers,
                                          const char *const *include_names);
/* Returns p with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_program *cushim_program_retain(cushim_program *p);
/* Drops a reference; the last destroys the NVRTC program and its code. */
CUSHIM_API void cushim_program_release(cushim_program *p);
/* Compiles p with NVRTC's options (num_options strings: "-arch=sm_90", "-dlto", "-std=c++17",
 * ...). A program is compiled once: again is CUDA_ERROR_ILLEGAL_STATE. Codes: CUDA_SUCCESS;
 * CUDA_ERROR_INVALID_SOURCE when the source does not compile, with the compile log (also in
 * cushim_program_log); CUDA_ERROR_INVALID_VALUE for an option NVRTC refuses, or options NULL
 * with num_options > 0, or num_options < 0; CUDA_ERROR_OUT_OF_MEMORY; CUDA_ERROR_UNKNOWN for
 * another NVRTC failure, named in the sentence. */
CUSHIM_API CUresult cushim_program_compile(cushim_program *p, int num_options,
                                           const char *const *options);
/* The compile log (warnings, or the errors of a failed compile), owned by p and unchanged once
 * cushim_program_compile has returned: "" before a compile or when NVRTC wrote none; NULL for
 * a bad handle. Not to be read while another thread compiles p. */
CUSHIM_API const char *cushim_program_log(const cushim_program *p);
/* The code of one kind that the compile produced, owned by p and valid while p lives; *size is
 * its size in bytes (PTX: with its NUL). CUDA_ERROR_ILLEGAL_STATE before a successful compile;
 * CUDA_ERROR_NOT_FOUND when the compile made no code of that kind (a sentence says which
 * option would); CUDA_ERROR_INVALID_VALUE for NULL data or size or a bad kind. */
CUSHIM_API CUresult cushim_program_code(const cushim_program *p, cushim_code_kind kind,
                                        const void **data, size_t *size);
/* Loads a compiled program into ctx as a module: its cubin when it was compiled for the arch
 * of ctx's device (sm_XY runs on compute capability X.Y and on later X.*, sm_XYa only on X.Y),
 * else its PTX, which the driver compiles; a cubin the driver refuses as not for its device
 * (CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_INVALID_IMAGE) is retried as the PTX, where the
 * program has it. On cushim's mock driver a cubin runs from the program's PTX, which the
 * compile handed to the mock. CUDA_ERROR_ILLEGAL_STATE before a successful
 * compile; CUDA_ERROR_NO_BINARY_FOR_GPU when it has neither a fitting cubin nor PTX (LTO IR
 * only: link it first), with a sentence naming both archs; otherwise cushim_module_load_data's
 * codes. */
CUSHIM_API CUresult cushim_program_load(cushim_module **out, cushim_program *p,
                                        cushim_context *ctx);

/* Creates a linker for ctx's device. With nvJitLink, the options are its own ("-lto",
 * "-O3", ...) and "-arch=sm_XY" of ctx's device is added unless one is given. Without
 * nvJitLink, the driver's cuLink* link in ctx, which take none of those options: then any
 * option is CUDA_ERROR_NOT_SUPPORTED, with a sentence. Codes: CUDA_SUCCESS;
 * CUDA_ERROR_INVALID_VALUE (options NULL with num_options > 0, num_options < 0, or an option
 * nvJitLink refuses); CUDA_ERROR_OUT_OF_MEMORY; the driver's code from cuLinkCreate or the
 * device queries. */
CUSHIM_API CUresult cushim_linker_create(cushim_linker **out, cushim_context *ctx, int num_options,
                                         const char *const *options);
/* Returns l with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_linker *cushim_linker_retain(cushim_linker *l);
/* Drops a reference; the last destroys the link state and releases the context. */
CUSHIM_API void cushim_linker_release(cushim_linker *l);
/* Adds size bytes of code of one kind (PTX: size may count its NUL or not), named `name` in
 * the log (NULL: "input"). LTO IR without nvJitLink is CUDA_ERROR_NOT_SUPPORTED. Codes:
 * CUDA_SUCCESS; CUDA_ERROR_INVALID_VALUE (data NULL, size 0, a bad kind);
 * CUDA_ERROR_ILLEGAL_STATE after complete; CUDA_ERROR_INVALID_IMAGE or CUDA_ERROR_INVALID_PTX
 * when the input is refused, with the link log; the driver's code under cuLink*. */
CUSHIM_API CUresult cushim_linker_add(cushim_linker *l, cushim_code_kind kind, const void *data,
                                      size_t size, const char *name);
/* Links what was added and loads the cubin into the linker's context as a module. Once only:
 * again is CUDA_ERROR_ILLEGAL_STATE. Codes: CUDA_SUCCESS; CUDA_ERROR_INVALID_IMAGE when the link
 * fails (undefined symbols, ...), with the log; CUDA_ERROR_OUT_OF_MEMORY; otherwise the driver's
 * code and cushim_module_load_data's. */
CUSHIM_API CUresult cushim_linker_complete(cushim_module **out, cushim_linker *l);
/* The log of the link's last failure (nvJitLink's error log, or the driver's JIT log under
 * cuLink*), owned by l and valid until its next add or complete: "" when none; NULL for a bad
 * handle. */
CUSHIM_API const char *cushim_linker_log(const cushim_linker *l);

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
#define CUSHIM__DIM3_3(x, y, z)                                                                    \
    (cushim_dim3{static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(z)})
#else
#define CUSHIM__DIM3_1(x) ((cushim_dim3){(x), 1u, 1u})
#define CUSHIM__DIM3_2(x, y) ((cushim_dim3){(x), (y), 1u})
#define CUSHIM__DIM3_3(x, y, z) ((cushim_dim3){(x), (y), (z)})
#endif
#define CUSHIM__DIM3_PICK(a, b, c, name, ...) name
/* CUSHIM_DIM3(x), CUSHIM_DIM3(x, y) or CUSHIM_DIM3(x, y, z); missing sizes are 1. */
#define CUSHIM_DIM3(...)                                                                           \
    CUSHIM__DIM3_PICK(__VA_ARGS__, CUSHIM__DIM3_3, CUSHIM__DIM3_2, CUSHIM__DIM3_1, _)(__VA_ARGS__)

/* A launch's shape and, after the first four fields, its launch attributes. Every attribute is
 * off when zero, so a config that names only the first fields launches as it always did. Make
 * one with cushim_launch_config_make(grid, block), below, and set further fields after: that
 * compiles without a warning in C and every C++. (Designated initialisers are C++20 only, and
 * there, as a positional {grid, block, smem, stream} anywhere, -Wextra warns that the later
 * fields are left out.)
 *
 * A config with any attribute set is launched through cuLaunchKernelEx, with one
 * CUlaunchAttribute for each; one with none through cuLaunchKernel as before (or
 * cuLaunchCooperativeKernel, for cushim_launch_cooperative). */
typedef struct cushim_launch_config {
    cushim_dim3 grid, block;
    unsigned shared_mem_bytes; /* dynamic shared memory per block */
    cushim_stream *stream;     /* NULL: the default stream of the function's context */
    /* Thread-block clusters (compute capability 9.0 and later): blocks per cluster in each
     * dimension; (0, 0, 0) is no cluster. grid still counts blocks, and each of its dimensions
     * must be a multiple of the cluster's (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION). */
    cushim_dim3 cluster;
    /* The launch's priority (CU_LAUNCH_ATTRIBUTE_PRIORITY), used only when has_priority is
     * true, since 0 is a priority too. Lower numbers run first, within the range that
     * cushim_context_stream_priority_range gives. */
    int priority;
    /* The flags are one-bit fields so that a launch tests all three with one instruction; set
     * them with true or 1 (.has_priority = true), not by address. */
    bool has_priority : 1;
    /* A cooperative launch (CU_LAUNCH_ATTRIBUTE_COOPERATIVE): cushim_launch then checks and
     * launches as cushim_launch_cooperative does. */
    bool cooperative : 1;
    /* Programmatic dependent launch (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION):
     * this kernel may start before the previous kernel in its stream has finished, once that
     * kernel triggers it (griddepcontrol), on devices that support it. */
    bool programmatic_serialization : 1;
} cushim_launch_config;

/* A config of grid and block, every other field zero: no dynamic shared memory, the default
 * stream, no launch attribute. The one spelling that compiles without a warning in C11 and in
 * C++11 to C++23 under -Wall -Wextra -pedantic, with gcc and clang:
 *     cushim_launch_config cfg = cushim_launch_config_make(CUSHIM_DIM3(n / 64), CUSHIM_DIM3(64));
 *     cfg.stream = s;               (then any other field: cfg.cluster = CUSHIM_DIM3(2), ...)
 * Defined here, so it calls nothing in the library and cannot fail: it returns no code. */
static inline cushim_launch_config cushim_launch_config_make(cushim_dim3 grid, cushim_dim3 block) {
    /* Every field named: a field added later and missed here is a -Wextra warning in the
     * headers suite. */
    cushim_launch_config cfg = {grid, block, 0, NULL, {0, 0, 0}, 0, false, false, false};
    return cfg;
}

/* Launches f. params is what cuLaunchKernel takes: an array of pointers to each argument.
 * Zero or oversized dimensions, too many threads per block and too much shared memory are
 * refused before the driver is called, with CUDA_ERROR_INVALID_VALUE and a sentence (a kernel's
 * dynamic shared memory limit is read again first, so an opt-in made since is seen). f or cfg
 * NULL is CUDA_ERROR_INVALID_VALUE, and so is params NULL for a kernel that takes parameters
 * (their count is read once, when the function is looked up, with cuFuncGetParamInfo where the
 * driver has it; elsewhere NULL is passed on as given); a module function launched on a stream of
 * another context is CUDA_ERROR_INVALID_HANDLE. With launch attributes, also refused before the
 * driver, each with a sentence naming the limit:
 *   - a driver without cuLaunchKernelEx: CUDA_ERROR_NOT_SUPPORTED;
 *   - a cluster on a device before compute capability 9.0 or without
 *     CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: CUDA_ERROR_NOT_SUPPORTED;
 *   - a cluster with a zero dimension (but not all three), a grid not a multiple of the cluster,
 *     or a cluster of more blocks than cuOccupancyMaxPotentialClusterSize allows for f with this
 *     block and shared memory (kept per shape, and asked again before a refusal, so that an
 *     opt-in to non-portable sizes made since is seen): CUDA_ERROR_INVALID_VALUE;
 *   - a priority outside the range of f's context (cuCtxGetStreamPriorityRange, read once
 *     per function and kept): CUDA_ERROR_INVALID_VALUE;
 *   - cooperative: as cushim_launch_cooperative.
 * Otherwise CUDA_SUCCESS or the driver's code. Thread-safe; f and the stream are only read. */
CUSHIM_API CUresult cushim_launch(const cushim_function *f, const cushim_launch_config *cfg,
                                  void **params);
/* As cushim_launch, for a grid whose blocks run at once. Also refused before the driver:
 * a device without cooperative launch (CUDA_ERROR_NOT_SUPPORTED) and a grid larger than fits
 * at once (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), each with a sentence. cfg->cooperative
 * need not be set; with another attribute set the launch goes through cuLaunchKernelEx with
 * CU_LAUNCH_ATTRIBUTE_COOPERATIVE, with cushim_launch's checks. CUDA_SUCCESS or the driver's
 * code otherwise. */
CUSHIM_API CUresult cushim_launch_cooperative(const cushim_function *f,
                                              const cushim_launch_config *cfg, void **params);

/* The occupancy queries ask the driver each time, with f's context current, and pass its answer
 * and its codes through. A NULL output is CUDA_ERROR_INVALID_VALUE; on failure the outputs are 0.
 * For a library function they are asked of its CUfunction in the context it was bound to. */

/* How many blocks of block_size threads, each with dynamic_smem bytes of dynamic shared memory,
 * can be active at once on one multiprocessor. block_size < 1 is CUDA_ERROR_INVALID_VALUE;
 * otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_occupancy_max_active_blocks(int *blocks, const cushim_function *f,
                                                       int block_size, size_t dynamic_smem);
/* The block size that gives f the highest occupancy (*block_size), and the smallest grid that
 * reaches it on the whole device (*min_grid), with dynamic_smem bytes per block whatever the
 * block size. block_limit is the largest block, in threads, the caller will launch f with; 0
 * means no limit beyond f's and the device's. A negative block_limit is
 * CUDA_ERROR_INVALID_VALUE; otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_occupancy_max_potential_block_size(int *min_grid, int *block_size,
                                                              const cushim_function *f,
                                                              size_t dynamic_smem, int block_limit);
/* As above, with the dynamic shared memory given per block size by a callback, which the driver
 * calls during this call, on this thread. smem_for_block_size NULL is
 * CUDA_ERROR_INVALID_VALUE; the other codes are as above. */
CUSHIM_API CUresult cushim_occupancy_max_potential_block_size_fn(
    int *min_grid, int *block_size, const cushim_function *f,
    CUoccupancyB2DSize smem_for_block_size, int block_limit);
/* The largest grid, in blocks of block_size threads, that a cooperative launch of f can have:
 * max active blocks per SM times the SM count (at most INT_MAX), the product that
 * cushim_launch_cooperative checks against. A device without cooperative launch is
 * CUDA_ERROR_NOT_SUPPORTED; otherwise as cushim_occupancy_max_active_blocks. */
CUSHIM_API CUresult cushim_occupancy_max_cooperative_grid(int *blocks, const cushim_function *f,
                                                          int block_size, size_t dynamic_smem);
/* How many clusters of cfg->cluster, with cfg's block and shared memory, can be resident at once
 * on the whole device (cuOccupancyMaxActiveClusters). cfg->grid is passed as given and
 * cfg->stream is not used (the query runs in f's context). cfg NULL or without a cluster is
 * CUDA_ERROR_INVALID_VALUE; a device without clusters (before compute capability 9.0, or
 * CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH 0) is CUDA_ERROR_NOT_SUPPORTED; otherwise CUDA_SUCCESS or
 * the driver's code. Thread-safe. */
CUSHIM_API CUresult cushim_occupancy_max_active_clusters(int *clusters, const cushim_function *f,
                                                         const cushim_launch_config *cfg);
/* The most blocks a cluster of f may have with cfg's block and shared memory
 * (cuOccupancyMaxPotentialClusterSize): 8 or fewer, the portable limit, unless f allows
 * non-portable sizes (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), or what f's required
 * cluster size says. The limit cushim_launch checks against. cfg->cluster is ignored, as by the
 * driver, and cfg->stream is not used. cfg NULL is CUDA_ERROR_INVALID_VALUE; a device without
 * clusters is CUDA_ERROR_NOT_SUPPORTED; otherwise CUDA_SUCCESS or the driver's code.
 * Thread-safe. */
CUSHIM_API CUresult cushim_occupancy_max_potential_cluster_size(int *cluster_size,
                                                                const cushim_function *f,
                                                                const cushim_launch_config *cfg);

/* ------------------------------------------------------------------------------------------ */
/* Graphs and host functions                                                                  */
/* ------------------------------------------------------------------------------------------ */
/* A stream's work captured once into a cushim_graph is instantiated into a cushim_graph_exec,
 * which is launched as often as wanted for a fraction of the cost of queuing the same work call
 * by call. Both are refcounted and hold a reference to the context of the stream the capture
 * was made on; instantiate and update run with that context current, and capture, launch,
 * upload and the destroys need none. An executable keeps what it needs of its graph, which may be
 * released first.
 * Threads: unlike cushim's other objects, one graph or executable must not be used by two
 * threads at once (retain and release excepted), because the driver's graph objects are not
 * thread-safe (cuda.h, "graph object thread safety"). */

typedef struct cushim_graph cushim_graph;
typedef struct cushim_graph_exec cushim_graph_exec;

/* Starts capturing s: until cushim_stream_end_capture, the work queued on s (launches, copies,
 * sets, host functions, event waits), and on the streams that join the capture by waiting on an
 * event recorded in it, is recorded into a graph instead of run. mode is
 * CU_STREAM_CAPTURE_MODE_GLOBAL (calls unsafe during a capture are refused on every thread),
 * THREAD_LOCAL (on this thread) or RELAXED (on none); another value is CUDA_ERROR_INVALID_VALUE.
 * A call that the driver does not allow during a capture (a synchronize or query of s or of its
 * context) fails and invalidates the capture. s NULL is CUDA_ERROR_INVALID_VALUE: the legacy
 * default stream cannot be captured. A stream that captures already is
 * CUDA_ERROR_ILLEGAL_STATE; otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_stream_begin_capture(cushim_stream *s, CUstreamCaptureMode mode);
/* Ends the capture that s began, and gives what it recorded as a new graph in *out, bound to s's
 * context. A capture that broke a rule of capture ends with no graph, the driver's code and a
 * sentence naming the rule: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (a call not allowed during a
 * capture was made; the capture is over), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED (s joined a
 * capture that another stream began, which alone can end it; the capture is now invalidated),
 * CUDA_ERROR_STREAM_CAPTURE_UNJOINED (a stream that joined has work that s does not wait for),
 * CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD (a global or thread-local capture begun on another
 * thread), CUDA_ERROR_ILLEGAL_STATE (s is not capturing). CUDA_ERROR_OUT_OF_MEMORY from cushim
 * itself leaves the capture going. CUDA_SUCCESS otherwise. */
CUSHIM_API CUresult cushim_stream_end_capture(cushim_graph **out, cushim_stream *s);
/* Returns g with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_graph *cushim_graph_retain(cushim_graph *g);
/* Drops a reference; the last destroys the graph and releases its context. The executables made
 * from it are not affected. */
CUSHIM_API void cushim_graph_release(cushim_graph *g);
/* The driver's graph, owned by g; NULL for a bad handle. */
CUSHIM_API CUgraph cushim_graph_raw(const cushim_graph *g);
/* The graph's context: a borrowed reference, valid while g lives; NULL for a bad handle. */
CUSHIM_API cushim_context *cushim_graph_context(const cushim_graph *g);

/* Instantiates g into a new executable in *out, bound to g's context. flags are
 * cuGraphInstantiateWithFlags' (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, _DEVICE_LAUNCH,
 * _USE_NODE_PRIORITY); CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, which needs a stream, is
 * CUDA_ERROR_INVALID_VALUE (upload with cushim_graph_exec_upload). A refusal returns the
 * driver's code (CUDA_ERROR_INVALID_VALUE, ...); where the driver says more (CUDA 12.0 on, whose
 * cuGraphInstantiateWithParams cushim uses), the sentence names its CUgraphInstantiateResult and
 * the node it blames, with the node's type. CUDA_SUCCESS otherwise. */
CUSHIM_API CUresult cushim_graph_instantiate(cushim_graph_exec **out, cushim_graph *g,
                                             unsigned long long flags);
/* Returns x with one more reference, or NULL for a bad handle. */
CUSHIM_API cushim_graph_exec *cushim_graph_exec_retain(cushim_graph_exec *x);
/* Drops a reference; the last destroys the executable (launches already queued run to the end)
 * and releases its context. */
CUSHIM_API void cushim_graph_exec_release(cushim_graph_exec *x);
/* The driver's executable, owned by x; NULL for a bad handle. */
CUSHIM_API CUgraphExec cushim_graph_exec_raw(const cushim_graph_exec *x);
/* The executable's context: a borrowed reference, valid while x lives; NULL for a bad handle. */
CUSHIM_API cushim_context *cushim_graph_exec_context(const cushim_graph_exec *x);
/* Launches x on s: its work is queued after what s holds, and runs in the graph's order; launches
 * of one executable run one after another, whatever their streams. s NULL: the default stream of
 * x's context. A stream of another context is for the driver to refuse, and the sentence then
 * names both contexts. x NULL is CUDA_ERROR_INVALID_VALUE; otherwise CUDA_SUCCESS or the
 * driver's code. */
CUSHIM_API CUresult cushim_graph_exec_launch(cushim_graph_exec *x, cushim_stream *s);
/* Uploads x's work to the device in s's order, so that its first launch does not pay for that.
 * s NULL: the default stream of x's context. CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_graph_exec_upload(cushim_graph_exec *x, cushim_stream *s);
/* Gives x the parameters of g, without instantiating again: g has x's topology and kinds of
 * node, typically a new capture of the same code with other arguments. The driver's refusal is
 * CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, and the sentence names its CUgraphExecUpdateResult
 * (CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, ...) and the node of g it blames, with the node's
 * type; x is then as it was. Uses CUDA 12.0's cuGraphExecUpdate: an older driver answers
 * CUDA_ERROR_NOT_SUPPORTED. CUDA_SUCCESS or the driver's code otherwise. */
CUSHIM_API CUresult cushim_graph_exec_update(cushim_graph_exec *x, cushim_graph *g);

/* Queues fn(user) on s: the driver calls it on a thread of its own once the work before it on s
 * is done, and the work queued after it waits until it returns. fn must make no CUDA call,
 * neither cushim's nor the driver's (cuda.h: such a call may fail with CUDA_ERROR_NOT_PERMITTED,
 * or worse), nor wait for CUDA work that is not ordered before it; it holds up s while it runs.
 * It is not called when the context has met an error. During a capture of s it becomes a host
 * node of the graph, called at each launch. s NULL is CUDA_ERROR_INVALID_VALUE (a host function
 * needs a stream: cushim_stream_create, or cushim_stream_wrap of another library's), as is fn
 * NULL; otherwise CUDA_SUCCESS or the driver's code. */
CUSHIM_API CUresult cushim_stream_launch_host_func(cushim_stream *s, CUhostFn fn, void *user);

/* ------------------------------------------------------------------------------------------ */
/* Hooks and tracing                                                                          */
/* ------------------------------------------------------------------------------------------ */
/* Every driver call, made through the drop-in cuda.h, the raw table or cushim's own functions,
 * goes through one slot of the table; a hook sees the calls of the slots it covers. While no hook
 * is installed the slots hold the driver's functions themselves: hooks cost nothing then. Calls
 * made through a pointer that cuGetProcAddress returned are not seen. A driver call made from
 * inside a hook is not hooked again (it goes straight to the driver). The functions of this
 * section are thread-safe and do not load the driver: hooks installed before it is loaded take
 * effect when it is. A thread calling while a hook is added or removed gets the entry's old
 * function or its new one, each whole (a slot is one word). CUSHIM_TRACE=calls|timeline|summary
 * (comma-separated) starts the tracer, which is built on them, when the driver is loaded;
 * CUSHIM_TRACE_FILE names its file. */

/* One driver call, as a hook sees it. */
typedef struct cushim_hook_call {
    const char *entry;  /* cuda.h's name of the entry: "cuLaunchKernel" */
    const char *symbol; /* the driver symbol the call reached: "cuLaunchKernel_ptsz" */
    unsigned index;     /* the entry's place in cushim_driver_table, < CUSHIM_TABLE_ENTRIES */
    bool per_thread;    /* made through the per-thread default-stream table */
    unsigned arg_count;
    void *const *args;           /* args[k] points at argument k, in the prototype's order; a
                                    before hook may change the argument through it */
    CUresult result;             /* the driver's result (after hooks); CUDA_SUCCESS before */
    unsigned long long start_ns; /* CLOCK_MONOTONIC when the call began */
    unsigned long long end_ns;   /* and when it returned (after hooks); 0 before */
} cushim_hook_call;

/* A hook: called on the calling thread, with the user pointer given to cushim_hook_add. */
typedef void (*cushim_hook_fn)(const cushim_hook_call *call, void *user);

/* Installs a hook on the entry named `entry` (cuda.h's name, "cuMemAlloc", or a symbol,
 * "cuMemAlloc_v2", "cuLaunchKernel_ptsz": the entry in both default-stream modes), or on every
 * entry when entry is NULL: `before` is called before each call, `after` after it with the
 * result; either may be NULL. After a call's before hooks ran, its after hooks run for those
 * hooks that are still installed. Its id for cushim_hook_remove goes to *id. Hooks run in the
 * order they were added. Codes: CUDA_SUCCESS; CUDA_ERROR_INVALID_VALUE when id is NULL or both
 * functions are; CUDA_ERROR_NOT_FOUND when cuda.h has no such entry; CUDA_ERROR_OUT_OF_MEMORY
 * when 64 hooks are installed already. */
CUSHIM_API CUresult cushim_hook_add(const char *entry, cushim_hook_fn before, cushim_hook_fn after,
                                    void *user, unsigned long long *id);
/* Removes the hook `id`. When it returns, the hook's functions run nowhere and will not be called
 * again; called from inside a hook, it does not wait for other threads' calls of it. While other
 * threads call the driver is fine. Codes: CUDA_SUCCESS; CUDA_ERROR_INVALID_HANDLE when id is not
 * an installed hook (removed already, or never returned by cushim_hook_add). */
CUSHIM_API CUresult cushim_hook_remove(unsigned long long id);

/* Starts the tracer, as CUSHIM_TRACE does: `what` is "calls" (a line per call: thread, entry,
 * arguments, result, duration), "timeline" (Chrome trace-event JSON for Perfetto), "summary" (at
 * exit or cushim_trace_stop, a table per entry) or a comma-separated list of them; `path` is the
 * file (NULL: stderr for calls and summary, cushim-trace-<pid>.json for a timeline). Codes:
 * CUDA_SUCCESS; CUDA_ERROR_INVALID_VALUE when what is NULL or names nothing known;
 * CUDA_ERROR_ILLEGAL_STATE when the tracer runs already; CUDA_ERROR_FILE_NOT_FOUND when the file
 * cannot be opened (the sentence says why); CUDA_ERROR_OUT_OF_MEMORY when no hook is left. */
CUSHIM_API CUresult cushim_trace_start(const char *what, const char *path);
/* Stops the tracer: writes what it holds, ends the timeline's JSON, prints the summary, closes
 * the file. Codes: CUDA_SUCCESS, also when it was not running. */
CUSHIM_API CUresult cushim_trace_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* CUSHIM_H */
