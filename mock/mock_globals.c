/* Module variables and counts: what cuModuleGetGlobal and cuModuleGetFunctionCount read from
 * a module's image (mock_image.h). */
#include <stdint.h>

#include "mock.h"
#include "ptx.h"

/* ------------------------------------------------------------------------------------------ */
/* Module variables                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* A variable is zeroed host memory of its size, owned by the module: its address is the device
 * pointer, as for every allocation of the mock. */
CUresult CUDAAPI mock_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                        const char *name) {
    MOCK_ENTER(cuModuleGetGlobal);
    if (name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *m;
    MOCK_EXPECT(m, hmod, CUSHIM_MOCK_MODULE, "cuModuleGetGlobal");
    void *mem;
    size_t size;
    if (m->img.interp != NULL && mock__ptx_global(m->img.interp, name, &mem, &size)) {
        /* the interpreter's storage, which the module's kernels read and write */
        if (dptr) *dptr = (CUdeviceptr)(uintptr_t)mem;
        if (bytes) *bytes = size;
        return mock__leave(CUDA_SUCCESS);
    }
    const mock_global *g = mock__image_global(&m->img, name);
    if (g == NULL) return mock__leave(CUDA_ERROR_NOT_FOUND);
    if (dptr) *dptr = (CUdeviceptr)(uintptr_t)g->mem;
    if (bytes) *bytes = g->size;
    return mock__leave(CUDA_SUCCESS);
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
