/* Functions: made by modules and libraries, which own them; what every kernel needs read once. */
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
    return CUDA_SUCCESS;
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
