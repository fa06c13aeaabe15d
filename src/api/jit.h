/* Internal: the JIT options and logs that every module and library load passes, so that a PTX
 * that fails to compile says why. */
#ifndef CUSHIM_API_JIT_H
#define CUSHIM_API_JIT_H

#include "cushim.h"

/* The size of each log. The error log ends up in cushim_last_error(), which holds about this
 * much; longer logs are cut. */
#define CUSHIM__JIT_LOG_BYTES 4096
/* The error and info logs, each a buffer and its size. */
#define CUSHIM__JIT_OPTIONS 4

/* Fills the options with the two logs (each CUSHIM__JIT_LOG_BYTES) and empties them. The driver
 * writes the used sizes back into vals. */
void cushim__jit_options(CUjit_option opts[CUSHIM__JIT_OPTIONS], void *vals[CUSHIM__JIT_OPTIONS],
                         char *error_log, char *info_log);

/* Makes a log fit to print: NUL-terminated whatever the driver did, no trailing newlines. */
const char *cushim__jit_tidy_log(char *log);

/* The sentence for a failed load, naming fn and the path (NULL for an image in memory): the
 * JIT's error log when it wrote one, else the code's text. Returns r. */
CUresult cushim__jit_load_failed(CUresult r, const char *fn, const char *path, char *error_log,
                                 char *info_log);

/* Logs the JIT's info log at debug, when it wrote one. */
void cushim__jit_log_info(const char *fn, char *info_log);

#endif
