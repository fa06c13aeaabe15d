/* Shared by the tests that name a driver status on a command line or in their output. */
#ifndef CUSHIM_TEST_STATUS_WORD_H
#define CUSHIM_TEST_STATUS_WORD_H

#include "cushim.h"

static inline const char *status_word(cushim_driver_status s) {
    switch (s) {
    case CUSHIM_DRIVER_LOADED: return "loaded";
    case CUSHIM_DRIVER_NOT_FOUND: return "not_found";
    case CUSHIM_DRIVER_STUB: return "stub";
    case CUSHIM_DRIVER_TOO_OLD: return "too_old";
    case CUSHIM_DRIVER_INIT_FAILED: return "init_failed";
    }
    return "?";
}

#endif
