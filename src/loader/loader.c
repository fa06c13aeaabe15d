/* Finding and opening the driver, resolving the function table, and the driver status. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/candidate.h"
#include "loader/diag.h"
#include "loader/dso.h"
#include "loader/fork.h"
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

/* load() runs once under load_lock, and again only after cushim_testing_reinit(). */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static bool attempted;     /* under load_lock */
static bool atfork_failed; /* said by init_slow, outside the lock */
static atomic_bool loaded; /* set, with release, once the table is complete */
atomic_uint cushim__load_generation = 1;
atomic_int cushim__live_roots;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
static cushim_driver_info info;
static char message[4096];
static char loaded_path[4096];
static bool saw_non_driver; /* a candidate opened, but it had no cuInit */

typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*version_fn)(int *);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

/* In a child forked after the driver was initialised, the driver's state is the parent's and is
 * not usable. Rather than let a call into it hang or crash, every slot goes back to its stub,
 * which answers CUDA_ERROR_NOT_INITIALIZED with the reason. Runs in the single-threaded child,
 * before fork() returns there; it only stores. */
static void fork_child(void) {
    cushim__forked = true;
    cushim__reset_tables();
    atomic_store_explicit(&loaded, false, memory_order_relaxed);
    info.status = CUSHIM_DRIVER_INIT_FAILED;
    info.result = CUDA_ERROR_NOT_INITIALIZED;
    info.entries_resolved = 0;
    info.message = cushim__forked_reason;
    init_result = CUDA_ERROR_NOT_INITIALIZED;
}

/* Appends to the status message; the text is cut, never overrun, when it is long. */
static void note(const char *fmt, ...) CUSHIM__PRINTF(1, 2);
static void note(const char *fmt, ...) {
    size_t used = strlen(message);
    if (used + 1 >= sizeof message) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message + used, sizeof message - used, fmt, ap);
    va_end(ap);
}

static void *sym(void *h, const char *name) {
    /* dlsym returns an object pointer; the driver's entries are functions of known types. */
    return dlsym(h, name);
}

static void finish(cushim_driver_status status, CUresult r) {
    info.status = status;
    info.result = r;
    init_result = r;
}

static bool safe_to_open(const char *path) {
    char why[512];
    if (cushim__safe_to_open(path, why, sizeof why)) return true;
    note("%s", why);
    return false;
}

/* Opens one candidate. Returns true when it was a CUDA driver (whatever its state), which ends
 * the search; false, with the reason noted, to go on to the next candidate. */
static bool try_candidate(const char *path) {
    if (strchr(path, '/') != NULL && !safe_to_open(path)) return false;
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *err = dlerror();
        note("%s (%s); ", path, err ? err : "dlopen failed");
        return false;
    }
    void *init = sym(h, "cuInit");
    if (init == NULL) {
        note("%s (opened, but it exports no cuInit: not a CUDA driver); ", path);
        saw_non_driver = true;
        dlclose(h);
        return false;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
        snprintf(loaded_path, sizeof loaded_path, "%s", lm->l_name);
    } else {
        snprintf(loaded_path, sizeof loaded_path, "%s", path);
    }
    info.path = loaded_path;
    /* The driver is never closed: contexts may outlive any shutdown hook. */

    init_fn cu_init;
    memcpy(&cu_init, &init, sizeof cu_init);
    CUresult r = cu_init(0);
    if (r == CUDA_ERROR_STUB_LIBRARY) {
        note("%s is NVIDIA's stub library, which only satisfies the linker: install the NVIDIA "
             "driver (it provides libcuda.so.1) to run CUDA programs.",
             loaded_path);
        finish(CUSHIM_DRIVER_STUB, r);
        return true;
    }
    void *version = sym(h, "cuDriverGetVersion");
    if (version) {
        version_fn get_version;
        memcpy(&get_version, &version, sizeof get_version);
        CUresult v = get_version(&info.driver_version);
        if (v != CUDA_SUCCESS && r == CUDA_SUCCESS) {
            /* Without the version no entry can be asked for at the right ABI. */
            note("%s: cuDriverGetVersion failed with %s (%s).", loaded_path, cushim_error_name(v),
                 cushim_error_string(v));
            finish(CUSHIM_DRIVER_INIT_FAILED, v);
            return true;
        }
    }
    void *gpa2 = sym(h, "cuGetProcAddress_v2");
    void *gpa1 = sym(h, "cuGetProcAddress");
    if (gpa2 == NULL && gpa1 == NULL) {
        note("%s has no cuGetProcAddress: the driver (version %d) is older than CUDA 11.3; "
             "update the NVIDIA driver.",
             loaded_path, info.driver_version);
        finish(CUSHIM_DRIVER_TOO_OLD, CUDA_ERROR_NOT_SUPPORTED);
        return true;
    }
    if (r != CUDA_SUCCESS) {
        note("%s: cuInit(0) failed with %s (%s).", loaded_path, cushim_error_name(r),
             cushim_error_string(r));
        finish(CUSHIM_DRIVER_INIT_FAILED, r);
        return true;
    }
    info.entries_resolved = cushim__resolve_tables(gpa2, gpa1, info.driver_version);
    message[0] = '\0';
    note("loaded %s (driver %d, header %d), %u of %u entries resolved", loaded_path,
         info.driver_version, CUDA_VERSION, info.entries_resolved, info.entries_total);
    finish(CUSHIM_DRIVER_LOADED, CUDA_SUCCESS);
    static bool atfork_registered; /* once, though cushim_testing_reinit() may load again */
    if (!atfork_registered) {
        atfork_registered = pthread_atfork(NULL, NULL, fork_child) == 0;
        atfork_failed = !atfork_registered;
    }
    return true;
}

static void load(void) {
    info.header_version = CUDA_VERSION;
    info.entries_total = CUSHIM_TABLE_ENTRIES;
    info.per_thread_stream = CUSHIM_PER_THREAD_STREAM;
    info.message = message;
    /* Not found: cuda.h's sentence for CUDA_ERROR_NOT_INITIALIZED ("... initialization has
     * failed") is true of it, where CUDA_ERROR_STUB_LIBRARY's and CUDA_ERROR_NO_DEVICE's would
     * claim a library or a driver that is not there. */
    finish(CUSHIM_DRIVER_NOT_FOUND, CUDA_ERROR_NOT_INITIALIZED);

    const char *env = secure_getenv("CUSHIM_DRIVER");
    if (env != NULL) {
        /* When set, CUSHIM_DRIVER is the only candidate: a silent fallback would hide a typo. */
        if (env[0] == '\0') {
            note("CUSHIM_DRIVER is set but empty: give the absolute path of a driver library, or "
                 "unset it to search the usual places.");
        } else if (env[0] != '/') {
            note("CUSHIM_DRIVER=%s is not an absolute path, so it is refused (a relative path "
                 "would depend on the working directory); no other library was tried.",
                 env);
        } else {
            note("tried CUSHIM_DRIVER: ");
            if (!try_candidate(env)) note("no other library was tried since CUSHIM_DRIVER is set.");
        }
    } else {
        static const char *const candidates[] = {
            "libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1",
            "libcuda.so", /* last: this name is often the toolkit's stub */
        };
        note("no CUDA driver found; tried: ");
        bool found = false;
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !found; i++) {
            found = try_candidate(candidates[i]);
        }
        if (!found) note("install the NVIDIA driver, or set CUSHIM_DRIVER to its absolute path.");
    }
    if (info.status == CUSHIM_DRIVER_NOT_FOUND) {
        info.path = NULL;
        /* A library that opened but is no driver: "a link to a shared object failed to
         * resolve" is what happened (its cuInit did not). */
        if (saw_non_driver)
            finish(CUSHIM_DRIVER_NOT_FOUND, CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND);
    }
    atomic_store_explicit(&loaded, info.status == CUSHIM_DRIVER_LOADED, memory_order_release);
}

static CUresult init_slow(void) {
    bool did_load = false;
    pthread_mutex_lock(&load_lock);
    if (!attempted) {
        load();
        attempted = true;
        did_load = true;
    }
    CUresult r = init_result;
    pthread_mutex_unlock(&load_lock);
    /* Logged outside load_lock: the log has a lock of its own, held across fork(), and taking
     * it under load_lock would order the two locks both ways (ThreadSanitizer saw it). */
    if (did_load) {
        cushim__log(CUSHIM_LOG_INFO, "%s", message);
        if (atfork_failed) {
            cushim__log(CUSHIM_LOG_WARN, "pthread_atfork failed: a forked child will not be told "
                                         "that the driver cannot be used there");
        }
    }
    /* Every cushim function that fails for want of a driver fails in this call. */
    if (r != CUDA_SUCCESS) cushim__set_error("cushim_init: %s", info.message);
    return r;
}

/* Back to the state before the first cushim_init(): the tables to their lazy stubs, the status
 * forgotten. The library stays open (it is never closed); a later load opens it again, or
 * another. */
CUSHIM_API CUresult cushim_testing_reinit(void) {
    if (cushim__forked) {
        return cushim__fail(CUDA_ERROR_NOT_INITIALIZED, "%s: %s", __func__, cushim__forked_reason);
    }
    pthread_mutex_lock(&load_lock);
    int live = atomic_load(&cushim__live_roots);
    if (live != 0) {
        pthread_mutex_unlock(&load_lock);
        return cushim__fail(CUDA_ERROR_ILLEGAL_STATE,
                            "%s: %d contexts or libraries of cushim are still alive, and they "
                            "belong to the driver loaded now: release them first",
                            __func__, live);
    }
    atomic_store_explicit(&loaded, false, memory_order_release);
    cushim__reset_tables();
    /* NVRTC and nvJitLink are looked for again too, with their variables as they are then. */
    cushim__dso_reset(cushim__dso_find(CUSHIM_LIB_NVRTC));
    cushim__dso_reset(cushim__dso_find(CUSHIM_LIB_NVJITLINK));
    memset(&info, 0, sizeof info);
    message[0] = '\0';
    loaded_path[0] = '\0';
    saw_non_driver = false;
    init_result = CUDA_ERROR_NOT_INITIALIZED;
    attempted = false;
    atomic_fetch_add(&cushim__load_generation, 1);
    pthread_mutex_unlock(&load_lock);
    cushim__clear_error();
    return CUDA_SUCCESS;
}

CUSHIM_API CUresult cushim_init(void) {
    if (atomic_load_explicit(&loaded, memory_order_acquire)) return CUDA_SUCCESS;
    return init_slow();
}

CUSHIM_API const cushim_driver_info *cushim_driver_get_info(void) {
    cushim_init();
    return &info;
}

/* A program written against cuda.h (the drop-in) never asks cushim_last_error(), so the first
 * raw call that fails for want of a driver also says why in the log, once per process. */
CUresult cushim__no_driver(unsigned index, CUresult r) {
    static atomic_flag said = ATOMIC_FLAG_INIT;
    const char *name = cushim__entries[index].name;
    if (!atomic_flag_test_and_set(&said)) {
        cushim__log(CUSHIM_LOG_WARN, "%s: no usable CUDA driver (%s): %s", name,
                    cushim_error_name(r), info.message);
    }
    return cushim__fail(r, "%s: %s", name, info.message);
}

CUresult cushim__unavailable(unsigned index, int per_thread) {
    const cushim__entry *e = &cushim__entries[index];
    const char *name = per_thread ? e->ptds_symbol : e->name;
    if (cushim__forked) {
        return cushim__fail(CUDA_ERROR_NOT_INITIALIZED, "%s: %s", name, cushim__forked_reason);
    }
    int v = per_thread && e->ptds_version ? e->ptds_version : e->version;
    if (v > info.driver_version) {
        return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                            "%s is not available: its ABI in this cushim build appeared in CUDA "
                            "%d, and the driver is %d",
                            name, v, info.driver_version);
    }
    return cushim__fail(CUDA_ERROR_NOT_SUPPORTED,
                        "%s is not available: the driver (version %d) does not provide %s at "
                        "version %d",
                        name, info.driver_version, e->base, v);
}
