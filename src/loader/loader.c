/* The CUDA driver as the loader's first library: its candidates, how it starts (cuInit, its
 * version, cuGetProcAddress per entry), cushim_init and the driver's status. */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "loader/diag.h"
#include "loader/dso.h"
#include "loader/fork.h"
#include "loader/library.h"
#include "loader/loader.h"
#include "loader/table.h"
#include "loader/tables.h"

/* The library's own functions use the default stream of the mode this file is compiled in
 * (-Ddefault-stream), which cuda.h says through its own macro. */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define CUSHIM_PER_THREAD_STREAM 1
#else
#define CUSHIM_PER_THREAD_STREAM 0
#endif

typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*version_fn)(int *);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

atomic_uint cushim__load_generation = 1;
atomic_int cushim__live_roots;

static void start_driver(cushim__library *lib, void *h, void *init);

static const char *const candidates[] = {
    "libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1",
    "libcuda.so", /* last: this name is often the toolkit's stub */
};
static const cushim__mode_tables *const modes[2] = {&cushim__legacy_tables,
                                                    &cushim__per_thread_tables};
static bool resolved[2 * CUSHIM_TABLE_ENTRIES];

/* The CUDA driver, the first library of the loader. */
static cushim__library driver = {
    .noun = "CUDA driver",
    .the_noun = "the driver",
    .file_noun = "a driver library",
    .install_hint = "install the NVIDIA driver",
    .env = "CUSHIM_DRIVER",
    .init_name = "cushim_init",
    .candidates = candidates,
    .candidate_count = sizeof candidates / sizeof candidates[0],
    .marker = "cuInit",
    .header_version = CUDA_VERSION,
    .per_thread_stream = CUSHIM_PER_THREAD_STREAM,
    .start = start_driver,
    .entries = cushim__entries,
    .entry_count = CUSHIM_TABLE_ENTRIES,
    .modes = modes,
    .mode_count = 2,
    .resolved = resolved,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .init_result = CUDA_ERROR_NOT_INITIALIZED,
};

static void *sym(void *h, const char *name) {
    /* dlsym returns an object pointer; the driver's entries are functions of known types. */
    return dlsym(h, name);
}

/* The driver's cuGetProcAddress, _v2 ABI or the first. */
typedef struct gpa {
    void *v2, *v1;
} gpa;

/* Asks the driver for one entry at `version` in one default-stream mode; NULL when it lacks it. */
static void *ask(void *ctx, const char *base, int version, int mode) {
    const gpa *g = ctx;
    const cuuint64_t flags =
        mode ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
    void *fn = NULL;
    CUresult r;
    if (g->v2) {
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        gpa2_fn f;
        memcpy(&f, &g->v2, sizeof f);
        r = f(base, &fn, version, flags, &st);
        if (st != CU_GET_PROC_ADDRESS_SUCCESS) r = CUDA_ERROR_NOT_FOUND;
    } else {
        gpa1_fn f;
        memcpy(&f, &g->v1, sizeof f);
        r = f(base, &fn, version, flags);
    }
    return r == CUDA_SUCCESS ? fn : NULL;
}

/* A driver that initialised but cannot be used: the sentence says what it did. */
static void unusable(cushim__library *lib, const char *fmt, ...) CUSHIM__PRINTF(2, 3);
static void unusable(cushim__library *lib, const char *fmt, ...) {
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    cushim__library_note(lib, "%s", what);
    cushim__library_finish(lib, CUSHIM_DRIVER_UNUSABLE, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
}

static void mock_said(const char *sentence) { cushim__set_error("%s", sentence); }

/* The library the driver's tables were last filled from: it is never closed. */
static _Atomic(void *) driver_handle;

void *cushim__driver_export(const char *name) {
    void *h = atomic_load(&driver_handle);
    return h != NULL ? sym(h, name) : NULL;
}

/* The driver, once opened: cuInit, its version, and every entry through cuGetProcAddress. */
static void start_driver(cushim__library *lib, void *h, void *init) {
    cushim_driver_info *info = &lib->info;
    const char *path = lib->loaded_path;
    init_fn cu_init;
    memcpy(&cu_init, &init, sizeof cu_init);
    CUresult r = cu_init(0);
    if (r == CUDA_ERROR_STUB_LIBRARY) {
        cushim__library_note(lib,
                             "%s is NVIDIA's stub library, which only satisfies the linker: "
                             "install the NVIDIA driver (it provides libcuda.so.1) to run CUDA "
                             "programs.",
                             path);
        cushim__library_finish(lib, CUSHIM_DRIVER_STUB, r);
        return;
    }
    /* What the driver says of its version: INT_MIN until it writes one. */
    void *version = sym(h, "cuDriverGetVersion");
    int said = INT_MIN;
    CUresult v = CUDA_SUCCESS;
    if (version) {
        version_fn get_version;
        memcpy(&get_version, &version, sizeof get_version);
        v = get_version(&said);
    }
    info->driver_version = v == CUDA_SUCCESS && said != INT_MIN ? said : 0;
    gpa g = {sym(h, "cuGetProcAddress_v2"), sym(h, "cuGetProcAddress")};
    bool no_gpa = g.v2 == NULL && g.v1 == NULL;
    /* cuInit's own code comes first: whatever else is wrong, it is what the driver said. */
    if (r != CUDA_SUCCESS) {
        cushim__library_note(lib, "%s: cuInit(0) failed with %s (%s)%s.", path,
                             cushim_error_name(r), cushim_error_string(r),
                             no_gpa ? "; the library also exports no cuGetProcAddress" : "");
        cushim__library_finish(lib, CUSHIM_DRIVER_INIT_FAILED, r);
        return;
    }
    /* Without the version no entry can be asked for at the right ABI. */
    if (version == NULL) {
        unusable(lib,
                 "%s exports no cuDriverGetVersion, so the ABI version of no entry can be "
                 "chosen: it cannot be used as a CUDA driver.",
                 path);
        return;
    }
    if (v != CUDA_SUCCESS) {
        cushim__library_note(lib, "%s: cuDriverGetVersion failed with %s (%s).", path,
                             cushim_error_name(v), cushim_error_string(v));
        cushim__library_finish(lib, CUSHIM_DRIVER_INIT_FAILED, v);
        return;
    }
    if (said == INT_MIN) {
        unusable(lib,
                 "%s: cuDriverGetVersion returned CUDA_SUCCESS without writing a version, "
                 "so the ABI version of no entry can be chosen: it cannot be used as a CUDA "
                 "driver.",
                 path);
        return;
    }
    if (said <= 0) {
        unusable(lib,
                 "%s: cuDriverGetVersion reported version %d, which no CUDA driver has, so "
                 "the ABI version of no entry can be chosen: it cannot be used as a CUDA "
                 "driver.",
                 path, said);
        return;
    }
    if (no_gpa && said < 11030) {
        cushim__library_note(lib,
                             "%s has no cuGetProcAddress and reports version %d: the driver is "
                             "older than CUDA 11.3; update the NVIDIA driver.",
                             path, said);
        cushim__library_finish(lib, CUSHIM_DRIVER_TOO_OLD, CUDA_ERROR_NOT_SUPPORTED);
        return;
    }
    if (no_gpa) {
        unusable(lib,
                 "%s exports no cuGetProcAddress, though it reports version %d (drivers "
                 "have it since CUDA 11.3): no entry can be resolved.",
                 path, said);
        return;
    }
    atomic_store(&driver_handle, h); /* before the fill, whose listener (the tracer) asks */
    info->entries_resolved = cushim__resolve_tables(lib, ask, &g, info->driver_version);
    if (info->entries_resolved == 0) {
        cushim__reset_tables(lib);
        unusable(lib,
                 "%s: cuGetProcAddress resolved none of the %u entries (driver %d, header "
                 "%d): it cannot be used as a CUDA driver.",
                 path, info->entries_total, info->driver_version, CUDA_VERSION);
        return;
    }
    lib->message[0] = '\0';
    cushim__library_note(lib, "loaded %s (driver %d, header %d), %u of %u entries resolved", path,
                         info->driver_version, CUDA_VERSION, info->entries_resolved,
                         info->entries_total);
    cushim__library_finish(lib, CUSHIM_DRIVER_LOADED, CUDA_SUCCESS);
    /* The mock tells why a call failed (cushim_mock.h): the sentence becomes this thread's last
     * error, so that a failing call through the drop-in leaves one too. A real driver has no
     * such export, and its calls cost nothing more either way. */
    void *sink = cushim__driver_export("cushim_mock_set_error_sink");
    if (sink != NULL) {
        void (*set_sink)(void (*)(const char *));
        memcpy(&set_sink, &sink, sizeof set_sink);
        set_sink(mock_said);
    }
    /* cuInit(0) succeeded: the process's driver is initialised, whoever asked, so the drop-in
     * answers as libcuda then does. */
    cushim__open_dropin(lib);
}

static CUresult init_slow(void) {
    CUresult r = cushim__library_load(&driver);
    /* Every cushim function that fails for want of a driver fails in this call. A call from
     * inside the driver's own initialisation has its sentence already. */
    if (r != CUDA_SUCCESS && !cushim__library_loading_here(&driver)) {
        cushim__set_error("cushim_init: %s", driver.info.message);
    }
    return r;
}

/* Back to the state before the first cushim_init(): the tables to their lazy stubs, the status
 * forgotten. The library stays open (it is never closed); a later load opens it again, or
 * another. */
CUSHIM_API CUresult cushim_testing_reinit(void) {
    if (cushim__forked) {
        return cushim__fail(CUDA_ERROR_NOT_INITIALIZED, "%s: %s", __func__, cushim__forked_reason);
    }
    pthread_mutex_lock(&driver.lock);
    if (driver.loading) {
        pthread_mutex_unlock(&driver.lock);
        return cushim__fail(CUDA_ERROR_ILLEGAL_STATE,
                            "%s: the driver is being loaded now (this call came from inside its "
                            "initialisation, or raced another thread's first call)",
                            __func__);
    }
    int live = atomic_load(&cushim__live_roots);
    if (live != 0) {
        pthread_mutex_unlock(&driver.lock);
        return cushim__fail(CUDA_ERROR_ILLEGAL_STATE,
                            "%s: %d contexts, libraries, programs or linkers of cushim are still "
                            "alive, and they "
                            "belong to the driver loaded now: release them first",
                            __func__, live);
    }
    cushim__library_forget(&driver);
    atomic_fetch_add(&cushim__load_generation, 1);
    pthread_mutex_unlock(&driver.lock);
    /* NVRTC and nvJitLink are looked for again too, with their variables as they are then. */
    cushim__dso_reset(cushim__dso_find(CUSHIM_LIB_NVRTC));
    cushim__dso_reset(cushim__dso_find(CUSHIM_LIB_NVJITLINK));
    cushim__clear_error();
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_init(void) {
    if (atomic_load_explicit(&driver.loaded, memory_order_acquire)) return CUDA_SUCCESS;
    return init_slow();
}

CUSHIM_API const cushim_driver_info *cushim_driver_state(void) {
    cushim_init();
    return &driver.info;
}

CUSHIM_API bool cushim_driver_has(const char *entry) {
    if (cushim_init() != CUDA_SUCCESS) return false;
    return cushim__table_has(&driver, entry);
}

/* A program written against cuda.h (the drop-in) never asks cushim_last_error(), so the first
 * raw call that fails for want of a driver also says why in the log, once per process. */
CUresult cushim__no_driver(unsigned index, CUresult r) {
    static atomic_flag said = ATOMIC_FLAG_INIT;
    const char *name = cushim__entries[index].name;
    if (!atomic_flag_test_and_set(&said)) {
        cushim__log(CUSHIM_LOG_WARN, "%s: no usable CUDA driver (%s): %s", name,
                    cushim_error_name(r), driver.info.message);
    }
    return cushim__fail(r, "%s: %s", name, driver.info.message);
}

/* libcuda answers every call but a few with CUDA_ERROR_NOT_INITIALIZED until cuInit ran; so
 * does the drop-in, rather than initialise behind the caller's back and hide a missing cuInit.
 * cushim's own functions, and cushim_init(), still initialise. */
CUresult cushim__before_init(unsigned index, int per_thread) {
    const cushim__entry *e = &cushim__entries[index];
    const char *name = per_thread ? e->ptds_symbol : e->name;
    if (cushim__forked) {
        return cushim__fail(CUDA_ERROR_NOT_INITIALIZED, "%s: %s", name, cushim__forked_reason);
    }
    return cushim__fail(CUDA_ERROR_NOT_INITIALIZED,
                        "%s: the CUDA driver is not initialised: call cuInit(0) first (through "
                        "cushim's cuda.h, as with libcuda, only cuInit, cuDriverGetVersion, "
                        "cuGetErrorName, cuGetErrorString and cuGetProcAddress work before it)",
                        name);
}

CUresult cushim__unavailable(unsigned index, int per_thread) {
    const cushim__entry *e = &cushim__entries[index];
    const char *name = per_thread ? e->ptds_symbol : e->name;
    if (cushim__forked) {
        return cushim__fail(CUDA_ERROR_NOT_INITIALIZED, "%s: %s", name, cushim__forked_reason);
    }
    int v = per_thread && e->ptds_version ? e->ptds_version : e->version;
    if (v > driver.info.driver_version) {
        return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                            "%s is not available: its ABI in this cushim build appeared in CUDA "
                            "%d, and the driver is %d",
                            name, v, driver.info.driver_version);
    }
    return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                        "%s is not available: the driver (version %d) does not provide %s at "
                        "version %d",
                        name, driver.info.driver_version, e->base, v);
}
