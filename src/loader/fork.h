/* Internal: whether this process is a child forked after cushim initialised the driver. Part of
 * the bottom layer: the error sentences read it, and the loader sets it in the child. */
#ifndef CUSHIM_LOADER_FORK_H
#define CUSHIM_LOADER_FORK_H

#include <pthread.h>
#include <stdbool.h>

#include "cushim.h"

/* True in a child forked after this process initialised the driver: every slot of the table
 * then answers CUDA_ERROR_NOT_INITIALIZED with cushim__forked_reason. Written only in the
 * single-threaded child, before fork() returns there. */
extern bool cushim__forked;
extern const char cushim__forked_reason[];

/* In such a child, whether lock was free at the fork (then it is left free, and what it guards
 * is whole); false when a thread of the parent held it, and what it guards may be half-changed
 * and must be left alone. Never blocks. */
bool cushim__forked_lock_was_free(pthread_mutex_t *lock);

#endif
