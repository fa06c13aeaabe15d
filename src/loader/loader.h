/* Internal: what the object layer needs from the loader. */
#ifndef CUSHIM_LOADER_LOADER_H
#define CUSHIM_LOADER_LOADER_H

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

#endif
