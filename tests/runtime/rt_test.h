/* Shared by the runtime's tests: cmocka, and an assertion on a cudaError_t that prints both
 * names and cushim's sentence when they differ. The tests are CUDA C++ compiled by nvcc with
 * -cudart none and linked to libcushim-cudart. */
#ifndef CUSHIM_TESTS_RT_TEST_H
#define CUSHIM_TESTS_RT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka's header has no extern "C" of its own in the versions Debian ships. */
extern "C" {
#include <cmocka.h>
}
#include <cuda_runtime.h>

#define assert_rt(want, call)                                                                      \
    do {                                                                                           \
        cudaError_t got_ = (call);                                                                 \
        if (got_ != (want)) {                                                                      \
            fail_msg("%s: got %s (%s), want %s", #call, cudaGetErrorName(got_),                    \
                     cudaGetErrorString(got_), cudaGetErrorName(want));                            \
        }                                                                                          \
    } while (0)

#define assert_rt_ok(call) assert_rt(cudaSuccess, call)

#endif
