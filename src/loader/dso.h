/* Internal: NVRTC and nvJitLink, two more instances of the loader's library (library.h) beside
 * the driver. Each is a generated cushim__library (gen/gen-lib-table.py: its entries, its one
 * table, the symbol that marks it) and a cushim__dso with what differs from the driver: its
 * candidates are worked out at load time (the toolkit's folders), it starts by refusing another
 * major version and resolves every entry with dlsym (these libraries have no
 * cuGetProcAddress), and its status is reported as a cushim_lib_info. */
#ifndef CUSHIM_LOADER_DSO_H
#define CUSHIM_LOADER_DSO_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cushim.h"
#include "loader/library.h"

/* The candidates the search tries, with room for the paths made from folders. */
#define CUSHIM__DSO_CANDIDATES 6

typedef struct cushim__dso_state {
    const char *candidates[CUSHIM__DSO_CANDIDATES];
    char paths[CUSHIM__DSO_CANDIDATES][1024];
    bool composed; /* under the library's lock: info is filled from the status below */
    cushim_driver_status from_status;
    CUresult from_result;
    cushim_lib_info info;
    atomic_flag said; /* the absence was logged once */
} cushim__dso_state;

typedef struct cushim__dso {
    cushim_lib id;
    cushim__library *lib;
    const char *title; /* "NVRTC", in sentences */
    const char *file;  /* "libnvrtc.so": the soname adds ".<major>" */
    int header_major, header_minor;
    int failure; /* the library's own code for "cushim could not call it" */
    /* Calls the version entry fn (the library's marker): 0, or -1 when it failed. */
    int (*read_version)(void *fn, int *major, int *minor);
    cushim__dso_state *state;
} cushim__dso;

/* Loads the library once (thread-safe) and returns its result: CUDA_SUCCESS, or the code of
 * its status with the message in cushim_last_error(). */
CUresult cushim__dso_load(const cushim__dso *d);

/* The library's start hook (library.h), called by its generated one: refuses another major
 * version than the headers', else fills the table by dlsym. */
void cushim__dso_start(const cushim__dso *d, void *handle, void *version_fn);

/* For the lazy stub of entry `index` when the library could not be loaded: sets the last error
 * to the entry's name and why, logs that once per library at warn (a program using the drop-in
 * never asks cushim_last_error()), and returns the library's failure code. */
int cushim__dso_absent(const cushim__dso *d, unsigned index);

/* For the stub of an entry the loaded library lacks: the sentence, and the failure code. */
int cushim__dso_missing(const cushim__dso *d, unsigned index);

/* Why the library is not loaded (or the message of its load): every path tried, or the reason
 * a forked child cannot use it. */
const char *cushim__dso_why(const cushim__dso *d);

/* Forgets what was loaded (cushim_testing_reinit): the slots back to their lazy stubs. */
void cushim__dso_reset(const cushim__dso *d);

/* The loaded libraries, by id; NULL for an id that is none. */
const cushim__dso *cushim__dso_find(cushim_lib id);

#endif
