/* Internal: the thread-local last-error sentence and the log. Shared by both layers. */
#ifndef CUSHIM_LOADER_DIAG_H
#define CUSHIM_LOADER_DIAG_H

#include "common/hints.h"
#include "cushim.h"

/* Sets this thread's cushim_last_error() sentence and returns r, so that a failure reads
 * `return cushim__fail(CUDA_ERROR_INVALID_VALUE, "...", ...);`. */
CUresult cushim__fail(CUresult r, const char *fmt, ...) CUSHIM__PRINTF(2, 3);
void cushim__set_error(const char *fmt, ...) CUSHIM__PRINTF(1, 2);
void cushim__clear_error(void);

/* Sends a message to the handler, or to stderr at or above CUSHIM_LOG. */
void cushim__log(cushim_log_level level, const char *fmt, ...) CUSHIM__PRINTF(2, 3);
/* Whether a message at this level would go anywhere: callers skip formatting otherwise. */
bool cushim__log_enabled(cushim_log_level level);

/* In a child forked after cushim initialised the driver (cushim__forked, loader/fork.h), the
 * locks of objects (a context's caches, a module's or a library's kernels, the device limits)
 * are never taken: a lock that another thread of the parent held at the fork stays held there
 * for good. No handler can free them at the fork, as they are per object and cushim keeps no
 * list of its objects. So every path to one of them checks cushim__forked first and refuses
 * with this: CUDA_ERROR_NOT_INITIALIZED naming fn, with the reason. Here rather than in fork.c,
 * which the last error reads: so the two do not depend on each other. */
CUresult cushim__forked_refusal(const char *fn);

#endif
