/* Internal: the type of a library that cushim loads at run time, its words and its state (the
 * seam for adding one is described in library.h). A header of its own, below both the load
 * (library.c) and the tables (tables.c), which both read it. */
#ifndef CUSHIM_LOADER_LIBRARY_TYPE_H
#define CUSHIM_LOADER_LIBRARY_TYPE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

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

#endif
