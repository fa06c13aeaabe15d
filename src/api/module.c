/* Modules (loaded into a context), libraries (context-less, cuLibraryLoadData) and the
 * functions they own. Modules are loaded and unloaded with their context current. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/module.h"
#include "loader/loader.h"

/* ------------------------------------------------------------------------------------------ */
/* JIT logs                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* The options every load passes: the error and info logs, so that a PTX that fails to compile
 * says why. The driver writes the used sizes back into vals. */
enum { JIT_OPTION_COUNT = CUSHIM__JIT_OPTIONS };

static void jit_options(CUjit_option opts[JIT_OPTION_COUNT], void *vals[JIT_OPTION_COUNT],
                        char *error_log, char *info_log) {
    error_log[0] = '\0';
    info_log[0] = '\0';
    opts[0] = CU_JIT_ERROR_LOG_BUFFER;
    vals[0] = error_log;
    opts[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    vals[1] = (void *)(uintptr_t)CUSHIM__JIT_LOG_BYTES;
    opts[2] = CU_JIT_INFO_LOG_BUFFER;
    vals[2] = info_log;
    opts[3] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
    vals[3] = (void *)(uintptr_t)CUSHIM__JIT_LOG_BYTES;
}

/* Makes a log fit to print: NUL-terminated whatever the driver did, no trailing newlines. */
static const char *tidy_log(char *log) {
    log[CUSHIM__JIT_LOG_BYTES - 1] = '\0';
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == '\r' || log[n - 1] == ' '))
        log[--n] = 0;
    return log;
}

/* The sentence for a failed load: the JIT's error log when it wrote one, else the code's text. */
static CUresult load_failed(CUresult r, const char *fn, const char *path, char *error_log,
                            char *info_log) {
    const char *why = tidy_log(error_log);
    if (*why == '\0') why = tidy_log(info_log);
    if (*why == '\0') why = cushim_error_string(r);
    if (path != NULL) {
        return cushim__fail(r, "%s: %s: %s: %s", fn, path, cushim_error_name(r), why);
    }
    return cushim__fail(r, "%s: %s: %s", fn, cushim_error_name(r), why);
}

static void log_info(const char *fn, char *info_log) {
    const char *info = tidy_log(info_log);
    if (*info != '\0') cushim__log(CUSHIM_LOG_DEBUG, "%s: JIT info: %s", fn, info);
}

/* ------------------------------------------------------------------------------------------ */
/* Functions                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static cushim_function *new_function(const char *name, const char *fn) {
    size_t len = strlen(name);
    cushim_function *f = cushim__alloc(sizeof *f + len + 1, fn);
    if (f == NULL) return NULL;
    memcpy(f->name, name, len + 1);
    return f;
}

/* Reads, once, what the launch pre-checks need from the kernel, and folds it together with the
 * device's limits. */
static CUresult read_attributes(cushim_function *f, const char *fn) {
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
    return CUDA_SUCCESS;
}

static cushim_function *find_function(cushim_function *list, const char *name, CUcontext ctx) {
    for (cushim_function *f = list; f != NULL; f = f->next) {
        if (f->ctx_raw == ctx && strcmp(f->name, name) == 0) return f;
    }
    return NULL;
}

/* Frees a list of functions; a library's hold a reference to their context. */
static void free_functions(cushim_function *f, bool owns_ctx) {
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

/* ------------------------------------------------------------------------------------------ */
/* Modules                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static CUresult load_module(cushim_module **out, cushim_context *ctx, const void *image,
                            const char *path, const char *fn) {
    cushim_module *m = cushim__alloc(sizeof *m, fn);
    if (m == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    if (path != NULL) {
        m->path = cushim__alloc(strlen(path) + 1, fn);
        if (m->path == NULL) {
            cushim__free(m);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        strcpy(m->path, path);
    }
    char error_log[CUSHIM__JIT_LOG_BYTES], info_log[CUSHIM__JIT_LOG_BYTES];
    CUjit_option opts[JIT_OPTION_COUNT];
    void *vals[JIT_OPTION_COUNT];
    jit_options(opts, vals, error_log, info_log);

    cushim__guard g;
    CUresult r = cushim__enter(ctx->raw, &g, fn);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuModuleLoadDataEx(&m->raw, image, JIT_OPTION_COUNT, opts, vals);
        if (r != CUDA_SUCCESS) load_failed(r, fn, path, error_log, info_log);
        CUSHIM__LEAVE_OR_UNDO(&g, r, "module", m->raw, cushim__table.cuModuleUnload(m->raw));
    }
    if (r != CUDA_SUCCESS) {
        cushim__free(m->path);
        cushim__free(m);
        return r;
    }
    log_info(fn, info_log);
    pthread_mutex_init(&m->lock, NULL);
    cushim__object_init(&m->obj, CUSHIM__MODULE);
    m->ctx = cushim_context_retain(ctx);
    *out = m;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_module_load_data(cushim_module **out, cushim_context *ctx,
                                            const void *image) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (image == NULL) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: image is NULL", __func__);
    }
    return load_module(out, ctx, image, NULL, __func__);
}

/* Reads a whole file and adds a NUL, which PTX text needs and a cubin or fatbin ignores. */
static CUresult read_file(const char *path, char **data, const char *fn) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        char buf[256];
        const char *why = strerror_r(errno, buf, sizeof buf);
        return cushim__fail(CUDA_ERROR_FILE_NOT_FOUND, "%s: cannot open '%s': %s", fn, path, why);
    }
    /* Only a file or a pipe comes to an end: a directory cannot be read, and a device such as
     * /dev/zero would be read until memory runs out. */
    struct stat st;
    if (fstat(fileno(file), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        fclose(file);
        return cushim__fail(CUDA_ERROR_FILE_NOT_FOUND, "%s: '%s' is not a regular file", fn, path);
    }
    size_t used = 0, size = 64 * 1024;
    char *p = malloc(size);
    while (p != NULL) {
        used += fread(p + used, 1, size - 1 - used, file);
        if (used < size - 1) break;
        char *bigger = realloc(p, size * 2);
        if (bigger == NULL) free(p);
        p = bigger;
        size *= 2;
    }
    bool failed = p != NULL && ferror(file);
    fclose(file);
    if (p == NULL) {
        return cushim__fail(CUDA_ERROR_OUT_OF_MEMORY, "%s: out of host memory reading '%s'", fn,
                            path);
    }
    if (failed) {
        free(p);
        return cushim__fail(CUDA_ERROR_FILE_NOT_FOUND, "%s: reading '%s' failed", fn, path);
    }
    p[used] = '\0';
    *data = p;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_module_load_file(cushim_module **out, cushim_context *ctx,
                                            const char *path) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (path == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: path is NULL", __func__);
    /* Read here rather than with cuModuleLoad, so that a PTX file gets the JIT log too. */
    char *data = NULL;
    r = read_file(path, &data, __func__);
    if (r != CUDA_SUCCESS) return r;
    r = load_module(out, ctx, data, path, __func__);
    free(data);
    return r;
}

CUSHIM_API cushim_module *cushim_module_retain(cushim_module *m) {
    return cushim__retain_checked(m, CUSHIM__MODULE, "m", __func__);
}

CUSHIM_API void cushim_module_release(cushim_module *m) {
    if (!cushim__release_checked(m, CUSHIM__MODULE, "m", __func__)) return;
    CUSHIM__DESTROY_IN(m->ctx->raw, "module", m->raw, cushim__table.cuModuleUnload(m->raw));
    free_functions(m->functions, false);
    pthread_mutex_destroy(&m->lock);
    cushim_context_release(m->ctx);
    cushim__free(m->path);
    cushim__free(m);
}

/* Looks the kernel up in the module's context and reads its attributes. */
static CUresult make_module_function(cushim_function **out, cushim_module *m, const char *name,
                                     const char *fn) {
    const cushim__limits *limits = NULL;
    CUresult r = cushim__read_limits(m->ctx->device, m->ctx->ordinal, &limits, fn);
    if (r != CUDA_SUCCESS) return r;
    cushim_function *f = new_function(name, fn);
    if (f == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    f->limits = limits;
    f->ctx = m->ctx;
    f->ctx_raw = m->ctx->raw;
    f->check_stream_ctx = true;
    cushim__guard g;
    r = cushim__enter(m->ctx->raw, &g, fn);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuModuleGetFunction(&f->raw, m->raw, name);
        if (r == CUDA_ERROR_NOT_FOUND) {
            cushim__fail(r, "%s: no kernel named '%s' in module %p%s%s%s", fn, name, (void *)m,
                         m->path ? " (loaded from '" : "", m->path ? m->path : "",
                         m->path ? "')" : "");
        } else if (r != CUDA_SUCCESS) {
            cushim__fail(r, "%s: cuModuleGetFunction of '%s' in module %p failed with %s", fn, name,
                         (void *)m, cushim_error_name(r));
        }
        CUresult l = cushim__leave(&g, fn);
        if (r == CUDA_SUCCESS) r = l;
    }
    if (r == CUDA_SUCCESS) {
        f->fn = f->raw;
        r = read_attributes(f, fn);
    }
    if (r != CUDA_SUCCESS) {
        cushim__free(f);
        return r;
    }
    cushim__object_init(&f->obj, CUSHIM__FUNCTION);
    *out = f;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_module_function(cushim_function **out, cushim_module *m,
                                           const char *name) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(m, CUSHIM__MODULE, "m", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (name == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: name is NULL", __func__);
    /* The lock makes a name asked twice, even at once, one object. */
    pthread_mutex_lock(&m->lock);
    cushim_function *f = find_function(m->functions, name, m->ctx->raw);
    if (f == NULL) {
        r = make_module_function(&f, m, name, __func__);
        if (r == CUDA_SUCCESS) {
            f->next = m->functions;
            m->functions = f;
        }
    }
    pthread_mutex_unlock(&m->lock);
    if (r == CUDA_SUCCESS) *out = f;
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Libraries                                                                                  */
/* ------------------------------------------------------------------------------------------ */

CUSHIM_API CUresult cushim_library_load_data(cushim_library **out, const void *image) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    if (image == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: image is NULL", __func__);
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) return r;
    cushim_library *lib = cushim__alloc(sizeof *lib, __func__);
    if (lib == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    jit_options(lib->jit_opts, lib->jit_vals, lib->error_log, lib->info_log);
    r = cushim__table.cuLibraryLoadData(&lib->raw, image, lib->jit_opts, lib->jit_vals, JIT_OPTION_COUNT, NULL,
                            NULL, 0);
    if (r != CUDA_SUCCESS) {
        load_failed(r, __func__, NULL, lib->error_log, lib->info_log);
        cushim__free(lib);
        return r;
    }
    log_info(__func__, lib->info_log);
    pthread_mutex_init(&lib->lock, NULL);
    cushim__object_init(&lib->obj, CUSHIM__LIBRARY);
    *out = lib;
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_library *cushim_library_retain(cushim_library *lib) {
    return cushim__retain_checked(lib, CUSHIM__LIBRARY, "lib", __func__);
}

CUSHIM_API void cushim_library_release(cushim_library *lib) {
    if (!cushim__release_checked(lib, CUSHIM__LIBRARY, "lib", __func__)) return;
    /* A library belongs to no context: it is unloaded with none made current. */
    CUresult r = cushim__table.cuLibraryUnload(lib->raw);
    if (r != CUDA_SUCCESS) cushim__destroy_refused(__func__, "library", (void *)lib->raw, r);
    free_functions(lib->functions, true);
    pthread_mutex_destroy(&lib->lock);
    cushim__free(lib);
}

/* A library's PTX is compiled when a kernel is first asked for, so a failure there carries the
 * JIT's log when it wrote one. */
static CUresult library_failed(CUresult r, cushim_library *lib, const char *entry, const char *name,
                               CUcontext ctx, const char *fn) {
    const char *log = tidy_log(lib->error_log);
    char where[64] = "";
    if (ctx != NULL) snprintf(where, sizeof where, " in context %p", (void *)ctx);
    return cushim__fail(r, "%s: %s of '%s'%s failed with %s: %s", fn, entry, name, where,
                        cushim_error_name(r), *log ? log : cushim_error_string(r));
}

/* Finds the kernel, then its CUfunction in ctx (made current for it), which answers attribute
 * and occupancy queries; the launch itself uses the CUkernel. */
static CUresult make_library_function(cushim_function **out, cushim_library *lib,
                                      cushim_context *ctx, const char *name, const char *fn) {
    const cushim__limits *limits = NULL;
    CUresult r = cushim__read_limits(ctx->device, ctx->ordinal, &limits, fn);
    if (r != CUDA_SUCCESS) return r;
    CUkernel kernel = NULL;
    r = cushim__table.cuLibraryGetKernel(&kernel, lib->raw, name);
    if (r == CUDA_ERROR_NOT_FOUND) {
        return cushim__fail(r, "%s: no kernel named '%s' in library %p", fn, name, (void *)lib);
    }
    if (r != CUDA_SUCCESS) return library_failed(r, lib, "cuLibraryGetKernel", name, NULL, fn);
    cushim_function *f = new_function(name, fn);
    if (f == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    f->raw = (CUfunction)kernel;
    f->limits = limits;
    f->ctx_raw = ctx->raw;
    f->check_stream_ctx = false;
    cushim__guard g;
    r = cushim__enter(ctx->raw, &g, fn);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuKernelGetFunction(&f->fn, kernel);
        if (r != CUDA_SUCCESS) library_failed(r, lib, "cuKernelGetFunction", name, ctx->raw, fn);
        CUresult l = cushim__leave(&g, fn);
        if (r == CUDA_SUCCESS) r = l;
    }
    if (r == CUDA_SUCCESS) r = read_attributes(f, fn);
    if (r != CUDA_SUCCESS) {
        cushim__free(f);
        return r;
    }
    cushim__object_init(&f->obj, CUSHIM__FUNCTION);
    f->ctx = cushim_context_retain(ctx);
    *out = f;
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_library_function(cushim_function **out, cushim_library *lib,
                                            cushim_context *ctx, const char *name) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(lib, CUSHIM__LIBRARY, "lib", __func__);
    if (r != CUDA_SUCCESS) return r;
    r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (name == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: name is NULL", __func__);
    pthread_mutex_lock(&lib->lock);
    cushim_function *f = find_function(lib->functions, name, ctx->raw);
    if (f == NULL) {
        r = make_library_function(&f, lib, ctx, name, __func__);
        if (r == CUDA_SUCCESS) {
            f->next = lib->functions;
            lib->functions = f;
        }
    }
    pthread_mutex_unlock(&lib->lock);
    if (r == CUDA_SUCCESS) *out = f;
    return r;
}
