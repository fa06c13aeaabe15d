/* Internal: what the object layer needs from the loader. */
#ifndef CUSHIM_LOADER_LOADER_H
#define CUSHIM_LOADER_LOADER_H

#include "cushim.h"

/* The resolved table. Valid to call through once cushim_init() has returned CUDA_SUCCESS;
 * every object exists only after that, so object code calls it without checking again. */
extern cushim_driver_table cushim__table;

#endif
