/* The JIT options every load passes, and what is made of the logs the driver writes. */
#include <stdint.h>
#include <string.h>

#include "api/jit.h"
#include "loader/diag.h"

void cushim__jit_options(CUjit_option opts[CUSHIM__JIT_OPTIONS], void *vals[CUSHIM__JIT_OPTIONS],
                         char *error_log, char *info_log) {
    error_log[0] = '\0';
    info_log[0] = '\0';
    opts[0] = CU_JIT_ERROR_LOG_BUFFER;
    vals[0] = error_log;
    opts[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    vals[1] = (void *)(uintptr_t)CUSHIM__JIT_LOG_BYTES;
    opts[2] = CU_JIT_INFO_LOG_BUFFER;
    vals[2] = info_log;
    opts[3] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
    vals[3] = (void *)(uintptr_t)CUSHIM__JIT_LOG_BYTES;
}

const char *cushim__jit_tidy_log(char *log) {
    log[CUSHIM__JIT_LOG_BYTES - 1] = '\0';
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == '\r' || log[n - 1] == ' ')) log[--n] = 0;
    return log;
}

CUresult cushim__jit_load_failed(CUresult r, const char *fn, const char *path, char *error_log,
                                 char *info_log) {
    const char *why = cushim__jit_tidy_log(error_log);
    if (*why == '\0') why = cushim__jit_tidy_log(info_log);
    if (*why == '\0') why = cushim_error_string(r);
    if (path != NULL) {
        return cushim__fail(r, "%s: %s: %s: %s", fn, path, cushim_error_name(r), why);
    }
    return cushim__fail(r, "%s: %s: %s", fn, cushim_error_name(r), why);
}

void cushim__jit_log_info(const char *fn, char *info_log) {
    const char *info = cushim__jit_tidy_log(info_log);
    if (*info != '\0') cushim__log(CUSHIM_LOG_DEBUG, "%s: JIT info: %s", fn, info);
}
