/* Internal: whether this process is a child forked after cushim initialised the driver. Part of
 * the bottom layer: the error sentences read it, and the loader sets it in the child. */
#ifndef CUSHIM_LOADER_FORK_H
#define CUSHIM_LOADER_FORK_H

#include <stdbool.h>

/* True in a child forked after this process initialised the driver: every slot of the table
 * then answers CUDA_ERROR_NOT_INITIALIZED with cushim__forked_reason. Written only in the
 * single-threaded child, before fork() returns there. */
extern bool cushim__forked;
extern const char cushim__forked_reason[];

#endif
