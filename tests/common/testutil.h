/* Shared by the tests on the mock (unit, fault, robust): the mock's control API, a log capture,
 * cmocka, and making a context current. */
#ifndef CUSHIM_TESTUTIL_H
#define CUSHIM_TESTUTIL_H

#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cushim.h"
#include "assert_cu.h"
#include "cushim_mock.h"

static cushim_mock_api mock;

/* Messages the log handler saw, joined, and the count at each level. */
typedef struct test_log {
    char text[8192];
    int count[CUSHIM_LOG_OFF + 1];
} test_log;

static test_log captured;

static void capture_log(cushim_log_level level, const char *message, void *user) {
    test_log *log = user;
    log->count[level]++;
    size_t used = strlen(log->text);
    if (used + strlen(message) + 2 < sizeof log->text) {
        strcat(log->text, message);
        strcat(log->text, "\n");
    }
}

/* Opens the mock named by CUSHIM_DRIVER, resets it, and starts capturing the log. Every unit
 * test's setup calls this; a mock that cannot be opened fails the test. */
static inline int mock_setup(void **state) {
    (void)state;
    if (!cushim_mock_open(&mock, NULL)) return -1;
    mock.reset();
    memset(&captured, 0, sizeof captured);
    cushim_log_set_handler(capture_log, &captured, CUSHIM_LOG_DEBUG);
    return cushim_init() == CUDA_SUCCESS ? 0 : -1;
}

/* How many kinds of object the mock still holds, each printed: 0 when nothing leaked. */
static inline int mock_report_leaks(void) {
    int leaked = 0;
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) {
        if (mock.live((cushim_mock_kind)k) != 0) {
            fprintf(stderr, "# leaked: %d objects of mock kind %d\n",
                    mock.live((cushim_mock_kind)k), k);
            leaked++;
        }
    }
    return leaked;
}

static inline int mock_teardown(void **state) {
    (void)state;
    cushim_log_set_handler(NULL, NULL, CUSHIM_LOG_WARN);
    return 0;
}

/* Makes c (or, for NULL, no context) current on this thread through the raw table. */
static inline void make_current(cushim_context *c) {
    assert_ok(cushim_driver()->cuCtxSetCurrent(c ? cushim_context_raw(c) : NULL));
}

#endif
