/* Internal: modules, libraries and the functions they own, shared by module.c (loading and
 * lookup), launch.c (the pre-checks and the launch) and occupancy.c. */
#ifndef CUSHIM_API_MODULE_H
#define CUSHIM_API_MODULE_H

#include <pthread.h>

#include "api/limits.h"
#include "api/object.h"

/* The JIT logs a load asks the driver for. The error log ends up in cushim_last_error(), which
 * holds about this much; longer logs are cut. */
#define CUSHIM__JIT_LOG_BYTES 4096
/* The error and info logs, each a buffer and its size. */
#define CUSHIM__JIT_OPTIONS 4

/* A kernel, owned by its module or library and freed with it. The fields that a launch reads
 * come first, so that the hot path touches one or two cache lines. */
struct cushim_function {
    cushim__object obj;
    CUfunction raw;    /* what cuLaunchKernel gets: a CUfunction, or a CUkernel cast to one */
    CUcontext ctx_raw; /* the context of NULL-stream launches, and of module functions' streams */
    const cushim__limits *limits; /* of ctx's device, kept for the process */
    /* The largest block (threads) and dynamic shared memory (bytes) a launch may ask for, with
     * the device's and this kernel's limits folded together. The shared memory limit is
     * atomic because a refused launch reads the kernel's attribute again (the caller may have
     * opted in with cuFuncSetAttribute since) and may raise it. */
    unsigned max_threads;
    _Atomic unsigned max_dynamic_smem;
    bool check_stream_ctx; /* module functions: a stream must belong to ctx */
    /* The last (threads, dynamic shared memory) -> active blocks per SM that a cooperative
     * launch asked the driver, packed so that one atomic word keeps key and answer together:
     * threads << 48 | smem << 16 | blocks; 0 is empty. */
    _Atomic uint64_t coop_cache;

    CUfunction fn;       /* a CUfunction in ctx, for attributes and occupancy (raw, for modules) */
    cushim_context *ctx; /* borrowed from the module, or retained for a library function */
    int static_smem;
    int kernel_max_threads;
    struct cushim_function *next;
    char name[]; /* the kernel's name, for sentences */
};

struct cushim_module {
    cushim__object obj;
    cushim_context *ctx;
    CUmodule raw;
    pthread_mutex_t lock; /* guards the function list */
    cushim_function *functions;
    char *path; /* the file it came from, for sentences; NULL for an image in memory */
};

struct cushim_library {
    cushim__object obj;
    CUlibrary raw;
    pthread_mutex_t lock;
    cushim_function *functions;
    /* The JIT options and logs live as long as the library: with lazy loading the driver
     * compiles a PTX when a kernel is first asked for, not in cuLibraryLoadData (a broken PTX
     * loads fine; seen with driver 580), and what it was given must still be there then. */
    CUjit_option jit_opts[CUSHIM__JIT_OPTIONS];
    void *jit_vals[CUSHIM__JIT_OPTIONS];
    char error_log[CUSHIM__JIT_LOG_BYTES];
    char info_log[CUSHIM__JIT_LOG_BYTES];
};

/* The cooperative launch's cache: the answer for (threads, smem) when the last one asked was
 * that, packed in one word so that a reader never sees the key of one answer with another. */
static inline bool cushim__coop_cache_get(const cushim_function *f, unsigned threads, unsigned smem,
                                          int *blocks) {
    uint64_t v = atomic_load_explicit(&f->coop_cache, memory_order_relaxed);
    uint64_t key = ((uint64_t)threads << 48) | ((uint64_t)smem << 16);
    if (threads > 0xffffu || (v & ~(uint64_t)0xffffu) != key) return false;
    *blocks = (int)(v & 0xffffu);
    return true;
}

static inline void cushim__coop_cache_put(const cushim_function *f, unsigned threads, size_t smem,
                                          int blocks) {
    /* An answer that does not pack empties the cache rather than leave an older one for the
     * same key in place (found by the fuzzer with the mock's occupancy forced past 65535). */
    uint64_t v = 0;
    if (threads > 0 && threads <= 0xffffu && smem <= 0xffffffffu && blocks >= 0 &&
        blocks <= 0xffff) {
        v = ((uint64_t)threads << 48) | ((uint64_t)smem << 16) | (uint64_t)blocks;
    }
    /* The function is const to callers; the cache is the one thing a query may change. */
    atomic_store_explicit(&((cushim_function *)f)->coop_cache, v, memory_order_relaxed);
}

/* Active blocks per SM of f for this block size and dynamic shared memory, asked of the driver
 * every time (a query answers what the driver says now), with f's context current, and kept in
 * the cooperative launch's cache. Sets the last error (naming fn) on failure. */
CUresult cushim__active_blocks(const cushim_function *f, unsigned threads, size_t smem, int *blocks,
                               const char *fn);

/* The refusal of a cooperative launch or grid on a device without cooperative launch. */
CUresult cushim__no_cooperative(const cushim_function *f, const char *fn);

#endif
