/* Modules: loaded into a context, from an image in memory or a file, and the kernels looked up
 * in them. Modules are loaded and unloaded with their context current. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/alloc.h"
#include "api/context_rule.h"
#include "api/module.h"
#include "loader/diag.h"
#include "loader/fork.h"
#include "loader/loader.h"

/* Why a path that is not a regular file is refused, by its type. */
static CUresult not_regular(const char *path, const struct stat *st, const char *fn) {
    const char *what = S_ISFIFO(st->st_mode)  ? "a FIFO (opening one with no writer would block)"
                       : S_ISDIR(st->st_mode) ? "a directory"
                       : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device"
                                                                      : "not a regular file";
    return cushim__fail(CUDA_ERROR_FILE_NOT_FOUND,
                        "%s: '%s' is %s: a module is read from a regular file only", fn, path,
                        what);
}

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
    CUjit_option opts[CUSHIM__JIT_OPTIONS];
    void *vals[CUSHIM__JIT_OPTIONS];
    cushim__jit_options(opts, vals, error_log, info_log);

    cushim__guard g;
    CUresult r = cushim__enter(ctx->raw, &g, fn);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuModuleLoadDataEx(&m->raw, image, CUSHIM__JIT_OPTIONS, opts, vals);
        if (r != CUDA_SUCCESS) cushim__jit_load_failed(r, fn, path, error_log, info_log);
        CUSHIM__LEAVE_OR_UNDO(&g, r, "module", m->raw, cushim__table.cuModuleUnload(m->raw));
    }
    if (r != CUDA_SUCCESS) {
        cushim__free(m->path);
        cushim__free(m);
        return r;
    }
    cushim__jit_log_info(fn, info_log);
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
    /* Only a regular file, checked before it is opened and again on what was opened: opening a
     * FIFO with no writer blocks forever, a directory cannot be read, and a device such as
     * /dev/zero would be read until memory runs out. O_NONBLOCK keeps the open itself from
     * blocking on a FIFO swapped in between; it changes nothing for a regular file. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return not_regular(path, &st, fn);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        char buf[256];
        const char *why = strerror_r(errno, buf, sizeof buf);
        return cushim__fail(CUDA_ERROR_FILE_NOT_FOUND, "%s: cannot open '%s': %s", fn, path, why);
    }
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, &st, fn);
    }
    FILE *file = fdopen(fd, "rb");
    if (file == NULL) {
        close(fd);
        return cushim__fail(CUDA_ERROR_OUT_OF_MEMORY, "%s: out of host memory opening '%s'", fn,
                            path);
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
    CUSHIM__DESTROY("module", m->raw, cushim__table.cuModuleUnload(m->raw));
    /* A forked child leaves a list that a thread of the parent was changing at the fork. */
    if (!cushim__forked || cushim__forked_lock_was_free(&m->lock)) {
        cushim__functions_free(m->functions, false);
        pthread_mutex_destroy(&m->lock);
    }
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
    cushim_function *f = cushim__function_new(name, fn);
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
        r = cushim__function_read_attributes(f, fn);
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
    if (cushim__forked) return cushim__forked_refusal(__func__);
    /* The lock guards the list only: the driver is never called under it, so a driver that
     * calls back into cushim cannot deadlock here, nor a fork leave it held across a long call.
     * Two threads asking for a new name at once may both make it; the first one listed is
     * kept, so that a name is always one object. */
    cushim_function *f = cushim__function_listed(&m->lock, &m->functions, name, m->ctx->raw);
    if (f == NULL) {
        cushim_function *made = NULL;
        r = make_module_function(&made, m, name, __func__);
        if (r != CUDA_SUCCESS) return r;
        f = cushim__function_list(&m->lock, &m->functions, made, false);
    }
    if (r == CUDA_SUCCESS) *out = f;
    return r;
}
