/* The seams that NVRTC's and nvJitLink's cubin overrides share (attach.h). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "loader/attach.h"
#include "loader/library_type.h"
#include "loader/loader.h"

void *cushim__lib_own(const cushim__dso *d, const char *name) {
    const cushim__library *lib = d->lib;
    if (!atomic_load_explicit(&lib->loaded, memory_order_acquire)) return NULL;
    const char *symbol = NULL;
    for (unsigned i = 0; i < lib->entry_count && symbol == NULL; i++) {
        if (strcmp(lib->entries[i].name, name) == 0) symbol = lib->entries[i].symbol;
    }
    void *h = symbol != NULL ? dlopen(lib->loaded_path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL) : NULL;
    void *sym = h != NULL ? dlsym(h, symbol) : NULL;
    if (h != NULL) dlclose(h); /* RTLD_NOLOAD took a reference: the library stays loaded */
    return sym;
}

/* A program compiles before it initialises the driver: with CUSHIM_DRIVER set, cushim starts
 * the driver it will use. Else the libcuda.so.1 that the process has loaded already (a program
 * linked with -lcuda whose libnvrtc.so.13 is cushim's forwarding library, forward/) is asked,
 * without loading anything. */
cushim__attach_fn cushim__mock_attach(void) {
    void *seam = cushim__driver_export("cushim_mock_attach_ptx");
    if (seam == NULL && getenv("CUSHIM_DRIVER") != NULL && cushim_init() == CUDA_SUCCESS) {
        seam = cushim__driver_export("cushim_mock_attach_ptx");
    }
    void *libcuda = seam == NULL ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (libcuda != NULL) {
        seam = dlsym(libcuda, "cushim_mock_attach_ptx");
        dlclose(libcuda); /* RTLD_NOLOAD took a reference: the program's own stays */
    }
    cushim__attach_fn attach = NULL;
    memcpy(&attach, &seam, sizeof attach);
    return attach;
}

static _Thread_local bool oom;

void cushim__attach_oom_set(void) { oom = true; }

bool cushim__attach_oom_take(void) {
    bool was = oom;
    oom = false;
    return was;
}
