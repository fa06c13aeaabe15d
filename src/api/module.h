/* Internal: modules and libraries, which own the functions (api/function.h) looked up in them. */
#ifndef CUSHIM_API_MODULE_H
#define CUSHIM_API_MODULE_H

#include <pthread.h>

#include "api/function.h"
#include "api/jit.h"
#include "api/object.h"

struct cushim_module {
    cushim__object obj;
    cushim_context *ctx;
    CUmodule raw;
    pthread_mutex_t lock; /* guards the function list */
    cushim_function *functions;
    char *path; /* the file it came from, for sentences; NULL for an image in memory */
};

struct cushim_library {
    cushim__object obj;
    CUlibrary raw;
    pthread_mutex_t lock;
    cushim_function *functions;
    /* The JIT options and logs live as long as the library: with lazy loading the driver
     * compiles a PTX when a kernel is first asked for, not in cuLibraryLoadData (a broken PTX
     * loads fine; seen with driver 580), and what it was given must still be there then. */
    CUjit_option jit_opts[CUSHIM__JIT_OPTIONS];
    void *jit_vals[CUSHIM__JIT_OPTIONS];
    char error_log[CUSHIM__JIT_LOG_BYTES];
    char info_log[CUSHIM__JIT_LOG_BYTES];
};

#endif
