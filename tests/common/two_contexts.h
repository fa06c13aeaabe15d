/* Two contexts on device 0, X and Y, both made with none current: the fixture of the tests of
 * the context rule (what is made in a context is made with it current, and the previous current
 * context comes back). Include after testutil.h. */
#ifndef CUSHIM_TEST_TWO_CONTEXTS_H
#define CUSHIM_TEST_TWO_CONTEXTS_H

#include "testutil.h"

static cushim_context *X, *Y;

static inline int two_contexts_setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    if (cushim_context_create(&X, 0, 0) != CUDA_SUCCESS) return -1;
    if (cushim_context_create(&Y, 0, 0) != CUDA_SUCCESS) return -1;
    /* These tests follow the driver's destroys; recycling would keep the objects instead
     * (test_recycle.c tests that). */
    if (cushim_context_set_recycling(X, false, false) != CUDA_SUCCESS) return -1;
    return cushim_context_set_recycling(Y, false, false) == CUDA_SUCCESS ? 0 : -1;
}

/* Releases both and fails the test when the driver still holds a context or a module. Other
 * kinds are left to the tests: a test of a refused destroy leaves its stream with the driver on
 * purpose. */
static inline int two_contexts_teardown(void **state) {
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(X);
    cushim_context_release(Y);
    if (mock.live(CUSHIM_MOCK_MODULE) != 0) return -1;
    if (mock.live(CUSHIM_MOCK_CONTEXT) != 0) return -1;
    return mock_teardown(state);
}

/* A cmocka test with this fixture. */
#define TWO_CONTEXTS_TEST(f)                                                                       \
    cmocka_unit_test_setup_teardown(f, two_contexts_setup, two_contexts_teardown)

#endif
