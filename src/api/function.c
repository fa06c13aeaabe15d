/* Functions: made by modules and libraries, which own them; what every kernel needs read once. */
#include <stdint.h>
#include <string.h>

#include "api/alloc.h"
#include "api/function.h"
#include "loader/loader.h"

cushim_function *cushim__function_new(const char *name, const char *fn) {
    size_t len = strlen(name);
    cushim_function *f = cushim__alloc(sizeof *f + len + 1, fn);
    if (f == NULL) return NULL;
    memcpy(f->name, name, len + 1);
    return f;
}

/* Whether the kernel has a parameter at index i: CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE past
 * the last, another code when the driver cannot say or failed. */
static CUresult param_at(const cushim_function *f, size_t i) {
    size_t offset = 0, size = 0;
    return cushim__table.cuFuncGetParamInfo(f->fn, i, &offset, &size);
}

/* The kernel's parameter count, read once at lookup from cuFuncGetParamInfo (CUDA 12.4 and
 * later), which refuses an index past the last: by doubling then halving, a few calls for any
 * count. -1 where the driver lacks the entry or cannot say (CUDA_ERROR_NOT_SUPPORTED, as the
 * mock answers for an image without parameter lists); another failure is the lookup's. */
static CUresult read_param_count(cushim_function *f, const char *fn) {
    f->param_count = -1;
    if (!cushim_driver_has("cuFuncGetParamInfo")) return CUDA_SUCCESS;
    /* known: indexes below it exist; past: one that does not (none found yet: SIZE_MAX). */
    size_t known = 0, past = SIZE_MAX;
    CUresult r = CUDA_SUCCESS;
    for (size_t probe = 0; r == CUDA_SUCCESS && past == SIZE_MAX && probe <= 65536;
         probe = probe ? probe * 2 : 1) {
        r = param_at(f, probe);
        if (r == CUDA_SUCCESS) known = probe + 1;
        if (r == CUDA_ERROR_INVALID_VALUE) past = probe, r = CUDA_SUCCESS;
    }
    while (r == CUDA_SUCCESS && past != SIZE_MAX && past > known) {
        size_t mid = known + (past - known) / 2;
        r = param_at(f, mid);
        if (r == CUDA_SUCCESS) known = mid + 1;
        if (r == CUDA_ERROR_INVALID_VALUE) past = mid, r = CUDA_SUCCESS;
    }
    if (r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_NOT_FOUND) return CUDA_SUCCESS;
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r,
                            "%s: kernel '%s': reading its parameters (cuFuncGetParamInfo) "
                            "failed with %s",
                            fn, f->name, cushim_error_name(r));
    }
    if (past == SIZE_MAX) return CUDA_SUCCESS; /* more than any kernel takes: say nothing */
    f->param_count = (int)past;
    f->params_floor = past > 0;
    return CUDA_SUCCESS;
}

CUresult cushim__function_read_attributes(cushim_function *f, const char *fn) {
    static const struct {
        CUfunction_attribute attr;
        const char *name;
    } wanted[] = {
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"},
        {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"},
        {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
         "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"},
    };
    int value[3];
    for (int i = 0; i < 3; i++) {
        CUresult r = cushim__table.cuFuncGetAttribute(&value[i], wanted[i].attr, f->fn);
        if (r != CUDA_SUCCESS) {
            return cushim__fail(r, "%s: kernel '%s': reading %s failed with %s", fn, f->name,
                                wanted[i].name, cushim_error_name(r));
        }
    }
    f->static_smem = value[0];
    f->kernel_max_threads = value[1];
    const cushim__limits *l = f->limits;
    int threads = l->max_threads_per_block;
    if (value[1] > 0 && value[1] < threads) threads = value[1];
    f->max_threads = threads > 0 ? (unsigned)threads : 0u;
    atomic_init(&f->max_dynamic_smem, cushim__dynamic_smem_limit(l, value[0], value[2]));
    atomic_init(&f->coop_cache, 0);
    atomic_init(&f->cluster_cache, 0);
    atomic_init(&f->priority_range, 0);
    return read_param_count(f, fn);
}

cushim_function *cushim__function_find(cushim_function *list, const char *name, CUcontext ctx) {
    for (cushim_function *f = list; f != NULL; f = f->next) {
        if (f->ctx_raw == ctx && strcmp(f->name, name) == 0) return f;
    }
    return NULL;
}

cushim_function *cushim__function_listed(pthread_mutex_t *lock, cushim_function *const *list,
                                         const char *name, CUcontext ctx) {
    pthread_mutex_lock(lock);
    cushim_function *f = cushim__function_find(*list, name, ctx);
    pthread_mutex_unlock(lock);
    return f;
}

cushim_function *cushim__function_list(pthread_mutex_t *lock, cushim_function **list,
                                       cushim_function *made, bool owns_ctx) {
    pthread_mutex_lock(lock);
    cushim_function *f = cushim__function_find(*list, made->name, made->ctx_raw);
    if (f == NULL) {
        made->next = *list;
        *list = f = made;
        made = NULL;
    }
    pthread_mutex_unlock(lock);
    cushim__functions_free(made, owns_ctx);
    return f;
}

void cushim__functions_free(cushim_function *f, bool owns_ctx) {
    while (f != NULL) {
        cushim_function *next = f->next;
        atomic_store_explicit(&f->obj.tag, (uint32_t)CUSHIM__DEAD, memory_order_relaxed);
        if (owns_ctx) cushim_context_release(f->ctx);
        cushim__free(f);
        f = next;
    }
}

CUSHIM_API CUfunction cushim_function_raw(const cushim_function *f) {
    return cushim__is(f, CUSHIM__FUNCTION) ? f->raw : NULL;
}
