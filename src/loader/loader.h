/* Internal: what the object layer needs from the loader. */
#ifndef CUSHIM_LOADER_LOADER_H
#define CUSHIM_LOADER_LOADER_H

#include <stdatomic.h>

#include "cushim.h"

/* The table every layer calls through, in the translation unit's own default-stream mode: a
 * file compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM (the object layer of a
 * -Ddefault-stream=per-thread build) reaches the per-thread table under the same name. Valid to
 * call through at any time; every object exists only after cushim_init() has succeeded, so
 * object code calls it without checking again. */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cushim__table cushim__table_per_thread
#endif
extern cushim_driver_table cushim__table;

/* Incremented each time cushim_testing_reinit() forgets the driver: a cache of what the driver
 * said (the device limits) keeps the generation it was read in and is read again after. */
extern atomic_uint cushim__load_generation;
/* Contexts and libraries alive: cushim_testing_reinit() refuses while any is (every other
 * object holds a context). */
extern atomic_int cushim__live_roots;

/* A symbol the loaded driver exports beyond the driver API (the mock's optional seams:
 * cushim_mock_set_error_sink, cushim_mock_set_kernel_observer), NULL when none or no driver. */
void *cushim__driver_export(const char *name);

#endif
