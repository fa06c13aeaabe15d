/* Internal: one library that cushim loads at run time, as data.
 *
 * The seam for the next library. The CUDA driver is one instance (`driver` in loader.c);
 * NVRTC and nvJitLink are meant to be two more. A new library needs:
 *   - a cushim__library with its words, its environment variable, its candidates in search
 *     order, the symbol that proves a file is that library (`marker`), and a `start` hook that
 *     initialises it once opened and fills its table (the driver: cuInit, cuDriverGetVersion,
 *     cuGetProcAddress per entry; a library without cuGetProcAddress looks each entry up with
 *     dlsym through cushim__resolve_tables and a lookup of its own);
 *   - its generated table (gen/gen-driver-table.py with the library's header and prefix): the
 *     entries, the live table and its lazy and missing stubs, as cushim__mode_tables;
 *   - a public init that calls cushim__library_load() on a fast path of its own.
 * Everything else is shared: the search (CUSHIM_DRIVER-style variable first and alone), the
 * checks before dlopen, the message naming every path tried, the once-only load (its lock held
 * only around flags, never across the library's code), the answer to a call that re-enters
 * from inside `start`, and fork: handlers registered before the first load take every
 * library's lock around fork() (it is only ever held briefly), and in the child a library that
 * was loaded, or was being loaded by another thread, answers CUDA_ERROR_NOT_INITIALIZED with
 * the reason. */
#ifndef CUSHIM_LOADER_LIBRARY_H
#define CUSHIM_LOADER_LIBRARY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/hints.h"
#include "cushim.h"
#include "loader/table.h"

typedef struct cushim__library cushim__library;

struct cushim__library {
    /* What it is, in the loader's sentences. */
    const char *noun;              /* "CUDA driver": "no CUDA driver found; tried: " */
    const char *the_noun;          /* "the driver": "... that the driver cannot be used there" */
    const char *file_noun;         /* "a driver library": "give the absolute path of ..." */
    const char *install_hint;      /* "install the NVIDIA driver" */
    const char *env;               /* "CUSHIM_DRIVER": when set, the only candidate */
    const char *init_name;         /* "cushim_init": the function a re-entrant call is told of */
    const char *const *candidates; /* tried in order when env is not set */
    size_t candidate_count;
    const char *marker;     /* a symbol only that library exports: "cuInit" */
    int header_version;     /* the version of the header its table was generated from */
    bool per_thread_stream; /* info.per_thread_stream (the driver's; false for the others) */
    /* Called once the library is open and has `marker`: initialises it, fills the table and
     * sets the status with cushim__library_finish(). Runs without the lock; a call into
     * cushim from inside it on the same thread is answered at once (cushim__library_load). */
    void (*start)(cushim__library *lib, void *handle, void *marker);

    /* Its table: the entries, and one set of tables per mode (the driver has two default-stream
     * modes; a library without modes has one), and which entries of each mode resolved. */
    const cushim__entry *entries;
    unsigned entry_count;
    const cushim__mode_tables *const *modes;
    unsigned mode_count;
    bool *resolved; /* mode_count * entry_count */

    /* The state: loaded once, again only after cushim_testing_reinit(). The lock guards the
     * flags and is never held while the library's own code runs (dlopen, `start`): a thread
     * that finds another one loading waits on `done`. */
    pthread_mutex_t lock;
    pthread_cond_t done;
    bool attempted;          /* under lock */
    bool loading;            /* under lock: a thread is searching or starting it now */
    atomic_bool loaded;      /* set, with release, once the table is complete */
    CUresult init_result;    /* under lock */
    cushim_driver_info info; /* the public status of the load */
    char message[4096];      /* info.message */
    char loaded_path[4096];  /* info.path */
    bool saw_non_library;    /* a candidate opened, but it had no marker */
};

/* Appends to the library's status message; cut, never overrun, when long. */
void cushim__library_note(cushim__library *lib, const char *fmt, ...) CUSHIM__PRINTF(2, 3);

/* Sets the status and the result that goes with it. */
void cushim__library_finish(cushim__library *lib, cushim_driver_status status, CUresult r);

/* Searches, opens and starts the library, once; later calls return the cached result, after
 * waiting for a load in progress on another thread. Logs the message of a load it did. On the
 * thread that is loading it (a call from inside the library's own initialisation, such as an
 * interposer's cuInit calling cushim_init) it returns CUDA_ERROR_NOT_INITIALIZED at once, with
 * the last error saying so. */
CUresult cushim__library_load(cushim__library *lib);

/* Whether this thread is inside the library's load (its dlopen or its `start`). */
bool cushim__library_loading_here(const cushim__library *lib);

/* Forgets the load (for cushim_testing_reinit): the tables back to their lazy stubs. The caller
 * holds lib->lock, and no load is in progress. */
void cushim__library_forget(cushim__library *lib);

#endif
