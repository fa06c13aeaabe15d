/* NVRTC's nvrtcGetCUBIN, as cushim's table and drop-in reach it (issue 28): the cubin of a
 * program compiled for a real architecture carries SASS only, which cushim's mock driver cannot
 * run. When the driver is the mock (it exports cushim_mock_attach_ptx), the program's PTX is
 * handed to it beside the cubin, so that the cubin runs there from that PTX however it is
 * loaded; with any other driver the call is NVRTC's, plus one lookup. The table's slot holds
 * this function (an override, gen/gen-lib-table.py); NVRTC's own is looked up in the library
 * that was loaded. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cushim_nvrtc_table.h"
#include "loader/dso.h"
#include "loader/library_type.h"
#include "loader/loader.h"

typedef nvrtcResult (*get_cubin_fn)(nvrtcProgram, char *);

static get_cubin_fn nvrtc_get_cubin(void) {
    static _Atomic(get_cubin_fn) cached;
    get_cubin_fn fn = atomic_load_explicit(&cached, memory_order_acquire);
    if (fn != NULL) return fn;
    void *h = dlopen(cushim__nvrtc_dso.lib->loaded_path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
    void *sym = h != NULL ? dlsym(h, "nvrtcGetCUBIN") : NULL;
    if (h != NULL) dlclose(h); /* RTLD_NOLOAD took a reference: the library stays loaded */
    memcpy(&fn, &sym, sizeof fn);
    if (fn != NULL) atomic_store_explicit(&cached, fn, memory_order_release);
    return fn;
}

/* The mock's seam, where the driver cushim uses (or, with CUSHIM_DRIVER set, will use) is the
 * mock: a program compiles before it initialises the driver. Else where the libcuda.so.1 that
 * the process has loaded already is the mock (a program linked with -lcuda whose libnvrtc.so.13
 * is cushim's forwarding library, forward/): looked up without loading anything. */
static void (*mock_attach(void))(const void *, size_t, const char *) {
    void *seam = cushim__driver_export("cushim_mock_attach_ptx");
    if (seam == NULL && getenv("CUSHIM_DRIVER") != NULL && cushim_init() == CUDA_SUCCESS) {
        seam = cushim__driver_export("cushim_mock_attach_ptx");
    }
    void *libcuda = seam == NULL ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (libcuda != NULL) {
        seam = dlsym(libcuda, "cushim_mock_attach_ptx");
        dlclose(libcuda); /* RTLD_NOLOAD took a reference: the program's own stays */
    }
    void (*attach)(const void *, size_t, const char *) = NULL;
    memcpy(&attach, &seam, sizeof attach);
    return attach;
}

nvrtcResult cushim__nvrtc_cubin_for_mock(nvrtcProgram prog, char *cubin);
nvrtcResult cushim__nvrtc_cubin_for_mock(nvrtcProgram prog, char *cubin) {
    get_cubin_fn real = nvrtc_get_cubin();
    if (real == NULL) return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = real(prog, cubin);
    void (*attach)(const void *, size_t, const char *) = r == NVRTC_SUCCESS ? mock_attach() : NULL;
    size_t cubin_size = 0, ptx_size = 0;
    if (attach == NULL || cushim__nvrtc.nvrtcGetCUBINSize(prog, &cubin_size) != NVRTC_SUCCESS ||
        cushim__nvrtc.nvrtcGetPTXSize(prog, &ptx_size) != NVRTC_SUCCESS || ptx_size == 0) {
        return r;
    }
    char *ptx = malloc(ptx_size);
    if (ptx != NULL && cushim__nvrtc.nvrtcGetPTX(prog, ptx) == NVRTC_SUCCESS) {
        ptx[ptx_size - 1] = '\0';
        attach(cubin, cubin_size, ptx);
    }
    free(ptx);
    return r;
}
