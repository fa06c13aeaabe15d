/* Internal: what the object layer needs from the loader. */
#ifndef CUSHIM_LOADER_LOADER_H
#define CUSHIM_LOADER_LOADER_H

#include <stdatomic.h>

#include "cushim.h"

/* The resolved table. Valid to call through once cushim_init() has returned CUDA_SUCCESS;
 * every object exists only after that, so object code calls it without checking again. */
extern cushim_driver_table cushim__table;

/* True in a child forked after this process initialised the driver: every slot of the table
 * then answers CUDA_ERROR_NOT_INITIALIZED with cushim__forked_reason. */
extern bool cushim__forked;
extern const char cushim__forked_reason[];

#endif
