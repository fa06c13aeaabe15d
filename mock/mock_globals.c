/* Module and library variables, counts and enumerations: what cuModuleGetGlobal,
 * cuLibraryGetGlobal, cuModuleGetFunctionCount and the rest read from an image (mock_image.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "ptx.h"

/* ------------------------------------------------------------------------------------------ */
/* Module variables                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* A variable is zeroed host memory of its size, owned by the module: its address is the device
 * pointer, as for every allocation of the mock. */
/* The variable `name` of an image: the interpreter's storage when its PTX runs, else the image's
 * own zeroed copy. */
static CUresult image_global(mock_image *img, const char *name, CUdeviceptr *dptr, size_t *bytes) {
    void *mem;
    size_t size;
    if (img->interp != NULL && mock__ptx_global(img->interp, name, &mem, &size)) {
        /* the interpreter's storage, which the module's kernels read and write */
        if (dptr) *dptr = (CUdeviceptr)(uintptr_t)mem;
        if (bytes) *bytes = size;
        return CUDA_SUCCESS;
    }
    const mock_global *g = mock__image_global(img, name);
    if (g == NULL) return CUDA_ERROR_NOT_FOUND;
    if (dptr) *dptr = (CUdeviceptr)(uintptr_t)g->mem;
    if (bytes) *bytes = g->size;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                        const char *name) {
    MOCK_ENTER(cuModuleGetGlobal);
    if (name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *m;
    MOCK_EXPECT(m, hmod, CUSHIM_MOCK_MODULE, "cuModuleGetGlobal");
    return mock__leave(image_global(&m->img, name, dptr, bytes));
}

/* A library's variables are the module's: one copy, whichever context asks (the mock's devices
 * share the host's memory). */
static CUresult library_global(const char *entry, CUdeviceptr *dptr, size_t *bytes, CUlibrary hlib,
                               const char *name) {
    if (name == NULL) return CUDA_ERROR_INVALID_VALUE;
    if (hlib == NULL) return CUDA_ERROR_INVALID_HANDLE;
    struct CUlib_st *l = mock__expect(hlib, CUSHIM_MOCK_LIBRARY, entry);
    if (l == NULL) return CUDA_ERROR_INVALID_HANDLE;
    struct CUctx_st *c;
    CUresult r = mock__need_current(entry, &c);
    return r != CUDA_SUCCESS ? r : image_global(&l->img, name, dptr, bytes);
}

CUresult CUDAAPI mock_cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary hlib,
                                         const char *name) {
    MOCK_ENTER(cuLibraryGetGlobal);
    return mock__leave(library_global("cuLibraryGetGlobal", dptr, bytes, hlib, name));
}

/* A __managed__ variable: the mock does not tell it from another variable (both are host
 * memory the device reads in place), so any variable of the library is found. */
CUresult CUDAAPI mock_cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary hlib,
                                          const char *name) {
    MOCK_ENTER(cuLibraryGetManaged);
    return mock__leave(library_global("cuLibraryGetManaged", dptr, bytes, hlib, name));
}

void mock__image_vars_dead(mock_image *img, const char *by) {
    if (img->interp != NULL) {
        void *storage;
        size_t size;
        mock__ptx_storage(img->interp, &storage, &size);
        mock__module_vars_dead((uintptr_t)storage, size, by);
    }
    for (size_t i = 0; i < img->nglobals; i++) {
        mock__module_vars_dead((uintptr_t)img->globals[i].mem, img->globals[i].size, by);
    }
}

CUresult CUDAAPI mock_cuModuleGetFunctionCount(unsigned int *count, CUmodule hmod) {
    MOCK_ENTER(cuModuleGetFunctionCount);
    if (count == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *m;
    MOCK_EXPECT(m, hmod, CUSHIM_MOCK_MODULE, "cuModuleGetFunctionCount");
    *count = (unsigned)m->img.nentries;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuLibraryGetKernelCount(unsigned int *count, CUlibrary hlib) {
    MOCK_ENTER(cuLibraryGetKernelCount);
    if (count == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hlib == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUlib_st *l;
    MOCK_EXPECT(l, hlib, CUSHIM_MOCK_LIBRARY, "cuLibraryGetKernelCount");
    *count = (unsigned)l->img.nentries;
    return mock__leave(CUDA_SUCCESS);
}

/* The enumerations: the names are read under the lock, then each handle is asked of the entry
 * that makes it (cuLibraryGetKernel, cuModuleGetFunction), as a program would; the call log
 * shows those calls too. At most n, and at most as many as the image has. */
static void free_names(char **names, unsigned k) {
    for (unsigned i = 0; names != NULL && i < k; i++) free(names[i]);
    free(names);
}

/* Copies of the names of up to n entries of img, made under the lock (the image may go once it
 * is let go); NULL when out of memory. *count says how many. */
static char **entry_names(const mock_image *img, unsigned n, unsigned *count) {
    unsigned k = n < img->nentries ? n : (unsigned)img->nentries;
    char **names = calloc(k != 0 ? k : 1, sizeof *names);
    for (unsigned i = 0; names != NULL && i < k; i++) {
        names[i] = strdup(img->entries[i].name);
        if (names[i] == NULL) {
            free_names(names, i);
            names = NULL;
        }
    }
    *count = names != NULL ? k : 0;
    return names;
}

/* Called under the lock, which it lets go: the handles of up to n entries of img, of the library
 * (out: CUkernels) or module (out: CUfunctions) h. */
static CUresult enumerate(const mock_image *img, unsigned n, bool library, void *h, void *out) {
    unsigned k;
    char **names = entry_names(img, n, &k);
    mock__leave(CUDA_SUCCESS);
    CUresult r = names == NULL ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    for (unsigned i = 0; r == CUDA_SUCCESS && i < k; i++) {
        r = library ? mock_cuLibraryGetKernel((CUkernel *)out + i, h, names[i])
                    : mock_cuModuleGetFunction((CUfunction *)out + i, h, names[i]);
    }
    free_names(names, k);
    return r;
}

CUresult CUDAAPI mock_cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int n, CUlibrary hlib) {
    MOCK_ENTER(cuLibraryEnumerateKernels);
    if (kernels == NULL || n == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hlib == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUlib_st *l;
    MOCK_EXPECT(l, hlib, CUSHIM_MOCK_LIBRARY, "cuLibraryEnumerateKernels");
    return enumerate(&l->img, n, true, hlib, kernels);
}

CUresult CUDAAPI mock_cuModuleEnumerateFunctions(CUfunction *functions, unsigned int n,
                                                 CUmodule hmod) {
    MOCK_ENTER(cuModuleEnumerateFunctions);
    if (functions == NULL || n == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *m;
    MOCK_EXPECT(m, hmod, CUSHIM_MOCK_MODULE, "cuModuleEnumerateFunctions");
    return enumerate(&m->img, n, false, hmod, functions);
}

/* A kernel's cache preference on a device: checked, kept nowhere (the mock has no L1). */
CUresult CUDAAPI mock_cuKernelSetCacheConfig(CUkernel hk, CUfunc_cache config, CUdevice dev) {
    MOCK_ENTER(cuKernelSetCacheConfig);
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelSetCacheConfig");
    (void)k;
    return mock__leave(mock__valid_device(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

/* As cuFuncGetParamInfo, which takes a kernel cast to a function and answers for it. */
CUresult CUDAAPI mock_cuKernelGetParamInfo(CUkernel hk, size_t index, size_t *offset,
                                           size_t *size) {
    MOCK_ENTER(cuKernelGetParamInfo);
    if (hk == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUkern_st *k;
    MOCK_EXPECT(k, hk, MOCK_K_KERNEL, "cuKernelGetParamInfo");
    mock__leave(CUDA_SUCCESS);
    return mock_cuFuncGetParamInfo((CUfunction)(void *)k, index, offset, size);
}
