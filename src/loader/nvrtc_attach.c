/* NVRTC's nvrtcGetCUBIN, as cushim's table and drop-in reach it (issue 28): the cubin of a
 * program compiled for a real architecture carries SASS only, which cushim's mock driver cannot
 * run. When the driver is the mock (it exports cushim_mock_attach_ptx), the program's PTX is
 * handed to it beside the cubin, so that the cubin runs there from that PTX however it is
 * loaded; with any other driver the call is NVRTC's, plus one lookup. The table's slot holds
 * this function (an override, gen/gen-lib-table.py); NVRTC's own is looked up in the library
 * that was loaded. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cushim_nvrtc_table.h"
#include "loader/attach.h"
#include "loader/dso.h"

typedef nvrtcResult (*get_cubin_fn)(nvrtcProgram, char *);

static get_cubin_fn nvrtc_get_cubin(void) {
    static _Atomic(get_cubin_fn) cached;
    get_cubin_fn fn = atomic_load_explicit(&cached, memory_order_acquire);
    if (fn != NULL) return fn;
    void *sym = cushim__lib_own(&cushim__nvrtc_dso, "nvrtcGetCUBIN");
    memcpy(&fn, &sym, sizeof fn);
    if (fn != NULL) atomic_store_explicit(&cached, fn, memory_order_release);
    return fn;
}

nvrtcResult cushim__nvrtc_cubin_for_mock(nvrtcProgram prog, char *cubin);
nvrtcResult cushim__nvrtc_cubin_for_mock(nvrtcProgram prog, char *cubin) {
    get_cubin_fn real = nvrtc_get_cubin();
    if (real == NULL) return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = real(prog, cubin);
    cushim__attach_fn attach = r == NVRTC_SUCCESS ? cushim__mock_attach() : NULL;
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
