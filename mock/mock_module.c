/* Modules, libraries, functions and kernels. Images are read by mock_image.c: kernels, their
 * parameters and variables come from the PTX, cubin or fatbin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Images                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Fills one log buffer option pair with text, as the JIT does: at most size - 1 characters and
 * a NUL, and the size option becomes the bytes written. */
static void write_log(unsigned n, const CUjit_option *opts, void **vals, CUjit_option buf_opt,
                      CUjit_option size_opt, const char *text) {
    int ib = -1, is = -1;
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == buf_opt) ib = (int)i;
        if (opts[i] == size_opt) is = (int)i;
    }
    if (ib < 0 || vals[ib] == NULL) return;
    size_t size = is >= 0 ? (size_t)(uintptr_t)vals[is] : 0;
    if (size == 0) return;
    size_t len = strlen(text);
    if (len > size - 1) len = size - 1;
    memcpy(vals[ib], text, len);
    ((char *)vals[ib])[len] = '\0';
    if (is >= 0) vals[is] = (void *)(uintptr_t)(len ? len + 1 : 0);
}

/* Reads an image under JIT options; on a JIT error, the error log gets the message. A JIT
 * failure asked for through the control API fails the next image that holds PTX. */
static CUresult compile(const void *image, unsigned n, CUjit_option *opts, void **vals,
                        mock_image *img) {
    if (n > 0 && (opts == NULL || vals == NULL)) return CUDA_ERROR_INVALID_VALUE;
    const char *log = "";
    struct CUctx_st *c = mock__current(); /* the interpreter's code is for its device */
    int dev = c != NULL ? c->device : 0;
    int cc = mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
             mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    CUresult r = mock__image_read(image, img, &log, cc);
    if (r == CUDA_SUCCESS) {
        if (img->nptx > 0) mock__image_interpret(img, cc);
        r = mock__load_checks(img, cc, &log);
        if (r != CUDA_SUCCESS) mock__image_free(img);
    }
    if (r == CUDA_SUCCESS && img->has_ptx && mock__state.jit_fail_armed) {
        mock__state.jit_fail_armed = false;
        log = mock__state.jit_fail_log;
        mock__image_free(img);
        r = CUDA_ERROR_INVALID_PTX;
    }
    write_log(n, opts, vals, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, log);
    write_log(n, opts, vals, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "");
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Modules                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static CUresult load_module(const char *entry, CUmodule *out, const void *image, unsigned n,
                            CUjit_option *opts, void **vals) {
    if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    if (r != CUDA_SUCCESS) return r;
    mock_image img;
    r = compile(image, n, opts, vals, &img);
    if (r != CUDA_SUCCESS) return r;
    struct CUmod_st *m = mock__new(sizeof *m, CUSHIM_MOCK_MODULE, c);
    if (m == NULL) {
        mock__image_free(&img);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->img = img;
    mock__state.live[CUSHIM_MOCK_MODULE]++;
    *out = m;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuModuleLoadData(CUmodule *module, const void *image) {
    MOCK_ENTER(cuModuleLoadData);
    return mock__leave(load_module("cuModuleLoadData", module, image, 0, NULL, NULL));
}

CUresult CUDAAPI mock_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int n,
                                         CUjit_option *opts, void **vals) {
    MOCK_ENTER(cuModuleLoadDataEx);
    return mock__leave(load_module("cuModuleLoadDataEx", module, image, n, opts, vals));
}

CUresult CUDAAPI mock_cuModuleLoad(CUmodule *module, const char *fname) {
    MOCK_ENTER(cuModuleLoad);
    if (module == NULL || fname == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    size_t len;
    CUresult r;
    char *text = mock__read_image_file("cuModuleLoad", fname, &len, &r);
    if (text == NULL) return mock__leave(r);
    r = load_module("cuModuleLoad", module, text, 0, NULL, NULL);
    free(text);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuModuleUnload(CUmodule hmod) {
    MOCK_ENTER(cuModuleUnload);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *m;
    MOCK_EXPECT(m, hmod, CUSHIM_MOCK_MODULE, "cuModuleUnload");
    mock__kill(&m->h);
    return mock__leave(CUDA_SUCCESS);
}

/* The entry `name` of an image, with room for its record in the array at `slots`; -1 not
 * found, -2 out of memory. Room added is zeroed: records are made on first use. */
static long entry_slot(mock_image *img, void *slots, size_t *cap, const char *name) {
    long i = mock__image_entry(img, name);
    size_t old = *cap;
    if (i >= 0 && !mock__grow(slots, cap, img->nentries, sizeof(void *))) return -2;
    if (*cap > old) {
        char *v;
        memcpy(&v, slots, sizeof v);
        memset(v + old * sizeof(void *), 0, (*cap - old) * sizeof(void *));
    }
    return i;
}

static struct CUfunc_st *new_function(struct CUctx_st *ctx, const char *name) {
    struct CUfunc_st *f = mock__new(sizeof *f, MOCK_K_FUNCTION, ctx);
    if (f == NULL) return NULL;
    f->name = name;
    f->attrs = &f->own;
    return f;
}

CUresult CUDAAPI mock_cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
    MOCK_ENTER(cuModuleGetFunction);
    if (hfunc == NULL || name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *m;
    MOCK_EXPECT(m, hmod, CUSHIM_MOCK_MODULE, "cuModuleGetFunction");
    long i = entry_slot(&m->img, &m->funcs, &m->capfuncs, name);
    if (i == -2) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    if (i < 0) return mock__leave(CUDA_ERROR_NOT_FOUND);
    if (m->funcs[i] == NULL) {
        struct CUfunc_st *f = new_function(m->h.ctx, m->img.entries[i].name);
        if (f == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
        f->module = m;
        f->entry = i;
        m->funcs[i] = f;
    }
    *hfunc = m->funcs[i];
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Function attributes                                                                        */
/* ------------------------------------------------------------------------------------------ */

CUresult mock__function(CUfunction hf, const char *entry, mock_kinfo *out) {
    if (hf == NULL) return CUDA_ERROR_INVALID_HANDLE;
    mock_obj *o = mock__find(hf);
    if (o != NULL && o->kind == MOCK_K_KERNEL) {
        struct CUkern_st *k = (struct CUkern_st *)o;
        if (!o->alive) {
            mock__misuse(entry, "kernel %p was already destroyed", (void *)hf);
            return CUDA_ERROR_INVALID_HANDLE;
        }
        *out = (mock_kinfo){k->name, NULL, &k->attrs, &k->library->img.entries[k->entry],
                            &k->library->img};
        return CUDA_SUCCESS;
    }
    struct CUfunc_st *f = mock__expect(hf, MOCK_K_FUNCTION, entry);
    if (f == NULL) return CUDA_ERROR_INVALID_HANDLE;
    mock_image *img = f->module ? &f->module->img : &f->kernel->library->img;
    long i = f->module ? f->entry : f->kernel->entry;
    *out = (mock_kinfo){f->name, f->h.ctx, f->attrs, &img->entries[i], img};
    return CUDA_SUCCESS;
}

/* The device a function's attributes are read for: its context's, or for a kernel the
 * current context's. */
CUresult mock__function_device(const char *entry, const mock_kinfo *k, int *dev) {
    if (k->ctx != NULL) {
        *dev = k->ctx->device;
        return CUDA_SUCCESS;
    }
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    if (r == CUDA_SUCCESS) *dev = c->device;
    return r;
}

int mock__func_attr(const mock_fattrs *a, CUfunction_attribute attr, int dev) {
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: {
        int dmax = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        return mock__state.kernel_max_threads < dmax ? mock__state.kernel_max_threads : dmax;
    }
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: return mock__state.kernel_static_smem;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: return mock__state.kernel_regs;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: return 60;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        return mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
               mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
        if (a->set[attr]) return a->value[attr];
        int left = mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK) -
                   mock__state.kernel_static_smem;
        return left > 0 ? left : 0;
    }
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return a->set[attr] ? a->value[attr] : -1;
    default: return a->set[attr] ? a->value[attr] : 0;
    }
}

static bool valid_attr(CUfunction_attribute attr) {
    return (int)attr >= 0 && attr < CU_FUNC_ATTRIBUTE_MAX;
}

static CUresult set_attr(mock_fattrs *a, CUfunction_attribute attr, int value, int dev) {
    if (!valid_attr(attr)) return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: return CUDA_ERROR_INVALID_VALUE; /* read-only */
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 ||
            value > mock__attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) -
                        mock__state.kernel_static_smem) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
        break;
    default: break;
    }
    a->value[attr] = value;
    a->set[attr] = true;
    return CUDA_SUCCESS;
}

/* The PTX version a driver reports for a kernel JIT-compiled from an image: the newest .target of
 * its PTX that the device can run (libraries such as CUB choose their code by it); 0 when the
 * image has no PTX, or none for this device. */
static int image_ptx_version(const mock_image *img, int dev) {
    int cc = mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
             mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    int best = 0;
    for (size_t i = 0; img != NULL && i < img->nptx; i++) {
        if (img->ptx[i].arch <= cc && img->ptx[i].arch > best) best = img->ptx[i].arch;
    }
    return best;
}

CUresult CUDAAPI mock_cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hf) {
    MOCK_ENTER(cuFuncGetAttribute);
    if (pi == NULL || !valid_attr(attrib)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_kinfo k;
    int dev = 0;
    CUresult r = mock__function(hf, "cuFuncGetAttribute", &k);
    if (r == CUDA_SUCCESS) r = mock__function_device("cuFuncGetAttribute", &k, &dev);
    if (r == CUDA_SUCCESS) *pi = mock__func_attr(k.attrs, attrib, dev);
    if (r == CUDA_SUCCESS && attrib == CU_FUNC_ATTRIBUTE_PTX_VERSION) {
        int v = image_ptx_version(k.img, dev);
        if (v != 0) *pi = v;
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuFuncSetAttribute(CUfunction hf, CUfunction_attribute attrib, int value) {
    MOCK_ENTER(cuFuncSetAttribute);
    mock_kinfo k;
    int dev = 0;
    CUresult r = mock__function(hf, "cuFuncSetAttribute", &k);
    if (r == CUDA_SUCCESS) r = mock__function_device("cuFuncSetAttribute", &k, &dev);
    if (r == CUDA_SUCCESS) r = set_attr(k.attrs, attrib, value, dev);
    return mock__leave(r);
}

/* A preference the mock has no cache to apply to: a valid kernel and configuration are
 * accepted, as the driver accepts them on a device where the split is fixed. */
CUresult CUDAAPI mock_cuFuncSetCacheConfig(CUfunction hf, CUfunc_cache config) {
    MOCK_ENTER(cuFuncSetCacheConfig);
    mock_kinfo k;
    CUresult r = mock__function(hf, "cuFuncSetCacheConfig", &k);
    if (r == CUDA_SUCCESS && (unsigned)config > (unsigned)CU_FUNC_CACHE_PREFER_EQUAL) {
        r = CUDA_ERROR_INVALID_VALUE;
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuFuncGetName(const char **name, CUfunction hf) {
    MOCK_ENTER(cuFuncGetName);
    if (name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_kinfo k;
    CUresult r = mock__function(hf, "cuFuncGetName", &k);
    if (r == CUDA_SUCCESS) *name = k.name;
    return mock__leave(r);
}

/* From the image's parameter list; an image that gives none (a cubin without its parameter
 * notes) cannot say, which the mock answers CUDA_ERROR_NOT_SUPPORTED. */
CUresult CUDAAPI mock_cuFuncGetParamInfo(CUfunction hf, size_t index, size_t *offset,
                                         size_t *size) {
    MOCK_ENTER(cuFuncGetParamInfo);
    if (offset == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    mock_kinfo k;
    CUresult r = mock__function(hf, "cuFuncGetParamInfo", &k);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (k.kentry->nparams < 0) return mock__leave(CUDA_ERROR_NOT_SUPPORTED);
    if (index >= (size_t)k.kentry->nparams) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *offset = k.kentry->params[index].offset;
    if (size != NULL) *size = k.kentry->params[index].size;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuFuncGetModule(CUmodule *hmod, CUfunction hf) {
    MOCK_ENTER(cuFuncGetModule);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hf == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUfunc_st *f;
    MOCK_EXPECT(f, hf, MOCK_K_FUNCTION, "cuFuncGetModule");
    if (f->module == NULL) return mock__leave(CUDA_ERROR_NOT_FOUND);
    *hmod = f->module;
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Libraries and kernels                                                                      */
/* ------------------------------------------------------------------------------------------ */

static CUresult load_library(CUlibrary *out, const void *code, CUjit_option *opts, void **vals,
                             unsigned n) {
    if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
    mock_image img;
    CUresult r = compile(code, n, opts, vals, &img);
    if (r != CUDA_SUCCESS) return r;
    struct CUlib_st *l = mock__new(sizeof *l, CUSHIM_MOCK_LIBRARY, NULL);
    if (l == NULL) {
        mock__image_free(&img);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    l->img = img;
    mock__state.live[CUSHIM_MOCK_LIBRARY]++;
    *out = l;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuLibraryLoadData(CUlibrary *library, const void *code,
                                        CUjit_option *jit_opts, void **jit_vals, unsigned int njit,
                                        CUlibraryOption *lib_opts, void **lib_vals,
                                        unsigned int nlib) {
    MOCK_ENTER(cuLibraryLoadData);
    (void)lib_opts, (void)lib_vals, (void)nlib;
    return mock__leave(load_library(library, code, jit_opts, jit_vals, njit));
}

CUresult CUDAAPI mock_cuLibraryLoadFromFile(CUlibrary *library, const char *file,
                                            CUjit_option *jit_opts, void **jit_vals,
                                            unsigned int njit, CUlibraryOption *lib_opts,
                                            void **lib_vals, unsigned int nlib) {
    MOCK_ENTER(cuLibraryLoadFromFile);
    (void)lib_opts, (void)lib_vals, (void)nlib;
    if (library == NULL || file == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    size_t len;
    CUresult r;
    char *text = mock__read_image_file("cuLibraryLoadFromFile", file, &len, &r);
    if (text == NULL) return mock__leave(r);
    r = load_library(library, text, jit_opts, jit_vals, njit);
    free(text);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuLibraryUnload(CUlibrary library) {
    MOCK_ENTER(cuLibraryUnload);
    if (library == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUlib_st *l;
    MOCK_EXPECT(l, library, CUSHIM_MOCK_LIBRARY, "cuLibraryUnload");
    mock__kill(&l->h);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuLibraryGetKernel(CUkernel *pk, CUlibrary library, const char *name) {
    MOCK_ENTER(cuLibraryGetKernel);
    if (pk == NULL || name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (library == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUlib_st *l;
    MOCK_EXPECT(l, library, CUSHIM_MOCK_LIBRARY, "cuLibraryGetKernel");
    long i = entry_slot(&l->img, &l->kernels, &l->capkernels, name);
    if (i == -2) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    if (i < 0) return mock__leave(CUDA_ERROR_NOT_FOUND);
    if (l->kernels[i] == NULL) {
        struct CUkern_st *k = mock__new(sizeof *k, MOCK_K_KERNEL, NULL);
        if (k == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
        k->name = l->img.entries[i].name;
        k->entry = i;
        k->library = l;
        l->kernels[i] = k;
    }
    *pk = l->kernels[i];
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuKernelGetFunction(CUfunction *pf, CUkernel hk) {
    MOCK_ENTER(cuKernelGetFunction);
    if (pf == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelGetFunction");
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuKernelGetFunction", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    for (size_t i = 0; i < k->nfuncs; i++) {
        if (k->funcs[i]->h.alive && k->funcs[i]->kernel == k && k->funcs[i]->h.ctx == c) {
            *pf = k->funcs[i];
            return mock__leave(CUDA_SUCCESS);
        }
    }
    if (!mock__grow(&k->funcs, &k->capfuncs, k->nfuncs + 1, sizeof *k->funcs)) {
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    struct CUfunc_st *f = new_function(c, k->name);
    if (f == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    f->kernel = k;
    f->attrs = &k->attrs;
    k->funcs[k->nfuncs++] = f;
    *pf = f;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel hk,
                                           CUdevice dev) {
    MOCK_ENTER(cuKernelGetAttribute);
    if (pi == NULL || !valid_attr(attrib)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelGetAttribute");
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *pi = mock__func_attr(&k->attrs, attrib, dev);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuKernelSetAttribute(CUfunction_attribute attrib, int value, CUkernel hk,
                                           CUdevice dev) {
    MOCK_ENTER(cuKernelSetAttribute);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelSetAttribute");
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    return mock__leave(set_attr(&k->attrs, attrib, value, dev));
}

CUresult CUDAAPI mock_cuKernelGetName(const char **name, CUkernel hk) {
    MOCK_ENTER(cuKernelGetName);
    if (name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelGetName");
    *name = k->name;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuKernelGetLibrary(CUlibrary *plib, CUkernel hk) {
    MOCK_ENTER(cuKernelGetLibrary);
    if (plib == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelGetLibrary");
    *plib = k->library;
    return mock__leave(CUDA_SUCCESS);
}
