/* Internal: the tracer's kernels. Each CUfunction or CUkernel handle the program was given,
 * with its kernel's name, so that a launch's line names its kernel; and per kernel name, its
 * launches and (on the mock) its executions, for the summary. */
#ifndef CUSHIM_TRACE_KERNELS_H
#define CUSHIM_TRACE_KERNELS_H

#include <stdatomic.h>
#include <stddef.h>

#include "cushim.h"

typedef struct cushim__kernel {
    struct cushim__kernel *next; /* every kernel, under the unit's lock */
    _Atomic unsigned long long launches, runs, run_ns, instructions;
    /* The name on a line of its own: the writer reads it while launches count on. */
    _Alignas(64) size_t name_len;
    char name[]; /* as the driver knows it (mangled for C++) */
} cushim__kernel;

/* Forgets every handle and kernel: only while no hook of the tracer and no observer runs. */
void cushim__kernels_reset(void);

/* After a successful call: learns the name of the handle that a call which makes one
 * (cuModuleGetFunction, cuLibraryGetKernel, cuKernelGetFunction, cuFuncGetName) gave. */
void cushim__kernels_learn(const cushim_hook_call *c);

/* The kernel of a handle, NULL when unknown. Lock-free: a launch's cost. */
cushim__kernel *cushim__kernels_find(const void *handle);

/* The kernel of that name, made if new; NULL when out of memory. */
cushim__kernel *cushim__kernels_named(const char *name);

/* The table of kernels, into buf (cut when it does not fit); its length, 0 when none. */
size_t cushim__kernels_print(char *buf, size_t cap);

#endif
