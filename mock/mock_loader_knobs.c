/* Knobs for the loader's tests, read from the environment at each call so that one process can
 * change them between cushim_testing_reinit() calls:
 *   CUSHIM_MOCK_INIT_DELAY_MS=N      cuInit sleeps N ms (a real first cuInit takes 100+ ms;
 *                                    fork and race tests need a window inside it)
 *   CUSHIM_MOCK_INIT_CALLBACK=SYM    cuInit first calls void SYM(void), found in the process's
 *                                    global scope (an executable linked with -rdynamic): how a
 *                                    test plays an interposer that calls back into cushim
 *   CUSHIM_MOCK_DRIVER_VERSION=V     cuDriverGetVersion reports V (0, negative, ...), or, with
 *                                    `unwritten`, succeeds without writing its argument
 *   CUSHIM_MOCK_PROC_ADDRESS=MODE    cuGetProcAddress fails for every entry (`fail`), or
 *                                    succeeds and hands out NULL (`null`)
 *   CUSHIM_MOCK_DEVICE_COUNT=N       cuDeviceGetCount reports N, whatever the devices are (a
 *                                    broken driver's count; cuDeviceGet still knows only the
 *                                    profile's devices) */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock.h"

const char *mock__init_knobs(void) {
    const char *cb = getenv("CUSHIM_MOCK_INIT_CALLBACK");
    if (cb != NULL && *cb != '\0') {
        void *sym = dlsym(RTLD_DEFAULT, cb);
        if (sym == NULL) return "CUSHIM_MOCK_INIT_CALLBACK names a function not in the process";
        void (*fn)(void);
        memcpy(&fn, &sym, sizeof fn);
        fn();
    }
    const char *delay = getenv("CUSHIM_MOCK_INIT_DELAY_MS");
    if (delay != NULL && *delay != '\0') {
        long ms = strtol(delay, NULL, 10);
        if (ms > 0) {
            struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
            }
        }
    }
    return NULL;
}

bool mock__version_knob(int *version, CUresult *r) {
    const char *v = getenv("CUSHIM_MOCK_DRIVER_VERSION");
    if (v == NULL || *v == '\0') return false;
    *r = CUDA_SUCCESS;
    if (strcmp(v, "unwritten") != 0) *version = (int)strtol(v, NULL, 10);
    return true;
}

bool mock__proc_knob(void **pfn, CUdriverProcAddressQueryResult *status, CUresult *r) {
    const char *m = getenv("CUSHIM_MOCK_PROC_ADDRESS");
    if (m == NULL || *m == '\0') return false;
    if (strcmp(m, "null") == 0) {
        *pfn = NULL;
        if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
        *r = CUDA_SUCCESS;
    } else {
        *r = CUDA_ERROR_NOT_FOUND;
    }
    return true;
}

bool mock__count_knob(int *count) {
    const char *c = getenv("CUSHIM_MOCK_DEVICE_COUNT");
    if (c == NULL || *c == '\0') return false;
    *count = (int)strtol(c, NULL, 10);
    return true;
}
