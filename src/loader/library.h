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

#include <stdbool.h>

#include "common/hints.h"
#include "cushim.h"
#include "loader/library_type.h"

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
