/* Internal: a kernel as cushim holds it, owned by its module or library, and the caches that
 * keep a launch from asking the driver the same question every time. Read by the launch, its
 * checks and occupancy; made by function.c for modules and libraries. */
#ifndef CUSHIM_API_FUNCTION_H
#define CUSHIM_API_FUNCTION_H

#include "api/limits.h"
#include "api/object.h"

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
    /* 1 when the kernel takes parameters, 0 when it takes none or the driver could not say: a
     * launch whose params pointer is below it (NULL) is refused, one compare on the hot path. */
    uintptr_t params_floor;
    /* The last (threads, dynamic shared memory) -> active blocks per SM that a cooperative
     * launch asked the driver, packed so that one atomic word keeps key and answer together:
     * threads << 48 | smem << 16 | blocks; 0 is empty. */
    _Atomic uint64_t coop_cache;
    /* The same for a cluster launch: (threads, smem) -> cuOccupancyMaxPotentialClusterSize. */
    _Atomic uint64_t cluster_cache;
    /* The stream priority range of the context, for launches with a priority: 1 << 32 |
     * (uint16)least << 16 | (uint16)greatest once read; 0 before. */
    _Atomic uint64_t priority_range;

    CUfunction fn;       /* a CUfunction in ctx, for attributes and occupancy (raw, for modules) */
    cushim_context *ctx; /* borrowed from the module, or retained for a library function */
    int static_smem;
    int kernel_max_threads;
    int param_count; /* from cuFuncGetParamInfo; -1 where the driver cannot say */
    struct cushim_function *next;
    char name[]; /* the kernel's name, for sentences */
};

/* The caches of answers by launch shape: the answer for (threads, smem) when the last one asked
 * was that, packed in one word so that a reader never sees the key of one answer with another. */
static inline bool cushim__shape_cache_get(const _Atomic uint64_t *cache, unsigned threads,
                                           unsigned smem, int *answer) {
    uint64_t v = atomic_load_explicit(cache, memory_order_relaxed);
    uint64_t key = ((uint64_t)threads << 48) | ((uint64_t)smem << 16);
    if (threads > 0xffffu || (v & ~(uint64_t)0xffffu) != key) return false;
    *answer = (int)(v & 0xffffu);
    return true;
}

/* The function is const to callers; its caches are the one thing a query may change, hence the
 * cache pointer is not const. */
static inline void cushim__shape_cache_put(_Atomic uint64_t *cache, unsigned threads, size_t smem,
                                           int answer) {
    /* An answer that does not pack empties the cache rather than leave an older one for the
     * same key in place (found by the fuzzer with the mock's occupancy forced past 65535). */
    uint64_t v = 0;
    if (threads > 0 && threads <= 0xffffu && smem <= 0xffffffffu && answer >= 0 &&
        answer <= 0xffff) {
        v = ((uint64_t)threads << 48) | ((uint64_t)smem << 16) | (uint64_t)answer;
    }
    atomic_store_explicit(cache, v, memory_order_relaxed);
}

/* The cooperative launch's cache: active blocks per SM. */
static inline bool cushim__coop_cache_get(const cushim_function *f, unsigned threads, unsigned smem,
                                          int *blocks) {
    return cushim__shape_cache_get(&f->coop_cache, threads, smem, blocks);
}

static inline void cushim__coop_cache_put(const cushim_function *f, unsigned threads, size_t smem,
                                          int blocks) {
    cushim__shape_cache_put(&((cushim_function *)f)->coop_cache, threads, smem, blocks);
}

/* A function named `name`, zeroed but for the name (its tag is set by the caller once it is
 * complete), or NULL with the last error set (naming fn). */
cushim_function *cushim__function_new(const char *name, const char *fn);

/* Reads, once, what the launch pre-checks need from the kernel (f->fn and f->limits set), and
 * folds it together with the device's limits. */
CUresult cushim__function_read_attributes(cushim_function *f, const char *fn);

/* The function named `name` for context ctx in a list, or NULL. */
/* A module's or library's list of functions, guarded by lock, which is held for the list only
 * (never across a driver call). The function named `name` in ctx, or NULL. */
cushim_function *cushim__function_listed(pthread_mutex_t *lock, cushim_function *const *list,
                                         const char *name, CUcontext ctx);
/* Lists made, unless another thread listed its name in its context first: then made is freed
 * (with the reference to its context when owns_ctx). The function now listed. */
cushim_function *cushim__function_list(pthread_mutex_t *lock, cushim_function **list,
                                       cushim_function *made, bool owns_ctx);
cushim_function *cushim__function_find(cushim_function *list, const char *name, CUcontext ctx);

/* Frees a list of functions; a library's hold a reference to their context (owns_ctx). */
void cushim__functions_free(cushim_function *f, bool owns_ctx);

#endif
