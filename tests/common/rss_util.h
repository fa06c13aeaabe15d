/* The resident set of the test process, for the tests that bound the mock's memory. */
#ifndef CUSHIM_RSS_UTIL_H
#define CUSHIM_RSS_UTIL_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer (which keeps freed memory in quarantine) or valgrind the resident set
 * says nothing of the mock's own memory, and the runs are slow: such runs are short and
 * unbounded. */
static inline bool rss_measured_elsewhere(void) {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#endif
#endif
    const char *preload = getenv("LD_PRELOAD");
    return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

#endif
