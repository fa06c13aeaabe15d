/* Programs: CUDA C++ compiled at run time by NVRTC, their log and their code. A program holds no
 * context and needs no driver; cushim_program_load (program_load.c) puts it into one. */
#include <stdlib.h>
#include <string.h>

#include "api/alloc.h"
#include "api/program.h"
#include "loader/dso.h"
#include "loader/loader.h"

#define NVRTC (&cushim__nvrtc_dso)

CUresult cushim__nvrtc_result(nvrtcResult r) {
    switch (r) {
    case NVRTC_SUCCESS: return CUDA_SUCCESS;
    case NVRTC_ERROR_OUT_OF_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
    case NVRTC_ERROR_COMPILATION: return CUDA_ERROR_INVALID_SOURCE;
    case NVRTC_ERROR_INVALID_OPTION:
    case NVRTC_ERROR_INVALID_INPUT:
    case NVRTC_ERROR_INVALID_PROGRAM: return CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

const char *cushim__nvrtc_name(nvrtcResult r) { return cushim__nvrtc_error_name((int)r); }

/* The sentence for a failed NVRTC call, and its CUresult. */
static CUresult nvrtc_failed(nvrtcResult r, const char *fn, const char *call, const char *log) {
    CUresult code = cushim__nvrtc_result(r);
    if (log != NULL && log[0] != '\0') {
        return cushim__fail(code, "%s: %s failed with %s: %s", fn, call, cushim__nvrtc_name(r),
                            log);
    }
    return cushim__fail(code, "%s: %s failed with %s", fn, call, cushim__nvrtc_name(r));
}

CUSHIM_API CUresult cushim_program_create(cushim_program **out, const char *source,
                                          const char *name, int num_headers,
                                          const char *const *headers,
                                          const char *const *include_names) {
    static const char fn[] = "cushim_program_create";
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", fn);
    *out = NULL;
    if (source == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: source is NULL", fn);
    if (num_headers < 0 || (num_headers > 0 && (headers == NULL || include_names == NULL))) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE,
                            "%s: num_headers is %d with headers %p and include_names %p", fn,
                            num_headers, (const void *)headers, (const void *)include_names);
    }
    CUresult r = cushim__dso_load(NVRTC);
    if (r != CUDA_SUCCESS) return cushim__fail(r, "%s: %s", fn, cushim__dso_why(NVRTC));
    cushim_program *p = cushim__alloc(sizeof *p, fn);
    if (p == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    nvrtcResult nr = cushim__nvrtc.nvrtcCreateProgram(&p->raw, source, name, num_headers, headers,
                                                      include_names);
    if (nr != NVRTC_SUCCESS) {
        cushim__free(p);
        return nvrtc_failed(nr, fn, "nvrtcCreateProgram", NULL);
    }
    *out = cushim__root_born(&p->obj, CUSHIM__PROGRAM, &p->lock);
    return CUDA_SUCCESS;
}

CUSHIM_API cushim_program *cushim_program_retain(cushim_program *p) {
    return cushim__retain_checked(p, CUSHIM__PROGRAM, "p", __func__);
}

static void free_code(cushim_program *p) {
    for (int k = 0; k < CUSHIM__PROGRAM_KINDS; k++) {
        cushim__free(p->code[k]);
        p->code[k] = NULL;
        p->size[k] = 0;
    }
}

CUSHIM_API void cushim_program_release(cushim_program *p) {
    if (!cushim__release_checked(p, CUSHIM__PROGRAM, "p", __func__)) return;
    nvrtcResult nr = cushim__nvrtc.nvrtcDestroyProgram(&p->raw);
    if (nr != NVRTC_SUCCESS) {
        cushim__log(CUSHIM_LOG_WARN, "cushim_program_release: nvrtcDestroyProgram failed with %s",
                    cushim__nvrtc_name(nr));
    }
    free_code(p);
    cushim__free(p->log);
    pthread_mutex_destroy(&p->lock);
    cushim__free(p);
    atomic_fetch_sub_explicit(&cushim__live_roots, 1, memory_order_relaxed);
}

/* The real arch the options name ("-arch=sm_90a", "--gpu-architecture sm_90"), if any. */
static void note_arch(cushim_program *p, int n, const char *const *options) {
    for (int i = 0; i < n; i++) {
        const char *o = options[i], *v = NULL;
        if (o == NULL) continue;
        if (strncmp(o, "-arch=", 6) == 0) v = o + 6;
        if (strncmp(o, "--gpu-architecture=", 19) == 0) v = o + 19;
        if ((strcmp(o, "-arch") == 0 || strcmp(o, "--gpu-architecture") == 0) && i + 1 < n) {
            v = options[i + 1];
        }
        if (v != NULL && strncmp(v, "sm_", 3) == 0) {
            char *end;
            p->arch = (int)strtol(v + 3, &end, 10);
            p->arch_exact = *end == 'a';
        }
    }
}

typedef nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*get_fn)(nvrtcProgram, char *);

/* Reads one kind of code, or none when the compile made none (NVRTC answers a size of 0, or 1
 * for empty PTX). */
static CUresult read_code(cushim_program *p, int k, size_fn size, get_fn get, const char *fn) {
    size_t n = 0;
    if (size(p->raw, &n) != NVRTC_SUCCESS || n <= 1) return CUDA_SUCCESS;
    char *buf = cushim__alloc(n, fn);
    if (buf == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    nvrtcResult nr = get(p->raw, buf);
    if (nr != NVRTC_SUCCESS) {
        cushim__free(buf);
        return nvrtc_failed(nr, fn, "reading the code", NULL);
    }
    p->code[k] = buf;
    p->size[k] = n;
    return CUDA_SUCCESS;
}

/* Keeps the log, tidied of trailing newlines; none is fine (NULL reads as ""). */
static CUresult read_log(cushim_program *p, const char *fn) {
    size_t n = 0;
    if (cushim__nvrtc.nvrtcGetProgramLogSize(p->raw, &n) != NVRTC_SUCCESS || n <= 1) {
        return CUDA_SUCCESS;
    }
    char *log = cushim__alloc(n, fn);
    if (log == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    if (cushim__nvrtc.nvrtcGetProgramLog(p->raw, log) != NVRTC_SUCCESS) log[0] = '\0';
    log[n - 1] = '\0';
    size_t len = strlen(log);
    while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' ')) log[--len] = '\0';
    p->log = log;
    return CUDA_SUCCESS;
}

static CUresult compile_locked(cushim_program *p, int n, const char *const *options,
                               const char *fn) {
    if (p->attempted) {
        return cushim__fail(CUDA_ERROR_ILLEGAL_STATE,
                            "%s: the program was compiled already; create another to compile "
                            "with other options",
                            fn);
    }
    p->attempted = true;
    nvrtcResult nr = cushim__nvrtc.nvrtcCompileProgram(p->raw, n, options);
    CUresult r = read_log(p, fn);
    if (r != CUDA_SUCCESS) return r;
    if (nr != NVRTC_SUCCESS) return nvrtc_failed(nr, fn, "nvrtcCompileProgram", p->log);
    note_arch(p, n, options);
    const size_fn sizes[CUSHIM__PROGRAM_KINDS] = {cushim__nvrtc.nvrtcGetPTXSize,
                                                  cushim__nvrtc.nvrtcGetCUBINSize,
                                                  cushim__nvrtc.nvrtcGetLTOIRSize};
    const get_fn gets[CUSHIM__PROGRAM_KINDS] = {
        cushim__nvrtc.nvrtcGetPTX, cushim__nvrtc.nvrtcGetCUBIN, cushim__nvrtc.nvrtcGetLTOIR};
    for (int k = 0; k < CUSHIM__PROGRAM_KINDS; k++) {
        r = read_code(p, k, sizes[k], gets[k], fn);
        if (r != CUDA_SUCCESS) return r;
    }
    atomic_store_explicit(&p->compiled, true, memory_order_release);
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_program_compile(cushim_program *p, int num_options,
                                           const char *const *options) {
    CUresult r = cushim__check(p, CUSHIM__PROGRAM, "p", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (num_options < 0 || (num_options > 0 && options == NULL)) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: num_options is %d with options %p",
                            __func__, num_options, (const void *)options);
    }
    pthread_mutex_lock(&p->lock);
    r = compile_locked(p, num_options, options, __func__);
    if (r != CUDA_SUCCESS) free_code(p);
    pthread_mutex_unlock(&p->lock);
    return r;
}

CUSHIM_API const char *cushim_program_log(const cushim_program *p) {
    if (cushim__check(p, CUSHIM__PROGRAM, "p", __func__) != CUDA_SUCCESS) return NULL;
    return p->log != NULL ? p->log : "";
}

CUSHIM_API CUresult cushim_program_code(const cushim_program *p, cushim_code_kind kind,
                                        const void **data, size_t *size) {
    static const char *const how[] = {"a virtual or real arch (-arch=compute_90, -arch=sm_90)",
                                      "a real arch (-arch=sm_90) and without -dlto", "-dlto"};
    CUresult r = cushim__check(p, CUSHIM__PROGRAM, "p", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (data == NULL || size == NULL) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: data or size is NULL", __func__);
    }
    *data = NULL;
    *size = 0;
    if ((unsigned)kind >= CUSHIM__PROGRAM_KINDS) {
        return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: kind %d is not code a program makes",
                            __func__, (int)kind);
    }
    if (!atomic_load_explicit(&p->compiled, memory_order_acquire)) {
        return cushim__fail(CUDA_ERROR_ILLEGAL_STATE, "%s: the program has not compiled", __func__);
    }
    if (p->code[kind] == NULL) {
        return cushim__fail(CUDA_ERROR_NOT_FOUND, "%s: the compile made no %s; compile with %s",
                            __func__,
                            kind == CUSHIM_CODE_PTX     ? "PTX"
                            : kind == CUSHIM_CODE_CUBIN ? "cubin"
                                                        : "LTO IR",
                            how[kind]);
    }
    *data = p->code[kind];
    *size = p->size[kind];
    return CUDA_SUCCESS;
}
