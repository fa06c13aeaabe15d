/* Internal: the loader of the libraries other than the driver (NVRTC, nvJitLink). Each is one
 * cushim__dso: what the generator read in its header (names, entries, version) and one state
 * (lock, status, message, what resolved). The rules are the driver's: found at run time, opened
 * once and never closed, every entry resolved once (here by dlsym, as these libraries have no
 * cuGetProcAddress), no slot ever NULL. */
#ifndef CUSHIM_LOADER_DSO_H
#define CUSHIM_LOADER_DSO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cushim.h"

/* One entry: the slot's name, the symbol dlsym is asked for, where the slot lies. */
typedef struct cushim__dso_entry {
    const char *name;
    const char *symbol;
    size_t offset;
} cushim__dso_entry;

/* What a load found; written under `lock`, read by everyone once `loaded` or `attempted` says
 * it is final. */
typedef struct cushim__dso_state {
    pthread_mutex_t lock;
    bool attempted; /* under lock */
    atomic_bool loaded;
    atomic_flag said; /* the absence was logged once */
    cushim_lib_info info;
    char message[4096];
    char path[4096];
} cushim__dso_state;

#define CUSHIM__DSO_STATE_INIT                                                                     \
    { PTHREAD_MUTEX_INITIALIZER, false, false, ATOMIC_FLAG_INIT, {0}, "", "" }

/* One library, generated (gen/gen-lib-table.py) but for its state. */
typedef struct cushim__dso {
    cushim_lib id;
    const char *title;          /* "NVRTC", in sentences */
    const char *env;            /* "CUSHIM_NVRTC" */
    const char *file;           /* "libnvrtc.so": the soname adds ".<major>" */
    const char *version_symbol; /* "nvrtcVersion" */
    int header_major, header_minor;
    int failure; /* the library's own code for "cushim could not call it" */
    unsigned count;
    const cushim__dso_entry *entries;
    void *live;
    const void *lazy, *missing;
    size_t table_size;
    /* Calls the version entry fn (from dlsym): 0, or -1 when it failed. */
    int (*read_version)(void *fn, int *major, int *minor);
    cushim__dso_state *state;
} cushim__dso;

/* Loads the library once (thread-safe) and returns its result: CUDA_SUCCESS, or the code of
 * its status with the message in cushim_last_error(). */
CUresult cushim__dso_load(const cushim__dso *d);

/* For the lazy stub of entry `index` when the library could not be loaded: sets the last error
 * to the entry's name and why, logs that once per library at warn (a program using the drop-in
 * never asks cushim_last_error()), and returns the library's failure code. */
int cushim__dso_absent(const cushim__dso *d, unsigned index);

/* For the stub of an entry the loaded library lacks: the sentence, and the failure code. */
int cushim__dso_missing(const cushim__dso *d, unsigned index);

/* Forgets what was loaded (cushim_testing_reinit): the slots back to their lazy stubs. */
void cushim__dso_reset(const cushim__dso *d);

/* The loaded libraries, by id; NULL for an id that is none. */
const cushim__dso *cushim__dso_find(cushim_lib id);

#endif
