/* The driver statuses as words, written once: cushim-info prints them, and the tests that name
 * a status on a command line or in their output match them. Not part of the library: the
 * public header has the enum, and what a program prints for it is the program's business. */
#ifndef CUSHIM_COMMON_DRIVER_STATUS_H
#define CUSHIM_COMMON_DRIVER_STATUS_H

#include <stddef.h>

#include "cushim.h"

/* The status as an identifier, what scripts reading cushim-info's JSON match on. A status added
 * to the header later reads "unknown", never garbage. */
static inline const char *driver_status_token(cushim_driver_status s) {
    switch (s) {
    case CUSHIM_DRIVER_LOADED: return "loaded";
    case CUSHIM_DRIVER_NOT_FOUND: return "not_found";
    case CUSHIM_DRIVER_STUB: return "stub";
    case CUSHIM_DRIVER_TOO_OLD: return "too_old";
    case CUSHIM_DRIVER_INIT_FAILED: return "init_failed";
    case CUSHIM_DRIVER_UNUSABLE: return "unusable";
    }
    return "unknown";
}

/* The status of NVRTC or nvJitLink as an identifier, likewise. */
static inline const char *lib_status_token(cushim_lib_status s) {
    switch (s) {
    case CUSHIM_LIB_LOADED: return "loaded";
    case CUSHIM_LIB_NOT_FOUND: return "not_found";
    case CUSHIM_LIB_WRONG_VERSION: return "wrong_version";
    }
    return "unknown";
}

/* The same words for people ("not found"), written into buf, which is returned. */
static inline const char *driver_status_words(cushim_driver_status s, char *buf, size_t n) {
    const char *token = driver_status_token(s);
    size_t i = 0;
    for (; n > 0 && i < n - 1 && token[i] != '\0'; i++) buf[i] = token[i] == '_' ? ' ' : token[i];
    if (n > 0) buf[i] = '\0';
    return buf;
}

#endif
